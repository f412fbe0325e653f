"""Concordance of many rankers: Kendall's W and Iman–Conover's top-down concordance.

Both are the same statistic on different scores.  Each ranker k gives each item j a score
``a_kj`` (its average rank for W, its Savage score for the top-down concordance); with the
column sums ``T_j = Σ_k a_kj`` and each ranker's sum of squares ``SS_k = Σ_j (a_kj − ā_k)²``,

    concordance = Σ_j (T_j − T̄)² / (m · Σ_k SS_k),

which is 1 when every ranker gives the same scores and whose Friedman statistic
``m(n − 1) · concordance`` is χ²_{n−1} under the null hypothesis that each ranker's scores are
a random permutation (Friedman 1937; Iman & Conover 1987).  ``SS_k`` carries the tie
correction: without ties it is ``(n³ − n)/12`` for ranks and ``n − S_1`` for Savage scores.

The permutation null (each ranker's scores permuted independently) is computed exactly by a
dynamic programme over rankers whose states are the *sorted* partial column sums (the later
rankers' permutations are uniform, so the order of the columns does not matter), in integer
arithmetic, or by Monte Carlo.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from agreekit._api import TestResultBase, check_rng, monte_carlo_pvalue
from agreekit._validation import InputError, check_choice, check_int
from agreekit.consensus._matrices import as_rankings

__all__ = [
    "kendall_w",
    "top_down_concordance",
    "top_down_correlation",
    "savage_scores",
    "KendallWResult",
    "TopDownConcordanceResult",
    "EXACT_BUDGET",
]

#: ``method="exact"`` (and ``"auto"``) handles at most this many (state, permutation) pairs in
#: all in its dynamic programme (about a second); a larger null distribution is refused by
#: ``"exact"`` (use ``"monte-carlo"``) and sends ``"auto"`` to an asymptotic test.
EXACT_BUDGET = 2_000_000
DEFAULT_RESAMPLES = 9999
_ALTERNATIVES = ("greater", "less", "two-sided")


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class KendallWResult(TestResultBase):
    """Result of :func:`kendall_w`; unpacks as ``statistic, pvalue = res``.

    Parameters
    ----------
    statistic : float
        Kendall's W (tie-corrected), in [0, 1].
    pvalue : float
        The p-value of the test in ``method``.
    method : str
        The test that gave ``pvalue``: ``"chi2"``, ``"f"``, ``"exact"`` or ``"monte-carlo"``
        (what ``method="auto"`` chose).
    alternative : str
        ``"greater"`` (more concordance than chance), ``"less"`` or ``"two-sided"``.
    chi2 : float
        Friedman's statistic ``m(n − 1) W`` (``scipy.stats.friedmanchisquare``'s statistic).
    df : int
        Its degrees of freedom ``n − 1``.
    f : float
        The F statistic ``(m − 1) W / (1 − W)`` (``inf`` when W = 1).
    df_f : tuple of float
        Its degrees of freedom ``(n − 1 − 2/m, (m − 1)(n − 1 − 2/m))``.
    n_rankers, n_items : int
        m and n.
    n_resamples : int
        Monte Carlo resamples (0 for the other methods).
    message : str
        What ``method="auto"`` decided.

    Examples
    --------
    >>> from agreekit.consensus import kendall_w
    >>> w, p = kendall_w([[1, 2, 3], [1, 3, 2], [1, 2, 3]], method="chi2")
    >>> round(w, 4), round(p, 4)
    (0.7778, 0.097)
    """

    statistic: float
    pvalue: float
    method: str
    alternative: str
    chi2: float
    df: int
    f: float
    df_f: tuple
    n_rankers: int
    n_items: int
    n_resamples: int = 0
    message: str = ""


@dataclass(frozen=True)
class TopDownConcordanceResult(TestResultBase):
    """Result of :func:`top_down_concordance`; unpacks as ``statistic, pvalue = res``.

    Parameters
    ----------
    statistic : float
        The top-down concordance C_T (Savage scores, tie-corrected), in [0, 1].
    pvalue : float
        The p-value of the test in ``method``.
    method : str
        ``"chi2"``, ``"exact"`` or ``"monte-carlo"`` (what ``method="auto"`` chose).
    alternative : str
        ``"greater"``, ``"less"`` or ``"two-sided"``.
    chi2 : float
        ``m(n − 1) C_T``, χ²_{n−1} under the null hypothesis.
    df : int
        ``n − 1``.
    n_rankers, n_items : int
        m and n.
    n_resamples : int
        Monte Carlo resamples (0 for the other methods).
    message : str
        What ``method="auto"`` decided.

    Examples
    --------
    >>> from agreekit.consensus import top_down_concordance
    >>> res = top_down_concordance([[1, 2, 3, 4], [1, 2, 4, 3], [1, 2, 3, 4]], method="chi2")
    >>> res.df, res.n_rankers, 0 < res.statistic <= 1
    (3, 3, True)
    """

    statistic: float
    pvalue: float
    method: str
    alternative: str
    chi2: float
    df: int
    n_rankers: int
    n_items: int
    n_resamples: int = 0
    message: str = ""


# ----------------------------------------------------------------------------- scores


def _average_ranks(X: np.ndarray) -> np.ndarray:
    """Average ranks 1..n of each row (ties share the mean of their positions)."""
    out = np.empty_like(X, dtype=np.float64)
    for k, row in enumerate(X):
        order = np.argsort(row, kind="stable")
        s = row[order]
        bounds = np.flatnonzero(np.r_[True, s[1:] != s[:-1], True])
        r = np.empty(row.size)
        for a, b in zip(bounds[:-1], bounds[1:]):
            r[a:b] = (a + 1 + b) / 2.0
        out[k, order] = r
    return out


def _tie_groups(row: np.ndarray):
    """(order, bounds): ``row[order]`` sorted, tie groups ``[bounds[g], bounds[g+1])``."""
    order = np.argsort(row, kind="stable")
    s = row[order]
    return order, np.flatnonzero(np.r_[True, s[1:] != s[:-1], True])


def savage_scores(ranking) -> np.ndarray:
    """Savage scores of a ranking: position i (1 = top) scores ``S_i = Σ_{j=i}^{n} 1/j``.

    Tied items share the mean score of the positions they occupy, so the scores always sum
    to n.  Only the order of the values matters (1 = best).

    Parameters
    ----------
    ranking : array_like, shape (n,)
        Rank positions of the n items (1 = best, equal values = ties).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The scores; the top item gets ``S_1 = 1 + 1/2 + … + 1/n``, the last ``1/n``.

    Examples
    --------
    >>> from agreekit.consensus import savage_scores
    >>> savage_scores([1, 2, 3]).round(4).tolist()   # 1 + 1/2 + 1/3, 1/2 + 1/3, 1/3
    [1.8333, 0.8333, 0.3333]
    >>> savage_scores([1, 1, 3]).round(4).tolist()   # the tied pair shares (S_1 + S_2)/2
    [1.3333, 1.3333, 0.3333]
    """
    X = _complete_matrix("ranking", as_rankings(ranking, parameter="ranking").X)
    if X.shape[0] != 1:
        raise InputError("ranking", f"must be one ranking (1-D); got {X.shape[0]} rows")
    return _savage_matrix(X)[0]


def _savage_matrix(X: np.ndarray) -> np.ndarray:
    n = X.shape[1]
    S = np.cumsum(1.0 / np.arange(n, 0, -1))[::-1]  # S_i = Σ_{j=i}^{n} 1/j, i = 1..n
    out = np.empty_like(X, dtype=np.float64)
    for k, row in enumerate(X):
        order, bounds = _tie_groups(row)
        v = np.empty(n)
        for a, b in zip(bounds[:-1], bounds[1:]):
            v[a:b] = S[a:b].mean()
        out[k, order] = v
    return out


def _integer_scores(X: np.ndarray, kind: str):
    """Integer scores proportional to the real ones (exact arithmetic for the exact null), or
    None when their sums could overflow int64."""
    m, n = X.shape
    if kind == "ranks":
        Z = np.rint(2.0 * _average_ranks(X)).astype(np.int64)  # average ranks are halves
    else:
        S = [sum(Fraction(1, j) for j in range(i, n + 1)) for i in range(1, n + 1)]
        rows = []
        for row in X:
            order, bounds = _tie_groups(row)
            v = [Fraction(0)] * n
            for a, b in zip(bounds[:-1], bounds[1:]):
                mean = sum(S[a:b], Fraction(0)) / (b - a)
                for p in range(a, b):
                    v[int(order[p])] = mean
            rows.append(v)
        L = math.lcm(*(f.denominator for r in rows for f in r))
        if L > 2**40:
            return None
        Z = np.array([[int(f * L) for f in r] for r in rows], dtype=np.int64)
    top = int(np.abs(Z).max()) * m
    if top * top * n >= 2**62:
        return None
    return Z


# ----------------------------------------------------------------------------- input


def _complete_matrix(parameter: str, X: np.ndarray) -> np.ndarray:
    missing = np.isnan(X)
    if missing.any():
        k, j = (int(v) for v in np.argwhere(missing)[0])
        where = f"row {k} leaves" if parameter == "rankings" else "leaves"
        raise InputError(
            parameter,
            f"{where} item {j} unranked (NaN): concordance and top-down correlation need "
            "complete rankings; rank every item (e.g. tie the unranked items last) or "
            "drop that row or item",
        )
    return X


def _rankers(rankings) -> tuple[np.ndarray, str]:
    """The complete rankings, rows repeated by integer frequency weights."""
    data = as_rankings(rankings)
    X = _complete_matrix("rankings", data.X)
    w = data.weights
    if not np.all(w == 1.0):
        if not np.all(w == np.floor(w)):
            raise InputError(
                "weights",
                f"of the rankings must be integer frequencies for a concordance (got {w[w != np.floor(w)][0]:g})",
            )
        X = np.repeat(X, w.astype(np.int64), axis=0)
    if X.shape[0] < 2:
        raise InputError("rankings", f"must hold at least 2 rankings (rows) for a concordance; got {X.shape[0]}")
    return X


def _options(method, alternative, n_resamples, allowed):
    method = check_choice("method", method, allowed)
    alternative = check_choice("alternative", alternative, _ALTERNATIVES)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    return method, alternative, n_resamples


# ----------------------------------------------------------------------------- the core


def _concordance(A: np.ndarray) -> tuple[float, float]:
    """(concordance, Σ_k SS_k) of the scores A (m × n)."""
    m = A.shape[0]
    T = A.sum(axis=0)
    ss = float(((A - A.mean(axis=1, keepdims=True)) ** 2).sum())
    if not ss > 0:
        raise InputError("rankings", "ties all items in every ranking: the concordance is undefined")
    return float(((T - T.mean()) ** 2).sum() / (m * ss)), ss


def _tail(p_greater: float, p_less: float, alternative: str) -> float:
    if alternative == "greater":
        return float(min(p_greater, 1.0))
    if alternative == "less":
        return float(min(p_less, 1.0))
    return float(min(1.0, 2.0 * min(p_greater, p_less)))


def _multiset_permutations(row: np.ndarray, limit: int):
    """All distinct orderings of ``row`` (int64, shape (p, n)), or None if more than ``limit``."""
    values, counts = np.unique(row, return_counts=True)
    n = row.size
    total = math.factorial(n)
    for c in counts:
        total //= math.factorial(int(c))
    if total > limit:
        return None
    if counts.max() == 1:
        return np.array(list(itertools.permutations(row.tolist())), dtype=np.int64).reshape(-1, n)
    out = []
    remaining = counts.tolist()
    cur = []

    def rec():
        if len(cur) == n:
            out.append(list(cur))
            return
        for i, v in enumerate(values.tolist()):
            if remaining[i]:
                remaining[i] -= 1
                cur.append(v)
                rec()
                cur.pop()
                remaining[i] += 1

    rec()
    return np.array(out, dtype=np.int64).reshape(-1, n)


def _exact_null(Z: np.ndarray, budget: int):
    """(Q values, probabilities) of ``Q = Σ_j T_j²`` (int64) under independent uniform
    permutations of each row of Z, or None when the programme would handle more than ``budget``
    (state, permutation) pairs in all."""
    m, n = Z.shape
    rows = sorted(range(1, m), key=lambda k: np.unique(Z[k]).size)  # tied rows (fewer orderings) first
    perms, work = [], 0
    for k in rows:  # the first row stays fixed: only relative arrangements matter
        p = _multiset_permutations(Z[k], budget // 20)  # n ≤ 8 untied: larger never fit the budget
        if p is None:
            return None
        perms.append(p)
    top = int(np.abs(Z).max(axis=1).sum()) + 1
    radix = top * 2 + 1  # sums lie in [-top, top]: one int64 key per sorted state when radix**n fits
    packed = n * math.log2(radix) < 62
    weights = radix ** np.arange(n, dtype=np.int64) if packed else None
    states = np.sort(Z[0])[None, :]
    probs = np.ones(1)
    for P in perms:
        work += states.shape[0] * P.shape[0]
        if work > budget:
            return None
        new = (states[:, None, :] + P[None, :, :]).reshape(-1, n)
        new.sort(axis=1)
        if packed:
            _, first, inv = np.unique((new + top) @ weights, return_index=True, return_inverse=True)
            states = new[first]
        else:
            states, inv = np.unique(new, axis=0, return_inverse=True)
        probs = np.bincount(inv.ravel(), weights=np.repeat(probs / P.shape[0], P.shape[0]), minlength=states.shape[0])
    return (states * states).sum(axis=1), probs


def _exact_pvalue(Z: np.ndarray, alternative: str, budget: int):
    null = _exact_null(Z, budget)
    if null is None:
        return None
    Q, probs = null
    T = Z.sum(axis=0)
    q = int((T * T).sum())
    return _tail(float(probs[Q >= q].sum()), float(probs[Q <= q].sum()), alternative)


def _monte_carlo_pvalue(A: np.ndarray, alternative: str, n_resamples: int, gen: np.random.Generator) -> float:
    """scipy's ``(b + 1)/(B + 1)`` p-value of ``Σ_j T_j²`` with each row of A permuted independently."""
    m, n = A.shape
    T = A.sum(axis=0)
    q = float((T * T).sum())
    gamma = abs(q) * np.finfo(np.float64).eps * 100  # scipy.stats.permutation_test's tolerance
    n_ge = n_le = 0
    batch = max(1, min(n_resamples, 2**20 // max(n, 1)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        acc = np.tile(A[0], (b, 1))
        for row in A[1:]:
            acc += gen.permuted(np.tile(row, (b, 1)), axis=1)
        Q = (acc * acc).sum(axis=1)
        n_ge += int(np.count_nonzero(Q >= q - gamma))
        n_le += int(np.count_nonzero(Q <= q + gamma))
        done += b
    return _tail(monte_carlo_pvalue(n_ge, n_resamples), monte_carlo_pvalue(n_le, n_resamples), alternative)


def _chi2_pvalue(x: float, df: int, alternative: str) -> float:
    from scipy import stats

    return _tail(float(stats.chi2.sf(x, df)), float(stats.chi2.cdf(x, df)), alternative)


def _resampling(X, A, kind, method, alternative, n_resamples, rng, asymptotic: str):
    """(pvalue, method, n_resamples, message) of the permutation methods, or None for "auto" when
    the exact null is too large (the caller then uses ``asymptotic``)."""
    if method == "monte-carlo":
        return _monte_carlo_pvalue(A, alternative, n_resamples, check_rng(rng)), "monte-carlo", n_resamples, ""
    Z = _integer_scores(X, kind)
    p = None if Z is None else _exact_pvalue(Z, alternative, EXACT_BUDGET)
    if p is not None:
        msg = "auto: exact (the permutation null fits EXACT_BUDGET)" if method == "auto" else ""
        return p, "exact", 0, msg
    if method == "exact":
        m, n = X.shape
        raise InputError(
            "method",
            f"'exact' is too large for {m} rankings of {n} items (more than "
            f"EXACT_BUDGET={EXACT_BUDGET} states x permutations per ranking); use "
            f"method='monte-carlo' or '{asymptotic}'",
        )
    return None


# ----------------------------------------------------------------------------- public functions


def kendall_w(
    rankings, *, method: str = "auto", alternative: str = "greater", n_resamples: int = DEFAULT_RESAMPLES, rng=None
) -> KendallWResult:
    """Kendall's coefficient of concordance W of m rankers over n items, with its test.

    Rows are rankers, columns items; ranks are 1 = best (only the order of a row's values
    matters; ties get average ranks).  W is 1 when all rankers agree and near 0 when they are
    unrelated; with ties it is tie-corrected (Kendall & Babington Smith 1939; Friedman 1937):

        W = 12 Σ_j (R_j − m(n+1)/2)² / (m²(n³ − n) − m Σ_k Σ (t³ − t))

    with R_j the sum of item j's ranks and t the sizes of ranker k's tie groups.

    Parameters
    ----------
    rankings : array_like, pandas.DataFrame or RankingData, shape (m, n)
        Rankers × items rank positions (the forms :func:`kemeny` accepts).  Every ranking must
        be complete: a NaN (unranked item) raises :class:`~agreekit.InputError`.  Integer row
        weights (a :func:`read_rankings` ``weight`` column) count as repeated rows.
    method : {"auto", "chi2", "f", "exact", "monte-carlo"}
        How the p-value is computed.  ``"chi2"``: Friedman's ``m(n − 1) W ~ χ²_{n−1}`` (the
        statistic and p-value of :func:`scipy.stats.friedmanchisquare`).  ``"f"``:
        ``F = (m − 1) W / (1 − W)`` on ``(n − 1 − 2/m, (m − 1)(n − 1 − 2/m))`` degrees of
        freedom, closer to the nominal level than χ² for few rankers.  ``"exact"``: the
        permutation distribution of W when each ranker's ranks are permuted independently
        (ties kept), enumerated exactly (small m and n; an
        :class:`~agreekit.InputError` beyond ``EXACT_BUDGET``).  ``"monte-carlo"``:
        ``n_resamples`` random permutations, p = (b + 1)/(B + 1).  ``"auto"``: ``"exact"``
        when it fits ``EXACT_BUDGET``, else ``"f"``; ``result.method`` says which.
    alternative : {"greater", "less", "two-sided"}
        ``"greater"`` (default) tests for more concordance than chance.
    n_resamples : int, default 9999
        Resamples of ``method="monte-carlo"``.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of ``"monte-carlo"`` (scipy's SPEC 7).

    Returns
    -------
    KendallWResult
        ``statistic`` (W), ``pvalue``, ``method``, ``chi2``, ``f`` and their degrees of freedom.

    See Also
    --------
    top_down_concordance : the concordance with the top of the rankings weighted more.

    Notes
    -----
    W is the average Spearman ρ of all pairs of rankers rescaled, ``ρ̄ = (mW − 1)/(m − 1)``
    (without ties).  The exact null enumerates the distinct column-sum vectors ranker by
    ranker, sorted (the order of the columns does not change W), in integer arithmetic.
    Legendre (2005) found the F test and the permutation test at their nominal level where
    χ² is too conservative for few rankers.

    References
    ----------
    .. [1] Kendall, M. G., Babington Smith, B. (1939). The problem of m rankings. Annals of
       Mathematical Statistics 10(3), 275–287. :doi:`10.1214/aoms/1177732186`
    .. [2] Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit
       in the analysis of variance. JASA 32(200), 675–701. :doi:`10.1080/01621459.1937.10503522`
    .. [3] Legendre, P. (2005). Species associations: the Kendall coefficient of concordance
       revisited. JABES 10(2), 226–245. :doi:`10.1198/108571105X46642`

    Examples
    --------
    >>> from agreekit.consensus import kendall_w
    >>> X = [[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]]  # three rankers, four items
    >>> res = kendall_w(X, method="chi2")
    >>> w, p = res
    >>> round(w, 6), round(res.chi2, 6), round(p, 6)
    (0.777778, 7.0, 0.071898)
    >>> exact = kendall_w(X)          # small: the exact permutation p-value
    >>> exact.method, round(exact.pvalue, 6)
    ('exact', 0.053819)
    """
    method, alternative, n_resamples = _options(
        method, alternative, n_resamples, ("auto", "chi2", "f", "exact", "monte-carlo")
    )
    check_rng(rng)  # also where the method chosen draws nothing
    X = _rankers(rankings)
    m, n = X.shape
    A = _average_ranks(X)
    W, _ = _concordance(A)
    W = min(max(W, 0.0), 1.0)
    chi2 = m * (n - 1) * W
    d1 = n - 1 - 2.0 / m
    d2 = (m - 1) * d1
    F = math.inf if W >= 1.0 else (m - 1) * W / (1.0 - W)
    common = dict(statistic=W, alternative=alternative, chi2=chi2, df=n - 1, f=F, df_f=(d1, d2), n_rankers=m, n_items=n)
    message = ""
    if method in ("auto", "exact", "monte-carlo"):
        got = _resampling(X, A, "ranks", method, alternative, n_resamples, rng, "f")
        if got is not None:
            p, used, B, message = got
            return KendallWResult(pvalue=p, method=used, n_resamples=B, message=message, **common)
        method = "f"
        message = (
            f"auto: f (the exact permutation null of {m} rankings of {n} items exceeds "
            f"EXACT_BUDGET={EXACT_BUDGET}; method='monte-carlo' for a permutation p-value)"
        )
    if method == "chi2":
        p = _chi2_pvalue(chi2, n - 1, alternative)
    else:
        if not d1 > 0:
            raise InputError("method", f"'f' needs n − 1 − 2/m > 0 (got n={n}, m={m}); use method='exact'")
        from scipy import stats

        if math.isinf(F):
            p = _tail(0.0, 1.0, alternative)
        else:
            p = _tail(float(stats.f.sf(F, d1, d2)), float(stats.f.cdf(F, d1, d2)), alternative)
    return KendallWResult(pvalue=p, method=method, message=message, **common)


def top_down_concordance(
    rankings, *, method: str = "auto", alternative: str = "greater", n_resamples: int = DEFAULT_RESAMPLES, rng=None
) -> TopDownConcordanceResult:
    """Iman–Conover top-down concordance C_T of m rankers: agreement weighted at the top.

    Kendall's W on Savage scores ``S_i = Σ_{j=i}^{n} 1/j`` instead of ranks (1 = best): the
    top positions differ most in score, so agreement about the top items counts more and
    disagreement about the bottom ones little — the top-weighted counterpart of W, as
    weighted τ is of τ.  Without ties (Iman & Conover 1987)

        C_T = (Σ_j (Σ_k S_kj)² − m²n) / (m²(n − S_1)),

    1 when all rankings are identical; for two rankings ``C_T = (1 + r_T)/2`` with r_T the
    top-down correlation (:func:`top_down_correlation`).

    Parameters
    ----------
    rankings : array_like, pandas.DataFrame or RankingData, shape (m, n)
        Rankers × items rank positions, complete (as :func:`kendall_w`).
    method : {"auto", "chi2", "exact", "monte-carlo"}
        ``"chi2"``: ``m(n − 1) C_T ~ χ²_{n−1}`` (Iman & Conover 1987).  ``"exact"``: the
        permutation distribution (each ranker's scores permuted independently), enumerated
        exactly for small m and n.  ``"monte-carlo"``: ``n_resamples`` random permutations,
        p = (b + 1)/(B + 1).  ``"auto"``: ``"exact"`` when it fits ``EXACT_BUDGET``, else
        ``"chi2"``; ``result.method`` says which.
    alternative : {"greater", "less", "two-sided"}
        ``"greater"`` (default) tests for more concordance than chance.
    n_resamples : int, default 9999
        Resamples of ``method="monte-carlo"``.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of ``"monte-carlo"`` (scipy's SPEC 7).

    Returns
    -------
    TopDownConcordanceResult
        ``statistic`` (C_T), ``pvalue``, ``method``, ``chi2`` and ``df``.

    Notes
    -----
    Ties: tied items share the mean Savage score of their positions, and the denominator is
    ``m Σ_k Σ_j (S_kj − 1)²`` (each ranker's own sum of squares, as in the tie-corrected W);
    without ties this is ``m²(n − S_1)`` and the formula above.  ``m(n − 1) C_T`` is then the
    Friedman-type statistic of the scores, χ²_{n−1} under the null hypothesis.

    References
    ----------
    .. [1] Iman, R. L., Conover, W. J. (1987). A measure of top-down correlation.
       Technometrics 29(3), 351–357. :doi:`10.2307/1269344`
    .. [2] Savage, I. R. (1956). Contributions to the theory of rank order statistics — the
       two-sample case. Annals of Mathematical Statistics 27(3), 590–615.

    Examples
    --------
    >>> from agreekit.consensus import top_down_concordance
    >>> X = [[1, 2, 3, 4, 5], [1, 2, 3, 5, 4], [2, 1, 3, 4, 5]]
    >>> res = top_down_concordance(X, method="chi2")
    >>> round(res.statistic, 6), res.df, round(res.pvalue, 6)
    (0.826176, 4, 0.0419)
    """
    method, alternative, n_resamples = _options(
        method, alternative, n_resamples, ("auto", "chi2", "exact", "monte-carlo")
    )
    check_rng(rng)  # also where the method chosen draws nothing
    X = _rankers(rankings)
    m, n = X.shape
    A = _savage_matrix(X)
    C, _ = _concordance(A)
    C = min(max(C, 0.0), 1.0)
    chi2 = m * (n - 1) * C
    common = dict(statistic=C, alternative=alternative, chi2=chi2, df=n - 1, n_rankers=m, n_items=n)
    message = ""
    if method in ("auto", "exact", "monte-carlo"):
        got = _resampling(X, A, "savage", method, alternative, n_resamples, rng, "chi2")
        if got is not None:
            p, used, B, message = got
            return TopDownConcordanceResult(pvalue=p, method=used, n_resamples=B, message=message, **common)
        method = "chi2"
        message = (
            f"auto: chi2 (the exact permutation null of {m} rankings of {n} items exceeds "
            f"EXACT_BUDGET={EXACT_BUDGET}; method='monte-carlo' for a permutation p-value)"
        )
    return TopDownConcordanceResult(
        pvalue=_chi2_pvalue(chi2, n - 1, alternative), method="chi2", message=message, **common
    )


def top_down_correlation(x, y) -> float:
    """Iman–Conover top-down correlation r_T of two rankings (Savage scores, 1 = best).

    Pearson's correlation of the two rankings' Savage scores ``S_i = Σ_{j=i}^{n} 1/j``; without
    ties ``r_T = (Σ_j S_{x_j} S_{y_j} − n) / (n − S_1)`` (Iman & Conover 1987).  Disagreement at
    the top lowers it more than disagreement at the bottom.  It is the two-ranking form of
    :func:`top_down_concordance`: without ties ``C_T = (1 + r_T)/2``.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Two complete rankings of the same n items (1 = best, equal values = ties, which share
        the mean Savage score of their positions).

    Returns
    -------
    float
        r_T in [−1, 1].

    References
    ----------
    .. [1] Iman, R. L., Conover, W. J. (1987). A measure of top-down correlation.
       Technometrics 29(3), 351–357. :doi:`10.2307/1269344`

    Examples
    --------
    >>> from agreekit.consensus import top_down_correlation
    >>> round(top_down_correlation([1, 2, 3, 4], [2, 1, 3, 4]), 6)   # swap at the top
    0.478261
    >>> round(top_down_correlation([1, 2, 3, 4], [1, 2, 4, 3]), 6)   # swap at the bottom
    0.942029
    """
    a = _complete_matrix("x", as_rankings(np.atleast_2d(x), parameter="x").X)
    b = _complete_matrix("y", as_rankings(np.atleast_2d(y), parameter="y").X)
    if a.shape[0] != 1 or b.shape[0] != 1:
        raise InputError("x" if a.shape[0] != 1 else "y", "must be one ranking (1-D)")
    if a.shape[1] != b.shape[1]:
        raise InputError("y", f"must rank the same number of items as `x` ({a.shape[1]}); got {b.shape[1]}")
    sa = _savage_matrix(a)[0] - 1.0
    sb = _savage_matrix(b)[0] - 1.0
    den = math.sqrt(float(sa @ sa) * float(sb @ sb))
    if not den > 0:
        raise InputError("x" if not float(sa @ sa) > 0 else "y", "ties every item: r_T is undefined")
    return float(min(max(float(sa @ sb) / den, -1.0), 1.0))
