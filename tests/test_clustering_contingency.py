"""Classic measures against scikit-learn, identities of the generalized distance, large n."""

import math

import numpy as np
import pytest
from sklearn import metrics as skm

from agreekit.clustering import (
    omega,
    adjusted_rand_index,
    adjusted_rand_index_approx,
    ari_delta,
    f_measure,
    generalized_distance,
    jaccard_index,
    mirkin_index,
    normalized_mutual_info,
    omega_unadjusted,
    rand_index,
    ri_delta,
    variation_of_information,
)


def labelings():
    rng = np.random.default_rng(20240501)
    cases = [
        ([0], [0]),
        ([3], [7]),
        ([0, 0], [1, 1]),
        ([0, 1], [0, 1]),
        ([0, 0], [0, 1]),
        ([0] * 7, [0] * 7),
        ([0] * 7, list(range(7))),
        (list(range(7)), list(range(7))),
        (list(range(7)), [5] * 7),
    ]
    for n, ku, kv in [
        (2, 2, 2),
        (5, 2, 3),
        (10, 3, 3),
        (50, 5, 8),
        (200, 20, 4),
        (1000, 40, 60),
        (3000, 1, 3),
        (3000, 300, 250),
    ]:
        for _ in range(2):
            cases.append((rng.integers(0, ku, n).tolist(), rng.integers(0, kv, n).tolist()))
    return cases


CASES = labelings()


def brute_pairs(u, v):
    u, v = np.asarray(u), np.asarray(v)
    n = len(u)
    iu, ju = np.triu_indices(n, 1)
    su, sv = u[iu] == u[ju], v[iu] == v[ju]
    return int(np.sum(su & sv)), int(np.sum(su & ~sv)), int(np.sum(~su & sv)), int(np.sum(~su & ~sv))


@pytest.mark.parametrize("u,v", CASES)
def test_against_sklearn(u, v):
    assert rand_index(u, v) == pytest.approx(skm.rand_score(u, v), abs=1e-12)
    assert adjusted_rand_index(u, v) == pytest.approx(skm.adjusted_rand_score(u, v), abs=1e-12)
    assert normalized_mutual_info(u, v, average_method="arithmetic") == pytest.approx(
        skm.normalized_mutual_info_score(u, v, average_method="arithmetic"), abs=1e-12
    )
    assert normalized_mutual_info(u, v, average_method="geometric") == pytest.approx(
        skm.normalized_mutual_info_score(u, v, average_method="geometric"), abs=1e-12
    )
    for method in ("max", "min"):
        assert normalized_mutual_info(u, v, average_method=method) == pytest.approx(
            skm.normalized_mutual_info_score(u, v, average_method=method), abs=1e-12
        )
    # VI = H(U) + H(V) - 2 I
    if len(set(u)) > 1 and len(set(v)) > 1:
        hu = skm.mutual_info_score(u, u)
        hv = skm.mutual_info_score(v, v)
        assert variation_of_information(u, v) == pytest.approx(hu + hv - 2 * skm.mutual_info_score(u, v), abs=1e-12)


@pytest.mark.parametrize("u,v", [c for c in CASES if len(c[0]) <= 1000])
def test_pair_counting_against_brute_force(u, v):
    m11, m10, m01, m00 = brute_pairs(u, v)
    n = len(u)
    pairs = n * (n - 1) // 2
    assert mirkin_index(u, v) == 2 * (m10 + m01)
    if m11 + m10 + m01:
        assert jaccard_index(u, v) == pytest.approx(m11 / (m11 + m10 + m01), abs=1e-14)
    if m11:
        p, r = m11 / (m11 + m10), m11 / (m11 + m01)
        for beta in (0.5, 1.0, 2.0):
            assert f_measure(u, v, beta=beta) == pytest.approx((beta**2 + 1) * p * r / (beta**2 * p + r), abs=1e-14)
    if pairs:
        assert rand_index(u, v) == pytest.approx((m11 + m00) / pairs, abs=1e-14)
        assert omega_unadjusted(u, v) == pytest.approx((m11 + m00) / pairs, abs=1e-14)


