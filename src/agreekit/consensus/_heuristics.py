"""QUICK and FAST heuristics (Amodio, D'Ambrosio & Siciliano 2016), numba kernels.

Both work on the combined input matrix ``C`` (and its transpose ``CT``, stored contiguously
so that every kernel reads rows only).  The objective of a candidate weak order with rank
vector ``r`` is ``Σ_{i≠j} c_ij s_ij``; the penalty is ``Σ|c_ij|`` minus it.

Cost.  One QUICK pass inserts the m objects one after the other; object ``o`` is tried at
every value between just behind the worst and just ahead of the best processed object.
The objective share of ``o`` at value ``v`` is
``Σ_{r_j > v} a_j − Σ_{r_j < v} a_j + Σ_{r_j = v} t_j`` with ``a_j = c_oj − c_jo`` and
``t_j = c_oj + c_jo``; bucketing ``a`` and ``t`` by value and sweeping ``v`` downwards with a
running sum evaluates every position in O(m), so a pass costs Θ(m²) time (it was Θ(m³)
when every candidate's penalty was recomputed from scratch) and O(m) extra memory.
The decisions (the first candidate with the smallest penalty, kept if ≤ the current
penalty) are those of ConsRank's ``BBconsensus``.
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from agreekit._jit import now, numpy_version, pick
from agreekit._sorting import stable_order

__all__ = [
    "start_vector",
    "quick_pass",
    "quick",
    "fast_starts",
    "fast",
    "fast_stream",
    "score",
    "abs_sum",
    "best_unique",
]


@nb.njit(cache=True)
def _score(r, C, CT):
    # `duplicates` pairs this loop with metaeval/_kernels.py:pair_correlations by shape only (an
    # i < j double loop over row slices): that one sums sign products of two rankings (Kendall τ_b
    # and the item-weighted τ_w), this one the Emond–Mason objective of a rank vector against C;
    # nothing but the loop shape is shared, so they stay two kernels.
    m = r.size
    s = 0.0
    for i in range(m):
        ri = r[i]
        Ci = C[i]
        CTi = CT[i]
        for j in range(i + 1, m):
            if ri < r[j]:
                s += Ci[j] - CTi[j]
            elif ri > r[j]:
                s += CTi[j] - Ci[j]
            else:
                s += Ci[j] + CTi[j]
    return s


def score(r: np.ndarray, C: np.ndarray, CT: np.ndarray | None = None) -> float:
    """``Σ_{i≠j} c_ij s_ij`` of rank vector ``r`` in Θ(m²) time and O(1) extra memory."""
    if CT is None:
        CT = np.ascontiguousarray(C.T)
    return float(pick(_score, r.size**2)(np.ascontiguousarray(r, dtype=np.int64), C, CT))


@nb.njit(cache=True)
def _abs_sum(C):
    s = 0.0
    mx = 0.0
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            a = abs(C[i, j])
            s += a
            if a > mx:
                mx = a
    return s, mx


@numpy_version(_abs_sum)
def _abs_sum_numpy(C):
    """:func:`_abs_sum` in numpy: ``cumsum`` adds in the kernel's (row-major) order, bit for bit."""
    if C.size == 0:
        return 0.0, 0.0
    a = np.abs(C).ravel()
    return float(np.cumsum(a)[-1]), float(max(a.max(), 0.0))


def abs_sum(C: np.ndarray) -> tuple[float, float]:
    """(Σ|c_ij|, max |c_ij|) without an m × m temporary."""
    s, mx = pick(_abs_sum, C.size)(np.ascontiguousarray(C))
    return float(s), float(mx)


@nb.njit(cache=True)
def _dense(r):
    """Dense ranks 1..k (int64) of an integer vector (any values)."""
    m = r.size
    idx = np.empty(m, dtype=np.int64)
    stable_order(r, m, idx, np.empty(m, dtype=np.int64), np.bool_(False))  # np.bool_: one variant
    out = np.empty(m, dtype=np.int64)
    level = 1
    out[idx[0]] = 1
    for t in range(1, m):
        if r[idx[t]] != r[idx[t - 1]]:
            level += 1
        out[idx[t]] = level
    return out


