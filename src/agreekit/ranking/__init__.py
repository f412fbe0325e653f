"""Weighted rank correlations and their standardization (Lombardo 2025, "Standardization of Weighted Ranking Correlation Coefficients").

Orientation: every function takes rank vectors by default (``kind="ranks"``, 1 = top) or
scores (``kind="scores"``, higher = better, ranked by ``scipy.stats.rankdata(-s,
method="average")``).  Weighers are functions of the 1-based rank (scipy's are 0-based:
``lambda i: scipy_w(i - 1)``).  Defaults are the same everywhere: ``coefficient="kendall"``,
``weigher="harmonic"``, ``scheme="additive"``.

Runtime modules: :mod:`~agreekit.ranking.weighting` (weigher specs),
:mod:`~agreekit.ranking.correlation` (ρ_w, τ_w), :mod:`~agreekit.ranking.moments`
(exact null moments), :mod:`~agreekit.ranking.significance` (p-values),
:mod:`~agreekit.ranking.standardization` (g(Γ), :func:`standardize`) and
:mod:`~agreekit.ranking.tables` (coefficient tables).  The vocabularies (coefficients, schemes,
weigher families) are registries: ``agreekit.ranking.weighting.COEFFICIENT_REGISTRY``,
``agreekit.ranking.weighting.SCHEME_REGISTRY``, ``agreekit.ranking.weighting.WEIGHER_FAMILIES``.
Table generation (Monte Carlo, fits, reproduction report, figures) lives in
:mod:`agreekit.ranking.tablegen`.
"""

from agreekit.ranking.correlation import weighted_correlation, weighted_kendall, weighted_spearman
from agreekit.ranking.moments import ExactMoments, exact_moments
from agreekit.ranking.significance import WeightedCorrelationResult, exact_null_distribution, weighted_correlation_test
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.ranking.tables import (
    CoefficientTable,
    NullQuantiles,
    TableMoments,
    available_tables,
    find_table,
    load_table,
    null_moments,
    standardization_function,
    standardize,
    table_checksum,
)
from agreekit.ranking.weighting import Weigher, parse_weigher, scheme_id

__all__ = [
    "Weigher",
    "parse_weigher",
    "scheme_id",
    "weighted_spearman",
    "weighted_kendall",
    "weighted_correlation",
    "ExactMoments",
    "exact_moments",
    "StandardizationFunction",
    "BoundConsistencyError",
    "CoefficientTable",
    "TableMoments",
    "NullQuantiles",
    "standardize",
    "standardization_function",
    "load_table",
    "available_tables",
    "find_table",
    "table_checksum",
    "null_moments",
    "WeightedCorrelationResult",
    "weighted_correlation_test",
    "exact_null_distribution",
]
from agreekit.ranking._ranked_lists import RBOResult, ap_correlation, rank_biased_overlap  # noqa: E402

__all__ += ["RBOResult", "rank_biased_overlap", "ap_correlation"]
from agreekit.ranking._ap_null import APCorrelationResult, ap_correlation_test  # noqa: E402

__all__ += ["APCorrelationResult", "ap_correlation_test"]
from agreekit.ranking._rbo_null import RBOTestResult, rank_biased_overlap_test  # noqa: E402

__all__ += ["RBOTestResult", "rank_biased_overlap_test"]
