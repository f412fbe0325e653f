"""Input handling and the Emond–Mason algebra: score matrices, the combined input
matrix, τ_x, Kemeny distance, average τ_x and the penalty.

Conventions (ConsRank's, after Emond & Mason 2002): a ranking is a vector of rank
positions — positive integers, 1 = best, tied items share a value, NaN = item not
ranked; 0, negative and non-integer values are rejected.  Only the order of the values
matters (gaps are allowed: ``[1, 1, 5]`` is the same weak order as ``[1, 1, 2]``).  The score matrix of a ranking has ``a_ij = +1`` if item *i* is
ranked ahead of or tied with *j*, ``-1`` if behind, and ``0`` on the diagonal or when
*i* or *j* is unranked.
"""

from __future__ import annotations

from dataclasses import dataclass

import math

import numba as nb
import numpy as np

from agreekit._docstrings import docfill
from agreekit._jit import numpy_version, pick
from agreekit._validation import InputError, check_name, check_not_masked, check_rectangular

__all__ = [
    "RankingData",
    "as_rankings",
    "score_matrix",
    "combined_input_matrix",
    "tau_x",
    "kemeny_distance",
    "average_tau_x",
    "penalty",
    "dense_ranks",
    "ordering_string",
]


#: Weights whose largest lies in ``[1, 2**WEIGHT_KEEP_EXPONENT)`` are used as they are (integer
#: frequencies keep their bits, and the MIP its integral mode); any others are multiplied by the
#: power of two ``2**-e`` with ``2**e <= max(w) < 2**(e + 1)``, which puts the largest in
#: ``[1, 2)``.  The consensus depends only on the ratios of the weights, and a power of two keeps
#: the bits of every ratio; the solvers' tolerances (``1e-9 · max(Σ|c_ij|, 1)``) and HiGHS's cost
#: range (|cost| < 1e20) then hold whatever the scale of the weights.
WEIGHT_KEEP_EXPONENT = 32


@dataclass(frozen=True)
class RankingData:
    """Validated judges × items rankings with their row weights and item labels.

    Build it with :func:`as_rankings` or :func:`read_rankings`, which check the values; the
    constructor itself checks nothing.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, m)
        Rank positions (float64): 1 = best, equal values = ties, NaN = unranked.
    weights : numpy.ndarray, shape (n,)
        Non-negative row weights as given (frequencies of identical rankings); the consensus
        depends only on their ratios.
    labels : tuple of str, length m
        Item labels (columns of ``X``).

    Attributes
    ----------
    n_items : int
        Number of items m.
    total_weight : float
        ``Σ w_k`` in the scale of ``weights`` (``inf`` if the sum exceeds float64's range;
        nothing computed from the rankings depends on it).

    Examples
    --------
    >>> from agreekit.consensus import as_rankings
    >>> data = as_rankings([[1, 2, 3], [2, 1, float("nan")]], weights=[3, 1], labels=list("abc"))
    >>> data.n_items, data.total_weight, data.X[1].tolist()
    (3, 4.0, [2.0, 1.0, nan])
    """

    X: np.ndarray
    weights: np.ndarray
    labels: tuple

    @property
    def n_items(self) -> int:
        """Number of items m (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def total_weight(self) -> float:
        """``Σ w_k`` in the scale of ``weights``."""
        return float(self.weights.sum())

    def _scaled_weights(self) -> tuple[np.ndarray, int]:
        """``(w · 2**-e, e)``: the weights every computation uses (see ``WEIGHT_KEEP_EXPONENT``);
        a quantity linear in the weights is brought back to the user's scale with ``ldexp(·, e)``."""
        w = np.asarray(self.weights, dtype=np.float64)
        top = float(w.max())
        if 1.0 <= top < 2.0**WEIGHT_KEEP_EXPONENT:
            return w, 0
        e = math.frexp(top)[1] - 1
        return np.ldexp(w, -e), e  # ratios below 2**-1074 underflow to 0: those rows weigh nothing


