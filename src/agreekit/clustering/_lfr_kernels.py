"""Numba kernels of the LFR generator: membership assignment, stub wiring with rewiring, weights.

Randomness: every kernel calls ``np.random.seed(seed)`` first (numba keeps its own generator
state, independent of numpy's), so a kernel's output is a function of its inputs and seed.
"""
from __future__ import annotations

import numba as nb
import numpy as np

_EMPTY = np.int64(-1)
_DELETED = np.int64(-2)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# ----------------------------------------------------------------------------- hash set of edges
def new_edge_set(expected_edges: int) -> np.ndarray:
    """Open-addressing hash set of edge keys ``u * n + v`` (u < v), capacity a power of two."""
    cap = 16
    while cap < 4 * max(int(expected_edges), 1):
        cap *= 2
    return np.full(cap, _EMPTY, dtype=np.int64)


@nb.njit(cache=True, inline="always")
def _slot(key, mask):
    return np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(17)) & mask


@nb.njit(cache=True)
def _contains(table, key):
    mask = table.size - 1
    i = _slot(key, mask)
    while True:
        k = table[i]
        if k == key:
            return True
        if k == _EMPTY:
            return False
        i = (i + 1) & mask


@nb.njit(cache=True)
def _insert(table, key):
    """Insert ``key`` (known to be absent), reusing the first tombstone on its probe path."""
    mask = table.size - 1
    i = _slot(key, mask)
    while True:
        k = table[i]
        if k == _EMPTY or k == _DELETED:
            table[i] = key
            return
        i = (i + 1) & mask


@nb.njit(cache=True)
def _delete(table, key):
    mask = table.size - 1
    i = _slot(key, mask)
    while True:
        k = table[i]
        if k == key:
            table[i] = _DELETED
            return
        if k == _EMPTY:
            return
        i = (i + 1) & mask


@nb.njit(cache=True, inline="always")
def _key(a, b, n):
    if a < b:
        return a * n + b
    return b * n + a


@nb.njit(cache=True)
def _share(membership, a, b):
    m = membership.shape[1]
    for i in range(m):
        ca = membership[a, i]
        if ca < 0:
            break
        for j in range(m):
            cb = membership[b, j]
            if cb < 0:
                break
            if ca == cb:
                return True
    return False


@nb.njit(cache=True)
def _valid(table, membership, external, n, a, b):
    if a == b:
        return False
    if _contains(table, _key(a, b, n)):
        return False
    if external and _share(membership, a, b):
        return False
    return True


