"""Comparing ranked lists as IR people do: rank-biased overlap and AP correlation, with ties.

* :func:`rank_biased_overlap` — Webber, Moffat & Zobel's RBO [1]_ of two ranked lists over possibly
  different items and of different lengths (``ext``, ``min``, ``max``, ``res``), with Corsi & Urbano's
  tie variants [2]_, in O(s + l) time and memory;
* :func:`ap_correlation` — Yilmaz, Aslam & Robertson's τ_AP [3]_ with Urbano & Marrero's tie variants
  [4]_ (τ_AP_a, τ_AP_b), in O(n log n) with a Fenwick tree.

Their null models and tests live in :mod:`agreekit.ranking._rbo_null` and
:mod:`agreekit.ranking._ap_null`.

Implementation notes
--------------------
RBO: each list is flattened; an item of a tie group spanning ranks [t, b] contributes
c(d) = (d − t + 1)/(b − t + 1) at depth t <= d < b and 1 from d = b on (variants a, b), or 1 from
d = t on (variant w).  At any depth at most one tie group per list is partially seen, so the
overlap X_d = Σ_i c^S_i(d) c^L_i(d) is R(d) + A(d)·c_G(d) + B(d)·c_H(d) + C(d)·c_G(d)·c_H(d), with
G, H the groups containing depth d and R, A, B, C integer counts (items resolved in both lists,
partial in one list only, partial in both) accumulated with difference arrays: exact integers, no
cancellation, O(s + l) in all.  The three depth sections (1..s, s+1..l, beyond l) and the
extrapolation of the unseen parts follow Corsi & Urbano's definitions [2]_ (their ``ext`` of the
unseen part of the longer list uses the mean contribution of the items of L not in S seen so far;
``max`` matches the unseen part of S to the first items of L not in S).

References
----------
.. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for indefinite rankings",
       ACM Transactions on Information Systems 28(4), 2010. :doi:`10.1145/1852102.1852106`
.. [2] M. Corsi and J. Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024.
       :doi:`10.1145/3626772.3657700`
.. [3] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation coefficient for information
       retrieval", SIGIR 2008. :doi:`10.1145/1390334.1390435`
.. [4] J. Urbano and M. Marrero, "The Treatment of Ties in AP Correlation", ICTIR 2017.
       :doi:`10.1145/3121050.3121106`
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numba import njit

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice, check_float, check_not_masked, check_same_length
from agreekit.ranking.correlation import _as_ranks

__all__ = ["RBOResult", "rank_biased_overlap", "ap_correlation"]

RBO_TIES = ("w", "a", "b")
RBO_KINDS = ("lists", "scores")
AP_KINDS = ("ranks", "scores")


# ============================================================================ RBO inputs
@dataclass(frozen=True)
class _Flat:
    """A flattened ranking: item codes in rank order, and each position's group top/bottom rank (1-based)."""

    ids: np.ndarray   # int64 codes into the shared universe
    t: np.ndarray     # top rank of the position's tie group
    b: np.ndarray     # bottom rank of the position's tie group

    @property
    def size(self) -> int:
        return int(self.ids.size)

    @property
    def tied(self) -> bool:
        return bool(np.any(self.t != self.b))


def _groups_from_sizes(sizes: np.ndarray):
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    starts = ends - sizes + 1
    return np.repeat(starts, sizes), np.repeat(ends, sizes)


