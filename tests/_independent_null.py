"""An independent null sampler for checks of the ranking tables.

Γ(identity, π) for uniformly random permutations π drawn with plain numpy (``Generator.permuted``),
the coefficient computed from its definition by code that shares nothing with agreekit (neither its
fused sampling kernel nor its single-pair coefficients):

* weights of item i (rank a_i = i, rank b_i = π(i), f the weigher on 1-based ranks):
  additive w_i = f(a_i) + f(b_i), multiplicative w_i = f(a_i) f(b_i) (normalization cancels);
* weighted Kendall τ_w = Σ_{i<j} w_i w_j sgn(a_j - a_i) sgn(b_j - b_i) / Σ_{i<j} w_i w_j, the numerator by a
  Fenwick tree over the b values in O(n log n);
* weighted Spearman = the weighted Pearson correlation of the two rank vectors (weighted means).

``tests/test_ranking_independent_null.py`` checks the coefficient against ``scipy.stats.weightedtau``
(Kendall) and numpy's weighted covariance (Spearman).
"""

from __future__ import annotations

import numba
import numpy as np


def weigher_values(weigher: str, n: int) -> np.ndarray:
    """f(1..n) for the shipped weighers: ``harmonic`` 1/r, ``inverse_square:n0=k`` 1/(r + k)^2."""
    r = np.arange(1, n + 1, dtype=np.float64)
    if weigher == "harmonic":
        return 1.0 / r
    name, _, arg = weigher.partition(":")
    assert name == "inverse_square" and arg.startswith("n0="), weigher
    return 1.0 / (r + int(arg[3:])) ** 2


@numba.njit(cache=False)
def _kendall_rows(P, fr, additive):  # pragma: no cover - compiled
    m, n = P.shape
    out = np.empty(m)
    tree = np.zeros(n + 1)
    for r in range(m):
        tree[:] = 0.0
        num = 0.0
        seen = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            b = P[r, j]
            w = fr[j] + fr[b - 1] if additive else fr[j] * fr[b - 1]
            less = 0.0  # Σ w_i over i < j with b_i < b_j
            k = b - 1
            while k > 0:
                less += tree[k]
                k -= k & (-k)
            num += w * (less - (seen - less))
            k = b
            while k <= n:
                tree[k] += w
                k += k & (-k)
            seen += w
            s1 += w
            s2 += w * w
        out[r] = num / (0.5 * (s1 * s1 - s2))
    return out


@numba.njit(cache=False)
def _spearman_rows(P, fr, additive):  # pragma: no cover - compiled
    m, n = P.shape
    out = np.empty(m)
    for r in range(m):
        sw = sa = sb = 0.0
        for i in range(n):
            b = P[r, i]
            w = fr[i] + fr[b - 1] if additive else fr[i] * fr[b - 1]
            sw += w
            sa += w * (i + 1)
            sb += w * b
        ma, mb = sa / sw, sb / sw
        cab = caa = cbb = 0.0
        for i in range(n):
            b = P[r, i]
            w = fr[i] + fr[b - 1] if additive else fr[i] * fr[b - 1]
            da, db = i + 1 - ma, b - mb
            cab += w * da * db
            caa += w * da * da
            cbb += w * db * db
        out[r] = cab / np.sqrt(caa * cbb)
    return out


def coefficient_rows(P, coefficient, scheme, weigher):
    """Γ(identity, P[r]) for every row r of P (permutations of 1..n as int64)."""
    P = np.ascontiguousarray(P, dtype=np.int64)
    fr = weigher_values(weigher, P.shape[1])
    if coefficient == "kendall":
        return _kendall_rows(P, fr, scheme == "additive")
    return _spearman_rows(P, fr, scheme == "additive")


def permutation_blocks(n, size, rng, block=4096):
    """Uniform random permutations of 1..n in blocks (numpy's Generator.permuted, row by row)."""
    base = np.tile(np.arange(1, n + 1, dtype=np.int64), (min(block, size), 1))
    for start in range(0, size, block):
        yield rng.permuted(base[: min(block, size - start)], axis=1)


def null_sample(coefficient, scheme, weigher, n, size, rng):
    """``size`` independent draws of Γ(identity, π) under the null (uniform π)."""
    return np.concatenate([coefficient_rows(P, coefficient, scheme, weigher) for P in permutation_blocks(n, size, rng)])