@nb.njit(cache=True)
def _dense2(r, level):
    """2 × dense ranks of ``r`` whose values lie in [0, level.size): O(m + range), no sort."""
    level[:] = 0
    for i in range(r.size):
        level[r[i]] = 1
    c = 0
    for v in range(level.size):
        if level[v]:
            c += 1
            level[v] = c
    out = np.empty(r.size, dtype=np.int64)
    for i in range(r.size):
        out[i] = 2 * level[r[i]]
    return out, 2 * c


@nb.njit(cache=True)
def quick_pass(r0, C, CT, full, V, eps, deadline):
    """One greedy insertion pass (ConsRank's ``BBconsensus``) from start ``r0``.

    Objects are processed in decreasing order of ``r0`` (stable).  Each processed
    object is tried at every value from just behind the worst processed object to
    just ahead of the best one (every tie and gap; step 2 — no new ties — when
    ``full``), the others fixed; the candidate with the smallest *full* penalty is
    kept if it is ≤ the current penalty.  ``deadline`` (a ``time.perf_counter`` value,
    0 = none) stops the pass early with the best ranking so far.
    Returns (dense ranks, penalty, finished).
    """
    m = r0.size
    R = _dense(r0)
    P0 = V - _score(R, C, CT)
    order = np.empty(m, dtype=np.int64)
    stable_order(R, m, order, np.empty(m, dtype=np.int64), np.bool_(True))  # = argsort(-R, stable)
    step = 2 if full else 1
    size = 2 * m + 4
    level = np.zeros(size, dtype=np.int64)
    Dsum = np.zeros(size)
    Tsum = np.zeros(size)
    finished = True
    # R always has the order of the last accepted ranking: a rejected move never touches it
    # (ConsRank's ``R = CR`` revert is a no-op on the order), so no copies are needed
    for k in range(1, m):
        if deadline > 0.0 and (k & 15) == 0 and now() > deadline:
            finished = False
            break
        R, top = _dense2(R, level)
        obj = order[k]
        MO = R[order[0]]
        MI = R[order[0]]
        for t in range(1, k):
            v = R[order[t]]
            if v > MO:
                MO = v
            if v < MI:
                MI = v
        # bucket the pair values of obj by the other objects' values
        for v in range(top + 2):
            Dsum[v] = 0.0
            Tsum[v] = 0.0
        Co = C[obj]
        CTo = CT[obj]
        for j in range(m):
            if j == obj:
                continue
            Dsum[R[j]] += Co[j] - CTo[j]
            Tsum[R[j]] += Co[j] + CTo[j]
        # one downward sweep: totD = Σ Dsum, above(x) = Σ_{v > x} Dsum for x = cur and MO + 1
        cur = R[obj]
        start = MO + 1
        acc = 0.0
        above_cur = 0.0
        above_start = 0.0
        for v in range(top + 1, -1, -1):
            if v == cur:
                above_cur = acc
            if v == start:
                above_start = acc
            acc += Dsum[v]
        totD = acc
        # objective share of obj at its current value: base = penalty without obj's pairs
        base = P0 + (2.0 * above_cur - totD + Dsum[cur] + Tsum[cur])
        v = start
        above = above_start
        best = np.inf
        bestv = v
        while True:
            P = base - (2.0 * above - totD + Dsum[v] + Tsum[v])
            if P <= eps:
                R[obj] = v
                return _dense(R), 0.0, True
            if P < best - eps:
                best = P
                bestv = v
            for u in range(step):
                above += Dsum[v - u]
            v -= step
            if MI - v > 1:
                break
        if best <= P0 + eps:
            P0 = best
            R[obj] = bestv
    out = _dense(R)
    return out, V - _score(out, C, CT), finished