@pytest.mark.parametrize("u,v", CASES)
def test_identities_of_the_generalized_distance(u, v):
    n = len(u)
    gd = generalized_distance
    ND = dict(normalization="normalized")
    if n > 1:
        assert gd(u, v, phi="xlogx", **ND) == pytest.approx(variation_of_information(u, v) / math.log(n), abs=1e-12)
    assert gd(u, v, phi="comb2", **ND) == pytest.approx(1 - rand_index(u, v), abs=1e-12)
    assert gd(u, v, phi="x^2", **ND) == pytest.approx(1 - ri_delta(u, v, exact=False), abs=1e-12)
    AD = dict(normalization="adjusted")
    assert gd(u, v, phi="xlogx", **AD) == pytest.approx(1 - normalized_mutual_info(u, v), abs=1e-10)
    assert gd(u, v, phi="x^2", **AD) == pytest.approx(1 - adjusted_rand_index_approx(u, v), abs=1e-12)
    # Definition-3 expectation with x(x-1) gives ARI', the product form gives ARI
    assert gd(u, v, phi="x(x-1)", **AD, expectation="definition3") == pytest.approx(
        1 - adjusted_rand_index_approx(u, v), abs=1e-12
    )
    assert gd(u, v, phi="x(x-1)", **AD, expectation="product") == pytest.approx(
        1 - adjusted_rand_index(u, v), abs=1e-12
    )
    assert gd(u, v, phi="comb2", **AD, expectation="product") == pytest.approx(1 - adjusted_rand_index(u, v), abs=1e-12)


def test_user_callable_phi_matches_builtin():
    rng = np.random.default_rng(1)
    u, v = rng.integers(0, 7, 300), rng.integers(0, 5, 300)
    for norm in ("none", "normalized", "adjusted"):
        for expectation in ("definition3", "product"):
            a = generalized_distance(u, v, phi=lambda x: x * x, normalization=norm, expectation=expectation)
            b = generalized_distance(u, v, phi="square", normalization=norm, expectation=expectation)
            assert a == pytest.approx(b, rel=1e-12)
            a = generalized_distance(
                u,
                v,
                phi=lambda x: np.where(x > 0, x * np.log(np.where(x > 0, x, 1)), 0),
                normalization=norm,
                expectation=expectation,
            )
            b = generalized_distance(u, v, phi="xlogx", normalization=norm, expectation=expectation)
            assert a == pytest.approx(b, rel=1e-10)


def test_definition1_distance_is_symmetric_and_zero_on_identity():
    rng = np.random.default_rng(2)
    u, v = rng.integers(0, 4, 100), rng.integers(0, 6, 100)
    for phi in ("xlogx", "comb2", "x(x-1)", "square"):
        assert generalized_distance(u, v, phi=phi) == pytest.approx(generalized_distance(v, u, phi=phi), rel=1e-12)
        assert generalized_distance(u, u, phi=phi) == 0.0
        assert generalized_distance(u, v, phi=phi) > 0


def test_ari_at_ten_million_nodes_does_not_overflow():
    """n = 10^7: Σ C(n_ij, 2) products exceed int64 — exact Python-int arithmetic."""
    n = 10**7
    rng = np.random.default_rng(7)
    u = rng.integers(0, 2, n, dtype=np.int64)
    v = u.copy()
    flip = rng.random(n) < 0.1
    v[flip] = 1 - v[flip]
    # reference with exact rationals from the 2x2 contingency table
    from fractions import Fraction

    nij = np.zeros((2, 2), dtype=object)
    for a in (0, 1):
        for b in (0, 1):
            nij[a, b] = int(np.count_nonzero((u == a) & (v == b)))
    c2 = lambda x: x * (x - 1) // 2  # noqa: E731
    index = sum(c2(x) for x in nij.ravel())
    a = sum(c2(x) for x in nij.sum(axis=1))
    b = sum(c2(x) for x in nij.sum(axis=0))
    expected = (Fraction(index) - Fraction(a * b, c2(n))) / (Fraction(a + b, 2) - Fraction(a * b, c2(n)))
    ours = adjusted_rand_index(u, v)
    assert 0.6 < ours < 0.7
    assert ours == pytest.approx(float(expected), abs=1e-12)
    assert ari_delta(u, v) == pytest.approx(float(expected), abs=1e-9)
    assert omega(u, v) == pytest.approx(float(expected), abs=1e-12)


def test_string_and_arbitrary_labels():
    u = ["a", "a", "b", "b", "c"]
    v = [10**12, 10**12, -5, 7, 7]
    assert adjusted_rand_index(u, v) == pytest.approx(skm.adjusted_rand_score(u, v), abs=1e-12)
    assert adjusted_rand_index({"x": 1, "y": 1, "z": 2}, {"z": 0, "y": 5, "x": 5}) == 1.0
