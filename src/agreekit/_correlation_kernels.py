"""Numba kernels for the weighted rank correlations (seed 000, Eqs. 7-8).

Conventions: rank vectors are 1-based int64 arrays; ``F`` is the table
``f(1), ..., f(n)``; ``mult`` selects the multiplicative scheme (else additive).
Weights are left unnormalised (both coefficients are scale-invariant in w).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

SPEARMAN = 0
KENDALL = 1
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
    mx /= W
    my /= W
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
        # weight of earlier items (smaller x) with y < r
        below = 0.0
        j = r - 1
        while j > 0:
            below += tree[j]
            j -= j & (-j)
        conc += w[i] * below
        disc += w[i] * (seen - below)
        j = r
        while j <= n:
            tree[j] += w[i]
            j += j & (-j)
        seen += w[i]
    return (conc - disc) / (conc + disc)


@njit(cache=True)
def coefficient_pair(x, y, F, coef, mult):
    """Γ(x, y) for two 1-based rank vectors."""
    n = x.size
    w = np.empty(n)
    for i in range(n):
        w[i] = _item_weight(F, x[i], y[i], mult)
    if coef == SPEARMAN:
        return spearman_weighted(x, y, w)
    if n <= _KENDALL_QUADRATIC_MAX_N:
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
    if n <= _KENDALL_QUADRATIC_MAX_N:
        return kendall_weighted_quadratic(ident, y, w)
    return kendall_weighted_fenwick(ident, y, w)


@njit(cache=True, parallel=True)
def batch_identity(perms, F, coef, mult):
    """Γ(id, perms[r]) for every row r (rows are permutations of 1..n)."""
    k, n = perms.shape
    out = np.empty(k)
    for r in prange(k):
        ident = np.arange(1, n + 1)
        w = np.empty(n)
        y = perms[r]
        out[r] = _identity_coefficient(y, ident, w, F, coef, mult)
    return out


@njit(cache=True, parallel=True)
def exact_chunk_sums(n, k, F, coef, mult, center, c_start, c_end):
    """Centred power sums of Γ over the permutations in chunks [c_start, c_end).

    The n! permutations are split by their first ``k`` entries (chunk ``c``
    is decoded in mixed radix); each chunk enumerates the remaining (n-k)!
    arrangements with Heap's algorithm.  Returns an array (c_end - c_start, 3)
    of [sum(Γ-c), sum((Γ-c)^2), sum over Γ<c of (Γ-c)^2], one row per chunk, so
    the caller can combine rows in a fixed order (thread-count independent).
    """
    m = n - k
    out = np.zeros((c_end - c_start, 3))
    for c in prange(c_start, c_end):
        perm = np.empty(n, np.int64)
        avail = np.arange(1, n + 1)
        navail = n
        cc = c
        for p in range(k):
            base = n - p
            d = cc % base
            cc //= base
            perm[p] = avail[d]
            for q in range(d, navail - 1):
                avail[q] = avail[q + 1]
            navail -= 1
        for q in range(m):
            perm[k + q] = avail[q]
        ident = np.arange(1, n + 1)
        w = np.empty(n)
        s1 = 0.0
        s2 = 0.0
        sl = 0.0
        g = _identity_coefficient(perm, ident, w, F, coef, mult) - center
        s1 += g
        s2 += g * g
        if g < 0:
            sl += g * g
        # Heap's algorithm over positions k..n-1
        cnt = np.zeros(m, np.int64)
        i = 1
        while i < m:
            if cnt[i] < i:
                if i % 2 == 0:
                    a = k
                else:
                    a = k + cnt[i]
                b = k + i
                tmp = perm[a]
                perm[a] = perm[b]
                perm[b] = tmp
                g = _identity_coefficient(perm, ident, w, F, coef, mult) - center
                s1 += g
                s2 += g * g
                if g < 0:
                    sl += g * g
                cnt[i] += 1
                i = 1
            else:
                cnt[i] = 0
                i += 1
        out[c - c_start, 0] = s1
        out[c - c_start, 1] = s2
        out[c - c_start, 2] = sl
    return out
