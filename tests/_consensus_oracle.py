"""Independent brute-force oracle for the consensus tests (plain numpy/itertools)."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=None)
def all_weak_orders(m: int) -> np.ndarray:
    """All weak orders of m items as dense rank vectors (ordered set partitions)."""
    rows = [r for r in itertools.product(range(1, m + 1), repeat=m) if set(r) == set(range(1, max(r) + 1))]
    return np.array(rows, dtype=np.int64)


@lru_cache(maxsize=None)
def all_permutations(m: int) -> np.ndarray:
    return np.array([np.argsort(p) + 1 for p in itertools.permutations(range(m))], dtype=np.int64)


def naive_cim(X, w=None):
    """Combined input matrix straight from the definition (pure Python loops)."""
    X = np.asarray(X, dtype=float)
    n, m = X.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    C = np.zeros((m, m))
    for k in range(n):
        for i in range(m):
            for j in range(m):
                if i == j or np.isnan(X[k, i]) or np.isnan(X[k, j]):
                    continue
                C[i, j] += w[k] * (1.0 if X[k, i] <= X[k, j] else -1.0)
    return C


def scores(R: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Σ_ij c_ij s_ij for every row of R."""
    S = np.where(R[:, :, None] <= R[:, None, :], 1.0, -1.0)
    m = R.shape[1]
    S[:, np.arange(m), np.arange(m)] = 0.0
    return np.einsum("kij,ij->k", S, C)


def brute_force(X, w=None, *, ties=True):
    """(set of optimal dense rank tuples, best average tau_x)."""
    X = np.asarray(X, dtype=float)
    n, m = X.shape
    C = naive_cim(X, w)
    W = float(n if w is None else np.sum(w))
    R = all_weak_orders(m) if ties else all_permutations(m)
    sc = scores(R, C)
    best = sc.max()
    tol = 1e-9 * max(1.0, np.abs(C).sum())
    opt = {tuple(r) for r in R[sc >= best - tol]}
    return opt, best / (W * m * (m - 1))


def random_profile(rng, n, m, *, tie_prob=0.3, nan_prob=0.15, weighted=False):
    """Random rankings with ties (merged adjacent positions) and NaN cells."""
    X = np.empty((n, m))
    for k in range(n):
        perm = rng.permutation(m) + 1.0
        # merge adjacent positions into ties
        vals = np.sort(perm)
        for t in range(1, m):
            if rng.random() < tie_prob:
                vals[t] = vals[t - 1]
        order = rng.permutation(m)
        X[k, order] = vals
        mask = rng.random(m) < nan_prob
        if mask.sum() >= m - 1:
            mask[:] = False
        X[k, mask] = np.nan
    w = rng.integers(1, 5, size=n).astype(float) if weighted else None
    return X, w
