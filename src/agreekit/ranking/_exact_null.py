"""The exact null of Γ(id, π) over all n! permutations π: stored and bucketed for n <= 10, counted
without storing for n = 11, 12 (``method="exact"`` of :func:`agreekit.weighted_correlation_test`).

The enumeration is the one of :func:`agreekit.ranking._kernels.exact_chunk_sums` (the same chunks
and the same depth-first walk, :func:`agreekit.ranking._kernels.next_leaves`), which
:func:`agreekit.exact_moments` uses for the moments.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from agreekit._jit import pick
from agreekit.ranking import _kernels as _k
from agreekit.ranking._tails import combine, tie_tol
from agreekit.ranking._log_kernels import log_exact_chunk_counts
from agreekit.ranking._rescaling import scratch_table
from agreekit.ranking.moments import _prefix_length, _sweep

#: up to this n the sorted null is stored (10! values = 29 MB) and cached
STORE_MAX_N = 10
_CACHE_BYTES = 128 * 2**20
#: buckets of the exact null over [-1, 1] (a counting sort: O(N) to build, O(N / buckets) per query)
_BUCKETS = 1 << 16


@njit(cache=True, parallel=True)
def _exact_chunk_counts(n, k, F, coef, mult, lo, hi, c_start, c_end):
    """Counts of Γ >= lo and Γ <= hi over the permutations in chunks [c_start, c_end).

    The enumeration of :func:`agreekit.ranking._kernels.exact_chunk_sums` (same chunking, same
    walk :func:`~agreekit.ranking._kernels.next_leaves`), counting instead of summing, for
    n = 11, 12 where the n! values are not stored.
    """
    if not _k._known(coef):
        raise ValueError("unknown coefficient code")
    out = np.zeros((c_end - c_start, 2), np.int64)
    for c in prange(c_start, c_end):
        rem, idx, state, B = _k.chunk_start(F, coef, mult, n, k, c)
        n_ge = 0
        n_le = 0
        d = k
        while True:
            d, g, g2 = _k.next_leaves(F, coef, mult, n, k, d, idx, state, B, rem)
            if d < 0:
                break
            n_ge += int(g >= lo) + int(g2 >= lo)  # int(): bools add as bools in numpy
            n_le += int(g <= hi) + int(g2 <= hi)
        out[c - c_start, 0] = n_ge
        out[c - c_start, 1] = n_le
    return out


def exact_counts(n, F, coef, mult, lo, hi, progress):
    """(#Γ >= lo, #Γ <= hi) over all n! permutations without storing them."""
    k = _prefix_length(n)
    n_blocks = math.perm(n, k)
    n_slices = 1 if not progress else min(n_blocks, 50)
    edges = np.linspace(0, n_blocks, n_slices + 1).astype(np.int64)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_blocks, desc=f"exact p-value n={n}", unit="block", leave=False)
    n_ge = n_le = 0
    lf = scratch_table(F, n, coef, one_pass=True)  # extreme / ill-conditioned weighers: each permutation on its own
    kernel = pick(_exact_chunk_counts if lf is None else log_exact_chunk_counts, 4 * math.factorial(n))
    F = F if lf is None else lf
    for a, b in zip(edges[:-1], edges[1:]):
        part = kernel(n, k, F, coef, mult, lo, hi, a, b)
        n_ge += int(part[:, 0].sum())
        n_le += int(part[:, 1].sum())
        if bar is not None:
            bar.update(int(b - a))
    if bar is not None:
        bar.close()
    return n_ge, n_le


