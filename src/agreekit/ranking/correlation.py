"""Weighted Spearman ρ_w and Kendall τ_w between two rankings (Lombardo 2025, Section 2.2).

Orientation: by default (``kind="ranks"``) the inputs are *rank vectors*, ``x[i]`` the
1-based position of item ``i`` (1 = top); with ``kind="scores"`` they are scores, higher =
better, turned into ranks by ``scipy.stats.rankdata(-s, method="average")`` (the best score
gets rank 1, tied scores their average rank).  Do not pass ``scipy.stats.rankdata(s)`` of
scores as ranks: that ranks ascending, so the *worst* item gets rank 1 and the largest
weight.  Repeated rank values are ties, replaced by average ranks (``ties="average"``,
the default) or rejected (``ties="raise"``).  Per-item weights combine the weighting function at both ranks,
``f(x_i) + f(y_i)`` (additive, Eq. 12) or ``f(x_i) f(y_i)`` (multiplicative,
Eq. 13).  ρ_w is the weighted Pearson correlation of the two rank vectors with
weighted means (Eq. 7); τ_w is Eq. 8 with pair weight ``w_i w_j``.

References
----------
.. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
       Coefficients", arXiv:2504.08428, 2025, Eqs. 7, 8, 12, 13.
"""

from __future__ import annotations

import numpy as np

from agreekit._docstrings import docfill
from agreekit._jit import pick
from agreekit.ranking import _kernels as _k
from agreekit.ranking import _ties
from agreekit._validation import InputError, check_choice, check_same_length, integral_ranks, numeric_vector

# the parsed configuration of the inner layers, importable from this public module (the CLI builds it)
from agreekit.ranking._config import Config, configuration
from agreekit.ranking._log_kernels import log_batch_identity, log_coefficient
from agreekit.ranking._rescaling import item_weights, scratch_table, weigher_table

__all__ = ["weighted_spearman", "weighted_kendall", "weighted_correlation"]

TIES = ("average", "raise")
KINDS = ("ranks", "scores")


class _DefaultCoefficient(str):
    """``"kendall"`` as the default of ``weighted_correlation``: equal to ``"kendall"``, but a call that
    relies on it is recognized (``is``) and warned that the default changed from ``"spearman"``."""


_DEFAULT = _DefaultCoefficient("kendall")


def _scores_to_ranks(parameter: str, values, *, ties: str = "average", min_length: int = 2):
    """Ranks of scores (higher = better): ``scipy.stats.rankdata(-s, method="average")``; ``(ranks, tied)``.

    The best score gets rank 1; tied scores get their average rank.  Without ties the
    ranks are the int64 permutation of 1..n (as :func:`_check_rank_values` returns them).
    NaN/inf, non-numeric (booleans, strings such as ``'1'``) or non-1-D input raise
    :class:`InputError` naming ``parameter``.
    """
    arr = numeric_vector(parameter, values, what="score", min_length=min_length)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise InputError(parameter, "must not contain NaN or infinite scores")
    from scipy.stats import rankdata

    ranks = rankdata(-arr.astype(np.float64), method="average")
    tied = np.unique(arr).size < arr.size
    if not tied:
        return np.ascontiguousarray(ranks, dtype=np.int64), False
    if ties == "raise":
        raise InputError(parameter, "has tied scores and `ties` is 'raise'")
    return ranks, True


def _as_ranks(parameter: str, values, *, kind: str = "ranks", ties: str = "average", min_length: int = 2):
    """``(ranks, tied)`` of a rank vector (``kind="ranks"``) or of scores (``kind="scores"``)."""
    if kind == "scores":
        return _scores_to_ranks(parameter, values, ties=ties, min_length=min_length)
    return _check_rank_values(parameter, values, ties=ties, min_length=min_length)


