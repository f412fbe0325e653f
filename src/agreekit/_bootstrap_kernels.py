"""Numba kernels behind :mod:`agreekit.bootstrap` (serial, deterministic summation order)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def gather_moments(idx, W):
    """S1[b, p] = sum_j W[idx[b, j], p] and S2[b, p] = sum_j W[idx[b, j], p] ** 2."""
    B, n = idx.shape
    P = W.shape[1]
    S1 = np.zeros((B, P))
    S2 = np.zeros((B, P))
    for b in range(B):
        s1 = S1[b]
        s2 = S2[b]
        for j in range(n):
            row = W[idx[b, j]]
            for p in range(P):
                v = row[p]
                s1[p] += v
                s2[p] += v * v
    return S1, S2


@njit(cache=True)
def gather_sum(idx, X):
    """S[b, s] = sum_j X[idx[b, j], s] (rows of ``idx`` outside X's range add nothing)."""
    B, n = idx.shape
    N, S = X.shape
    out = np.zeros((B, S))
    for b in range(B):
        o = out[b]
        for j in range(n):
            i = idx[b, j]
            if i < 0 or i >= N:
                continue
            row = X[i]
            for s in range(S):
                o[s] += row[s]
    return out


@njit(cache=True)
def stability_counts(M, pa, pb, fuzz):
    """GT(a,b), GT(b,a), EQ counts per fuzziness value and pair (Sakai Fig. 9).

    An exactly zero difference counts as EQ whatever the margin.
    """
    B = M.shape[0]
    P = pa.size
    F = fuzz.size
    gt_ab = np.zeros((F, P), dtype=np.int64)
    gt_ba = np.zeros((F, P), dtype=np.int64)
    eq = np.zeros((F, P), dtype=np.int64)
    for p in range(P):
        a = pa[p]
        c = pb[p]
        for b in range(B):
            x = M[b, a]
            y = M[b, c]
            d = x - y
            ad = abs(d)
            mx = max(x, y)
            for k in range(F):
                if d == 0.0 or ad < fuzz[k] * mx:
                    eq[k, p] += 1
                elif d > 0.0:
                    gt_ab[k, p] += 1
                else:
                    gt_ba[k, p] += 1
    return gt_ab, gt_ba, eq


@njit(cache=True)
def swap_counts(M1, M2, pa, pb, width, n_bins):
    """Per-bin comparison and swap counters (Sakai Fig. 11) over all pairs.

    bin = floor(round(|D| / width, 9)) clipped to n_bins - 1; a swap is
    D * D' <= 0 (the literal rule: ties count as swaps).
    """
    B = M1.shape[0]
    P = pa.size
    counter = np.zeros(n_bins, dtype=np.int64)
    swaps = np.zeros(n_bins, dtype=np.int64)
    for p in range(P):
        a = pa[p]
        c = pb[p]
        for b in range(B):
            d1 = M1[b, a] - M1[b, c]
            d2 = M2[b, a] - M2[b, c]
            q = np.round(abs(d1) / width, 9)
            k = int(np.floor(q))
            if k > n_bins - 1:
                k = n_bins - 1
            counter[k] += 1
            if d1 * d2 <= 0.0:
                swaps[k] += 1
    return counter, swaps


@njit(cache=True)
def kendall_rows(A, Bm, variant_b):
    """Kendall tau between rows A[b] and Bm[b] (tau-b if variant_b else tau-a); NaN if undefined."""
    R, s = A.shape
    out = np.empty(R)
    n0 = s * (s - 1) / 2.0
    for r in range(R):
        S = 0.0
        n1 = 0.0
        n2 = 0.0
        for i in range(s):
            ai = A[r, i]
            bi = Bm[r, i]
            for j in range(i + 1, s):
                da = ai - A[r, j]
                db = bi - Bm[r, j]
                sa = 1.0 if da > 0 else (-1.0 if da < 0 else 0.0)
                sb = 1.0 if db > 0 else (-1.0 if db < 0 else 0.0)
                S += sa * sb
                if sa != 0.0:
                    n1 += 1.0
                if sb != 0.0:
                    n2 += 1.0
        if variant_b:
            out[r] = S / np.sqrt(n1 * n2) if n1 > 0 and n2 > 0 else np.nan
        else:
            out[r] = S / n0
    return out