def _hashable(parameter, item, where):
    try:
        hash(item)
    except TypeError:
        raise InputError(parameter, f"holds an unhashable item {type(item).__name__} {_short(item)} {where}; "
                                    "items must be hashable (a set or frozenset element is a group of tied "
                                    "items)") from None


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _parse_list(parameter: str, values):
    """A sequence of items (a set/frozenset element = a tie group) -> (items in flat order, group sizes)."""
    if isinstance(values, (str, bytes)):
        raise InputError(parameter, "must be a sequence of items (a list, tuple or array), not a string")
    if isinstance(values, Mapping):
        raise InputError(parameter, "is a mapping; pass kind='scores' for item -> score mappings")
    if isinstance(values, np.ndarray) and values.dtype != object:
        if values.ndim != 1:
            raise InputError(parameter, f"must be one-dimensional; got shape {values.shape}")
        return values, None
    try:
        seq = list(values)
    except TypeError:
        raise InputError(parameter, f"must be a sequence of items; got {type(values).__name__}") from None
    items, sizes = [], []
    tied = False
    for pos, el in enumerate(seq):
        if isinstance(el, (set, frozenset)):
            if not el:
                raise InputError(parameter, f"has an empty tie group at position {pos}")
            for it in el:
                _hashable(parameter, it, f"in the tie group at position {pos}")
            items.extend(el)
            sizes.append(len(el))
            tied = tied or len(el) > 1
        else:
            _hashable(parameter, el, f"at position {pos}")
            items.append(el)
            sizes.append(1)
    return items, (np.asarray(sizes, dtype=np.int64) if tied else None)


