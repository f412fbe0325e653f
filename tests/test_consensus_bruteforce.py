"""kemeny() against exhaustive search over all weak orders (m <= 7)."""

import numpy as np
import pytest

from agreekit.consensus import average_tau_x, kemeny
from _consensus_oracle import brute_force, random_profile

CASES = [(seed, m) for m in (3, 4, 5, 6, 7) for seed in range(12 if m < 7 else 5)]


def _profile(seed, m):
    rng = np.random.default_rng(1000 * m + seed)
    n = int(rng.integers(2, 9))
    return random_profile(rng, n, m, tie_prob=0.35, nan_prob=0.15, weighted=bool(seed % 2))


@pytest.mark.parametrize("seed, m", CASES)
@pytest.mark.parametrize("solver", ["bb", "mip"])
def test_exact_returns_all_optima(seed, m, solver):
    X, w = _profile(seed, m)
    opt, tau = brute_force(X, w)
    res = kemeny(X, weights=w, method="exact", solver=solver, max_solutions=100000)
    assert res.proven and res.exhaustive
    assert res.average_tau_x == pytest.approx(tau, abs=1e-12)
    assert {tuple(s) for s in res.solutions} == opt


@pytest.mark.parametrize("seed, m", CASES[::3])
@pytest.mark.parametrize("solver", ["bb", "mip"])
def test_exact_permutations_only(seed, m, solver):
    X, w = _profile(seed, m)
    opt, tau = brute_force(X, w, ties=False)
    res = kemeny(X, weights=w, method="exact", solver=solver, allow_ties=False, max_solutions=100000)
    assert res.average_tau_x == pytest.approx(tau, abs=1e-12)
    assert {tuple(s) for s in res.solutions} == opt
    assert all(len(set(s)) == m for s in res.solutions)


@pytest.mark.parametrize("seed, m", CASES)
@pytest.mark.parametrize("method", ["quick", "fast"])
def test_heuristics_are_valid_and_report_true_tau(seed, m, method):
    X, w = _profile(seed, m)
    opt, tau = brute_force(X, w)
    res = kemeny(X, weights=w, method=method, n_starts=20, rng=seed)
    for s in res.solutions:
        assert sorted(set(s)) == list(range(1, max(s) + 1))  # dense weak order
        assert average_tau_x(s, X, weights=w) == pytest.approx(res.average_tau_x, abs=1e-12)
    assert res.average_tau_x <= tau + 1e-12
    if res.average_tau_x >= tau - 1e-12:  # optimal value -> every returned ranking is an optimum
        assert {tuple(s) for s in res.solutions} <= opt
    assert not res.proven or res.penalty == pytest.approx(0.0, abs=1e-9)


def test_fast_finds_optimum_on_small_profiles():
    hits = 0
    for seed, m in CASES:
        X, w = _profile(seed, m)
        _, tau = brute_force(X, w)
        hits += kemeny(X, weights=w, method="fast", n_starts=50, rng=seed).average_tau_x >= tau - 1e-12
    assert hits >= 0.9 * len(CASES)


def test_fast_is_deterministic_given_seed():
    X, w = _profile(3, 7)
    a = kemeny(X, weights=w, method="fast", n_starts=30, rng=42)
    b = kemeny(X, weights=w, method="fast", n_starts=30, rng=42)
    np.testing.assert_array_equal(a.solutions, b.solutions)


def test_auto_says_what_it_did():
    X, w = _profile(1, 5)
    res = kemeny(X, weights=w)
    assert res.method == "exact" and res.proven and "auto" in res.message


def test_trivial_all_zero_matrix():
    res = kemeny([[1, 2], [2, 1]])
    assert res.average_tau_x == 0.0 and res.proven and not res.exhaustive


def test_all_positive_matrix_gives_all_tie():
    # every pair tied by most judges: the all-tie ranking is the unique optimum
    X = [[1, 1, 1], [1, 1, 1], [1, 2, 3]]
    opt, tau = brute_force(np.array(X, float))
    res = kemeny(X, method="exact")
    assert {tuple(s) for s in res.solutions} == opt == {(1, 1, 1)}