@njit(cache=True)
def _bucket_sort(values, nb):
    """Values grouped by bucket floor((v + 1)/2 · nb) (clipped to [0, nb)), bucket offsets, and the
    moments [mean, var, left var] (per-bucket partial sums, combined by the caller's pairwise sum)."""
    N = values.size
    idx = np.empty(N, np.int32)
    offsets = np.zeros(nb + 1, np.int64)
    part = np.zeros((3, nb))
    for i in range(N):
        b = int((values[i] + 1.0) * 0.5 * nb)
        b = min(max(b, 0), nb - 1)
        idx[i] = b
        offsets[b + 1] += 1
        part[0, b] += values[i]
    for b in range(nb):
        offsets[b + 1] += offsets[b]
    mean = np.sum(part[0]) / N
    pos = offsets[:-1].copy()
    out = np.empty(N)
    for i in range(N):
        b = idx[i]
        v = values[i]
        out[pos[b]] = v
        pos[b] += 1
        d = v - mean
        part[1, b] += d
        part[2, b] += d * d
    return out, offsets, mean, part


@njit(cache=True)
def _bucket_count(bucketed, offsets, t, strict):
    """Number of values < t (``strict``) or <= t."""
    nb = offsets.size - 1
    b = int((t + 1.0) * 0.5 * nb) if t > -1.0 else 0
    b = min(max(b, 0), nb - 1)
    c = offsets[b]
    for k in range(offsets[b], offsets[b + 1]):
        v = bucketed[k]
        if v < t or (not strict and v == t):
            c += 1
    return c


@dataclass(frozen=True)
class ExactNull:
    """Γ over all n! permutations, grouped by bucket (see :func:`_bucket_sort`), and its moments."""

    values: np.ndarray
    offsets: np.ndarray
    mean: float
    var: float
    left_var: float

    def tails(self, lo, hi):
        """(#Γ >= lo, #Γ <= hi)."""
        N = self.values.size
        return (
            N - _bucket_count(self.values, self.offsets, lo, True),
            _bucket_count(self.values, self.offsets, hi, False),
        )


EXACT_CACHE: "OrderedDict[tuple, ExactNull]" = OrderedDict()


def exact_null(n, F, coef, mult, progress) -> ExactNull:
    """The stored exact null at n <= :data:`STORE_MAX_N`, cached in memory (LRU, 128 MB)."""
    key = (coef, bool(mult), n, F.tobytes())
    hit = EXACT_CACHE.get(key)
    if hit is not None:
        EXACT_CACHE.move_to_end(key)
        return hit

    total = math.factorial(n)
    values = np.empty(total)
    _sweep(n, _prefix_length(n), F, coef, mult, 0.0, progress, values)
    nb = _BUCKETS if total > 4 * _BUCKETS else 1
    bucketed, offsets, mean, part = _bucket_sort(values, nb)
    del values
    # V and V^l as in exact_moments (divided by n!); buckets below the mean hold the left part, and the
    # one bucket containing the mean is split exactly
    d2 = part[2]
    bm = min(max(int((mean + 1.0) * 0.5 * nb), 0), nb - 1)
    var = float(np.sum(d2)) / total
    seg = bucketed[offsets[bm] : offsets[bm + 1]] - mean
    left_var = (float(np.sum(d2[:bm])) + float(np.sum(seg[seg < 0] ** 2))) / total
    mean = float(mean + np.sum(part[1]) / total)  # refinement: Σ(Γ - mean)/N
    bucketed.flags.writeable = False
    null = ExactNull(bucketed, offsets, mean, var, left_var)
    EXACT_CACHE[key] = null
    while sum(v.values.nbytes for v in EXACT_CACHE.values()) > _CACHE_BYTES and len(EXACT_CACHE) > 1:
        EXACT_CACHE.popitem(last=False)
    return null


def exact_test(gamma, n, F, coef, mult, alternative, progress):
    """(p, (mean, var, left_var)) of the exact null at n; the moments are None for n > STORE_MAX_N."""
    tol = tie_tol(gamma)
    if n <= STORE_MAX_N:
        null = exact_null(n, F, coef, mult, bool(progress))
        n_ge, n_le = null.tails(gamma - tol, gamma + tol)
        N = null.values.size
        return combine(n_ge / N, n_le / N, alternative), (null.mean, null.var, null.left_var)
    progress = True if progress is None else progress
    n_ge, n_le = exact_counts(n, F, coef, mult, gamma - tol, gamma + tol, progress)
    N = math.factorial(n)
    return combine(n_ge / N, n_le / N, alternative), None
