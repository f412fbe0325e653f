"""The normalizing input layer: equivalent forms, node sets, uncovered nodes, graphs, errors."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from agreekit._validation import InputError
from agreekit.clustering import (
    omega,
    adjusted_rand_index,
    ari_delta,
    as_clustering,
    as_graph,
    generalized_distance,
    i_sqrt_tr,
    normalized_mutual_info,
    omega_unadjusted,
    ri_delta,
)


def test_equivalent_forms_of_one_partition():
    labels = [2, 2, 0, 1, 1, 1]
    V = [0, 1, 0, 1, 0, 1]
    forms = [
        labels,
        np.array(labels),
        ["b", "b", "x", "c", "c", "c"],
        [[0, 1], [2], [3, 4, 5]],
        [{5, 4, 3}, (2,), [1, 0]],
        np.eye(3)[labels],
        sp.csr_array(np.eye(3)[labels]),
        {i: l for i, l in enumerate(labels)},
    ]
    ref = adjusted_rand_index(labels, V)
    for f in forms:
        c = as_clustering(f)
        assert c.is_partition and c.n == 6 and c.k == 3
        assert adjusted_rand_index(f, V) == pytest.approx(ref, abs=1e-15)
        assert ari_delta(f, V) == pytest.approx(ref, abs=1e-15)


def test_covers_with_arbitrary_node_ids_are_aligned():
    U = [["a", "b"], ["c", "d", "e"]]
    V = [["e", "d"], ["c", "a", "b"]]
    # label vectors over nodes a..e in sorted order
    assert adjusted_rand_index(U, V) == pytest.approx(adjusted_rand_index([0, 0, 1, 1, 1], [1, 1, 1, 0, 0]))
    assert omega_unadjusted(U, V) == pytest.approx(omega_unadjusted([0, 0, 1, 1, 1], [1, 1, 1, 0, 0]))


def test_mismatched_node_sets_raise():
    with pytest.raises(InputError, match="`V` is over a different node set"):
        ri_delta([[1, 2], [3]], [[1, 2], [4]])
    with pytest.raises(InputError, match="`V` has 4 nodes but `U` has 3"):
        adjusted_rand_index([0, 1, 1], [0, 1, 1, 0])
    with pytest.raises(InputError, match="different node set"):
        ari_delta([0, 1, 1], [[0, 1], [2, 3]])  # label vector = nodes 0..2


def test_uncovered_nodes_conventions():
    cover = [[0, 1], [2]]
    nodes = range(5)
    lumped = as_clustering(cover, nodes=nodes)  # default: one extra cluster {3, 4}
    assert lumped.is_partition and lumped.k == 3
    assert adjusted_rand_index(lumped, [0, 0, 1, 2, 2]) == 1.0
    single = as_clustering(cover, nodes=nodes, uncovered="singletons")
    assert adjusted_rand_index(single, [0, 0, 1, 2, 3]) == 1.0
    ignored = as_clustering(cover, nodes=nodes, uncovered="ignore")
    assert not ignored.is_partition
    # ignored nodes co-occur with nobody: identical to singletons for the exact co-membership form
    assert ari_delta(ignored, [0, 0, 1, 2, 3]) == pytest.approx(1.0)
    with pytest.raises(InputError, match="partitions"):
        adjusted_rand_index(ignored, [0, 0, 1, 2, 3])
    with pytest.raises(InputError, match="uncovered"):
        as_clustering(cover, uncovered="drop")


@pytest.mark.parametrize(
    "bad,match",
    [
        ([], "empty"),
        ([0, 1, np.nan], "NaN"),
        (np.array([[0.5, -0.1], [1, 0]]), "negative"),
        (np.array([[np.inf, 0], [1, 0]]), "NaN or infinite"),
        ([0, [1, 2]], "mixes"),
        (np.zeros((0, 3)), "empty"),
        (5, "label vector"),
        ([None, 1], "missing"),
    ],
)
def test_bad_clusterings(bad, match):
    with pytest.raises(InputError, match=match):
        ari_delta(bad, bad)


def test_graph_forms_agree():
    G = nx.karate_club_graph()
    truth = [0 if G.nodes[v]["club"] == "Mr. Hi" else 1 for v in G]
    rng = np.random.default_rng(0)
    cand = rng.integers(0, 3, G.number_of_nodes())
    edges = [(a, b) for a, b in G.edges]
    A = nx.to_scipy_sparse_array(G, nodelist=range(34), weight=None)
    ref = ari_delta(truth, cand, graph=edges)
    nx.set_edge_attributes(G, 1.0, "weight")
    assert ari_delta(truth, cand, graph=G) == pytest.approx(ref, abs=1e-14)
    assert ari_delta(truth, cand, graph=A) == pytest.approx(ref, abs=1e-14)
    assert ari_delta(truth, cand, graph=A.toarray()) == pytest.approx(ref, abs=1e-14)
    # reversed / duplicated-direction edges and self-loops
    assert ari_delta(truth, cand, graph=[(b, a) for a, b in edges] + [(0, 0)]) == pytest.approx(ref, abs=1e-14)
    # weighted edge list: weight 2 on every edge == scaling √w -> same normalized measures
    assert i_sqrt_tr(truth, cand, graph=[(a, b, 2.0) for a, b in edges]) == pytest.approx(
        i_sqrt_tr(truth, cand, graph=edges), abs=1e-14
    )


def test_bad_graphs():
    with pytest.raises(InputError, match="not a node"):
        ari_delta([0, 0, 1], [0, 1, 1], graph=[(0, 5)])
    with pytest.raises(InputError, match="symmetric"):
        ari_delta([0, 0, 1], [0, 1, 1], graph=sp.csr_array(np.triu(np.ones((3, 3)), 1)))
    with pytest.raises(InputError, match="positive"):
        ari_delta([0, 0, 1], [0, 1, 1], graph=[(0, 1, -1.0)])
    with pytest.raises(InputError, match="no edges"):
        ari_delta([0, 0, 1], [0, 1, 1], graph=[])
    with pytest.raises(InputError, match="mode"):
        ari_delta([0, 0, 1], [0, 1, 1], graph=[(0, 1)], mode="sum")
    with pytest.raises(InputError, match="graph"):
        generalized_distance([0, 0, 1], [0, 1, 1], phi="x^2", eta="degree")
    with pytest.raises(InputError, match="phi"):
        generalized_distance([0, 0, 1], [0, 1, 1], phi="cube")
    with pytest.raises(InputError, match="average"):
        normalized_mutual_info([0, 0, 1], [0, 1, 1], average_method="median")
    g = as_graph([(0, 1), (1, 2)], as_clustering([0, 0, 1]))
    assert g.n_edges == 2


def test_omega_rejects_soft_memberships():
    with pytest.raises(InputError, match="soft"):
        omega(np.array([[0.3, 0.7], [1, 0]]), [0, 1])


def test_networkx_is_optional_for_the_library():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['networkx'] = None\n"
        "from agreekit.clustering import ari_delta\n"
        "print(ari_delta([0, 0, 1, 1], [0, 1, 1, 1], graph=[(0, 1), (1, 2), (2, 3)]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout) == pytest.approx(ari_delta([0, 0, 1, 1], [0, 1, 1, 1], graph=[(0, 1), (1, 2), (2, 3)]))


def test_integer_array_cover_fast_path_equals_generic_path():
    """Covers of 1-D integer arrays (e.g. LFR communities) take a vectorized path: same result."""
    import numpy as np
    from agreekit.clustering import as_clustering
    from agreekit._validation import InputError

    rng = np.random.default_rng(12)
    for trial in range(40):
        base = rng.choice([0, 5, -7, 10**9], p=[0.5, 0.2, 0.15, 0.15])
        n = int(rng.integers(1, 60))
        ids = base + (rng.permutation(3 * n)[:n] if trial % 2 else np.arange(n))
        k = int(rng.integers(1, 6))
        cover = [rng.choice(ids, size=int(rng.integers(1, n + 1)), replace=False) for _ in range(k)]
        for nodes in (None, ids.tolist(), rng.permutation(np.concatenate([ids, [base - 1]])).tolist()):
            fast = as_clustering(cover, nodes=nodes, uncovered="ignore")
            slow = as_clustering([c.tolist() for c in cover], nodes=nodes, uncovered="ignore")
            assert fast.nodes == slow.nodes and fast.n == slow.n and fast.crisp == slow.crisp
            assert fast.is_partition == slow.is_partition
            assert (fast.matrix != slow.matrix).nnz == 0
            for unc in ("cluster", "singletons"):
                a, b = (
                    as_clustering(cover, nodes=nodes, uncovered=unc),
                    as_clustering([c.tolist() for c in cover], nodes=nodes, uncovered=unc),
                )
                assert a.k == b.k and (a.matrix != b.matrix).nnz == 0
    with pytest.raises(InputError, match="not in `nodes`"):
        as_clustering([np.array([0, 1]), np.array([7])], nodes=range(3))
    with pytest.raises(InputError, match="not in `nodes`"):
        as_clustering([np.array([0, 1]), np.array([-1])], nodes=[1, 0, 5])
    # issue 14: the fast path refuses what the generic path refuses (empty cluster, node twice)
    for cover, fragment in (
        ([np.array([0, 1]), np.array([], dtype=np.int64)], "cluster 1 is empty"),
        ([np.array([0, 1]), np.array([2, 3, 2])], "cluster 1 lists node 2 twice"),
    ):
        for form in (cover, [c.tolist() for c in cover]):
            with pytest.raises(InputError, match=fragment):
                as_clustering(form)
