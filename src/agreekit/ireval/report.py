"""Collection-level meta-evaluation reports (Sakai 2006, Tables 2-3, Figs. 7-13).

Runs :func:`agreekit.ireval.bootstrap.meta_evaluate` for every metric of one test
collection on *shared* bootstrap samples, plus Kendall's tau between every
pair of metrics with its bootstrap SE, and turns the results into tables
(CSV + Markdown) and figures (PNG + PDF).  The Snakemake stage
``workflow/rules/bootstrap.smk`` calls these functions through thin scripts
(:func:`write_collection` for one collection's files, :func:`write_table` with
:data:`MARKDOWN_COLUMNS` for the paper's tables).
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from agreekit._api import ResultBase, deprecated_attribute, renamed_parameters
from agreekit._plot import pyplot, save_figure
from agreekit._io import atomic_write, write_json
from agreekit._validation import InputError, check_int
from agreekit.ireval.bootstrap import (
    DEFAULT_FUZZINESS,
    MetaEvaluation,
    format_difference,
    kendall_critical_value,
    meta_evaluate,
    rank_correlation_se,
)
from agreekit.ireval._scores import align_scores, check_scores

__all__ = [
    "MetricInput",
    "CollectionAnalysis",
    "collection_seed",
    "analyze_collection",
    "write_collection",
    "write_table",
    "MARKDOWN_COLUMNS",
    "table2",
    "table3",
    "correlation_table",
    "to_markdown",
    "plot_asl_curves",
    "plot_mr_pt",
    "plot_swap_rates",
    "plot_rank_correlations",
]


@dataclass(frozen=True)
class MetricInput:
    """One metric of a collection: its per-topic score matrix and ``summary`` ("mean" or
    "gmean"; formerly ``statistic``)."""

    name: str
    scores: pd.DataFrame
    summary: str = "mean"

    statistic = deprecated_attribute("summary", "statistic")


MetricInput.__init__ = renamed_parameters(statistic="summary")(MetricInput.__init__)


@dataclass(frozen=True)
class CollectionAnalysis(ResultBase):
    """Results of :func:`analyze_collection` (``summary_names``: metric -> "mean" / "gmean",
    formerly ``statistics``)."""

    collection: str
    metrics: list[str]
    summary_names: dict[str, str]
    evaluations: dict[str, MetaEvaluation]
    correlations: pd.DataFrame
    n_topics: int
    n_systems: int

    statistics = deprecated_attribute("summary_names", "statistics")

    def to_dict(self) -> dict:
        """The collection's summary.json (JSON-able; ``statistic`` there is the summary name)."""
        return {
            "collection": self.collection,
            "n_topics": self.n_topics,
            "n_systems": self.n_systems,
            "metrics": {m: {"statistic": self.summary_names[m], **self.evaluations[m].to_dict()} for m in self.metrics},
            "correlations": self.correlations.to_dict(orient="records"),
        }

    def pairs_frame(self) -> pd.DataFrame:
        frames = []
        for m in self.metrics:
            ev = self.evaluations[m]
            for test, res in (("paired", ev.paired), ("unpaired", ev.unpaired)):
                if res is not None:
                    frames.append(res.table.assign(metric=m, test=test))
        df = pd.concat(frames, ignore_index=True)
        return df[["metric", "test"] + [c for c in df.columns if c not in ("metric", "test")]]

    def stability_frame(self) -> pd.DataFrame:
        return pd.concat(
            [
                self.evaluations[m].stability.to_frame().assign(metric=m)
                for m in self.metrics
                if self.evaluations[m].stability is not None
            ],
            ignore_index=True,
        )[["metric", "fuzziness", "minority_rate", "proportion_of_ties"]]

    def swap_frame(self) -> pd.DataFrame:
        return pd.concat(
            [
                self.evaluations[m].swap.bins.assign(metric=m)
                for m in self.metrics
                if self.evaluations[m].swap is not None
            ],
            ignore_index=True,
        )[["metric", "lower", "upper", "comparisons", "swaps", "swap_rate"]]


def collection_seed(seed: int, collection: str) -> np.random.SeedSequence:
    """Per-collection SeedSequence derived from the global seed and the collection name."""
    return np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(collection.encode()),))


