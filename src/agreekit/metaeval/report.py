"""Files of the ``metaeval`` pipeline stage: per-collection tables, heatmap, consensus, summary.

* :func:`write_collection` — ``agreement.{csv,md}``, ``heatmap.{png,pdf}``, ``consensus.{csv,md}``
  and ``collection.json`` for one collection;
* :func:`interchangeability` and :func:`write_summary` — ``summary.{md,csv}`` across collections:
  where plain τ_b and standardized top-weighted g(τ_w) disagree about which metrics are
  interchangeable (Voorhees' convention: a correlation ≥ 0.9 means "the same ranking").
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from agreekit._io import atomic_write, dumps_json, write_files
from agreekit._plot import figure_files, pyplot, save_figure
from agreekit.ireval.report import to_markdown
from agreekit.metaeval._agreement import MetricAgreement
from agreekit.metaeval._consensus import ConsensusRanking
from agreekit.ranking.tables import standardize

__all__ = [
    "write_collection",
    "with_confidence_level",
    "plot_heatmap",
    "interchangeability",
    "write_summary",
    "AGREEMENT_MD_COLUMNS",
    "DEFAULT_THRESHOLD",
]

#: Voorhees (2000): Kendall's τ ≥ 0.9 between two system rankings = "equivalent" rankings
DEFAULT_THRESHOLD = 0.9

AGREEMENT_MD_COLUMNS = [
    "metric_a",
    "metric_b",
    "tau_b",
    "tau_b_se",
    "tau_w",
    "tau_w_se",
    "tau_w_standardized",
    "tau_w_standardized_se",
    "tau_ap_b",
    "tau_ap_b_se",
    "pvalue",
    "top_k_overlap",
]


def plot_heatmap(agreement: MetricAgreement, stem: str | Path, *, title: str = "") -> None:
    """The agreement heatmap as ``stem.png`` and ``stem.pdf``."""
    plt = pyplot()
    fig = _heatmap_figure(agreement, title)
    try:
        save_figure(fig, stem)
    finally:
        plt.close(fig)


def _heatmap_figure(agreement: MetricAgreement, title: str = ""):
    """Three heatmaps side by side: standardized τ_w (left), τ_AP_b (middle) and plain τ_b (right), each cell
    annotated with the value and its bootstrap SE; diverging colours on [−1, 1]."""
    plt = pyplot()
    names = list(agreement.metrics)
    k = len(names)
    size = max(3.2, 0.75 * k + 1.6)
    fig, axes = plt.subplots(1, 3, figsize=(3 * size + 1.2, size), constrained_layout=True)
    panels = (
        ("tau_w_standardized", "standardized top-weighted $g(\\tau_w)$"),
        ("tau_ap_b", "AP correlation $\\tau_{AP,b}$"),
        ("tau_b", "plain Kendall $\\tau_b$"),
    )
    im = None
    for ax, (col, label) in zip(axes, panels):
        V = agreement.matrix(col).to_numpy()
        S = agreement.matrix(col + "_se").to_numpy()
        show = V.copy()
        np.fill_diagonal(show, np.nan)
        im = ax.imshow(show, cmap="RdBu_r", vmin=-1, vmax=1)
        for i in range(k):
            for j in range(k):
                if i == j:
                    ax.text(j, i, "—", ha="center", va="center", fontsize=8, color="grey")
                    continue
                v, s = V[i, j], S[i, j]
                txt = "nan" if not math.isfinite(v) else f"{v:.2f}\n±{s:.2f}"
                ax.text(
                    j,
                    i,
                    txt,
                    ha="center",
                    va="center",
                    fontsize=7 if k > 5 else 8,
                    color="white" if math.isfinite(v) and abs(v) > 0.6 else "black",
                )
        ax.set_xticks(range(k), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(k), names, fontsize=8)
        ax.set_title(label, fontsize=10)
    cb = fig.colorbar(im, ax=list(axes), shrink=0.8)
    cb.set_label("rank correlation of the system rankings\n(cell: value ± bootstrap SE)", fontsize=8)
    wt = f"weigher {agreement.weigher}, {agreement.scheme}"
    fig.suptitle(
        (title + ": " if title else "")
        + f"{agreement.n_systems} systems, {agreement.n_topics} topics, B = {agreement.n_resamples}; {wt}",
        fontsize=10,
    )
    return fig


def _consensus_md(cons: ConsensusRanking, *, top: int = 20) -> str:
    status = "proven optimal" if cons.proven else f"best found, NOT proven: bound {cons.bound:.6f}, gap {cons.gap:.6f}"
    lines = [
        f"Kemeny consensus of {len(cons.tau_x)} metric rankings over {len(cons.ranking)} systems: "
        f"average τ_x = {cons.average_tau_x:.6f} ({status}; method {cons.method}, "
        f"{cons.n_optima} optimal ranking(s) found"
        f"{', all of them' if cons.exhaustive else ''}).",
        "",
    ]
    if cons.message:
        lines += [f"Solver: {cons.message}", ""]
    lines += ["| metric | τ_x with the consensus |", "|---|---|"]
    lines += [f"| {m} | {t:.4f} |" for m, t in cons.tau_x.items()]
    order = cons.ranking.sort_values(kind="stable")
    lines += [
        "",
        f"Top {min(top, len(order))} systems of the consensus (rank; ties share a rank):",
        "",
        "| rank | system |",
        "|---|---|",
    ]
    lines += [f"| {int(r)} | {s} |" for s, r in order.iloc[:top].items()]
    return "\n".join(lines) + "\n"


def with_confidence_level(agreement: MetricAgreement) -> dict:
    """``agreement.to_dict()`` with the intervals' ``confidence_level`` beside its ``alpha`` (= 1 - level)."""
    out = {}
    for key, value in agreement.to_dict().items():
        out[key] = value
        if key == "alpha":
            out["confidence_level"] = float(agreement.confidence_level)
    out.setdefault("confidence_level", float(agreement.confidence_level))
    return out