def _in_user_scale(what: str, value, e: int):
    """``value · 2**e`` (a scalar or an array computed with the scaled weights), or InputError
    naming ``weights`` when that overflows float64."""
    if e == 0:
        return value
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(value, e)
    if not np.all(np.isfinite(out)):
        big = float(np.max(np.abs(value)))
        digits = math.log10(big) + e * math.log10(2.0)
        shown = f"{10 ** (digits % 1):.3g}e{int(digits // 1)}"
        raise InputError(
            "weights",
            f"are too large: the {what} in the scale of the weights overflows float64 "
            f"(about {shown}); the consensus depends only on the ratios of the weights: "
            "divide them by their largest",
        )
    return float(out) if np.ndim(out) == 0 else out


def _not_numbers(arr: np.ndarray) -> str | None:
    """What makes ``arr`` not an array of real numbers (booleans, complex, dates, text), or None."""
    kinds = {
        "b": "booleans",
        "c": "complex numbers",
        "M": "datetimes",
        "m": "timedeltas",
        "U": "strings",
        "S": "bytes",
        "V": "structured values",
    }
    if arr.dtype.kind in kinds:
        return kinds[arr.dtype.kind]
    if arr.dtype.kind == "O":
        for v in arr.ravel():
            if isinstance(v, (bool, np.bool_)):
                return "booleans"
            if not isinstance(v, (int, float, np.integer, np.floating)):
                return f"a {type(v).__name__} ({v!r})"
    return None


def _check_labels(labels, parameter: str = "labels") -> None:
    """Labels are a sequence (list, tuple, array, Index) of scalars, not a string or a scalar."""
    if (
        isinstance(labels, (str, bytes))
        or isinstance(labels, np.ma.MaskedArray)
        or not hasattr(labels, "__len__")
        or np.ndim(labels) != 1
    ):
        raise InputError(
            parameter,
            f"must be a 1-D sequence of labels (one per item); got {type(labels).__name__}"
            + (f" of shape {np.shape(labels)}" if hasattr(labels, "shape") else ""),
        )


def _as_float_matrix(parameter: str, values, *, ndim: int, ranks: bool = True) -> np.ndarray:
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(parameter, "is a masked array; give NaN for unranked items (np.ma.filled(x, np.nan))")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(parameter, "must be a rectangular array of numeric ranks (NaN for unranked items)") from None
    bad_kind = _not_numbers(arr)
    if bad_kind is not None:
        raise InputError(parameter, f"must contain numeric ranks (NaN for unranked items); got {bad_kind}")
    if arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(parameter, "must contain numeric ranks (NaN for unranked items)") from None
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim == 1 and ndim == 2:
        arr = arr[None, :]
    if arr.ndim != ndim:
        raise InputError(parameter, f"must be {ndim}-D (judges x items); got shape {arr.shape}")
    if np.isinf(arr).any():
        raise InputError(parameter, "must not contain infinite values (use NaN for unranked items)")
    if ranks:
        bad = ~np.isnan(arr) & ((arr < 1) | (arr != np.floor(arr)))
        if bad.any():
            pos = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f"row {pos[0]}, column {pos[1]}" if arr.ndim == 2 else f"entry {pos[0]}"
            raise InputError(
                parameter,
                f"{where}: {arr[pos]:g} is not a rank; ranks are positive integers "
                f"(1 = best, equal values = ties, NaN = unranked)",
            )
    return arr


