"""The Figure 7 machinery (LFR graphs + community detection) on a small graph."""
import numpy as np
import pytest

pytest.importorskip("igraph")
pytest.importorskip("networkx")

from agreekit.clustering import adjusted_rand_index  # noqa: E402
from agreekit.clustering.lfr import (LFRParameters, detect_communities, lfr_graph, lfr_trial,  # noqa: E402
                                    min_degree_for, summarize_trials, trials_frame)
from agreekit._validation import InputError  # noqa: E402

SMALL = LFRParameters(n=200, average_degree=12, max_degree=30, min_community=20, max_community=50)


def test_min_degree_matches_the_truncated_power_law_mean():
    kmin = min_degree_for(20, 50, 2.0)
    k = np.arange(kmin, 51.0)
    assert abs(np.sum(k ** -1.0) / np.sum(k ** -2.0) - 20) < 1.0
    assert kmin == 10


def test_lfr_graph_and_detection_are_deterministic_and_sensible():
    edges, truth, used = lfr_graph(SMALL, 0.1, seed=3)
    assert edges.shape[1] == 2 and np.all(edges[:, 0] != edges[:, 1])
    assert truth.min() == 0 and truth.size == 200
    e2, t2, u2 = lfr_graph(SMALL, 0.1, seed=3)
    assert used == u2 and np.array_equal(edges, e2) and np.array_equal(truth, t2)
    for alg in ("louvain", "walktrap", "infomap", "fastgreedy"):
        found = detect_communities(200, edges, alg, seed=5)
        assert np.array_equal(found, detect_communities(200, edges, alg, seed=5))
        # well-separated communities (mu = 0.1) are recovered well by every method
        assert adjusted_rand_index(truth, found) > 0.5, alg


def test_trial_records_and_summary():
    recs = [lfr_trial(SMALL, mu, seed=s, algorithms=["louvain", "walktrap"]) for mu in (0.1, 0.6) for s in (1, 2)]
    assert recs[0] == lfr_trial(SMALL, 0.1, seed=1, algorithms=["louvain", "walktrap"])
    r = recs[0]["algorithms"]["louvain"]["scores"]
    assert set(r) == {"ari_delta", "ari_delta_approx", "ri", "vi_agreement", "nmi_sum", "nmi_sqrt"}
    frame = trials_frame(recs)
    summary = summarize_trials(frame)
    assert len(frame) == 4 * 2 * 6
    assert set(summary["count"]) == {2}
    easy = summary[(summary["measure"] == "nmi_sum") & (summary["mu"] == 0.1)]["mean"]
    hard = summary[(summary["measure"] == "nmi_sum") & (summary["mu"] == 0.6)]["mean"]
    assert easy.min() > hard.max()


def test_bad_parameters():
    with pytest.raises(InputError, match="tau2"):
        LFRParameters(tau2=1.0)
    with pytest.raises(InputError, match="algorithm"):
        detect_communities(3, np.array([[0, 1]]), "kmeans", seed=0)
