"""QUICK and FAST heuristics (Amodio, D'Ambrosio & Siciliano 2016), numba kernels.

Both work on the combined input matrix ``C``.  The objective of a candidate weak order
with rank vector ``r`` is ``Σ_{i≠j} c_ij s_ij``; the penalty is ``Σ|c_ij|`` minus it.
"""
from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["start_vector", "quick_pass", "quick", "fast_starts", "fast"]


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True, parallel=True)
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
