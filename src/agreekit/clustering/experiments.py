"""The seed's Figure 7 experiment: community detection on LFR benchmark graphs.

LFR graphs come from networkx's generator (``networkx.LFR_benchmark_graph``), community
detection from python-igraph (Louvain = multilevel, Walktrap, Infomap, Spinglass = the Potts
model of Reichardt & Bornholdt, fast greedy modularity).  Both are optional dependencies
(``pip install agreekit[workflow]``); they are imported only when these functions run.

Deviations from the seed's settings (documented in the README):

* networkx needs the community-size exponent ``tau2 > 1`` (the seed uses 1); default 1.1;
* networkx cannot meet ``average_degree`` together with ``max_degree`` (its root finder fails
  with "Could not match average_degree"); we pass the ``min_degree`` whose truncated discrete
  power law on [min_degree, max_degree] has the mean closest to ``average_degree``;
* networkx's generator may add self-loops; they are removed before detection and ignored by
  the measures.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agreekit._validation import InputError, check_choice, check_float, check_int

__all__ = ["LFRParameters", "min_degree_for", "lfr_graph", "detect_communities", "lfr_trial",
           "ALGORITHMS", "FIGURE7_MEASURES"]

#: community-detection algorithms (python-igraph implementations)
ALGORITHMS = ("louvain", "walktrap", "infomap", "spinglass", "fastgreedy")

#: measure key -> (registry name, label in the figure)
FIGURE7_MEASURES = {
    "ari_delta": ("ari_delta", "ARI_δ"),
    "ari_delta_approx": ("ari_delta_approx", "ARI′_δ"),
    "ri": ("ri", "RI"),
    "vi_agreement": ("vi_normalized", "1 − VI/log n"),
    "nmi_sum": ("nmi_sum", "NMI_Σ"),
    "nmi_sqrt": ("nmi_sqrt", "NMI_√"),
}


@dataclass(frozen=True)
class LFRParameters:
    """LFR generator settings (seed sec. 5.1 defaults, with the deviations above)."""

    n: int = 1000
    tau1: float = 2.0
    tau2: float = 1.1
    average_degree: float = 20.0
    max_degree: int = 50
    min_community: int = 20
    max_community: int = 100

    def __post_init__(self):
        check_int("n", self.n, minimum=10)
        check_float("tau1", self.tau1, minimum=1.0, inclusive=False)
        check_float("tau2", self.tau2, minimum=1.0, inclusive=False)
        check_float("average_degree", self.average_degree, minimum=1.0)
        check_int("max_degree", self.max_degree, minimum=2, maximum=self.n - 1)
        check_int("min_community", self.min_community, minimum=2)
        check_int("max_community", self.max_community, minimum=self.min_community, maximum=self.n)
        if self.average_degree >= self.max_degree:
            raise InputError("average_degree", f"must be below max_degree ({self.max_degree})")


def min_degree_for(average_degree: float, max_degree: int, tau1: float) -> int:
    """Minimum degree whose discrete power law k^-tau1 on [k_min, max_degree] has mean closest to ``average_degree``."""
    best, best_err = 1, np.inf
    for kmin in range(1, int(max_degree) + 1):
        k = np.arange(kmin, int(max_degree) + 1, dtype=np.float64)
        p = k ** (-tau1)
        err = abs(float(np.sum(k * p) / np.sum(p)) - average_degree)
        if err < best_err:
            best, best_err = kmin, err
    return best


def lfr_graph(params: LFRParameters, mu: float, *, seed: int, max_attempts: int = 50):
    """One LFR graph: ``(edges, labels, used_seed)``; edges as an (m, 2) int array without self-loops.

    The generator sometimes fails to place communities; the next seed (``seed + 1``, ...) is then
    tried, deterministically, up to ``max_attempts`` times.
    """
    import networkx as nx

    mu = check_float("mu", mu, minimum=0.0, maximum=1.0)
    kmin = min_degree_for(params.average_degree, params.max_degree, params.tau1)
    last = None
    for attempt in range(max_attempts):
        s = int(seed) + attempt
        try:
            G = nx.LFR_benchmark_graph(params.n, params.tau1, params.tau2, mu, min_degree=kmin,
                                       max_degree=params.max_degree, min_community=params.min_community,
                                       max_community=params.max_community, seed=s, max_iters=1000)
        except (nx.ExceededMaxIterations, OverflowError, ValueError) as exc:
            last = exc
            continue
        labels = np.full(params.n, -1, dtype=np.int64)
        comms = {}
        for v in range(params.n):
            key = min(G.nodes[v]["community"])
            labels[v] = comms.setdefault(key, len(comms))
        edges = np.array([(a, b) for a, b in G.edges() if a != b], dtype=np.int64).reshape(-1, 2)
        return edges, labels, s
    raise RuntimeError(f"LFR generator failed {max_attempts} times (last error: {last!r})")


def detect_communities(n: int, edges: np.ndarray, algorithm: str, *, seed: int) -> np.ndarray:
    """Labels found by ``algorithm`` (see :data:`ALGORITHMS`) on an unweighted graph (igraph)."""
    import igraph as ig

    check_choice("algorithm", algorithm, ALGORITHMS)
    ig.set_random_number_generator(random.Random(int(seed)))
    g = ig.Graph(n=n, edges=[tuple(e) for e in np.asarray(edges).tolist()])
    g.simplify()
    if algorithm == "louvain":
        return np.asarray(g.community_multilevel().membership, dtype=np.int64)
    if algorithm == "walktrap":
        return np.asarray(g.community_walktrap().as_clustering().membership, dtype=np.int64)
    if algorithm == "infomap":
        return np.asarray(g.community_infomap().membership, dtype=np.int64)
    if algorithm == "fastgreedy":
        return np.asarray(g.community_fastgreedy().as_clustering().membership, dtype=np.int64)
    # spinglass needs a connected graph: run it per connected component
    labels = np.zeros(n, dtype=np.int64)
    offset = 0
    for comp in g.connected_components():
        if len(comp) < 3:
            labels[comp] = offset
            offset += 1
            continue
        sub = g.induced_subgraph(comp)
        memb = np.asarray(sub.community_spinglass().membership, dtype=np.int64)
        labels[comp] = memb + offset
        offset += int(memb.max()) + 1
    return labels


def lfr_trial(params: LFRParameters, mu: float, *, seed: int, algorithms: Sequence[str] = ALGORITHMS,
              measures: Sequence[str] = tuple(FIGURE7_MEASURES)) -> dict:
    """Generate one LFR graph, run every algorithm, score it against the ground truth.

    ``seed`` drives everything (graph and algorithms, via ``numpy.random.SeedSequence``).
    Returns a JSON-able dict with the graph's size, the seed used and, per algorithm, the number
    of communities found and the agreement under each measure of :data:`FIGURE7_MEASURES`.
    """
    from agreekit.clustering._registry import get_measure

    for m in measures:
        check_choice("measures", m, tuple(FIGURE7_MEASURES))
    ss = np.random.SeedSequence(int(seed))
    graph_seed, *alg_seeds = (int(s.generate_state(1)[0]) for s in ss.spawn(1 + len(algorithms)))
    edges, truth, used = lfr_graph(params, mu, seed=graph_seed % (2**31))
    out = {"mu": float(mu), "seed": int(seed), "graph_seed": used, "n": params.n, "edges": int(len(edges)),
           "true_communities": int(truth.max()) + 1, "algorithms": {}}
    for alg, s in zip(algorithms, alg_seeds):
        found = detect_communities(params.n, edges, alg, seed=s)
        scores = {}
        for m in measures:
            name, _ = FIGURE7_MEASURES[m]
            val = get_measure(name)(truth, found)
            scores[m] = 1.0 - val if m == "vi_agreement" else val
        out["algorithms"][alg] = {"communities": int(found.max()) + 1, "scores": scores}
    return out


def trials_frame(records: Sequence[dict]):
    """Long table (pandas) of trial records: mu, seed, algorithm, communities, measure, value."""
    import pandas as pd

    rows = []
    for rec in records:
        for alg, res in rec["algorithms"].items():
            for m, v in res["scores"].items():
                rows.append({"mu": rec["mu"], "seed": rec["seed"], "algorithm": alg,
                             "true_communities": rec["true_communities"], "communities": res["communities"],
                             "measure": m, "value": v})
    return pd.DataFrame(rows).sort_values(["measure", "algorithm", "mu", "seed"], kind="stable").reset_index(drop=True)


def summarize_trials(frame):
    """Mean, standard deviation and count over repeats per (measure, algorithm, mu)."""
    g = frame.groupby(["measure", "algorithm", "mu"], sort=True)
    out = g["value"].agg(["mean", "std", "count"]).reset_index()
    out["communities_mean"] = g["communities"].mean().to_numpy()
    return out


def plot_figure7(summary, path, *, measures: Sequence[str] | None = None) -> None:
    """Figure 7 of the seed: agreement with the ground truth vs mixing parameter, one panel per measure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measures = list(measures or [m for m in FIGURE7_MEASURES if m in set(summary["measure"])])
    ncol = 3
    nrow = -(-len(measures) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.4 * nrow), squeeze=False, sharex=True)
    markers = dict(zip(ALGORITHMS, "osD^v"))
    for ax, m in zip(axes.ravel(), measures):
        sub = summary[summary["measure"] == m]
        for alg in [a for a in ALGORITHMS if a in set(sub["algorithm"])]:
            s = sub[sub["algorithm"] == alg].sort_values("mu")
            ax.errorbar(s["mu"], s["mean"], yerr=s["std"].fillna(0.0), marker=markers.get(alg, "o"), ms=4,
                        capsize=2, lw=1.2, label=alg)
        ax.set_title(FIGURE7_MEASURES[m][1])
        ax.set_xlabel("mixing parameter μ")
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(measures):]:
        ax.set_visible(False)
    axes.ravel()[0].legend(fontsize=8, loc="lower left")
    fig.suptitle("Agreement with the LFR ground truth (seed Figure 7)")
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)
