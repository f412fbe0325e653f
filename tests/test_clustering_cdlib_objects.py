"""cdlib ``NodeClustering`` objects whose graph has nodes no community covers.

cdlib scores such objects over the union of their communities (the graph's other nodes are not
counted); agreekit reads the objects the same way, so every score equals cdlib's on the same
objects.  ``nodes=list(graph)`` is the explicit way to a larger universe (uncovered nodes then
follow ``uncovered=``; by default one extra cluster).  Reference: cdlib 0.4.1's scores.
"""

import numpy as np
import pytest

import agreekit.clustering as ac

cdlib = pytest.importorskip("cdlib")  # the [test] extra; every test here needs it
nx = pytest.importorskip("networkx")
from cdlib import NodeClustering, evaluation  # noqa: E402


def _graph(n):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    return g


def _partial_cover(rng, covered, k, overlap):
    """k clusters covering exactly the nodes ``covered`` (overlapping when asked)."""
    labels = rng.integers(0, k, size=covered.size)
    labels[:k] = np.arange(k)  # no empty cluster
    clusters = [covered[labels == c].tolist() for c in range(k)]
    if overlap:
        for c in clusters:
            extra = rng.choice(covered, size=2, replace=False).tolist()
            c.extend(x for x in extra if x not in c)
    return clusters


def test_issue_example_omega_follows_cdlibs_node_set():
    g = _graph(10)  # nodes 8, 9 in no community of either clustering
    U, V = [[0, 1, 2, 3], [3, 4, 5], [6, 7]], [[0, 1, 2], [2, 3, 4, 5], [5, 6, 7]]
    cu, cv = NodeClustering(U, g, overlap=True), NodeClustering(V, g, overlap=True)
    ref = evaluation.omega(cu, cv).score
    assert ac.omega(cu, cv) == pytest.approx(ref, abs=1e-12)
    # the graph's node set on request: the seed authors' convention (one extra cluster of 8, 9)
    on_graph = ac.omega(ac.as_clustering(cu, nodes=list(g)), ac.as_clustering(cv, nodes=list(g)))
    assert on_graph == pytest.approx(ac.omega(U + [[8, 9]], V + [[8, 9]]), abs=1e-15)
    assert abs(on_graph - ref) > 0.05


@pytest.mark.parametrize("seed", range(6))
def test_every_score_equals_cdlib_on_partially_covering_objects(seed):
    rng = np.random.default_rng(7100 + seed)
    n = int(rng.integers(12, 40))
    g = _graph(n)
    covered = np.sort(rng.choice(n, size=n - int(rng.integers(1, 5)), replace=False))
    k1, k2 = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    P, Q = _partial_cover(rng, covered, k1, False), _partial_cover(rng, covered, k2, False)
    U, V = _partial_cover(rng, covered, k1, True), _partial_cover(rng, covered, k2, True)
    cp, cq = NodeClustering(P, g), NodeClustering(Q, g)
    cu, cv = NodeClustering(U, g, overlap=True), NodeClustering(V, g, overlap=True)
    pairs = [
        (ac.omega(cu, cv), evaluation.omega(cu, cv).score),
        (ac.overlapping_nmi(cu, cv), evaluation.overlapping_normalized_mutual_information_LFK(cu, cv).score),
        (
            ac.overlapping_nmi(cu, cv, variant="mgh"),
            evaluation.overlapping_normalized_mutual_information_MGH(cu, cv).score,
        ),
        (ac.adjusted_rand_index(cp, cq), evaluation.adjusted_rand_index(cp, cq).score),
        (ac.normalized_mutual_info(cp, cq), evaluation.normalized_mutual_information(cp, cq).score),
        (ac.adjusted_mutual_info(cp, cq), evaluation.adjusted_mutual_information(cp, cq).score),
    ]
    for i, (ours, theirs) in enumerate(pairs):
        assert ours == pytest.approx(theirs, abs=1e-12), i
    assert ac.as_clustering(cu).n == covered.size
    assert ac.as_clustering(cu, nodes=list(g)).n == n