def _check_rank_values(parameter: str, values, *, ties: str = "average", min_length: int = 2):
    """Validate a rank vector that may hold ties; return ``(ranks, tied)``.

    Allowed values: positive integers 1..n (n = the length), 1 = top; a repeated
    value is a tie.  0, negative, non-integral (2.5), NaN/inf or values above n raise
    :class:`InputError` naming ``parameter``.  Without ties ``ranks`` is the int64
    permutation of 1..n; with ties (and ``ties="average"``) it is the float64 vector
    of average ranks, ``scipy.stats.rankdata(values, "average")``, so [1, 2, 2, 4] and
    [1, 2, 2, 3] both become [1, 2.5, 2.5, 4].  ``ties="raise"`` rejects ties.  Booleans and
    strings (``True``, ``'1'``) are not ranks.
    """
    ranks = integral_ranks(parameter, values, min_length=min_length)
    n = ranks.size
    lo, hi, tied = pick(_ties.rank_summary, 2 * n)(ranks)
    if lo < 1 or hi > n:
        raise InputError(
            parameter,
            f"must hold ranks in 1..{n} (a permutation of 1..{n}, 1 = top, repeated "
            f"values for ties); got values in [{lo}, {hi}]",
        )
    if not tied:
        return ranks, False
    if ties == "raise":
        raise InputError(
            parameter, f"must be a permutation of 1..{n}; it has ties (repeated ranks) and `ties` is 'raise'"
        )
    from scipy.stats import rankdata

    return rankdata(ranks, method="average"), True


