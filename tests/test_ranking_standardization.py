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
        -0.284, abs=5e-4
    )


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


# ---------------------------------------------------------------------------------------------
# g0 rules: maximal minimum slope (default) vs Algorithm 1 ("closest to zero")

RULES = ("max_min_slope", "closest_to_zero")


def _exact_sum(x):
    """math.fsum(x) where the decision |sum| / x.size < 1e-12 needs it: numpy's pairwise sum is within
    200 eps sum|x| of the exact sum (its error bound is (16 + log2 size) eps sum|x|; 200 covers any size
    here with room), so when that interval lies entirely on one side of the threshold the decision is the
    one fsum would give; otherwise the correctly rounded fsum decides."""
    s = float(np.sum(x))
    err = 200 * np.finfo(np.float64).eps * float(np.sum(np.abs(x)))
    t = 1e-12 * x.size
    if abs(s) + err < t or abs(s) - err > t:
        return s
    return math.fsum(x)


def test_zero_mean_both_rules_all_permutations_n3_to_10():
    """For the 16 configurations and n = 3..10, the mean of g(Γ(π)) over all n! permutations π is
    0 within 1e-12 for both g0 rules (corrected form); g built by Algorithm 1 raises only in the
    one known case.  Γ(π) is the plain compiled enumerator of tests/test_ranking_moments.py (Heap's
    algorithm over all n! permutations, Γ from the definitions; no agreekit kernel), and each sum is
    exact to well below the threshold (see _exact_sum), so independent of the enumeration order."""
    from test_ranking_moments import _values, all_permutations, plain_weigher

    for n in range(3, 11):
        gs = {}
        for cfg in PAPER_CONFIGS:
            m = cached_exact(*cfg, n)
            for rule in RULES:
                try:
                    gs[cfg, rule] = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule=rule)
                except BoundConsistencyError:
                    assert rule == "closest_to_zero" and (*cfg, n) == (
                        "spearman",
                        "multiplicative",
                        "inverse_square:n0=0",
                        3,
                    )
        perms = all_permutations(n)
        count = perms.shape[0]
        assert count == math.factorial(n)
        for cfg in PAPER_CONFIGS:
            coef, scheme, weigher = cfg
            fr = plain_weigher(weigher)(np.arange(1, n + 1, dtype=np.float64))
            gam = _values(perms, fr, coef == "kendall", scheme == "additive")
            for rule in RULES:
                if (cfg, rule) in gs:
                    assert abs(_exact_sum(gs[cfg, rule](gam)) / count) < 1e-12, (cfg, rule, n)


def _paper_bc(G, V, L):
    """B, C of the corrected Eqs. 30/32, written out independently of the module."""
    A = 2 * L - V * (1 + G)
    B = ((1 + G) ** 2 * V - 4 * G * L - (1 - G * G) ** 2) / A
    C = (2 * (1 + G * G) * L - (1 + G) ** 2 * V) / A
    return B, C


def _brute_max_min_slope(G, V, L, by="g0"):
    """Grid search over g0 in [-1, 1] (or, for a nearly flat ratio, over g1 in [0, 4] with g0 from
    E[g] = g0(1-a-b) + b - a + g1 A/(1-Γ̄²) = 0), refined by ternary search in the best grid cell
    (the objective is a minimum of affine functions, hence concave)."""
    B, C = _paper_bc(G, V, L)
    A = 2 * L - V * (1 + G)
    a, b = L / (1 + G) ** 2, (V - L) / (1 - G) ** 2

    def coeffs(s):
        if by == "g0":
            return s, (B * s + C) / (1 - G * G)
        return (a - b - s * A / (1 - G * G)) / (1 - a - b), s

    def min_slope(s):
        g0, g1 = coeffs(s)
        g2 = -(1 + g0) / (1 + G) ** 2 + g1 / (1 + G)
        h2 = (1 - g0) / (1 - G) ** 2 - g1 / (1 - G)
        return min(g1 - 2 * g2 * (1 + G), g1, g1 + 2 * h2 * (1 - G))

    grid = np.linspace(-1, 1, 20_001) if by == "g0" else np.linspace(0, 4, 40_001)
    vals = np.array([min_slope(v) for v in grid])
    i = int(np.argmax(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    for _ in range(200):
        s1, s2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if min_slope(s1) < min_slope(s2):
            lo = s1
        else:
            hi = s2
    x = (lo + hi) / 2
    return min_slope(x), coeffs(x)[0]


@pytest.mark.parametrize("coef, scheme, weigher", PAPER_CONFIGS)
def test_max_min_slope_equals_brute_force(coef, scheme, weigher):
    """The closed-form max–min slope equals a brute-force search over the feasible g0 interval
    (1e-9); g is strictly increasing with minimum slope >= 0.565 on the exact moments, n = 3..10."""
    for n in range(3, 11):
        m = cached_exact(coef, scheme, weigher, n)
        g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var)
        assert g.g0_rule == "max_min_slope"
        best, g0 = _brute_max_min_slope(m.mean, m.var, m.left_var, by="g1" if g.flat else "g0")
        assert g.min_slope == pytest.approx(best, abs=1e-9)
        assert g.g0 == pytest.approx(g0, abs=1e-6)
        xs = np.linspace(-1, 1, 4001)
        assert np.all(np.diff(g(xs)) > 0), "g must be strictly increasing"
        assert g.derivative(xs).min() == pytest.approx(g.min_slope, abs=1e-12)
        assert g.min_slope >= 0.565
        _check_shape(g)
        a1 = (
            StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule="closest_to_zero")
            if (coef, scheme, weigher, n) != ("spearman", "multiplicative", "inverse_square:n0=0", 3)
            else None
        )
        if a1 is not None:
            assert a1.min_slope <= g.min_slope + 1e-12


