"""Numba kernels behind :mod:`agreekit.metaeval` (parallel over replicates, deterministic)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agreekit._jit import numpy_version
from agreekit._sorting import stable_order

#: |x - y| <= TIE_TOL * max(|x|, |y|) counts as a tie (round-off of means equal in exact arithmetic)
TIE_TOL = 1e-12


@njit(cache=True, parallel=True)
def average_ranks_desc(S, rel_tol):
    """Average ranks of each row of S (R x s), 1 = largest; near-equal values share a rank.

    Values are sorted descending and consecutive values within ``rel_tol`` (relative)
    chain into one tie group, which gets the mean of the positions it occupies.
    """
    R, s = S.shape
    out = np.empty((R, s))
    for r in prange(R):
        row = S[r]
        order = np.empty(s, dtype=np.int64)
        stable_order(row, s, order, np.empty(s, dtype=np.int64), True)  # np.argsort(-row, kind="mergesort")
        start = 0
        while start < s:
            stop = start + 1
            while stop < s:
                a = row[order[stop - 1]]
                b = row[order[stop]]
                if abs(a - b) <= rel_tol * max(abs(a), abs(b)):
                    stop += 1
                else:
                    break
            avg = 0.5 * (start + stop - 1) + 1.0
            for k in range(start, stop):
                out[r, order[k]] = avg
            start = stop
    return out


@njit(cache=True, parallel=True)
def pair_correlations(RA, FW, pa, pb, multiplicative):
    """Kendall tau-b and weighted tau_w (tau-b normalised) for every replicate and metric pair.

    RA[m, r, i]: rank of system i by metric m in replicate r (ties share a value);
    FW[m, r, i]: f at that rank.  Item weight w_i = FW[a, r, i] + FW[b, r, i] (or the
    product); tau_w = sum_{i<j} w_i w_j sgn_a sgn_b / sqrt(sum_{a untied} w_i w_j *
    sum_{b untied} w_i w_j), which is the tau_w of Lombardo (2025) when there are no ties.
    Returns (tau_b, tau_w), each of shape (R, P); NaN where a ranking is all tied.
    """
    M, R, s = RA.shape
    P = pa.size
    tb = np.empty((R, P))
    tw = np.empty((R, P))
    for r in prange(R):
        w = np.empty(s)
        for p in range(P):
            a = pa[p]
            b = pb[p]
            xa = RA[a, r]
            xb = RA[b, r]
            for i in range(s):
                if multiplicative:
                    w[i] = FW[a, r, i] * FW[b, r, i]
                else:
                    w[i] = FW[a, r, i] + FW[b, r, i]
            # concordance sums of tau_b (S0) and tau_w (Sw); untied pairs of each ranking (n1, n2)
            # and their weights (d1, d2)
            S0 = Sw = n1 = n2 = d1 = d2 = 0.0
            for i in range(s):
                for j in range(i + 1, s):
                    sa = np.sign(xa[i] - xa[j])  # finite ranks: 1.0, -1.0 or 0.0
                    sb = np.sign(xb[i] - xb[j])
                    ww = w[i] * w[j]
                    c = sa * sb
                    S0 += c
                    Sw += c * ww
                    if sa != 0.0:
                        n1 += 1.0
                        d1 += ww
                    if sb != 0.0:
                        n2 += 1.0
                        d2 += ww
            tb[r, p] = S0 / np.sqrt(n1 * n2) if n1 > 0 and n2 > 0 else np.nan
            tw[r, p] = Sw / np.sqrt(d1 * d2) if d1 > 0 and d2 > 0 else np.nan
    return tb, tw


@njit(cache=True, parallel=True)
def top_k_overlap(RA, pa, pb, k):
    """|{i: minrank_a(i) <= k} ∩ {i: minrank_b(i) <= k}| per replicate and pair.

    With average ranks, the competition (min) rank of i is 1 + #{j: strictly better};
    system i is in the top k when fewer than k systems are strictly better.
    """
    M, R, s = RA.shape
    P = pa.size
    out = np.empty((R, P), dtype=np.int64)
    for r in prange(R):
        top = np.zeros((M, s), dtype=np.bool_)
        for m in range(M):
            x = RA[m, r]
            for i in range(s):
                better = 0
                for j in range(s):
                    if x[j] < x[i]:
                        better += 1
                top[m, i] = better < k
        for p in range(P):
            c = 0
            for i in range(s):
                if top[pa[p], i] and top[pb[p], i]:
                    c += 1
            out[r, p] = c
    return out


# --------------------------------------------------------------------------- numpy versions
# The kernels' operations in the kernels' order, vectorised over replicates: the same bits
# (tests/test_jit.py), used for small inputs before the kernels are compiled (agreekit._jit).


@numpy_version(average_ranks_desc)
def _average_ranks_desc_numpy(S, rel_tol):
    R, s = S.shape
    out = np.empty((R, s))
    if s == 0:
        return out
    order = np.argsort(-S, axis=1, kind="stable")  # the stable descending order of the kernel
    v = np.take_along_axis(S, order, axis=1)
    a, b = v[:, :-1], v[:, 1:]
    tie = np.abs(a - b) <= rel_tol * np.maximum(np.abs(a), np.abs(b))
    pos = np.broadcast_to(np.arange(s), (R, s))
    new = np.ones((R, s), dtype=bool)
    new[:, 1:] = ~tie
    end = np.ones((R, s), dtype=bool)
    end[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    stop = np.minimum.accumulate(np.where(end, pos + 1, s)[:, ::-1], axis=1)[:, ::-1]
    avg = 0.5 * (start + stop - 1) + 1.0
    np.put_along_axis(out, order, avg, axis=1)
    return out


@numpy_version(pair_correlations)
def _pair_correlations_numpy(RA, FW, pa, pb, multiplicative):
    M, R, s = RA.shape
    P = pa.size
    tb = np.empty((R, P))
    tw = np.empty((R, P))
    for p in range(P):
        xa = RA[pa[p]]
        xb = RA[pb[p]]
        w = FW[pa[p]] * FW[pb[p]] if multiplicative else FW[pa[p]] + FW[pb[p]]
        S0 = np.zeros(R)
        n1 = np.zeros(R)
        n2 = np.zeros(R)
        Sw = np.zeros((R, 1))
        d1 = np.zeros((R, 1))
        d2 = np.zeros((R, 1))
        for i in range(s - 1):
            sa = np.sign(xa[:, i, None] - xa[:, i + 1 :])
            sb = np.sign(xb[:, i, None] - xb[:, i + 1 :])
            ww = w[:, i, None] * w[:, i + 1 :]
            c = sa * sb
            S0 += c.sum(axis=1)  # small integers: exact in any order
            n1 += np.count_nonzero(sa, axis=1)
            n2 += np.count_nonzero(sb, axis=1)
            # the weighted sums in the kernel's order: add.accumulate is sequential, and the
            # kernel's skipped terms are added here as +0.0, which changes nothing
            Sw = np.add.accumulate(np.concatenate([Sw, c * ww], axis=1), axis=1)[:, -1:]
            d1 = np.add.accumulate(np.concatenate([d1, np.where(sa != 0, ww, 0.0)], axis=1), axis=1)[:, -1:]
            d2 = np.add.accumulate(np.concatenate([d2, np.where(sb != 0, ww, 0.0)], axis=1), axis=1)[:, -1:]
        Sw, d1, d2 = Sw[:, 0], d1[:, 0], d2[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            tb[:, p] = np.where((n1 > 0) & (n2 > 0), S0 / np.sqrt(n1 * n2), np.nan)
            tw[:, p] = np.where((d1 > 0) & (d2 > 0), Sw / np.sqrt(d1 * d2), np.nan)
    return tb, tw
