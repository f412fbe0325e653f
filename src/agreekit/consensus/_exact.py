"""Exact Kemeny consensus over weak orders (or permutations), returning all optima.

* :func:`components` — decomposition into blocks that every optimum orders strictly.
* :func:`branch_and_bound` — the Emond–Mason branch and bound, depth first (numba), with
  a look-ahead bound; keeps every branch whose bound is ≤ the incumbent, so it returns
  *all* optimal weak orders.
* :func:`mip_all_optima` — a mixed-integer formulation solved with HiGHS, all optima
  enumerated by no-good cuts.

All work on the combined input matrix ``C``; the objective of a weak order with score
matrix ``s`` is ``Σ_{i≠j} c_ij s_ij``.  For a pair {i, j} it is ``c_ij − c_ji`` if i is
ahead, ``c_ji − c_ij`` if j is ahead and ``c_ij + c_ji`` if tied.
"""

from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from agreekit._jit import now, pick
from agreekit._sorting import stable_order
from agreekit._memory import check_memory
from agreekit.consensus._heuristics import abs_sum
from agreekit.consensus._matrices import dense_ranks


def _fubini(m: int) -> int:
    """Number of weak orders of m items (ordered Bell number)."""
    a = [1]
    for k in range(1, m + 1):
        a.append(sum(math.comb(k, j) * a[k - j] for j in range(1, k + 1)))
    return a[m]


__all__ = ["components", "branch_and_bound", "mip_all_optima", "pair_values"]


def pair_values(C: np.ndarray, full: bool):
    """Matrices (ahead, tie) of pair values; tie = −inf when ties are not allowed."""
    ahead = C - C.T
    tie = C + C.T if not full else np.full_like(C, -np.inf)
    return ahead, tie


@nb.njit(cache=True)
def _edge(C, CT, u, v, full, eps):
    if full:
        return C[u, v] - CT[u, v] >= -eps
    return C[u, v] >= -eps


@nb.njit(cache=True, inline="always")
def _open(v, top, counter, sp, cs_node, cs_next, index, low, stack, onstack):  # pragma: no cover - compiled
    """Tarjan: ``v`` enters the call stack at depth ``top`` and the component stack, numbered
    ``counter``; returns the next (counter, stack pointer)."""
    cs_node[top] = v
    cs_next[top] = 0
    index[v] = counter
    low[v] = counter
    stack[sp] = v
    onstack[v] = True
    return counter + 1, sp + 1


@nb.njit(cache=True)
def _strong_components(C, CT, full, eps):
    """Tarjan's algorithm (iterative) on the implicit dense 'does not dominate' digraph:
    Θ(m²) time, O(m) memory.  Returns (number of components, label per item)."""
    m = C.shape[0]
    index = -np.ones(m, dtype=np.int64)
    low = np.zeros(m, dtype=np.int64)
    onstack = np.zeros(m, dtype=np.bool_)
    stack = np.empty(m, dtype=np.int64)
    cs_node = np.empty(m, dtype=np.int64)
    cs_next = np.empty(m, dtype=np.int64)
    comp = -np.ones(m, dtype=np.int64)
    sp = 0
    ncomp = 0
    counter = 0
    for s in range(m):
        if index[s] >= 0:
            continue
        top = 0
        counter, sp = _open(s, top, counter, sp, cs_node, cs_next, index, low, stack, onstack)
        while top >= 0:
            u = cs_node[top]
            j = cs_next[top]
            advanced = False
            while j < m:
                if j != u and _edge(C, CT, u, j, full, eps):
                    if index[j] < 0:
                        cs_next[top] = j + 1
                        top += 1
                        counter, sp = _open(j, top, counter, sp, cs_node, cs_next, index, low, stack, onstack)
                        advanced = True
                        break
                    elif onstack[j] and index[j] < low[u]:
                        low[u] = index[j]
                j += 1
            if advanced:
                continue
            cs_next[top] = m
            if low[u] == index[u]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    onstack[w] = False
                    comp[w] = ncomp
                    if w == u:
                        break
                ncomp += 1
            top -= 1
            if top >= 0:
                p = cs_node[top]
                if low[u] < low[p]:
                    low[p] = low[u]
    return ncomp, comp


