"""agreekit: agreement measures between rankings, partitions and evaluation metrics.

Areas (one module per concept):

* weighted rank correlations and their standardization — :mod:`agreekit.ranking`
  (table generation in :mod:`agreekit.ranking.tablegen`)
* Kemeny consensus rankings — :mod:`agreekit.consensus`
* clustering agreement — :mod:`agreekit.clustering`
* IR evaluation: metrics and the bootstrap — :mod:`agreekit.ireval`
"""
__version__ = "0.1.0"

from agreekit._validation import InputError
from agreekit.ranking.correlation import weighted_correlation, weighted_kendall, weighted_spearman
from agreekit.ranking.moments import ExactMoments, exact_moments
from agreekit.ranking.significance import WeightedCorrelationResult, weighted_correlation_test
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.ranking.tables import load_table, standardize
from agreekit.ranking.weighting import Weigher, parse_weigher

__all__ = [
    "__version__",
    "InputError",
    "Weigher",
    "parse_weigher",
    "weighted_spearman",
    "weighted_kendall",
    "weighted_correlation",
    "ExactMoments",
    "exact_moments",
    "StandardizationFunction",
    "BoundConsistencyError",
    "standardize",
    "load_table",
    "WeightedCorrelationResult",
    "weighted_correlation_test",
]
