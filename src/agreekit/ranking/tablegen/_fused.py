"""Fused Monte Carlo kernel: RNG + Fisher–Yates + several weighted coefficients per permutation.

One call evaluates Γ(id, π_r) for rows ``r = r0 .. r0 + rows - 1`` of a stream and for
several *lanes* (weighting schemes of one coefficient) on the same permutation π_r.
Everything stays in registers / L1-L2: no permutation matrix, no float matrix of uniforms.

Random numbers: row ``r`` of a stream with 128-bit key ``(k0, k1)`` is driven by its own
SplitMix64 generator started at ``mix(k0 ^ mix(k1 + r * φ))`` (φ = 0x9E3779B97F4A7C15), so
row r's permutation depends only on (key, r): results do not depend on the number of
threads, on batching, or on which other lanes are evaluated.  Fisher–Yates draws
``j`` uniform on ``0..i`` by Lemire's multiply-and-reject method on 32-bit words (exactly
uniform).  Lane ``s`` is evaluated on rows ``r < active[s]`` only (schemes needing fewer
permutations stop earlier); lanes must be ordered by non-increasing ``active``.

Lanes are evaluated four at a time with scalar accumulators (they stay in registers).
Spearman (Eq. 7): one pass of six weighted sums of the 1-based ranks (no shift: with weights
concentrated on the top ranks a shift to (n+1)/2 would cancel badly);
Kendall (Eq. 8): a Fenwick tree with four floats per node over y-ranks, items visited in x
(identity) order; the denominator Σ_{i<j} w_i w_j is accumulated alongside.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

SPEARMAN = 0
KENDALL = 1

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


@njit(cache=True)
def _spearman4(y, W, g, mode, out):  # pragma: no cover - compiled
    """Weighted Spearman of (id, y) for the 4 lanes 4g..4g+3 (scalar accumulators stay in registers)."""
    n = y.size
    k = 4 * g
    m0 = mode[k]
    m1 = mode[k + 1]
    m2 = mode[k + 2]
    m3 = mode[k + 3]
    W0 = W1 = W2 = W3 = 0.0
    X0 = X1 = X2 = X3 = 0.0
    Y0 = Y1 = Y2 = Y3 = 0.0
    XX0 = XX1 = XX2 = XX3 = 0.0
    YY0 = YY1 = YY2 = YY3 = 0.0
    XY0 = XY1 = XY2 = XY3 = 0.0
    for i in range(n):
        v = y[i] - 1
        x = i + 1.0
        yy = v + 1.0
        a0 = W[i, k]
        a1 = W[i, k + 1]
        a2 = W[i, k + 2]
        a3 = W[i, k + 3]
        e0 = W[v, k]
        e1 = W[v, k + 1]
        e2 = W[v, k + 2]
        e3 = W[v, k + 3]
        w0 = a0 * e0 if m0 else a0 + e0
        w1 = a1 * e1 if m1 else a1 + e1
        w2 = a2 * e2 if m2 else a2 + e2
        w3 = a3 * e3 if m3 else a3 + e3
        W0 += w0
        W1 += w1
        W2 += w2
        W3 += w3
        X0 += w0 * x
        X1 += w1 * x
        X2 += w2 * x
        X3 += w3 * x
        Y0 += w0 * yy
        Y1 += w1 * yy
        Y2 += w2 * yy
        Y3 += w3 * yy
        XX0 += w0 * x * x
        XX1 += w1 * x * x
        XX2 += w2 * x * x
        XX3 += w3 * x * x
        YY0 += w0 * yy * yy
        YY1 += w1 * yy * yy
        YY2 += w2 * yy * yy
        YY3 += w3 * yy * yy
        XY0 += w0 * x * yy
        XY1 += w1 * x * yy
        XY2 += w2 * x * yy
        XY3 += w3 * x * yy
    out[k] = _pearson(W0, X0, Y0, XX0, YY0, XY0)
    out[k + 1] = _pearson(W1, X1, Y1, XX1, YY1, XY1)
    out[k + 2] = _pearson(W2, X2, Y2, XX2, YY2, XY2)
    out[k + 3] = _pearson(W3, X3, Y3, XX3, YY3, XY3)


@njit(cache=True, inline="always")
def _pearson(W, sx, sy, sxx, syy, sxy):  # pragma: no cover - compiled
    return (sxy - sx * sy / W) / np.sqrt((sxx - sx * sx / W) * (syy - sy * sy / W))


@njit(cache=True)
def _kendall4(y, W, g, mode, tree, out):  # pragma: no cover - compiled
    """Weighted Kendall of (id, y) for the 4 lanes 4g..4g+3: one Fenwick tree with 4 floats per node."""
    n = y.size
    for j in range((n + 1) * 4):
        tree[j] = 0.0
    k = 4 * g
    m0 = mode[k]
    m1 = mode[k + 1]
    m2 = mode[k + 2]
    m3 = mode[k + 3]
    s0 = s1 = s2 = s3 = 0.0
    c0 = c1 = c2 = c3 = 0.0
    d0 = d1 = d2 = d3 = 0.0
    for i in range(n):
        v = y[i]
        a0 = W[i, k]
        a1 = W[i, k + 1]
        a2 = W[i, k + 2]
        a3 = W[i, k + 3]
        e0 = W[v - 1, k]
        e1 = W[v - 1, k + 1]
        e2 = W[v - 1, k + 2]
        e3 = W[v - 1, k + 3]
        w0 = a0 * e0 if m0 else a0 + e0
        w1 = a1 * e1 if m1 else a1 + e1
        w2 = a2 * e2 if m2 else a2 + e2
        w3 = a3 * e3 if m3 else a3 + e3
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
    out[k] = (2.0 * c0 - d0) / d0
    out[k + 1] = (2.0 * c1 - d1) / d1
    out[k + 2] = (2.0 * c2 - d2) / d2
    out[k + 3] = (2.0 * c3 - d3) / d3


@njit(cache=True, parallel=True)
def fused_sample(coef, n, k0, k1, r0, rows, W, mode, active, out):  # pragma: no cover - compiled
    """Γ for rows r0..r0+rows-1 and every lane: ``out[s, r - r0]`` (NaN where r >= active[s]).

    ``W`` is (n, L) with L a multiple of 4: W[i, s] = f_s(i + 1), the weigher of lane s;
    lane s combines f(a) and f(b) multiplicatively if ``mode[s]`` else additively.  Lanes
    are evaluated in groups of four; ``active`` must be non-increasing.  Rows are split into
    contiguous blocks, one per prange iteration (scratch buffers allocated once per block).
    """
    L = mode.size
    groups = L // 4
    nchunks = min(rows, 64)
    for b in prange(nchunks):
        lo = r0 + (rows * b) // nchunks
        hi = r0 + (rows * (b + 1)) // nchunks
        y = np.empty(n, np.int32)
        res = np.empty(L)
        tree = np.empty((n + 1) * 4 if coef == KENDALL else 1)
        for r in range(lo, hi):
            nl = 0
            while nl < L and active[nl] > r:
                nl += 1
            if nl > 0:
                fisher_yates(row_state(k0, k1, r), y)
                for g in range((nl + 3) // 4):
                    if coef == SPEARMAN:
                        _spearman4(y, W, g, mode, res)
                    else:
                        _kendall4(y, W, g, mode, tree, res)
            for s in range(L):
                out[s, r - r0] = res[s] if s < nl else np.nan


@njit(cache=True)
def permutation_rows(n, k0, k1, r0, rows):  # pragma: no cover - compiled
    """The permutations of rows r0..r0+rows-1 as a (rows, n) int64 array (for tests and references)."""
    out = np.empty((rows, n), np.int64)
    y = np.empty(n, np.int64)
    for r in range(rows):
        fisher_yates(row_state(k0, k1, r0 + r), y)
        out[r] = y
    return out
