"""Numba kernels for the weighted rank correlations (Lombardo 2025, Eqs. 7-8).

Conventions: rank vectors are 1-based int64 arrays; ``F`` is the table
``f(1), ..., f(n)``; ``mult`` selects the multiplicative scheme (else additive).
Weights are left unnormalised (both coefficients are scale-invariant in w).

``coef`` is a code of :data:`agreekit.ranking._vocabulary.COEFFICIENT_REGISTRY` (:data:`SPEARMAN`,
:data:`KENDALL`).  Every dispatch on it fails closed: a kernel given any other code raises
``ValueError`` (the parallel kernels before their loop; the inlined helpers of the enumeration, where
a raise would serialise the loop, return NaN behind that check) and never computes another coefficient.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agreekit.ranking._vocabulary import KENDALL, SPEARMAN, check_code

#: below this n the O(n^2) Kendall loop beats the Fenwick tree
_KENDALL_QUADRATIC_MAX_N = 48


@njit(cache=True, inline="always")
def _item_weight(F, a, b, mult):
    fa = F[a - 1]
    fb = F[b - 1]
    return fa * fb if mult else fa + fb


@njit(cache=True)
def spearman_weighted(x, y, w):
    """Weighted Pearson correlation of two rank vectors (two-pass, no cancellation)."""
    n = x.size
    W = 0.0
    mx = 0.0
    my = 0.0
    for i in range(n):
        W += w[i]
        mx += w[i] * x[i]
        my += w[i] * y[i]
    return spearman_second_pass(x, y, w, W, mx, my)


@njit(cache=True)
def spearman_second_pass(x, y, w, W, sx, sy):
    """The second pass of :func:`spearman_weighted` from the first one's sums W = Σw,
    sx = Σw·x, sy = Σw·y (callers that fuse the first pass into another loop)."""
    n = x.size
    mx = sx / W
    my = sy / W
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for i in range(n):
        dx = x[i] - mx
        dy = y[i] - my
        sxy += w[i] * dx * dy
        sxx += w[i] * dx * dx
        syy += w[i] * dy * dy
    return sxy / np.sqrt(sxx * syy)


@njit(cache=True)
def kendall_weighted_quadratic(x, y, w):
    """Eq. 8 by its O(n^2) definition (reference and small-n path)."""
    n = x.size
    num = 0.0
    den = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            p = w[i] * w[j]
            s = (x[j] - x[i]) * (y[j] - y[i])
            if s > 0:
                num += p
            elif s < 0:
                num -= p
            den += p
    return num / den


@njit(cache=True, inline="always")
def fenwick_prefix(tree, j):
    """Sum of a Fenwick tree's values at positions 1..j (1-based; ``tree[0]`` unused)."""
    s = 0.0
    while j > 0:
        s += tree[j]
        j -= j & (-j)
    return s


@njit(cache=True, inline="always")
def fenwick_add(tree, j, v):
    """Add ``v`` at position j (1-based) of a Fenwick tree of size ``tree.size - 1``."""
    n = tree.size - 1
    while j <= n:
        tree[j] += v
        j += j & (-j)


@njit(cache=True)
def kendall_weighted_fenwick(x, y, w):
    """Eq. 8 in O(n log n): items in x order, a Fenwick tree of weights over y.

    ``x`` and ``y`` must be permutations of 1..n (no ties).  Concordant and
    discordant weight sums are accumulated separately, so no cancellation
    occurs before the final ``(C - D) / (C + D)``.
    """
    n = x.size
    order = np.empty(n, np.int64)
    for i in range(n):
        order[x[i] - 1] = i
    tree = np.zeros(n + 1)
    conc = 0.0
    disc = 0.0
    seen = 0.0
    for k in range(n):
        i = order[k]
        r = y[i]
        below = fenwick_prefix(tree, r - 1)  # weight of earlier items (smaller x) with y < r
        conc += w[i] * below
        disc += w[i] * (seen - below)
        fenwick_add(tree, r, w[i])
        seen += w[i]
    return (conc - disc) / (conc + disc)


@njit(cache=True, inline="always")
def _known(coef):
    """Whether ``coef`` is a code the kernels compute."""
    return coef == SPEARMAN or coef == KENDALL


def pair_work(n: int, coef: int) -> int:
    """Elementary steps of one coefficient at length n (for :func:`agreekit._jit.pick`)."""
    check_code(coef)
    if coef == KENDALL and n <= _KENDALL_QUADRATIC_MAX_N:
        return n * n
    return 4 * n * max(1, n.bit_length())


@njit(cache=True)
def coefficient_pair(x, y, F, coef, mult):
    """Γ(x, y) for two 1-based rank vectors."""
    n = x.size
    w = np.empty(n)
    for i in range(n):
        w[i] = _item_weight(F, x[i], y[i], mult)
    return coefficient_weighted(x, y, w, coef)


