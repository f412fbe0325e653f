"""Numba kernels behind :mod:`agreekit.ireval.bootstrap` (serial, deterministic summation order)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agreekit._sorting import stable_order
from agreekit._resampling import gather_sum  # noqa: F401  (the kernel lives with the summaries it serves)


TIE_TOL = 1e-12  # |x - y| <= TIE_TOL * max(|x|, |y|): a tie (round-off of equal means)
MARGIN_TOL = 1e-9  # |d| < f * max * (1 - MARGIN_TOL): strictly inside the margin


@njit(cache=True, inline="always")
def tied_difference(x, y):
    """x - y, or 0.0 when |x - y| <= TIE_TOL max(|x|, |y|): two summaries equal up to round-off
    are a tie (the one rule of the stability and the swap method)."""
    d = x - y
    return 0.0 if abs(d) <= TIE_TOL * max(abs(x), abs(y)) else d


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


@njit(cache=True, parallel=True)
def stability_counts(M, pa, pb, fuzz):
    """GT(a,b), GT(b,a), EQ counts per fuzziness value and pair (Sakai Fig. 9); M is systems x B.

    A zero difference (a tie up to round-off, :func:`tied_difference`) counts as EQ whatever
    the margin; |d| < f * max(x, y) is evaluated with a relative guard so that differences
    equal to the margin in exact arithmetic are not EQ whatever the rounding.
    """
    F = fuzz.size
    gt_ab = np.zeros((F, pa.size), dtype=np.int64)
    gt_ba = np.zeros((F, pa.size), dtype=np.int64)
    eq = np.zeros((F, pa.size), dtype=np.int64)
    for p in prange(pa.size):
        for b in range(M.shape[1]):
            x, y = M[pa[p], b], M[pb[p], b]
            d = tied_difference(x, y)
            for k in range(F):
                if d == 0.0 or abs(d) < fuzz[k] * max(x, y) * (1.0 - MARGIN_TOL):
                    eq[k, p] += 1
                elif d > 0.0:
                    gt_ab[k, p] += 1
                else:
                    gt_ba[k, p] += 1
    return gt_ab, gt_ba, eq


@njit(cache=True)
def swap_counts(M1, M2, pa, pb, width, n_bins):
    """Per-bin comparison and swap counters (Sakai Fig. 11) over all pairs; M1, M2 are systems x B.

    bin = floor(round(|D| / width, 9)) clipped to n_bins - 1 (as
    :func:`agreekit.ireval.bootstrap.difference_bin`); a swap is D * D' <= 0 (the literal
    rule: ties, up to round-off, count as swaps).
    """
    counter = np.zeros(n_bins, dtype=np.int64)
    swaps = np.zeros(n_bins, dtype=np.int64)
    for p in range(pa.size):
        for b in range(M1.shape[1]):
            d1 = tied_difference(M1[pa[p], b], M1[pb[p], b])
            d2 = tied_difference(M2[pa[p], b], M2[pb[p], b])
            k = min(int(np.floor(np.round(abs(d1) / width, 9))), n_bins - 1)
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
            for j in range(i + 1, s):
                sa = np.sign(A[r, i] - A[r, j])
                sb = np.sign(Bm[r, i] - Bm[r, j])
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


@njit(cache=True)
def counts_matrix(idx, n):
    """C[b, i] = number of times topic i occurs in bootstrap sample b."""
    B, m = idx.shape
    C = np.zeros((B, n))
    for b in range(B):
        for j in range(m):
            C[b, idx[b, j]] += 1.0
    return C


@njit(cache=True)
def _replicate_sums(CT, w, w2, S1, S2):
    """S1[b] = Σ_i CT[i, b] w[i] and S2[b] = Σ_i CT[i, b] w2[i], the topics i added in order.

    The inner loop runs over replicates (contiguous in CT = counts transposed, n x B), so it
    vectorises without reassociating any sum: as fast as a fastmath dot product, and the numpy
    version of the paired test (:func:`agreekit.ireval.bootstrap._paired_stream_numpy`), which
    adds the topics in the same order, reproduces every bit."""
    n, B = CT.shape
    for b in range(B):
        S1[b] = 0.0
        S2[b] = 0.0
    for i in range(n):
        wi = w[i]
        w2i = w2[i]
        row = CT[i]
        for b in range(B):
            c = row[b]
            S1[b] += c * wi
            S2[b] += c * w2i


@njit(cache=True)
def paired_one(z, CT, zero_tol):
    """Studentised paired bootstrap of one difference vector z over the topic counts CT
    (n x B: CT[i, b] = times topic i is in sample b).

    Returns (t, tstar[B], wbar[B], degenerate).  Rules: constant z (variance
    <= zero_tol * mean square, i.e. constant up to round-off) -> w = 0 and
    t = 0 (all z = 0) or +-inf; a replicate with zero spread (same rule) ->
    t* = 0 if all its values are 0, else +-inf.
    """
    n = z.size
    B = CT.shape[1]
    s = 0.0
    sq = 0.0
    for i in range(n):
        s += z[i]
        sq += z[i] * z[i]
    zbar = s / n
    dev = 0.0
    for i in range(n):
        dev += (z[i] - zbar) * (z[i] - zbar)
    # constant differences (up to round-off, same rule as for replicates below)
    const = dev / (n - 1) <= zero_tol * (sq / n)
    w = np.empty(n)
    w2 = np.empty(n)
    for i in range(n):
        w[i] = 0.0 if const else z[i] - zbar
        w2[i] = w[i] * w[i]
    if const:
        t = 0.0 if sq == 0.0 else (np.inf if zbar > 0 else -np.inf)
    else:
        sd = np.sqrt(dev / (n - 1))
        t = zbar / (sd / np.sqrt(n))
    tstar = np.empty(B)
    wbar = np.empty(B)
    _replicate_sums(CT, w, w2, wbar, tstar)  # S1 into wbar, S2 into tstar, replaced below
    for b in range(B):
        s1 = wbar[b]
        s2 = tstar[b]
        mean = s1 / n
        var = (s2 - s1 * mean) / (n - 1)
        if var < 0.0:
            var = 0.0
        wbar[b] = mean
        if var <= zero_tol * (s2 / n):
            if s2 == 0.0:
                tstar[b] = 0.0
            else:
                tstar[b] = np.inf if mean > 0 else (-np.inf if mean < 0 else 0.0)
        else:
            tstar[b] = mean / np.sqrt(var / n)
    return t, tstar, wbar, const


@njit(cache=True)
def kth_largest_stable(a, k):
    """k-th largest value of a and the first index holding it in a stable descending sort."""
    v = np.partition(a, a.size - k)[a.size - k]
    greater = 0
    for i in range(a.size):
        if a[i] > v:
            greater += 1
    need = k - greater
    seen = 0
    pos = -1
    for i in range(a.size):
        if a[i] == v:
            seen += 1
            if seen == need:
                pos = i
                break
    return v, pos


@njit(cache=True)
def count_asl(observed_abs, null, rel_tol):
    thr = observed_abs * (1.0 - rel_tol)
    c = 0
    for i in range(null.size):
        if abs(null[i]) >= thr:
            c += 1
    return c / null.size


@njit(cache=True, parallel=True)
def paired_all_pairs(X, pa, pb, CT, k, rel_tol, zero_tol):
    """Paired test for every pair (pa[p], pb[p]) of columns of X (n x s)."""
    P = pa.size
    n = X.shape[0]
    t = np.empty(P)
    asl = np.empty(P)
    crit = np.empty(P)
    contrib = np.empty(P)
    degen = np.zeros(P, dtype=np.bool_)
    for p in prange(P):
        z = np.empty(n)
        for i in range(n):
            z[i] = X[i, pa[p]] - X[i, pb[p]]
        tt, tstar, wbar, const = paired_one(z, CT, zero_tol)
        at = np.abs(tstar)
        t[p] = tt
        asl[p] = count_asl(abs(tt), at, rel_tol)
        v, pos = kth_largest_stable(at, k)
        crit[p] = v
        contrib[p] = abs(wbar[pos])
        degen[p] = const
    return t, asl, crit, contrib, degen


@njit(cache=True, parallel=True)
def unpaired_all_pairs(A1, B1, A2, B2, pa, pb, n, m, dhat, gmean, k, rel_tol):
    """Unpaired test (mean or gmean on log values) for every pair from per-system pooled sums.

    A1[s, b] / B1[s, b]: sums of system s's values drawn into x*b from the first /
    second half of the pooled vector; A2, B2 likewise for y*b.  Arrays are s x B.
    """
    P = pa.size
    B = A1.shape[1]
    asl = np.empty(P)
    crit = np.empty(P)
    for p in prange(P):
        a = pa[p]
        c = pb[p]
        d = np.empty(B)
        for b in range(B):
            mx = (A1[a, b] + B1[c, b]) / n
            my = (A2[a, b] + B2[c, b]) / m
            if gmean:
                d[b] = abs(np.exp(mx) - np.exp(my))
            else:
                d[b] = abs(mx - my)
        asl[p] = count_asl(abs(dhat[p]), d, rel_tol)
        v, pos = kth_largest_stable(d, k)
        crit[p] = v
    return asl, crit


# --------------------------------------------------------------------------- streaming


@njit(cache=True)
def _prune_top(vals, idxs, wbs, fill, k):
    """Keep the k largest (value desc, replicate index asc) of the first ``fill`` entries."""
    order = np.empty(fill, dtype=np.int64)
    stable_order(vals, fill, order, np.empty(fill, dtype=np.int64), True)
    keep = k if k < fill else fill
    v = np.empty(keep)
    ix = np.empty(keep, dtype=np.int64)
    w = np.empty(keep)
    for t in range(keep):
        o = order[t]
        v[t] = vals[o]
        ix[t] = idxs[o]
        w[t] = wbs[o]
    for t in range(keep):  # element loops: slice assignment costs seconds of compile time
        vals[t] = v[t]
        idxs[t] = ix[t]
        wbs[t] = w[t]
    return keep


@njit(cache=True, parallel=True)
def paired_pairs_batch(X, pa, pb, CT, offset, thr, count, vals, idxs, wbs, fill, kth, k, zero_tol):
    """One batch of count rows ``C`` (replicates offset, offset+1, ...) of the paired test
    over all pairs, streamed: per pair the number of |t*| >= thr[p] is added to count[p] and
    the k largest |t*| (with their replicate index and wbar) are kept in a buffer
    (vals/idxs/wbs[p, :fill[p]]); kth[p] is the current k-th largest once the buffer has
    been pruned (-1 before), below which nothing can enter the top k.
    """
    P = pa.size
    n = X.shape[0]
    Bb = CT.shape[1]
    cap = vals.shape[1]
    for p in prange(P):
        z = np.empty(n)
        for i in range(n):
            z[i] = X[i, pa[p]] - X[i, pb[p]]
        _, tstar, wbar, _ = paired_one(z, CT, zero_tol)
        f = fill[p]
        c = 0
        lim = kth[p]
        for b in range(Bb):
            a = abs(tstar[b])
            if a >= thr[p]:
                c += 1
            if a <= lim:  # ties with the k-th come later in replicate order: never in the top k
                continue
            if f == cap:
                f = _prune_top(vals[p], idxs[p], wbs[p], f, k)
                lim = vals[p, k - 1] if f >= k else -1.0
                if a <= lim:
                    continue
            vals[p, f] = a
            idxs[p, f] = offset + b
            wbs[p, f] = wbar[b]
            f += 1
        count[p] += c
        fill[p] = f
        kth[p] = lim
