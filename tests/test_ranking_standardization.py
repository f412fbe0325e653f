import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agreekit import BoundConsistencyError, StandardizationFunction
from agreekit._validation import InputError
from agreekit.ranking.correlation import batch_coefficient
from ranking_configs import PAPER_CONFIGS, cached_exact


def _all_gammas(coef, scheme, weigher, n):
    perms = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
    return batch_coefficient(perms, coefficient=coef, weigher=weigher, scheme=scheme)


def _moments(values, probs=None):
    values = np.asarray(values, dtype=float)
    p = np.full(values.size, 1.0 / values.size) if probs is None else np.asarray(probs) / np.sum(probs)
    mean = float(np.sum(p * values))
    d = values - mean
    return mean, float(np.sum(p * d * d)), float(np.sum(p * d * d * (d < 0)))


def _check_shape(g):
    assert g(-1.0) == pytest.approx(-1.0, abs=1e-12)
    assert g(1.0) == pytest.approx(1.0, abs=1e-12)
    xs = np.linspace(-1, 1, 2001)
    assert np.all(np.diff(g(xs)) >= -1e-12), "g must be non-decreasing on [-1, 1]"
    assert np.all(g.derivative(xs) >= -1e-9)
    eps = 1e-9
    # continuity of g and g' at the mean: across [mean - eps, mean + eps] neither may jump by more
    # than the smooth change allowed by the quadratic pieces
    curv = max(abs(g.g2), abs(g.h2))
    assert g(g.mean - eps) == pytest.approx(g(g.mean + eps), abs=1e-12 + 2 * eps * (abs(g.g1) + curv * eps))
    assert g.derivative(g.mean - eps) == pytest.approx(g.derivative(g.mean + eps), abs=1e-12 + 4 * curv * eps)
    assert np.all(np.abs(g(xs)) <= 1 + 1e-12)


@pytest.mark.parametrize("coef, scheme, weigher", PAPER_CONFIGS)
def test_zero_mean_over_all_permutations(coef, scheme, weigher):
    """For the 16 configurations, n = 3..8: mean of g(Γ(π)) over all n! π is 0 (corrected form),
    while the printed Eqs. 30/32 (form='paper') leave a visible negative bias."""
    for n in range(3, 9):
        m = cached_exact(coef, scheme, weigher, n)
        gammas = _all_gammas(coef, scheme, weigher, n)
        # the enumeration of the test agrees with the moments
        assert gammas.mean() == pytest.approx(m.mean, abs=1e-13)
        g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var)
        assert abs(math.fsum(g(gammas)) / gammas.size) < 1e-12
        _check_shape(g)
        try:
            gp = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
        except BoundConsistencyError:
            # the one known inconsistent case of the printed formulas (research notes §3)
            assert (coef, scheme, weigher, n) == ("spearman", "multiplicative", "inverse_square:n0=0", 3)
            continue
        bias = gp(gammas).mean()
        if gp.flat:
            # Eq. 28 is right; only the eps_flat tolerance leaves a residual
            assert abs(bias) < 1e-5
        else:
            # research notes §3: the printed formulas give E[g] between -0.284 and -0.021 for n <= 10
            assert -0.29 < bias < -0.02


def test_paper_bias_values_from_notes():
    """Averaging the authors' formulas over all permutations (research notes §0):
    Spearman/additive/harmonic gives -0.0359 at n = 3 and -0.0378 at n = 6."""
    for n, expected in ((3, -0.0359), (6, -0.0378)):
        m = cached_exact("spearman", "additive", "harmonic", n)
        gp = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
        assert gp(_all_gammas("spearman", "additive", "harmonic", n)).mean() == pytest.approx(expected, abs=5e-5)
    # worst case of the notes: Kendall/mult/1/i^2, n = 4: -0.284
    m = cached_exact("kendall", "multiplicative", "inverse_square:n0=0", 4)
    gp = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
    assert gp(_all_gammas("kendall", "multiplicative", "inverse_square:n0=0", 4)).mean() == pytest.approx(
        -0.284, abs=5e-4)


