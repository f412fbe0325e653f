"""Numba kernels of the LFR generator: membership assignment, stub wiring with rewiring, weights.

Randomness: every kernel calls ``np.random.seed(seed)`` first (numba keeps its own generator
state, independent of numpy's), so a kernel's output is a function of its inputs and seed.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agreekit._sorting import stable_order

_EMPTY = np.int64(-1)
_DELETED = np.int64(-2)
# numpy booleans, not True / False: numba compiles a callee for a literal True or False argument
# apart from its ordinary boolean version (several variants instead of one: seconds of compiling)
_NO = np.bool_(False)
_YES = np.bool_(True)
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
def _probe(table, key, stop_at_tombstone):
    """Linear probing from ``key``'s slot: the first slot holding ``key`` or empty (or, with
    ``stop_at_tombstone``, deleted) — the one probe loop of the three operations below."""
    mask = table.size - 1
    i = _slot(key, mask)
    while True:
        k = table[i]
        if k == key or k == _EMPTY or (stop_at_tombstone and k == _DELETED):
            return i
        i = (i + 1) & mask


@nb.njit(cache=True)
def _contains(table, key):
    return table[_probe(table, key, _NO)] == key


@nb.njit(cache=True)
def _insert(table, key):
    """Insert ``key`` (known to be absent), reusing the first tombstone on its probe path."""
    table[_probe(table, key, _YES)] = key


@nb.njit(cache=True)
def _delete(table, key):
    i = _probe(table, key, _NO)
    if table[i] == key:
        table[i] = _DELETED


@nb.njit(cache=True, inline="always")
def _key(a, b, n):
    if a < b:
        return a * n + b
    return b * n + a


@nb.njit(cache=True, inline="always")
def _slot_of(membership, v, c):
    """Index j with ``membership[v, j] == c`` (a node's communities fill a prefix of its row), or -1."""
    for j in range(membership.shape[1]):
        cv = membership[v, j]
        if cv < 0:
            return -1
        if cv == c:
            return j
    return -1


@nb.njit(cache=True)
def _share(membership, a, b):
    for i in range(membership.shape[1]):
        ca = membership[a, i]
        if ca < 0:
            break
        if _slot_of(membership, b, ca) >= 0:
            return True
    return False


@nb.njit(cache=True)
def _try_swap(table, membership, external, n, ea, eb, e, f, e_gets_xc, drop_e, drop_f):
    """Edges e = (x, y) and f = (c, d), f in random orientation: swap them to (x, c) + (y, d) if
    :func:`_swap_ok` (True) or leave them (False).  ``e_gets_xc``: e becomes (x, c) and f (y, d),
    else the other way round; ``drop_e`` / ``drop_f``: the edge's old key is in ``table``."""
    x, y, c, d = ea[e], eb[e], ea[f], eb[f]
    if np.random.random() < 0.5:
        c, d = d, c
    if not _swap_ok(table, membership, np.bool_(external), n, x, y, c, d):  # np.bool_: one compiled variant
        return False
    if not e_gets_xc:  # f becomes (x, c) and e (y, d)
        e, f, drop_e, drop_f = f, e, drop_f, drop_e
    # the hash-set operations in one fixed order — delete the old key of e (if ``drop_e``: the
    # edge is in ``table``), then that of f, insert (x, c), insert (y, d) — so that every caller's
    # probe sequences, and hence its graphs, stay as they were
    if drop_e:
        _delete(table, _key(ea[e], eb[e], n))
    if drop_f:
        _delete(table, _key(ea[f], eb[f], n))
    _insert(table, _key(x, c, n))
    _insert(table, _key(y, d, n))
    ea[e], eb[e] = x, c
    ea[f], eb[f] = y, d
    return True


@nb.njit(cache=True)
def _insert_valid(table, membership, external, n, ea, eb, m, good, bad):
    """Insert each pair ``(ea[e], eb[e])``, e < m, that is valid — two distinct nodes, not an
    edge of ``table`` yet and, if ``external``, sharing no community — into ``table`` and mark it
    ``good``; list the others in ``bad``.  Returns ``(n_good, n_bad)``."""
    n_good = np.int64(0)  # typed counters: numba compiles a callee once, not also for a literal 0
    n_bad = np.int64(0)
    for e in range(m):
        a, b = ea[e], eb[e]
        if a != b and not _contains(table, _key(a, b, n)) and not (external and _share(membership, a, b)):
            _insert(table, _key(a, b, n))
            good[e] = True
            n_good += 1
        else:
            bad[n_bad] = e
            n_bad += 1
    return n_good, n_bad


@nb.njit(cache=True)
def _repair_round(table, membership, external, n, ea, eb, m, good, bad, n_bad, n_good, tries):
    """One sweep over the invalid pairs ``bad[:n_bad]``: each tries ``tries`` random good edges
    ``f`` for the swap (x, y) + (c, d) -> (x, c) + (y, d) (``(c, d)`` in random orientation),
    accepted if :func:`_swap_ok`.  Returns ``(still, n_good)``: the pairs left stay in
    ``bad[:still]``."""
    still = np.int64(0)
    for t in range(n_bad):
        e = bad[t]
        fixed = False
        for _try in range(tries):
            f = np.random.randint(0, m)
            if not good[f]:
                continue
            if not _try_swap(table, membership, external, n, ea, eb, e, f, _NO, _NO, _YES):
                continue
            good[e] = True
            n_good += 1
            fixed = True
            break
        if not fixed:
            bad[still] = e
            still += 1
    return still, n_good


@nb.njit(cache=True)
def _random_swaps(table, membership, n, ea, eb, m, good, steps):
    """``steps`` attempts of a random double-edge swap between two distinct good edges
    (degree-preserving randomization; a swap is kept only if the graph stays simple)."""
    for _sweep in range(steps):
        e = np.random.randint(0, m)
        f = np.random.randint(0, m)
        if e == f or not good[e] or not good[f]:
            continue
        _try_swap(table, membership, _NO, n, ea, eb, e, f, _YES, _YES, _YES)


# ----------------------------------------------------------------------------- wiring
@nb.njit(cache=True)
def wire_groups(stubs, ptr, membership, external, table, n, seed, max_rounds):
    """Configuration-model wiring of each stub group ``stubs[ptr[g]:ptr[g+1]]``, then rewiring.

    Stubs of a group are shuffled and paired; an invalid pair (self-loop, an edge already in
    ``table`` — from this or an earlier group — or, when ``external``, two nodes sharing a
    community) is repaired by a double-edge swap with a random valid edge of the same group:
    (x, y) + (c, d) -> (x, c) + (y, d), accepted only if both new edges are valid.  Pairs that
    cannot be repaired in ``max_rounds`` sweeps are returned apart (not inserted in ``table``)
    for the callers' further rewiring (:func:`rebuild_group`, :func:`repair_external`).
    Returns ``(a, b, g, bad_a, bad_b, bad_g)``: the wired edges (a < b) with their group, and
    the unrepaired pairs with theirs.
    """
    np.random.seed(seed)
    total = stubs.size // 2
    out_a = np.empty(total, dtype=np.int64)
    out_b = np.empty(total, dtype=np.int64)
    out_g = np.empty(total, dtype=np.int64)
    bad_a = np.empty(total, dtype=np.int64)
    bad_b = np.empty(total, dtype=np.int64)
    bad_g = np.empty(total, dtype=np.int64)
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
        for e in range(m):
            ea[e] = s[2 * e]
            eb[e] = s[2 * e + 1]
        good = np.zeros(m, dtype=np.bool_)
        bad = np.empty(m, dtype=np.int64)
        n_good, n_bad = _insert_valid(table, membership, external, n, ea, eb, m, good, bad)
        idle = 0
        for _round in range(max_rounds):
            if n_bad == 0 or n_good == 0 or idle == 5:  # 5 rounds without a fix: left to the callers
                break
            still, n_good = _repair_round(
                table, membership, np.bool_(external), n, ea, eb, m, good, bad, n_bad, n_good, np.int64(50)
            )
            idle = idle + 1 if still == n_bad else 0
            n_bad = still
        for e in range(m):
            x, y = ea[e], eb[e]
            if x > y:
                x, y = y, x
            if good[e]:
                out_a[n_out], out_b[n_out], out_g[n_out] = x, y, g
                n_out += 1
            else:
                bad_a[dropped], bad_b[dropped], bad_g[dropped] = x, y, g
                dropped += 1
    return out_a[:n_out], out_b[:n_out], out_g[:n_out], bad_a[:dropped], bad_b[:dropped], bad_g[:dropped]


# ----------------------------------------------------------------------------- memberships
# A Fenwick tree of integer free-place counts, 0-based (``_fenwick_prefix(tree, i)`` sums entries
# [0, i)).  ``agreekit.ranking._kernels`` has a Fenwick tree of the same shape (``duplicates`` lists
# the pair) that stays separate on purpose: that one sums float weights at 1-based positions and
# returns a float; here the prefix sum must stay an int64, because it is the upper bound of
# ``np.random.randint`` (a float bound would change the draws and so every graph), and an area may
# not import another area's private kernels (import-linter contract "private").
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
    # order = np.argsort(keys) (distinct keys: any sort gives this order), then stably by decreasing
    # demand; stable_order compiles in a fraction of numba's argsort.  Keys in [0, 1) order as
    # their IEEE bits read as int64, so one int64 sort serves both.
    first = np.empty(n_slots, dtype=np.int64)
    buf = np.empty(n_slots, dtype=np.int64)
    stable_order(keys.view(np.int64), n_slots, first, buf, np.bool_(False))
    demand_first = np.empty(n_slots, dtype=np.int64)
    for i in range(n_slots):
        demand_first[i] = slot_demand[first[i]]
    by_demand = np.empty(n_slots, dtype=np.int64)
    stable_order(demand_first, n_slots, by_demand, buf, np.bool_(True))
    order = np.empty(n_slots, dtype=np.int64)
    for i in range(n_slots):
        order[i] = first[by_demand[i]]
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
        lo, hi = np.int64(0), k  # number of communities with size > d
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
                if not _holds(member, count, node, c):
                    placed = True
                    break
            if not placed:  # few free communities left: scan them
                for c in range(p):
                    if free[c] > 0 and not _holds(member, count, node, c):
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
                    if (
                        free[cf] > 0
                        and sizes[cf] > slot_demand[t]
                        and cf != c2
                        and not _holds(member, count, other, cf)
                    ):
                        for j in range(count[other]):
                            if member[other, j] == c2:
                                member[other, j] = cf
                        slot_comm[t] = cf
                        free[cf] -= 1
                        _fenwick_add(tree, cf, np.int64(-1))
                        free[c2] += 1
                        _fenwick_add(tree, c2, np.int64(1))
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
        _fenwick_add(tree, c, np.int64(-1))
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


# ----------------------------------------------------------------------------- exact realization
@nb.njit(cache=True)
def delete_edges(table, a, b, n):
    """Remove the edges ``(a[i], b[i])`` from the edge set."""
    for i in range(a.size):
        _delete(table, _key(a[i], b[i], n))


@nb.njit(cache=True)
def _swap_ok(table, membership, external, n, x, y, c, d):
    """Can edges (x, y), (c, d) become (x, c), (y, d)?  (The old edges' keys are ignored.)"""
    if x == c or y == d:
        return False
    k1 = _key(x, c, n)
    k2 = _key(y, d, n)
    if k1 == k2:
        return False
    if _contains(table, k1) or _contains(table, k2):
        return False
    if external and (_share(membership, x, c) or _share(membership, y, d)):
        return False
    return True


@nb.njit(cache=True)
def rebuild_group(nodes, demands, table, membership, n, seed, sweeps):
    """Realize the degree sequence ``demands`` of the distinct ``nodes`` of one community exactly.

    The reference implementation's route: a Havel-Hakimi graph (exact whenever the sequence is
    graphical — the membership assignment checks Erdős-Gallai), then ``sweeps`` rounds of random
    double-edge swaps per edge (degree-preserving randomization, each swap accepted only if it
    keeps the graph simple).  Pairs clashing with edges already in ``table`` (an overlapping pair
    wired in another community) are then repaired by swaps with the group's other edges.  The
    realized edges are inserted in ``table``.  Returns ``(a, b, bad_a, bad_b)`` (a < b): the
    edges and the pairs that could not be wired.
    """
    np.random.seed(seed)
    s = nodes.size
    res = demands.copy()
    m = np.int64(0)  # sum(demands) // 2, in a loop: ``.sum()`` and ``int()`` each add compile time
    for t in range(s):
        m += demands[t]
    m //= 2
    ea = np.empty(m, dtype=np.int64)
    eb = np.empty(m, dtype=np.int64)
    k = np.int64(0)
    leftover = 0
    order = np.empty(s, dtype=np.int64)
    buf = np.empty(s, dtype=np.int64)
    while True:
        stable_order(res, s, order, buf, np.bool_(True))  # = np.argsort(-res, kind="mergesort")
        v = order[0]
        r = res[v]
        if r <= 0:
            break
        res[v] = 0
        cnt = 0
        for t in range(1, s):
            if cnt == r:
                break
            u = order[t]
            if res[u] <= 0:
                break
            if k < m:
                ea[k] = nodes[v]
                eb[k] = nodes[u]
                k += 1
            res[u] -= 1
            cnt += 1
        leftover += r - cnt
    m = k
    if m >= 2:  # randomize the community's own graph first (local edge set), so clashes are random
        cap = 16
        while cap < 4 * m:
            cap *= 2
        local = np.empty(cap, dtype=np.int64)  # filled in loops: np.full / np.ones compile slowly
        for i in range(cap):
            local[i] = _EMPTY
        for e in range(m):
            _insert(local, _key(ea[e], eb[e], n))
        every = np.empty(m, dtype=np.bool_)
        for e in range(m):
            every[e] = True
        _random_swaps(local, membership, n, ea, eb, m, every, sweeps * m)
    good = np.zeros(m, dtype=np.bool_)
    bad = np.empty(m, dtype=np.int64)
    n_good, n_bad = _insert_valid(table, membership, _NO, n, ea, eb, m, good, bad)
    for _round in range(100):  # repair clashes with other communities' edges
        if n_bad == 0 or n_good == 0:
            break
        n_bad, n_good = _repair_round(
            table, membership, np.bool_(False), n, ea, eb, m, good, bad, n_bad, n_good, np.int64(200)
        )
    if n_good >= 2 and n_good < m:  # randomize again around the repaired pairs
        _random_swaps(table, membership, n, ea, eb, m, good, m)
    out_a = np.empty(n_good, dtype=np.int64)
    out_b = np.empty(n_good, dtype=np.int64)
    bad_a = np.empty(m - n_good + leftover, dtype=np.int64)
    bad_b = np.empty(m - n_good + leftover, dtype=np.int64)
    i = 0
    j = 0
    for e in range(m):
        x, y = ea[e], eb[e]
        if y < x:
            x, y = y, x
        if good[e]:
            out_a[i], out_b[i] = x, y
            i += 1
        else:
            bad_a[j], bad_b[j] = x, y
            j += 1
    # stubs Havel-Hakimi could not pair (non-graphical sequence): reported as self-pairs of the node
    for t in range(s):
        for _r in range(res[t]):
            if j < bad_a.size:
                bad_a[j], bad_b[j] = nodes[t], nodes[t]
                j += 1
    return out_a, out_b, bad_a[:j], bad_b[:j]


@nb.njit(cache=True)
def repair_external(xa, xb, ea, eb, ia, ib, table, membership, n, deg, seed, tries):
    """Wire the external pairs ``(xa, xb)`` that the configuration model left invalid.

    As the reference implementation does: (1) a double-edge swap with any other external pair
    — valid or not — whose result is two valid external edges (two same-community pairs of
    different communities become two external edges; this is the move that fixes the
    two-community case); (2) what is left has no external partner (one community holds more
    external stubs than the others can take): swap with an internal edge ``(c, d)`` of another
    community, ``(x, y) + (c, d) -> (x, c) + (y, d)``, or turn the pair into an internal edge
    of the community ``x`` and ``y`` share; the two moves shift the mean mixing in opposite
    directions (``+1/k_c + 1/k_d`` and ``-1/k_x - 1/k_y``), so the one that brings the running
    shift back towards zero is tried first.  Degrees are kept by every move.

    ``(ea, eb)`` are the valid external edges and ``(ia, ib)`` the internal ones (all in
    ``table``).  Returns ``(ext_a, ext_b, int_a, int_b, bad_a, bad_b, n_internal_swaps,
    n_converted)`` (a < b), ``bad`` being the pairs still not wired.
    """
    np.random.seed(seed)
    nb_ = xa.size
    ne = ea.size + nb_
    A = np.empty(ne, dtype=np.int64)
    B = np.empty(ne, dtype=np.int64)
    ok = np.zeros(ne, dtype=np.bool_)
    A[: ea.size] = ea
    B[: ea.size] = eb
    ok[: ea.size] = True
    A[ea.size :] = xa
    B[ea.size :] = xb
    bad = np.arange(ea.size, ne)
    # (1) swaps with any external pair
    n_bad = _swap_external_pairs(table, membership, n, A, B, ok, bad, nb_, tries)
    # (2) internal-edge swaps and conversions, balancing the mixing
    mi = ia.size
    IA = np.empty(mi + n_bad, dtype=np.int64)
    IB = np.empty(mi + n_bad, dtype=np.int64)
    alive = np.zeros(mi + n_bad, dtype=np.bool_)
    IA[:mi] = ia
    IB[:mi] = ib
    alive[:mi] = True
    XA = np.empty(n_bad, dtype=np.int64)  # external edges made by internal swaps (two per swap)
    XB = np.empty(n_bad, dtype=np.int64)
    n_bad, n_int, n_x, n_swaps, n_conv = _internal_moves(
        table, membership, n, deg, A, B, ok, bad, n_bad, IA, IB, alive, mi, XA, XB, tries
    )
    ext_a, ext_b = _ordered_pairs(A, B, ok, ne)
    made_a, made_b = _ordered_pairs(XA, XB, np.ones(n_x, dtype=np.bool_), n_x)
    int_a, int_b = _ordered_pairs(IA, IB, alive, n_int)
    left = bad[:n_bad]
    return (
        np.concatenate((ext_a, made_a)),
        np.concatenate((ext_b, made_b)),
        int_a,
        int_b,
        A[left],
        B[left],
        n_swaps,
        n_conv,
    )


@nb.njit(cache=True)
def _swap_external_pairs(table, membership, n, A, B, ok, bad, n_bad, tries):
    """Step (1) of :func:`repair_external`: rounds of double-edge swaps of each invalid pair
    ``bad[t]`` with a random external pair (half of the draws among the invalid ones), until a
    round fixes nothing.  ``ok`` marks the valid pairs (in ``table``).  Returns the number of
    pairs left invalid, kept in ``bad[:n_bad]``."""
    ne = A.size
    for _round in range(100):
        if n_bad == 0:
            break
        progress = False
        for t in range(n_bad):
            e = bad[t]
            if ok[e]:
                continue
            for _try in range(tries):
                if np.random.random() < 0.5 and n_bad > 1:
                    f = bad[np.random.randint(0, n_bad)]
                else:
                    f = np.random.randint(0, ne)
                if f == e:
                    continue
                if not _try_swap(table, membership, _YES, n, A, B, e, f, _YES, _NO, ok[f]):  # e not in table
                    continue
                ok[e] = True
                ok[f] = True
                progress = True
                break
        still = 0
        for t in range(n_bad):
            if not ok[bad[t]]:
                bad[still] = bad[t]
                still += 1
        n_bad = still
        if not progress:
            break
    return n_bad


@nb.njit(cache=True)
def _internal_moves(table, membership, n, deg, A, B, ok, bad, n_bad, IA, IB, alive, mi, XA, XB, tries):
    """Step (2) of :func:`repair_external`: each pair ``bad[t]`` left is swapped with an internal
    edge (:func:`_swap_with_internal`; the new edges go to ``A, B`` and ``XA, XB``) or becomes an
    internal edge (appended to ``IA, IB``), the move that brings the running mixing shift back
    towards zero first.  Returns ``(n_bad, n_int, n_x, n_swaps, n_converted)``: the pairs left in
    ``bad[:n_bad]``, the internal edges and the external edges made by swaps."""
    n_int = mi
    kin = np.zeros(n, dtype=np.int64)  # internal degree left: never take a node's last internal edge
    for f in range(mi):
        kin[IA[f]] += 1
        kin[IB[f]] += 1
    n_x = 0
    n_swaps = 0
    n_conv = 0
    shift = 0.0
    still = 0
    for t in range(n_bad):
        e = bad[t]
        x, y = A[e], B[e]
        done = False
        for attempt in range(2):
            use_swap = (shift <= 0.0) == (attempt == 0)
            if use_swap:
                if mi == 0:
                    continue
                c, d = _swap_with_internal(table, membership, n, x, y, IA, IB, alive, kin, mi, tries)
                if c >= 0:
                    A[e], B[e] = x, c
                    ok[e] = True
                    XA[n_x], XB[n_x] = y, d
                    n_x += 1
                    shift += 1.0 / deg[c] + 1.0 / deg[d]
                    n_swaps += 1
                    done = True
            elif x != y and _share(membership, x, y) and not _contains(table, _key(x, y, n)):
                _insert(table, _key(x, y, n))
                IA[n_int], IB[n_int] = x, y
                alive[n_int] = True
                n_int += 1
                kin[x] += 1
                kin[y] += 1
                shift -= 1.0 / deg[x] + 1.0 / deg[y]
                n_conv += 1
                done = True
            if done:
                break
        if not done:
            bad[still] = e
            still += 1
    return still, n_int, n_x, n_swaps, n_conv


@nb.njit(cache=True)
def _swap_with_internal(table, membership, n, x, y, IA, IB, alive, kin, mi, tries):
    """Up to ``tries`` random internal edges ``f = (c, d)`` (``c, d`` with another internal edge
    left, random orientation) for the swap ``(x, y) + (c, d) -> (x, c) + (y, d)`` into two valid
    external edges; the first that fits is applied to ``table``, ``alive`` and ``kin``.  Returns
    its ``(c, d)``, or ``(-1, -1)``."""
    for _try in range(tries):
        f = np.random.randint(0, mi)
        if not alive[f]:
            continue
        c, d = IA[f], IB[f]
        if kin[c] < 2 or kin[d] < 2:
            continue
        if np.random.random() < 0.5:
            c, d = d, c
        if not _swap_ok(table, membership, True, n, x, y, c, d):
            continue
        _delete(table, _key(IA[f], IB[f], n))
        _insert(table, _key(x, c, n))
        _insert(table, _key(y, d, n))
        alive[f] = False
        kin[c] -= 1
        kin[d] -= 1
        return c, d
    return np.int64(-1), np.int64(-1)


@nb.njit(cache=True)
def _ordered_pairs(A, B, keep, count):
    """``(min, max)`` of the pairs ``(A[i], B[i])``, ``i < count``, with ``keep[i]``, in order."""
    k = 0
    for i in range(count):
        if keep[i]:
            k += 1
    out_a = np.empty(k, dtype=np.int64)
    out_b = np.empty(k, dtype=np.int64)
    j = 0
    for i in range(count):
        if keep[i]:
            out_a[j], out_b[j] = min(A[i], B[i]), max(A[i], B[i])
            j += 1
    return out_a, out_b


# ----------------------------------------------------------------------------- graphical assignment
@nb.njit(cache=True)
def eg_excess(d):
    """Sum over k of the Erdős-Gallai excess ``max(0, sum_{i<=k} d_i - k(k-1) - sum_{i>k} min(d_i, k))``
    of a degree sequence (any order; 0 iff the sequence is graphical, given an even sum)."""
    s = d.size
    idx = np.empty(s, dtype=np.int64)
    stable_order(d, s, idx, np.empty(s, dtype=np.int64), np.bool_(True))
    x = np.empty(s, dtype=np.int64)
    for i in range(s):
        x[i] = d[idx[i]]  # decreasing (= -np.sort(-d))
    suffix = np.zeros(s + 1, dtype=np.int64)
    for i in range(s - 1, -1, -1):
        suffix[i] = suffix[i + 1] + x[i]
    total = 0
    prefix = 0
    j = s  # number of entries >= k
    for k in range(1, s + 1):
        prefix += x[k - 1]
        while j > 0 and x[j - 1] < k:
            j -= 1
        cnt = j - k if j > k else 0
        rhs = k * (k - 1) + k * cnt + suffix[j if j > k else k]
        if prefix > rhs:
            total += prefix - rhs
    return total


@nb.njit(cache=True)
def make_graphical(slot_node, slot_comm, demand, sizes, n, seed, max_tries):
    """Move membership slots between communities until every community's internal degree
    sequence is graphical (Erdős-Gallai), as far as possible.

    A move swaps a slot of the largest internal degree of a non-graphical community ``c`` with
    a slot of smaller degree and equal parity (community sums keep their parity) in another
    community ``c2`` that can hold it (size > degree), neither node being already in the other
    community; it is kept if ``c2`` stays graphical and ``c``'s Erdős-Gallai excess drops.
    ``slot_comm`` is changed in place.  Returns the number of communities left non-graphical.
    """
    np.random.seed(seed)
    k = sizes.size
    ns = slot_node.size
    cptr = np.zeros(k + 1, dtype=np.int64)
    for c in range(k):
        cptr[c + 1] = cptr[c] + sizes[c]
    fill = cptr[:-1].copy()
    cslot = np.empty(ns, dtype=np.int64)
    where = np.empty(ns, dtype=np.int64)  # position of each slot in cslot
    for sl in range(ns):
        c = slot_comm[sl]
        cslot[fill[c]] = sl
        where[sl] = fill[c]
        fill[c] += 1
    left = 0
    for c in range(k):
        lo, hi = cptr[c], cptr[c + 1]
        ex = eg_excess(demand[cslot[lo:hi]])
        tries = 0
        while ex > 0 and tries < max_tries:
            tries += 1
            # the largest-degree slot of c (random among ties)
            best = -1
            nbest = 0
            for p in range(lo, hi):
                dd = demand[cslot[p]]
                if best < 0 or dd > demand[best]:
                    best = cslot[p]
                    nbest = 1
                elif dd == demand[best]:
                    nbest += 1
                    if np.random.randint(0, nbest) == 0:
                        best = cslot[p]
            s1 = best
            d1 = demand[s1]
            v1 = slot_node[s1]
            found = False
            for _draw in range(4 * ns if ns < 4000 else 4000):
                s2 = np.random.randint(0, ns)
                c2 = slot_comm[s2]
                d2 = demand[s2]
                if c2 == c or d2 >= d1 or (d1 - d2) % 2 != 0 or sizes[c2] <= d1:
                    continue
                v2 = slot_node[s2]
                clash = False
                for p in range(cptr[c2], cptr[c2 + 1]):
                    if slot_node[cslot[p]] == v1:
                        clash = True
                        break
                if not clash:
                    for p in range(lo, hi):
                        if slot_node[cslot[p]] == v2:
                            clash = True
                            break
                if clash:
                    continue
                p1, p2 = where[s1], where[s2]
                cslot[p1], cslot[p2] = s2, s1
                ex2 = eg_excess(demand[cslot[cptr[c2] : cptr[c2 + 1]]])
                ex1 = eg_excess(demand[cslot[lo:hi]])
                if ex2 == 0 and ex1 < ex:
                    where[s1], where[s2] = p2, p1
                    slot_comm[s1], slot_comm[s2] = c2, c
                    ex = ex1
                    found = True
                    break
                cslot[p1], cslot[p2] = s1, s2
            if not found:
                break
        if ex > 0:
            left += 1
    return left


# ----------------------------------------------------------------------------- connectivity
@nb.njit(cache=True)
def shared_count(membership, a, b):
    """Number of communities shared by nodes a and b."""
    cnt = 0
    for i in range(membership.shape[1]):
        ca = membership[a, i]
        if ca < 0:
            break
        if _slot_of(membership, b, ca) >= 0:
            cnt += 1
    return cnt


@nb.njit(cache=True)
def has_edge(table, u, v, n):
    return _contains(table, _key(u, v, n))


@nb.njit(cache=True)
def move_edge(table, u, v, x, y, n):
    """Replace edge (u, v) by (x, y) in the edge set."""
    _delete(table, _key(u, v, n))
    _insert(table, _key(x, y, n))