@nb.njit(cache=True)
def _component_outdegree(C, CT, reps, full, eps):
    k = reps.size
    deg = np.zeros(k, dtype=np.int64)
    for a in range(k):
        for b in range(k):
            if a != b and _edge(C, CT, reps[a], reps[b], full, eps):
                deg[a] += 1
    return deg


def components(C: np.ndarray, *, full: bool = False, CT: np.ndarray | None = None) -> list[np.ndarray]:
    """Split the items into blocks B_1, …, B_k such that every optimal consensus ranks
    every item of B_s strictly ahead of every item of B_t for s < t.

    Item a *dominates* b when ranking a ahead of b is strictly better for the pair than
    both alternatives: ``c_ba < 0`` (weak orders) or ``c_ab > c_ba`` (permutations).
    If every item of A dominates every item of B, moving A ahead of B improves every
    cross pair without touching the others, so all optima respect it.  The blocks are
    the strongly connected components of the 'does not dominate' digraph, which is
    semicomplete, so its condensation is a total order.  Θ(m²) time, O(m) extra memory.
    """
    # edge u -> v  ("u may be ahead of or tied with v in an optimum") iff v does not dominate u;
    # the tolerance only merges blocks (never separates), so no optimum is lost to rounding
    C = np.ascontiguousarray(C, dtype=np.float64)
    if CT is None:
        CT = np.ascontiguousarray(C.T)
    m = C.shape[0]
    if m == 0:
        return []

    eps = 1e-9 * max(abs_sum(C)[1], 1.0)
    n_comp, lab = pick(_strong_components, 4 * m * m)(C, CT, bool(full), eps)
    # representatives (first item of each component): in a semicomplete digraph every edge
    # between two components points the same way, so the out-degree among representatives
    # is the number of components below; the condensation is a transitive tournament
    reps = np.full(n_comp, m, dtype=np.int64)
    np.minimum.at(reps, lab, np.arange(m))
    deg = pick(_component_outdegree, n_comp * n_comp)(C, CT, reps, bool(full), eps)
    order = np.argsort(-deg, kind="stable")
    members = np.argsort(lab, kind="stable")
    bounds = np.searchsorted(lab[members], np.arange(n_comp + 1))
    return [members[bounds[c] : bounds[c + 1]] for c in order]


# ---------------------------------------------------------------------------
# Emond–Mason branch and bound (depth first)
# ---------------------------------------------------------------------------
@nb.njit(cache=True)
def _placement_costs(x, placed_objs, lev, nplaced, nlev, pen_a, pen_t, pen_b, Sa, St, Sb, out):
    """Incremental penalty of every placement of object x (2*nlev+1 of them).

    placement 2q: new level inserted before level q; 2q+1: tied with level q.
    pen_a[x, j]: penalty of the pair when x is ahead of j (pen_t tie, pen_b behind).
    """
    for q in range(nlev):
        Sa[q] = 0.0
        St[q] = 0.0
        Sb[q] = 0.0
    for t in range(nplaced):
        j = placed_objs[t]
        q = lev[t]
        Sa[q] += pen_a[x, j]
        St[q] += pen_t[x, j]
        Sb[q] += pen_b[x, j]
    tot_a = 0.0
    for q in range(nlev):
        tot_a += Sa[q]
    behind = 0.0  # sum over levels < q of Sb
    ahead = tot_a  # sum over levels >= q of Sa
    for q in range(nlev):
        out[2 * q] = behind + ahead
        out[2 * q + 1] = behind + St[q] + (ahead - Sa[q])
        behind += Sb[q]
        ahead -= Sa[q]
    out[2 * nlev] = behind
    return 2 * nlev + 1


@nb.njit(cache=True)
def _undo(lev, d, p):
    if p % 2 == 0:
        q = p // 2
        for t in range(d):
            if lev[t] > q:
                lev[t] -= 1


