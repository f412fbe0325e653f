"""Numba kernel for the weighted Kendall τ_w of rankings with ties (τ_b-style normalization)."""

from __future__ import annotations

import numpy as np
from numba import njit

from agreekit.ranking._kernels import fenwick_add, fenwick_prefix


@njit(cache=True)
def rank_summary(r):
    """(min, max, any value repeated) of an int64 vector in one pass; repeats are only looked
    for when all values lie in 1..n."""
    n = r.size
    lo = r[0]
    hi = r[0]
    for i in range(n):
        v = r[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    if lo < 1 or hi > n:
        return lo, hi, False
    seen = np.zeros(n + 1, np.bool_)
    for i in range(n):
        v = r[i]
        if seen[v]:
            return lo, hi, True
        seen[v] = True
    return lo, hi, False


@njit(cache=True, inline="always")
def tie_group_end(sorted_vals, start):
    """End (exclusive) of the run of values equal to ``sorted_vals[start]``."""
    stop = start + 1
    while stop < sorted_vals.size and sorted_vals[stop] == sorted_vals[start]:
        stop += 1
    return stop


@njit(cache=True)
def kendall_weighted_tied(order, xs, yd, m, w):
    """Numerator of τ_w with sgn(0) = 0 (pairs tied in x or in y contribute 0), O(n log n).

    ``order`` sorts the items by x (any order within an x tie); ``xs`` is x in that
    order (to find the tie groups); ``yd`` holds dense 1-based y ranks (1..m) per item.
    Items are scanned in x order, one tie group at a time: a group is first compared
    with the Fenwick tree (weights over y of the items with strictly smaller x) and
    inserted afterwards, so pairs tied in x contribute 0.  The τ_b-style denominator is
    sqrt(Σ_{x_i≠x_j} w_i w_j · Σ_{y_i≠y_j} w_i w_j), each factor from :func:`untied_pair_weight`.
    """
    n = order.size
    tree = np.zeros(m + 1)
    num = 0.0
    seen = 0.0
    start = 0
    while start < n:
        stop = tie_group_end(xs, start)
        wg = 0.0  # the group's weight, added to `seen` in one step (the sums of untied_pair_weight)
        for k in range(start, stop):
            i = order[k]
            r = yd[i]
            below = fenwick_prefix(tree, r - 1)
            leq = fenwick_prefix(tree, r)
            num += w[i] * (below - (seen - leq))
            wg += w[i]
        for k in range(start, stop):
            i = order[k]
            fenwick_add(tree, yd[i], w[i])
        seen += wg
        start = stop
    return num


@njit(cache=True)
def untied_pair_weight(sorted_vals, w_sorted):
    """Σ_{v_i < v_j} w_i w_j over items sorted by v (the pairs not tied in v), O(n)."""
    n = sorted_vals.size
    tot = 0.0
    seen = 0.0
    start = 0
    while start < n:
        stop = tie_group_end(sorted_vals, start)
        wg = 0.0
        for k in range(start, stop):
            wg += w_sorted[k]
        tot += wg * seen
        seen += wg
        start = stop
    return tot