@renamed_parameters(seed="rng")
def analyze_collection(
    collection: str,
    metrics: Sequence[MetricInput],
    *,
    rng,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    fuzziness: Sequence[float] = DEFAULT_FUZZINESS,
    bin_width: float = 0.01,
    n_bins: int = 21,
    swap_threshold: float = 0.05,
    tau_variant: str = "b",
    progress: bool = False,
) -> CollectionAnalysis:
    """Meta-evaluate every metric of a collection on shared bootstrap samples.

    All metrics must have the same topics and systems (aligned by label).
    The same topic samples Q*b (from :func:`collection_seed` of the int ``rng``;
    formerly ``seed``) serve every metric, so Kendall's tau SEs use identical samples
    for both metrics.  ``rng`` may also be a ``SeedSequence`` (used as the collection's)
    or a ``Generator`` (drawn from in call order).  ``alpha`` is the significance level.
    """
    if not metrics:
        raise InputError("metrics", "at least one metric is required")
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise InputError("metrics", f"duplicate metric names {names}")
    ref = check_scores(metrics[0].scores, parameter=f"scores[{names[0]}]")
    mats = {metrics[0].name: ref}
    for m in metrics[1:]:
        mats[m.name] = align_scores(
            ref,
            check_scores(m.scores, parameter=f"scores[{m.name}]"),
            names=(f"scores[{names[0]}]", f"scores[{m.name}]"),
        )
    stats_ = {m.name: m.summary for m in metrics}
    if isinstance(rng, (np.random.SeedSequence, np.random.Generator)):
        ss = rng
    else:
        ss = collection_seed(check_int("rng", rng, minimum=0), collection)
    it = names
    if progress:
        from tqdm import tqdm

        it = tqdm(names, desc=f"{collection}: metrics", leave=False)
    evs = {}
    for name in it:
        evs[name] = meta_evaluate(
            mats[name],
            alpha=alpha,
            n_resamples=n_resamples,
            rng=ss,
            summary=stats_[name],
            fuzziness=fuzziness,
            bin_width=bin_width,
            n_bins=n_bins,
            swap_threshold=swap_threshold,
        )
    rows = []
    for a, b in itertools.combinations(names, 2):
        r = rank_correlation_se(
            mats[a],
            mats[b],
            rng=ss,
            n_resamples=n_resamples,
            summary=stats_[a],
            summary_b=stats_[b],
            variant=tau_variant,
        )
        rows.append(
            {
                "metric_a": a,
                "metric_b": b,
                "tau": r.correlation,
                "se": r.standard_error,
                "bootstrap_mean": r.bootstrap_mean,
                "z0": r.test_statistic,
                "pvalue": r.pvalue,
            }
        )
    corr = pd.DataFrame(rows, columns=["metric_a", "metric_b", "tau", "se", "bootstrap_mean", "z0", "pvalue"])
    return CollectionAnalysis(
        collection=collection,
        metrics=names,
        summary_names=stats_,
        evaluations=evs,
        correlations=corr,
        n_topics=int(ref.shape[0]),
        n_systems=int(ref.shape[1]),
    )


# --------------------------------------------------------------------------- tables


def _pct(count: int, total: int) -> str:
    return f"{count}/{total}={round(100 * count / total)}%"


