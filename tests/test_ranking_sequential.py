"""Sequential Monte Carlo p-values and moments without a table (issue 24, items 2 and 3).

References: the exact null (all n! permutations) for the p-value the sequential test settles on;
the binomial rejection rate under H0; the pipeline's own sampler (agreekit.ranking.tablegen) for
the moments computed without a table.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agreekit import InputError, weighted_correlation_test
from agreekit.ranking import _cache
from agreekit.ranking.significance import SEQUENTIAL_H
from agreekit.ranking.tables import null_moments, standardization_function, standardize


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AGREEKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_cache, "_MEMORY", {})
    return tmp_path


def _pair_with_pvalue_near(target, n=40, weigher="harmonic"):
    """(x, y) whose exact-ish two-sided p (10^5 fixed resamples) is within 0.05 of target."""
    x = np.arange(1, n + 1)
    rng = np.random.default_rng(12)
    for _ in range(200):
        y = rng.permutation(n) + 1
        ref = weighted_correlation_test(x, y, weigher=weigher, method="monte-carlo", n_resamples=20_000, rng=1)
        if abs(ref.pvalue - target) < 0.05:
            return x, y, ref
    raise AssertionError("no pair found")


def test_sequential_settles_a_large_pvalue_with_under_one_percent_of_the_resamples():
    x, y, ref = _pair_with_pvalue_near(0.5)
    res = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=100_000, rng=3, sequential=True)
    assert res.n_resamples_used <= 1000  # <= 1 % of n_resamples
    assert abs(res.pvalue - ref.pvalue) <= 3 * math.hypot(res.pvalue_se, ref.pvalue_se)
    # method="auto" without a table is sequential by default (dcg has no shipped table)
    auto = weighted_correlation_test(x, y, weigher="dcg", n_resamples=100_000, rng=3)
    assert auto.method == "monte-carlo" and auto.n_resamples_used <= 1000


def test_sequential_small_pvalue_uses_every_resample_and_the_plus_one_rule():
    x = np.arange(1, 31)
    res = weighted_correlation_test(
        x, x, method="monte-carlo", n_resamples=999, rng=0, sequential=True, alternative="greater"
    )
    assert res.n_resamples_used == 999 and res.pvalue == pytest.approx(1 / 1000)


def test_sequential_stopping_rule_by_hand():
    # the p-value is h / L, L = index (1-based) of the h-th exceedance in the fixed-size stream of the
    # same generator (the sample does not depend on the batching)
    from agreekit.ranking import _kernels as K
    from agreekit.ranking._montecarlo import monte_carlo_null as _monte_carlo_null
    from agreekit.ranking.weighting import parse_weigher

    n = 25
    x = np.arange(1, n + 1)
    y = np.random.default_rng(4).permutation(n) + 1
    res = weighted_correlation_test(
        x, y, method="monte-carlo", n_resamples=5000, rng=11, sequential=True, alternative="greater"
    )
    F = parse_weigher("harmonic").table(n)
    null = _monte_carlo_null(n, F, K.KENDALL, False, 5000, np.random.default_rng(11), False)
    hits = np.cumsum(null >= res.statistic - 1e-12 * max(abs(res.statistic), 1e-2))
    L = int(np.searchsorted(hits, SEQUENTIAL_H)) + 1
    assert res.n_resamples_used == L and res.pvalue == pytest.approx(SEQUENTIAL_H / L, rel=1e-15)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_sequential_rejection_rate_under_h0(alternative):
    rng = np.random.default_rng([24, len(alternative)])
    n, reps = 12, 2000
    x = np.arange(1, n + 1)
    p = np.array(
        [
            weighted_correlation_test(
                x,
                rng.permutation(n) + 1,
                method="monte-carlo",
                n_resamples=10_000,
                rng=rng,
                sequential=True,
                alternative=alternative,
            ).pvalue
            for _ in range(reps)
        ]
    )
    for alpha in (0.05, 0.01):
        rate = np.mean(p <= alpha)
        assert abs(rate - alpha) <= 3 * math.sqrt(alpha * (1 - alpha) / reps), (alpha, rate)


def test_sequential_option_is_validated():
    with pytest.raises(InputError) as exc:
        weighted_correlation_test([1, 2, 3], [3, 1, 2], sequential="yes")
    assert exc.value.parameter == "sequential"


def test_standardize_without_a_table_is_computed_once_then_cached(cache):
    before = dict(_cache.STATS)
    g1 = standardize(0.3, coefficient="kendall", scheme="additive", weigher="dcg", n=40)
    assert _cache.STATS["computed"] == before["computed"] + 1
    files = list(cache.glob("moments-*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())["weigher"] == "dcg"
    g2 = standardize(0.3, coefficient="kendall", scheme="additive", weigher="dcg", n=40)
    assert g2 == g1 and _cache.STATS["computed"] == before["computed"] + 1
    assert _cache.STATS["memory_hits"] == before["memory_hits"] + 1
    _cache._MEMORY.clear()  # a new process: read from disk, no computation
    assert standardize(0.3, weigher="dcg", n=40) == g1
    assert _cache.STATS["disk_hits"] == before["disk_hits"] + 1 and _cache.STATS["computed"] == before["computed"] + 1
    m = null_moments(weigher="dcg", n=40)
    assert m.source == "monte-carlo" and m.table is None and m.size == _cache.MC_SIZE and m.mean_se > 0
    files[0].write_text("{ damaged")  # a damaged cache file is recomputed, same values (seeded)
    _cache._MEMORY.clear()
    assert null_moments(weigher="dcg", n=40) == m
    assert _cache.STATS["computed"] == before["computed"] + 2


def test_computed_moments_equal_the_pipelines_sample_within_the_ses(cache):
    from agreekit.ranking.tablegen.sampling import sample_stream, summarize_sample

    n, size = 40, 200_000
    m = null_moments(coefficient="kendall", scheme="additive", weigher="dcg", n=n)
    g = sample_stream("kendall", n=n, size=size, weigher="dcg", scheme="additive", seed=20240)
    s = summarize_sample(g, n)
    d = g - s.mean
    var_se = np.std(d * d) / math.sqrt(size)
    left_se = np.std(np.where(d < 0, d * d, 0.0)) / math.sqrt(size)
    assert abs(m.mean - s.mean) <= 3 * math.hypot(m.mean_se, s.se)
    assert abs(m.var - s.var) <= 3 * math.hypot(m.var_se, var_se)
    assert abs(m.left_var - s.left_var) <= 3 * math.hypot(m.left_var_se, left_se)
    # and g built from the pipeline's moments agrees with the computed one to the same precision
    from agreekit.ranking.standardization import StandardizationFunction

    ref = StandardizationFunction.from_moments(s.mean, s.var, s.left_var)
    got = standardization_function(weigher="dcg", n=n)
    assert abs(got(0.3) - ref(0.3)) < 0.01


def test_exact_moments_below_eleven_and_forbidding_computation(cache):
    from agreekit import exact_moments

    m = null_moments(weigher="dcg", n=9)
    e = exact_moments(n=9, weigher="dcg")
    assert (m.source, m.mean, m.var, m.left_var) == ("exact", e.mean, e.var, e.left_var)
    with pytest.raises(InputError, match="no table") as exc:
        standardize(0.3, weigher="dcg", n=40, compute=False)
    assert exc.value.parameter == "weigher"
    with pytest.raises(InputError):
        standardize(0.3, weigher="dcg", n=40, table="kendall_additive_harmonic")  # given and not matching
    # a callable weigher without a table is computed too (keyed by its values f(1..n))
    assert standardize(0.3, weigher=lambda i: 1 / np.log2(i + 1), n=9) == standardize(0.3, weigher="dcg", n=9)


def test_shipped_table_results_unchanged(cache):
    from agreekit.ranking.tables import load_table

    tab = load_table("kendall_additive_harmonic")
    for n in (8, 30, 500):
        m = null_moments(n=n)
        assert m.table == "kendall_additive_harmonic" and (m.mean, m.var, m.left_var) == (
            tab.moments(n).mean,
            tab.moments(n).var,
            tab.moments(n).left_var,
        )
        assert standardize(0.25, n=n) == float(tab.standardization_function(n)(0.25))
    assert not list(cache.glob("*.json"))  # nothing computed