def write_collection(
    collection: str, agreement: MetricAgreement, consensus: ConsensusRanking, outdir: str | Path
) -> dict[str, Path]:
    """Write the files of one collection into ``outdir``, all or nothing
    (:func:`agreekit._io.write_files`: every target is checked first, every file goes through a unique
    temporary name, and nothing is renamed into place unless all were written)."""
    import io

    outdir = Path(outdir)
    frame = agreement.to_frame()
    paths = {
        "agreement_csv": outdir / "agreement.csv",
        "agreement_md": outdir / "agreement.md",
        "consensus_csv": outdir / "consensus.csv",
        "consensus_md": outdir / "consensus.md",
        "json": outdir / "collection.json",
        "heatmap": outdir / "heatmap.png",
    }
    contents: dict[Path, str | bytes] = {}
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.10g", lineterminator="\n")
    contents[paths["agreement_csv"]] = buf.getvalue()
    head = (
        f"# {collection}: agreement between metrics\n\n"
        f"{agreement.n_systems} systems, {agreement.n_topics} topics, B = {agreement.n_resamples} "
        f"bootstrap topic samples shared by all metrics; τ_w with weigher `{agreement.weigher}` "
        f"({agreement.scheme}); top-k overlap with k = {agreement.top_k}.\n\n"
    )
    contents[paths["agreement_md"]] = head + to_markdown(frame[AGREEMENT_MD_COLUMNS])
    buf = io.StringIO()
    consensus.to_frame().to_csv(buf, index=False, float_format="%.10g", lineterminator="\n")
    contents[paths["consensus_csv"]] = buf.getvalue()
    contents[paths["consensus_md"]] = f"# {collection}: consensus ranking\n\n" + _consensus_md(consensus)
    info = {
        "collection": collection,
        **with_confidence_level(agreement),
        "consensus": {k: v for k, v in consensus.to_dict().items() if k != "ranking"},
    }
    info["consensus"].pop("seconds")  # wall-clock time: not part of the byte-identical outputs
    contents[paths["json"]] = dumps_json(info) + "\n"
    plt = pyplot()
    fig = _heatmap_figure(agreement, title=collection)
    try:
        contents.update(figure_files(fig, outdir / "heatmap"))
    finally:
        plt.close(fig)
    write_files(contents, parameter="--output-dir")
    return paths