def _parse_scores(parameter: str, values):
    """item -> score (higher = better; equal scores tied) -> (items in flat order, group sizes)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(values, pd.Series):
        items = values.index.to_numpy()
        scores = values.to_numpy()
    elif isinstance(values, Mapping):
        items = list(values.keys())
        scores = list(values.values())
    else:
        raise InputError(parameter, "with kind='scores' must be a mapping (or a pandas Series) item -> score; "
                                    f"got {type(values).__name__}")
    for s in (scores if not isinstance(scores, np.ndarray) or scores.dtype == object else ()):
        if isinstance(s, (bool, np.bool_, str, bytes)) or s is None:
            raise InputError(parameter, f"scores must be real numbers; got {s!r}")
    try:
        sc = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(parameter, "scores must be real numbers") from None
    if sc.size and not np.all(np.isfinite(sc)):
        raise InputError(parameter, "has a NaN or infinite score")
    if not isinstance(items, np.ndarray):
        for it in items:
            _hashable(parameter, it, "")
    order = np.argsort(-sc, kind="stable")
    sc = sc[order]
    items = np.asarray(items, dtype=object)[order] if not isinstance(items, np.ndarray) else items[order]
    if sc.size == 0:
        return items, None
    new = np.empty(sc.size, dtype=bool)
    new[0] = True
    new[1:] = sc[1:] != sc[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, sc.size))
    return items, (sizes if sizes.size < sc.size else None)


def _encode(parameter_x, items_x, parameter_y, items_y):
    """Shared integer codes of the items of both lists; duplicates within a list are an error."""
    import pandas as pd

    nx = len(items_x)
    native = (isinstance(items_x, np.ndarray) and isinstance(items_y, np.ndarray) and items_x.dtype != object
              and items_y.dtype != object and items_x.dtype.kind == items_y.dtype.kind and items_x.dtype.kind in "iufUS")
    if native and items_x.dtype.kind in "iu" and items_y.dtype.kind in "iu" and nx and len(items_y):
        both = np.concatenate([items_x, items_y]).astype(np.int64)
        lo, hi = int(both.min()), int(both.max())
        if hi - lo < 4 * both.size + 16:
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[both - lo] = True
            remap = np.cumsum(present) - 1
            codes = remap[both - lo]
            uniques = np.flatnonzero(present) + lo
            cx, cy = codes[:nx], codes[nx:]
            _check_duplicates(parameter_x, cx, parameter_y, cy, uniques)
            return cx, cy, int(uniques.size)
    if native:
        both = np.concatenate([items_x, items_y])
    else:
        both = np.empty(nx + len(items_y), dtype=object)
        both[:nx] = list(items_x) if not isinstance(items_x, np.ndarray) else items_x
        both[nx:] = list(items_y) if not isinstance(items_y, np.ndarray) else items_y
    try:
        codes, uniques = pd.factorize(both, use_na_sentinel=False)
    except TypeError:
        raise InputError(parameter_x, "holds unhashable items") from None
    codes = codes.astype(np.int64)
    cx, cy = codes[:nx], codes[nx:]
    _check_duplicates(parameter_x, cx, parameter_y, cy, uniques)
    return cx, cy, int(uniques.size)


def _check_duplicates(parameter_x, cx, parameter_y, cy, uniques):
    for par, c in ((parameter_x, cx), (parameter_y, cy)):
        counts = np.bincount(c, minlength=len(uniques))
        if c.size and counts.max() > 1:
            dup = uniques[int(np.argmax(counts > 1))]
            raise InputError(par, f"holds the item {_short(dup)} more than once (an item may appear once, "
                                  "in one tie group)")


def _flatten(parameter, values, kind):
    items, sizes = _parse_scores(parameter, values) if kind == "scores" else _parse_list(parameter, values)
    if len(items) == 0:
        raise InputError(parameter, "is empty; RBO needs at least one item in each list")
    return items, sizes


def _rbo_inputs(x, y, kind):
    """Validated flat rankings of x and y (shared codes) and the size of their union."""
    kind = check_choice("kind", kind, RBO_KINDS)
    ix, sx = _flatten("x", x, kind)
    iy, sy = _flatten("y", y, kind)
    cx, cy, n_union = _encode("x", ix, "y", iy)
    out = []
    for c, sz in ((cx, sx), (cy, sy)):
        if sz is None:
            r = np.arange(1, c.size + 1, dtype=np.int64)
            out.append(_Flat(c, r, r))
        else:
            t, b = _groups_from_sizes(sz)
            out.append(_Flat(c, t, b))
    return out[0], out[1], n_union


# ============================================================================ RBO core
@dataclass(frozen=True)
class RBOResult(ResultBase):
    """Result of :func:`rank_biased_overlap`.

    Parameters
    ----------
    ext : float
        RBO_ext, the extrapolated score (the agreement seen so far assumed to continue).
    min, max : float
        RBO_min and RBO_max, the bounds of RBO over all continuations of the lists.
    res : float
        The residual RBO_max − RBO_min.
    p : float
        The persistence parameter.
    ties : {'w', 'a', 'b'}
        The tie variant used (meaningless without ties: all three agree).
    depth_x, depth_y : int
        The lengths (evaluation depths) of ``x`` and ``y``.

    Examples
    --------
    >>> from agreekit.ranking import rank_biased_overlap
    >>> res = rank_biased_overlap(["a", "b", "c"], ["b", "a", "d"], p=0.9)
    >>> round(res.ext, 6), round(res.min, 6), round(res.max, 6)
    (0.63, 0.311686, 0.873)
    """

    ext: float
    min: float
    max: float
    res: float
    p: float
    ties: str
    depth_x: int
    depth_y: int


def _counts(n, starts, ends):
    """Integer count over depths 1..n of intervals [start, end) (difference array)."""
    starts, ends = np.minimum(starts, n + 1), np.minimum(ends, n + 1)
    keep = starts < ends
    diff = np.bincount(starts[keep], minlength=n + 2)[: n + 2] - np.bincount(ends[keep], minlength=n + 2)[: n + 2]
    return np.cumsum(diff)[: n + 1]


def _underflow_depth(p: float) -> int:
    """A depth beyond which p^d is 0.0 in float64 (every term of the sums there is exactly 0)."""
    return int(math.ceil(746.0 / -math.log(p))) + 2


def _rbo_sections(S: _Flat, L: _Flat, n_codes: int, p: float, ties: str):
    """(ext, min, max) of RBO for S the shorter list (Corsi & Urbano's three sections).

    Depth-indexed arrays stop at n = min(l, the depth where p^d underflows to 0): deeper terms are 0.
    """
    s, l = S.size, L.size
    w = ties == "w"
    posS = np.full(n_codes, -1, dtype=np.int64)
    posS[S.ids] = np.arange(s)
    inS = posS[L.ids] >= 0
    jL = np.flatnonzero(inS)            # positions in L of the common items
    jS = posS[L.ids[jL]]                # their positions in S
    x_l = float(jL.size)
    n = min(l, _underflow_depth(p))
    se = min(s, n)
    top = n + 1
    tS, bS, tL, bL = (np.minimum(v, top) for v in (S.t[jS], S.b[jS], L.t[jL], L.b[jL]))
    if w:  # variant w: an item counts in full from the top of its group
        bS, bL = tS, tL
    # resolved in both (c = 1 in both lists)
    R = np.cumsum(np.bincount(np.maximum(bS, bL), minlength=n + 2))[: n + 1]
    A = _counts(n, np.maximum(tS, bL), bS)                   # partial in S, resolved in L
    B = _counts(n, np.maximum(tL, bS), bL)                   # partial in L, resolved in S
    C = _counts(n, np.maximum(tS, tL), np.minimum(bS, bL))   # partial in both
    d = np.arange(n + 1, dtype=np.float64)
    d[0] = 1.0  # index 0 unused
    # the partial group containing depth d in each list
    St, Sb = S.t[:se], S.b[:se]
    Lt, Lb = L.t[:n], L.b[:n]
    cG = np.zeros(n + 1)
    gS_t = np.zeros(n + 1)
    gS_b = np.zeros(n + 1)
    gS_t[1: se + 1], gS_b[1: se + 1] = St, Sb
    cG[1: se + 1] = (d[1: se + 1] - St + 1) / (Sb - St + 1)
    gL_t = np.zeros(n + 1)
    gL_b = np.zeros(n + 1)
    gL_t[1:], gL_b[1:] = Lt, Lb
    cH = np.zeros(n + 1)
    cH[1:] = (d[1:] - Lt + 1) / (Lb - Lt + 1)
    X = R + A * cG + B * cH + C * cG * cH                   # X_d (seen items), d = 0..n
    # normalizers
    if w:
        nS = np.zeros(n + 1)
        nS[1: se + 1] = gS_b[1: se + 1]     # items of S with t <= d
        nS[se + 1:] = d[se + 1:]            # beyond s: S taken to continue with one item per depth
        den = nS + gL_b
        den_scale = 2.0
    elif ties == "a":
        den = d
        den_scale = 1.0
    else:
        qS = np.zeros(n + 1)
        qS[1: se + 1] = (gS_t[1: se + 1] - 1) + (d[1: se + 1] - gS_t[1: se + 1] + 1) ** 2 / (gS_b[1: se + 1] - gS_t[1: se + 1] + 1)
        qS[se + 1:] = d[se + 1:]
        qL = np.zeros(n + 1)
        qL[1:] = (gL_t[1:] - 1) + (d[1:] - gL_t[1:] + 1) ** 2 / (gL_b[1:] - gL_t[1:] + 1)
        den = np.sqrt(qS) * np.sqrt(qL)
        den_scale = 1.0
    den[0] = 1.0
    Aseen = den_scale * X / den
    A_s = Aseen[s] if s <= n else 0.0    # past the underflow depth it only multiplies zeros
    pw = p ** np.arange(n + 1, dtype=np.float64)
    sec1 = float(np.sum(Aseen[1: se + 1] * pw[1: se + 1]))
    if n > s:
        k = d[s + 1:] - s
        # items of L not in S: resolved (c = 1) by depth d, and partially seen at depth d
        only = ~inS
        tO = np.minimum(L.t[only], top)
        bO = tO if w else np.minimum(L.b[only], top)
        U = np.cumsum(np.bincount(bO, minlength=n + 2))[: n + 1][s + 1:].astype(np.float64)
        nH = _counts(n, tO, bO)[s + 1:].astype(np.float64)
        cHs = cH[s + 1:]
        unseen_max = np.where(k <= U, k, U + np.minimum(k - U, nH) * cHs)
        mean_seen = (U + nH * cHs) / (U + nH)
        unseen_ext = k * A_s * mean_seen
        Xs = X[s + 1:]
        dd = den[s + 1:]
        pws = pw[s + 1:]
        sec2_min = float(np.sum(den_scale * Xs / dd * pws))
        sec2_max = float(np.sum(den_scale * (Xs + unseen_max) / dd * pws))
        sec2_ext = float(np.sum(den_scale * (Xs + unseen_ext) / dd * pws))
    else:
        sec2_min = sec2_max = sec2_ext = 0.0
    # beyond depth l
    sec3_min = x_l * _tail_log(p, l)
    pl1 = p ** (l + 1)
    if pl1 > 0.0:
        f = int(l + s - x_l)
        dm = np.arange(l + 1, f + 1, dtype=np.float64)
        sec3_max = float(np.sum((2 * dm - l - s + x_l) / dm * p ** dm)) + p ** (f + 1) / (1 - p)
        sec3_ext = (x_l + (l - s) * A_s) / l * pl1 / (1 - p)
    else:
        sec3_max = sec3_ext = 0.0
    c = (1 - p) / p
    return (c * (sec1 + sec2_ext + sec3_ext), c * (sec1 + sec2_min + sec3_min),
            c * (sec1 + sec2_max + sec3_max))


def _tail_log(p, l):
    """Σ_{d>l} p^d / d, summed directly when it is small (ln(1/(1-p)) − Σ_{d<=l} p^d/d loses its digits)."""
    head_p = p ** (l + 1)
    if head_p == 0.0:
        return 0.0
    k = int(math.ceil(746.0 / -math.log(p)))
    if head_p < 1e-3 and k <= 5_000_000:
        dd = np.arange(l + 1, l + 1 + k, dtype=np.float64)
        return float(np.sum(np.exp(dd * math.log(p)) / dd))
    d = np.arange(1, l + 1, dtype=np.float64)
    return max(-math.log1p(-p) - float(np.sum(np.exp(d * math.log(p)) / d)), 0.0)


def rank_biased_overlap(x, y, *, p=0.9, ties="a", kind="lists") -> RBOResult:
    """Rank-biased overlap of two ranked lists (first = top), possibly over different items and of different lengths.

    Webber, Moffat & Zobel's RBO [1]_: RBO = (1 − p) Σ_{d>=1} p^{d−1} A_d, with A_d the proportion of
    overlap between the two prefixes of depth d.  Lists seen to a finite depth give the four scores
    of Webber et al.: ``ext`` (Eq. 32: the agreement of the seen part extrapolated), ``min`` and
    ``max`` (Eq. 11 and its counterpart: the bounds over every continuation) and ``res`` = max − min.
    Ties follow Corsi & Urbano [2]_: ``ties="w"`` (a tie is equality: all tied items are seen at
    the group's first rank, Webber's Eq. 28), ``"a"`` (the expected RBO over random tie-breaking of
    the seen prefixes) or ``"b"`` (corrected for the information lost to ties, so that
    RBO^b(X, X) = 1).

    Parameters
    ----------
    x, y : sequence or mapping
        With ``kind="lists"`` (default): sequences of hashable items, top first, where a ``set`` or
        ``frozenset`` element is a group of tied items (``["red", {"blue", "green"}, "yellow"]``).
        With ``kind="scores"``: mappings (or pandas Series) item -> score, higher = better; equal
        scores are tied (never broken by item id, which would inflate RBO).
    p : float, optional
        Persistence, 0 < p < 1 (default 0.9): the top d ranks carry weight
        1 − p^{d−1} + (1−p)/p · d · (ln(1/(1−p)) − Σ_{i<d} p^i/i) (Webber et al., Eq. 21); p = 0.9
        gives 86% of the weight to the top 10.
    ties : {'a', 'w', 'b'}, optional
        The tie variant (default ``'a'``).
    kind : {'lists', 'scores'}, optional
        The input form (see ``x, y``).

    Returns
    -------
    RBOResult
        ``ext``, ``min``, ``max``, ``res``, ``p``, ``ties``, ``depth_x``, ``depth_y``; ``to_dict()``.

    Notes
    -----
    O(s + l) time and memory for lists of lengths s <= l (each item's contribution is piecewise
    linear in the depth; the overlaps are accumulated with difference arrays).

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for indefinite rankings",
           ACM Transactions on Information Systems 28(4), 2010. :doi:`10.1145/1852102.1852106`
    .. [2] M. Corsi and J. Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024.
           :doi:`10.1145/3626772.3657700`

    Examples
    --------
    Corsi & Urbano's example (their README):

    >>> from agreekit.ranking import rank_biased_overlap
    >>> x = ["red", {"blue", "green"}, "yellow", "pink"]
    >>> y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]
    >>> res = rank_biased_overlap(x, y, p=0.95)
    >>> round(res.ext, 7), round(res.min, 7), round(res.max, 7), round(res.res, 7)
    (0.6922853, 0.3310519, 0.8930692, 0.5620173)
    >>> round(rank_biased_overlap(x, y, p=0.95, ties="w").ext, 7)
    0.7068257

    Scores (higher = better), e.g. two runs' retrieval scores for one topic:

    >>> round(rank_biased_overlap({"d1": 3.2, "d2": 2.0, "d3": 2.0}, {"d2": 5.0, "d1": 4.0},
    ...                           kind="scores").ext, 6)
    0.81
    """
    check_not_masked(x=x, y=y)
    p = check_float("p", p, minimum=0.0, maximum=1.0, inclusive=False)
    ties = check_choice("ties", ties, RBO_TIES)
    X, Y, n_codes = _rbo_inputs(x, y, kind)
    return _rbo_flat(X, Y, n_codes, p, ties)


def _rbo_flat(X: _Flat, Y: _Flat, n_codes: int, p: float, ties: str) -> RBOResult:
    S, L = (X, Y) if X.size < Y.size else (Y, X)
    if not (S.tied or L.tied):
        ties_used = "w"
    else:
        ties_used = ties
    ext, mn, mx = _rbo_sections(S, L, n_codes, p, ties_used)
    return RBOResult(ext=float(ext), min=float(mn), max=float(mx), res=float(mx - mn), p=p, ties=ties,
                     depth_x=X.size, depth_y=Y.size)


# ============================================================================ τ_AP
@njit(cache=True)
def _above_counts(order, group_start, xr, n_x):  # pragma: no cover - compiled
    """For items in y order (groups [group_start[g], group_start[g+1])), the number of items in strictly
    higher y groups with a strictly smaller x rank.

    The items are laid out in y order with each group sorted by x rank descending (so that no pair
    within a group counts), and a bottom-up merge sort counts, for every position, the earlier
    positions with a strictly smaller x rank: O(n log n) with sequential memory access.  The counts
    are returned per position of that layout; within a group they are permuted, which the callers'
    group-constant weights do not see.
    """
    n = order.size
    vals = np.empty(n, dtype=np.int64)
    for g in range(group_start.size - 1):
        a, b = group_start[g], group_start[g + 1]
        if b - a == 1:
            vals[a] = xr[order[a]]
        else:
            seg = np.empty(b - a, dtype=np.int64)
            for k in range(a, b):
                seg[k - a] = -xr[order[k]]
            seg.sort()
            for k in range(a, b):
                vals[k] = -seg[k - a]
    # merge sort of (value, position, count) triples, all moved together: sequential access only
    V, I, C = vals.astype(np.int32), np.arange(n).astype(np.int32), np.zeros(n, dtype=np.int32)
    V2, I2, C2 = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if V[j] <= V[i]:                 # right element next: the left ones before it are smaller
                    V2[k], I2[k], C2[k] = V[j], I[j], C[j] + np.int32(i - lo)
                    j += 1
                else:
                    V2[k], I2[k], C2[k] = V[i], I[i], C[i]
                    i += 1
                k += 1
            while i < mid:
                V2[k], I2[k], C2[k] = V[i], I[i], C[i]
                i += 1
                k += 1
            while j < hi:
                V2[k], I2[k], C2[k] = V[j], I[j], C[j] + np.int32(mid - lo)
                j += 1
                k += 1
            lo += 2 * width
        V, V2 = V2, V
        I, I2 = I2, I
        C, C2 = C2, C
        width *= 2
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        out[I[k]] = C[k]
    return out


@njit(cache=True)
def _ap_a_total(c, gs):
    """Σ_i [C_above(i) (1/t_i) Σ_{k=1}^{t_i} 1/(p_i+k−2) + 1/(2 t_i) Σ_{k=1}^{t_i−1} k/(p_i+k−1)]."""
    total = 0.0
    for g in range(gs.size - 1):
        a, b = gs[g], gs[g + 1]
        t = b - a
        pg = a + 1
        if pg > 1:
            csum = 0.0
            for k in range(a, b):
                csum += c[k]
            s1 = 0.0
            for k in range(1, t + 1):
                s1 += 1.0 / (pg + k - 2)
            total += csum * s1 / t
        s2 = 0.0
        for k in range(1, t):
            s2 += k / (pg + k - 1)
        total += s2 / 2.0
    return total


def _permutation(v):
    """v as int64 if it is a permutation of 1..n, else None (O(n))."""
    n = v.size
    vi = v.astype(np.int64)
    if n and vi.min() == 1 and vi.max() == n and np.array_equal(vi, v) and np.bincount(vi).max() == 1:
        return vi
    return None


def _dense(v):
    vi = _permutation(v)
    if vi is not None:
        return vi, int(v.size)
    u, inv = np.unique(v, return_inverse=True)
    return (inv.astype(np.int64) + 1), int(u.size)


def _y_groups(vy):
    vi = _permutation(vy)
    if vi is not None:
        order = np.empty(vy.size, dtype=np.int64)
        order[vi - 1] = np.arange(vy.size)
        return order, np.arange(vy.size + 1, dtype=np.int64)
    order = np.argsort(vy, kind="stable")
    sv = vy[order]
    new = np.empty(sv.size, dtype=bool)
    new[0] = True
    new[1:] = sv[1:] != sv[:-1]
    starts = np.flatnonzero(new)
    group_start = np.append(starts, sv.size).astype(np.int64)
    return order, group_start


def _sorted_view(v):
    """(order, group starts, dense ranks 1..m, m) of a value vector (lower = better), from one sort."""
    order, gs = _y_groups(v)
    dense = np.empty(v.size, dtype=np.int64)
    sizes = np.diff(gs)
    dense[order] = np.repeat(np.arange(1, sizes.size + 1, dtype=np.int64), sizes)
    return order.astype(np.int64), gs, dense, int(sizes.size)


def _tau_star(vx, vy, views=None):
    """τ*(x, y): y (possibly tied) against x; 2/|{p_i != 1}| Σ_{p_i != 1} C_above(i)/(p_i − 1) − 1."""
    if views is None:
        xr, nx = _dense(vx)
        order, gs = _y_groups(vy)
        order = order.astype(np.int64)
    else:
        (_, _, xr, nx), (order, gs, _, _) = views
    c = _above_counts(order, gs, xr, nx)
    sizes = np.diff(gs)
    pmin = np.repeat(gs[:-1] + 1, sizes).astype(np.float64)   # p_i in y order
    keep = pmin != 1
    m = int(np.count_nonzero(keep))
    if m == 0:
        return math.nan
    return 2.0 / m * float(np.sum(c[keep] / (pmin[keep] - 1))) - 1.0


def _tau_ap_a(vx, vy):
    """τ_AP_a: y (possibly tied) against the untied reference x (the expectation over y's tie-breakings)."""
    n = vx.size
    xr, nx = _dense(vx)
    order, gs = _y_groups(vy)
    c = _above_counts(order.astype(np.int64), gs, xr, nx)
    total = _ap_a_total(c, gs)
    return 2.0 / (n - 1) * total - 1.0


def _ap_inputs(x, y, kind):
    kind = check_choice("kind", kind, AP_KINDS)
    rx, tx = _as_ranks("x", x, kind=kind)
    ry, ty = _as_ranks("y", y, kind=kind)
    check_same_length(("x", "y"), rx, ry)
    return np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64), bool(tx), bool(ty)


