"""Fused Monte Carlo kernel: RNG + Fisher–Yates + several weighted coefficients per permutation.

One call evaluates Γ(id, π_r) for rows ``r = r0 .. r0 + rows - 1`` of a stream and for
several *lanes* (weighting schemes of one coefficient) on the same permutation π_r.
Everything stays in registers / L1-L2: no permutation matrix, no float matrix of uniforms.

Random numbers: row ``r`` of a stream with 128-bit key ``(k0, k1)`` is driven by its own
SplitMix64 generator started at ``mix(k0 ^ mix(k1 + r * φ))`` (φ = 0x9E3779B97F4A7C15), so
row r's permutation depends only on (key, r): results do not depend on the number of
threads, on batching, or on which other lanes are evaluated.  Fisher–Yates draws
``j`` uniform on ``0..i`` by Lemire's multiply-and-reject method on 32-bit words (exactly
uniform).  A lane (scheme) is evaluated on rows ``r < active`` only (schemes needing fewer
permutations stop earlier).

Lanes are grouped by four distinct weighers (columns of F); each group is evaluated for both
schemes at once as one 8-lane vector (lanes 0-3 additive f(a)+f(b), lanes 4-7 multiplicative
f(a)·f(b); :mod:`._simd`), so one random access ``F[y_i]`` serves eight lanes and every
arithmetic instruction does eight lanes' work.  Each lane sees exactly the scalar operations,
in the scalar order, of the per-lane definitions below, so the values are bit-identical to the
scalar kernels this one replaced (``tests/_fused_oracle.py`` keeps them as the reference).
Spearman (Eq. 7): one pass of six weighted sums of the 1-based ranks (no shift: with weights
concentrated on the top ranks a shift to (n+1)/2 would cancel badly);
Kendall (Eq. 8): a Fenwick tree over y-ranks, items visited in x (identity) order; the
denominator Σ_{i<j} w_i w_j is accumulated alongside.  The tree is stored in heap order (see
:func:`tree_levels`) and walked without data-dependent branches (:func:`_kendall8`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

from agreekit.ranking._vocabulary import KENDALL, SPEARMAN
from agreekit.ranking.tablegen._simd import address, concat, lane, load4, load8, store8, where, zero8

_PHI = uint64(0x9E3779B97F4A7C15)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_MASK32 = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _mix(z):  # pragma: no cover - compiled
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def row_state(k0, k1, r):  # pragma: no cover - compiled
    """Initial SplitMix64 state of row ``r`` of the stream with key (k0, k1)."""
    return _mix(k0 ^ _mix(k1 + uint64(r) * _PHI))


@njit(cache=True)
def fisher_yates(state, y):  # pragma: no cover - compiled
    """Fill ``y`` (int32/int64, length n) with a uniform permutation of 1..n; returns the new state."""
    n = y.size
    for i in range(n):
        y[i] = i + 1
    for i in range(n - 1, 0, -1):
        bound = uint64(i + 1)
        state += _PHI
        m = (_mix(state) >> uint64(32)) * bound
        low = m & _MASK32
        if low < bound:
            t = ((_MASK32 + uint64(1)) - bound) % bound
            while low < t:
                state += _PHI
                m = (_mix(state) >> uint64(32)) * bound
                low = m & _MASK32
        j = int(m >> uint64(32))
        tmp = y[i]
        y[i] = y[j]
        y[j] = tmp
    return state


@njit(cache=True, inline="always")
def _pearson(W, sx, sy, sxx, syy, sxy):  # pragma: no cover - compiled
    return (sxy - sx * sy / W) / np.sqrt((sxx - sx * sx / W) * (syy - sy * sy / W))


@njit(cache=True)
def _aligned_empty(size):  # pragma: no cover - compiled
    """A float64 work buffer of ``size`` elements starting on a 64-byte (cache line) boundary."""
    buf = np.empty(size + 8)
    off = ((-address(buf)) % 64) // 8
    return buf[off : off + size]


@njit(cache=True)
def _spearman8(y, F, g, out):  # pragma: no cover - compiled
    """Weighted Spearman of (id, y) for columns 4g..4g+3 of F, additive and multiplicative.

    ``out[0, c]`` additive, ``out[1, c]`` multiplicative.  Lane l < 4 of the vectors is the
    additive scheme of column 4g + l, lane 4 + l its multiplicative scheme; per lane the sums are
    ``S_w += w``, ``S_x += w*x``, ``S_xx += (w*x)*x``, ... exactly as in the scalar definition.
    """
    n = y.size
    C = F.shape[1]
    k = 4 * g
    sw = sx = sy = sxx = syy = sxy = zero8()
    for i in range(n):
        v = y[i] - 1
        x = i + 1.0
        yy = v + 1.0
        a = load4(F, i * C + k)  # f(i + 1), the four weighers: one aligned half cache line
        e = load4(F, v * C + k)  # f(y_i): the one random access of the pass
        w = concat(a + e, a * e)  # additive lanes | multiplicative lanes
        wx = w * x
        wy = w * yy
        sw += w
        sx += wx
        sy += wy
        sxx += wx * x
        syy += wy * yy
        sxy += wx * yy
    for c in range(4):
        out[0, k + c] = _pearson(lane(sw, c), lane(sx, c), lane(sy, c), lane(sxx, c), lane(syy, c), lane(sxy, c))
        m = c + 4
        out[1, k + c] = _pearson(lane(sw, m), lane(sx, m), lane(sy, m), lane(sxx, m), lane(syy, m), lane(sxy, m))


@njit(cache=True)
def tree_levels(n):  # pragma: no cover - compiled
    """Number of levels ``K`` of the Fenwick tree over ranks 0..n-1 (``2**(K-1) <= n - 1 < 2**K``; 0 for n = 1).

    Fenwick node ``j`` (1-based, covering ranks (j - 2^k, j] with 2^k = j & -j) is at level k.
    For a query at rank p (sum over ranks <= p, i.e. nodes p, p - lowbit(p), ...) and the update
    at rank p + 1 (nodes p + 1, p + 1 + lowbit, ...), level k touches exactly one node, the same
    one: node (2s + 1)·2^k with s = p >> (k + 1) — read if bit k of p is set, else updated.
    The tree is stored in heap order: with M = 2**K that node is slot ``(M + p) >> (k + 1)`` =
    ``(M >> (k + 1)) + s`` (the ancestor of leaf M + p), so level k occupies slots
    ``M >> (k + 1) .. (M >> (k + 1)) + ((n - 1) >> (k + 1))`` inside ``[M >> (k + 1), M >> k)``:
    levels do not overlap, slot 0 is unused, and the next level's slot is one shift away (no
    per-level base offset).  Nodes beyond n - 1 are updated but never read (no query reaches
    them); levels with 2^k > n - 1 are never read at all and are not stored.
    """
    K = 0
    while (1 << K) <= n - 1:
        K += 1
    return K


@njit(cache=True)
def _clear_tree(tree, K, n):  # pragma: no cover - compiled
    """Zero the slots of the heap-order tree that ranks 0..n-1 touch (about n of the 2**K slots)."""
    M = 1 << K
    for lev in range(K):
        lo = M >> (lev + 1)
        hi = lo + ((n - 1) >> (lev + 1)) + 1
        tree[8 * lo : 8 * hi] = 0.0


@njit(cache=True)
def _kendall8(y, F, g, K, tree, out):  # pragma: no cover - compiled
    """Weighted Kendall of (id, y) for columns 4g..4g+3 of F, additive and multiplicative.

    ``out[0, c]`` additive, ``out[1, c]`` multiplicative.  ``tree`` holds ``2**K`` slots of eight
    floats (one cache line each when 64-byte aligned) in the heap order of :func:`tree_levels`,
    lanes as in :func:`_spearman8`.  For item i with rank p = y_i - 1 the scalar algorithm does
    ``b = 0; for node in query(p): b += tree[node]`` (levels in increasing order) and then
    ``tree[node] += w`` on the update path.  Here every level is visited: the slot is loaded once,
    ``b`` takes ``b + t`` where bit k of p is set (a query level, masked add) and the slot is
    stored back as ``t + (w where bit k is clear, else +0.0)`` (a blend and a plain store, measured
    faster than a masked store; ``benchmarks/bench_kendall_kernel.py``).  ``t + 0.0 == t`` bit for bit
    because a slot is never -0.0 (it starts at +0.0 and a round-to-nearest sum is -0.0 only when
    both terms are), so per lane: the same additions in the same order as the scalar kernel.
    """
    n = y.size
    C = F.shape[1]
    k = 4 * g
    _clear_tree(tree, K, n)
    M = 1 << K
    z = zero8()
    s = c = d = zero8()
    for i in range(n):
        p = y[i] - 1
        a = load4(F, i * C + k)
        e = load4(F, p * C + k)
        w = concat(a + e, a * e)
        b = zero8()
        h = M + p
        for lev in range(K):
            query = (h & 1) != 0  # bit lev of p
            h >>= 1  # slot of level lev
            t = load8(tree, 8 * h)
            b = where(query, b + t, b)
            store8(tree, 8 * h, t + where(query, z, w))
        c += w * b
        d += w * s
        s += w
    for l in range(4):
        out[0, k + l] = (2.0 * lane(c, l) - lane(d, l)) / lane(d, l)
        out[1, k + l] = (2.0 * lane(c, l + 4) - lane(d, l + 4)) / lane(d, l + 4)


@njit(cache=True, parallel=True)
def fused_sample(coef, n, k0, k1, r0, rows, F, active, out):  # pragma: no cover - compiled
    """Γ for rows r0..r0+rows-1 and every lane: ``out[m, c, r - r0]`` (NaN where r >= active[m, c]).

    ``F`` is a C-contiguous (n, C) array with C a multiple of 4 (best 64-byte aligned):
    F[i, c] = f_c(i + 1) for the distinct weighers c; lane (m, c) combines f_c(a) and f_c(b)
    additively (m = 0) or multiplicatively (m = 1) and is evaluated on rows r < active[m, c]
    (0 = lane unused).  Columns are processed four at a time, both schemes in one pass (a lane
    that is not active in a row is computed anyway and not reported: it costs nothing extra).
    Rows are split into contiguous blocks, one per prange iteration.
    """
    if coef != SPEARMAN and coef != KENDALL:  # fail closed: no other code is computed
        raise ValueError("unknown coefficient code")
    C = F.shape[1]
    groups = C // 4
    gact = np.zeros(groups, np.int64)
    for m in range(2):
        for c in range(C):
            if active[m, c] > gact[c // 4]:
                gact[c // 4] = active[m, c]
    K = tree_levels(n)
    nchunks = min(rows, 64)
    for b in prange(nchunks):
        lo = r0 + (rows * b) // nchunks
        hi = r0 + (rows * (b + 1)) // nchunks
        y = np.empty(n, np.int32)
        res = np.empty((2, C))
        tree = _aligned_empty((1 << K) * 8 if coef == KENDALL else 8)
        for r in range(lo, hi):
            drawn = False
            for g in range(groups):
                if gact[g] > r:
                    if not drawn:
                        fisher_yates(row_state(k0, k1, r), y)
                        drawn = True
                    if coef == SPEARMAN:
                        _spearman8(y, F, g, res)
                    else:  # KENDALL (checked above)
                        _kendall8(y, F, g, K, tree, res)
            for m in range(2):
                for c in range(C):
                    out[m, c, r - r0] = res[m, c] if active[m, c] > r else np.nan


@njit(cache=True)
def permutation_rows(n, k0, k1, r0, rows):  # pragma: no cover - compiled
    """The permutations of rows r0..r0+rows-1 as a (rows, n) int64 array (for tests and references)."""
    out = np.empty((rows, n), np.int64)
    y = np.empty(n, np.int64)
    for r in range(rows):
        fisher_yates(row_state(k0, k1, r0 + r), y)
        out[r] = y
    return out
