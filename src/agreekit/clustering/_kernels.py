"""Numba kernels of :mod:`agreekit.clustering` (the hot loops; everything else is numpy/scipy).

* :func:`contingency_codes` — sparse contingency table of two integer-coded partitions in
  O(n + k_u + k_v) (counting sort on the first labelling, a scratch column per row cluster);
* :func:`weighted_pair_counts` — Omega's pair counts per co-membership multiplicity, visiting
  only the pairs co-clustered in at least one clustering, with nodes of identical membership
  (:func:`signature_hashes`, :func:`group_signatures`) merged into weighted groups
  (O(Σ_C g(C)²) for g(C) groups meeting cluster C; never O(n²));
* :func:`max_offdiagonal` — largest off-diagonal entry of ``U Uᵀ`` without forming it;
* :func:`best_conditional_entropies` — the LFK/MGH overlapping-NMI matching of every cluster;
* :func:`expected_mutual_info_sum` — expected mutual information over pairs of distinct
  cluster sizes (mode-centred hypergeometric recurrences, Loader's accurate pmf at the mode).
"""

from __future__ import annotations

import math

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


@njit(cache=True, inline="always")
def _scatter_row(i, ptr, idx, val, c_ptr, c_idx, c_val, mark, acc, seen, touched, nt):  # pragma: no cover
    """Row i of ``X Xᵀ`` restricted to later rows j > i: ``acc[j] = Σ_c val[i, c] · c_val[c, j]``
    (valid where ``mark[j] == i``) from the CSR rows (``ptr``, ``idx``, ``val``) and CSC columns
    (``c_ptr``, ``c_idx``, ``c_val``) of X; rows met for the first time (``seen[j] != i``) are
    appended to ``touched``.  Returns the new length of ``touched``.

    One scatter for both callers: :func:`max_offdiagonal` (float memberships) and
    :func:`weighted_pair_counts` (integer ones: ``val``/``c_val`` all 1, so ``acc`` counts shared
    clusters exactly; it calls it twice per row, for U and V, with one ``seen``/``touched``)."""
    for p in range(ptr[i], ptr[i + 1]):
        c = idx[p]
        x = val[p]
        for q in range(c_ptr[c], c_ptr[c + 1]):
            j = c_idx[q]
            if j <= i:
                continue
            if mark[j] != i:
                mark[j] = i
                acc[j] = 0
            acc[j] += x * c_val[q]
            if seen[j] != i:
                seen[j] = i
                touched[nt] = j
                nt += 1
    return nt


@njit(cache=True, nogil=True)
def max_offdiagonal(n, r_ptr, r_idx, r_val, c_ptr, c_idx, c_val, bound):  # pragma: no cover
    """max_{i != j} (U Uᵀ)_ij for non-negative U (CSR rows + CSC columns); stops at ``bound``."""
    acc = np.zeros(n, np.float64)
    mark = np.full(n, -1, np.int64)
    seen = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    best = 0.0
    for i in range(n):
        nt = _scatter_row(i, r_ptr, r_idx, r_val, c_ptr, c_idx, c_val, mark, acc, seen, touched, 0)
        for t in range(nt):
            val = acc[touched[t]]
            if val > best:
                best = val
        if best >= bound:
            return best
    return best


@njit(cache=True, nogil=True)
def signature_hashes(n, u_ptr, u_idx, v_ptr, v_idx, r1, r2):  # pragma: no cover - compiled
    """Order-free hash of each node's (U clusters, V clusters): wrapping sums of random words."""
    h = np.empty(n, np.uint64)
    for i in range(n):
        s = np.uint64(0x9E3779B97F4A7C15)
        for p in range(u_ptr[i], u_ptr[i + 1]):
            s += r1[u_idx[p]]
        for p in range(v_ptr[i], v_ptr[i + 1]):
            s += r2[v_idx[p]]
        h[i] = s
    return h


@njit(cache=True, nogil=True)
def _same_rows(ptr, idx, i, j):  # pragma: no cover - compiled
    a0, a1, b0, b1 = ptr[i], ptr[i + 1], ptr[j], ptr[j + 1]
    if a1 - a0 != b1 - b0:
        return False
    for t in range(a1 - a0):
        if idx[a0 + t] != idx[b0 + t]:
            return False
    return True


