"""The null distribution of RBO and :func:`rank_biased_overlap_test`.

H0: x and y are the tops (of their lengths s <= l) of two independent uniformly random rankings of a
domain of N = ``n_items`` items.  Without ties, the overlaps X_d = |S_{:d} ∩ L_{:d}| form a Markov
chain: for d <= s, with X = X_{d−1}, m = N − d + 1, a = d − 1 − X, o = N − 2(d − 1) + X,
P(ΔX = 2) = a²/m², P(ΔX = 1) = (2ao + o)/m², P(ΔX = 0) = o(o − 1)/m²; for s < d <= l (S seen in full)
P(ΔX = 1) = (s − X)/(N − d + 1).  Each of RBO_ext, RBO_min, RBO_max is Σ_d a_d X_d + g(X_l) (plus an
extra term in X_s for ext), so the null mean and variance are exact by a dynamic programme over
(d, X_d) carrying the first two moments (O(s·l)), and the whole null law by the same programme carrying
the distinct partial scores (exact p-values while their number stays below ``MAX_ATOMS``, else
Monte Carlo on the chain).  With ties, Monte Carlo: the two lists keep their tie patterns, their items
are drawn from the domain (the number of common items is hypergeometric, their positions uniform);
each batch takes its hypergeometric counts and then two uniforms per common item from ``rng``, and a
compiled kernel places the items (partial Fisher-Yates shuffles) and scores each resample (about 1 µs
per resample for lists of about 20 items).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from agreekit._api import TestResultBase, check_rng
from agreekit._validation import InputError, check_choice, check_float, check_int, check_not_masked
from agreekit.ranking._montecarlo import mc_test, sequential_test
from agreekit.ranking._ranked_lists import (
    RBO_TIES,
    _Flat,
    _rbo_core,
    _rbo_flat,
    _rbo_inputs,
    _rbo_tail,
    _tail_log,
    _underflow_depth,
)
from agreekit.ranking._tails import combine, tie_tol

__all__ = ["RBOTestResult", "rank_biased_overlap_test", "rbo_null_moments"]

METHODS = ("auto", "exact", "monte-carlo")
ALTERNATIVES = ("two-sided", "greater", "less")
SCORES = ("ext", "min", "max")
#: most (overlap, partial score) atoms the exact programme keeps at one depth
MAX_ATOMS = 300_000


@dataclass(frozen=True)
class RBOTestResult(TestResultBase):
    """Result of :func:`rank_biased_overlap_test`; unpacks like scipy's, ``statistic, pvalue = res``.

    Parameters
    ----------
    statistic : float
        The observed RBO score (``score`` of :func:`rank_biased_overlap`).
    pvalue : float
        The p-value for ``alternative``.
    adjusted : float
        (RBO − E₀)/(1 − E₀), E₀ = ``null_mean``: chance-corrected as the adjusted Rand index is (0 in
        expectation under H0, 1 for a perfect score).
    null_mean, null_var : float
        Mean and variance of the score under H0 (exact without ties; Monte Carlo estimates with ties).
    method : {'exact', 'monte-carlo'}
    alternative : {'greater', 'less', 'two-sided'}
    score : {'ext', 'min', 'max'}
    n_items : int
        The domain size N.
    p : float
    ties : {'w', 'a', 'b'}
    depth_x, depth_y : int
    pvalue_se : float
        Monte Carlo standard error of ``pvalue`` (0 when exact).
    n_resamples_used : int
    null_moments : {'exact', 'monte-carlo'}

    Examples
    --------
    >>> from agreekit.ranking import rank_biased_overlap_test
    >>> res = rank_biased_overlap_test(["a", "b"], ["a", "b"], n_items=3, p=0.5)
    >>> rbo, pvalue = res
    >>> float(rbo), round(float(pvalue), 6)   # both tops agree: probability 1/3 * 1/2 under H0
    (1.0, 0.166667)
    """

    statistic: float
    pvalue: float
    adjusted: float
    null_mean: float
    null_var: float
    method: str
    alternative: str
    score: str
    n_items: int
    p: float
    ties: str
    depth_x: int
    depth_y: int
    pvalue_se: float = 0.0
    n_resamples_used: int = 0
    null_moments: str = "exact"


def _tail(p, l):
    """Σ_{d>l} p^d / d."""
    head = math.fsum(p**d / d for d in range(1, l + 1)) if l < 20000 else None
    if head is not None:
        v = -math.log1p(-p) - head
        if v > 1e-3 or p ** (l + 1) == 0.0:
            return max(v, 0.0)
    total, term, d = 0.0, p ** (l + 1), l + 1
    while term > 1e-300:
        add = term / d
        total += add
        if add < 1e-18 * total:
            break
        term *= p
        d += 1
    return total


def _coefficients(s, l, p, score):
    """(c_d for d = 1..l on X_d (index d), g(X_l) for X_l = 0..s) of the untied score Σ c_d X_d + g(X_l)."""
    w = (1 - p) / p
    d = np.arange(l + 1, dtype=np.float64)
    c = np.zeros(l + 1)
    c[1:] = w * p ** d[1:] / d[1:]
    g = np.zeros(s + 1)
    dd = np.arange(s + 1, l + 1, dtype=np.float64)
    if score == "ext":
        c[s] += w * float(np.sum((dd - s) / (s * dd) * p**dd)) + (1.0 / s - 1.0 / l) * p**l
        c[l] += p**l / l
    elif score == "min":
        c[l] += w * _tail(p, l)
    else:
        const = w * float(np.sum((dd - s) / dd * p**dd))
        for xl in range(s + 1):
            f = l + s - xl
            dm = np.arange(l + 1, f + 1, dtype=np.float64)
            g[xl] = const + w * (float(np.sum((2 * dm - l - s + xl) / dm * p**dm)) + p ** (f + 1) / (1 - p))
    return c, g


def _transitions(X, d, s, N):
    """[(δ, probability array)] for the overlap step at depth d from X = X_{d−1}."""
    X = X.astype(np.float64)
    m = N - d + 1
    if d <= s:
        a = d - 1 - X
        o = N - 2 * (d - 1) + X
        return [(0, o * (o - 1) / m**2), (1, (2 * a * o + o) / m**2), (2, a * a / m**2)]
    p1 = (s - X) / m
    return [(0, 1 - p1), (1, p1)]


@lru_cache(maxsize=64)
def rbo_null_moments(s, l, n_items, p, score="ext"):
    """Exact (mean, variance) of the untied RBO ``score`` for depths s <= l under H0 (domain of n_items)."""
    c, g = _coefficients(s, l, p, score)
    P = np.zeros(s + 1)
    M1 = np.zeros(s + 1)
    M2 = np.zeros(s + 1)
    P[0] = 1.0
    X = np.arange(s + 1)
    for d in range(1, l + 1):
        nP, n1, n2 = np.zeros(s + 1), np.zeros(s + 1), np.zeros(s + 1)
        for delta, pr in _transitions(X, d, s, n_items):
            tgt = X + delta
            ok = (pr > 0) & (tgt <= s) & (P > 0)
            t, q = tgt[ok], pr[ok]
            xv = t.astype(np.float64)
            np.add.at(nP, t, q * P[ok])
            np.add.at(n1, t, q * (M1[ok] + c[d] * xv * P[ok]))
            np.add.at(n2, t, q * (M2[ok] + 2 * c[d] * xv * M1[ok] + (c[d] * xv) ** 2 * P[ok]))
        P, M1, M2 = nP, n1, n2
    M2 = M2 + 2 * g * M1 + g * g * P
    M1 = M1 + g * P
    mean = float(np.sum(M1))
    return mean, max(float(np.sum(M2)) - mean * mean, 0.0)


@lru_cache(maxsize=32)
def _exact_law(s, l, n_items, p, score):
    """(values, probabilities) of the untied score under H0, or None past MAX_ATOMS."""
    c, g = _coefficients(s, l, p, score)
    X = np.zeros(1, dtype=np.int64)
    S = np.zeros(1)
    P = np.ones(1)
    for d in range(1, l + 1):
        parts = []
        for delta, pr in _transitions(X, d, s, n_items):
            ok = pr > 0
            if np.any(ok):
                t = X[ok] + delta
                parts.append((t, S[ok] + c[d] * t, P[ok] * pr[ok]))
        X = np.concatenate([q[0] for q in parts])
        S = np.concatenate([q[1] for q in parts])
        P = np.concatenate([q[2] for q in parts])
        X, S, P = _merge(X, S, P)
        if X.size > MAX_ATOMS:
            return None
    vals = S + g[X]
    vals.setflags(write=False)
    P.setflags(write=False)
    return vals, P


def _merge(X, S, P):
    order = np.lexsort((S, X))
    X, S, P = X[order], S[order], P[order]
    new = np.ones(X.size, dtype=bool)
    new[1:] = (X[1:] != X[:-1]) | (np.abs(S[1:] - S[:-1]) > 1e-13 * np.maximum(1.0, np.abs(S[1:])))
    idx = np.flatnonzero(new)
    return X[idx], S[idx], np.add.reduceat(P, idx)


def _chain_batches(s, l, n_items, p, score, gen, size, first=128, cap_rows=65536):
    """Monte Carlo draws of the untied score from the overlap chain."""
    c, g = _coefficients(s, l, p, score)
    rows, done = first, 0
    while done < size:
        k = min(rows, size - done)
        X = np.zeros(k, dtype=np.int64)
        S = np.zeros(k)
        for d in range(1, l + 1):
            u = gen.random(k)
            (_, p0), (_, p1), *rest = _transitions(X, d, s, n_items)
            step = (u >= p0).astype(np.int64)
            if rest:
                step += u >= p0 + p1
            X += step
            S += c[d] * X
        yield S + g[X]
        done += k
        rows = min(2 * rows, cap_rows)


@njit(cache=True)
def _tied_draws(xt, xb, yt, yb, ms, u, p, mode, n, cx, cy, tail_log_l, which):  # pragma: no cover - compiled
    """The tied score of one resample per entry of ``ms`` (its number of common items).

    Each resample pairs the first m positions of a partial Fisher-Yates shuffle of x's positions with
    those of y's (uniforms ``u``, 2m per resample, consumed in order): a uniformly random set of m
    common items placed uniformly at random in both tie patterns.  The shuffles continue from the
    previous resample's arrangement (a partial Fisher-Yates pass gives a uniform ordered sample from
    any starting order).  ``which``: 0 = ext, 1 = min, 2 = max.
    """
    sx, sy = xt.size, yt.size
    permx = np.arange(sx)
    permy = np.arange(sy)
    out = np.empty(ms.size)
    c = (1 - p) / p
    k = 0
    for r in range(ms.size):
        m = ms[r]
        for i in range(m):
            j = min(i + int(u[k] * (sx - i)), sx - 1)
            permx[i], permx[j] = permx[j], permx[i]
            j = min(i + int(u[k + 1] * (sy - i)), sy - 1)
            permy[i], permy[j] = permy[j], permy[i]
            k += 2
        jx = permx[:m]
        jy = permy[:m]
        if sx < sy:
            sec1, s2min, s2max, s2ext, A_s = _rbo_core(xt, xb, yt, yb, jx, jy, p, mode, n, cx, cy)
            s_, l_ = sx, sy
        else:
            sec1, s2min, s2max, s2ext, A_s = _rbo_core(yt, yb, xt, xb, jy, jx, p, mode, n, cy, cx)
            s_, l_ = sy, sx
        s3ext, s3min, s3max = _rbo_tail(s_, l_, m, A_s, p, tail_log_l)
        if which == 0:
            out[r] = c * (sec1 + s2ext + s3ext)
        elif which == 1:
            out[r] = c * (sec1 + s2min + s3min)
        else:
            out[r] = c * (sec1 + s2max + s3max)
    return out


def _tied_batches(Fx: _Flat, Fy: _Flat, n_items, p, ties, score, gen, size, first=64, cap_rows=4096):
    """Monte Carlo draws of the tied score: both tie patterns kept, the items drawn from the domain.

    Per batch of k resamples the generator gives k hypergeometric counts of common items (x's items
    among the domain, y's drawn from it), then 2 uniforms per common item; a compiled kernel does the
    rest (:func:`_tied_draws`).
    """
    sx, sy = Fx.size, Fy.size
    l = max(sx, sy)
    n = min(l, _underflow_depth(p))
    cx = int(np.searchsorted(Fx.t, n, side="right"))
    cy = int(np.searchsorted(Fy.t, n, side="right"))
    mode = RBO_TIES.index(ties)
    which = ("ext", "min", "max").index(score)
    tail = _tail_log(p, l)
    rows, done = first, 0
    while done < size:
        k = min(rows, size - done)
        ms = gen.hypergeometric(sx, n_items - sx, sy, size=k).astype(np.int64)
        u = gen.random(2 * int(ms.sum()))
        yield _tied_draws(Fx.t, Fx.b, Fy.t, Fy.b, ms, u, p, mode, n, cx, cy, tail, which)
        done += k
        rows = min(2 * rows, cap_rows)


def rank_biased_overlap_test(
    x, y, *, n_items, p=0.9, ties="a", score="ext", alternative="greater", method="auto", n_resamples=10_000, rng=None
) -> RBOTestResult:
    """Is the rank-biased overlap of two ranked lists (first = top) larger than chance?  Test, null moments and adjusted RBO.

    H0: ``x`` and ``y`` are the tops of two independent uniformly random rankings of a domain of
    ``n_items`` items (the collection or pool size, which the user states).  Without ties the
    overlaps at successive depths form a Markov chain with closed-form transitions, so the null mean,
    variance and p-value are exact by dynamic programming over (depth, overlap); with ties, Monte
    Carlo keeps each list's tie pattern.  ``adjusted`` = (RBO − E₀)/(1 − E₀) is RBO corrected for
    chance, as the adjusted Rand index is.

    Parameters
    ----------
    x, y : sequence
        Ranked lists as in :func:`rank_biased_overlap` (a ``set``/``frozenset`` element = tied items).
    n_items : int
        Domain size N >= |x ∪ y|.
    p : float, optional
        Persistence, 0 < p < 1 (default 0.9).
    ties : {'a', 'w', 'b'}, optional
        Tie variant (default ``'a'``).
    score : {'ext', 'min', 'max'}, optional
        Which RBO score is tested (default ``'ext'``).
    alternative : {'greater', 'less', 'two-sided'}, optional
        Default ``'greater'``: more overlap than chance.
    method : {'auto', 'exact', 'monte-carlo'}, optional
        ``'exact'`` (untied lists; the programme's distinct partial scores must stay below
        ``MAX_ATOMS`` = 300 000), ``'monte-carlo'``, or ``'auto'`` (default: exact when possible, else a
        sequential Monte Carlo p-value, Besag & Clifford 1991).
    n_resamples : int, optional
        Monte Carlo resamples (the maximum for the sequential rule; default 10000).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of the Monte Carlo resamples (SPEC 7).

    Returns
    -------
    RBOTestResult
        ``statistic, pvalue = res``; ``adjusted``, ``null_mean``, ``null_var``, ``method``, ...

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for indefinite rankings",
           ACM Transactions on Information Systems 28(4), 2010. :doi:`10.1145/1852102.1852106`
    .. [2] M. Corsi and J. Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024.
           :doi:`10.1145/3626772.3657700`
    .. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2), 301-304, 1991.
           :doi:`10.1093/biomet/78.2.301`

    Examples
    --------
    >>> from agreekit.ranking import rank_biased_overlap_test
    >>> res = rank_biased_overlap_test(["a", "b", "c", "d"], ["b", "a", "e", "c"], n_items=5)
    >>> res.method, round(res.statistic, 6), round(res.null_mean, 6), round(res.pvalue, 6)
    ('exact', 0.69075, 0.6878, 0.383333)
    >>> round(res.adjusted, 6)
    0.009449
    """
    p = check_float("p", p, minimum=0.0, maximum=1.0, inclusive=False)
    ties = check_choice("ties", ties, RBO_TIES)
    score = check_choice("score", score, SCORES)
    alternative = check_choice("alternative", alternative, ALTERNATIVES)
    method = check_choice("method", method, METHODS)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    check_rng(rng)  # also where the method chosen draws nothing
    check_not_masked(x=x, y=y)
    Fx, Fy, n_union, pairs = _rbo_inputs(x, y, "lists")
    n_items = check_int("n_items", n_items, minimum=1)
    if n_items < n_union:
        raise InputError(
            "n_items", f"must be at least the number of distinct items in x and y ({n_union}); got {n_items}"
        )
    res = _rbo_flat(Fx, Fy, p, ties, pairs)
    stat = float(getattr(res, score))
    s, l = sorted((Fx.size, Fy.size))
    tied = Fx.tied or Fy.tied
    if method == "exact" and tied:
        raise InputError("method", "'exact' needs untied lists; with ties use 'auto' or 'monte-carlo'")
    common = dict(
        statistic=stat,
        alternative=alternative,
        score=score,
        n_items=n_items,
        p=p,
        ties=ties,
        depth_x=Fx.size,
        depth_y=Fy.size,
    )
    law = None
    if not tied:
        mean0, var0 = rbo_null_moments(s, l, n_items, p, score)
        if method != "monte-carlo":
            law = _exact_law(s, l, n_items, p, score)
            if law is None and method == "exact":
                raise InputError(
                    "method",
                    f"'exact' is too large here (more than {MAX_ATOMS} distinct partial "
                    "scores); use 'auto' or 'monte-carlo'",
                )
    if law is not None:
        vals, probs = law
        tol = tie_tol(stat)
        pv = combine(
            min(float(np.sum(probs[vals >= stat - tol])), 1.0),
            min(float(np.sum(probs[vals <= stat + tol])), 1.0),
            alternative,
        )
        return RBOTestResult(
            pvalue=pv, adjusted=_adjust(stat, mean0), null_mean=mean0, null_var=var0, method="exact", **common
        )
    gen = check_rng(rng)

    def batches(size, first=128):
        if tied:
            return _tied_batches(Fx, Fy, n_items, p, ties, score, gen, size, first=min(first, 64))
        return _chain_batches(s, l, n_items, p, score, gen, size, first=first)

    sample = []

    def keep(it):
        for b in it:
            sample.append(b)
            yield b

    if method == "monte-carlo":
        null = np.concatenate(list(keep(batches(n_resamples))))
        pv, se = mc_test(stat, null, alternative)
        used = n_resamples
    else:
        pv, se, used = sequential_test(stat, keep(batches(n_resamples)), alternative, n_resamples)
    if tied:
        allv = np.concatenate(sample)
        mean0, var0, mom = float(np.mean(allv)), float(np.var(allv)), "monte-carlo"
    else:
        mom = "exact"
    return RBOTestResult(
        pvalue=float(pv),
        adjusted=_adjust(stat, mean0),
        null_mean=mean0,
        null_var=var0,
        method="monte-carlo",
        pvalue_se=float(se),
        n_resamples_used=int(used),
        null_moments=mom,
        **common,
    )


def _adjust(stat, mean0):
    return (stat - mean0) / (1.0 - mean0) if mean0 < 1.0 else math.nan
