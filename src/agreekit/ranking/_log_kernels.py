"""The per-permutation numba kernels of extreme weighers: each permutation's item weights rescaled on
their own, in log space, from the log table of :func:`agreekit.ranking._rescaling.scratch_table`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agreekit.ranking import _kernels as _k
from agreekit.ranking._rescaling import _LOG_GAP


@njit(cache=True)
def _log_item_weights(lf, x, y, mult, w):
    """Item weights of the rank vectors x, y from the log table ``lf``, rescaled into ``w`` (as
    :func:`_rescaled_weights`): the largest log weight clipped to ``_LOG_GAP`` above the second,
    then all divided by the geometric mean of the two largest (largest pair weight = 1).  Returns
    the index of the largest."""
    n = x.size
    top = 0
    l1 = -np.inf
    for i in range(n):
        la = lf[x[i] - 1]
        lb = lf[y[i] - 1]
        if mult:
            v = la + lb
        else:
            hi = la if la > lb else lb
            v = hi + np.log1p(np.exp(-abs(la - lb)))
        w[i] = v
        if v > l1:
            l1 = v
            top = i
    l2 = -np.inf
    for i in range(n):
        if i != top and w[i] > l2:
            l2 = w[i]
    l1 = min(l1, l2 + _LOG_GAP)
    c = 0.5 * (l1 + l2)
    for i in range(n):
        w[i] = np.exp((l1 if i == top else w[i]) - c)
    return top


@njit(cache=True)
def _log_gamma(x, y, lf, coef, mult, w, u, v):
    """Γ(x, y) with the item weights rescaled in log space into the buffer ``w``.

    Spearman is the weighted Pearson correlation of the data centred at the item of the largest
    weight first (``u = x - x_t``, ``v = y - y_t`` into the buffers ``u``, ``v``): those differences
    are exact, their weighted mean is small and accurate relative to the other items' weights, so a
    weight 10^-100 times the largest still counts at full precision (centring at the weighted mean
    itself would bury it; see :func:`scratch_table`).
    """
    t = _log_item_weights(lf, x, y, mult, w)
    if coef != _k.SPEARMAN:
        return _k.coefficient_weighted(x, y, w, coef)  # Kendall; it raises on an unknown code
    for i in range(x.size):
        u[i] = x[i] - x[t]
        v[i] = y[i] - y[t]
    return _k.spearman_weighted(u, v, w)


@njit(cache=True)
def log_coefficient(x, y, lf, coef, mult):
    """Γ(x, y) for two 1-based int64 rank vectors from the log table ``lf`` (see :func:`scratch_table`)."""
    n = x.size
    return _log_gamma(x, y, lf, coef, mult, np.empty(n), np.empty(n), np.empty(n))


@njit(cache=True, parallel=True)
def log_batch_identity(perms, lf, coef, mult):
    """Γ(id, perms[r]) for every row r from the log table ``lf`` (:func:`agreekit.ranking._kernels.
    batch_identity` with each permutation's weights rescaled on their own)."""
    if not _k._known(coef):
        raise ValueError("unknown coefficient code")
    k, n = perms.shape
    out = np.empty(k)
    for r in prange(k):
        ident = np.arange(1, n + 1)
        w = np.empty(n)
        u = np.empty(n)
        v = np.empty(n)
        out[r] = _log_gamma(ident, perms[r], lf, coef, mult, w, u, v)
    return out


@njit(cache=True)
def _chunk_first(n, k, c, perm):
    """``perm`` = the first permutation of chunk ``c``: its first k entries decoded in mixed radix as
    :func:`agreekit.ranking._kernels.chunk_start` does, the remaining values ascending after them."""
    rem = np.arange(1, n + 1)
    m = n
    cc = c
    for d in range(k):
        j = cc % (n - d)
        cc //= n - d
        perm[d] = rem[j]
        for q in range(j, m - 1):
            rem[q] = rem[q + 1]
        m -= 1
    for q in range(m):
        perm[k + q] = rem[q]


@njit(cache=True)
def _next_suffix(perm, k):
    """Next lexicographic permutation of ``perm[k:]`` in place; False after the last one."""
    n = perm.size
    i = n - 2
    while i >= k and perm[i] > perm[i + 1]:
        i -= 1
    if i < k:
        return False
    j = n - 1
    while perm[j] < perm[i]:
        j -= 1
    perm[i], perm[j] = perm[j], perm[i]
    lo = i + 1
    hi = n - 1
    while lo < hi:
        perm[lo], perm[hi] = perm[hi], perm[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True, parallel=True)
def _log_chunks(n, k, lf, coef, mult, center, lo, hi, c_start, c_end, values):
    """Over the permutations of chunks [c_start, c_end) (the chunks of
    :func:`agreekit.ranking._kernels.exact_chunk_sums`), Γ computed on its own for each from the log
    table ``lf``: one row per chunk of [Σ(Γ-c), Σ(Γ-c)², Σ_{Γ<c}(Γ-c)², #Γ >= lo, #Γ <= hi]; if
    ``values`` is not empty, every Γ is stored there in the layout of ``exact_chunk_sums``.  Both the
    sums and the counts are kept at every leaf: a leaf costs O(n^2) here, the two comparisons nothing."""
    if not _k._known(coef):
        raise ValueError("unknown coefficient code")
    per_chunk = np.prod(np.arange(2, n - k + 1))
    out = np.zeros((c_end - c_start, 5))
    for c in prange(c_start, c_end):
        perm = np.empty(n, np.int64)
        ident = np.arange(1, n + 1)
        buf = np.empty((3, n))
        _chunk_first(n, k, c, perm)
        pos = (c - c_start) * per_chunk
        row = np.zeros(5)
        while True:
            g = _log_gamma(ident, perm, lf, coef, mult, buf[0], buf[1], buf[2])
            if values.size:
                values[pos] = g
                pos += 1
            row[3] += g >= lo
            row[4] += g <= hi
            g -= center
            row[0] += g
            row[1] += g * g
            if g < 0:
                row[2] += g * g
            if not _next_suffix(perm, k):
                break
        out[c - c_start] = row
    return out


@njit(cache=True)
def log_exact_chunk_sums(n, k, lf, coef, mult, center, c_start, c_end, values):
    """:func:`agreekit.ranking._kernels.exact_chunk_sums` (same chunks, output and ``values`` layout)
    with every permutation's Γ computed on its own from the log table ``lf`` (see :func:`_log_chunks`)."""
    return _log_chunks(n, k, lf, coef, mult, center, np.inf, -np.inf, c_start, c_end, values)[:, :3]


@njit(cache=True)
def log_exact_chunk_counts(n, k, lf, coef, mult, lo, hi, c_start, c_end):
    """Counts of Γ >= lo and Γ <= hi over the permutations in chunks [c_start, c_end) (the counts of
    :mod:`agreekit.ranking.significance` for n = 11, 12), Γ from the log table ``lf``."""
    return _log_chunks(n, k, lf, coef, mult, 0.0, lo, hi, c_start, c_end, np.empty(0))[:, 3:].astype(np.int64)