def test_identity_for_symmetric_distribution():
    for var in (0.1, 0.5, 1.0):
        g = StandardizationFunction.from_moments(0.0, var, var / 2)
        xs = np.linspace(-1, 1, 11)
        np.testing.assert_allclose(g(xs), xs, atol=1e-15)
        assert g.identity
    # n = 2 moments (0, 1, 1/2) and the standard (unweighted) Kendall tau at n = 5
    g = StandardizationFunction.from_moments(0.0, 1.0, 0.5)
    assert g(0.3) == 0.3
    tau = _all_gammas("kendall", "additive", lambda i: np.ones_like(i), 5)
    g = StandardizationFunction.from_moments(*_moments(tau))
    np.testing.assert_allclose(g(tau), tau, atol=1e-12)


def test_flat_branch_zero_mean_and_eq28():
    """Force the flat branch on a nearly flat case: E[g] stays 0 (corrected), and with an exactly
    flat ratio g0 equals Eq. 28."""
    m = cached_exact("spearman", "additive", "inverse_square:n0=1", 6)
    ratio_gap = abs(m.left_var / m.var - (1 + m.mean) / 2)
    assert 1e-4 < ratio_gap < 2e-4  # not flat at the default eps_flat, flat at 2e-4
    g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, eps_flat=2e-4)
    assert g.flat
    gammas = _all_gammas("spearman", "additive", "inverse_square:n0=1", 6)
    assert abs(g(gammas).mean()) < 1e-12
    _check_shape(g)
    G, V = -0.2, 0.3
    L = V * (1 + G) / 2  # exactly flat
    g = StandardizationFunction.from_moments(G, V, L)
    assert g.flat
    assert g.g0 == pytest.approx(-V * G / (1 - V - G * G), rel=1e-12)
    gp = StandardizationFunction.from_moments(G, V, L, form="paper")
    assert gp.g0 == pytest.approx(g.g0, rel=1e-12)
    assert g.expected_value() == pytest.approx(0.0, abs=1e-15)


finite_points = st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(points=finite_points, data=st.data())
def test_property_zero_mean_on_discrete_distributions(points, data):
    """On random discrete distributions on [-1, 1]: whenever g exists it has all consistency
    properties and E[g] = 0 exactly under the distribution it was built from."""
    probs = data.draw(st.lists(st.floats(0.01, 1.0), min_size=len(points), max_size=len(points)))
    mean, var, left = _moments(points, probs)
    assume(var > 1e-6 and abs(mean) < 0.999)
    try:
        g = StandardizationFunction.from_moments(mean, var, left)
    except BoundConsistencyError:
        assume(False)
    _check_shape(g)
    p = np.asarray(probs) / np.sum(probs)
    assert abs(float(np.sum(p * g(np.asarray(points))))) < 1e-9
    assert g.expected_value() == pytest.approx(0.0, abs=1e-9)


def test_empty_bounds_raise_typed_error():
    # the printed formulas at n = 3, Spearman/mult/1/i^2 (research notes §3)
    m = cached_exact("spearman", "multiplicative", "inverse_square:n0=0", 3)
    with pytest.raises(BoundConsistencyError):
        StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
    assert issubclass(BoundConsistencyError, ValueError)


@pytest.mark.parametrize(
    "args, kwargs, param",
    [
        ((1.0, 0.2, 0.1), {}, "mean"),
        ((0.0, 0.0, 0.0), {}, "var"),
        ((0.0, 0.2, 0.3), {}, "left_var"),
        ((0.0, 0.2, -0.1), {}, "left_var"),
        ((float("nan"), 0.2, 0.1), {}, "mean"),
        ((0.1, 0.2, 0.1), {"form": "published"}, "form"),
    ],
)
def test_bad_moments(args, kwargs, param):
    with pytest.raises(InputError) as exc:
        StandardizationFunction.from_moments(*args, **kwargs)
    assert exc.value.parameter == param


def test_vectorized_and_scalar():
    g = StandardizationFunction.from_moments(-0.1, 0.2, 0.08)
    assert isinstance(g(0.2), float)
    arr = g(np.array([[-1.0, 0.0], [0.5, 1.0]]))
    assert arr.shape == (2, 2)
    assert arr[0, 0] == pytest.approx(-1) and arr[1, 1] == pytest.approx(1)
