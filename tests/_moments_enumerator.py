"""Exact null moments by plain enumeration of all n! permutations (written independently of
agreekit.ranking.moments, which descends a tree with incremental sums in numba).

Definitions (seed paper, Eqs. 7, 8, 19, 24, 25): one ranking is the identity a = (1..n), the other b
runs over all n! permutations with equal probability; weights w_i = f(a_i) + f(b_i) (additive) or
f(a_i) f(b_i) (multiplicative) with 1-based ranks; f(i) = 1/i ("harmonic") or 1/(i + n0)^2
("inverse_square:n0=K").  Spearman's coefficient is the w-weighted Pearson correlation of a and b,
Kendall's sum_{i<j} w_i w_j sgn(a_j - a_i) sgn(b_j - b_i) / sum_{i<j} w_i w_j.  Returned: the mean G,
the variance V = E[(g - G)^2] and the left variance V^l = E[(g - G)^2 ; g < G] (divided by n!, not by
the number of left values).  Vectorised with numpy over blocks of (n-1)! permutations sharing b_1.
"""

import itertools

import numpy as np


def weigher(spec):
    if spec == "harmonic":
        return lambda r: 1.0 / r
    name, _, arg = spec.partition(":")
    assert name == "inverse_square" and arg.startswith("n0="), spec
    n0 = float(arg[3:])
    return lambda r: 1.0 / (r + n0) ** 2


def _values(coef, scheme, f, P):
    n = P.shape[1]
    a = np.arange(1, n + 1, dtype=np.float64)
    w = f(a)[None, :] + f(P) if scheme == "additive" else f(a)[None, :] * f(P)
    if coef == "spearman":
        W = w.sum(axis=1, keepdims=True)
        da = a[None, :] - (w * a).sum(axis=1, keepdims=True) / W
        db = P - (w * P).sum(axis=1, keepdims=True) / W
        return (w * da * db).sum(axis=1) / np.sqrt((w * da * da).sum(axis=1) * (w * db * db).sum(axis=1))
    num = np.zeros(P.shape[0])
    den = np.zeros(P.shape[0])
    for i in range(n):
        for j in range(i + 1, n):
            ww = w[:, i] * w[:, j]
            num += ww * np.sign(P[:, j] - P[:, i])
            den += ww
    return num / den


def enumerate_values(coef, scheme, spec, n):
    """All n! values of the coefficient, one per permutation b of (1..n)."""
    f = weigher(spec)
    base = np.array(list(itertools.permutations(range(n - 1))), dtype=np.int64).reshape(-1, n - 1)
    out = []
    for first in range(1, n + 1):
        others = np.array([v for v in range(1, n + 1) if v != first], dtype=np.float64)
        P = np.empty((base.shape[0], n))
        P[:, 0] = first
        P[:, 1:] = others[base]
        out.append(_values(coef, scheme, f, P))
    return np.concatenate(out)


def enumerate_moments(coef, scheme, spec, n):
    """(mean, var, left_var) over all n! permutations."""
    g = enumerate_values(coef, scheme, spec, n)
    mean = g.mean()
    d = g - mean
    return float(mean), float(np.mean(d * d)), float(np.sum(d[d < 0] ** 2) / g.size)