@njit(cache=True, nogil=True)
def group_signatures(order, h, u_ptr, u_idx, v_ptr, v_idx):  # pragma: no cover - compiled
    """Group nodes with identical (sorted) U and V rows; ``ok`` is False on a hash collision."""
    n = order.size
    reps = np.empty(n, np.int64)
    size = np.zeros(n, np.int64)
    g = -1
    for t in range(n):
        i = order[t]
        if t == 0 or h[i] != h[order[t - 1]]:
            g += 1
            reps[g] = i
        else:
            r = reps[g]
            if not (_same_rows(u_ptr, u_idx, i, r) and _same_rows(v_ptr, v_idx, i, r)):
                return reps[:0], size[:0], False
        size[g] += 1
    return reps[: g + 1], size[: g + 1], True


@njit(cache=True, inline="always")
def _tally(f_u, f_v, a, b, pairs):  # pragma: no cover - compiled
    """Count ``pairs`` node pairs co-clustered a times in U and b times in V (``f_X[t]``: pairs
    together exactly t > 0 times); returns the pairs that agree (a == b), else 0."""
    if a > 0:
        f_u[a] += pairs
    if b > 0:
        f_v[b] += pairs
    return pairs if a == b else 0


@njit(cache=True, nogil=True)
def weighted_pair_counts(
    G, w, u_ptr, u_idx, uc_ptr, uc_idx, v_ptr, v_idx, vc_ptr, vc_idx, max_mult
):  # pragma: no cover - compiled
    """Omega's pair counts (over unordered node pairs) computed over groups of identical nodes (group g has w[g] nodes).

    Pairs inside a group are co-clustered |U_g| and |V_g| times; pairs across groups g < h
    count w[g] w[h] times with the groups' co-membership counts.
    """
    f_u = np.zeros(max_mult + 1, np.int64)
    f_v = np.zeros(max_mult + 1, np.int64)
    cnt_u = np.zeros(G, np.int64)
    cnt_v = np.zeros(G, np.int64)
    mark_u = np.full(G, -1, np.int64)
    mark_v = np.full(G, -1, np.int64)
    seen = np.full(G, -1, np.int64)
    touched = np.empty(G, np.int64)
    ones = np.ones(max(u_idx.size, uc_idx.size, v_idx.size, vc_idx.size), np.int64)  # unit memberships
    agree_pos = 0
    union = 0
    for g in range(G):
        wg = w[g]
        cp = wg * (wg - 1) // 2
        a = u_ptr[g + 1] - u_ptr[g]
        b = v_ptr[g + 1] - v_ptr[g]
        if cp > 0 and (a > 0 or b > 0):
            agree_pos += _tally(f_u, f_v, a, b, cp)
            union += cp
        nt = _scatter_row(g, u_ptr, u_idx, ones, uc_ptr, uc_idx, ones, mark_u, cnt_u, seen, touched, 0)
        nt = _scatter_row(g, v_ptr, v_idx, ones, vc_ptr, vc_idx, ones, mark_v, cnt_v, seen, touched, nt)
        for t in range(nt):
            j = touched[t]
            pairs = wg * w[j]
            a = cnt_u[j] if mark_u[j] == g else 0
            b = cnt_v[j] if mark_v[j] == g else 0
            agree_pos += _tally(f_u, f_v, a, b, pairs)
            union += pairs
    return f_u, f_v, agree_pos, union


# --- overlapping NMI (Lancichinetti-Fortunato-Kertész 2009, appendix B) -----------------
@njit(cache=True, inline="always")
def _hcount(c, n, logn):  # pragma: no cover - compiled
    """-p log p with p = c / n (0 for c = 0)."""
    if c <= 0:
        return 0.0
    return (c / n) * (logn - np.log(c))


@njit(cache=True)
def _xlogx(c):  # pragma: no cover - compiled
    return 0.0 if c <= 1 else c * np.log(c)


@njit(cache=True)
def _valuation(x, p):  # pragma: no cover - compiled
    v = 0
    while x % p == 0:
        x //= p
        v += 1
    return v


@njit(cache=True)
def _log_form_is_zero(x, m):  # pragma: no cover - compiled
    """Whether Σ m_i log x_i = 0 exactly (integers x_i ≥ 0, m_i; terms with x_i ≤ 1 vanish).

    Logs of distinct primes are linearly independent over the rationals, so the sum is 0 iff
    Σ m_i v_p(x_i) = 0 for every prime p dividing some x_i (trial division; x_i ≤ n).
    """
    for i in range(x.size):
        r = x[i]
        p = 2
        while r > 1:
            if p * p > r:
                p = r  # r is prime
            if r % p == 0:
                e = 0
                for j in range(x.size):
                    if x[j] > 1:
                        e += m[j] * _valuation(x[j], p)
                if e != 0:
                    return False
                while r % p == 0:
                    r //= p
            p += 1
    return True


