"""Property tests over the measure registry (as scikit-learn's metrics/cluster/tests/test_common.py)."""

import zlib

import numpy as np
import pytest
import scipy.sparse as sp

from agreekit.clustering import MEASURES, get_measure, list_measures
from agreekit._validation import InputError


def inputs_for(spec, rng, n=40):
    if spec.input == "partition":
        return rng.integers(0, 5, n), rng.integers(0, 3, n)
    soft = spec.input == "soft"

    def cover(k):
        m = np.zeros((n, k))
        for i in range(n):
            cs = rng.choice(k, size=rng.integers(1, 3), replace=False)
            m[i, cs] = rng.random(cs.size) + 0.1 if soft else 1
        return m

    return cover(5), cover(4)


def relabel(x, rng):
    """Permute the cluster labels / columns."""
    if np.ndim(x) == 1:
        perm = rng.permutation(int(x.max()) + 1)
        return perm[x] + 100
    return x[:, rng.permutation(x.shape[1])]


SPECS = list(MEASURES.values())


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_symmetry_and_invariance(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))
    for _ in range(3):
        U, V = inputs_for(spec, rng)
        base = spec(U, V)
        assert np.isfinite(base)
        if spec.symmetric:
            assert spec(V, U) == pytest.approx(base, rel=1e-12, abs=1e-12)
        # label (cluster) permutation invariance
        assert spec(relabel(U, rng), relabel(V, rng)) == pytest.approx(base, rel=1e-12, abs=1e-12)
        # node permutation invariance (both clusterings permuted alike)
        perm = rng.permutation(len(U))
        assert spec(U[perm], V[perm]) == pytest.approx(base, rel=1e-12, abs=1e-12)
        # identity: perfect agreement
        if spec.kind == "unnormalized":  # e.g. I(U;U) = H(U) >= I(U;V)
            assert spec(U, U) >= base and spec(V, V) >= base
            continue
        assert spec(U, U) == pytest.approx(1.0 if spec.kind == "similarity" else 0.0, abs=1e-12)
        # range
        if spec.kind == "similarity":
            assert base <= 1 + 1e-12
        else:
            assert base >= 0


@pytest.mark.parametrize("spec", [s for s in SPECS if s.graph], ids=[s.name for s in SPECS if s.graph])
@pytest.mark.parametrize("mode", ["transform", "plus"])
def test_graph_aware_symmetry_and_node_permutation(spec, mode):
    rng = np.random.default_rng(11)
    U, V = inputs_for(spec, rng, n=30)
    A = np.triu((rng.random((30, 30)) < 0.2).astype(float), 1)
    A = A + A.T
    base = spec(U, V, graph=A, mode=mode)
    assert spec(V, U, graph=A, mode=mode) == pytest.approx(base, rel=1e-12)
    perm = rng.permutation(30)
    assert spec(U[perm], V[perm], graph=sp.csr_array(A[np.ix_(perm, perm)]), mode=mode) == pytest.approx(
        base, rel=1e-12
    )
    assert spec(U, U, graph=A, mode=mode) == pytest.approx(1.0, abs=1e-12)


def test_registry_lookup_and_listing():
    assert get_measure("ARI") is MEASURES["ari"]
    assert get_measure("adjusted_rand_index") is MEASURES["ari"]
    assert get_measure("nmi") is MEASURES["nmi_sum"]
    with pytest.raises(InputError, match="measure"):
        get_measure("no_such_measure")
    names = {d["name"] for d in list_measures()}
    assert {
        "ri",
        "ari",
        "ari_prime",
        "vi",
        "nmi_sum",
        "nmi_sqrt",
        "jaccard",
        "f1",
        "mirkin",
        "ri_delta",
        "ari_delta",
        "ri_delta_approx",
        "ari_delta_approx",
        "i_norm",
        "i_sqrt_tr",
        "omega",
        "omega_unadjusted",
        "mi",
        "ami",
        "ami_max",
        "ami_min",
        "ami_sqrt",
        "fowlkes_mallows",
        "homogeneity",
        "completeness",
        "v_measure",
        "overlapping_nmi_lfk",
        "overlapping_nmi_mgh",
    } <= names
    assert get_measure("adjusted_mutual_info") is MEASURES["ami"]
    assert get_measure("onmi") is MEASURES["overlapping_nmi_lfk"]
    assert get_measure("nmi-mgh") is MEASURES["overlapping_nmi_mgh"]
    assert {d["kind"] for d in list_measures()} == {"similarity", "distance", "unnormalized"}


def test_asymmetric_measures_swap_roles():
    rng = np.random.default_rng(17)
    U, V = rng.integers(0, 5, 60), rng.integers(0, 3, 60)
    assert MEASURES["homogeneity"](U, V) == pytest.approx(MEASURES["completeness"](V, U), abs=1e-15)
    assert MEASURES["homogeneity"](U, V) != pytest.approx(MEASURES["homogeneity"](V, U), abs=1e-3)


def test_information_measures_cite_their_papers():
    papers = {
        "mi": "Cover",
        "ami": "Vinh",
        "ami_max": "Vinh",
        "ami_min": "Vinh",
        "ami_sqrt": "Vinh",
        "fowlkes_mallows": "Fowlkes",
        "homogeneity": "Rosenberg",
        "completeness": "Rosenberg",
        "v_measure": "Rosenberg",
        "overlapping_nmi_lfk": "Lancichinetti",
        "overlapping_nmi_mgh": "McDaid",
    }
    for name, author in papers.items():
        doc = MEASURES[name].func.__doc__
        assert "References" in doc and author in doc.split("References")[1], name


def test_partition_measures_reject_overlapping_input():
    cover = [[0, 1, 2], [2, 3]]
    for spec in SPECS:
        if spec.input == "partition":
            with pytest.raises(InputError, match="partitions"):
                spec(cover, [0, 0, 1, 1])
        elif spec.input == "crisp":
            with pytest.raises(InputError, match="soft"):
                spec(np.array([[0.5, 0.5], [1, 0]]), [0, 1])
            assert np.isfinite(spec(cover, [0, 0, 1, 1]))
        else:
            assert np.isfinite(spec(cover, [0, 0, 1, 1]))


def test_every_measure_returns_a_python_float():
    rng = np.random.default_rng(3)
    for spec in SPECS:
        U, V = inputs_for(spec, rng, n=12)
        assert type(spec.func(U, V)) is float, spec.name