def _by_collection(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows in collection order (first appearance), then ``key`` descending, then metric (stable)."""
    order = {c: i for i, c in enumerate(dict.fromkeys(df["collection"]))}
    df = df.assign(_c=df["collection"].map(order)).sort_values(
        ["_c", key, "metric"], ascending=[True, False, True], kind="mergesort"
    )
    return df.drop(columns="_c").reset_index(drop=True)


def _power_columns(test: str, r: Mapping | None, decimals: int) -> dict:
    """Table 2's columns of one test (``paired_*`` or ``unpaired_*``); empty cells without it."""
    return {
        f"{test}_significant": r["n_significant"] if r else None,
        f"{test}_sensitivity": _pct(r["n_significant"], r["n_pairs"]) if r else "",
        f"{test}_proportion": r["proportion"] if r else None,
        f"{test}_estimated_diff": r["estimated_difference"] if r else None,
        f"{test}_estimated_diff_2dp": format_difference(r["estimated_difference"], decimals=decimals) if r else "",
    }


def table2(summaries: Sequence[Mapping], *, decimals: int = 2) -> pd.DataFrame:
    """Table 2 style: sensitivity (ASL < alpha) and estimated difference, paired and unpaired.

    One row per (collection, metric), sorted within a collection by paired
    sensitivity.  For geometric-mean metrics the paired columns are the AG
    test (differences of mean logs).
    """
    rows = []
    for s in summaries:
        for metric, m in s["metrics"].items():
            p, u = m.get("paired"), m.get("unpaired")
            rows.append(
                {
                    "collection": s["collection"],
                    "metric": metric,
                    "statistic": m["statistic"],
                    "paired_metric": ("AG_" + metric[2:] if metric.startswith("G_") else f"AG({metric})")
                    if m["statistic"] == "gmean"
                    else metric,
                    "n_pairs": p["n_pairs"] if p else u["n_pairs"],
                    **_power_columns("paired", p, decimals),
                    **_power_columns("unpaired", u, decimals),
                }
            )
    return _by_collection(pd.DataFrame(rows), "paired_significant")


def table3(summaries: Sequence[Mapping]) -> pd.DataFrame:
    """Table 3 style: swap-method abs / max / rel / sensitivity per (collection, metric)."""
    rows = []
    for s in summaries:
        for metric, m in s["metrics"].items():
            w = m["swap"]
            rows.append(
                {
                    "collection": s["collection"],
                    "metric": metric,
                    "abs": w["abs"],
                    "max": w["max"],
                    "rel": w["rel"],
                    "sensitivity": w["sensitivity"],
                    "abs_2dp": format_difference(w["abs"]),
                    "max_4dp": f"{w['max']:.4f}",
                    "rel_pct": "nan" if w["rel"] is None or not np.isfinite(w["rel"]) else f"{round(100 * w['rel'])}%",
                    "sensitivity_pct": f"{round(100 * w['sensitivity'])}%",
                }
            )
    return _by_collection(pd.DataFrame(rows), "sensitivity")


def correlation_table(summaries: Sequence[Mapping]) -> pd.DataFrame:
    """Kendall's tau between metrics with bootstrap SE (Figs. 12-13), all collections."""
    return pd.DataFrame([{"collection": s["collection"], **r} for s in summaries for r in s["correlations"]])


def to_markdown(df: pd.DataFrame, *, floatfmt: str = ".4f") -> str:
    """GitHub-style Markdown table (no extra dependency)."""

    def fmt(v, col):
        if isinstance(v, (float, np.floating)):
            if not np.isfinite(v):
                return "nan"
            return format(v, ".2e" if "pvalue" in col else floatfmt)
        return str(v)

    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v, c) for v, c in zip(row, cols)) + " |")
    return "\n".join(lines) + "\n"


#: columns shown in the Markdown versions (the CSVs keep every column)
MARKDOWN_COLUMNS = {
    "table2": [
        "collection",
        "metric",
        "paired_metric",
        "paired_sensitivity",
        "paired_estimated_diff_2dp",
        "unpaired_sensitivity",
        "unpaired_estimated_diff_2dp",
    ],
    "table3": ["collection", "metric", "abs_2dp", "max_4dp", "rel_pct", "sensitivity_pct"],
}


def write_table(
    df: pd.DataFrame, stem: str | Path, *, title: str = "", markdown_columns: Sequence[str] | None = None
) -> None:
    """Write ``stem``.csv (all columns) and ``stem``.md (``markdown_columns``) atomically."""
    stem = Path(stem)
    with atomic_write(stem.with_suffix(".csv")) as fh:
        df.to_csv(fh, index=False, float_format="%.6g", lineterminator="\n")
    md = df if markdown_columns is None else df[list(markdown_columns)]
    with atomic_write(stem.with_suffix(".md")) as fh:
        fh.write((f"# {title}\n\n" if title else "") + to_markdown(md))


