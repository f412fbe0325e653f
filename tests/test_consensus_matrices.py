import numpy as np
import pytest
from scipy import stats

from agreekit._validation import InputError
from agreekit.consensus import (
    average_tau_x,
    combined_input_matrix,
    kemeny_distance,
    ordering_string,
    penalty,
    score_matrix,
    tau_x,
)
from _consensus_oracle import naive_cim, random_profile


def test_score_matrix_definition():
    a = score_matrix([2, 1, 2, np.nan])
    expected = np.array([[0, -1, 1, 0], [1, 0, 1, 0], [1, -1, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("seed", range(5))
def test_combined_input_matrix_matches_naive(seed):
    rng = np.random.default_rng(seed)
    X, w = random_profile(rng, 12, 6, weighted=True)
    C = combined_input_matrix(X, weights=w)
    np.testing.assert_allclose(C, naive_cim(X, w))
    # c_ij + c_ji = 2 x weight of judges tying i and j >= 0
    assert (C + C.T >= 0).all()
    tied = np.zeros_like(C)
    for k in range(X.shape[0]):
        tied += w[k] * (X[k][:, None] == X[k][None, :])
    np.fill_diagonal(tied, 0)
    np.testing.assert_allclose(C + C.T, 2 * tied)


@pytest.mark.parametrize("seed", range(5))
def test_tau_x_equals_kendall_without_ties(seed):
    rng = np.random.default_rng(seed)
    r, s = rng.permutation(8) + 1, rng.permutation(8) + 1
    assert tau_x(r, s) == pytest.approx(stats.kendalltau(r, s).statistic)
    assert kemeny_distance(r, s) == pytest.approx(28 * (1 - tau_x(r, s)))


def test_tau_x_with_ties_and_distance():
    # pair values: agree 0, one ties 1, reversed 2
    assert kemeny_distance([1, 2], [1, 2]) == 0
    assert kemeny_distance([1, 2], [1, 1]) == 1
    assert kemeny_distance([1, 2], [2, 1]) == 2
    assert tau_x([1, 1, 1], [1, 1, 1]) == 1.0  # unlike Kendall's tau-b, defined for all ties
    assert tau_x([1, 2, 3], [3, 2, 1]) == -1.0
    assert -1 <= tau_x([1, 2, 2, 3], [2, 1, 3, 3]) <= 1


@pytest.mark.parametrize("seed", range(4))
def test_average_tau_x_is_weighted_mean_of_tau_x(seed):
    rng = np.random.default_rng(seed)
    X, w = random_profile(rng, 9, 5, weighted=True)
    cand = rng.integers(1, 4, size=5)
    mean = np.average([tau_x(x, cand) for x in X], weights=w)
    assert average_tau_x(cand, X, weights=w) == pytest.approx(mean)


def test_partial_rows_lower_average_tau():
    X = np.array([[1, 2, 3], [1, 2, np.nan]])
    full = average_tau_x([1, 2, 3], X[:1])
    both = average_tau_x([1, 2, 3], X)
    assert full == 1.0 and both == pytest.approx((1.0 + 1 / 3) / 2)


@pytest.mark.parametrize("seed", range(4))
def test_penalty(seed):
    rng = np.random.default_rng(seed)
    X, w = random_profile(rng, 10, 5, weighted=True)
    C = naive_cim(X, w)
    cand = rng.integers(1, 5, size=5)
    s = score_matrix(cand)
    P = penalty(cand, X, weights=w)
    assert P == pytest.approx(np.abs(C).sum() - (C * s).sum())
    assert P >= 0
    assert penalty(cand, None, cim=C) == pytest.approx(P)


def test_ordering_string():
    assert ordering_string([2, 1, 2, 3], list("abcd")) == "b (a c) d"


@pytest.mark.parametrize(
    "bad, param",
    [
        (np.array([[1, 2, 3], [np.nan, np.nan, np.nan]]), "rankings"),
        (np.array([[1], [1]]), "rankings"),
        (np.array([["a", "b"]]), "rankings"),
        (np.array([[1, np.inf]]), "rankings"),
    ],
)
def test_bad_rankings(bad, param):
    with pytest.raises(InputError) as exc:
        combined_input_matrix(bad)
    assert exc.value.parameter == param


@pytest.mark.parametrize("w", [[1, 2, 3], [1, -1], [np.nan, 1], [0, 0]])
def test_bad_weights(w):
    with pytest.raises(InputError) as exc:
        combined_input_matrix([[1, 2], [2, 1]], weights=w)
    assert exc.value.parameter == "weights"