@nb.njit(cache=True)
def _bb_kernel(order, pen_a, pen_t, pen_b, upper, eps, max_solutions, max_nodes, deadline):
    """Depth-first Emond–Mason search.

    Returns (solutions as k×m level arrays, best penalty, finished, truncated, nodes):
    ``finished`` is False when a node or time limit stopped the search, ``truncated``
    when more than ``max_solutions`` optima exist.  ``upper``
    is an incumbent penalty (e.g. of a heuristic solution); every branch whose lower
    bound is ≤ the incumbent is explored, so all optima are returned.
    """
    m = order.size
    maxp = 2 * m + 1
    lev = np.zeros(m, dtype=np.int64)  # level of order[t]
    costs = np.empty((m, maxp))
    perm = np.empty((m, maxp), dtype=np.int64)
    ncand = np.zeros(m, dtype=np.int64)
    pos = np.zeros(m, dtype=np.int64)
    applied = -np.ones(m, dtype=np.int64)
    pen = np.zeros(m + 1)
    nlevs = np.zeros(m + 1, dtype=np.int64)
    Sa = np.empty(m)
    St = np.empty(m)
    Sb = np.empty(m)
    tmp = np.empty(maxp)
    buf = np.empty(maxp, dtype=np.int64)
    sols = np.empty((max_solutions, m), dtype=np.int64)
    nsol = 0
    best = upper
    cut = best + eps  # prune bounds above this (at or above it once truncated)
    complete = True
    truncated = False
    nodes = 0
    if m == 1:
        sols[0, 0] = 0
        return sols[:1], 0.0, True, False, 0
    lev[0] = 0
    nlevs[1] = 1
    d = 1
    n = _placement_costs(order[1], order, lev, 1, 1, pen_a, pen_t, pen_b, Sa, St, Sb, tmp)
    for t in range(n):
        costs[1, t] = tmp[t]
    stable_order(tmp, n, perm[1], buf, False)  # np.argsort(kind='mergesort'), cheaper to compile
    ncand[1] = n
    while d >= 1:
        if applied[d] >= 0:
            _undo(lev, d, applied[d])
            applied[d] = -1
        if pos[d] >= ncand[d]:
            d -= 1
            continue
        p = perm[d, pos[d]]
        pos[d] += 1
        c = pen[d] + costs[d, p]
        if c > cut or (truncated and c >= cut):
            pos[d] = ncand[d]  # children are sorted by cost
            continue
        nodes += 1
        if max_nodes > 0 and nodes > max_nodes:
            complete = False
            break
        if deadline > 0 and nodes % 65536 == 0 and now() > deadline:
            complete = False
            break
        # apply placement p of order[d]
        if p % 2 == 0:
            q = p // 2
            for t in range(d):
                if lev[t] >= q:
                    lev[t] += 1
            lev[d] = q
            nlevs[d + 1] = nlevs[d] + 1
        else:
            lev[d] = p // 2
            nlevs[d + 1] = nlevs[d]
        applied[d] = p
        pen[d + 1] = c
        if d == m - 1:
            if c < best - eps:
                best = c
                nsol = 0
                truncated = False
                cut = best + eps
            if nsol < max_solutions:
                for t in range(m):
                    sols[nsol, order[t]] = lev[t]
                nsol += 1
            else:
                # enough optima stored: from now on only a strictly better branch matters
                truncated = True
                cut = best - eps
            continue
        # look-ahead bound: every unplaced object adds at least its cheapest placement
        lb = c
        for u in range(d + 1, m):
            n = _placement_costs(order[u], order, lev, d + 1, nlevs[d + 1], pen_a, pen_t, pen_b, Sa, St, Sb, tmp)
            mn = tmp[0]
            for t in range(1, n):
                if tmp[t] < mn:
                    mn = tmp[t]
            lb += mn
            if lb > cut or (truncated and lb >= cut):
                break
        if lb > cut or (truncated and lb >= cut):
            continue
        d += 1
        n = _placement_costs(order[d], order, lev, d, nlevs[d], pen_a, pen_t, pen_b, Sa, St, Sb, tmp)
        for t in range(n):
            costs[d, t] = tmp[t]
        stable_order(tmp, n, perm[d], buf, False)
        ncand[d] = n
        pos[d] = 0
        applied[d] = -1
    return sols[:nsol], best, complete, truncated, nodes


