"""The independent null sampler of tests/_independent_null.py against scipy and numpy."""

import numpy as np
import pytest
from scipy import stats

from _independent_null import coefficient_rows, null_sample, permutation_blocks, weigher_values

WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"]


@pytest.mark.parametrize("weigher", WEIGHERS)
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_kendall_equals_scipy_weightedtau(scheme, weigher):
    rng = np.random.default_rng(31)
    for n in (2, 3, 17, 1000):
        P = rng.permuted(np.tile(np.arange(1, n + 1), (3, 1)), axis=1)
        fr = weigher_values(weigher, n)
        for b, got in zip(P, coefficient_rows(P, "kendall", scheme, weigher)):
            w = fr + fr[b - 1] if scheme == "additive" else fr * fr[b - 1]
            ref = stats.weightedtau(
                np.arange(1, n + 1), b, rank=np.arange(n), weigher=lambda i: w[i], additive=False
            ).statistic
            assert got == pytest.approx(ref, abs=1e-12), (n, b)


@pytest.mark.parametrize("weigher", WEIGHERS)
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_spearman_equals_numpy_weighted_correlation(scheme, weigher):
    rng = np.random.default_rng(32)
    for n in (3, 17, 1000):
        P = rng.permuted(np.tile(np.arange(1, n + 1), (3, 1)), axis=1)
        fr = weigher_values(weigher, n)
        for b, got in zip(P, coefficient_rows(P, "spearman", scheme, weigher)):
            w = fr + fr[b - 1] if scheme == "additive" else fr * fr[b - 1]
            c = np.cov(np.arange(1, n + 1), b, aweights=w)
            assert got == pytest.approx(c[0, 1] / np.sqrt(c[0, 0] * c[1, 1]), abs=1e-12), (n, b)


def test_unweighted_limits_and_uniform_permutations():
    rng = np.random.default_rng(33)
    P = next(permutation_blocks(40, 50, rng))
    assert all(sorted(p) == list(range(1, 41)) for p in P)
    # a constant weigher gives Kendall's tau and Spearman's rho
    b = P[0]
    fr = np.ones(40)
    from _independent_null import _kendall_rows, _spearman_rows

    assert _kendall_rows(P[:1], fr, False)[0] == pytest.approx(stats.kendalltau(np.arange(40), b).statistic, abs=1e-12)
    assert _spearman_rows(P[:1], fr, True)[0] == pytest.approx(stats.spearmanr(np.arange(40), b).statistic, abs=1e-12)
    # uniform: at n = 4 each of the 24 permutations appears with frequency 1/24 (chi-square)
    P = np.concatenate(list(permutation_blocks(4, 48_000, rng)))
    _, counts = np.unique(P @ np.array([1000, 100, 10, 1]), return_counts=True)
    assert counts.size == 24 and stats.chisquare(counts).pvalue > 1e-4
    # the null sample: at n = 5 its mean matches the exact mean over all 120 permutations
    from itertools import permutations

    allp = np.array(list(permutations(range(1, 6))))
    for coef in ("kendall", "spearman"):
        exact = coefficient_rows(allp, coef, "additive", "harmonic").mean()
        g = null_sample(coef, "additive", "harmonic", 5, 200_000, rng)
        assert abs(g.mean() - exact) <= 4 * g.std() / np.sqrt(g.size)
