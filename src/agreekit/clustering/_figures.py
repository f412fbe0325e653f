"""Figures and notes of the LFR experiments of Rabbany & Zaïane 2015 (sec. 5, Figures 7-9): plots of the trial
summaries, the paper's qualitative findings checked on them, and the Markdown note of each figure.

Figures are drawn with matplotlib (extra ``plot``) through :func:`agreekit._plot.pyplot` and
written all or nothing through a unique temporary file (:func:`agreekit._io.write_files`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from agreekit._io import write_files
from agreekit._plot import pyplot
from agreekit.clustering._detection import ALGORITHMS, OVERLAPPING_METHODS
from agreekit.clustering._trials import (
    FIGURE7_MEASURES,
    FIGURE8_MEASURES,
    FIGURE9_MEASURES,
    figure_settings,
    summarize_trials,
    trials_frame,
)

__all__ = ["plot_agreement", "plot_figure7", "plot_figure", "figure_findings", "figure_markdown", "figure_report"]

_PLOT_LABELS = {**{k: v[1] for k, v in FIGURE7_MEASURES.items()}, **FIGURE8_MEASURES, **FIGURE9_MEASURES}
_MATH = {"ARI^ξ_{x²}": r"$ARI^{\xi}_{x^2}$", "ARI^{Σd}_{x²}": r"$ARI^{\Sigma d}_{x^2}$"}


def plot_agreement(
    summary,
    path,
    *,
    x: str,
    xlabel: str,
    measures: Sequence[str],
    title: str,
    order: Sequence[str] = (),
    names: dict | None = None,
    ncol: int = 4,
) -> None:
    """Agreement with the ground truth vs ``x``: one panel per measure plus one of the number of
    communities found (ground truth dashed); every panel has its own y label and tick labels."""
    plt = pyplot()
    import matplotlib.ticker  # matplotlib is there: pyplot() imported it

    names = names or {}
    present = list(
        dict.fromkeys(
            [a for a in order if a in set(summary["algorithm"])] + sorted(set(summary["algorithm"]) - set(order))
        )
    )
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
                h = ax.plot(
                    s[x],
                    s["communities_mean"],
                    marker=markers[i % len(markers)],
                    ms=4,
                    lw=1.2,
                    label=names.get(alg, alg),
                )
            else:
                h = ax.errorbar(
                    s[x],
                    s["mean"],
                    yerr=s["std"].fillna(0.0),
                    marker=markers[i % len(markers)],
                    ms=4,
                    capsize=2,
                    lw=1.2,
                    label=names.get(alg, alg),
                )
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
    for ax in axes.ravel()[len(panels) :]:
        ax.set_visible(False)
    fig.legend(
        handles=handles,
        labels=[names.get(a, a) for a in present],
        loc="lower center",
        ncol=min(len(present), 6),
        fontsize=9,
        frameon=False,
    )
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    buf = io.BytesIO()  # rendered in memory, then written all or nothing (no half-written PNG)
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    write_files({path: buf.getvalue()}, parameter="path")


def plot_figure7(summary, path, *, measures: Sequence[str] | None = None) -> None:
    """Figure 7 of Rabbany & Zaïane 2015: agreement with the ground truth vs mixing parameter, one panel per measure."""
    measures = list(measures or [m for m in FIGURE7_MEASURES if m in set(summary["measure"])])
    plot_agreement(
        summary,
        path,
        x="mu",
        xlabel="mixing parameter μ",
        measures=measures,
        order=ALGORITHMS,
        title="Agreement with the LFR ground truth (Rabbany & Zaïane 2015, Figure 7)",
    )


def plot_figure(figure: int, summary, path, *, measures: Sequence[str]) -> None:
    """Figure 7, 8 or 9 of Rabbany & Zaïane 2015 from a :func:`summarize_trials` table."""
    s = figure_settings(figure)
    names = {m: f"{m} (≈{p})" for m, p in OVERLAPPING_METHODS.items() if p} if figure == 9 else None
    plot_agreement(
        summary,
        path,
        x=s["x"],
        xlabel=s["xlabel"],
        measures=list(measures),
        order=s["order"],
        title=s["title"],
        names=names,
    )


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
    """Rabbany & Zaïane's qualitative statements about Figure 7, 8 or 9, checked on ``summary``.

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
        for alg, m_for, text in (
            (
                "spinglass",
                "nmi_sum",
                "For large μ, NMI_Σ judges PottsModel (spinglass) better than "
                "RI does, since it finds too many communities",
            ),
            (
                "infomap",
                "vi_agreement",
                "For large μ, VI (as opposed to RI) judges InfoMap better, since it finds too few communities",
            ),
        ):
            if alg in algs and {m_for, "ri"} <= have and hi:
                (g1, r1), (g2, r2) = gap(m_for, alg), gap("ri", alg)
                out.append(
                    (
                        text,
                        bool(g1 < g2),
                        f"{alg} at μ ≥ 0.5: shortfall from the best algorithm {g1:.3f} under "
                        f"{FIGURE7_MEASURES[m_for][1]} vs {g2:.3f} under RI (mean rank {r1:.1f} vs {r2:.1f}); "
                        f"communities found {comm.loc[alg, hi].mean():.1f}, truth {truth_k[hi].mean():.1f}",
                    )
                )
        return out
    if figure == 8:
        struct = [m for m in ("ari_xi", "ari_sigma_d", "c_bot_ari_prime") if m in have]
        plain = [m for m in ("ari", "nmi") if m in have]
        if {"walktrap", "louvain"} <= algs:
            diffs = {
                m: float(
                    (_mean_table(summary, x, m).loc["walktrap"] - _mean_table(summary, x, m).loc["louvain"]).mean()
                )
                for m in struct + plain
            }
            better = sum(d > 0 for d in diffs.values())
            out.append(
                (
                    "Walktrap performs better than Louvain according to most of the measures",
                    bool(better > len(diffs) / 2),
                    "mean (Walktrap − Louvain) over μ_w: "
                    + ", ".join(f"{FIGURE8_MEASURES[m]} {d:+.3f}" for m, d in diffs.items()),
                )
            )
            if struct and plain:
                ds = np.mean([abs(diffs[m]) for m in struct])
                dp = np.mean([abs(diffs[m]) for m in plain])
                out.append(
                    (
                        "The Walktrap–Louvain difference is larger under the structure-dependent measures "
                        "(ARI^ξ_{x²}, ARI^{Σd}_{x²}, C_⊥ARI′) than under ARI and NMI",
                        bool(ds > dp),
                        f"mean |difference|: structure-dependent {ds:.3f}, ARI/NMI {dp:.3f}",
                    )
                )
        else:
            out.append(
                (
                    "Walktrap performs better than Louvain according to most of the measures",
                    None,
                    "needs both walktrap and louvain",
                )
            )
        if {"nmi", "ari"} <= have and len(algs) > 2:
            from scipy.stats import spearmanr

            hi = [c for c in comm.columns if c >= 0.5] or list(comm.columns)
            gap = (_mean_table(summary, x, "nmi") - _mean_table(summary, x, "ari"))[hi]
            k = comm[hi].loc[gap.index]
            rho = float(spearmanr(np.log(k.to_numpy().ravel()), gap.to_numpy().ravel()).statistic)
            out.append(
                (
                    "NMI is biased towards more clusters (as in Figure 7): the more communities a method "
                    "finds, the more NMI exceeds ARI",
                    bool(rho > 0),
                    f"Spearman correlation of (NMI − ARI) with the number of communities found, over methods "
                    f"and μ_w ≥ 0.5: {rho:+.2f}; communities found (mean): "
                    + ", ".join(f"{a} {comm.loc[a].mean():.0f}" for a in comm.index)
                    + f" (truth {summary['true_communities_mean'].mean():.0f})",
                )
            )
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
        out.append(
            (
                f"NMI′ and NMI″ penalize the method that finds many communities (the paper: MOSES; here {top}"
                f"{', its stand-in' if stand == 'MOSES' else ''}) more than Aω and ARI′_δ do",
                bool(g_n > g_a),
                f"{top} finds {comm.loc[top].mean():.0f} communities on average (truth "
                f"{summary['true_communities_mean'].mean():.0f}); mean gap to the best method: NMI′/NMI″ "
                f"{g_n:.3f}, Aω/ARI′_δ {g_a:.3f}",
            )
        )
    if {"adjusted_omega", "ari_delta_approx"} <= have and len(algs) > 2:
        a = _mean_table(summary, x, "adjusted_omega")
        b = _mean_table(summary, x, "ari_delta_approx")
        taus = [_kendall(a[c], b[c]) for c in a.columns]
        same = sum(np.array_equal(np.argsort(-a[c].to_numpy()), np.argsort(-b[c].to_numpy())) for c in a.columns)
        out.append(
            (
                "Aω and ARI′_δ rank the methods alike (each node is in at most two communities)",
                bool(np.mean(taus) >= 0.8),
                f"Kendall τ between their rankings, mean over fractions "
                f"{np.mean(taus):.2f}; identical order at {same} of {len(taus)} fractions",
            )
        )
    if {"omega", "ri_delta_approx"} <= have:
        a = _mean_table(summary, x, "omega")
        b = _mean_table(summary, x, "ri_delta_approx")
        d = float(np.abs(a - b).to_numpy().mean())
        spread_u = float((a.max(axis=0) - a.min(axis=0)).mean())
        spread_a = (
            float(
                (
                    _mean_table(summary, x, "adjusted_omega").max(axis=0)
                    - _mean_table(summary, x, "adjusted_omega").min(axis=0)
                ).mean()
            )
            if "adjusted_omega" in have
            else float("nan")
        )
        out.append(
            (
                "The unadjusted ω and RI′_δ are very similar and of little use (close to 1 for every method)",
                bool(d < 0.05 and a.to_numpy().min() > 0.8),
                f"mean |ω − RI′_δ| {d:.3f}; smallest ω {a.to_numpy().min():.3f}; spread between methods: ω "
                f"{spread_u:.3f}, Aω {spread_a:.3f}",
            )
        )
    return out


