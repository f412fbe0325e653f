"""The Monte Carlo ``pvalue_se`` where the p-value is near 1: it must still cover the exact p.

Besag & Clifford's sequential p-value h/L stops at L = h when the first h resamples are all at
least as extreme (probability p^h: 36 % at p = 0.95, h = 20); a fixed-size tail (b + 1)/(B + 1)
reaches 1 when b = B; a two-sided p is cut at 1.  At each of these points a plug-in SE
p sqrt((1 - p)/…) is 0 although the exact p is below 1.  The check: over independent seeds, the
reported p lies within 3 reported SEs of the exact p in at least 95 % of the runs (a normal SE covers
99.7 %).  With the SE set to 0 at those points (agreekit before 2026-12-05) the five cases below
covered 60 %, 59 %, 89 %, 77 % and 61 % of the runs; now 100 %, 100 %, 99.7 %, 100 % and 100 %.

References (no agreekit code): the exact tails of the permutation test by enumerating all 8! = 40320
permutations with the coefficient of tests/_independent_null.py (checked against
scipy.stats.weightedtau); for τ_AP_b, all 9! orders with τ_AP written here (checked against its
pairwise definition); a three-point law sampled with numpy.
"""

import itertools

import numpy as np
import pytest

from _independent_null import coefficient_rows

from agreekit.ranking import weighted_correlation_test
from agreekit.ranking._montecarlo import mc_test

N = 8
ALL = np.array(list(itertools.permutations(range(1, N + 1))), dtype=np.int64)
X = np.arange(1, N + 1)
NULL = coefficient_rows(ALL, "kendall", "additive", "harmonic")


def _tails(g):
    return float(np.mean(NULL >= g - 1e-12)), float(np.mean(NULL <= g + 1e-12))


def _y_with(pred):
    """The first permutation (in a fixed random order) whose exact tails satisfy ``pred``, and its tails."""
    for r in np.random.default_rng(8).permutation(ALL.shape[0]):
        tails = _tails(NULL[r])
        if pred(*tails):
            return ALL[r], tails
    raise AssertionError("no permutation has such tails")


def _coverage(y, exact_p, alternative, runs, **kw):
    seeds = np.random.SeedSequence(20261205).spawn(runs)
    hits, at_one = 0, 0
    for s in seeds:
        r = weighted_correlation_test(
            X, y, weigher="harmonic", alternative=alternative, rng=np.random.default_rng(s), **kw
        )
        assert r.method == "monte-carlo"
        hits += abs(r.pvalue - exact_p) <= 3 * r.pvalue_se
        at_one += r.pvalue == 1.0
    return hits / runs, at_one / runs


def test_sequential_pvalue_se_covers_an_upper_tail_near_one():
    y, (p_ge, _) = _y_with(lambda ge, le: 0.94 <= ge <= 0.96)
    cov, at_one = _coverage(y, p_ge, "greater", 400, method="monte-carlo", sequential=True, n_resamples=10_000)
    assert at_one > 0.2  # the runs that stop at L = h are many: the check reaches them
    assert cov >= 0.95, (cov, p_ge)


def test_fixed_pvalue_se_covers_a_tail_where_every_resample_is_as_extreme():
    y, (p_ge, _) = _y_with(lambda ge, le: 0.998 <= ge < 0.9995)
    B = 1000
    cov, at_one = _coverage(y, p_ge, "greater", 300, method="monte-carlo", sequential=False, n_resamples=B)
    assert at_one > 0.2  # b = B happens with probability p^B
    assert cov >= 0.95, (cov, p_ge)


def test_sequential_two_sided_pvalue_se_covers_a_p_cut_at_one():
    y, (p_ge, p_le) = _y_with(lambda ge, le: 0.485 <= min(ge, le) <= 0.492)
    exact = min(1.0, 2 * min(p_ge, p_le))
    cov, at_one = _coverage(y, exact, "two-sided", 300, method="monte-carlo", sequential=True, n_resamples=1000)
    assert at_one > 0.1  # both tails' estimates reach 1/2 in these runs
    assert cov >= 0.95, (cov, exact)


def test_fixed_two_sided_pvalue_se_covers_a_p_cut_at_one():
    """A fixed-size two-sided p is cut at 1 only when both tails reach 1/2, which needs an atom of the
    null at γ (a permutation null of distinct weights has none at n = 8): a three-point law,
    P(Γ < 0) = 0.485, P(Γ = 0) = 0.01, P(Γ > 0) = 0.505, so at γ = 0 the exact two-sided p is
    2 · 0.495 = 0.99; samples of it drawn with numpy."""
    B, runs = 1000, 300
    hits = at_one = 0
    for s in np.random.SeedSequence(5).spawn(runs):
        null = np.random.default_rng(s).choice([-1.0, 0.0, 1.0], size=B, p=[0.485, 0.01, 0.505])
        p, se = mc_test(0.0, null, "two-sided")
        hits += abs(p - 0.99) <= 3 * se
        at_one += p == 1.0
    assert at_one / runs > 0.2
    assert hits / runs >= 0.95, hits / runs


def _tau_ap_rows(P):
    """τ_AP of the order ``P[r]`` against the identity, row by row (rank vectors, 1 = top, untied): the items
    taken in P's order, C(i) the items above position i there and above in the identity too."""
    m, n = P.shape
    seq = np.argsort(P, axis=1)  # the items (= their identity ranks − 1) in P's order
    total = np.zeros(m)
    for i in range(1, n):
        total += np.sum(seq[:, :i] < seq[:, i : i + 1], axis=1) / i
    return 2 * total / (n - 1) - 1


def test_ap_correlation_test_sequential_pvalue_se_covers_a_tail_near_one():
    """ap_correlation_test's sequential Monte Carlo (the default for τ_AP_b beyond n = 8) at n = 9, against
    the exact law over all 9! orders: τ_AP_b(x, y) = (τ_AP(y | x) + τ_AP(x | y))/2 with x the identity, the
    second term being τ_AP of the identity against y, i.e. of y's inverse order against the identity."""
    from agreekit.ranking import ap_correlation_test

    n = 9
    P = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
    inv = np.argsort(P, axis=1) + 1
    null = (_tau_ap_rows(P) + _tau_ap_rows(inv)) / 2
    rng = np.random.default_rng(9)
    for r in rng.integers(0, P.shape[0], 5):  # the vectorized definition against the pairwise one
        y = P[r]
        pair = sum(
            (1.0 / (max(y[i], y[j]) - 1)) for i in range(n) for j in range(n) if i < j and (i - j) * (y[i] - y[j]) > 0
        )
        assert _tau_ap_rows(P[r : r + 1])[0] == pytest.approx(2 * pair / (n - 1) - 1, abs=1e-12)
    order = rng.permutation(P.shape[0])
    ge = {r: float(np.mean(null >= null[r] - 1e-12)) for r in order[:2000]}
    r = next(r for r in order[:2000] if 0.94 <= ge[r] <= 0.96)
    hits = at_one = 0
    runs = 300
    for s in np.random.SeedSequence(9).spawn(runs):
        res = ap_correlation_test(
            np.arange(1, n + 1), P[r], symmetric=True, alternative="greater", rng=np.random.default_rng(s)
        )
        assert res.method == "monte-carlo" and res.statistic == pytest.approx(null[r], abs=1e-12)
        hits += abs(res.pvalue - ge[r]) <= 3 * res.pvalue_se
        at_one += res.pvalue == 1.0
    assert at_one / runs > 0.2
    assert hits / runs >= 0.95, (hits / runs, ge[r])
