"""Numba kernels of :mod:`agreekit.agreement` (the hot loops; everything else is numpy/scipy).

* :func:`contingency_codes` — sparse contingency table of two integer-coded partitions in
  O(n + k_u + k_v) (counting sort on the first labelling, a scratch column per row cluster);
* :func:`comembership_pair_counts` — Omega's pair counts per co-membership multiplicity,
  visiting only the pairs co-clustered in at least one clustering (O(Σ|C|²), never O(n²));
* :func:`max_offdiagonal` — largest off-diagonal entry of ``U Uᵀ`` without forming it.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def contingency_codes(u, v, ku, kv):  # pragma: no cover - compiled
    n = u.size
    start = np.zeros(ku + 1, np.int64)
    for i in range(n):
        start[u[i] + 1] += 1
    for c in range(ku):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    vs = np.empty(n, np.int32)
    for i in range(n):
        c = u[i]
        vs[fill[c]] = v[i]
        fill[c] += 1
    last = np.full(kv, -1, np.int64)
    slot = np.empty(kv, np.int64)
    rows = np.empty(n, np.int32)
    cols = np.empty(n, np.int32)
    cnt = np.empty(n, np.float64)
    m = 0
    for c in range(ku):
        for p in range(start[c], start[c + 1]):
            j = vs[p]
            if last[j] != c:
                last[j] = c
                slot[j] = m
                rows[m] = c
                cols[m] = j
                cnt[m] = 0.0
                m += 1
            cnt[slot[j]] += 1.0
    return rows[:m], cols[:m], cnt[:m]


@njit(cache=True, nogil=True)
def comembership_pair_counts(n, u_ptr, u_idx, uc_ptr, uc_idx, v_ptr, v_idx, vc_ptr, vc_idx,
                             max_mult):  # pragma: no cover - compiled
    """Pair counts of two crisp covers, over unordered pairs i < j.

    ``u_ptr/u_idx``: CSR (node -> clusters) of U; ``uc_ptr/uc_idx``: CSC (cluster -> nodes).
    Returns ``f_u[t]``, ``f_v[t]`` (pairs co-clustered exactly t >= 1 times), the number of
    pairs with equal positive multiplicity, and the number of pairs positive in U or V.
    """
    f_u = np.zeros(max_mult + 1, np.int64)
    f_v = np.zeros(max_mult + 1, np.int64)
    cnt_u = np.zeros(n, np.int64)
    cnt_v = np.zeros(n, np.int64)
    mark_u = np.full(n, -1, np.int64)
    mark_v = np.full(n, -1, np.int64)
    seen = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    agree_pos = 0
    union = 0
    for i in range(n):
        nt = 0
        for p in range(u_ptr[i], u_ptr[i + 1]):
            c = u_idx[p]
            for q in range(uc_ptr[c], uc_ptr[c + 1]):
                j = uc_idx[q]
                if j <= i:
                    continue
                if mark_u[j] != i:
                    mark_u[j] = i
                    cnt_u[j] = 0
                cnt_u[j] += 1
                if seen[j] != i:
                    seen[j] = i
                    touched[nt] = j
                    nt += 1
        for p in range(v_ptr[i], v_ptr[i + 1]):
            c = v_idx[p]
            for q in range(vc_ptr[c], vc_ptr[c + 1]):
                j = vc_idx[q]
                if j <= i:
                    continue
                if mark_v[j] != i:
                    mark_v[j] = i
                    cnt_v[j] = 0
                cnt_v[j] += 1
                if seen[j] != i:
                    seen[j] = i
                    touched[nt] = j
                    nt += 1
        union += nt
        for t in range(nt):
            j = touched[t]
            a = cnt_u[j] if mark_u[j] == i else 0
            b = cnt_v[j] if mark_v[j] == i else 0
            if a > 0:
                f_u[a] += 1
            if b > 0:
                f_v[b] += 1
            if a == b:
                agree_pos += 1
    return f_u, f_v, agree_pos, union


@njit(cache=True, nogil=True)
def max_offdiagonal(n, r_ptr, r_idx, r_val, c_ptr, c_idx, c_val, bound):  # pragma: no cover
    """max_{i != j} (U Uᵀ)_ij for non-negative U (CSR rows + CSC columns); stops at ``bound``."""
    acc = np.zeros(n, np.float64)
    mark = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    best = 0.0
    for i in range(n):
        nt = 0
        for p in range(r_ptr[i], r_ptr[i + 1]):
            c = r_idx[p]
            x = r_val[p]
            for q in range(c_ptr[c], c_ptr[c + 1]):
                j = c_idx[q]
                if j <= i:
                    continue
                if mark[j] != i:
                    mark[j] = i
                    acc[j] = 0.0
                    touched[nt] = j
                    nt += 1
                acc[j] += x * c_val[q]
        for t in range(nt):
            val = acc[touched[t]]
            if val > best:
                best = val
        if best >= bound:
            return best
    return best