# ----------------------------------------------------------------------------- wiring
@nb.njit(cache=True)
def wire_groups(stubs, ptr, membership, external, table, n, seed, max_rounds):
    """Configuration-model wiring of each stub group ``stubs[ptr[g]:ptr[g+1]]``, then rewiring.

    Stubs of a group are shuffled and paired; an invalid pair (self-loop, an edge already in
    ``table`` — from this or an earlier group — or, when ``external``, two nodes sharing a
    community) is repaired by a double-edge swap with a random valid edge of the same group:
    (x, y) + (c, d) -> (x, c) + (y, d), accepted only if both new edges are valid.  Pairs that
    cannot be repaired in ``max_rounds`` sweeps are dropped (their stubs are lost).
    Returns the edge arrays ``(a, b)`` (a < b) and the number of dropped pairs.
    """
    np.random.seed(seed)
    total = stubs.size // 2
    out_a = np.empty(total, dtype=np.int64)
    out_b = np.empty(total, dtype=np.int64)
    n_out = 0
    dropped = 0
    for g in range(ptr.size - 1):
        lo, hi = ptr[g], ptr[g + 1]
        s = stubs[lo:hi].copy()
        for i in range(s.size - 1, 0, -1):  # Fisher-Yates
            j = np.random.randint(0, i + 1)
            s[i], s[j] = s[j], s[i]
        m = s.size // 2
        ea = np.empty(m, dtype=np.int64)
        eb = np.empty(m, dtype=np.int64)
        good = np.zeros(m, dtype=np.bool_)
        bad = np.empty(m, dtype=np.int64)
        n_bad = 0
        n_good = 0
        for e in range(m):
            x, y = s[2 * e], s[2 * e + 1]
            ea[e] = x
            eb[e] = y
            if _valid(table, membership, external, n, x, y):
                _insert(table, _key(x, y, n))
                good[e] = True
                n_good += 1
            else:
                bad[n_bad] = e
                n_bad += 1
        for _round in range(max_rounds):
            if n_bad == 0 or n_good == 0:
                break
            still = 0
            for t in range(n_bad):
                e = bad[t]
                x, y = ea[e], eb[e]
                fixed = False
                for _try in range(50):
                    f = np.random.randint(0, m)
                    if not good[f]:
                        continue
                    c, d = ea[f], eb[f]
                    if np.random.random() < 0.5:
                        c, d = d, c
                    if not _valid(table, membership, external, n, x, c):
                        continue
                    if not _valid(table, membership, external, n, y, d):
                        continue
                    if _key(x, c, n) == _key(y, d, n):
                        continue
                    _delete(table, _key(ea[f], eb[f], n))
                    _insert(table, _key(x, c, n))
                    _insert(table, _key(y, d, n))
                    ea[f], eb[f] = x, c
                    ea[e], eb[e] = y, d
                    good[e] = True
                    n_good += 1
                    fixed = True
                    break
                if not fixed:
                    bad[still] = e
                    still += 1
            n_bad = still
        dropped += n_bad
        for e in range(m):
            if good[e]:
                x, y = ea[e], eb[e]
                if x < y:
                    out_a[n_out], out_b[n_out] = x, y
                else:
                    out_a[n_out], out_b[n_out] = y, x
                n_out += 1
    return out_a[:n_out], out_b[:n_out], dropped


# ----------------------------------------------------------------------------- memberships
@nb.njit(cache=True)
def _fenwick_add(tree, i, delta):
    i += 1
    while i < tree.size:
        tree[i] += delta
        i += i & (-i)


@nb.njit(cache=True)
def _fenwick_prefix(tree, i):
    """Sum of entries [0, i)."""
    s = 0
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


@nb.njit(cache=True)
def _fenwick_find(tree, target):
    """Smallest index i with prefix(i + 1) > target."""
    pos = 0
    step = 1
    while step * 2 < tree.size:
        step *= 2
    while step > 0:
        nxt = pos + step
        if nxt < tree.size and tree[nxt] <= target:
            pos = nxt
            target -= tree[nxt]
        step //= 2
    return pos


@nb.njit(cache=True)
def _holds(member, count, node, c):
    for j in range(count[node]):
        if member[node, j] == c:
            return True
    return False


