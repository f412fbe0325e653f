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

import time

import numba as nb
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["components", "branch_and_bound", "mip_all_optima", "pair_values"]


def pair_values(C: np.ndarray, full: bool):
    """Matrices (ahead, tie) of pair values; tie = −inf when ties are not allowed."""
    ahead = C - C.T
    tie = C + C.T if not full else np.full_like(C, -np.inf)
    return ahead, tie


def components(C: np.ndarray, *, full: bool = False) -> list[np.ndarray]:
    """Split the items into blocks B_1, …, B_k such that every optimal consensus ranks
    every item of B_s strictly ahead of every item of B_t for s < t.

    Item a *dominates* b when ranking a ahead of b is strictly better for the pair than
    both alternatives: ``c_ba < 0`` (weak orders) or ``c_ab > c_ba`` (permutations).
    If every item of A dominates every item of B, moving A ahead of B improves every
    cross pair without touching the others, so all optima respect it.  The blocks are
    the strongly connected components of the 'does not dominate' digraph, which is
    semicomplete, so its condensation is a total order.
    """
    # edge u -> v  ("u may be ahead of or tied with v in an optimum") iff v does not dominate u;
    # the tolerance only merges blocks (never separates), so no optimum is lost to rounding
    eps = 1e-9 * max(float(np.abs(C).max()), 1.0)
    edge = ((C - C.T) >= -eps) if full else (C >= -eps)
    np.fill_diagonal(edge, False)
    n_comp, lab = connected_components(csr_matrix(edge), directed=True, connection="strong")
    Z = np.zeros((C.shape[0], n_comp))
    Z[np.arange(C.shape[0]), lab] = 1.0
    reach = (Z.T @ edge.astype(float) @ Z) > 0
    np.fill_diagonal(reach, False)
    # in a semicomplete digraph the condensation is a transitive tournament: sort by out-degree
    order = np.argsort(-reach.sum(axis=1), kind="stable")
    return [np.flatnonzero(lab == c) for c in order]


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
def _now():
    with nb.objmode(t="float64"):
        t = time.perf_counter()
    return t


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
    sols = np.empty((max_solutions, m), dtype=np.int64)
    nsol = 0
    best = upper
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
    perm[1, :n] = np.argsort(tmp[:n], kind="mergesort")
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
        if c > best + eps:
            pos[d] = ncand[d]  # children are sorted by cost
            continue
        nodes += 1
        if max_nodes > 0 and nodes > max_nodes:
            complete = False
            break
        if deadline > 0 and nodes % 65536 == 0 and _now() > deadline:
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
            if nsol < max_solutions:
                for t in range(m):
                    sols[nsol, order[t]] = lev[t]
                nsol += 1
            else:
                truncated = True
            continue
        # look-ahead bound: every unplaced object adds at least its cheapest placement
        lb = c
        for u in range(d + 1, m):
            n = _placement_costs(order[u], order, lev, d + 1, nlevs[d + 1], pen_a, pen_t, pen_b,
                                 Sa, St, Sb, tmp)
            mn = tmp[0]
            for t in range(1, n):
                if tmp[t] < mn:
                    mn = tmp[t]
            lb += mn
            if lb > best + eps:
                break
        if lb > best + eps:
            continue
        d += 1
        n = _placement_costs(order[d], order, lev, d, nlevs[d], pen_a, pen_t, pen_b, Sa, St, Sb, tmp)
        for t in range(n):
            costs[d, t] = tmp[t]
        perm[d, :n] = np.argsort(tmp[:n], kind="mergesort")
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


def branch_and_bound(C: np.ndarray, initial: np.ndarray, *, full: bool = False,
                     max_solutions: int = 1000, max_nodes: int = 0,
                     time_limit: float | None = None):
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
    sols, best, proven, truncated, nodes = _bb_kernel(order, pen_a, pen_t, pen_b, upper, eps,
                                                      max_solutions, max_nodes, deadline)
    if len(sols) == 0:  # cannot happen when `initial` is valid; keep the incumbent
        sols = np.asarray(initial)[None, :]
        best = upper
    from agreekit.consensus._matrices import dense_ranks
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


