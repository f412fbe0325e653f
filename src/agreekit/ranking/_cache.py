"""Null moments computed at the exact n when no table covers a configuration, with an on-disk cache.

:func:`computed_moments` returns Γ̄, V, V^ℓ of Γ(id, π) under uniform permutations for one
(coefficient, scheme, f(1..n)) configuration: by exact enumeration for n <= ``EXACT_MAX_N``
(:func:`agreekit.exact_moments`), otherwise from ``MC_SIZE`` seeded Monte Carlo permutations
(the seed is derived from the configuration, so the values are reproducible) with their standard
errors.  Results are kept in memory and in a JSON file per configuration under the user's cache
directory (``platformdirs.user_cache_dir("agreekit")``, or ``$AGREEKIT_CACHE_DIR`` when set), keyed
by the configuration, the weights f(1..n) (so a Python callable is keyed by its values), the
Monte Carlo size and the library version.  A damaged cache file is ignored and rewritten.

``STATS`` counts what happened (``computed``, ``memory_hits``, ``disk_hits``), for tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from agreekit import __version__
from agreekit.ranking._config import Config
from agreekit.ranking._montecarlo import monte_carlo_null
from agreekit.ranking._tied_null import NullSample
from agreekit.ranking.moments import _exact_moments
from agreekit.ranking._rescaling import weigher_table

#: exact enumeration up to this n (10! permutations, a second or two)
EXACT_MAX_N = 10
#: Monte Carlo permutations behind computed moments above EXACT_MAX_N
MC_SIZE = 100_000
#: bump when the computation changes (part of the key with the library version)
_FORMAT = 1
STATS = {"computed": 0, "memory_hits": 0, "disk_hits": 0}
_MEMORY: dict = {}


def cache_dir() -> Path:
    """``$AGREEKIT_CACHE_DIR`` if set, else the platform's user cache directory for agreekit."""
    env = os.environ.get("AGREEKIT_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("agreekit", appauthor=False))


def _version() -> str:
    return str(__version__)


#: the seed of the Monte Carlo moments is derived from the configuration with this fixed salt (the version in
#: which it was introduced), so that the same configuration gives the same numbers in every release; the
#: cache key itself carries the running version (a new release recomputes, and gets the same values)
_SEED_SALT = "0.1.0"


def _key(coefficient, scheme, F, n, size, version=None) -> str:
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "format": _FORMAT,
                "version": _version() if version is None else version,
                "coefficient": coefficient,
                "scheme": scheme,
                "n": int(n),
                "size": int(size),
            },
            sort_keys=True,
        ).encode()
    )
    h.update(np.ascontiguousarray(F, dtype=np.float64).tobytes())
    return h.hexdigest()


def _read(path: Path):
    try:
        d = json.loads(path.read_text("utf-8"))
        vals = tuple(float(d[k]) for k in ("mean", "var", "left_var", "mean_se", "var_se", "left_var_se"))
        if not all(math.isfinite(v) for v in vals):
            return None
        return vals + (str(d["source"]), int(d["size"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, record: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh, sort_keys=True)
        os.replace(tmp, path)
    except OSError:  # a read-only or full cache directory: the value is still returned
        pass


def computed_moments(config: Config, n: int, *, progress=None, size: int = MC_SIZE):
    """(mean, var, left_var, mean_se, var_se, left_var_se, source, size) at length n (no table needed).

    ``config`` is a parsed configuration (:func:`agreekit.ranking._config.configuration`); ``source`` is
    ``"exact"`` (enumeration, SEs 0, size = n!) or ``"monte-carlo"``.
    """
    coefficient, scheme, weigher = config.coefficient, config.scheme, config.weigher
    F = weigher_table(weigher, n)  # (2n,) for extreme weighers: the kernels need the log-weights
    key = _key(coefficient, scheme, F, n, size if n > EXACT_MAX_N else 0)
    hit = _MEMORY.get(key)
    if hit is not None:
        STATS["memory_hits"] += 1
        return hit
    path = cache_dir() / f"moments-{key[:32]}.json"
    got = _read(path)
    if got is not None:
        STATS["disk_hits"] += 1
        _MEMORY[key] = got
        return got
    STATS["computed"] += 1
    if n <= EXACT_MAX_N:
        m = _exact_moments(config, n, progress=False)
        out = (m.mean, m.var, m.left_var, 0.0, 0.0, 0.0, "exact", math.factorial(n))
    else:
        salted = _key(coefficient, scheme, F, n, size, version=_SEED_SALT)
        seed = np.random.SeedSequence([int(salted[i : i + 8], 16) for i in range(0, 32, 8)])
        if progress is None:
            progress = size * n >= 10**8
        null = monte_carlo_null(n, F, config.coef, config.mult, size, np.random.default_rng(seed), bool(progress))
        (mean, var, left), ses = NullSample(null, False).moments()
        out = (mean, var, left, *ses, "monte-carlo", int(size))
    _MEMORY[key] = out
    _write(
        path,
        {
            "mean": out[0],
            "var": out[1],
            "left_var": out[2],
            "mean_se": out[3],
            "var_se": out[4],
            "left_var_se": out[5],
            "source": out[6],
            "size": out[7],
            "coefficient": coefficient,
            "scheme": scheme,
            "weigher": weigher.spec,
            "n": int(n),
            "version": _version(),
        },
    )
    return out