def figure_markdown(figure: int, frame, summary, *, settings: dict, records: Sequence[dict]) -> str:
    """Markdown note beside Rabbany & Zaïane 2015, Figure 7, 8 or 9: setup, means per measure, communities, realized
    mixing and whether the paper's qualitative findings hold."""
    s = figure_settings(figure)
    x = s["x"]
    labels = s["measures"]
    lab = (lambda m: labels[m][1]) if figure == 7 else (lambda m: labels[m])
    lines = [f"# Rabbany & Zaïane 2015, Figure {figure}: {s['title'].split(' (')[0]}", ""]
    lines += [settings.get("description", ""), ""]
    findings = figure_findings(figure, summary)
    lines += ["## Rabbany & Zaïane's findings, checked", ""]
    for text, holds, evidence in findings:
        verdict = "**holds**" if holds else ("**not checked**" if holds is None else "**does not hold**")
        lines.append(f"- {text}: {verdict} — {evidence}.")
    if not findings:
        lines.append("- (the configured algorithms/measures do not allow any check)")
    lines.append("")
    reps = int(frame.groupby([x, "algorithm", "measure"]).size().max()) if len(frame) else 0
    for m in [m for m in labels if m in set(summary["measure"])]:
        piv = _mean_table(summary, x, m)
        lines += [
            f"## {lab(m)} (mean over {reps} graph(s))",
            "",
            "| algorithm | " + " | ".join(f"{x}={c:g}" for c in piv.columns) + " |",
            "|---|" + "---|" * len(piv.columns),
        ]
        for alg, row in piv.iterrows():
            lines.append(f"| {alg} | " + " | ".join(f"{v:.3f}" for v in row.to_numpy()) + " |")
        lines.append("")
    comm = summary.drop_duplicates(["algorithm", x]).pivot(index="algorithm", columns=x, values="communities_mean")
    lines += [
        "## Number of communities found (mean)",
        "",
        "| algorithm | " + " | ".join(f"{x}={c:g}" for c in comm.columns) + " |",
        "|---|" + "---|" * len(comm.columns),
    ]
    for alg, row in comm.iterrows():
        lines.append(f"| {alg} | " + " | ".join(f"{v:.1f}" for v in row.to_numpy()) + " |")
    truth = frame.groupby(x)["true_communities"].mean()
    lines.append("| *ground truth* | " + " | ".join(f"{v:.1f}" for v in truth.to_numpy()) + " |")
    lines.append("")
    import pandas as pd

    rec = pd.DataFrame(
        [
            {
                x: r[x],
                "realized_mu": float(r.get("realized_mu", np.nan)),
                "realized_mu_weights": float(r.get("realized_mu_weights", np.nan)),
            }
            for r in records
        ]
    )
    g = rec.groupby(x).mean(numeric_only=True)
    lines += [
        "## Realized mixing of the graphs (mean over repeats)",
        "",
        f"| {x} | " + " | ".join(f"{c:g}" for c in g.index) + " |",
        "|---|" + "---|" * len(g.index),
    ]
    for col in [c for c in ("realized_mu", "realized_mu_weights") if g[c].notna().any()]:
        lines.append(f"| {col.replace('realized_', 'realized ')} | " + " | ".join(f"{v:.3f}" for v in g[col]) + " |")
    lines.append("")
    return "\n".join(lines)