def mip_all_optima(C: np.ndarray, initial: np.ndarray | None = None, *, full: bool = False,
                   max_solutions: int = 1000, time_limit: float | None = None,
                   threads: int | None = None):
    """All optimal weak orders by a MIP solved with HiGHS, enumerated with no-good cuts.

    Variables ``p_ab ∈ {0,1}`` (a strictly ahead of b) for ordered pairs; ``p_ab + p_ba ≤ 1``
    (``= 1`` for permutations); negative transitivity ``p_ki ≤ p_ji + p_kj`` for every
    ordered triple makes ``p`` a strict weak order.  Objective
    ``Σ_{i<j} (a_ij−t_ij) p_ij + (−a_ij−t_ij) p_ji`` plus the constant ``Σ t_ij``.
    After the optimum is found, a no-good cut excluding it and a bound
    ``objective ≥ optimum`` are added and the MIP re-solved until infeasible.

    Returns (solutions dense ranks, objective, optimal, complete, n_solves).
    """
    import highspy

    m = C.shape[0]
    t0 = time.perf_counter()
    ahead = C - C.T
    tie = C + C.T
    idx = -np.ones((m, m), dtype=np.int64)
    pairs = [(a, b) for a in range(m) for b in range(m) if a != b]
    for k, (a, b) in enumerate(pairs):
        idx[a, b] = k
    nv = len(pairs)
    cost = np.empty(nv)
    for k, (a, b) in enumerate(pairs):
        cost[k] = ahead[a, b] - (0.0 if full else tie[a, b])
    const = 0.0 if full else float(sum(tie[a, b] for a in range(m) for b in range(a + 1, m)))
    # rows: pair rows then triangle rows
    rows_i, rows_j, rows_v, lo, up = [], [], [], [], []
    r = 0
    for a in range(m):
        for b in range(a + 1, m):
            rows_i += [r, r]
            rows_j += [idx[a, b], idx[b, a]]
            rows_v += [1.0, 1.0]
            lo.append(1.0 if full else 0.0)
            up.append(1.0)
            r += 1
    # p_ki - p_ji - p_kj <= 0 for distinct k, i, j
    ks, is_, js = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
    mask = (ks != is_) & (ks != js) & (is_ != js)
    ks, is_, js = ks[mask], is_[mask], js[mask]
    ntri = ks.size
    tri_rows = r + np.arange(ntri)
    ri = np.concatenate([np.array(rows_i, dtype=np.int64), np.repeat(tri_rows, 3)])
    ci = np.concatenate([np.array(rows_j, dtype=np.int64),
                         np.stack([idx[ks, is_], idx[js, is_], idx[ks, js]], axis=1).ravel()])
    vals = np.concatenate([np.array(rows_v), np.tile([1.0, -1.0, -1.0], ntri)])
    lo = np.concatenate([np.array(lo), np.full(ntri, -highspy.kHighsInf)])
    up = np.concatenate([np.array(up), np.zeros(ntri)])
    nrows = r + ntri
    A = csr_matrix((vals, (ri, ci)), shape=(nrows, nv)).tocsc()

    h = _new_highs()
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5 if np.allclose(C, np.round(C)) else 1e-9)
    lp = highspy.HighsLp()
    lp.num_col_ = nv
    lp.num_row_ = nrows
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(nv)
    lp.col_upper_ = np.ones(nv)
    lp.row_lower_ = lo
    lp.row_upper_ = up
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.offset_ = const
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data
    lp.integrality_ = [highspy.HighsVarType.kInteger] * nv
    h.passModel(lp)

    def to_p(rank):
        rank = np.asarray(rank)
        P = (rank[:, None] < rank[None, :]).astype(float)
        return np.array([P[a, b] for a, b in pairs])

    def from_p(x):
        P = np.zeros((m, m))
        for k, (a, b) in enumerate(pairs):
            P[a, b] = x[k]
        # rank = 1 + number of items strictly ahead
        return 1 + np.rint(P.sum(axis=0)).astype(np.int64)

    if initial is not None:
        sol = highspy.HighsSolution()
        sol.col_value = list(to_p(initial))
        sol.value_valid = True
        h.setSolution(sol)

    from agreekit.consensus._matrices import dense_ranks
    solutions = []
    best = None
    optimal = True
    complete = True
    n_solves = 0
    integral = np.allclose(C, np.round(C))
    tol = 0.5 if integral else 1e-7 * max(1.0, float(np.abs(C).sum()))
    while True:
        if time_limit is not None:
            remaining = time_limit - (time.perf_counter() - t0)
            if remaining <= 0:
                complete = False
                if best is None:
                    optimal = False
                break
            h.setOptionValue("time_limit", float(remaining))
        h.run()
        n_solves += 1
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            break
        if status != highspy.HighsModelStatus.kOptimal:
            # time limit or other: keep what we have
            complete = False
            if best is None:
                info = h.getInfo()
                if info.primal_solution_status >= 2:
                    x = np.array(h.getSolution().col_value)
                    r_ = dense_ranks(from_p(np.rint(x)))
                    solutions.append(r_)
                    best = objective(r_, C)
                optimal = False
            break
        x = np.rint(np.array(h.getSolution().col_value))
        r_ = dense_ranks(from_p(x))
        val = objective(r_, C)
        if best is None:
            best = val
            # objective floor: keep only optimal solutions from now on
            h.addRow(best - const - tol, highspy.kHighsInf, nv, np.arange(nv, dtype=np.int32), cost)
        elif val < best - tol:
            break
        solutions.append(r_)
        if len(solutions) >= max_solutions:
            complete = False
            break
        # no-good cut: sum_{x=1}(1-p) + sum_{x=0} p >= 1
        ones = x > 0.5
        coef = np.where(ones, -1.0, 1.0)
        h.addRow(1.0 - ones.sum(), highspy.kHighsInf, nv, np.arange(nv, dtype=np.int32), coef)
    sols = np.array(solutions, dtype=np.int64).reshape(-1, m)
    return sols, (best if best is not None else np.nan), optimal, complete, n_solves