def test_default_rule_by_form_and_bad_rule():
    m = cached_exact("kendall", "additive", "harmonic", 7)
    assert StandardizationFunction.from_moments(m.mean, m.var, m.left_var).g0_rule == "max_min_slope"
    gp = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
    assert gp.g0_rule == "closest_to_zero"
    gp2 = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper", g0_rule="max_min_slope")
    assert gp2.min_slope >= gp.min_slope
    with pytest.raises(InputError) as exc:
        StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule="closest")
    assert exc.value.parameter == "g0_rule"
    # the printed formulas admit no monotone g at n = 3, Spearman/mult/1/i^2 under either rule (the
    # best attainable minimum slope is negative); the corrected form has one, strictly increasing
    m = cached_exact("spearman", "multiplicative", "inverse_square:n0=0", 3)
    for rule in RULES:
        with pytest.raises(BoundConsistencyError):
            StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper", g0_rule=rule)
    g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var)
    assert g.min_slope > 0.56 and abs(g.expected_value()) < 1e-15
    a1 = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule="closest_to_zero")
    assert a1.min_slope < 1e-9 < g.min_slope


def test_flat_ratio_branch_under_max_min_slope():
    """Exactly flat ratio (A = 0): g0 is pinned by E[g] = 0 (Eq. 28) and the rule picks g1; the
    result equals a brute-force search over g1, E[g] = 0, and g is strictly increasing."""
    G, V = -0.2, 0.3
    L = V * (1 + G) / 2
    g = StandardizationFunction.from_moments(G, V, L)
    assert g.flat and g.g0 == pytest.approx(-V * G / (1 - V - G * G), rel=1e-12)
    g0 = g.g0

    def min_slope(g1):
        return min(2 * (1 + g0) / (1 + G) - g1, g1, 2 * (1 - g0) / (1 - G) - g1)

    grid = np.linspace(0, 3, 300_001)
    assert g.min_slope == pytest.approx(max(min_slope(v) for v in grid), abs=1e-5)
    assert g.min_slope >= max(min_slope(v) for v in grid) - 1e-12
    assert abs(g.expected_value()) < 1e-15
    # nearly flat (the eps_flat test fires) on real moments: still E[g] = 0 over all permutations
    m = cached_exact("spearman", "additive", "inverse_square:n0=1", 6)
    g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, eps_flat=2e-4)
    assert g.flat
    assert abs(g(_all_gammas("spearman", "additive", "inverse_square:n0=1", 6)).mean()) < 1e-12
    best, _ = _brute_max_min_slope(m.mean, m.var, m.left_var, by="g1")
    assert g.min_slope == pytest.approx(best, abs=1e-9)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(points=finite_points, data=st.data())
def test_property_max_min_slope_dominates_algorithm1(points, data):
    """On random discrete distributions: whenever Algorithm 1 finds a g, the max–min-slope g exists
    too, has E[g] = 0 under the distribution, and a minimum slope at least as large."""
    probs = data.draw(st.lists(st.floats(0.01, 1.0), min_size=len(points), max_size=len(points)))
    mean, var, left = _moments(points, probs)
    assume(var > 1e-6 and abs(mean) < 0.999)
    try:
        a1 = StandardizationFunction.from_moments(mean, var, left, g0_rule="closest_to_zero")
    except BoundConsistencyError:
        assume(False)
    g = StandardizationFunction.from_moments(mean, var, left)
    _check_shape(g)
    p = np.asarray(probs) / np.sum(probs)
    assert abs(float(np.sum(p * g(np.asarray(points))))) < 1e-9
    assert g.min_slope >= a1.min_slope - 1e-9
