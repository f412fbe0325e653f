"""Monte Carlo sampling, polynomial fits and degree selection of the table pipeline."""

import itertools
import math

import numba
import numpy as np
import pytest
from scipy import stats

from agreekit._validation import InputError
from agreekit.ranking.tablegen.fitting import choose_degree, fit_polynomial, select_degree, x_of_n
from agreekit.ranking.moments import exact_moments
from agreekit.ranking.tablegen.sampling import (
    random_permutations,
    sample_coefficient,
    sample_size,
    seed_sequence,
    summarize_sample,
    training_grid,
)


def test_training_grid_is_the_papers():
    # Section 4.2.1: q = 1.3, a = 9..40 (Spearman) gives 11 .. 36119; a = 9..30 (Kendall) 11 .. 2620
    sp = training_grid(1.3, 9, 40)
    kd = training_grid(1.3, 9, 30)
    assert (len(sp), sp[0], sp[-1]) == (32, 11, 36119)
    assert (len(kd), kd[0], kd[-1]) == (22, 11, 2620)
    # the even positions used for degree selection in the authors' code: 11, 18, 30, 51, 87, ...
    assert sp[0:10:2] == [11, 18, 30, 51, 87]
    assert sp == [round(1.3**a) for a in range(9, 41)]


def test_sample_size_rules():
    rules = [{"n_upto": 100, "size": 10_000}, {"n_upto": 1500, "size": 1000}, {"size": 200}]
    assert [sample_size(n, rules) for n in (11, 100, 101, 1500, 1501, 36119)] == [10_000, 10_000, 1000, 1000, 200, 200]
    with pytest.raises(InputError, match="sample_size"):
        sample_size(5000, [{"n_upto": 100, "size": 3}])


def test_random_permutations_are_uniform_permutations():
    rng = np.random.Generator(np.random.PCG64(seed_sequence(1, "uniformity", 4)))
    p = random_permutations(rng, 24_000, 4)
    assert np.all(np.sort(p, axis=1) == np.arange(1, 5))
    index = {perm: k for k, perm in enumerate(itertools.permutations(range(1, 5)))}
    counts = np.bincount([index[tuple(r)] for r in p.tolist()], minlength=24)
    # chi-square goodness of fit against the uniform distribution on the 24 permutations
    assert stats.chisquare(counts).pvalue > 1e-3
    # each position is uniform too (n = 50: first element)
    q = random_permutations(rng, 20_000, 50)
    assert stats.chisquare(np.bincount(q[:, 0], minlength=51)[1:]).pvalue > 1e-3


def test_seed_sequence_depends_on_seed_scheme_and_n():
    a = seed_sequence(1, "s", 10).generate_state(2).tolist()
    assert a == seed_sequence(1, "s", 10).generate_state(2).tolist()
    assert a != seed_sequence(2, "s", 10).generate_state(2).tolist()
    assert a != seed_sequence(1, "t", 10).generate_state(2).tolist()
    assert a != seed_sequence(1, "s", 11).generate_state(2).tolist()


def _draw(batch_elements, n=37, size=501):
    rng = np.random.Generator(np.random.PCG64(seed_sequence(7, "spearman_additive_harmonic", n)))
    return sample_coefficient(
        "kendall", n=n, size=size, weigher="harmonic", scheme="additive", rng=rng, batch_elements=batch_elements
    )


def test_sample_independent_of_batch_size_and_threads():
    ref = _draw(10_000_000)
    assert np.array_equal(ref, _draw(37 * 7))
    assert np.array_equal(ref, _draw(100))
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _draw(37 * 50)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(ref, one)


@pytest.mark.parametrize(
    "coefficient,scheme,weigher",
    [("spearman", "additive", "harmonic"), ("kendall", "multiplicative", "inverse_square:n0=1")],
)
def test_monte_carlo_agrees_with_exact_enumeration(coefficient, scheme, weigher):
    n, size = 8, 40_000
    ex = exact_moments(coefficient, n=n, weigher=weigher, scheme=scheme)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(3, "mc-vs-exact", n)))
    g = sample_coefficient(coefficient, n=n, size=size, weigher=weigher, scheme=scheme, rng=rng)
    s = summarize_sample(g, n, center=ex.mean)
    assert abs(s.mean - ex.mean) < 4 * math.sqrt(ex.var / size)
    assert s.se == pytest.approx(math.sqrt(ex.var / size), rel=0.05)
    assert s.var == pytest.approx(ex.var, rel=0.03)
    assert s.left_var == pytest.approx(ex.left_var, rel=0.04)


