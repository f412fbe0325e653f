"""agreekit: agreement measures between rankings, partitions and evaluation metrics.

Areas (one module per concept):

* weighted rank correlations and their standardization — :mod:`agreekit.weighting`,
  :mod:`agreekit.correlation`, :mod:`agreekit.moments`, :mod:`agreekit.standardization`
* Kemeny consensus rankings — :mod:`agreekit.consensus`
* clustering agreement — :mod:`agreekit.agreement`
* bootstrap meta-evaluation of IR metrics — :mod:`agreekit.bootstrap`, :mod:`agreekit.ir`
"""
__version__ = "0.1.0"

from agreekit._validation import InputError
from agreekit.correlation import weighted_correlation, weighted_kendall, weighted_spearman
from agreekit.moments import ExactMoments, exact_moments
from agreekit.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.tables import load_table, standardize
from agreekit.weighting import Weigher, parse_weigher

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
]