@njit(cache=True)
def _admissible(c11, c10, c01, c00, n, logn):  # pragma: no cover - compiled
    """The LFK constraint h(P11) + h(P00) > h(P01) + h(P10) for counts c (p = c / n), strict.

    In counts, n·(left − right) = d = Σ± c log c + (c11 + c00 − c01 − c10) log n.  Its sign is
    taken from floating point when |d| exceeds a bound of the rounding error; inside the bound
    an exact tie (d = 0 as a real number: equal prime exponents) is not admissible, so that
    rounding never turns equal sides into a strict inequality.
    """
    d = (_xlogx(c01) + _xlogx(c10) - _xlogx(c11) - _xlogx(c00)) + (c11 + c00 - c01 - c10) * logn
    tol = 64.0 * 2.220446049250313e-16 * (n * logn + 1.0)
    if d > tol:
        return True
    if d < -tol:
        return False
    x = np.array([c11, c00, c01, c10, n], np.int64)
    m = np.array([-c11, -c00, c01, c10, c11 + c00 - c01 - c10], np.int64)
    if _log_form_is_zero(x, m):
        return False
    return d > 0.0


@njit(cache=True, nogil=True)
def best_conditional_entropies(
    indptr, indices, overlap, a, b, size_values, size_count, size_class, n
):  # pragma: no cover - compiled
    """H(X_k|Y) = min over admissible Y_l of H(X_k|Y_l) for every cluster X_k (nats, unnormalized).

    Row k of the CSR matrix (``indptr``, ``indices``, ``overlap``) lists the clusters Y_l meeting
    X_k and |X_k ∩ Y_l|; ``a``/``b`` are the cluster sizes; ``size_values``/``size_count`` the
    distinct sizes of the Y clusters and how many have each size, ``size_class[l]`` the index of
    Y_l's size.  A pair is admissible when h(P11) + h(P00) > h(P01) + h(P10); Y clusters disjoint
    from X_k are taken into account through their sizes (all disjoint ones of one size give the
    same value).  Without an admissible Y_l, H(X_k|Y) = H(X_k).  Exact ties of the two sides
    are not admissible (:func:`_admissible`).
    """
    kx = a.size
    logn = np.log(n)
    best = np.empty(kx, np.float64)
    used = np.zeros(size_values.size, np.int64)
    for k in range(kx):
        ak = a[k]
        hx = _hcount(ak, n, logn) + _hcount(n - ak, n, logn)
        bk = hx
        for p in range(indptr[k], indptr[k + 1]):
            l = indices[p]
            o = overlap[p]
            bl = b[l]
            used[size_class[l]] += 1
            h11 = _hcount(o, n, logn)
            h10 = _hcount(ak - o, n, logn)
            h01 = _hcount(bl - o, n, logn)
            h00 = _hcount(n - ak - bl + o, n, logn)
            if _admissible(o, ak - o, bl - o, n - ak - bl + o, n, logn):
                c = h11 + h10 + h01 + h00 - (_hcount(bl, n, logn) + _hcount(n - bl, n, logn))
                if c < bk:
                    bk = c
        for s in range(size_values.size):
            if size_count[s] - used[s] > 0:  # a Y cluster of this size disjoint from X_k
                bl = size_values[s]
                h10 = _hcount(ak, n, logn)
                h01 = _hcount(bl, n, logn)
                h00 = _hcount(n - ak - bl, n, logn)
                if _admissible(0, ak, bl, n - ak - bl, n, logn):
                    c = h10 + h01 + h00 - (h01 + _hcount(n - bl, n, logn))
                    if c < bk:
                        bk = c
        for p in range(indptr[k], indptr[k + 1]):
            used[size_class[indices[p]]] = 0
        best[k] = min(max(bk, 0.0), hx)
    return best


# --- expected mutual information under the hypergeometric (permutation) model ------------
# Hypergeometric probabilities by Loader's saddle-point method (C. Loader, "Fast and accurate
# computation of binomial probabilities", 2000; as in R's dhyper): no log-gamma cancellation, so
# the relative error stays ~1e-15 at any n (log-gamma differences lose ~n log n · eps).
_LN_2PI = math.log(2.0 * math.pi)
_STIRLERR_SMALL = np.array(
    [0.0] + [math.lgamma(k + 1.0) - (k + 0.5) * math.log(k) + k - 0.5 * _LN_2PI for k in range(1, 16)]
)