def as_rankings(
    rankings, *, weights=None, labels=None, parameter: str = "rankings", ordinal: bool = False
) -> RankingData:
    """Validate a judges × items array or DataFrame of rank positions.

    Parameters
    ----------
    rankings : array_like or pandas.DataFrame, shape (n, m)
        Rank positions: positive integers (integral floats such as ``2.0`` are accepted),
        1 = best, equal values = ties, NaN = unranked; 0, negative and non-integer values
        raise :class:`~agreekit.InputError`.  A 1-D array is one judge.  A
        DataFrame's columns give the item labels.
    weights : array_like, shape (n,), optional
        Non-negative row weights (frequencies); default 1 per row.  NaN, infinite and
        negative weights, or all zero, raise :class:`~agreekit.InputError`.
        Only their ratios matter: any finite scale (``1e-300`` or ``1e300`` as well as 1) gives the
        same consensus; quantities in the scale of the weights (the penalty, the combined
        input matrix) are refused, naming ``weights``, only when they exceed float64's range.
    labels : sequence of str, optional
        Item labels for an array input (default ``"0", "1", …``).
    ordinal : bool, default False
        Accept any finite numbers as ordinal scores (lower = better, only the order
        matters), as ConsRank does; needed e.g. for ConsRank's ``USAranks`` data, which
        holds one rank 0.  By default ranks must be positive integers.
    parameter : str, optional
        The name errors give the input (default ``"rankings"``).

    Returns
    -------
    RankingData
        The validated rankings (``X`` float64 with NaN for unranked, ``weights``, ``labels``).

    Examples
    --------
    >>> from agreekit.consensus import as_rankings
    >>> data = as_rankings([[1, 2, 3], [2, 1, 3]], weights=[2, 1], labels=["a", "b", "c"])
    >>> data.labels, data.weights.tolist()
    (('a', 'b', 'c'), [2.0, 1.0])
    """
    if isinstance(rankings, RankingData):
        if weights is not None or labels is not None:
            raise InputError(
                "weights", "cannot be given with a RankingData input (it carries its own weights and labels)"
            )
        return rankings

    check_name("parameter", parameter)
    check_not_masked(**{parameter: rankings}, weights=weights)
    check_rectangular(parameter, rankings)  # a ragged list of rows is an error, not a numpy message
    cols = getattr(rankings, "columns", None)
    if cols is not None and labels is None:
        labels = [str(c) for c in cols]
    if not isinstance(ordinal, (bool, np.bool_)):
        raise InputError("ordinal", f"must be True or False; got {ordinal!r}")
    X = _as_float_matrix(parameter, rankings, ndim=2, ranks=not ordinal)
    n, m = X.shape
    if m < 2:
        raise InputError(parameter, f"must rank at least 2 items; got {m}")
    if n < 1:
        raise InputError(parameter, "must contain at least one ranking (row)")
    empty = np.isnan(X).all(axis=1)
    if empty.any():
        raise InputError(parameter, f"row {int(np.flatnonzero(empty)[0])} has no ranked item (all NaN)")
    if weights is None:
        w = np.ones(n)
    else:
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("weights", "must be a 1-D array of non-negative numbers") from None
        if w.ndim != 1:
            w = w.reshape(-1) if w.size == n else w
        if w.ndim != 1 or w.size != n:
            raise InputError("weights", f"must have one entry per ranking ({n}); got shape {np.shape(weights)}")
        if not np.all(np.isfinite(w)):
            raise InputError("weights", "must not contain NaN or infinite values")
        if (w < 0).any():
            raise InputError("weights", "must be non-negative")
        if not w.max() > 0:
            raise InputError("weights", "must not all be zero")
    if labels is None:
        labels = [str(i) for i in range(m)]
    _check_labels(labels)
    labels = tuple(str(x) for x in labels)
    if len(labels) != m:
        raise InputError("labels", f"must have one label per item ({m}); got {len(labels)}")
    if len(set(labels)) != m:
        raise InputError("labels", "must be unique")
    return RankingData(X=X, weights=w, labels=labels)


def _as_candidate(parameter: str, candidate, m: int | None = None) -> np.ndarray:
    arr = _as_float_matrix(parameter, candidate, ndim=1)
    if m is not None and arr.size != m:
        raise InputError(parameter, f"must have {m} entries (one per item of `rankings`); got {arr.size}")
    if np.isnan(arr).any():
        raise InputError(parameter, "must rank every item (no NaN in a candidate consensus)")
    return arr


@nb.njit(cache=True, parallel=True)
def _cim_rows(X, w):
    """Rows i of C in parallel; for each (i, j) the judges are added in order."""
    n, m = X.shape
    C = np.zeros((m, m))
    for i in nb.prange(m):
        Ci = C[i]
        for k in range(n):
            wk = w[k]
            if wk == 0.0:
                continue
            a = X[k, i]
            if np.isnan(a):
                continue
            Xk = X[k]
            for j in range(m):
                b = Xk[j]
                if b == b:  # not NaN
                    Ci[j] += wk if a <= b else -wk
        Ci[i] = 0.0
    return C


