"""Reference copy of the fused Monte Carlo kernel as of main 7b015f1 (scalar lanes, pointer-walk Fenwick trees).

The shipped coefficient tables were generated with it; the kernel in
``agreekit.ranking.tablegen._fused`` must reproduce its values bit for bit
(``tests/test_fused_kernel_bitwise.py``).  Only the prange over row blocks is a plain range here
(the blocks are independent, so this does not change any value).  Do not optimize this file.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

SPEARMAN = 0
KENDALL = 1

_PHI = uint64(0x9E3779B97F4A7C15)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_MASK32 = uint64(0xFFFFFFFF)
#: above this n the 8-float-per-node Fenwick tree (64 n bytes) falls out of L2: two 4-float passes are faster
_KENDALL8_MAX_N = 8192


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def row_state(k0, k1, r):
    """Initial SplitMix64 state of row ``r`` of the stream with key (k0, k1)."""
    return _mix(k0 ^ _mix(k1 + uint64(r) * _PHI))


@njit(cache=True)
def fisher_yates(state, y):
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
def _pearson(W, sx, sy, sxx, syy, sxy):
    return (sxy - sx * sy / W) / np.sqrt((sxx - sx * sx / W) * (syy - sy * sy / W))


@njit(cache=True)
def _spearman8(y, F, g, out):
    """Weighted Spearman of (id, y) for columns 4g..4g+3 of F, additive and multiplicative.

    ``out[0, c]`` additive, ``out[1, c]`` multiplicative; both schemes read the same two
    f-values per item, so the random access ``F[y_i]`` is paid once for eight lanes.
    """
    n = y.size
    k = 4 * g
    aw0 = aw1 = aw2 = aw3 = 0.0
    ax0 = ax1 = ax2 = ax3 = 0.0
    ay0 = ay1 = ay2 = ay3 = 0.0
    axx0 = axx1 = axx2 = axx3 = 0.0
    ayy0 = ayy1 = ayy2 = ayy3 = 0.0
    axy0 = axy1 = axy2 = axy3 = 0.0
    mw0 = mw1 = mw2 = mw3 = 0.0
    mx0 = mx1 = mx2 = mx3 = 0.0
    my0 = my1 = my2 = my3 = 0.0
    mxx0 = mxx1 = mxx2 = mxx3 = 0.0
    myy0 = myy1 = myy2 = myy3 = 0.0
    mxy0 = mxy1 = mxy2 = mxy3 = 0.0
    for i in range(n):
        v = y[i] - 1
        x = i + 1.0
        yy = v + 1.0
        a0 = F[i, k]
        a1 = F[i, k + 1]
        a2 = F[i, k + 2]
        a3 = F[i, k + 3]
        e0 = F[v, k]
        e1 = F[v, k + 1]
        e2 = F[v, k + 2]
        e3 = F[v, k + 3]
        w0 = a0 + e0
        w1 = a1 + e1
        w2 = a2 + e2
        w3 = a3 + e3
        aw0 += w0
        aw1 += w1
        aw2 += w2
        aw3 += w3
        ax0 += w0 * x
        ax1 += w1 * x
        ax2 += w2 * x
        ax3 += w3 * x
        ay0 += w0 * yy
        ay1 += w1 * yy
        ay2 += w2 * yy
        ay3 += w3 * yy
        axx0 += w0 * x * x
        axx1 += w1 * x * x
        axx2 += w2 * x * x
        axx3 += w3 * x * x
        ayy0 += w0 * yy * yy
        ayy1 += w1 * yy * yy
        ayy2 += w2 * yy * yy
        ayy3 += w3 * yy * yy
        axy0 += w0 * x * yy
        axy1 += w1 * x * yy
        axy2 += w2 * x * yy
        axy3 += w3 * x * yy
        u0 = a0 * e0
        u1 = a1 * e1
        u2 = a2 * e2
        u3 = a3 * e3
        mw0 += u0
        mw1 += u1
        mw2 += u2
        mw3 += u3
        mx0 += u0 * x
        mx1 += u1 * x
        mx2 += u2 * x
        mx3 += u3 * x
        my0 += u0 * yy
        my1 += u1 * yy
        my2 += u2 * yy
        my3 += u3 * yy
        mxx0 += u0 * x * x
        mxx1 += u1 * x * x
        mxx2 += u2 * x * x
        mxx3 += u3 * x * x
        myy0 += u0 * yy * yy
        myy1 += u1 * yy * yy
        myy2 += u2 * yy * yy
        myy3 += u3 * yy * yy
        mxy0 += u0 * x * yy
        mxy1 += u1 * x * yy
        mxy2 += u2 * x * yy
        mxy3 += u3 * x * yy
    out[0, k] = _pearson(aw0, ax0, ay0, axx0, ayy0, axy0)
    out[0, k + 1] = _pearson(aw1, ax1, ay1, axx1, ayy1, axy1)
    out[0, k + 2] = _pearson(aw2, ax2, ay2, axx2, ayy2, axy2)
    out[0, k + 3] = _pearson(aw3, ax3, ay3, axx3, ayy3, axy3)
    out[1, k] = _pearson(mw0, mx0, my0, mxx0, myy0, mxy0)
    out[1, k + 1] = _pearson(mw1, mx1, my1, mxx1, myy1, mxy1)
    out[1, k + 2] = _pearson(mw2, mx2, my2, mxx2, myy2, mxy2)
    out[1, k + 3] = _pearson(mw3, mx3, my3, mxx3, myy3, mxy3)


@njit(cache=True)
def _kendall4(y, F, g, mult, tree, out):
    """Weighted Kendall of (id, y) for columns 4g..4g+3 of F and one scheme (``mult``).

    One Fenwick tree with four floats per node over y-ranks; result in ``out[mult, c]``.
    """
    n = y.size
    for j in range((n + 1) * 4):
        tree[j] = 0.0
    k = 4 * g
    s0 = s1 = s2 = s3 = 0.0
    c0 = c1 = c2 = c3 = 0.0
    d0 = d1 = d2 = d3 = 0.0
    for i in range(n):
        v = y[i]
        a0 = F[i, k]
        a1 = F[i, k + 1]
        a2 = F[i, k + 2]
        a3 = F[i, k + 3]
        e0 = F[v - 1, k]
        e1 = F[v - 1, k + 1]
        e2 = F[v - 1, k + 2]
        e3 = F[v - 1, k + 3]
        if mult:
            w0 = a0 * e0
            w1 = a1 * e1
            w2 = a2 * e2
            w3 = a3 * e3
        else:
            w0 = a0 + e0
            w1 = a1 + e1
            w2 = a2 + e2
            w3 = a3 + e3
        b0 = b1 = b2 = b3 = 0.0
        j = v - 1
        while j > 0:
            base = 4 * j
            b0 += tree[base]
            b1 += tree[base + 1]
            b2 += tree[base + 2]
            b3 += tree[base + 3]
            j -= j & (-j)
        c0 += w0 * b0
        c1 += w1 * b1
        c2 += w2 * b2
        c3 += w3 * b3
        d0 += w0 * s0
        d1 += w1 * s1
        d2 += w2 * s2
        d3 += w3 * s3
        s0 += w0
        s1 += w1
        s2 += w2
        s3 += w3
        j = v
        while j <= n:
            base = 4 * j
            tree[base] += w0
            tree[base + 1] += w1
            tree[base + 2] += w2
            tree[base + 3] += w3
            j += j & (-j)
    m = 1 if mult else 0
    out[m, k] = (2.0 * c0 - d0) / d0
    out[m, k + 1] = (2.0 * c1 - d1) / d1
    out[m, k + 2] = (2.0 * c2 - d2) / d2
    out[m, k + 3] = (2.0 * c3 - d3) / d3


@njit(cache=True)
def _kendall8(y, F, g, tree, out):
    """Weighted Kendall of (id, y) for columns 4g..4g+3 of F, additive and multiplicative together.

    One Fenwick tree with eight floats (one cache line) per node: lanes 0-3 additive, 4-7
    multiplicative; results in ``out[0, c]`` and ``out[1, c]``.
    """
    n = y.size
    for j in range((n + 1) * 8):
        tree[j] = 0.0
    k = 4 * g
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = 0.0
    d0 = d1 = d2 = d3 = d4 = d5 = d6 = d7 = 0.0
    for i in range(n):
        v = y[i]
        a0 = F[i, k]
        a1 = F[i, k + 1]
        a2 = F[i, k + 2]
        a3 = F[i, k + 3]
        e0 = F[v - 1, k]
        e1 = F[v - 1, k + 1]
        e2 = F[v - 1, k + 2]
        e3 = F[v - 1, k + 3]
        w0 = a0 + e0
        w1 = a1 + e1
        w2 = a2 + e2
        w3 = a3 + e3
        w4 = a0 * e0
        w5 = a1 * e1
        w6 = a2 * e2
        w7 = a3 * e3
        b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = 0.0
        j = v - 1
        while j > 0:
            base = 8 * j
            b0 += tree[base]
            b1 += tree[base + 1]
            b2 += tree[base + 2]
            b3 += tree[base + 3]
            b4 += tree[base + 4]
            b5 += tree[base + 5]
            b6 += tree[base + 6]
            b7 += tree[base + 7]
            j -= j & (-j)
        c0 += w0 * b0
        c1 += w1 * b1
        c2 += w2 * b2
        c3 += w3 * b3
        c4 += w4 * b4
        c5 += w5 * b5
        c6 += w6 * b6
        c7 += w7 * b7
        d0 += w0 * s0
        d1 += w1 * s1
        d2 += w2 * s2
        d3 += w3 * s3
        d4 += w4 * s4
        d5 += w5 * s5
        d6 += w6 * s6
        d7 += w7 * s7
        s0 += w0
        s1 += w1
        s2 += w2
        s3 += w3
        s4 += w4
        s5 += w5
        s6 += w6
        s7 += w7
        j = v
        while j <= n:
            base = 8 * j
            tree[base] += w0
            tree[base + 1] += w1
            tree[base + 2] += w2
            tree[base + 3] += w3
            tree[base + 4] += w4
            tree[base + 5] += w5
            tree[base + 6] += w6
            tree[base + 7] += w7
            j += j & (-j)
    out[0, k] = (2.0 * c0 - d0) / d0
    out[0, k + 1] = (2.0 * c1 - d1) / d1
    out[0, k + 2] = (2.0 * c2 - d2) / d2
    out[0, k + 3] = (2.0 * c3 - d3) / d3
    out[1, k] = (2.0 * c4 - d4) / d4
    out[1, k + 1] = (2.0 * c5 - d5) / d5
    out[1, k + 2] = (2.0 * c6 - d6) / d6
    out[1, k + 3] = (2.0 * c7 - d7) / d7


@njit(cache=True)
def fused_sample(coef, n, k0, k1, r0, rows, F, active, out):
    """Γ for rows r0..r0+rows-1 and every lane: ``out[m, c, r - r0]`` (NaN where r >= active[m, c]).

    ``F`` is (n, C) with C a multiple of 4: F[i, c] = f_c(i + 1) for the distinct weighers c;
    lane (m, c) combines f_c(a) and f_c(b) additively (m = 0) or multiplicatively (m = 1) and
    is evaluated on rows r < active[m, c] (0 = lane unused).  Columns are processed four at a
    time: Spearman computes both schemes in one pass; Kendall one tree pass with eight floats per node when both schemes are in use and
    n <= 8192 (else one pass of four floats per scheme).
    Rows are split into contiguous blocks, one per prange iteration.
    """
    C = F.shape[1]
    groups = C // 4
    gact = np.zeros((2, groups), np.int64)
    for m in range(2):
        for c in range(C):
            if active[m, c] > gact[m, c // 4]:
                gact[m, c // 4] = active[m, c]
    nchunks = min(rows, 64)
    for b in range(nchunks):
        lo = r0 + (rows * b) // nchunks
        hi = r0 + (rows * (b + 1)) // nchunks
        y = np.empty(n, np.int32)
        res = np.empty((2, C))
        tree = np.empty((n + 1) * 8 if coef == KENDALL else 1)
        for r in range(lo, hi):
            drawn = False
            for g in range(groups):
                for m in range(2):
                    if gact[m, g] > r:
                        if not drawn:
                            fisher_yates(row_state(k0, k1, r), y)
                            drawn = True
                        both = gact[0, g] > r and gact[1, g] > r
                        if coef == SPEARMAN:
                            if m == 0 or not both:
                                _spearman8(y, F, g, res)
                        elif both and n <= _KENDALL8_MAX_N:
                            if m == 0:
                                _kendall8(y, F, g, tree, res)
                        else:
                            _kendall4(y, F, g, m == 1, tree, res)
            for m in range(2):
                for c in range(C):
                    out[m, c, r - r0] = res[m, c] if active[m, c] > r else np.nan
