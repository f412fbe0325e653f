"""weighted_correlation_test (issue 10 §1): exact, Monte Carlo and the p-value conventions.

References are independent of the package's kernels: a numpy brute force over all n!
permutations (Eqs. 7-8 of seed 000 written out), scipy.stats.kendalltau(method="exact"),
and the uniform distribution of p-values under H0.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError, WeightedCorrelationResult, weighted_correlation_test
from agreekit.ranking._exact_null import exact_counts as _exact_counts
from agreekit.ranking.significance import exact_null_distribution
from agreekit.ranking.weighting import parse_weigher
from ranking_configs import PAPER_CONFIGS

ONES = staticmethod(lambda i: np.ones_like(i))


def _all_gammas(coefficient, scheme, weigher, n):
    """Γ(id, π) for all n! permutations π, vectorized numpy (Eq. 7 / Eq. 8 of the seed)."""
    perms = np.array(list(itertools.permutations(range(1, n + 1))), dtype=float)
    x = np.arange(1, n + 1, dtype=float)[None, :]
    f = parse_weigher(weigher)
    fx, fy = f(x), f(perms)
    w = fx + fy if scheme == "additive" else fx * fy
    if coefficient == "spearman":
        W = w.sum(1, keepdims=True)
        dx = x - (w * x).sum(1, keepdims=True) / W
        dy = perms - (w * perms).sum(1, keepdims=True) / W
        return (w * dx * dy).sum(1) / np.sqrt((w * dx * dx).sum(1) * (w * dy * dy).sum(1))
    i, j = np.triu_indices(n, 1)
    ww = w[:, i] * w[:, j]
    s = np.sign(perms[:, j] - perms[:, i])  # x_j > x_i always
    return (ww * s).sum(1) / ww.sum(1)


def _gamma(coefficient, scheme, weigher, x, y):
    """Γ(x, y) by the same numpy formulas (items reordered so that x is the identity)."""
    order = np.argsort(x)
    y_sorted = np.asarray(y, dtype=float)[order]
    n = len(x)
    fx = parse_weigher(weigher)(np.arange(1, n + 1))
    fy = parse_weigher(weigher)(y_sorted)
    w = fx + fy if scheme == "additive" else fx * fy
    xs = np.arange(1, n + 1, dtype=float)
    if coefficient == "spearman":
        W = w.sum()
        dx, dy = xs - w @ xs / W, y_sorted - w @ y_sorted / W
        return (w * dx) @ dy / np.sqrt(((w * dx) @ dx) * ((w * dy) @ dy))
    i, j = np.triu_indices(n, 1)
    ww = w[i] * w[j]
    return (ww * np.sign(y_sorted[j] - y_sorted[i])).sum() / ww.sum()


def _brute_p(null, g, alternative, tol=1e-9):
    ge = np.mean(null >= g - tol)
    le = np.mean(null <= g + tol)
    return {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}[alternative]


@pytest.mark.parametrize("coefficient, scheme, weigher", PAPER_CONFIGS)
def test_exact_pvalues_equal_brute_force(coefficient, scheme, weigher):
    rng = np.random.default_rng([len(coefficient), len(scheme), len(weigher)])
    for n in range(4, 9):
        null = _all_gammas(coefficient, scheme, weigher, n)
        for _ in range(4):
            x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
            g = _gamma(coefficient, scheme, weigher, x, y)
            for alt in ("two-sided", "greater", "less"):
                res = weighted_correlation_test(
                    x, y, coefficient=coefficient, scheme=scheme, weigher=weigher, alternative=alt, method="exact"
                )
                assert res.statistic == pytest.approx(g, abs=1e-12)
                assert res.pvalue == pytest.approx(_brute_p(null, g, alt), abs=1e-12)
                assert res.pvalue_se == 0.0 and res.method == "exact" and res.n == n
        # the moments reported are those of the null (Eqs. 19, 24, 25)
        dev = null - null.mean()
        assert res.null_mean == pytest.approx(null.mean(), abs=1e-13)
        assert res.null_var == pytest.approx(np.mean(dev**2), abs=1e-13)
        assert res.null_left_var == pytest.approx(np.sum(dev[dev < 0] ** 2) / null.size, abs=1e-13)


def test_exact_auto_at_n10_matches_brute_force_at_extremes():
    # the identity and its reversal are the unique maximum / minimum of Γ
    n = 10
    x = np.arange(1, n + 1)
    for coefficient in ("spearman", "kendall"):
        top = weighted_correlation_test(x, x, coefficient=coefficient, alternative="greater")
        bottom = weighted_correlation_test(x, x[::-1], coefficient=coefficient, alternative="less")
        assert top.method == bottom.method == "exact"
        assert top.pvalue == pytest.approx(1 / math.factorial(n), rel=1e-12)
        assert bottom.pvalue == pytest.approx(1 / math.factorial(n), rel=1e-12)


@pytest.mark.parametrize("n", range(4, 11))
def test_constant_weigher_matches_scipy_kendalltau_exact(n):
    rng = np.random.default_rng(100 + n)
    ones = lambda i: np.ones_like(i)  # noqa: E731
    for _ in range(5):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        for alt in ("two-sided", "greater", "less"):
            ref = stats.kendalltau(x, y, method="exact", alternative=alt)
            res = weighted_correlation_test(x, y, coefficient="kendall", weigher=ones, alternative=alt, method="exact")
            assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)
            assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("coefficient, scheme, weigher", PAPER_CONFIGS[::3])
@pytest.mark.parametrize("n", [9, 10])
def test_monte_carlo_within_4se_of_exact(coefficient, scheme, weigher, n):
    rng = np.random.default_rng([n, len(weigher)])
    B = 20_000
    for _ in range(3):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        for alt in ("two-sided", "greater"):
            kw = dict(coefficient=coefficient, scheme=scheme, weigher=weigher, alternative=alt)
            ex = weighted_correlation_test(x, y, method="exact", **kw)
            mc = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=B, rng=rng, **kw)
            assert mc.method == "monte-carlo" and mc.statistic == ex.statistic
            p = min(ex.pvalue, 1 - ex.pvalue) if alt == "greater" else min(ex.pvalue / 2, 1 - ex.pvalue / 2)
            se = (1 if alt == "greater" else 2) * math.sqrt(p * (1 - p) / B)
            assert abs(mc.pvalue - ex.pvalue) <= 4 * se + 2 / (B + 1)
            assert mc.pvalue_se == pytest.approx(se, rel=0.5, abs=2e-4)


def test_monte_carlo_reproducible_and_independent_of_batching():
    x, y = np.arange(1, 41), np.random.default_rng(1).permutation(40) + 1
    a = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=5000, rng=7)
    b = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=5000, rng=np.random.default_rng(7))
    assert a == b
    from agreekit.ranking._montecarlo import monte_carlo_null as _monte_carlo_null
    from agreekit.ranking import _kernels as K

    F = parse_weigher("harmonic").table(40)
    n1 = _monte_carlo_null(40, F, K.KENDALL, False, 3000, np.random.default_rng(3), False)
    n2 = _monte_carlo_null(40, F, K.KENDALL, False, 3000, np.random.default_rng(3), False, batch_elements=999)
    np.testing.assert_array_equal(n1, n2)


def test_monte_carlo_callable_weigher_and_pvalue_floor():
    x = np.arange(1, 31)
    res = weighted_correlation_test(
        x, x, weigher=lambda i: 1.0 / np.sqrt(i), method="auto", n_resamples=999, rng=0, alternative="greater"
    )
    # no table for a callable: Monte Carlo, and the (b+1)/(B+1) floor
    assert res.method == "monte-carlo" and res.pvalue == pytest.approx(1 / 1000)
    assert res.statistic == pytest.approx(1.0)


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("n, B, pairs", [(50, 199, 1000), (500, 99, 300)])
def test_monte_carlo_pvalues_uniform_under_h0(coefficient, n, B, pairs):
    # (the 2000-pair check at n = 50 and 500 runs on the table path: test_ranking_significance_table.py)
    rng = np.random.default_rng([n, B, len(coefficient)])
    ps = {alt: [] for alt in ("two-sided", "greater", "less")}
    for _ in range(pairs):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        for alt in ps:
            ps[alt].append(
                weighted_correlation_test(
                    x, y, coefficient=coefficient, method="monte-carlo", alternative=alt, n_resamples=B, rng=rng
                ).pvalue
            )
    for alt, p in ps.items():
        # discrete uniform on {1/(B+1), ..., 1}: compare with the continuous uniform (KS)
        assert stats.kstest(p, "uniform").pvalue > 0.01, alt


def test_exact_counting_path_matches_stored_null():
    # the n = 11, 12 path (counting without storing) on small n against the stored null
    from agreekit.ranking import _kernels as K

    for n in (5, 7, 8):
        for coef, name in ((K.SPEARMAN, "spearman"), (K.KENDALL, "kendall")):
            F = parse_weigher("inverse_square:n0=1").table(n)
            null = exact_null_distribution(name, n=n, weigher="inverse_square:n0=1", scheme="multiplicative")
            for g in (null[3], null[len(null) // 2], 0.1):
                ge, le = _exact_counts(n, F, coef, True, g - 1e-12, g + 1e-12, False)
                assert ge == np.sum(null >= g - 1e-12) and le == np.sum(null <= g + 1e-12)


def test_result_fields_and_conventions():
    x = [1, 2, 3, 4, 5, 6, 7]
    y = [3, 1, 2, 5, 4, 7, 6]
    res = weighted_correlation_test(x, y, coefficient="spearman", weigher="inverse_square:n0=1")
    assert isinstance(res, WeightedCorrelationResult)
    two = res.pvalue
    g = weighted_correlation_test(x, y, coefficient="spearman", weigher="inverse_square:n0=1", alternative="greater")
    le = weighted_correlation_test(x, y, coefficient="spearman", weigher="inverse_square:n0=1", alternative="less")
    assert two == pytest.approx(min(1.0, 2 * min(g.pvalue, le.pvalue)))
    # ties in the null are counted on both sides: P(>=) + P(<=) >= 1
    assert g.pvalue + le.pvalue >= 1.0
    from agreekit import standardize

    assert res.standardized == pytest.approx(
        standardize(res.statistic, coefficient="spearman", scheme="additive", weigher="inverse_square:n0=1", n=7),
        abs=1e-9,
    )
    with pytest.raises(Exception):
        res.pvalue = 0.5  # frozen


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(alternative="two_sided"), "alternative"),
        (dict(method="permutation"), "method"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(rng="seed"), "rng"),
        (dict(coefficient="pearson"), "coefficient"),
        (dict(scheme="max"), "scheme"),
    ],
)
def test_bad_options(kwargs, param):
    with pytest.raises(InputError) as exc:
        weighted_correlation_test([1, 2, 3], [3, 1, 2], **kwargs)
    assert exc.value.parameter == param


def test_bad_rankings_and_ties():
    # ties are tested under the tie-preserving null (tests/test_ranking_tied_null.py); the table's
    # quantiles are for untied rankings only, and an all-tied vector has no correlation
    assert weighted_correlation_test([1, 2, 2, 4], [1, 2, 3, 4]).tied
    with pytest.raises(InputError, match="untied") as exc:
        weighted_correlation_test([1, 2, 3, 4], [1, 1, 3, 4], method="table")
    assert exc.value.parameter == "method"
    with pytest.raises(InputError, match="all ranks tied") as exc:
        weighted_correlation_test([1, 2, 3, 4], [1, 1, 1, 1])
    assert exc.value.parameter == "y"
    for bad in ([0, 1, 2], [1, 2, 2.5], [1, 2, np.nan], [-1, 2, 3]):
        with pytest.raises(InputError) as exc:
            weighted_correlation_test([1, 2, 3], bad)
        assert exc.value.parameter == "y"
    with pytest.raises(InputError, match="n <= 12") as exc:
        weighted_correlation_test(np.arange(1, 14), np.arange(1, 14), method="exact")
    assert exc.value.parameter == "method"


def test_fused_check_gives_the_statistic_bit_for_bit():
    # the table method's fast path (permutation check + weights + first Spearman pass in one
    # loop) must return exactly weighted_spearman / weighted_kendall's value
    from agreekit.ranking import _kernels as K
    from agreekit.ranking.significance import _checked_coefficient

    rng = np.random.default_rng(1)
    for n in (2, 3, 10, 101, 5000):
        F = 1.0 / np.arange(1, n + 1)
        for mult in (False, True):
            for coef in (K.SPEARMAN, K.KENDALL):
                x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
                ok, g = _checked_coefficient(x, y, F, coef, mult)
                assert ok and g == K.coefficient_pair(x, y, F, coef, mult)
    x = np.array([1, 2, 2, 4])
    assert not _checked_coefficient(x, np.array([1, 2, 3, 4]), 1.0 / np.arange(1, 5), K.SPEARMAN, False)[0]
