"""agreekit: agreement measures between rankings, partitions and evaluation metrics.

Areas (one package each, every one an attribute of ``agreekit``, imported on first use):

* weighted rank correlations and their standardization — :mod:`agreekit.ranking`
  (table generation in :mod:`agreekit.ranking.tablegen`)
* Kemeny consensus rankings — :mod:`agreekit.consensus`
* clustering agreement — :mod:`agreekit.clustering`
* IR evaluation: metrics and the bootstrap — :mod:`agreekit.ireval`
* meta-evaluation of evaluation metrics — :mod:`agreekit.metaeval`
* small example data sets with loaders — :mod:`agreekit.datasets`

The main names of the ranking area are re-exported here (``agreekit.weighted_kendall``, …).
Nothing heavy is imported by ``import agreekit``: areas and names load lazily (PEP 562).

>>> import agreekit
>>> round(agreekit.clustering.adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 1]), 6)
1.0
"""

from __future__ import annotations

import importlib

from agreekit._validation import InputError


def _numba_cache_possible(package_dir: str) -> bool:
    """Whether numba can probably cache its kernels here (``os.access`` only: imports nothing)."""
    import os

    if os.environ.get("NUMBA_CACHE_DIR"):
        return True
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for path in (package_dir, os.path.join(base, "numba")):
        probe = path
        while probe and not os.path.exists(probe) and os.path.dirname(probe) != probe:
            probe = os.path.dirname(probe)
        if os.path.isdir(probe) and os.access(probe, os.W_OK | os.X_OK):
            return True
    return False


def _numba_cache_check() -> None:
    # numba raises RuntimeError at decoration time (import) when it has no writable cache folder: then
    # import agreekit._jit first: its last-resort cache locator keeps them in a temporary folder (one warning)
    import os

    if not _numba_cache_possible(os.path.dirname(os.path.abspath(__file__))):
        importlib.import_module("agreekit._jit")


_numba_cache_check()

__version__ = "0.2.0"  # the one source of the version (pyproject reads it; CHANGELOG.md's newest heading agrees)

#: the area packages, imported on first attribute access
_AREAS = ("ranking", "consensus", "clustering", "ireval", "metaeval", "datasets")

#: re-exported names -> the module that defines them
_NAMES = {
    "Weigher": "agreekit.ranking.weighting",
    "parse_weigher": "agreekit.ranking.weighting",
    "weighted_spearman": "agreekit.ranking.correlation",
    "weighted_kendall": "agreekit.ranking.correlation",
    "weighted_correlation": "agreekit.ranking.correlation",
    "ExactMoments": "agreekit.ranking.moments",
    "exact_moments": "agreekit.ranking.moments",
    "StandardizationFunction": "agreekit.ranking.standardization",
    "BoundConsistencyError": "agreekit.ranking.standardization",
    "standardize": "agreekit.ranking.tables",
    "load_table": "agreekit.ranking.tables",
    "WeightedCorrelationResult": "agreekit.ranking.significance",
    "weighted_correlation_test": "agreekit.ranking.significance",
}

__all__ = ["__version__", "InputError", *_AREAS, *_NAMES]


def __getattr__(name: str):
    if name in _AREAS:
        module = importlib.import_module(f"agreekit.{name}")
        globals()[name] = module
        return module
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'agreekit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
