"""Reference QUICK / FAST: a verbatim copy of agreekit's implementation before issue 14
(commit b4b04e2, ``src/agreekit/consensus/_heuristics.py``), Θ(m³) per pass.

Kept only as the oracle of tests/test_consensus_limits.py: the fast Θ(m²) kernels must return
the same solutions, in the same order, as this code.  ``reference_heuristic`` is the old
``agreekit.consensus._kemeny._heuristic`` without the time limit.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["start_vector", "quick_pass", "quick", "fast_starts", "fast"]


@nb.njit(cache=False)
def _score(r, C):
    m = r.size
    s = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            if r[i] < r[j]:
                s += C[i, j] - C[j, i]
            elif r[i] > r[j]:
                s += C[j, i] - C[i, j]
            else:
                s += C[i, j] + C[j, i]
    return s


@nb.njit(cache=False)
def _contrib(o, v, r, C):
    """Objective share of the pairs (o, j), j ≠ o, when item o takes value v."""
    m = r.size
    s = 0.0
    for j in range(m):
        if j == o:
            continue
        if v < r[j]:
            s += C[o, j] - C[j, o]
        elif v > r[j]:
            s += C[j, o] - C[o, j]
        else:
            s += C[o, j] + C[j, o]
    return s


@nb.njit(cache=False)
def _dense(r):
    """Dense ranks 1..k (int64) of an integer vector."""
    m = r.size
    idx = np.argsort(r, kind="mergesort")
    out = np.empty(m, dtype=np.int64)
    level = 1
    out[idx[0]] = 1
    for t in range(1, m):
        if r[idx[t]] != r[idx[t - 1]]:
            level += 1
        out[idx[t]] = level
    return out


@nb.njit(cache=False)
def quick_pass(r0, C, full, V, eps):
    """One greedy insertion pass (ConsRank's ``BBconsensus``) from start ``r0``.

    Objects are processed in decreasing order of ``r0`` (stable).  Each processed
    object is tried at every value from just behind the worst processed object to
    just ahead of the best one (every tie and gap; step 2 — no new ties — when
    ``full``), the others fixed; the candidate with the smallest *full* penalty is
    kept if it is ≤ the current penalty.  Returns (dense ranks, penalty).
    """
    m = r0.size
    R = _dense(r0)
    P0 = V - _score(R, C)
    order = np.argsort(-R, kind="mergesort")
    CR = R.copy()
    step = 2 if full else 1
    for k in range(1, m):
        R = _dense(R) * 2
        obj = order[k]
        MO = R[order[0]]
        MI = R[order[0]]
        for t in range(1, k):
            v = R[order[t]]
            if v > MO:
                MO = v
            if v < MI:
                MI = v
        base = V - _score(R, C) + _contrib(obj, R[obj], R, C)  # penalty without obj's pairs
        best = np.inf
        bestv = MO + 1
        v = MO + 1
        while True:
            P = base - _contrib(obj, v, R, C)
            if P <= eps:
                R[obj] = v
                return _dense(R), 0.0
            if P < best - eps:
                best = P
                bestv = v
            v -= step
            if MI - v > 1:
                break
        if best <= P0 + eps:
            P0 = best
            R[obj] = bestv
            CR = R.copy()
        else:
            R = CR.copy()
    out = _dense(CR)
    return out, V - _score(out, C)


def start_vector(C: np.ndarray, *, full: bool = False) -> np.ndarray:
    """The start vector Q (1 + number of pairwise 'wins', reversed so that 1 = best).

    For each pair i<j: i wins if sign(c_ij)=+ and sign(c_ji)=−, j wins in the mirror
    case, both win if both signs are +.  ``Q := (m+1) − Q`` (ConsRank ≥ 1.0.2).  With
    ``full`` ties in Q are broken by order of appearance.
    """
    m = C.shape[0]
    s = np.sign(C)
    iu = np.triu_indices(m, 1)
    a, b = s[iu], s.T[iu]
    Q = np.ones(m, dtype=np.int64)
    np.add.at(Q, iu[0], ((a > 0) & (b < 0)) | ((a > 0) & (b > 0)))
    np.add.at(Q, iu[1], ((a < 0) & (b > 0)) | ((a > 0) & (b > 0)))
    Q = (m + 1) - Q
    if full:
        Q = np.argsort(np.argsort(Q, kind="stable"), kind="stable") + 1
    return Q.astype(np.int64)


def _tol(C):
    V = float(np.abs(C).sum())
    return V, 1e-9 * max(V, 1.0)


def quick(C: np.ndarray, *, full: bool = False):
    """QUICK: passes from Q, again from that result, from reverse Q and again.

    Returns (candidates k×m dense ranks, objective values) of all four passes.
    """
    V, eps = _tol(C)
    m = C.shape[0]
    Q = start_vector(C, full=full)
    out = []
    for start in (Q, (m + 1) - Q):
        a, _ = quick_pass(start.astype(np.int64), C, full, V, eps)
        b, _ = quick_pass(a, C, full, V, eps)
        out.extend([a, b])
    cands = np.array(out, dtype=np.int64)
    return cands, np.array([_score(c, C) for c in cands])


def fast_starts(m: int, n_starts: int, rng: np.random.Generator, *, full: bool = False) -> np.ndarray:
    """FAST start vectors: odd iterations (1-based) a random permutation, even ones
    m draws with replacement from 1..m (a random weak order); permutations only if ``full``."""
    S = np.empty((n_starts, m), dtype=np.int64)
    for it in range(n_starts):
        if full or it % 2 == 0:
            S[it] = rng.permutation(m) + 1
        else:
            S[it] = rng.integers(1, m + 1, size=m)
    return S


@nb.njit(cache=False, parallel=True)
def _fast_kernel(starts, C, full, V, eps):
    n, m = starts.shape
    out = np.empty((n, m), dtype=np.int64)
    scores = np.empty(n)
    for it in nb.prange(n):
        a, _ = quick_pass(starts[it], C, full, V, eps)
        b, _ = quick_pass(a, C, full, V, eps)
        out[it] = b
        scores[it] = _score(b, C)
    return out, scores


def fast(C: np.ndarray, starts: np.ndarray, *, full: bool = False):
    """FAST: two QUICK-core passes from every start (in parallel).  Returns all results."""
    V, eps = _tol(C)
    return _fast_kernel(np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(C), full, V, eps)


def best_unique(cands: np.ndarray, scores: np.ndarray, eps: float):
    """The distinct candidates whose objective is within ``eps`` of the maximum (sorted)."""
    top = scores.max()
    keep = cands[scores >= top - eps]
    uniq = np.unique(keep, axis=0)
    return uniq, float(top)


def reference_heuristic(C, method, full, n_starts, rng):
    """(distinct best candidates sorted, best objective) exactly as before issue 14."""
    V, eps = _tol(C)
    if method == "quick":
        cands, scores = quick(C, full=full)
        return best_unique(cands, scores, eps)
    starts = fast_starts(C.shape[0], n_starts, rng, full=full)
    o, s = fast(C, starts, full=full)
    return best_unique(o, s, eps)