@njit(cache=True)
def coefficient_weighted(x, y, w, coef):
    """Γ(x, y) for two 1-based rank vectors with item weights ``w`` (single pairs)."""
    if coef == SPEARMAN:
        return spearman_weighted(x, y, w)  # one chain per sum: the same bits everywhere
    if coef != KENDALL:
        raise ValueError("unknown coefficient code")
    if x.size <= _KENDALL_QUADRATIC_MAX_N:
        return kendall_weighted_quadratic(x, y, w)
    return kendall_weighted_fenwick(x, y, w)


@njit(cache=True)
def _identity_coefficient(y, ident, w, F, coef, mult):
    """Γ(id, y) reusing caller-owned buffers (hot path of enumeration and sampling)."""
    n = y.size
    for i in range(n):
        w[i] = _item_weight(F, i + 1, y[i], mult)
    if coef == SPEARMAN:
        return spearman_weighted(ident, y, w)
    if coef != KENDALL:
        raise ValueError("unknown coefficient code")
    if n <= _KENDALL_QUADRATIC_MAX_N:
        return kendall_weighted_quadratic(ident, y, w)
    return kendall_weighted_fenwick(ident, y, w)


@njit(cache=True, parallel=True)
def batch_identity(perms, F, coef, mult):
    """Γ(id, perms[r]) for every row r (rows are permutations of 1..n)."""
    if not _known(coef):
        raise ValueError("unknown coefficient code")
    k, n = perms.shape
    out = np.empty(k)
    for r in prange(k):
        ident = np.arange(1, n + 1)
        w = np.empty(n)
        y = perms[r]
        out[r] = _identity_coefficient(y, ident, w, F, coef, mult)
    return out


@njit(cache=True)
def _place(F, coef, mult, d, v, state, nxt, B, Bn, rem, nrem):
    """State after placing value ``v`` at position ``d`` (0-based; x = d + 1).

    Spearman state: [W, Σwx, Σwy, Σwx², Σwy², Σwxy]; Kendall state: [W, num, den]
    with B[u] = Σ w_i over placed items with y_i < u (only unused u are read).
    """
    w = _item_weight(F, d + 1, v, mult)
    if coef == SPEARMAN:
        x = d + 1.0
        y = float(v)
        nxt[0] = state[0] + w
        nxt[1] = state[1] + w * x
        nxt[2] = state[2] + w * y
        nxt[3] = state[3] + w * x * x
        nxt[4] = state[4] + w * y * y
        nxt[5] = state[5] + w * x * y
    elif coef == KENDALL:
        wp = state[0]
        below = B[v]
        nxt[0] = wp + w
        nxt[1] = state[1] + w * (2.0 * below - wp)
        nxt[2] = state[2] + w * wp
        for q in range(nrem):
            u = rem[q]
            Bn[u] = B[u] + (w if v < u else 0.0)
    else:
        raise ValueError("unknown coefficient code")


@njit(cache=True, inline="always")
def _descend(F, coef, mult, n, d, j, state, B, rem):
    """Level d -> d+1: place the j-th remaining value at position d; the rest remain."""
    _place(F, coef, mult, d, rem[d, j], state[d], state[d + 1], B[d], B[d + 1], rem[d], n - d)
    t = 0
    for q in range(n - d):
        if q != j:
            rem[d + 1, t] = rem[d, q]
            t += 1


@njit(cache=True, inline="always")
def _last_two(F, coef, mult, n, st, B, a, b):
    """Γ of the permutation completed by value ``a`` at position n-2 and ``b`` at n-1."""
    wa = _item_weight(F, n - 1, a, mult)
    wb = _item_weight(F, n, b, mult)
    if coef == SPEARMAN:
        xa = n - 1.0
        xb = float(n)
        ya = float(a)
        yb = float(b)
        W = st[0] + wa + wb
        sx = st[1] + wa * xa + wb * xb
        sy = st[2] + wa * ya + wb * yb
        sxx = st[3] + wa * xa * xa + wb * xb * xb - sx * sx / W
        syy = st[4] + wa * ya * ya + wb * yb * yb - sy * sy / W
        sxy = st[5] + wa * xa * ya + wb * xb * yb - sx * sy / W
        return sxy / np.sqrt(sxx * syy)
    if coef != KENDALL:  # inlined in parallel loops: the callers have raised already (see _known)
        return np.nan
    wp = st[0]
    num = st[1] + wa * (2.0 * B[a] - wp)
    den = st[2] + wa * wp
    below_b = B[b] + (wa if a < b else 0.0)
    wp += wa
    num += wb * (2.0 * below_b - wp)
    den += wb * wp
    return num / den


@njit(cache=True, inline="always")
def chunk_start(F, coef, mult, n, k, c):
    """The descent's arrays (rem, idx, state, B) at the root of chunk ``c``: the remaining values
    at level 0, then the chunk's first ``k`` entries decoded in mixed radix."""
    rem = np.zeros((n + 1, n), np.int64)
    idx = np.zeros(n + 1, np.int64)
    state = np.zeros((n + 1, 6))
    B = np.zeros((n + 1, n + 1))
    for q in range(n):
        rem[0, q] = q + 1
    cc = c
    for d in range(k):
        base = n - d
        j = cc % base
        cc //= base
        _descend(F, coef, mult, n, d, j, state, B, rem)
    return rem, idx, state, B


