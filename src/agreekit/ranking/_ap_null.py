"""The null distribution of τ_AP and :func:`ap_correlation_test`.

H0: y's order is a uniformly random permutation relative to x (with ties: y's values, hence its tie
pattern, kept and permuted over the items, x fixed — as :func:`agreekit.weighted_correlation_test`
does).

Untied, asymmetric: taken in y's order, C(i) (the number of items above position i in y that are also
above it in x) is the i-th Lehmer-code digit of the permutation; the digits are independent and
uniform on {0, …, i−1}, and τ_AP = 2/(n−1) Σ_{i=2}^{n} C(i)/(i−1) − 1 is affine in them, so
E[τ_AP] = 0, Var[τ_AP] = ((n−1) + 2 H_{n−1}) / (3 (n−1)²) (H the harmonic number) and the exact law is
the convolution of the digits' uniform laws: on the integer lattice K = Σ C(i)·ℓ/(i−1), ℓ = lcm(1..n−1),
while that lattice stays small (n <= :data:`MAX_LATTICE_N`); beyond, Monte Carlo draws the digits
directly (O(n) per resample, no permutation needed).  Symmetric (τ_AP_b) or tied: all n! orders
for n <= :data:`MAX_ENUM_N`, else sequential Monte Carlo (Besag & Clifford, 1991).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from agreekit._api import TestResultBase, check_rng
from agreekit._validation import InputError, check_choice, check_int
from agreekit.ranking._montecarlo import mc_test, sequential_test
from agreekit.ranking._ranked_lists import _ap_inputs, _ap_values, _above_counts, _dense, _y_groups
from agreekit.ranking._tails import combine, tie_tol

__all__ = ["APCorrelationResult", "ap_correlation_test", "ap_null_variance"]

METHODS = ("auto", "exact", "monte-carlo")
ALTERNATIVES = ("two-sided", "greater", "less")
#: largest lattice of the exact convolution (cells) and the n it allows
MAX_LATTICE = 6_000_000
MAX_LATTICE_N = 16
#: largest n whose n! orders are enumerated (symmetric or tied)
MAX_ENUM_N = 8


@dataclass(frozen=True)
class APCorrelationResult(TestResultBase):
    """Result of :func:`ap_correlation_test`; unpacks like scipy's, ``statistic, pvalue = res``.

    Parameters
    ----------
    statistic : float
        τ_AP (τ_AP_a with ties in y) or, with ``symmetric=True``, τ_AP_b.
    pvalue : float
        The p-value for ``alternative`` (scipy's conventions; Monte Carlo: (b + 1)/(B + 1) per tail,
        or the sequential rule).
    alternative : {'two-sided', 'greater', 'less'}
    method : {'exact', 'monte-carlo'}
        The method used (``"auto"`` resolved).
    n : int
        Number of items.
    null_mean, null_var : float
        Mean and variance of the statistic under H0: exact (``null_moments="exact"``) or estimated from
        the Monte Carlo sample.
    pvalue_se : float
        Monte Carlo standard error of ``pvalue`` (0 when exact).
    n_resamples_used : int
        Monte Carlo resamples drawn (0 when exact).
    symmetric, tied : bool
        τ_AP_b or not; whether x or y has ties.
    null_moments : {'exact', 'monte-carlo'}
        Where ``null_mean`` and ``null_var`` come from.

    Examples
    --------
    >>> from agreekit.ranking import ap_correlation_test
    >>> res = ap_correlation_test([1, 2, 3, 4], [1, 2, 3, 4], alternative="greater")
    >>> tau, p = res
    >>> float(tau), round(float(p), 6), res.method    # the one order of 4! with tau_AP = 1
    (1.0, 0.041667, 'exact')
    """

    statistic: float
    pvalue: float
    alternative: str
    method: str
    n: int
    null_mean: float
    null_var: float
    pvalue_se: float = 0.0
    n_resamples_used: int = 0
    symmetric: bool = False
    tied: bool = False
    null_moments: str = "exact"


def ap_null_variance(n: int) -> float:
    """Var[τ_AP] under a uniformly random order of n untied items: ((n−1) + 2 H_{n−1}) / (3 (n−1)²)."""
    h = math.fsum(1.0 / k for k in range(1, n))
    return ((n - 1) + 2 * h) / (3.0 * (n - 1) ** 2)


@njit(cache=True)
def _lattice_counts(n, ell):  # pragma: no cover - compiled
    """Number of permutations of n items with K = Σ_{i=2}^n C(i)·ℓ/(i−1) = k, k = 0..ℓ(n−1) (exact integers).

    Adding digit i (uniform on 0..i−1, step ℓ/(i−1) on the lattice) is a moving sum of i terms along
    each residue class of the step: O(lattice) per digit whatever i.
    """
    size = ell * (n - 1) + 1
    cur = np.zeros(size, np.int64)
    nxt = np.zeros(size, np.int64)
    cur[0] = 1
    top = 0  # largest k reached so far
    for i in range(2, n + 1):
        step = ell // (i - 1)
        new_top = top + step * (i - 1)
        for r in range(min(step, new_top + 1)):
            run = 0
            k = r
            j = 0  # index along the residue class
            while k <= new_top:
                if k <= top:
                    run += cur[k]
                if j >= i:
                    kk = k - i * step
                    if kk <= top:
                        run -= cur[kk]
                nxt[k] = run
                k += step
                j += 1
        cur, nxt = nxt, cur
        top = new_top
    return cur


@lru_cache(maxsize=4)
def _lattice(n):
    """(ℓ, the cumulative counts #{orders: K <= k}, k = 0..ℓ(n−1), of K = Σ_{i=2}^n C(i)·ℓ/(i−1)).

    Exact integers (at most n!, below 2^53 for n <= 18): a tail probability is then one correctly
    rounded ratio of two exactly represented integers.
    """
    ell = math.lcm(*range(1, n)) if n > 2 else 1
    cum = np.cumsum(_lattice_counts(n, ell))
    cum.setflags(write=False)
    return ell, cum


def _lattice_size(n):
    if n > 40:
        return math.inf
    ell = math.lcm(*range(1, n)) if n > 2 else 1
    return ell * (n - 1) + 1


def _untied_digits(vx, vy):
    """C(i) for positions i = 1..n of y (untied), in y order."""
    xr, nx = _dense(vx)
    order, gs = _y_groups(vy)
    return _above_counts(order.astype(np.int64), gs, xr, nx)


def _batch_stat(vx, Y, symmetric):
    """τ_AP_a (x untied) or τ_AP_b for each row of Y (values, lower = better), O(n²) per row."""
    n = vx.size
    H = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, 2 * n + 2))))

    def star(ref, Yv):
        above = Yv[:, None, :] < Yv[:, :, None]  # [b, i, j]: j strictly above i in Yv
        ref_above = ref[..., None, :] < ref[..., :, None]
        c = np.sum(above & ref_above, axis=2)
        p = 1 + np.sum(above, axis=2)
        keep = p != 1
        m = np.sum(keep, axis=1)
        tot = np.sum(np.where(keep, c / np.maximum(p - 1, 1), 0.0), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m > 0, 2.0 * tot / np.maximum(m, 1) - 1.0, np.nan)

    if symmetric:
        X = np.broadcast_to(vx, Y.shape)
        return 0.5 * (star(vx, Y) + star(Y, X))
    above = Y[:, None, :] < Y[:, :, None]
    c = np.sum(above & (vx[None, :] < vx[:, None])[None], axis=2)
    p = 1 + np.sum(above, axis=2)
    t = np.sum(Y[:, None, :] == Y[:, :, None], axis=2)
    s1 = (H[p + t - 2] - H[np.maximum(p - 2, 0)]) / t
    term1 = np.where(p != 1, c * s1, 0.0)
    term2 = ((t - 1) - (p - 1) * (H[p + t - 2] - H[p - 1])) / (2.0 * t)
    return 2.0 / (n - 1) * np.sum(term1 + term2, axis=1) - 1.0


def _tail_p(values, probs, stat, alternative):
    tol = tie_tol(stat)
    p_ge = float(np.sum(probs[values >= stat - tol]))
    p_le = float(np.sum(probs[values <= stat + tol]))
    return combine(min(p_ge, 1.0), min(p_le, 1.0), alternative)


def _perm_batches(vy, rng, size, first=128, cap_rows=4096):
    rows = first
    done = 0
    while done < size:
        k = min(rows, size - done)
        yield np.array([vy[rng.permutation(vy.size)] for _ in range(k)])
        done += k
        rows = min(2 * rows, cap_rows)


def ap_correlation_test(
    x, y, *, symmetric=False, alternative="two-sided", method="auto", n_resamples=100_000, rng=None, kind="ranks"
) -> APCorrelationResult:
    """Test of independence for τ_AP of ``y`` against the reference ``x`` (rank vectors, 1 = top; or scores).

    H0: y's order is a uniformly random permutation relative to x (with ties, y's values are permuted
    over the items, so its tie pattern is kept; x is fixed).  Without ties the asymmetric τ_AP is
    affine in the Lehmer-code digits of that permutation, which are independent and uniform, so its
    null mean is 0, its variance ((n−1) + 2 H_{n−1}) / (3 (n−1)²) and its exact law a convolution of
    uniform laws (no enumeration).

    Parameters
    ----------
    x, y : array_like
        Reference and evaluated rankings, as in :func:`ap_correlation`.
    symmetric : bool, optional
        False (default): τ_AP (τ_AP_a with ties in y); True: τ_AP_b (ties allowed in both).
    alternative : {'two-sided', 'greater', 'less'}, optional
        ``'greater'``: y agrees with x more than chance would.  Two-sided doubles the smaller tail.
    method : {'auto', 'exact', 'monte-carlo'}, optional
        ``'exact'``: the lattice convolution (untied, asymmetric, n <= 16) or all n! orders
        (n <= 8); ``'monte-carlo'``: ``n_resamples`` random orders (untied asymmetric: the Lehmer
        digits drawn directly); ``'auto'`` (default): exact when available, else a sequential Monte
        Carlo p-value (Besag & Clifford, 1991) that stops each tail after 20 exceedances.
    n_resamples : int, optional
        Monte Carlo resamples (the maximum for the sequential rule); default 100000.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of the Monte Carlo resamples (SPEC 7).
    kind : {'ranks', 'scores'}, optional
        The input form (default ``'ranks'``: 1 = top; ``'scores'``: higher = better).

    Returns
    -------
    APCorrelationResult
        ``statistic, pvalue = res``; ``null_mean``, ``null_var``, ``method``, ``pvalue_se``, ...

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation coefficient for
           information retrieval", SIGIR 2008. :doi:`10.1145/1390334.1390435`
    .. [2] J. Urbano and M. Marrero, "The Treatment of Ties in AP Correlation", ICTIR 2017.
           :doi:`10.1145/3121050.3121106`
    .. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2), 301-304, 1991.
           :doi:`10.1093/biomet/78.2.301`

    Examples
    --------
    >>> from agreekit.ranking import ap_correlation_test
    >>> res = ap_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 5, 7, 6, 8], alternative="greater")
    >>> res.method, round(res.statistic, 6), round(res.pvalue, 6)
    ('exact', 0.809524, 0.00129)
    >>> stat, p = res
    """
    if not isinstance(symmetric, (bool, np.bool_)):
        raise InputError("symmetric", f"must be True or False; got {symmetric!r}")
    alternative = check_choice("alternative", alternative, ALTERNATIVES)
    method = check_choice("method", method, METHODS)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    check_rng(rng)  # also where the method chosen draws nothing
    vx, vy, tx, ty = _ap_inputs(x, y, kind)
    stat = _ap_values(vx, vy, tx, symmetric)
    n = vx.size
    tied = tx or ty
    untied_asym = not tied and not symmetric
    lattice_ok = untied_asym and n <= MAX_LATTICE_N and _lattice_size(n) <= MAX_LATTICE
    enum_ok = n <= MAX_ENUM_N
    if method == "exact" and not (lattice_ok or enum_ok):
        raise InputError(
            "method",
            f"'exact' needs n <= {MAX_LATTICE_N} (untied, asymmetric) or n <= "
            f"{MAX_ENUM_N}; got n = {n}: use 'auto' or 'monte-carlo'",
        )
    common = dict(statistic=float(stat), alternative=alternative, n=n, symmetric=bool(symmetric), tied=tied)
    if untied_asym:
        mean0, var0 = 0.0, ap_null_variance(n)
    if method != "monte-carlo" and lattice_ok:
        ell, cum = _lattice(n)
        c = _untied_digits(vx, vy)
        k_obs = int(sum(int(c[i]) * (ell // i) for i in range(1, n)))
        total = math.factorial(n)
        p_ge = (total - (int(cum[k_obs - 1]) if k_obs > 0 else 0)) / total
        p_le = int(cum[k_obs]) / total
        return APCorrelationResult(
            pvalue=combine(min(p_ge, 1.0), min(p_le, 1.0), alternative),
            method="exact",
            null_mean=mean0,
            null_var=var0,
            **common,
        )
    if method != "monte-carlo" and enum_ok:
        Y = np.array([vy[list(perm)] for perm in itertools.permutations(range(n))])
        vals = _batch_stat(vx, Y, symmetric)
        if np.isnan(stat):
            p = math.nan
        else:
            vals = vals[~np.isnan(vals)]
            probs = np.full(vals.size, 1.0 / vals.size)
            p = _tail_p(vals, probs, stat, alternative)
        mean, var = (mean0, var0) if untied_asym else (float(np.mean(vals)), float(np.var(vals)))
        return APCorrelationResult(pvalue=p, method="exact", null_mean=mean, null_var=var, **common)
    gen = check_rng(rng)
    if untied_asym:
        w = 2.0 / ((n - 1) * np.arange(1, n, dtype=np.float64))  # weight of digit i (i = 2..n) ÷ (i−1)

        def batches(size, first=128, cap_rows=max(1, 4_000_000 // n)):
            rows, done = first, 0
            while done < size:
                k = min(rows, size - done)
                digits = np.floor(gen.random((k, n - 1)) * np.arange(2, n + 1)).astype(np.float64)
                yield digits @ w - 1.0
                done += k
                rows = min(2 * rows, cap_rows)
    else:
        small = n <= 64

        def batches(size, first=128):
            for Y in _perm_batches(vy, gen, size, first=first, cap_rows=4096 if small else 256):
                if small:
                    yield _batch_stat(vx, Y, symmetric)
                else:
                    yield np.array([_ap_values(vx, row, tx, symmetric) for row in Y])

    if method == "monte-carlo":
        null = np.concatenate(list(batches(n_resamples)))
        null = null[~np.isnan(null)]
        p, se = mc_test(stat, null, alternative)
        used = n_resamples
        mean, var = (mean0, var0) if untied_asym else (float(np.mean(null)), float(np.var(null)))
        mom = "exact" if untied_asym else "monte-carlo"
    else:
        sample = []

        def keep(it):
            for b in it:
                b = b[~np.isnan(b)]
                sample.append(b)
                yield b

        p, se, used = sequential_test(stat, keep(batches(n_resamples)), alternative, n_resamples)
        allv = np.concatenate(sample) if sample else np.zeros(0)
        if untied_asym:
            mean, var, mom = mean0, var0, "exact"
        else:
            mean, var, mom = float(np.mean(allv)), float(np.var(allv)), "monte-carlo"
    return APCorrelationResult(
        pvalue=float(p),
        method="monte-carlo",
        null_mean=mean,
        null_var=var,
        pvalue_se=float(se),
        n_resamples_used=int(used),
        null_moments=mom,
        **common,
    )
