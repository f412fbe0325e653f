"""Ties under the permutation null that keeps both tie patterns fixed (issue 24, item 1).

References written here, independent of the library's kernels:
* Kendall's tie-corrected variance of the numerator S (the one behind scipy.stats.kendalltau's
  asymptotic p-value) for constant weights;
* a brute-force enumeration of all n! permutations of y with a vectorized numpy tie-aware
  coefficient (sgn products for Kendall, weighted Pearson for Spearman), for p-values and E[g].
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError, weighted_correlation_test, weighted_kendall, weighted_spearman
from agreekit.ranking import _kernels as K
from agreekit.ranking._tied_null import tied_null
from agreekit.ranking.tables import TIED_MC_SIZE, null_moments, standardize
from agreekit.ranking.weighting import parse_weigher

ONE = lambda i: 1.0  # noqa: E731  (constant weights, a scalar callable)


def _tied_ranks(rng, n, groups):
    """Integer rank vector with ties (min-rank style, e.g. [1, 2, 2, 4]) from scores on a grid."""
    s = rng.integers(0, groups, n)
    return stats.rankdata(-s, method="min").astype(np.int64)


def _ties(v):
    _, t = np.unique(v, return_counts=True)
    return t[t > 1].astype(np.float64)


def kendall_var_s(x, y):
    """Var(S) under the permutation null with ties (Kendall 1970; scipy.stats.kendalltau's formula)."""
    n = float(len(x))
    t, u = _ties(x), _ties(y)
    v0 = n * (n - 1) * (2 * n + 5)
    vt = np.sum(t * (t - 1) * (2 * t + 5))
    vu = np.sum(u * (u - 1) * (2 * u + 5))
    v1 = np.sum(t * (t - 1)) * np.sum(u * (u - 1)) / (2 * n * (n - 1))
    v2 = np.sum(t * (t - 1) * (t - 2)) * np.sum(u * (u - 1) * (u - 2)) / (9 * n * (n - 1) * (n - 2))
    return (v0 - vt - vu) / 18 + v1 + v2


def _untied_pairs(v):
    n = len(v)
    return n * (n - 1) / 2 - np.sum(_ties(v) * (_ties(v) - 1) / 2)


PATTERNS = []
_rng = np.random.default_rng(2024)
for _k in range(30):
    _n = int(_rng.integers(5, 61))
    _gx, _gy = int(_rng.integers(2, max(3, _n // 2) + 1)), int(_rng.integers(2, max(3, _n // 2) + 1))
    PATTERNS.append((_n, _tied_ranks(_rng, _n, _gx), _tied_ranks(_rng, _n, _gy)))


@pytest.mark.parametrize("k", range(len(PATTERNS)))
def test_constant_weights_null_variance_is_kendalls_tie_corrected_formula(k):
    n, x, y = PATTERNS[k]
    if np.all(x == x[0]) or np.all(y == y[0]):
        pytest.skip("a constant ranking")
    ref = kendall_var_s(x, y)
    den2 = _untied_pairs(x) * _untied_pairs(y)  # τ_b = S / sqrt(den2), den2 fixed under the null
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    null = tied_null(rx, ry, parse_weigher(ONE), K.KENDALL, False)
    if null.n_arrangements <= math.factorial(10):
        (_, var, _), _ = null.exact().moments()
        assert var * den2 == pytest.approx(ref, rel=1e-12, abs=1e-12)
        m = null_moments(weigher=ONE, x=x, y=y)
        assert m.source == "exact" and m.var * den2 == pytest.approx(ref, rel=1e-12)
    sample = null.sample(np.random.default_rng([7, k]), 20_000)
    (_, var, _), (_, var_se, _) = sample.moments()
    assert abs(var * den2 - ref) <= 3 * var_se * den2, (var * den2, ref, var_se * den2)


def _brute(x, y, weigher, coefficient, scheme):
    """Γ(x, y∘π) for all n! permutations π (numpy, vectorized), at the average ranks."""
    x = stats.rankdata(x)
    y = stats.rankdata(y)
    n = x.size
    f = parse_weigher(weigher)
    P = np.array(list(itertools.permutations(range(n))))
    Y = y[P]
    fx, fY = f(x), f(Y)
    W = fx * fY if scheme == "multiplicative" else fx + fY
    if coefficient == "kendall":
        i, j = np.triu_indices(n, 1)
        sx = np.sign(x[i] - x[j])
        sy = np.sign(Y[:, i] - Y[:, j])
        ww = W[:, i] * W[:, j]
        num = np.sum(ww * sx * sy, axis=1)
        dx = np.sum(ww * (sx != 0), axis=1)
        dy = np.sum(ww * (sy != 0), axis=1)
        return num / np.sqrt(dx * dy)
    Wt = W.sum(axis=1, keepdims=True)
    mx = (W * x).sum(axis=1, keepdims=True) / Wt
    my = (W * Y).sum(axis=1, keepdims=True) / Wt
    return np.sum(W * (x - mx) * (Y - my), axis=1) / np.sqrt(
        np.sum(W * (x - mx) ** 2, axis=1) * np.sum(W * (Y - my) ** 2, axis=1)
    )


def _pvalues(null, g):
    tol = max(1e-12 * abs(g), 1e-14)
    ge, le = np.mean(null >= g - tol), np.mean(null <= g + tol)
    return {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}


CONFIGS = [
    (c, s, w, seed)
    for c in ("kendall", "spearman")
    for s in ("additive", "multiplicative")
    for w in ("harmonic", "inverse_square:n0=1")
    for seed in (0, 1)
]


@pytest.mark.parametrize("coefficient, scheme, weigher, seed", CONFIGS)
def test_exact_tied_pvalues_equal_a_brute_force_count_and_monte_carlo_agrees(coefficient, scheme, weigher, seed):
    rng = np.random.default_rng([seed, len(weigher), len(scheme), len(coefficient)])
    n = 7 + seed
    x = _tied_ranks(rng, n, 4)
    y = rng.permutation(n) + 1 if seed == 0 else _tied_ranks(rng, n, 5)
    ref = _brute(x, y, weigher, coefficient, scheme)
    fn = weighted_kendall if coefficient == "kendall" else weighted_spearman
    obs = fn(x, y, weigher=weigher, scheme=scheme)
    assert obs == pytest.approx(ref[0], abs=1e-12)  # π = identity comes first
    want = _pvalues(ref, obs)
    kw = dict(coefficient=coefficient, scheme=scheme, weigher=weigher)
    for alt in ("two-sided", "greater", "less"):
        res = weighted_correlation_test(x, y, alternative=alt, method="exact", **kw)
        assert res.tied and res.method == "exact" and res.statistic == pytest.approx(obs, abs=1e-12)
        assert res.pvalue == pytest.approx(want[alt], abs=1e-12), alt
        assert res.null_mean == pytest.approx(ref.mean(), abs=1e-12)
        assert res.null_var == pytest.approx(ref.var(), abs=1e-12)
    assert weighted_correlation_test(x, y, **kw) == weighted_correlation_test(x, y, method="exact", **kw)  # auto
    B = 20_000
    mc = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=B, rng=seed, sequential=False, **kw)
    q = min(want["two-sided"] / 2, 1 - want["two-sided"] / 2)
    se = 2 * math.sqrt(q * (1 - q) / B)
    assert mc.n_resamples_used == B
    assert abs(mc.pvalue - want["two-sided"]) <= 3 * se + 2 / (B + 1)


@pytest.mark.parametrize("n, reps", [(30, 400), (300, 200)])
def test_tied_pvalues_uniform_under_h0(n, reps):
    rng = np.random.default_rng([n, 24])
    x = _tied_ranks(rng, n, n // 3)
    y0 = _tied_ranks(rng, n, n // 2)
    ps = {alt: [] for alt in ("two-sided", "greater", "less")}
    for _ in range(reps):
        y = rng.permutation(y0)  # H0: y's values assigned to the positions at random
        for alt in ps:
            ps[alt].append(
                weighted_correlation_test(
                    x, y, alternative=alt, method="monte-carlo", n_resamples=199, rng=rng, sequential=False
                ).pvalue
            )
    for alt, p in ps.items():
        assert stats.kstest(p, "uniform").pvalue > 0.01, alt


@pytest.mark.parametrize(
    "coefficient, scheme", [("kendall", "additive"), ("spearman", "multiplicative"), ("kendall", "multiplicative")]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_expected_g_is_zero_under_the_tied_null_exactly(coefficient, scheme, seed):
    rng = np.random.default_rng([seed, 8])
    n = 7 + seed
    x, y = _tied_ranks(rng, n, 4), _tied_ranks(rng, n, 3)
    ref = _brute(x, y, "harmonic", coefficient, scheme)
    g = standardize(np.clip(ref, -1, 1), coefficient=coefficient, scheme=scheme, x=x, y=y)
    assert abs(np.mean(g)) < 1e-12
    m = null_moments(coefficient=coefficient, scheme=scheme, x=x, y=y)
    assert m.source == "exact" and m.mean_se == 0.0


@pytest.mark.parametrize("n, K", [(50, 4000), (500, 1500)])
def test_expected_g_is_zero_under_the_tied_null_by_monte_carlo(n, K):
    rng = np.random.default_rng([n, 9])
    x, y = _tied_ranks(rng, n, n // 4), _tied_ranks(rng, n, n // 5)
    m = null_moments(x=x, y=y)
    assert m.source == "monte-carlo" and m.size == TIED_MC_SIZE and m.mean_se > 0
    gam = np.array([weighted_kendall(x, rng.permutation(y)) for _ in range(K)])
    g = standardize(gam, x=x, y=y)
    # the SE of the mean of K draws, and of the moments' own Monte Carlo error (TIED_MC_SIZE draws)
    se = np.std(g) * math.sqrt(1 / K + 1 / TIED_MC_SIZE)
    assert abs(np.mean(g)) <= 3 * se, (np.mean(g), se)
    assert abs(np.mean(gam) - m.mean) <= 3 * math.hypot(np.std(gam) / math.sqrt(K), m.mean_se)


def test_tie_errors_name_their_parameter():
    with pytest.raises(InputError, match="untied") as exc:
        weighted_correlation_test([1, 2, 2, 4, 5], [1, 2, 3, 4, 5], method="table")
    assert exc.value.parameter == "method"
    n = 14
    x = np.arange(1, n + 1)
    y = x.copy()
    y[:2] = 1
    with pytest.raises(InputError, match="distinct arrangements") as exc:
        weighted_correlation_test(x, y, method="exact")  # 14!/2! > 10!
    assert exc.value.parameter == "method"
    assert weighted_correlation_test(x, y, rng=0).method == "monte-carlo"
    with pytest.raises(InputError) as exc:
        null_moments(x=[1, 1, 3], y=[1, 2, 3], table="kendall_additive_harmonic")
    assert exc.value.parameter == "table"
    with pytest.raises(InputError) as exc:
        weighted_correlation_test([1, 1, 3, 4], [1, 2, 3, 4], table="kendall_additive_harmonic")
    assert exc.value.parameter == "table"
    with pytest.raises(InputError) as exc:
        null_moments(x=[1, 1, 3], y=[1, 2, 3], n=4)
    assert exc.value.parameter == "n"


def test_tied_results_are_reproducible_and_untied_input_unchanged():
    rng = np.random.default_rng(3)
    x, y = _tied_ranks(rng, 40, 12), _tied_ranks(rng, 40, 15)
    a = weighted_correlation_test(x, y, rng=5)
    b = weighted_correlation_test(x, y, rng=np.random.default_rng(5))
    assert a == b and a.tied and a.method == "monte-carlo" and 0 < a.n_resamples_used <= 100_000
    # untied data through null_moments(x=, y=) is the ordinary null at n
    u = null_moments(x=np.arange(1, 9), y=np.arange(8, 0, -1))
    assert u == null_moments(n=8)
