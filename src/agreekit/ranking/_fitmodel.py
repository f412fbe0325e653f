"""The fitted-polynomial model the coefficient tables store: x(n) and the prediction SE.

Shared by the runtime (:mod:`agreekit.ranking.tables` evaluates the fits) and the table
generator (:mod:`agreekit.ranking.tablegen.fitting` makes them, and re-exports both names),
so that the runtime never imports the generator.
"""

from __future__ import annotations

import numpy as np

from agreekit._validation import InputError, check_choice

__all__ = ["TRANSFORMS", "x_of_n", "prediction_se"]

TRANSFORMS = ("inv_n", "inv_log_n", "inv_sqrt_n", "inv_cbrt_n")


def x_of_n(n, transform: str) -> np.ndarray | float:
    """x(n) = 1/n (``"inv_n"``, Eq. 35), 1/ln n (``"inv_log_n"``, Eq. 36, natural log), n^-1/2 or n^-1/3.

    The last two are candidates of the held-out basis choice
    (:func:`agreekit.ranking.tablegen.fitting.select_fit_held_out`).
    """
    return _x_of_n(n, check_choice("transform", transform, TRANSFORMS))


def _x_of_n(n, transform: str) -> np.ndarray | float:
    """:func:`x_of_n` of a transform already validated (a loaded table's fits, checked by the table schema)."""
    arr = np.asarray(n, dtype=np.float64)
    if transform == "inv_n":
        out = 1.0 / arr
    elif transform == "inv_log_n":
        out = 1.0 / np.log(arr)
    elif transform == "inv_sqrt_n":
        out = 1.0 / np.sqrt(arr)
    elif transform == "inv_cbrt_n":
        out = 1.0 / np.cbrt(arr)
    else:  # a table made without the schema check: the error names the transform
        raise InputError("transform", f"must be one of {TRANSFORMS}; got {transform!r}")
    return float(out) if np.ndim(out) == 0 else out


def prediction_se(n, transform: str, covariance) -> np.ndarray | float:
    """Standard error of a fitted polynomial at ranking length(s) ``n``: ``sqrt(v(x) C v(x)')``."""
    return _prediction_se(n, check_choice("transform", transform, TRANSFORMS), covariance)


def _prediction_se(n, transform: str, covariance) -> np.ndarray | float:
    """:func:`prediction_se` of a transform already validated."""
    cov = np.asarray(covariance, dtype=np.float64)
    x = np.atleast_1d(_x_of_n(np.asarray(n, dtype=np.float64), transform))
    v = np.vander(x, cov.shape[0], increasing=True)
    out = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", v, cov, v), 0.0))
    return float(out[0]) if np.ndim(n) == 0 else out