def _pair_penalties(C: np.ndarray, full: bool):
    ahead, tie = pair_values(C, full)
    behind = -ahead
    best = np.maximum(np.maximum(ahead, behind), tie)
    pen_a = best - ahead
    pen_b = best - behind
    pen_t = best - tie if not full else np.full_like(C, np.inf)
    for M in (pen_a, pen_b, pen_t):
        np.fill_diagonal(M, 0.0)
    return pen_a, np.where(np.isfinite(pen_t), pen_t, 1e300), pen_b


def objective(r: np.ndarray, C: np.ndarray) -> float:
    """``Σ_{i≠j} c_ij s_ij`` for rank vector r."""
    le = r[:, None] <= r[None, :]
    s = np.where(le, 1.0, -1.0)
    np.fill_diagonal(s, 0.0)
    return float((C * s).sum())


def branch_and_bound(
    C: np.ndarray,
    initial: np.ndarray,
    *,
    full: bool = False,
    max_solutions: int = 1000,
    max_nodes: int = 0,
    time_limit: float | None = None,
):
    """All optimal weak orders by the Emond–Mason branch and bound.

    Objects are processed in increasing rank order of ``initial``; branches with a
    bound > the incumbent penalty are pruned, equal ones are kept (all optima).
    Returns (solutions as dense rank arrays, objective, proven, complete, nodes):
    ``proven`` is False when a node/time limit stopped the search (then the solutions
    are the best found, not proven optimal); ``complete`` is True when the solutions
    are all the optima (proven and not truncated by ``max_solutions``).
    """
    m = C.shape[0]
    initial = np.asarray(initial)
    order = np.argsort(initial, kind="stable").astype(np.int64)
    pen_a, pen_t, pen_b = _pair_penalties(C, full)
    V = float(np.abs(C).sum())
    eps = 1e-9 * max(V, 1.0)
    # pair penalties here are on the P scale: P = Σ_pairs (best - value) = V - objective
    upper = V - objective(initial, C)
    deadline = 0.0 if time_limit is None else time.perf_counter() + float(time_limit)
    # the search tree is unknown beforehand; up to BB_INTERPRET_MAX items it is small
    # work bound: m² per node, at most Fubini(m) leaves (the weak orders); pick() interprets
    # the search only while that is small (m <= 6) and the kernel is not compiled yet
    bb = pick(_bb_kernel, m * m * _fubini(m) if m <= 12 else np.inf)
    sols, best, proven, truncated, nodes = bb(
        order, pen_a, pen_t, pen_b, upper, eps, max_solutions, max_nodes, deadline
    )
    if len(sols) == 0:  # cannot happen when `initial` is valid; keep the incumbent
        sols = np.asarray(initial)[None, :]
        best = upper
    sols = np.array([dense_ranks(s) for s in sols], dtype=np.int64).reshape(-1, m)
    return sols, V - best, bool(proven), bool(proven and not truncated), int(nodes)


# ---------------------------------------------------------------------------
# MIP with HiGHS
# ---------------------------------------------------------------------------
def _new_highs():
    """A silent ``highspy.Highs`` (its C++ constructor prints a banner on fd 1)."""
    import os
    import sys

    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


@nb.njit(cache=True)
def _violated_triangles(x, idx, added, eps):
    """Ids ``(k m + i) m + j`` (ascending) of the transitivity rows ``p_ki ≤ p_ji + p_kj``
    that ``x`` violates by more than ``eps`` and that are not in ``added`` (sorted)."""
    m = idx.shape[0]
    cap = 1024
    out = np.empty(cap, dtype=np.int64)
    n = 0
    for k in range(m):
        for i in range(m):
            if i == k:
                continue
            xki = x[idx[k, i]]
            if xki <= 0.5 * eps:  # x >= -1e-7 (LP tolerance): no violation possible
                continue
            for j in range(m):
                if j == k or j == i:
                    continue
                if xki - x[idx[j, i]] - x[idx[k, j]] > eps:
                    tid = (k * m + i) * m + j
                    pos = np.searchsorted(added, tid)
                    if pos < added.size and added[pos] == tid:
                        continue
                    if n == cap:
                        cap *= 2
                        new = np.empty(cap, dtype=np.int64)
                        new[:n] = out[:n]
                        out = new
                    out[n] = tid
                    n += 1
    return out[:n].copy()