@pytest.mark.parametrize(
    "kwargs, param",
    [
        ({"method": "slow"}, "method"),
        ({"solver": "cplex"}, "solver"),
        ({"n_starts": 0}, "n_starts"),
        ({"time_limit": -1}, "time_limit"),
        ({"allow_ties": "yes"}, "allow_ties"),
        ({"weights": [1]}, "weights"),
        ({"max_solutions": 0}, "max_solutions"),
        ({"labels": ["a", "a", "b"]}, "labels"),
    ],
)
def test_bad_arguments(kwargs, param):
    from agreekit._validation import InputError

    with pytest.raises(InputError) as exc:
        kemeny([[1, 2, 3], [3, 2, 1]], **kwargs)
    assert exc.value.parameter == param


@pytest.mark.parametrize("solver", ["bb", "mip"])
def test_max_solutions_truncates_but_stays_optimal(solver):
    # one complete ranking and unranked items: every placement of c, d, e is optimal
    X = np.array([[1, 2, np.nan, np.nan, np.nan]])
    opt, tau = brute_force(X)
    res = kemeny(X, method="exact", solver=solver, max_solutions=5)
    assert len(opt) > 5
    assert res.n_optima == 5 and res.proven and not res.exhaustive
    assert {tuple(s) for s in res.solutions} <= opt and res.average_tau_x == pytest.approx(tau)
    assert "max_solutions" in res.message


def test_time_limit_returns_unproven_result():
    rng = np.random.default_rng(0)
    X, _ = random_profile(rng, 5, 40, tie_prob=0.2, nan_prob=0.0)
    res = kemeny(X, method="exact", solver="bb", time_limit=0.3)
    # 40 items cannot be searched exhaustively in 0.3 s: the limit must stop the search, unproven,
    # with the best ordering found so far (scored like any candidate) and the reason in the message
    assert not res.exhaustive and not res.proven and res.n_optima >= 1
    assert "time limit" in res.message
    assert res.average_tau_x == pytest.approx(average_tau_x(res.solutions[0], X), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("solver", ["bb", "mip"])
def test_exact_with_real_valued_weights(seed, solver):
    rng = np.random.default_rng(500 + seed)
    X, _ = random_profile(rng, 7, 6, tie_prob=0.3, nan_prob=0.2)
    w = rng.random(7) * 3
    opt, tau = brute_force(X, w)
    res = kemeny(X, weights=w, method="exact", solver=solver, max_solutions=10**5)
    assert res.average_tau_x == pytest.approx(tau, abs=1e-12)
    assert {tuple(s) for s in res.solutions} == opt


def test_weights_scale_invariance_and_replication():
    """Integer weights are the same as replicated rows."""
    rng = np.random.default_rng(9)
    X, w = random_profile(rng, 5, 6, weighted=True)
    a = kemeny(X, weights=w, method="exact")
    b = kemeny(np.repeat(X, w.astype(int), axis=0), method="exact")
    c = kemeny(X, weights=w * 0.1, method="exact")
    np.testing.assert_array_equal(a.solutions, b.solutions)
    np.testing.assert_array_equal(a.solutions, c.solutions)
    assert a.average_tau_x == pytest.approx(b.average_tau_x) == pytest.approx(c.average_tau_x)


@pytest.mark.parametrize("solver", ["bb", "mip"])
def test_huge_optimal_plateau_is_truncated_not_enumerated(solver):
    """One judge ranks 2 of 14 items: ~10^12 optimal weak orders; the solver must stop
    at max_solutions and still prove the optimal value."""
    X = np.full((1, 14), np.nan)
    X[0, :2] = [1, 2]
    res = kemeny(X, method="exact", solver=solver, max_solutions=20)
    assert res.proven and not res.exhaustive and res.n_optima == 20
    assert res.average_tau_x == pytest.approx(2 / (14 * 13))
    assert all(s[0] < s[1] for s in res.solutions)
