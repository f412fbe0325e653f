"""Mutual information, expected MI, AMI, Fowlkes–Mallows, homogeneity/completeness/V-measure.

References: scikit-learn (the issue's contract: AMI/MI to 1e-10, the others to 1e-12) and an exact
expected-MI from integer binomials (math.comb), independent of both implementations.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import sklearn
from sklearn import metrics as skm
from sklearn.metrics.cluster import contingency_matrix
from sklearn.metrics.cluster._expected_mutual_info_fast import expected_mutual_information

from agreekit._validation import InputError
from agreekit.clustering import (
    adjusted_mutual_info,
    completeness,
    expected_mutual_info,
    fowlkes_mallows,
    homogeneity,
    mutual_info,
    normalized_mutual_info,
    v_measure,
)

AVERAGES = ("arithmetic", "max", "min", "geometric")


@pytest.fixture(autouse=True)
def _sklearn_without_parameter_validation():
    """scikit-learn's per-call parameter validation (inspect.signature on every call) is most of the
    reference's time over 1000 labelings; the inputs here are valid, and skipping it changes no value."""
    with sklearn.config_context(skip_parameter_validation=True):
        yield


def random_labelings(count=1000, seed=20261201):
    """1000 labelings: n = 1 and 2, one cluster, all singletons, and random sizes/cluster counts."""
    rng = np.random.default_rng(seed)
    cases = [
        ([0], [0]),
        ([0], [5]),
        ([0, 0], [0, 0]),
        ([0, 1], [0, 0]),
        ([0, 0], [0, 1]),
        ([0, 1], [1, 0]),
        ([0, 1], [0, 1]),
    ]
    while len(cases) < count:
        r = rng.random()
        n = int(rng.choice([1, 2, 3, 5, 10, 30, 100, 300, 600, 1000]))

        def lab(kind):
            if kind == "one":
                return np.zeros(n, np.int64)
            if kind == "singletons":
                return rng.permutation(n)
            k = int(rng.integers(1, max(2, n // int(rng.choice([1, 2, 5, 20, 100]))) + 1))
            if rng.random() < 0.3:  # skewed sizes
                return np.minimum(rng.geometric(0.3, n) - 1, k - 1)
            return rng.integers(0, k, n)

        ku = "one" if r < 0.05 else "singletons" if r < 0.1 else "random"
        kv = "one" if 0.1 <= r < 0.13 else "singletons" if 0.13 <= r < 0.18 else "random"
        cases.append((lab(ku), lab(kv)))
    return cases


CASES = random_labelings()


def is_singletons(x):
    return len(set(np.asarray(x).tolist())) == len(x)


def test_cases_cover_the_edge_cases():
    kinds = {"n=1": 0, "n=2": 0, "one cluster": 0, "all singletons": 0}
    for u, v in CASES:
        n = len(u)
        kinds["n=1"] += n == 1
        kinds["n=2"] += n == 2
        kinds["one cluster"] += n > 1 and (
            len(set(np.asarray(u).tolist())) == 1 or len(set(np.asarray(v).tolist())) == 1
        )
        kinds["all singletons"] += n > 2 and (is_singletons(u) or is_singletons(v))
    assert len(CASES) == 1000 and all(c >= 10 for c in kinds.values()), kinds


def test_mutual_info_and_expected_mutual_info_against_sklearn():
    for u, v in CASES:
        assert mutual_info(u, v) == pytest.approx(skm.mutual_info_score(u, v), abs=1e-10)
        c = contingency_matrix(u, v, sparse=True)
        assert expected_mutual_info(u, v) == pytest.approx(expected_mutual_information(c, len(u)), abs=1e-10)


def test_adjusted_mutual_info_against_sklearn():
    checked = 0
    for u, v in CASES:
        n = len(u)
        degenerate = (
            n > 1
            and (is_singletons(u) or is_singletons(v))
            and not (len(set(np.asarray(u).tolist())) == 1 or len(set(np.asarray(v).tolist())) == 1)
        )
        for avg in AVERAGES:
            ours = adjusted_mutual_info(u, v, average_method=avg)
            ref = skm.adjusted_mutual_info_score(u, v, average_method=avg)
            if degenerate:  # I(U;V) is the same for every permutation: exact values, not sklearn's noise
                if avg == "min" or (is_singletons(u) and is_singletons(v)):
                    # 0/0 (I equals the bound); scikit-learn returns rounding noise around 1 (e.g. 1.5)
                    assert ours == 1.0
                    continue
                # exactly 0 (E[I] = I); scikit-learn's lgamma noise reaches 1.4e-10 at n = 1000
                assert ours == 0.0 and abs(ref) < 1e-9
                continue
            assert ours == pytest.approx(ref, abs=1e-10), (n, avg)
            checked += 1
    assert checked >= 3700  # of 4000 (1000 labelings x 4 averages); the rest: exact degenerate values


def test_ami_degenerate_conventions():
    ten = list(range(10))
    three = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert adjusted_mutual_info(ten, three) == 0.0
    assert adjusted_mutual_info(ten, three, average_method="min") == 1.0
    assert skm.adjusted_mutual_info_score(ten, three, average_method="min") != pytest.approx(1.0, abs=0.1)
    assert adjusted_mutual_info(ten, ten[::-1]) == 1.0
    assert adjusted_mutual_info([0, 0, 0], [1, 2, 3]) == 0.0
    assert adjusted_mutual_info([4, 4], [1, 1]) == 1.0
    assert adjusted_mutual_info([4], [1]) == 1.0
    assert adjusted_mutual_info([0, 1, 0, 1], [0, 1, 0, 1], average_method="geometric") == 1.0


def exact_emi(u, v):
    """E[MI] with exact hypergeometric probabilities C(a,m) C(n-a,b-m) / C(n,b)."""
    n = len(u)
    a = np.bincount(np.unique(u, return_inverse=True)[1])
    b = np.bincount(np.unique(v, return_inverse=True)[1])
    terms = []
    for ai in a.tolist():
        for bj in b.tolist():
            den = math.comb(n, bj)
            for m in range(max(1, ai + bj - n), min(ai, bj) + 1):
                p = Fraction(math.comb(ai, m) * math.comb(n - ai, bj - m), den)
                terms.append(float(p) * m / n * math.log(n * m / (ai * bj)))
    return math.fsum(terms)


@pytest.mark.parametrize("n,ku,kv", [(50, 3, 4), (400, 7, 5), (2000, 12, 9), (3000, 2, 40)])
def test_expected_mutual_info_against_exact_binomials(n, ku, kv):
    rng = np.random.default_rng(n)
    u, v = rng.integers(0, ku, n), np.minimum(rng.geometric(0.2, n) - 1, kv - 1)
    ref = exact_emi(u, v)
    assert expected_mutual_info(u, v) == pytest.approx(ref, rel=1e-13)


def test_expected_mutual_info_with_a_singleton_side_is_the_entropy():
    """All singletons on one side: I(U;V) = H(other side) for every permutation, so E[I] = H exactly.
    (scikit-learn's log-gamma sums lose 1.3e-10 at n = 3000 with 1018 clusters; ours uses Loader's pmf.)"""
    rng = np.random.default_rng(9)
    for n, k in [(3000, 1018), (3000, 20), (10_000, 3000), (10_000, 2), (10**6, 10), (10**6, 1000)]:
        v = rng.integers(0, k, n)
        c = np.bincount(v)
        c = c[c > 0]
        h = math.fsum(-(x / n) * math.log(x / n) for x in c.tolist())
        assert expected_mutual_info(rng.permutation(n), v) == pytest.approx(h, rel=1e-14)
        assert mutual_info(rng.permutation(n), v) == pytest.approx(h, rel=1e-13)


def test_ami_many_clusters_against_sklearn():
    """n = 2 x 10^4 with 10^3 x 10^3 clusters: same values."""
    rng = np.random.default_rng(11)
    n = 20_000
    u, v = rng.integers(0, 1000, n), rng.integers(0, 1000, n)
    v[: n // 2] = u[: n // 2]
    ours = adjusted_mutual_info(u, v)
    assert ours == pytest.approx(skm.adjusted_mutual_info_score(u, v), abs=1e-10)
    assert 0.3 < ours < 0.7


def test_pair_and_entropy_measures_against_sklearn():
    for u, v in CASES:
        assert fowlkes_mallows(u, v) == pytest.approx(skm.fowlkes_mallows_score(u, v), abs=1e-12)
        h, c, vm = skm.homogeneity_completeness_v_measure(u, v)
        assert homogeneity(u, v) == pytest.approx(h, abs=1e-12)
        assert completeness(u, v) == pytest.approx(c, abs=1e-12)
        assert v_measure(u, v) == pytest.approx(vm, abs=1e-12)
        for beta in (0.5, 2.0):
            assert v_measure(u, v, beta=beta) == pytest.approx(skm.v_measure_score(u, v, beta=beta), abs=1e-12)


def test_identities():
    rng = np.random.default_rng(2)
    for _ in range(50):
        n = int(rng.integers(2, 500))
        u, v = rng.integers(0, 6, n), rng.integers(0, 4, n)
        assert homogeneity(u, v) == pytest.approx(completeness(v, u), abs=1e-15)
        assert v_measure(u, v) == pytest.approx(normalized_mutual_info(u, v, average_method="arithmetic"), abs=1e-12)
        assert v_measure(u, v, beta=2.0) == pytest.approx(v_measure(v, u, beta=0.5), abs=1e-12)
        assert expected_mutual_info(u, v) == pytest.approx(expected_mutual_info(v, u), rel=1e-12)
        assert 0 <= expected_mutual_info(u, v) <= mutual_info(u, u)


def test_errors():
    with pytest.raises(InputError, match="average"):
        adjusted_mutual_info([0, 1], [0, 1], average_method="mean")
    with pytest.raises(InputError, match="beta"):
        v_measure([0, 1], [0, 1], beta=-1)
    for f in (
        mutual_info,
        expected_mutual_info,
        adjusted_mutual_info,
        fowlkes_mallows,
        homogeneity,
        completeness,
        v_measure,
    ):
        with pytest.raises(InputError, match="partitions"):
            f([[0, 1, 2], [2, 3]], [0, 0, 1, 1])
        with pytest.raises(InputError, match="V"):
            f([0, 1, 1], [0, 1])
