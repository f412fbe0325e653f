"""The on-demand Monte Carlo null moments are a function of the configuration only: a new release (another
``agreekit.__version__``) recomputes them (the cache key carries the version) and gets the same numbers."""

from __future__ import annotations

import pytest

from agreekit.ranking import _cache, null_moments


def test_monte_carlo_moments_do_not_depend_on_the_version(tmp_path, monkeypatch):
    monkeypatch.setenv("AGREEKIT_CACHE_DIR", str(tmp_path / "a"))
    _cache._MEMORY.clear()
    first = null_moments(weigher="dcg", n=25)
    assert first.source == "monte-carlo"
    monkeypatch.setenv("AGREEKIT_CACHE_DIR", str(tmp_path / "b"))
    monkeypatch.setattr(_cache, "_version", lambda: "99.0.0")
    _cache._MEMORY.clear()
    computed = _cache.STATS["computed"]
    second = null_moments(weigher="dcg", n=25)
    assert _cache.STATS["computed"] == computed + 1  # recomputed, not read from a cache
    assert (second.mean, second.var) == (first.mean, first.var)


@pytest.mark.parametrize("version", ["0.1.0", "0.2.0"])
def test_the_cache_key_carries_the_version(version, monkeypatch):
    monkeypatch.setattr(_cache, "_version", lambda: version)
    assert _cache._key("kendall", "additive", [1.0, 0.5], 30, 10) != _cache._key(
        "kendall", "additive", [1.0, 0.5], 30, 10, version="other"
    )