def write_collection(analysis: CollectionAnalysis, outdir: str | Path) -> dict[str, Path]:
    """Write summary.json, pairs.csv, stability.csv, swap.csv, correlations.csv into ``outdir``."""
    outdir = Path(outdir)
    paths = {
        k: outdir / f"{k}.{'json' if k == 'summary' else 'csv'}"
        for k in ("summary", "pairs", "stability", "swap", "correlations")
    }
    write_json(paths["summary"], analysis.to_dict())
    for key, df in (
        ("pairs", analysis.pairs_frame()),
        ("stability", analysis.stability_frame()),
        ("swap", analysis.swap_frame()),
        ("correlations", analysis.correlations),
    ):
        with atomic_write(paths[key]) as fh:
            df.to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    return paths


# --------------------------------------------------------------------------- figures


def _label_and_save(fig, ax, stem, xlabel: str, ylabel: str, title: str) -> None:
    """Axis labels, title and legend, then the figure written (PNG and PDF) and closed."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    save_figure(fig, stem)
    pyplot().close(fig)


def plot_asl_curves(pairs: pd.DataFrame, test: str, stem: str | Path, *, alpha: float = 0.05, title: str = "") -> None:
    """Figs. 7-8: per metric, the pairs' ASLs sorted ascending (y-axis 0-0.1)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for metric, grp in pairs[pairs["test"] == test].groupby("metric", sort=False):
        asl = np.sort(grp["asl"].to_numpy())
        label = "AG_" + metric[2:] if metric.startswith("G_") and test == "paired" else metric
        ax.plot(np.arange(1, asl.size + 1), asl, label=label, lw=1.2)
    ax.axhline(alpha, color="grey", ls=":", lw=0.8)
    ax.set_ylim(0, 0.1)
    _label_and_save(
        fig,
        ax,
        stem,
        "system pair sorted by ASL",
        "achieved significance level (ASL)",
        title or f"{test} bootstrap test",
    )


def plot_mr_pt(stab: pd.DataFrame, stem: str | Path, *, title: str = "") -> None:
    """Fig. 10: MR (%) against PT (%) for f = 0.01..0.20."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for metric, grp in stab.groupby("metric", sort=False):
        ax.plot(100 * grp["proportion_of_ties"], 100 * grp["minority_rate"], marker=".", label=metric, lw=1.2)
    ax.set_xlim(0, 100)
    _label_and_save(
        fig, ax, stem, "proportion of ties (%)", "minority rate (%)", title or "MR-PT curves (stability method)"
    )


def plot_swap_rates(swap: pd.DataFrame, stem: str | Path, *, threshold: float = 0.05, title: str = "") -> None:
    """Swap rate against difference bin (Fig. 11 algorithm)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for metric, grp in swap.groupby("metric", sort=False):
        ax.plot(grp["lower"], 100 * grp["swap_rate"], marker=".", label=metric, lw=1.2)
    ax.axhline(100 * threshold, color="grey", ls=":", lw=0.8)
    _label_and_save(fig, ax, stem, "performance difference bin (lower edge)", "swap rate (%)", title or "swap rates")


def plot_rank_correlations(
    corr: pd.DataFrame, stem: str | Path, *, n_systems: int | None = None, alpha: float = 0.01, title: str = ""
) -> None:
    """Figs. 12-13: Kendall's tau per metric pair with bootstrap-SE error bars."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(5, 0.45 * len(corr) + 2), 4))
    x = np.arange(len(corr))
    ax.bar(x, corr["tau"], yerr=corr["se"], capsize=3, color="#6a8fbf")
    if n_systems is not None:
        ax.axhline(
            kendall_critical_value(n_systems, alpha),
            color="grey",
            ls=":",
            lw=0.8,
            label=f"|tau| significant at alpha={alpha} (Eq. 11)",
        )
        ax.legend(fontsize=8)
    ax.set_xticks(
        x, [f"{a} / {b}" for a, b in zip(corr["metric_a"], corr["metric_b"])], rotation=60, ha="right", fontsize=7
    )
    ax.set_ylim(0, 1)
    ax.set_ylabel("Kendall's tau (error bar: bootstrap SE)")
    ax.set_title(title or "rank correlations between metrics")
    save_figure(fig, stem)
    plt.close(fig)