def _tied_coefficient(x, y, weigher, coef, mult):
    """Γ of two rank vectors (average ranks, float) with ties (see :func:`weighted_kendall`)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = item_weights(weigher, x, y, mult)  # f at the average ranks; rescaled only for extreme weighers
    for name, v in (("x", x), ("y", y)):
        if v.min() == v.max():
            raise InputError(name, "has all ranks tied: the correlation is undefined")
    if _k.check_code(coef) == _k.SPEARMAN:  # an unknown code raises
        W = w.sum()
        dx = x - (w @ x) / W
        dy = y - (w @ y) / W
        return float((w * dx) @ dy / np.sqrt(((w * dx) @ dx) * ((w * dy) @ dy)))
    order = np.lexsort((y, x))
    _, yd = np.unique(y, return_inverse=True)
    yd = (yd + 1).astype(np.int64)
    work = _k.pair_work(x.size, _k.SPEARMAN)
    num = pick(_ties.kendall_weighted_tied, work)(order.astype(np.int64), x[order], yd, int(yd.max()), w)
    den_x = pick(_ties.untied_pair_weight, work)(x[order], w[order])
    oy = np.argsort(y, kind="stable")
    den_y = pick(_ties.untied_pair_weight, work)(y[oy], w[oy])
    return float(num / np.sqrt(den_x * den_y))


def weighted_correlation(
    x, y, *, coefficient=_DEFAULT, weigher="harmonic", scheme="additive", ties="average", kind="ranks"
) -> float:
    """τ_w or ρ_w of two rankings given as rank vectors (1 = top) or, with ``kind="scores"``, as scores (higher = better).

    Parameters
    ----------
    %(ranks)s
    coefficient : {'kendall', 'spearman'}, optional
        ``'kendall'`` (default, as ``scipy.stats.weightedtau``): :func:`weighted_kendall`;
        ``'spearman'``: :func:`weighted_spearman`.

        .. versionchanged:: 0.2
           The default was ``'spearman'``; a call without ``coefficient`` now uses
           ``'kendall'`` (the default of :func:`weighted_correlation_test`,
           :func:`exact_moments`, :func:`standardize` and the CLI) and emits a
           :class:`FutureWarning` for one release; pass ``coefficient=`` to silence it.
    %(weigher)s
    %(scheme)s

    Returns
    -------
    float
        The coefficient in [-1, 1].

    Examples
    --------
    >>> from agreekit.ranking import weighted_correlation
    >>> round(weighted_correlation([1, 2, 3, 4], [2, 1, 3, 4], coefficient="kendall"), 6)
    0.260274

    Scores, higher = better (here item 0 is the best in both):

    >>> round(weighted_correlation([0.9, 0.5, 0.4, 0.1], [0.7, 0.8, 0.3, 0.2], coefficient="kendall",
    ...                            kind="scores"), 6)
    0.260274
    """
    if coefficient is _DEFAULT:
        import warnings

        warnings.warn(
            "weighted_correlation(): the default coefficient changed from 'spearman' to 'kendall' "
            "(the default of weighted_correlation_test, exact_moments, standardize and the CLI); "
            "pass coefficient= to silence this warning",
            FutureWarning,
            stacklevel=2,
        )
        coefficient = "kendall"
    return configured_correlation(x, y, configuration(coefficient, scheme, weigher), ties=ties, kind=kind)


def configured_correlation(x, y, config: Config, *, ties="average", kind="ranks") -> float:
    """:func:`weighted_correlation` on a parsed configuration (``config`` from :func:`configuration`, taken as
    it is); ``ties``, ``kind`` and the rankings are validated here, once.  The entry of the CLI."""
    ties = check_choice("ties", ties, TIES)
    kind = check_choice("kind", kind, KINDS)
    x, tx = _as_ranks("x", x, kind=kind, ties=ties)
    y, ty = _as_ranks("y", y, kind=kind, ties=ties)
    check_same_length(("x", "y"), x, y)
    w, coef, mult = config.weigher, config.coef, config.mult
    if tx or ty:
        return _tied_coefficient(x, y, w, coef, mult)
    F = weigher_table(w, x.size)
    lf = scratch_table(F, x.size, coef)
    if lf is not None:  # an extreme weigher: this pair's weights rescaled in log space (see scratch_table)
        return float(log_coefficient(x, y, lf, coef, mult))
    return float(pick(_k.coefficient_pair, _k.pair_work(x.size, coef))(x, y, F, coef, mult))


_RANKS_DOC = """x, y : array_like
        With ``kind="ranks"`` (default): rank vectors, ``x[i]`` = position of item ``i``
        (1 = top): positive integers 1..n; repeated values are ties (e.g. [1, 2, 2, 4] or
        [1, 2, 2, 3]).  0, negative, non-integral (2.5), NaN values or values above n raise
        :class:`~agreekit.InputError` naming the parameter.  With ``kind="scores"``: real
        scores, higher = better (NaN/inf raise).
    kind : {'ranks', 'scores'}, optional
        ``'ranks'`` (default): ``x``, ``y`` are ranks, 1 = top.  ``'scores'``: higher =
        better; the ranks are ``scipy.stats.rankdata(-x, method="average")`` (best = 1, tied
        scores share their average rank), so the largest weight goes to the best item.
        ``weighted_kendall(rankdata(a), rankdata(b))`` of scores a, b is *wrong*: ascending
        ranks give the largest weight to the worst item; use ``kind="scores"``.
    ties : {'average', 'raise'}, optional
        ``'average'`` (default): tied values are replaced by their average ranks
        (``scipy.stats.rankdata(x, "average")``: [1, 2, 2, 4] and [1, 2, 2, 3] both
        become [1, 2.5, 2.5, 4]) before the weights and the coefficient are computed;
        without ties the input must be a permutation of 1..n.  ``'raise'``: ties raise
        :class:`~agreekit.InputError`."""

_WEIGHER_DOC = """weigher : str, Weigher or callable, optional
        Weighting function f of the **1-based** rank (default ``"harmonic"``, f(i) = 1/i),
        as a spec (``"harmonic"``, ``"inverse_square:n0=1"``, ``"power:p=1.5,n0=0"``,
        ``"dcg"``) or a callable ``f(i)``, i = 1..n.  scipy's ``weightedtau`` weighers take
        0-based ranks: pass ``lambda i: scipy_w(i - 1)`` for a scipy weigher ``scipy_w``
        (scipy's ``lambda r: 1 / (r + 1)`` is ``"harmonic"`` here); see
        :class:`~agreekit.ranking.Weigher`."""


def weighted_spearman(x, y, *, weigher="harmonic", scheme="additive", ties="average", kind="ranks") -> float:
    """Weighted Spearman ρ_w of two rankings given as rank vectors (1 = top) or, with ``kind="scores"``, as scores (higher = better).

    Eq. 7 of [1]_.

    Parameters
    ----------
    %(ranks)s
    %(weigher)s
    %(scheme)s

    Returns
    -------
    float
        ρ_w in [-1, 1].

    Raises
    ------
    InputError
        If ``x`` or ``y`` is not a valid rank vector (see above; ties with
        ``ties='raise'``), all its ranks are tied, the lengths differ, or
        ``weigher``/``scheme``/``ties`` is unknown.

    Notes
    -----
    ρ_w = Σ w_i (x_i - x̄)(y_i - ȳ) / sqrt(Σ w_i (x_i - x̄)² Σ w_i (y_i - ȳ)²) with weighted
    means x̄ = Σ w_i x_i / Σ w_i.  With constant weights it equals Spearman's ρ.  O(n).
    With ties, x and y are the average ranks and w_i combines f at the average ranks
    (f evaluated at non-integral ranks such as 2.5).

    %(references)s

    Examples
    --------
    >>> from agreekit import weighted_spearman
    >>> round(weighted_spearman([1, 2, 3, 4], [2, 1, 3, 4]), 6)
    0.639423
    >>> weighted_spearman([1, 2, 3], [1, 2, 3], weigher="inverse_square:n0=1")
    1.0
    >>> round(weighted_spearman([1, 2, 2, 4], [1, 3, 2, 4]), 6)  # a tie in x
    0.955967

    Scores (higher = better) with ``kind="scores"``: the same value as the ranks above:

    >>> round(weighted_spearman([0.9, 0.5, 0.5, 0.1], [0.9, 0.4, 0.6, 0.1], kind="scores"), 6)
    0.955967
    """
    return weighted_correlation(x, y, coefficient="spearman", weigher=weigher, scheme=scheme, ties=ties, kind=kind)


def weighted_kendall(x, y, *, weigher="harmonic", scheme="additive", ties="average", kind="ranks") -> float:
    """Weighted Kendall τ_w of two rankings given as rank vectors (1 = top) or, with ``kind="scores"``, as scores (higher = better).

    Eq. 8 of [1]_, in O(n log n).

    Parameters
    ----------
    %(ranks)s
    %(weigher)s
    scheme : {'additive', 'multiplicative'}, optional
        Combination of f at the two ranks into the item weight w_i.

    Returns
    -------
    float
        τ_w in [-1, 1].

    Raises
    ------
    InputError
        As :func:`weighted_spearman`.

    Notes
    -----
    τ_w = Σ_{i≠j} w_i w_j sgn(x_j - x_i) sgn(y_j - y_i) / Σ_{i≠j} w_i w_j.  Computed with
    a Fenwick tree over y while scanning items in x order: O(n log n) time, O(n)
    memory (O(n²) loop for n ≤ 48, where it is faster).  It equals
    ``scipy.stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i],
    additive=False)``; scipy's default (hyperbolic additive τ_h) is a different
    coefficient.  With constant weights it equals Kendall's τ.

    With ties (average ranks, sgn(0) = 0) the normalization is τ_b-style,
    sqrt(Σ_{x_i≠x_j} w_i w_j · Σ_{y_i≠y_j} w_i w_j), which again equals scipy's
    ``weightedtau`` with the call above; with constant weights it is Kendall's τ_b.

    %(references)s

    Examples
    --------
    >>> from agreekit import weighted_kendall
    >>> untied = weighted_kendall([1, 2, 3, 4], [2, 1, 3, 4])
    >>> tied = weighted_kendall([1, 2, 2, 4], [1, 3, 2, 4])  # a tie in x
    >>> round(untied, 6), round(tied, 6)
    (0.260274, 0.940789)

    Scores, higher = better: ``kind="scores"`` ranks them descending (best = rank 1).
    Ascending ``rankdata`` of the scores would weight the *worst* item most:

    >>> from scipy.stats import rankdata
    >>> a, b = [0.9, 0.7, 0.2, 0.1], [0.8, 0.9, 0.3, 0.2]
    >>> round(weighted_kendall(a, b, kind="scores"), 6)
    0.260274
    >>> round(weighted_kendall(rankdata(a), rankdata(b)), 6)  # wrong way round
    0.883472

    A scipy weigher ``scipy_w`` takes 0-based ranks; here ``f`` takes 1-based ranks, so
    ``lambda i: scipy_w(i - 1)`` gives the same weights (scipy's hyperbolic weigher is
    ``"harmonic"``).  τ_w then equals ``scipy.stats.weightedtau`` with those item weights:

    >>> import numpy as np
    >>> from scipy.stats import weightedtau
    >>> scipy_w = lambda r: 1.0 / (r + 1.0)
    >>> x, y = np.array([1, 2, 3, 4, 5]), np.array([2, 1, 3, 5, 4])
    >>> w = scipy_w(x - 1) * scipy_w(y - 1)        # multiplicative item weights, scipy's 0-based ranks
    >>> ours = weighted_kendall(x, y, weigher=lambda i: scipy_w(i - 1), scheme="multiplicative")
    >>> ref = weightedtau(x, y, rank=np.arange(5), weigher=lambda k: w[k], additive=False).statistic
    >>> bool(abs(ours - ref) < 1e-12), round(ours, 6)
    (True, -0.06378)
    """
    return weighted_correlation(x, y, coefficient="kendall", weigher=weigher, scheme=scheme, ties=ties, kind=kind)


_SCHEME_DOC = """scheme : {'additive', 'multiplicative'}, optional
        How f at the two ranks of an item combine into its weight (Eqs. 12-13)."""
_REFERENCES_DOC = """References
    ----------
    .. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation Coefficients", arXiv:2504.08428, 2025."""
