"""The permutation null of a tie-aware weighted correlation that keeps both tie patterns fixed.

H0: the items of ``y`` are assigned to the positions of ``x`` uniformly at random, i.e. Γ(x, y∘π)
with π uniform over the n! permutations, x fixed.  Both vectors keep their values (average ranks
of their ties), so the tie patterns are the same in every arrangement; the coefficient is the
tie-aware one of :func:`agreekit.weighted_kendall` / :func:`agreekit.weighted_spearman`
(``ties="average"``): item weights f(x_i) ⊕ f(y_i) at the average ranks, sgn(0) = 0 and the
τ_b-style normalisation for Kendall, the weighted Pearson correlation of the average ranks for
Spearman.

Γ is symmetric in (x, y) and invariant under a common relabelling of the items, so
Γ(x, y∘π) has the same law as Γ(x∘π, y): the vector with fewer distinct arrangements
(n! / Π t_k! for tie groups of sizes t_k) is the one permuted.  Each distinct arrangement of a
multiset stands for the same number Π t_k! of permutations π, so enumerating the distinct
arrangements once each gives the exact null (``exact``); otherwise uniform random permutations
(Fisher-Yates on the generator's float64 stream, :func:`agreekit.ranking._kernels.random_permutations`)
give a Monte Carlo sample (``sample``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from agreekit._jit import pick
from agreekit.ranking import _kernels as _k
from agreekit.ranking import _ties

#: largest number of distinct arrangements enumerated (10! = 3,628,800 values, 29 MB)
MAX_EXACT_ARRANGEMENTS = math.factorial(10)
_MEMO: "OrderedDict[tuple, TiedNull]" = OrderedDict()
_MEMO_SIZE = 8


@njit(cache=True)
def _gamma(xs, fx, yv, yd, fy, m, coef, mult, order, w):  # pragma: no cover - compiled
    """Γ of items sorted by x (``xs`` ascending, weights ``fx``) against y values ``yv`` (dense codes
    ``yd`` in 1..m, weights ``fy``) in the same item order; ``order`` = arange(n), ``w`` a buffer."""
    n = xs.size
    W = 0.0
    for i in range(n):
        w[i] = fx[i] * fy[i] if mult else fx[i] + fy[i]
        W += w[i]
    if coef == _k.SPEARMAN:
        return _k.spearman_weighted(xs, yv, w)  # its first pass repeats W's sum in the same order: the same bits
    if coef != _k.KENDALL:
        raise ValueError("unknown coefficient code")
    num = _ties.kendall_weighted_tied(order, xs, yd, m, w)
    den_x = _ties.untied_pair_weight(xs, w)  # items in x order already (order = arange(n))
    grp = np.zeros(m + 1)
    for i in range(n):
        grp[yd[i]] += w[i]
    s2 = 0.0
    for g in range(1, m + 1):
        s2 += grp[g] * grp[g]
    den_y = 0.5 * (W * W - s2)
    return num / math.sqrt(den_x * den_y)


@njit(cache=True, parallel=True)
def _batch(perms, xs, fx, yv, yd, fy, m, coef, mult):  # pragma: no cover - compiled
    """Γ(x, y[perm - 1]) for every row of ``perms`` (permutations of 1..n)."""
    k, n = perms.shape
    out = np.empty(k)
    for r in prange(k):
        order = np.arange(n)
        w = np.empty(n)
        pv = np.empty(n)
        pd = np.empty(n, np.int64)
        pf = np.empty(n)
        for i in range(n):
            j = perms[r, i] - 1
            pv[i] = yv[j]
            pd[i] = yd[j]
            pf[i] = fy[j]
        out[r] = _gamma(xs, fx, pv, pd, pf, m, coef, mult, order, w)
    return out


@njit(cache=True)
def _enumerate(xs, fx, code_sorted, val_of, f_of, m, coef, mult, total):  # pragma: no cover - compiled
    """Γ over all distinct arrangements of the multiset ``code_sorted`` (dense codes, ascending),
    in lexicographic order (the classic next-permutation step, which skips repeated arrangements)."""
    n = xs.size
    c = code_sorted.copy()
    out = np.empty(total)
    order = np.arange(n)
    w = np.empty(n)
    pv = np.empty(n)
    pf = np.empty(n)
    for t in range(total):
        for i in range(n):
            pv[i] = val_of[c[i]]
            pf[i] = f_of[c[i]]
        out[t] = _gamma(xs, fx, pv, c, pf, m, coef, mult, order, w)
        # next permutation of the multiset
        i = n - 2
        while i >= 0 and c[i] >= c[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while c[j] <= c[i]:
            j -= 1
        tmp = c[i]
        c[i] = c[j]
        c[j] = tmp
        a = i + 1
        b = n - 1
        while a < b:
            tmp = c[a]
            c[a] = c[b]
            c[b] = tmp
            a += 1
            b -= 1
    return out


def arrangements(values: np.ndarray) -> int:
    """Number of distinct arrangements n! / Π t_k! of the multiset ``values``."""
    _, counts = np.unique(values, return_counts=True)
    out = math.factorial(int(values.size))
    for t in counts:
        out //= math.factorial(int(t))
    return out


@dataclass(frozen=True)
class NullSample:
    """Γ over the exact null (``exact``: each distinct arrangement once, sorted) or a Monte Carlo sample."""

    values: np.ndarray
    exact: bool

    def moments(self):
        """(mean, var, left_var) and their standard errors (0 for the exact null; for a sample, the
        delta-method SEs of the plug-in estimates: sd/√B, sd(d²)/√B, sd(d² 1[d<0])/√B, d = Γ - mean)."""
        v = self.values
        N = v.size
        mean = float(np.mean(v))
        dev = v - mean
        dev2 = dev * dev
        var = float(np.mean(dev2))
        left = np.where(dev < 0, dev2, 0.0)
        left_var = float(np.sum(left) / N)
        mean += float(np.mean(dev))
        if self.exact:
            return (mean, var, left_var), (0.0, 0.0, 0.0)
        ses = (math.sqrt(var / N), float(np.std(dev2)) / math.sqrt(N), float(np.std(left)) / math.sqrt(N))
        return (mean, var, left_var), ses


class TiedNull:
    """The null of Γ(x, y∘π) for fixed rank vectors x, y (average ranks of their ties).

    ``coef`` is :data:`agreekit.ranking._kernels.SPEARMAN` or ``KENDALL``; ``weigher`` a
    :class:`~agreekit.ranking.weighting.Weigher` evaluated at the average ranks.
    """

    def __init__(self, x, y, weigher, coef, mult):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if arrangements(x) < arrangements(y):
            x, y = y, x  # permute the vector with fewer distinct arrangements (same law)
        self.n = x.size
        self.coef = _k.check_code(coef)  # fails closed before any kernel
        self.mult = bool(mult)
        self.x_sorted = np.sort(x, kind="stable")
        self.fx = np.ascontiguousarray(weigher(self.x_sorted), dtype=np.float64)
        self.y_sorted = np.sort(y, kind="stable")
        vals, codes = np.unique(self.y_sorted, return_inverse=True)
        self.codes = (codes + 1).astype(np.int64)
        self.m = int(vals.size)
        self.val_of = np.concatenate([[0.0], vals])
        self.f_of = np.concatenate([[1.0], np.asarray(weigher(vals), dtype=np.float64)])
        self.fy = self.f_of[self.codes]
        self.n_arrangements = arrangements(self.y_sorted)
        self._exact = None

    def key(self):
        return (
            self.coef,
            self.mult,
            self.x_sorted.tobytes(),
            self.fx.tobytes(),
            self.y_sorted.tobytes(),
            self.fy.tobytes(),
        )

    def seed(self) -> np.random.SeedSequence:
        """A SeedSequence derived from the configuration (for reproducible moments)."""
        import hashlib

        h = hashlib.sha256()
        for part in self.key():
            h.update(part if isinstance(part, bytes) else str(part).encode())
        d = h.digest()
        return np.random.SeedSequence([int.from_bytes(d[4 * i : 4 * i + 4], "little") for i in range(4)])

    def exact(self) -> NullSample:
        """Γ over every distinct arrangement (each once), cached on the object."""
        if self._exact is None:
            N = self.n_arrangements
            kernel = pick(_enumerate, N * self.n * 4)
            vals = np.sort(
                kernel(self.x_sorted, self.fx, self.codes, self.val_of, self.f_of, self.m, self.coef, self.mult, N)
            )  # sorted once: tail counts are two binary searches
            vals.flags.writeable = False
            self._exact = NullSample(vals, True)
        return self._exact

    def sample(self, rng, size, *, progress=False, batch_elements=2_000_000):
        """Γ for ``size`` uniform random permutations drawn from ``rng`` (batched)."""
        return NullSample(
            np.concatenate(list(self.batches(rng, size, progress=progress, batch_elements=batch_elements))), False
        )

    def batches(self, rng, size, *, first=None, progress=False, batch_elements=2_000_000):
        """Yield Γ for ``size`` random permutations in consecutive batches (the first of ``first`` rows,
        then doubling up to the memory bound); the concatenation does not depend on the batching."""
        n = self.n
        cap = max(1, batch_elements // n)
        rows = cap if first is None else max(1, min(first, cap))
        kernel = pick(_batch, size * n * max(1, int(math.log2(n))))
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=size, desc=f"tied null n={n}", unit="perm", leave=False)
        done = 0
        try:
            while done < size:
                k = min(rows, size - done)
                p = _k.random_permutations(rng, k, n)
                yield kernel(
                    p, self.x_sorted, self.fx, self.y_sorted, self.codes, self.fy, self.m, self.coef, self.mult
                )
                done += k
                if bar is not None:
                    bar.update(k)
                rows = min(2 * rows, cap)
        finally:
            if bar is not None:
                bar.close()

    def observed(self, x, y, weigher) -> float:
        """Γ(x, y) with the kernel of the null (the arrangement of the data)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if arrangements(x) < arrangements(y):
            x, y = y, x
        order = np.argsort(x, kind="stable")
        yo = y[order]
        codes = np.searchsorted(self.val_of[1:], yo).astype(np.int64) + 1
        return float(
            _gamma(
                x[order],
                np.asarray(weigher(x[order]), dtype=np.float64),
                yo,
                codes,
                self.f_of[codes],
                self.m,
                self.coef,
                self.mult,
                np.arange(self.n),
                np.empty(self.n),
            )
        )


def tied_null(x, y, weigher, coef, mult) -> TiedNull:
    """A :class:`TiedNull`, memoized on its configuration (so a repeated call reuses the enumeration)."""
    null = TiedNull(x, y, weigher, coef, mult)
    key = null.key()
    hit = _MEMO.get(key)
    if hit is not None:
        _MEMO.move_to_end(key)
        return hit
    _MEMO[key] = null
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return null
