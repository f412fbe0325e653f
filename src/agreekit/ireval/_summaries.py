"""Summaries of per-topic scores: arithmetic and geometric (Sakai 2006, Eq. 7) means, rounding."""

from __future__ import annotations

from typing import Any

import numpy as np

from agreekit._validation import InputError, check_float, check_int, real_array

#: offset of the geometric mean, Sakai (2006) Eq. 7
GM_OFFSET = 1e-5


def round_significant(x: Any, digits: int = 4) -> np.ndarray:
    """Round to ``digits`` significant figures (Sakai's per-topic values before a GM).

    Parameters
    ----------
    x : array_like
        Finite real values to round.
    digits : int, optional
        Significant figures kept, 1 to 17 (default 4).

    Returns
    -------
    numpy.ndarray
        The rounded values (float64).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.metrics import round_significant
    >>> round_significant([0.123456, 12.34567]).tolist()
    [0.1235, 12.35]
    """
    x = real_array("x", x)
    digits = check_int("digits", digits, minimum=1, maximum=17)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(x == 0, 0, np.floor(np.log10(np.abs(np.where(x == 0, 1, x)))))
    factor = 10.0 ** (digits - 1 - mag)
    return np.round(x * factor) / factor


def arithmetic_mean(x: Any, axis: int = 0) -> np.ndarray:
    """Arithmetic mean (the default summary statistic).

    Parameters
    ----------
    x : array_like
        Finite real scores (e.g. topics × systems), at least 1-D.
    axis : int or None, optional
        The axis averaged over (default 0: over topics; None: over all values).

    Returns
    -------
    numpy.ndarray
        The means.

    Examples
    --------
    >>> from agreekit.ireval.metrics import arithmetic_mean
    >>> arithmetic_mean([[0.1, 0.2], [0.3, 0.4]]).round(6).tolist()
    [0.2, 0.3]
    """
    x = real_array("x", x, min_ndim=1)
    return np.mean(x, axis=_check_axis(axis, x.ndim))


def _check_axis(axis: Any, ndim: int) -> int | None:
    return None if axis is None else check_int("axis", axis, minimum=-ndim, maximum=ndim - 1)


def geometric_mean(x: Any, axis: int = 0, *, offset: float = GM_OFFSET) -> np.ndarray:
    """Sakai's geometric mean, Eq. 7: ``exp(mean(ln(x + offset))) - offset``.

    Natural log; the offset lets zero values in.  This is *not* trec_eval's
    ``gm_map`` (which floors at 1e-5 and does not subtract the offset).

    Parameters
    ----------
    x : array_like
        Non-negative finite scores (e.g. topics × systems), at least 1-D.
    axis : int or None, optional
        The axis averaged over (default 0: over topics; None: over all values).
    offset : float, optional
        Added before the log and subtracted after (default 1e-5), finite and >= 0.

    Returns
    -------
    numpy.ndarray
        The geometric means.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.metrics import geometric_mean
    >>> round(float(geometric_mean([0.25, 1.0])), 6)
    0.500002
    """
    x = real_array("x", x, min_ndim=1)
    axis = _check_axis(axis, x.ndim)
    offset = check_float("offset", offset, minimum=0.0)
    if np.any(x + offset <= 0):
        raise InputError("x", f"geometric mean needs values > -offset ({-offset})")
    return np.exp(np.mean(np.log(x + offset), axis=axis)) - offset