def interchangeability(
    frames: Mapping[str, pd.DataFrame], *, threshold: float = DEFAULT_THRESHOLD, z: float = 1.959963984540054
) -> pd.DataFrame:
    """Per collection and metric pair: is the pair interchangeable (correlation ≥ threshold)
    by plain τ_b and by standardized g(τ_w), do they disagree, and is g(τ_w) − τ_b larger
    than ``z`` paired bootstrap SEs?"""
    rows = []
    for coll, df in frames.items():
        for r in df.itertuples(index=False):
            ib = bool(r.tau_b >= threshold)
            iw = bool(r.tau_w_standardized >= threshold)
            rows.append(
                {
                    "collection": coll,
                    "metric_a": r.metric_a,
                    "metric_b": r.metric_b,
                    "tau_b": r.tau_b,
                    "tau_b_se": r.tau_b_se,
                    "tau_w_standardized": r.tau_w_standardized,
                    "tau_w_standardized_se": r.tau_w_standardized_se,
                    "difference": r.difference,
                    "difference_se": r.difference_se,
                    "difference_significant": bool(abs(r.difference) > z * r.difference_se),
                    "top_k_overlap": int(r.top_k_overlap),
                    "interchangeable_tau_b": ib,
                    "interchangeable_tau_w": iw,
                    "disagree": ib != iw,
                }
            )
    return pd.DataFrame(rows)


def _fmt(v, se):
    return f"{v:.3f} ± {se:.3f}"


