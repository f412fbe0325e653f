"""agreekit: agreement measures between rankings, partitions and evaluation metrics.

Areas (one module per concept):

* weighted rank correlations and their standardization — :mod:`agreekit.weighting`,
  :mod:`agreekit.correlation`, :mod:`agreekit.moments`, :mod:`agreekit.standardization`
* Kemeny consensus rankings — :mod:`agreekit.consensus`
* clustering agreement — :mod:`agreekit.agreement`
* bootstrap meta-evaluation of IR metrics — :mod:`agreekit.bootstrap`, :mod:`agreekit.ir`
"""
__version__ = "0.1.0"