@njit(cache=True, inline="always")
def next_leaves(F, coef, mult, n, k, d, idx, state, B, rem):
    """One step of the depth-first enumeration of a chunk (root at level ``k``): ``(d, g, g2)``.

    Start with ``d = k`` on the arrays of :func:`chunk_start`; each call walks the tree to the next
    node at level n - 2, where the last two positions are filled in closed form, and returns Γ of the
    two permutations completed there (remaining values a, b and b, a) with ``d = n - 1`` (pass it back
    to continue), or ``d = -1`` when the chunk is exhausted.  The sums are carried down the tree (one
    level per position) and nothing is updated in place and undone, so there is no floating-point
    drift.  The one walk of the two enumeration kernels (:func:`exact_chunk_sums` and the counts of
    :mod:`agreekit.ranking._exact_null`), which differ only in what they do with the values.
    """
    if d == n - 1:  # back up from the leaf returned last
        d = n - 2
        if d == k:
            return -1, 0.0, 0.0
        d -= 1
    while d != n - 2:
        if idx[d] < n - d:
            j = idx[d]
            idx[d] += 1
            _descend(F, coef, mult, n, d, j, state, B, rem)
            d += 1
            idx[d] = 0
        else:
            if d == k:
                return -1, 0.0, 0.0
            d -= 1
    a = rem[d, 0]
    b = rem[d, 1]
    return (n - 1, _last_two(F, coef, mult, n, state[d], B[d], a, b), _last_two(F, coef, mult, n, state[d], B[d], b, a))


@njit(cache=True, parallel=True)
def exact_chunk_sums(n, k, F, coef, mult, center, c_start, c_end, values):
    """Centred power sums of Γ(id, π) over the permutations π in chunks [c_start, c_end).

    The n! permutations are split by their first ``k <= n - 2`` entries (chunk
    ``c`` is decoded in mixed radix); each chunk is enumerated depth-first by
    :func:`next_leaves`, so a permutation costs O(1) amortised instead of O(n) / O(n²).
    Returns an array (c_end - c_start, 3) of [Σ(Γ-c), Σ(Γ-c)², Σ_{Γ<c}(Γ-c)²], one row per
    chunk, for the caller to combine in a fixed order.  If ``values`` is not
    empty, every Γ is also stored there: chunk c fills the slots
    [(c - c_start)·(n-k)!, (c - c_start + 1)·(n-k)!) in enumeration order.
    """
    if not _known(coef):
        raise ValueError("unknown coefficient code")
    per_chunk = 1
    for q in range(2, n - k + 1):
        per_chunk *= q
    store = values.size > 0
    out = np.zeros((c_end - c_start, 3))
    for c in prange(c_start, c_end):
        rem, idx, state, B = chunk_start(F, coef, mult, n, k, c)
        s1 = 0.0
        s2 = 0.0
        sl = 0.0
        pos = (c - c_start) * per_chunk
        d = k
        while True:
            d, g, g2 = next_leaves(F, coef, mult, n, k, d, idx, state, B, rem)
            if d < 0:
                break
            g -= center
            g2 -= center
            s1 += g + g2
            s2 += g * g + g2 * g2
            if g < 0:
                sl += g * g
            if g2 < 0:
                sl += g2 * g2
            if store:
                values[pos] = g + center
                values[pos + 1] = g2 + center
                pos += 2
        out[c - c_start, 0] = s1
        out[c - c_start, 1] = s2
        out[c - c_start, 2] = sl
    return out


# ------------------------------------------------------------------ random permutations
# (the Monte Carlo nulls of agreekit.ranking._montecarlo and _tied_null, and the table generator's sampling)


@njit(parallel=True, cache=True)
def _fisher_yates(u, out):  # pragma: no cover - compiled
    k, n = u.shape
    for r in prange(k):
        for i in range(n):
            out[r, i] = i + 1
        for i in range(n - 1, 0, -1):
            j = int(u[r, i] * (i + 1))
            if j > i:  # u < 1 always, guard against rounding anyway
                j = i
            t = out[r, i]
            out[r, i] = out[r, j]
            out[r, j] = t


def random_permutations(
    rng: np.random.Generator, k: int, n: int, *, out: np.ndarray | None = None, _u: np.ndarray | None = None
) -> np.ndarray:
    """``k`` uniform random permutations of ``1..n`` as a (k, n) int64 array (rows = permutations).

    Uses ``k * n`` float64 draws of ``rng`` (Fisher–Yates with ``j = floor(u (i+1))``).
    """
    if out is None:
        out = np.empty((k, n), dtype=np.int64)
    if _u is None:
        _u = np.empty((k, n), dtype=np.float64)
    rng.random(out=_u)
    _fisher_yates(_u, out)
    return out