def ap_correlation(x, y, *, symmetric=False, kind="ranks") -> float:
    """AP rank correlation τ_AP of the ranking ``y`` against the reference ranking ``x`` (rank vectors, 1 = top).

    Yilmaz, Aslam & Robertson's τ_AP [1]_: τ_AP = 2/(n−1) Σ_{i=2}^{n} C(i)/(i−1) − 1, where the items
    are taken in y's order and C(i) counts the items above position i in y that are also above it in
    x.  Unlike Kendall's τ it weights swaps near the top of y more; it is asymmetric.  Ties follow
    Urbano & Marrero [2]_: ties in ``y`` give τ_AP_a, the expected τ_AP over random tie-breaking of
    y (the reference ``x`` must be untied); ``symmetric=True`` gives τ_AP_b =
    ½[τ*(x, y) + τ*(y, x)], which allows ties in both and reduces to the mean of τ_AP(x, y) and
    τ_AP(y, x) without ties.

    Parameters
    ----------
    x : array_like
        The reference ranking: ranks (1 = top, the default ``kind="ranks"``) or, with
        ``kind="scores"``, scores (higher = better); item i is position i.
    y : array_like
        The evaluated ranking, in the same form and item order as ``x``.
    symmetric : bool, optional
        False (default): τ_AP (τ_AP_a with ties in y); True: τ_AP_b.
    kind : {'ranks', 'scores'}, optional
        The input form (default ``'ranks'``).

    Returns
    -------
    float
        The coefficient in [−1, 1] (NaN for τ_AP_b when one ranking has all its items tied).

    Notes
    -----
    O(n log n): a Fenwick tree over x's ranks counts, for each item in y's order, the items above it
    in both rankings.

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation coefficient for
           information retrieval", SIGIR 2008. :doi:`10.1145/1390334.1390435`
    .. [2] J. Urbano and M. Marrero, "The Treatment of Ties in AP Correlation", ICTIR 2017.
           :doi:`10.1145/3121050.3121106`

    Examples
    --------
    ircor's first test set (scores, higher = better):

    >>> from agreekit.ranking import ap_correlation
    >>> x = [.897, .372, .908, .898, .661, .062, .177, .384, .498, .992]
    >>> y = [.82, .406, .817, .953, .673, .073, .364, .547, .589, .988]
    >>> round(ap_correlation(x, y, kind="scores"), 4), round(ap_correlation(x, y, symmetric=True, kind="scores"), 4)
    (0.8519, 0.8333)
    """
    if not isinstance(symmetric, (bool, np.bool_)):
        raise InputError("symmetric", f"must be True or False; got {symmetric!r}")
    vx, vy, tx, ty = _ap_inputs(x, y, kind)
    return _ap_values(vx, vy, tx, symmetric)


def _ap_values(vx, vy, tx, symmetric):
    if symmetric:
        sx, sy = _sorted_view(vx), _sorted_view(vy)   # one sort per ranking serves both directions
        return 0.5 * (_tau_star(vx, vy, (sx, sy)) + _tau_star(vy, vx, (sy, sx)))
    if tx:
        raise InputError("x", "(the reference ranking) has ties; τ_AP needs an untied reference: use "
                              "symmetric=True (τ_AP_b) for ties in both rankings")
    return _tau_ap_a(vx, vy)