def test_summarize_sample_matches_numpy():
    g = np.random.default_rng(0).uniform(-1, 1, 1001)
    s = summarize_sample(g, 5, center=0.1)
    assert s.mean == pytest.approx(g.mean(), abs=1e-15)
    assert s.se == pytest.approx(g.std() / math.sqrt(g.size), rel=1e-12)
    assert s.var == pytest.approx(np.mean((g - 0.1) ** 2), rel=1e-12)
    assert s.left_var == pytest.approx(np.sum((g[g < 0.1] - 0.1) ** 2) / g.size, rel=1e-12)


def test_x_of_n():
    assert x_of_n(10, "inv_n") == 0.1
    assert x_of_n(math.e, "inv_log_n") == pytest.approx(1.0)
    with pytest.raises(InputError, match="transform"):
        x_of_n(10, "log")


@pytest.mark.parametrize("degree", [1, 3, 6])
def test_fit_polynomial_matches_numpy_polyfit(degree):
    rng = np.random.default_rng(degree)
    n = np.array(training_grid(1.3, 9, 40), dtype=float)
    x = 1 / np.log(n)
    y = np.sin(3 * x) + rng.normal(0, 1e-3, x.size)
    w = rng.uniform(0.5, 2.0, x.size)
    ours = fit_polynomial(x, y, degree, weights=w)
    ref = np.polyfit(x, y, degree, w=np.sqrt(w))[::-1]  # polyfit weights multiply residuals
    np.testing.assert_allclose(
        np.polynomial.polynomial.polyval(x, ours), np.polynomial.polynomial.polyval(x, ref), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-8)


def test_fit_polynomial_high_degree_small_x_is_well_conditioned():
    # x = 1/n down to 1/36119 and degree 7: the column scaling keeps the fit exact on exact data
    n = np.array(training_grid(1.3, 9, 40), dtype=float)
    x = 1 / n
    true = np.array([-0.6, 6.0, -55.0, 261.0, -1000.0, 2000.0, -3000.0, 1500.0])
    y = np.polynomial.polynomial.polyval(x, true)
    c = fit_polynomial(x, y, 7)
    np.testing.assert_allclose(np.polynomial.polynomial.polyval(x, c), y, atol=1e-12)


def test_choose_degree_rule():
    # MSE(1..7); sentinel 1e8 for MSE(0) and MSE(8)
    # d=2: r1 = .9 > .8 but r2 = MSE3/MSE1 = .4 <= .5 -> accept; d=3: r1 = .4/.9 -> accept;
    # d=4: r1 = .39/.4 > .8, r2 = .3/.4 = .75 > .5 -> stop at 3
    assert choose_degree([1.0, 0.9, 0.4, 0.39, 0.3, 0.1, 0.01], min_degree=1) == 3
    # monotone strong improvement up to the end -> max degree
    assert choose_degree([1, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015], min_degree=1) == 7
    # no improvement at all -> min degree
    assert choose_degree([1, 1, 1, 1, 1, 1, 1], min_degree=1) == 1
    # thresholds are inclusive ("<=", as the authors' code)
    assert choose_degree([1.0, 0.8, 0.8], min_degree=1) == 2
    assert choose_degree([1.0, 0.9, 0.5], min_degree=1) == 3


def test_select_degree_recovers_a_cubic():
    n = np.array(training_grid(1.3, 9, 40), dtype=float)
    rng = np.random.default_rng(5)
    truth = np.array([-0.6, 2.3, -3.8, 2.2])  # Table 2's 1/i row shape, in x = 1/ln n
    y = np.polynomial.polynomial.polyval(1 / np.log(n), truth) + rng.normal(0, 2e-5, n.size)
    res = select_degree(n, y, transform="inv_log_n", weights=np.full(n.size, 1 / 2e-5**2))
    assert res.degree == 3
    # the final fit is the least-squares fit on all 32 points: numpy's lstsq on the same design matrix
    X = np.vander(1 / np.log(n), 4, increasing=True)
    np.testing.assert_allclose(res.fit.coefficients, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-9, atol=1e-12)
    # and it recovers the truth within 3 standard errors of OLS, sigma^2 (X'X)^-1 with sigma = 2e-5
    se = np.sqrt(np.diag(np.linalg.inv(X.T @ X))) * 2e-5
    assert np.all(np.abs(np.array(res.fit.coefficients) - truth) <= 3 * se)
    assert res.fit_positions == tuple(range(0, n.size, 2))
    with pytest.raises(InputError, match="max_degree"):
        select_degree(n[:8], y[:8], transform="inv_n", max_degree=7)