@nb.njit(cache=True)
def _start_counts(C, CT):
    m = C.shape[0]
    Q = np.ones(m, dtype=np.int64)
    for i in range(m):
        for j in range(i + 1, m):
            a = C[i, j]
            b = CT[i, j]
            if a > 0 and b != 0:
                Q[i] += 1
            if b > 0 and a != 0:
                Q[j] += 1
    return Q


@numpy_version(_start_counts)
def _start_counts_numpy(C, CT):
    """:func:`_start_counts` in numpy (integer counts, so the same numbers), in row blocks of
    bounded memory."""
    m = C.shape[0]
    Q = np.ones(m, dtype=np.int64)
    step = max(1, (1 << 20) // max(m, 1))
    cols = np.arange(m)
    for lo in range(0, m, step):
        a, b = C[lo : lo + step], CT[lo : lo + step]
        upper = cols[None, :] > np.arange(lo, lo + a.shape[0])[:, None]
        Q[lo : lo + a.shape[0]] += ((a > 0) & (b != 0) & upper).sum(axis=1)
        Q += ((b > 0) & (a != 0) & upper).sum(axis=0)
    return Q


def start_vector(C: np.ndarray, *, full: bool = False, CT: np.ndarray | None = None) -> np.ndarray:
    """The start vector Q (1 + number of pairwise 'wins', reversed so that 1 = best).

    For each pair i<j: i wins if sign(c_ij)=+ and sign(c_ji)=−, j wins in the mirror
    case, both win if both signs are +.  ``Q := (m+1) − Q`` (ConsRank ≥ 1.0.2).  With
    ``full`` ties in Q are broken by order of appearance.
    """
    C = np.ascontiguousarray(C, dtype=np.float64)
    if CT is None:
        CT = np.ascontiguousarray(C.T)
    m = C.shape[0]
    Q = (m + 1) - pick(_start_counts, m * m)(C, CT)
    if full:
        Q = np.argsort(np.argsort(Q, kind="stable"), kind="stable") + 1
    return Q.astype(np.int64)


def _tol(C):
    V, _ = abs_sum(C)
    return V, 1e-9 * max(V, 1.0)


@nb.njit(cache=True, inline="always")
def _copy_row(out, i, row):
    """``out[i] = row`` without numba's shape check, whose error message (formatted shapes)
    costs seconds of compile time."""
    for j in range(row.size):
        out[i, j] = row[j]


@nb.njit(cache=True, parallel=True)
def _quick_chains(starts, C, CT, full, V, eps, deadline):
    """Two QUICK passes (start, then its result) from each row of ``starts``, rows in parallel."""
    n, m = starts.shape
    out = np.empty((2 * n, m), dtype=np.int64)
    scores = np.zeros(2 * n)
    ran = np.zeros(2 * n, dtype=np.bool_)
    finished = np.ones(n, dtype=np.bool_)
    for c in nb.prange(n):
        a, _, ok = quick_pass(starts[c], C, CT, full, V, eps, deadline)
        _copy_row(out, 2 * c, a)
        scores[2 * c] = _score(a, C, CT)
        ran[2 * c] = True
        if not ok:
            finished[c] = False
            continue
        b, _, ok = quick_pass(a, C, CT, full, V, eps, deadline)
        _copy_row(out, 2 * c + 1, b)
        scores[2 * c + 1] = _score(b, C, CT)
        ran[2 * c + 1] = True
        finished[c] = ok
    return out, scores, ran, finished


def _prepared(C, CT, deadline):
    """(C, C^T contiguous float64, tolerance V and eps of :func:`_tol`, m, deadline as a float, 0 = none)."""
    C = np.ascontiguousarray(C, dtype=np.float64)
    if CT is None:
        CT = np.ascontiguousarray(C.T)
    V, eps = _tol(C)
    return C, CT, V, eps, C.shape[0], 0.0 if deadline is None else float(deadline)


def quick(C: np.ndarray, *, full: bool = False, CT: np.ndarray | None = None, deadline: float | None = None):
    """QUICK: passes from Q, again from that result, from reverse Q and again.

    The two chains (from Q and from reverse Q) run in parallel.  Returns (candidates
    k×m dense ranks, objective values, finished) of the passes run: all four unless
    ``deadline`` (``time.perf_counter`` value) stops them; a pass that hit the deadline
    contributes the ranking it had reached.
    """
    C, CT, V, eps, m, dl = _prepared(C, CT, deadline)
    Q = start_vector(C, full=full, CT=CT)
    starts = np.stack([Q, (m + 1) - Q]).astype(np.int64)
    # 4 passes of Θ(m²) each (a pass tries O(m) positions for each of the m objects)
    chains = pick(_quick_chains, 8 * m * m)
    if chains is _quick_chains:  # the parallel kernel: the two chains at once
        out, scores, ran, finished = chains(starts, C, CT, full, V, eps, dl)
    else:  # the same passes one after the other: compiling quick_pass alone is enough
        out, scores, ran, finished = _quick_chains_serial(starts, C, CT, full, V, eps, dl)
    return out[ran], scores[ran], bool(finished.all())


def _quick_chains_serial(starts, C, CT, full, V, eps, deadline):
    """:func:`_quick_chains` without its parallel loop, in Python around :func:`quick_pass`
    (the same passes in the same order as its serial version, so the same bits; no chain
    kernel to compile)."""
    n, m = starts.shape
    one_pass = pick(quick_pass, 2 * m * m)
    objective = pick(_score, m * m)
    out = np.empty((2 * n, m), dtype=np.int64)
    scores = np.zeros(2 * n)
    ran = np.zeros(2 * n, dtype=np.bool_)
    finished = np.ones(n, dtype=np.bool_)
    for c in range(n):
        a, _, ok = one_pass(starts[c], C, CT, full, V, eps, deadline)
        out[2 * c], scores[2 * c], ran[2 * c] = a, objective(a, C, CT), True
        if not ok:
            finished[c] = False
            continue
        b, _, ok = one_pass(a, C, CT, full, V, eps, deadline)
        out[2 * c + 1], scores[2 * c + 1], ran[2 * c + 1] = b, objective(b, C, CT), True
        finished[c] = ok
    return out, scores, ran, finished


def fast_starts(m: int, n_starts: int, rng: np.random.Generator, *, full: bool = False, offset: int = 0) -> np.ndarray:
    """FAST start vectors: odd iterations (1-based) a random permutation, even ones
    m draws with replacement from 1..m (a random weak order); permutations only if ``full``.

    ``offset`` is the 0-based number of the first start (for drawing them in batches: the
    batches ``[0, b)``, ``[b, 2b)``, … drawn in turn give the same starts as one call)."""
    S = np.empty((n_starts, m), dtype=np.int64)
    for t in range(n_starts):
        it = offset + t
        if full or it % 2 == 0:
            S[t] = rng.permutation(m) + 1
        else:
            S[t] = rng.integers(1, m + 1, size=m)
    return S


@nb.njit(cache=True, parallel=True)
def _fast_kernel(starts, C, CT, full, V, eps, deadline):
    n, m = starts.shape
    out = np.empty((n, m), dtype=np.int64)
    scores = np.empty(n)
    done = np.zeros(n, dtype=np.bool_)
    for it in nb.prange(n):
        if deadline > 0.0 and now() > deadline:
            continue
        a, _, ok = quick_pass(starts[it], C, CT, full, V, eps, deadline)
        if ok:
            b, _, ok = quick_pass(a, C, CT, full, V, eps, deadline)
        else:
            b = a
        _copy_row(out, it, b)
        scores[it] = _score(b, C, CT)
        done[it] = True
    return out, scores, done


def fast(
    C: np.ndarray,
    starts: np.ndarray,
    *,
    full: bool = False,
    CT: np.ndarray | None = None,
    deadline: float | None = None,
):
    """FAST: two QUICK-core passes from every start (in parallel).

    Returns (results, objectives, done): ``done[i]`` is False for a start that the
    deadline prevented from running (its row is undefined)."""
    C = np.ascontiguousarray(C, dtype=np.float64)
    if CT is None:
        CT = np.ascontiguousarray(C.T)
    V, eps = _tol(C)
    dl = 0.0 if deadline is None else float(deadline)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    return pick(_fast_kernel, 4 * starts.shape[0] * starts.shape[1] ** 2)(starts, C, CT, full, V, eps, dl)


#: FAST draws and solves its starts in batches of this many (memory: two batch × m int64
#: arrays, whatever ``n_starts``); the results do not depend on it.
FAST_BATCH = 256


def fast_stream(
    C: np.ndarray,
    n_starts: int,
    rng: np.random.Generator,
    *,
    full: bool = False,
    CT: np.ndarray | None = None,
    deadline: float | None = None,
    max_solutions: int | None = None,
    progress=None,
):
    """FAST over ``n_starts`` starts drawn and solved in batches, keeping only the running
    set of distinct best results: memory independent of ``n_starts``.

    Returns (distinct best candidates sorted, best objective, starts completed, capped):
    the same candidates as solving all starts at once and taking :func:`best_unique`.
    ``capped`` is True when more than ``max_solutions`` distinct best results were found
    (the lexicographically smallest ``max_solutions`` are kept).  ``progress``: None or a
    callable given the number of starts finished after each batch.
    """
    C, CT, V, eps, m, dl = _prepared(C, CT, deadline)
    batch = max(1, min(FAST_BATCH, (1 << 22) // max(m, 1)))
    keep = np.empty((0, m), dtype=np.int64)
    keep_s = np.empty(0)
    top = -np.inf
    n_done = 0
    capped = False
    for lo in range(0, n_starts, batch):
        if deadline is not None and time.perf_counter() > deadline and n_done > 0:
            break
        b = min(batch, n_starts - lo)
        starts = fast_starts(m, b, rng, full=full, offset=lo)
        out, sc, done = pick(_fast_kernel, 4 * n_starts * m * m)(starts, C, CT, full, V, eps, dl)
        out, sc = out[done], sc[done]
        n_done += int(done.sum())
        if progress is not None:
            progress(int(done.sum()))
        if sc.size == 0:
            break
        top = max(top, float(sc.max()))
        rows = np.concatenate([keep, out[sc >= top - eps]])
        rs = np.concatenate([keep_s, sc[sc >= top - eps]])
        sel = rs >= top - eps
        rows, rs = rows[sel], rs[sel]
        rows, first = unique_rows(rows, return_index=True)
        rs = rs[first]
        if max_solutions is not None and rows.shape[0] > max_solutions:
            rows, rs, capped = rows[:max_solutions], rs[:max_solutions], True
        keep, keep_s = rows, rs
        if not done.all():
            break
    if n_done == 0:  # the deadline passed before any start ran: one pass from the first start
        start = fast_starts(m, 1, rng, full=full, offset=0)[0]
        a, _, _ = pick(quick_pass, 2 * m * m)(start, C, CT, full, V, eps, dl)
        keep, top, n_done = a[None, :], float(pick(_score, m * m)(a, C, CT)), 0
        return keep, top, n_done, capped
    return keep[keep_s >= top - eps], top, n_done, capped


def unique_rows(a: np.ndarray, *, return_index: bool = False):
    """``np.unique(a, axis=0)`` (distinct rows in lexicographic order) without numpy's
    structured-dtype path, which costs O(columns) Python-level work for wide rows."""
    a = np.asarray(a)
    if a.shape[0] == 0:
        return (a, np.empty(0, dtype=np.int64)) if return_index else a
    order = np.lexsort(a.T[::-1]) if a.shape[1] else np.arange(a.shape[0])
    s = a[order]
    first = np.ones(s.shape[0], dtype=bool)
    first[1:] = np.any(s[1:] != s[:-1], axis=1)
    if return_index:
        return s[first], order[first]
    return s[first]


def best_unique(cands: np.ndarray, scores: np.ndarray, eps: float):
    """The distinct candidates whose objective is within ``eps`` of the maximum (sorted)."""
    top = scores.max()
    keep = cands[scores >= top - eps]
    uniq = unique_rows(keep)
    return uniq, float(top)
