import numpy as np
import pytest
from scipy import stats

from agreekit import weighted_kendall, weighted_spearman
from agreekit.ranking._kernels import kendall_weighted_quadratic
from agreekit._validation import InputError
from agreekit.ranking.correlation import batch_coefficient, weighted_correlation
from agreekit.ranking.weighting import parse_weigher

WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=2", "power:p=1.5,n0=1", "dcg"]
SCHEMES = ["additive", "multiplicative"]


def _item_weights(x, y, weigher, scheme):
    f = parse_weigher(weigher)
    fx, fy = f(x), f(y)
    return fx + fy if scheme == "additive" else fx * fy


def _spearman_pairwise(x, y, w):
    """Eq. 16 of the seed: pairwise form over i != j (independent of the kernel's Eq. 7 code)."""
    x = x.astype(float)
    y = y.astype(float)
    ww = np.outer(w, w)
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    return (ww * dx * dy).sum() / np.sqrt((ww * dx * dx).sum() * (ww * dy * dy).sum())


def _kendall_definition(x, y, w):
    """Eq. 8 by its definition, numpy O(n^2)."""
    ww = np.outer(w, w)
    s = np.sign(x[None, :] - x[:, None]) * np.sign(y[None, :] - y[:, None])
    np.fill_diagonal(ww, 0.0)
    return (ww * s).sum() / ww.sum()


@pytest.mark.parametrize("n", [2, 3, 10, 100, 1000])
def test_constant_weights_equal_scipy(n):
    rng = np.random.default_rng(12345 + n)
    ones = lambda i: np.ones_like(i)  # noqa: E731
    for _ in range(5):
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        for scheme in SCHEMES:
            assert weighted_spearman(x, y, weigher=ones, scheme=scheme) == pytest.approx(
                stats.spearmanr(x, y).statistic, abs=1e-12
            )
            assert weighted_kendall(x, y, weigher=ones, scheme=scheme) == pytest.approx(
                stats.kendalltau(x, y).statistic, abs=1e-12
            )


@pytest.mark.parametrize("weigher", WEIGHERS)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("n", [5, 47, 49, 300, 2000])
def test_kendall_matches_definition_and_scipy_weightedtau(weigher, scheme, n):
    rng = np.random.default_rng([n, len(weigher), len(scheme)])
    for _ in range(3):
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        w = _item_weights(x, y, weigher, scheme)
        ours = weighted_kendall(x, y, weigher=weigher, scheme=scheme)
        ref_scipy = stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False)[0]
        assert ours == pytest.approx(ref_scipy, abs=1e-12)
        if n <= 300:
            assert ours == pytest.approx(_kendall_definition(x, y, w), abs=1e-12)
        # the compiled O(n^2) definition too (the Fenwick path is used for n > 48)
        assert ours == pytest.approx(kendall_weighted_quadratic(x, y, w), abs=1e-12)


@pytest.mark.parametrize("weigher", WEIGHERS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_spearman_matches_pairwise_eq16(weigher, scheme):
    rng = np.random.default_rng(7)
    for n in (3, 8, 60, 250):
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        w = _item_weights(x, y, weigher, scheme)
        assert weighted_spearman(x, y, weigher=weigher, scheme=scheme) == pytest.approx(
            _spearman_pairwise(x, y, w), abs=1e-12
        )


def test_extremes_and_symmetry():
    rng = np.random.default_rng(3)
    x = rng.permutation(20) + 1
    for coef in ("spearman", "kendall"):
        assert weighted_correlation(x, x, coefficient=coef) == pytest.approx(1.0, abs=1e-14)
        rev = 21 - x
        # reversing one ranking is a perfect disagreement only under constant weights
        ones = lambda i: np.ones_like(i)  # noqa: E731
        assert weighted_correlation(x, rev, coefficient=coef, weigher=ones) == pytest.approx(-1.0, abs=1e-14)
        y = rng.permutation(20) + 1
        assert weighted_correlation(x, y, coefficient=coef) == pytest.approx(
            weighted_correlation(y, x, coefficient=coef), abs=1e-14
        )


@pytest.mark.parametrize("coef", ["spearman", "kendall"])
def test_batch_equals_pairwise(coef):
    rng = np.random.default_rng(99)
    for n in (4, 30, 120):
        perms = np.array([rng.permutation(n) + 1 for _ in range(20)])
        ident = np.arange(1, n + 1)
        for scheme in SCHEMES:
            got = batch_coefficient(perms, coefficient=coef, weigher="harmonic", scheme=scheme)
            want = [weighted_correlation(ident, p, coefficient=coef, scheme=scheme) for p in perms]
            np.testing.assert_allclose(got, want, atol=1e-14, rtol=0)


@pytest.mark.parametrize(
    "x, y, param, fragment",
    [
        ([1, 2, 3], [1, 2], "y", "same length"),
        ([1, 2, 2], [1, 2, 3], "x", "ties"),
        ([1, 2, np.nan], [1, 2, 3], "x", "NaN"),
        ([0, 1, 2], [1, 2, 3], "x", "permutation of 1..3"),
        ([1, 2, 4], [1, 2, 3], "x", "permutation of 1..3"),
        ([1.5, 2, 3], [1, 2, 3], "x", "integer"),
        ([1], [1], "x", "at least 2"),
        (["a", "b"], [1, 2], "x", "numeric"),
    ],
)
def test_bad_rank_vectors(x, y, param, fragment):
    with pytest.raises(InputError, match=fragment) as exc:
        weighted_kendall(x, y, ties="raise")  # ties are accepted (averaged) by default
    assert exc.value.parameter == param


def test_bad_scheme_and_weigher():
    with pytest.raises(InputError, match="`scheme`"):
        weighted_spearman([1, 2], [2, 1], scheme="max")
    with pytest.raises(InputError, match="`weigher`"):
        weighted_spearman([1, 2], [2, 1], weigher="cubic")
    with pytest.raises(InputError, match="`coefficient`"):
        weighted_correlation([1, 2], [2, 1], coefficient="pearson")
    with pytest.raises(InputError, match="`perms`"):
        batch_coefficient(np.array([[0, 1]]), coefficient="kendall", weigher="harmonic", scheme="additive")