@numpy_version(_cim_rows)
def _cim_rows_numpy(X, w):
    """:func:`_cim_rows` in numpy: judge k adds ``±w_k`` to the pairs it ranks, judges in order
    (adding 0.0 to the others changes no bit: no entry is -0.0), so the kernel's numbers."""
    n, m = X.shape
    C = np.zeros((m, m))
    for k in range(n):
        wk = w[k]
        if wk == 0.0:
            continue
        x = X[k]
        ranked = ~np.isnan(x)
        both = ranked[:, None] & ranked[None, :]
        C += np.where(both, np.where(x[:, None] <= x[None, :], wk, -wk), 0.0)
    np.fill_diagonal(C, 0.0)
    return C


def _cim_kernel(X, w):
    """Combined input matrix, one row per item (contiguous writes, items in parallel).

    Entry (i, j) sums ``w_k · (+1 if x_ki <= x_kj else −1)`` over the judges ranking both,
    in judge order, so the result does not depend on the number of threads."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return pick(_cim_rows, X.size * X.shape[1])(X, np.ascontiguousarray(w, dtype=np.float64))


def _cim_and_transpose(X, w):
    """(C, C.T as a C-contiguous array).  C.T[i, j] = C[j, i] adds the same judges in the same
    order, so the copy has the very bits a row-by-row computation of C.T would give."""
    C = _cim_kernel(X, w)
    return C, np.ascontiguousarray(C.T)


def score_matrix(ranking) -> np.ndarray:
    """Emond–Mason score matrix of one ranking.

    ``a_ij = 1`` if item *i* is ranked ahead of or tied with *j*, ``-1`` if behind,
    ``0`` on the diagonal and for every pair that involves an unranked (NaN) item.

    Parameters
    ----------
    ranking : array_like, shape (m,)
        A ranking: rank positions of the m items (1 = best, equal values = ties, NaN = unranked).

    Returns
    -------
    numpy.ndarray, shape (m, m)
        The score matrix (float64).

    Examples
    --------
    >>> from agreekit.consensus import score_matrix
    >>> score_matrix([1, 2, 2]).astype(int).tolist()
    [[0, 1, 1], [-1, 0, 1], [-1, 1, 0]]
    """
    return _score_matrix(ranking, "ranking")


def _score_matrix(ranking, parameter: str) -> np.ndarray:
    x = _as_float_matrix(parameter, ranking, ndim=1)
    return _cim_kernel(x[None, :], np.ones(1))


def combined_input_matrix(rankings, weights=None) -> np.ndarray:
    """Combined input matrix ``C = Σ_k w_k A^(k)`` (Emond & Mason 2002).

    Pairs involving an unranked item contribute 0.  ``c_ij + c_ji`` is twice the
    weight of the judges that tie *i* and *j*, hence never negative.

    Parameters
    ----------
    %(rankings_weights)s

    Returns
    -------
    numpy.ndarray, shape (m, m)
        C (float64), in the scale of the weights (:class:`~agreekit.InputError`
        naming ``weights`` if an entry exceeds float64's range).

    References
    ----------
    .. [1] Emond, E. J., Mason, D. W. (2002). A new rank correlation coefficient with
       application to the consensus ranking problem. J. Multi-Criteria Decis. Anal. 11, 17–28.
       :doi:`10.1002/mcda.313`

    Examples
    --------
    >>> from agreekit.consensus import combined_input_matrix
    >>> combined_input_matrix([[1, 2, 3], [2, 1, 3]], weights=[2, 1]).astype(int).tolist()
    [[0, 1, 3], [-1, 0, 3], [-3, -3, 0]]
    """
    C, _, e = _coerce_cim(rankings, weights)
    return _in_user_scale("combined input matrix", C, e)


def tau_x(r, s) -> float:
    """Emond–Mason τ_x between two rankings: ``Σ_ij a_ij b_ij / (m(m−1))``.

    Equal to Kendall's τ_a without ties; an unranked item's pairs count 0.

    %(r_s)s

    Returns
    -------
    tau : float
        τ_x in [-1, 1].

    Examples
    --------
    >>> from agreekit.consensus import tau_x
    >>> tau_x([1, 2, 3, 4], [1, 2, 4, 3])  # 10 of the 12 ordered pairs agree, 2 disagree: 8 / 12
    0.6666666666666666
    >>> tau_x([1, 1, 1], [1, 2, 3])
    0.0
    """
    a = _score_matrix(r, "r")
    b = _score_matrix(s, "s")
    if a.shape != b.shape:
        raise InputError("s", f"must rank the same number of items as `r` ({a.shape[0]}); got {b.shape[0]}")
    m = a.shape[0]
    return float((a * b).sum() / (m * (m - 1)))


def kemeny_distance(r, s) -> float:
    """Kemeny–Snell distance between two rankings, ``(m(m−1)/2)·(1 − τ_x)``.

    A pair costs 0 when both rankings agree, 1 when one ties it and the other does not,
    2 when they are reversed.  A pair with an unranked item costs 1 (half-way), so that
    minimising the total distance is the same as maximising the average τ_x also for
    partial rankings (ConsRank's ``kemenyd`` reads such a pair as a tie instead).

    %(r_s)s

    Returns
    -------
    float
        The distance (0 for identical rankings).

    Examples
    --------
    >>> from agreekit.consensus import kemeny_distance
    >>> kemeny_distance([1, 2, 3], [3, 2, 1]), kemeny_distance([1, 2, 3], [1, 1, 3])
    (6.0, 1.0)
    """
    t = tau_x(r, s)  # validates r and s first
    m = np.asarray(r).shape[-1]
    return float(m * (m - 1) / 2 * (1.0 - t))


def _coerce_cim(rankings, weights):
    """(C, W, e) computed with the weights times ``2**-e`` (``RankingData._scaled_weights``)."""
    data = as_rankings(rankings, weights=weights)
    w, e = data._scaled_weights()
    return _cim_kernel(data.X, w), float(w.sum()), e


def average_tau_x(candidate, rankings, weights=None) -> float:
    """Weighted average τ_x of a candidate consensus with the input rankings.

    ``Σ_ij c_ij s_ij / (W · m(m−1))`` with ``W = Σ w_k`` over *all* rows (ConsRank's
    ``Tau``).  Because the denominator counts every pair of every row, partial rankings
    pull the value down: unranked pairs add 0 to the numerator.

    Parameters
    ----------
    candidate : array_like, shape (m,)
        The candidate consensus (rank positions, ties allowed).
    %(rankings_weights)s

    Returns
    -------
    float
        The weighted average τ_x.

    Examples
    --------
    >>> from agreekit.consensus import average_tau_x
    >>> round(average_tau_x([1, 2, 3], [[1, 2, 3], [2, 1, 3]]), 6)
    0.666667
    """
    C, W, _ = _coerce_cim(rankings, weights)  # a ratio: the same in any scale of the weights
    s = score_matrix(_as_candidate("candidate", candidate, C.shape[0]))
    m = C.shape[0]
    return float((C * s).sum() / (W * m * (m - 1)))


def penalty(candidate, rankings, weights=None, *, cim=None) -> float:
    """Emond–Mason penalty ``P(S) = Σ_ij |c_ij| − Σ_ij c_ij s_ij ≥ 0``.

    Pass ``cim=`` (a combined input matrix) instead of ``rankings`` to skip rebuilding it.

    Parameters
    ----------
    candidate : array_like, shape (m,)
        The candidate consensus (rank positions, ties allowed).
    %(rankings_weights)s
    cim : numpy.ndarray, shape (m, m), optional
        A combined input matrix to use instead of building it from ``rankings``.

    Returns
    -------
    float
        P(S), 0 when the candidate agrees with every weighted pairwise majority, in the scale
        of the weights (:class:`~agreekit.InputError` naming ``weights`` if it
        exceeds float64's range).

    Examples
    --------
    >>> from agreekit.consensus import penalty
    >>> penalty([1, 2, 3], [[1, 2, 3], [2, 1, 3]]), penalty([3, 2, 1], [[1, 2, 3], [2, 1, 3]])
    (0.0, 16.0)
    """
    e = 0
    if cim is not None:
        C = _as_float_matrix("cim", cim, ndim=2, ranks=False)
        if C.ndim != 2 or C.shape[0] != C.shape[1]:
            raise InputError("cim", f"must be a square matrix; got shape {C.shape}")
    else:
        C, _, e = _coerce_cim(rankings, weights)
    return _in_user_scale("penalty", _penalty_of(_as_candidate("candidate", candidate, C.shape[0]), C), e)


def _penalty_of(r, C) -> float:
    """``P = Σ_ij (|c_ij| − c_ij s_ij)`` of rank vector ``r``, row by row (O(m) extra memory).

    Every term is 0 or ``2|c_ij|`` exactly (``s_ij = ±1``; the diagonal adds 0), so nothing
    cancels: P is 0 exactly when ``r`` agrees with every pairwise majority and otherwise a sum of
    positive terms, whatever the scale of the weights (``Σ|c_ij| − Σ c_ij s_ij`` left rounding
    noise of ~1e-16 · Σ|c_ij| in place of 0 for non-integer weights)."""
    r = np.asarray(r)
    total = 0.0
    for i in range(r.size):
        Ci = C[i]
        total += float(np.sum(np.abs(Ci) - Ci * np.where(r[i] <= r, 1.0, -1.0)))
    return total


def dense_ranks(values) -> np.ndarray:
    """Dense ranks 1..k of a vector (ties share a rank, no gaps)."""
    v = np.asarray(values)
    _, inv = np.unique(v, return_inverse=True)
    return inv.reshape(v.shape).astype(np.int64) + 1


def ordering_string(ranks, labels) -> str:
    """Ordering like ``"D J (E K) A"``: best first, tied items in parentheses (label order).

    Parameters
    ----------
    ranks : array_like, shape (m,)
        Rank positions of the items (1 = best, equal values = ties, NaN = unranked: listed at
        the end as ``[unranked: ...]``).
    labels : sequence of str, shape (m,)
        The items' labels.

    Returns
    -------
    str
        The ordering, e.g. ``"b (a c)"``.

    Examples
    --------
    >>> from agreekit.consensus import ordering_string
    >>> ordering_string([2, 1, 2], ["a", "b", "c"])
    'b (a c)'
    """
    ranks = _as_float_matrix("ranks", ranks, ndim=1)
    _check_labels(labels)
    if len(labels) != ranks.shape[0]:
        raise InputError("labels", f"must have one label per item ({ranks.shape[0]}); got {len(labels)}")
    parts = []
    for level in np.unique(ranks[~np.isnan(ranks)]):
        members = [str(labels[i]) for i in np.flatnonzero(ranks == level)]
        parts.append(members[0] if len(members) == 1 else "(" + " ".join(members) + ")")
    unranked = [str(labels[i]) for i in np.flatnonzero(np.isnan(ranks))]
    if unranked:  # NaN = unranked: listed after the ranked items, never as an empty group
        parts.append("[unranked: " + " ".join(unranked) + "]")
    return " ".join(parts)


_DOC_PARTS = {
    "r_s": """Parameters
    ----------
    r, s : array_like, shape (m,)
        Two rankings of the same items: rank positions of the m items (1 = best, equal
        values = ties, NaN = unranked).""",
    "rankings_weights": """rankings : array_like, pandas.DataFrame or RankingData, shape (n, m)
        The judges' rankings, one row per judge (see :func:`as_rankings`).
    weights : array_like, shape (n,), optional
        Row weights (frequencies); default 1 per row.  Only their ratios change the
        consensus (see :func:`as_rankings`).""",
}
for _f in (combined_input_matrix, tau_x, kemeny_distance, average_tau_x, penalty):
    docfill(_DOC_PARTS)(_f)