def _all_triangles_mask(m):
    t = np.arange(m * m * m, dtype=np.int64)
    k, rest = np.divmod(t, m * m)
    i, j = np.divmod(rest, m)
    return (k != i) & (k != j) & (i != j)


def mip_all_optima(
    C: np.ndarray,
    initial: np.ndarray | None = None,
    *,
    full: bool = False,
    max_solutions: int = 1000,
    time_limit: float | None = None,
    threads: int | None = None,
    lazy: bool = True,
    floor_row: bool = False,
):
    """All optimal weak orders by a MIP solved with HiGHS, enumerated with no-good cuts.

    Variables ``p_ab ∈ {0,1}`` (a strictly ahead of b) for ordered pairs; ``p_ab + p_ba ≤ 1``
    (``= 1`` for permutations); negative transitivity ``p_ki ≤ p_ji + p_kj`` for every
    ordered triple makes ``p`` a strict weak order.  Objective
    ``Σ_{a≠b} (c_ab − c_ba − t_ab) p_ab`` plus the constant ``Σ_{a<b} t_ab`` (``t_ab = c_ab + c_ba``,
    the value of a tie; 0 without ties).

    With ``lazy`` (default) the m(m−1)(m−2) transitivity rows are added only when violated:
    first by cutting planes on the LP relaxation, then whenever an integer solution
    violates one (the MIP is re-solved; a solution of the relaxation that satisfies every
    row is optimal for the full model).  After the first optimum z*, every variable whose
    LP reduced cost exceeds the gap ``z_LP − z*`` is fixed (it takes its LP value in every
    optimum); then a no-good cut over the free variables is added per optimum found and
    the MIP re-solved until it is infeasible or its optimum is worse than z*: the
    solutions are then *all* the optima.  ``floor_row`` adds ``objective ≥ z*`` as a row
    instead of relying on the re-solve's value (slower with HiGHS; kept for experiments).

    Returns (solutions as dense ranks, objective, optimal, complete, stopped) where
    ``stopped`` is None, ``"max_solutions"`` or ``"time_limit"`` (or HiGHS' status).
    """
    m = C.shape[0]
    t0 = time.perf_counter()
    if not lazy:
        n_tri = m * (m - 1) * (m - 2)
        check_memory(
            "lazy", 48.0 * n_tri, f"all {n_tri} transitivity rows of the MIP on {m} items", hint="use lazy=True"
        )
    mip = _KemenyMip(C, full, threads, time_limit, t0)
    if not lazy:
        mip.add_triangles(np.arange(m * m * m, dtype=np.int64)[_all_triangles_mask(m)])
    # LP relaxation (cutting planes on the transitivity rows when lazy); its reduced costs
    # later fix the variables that cannot change in any optimum
    lp_info = mip.solve_relaxation()
    mip.make_integral()
    solutions, best, optimal, complete, stopped = _enumerate_optima(mip, C, lp_info, max_solutions, floor_row)
    if best is None and initial is not None:
        solutions, best = [dense_ranks(np.asarray(initial))], objective(np.asarray(initial), C)
    sols = np.array(solutions, dtype=np.int64).reshape(-1, m)
    return sols, (best if best is not None else np.nan), optimal, complete, stopped