def write_summary(
    collections: Mapping[str, str | Path],
    out_md: str | Path,
    out_csv: str | Path,
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> pd.DataFrame:
    """``summary.md`` / ``summary.csv`` from the per-collection directories (agreement.csv,
    collection.json)."""
    frames, infos = {}, {}
    for coll, d in collections.items():
        frames[coll] = pd.read_csv(Path(d) / "agreement.csv")
        infos[coll] = json.loads((Path(d) / "collection.json").read_text("utf-8"))
    table = interchangeability(frames, threshold=threshold)
    with atomic_write(out_csv) as fh:
        table.to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    n_pairs = len(table)
    dis = table[table["disagree"]]
    only_w = dis[dis["interchangeable_tau_w"]]
    only_b = dis[dis["interchangeable_tau_b"]]
    sig = table[table["difference_significant"]]
    any_info = next(iter(infos.values()))
    L = [
        "# Meta-evaluation across collections: plain τ_b vs standardized top-weighted τ_w",
        "",
        f"{len(frames)} collections, {n_pairs} metric pairs. Two metrics are called *interchangeable* "
        f"when the rank correlation of their system rankings is ≥ {threshold} (Voorhees' convention), "
        f"judged once with Kendall's τ_b (all systems count alike) and once with the standardized "
        f"top-weighted g(τ_w) (weigher `{any_info['weigher']}`, {any_info['scheme']}; zero mean "
        f"under independence). Values are ± bootstrap SE (B = {any_info['n_resamples']} topic "
        "samples shared by all metrics of a collection); `Δ` = g(τ_w) − τ_b with its paired "
        "bootstrap SE.",
        "",
        "## Finding",
        "",
    ]
    L.append(
        f"- τ_b and g(τ_w) disagree about interchangeability for **{len(dis)} of {n_pairs}** pairs: "
        f"{len(only_w)} are interchangeable only at the top (g(τ_w) ≥ {threshold} > τ_b), "
        f"{len(only_b)} only by plain τ_b (τ_b ≥ {threshold} > g(τ_w))."
    )
    pos = int((sig["difference"] > 0).sum())
    neg = int((sig["difference"] < 0).sum())
    L.append(
        f"- g(τ_w) − τ_b exceeds 1.96 paired bootstrap SEs for {len(sig)} of {n_pairs} pairs "
        f"({pos} higher at the top, {neg} lower at the top)."
    )
    if len(table):
        med = float(np.median(table["tau_w_standardized_se"] / table["tau_b_se"]))
        L.append(f"- The top-weighted coefficient is less precise: median SE ratio SE(g(τ_w)) / SE(τ_b) = {med:.2f}.")
    multi = [c for c in frames if len(infos[c]["metrics"]) >= 3]
    moved = []
    for coll in multi:
        t = table[table["collection"] == coll]
        bb = t.loc[t["tau_b"].idxmax()]
        bw = t.loc[t["tau_w_standardized"].idxmax()]
        if (bb.metric_a, bb.metric_b) != (bw.metric_a, bw.metric_b):
            moved.append(
                f"{coll} (τ_b: {bb.metric_a} / {bb.metric_b}, {bb.tau_b:.3f}; g(τ_w): "
                f"{bw.metric_a} / {bw.metric_b}, {bw.tau_w_standardized:.3f})"
            )
    if multi:
        L.append(
            f"- The most interchangeable pair of metrics differs between τ_b and g(τ_w) in {len(moved)} of "
            f"{len(multi)} collections with ≥ 3 metrics" + (": " + "; ".join(moved) if moved else "") + "."
        )
    scale = []
    for n in sorted({int(i["n_systems"]) for i in infos.values()}):
        try:
            g = standardize(
                [0.0, 0.5, 0.8], coefficient="kendall", scheme=any_info["scheme"], weigher=any_info["weigher"], n=n
            )
            scale.append(f"n = {n}: g(0) = {g[0]:.2f}, g(0.5) = {g[1]:.2f}, g(0.8) = {g[2]:.2f}")
        except ValueError:
            pass
    if scale:
        L += [
            "",
            "Scale caveat: g(τ_w) has zero mean under independence and g(±1) = ±1, but it is not on "
            "τ_b's scale: the null of τ_w is concentrated below 0, so g rises steeply there and saturates "
            "towards 1 (" + "; ".join(scale) + "). A common threshold therefore favours g(τ_w); the "
            "ordering of the pairs and the top-k overlap are scale-free.",
        ]
    L.append("")
    if len(dis):
        L += [
            "| collection | metric pair | τ_b | g(τ_w) | Δ | top-k overlap | interchangeable by |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in dis.itertuples(index=False):
            by = "g(τ_w) only" if r.interchangeable_tau_w else "τ_b only"
            L.append(
                f"| {r.collection} | {r.metric_a} / {r.metric_b} | {_fmt(r.tau_b, r.tau_b_se)} | "
                f"{_fmt(r.tau_w_standardized, r.tau_w_standardized_se)} | "
                f"{_fmt(r.difference, r.difference_se)} | {r.top_k_overlap} | {by} |"
            )
        L.append("")
    L += ["## Per collection", ""]
    for coll, df in frames.items():
        info = infos[coll]
        c = info["consensus"]
        t = table[table["collection"] == coll]
        best_b = t.loc[t["tau_b"].idxmax()]
        best_w = t.loc[t["tau_w_standardized"].idxmax()]
        from scipy.stats import kendalltau

        order_tau = kendalltau(t["tau_b"], t["tau_w_standardized"]).statistic if len(t) > 2 else float("nan")
        L.append(f"### {coll} ({info['n_systems']} systems, {info['n_topics']} topics, {len(info['metrics'])} metrics)")
        L.append("")
        L.append(
            f"- most interchangeable pair by τ_b: {best_b.metric_a} / {best_b.metric_b} "
            f"({_fmt(best_b.tau_b, best_b.tau_b_se)}); by g(τ_w): {best_w.metric_a} / {best_w.metric_b} "
            f"({_fmt(best_w.tau_w_standardized, best_w.tau_w_standardized_se)})"
            + (
                f"; agreement of the two orderings of the pairs: Kendall τ = {order_tau:.2f}"
                if math.isfinite(order_tau)
                else ""
            )
            + "."
        )
        status = "proven optimal" if c["proven"] else f"not proven, gap ≤ {c['gap']:.4f}"
        taus = ", ".join(f"{m} {v:.3f}" for m, v in c["tau_x"].items())
        L.append(
            f"- consensus ranking: average τ_x = {c['average_tau_x']:.4f} ({status}, method "
            f"{c['method']}, {c['n_optima']} optimum/optima found); τ_x per metric: {taus}."
        )
        L.append("")
        L += ["| metric pair | τ_b | g(τ_w) | Δ | top-k overlap | p-value (τ_w) |", "|---|---|---|---|---|---|"]
        for r in df.itertuples(index=False):
            p = (
                "pending"
                if r.pvalue_method == "pending"
                else ("nan" if not math.isfinite(r.pvalue) else f"{r.pvalue:.2e}")
            )
            L.append(
                f"| {r.metric_a} / {r.metric_b} | {_fmt(r.tau_b, r.tau_b_se)} | "
                f"{_fmt(r.tau_w_standardized, r.tau_w_standardized_se)} | "
                f"{_fmt(r.difference, r.difference_se)} | {r.top_k_overlap} | {p} |"
            )
        L.append("")
    with atomic_write(out_md) as fh:
        fh.write("\n".join(L))
    return table