def _description(figure: int, st: dict, repeats: int) -> str:
    graph = (
        f"n = {st['n']}, average degree {st['average_degree']}, max degree {st['max_degree']}, "
        f"exponents τ1 = {st['tau1']}, τ2 = {st['tau2']}, community sizes {st['min_community']}–"
        f"{st['max_community']}"
    )
    files = (
        f"Figure: `figure{figure}.png`; all trials: `figure{figure}_trials.csv`; means/std: "
        f"`figure{figure}_summary.csv`. {repeats} graph(s) per point (the paper: 10 runs; raise `repeats`)."
    )
    if figure == 7:
        gen = st.get("generator", "agreekit")
        src = (
            "agreekit.clustering.lfr.lfr_benchmark"
            if gen == "agreekit"
            else "networkx's LFR_benchmark_graph (it overshoots the requested μ: see the realized mixing below)"
        )
        return (
            f"Unweighted LFR graphs ({src}): {graph}; μ = {', '.join(str(m) for m in st['mu'])}. Algorithms "
            "(python-igraph): "
            + ", ".join(st["algorithms"])
            + (
                " (spinglass = Reichardt–Bornholdt Potts model, standing in for Rabbany & Zaïane's PottsModel). "
                if "spinglass" in st["algorithms"]
                else ". "
            )
            + files
        )
    if figure == 8:
        return (
            f"Weighted LFR graphs (agreekit.clustering.lfr.lfr_benchmark): {graph}; topological mixing μ_t = "
            f"{st['mu']}, strength exponent β = {st['beta']}, weight mixing μ_w = "
            f"{', '.join(str(m) for m in st['mu_weights'])}. Algorithms (python-igraph, with edge weights): "
            + ", ".join(st["algorithms"])
            + ". ARI^ξ_{x²} and ARI^{Σd}_{x²} are the adjusted generalized "
            "distance AD_{x²} with the edge (ξ) and degree (Σd) overlap functions of the weighted graph "
            "(Rabbany & Zaïane 2015, §3.1 definitions), C_⊥ARI′ is ARI′_δ of the incidence-transformed memberships "
            "(§4.1); NMI is NMI_Σ. " + files
        )
    stand = ", ".join(
        f"{m} for {OVERLAPPING_METHODS[m]}" if OVERLAPPING_METHODS.get(m) else f"{m} (extra)" for m in st["methods"]
    )
    return (
        f"Overlapping LFR graphs (agreekit.clustering.lfr.lfr_benchmark): {graph}; μ_t = {st['mu']}, "
        f"o_m = {st['memberships']} communities per overlapping node, fraction of overlapping nodes "
        f"{', '.join(str(m) for m in st['overlap_fraction'])}. Rabbany & Zaïane's COPRA, MOSES, OSLOM and BIGCLAM "
        f"are external programs; cdlib's methods stand in: {stand}. big_clam is given the true number of "
        "communities (the SNAP program estimates it) and the threshold affiliation of Yang & Leskovec; nodes "
        "a method leaves uncovered form one extra cluster for ω, Aω and the δ measures and stay uncovered "
        "for the NMIs. NMI′ / NMI″ = overlapping NMI of Lancichinetti et "
        "al. / McDaid et al. (agreekit.clustering.overlapping_nmi), ω / Aω = (adjusted) Omega, RI′_δ / "
        "ARI′_δ = co-membership forms with the diagonal kept. " + files
    )


def figure_report(figure: int, records: Sequence[dict], settings: dict, png_path):
    """Trials table, summary, PNG and Markdown note of Rabbany & Zaïane 2015, Figure 7, 8 or 9: ``(frame, summary, markdown)``."""
    s = figure_settings(figure)
    frame = trials_frame(records, x=s["x"])
    summary = summarize_trials(frame, x=s["x"])
    plot_figure(figure, summary, png_path, measures=[m for m in settings["measures"]])
    md = figure_markdown(
        figure,
        frame,
        summary,
        records=records,
        settings={"description": _description(figure, settings, int(settings["repeats"]))},
    )
    return frame, summary, md