@njit(cache=True)
def _stirlerr(n):  # pragma: no cover - compiled
    """log(n!) − log(√(2π n) (n/e)^n) for integer-valued n ≥ 0 (0 at n = 0)."""
    if n <= 15.0:
        return _STIRLERR_SMALL[int(n)]
    nn = n * n
    s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    if n > 500.0:
        return (s0 - s1 / nn) / n
    if n > 80.0:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35.0:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


@njit(cache=True)
def _bd0(x, np_):  # pragma: no cover - compiled
    """x log(x / np) + np − x without cancellation when x ≈ np."""
    if abs(x - np_) < 0.1 * (x + np_):
        v = (x - np_) / (x + np_)
        s = (x - np_) * v
        ej = 2.0 * x * v
        v = v * v
        j = 1
        while j < 1000:
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
        return s
    return x * math.log(x / np_) + np_ - x


@njit(cache=True)
def _log_dbinom(x, n, p, q):  # pragma: no cover - compiled
    """log of the binomial pmf C(n, x) p^x q^(n−x) (0 < p < 1, q = 1 − p, 0 ≤ x ≤ n)."""
    if x == 0.0:
        if n == 0.0:
            return 0.0
        return -_bd0(n, n * q) - n * p if p < 0.1 else n * math.log(q)
    if x == n:
        return -_bd0(n, n * p) - n * q if q < 0.1 else n * math.log(p)
    lc = _stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p) - _bd0(n - x, n * q)
    lf = _LN_2PI + math.log(x) + math.log1p(-x / n)
    return lc - 0.5 * lf


@njit(cache=True)
def _log_hypergeom(m, a, b, n):  # pragma: no cover - compiled
    """log P(m) for m of the a marked items among b drawn from n (Loader: three binomials)."""
    if b == 0.0 or b == n:
        return 0.0  # m is then determined (0 or a)
    p = b / n
    q = (n - b) / n
    return _log_dbinom(m, a, p, q) + _log_dbinom(b - m, n - a, p, q) - _log_dbinom(b, n, p, q)


@njit(cache=True, nogil=True)
def expected_mutual_info_sum(a_vals, a_cnt, b_vals, b_cnt, n):  # pragma: no cover - compiled
    """E[MI] (nats) of two partitions with row sizes ``a_vals`` (each ``a_cnt`` times) and column
    sizes ``b_vals`` (each ``b_cnt`` times) over ``n`` items (Vinh, Epps & Bailey 2009/2010).

    E[MI] = Σ_ij Σ_m (m/n) log(n m / (a_i b_j)) P(m; n, a_i, b_j), P hypergeometric.  The inner sum
    depends on (a_i, b_j) only, so it runs once per pair of *distinct* sizes; it starts at the
    mode (Loader's accurate pmf) and walks outwards with the ratio recurrence
    P(m+1)/P(m) = (a−m)(b−m) / ((m+1)(n−a−b+m+1)) until the (log-concave) pmf drops below
    1e-24 of its mode.  Each pair's term is ≥ 0 (Jensen), so the outer sum has no cancellation.
    """
    nf = float(n)
    logn = np.log(nf)
    total = 0.0
    tiny = 1e-24
    for i in range(a_vals.size):
        a = float(a_vals[i])
        la = np.log(a)
        for j in range(b_vals.size):
            b = float(b_vals[j])
            lo = max(1.0, a + b - nf)
            hi = min(a, b)
            if lo > hi:
                continue
            lab = la + np.log(b)
            mode = math.floor((a + 1.0) * (b + 1.0) / (nf + 2.0))
            m0 = min(max(mode, lo), hi)
            c = nf - a - b  # n − a − b (may be negative; n − a − b + m ≥ 0 on [lo, hi])
            p0 = math.exp(_log_hypergeom(m0, a, b, nf))
            s = p0 * m0 * (logn + np.log(m0) - lab)
            p = p0
            m = m0
            while m < hi:  # upwards
                p *= (a - m) * (b - m) / ((m + 1.0) * (c + m + 1.0))
                m += 1.0
                s += p * m * (logn + np.log(m) - lab)
                if p < tiny * p0:
                    break
            p = p0
            m = m0
            while m > lo:  # downwards
                p *= m * (c + m) / ((a - m + 1.0) * (b - m + 1.0))
                m -= 1.0
                s += p * m * (logn + np.log(m) - lab)
                if p < tiny * p0:
                    break
            total += float(a_cnt[i]) * float(b_cnt[j]) * s
    return total / nf
