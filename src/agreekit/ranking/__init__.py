"""Weighted rank correlations and their standardization (seed 000).

Runtime modules: :mod:`~agreekit.ranking.weighting` (weigher specs),
:mod:`~agreekit.ranking.correlation` (ρ_w, τ_w), :mod:`~agreekit.ranking.moments`
(exact null moments), :mod:`~agreekit.ranking.significance` (p-values),
:mod:`~agreekit.ranking.standardization` (g(Γ)) and
:mod:`~agreekit.ranking.tables` (coefficient tables, :func:`standardize`).
Table generation (Monte Carlo, fits, reproduction report, figures) lives in
:mod:`agreekit.ranking.tablegen`.
"""
from agreekit.ranking.correlation import weighted_correlation, weighted_kendall, weighted_spearman
from agreekit.ranking.moments import ExactMoments, exact_moments
from agreekit.ranking.significance import WeightedCorrelationResult, weighted_correlation_test
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.ranking.tables import CoefficientTable, load_table, standardize
from agreekit.ranking.weighting import Weigher, parse_weigher

__all__ = [
    "Weigher", "parse_weigher", "weighted_spearman", "weighted_kendall", "weighted_correlation",
    "ExactMoments", "exact_moments", "StandardizationFunction", "BoundConsistencyError",
    "CoefficientTable", "standardize", "load_table",
    "WeightedCorrelationResult", "weighted_correlation_test",
]
