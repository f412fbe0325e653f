"""The seed's LFR experiments (sec. 5, Figures 7-9): community detection on LFR benchmarks.

* Figure 7 — unweighted LFR graphs, mixing μ varied; disjoint community detection
  (python-igraph: Louvain = multilevel, Walktrap, Infomap, Spinglass = the Potts model of
  Reichardt & Bornholdt, fast greedy modularity); measures ARI_δ, ARI′_δ, RI, 1 − VI/log n, NMI_Σ, NMI_√.
* Figure 8 — weighted LFR graphs (μ_t fixed, weight mixing μ_w varied); the same algorithms run
  with edge weights; measures ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′ (structure-dependent, weighted
  graph) and ARI, NMI.
* Figure 9 — overlapping LFR graphs (μ_t fixed, o_m memberships, fraction of overlapping nodes
  varied); overlapping community detection from cdlib (stand-ins for the seed's external
  programs, see :data:`OVERLAPPING_METHODS`); measures NMI′, NMI″, ω, Aω, RI′_δ, ARI′_δ.

Graphs come from :func:`agreekit.clustering.lfr.lfr_benchmark` (``generator="agreekit"``) or,
for Figure 7 and for comparison, from networkx's ``LFR_benchmark_graph`` (``generator="networkx"``;
it overshoots the requested μ, see the README).  networkx, python-igraph and cdlib are optional
dependencies (``pip install agreekit[workflow]``) imported only when these functions run.

networkx deviations (``generator="networkx"`` only): it needs ``tau2 > 1``; it cannot meet
``average_degree`` together with ``max_degree``, so the ``min_degree`` whose truncated power law has
the mean closest to ``average_degree`` is passed instead; its self-loops are removed.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agreekit._optional import pyplot
from agreekit._api import check_rng, renamed_parameters
from agreekit._validation import InputError, check_choice, check_float, check_int
from agreekit import clustering as C
from agreekit.clustering import (adjusted_rand_index, ari_delta, as_clustering, generalized_distance,
    normalized_mutual_info)
from agreekit.clustering._registry import get_measure
from agreekit.clustering.lfr import lfr_benchmark, realized_mixing

__all__ = ["LFRParameters", "min_degree_for", "lfr_graph", "detect_communities", "detect_overlapping",
           "lfr_trial", "weighted_lfr_trial", "overlapping_lfr_trial", "trials_frame", "summarize_trials",
           "plot_agreement", "plot_figure7", "ALGORITHMS", "OVERLAPPING_METHODS", "GENERATORS",
           "FIGURE7_MEASURES", "FIGURE8_MEASURES", "FIGURE9_MEASURES"]

#: community-detection algorithms (python-igraph implementations)
ALGORITHMS = ("louvain", "walktrap", "infomap", "spinglass", "fastgreedy")

#: overlapping community detection (cdlib) -> the seed's program it stands in for
OVERLAPPING_METHODS = {
    "slpa": "COPRA",            # multi-label propagation (speaker-listener variant of COPRA's idea)
    "core_expansion": "MOSES",  # seed/core expansion that finds many small communities, as MOSES does
    "lfm": "OSLOM",             # local fitness optimization, the precursor of OSLOM (same group)
    "big_clam": "BIGCLAM",      # cdlib's BigClam (threshold affiliation, overlapping)
    "demon": None,              # ego-network label propagation (extra, not in the seed)
}

#: graph generators
GENERATORS = ("agreekit", "networkx")

#: measure key -> (registry name, label in the figure)
FIGURE7_MEASURES = {
    "ari_delta": ("ari_delta", "ARI_δ"),
    "ari_delta_approx": ("ari_delta_approx", "ARI′_δ"),
    "ri": ("ri", "RI"),
    "vi_agreement": ("vi_normalized", "1 − VI/log n"),
    "nmi_sum": ("nmi_sum", "NMI_Σ"),
    "nmi_sqrt": ("nmi_sqrt", "NMI_√"),
}

#: Figure 8 measure key -> label (structure-dependent ones use the weighted graph)
FIGURE8_MEASURES = {
    "ari_xi": "ARI^ξ_{x²}",
    "ari_sigma_d": "ARI^{Σd}_{x²}",
    "c_bot_ari_prime": "C_⊥ARI′",
    "ari": "ARI",
    "nmi": "NMI",
}

#: Figure 9 measure key -> label
FIGURE9_MEASURES = {
    "nmi_lfk": "NMI′ (LFK)",
    "nmi_mgh": "NMI″ (MGH)",
    "omega": "ω",
    "adjusted_omega": "Aω",
    "ri_delta_approx": "RI′_δ",
    "ari_delta_approx": "ARI′_δ",
}

_PLOT_LABELS = {**{k: v[1] for k, v in FIGURE7_MEASURES.items()}, **FIGURE8_MEASURES, **FIGURE9_MEASURES}
_MATH = {"ARI^ξ_{x²}": r"$ARI^{\xi}_{x^2}$", "ARI^{Σd}_{x²}": r"$ARI^{\Sigma d}_{x^2}$"}


@dataclass(frozen=True)
class LFRParameters:
    """LFR generator settings shared by the experiments (seed sec. 5.1 defaults)."""

    n: int = 1000
    tau1: float = 2.0
    tau2: float = 1.0
    average_degree: float = 20.0
    max_degree: int = 50
    min_community: int = 20
    max_community: int = 100

    def __post_init__(self):
        check_int("n", self.n, minimum=10)
        check_float("tau1", self.tau1, minimum=1.0, inclusive=False)
        check_float("tau2", self.tau2, minimum=0.0, inclusive=False)
        check_float("average_degree", self.average_degree, minimum=1.0)
        check_int("max_degree", self.max_degree, minimum=2, maximum=self.n - 1)
        check_int("min_community", self.min_community, minimum=2)
        check_int("max_community", self.max_community, minimum=self.min_community, maximum=self.n)
        if self.average_degree >= self.max_degree:
            raise InputError("average_degree", f"must be below max_degree ({self.max_degree})")

    def generator_kwargs(self) -> dict:
        return dict(tau1=self.tau1, tau2=self.tau2, average_degree=self.average_degree,
                    max_degree=self.max_degree, min_community=self.min_community,
                    max_community=self.max_community)


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


def _int_seed(rng) -> int:
    """The non-negative int seed behind a SPEC 7 ``rng`` (the experiments seed python-igraph,
    networkx and cdlib, which take ints): an int as it is (so the seed's tables are unchanged),
    one draw of 32 bits from a ``SeedSequence``, a ``Generator`` or fresh entropy (``None``)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return int(rng.generate_state(1)[0])
    return int(check_rng(rng, parameter="rng").integers(0, 2**32))


@renamed_parameters(seed="rng")
def lfr_graph(params: LFRParameters, mu: float, *, rng=None, max_attempts: int = 50,
              generator: str = "networkx"):
    """One unweighted disjoint LFR graph: ``(edges, labels, used_seed)``; edges (m, 2) int, no self-loops.

    ``generator="agreekit"`` uses :func:`~agreekit.clustering.lfr.lfr_benchmark`;
    ``"networkx"`` uses ``networkx.LFR_benchmark_graph`` (which sometimes fails to place
    communities: the next seed, ``seed + 1``, ..., is then tried, up to ``max_attempts`` times).
    ``rng`` (SPEC 7; ``seed=`` is its deprecated spelling) is reduced to that int seed (see
    ``_int_seed``: an int is used as it is).
    """
    seed = _int_seed(rng)
    mu = check_float("mu", mu, minimum=0.0, maximum=1.0)
    check_choice("generator", generator, GENERATORS)
    if generator == "agreekit":
        g = lfr_benchmark(params.n, mu=mu, rng=int(seed), progress=False, **params.generator_kwargs())
        return g.edges, g.labels(), int(seed)
    import networkx as nx

    if params.tau2 <= 1:
        raise InputError("tau2", f"must be > 1 for networkx's generator; got {params.tau2}")
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


@renamed_parameters(seed="rng")
def detect_communities(n: int, edges: np.ndarray, algorithm: str, *, rng=None, weights=None) -> np.ndarray:
    """Labels found by ``algorithm`` (see :data:`ALGORITHMS`) with python-igraph; ``weights`` per edge or None.

    ``rng`` (SPEC 7, reduced to an int seed of python-igraph's generator; ``seed=`` deprecated)."""
    import igraph as ig

    seed = _int_seed(rng)
    check_choice("algorithm", algorithm, ALGORITHMS)
    ig.set_random_number_generator(random.Random(int(seed)))
    g = ig.Graph(n=n, edges=[tuple(e) for e in np.asarray(edges).tolist()])
    if weights is not None:
        g.es["weight"] = [float(w) for w in np.asarray(weights, dtype=np.float64)]
        g.simplify(combine_edges="sum")
        w = g.es["weight"]
    else:
        g.simplify()
        w = None
    if algorithm == "louvain":
        return np.asarray(g.community_multilevel(weights=w).membership, dtype=np.int64)
    if algorithm == "walktrap":
        return np.asarray(g.community_walktrap(weights=w).as_clustering().membership, dtype=np.int64)
    if algorithm == "infomap":
        return np.asarray(g.community_infomap(edge_weights=w).membership, dtype=np.int64)
    if algorithm == "fastgreedy":
        return np.asarray(g.community_fastgreedy(weights=w).as_clustering().membership, dtype=np.int64)
    # spinglass needs a connected graph: run it per connected component
    labels = np.zeros(n, dtype=np.int64)
    offset = 0
    for comp in g.connected_components():
        if len(comp) < 3:
            labels[comp] = offset
            offset += 1
            continue
        sub = g.induced_subgraph(comp)
        memb = np.asarray(sub.community_spinglass(weights=sub.es["weight"] if w is not None else None).membership,
                          dtype=np.int64)
        labels[comp] = memb + offset
        offset += int(memb.max()) + 1
    return labels


@renamed_parameters(seed="rng")
def detect_overlapping(n: int, edges: np.ndarray, method: str, *, rng=None, n_communities: int | None = None) -> list:
    """Overlapping communities found by a cdlib method (see :data:`OVERLAPPING_METHODS`), as a cover.

    cdlib's methods draw from Python's and numpy's global generators: both are seeded from
    ``rng`` (SPEC 7, reduced to an int seed; ``seed=`` deprecated) before the call (and restored
    after).  ``big_clam`` needs the number of communities
    (``n_communities``; the SNAP program estimates it, cdlib does not) and uses the threshold
    affiliation of Yang & Leskovec (overlapping).  ``lfm`` runs with α = 1, ``demon`` with ε = 0.25.
    Returns a list of sorted lists of node ids (nodes may be in none, one or several).
    """
    import networkx as nx

    seed = _int_seed(rng)
    check_choice("method", method, tuple(OVERLAPPING_METHODS))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(np.asarray(edges).tolist())
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(int(seed))
    np.random.seed(int(seed) % (2**32))
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from cdlib import algorithms as A

            if method == "slpa":
                res = A.slpa(G)
            elif method == "core_expansion":
                res = A.core_expansion(G)
            elif method == "lfm":
                res = A.lfm(G, alpha=1.0)
            elif method == "big_clam":
                k = check_int("n_communities", n_communities, minimum=1)
                res = A.big_clam(G, dimensions=k, affiliation_method="threshold")
            else:
                res = A.demon(G, epsilon=0.25)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    cover = sorted(sorted({int(v) for v in c}) for c in res.communities if len(c))
    return cover


def _seeds(seed: int, k: int) -> list[int]:
    ss = np.random.SeedSequence(int(seed))
    return [int(s.generate_state(1)[0]) for s in ss.spawn(k)]


@renamed_parameters(seed="rng")
def lfr_trial(params: LFRParameters, mu: float, *, rng=None, algorithms: Sequence[str] = ALGORITHMS,
              measures: Sequence[str] = tuple(FIGURE7_MEASURES), generator: str = "agreekit") -> dict:
    """Figure 7: one unweighted LFR graph, every algorithm, scored against the ground truth.

    ``rng`` drives everything (graph and algorithms, via ``numpy.random.SeedSequence`` of its int
    seed; SPEC 7, ``seed=`` deprecated); the record's ``"seed"`` is that int.
    Returns a JSON-able dict with the graph's size, its realized mixing, the seed used and, per
    algorithm, the number of communities found and the agreement under each measure of
    :data:`FIGURE7_MEASURES`.
    """
    for m in measures:
        check_choice("measures", m, tuple(FIGURE7_MEASURES))
    seed = _int_seed(rng)
    graph_seed, *alg_seeds = _seeds(seed, 1 + len(algorithms))
    edges, truth, used = lfr_graph(params, mu, rng=graph_seed % (2**31), generator=generator)
    comms = [np.flatnonzero(truth == c) for c in range(int(truth.max()) + 1)]
    out = {"mu": float(mu), "seed": int(seed), "generator": generator, "graph_seed": used, "n": params.n,
           "edges": int(len(edges)), "realized_mu": realized_mixing(params.n, edges, comms),
           "true_communities": int(truth.max()) + 1, "algorithms": {}}
    for alg, s in zip(algorithms, alg_seeds):
        found = detect_communities(params.n, edges, alg, rng=s)
        scores = {}
        for m in measures:
            name, _ = FIGURE7_MEASURES[m]
            val = get_measure(name)(truth, found)
            scores[m] = 1.0 - val if m == "vi_agreement" else val
        out["algorithms"][alg] = {"communities": int(found.max()) + 1, "scores": scores}
    return out


def _figure8_score(m: str, truth, found, graph) -> float:
    if m == "ari_xi":
        return 1.0 - generalized_distance(truth, found, phi="square", eta="edges", normalization="adjusted",
                                          graph=graph)
    if m == "ari_sigma_d":
        return 1.0 - generalized_distance(truth, found, phi="square", eta="degree", normalization="adjusted",
                                          graph=graph)
    if m == "c_bot_ari_prime":
        return ari_delta(truth, found, exact=False, graph=graph, mode="transform")
    if m == "ari":
        return adjusted_rand_index(truth, found)
    return normalized_mutual_info(truth, found, average_method="arithmetic")


@renamed_parameters(seed="rng")
def weighted_lfr_trial(params: LFRParameters, mu_weights: float, *, rng=None, mu: float = 0.5, beta: float = 1.5,
                       algorithms: Sequence[str] = ("louvain", "walktrap", "infomap", "fastgreedy"),
                       measures: Sequence[str] = tuple(FIGURE8_MEASURES)) -> dict:
    """Figure 8: one weighted LFR graph (μ_t = ``mu``, μ_w = ``mu_weights``), algorithms run with weights.

    Structure-dependent measures (ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′) use the weighted graph.
    Returns a JSON-able dict like :func:`lfr_trial`, keyed by ``"mu_weights"``; ``rng`` as there.
    """
    import scipy.sparse as sp

    for m in measures:
        check_choice("measures", m, tuple(FIGURE8_MEASURES))
    seed = _int_seed(rng)
    graph_seed, *alg_seeds = _seeds(seed, 1 + len(algorithms))
    g = lfr_benchmark(params.n, mu=mu, mu_weights=mu_weights, beta=beta, rng=graph_seed, progress=False,
                      **params.generator_kwargs())
    truth = g.labels()
    e, w = g.edges, g.weights
    W = sp.csr_array((np.concatenate([w, w]), (np.concatenate([e[:, 0], e[:, 1]]), np.concatenate([e[:, 1], e[:, 0]]))),
                     shape=(g.n, g.n))
    mu_t, mu_w = g.mixing()
    out = {"mu_weights": float(mu_weights), "mu": float(mu), "beta": float(beta), "seed": int(seed), "n": g.n,
           "edges": int(len(e)), "realized_mu": mu_t, "realized_mu_weights": mu_w,
           "true_communities": len(g.communities), "algorithms": {}}
    for alg, s in zip(algorithms, alg_seeds):
        found = detect_communities(g.n, e, alg, rng=s, weights=w)
        out["algorithms"][alg] = {"communities": int(found.max()) + 1,
                                  "scores": {m: float(_figure8_score(m, truth, found, W)) for m in measures}}
    return out


def _figure9_score(m: str, truth, found, truth_cover, found_cover, n) -> float:
    if m in ("nmi_lfk", "nmi_mgh"):  # uncovered nodes stay uncovered (as the LFK program and cdlib)
        return C.overlapping_nmi(truth_cover, found_cover, variant="lfk" if m == "nmi_lfk" else "mgh",
                                 nodes=range(n))
    if m == "omega":  # the seed's ω: the unadjusted index (the pipeline's key and label stay "omega" / ω)
        return C.omega_unadjusted(truth, found)
    if m == "adjusted_omega":  # the seed's Aω = cdlib's omega
        return C.omega(truth, found)
    if m == "ri_delta_approx":
        return C.ri_delta(truth, found, exact=False)
    return C.ari_delta(truth, found, exact=False)


@renamed_parameters(seed="rng")
def overlapping_lfr_trial(params: LFRParameters, overlap_fraction: float, *, rng=None, mu: float = 0.1,
                          memberships: int = 2, methods: Sequence[str] = ("slpa", "core_expansion", "lfm", "big_clam"),
                          measures: Sequence[str] = tuple(FIGURE9_MEASURES)) -> dict:
    """Figure 9: one overlapping LFR graph (μ_t = ``mu``, a share ``overlap_fraction`` of the nodes in
    ``memberships`` communities), every overlapping method of :data:`OVERLAPPING_METHODS`.

    Nodes a method leaves in no community form one extra cluster for ω, Aω and the δ measures (the
    authors' convention) and stay uncovered for NMI′ / NMI″ (the LFK program's and cdlib's).
    Returns a JSON-able dict like :func:`lfr_trial`, keyed by ``"overlap_fraction"``; ``rng`` as there.
    """
    f = check_float("overlap_fraction", overlap_fraction, minimum=0.0, maximum=1.0)
    for m in measures:
        check_choice("measures", m, tuple(FIGURE9_MEASURES))
    seed = _int_seed(rng)
    graph_seed, *alg_seeds = _seeds(seed, 1 + len(methods))
    o_n = int(round(f * params.n))
    g = lfr_benchmark(params.n, mu=mu, overlapping_nodes=o_n, overlapping_memberships=memberships if o_n else 1,
                      rng=graph_seed, progress=False, **params.generator_kwargs())
    nodes = range(g.n)
    truth_cover = [c.tolist() for c in g.communities]
    truth = as_clustering(truth_cover, nodes=nodes)
    out = {"overlap_fraction": f, "mu": float(mu), "memberships": int(memberships), "seed": int(seed), "n": g.n,
           "edges": int(len(g.edges)), "overlapping_nodes": o_n, "realized_mu": g.mixing()[0],
           "true_communities": len(g.communities), "algorithms": {}}
    for meth, s in zip(methods, alg_seeds):
        cover = detect_overlapping(g.n, g.edges, meth, rng=s, n_communities=len(g.communities))
        found = as_clustering(cover, nodes=nodes)
        out["algorithms"][meth] = {"communities": len(cover),
                                   "uncovered": int(g.n - len(set(v for c in cover for v in c))),
                                   "scores": {m: float(_figure9_score(m, truth, found, truth_cover, cover, g.n))
                                              for m in measures}}
    return out


def trials_frame(records: Sequence[dict], *, x: str = "mu"):
    """Long table (pandas) of trial records: x, seed, algorithm, communities, measure, value."""
    import pandas as pd

    rows = []
    for rec in records:
        for alg, res in rec["algorithms"].items():
            for m, v in res["scores"].items():
                rows.append({x: rec[x], "seed": rec["seed"], "algorithm": alg,
                             "true_communities": rec["true_communities"], "communities": res["communities"],
                             "realized_mu": rec.get("realized_mu", np.nan), "measure": m, "value": v})
    return pd.DataFrame(rows).sort_values(["measure", "algorithm", x, "seed"], kind="stable").reset_index(drop=True)


def summarize_trials(frame, *, x: str = "mu"):
    """Mean, standard deviation and count over repeats per (measure, algorithm, x)."""
    g = frame.groupby(["measure", "algorithm", x], sort=True)
    out = g["value"].agg(["mean", "std", "count"]).reset_index()
    out["communities_mean"] = g["communities"].mean().to_numpy()
    out["true_communities_mean"] = g["true_communities"].mean().to_numpy()
    return out


def plot_agreement(summary, path, *, x: str, xlabel: str, measures: Sequence[str], title: str,
                   order: Sequence[str] = (), names: dict | None = None, ncol: int = 4) -> None:
    """Agreement with the ground truth vs ``x``: one panel per measure plus one of the number of
    communities found (ground truth dashed); every panel has its own y label and tick labels."""
    plt = pyplot("plot_agreement")
    import matplotlib.ticker  # matplotlib is there: pyplot() imported it

    names = names or {}
    present = list(dict.fromkeys([a for a in order if a in set(summary["algorithm"])] +
                                 sorted(set(summary["algorithm"]) - set(order))))
    panels = list(measures) + ["__communities__"]
    nrow = -(-len(panels) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.3 * ncol, 3.5 * nrow), squeeze=False)
    markers = "osD^vP*X"
    handles = []
    for ax, m in zip(axes.ravel(), panels):
        key = measures[0] if m == "__communities__" else m
        sub = summary[summary["measure"] == key]
        for i, alg in enumerate(present):
            s = sub[sub["algorithm"] == alg].sort_values(x)
            if m == "__communities__":
                h = ax.plot(s[x], s["communities_mean"], marker=markers[i % len(markers)], ms=4, lw=1.2,
                            label=names.get(alg, alg))
            else:
                h = ax.errorbar(s[x], s["mean"], yerr=s["std"].fillna(0.0), marker=markers[i % len(markers)], ms=4,
                                capsize=2, lw=1.2, label=names.get(alg, alg))
            if m == panels[0]:
                handles.append(h)
        if m == "__communities__":
            t = sub.groupby(x)["true_communities_mean"].mean()
            ax.plot(t.index, t.to_numpy(), "k--", lw=1.2, label="ground truth")
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_title("communities found")
            ax.set_ylabel("number of communities")
            ax.legend(handles=ax.get_lines()[-1:], fontsize=8, loc="best")
        else:
            label = _MATH.get(_PLOT_LABELS.get(m, m), _PLOT_LABELS.get(m, m))
            ax.set_title(label)
            ax.set_ylabel(f"agreement ({label})")
            ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel(xlabel)
        ax.tick_params(labelbottom=True, labelleft=True)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    fig.legend(handles=handles, labels=[names.get(a, a) for a in present], loc="lower center",
               ncol=min(len(present), 6), fontsize=9, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def plot_figure7(summary, path, *, measures: Sequence[str] | None = None) -> None:
    """Figure 7 of the seed: agreement with the ground truth vs mixing parameter, one panel per measure."""
    measures = list(measures or [m for m in FIGURE7_MEASURES if m in set(summary["measure"])])
    plot_agreement(summary, path, x="mu", xlabel="mixing parameter μ", measures=measures, order=ALGORITHMS,
                   title="Agreement with the LFR ground truth (seed Figure 7)")


# ----------------------------------------------------------------------------- Markdown summaries
_FIGURES = {
    7: dict(x="mu", xlabel="mixing parameter μ", measures=FIGURE7_MEASURES, order=ALGORITHMS,
            title="Agreement with the unweighted LFR ground truth (seed Figure 7)"),
    8: dict(x="mu_weights", xlabel="weight mixing parameter μ_w", measures=FIGURE8_MEASURES, order=ALGORITHMS,
            title="Agreement with the weighted LFR ground truth (seed Figure 8)"),
    9: dict(x="overlap_fraction", xlabel="fraction of overlapping nodes", measures=FIGURE9_MEASURES,
            order=tuple(OVERLAPPING_METHODS), title="Agreement with the overlapping LFR ground truth (seed Figure 9)"),
}


def figure_settings(figure: int) -> dict:
    """x column, axis label, measure labels, algorithm order and title of seed Figure 7, 8 or 9."""
    if figure not in _FIGURES:
        raise InputError("figure", f"must be 7, 8 or 9; got {figure!r}")
    return _FIGURES[figure]


def plot_figure(figure: int, summary, path, *, measures: Sequence[str]) -> None:
    """Seed Figure 7, 8 or 9 from a :func:`summarize_trials` table."""
    s = figure_settings(figure)
    names = {m: f"{m} (≈{p})" for m, p in OVERLAPPING_METHODS.items() if p} if figure == 9 else None
    plot_agreement(summary, path, x=s["x"], xlabel=s["xlabel"], measures=list(measures), order=s["order"],
                   title=s["title"], names=names)


def _mean_table(summary, x, measure):
    return summary[summary["measure"] == measure].pivot(index="algorithm", columns=x, values="mean")


def _ranks(table):
    """Rank of each algorithm (1 = best) per column."""
    return table.rank(axis=0, ascending=False, method="average")


def _kendall(a, b) -> float:
    from scipy.stats import kendalltau

    t = kendalltau(a, b).statistic
    return float(t) if np.isfinite(t) else 1.0


def figure_findings(figure: int, summary) -> list[tuple[str, bool | None, str]]:
    """The seed's qualitative statements about Figure 7, 8 or 9, checked on ``summary``.

    Returns ``(statement, holds, evidence)`` triples; ``holds`` is None when the algorithms
    the statement needs were not run.
    """
    s = figure_settings(figure)
    x = s["x"]
    have = set(summary["measure"])
    algs = set(summary["algorithm"])
    comm = summary.drop_duplicates(["algorithm", x]).pivot(index="algorithm", columns=x, values="communities_mean")
    out = []
    if figure == 7:
        hi = [c for c in comm.columns if c >= 0.5]

        def gap(m, alg):  # distance to the best algorithm at mu >= 0.5 (0 = judged best)
            t = _mean_table(summary, x, m)[hi]
            return float((t.max(axis=0) - t.loc[alg]).mean()), float(_ranks(t).loc[alg].mean())

        truth_k = summary.groupby(x)["true_communities_mean"].mean()
        for alg, m_for, text in (("spinglass", "nmi_sum", "For large μ, NMI_Σ judges PottsModel (spinglass) better than "
                                  "RI does, since it finds too many communities"),
                                 ("infomap", "vi_agreement", "For large μ, VI (as opposed to RI) judges InfoMap better, "
                                  "since it finds too few communities")):
            if alg in algs and {m_for, "ri"} <= have and hi:
                (g1, r1), (g2, r2) = gap(m_for, alg), gap("ri", alg)
                out.append((text, bool(g1 < g2),
                            f"{alg} at μ ≥ 0.5: shortfall from the best algorithm {g1:.3f} under "
                            f"{FIGURE7_MEASURES[m_for][1]} vs {g2:.3f} under RI (mean rank {r1:.1f} vs {r2:.1f}); "
                            f"communities found {comm.loc[alg, hi].mean():.1f}, truth {truth_k[hi].mean():.1f}"))
        return out
    if figure == 8:
        struct = [m for m in ("ari_xi", "ari_sigma_d", "c_bot_ari_prime") if m in have]
        plain = [m for m in ("ari", "nmi") if m in have]
        if {"walktrap", "louvain"} <= algs:
            diffs = {m: float((_mean_table(summary, x, m).loc["walktrap"] - _mean_table(summary, x, m).loc["louvain"])
                              .mean()) for m in struct + plain}
            better = sum(d > 0 for d in diffs.values())
            out.append(("Walktrap performs better than Louvain according to most of the measures",
                        bool(better > len(diffs) / 2),
                        f"mean (Walktrap − Louvain) over μ_w: " + ", ".join(f"{FIGURE8_MEASURES[m]} {d:+.3f}"
                                                                              for m, d in diffs.items())))
            if struct and plain:
                ds = np.mean([abs(diffs[m]) for m in struct])
                dp = np.mean([abs(diffs[m]) for m in plain])
                out.append(("The Walktrap–Louvain difference is larger under the structure-dependent measures "
                            "(ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′) than under ARI and NMI", bool(ds > dp),
                            f"mean |difference|: structure-dependent {ds:.3f}, ARI/NMI {dp:.3f}"))
        else:
            out.append(("Walktrap performs better than Louvain according to most of the measures", None,
                        "needs both walktrap and louvain"))
        if {"nmi", "ari"} <= have and len(algs) > 2:
            from scipy.stats import spearmanr

            hi = [c for c in comm.columns if c >= 0.5] or list(comm.columns)
            gap = (_mean_table(summary, x, "nmi") - _mean_table(summary, x, "ari"))[hi]
            k = comm[hi].loc[gap.index]
            rho = float(spearmanr(np.log(k.to_numpy().ravel()), gap.to_numpy().ravel()).statistic)
            out.append(("NMI is biased towards more clusters (as in Figure 7): the more communities a method "
                        "finds, the more NMI exceeds ARI", bool(rho > 0),
                        f"Spearman correlation of (NMI − ARI) with the number of communities found, over methods "
                        f"and μ_w ≥ 0.5: {rho:+.2f}; communities found (mean): " +
                        ", ".join(f"{a} {comm.loc[a].mean():.0f}" for a in comm.index) +
                        f" (truth {summary['true_communities_mean'].mean():.0f})"))
        return out
    # figure 9
    adj = [m for m in ("adjusted_omega", "ari_delta_approx") if m in have]
    nmis = [m for m in ("nmi_lfk", "nmi_mgh") if m in have]
    if len(algs) > 1 and adj and nmis:
        top = comm.mean(axis=1).idxmax()

        def gap(m):
            t = _mean_table(summary, x, m)
            return float((t.max(axis=0) - t.loc[top]).mean())

        g_n = np.mean([gap(m) for m in nmis])
        g_a = np.mean([gap(m) for m in adj])
        stand = OVERLAPPING_METHODS.get(top)
        out.append((f"NMI′ and NMI″ penalize the method that finds many communities (the seed: MOSES; here {top}"
                    f"{', its stand-in' if stand == 'MOSES' else ''}) more than Aω and ARI′_δ do", bool(g_n > g_a),
                    f"{top} finds {comm.loc[top].mean():.0f} communities on average (truth "
                    f"{summary['true_communities_mean'].mean():.0f}); mean gap to the best method: NMI′/NMI″ "
                    f"{g_n:.3f}, Aω/ARI′_δ {g_a:.3f}"))
    if {"adjusted_omega", "ari_delta_approx"} <= have and len(algs) > 2:
        a = _mean_table(summary, x, "adjusted_omega")
        b = _mean_table(summary, x, "ari_delta_approx")
        taus = [_kendall(a[c], b[c]) for c in a.columns]
        same = sum(np.array_equal(np.argsort(-a[c].to_numpy()), np.argsort(-b[c].to_numpy())) for c in a.columns)
        out.append(("Aω and ARI′_δ rank the methods alike (each node is in at most two communities)",
                    bool(np.mean(taus) >= 0.8), f"Kendall τ between their rankings, mean over fractions "
                    f"{np.mean(taus):.2f}; identical order at {same} of {len(taus)} fractions"))
    if {"omega", "ri_delta_approx"} <= have:
        a = _mean_table(summary, x, "omega")
        b = _mean_table(summary, x, "ri_delta_approx")
        d = float(np.abs(a - b).to_numpy().mean())
        spread_u = float((a.max(axis=0) - a.min(axis=0)).mean())
        spread_a = float((_mean_table(summary, x, "adjusted_omega").max(axis=0) -
                          _mean_table(summary, x, "adjusted_omega").min(axis=0)).mean()) if "adjusted_omega" in have \
            else float("nan")
        out.append(("The unadjusted ω and RI′_δ are very similar and of little use (close to 1 for every method)",
                    bool(d < 0.05 and a.to_numpy().min() > 0.8),
                    f"mean |ω − RI′_δ| {d:.3f}; smallest ω {a.to_numpy().min():.3f}; spread between methods: ω "
                    f"{spread_u:.3f}, Aω {spread_a:.3f}"))
    return out


def figure_markdown(figure: int, frame, summary, *, settings: dict, records: Sequence[dict]) -> str:
    """Markdown note beside seed Figure 7, 8 or 9: setup, means per measure, communities, realized
    mixing and whether the seed's qualitative findings hold."""
    s = figure_settings(figure)
    x = s["x"]
    labels = s["measures"]
    lab = (lambda m: labels[m][1]) if figure == 7 else (lambda m: labels[m])
    lines = [f"# Seed Figure {figure}: {s['title'].split(' (')[0]}", ""]
    lines += [settings.get("description", ""), ""]
    findings = figure_findings(figure, summary)
    lines += ["## The seed's findings, checked", ""]
    for text, holds, evidence in findings:
        verdict = "**holds**" if holds else ("**not checked**" if holds is None else "**does not hold**")
        lines.append(f"- {text}: {verdict} — {evidence}.")
    if not findings:
        lines.append("- (the configured algorithms/measures do not allow any check)")
    lines.append("")
    reps = int(frame.groupby([x, "algorithm", "measure"]).size().max()) if len(frame) else 0
    for m in [m for m in labels if m in set(summary["measure"])]:
        piv = _mean_table(summary, x, m)
        lines += [f"## {lab(m)} (mean over {reps} graph(s))", "",
                  "| algorithm | " + " | ".join(f"{x}={c:g}" for c in piv.columns) + " |",
                  "|---|" + "---|" * len(piv.columns)]
        for alg, row in piv.iterrows():
            lines.append(f"| {alg} | " + " | ".join(f"{v:.3f}" for v in row.to_numpy()) + " |")
        lines.append("")
    comm = summary.drop_duplicates(["algorithm", x]).pivot(index="algorithm", columns=x, values="communities_mean")
    lines += ["## Number of communities found (mean)", "",
              "| algorithm | " + " | ".join(f"{x}={c:g}" for c in comm.columns) + " |",
              "|---|" + "---|" * len(comm.columns)]
    for alg, row in comm.iterrows():
        lines.append(f"| {alg} | " + " | ".join(f"{v:.1f}" for v in row.to_numpy()) + " |")
    truth = frame.groupby(x)["true_communities"].mean()
    lines.append("| *ground truth* | " + " | ".join(f"{v:.1f}" for v in truth.to_numpy()) + " |")
    lines.append("")
    import pandas as pd

    rec = pd.DataFrame([{x: r[x], "realized_mu": float(r.get("realized_mu", np.nan)),
                         "realized_mu_weights": float(r.get("realized_mu_weights", np.nan))} for r in records])
    g = rec.groupby(x).mean(numeric_only=True)
    lines += ["## Realized mixing of the graphs (mean over repeats)", "",
              f"| {x} | " + " | ".join(f"{c:g}" for c in g.index) + " |", "|---|" + "---|" * len(g.index)]
    for col in [c for c in ("realized_mu", "realized_mu_weights") if g[c].notna().any()]:
        lines.append(f"| {col.replace('realized_', 'realized ')} | " + " | ".join(f"{v:.3f}" for v in g[col]) + " |")
    lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- pipeline entry points
_GRAPH_KEYS = ("n", "tau1", "tau2", "average_degree", "max_degree", "min_community", "max_community")


@renamed_parameters(seed="rng")
def lfr_trial_for_figure(figure: int, settings: dict, x: float, *, rng=None) -> dict:
    """One trial of seed Figure 7, 8 or 9 from a config section (``clustering.lfr``,
    ``clustering.lfr_weighted`` or ``clustering.lfr_overlapping``) at parameter value ``x``;
    ``rng`` as in :func:`lfr_trial` (``seed=`` deprecated)."""
    figure_settings(figure)
    seed = _int_seed(rng)
    params = LFRParameters(**{k: settings[k] for k in _GRAPH_KEYS})
    if figure == 7:
        return lfr_trial(params, x, rng=seed, algorithms=settings["algorithms"], measures=settings["measures"],
                         generator=settings.get("generator", "agreekit"))
    if figure == 8:
        return weighted_lfr_trial(params, x, rng=seed, mu=settings["mu"], beta=settings["beta"],
                                  algorithms=settings["algorithms"], measures=settings["measures"])
    return overlapping_lfr_trial(params, x, rng=seed, mu=settings["mu"], memberships=settings["memberships"],
                                 methods=settings["methods"], measures=settings["measures"])


def _description(figure: int, st: dict, repeats: int) -> str:
    graph = (f"n = {st['n']}, average degree {st['average_degree']}, max degree {st['max_degree']}, "
             f"exponents τ1 = {st['tau1']}, τ2 = {st['tau2']}, community sizes {st['min_community']}–"
             f"{st['max_community']}")
    files = (f"Figure: `figure{figure}.png`; all trials: `figure{figure}_trials.csv`; means/std: "
             f"`figure{figure}_summary.csv`. {repeats} graph(s) per point (the seed: 10 runs; raise `repeats`).")
    if figure == 7:
        gen = st.get("generator", "agreekit")
        src = ("agreekit.clustering.lfr.lfr_benchmark" if gen == "agreekit" else
               "networkx's LFR_benchmark_graph (it overshoots the requested μ: see the realized mixing below)")
        return (f"Unweighted LFR graphs ({src}): {graph}; μ = {', '.join(str(m) for m in st['mu'])}. Algorithms "
                "(python-igraph): " + ", ".join(st["algorithms"]) + (" (spinglass = Reichardt–Bornholdt Potts model, standing in "
                "for the seed's PottsModel). " if "spinglass" in st["algorithms"] else ". ") + files)
    if figure == 8:
        return (f"Weighted LFR graphs (agreekit.clustering.lfr.lfr_benchmark): {graph}; topological mixing μ_t = "
                f"{st['mu']}, strength exponent β = {st['beta']}, weight mixing μ_w = "
                f"{', '.join(str(m) for m in st['mu_weights'])}. Algorithms (python-igraph, with edge weights): "
                + ", ".join(st["algorithms"]) + ". ARI^ξ_{x²} and ARI^{Σd}_{x²} are the adjusted generalized "
                "distance AD_{x²} with the edge (ξ) and degree (Σd) overlap functions of the weighted graph "
                "(seed §3.1, seed's definitions), C_⊥ARI′ is ARI′_δ of the incidence-transformed memberships "
                "(§4.1); NMI is NMI_Σ. " + files)
    stand = ", ".join(f"{m} for {OVERLAPPING_METHODS[m]}" if OVERLAPPING_METHODS.get(m) else f"{m} (extra)"
                      for m in st["methods"])
    return (f"Overlapping LFR graphs (agreekit.clustering.lfr.lfr_benchmark): {graph}; μ_t = {st['mu']}, "
            f"o_m = {st['memberships']} communities per overlapping node, fraction of overlapping nodes "
            f"{', '.join(str(m) for m in st['overlap_fraction'])}. The seed's COPRA, MOSES, OSLOM and BIGCLAM "
            f"are external programs; cdlib's methods stand in: {stand}. big_clam is given the true number of "
            "communities (the SNAP program estimates it) and the threshold affiliation of Yang & Leskovec; nodes "
            "a method leaves uncovered form one extra cluster for ω, Aω and the δ measures and stay uncovered "
            "for the NMIs. NMI′ / NMI″ = overlapping NMI of Lancichinetti et "
            "al. / McDaid et al. (agreekit.clustering.overlapping_nmi), ω / Aω = (adjusted) Omega, RI′_δ / "
            "ARI′_δ = co-membership forms with the diagonal kept. " + files)


def figure_report(figure: int, records: Sequence[dict], settings: dict, png_path):
    """Trials table, summary, PNG and Markdown note of seed Figure 7, 8 or 9: ``(frame, summary, markdown)``."""
    s = figure_settings(figure)
    frame = trials_frame(records, x=s["x"])
    summary = summarize_trials(frame, x=s["x"])
    plot_figure(figure, summary, png_path, measures=[m for m in settings["measures"]])
    md = figure_markdown(figure, frame, summary, records=records,
                         settings={"description": _description(figure, settings, int(settings["repeats"]))})
    return frame, summary, md
