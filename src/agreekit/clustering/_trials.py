"""Trials of the LFR experiments of Rabbany & Zaïane 2015 (sec. 5, Figures 7-9): one graph, every method, scored.

* Figure 7 — unweighted LFR graphs, mixing μ varied; disjoint community detection
  (python-igraph: Louvain = multilevel, Walktrap, Infomap, Spinglass = the Potts model of
  Reichardt & Bornholdt, fast greedy modularity); measures ARI_δ, ARI′_δ, RI, 1 − VI/log n, NMI_Σ, NMI_√.
* Figure 8 — weighted LFR graphs (μ_t fixed, weight mixing μ_w varied); the same algorithms run
  with edge weights; measures ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′ (structure-dependent, weighted
  graph) and ARI, NMI.
* Figure 9 — overlapping LFR graphs (μ_t fixed, o_m memberships, fraction of overlapping nodes
  varied); overlapping community detection from cdlib (stand-ins for the paper's external
  programs, see :data:`~agreekit.clustering._detection.OVERLAPPING_METHODS`); measures NMI′,
  NMI″, ω, Aω, RI′_δ, ARI′_δ.

Trial records are JSON-able dicts; :func:`trials_frame` and :func:`summarize_trials` turn them
into pandas tables, :func:`lfr_trial_for_figure` runs one trial from a pipeline config section.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agreekit._api import check_rng, renamed_parameters
from agreekit._resampling import unit_mean_interval
from agreekit._validation import InputError, check_choice, check_float
from agreekit import clustering as C
from agreekit.clustering import (
    adjusted_rand_index,
    ari_delta,
    as_clustering,
    generalized_distance,
    normalized_mutual_info,
)
from agreekit.clustering._detection import (
    ALGORITHMS,
    OVERLAPPING_METHODS,
    LFRParameters,
    _int_seed,
    detect_communities,
    detect_overlapping,
    lfr_graph,
)
from agreekit.clustering._registry import get_measure
from agreekit.clustering.lfr import lfr_benchmark, realized_mixing

__all__ = [
    "FIGURE7_MEASURES",
    "FIGURE8_MEASURES",
    "FIGURE9_MEASURES",
    "figure_settings",
    "lfr_trial",
    "weighted_lfr_trial",
    "overlapping_lfr_trial",
    "trials_frame",
    "summarize_trials",
    "lfr_trial_for_figure",
]

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


# ----------------------------------------------------------------------------- the three figures
_FIGURES = {
    7: dict(
        x="mu",
        xlabel="mixing parameter μ",
        measures=FIGURE7_MEASURES,
        order=ALGORITHMS,
        title="Agreement with the unweighted LFR ground truth (Rabbany & Zaïane 2015, Figure 7)",
    ),
    8: dict(
        x="mu_weights",
        xlabel="weight mixing parameter μ_w",
        measures=FIGURE8_MEASURES,
        order=ALGORITHMS,
        title="Agreement with the weighted LFR ground truth (Rabbany & Zaïane 2015, Figure 8)",
    ),
    9: dict(
        x="overlap_fraction",
        xlabel="fraction of overlapping nodes",
        measures=FIGURE9_MEASURES,
        order=tuple(OVERLAPPING_METHODS),
        title="Agreement with the overlapping LFR ground truth (Rabbany & Zaïane 2015, Figure 9)",
    ),
}


def figure_settings(figure: int) -> dict:
    """x column, axis label, measure labels, algorithm order and title of Rabbany & Zaïane 2015, Figure 7, 8 or 9."""
    if figure not in _FIGURES:
        raise InputError("figure", f"must be 7, 8 or 9; got {figure!r}")
    return _FIGURES[figure]


def _seeds(seed: int, k: int) -> list[int]:
    ss = np.random.SeedSequence(int(seed))
    return [int(s.generate_state(1)[0]) for s in ss.spawn(k)]


@renamed_parameters(seed="rng")
def lfr_trial(
    params: LFRParameters,
    mu: float,
    *,
    rng=None,
    algorithms: Sequence[str] = ALGORITHMS,
    measures: Sequence[str] = tuple(FIGURE7_MEASURES),
    generator: str = "agreekit",
) -> dict:
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
    out = {
        "mu": float(mu),
        "seed": int(seed),
        "generator": generator,
        "graph_seed": used,
        "n": params.n,
        "edges": int(len(edges)),
        "realized_mu": realized_mixing(params.n, edges, comms),
        "true_communities": int(truth.max()) + 1,
        "algorithms": {},
    }
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
        return 1.0 - generalized_distance(
            truth, found, phi="square", eta="edges", normalization="adjusted", graph=graph
        )
    if m == "ari_sigma_d":
        return 1.0 - generalized_distance(
            truth, found, phi="square", eta="degree", normalization="adjusted", graph=graph
        )
    if m == "c_bot_ari_prime":
        return ari_delta(truth, found, exact=False, graph=graph, mode="transform")
    if m == "ari":
        return adjusted_rand_index(truth, found)
    return normalized_mutual_info(truth, found, average_method="arithmetic")


@renamed_parameters(seed="rng")
def weighted_lfr_trial(
    params: LFRParameters,
    mu_weights: float,
    *,
    rng=None,
    mu: float = 0.5,
    beta: float = 1.5,
    algorithms: Sequence[str] = ("louvain", "walktrap", "infomap", "fastgreedy"),
    measures: Sequence[str] = tuple(FIGURE8_MEASURES),
) -> dict:
    """Figure 8: one weighted LFR graph (μ_t = ``mu``, μ_w = ``mu_weights``), algorithms run with weights.

    Structure-dependent measures (ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′) use the weighted graph.
    Returns a JSON-able dict like :func:`lfr_trial`, keyed by ``"mu_weights"``; ``rng`` as there.
    """
    import scipy.sparse as sp

    for m in measures:
        check_choice("measures", m, tuple(FIGURE8_MEASURES))
    seed = _int_seed(rng)
    graph_seed, *alg_seeds = _seeds(seed, 1 + len(algorithms))
    g = lfr_benchmark(
        params.n, mu=mu, mu_weights=mu_weights, beta=beta, rng=graph_seed, progress=False, **params.generator_kwargs()
    )
    truth = g.labels()
    e, w = g.edges, g.weights
    W = sp.csr_array(
        (np.concatenate([w, w]), (np.concatenate([e[:, 0], e[:, 1]]), np.concatenate([e[:, 1], e[:, 0]]))),
        shape=(g.n, g.n),
    )
    mu_t, mu_w = g.mixing()
    out = {
        "mu_weights": float(mu_weights),
        "mu": float(mu),
        "beta": float(beta),
        "seed": int(seed),
        "n": g.n,
        "edges": int(len(e)),
        "realized_mu": mu_t,
        "realized_mu_weights": mu_w,
        "true_communities": len(g.communities),
        "algorithms": {},
    }
    for alg, s in zip(algorithms, alg_seeds):
        found = detect_communities(g.n, e, alg, rng=s, weights=w)
        out["algorithms"][alg] = {
            "communities": int(found.max()) + 1,
            "scores": {m: float(_figure8_score(m, truth, found, W)) for m in measures},
        }
    return out


def _figure9_score(m: str, truth, found, truth_cover, found_cover, n) -> float:
    if m in ("nmi_lfk", "nmi_mgh"):  # uncovered nodes stay uncovered (as the LFK program and cdlib)
        return C.overlapping_nmi(truth_cover, found_cover, variant="lfk" if m == "nmi_lfk" else "mgh", nodes=range(n))
    if m == "omega":  # Rabbany & Zaïane's ω: the unadjusted index (the pipeline's key and label stay "omega" / ω)
        return C.omega_unadjusted(truth, found)
    if m == "adjusted_omega":  # Rabbany & Zaïane's Aω = cdlib's omega
        return C.omega(truth, found)
    if m == "ri_delta_approx":
        return C.ri_delta(truth, found, exact=False)
    return C.ari_delta(truth, found, exact=False)


@renamed_parameters(seed="rng")
def overlapping_lfr_trial(
    params: LFRParameters,
    overlap_fraction: float,
    *,
    rng=None,
    mu: float = 0.1,
    memberships: int = 2,
    methods: Sequence[str] = ("slpa", "core_expansion", "lfm", "big_clam"),
    measures: Sequence[str] = tuple(FIGURE9_MEASURES),
) -> dict:
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
    g = lfr_benchmark(
        params.n,
        mu=mu,
        overlapping_nodes=o_n,
        overlapping_memberships=memberships if o_n else 1,
        rng=graph_seed,
        progress=False,
        **params.generator_kwargs(),
    )
    nodes = range(g.n)
    truth_cover = [c.tolist() for c in g.communities]
    truth = as_clustering(truth_cover, nodes=nodes)
    out = {
        "overlap_fraction": f,
        "mu": float(mu),
        "memberships": int(memberships),
        "seed": int(seed),
        "n": g.n,
        "edges": int(len(g.edges)),
        "overlapping_nodes": o_n,
        "realized_mu": g.mixing()[0],
        "true_communities": len(g.communities),
        "algorithms": {},
    }
    for meth, s in zip(methods, alg_seeds):
        cover = detect_overlapping(g.n, g.edges, meth, rng=s, n_communities=len(g.communities))
        found = as_clustering(cover, nodes=nodes)
        out["algorithms"][meth] = {
            "communities": len(cover),
            "uncovered": int(g.n - len(set(v for c in cover for v in c))),
            "scores": {m: float(_figure9_score(m, truth, found, truth_cover, cover, g.n)) for m in measures},
        }
    return out


def trials_frame(records: Sequence[dict], *, x: str = "mu"):
    """Long table (pandas) of trial records: x, seed, algorithm, communities, measure, value."""
    import pandas as pd

    rows = []
    for rec in records:
        for alg, res in rec["algorithms"].items():
            for m, v in res["scores"].items():
                rows.append(
                    {
                        x: rec[x],
                        "seed": rec["seed"],
                        "algorithm": alg,
                        "true_communities": rec["true_communities"],
                        "communities": res["communities"],
                        "realized_mu": rec.get("realized_mu", np.nan),
                        "measure": m,
                        "value": v,
                    }
                )
    return pd.DataFrame(rows).sort_values(["measure", "algorithm", x, "seed"], kind="stable").reset_index(drop=True)


def summarize_trials(frame, *, x: str = "mu", confidence_level=None, n_resamples: int = 9999, rng=None):
    """Mean, standard deviation and count over repeats per (measure, algorithm, x).

    Parameters
    ----------
    frame : pandas.DataFrame
        The long table of :func:`trials_frame`.
    x : str, optional
        The swept parameter's column (default ``"mu"``).
    confidence_level : float, optional
        If given (e.g. 0.95), also ``ci_low``, ``ci_high``: the BCa bootstrap interval of the mean over the
        trials of each group (the trials resampled with replacement; estimand: the expected value of the
        measure over repeated trials at that setting; NaN for a group of fewer than 2 trials), see
        :func:`agreekit._resampling.unit_mean_interval`.
    n_resamples : int, optional
        Bootstrap resamples per group (default 9999).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of the bootstrap (one generator for the groups in their order).

    Returns
    -------
    pandas.DataFrame
        One row per (measure, algorithm, x): ``mean``, ``std``, ``count``, ``communities_mean``,
        ``true_communities_mean`` (and ``ci_low``, ``ci_high``).
    """
    g = frame.groupby(["measure", "algorithm", x], sort=True)
    out = g["value"].agg(["mean", "std", "count"]).reset_index()
    out["communities_mean"] = g["communities"].mean().to_numpy()
    out["true_communities_mean"] = g["true_communities"].mean().to_numpy()
    if confidence_level is not None:
        gen = check_rng(rng)
        cis = [
            unit_mean_interval(v.to_numpy(), confidence_level, n_resamples=n_resamples, rng=gen)
            if len(v) >= 2
            else (np.nan, np.nan)
            for _, v in g["value"]
        ]
        out["ci_low"], out["ci_high"] = [c[0] for c in cis], [c[1] for c in cis]
    return out


# ----------------------------------------------------------------------------- pipeline entry points
_GRAPH_KEYS = ("n", "tau1", "tau2", "average_degree", "max_degree", "min_community", "max_community")


@renamed_parameters(seed="rng")
def lfr_trial_for_figure(figure: int, settings: dict, x: float, *, rng=None) -> dict:
    """One trial of Rabbany & Zaïane 2015, Figure 7, 8 or 9 from a config section (``clustering.lfr``,
    ``clustering.lfr_weighted`` or ``clustering.lfr_overlapping``) at parameter value ``x``;
    ``rng`` as in :func:`lfr_trial` (``seed=`` deprecated)."""
    figure_settings(figure)
    seed = _int_seed(rng)
    params = LFRParameters(**{k: settings[k] for k in _GRAPH_KEYS})
    if figure == 7:
        return lfr_trial(
            params,
            x,
            rng=seed,
            algorithms=settings["algorithms"],
            measures=settings["measures"],
            generator=settings.get("generator", "agreekit"),
        )
    if figure == 8:
        return weighted_lfr_trial(
            params,
            x,
            rng=seed,
            mu=settings["mu"],
            beta=settings["beta"],
            algorithms=settings["algorithms"],
            measures=settings["measures"],
        )
    return overlapping_lfr_trial(
        params,
        x,
        rng=seed,
        mu=settings["mu"],
        memberships=settings["memberships"],
        methods=settings["methods"],
        measures=settings["measures"],
    )