@nb.njit(cache=True)
def assign_memberships(slot_node, slot_demand, sizes, n, o_m, seed):
    """Put membership slots into communities: a slot of internal degree d needs a community of size > d.

    Slots are taken in decreasing demand (ties in random order); each goes to a random community
    among those large enough, chosen with probability proportional to its free places, never one
    that already holds the slot's node (if only such places are left, a placed slot of another
    node moves to a free place and yields its community).  Communities are indexed by decreasing size, so the
    eligible ones form a prefix.  Returns ``(slot_community, ok)``; ``ok`` is False if a slot
    found no place.
    """
    np.random.seed(seed)
    n_slots = slot_node.size
    k = sizes.size
    # ties in random order: sort by (-demand, random key)
    keys = np.random.random(n_slots)
    order = np.argsort(keys)
    order = order[np.argsort(-slot_demand[order], kind="mergesort")]
    tree = np.zeros(k + 1, dtype=np.int64)
    free = sizes.copy()
    for c in range(k):
        _fenwick_add(tree, c, free[c])
    slot_comm = np.full(n_slots, -1, dtype=np.int64)
    member = np.full((n, o_m), -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    # eligible prefix: sizes are sorted decreasingly; communities with size > d
    for idx in range(n_slots):
        sl = order[idx]
        d = slot_demand[sl]
        node = slot_node[sl]
        lo, hi = 0, k  # number of communities with size > d
        while lo < hi:
            mid = (lo + hi) // 2
            if sizes[mid] > d:
                lo = mid + 1
            else:
                hi = mid
        p = lo
        total = _fenwick_prefix(tree, p)
        placed = False
        if total > 0:
            for _try in range(200):
                c = _fenwick_find(tree, np.random.randint(0, total))
                dup = False
                for j in range(count[node]):
                    if member[node, j] == c:
                        dup = True
                if not dup:
                    placed = True
                    break
            if not placed:  # few free communities left: scan them
                for c in range(p):
                    if free[c] > 0:
                        dup = False
                        for j in range(count[node]):
                            if member[node, j] == c:
                                dup = True
                        if not dup:
                            placed = True
                            break
        if not placed:  # every free place is in a community of this node: swap with a placed slot
            start = np.random.randint(0, n_slots)
            for step in range(n_slots):
                t = order[(start + step) % idx] if idx > 0 else -1
                if t < 0:
                    break
                c2 = slot_comm[t]
                if c2 >= p or _holds(member, count, node, c2):
                    continue
                other = slot_node[t]
                for cf in range(k):
                    if free[cf] > 0 and sizes[cf] > slot_demand[t] and cf != c2 and not _holds(member, count, other, cf):
                        for j in range(count[other]):
                            if member[other, j] == c2:
                                member[other, j] = cf
                        slot_comm[t] = cf
                        free[cf] -= 1
                        _fenwick_add(tree, cf, -1)
                        free[c2] += 1
                        _fenwick_add(tree, c2, 1)
                        c = c2
                        placed = True
                        break
                if placed:
                    break
        if not placed:
            return slot_comm, False
        slot_comm[sl] = c
        member[node, count[node]] = c
        count[node] += 1
        free[c] -= 1
        _fenwick_add(tree, c, -1)
    return slot_comm, True


# ----------------------------------------------------------------------------- weights
@nb.njit(cache=True)
def fit_weights(a, b, internal, target_in, target_out, n, sweeps, tol, floor):
    """Non-negative edge weights whose per-node sums approach the targets (least squares).

    Internal edges (``internal[e]``) serve ``target_in``, the others ``target_out``; both
    problems are solved together by coordinate descent: each edge's weight moves to the value
    that minimizes the squared residuals of its two endpoints, clipped below at ``floor`` times
    the edge's starting weight (weights stay positive).  Stops when the
    largest residual relative to its target drops below ``tol`` or after ``sweeps`` sweeps.
    """
    m = a.size
    s_in = np.zeros(n)
    s_out = np.zeros(n)
    k_in = np.zeros(n)
    k_out = np.zeros(n)
    for e in range(m):
        if internal[e]:
            k_in[a[e]] += 1.0
            k_in[b[e]] += 1.0
        else:
            k_out[a[e]] += 1.0
            k_out[b[e]] += 1.0
    w = np.empty(m)
    for e in range(m):
        i, j = a[e], b[e]
        if internal[e]:
            w[e] = 0.5 * (target_in[i] / k_in[i] + target_in[j] / k_in[j])
            s_in[i] += w[e]
            s_in[j] += w[e]
        else:
            w[e] = 0.5 * (target_out[i] / k_out[i] + target_out[j] / k_out[j])
            s_out[i] += w[e]
            s_out[j] += w[e]
    w_min = floor * w
    for _sweep in range(sweeps):
        for e in range(m):
            i, j = a[e], b[e]
            if internal[e]:
                r = 0.5 * ((target_in[i] - s_in[i]) + (target_in[j] - s_in[j]))
                new = max(w[e] + r, w_min[e])
                s_in[i] += new - w[e]
                s_in[j] += new - w[e]
            else:
                r = 0.5 * ((target_out[i] - s_out[i]) + (target_out[j] - s_out[j]))
                new = max(w[e] + r, w_min[e])
                s_out[i] += new - w[e]
                s_out[j] += new - w[e]
            w[e] = new
        worst = 0.0
        for i in range(n):
            if k_in[i] > 0 and target_in[i] > 0:
                worst = max(worst, abs(s_in[i] - target_in[i]) / target_in[i])
            if k_out[i] > 0 and target_out[i] > 0:
                worst = max(worst, abs(s_out[i] - target_out[i]) / target_out[i])
        if worst < tol:
            break
    return w
