"""Ties in weighted_spearman / weighted_kendall (issue 10 §2), against scipy references."""

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError, weighted_kendall, weighted_spearman
from agreekit.ranking.weighting import parse_weigher

WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=2", "dcg"]
SCHEMES = ["additive", "multiplicative"]


def _tied_cases(count, seed):
    """Random rank vectors with ties in x, y or both (competition or dense style)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        n = int(rng.integers(3, 400))
        k = int(rng.integers(2, max(3, n // 2)))
        x = stats.rankdata(rng.integers(0, k, n), method="min").astype(np.int64)
        y = rng.permutation(n) + 1
        kind = len(cases) % 3
        if kind == 1:
            x, y = y, x
        elif kind == 2:
            y = stats.rankdata(rng.integers(0, int(rng.integers(2, n + 1)), n), method="dense").astype(np.int64)
        if len(set(x)) > 1 and len(set(y)) > 1:
            cases.append((x, y))
    return cases


def _weights(x, y, weigher, scheme):
    f = parse_weigher(weigher)
    fx, fy = f(stats.rankdata(x)), f(stats.rankdata(y))
    return fx + fy if scheme == "additive" else fx * fy


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("weigher", WEIGHERS)
def test_tied_kendall_equals_scipy_weightedtau(weigher, scheme):
    # 200 random tied cases per (weigher, scheme); scipy's weightedtau computes the tau_b-style form
    for x, y in _tied_cases(200, seed=[len(weigher), len(scheme), 10]):
        n = x.size
        w = _weights(x, y, weigher, scheme)
        ref = stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False).statistic
        assert weighted_kendall(x, y, weigher=weigher, scheme=scheme) == pytest.approx(ref, abs=1e-12)


def test_tied_kendall_constant_weights_is_tau_b():
    ones = lambda i: np.ones_like(i)  # noqa: E731
    for x, y in _tied_cases(50, seed=3):
        assert weighted_kendall(x, y, weigher=ones) == pytest.approx(
            stats.kendalltau(x, y, variant="b").statistic, abs=1e-12
        )


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("weigher", WEIGHERS)
def test_tied_spearman_is_weighted_pearson_of_average_ranks(weigher, scheme):
    for x, y in _tied_cases(60, seed=[len(weigher), len(scheme), 11]):
        ax, ay = stats.rankdata(x), stats.rankdata(y)
        w = _weights(x, y, weigher, scheme)
        # weighted Pearson via numpy's weighted covariance (an independent formula)
        c = np.cov(np.vstack([ax, ay]), aweights=w, bias=True)
        ref = c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])
        assert weighted_spearman(x, y, weigher=weigher, scheme=scheme) == pytest.approx(ref, abs=1e-12)


def test_tied_spearman_constant_weights_is_spearmanr():
    ones = lambda i: np.ones_like(i)  # noqa: E731
    for x, y in _tied_cases(50, seed=4):
        assert weighted_spearman(x, y, weigher=ones) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_competition_and_dense_ties_are_the_same_ranking():
    # [1, 2, 2, 4] and [1, 2, 2, 3] both mean "items 2 and 3 share ranks 2-3" -> [1, 2.5, 2.5, 4]
    y = [2, 1, 4, 3]
    for f in (weighted_spearman, weighted_kendall):
        assert f([1, 2, 2, 4], y) == f([1, 2, 2, 3], y)


def test_untied_input_unchanged_by_ties_keyword():
    rng = np.random.default_rng(5)
    for _ in range(10):
        x, y = rng.permutation(30) + 1, rng.permutation(30) + 1
        for f in (weighted_spearman, weighted_kendall):
            assert f(x, y, ties="average") == f(x, y, ties="raise")


@pytest.mark.parametrize(
    "x, fragment",
    [
        ([1, 2, 2], "ties"),
        ([0, 1, 2], "1..3"),
        ([-1, 1, 2], "1..3"),
        ([1, 2, 2.5], "integer"),
        ([1, 2, np.nan], "NaN"),
        ([1, 2, 7], "1..3"),
    ],
)
def test_bad_ranks_name_the_parameter(x, fragment):
    for f in (weighted_spearman, weighted_kendall):
        with pytest.raises(InputError, match=fragment) as exc:
            f([1, 2, 3], x, ties="raise")
        assert exc.value.parameter == "y"
    if fragment != "ties":  # ties="average" only accepts ties
        with pytest.raises(InputError, match=fragment):
            weighted_kendall([1, 2, 3], x)


def test_all_tied_and_bad_ties_keyword():
    with pytest.raises(InputError, match="all ranks tied") as exc:
        weighted_spearman([2, 2, 2], [1, 2, 3])
    assert exc.value.parameter == "x"
    with pytest.raises(InputError, match="`ties`"):
        weighted_kendall([1, 2], [2, 1], ties="min")