class _KemenyMip:
    """The HiGHS model of :func:`mip_all_optima`: one variable ``p_ab`` per ordered pair, the
    pair rows, and the transitivity rows added so far.

    Transitivity rows ``p_ki - p_ji - p_kj <= 0`` for ordered triples (k, i, j) are numbered
    ``(k m + i) m + j``; they are never materialised (that would be Θ(m³) memory): violated rows
    are found by a compiled scan and only the ids of the rows added are stored (``added``).
    """

    def __init__(self, C, full, threads, time_limit, t0):
        import highspy

        self.highspy = highspy
        m = self.m = C.shape[0]
        self.time_limit, self.t0 = time_limit, t0
        ahead = C - C.T
        tie = np.zeros_like(C) if full else C + C.T
        self.A_idx, self.B_idx = np.nonzero(~np.eye(m, dtype=bool))  # ordered pairs, row-major
        nv = self.nv = self.A_idx.size
        self.idx = -np.ones((m, m), dtype=np.int64)
        self.idx[self.A_idx, self.B_idx] = np.arange(nv)
        self.cost = ahead[self.A_idx, self.B_idx] - tie[self.A_idx, self.B_idx]
        self.const = float(np.triu(tie, 1).sum())
        self.integral = bool(np.allclose(C, np.round(C)))
        self.tol = 0.5 if self.integral else 1e-7 * max(1.0, float(np.abs(C).sum()))
        self.added = np.empty(0, dtype=np.int64)  # sorted ids of the transitivity rows in the model

        h = self.h = _new_highs()
        if threads is not None:
            h.setOptionValue("threads", int(threads))
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", self.tol if self.integral else 1e-9)
        lp = highspy.HighsLp()
        lp.num_col_ = nv
        lp.col_cost_ = self.cost
        lp.col_lower_ = np.zeros(nv)
        lp.col_upper_ = np.ones(nv)
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.offset_ = self.const
        h.passModel(lp)
        iu, ju = np.triu_indices(m, 1)
        npairs = iu.size
        h.addRows(
            npairs,
            np.full(npairs, 1.0 if full else 0.0),
            np.ones(npairs),
            2 * npairs,
            np.arange(0, 2 * npairs, 2, dtype=np.int32),
            np.stack([self.idx[iu, ju], self.idx[ju, iu]], axis=1).ravel().astype(np.int32),
            np.ones(2 * npairs),
        )

    def add_triangles(self, sel):
        """Add the transitivity rows of ids ``sel``."""
        k = sel.size
        if k == 0:
            return
        m, idx = self.m, self.idx
        kk, rest = np.divmod(sel, m * m)
        ii, jj = np.divmod(rest, m)
        cols = np.stack([idx[kk, ii], idx[jj, ii], idx[kk, jj]], axis=1).astype(np.int32)
        self.h.addRows(
            k,
            np.full(k, -self.highspy.kHighsInf),
            np.zeros(k),
            3 * k,
            np.arange(0, 3 * k, 3, dtype=np.int32),
            cols.ravel(),
            np.tile([1.0, -1.0, -1.0], k),
        )
        self.added = np.union1d(self.added, sel)

    def violated(self, x, eps=1e-6):
        """Ids of the transitivity rows not in the model that ``x`` violates."""
        return _violated_triangles(np.ascontiguousarray(x, dtype=np.float64), self.idx, self.added, eps)

    def set_time(self):
        """Give HiGHS the time left; False when none is."""
        if self.time_limit is None:
            return True
        remaining = self.time_limit - (time.perf_counter() - self.t0)
        if remaining <= 0:
            return False
        self.h.setOptionValue("time_limit", float(remaining))
        return True

    def solve_relaxation(self):
        """Cutting planes on the LP relaxation: ``(z_lp, x_lp, reduced costs)`` once no
        transitivity row is violated, or None (time limit, or not solved to optimality)."""
        h, highspy = self.h, self.highspy
        while self.set_time():
            h.run()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                break
            sol = h.getSolution()
            x_lp = np.asarray(sol.col_value)
            v = self.violated(x_lp)
            if v.size == 0:
                return h.getInfo().objective_function_value, x_lp, np.asarray(sol.col_dual)
            self.add_triangles(v)
        return None

    def make_integral(self):
        nv = self.nv
        self.h.changeColsIntegrality(
            nv, np.arange(nv, dtype=np.int32), np.array([self.highspy.HighsVarType.kInteger] * nv)
        )

    def ranks(self, x):
        """Rank vector (1 + number strictly ahead) of the 0/1 solution ``x``."""
        P = np.zeros((self.m, self.m))
        P[self.A_idx, self.B_idx] = x
        return 1 + np.rint(P.sum(axis=0)).astype(np.int64)

    def fix_by_reduced_costs(self, lp_info, x, best):
        """Reduced-cost fixing after the first optimum ``x`` of value ``best``: for every x'
        feasible for the LP relaxation, obj(x') <= z_lp - Σ_j |d_j| |x'_j - x_lp_j|, so a
        variable whose |d_j| exceeds the gap z_lp - z* keeps its LP value in every optimum.
        Returns the mask of the variables left free."""
        z_lp, x_lp, d_lp = lp_info
        at_bound = (np.abs(x_lp) < 1e-9) | (np.abs(x_lp - 1) < 1e-9)
        fix = at_bound & (np.abs(d_lp) > (z_lp - best) + 1e-6 * max(1.0, abs(best)))
        fix &= np.rint(x_lp) == x  # consistent with the optimum found
        if not fix.any():
            return np.ones(self.nv, dtype=bool)
        cols = np.flatnonzero(fix).astype(np.int32)
        self.h.changeColsBounds(cols.size, cols, x[fix], x[fix])
        return ~fix

    def add_no_good(self, x, free):
        """Cut ``x`` off over the free variables: Σ_{x=1} (1 − p) + Σ_{x=0} p ≥ 1.  False if
        no variable is free (nothing to cut)."""
        cols = np.flatnonzero(free).astype(np.int32)
        ones = x[free] > 0.5
        if cols.size == 0:
            return False
        self.h.addRow(1.0 - ones.sum(), self.highspy.kHighsInf, cols.size, cols, np.where(ones, -1.0, 1.0))
        return True