# the shared parts of the three docstrings, substituted as scipy does (numpydoc and help() see the full text)
_DOC_PARTS = {"ranks": _RANKS_DOC, "weigher": _WEIGHER_DOC, "scheme": _SCHEME_DOC, "references": _REFERENCES_DOC}
for _f in (weighted_spearman, weighted_kendall, weighted_correlation):
    docfill(_DOC_PARTS)(_f)


def batch_coefficient(perms, *, coefficient, weigher, scheme) -> np.ndarray:
    """Γ(id, π) for every row π of ``perms`` (batched numba kernel, parallel over rows).

    Parameters
    ----------
    perms : array_like of int, shape (k, n)
        Each row a permutation of 1..n: the second ranking, the first being the
        identity (a_i = i).  Rows are *not* re-validated beyond shape and range
        (this is the hot path of enumeration and Monte Carlo sampling).
    coefficient : {'spearman', 'kendall'}
    weigher : str, Weigher or callable
    scheme : {'additive', 'multiplicative'}

    Returns
    -------
    ndarray of float64, shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ranking.correlation import batch_coefficient
    >>> batch_coefficient(np.array([[1, 2, 3], [3, 2, 1]]), coefficient="kendall",
    ...                   weigher="harmonic", scheme="additive").tolist()
    [1.0, -1.0]
    """
    config = configuration(coefficient, scheme, weigher)
    arr = np.asarray(perms)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise InputError("perms", f"must be a 2-D array with at least 2 columns; got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InputError("perms", "must be an integer array of 1-based ranks")
    n = arr.shape[1]
    if arr.size and (arr.min() < 1 or arr.max() > n):
        raise InputError("perms", f"rows must be permutations of 1..{n}")
    F = weigher_table(config.weigher, n)
    lf = scratch_table(F, n, config.coef)  # extreme weighers: each permutation on its own
    kernel = pick(_k.batch_identity if lf is None else log_batch_identity, arr.shape[0] * _k.pair_work(n, config.coef))
    return kernel(np.ascontiguousarray(arr, dtype=np.int64), F if lf is None else lf, config.coef, config.mult)