def _enumerate_optima(mip: _KemenyMip, C, lp_info, max_solutions, floor_row):
    """Solve the MIP, then cut off each optimum and solve again until the optimum gets worse.

    Returns ``(solutions, best, optimal, complete, stopped)`` as :func:`mip_all_optima` (before
    its fallback to ``initial``).
    """
    # NB: the heuristic solution is *not* passed to HiGHS with setSolution: in stress tests
    # HiGHS 1.16 then occasionally returned the injected vector together with the objective
    # of another solution.  It is used as a fallback only; every returned vector is checked.
    h, status_of = mip.h, mip.highspy.HighsModelStatus
    solutions, best = [], None
    optimal, complete = True, True
    stopped = None
    free = np.ones(mip.nv, dtype=bool)
    while True:
        if not mip.set_time():
            complete, optimal, stopped = False, best is not None, "time_limit"
            break
        h.run()
        status = h.getModelStatus()
        if status == status_of.kInfeasible:
            break
        if status != status_of.kOptimal:  # time limit or other
            complete, optimal = False, best is not None
            stopped = "time_limit" if status == status_of.kTimeLimit else str(status)
            break
        x = np.rint(np.asarray(h.getSolution().col_value))
        reported = h.getInfo().objective_function_value
        if abs(float(mip.cost @ x) + mip.const - reported) > max(mip.tol, 1e-6 * max(1.0, abs(reported))):
            complete, optimal, stopped = False, False, "inconsistent HiGHS solution"
            break
        v = mip.violated(x)
        if v.size:  # not transitive: tighten the relaxation and solve again
            mip.add_triangles(v)
            continue
        r_ = dense_ranks(mip.ranks(x))
        val = objective(r_, C)
        if best is None:
            best = val
            if lp_info is not None:
                free = mip.fix_by_reduced_costs(lp_info, x, best)
            if floor_row:
                h.addRow(
                    best - mip.const - mip.tol,
                    mip.highspy.kHighsInf,
                    mip.nv,
                    np.arange(mip.nv, dtype=np.int32),
                    mip.cost,
                )
        elif val < best - mip.tol:
            break
        solutions.append(r_)
        if len(solutions) >= max_solutions:
            complete = False
            stopped = "max_solutions"
            break
        if not mip.add_no_good(x, free):
            break
    return solutions, best, optimal, complete, stopped
