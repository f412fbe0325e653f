"""CLI subcommands of the bootstrap area: ``agreekit bootstrap`` and ``agreekit evaluate``.

``agreekit bootstrap SCORES.csv [--test paired|unpaired] [--alpha 0.05] [--n-resamples 1000]
[--rng S] [--summary mean|gmean] [--pairs] [--format json|csv|table] [-o FILE]`` runs the bootstrap
test on every pair of systems of a topics x systems score matrix: it prints the summary
(discriminative power, estimated required difference, ASL quartiles); every pair's row (its ASL,
required difference) with ``--pairs``, in the file of ``-o FILE``, and in the CSV of ``--format csv``.
``SCORES.csv`` may be ``-`` (stdin).

``agreekit evaluate QRELS RUN... --metrics AP,nDCG@10 [--depth N] [--output-dir DIR]`` builds
such matrices from TREC qrels and runs (ir_measures names: ``nDCG@k`` is trec_eval's form,
``nDCG_jk@k`` the Jarvelin-Kekalainen form of Sakai 2006).

Old spellings kept for one release (each prints one DeprecationWarning line): ``--resamples``
(``--n-resamples``), ``--statistic`` (``--summary``), ``--metric`` / ``--gain`` stay as synonyms,
``evaluate -o DIR`` (``--output-dir DIR``), ``evaluate --ndcg`` (name the form in the metric).
"""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

from agreekit._cli._common import (
    add_format,
    add_output,
    add_output_dir,
    add_quiet,
    add_renamed,
    add_rng,
    add_topic_column,
    legacy_output_dir,
    note,
    progress_of,
    render_table,
    write_output,
)
from agreekit._io import check_output_path, dumps_json, is_stdout, write_files
from agreekit._validation import InputError, parse_ascii_float
from agreekit._cli import resolve_seed
from agreekit.ireval.bootstrap import discriminative_power, rank_correlation_se
from agreekit.ireval.metrics import METRICS, align_scores, evaluate, load_scores


def _metric_list(values: list[str]) -> list[str]:
    """Metric names from repeated or comma-separated values (commas inside ``(...)`` belong to
    ir_measures' parameters: ``P(rel=2,cutoff=10)``)."""
    out = []
    for v in values:
        out.extend(p.strip() for p in re.split(r",(?![^()]*\))", v) if p.strip())
    return out


def supported_metric_names() -> str:
    """Every IR metric spelling of the registry, as the CLI lists them (``@k`` where a cut-off is
    allowed, aliases in parentheses)."""
    parts = []
    for d in METRICS.values():
        k = "" if d.cutoff == "forbidden" else "[@k]"
        parts.append(d.kind + k + (f" ({', '.join(d.aliases)})" if d.aliases else ""))
    return ", ".join(parts)


def _metrics_help() -> str:
    """The --metrics help, built from the registry (every name and alias)."""
    return (
        "metric (repeatable or comma-separated): "
        + supported_metric_names()
        + "; ir_measures parameters (P(rel=2)@10, AP(rel=2), nDCG(cutoff=10)) and trec_eval names "
        "(map, P_10, ndcg_cut_10, recip_rank) are accepted"
    )


def _gains(values: list[str] | None):
    if not values:
        return None

    gains: dict[int, float] = {}
    given: dict[int, str] = {}
    for v in values:
        m = re.fullmatch(r"\s*(-?[0-9]{1,18})\s*=\s*([0-9.eE+-]{1,40})\s*", v)
        gain = None if m is None else parse_ascii_float(m.group(2), special=False)
        if gain is None:
            raise InputError("--gains", f"must look like GRADE=GAIN (e.g. 2=3); got {v[:60]!r}")
        grade = int(m.group(1))
        if grade in gains and gains[grade] != gain:
            raise InputError("--gains", f"gives grade {grade} two gains: {given[grade]!r} and {v.strip()!r}")
        gains[grade], given[grade] = gain, v.strip()
    return gains


def _legacy_output_dir(args, *, several: bool = False) -> None:
    """``-o DIR`` for an existing directory only (:func:`agreekit._cli._common.legacy_output_dir`)."""
    legacy_output_dir(args)


def _run_bootstrap(args: argparse.Namespace):
    try:
        return _bootstrap(args)
    except InputError as exc:  # the library names its keyword; the user typed --n-resamples
        if exc.parameter == "n_resamples":
            raise InputError("--n-resamples", str(exc).split(" ", 1)[1]) from None
        raise


def _bootstrap(args: argparse.Namespace):
    if args.output not in (None, "-"):  # before any work: an unwritable target fails first
        check_output_path(args.output, parameter="--output")

    seed = resolve_seed(args.rng)
    scores = load_scores(args.scores, parameter="SCORES", topic_column=args.topic_column)
    corr = None
    if args.correlate:  # first: it is refused up front if its samples cannot fit in memory
        other = align_scores(
            scores,
            load_scores(args.correlate, parameter="--correlate", topic_column=args.topic_column),
            names=("SCORES", "--correlate"),
        )
        corr = rank_correlation_se(
            scores, other, n_resamples=args.n_resamples, rng=seed, summary=args.summary
        ).to_dict()
    res = discriminative_power(
        scores,
        alpha=args.alpha,
        test=args.test,
        n_resamples=args.n_resamples,
        rng=seed,
        summary=args.summary,
        progress=progress_of(args),
    )
    if args.format == "csv":
        buf = io.StringIO()
        res.table.to_csv(buf, index=False, float_format="%.10g", lineterminator="\n")
        write_output(args, buf.getvalue())
        return None
    out = {"n_topics": int(scores.shape[0]), "n_systems": int(scores.shape[1]), "seed": seed, **res.to_dict()}
    asl = res.table["asl"]
    out["asl_quartiles"] = [float(q) for q in asl.quantile([0.25, 0.5, 0.75])] if len(asl) else []
    if corr is not None:
        out["rank_correlation"] = corr
    # the summary on a terminal; every pair's row with --pairs or in a file (-o): 2346 pairs on adhoc8
    if args.pairs or not is_stdout(args.output):
        out["pairs"] = res.table.to_dict(orient="records")
    else:
        note(args, f"the summary; --pairs (or -o FILE) adds the {res.n_pairs} per-pair rows")
    write_output(args, render_table(out) if args.format == "table" else dumps_json(out) + "\n")
    return None


def _run_evaluate(args: argparse.Namespace):
    metrics = _metric_list(args.metrics)
    if not metrics:
        raise InputError("--metrics", "at least one metric is required")
    _legacy_output_dir(args, several=len(metrics) > 1 and args.format == "csv")
    if len(metrics) > 1 and args.format == "csv" and not args.output_dir:
        raise InputError(
            "--output-dir",
            "is required for CSV output of more than one metric (one CSV per metric; or use --format json)",
        )
    if args.output not in (None, "-"):
        check_output_path(args.output, parameter="--output")
    targets = {}
    if args.output_dir:
        for name in metrics:
            path = Path(args.output_dir) / (re.sub(r"[^A-Za-z0-9@._-]", "_", name) + ".csv")
            if path in targets.values():
                raise InputError("--metrics", f"{name!r} would overwrite {str(path)!r} (written for another metric)")
            targets[name] = check_output_path(path, parameter="--output-dir")
    kw = {} if args.ndcg is None else {"ndcg": args.ndcg}  # deprecated: evaluate() warns
    mats = evaluate(
        args.qrels,
        list(args.run),
        metrics,
        depth=args.depth,
        gains=_gains(args.gains),
        beta=args.beta,
        log_base=args.log_base,
        empty_topics=args.empty_topics,
        progress=progress_of(args),
        **kw,
    )
    if not args.output_dir:
        if args.format == "table":  # for reading: each system's mean over the topics, one column per metric
            means = [
                {"system": str(c), **{name: float(df[c].mean()) for name, df in mats.items()}}
                for c in next(iter(mats.values())).columns
            ]
            write_output(args, f"mean over {next(iter(mats.values())).shape[0]} topics\n" + render_table(means))
        elif args.format == "csv":
            buf = io.StringIO()
            mats[metrics[0]].to_csv(buf, float_format="%.10g", lineterminator="\n")
            write_output(args, buf.getvalue())
        else:
            write_output(
                args,
                dumps_json(
                    {
                        "metrics": {
                            name: {str(c): {str(t): float(v) for t, v in df[c].items()} for c in df.columns}
                            for name, df in mats.items()
                        }
                    }
                )
                + "\n",
            )
        return None
    written, contents = {}, {}
    for name, df in mats.items():
        buf = io.StringIO()
        df.to_csv(buf, float_format="%.10g", lineterminator="\n")
        contents[targets[name]] = buf.getvalue()
        written[name] = {"path": str(targets[name]), "mean": df.mean(axis=0).round(10).to_dict()}
    write_files(contents, parameter="--output-dir")  # all or nothing
    info = {
        "n_topics": int(next(iter(mats.values())).shape[0]),
        "systems": [str(c) for c in next(iter(mats.values())).columns],
        "metrics": written,
    }
    if args.format == "table":
        write_output(
            args,
            render_table(
                {
                    "n_topics": info["n_topics"],
                    "n_systems": len(info["systems"]),
                    "files": [{"metric": k, "path": v["path"]} for k, v in written.items()],
                }
            ),
        )
        return None
    write_output(args, dumps_json(info) + "\n")  # the files are CSV; what was written is JSON
    return None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bootstrap",
        help="bootstrap tests over all system pairs of a topics x systems score matrix",
        description="Sakai's bootstrap test on every pair of systems: discriminative power (pairs with "
        "ASL < alpha), the estimated difference required for ASL < alpha and the ASL quartiles "
        "(the summary, printed by default), and each pair's ASL and required difference "
        "(with --pairs, in the file of -o FILE, and in --format csv).",
    )
    p.add_argument("scores", metavar="SCORES.csv", help="topics x systems CSV (header = system names; - = stdin)")
    add_topic_column(p)
    p.add_argument(
        "--test",
        choices=("paired", "unpaired"),
        default="paired",
        help="paired or unpaired bootstrap test (Sakai 2006)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level: a pair is significant iff ASL < alpha (default 0.05)",
    )
    add_renamed(
        p,
        "--n-resamples",
        "--resamples",
        type=int,
        default=1000,
        help="B, bootstrap samples (default 1000; B * alpha not an integer: k rounded down)",
    )
    add_rng(p, what="the bootstrap samples")
    add_renamed(
        p,
        "--summary",
        "--statistic",
        choices=("mean", "gmean"),
        default="mean",
        help="system summary (gmean with --test paired = the AG variant; also used for both rankings of --correlate)",
    )
    p.add_argument(
        "--correlate",
        metavar="OTHER.csv",
        default=None,
        help="also report Kendall's tau between the system rankings of SCORES and OTHER "
        "(same topics and systems) with its bootstrap SE",
    )
    p.add_argument(
        "--pairs",
        action="store_true",
        help="also print every pair's row (system_a, system_b, difference, statistic, asl, significant, "
        "critical_value, required_difference); the default on stdout is the summary, a file "
        "written with -o always has the pairs",
    )
    add_format(p)
    add_output(p, what="the summary and every pair (json, table) or the per-pair table (csv)")
    add_quiet(p)
    p.set_defaults(func=_run_bootstrap, api=(discriminative_power, rank_correlation_se))

    e = subparsers.add_parser(
        "evaluate",
        help="per-topic IR metrics (AP, P@k, R@k, RR, Rprec, nDCG@k, bpref, ...) from TREC qrels and runs",
        description="Build topics x systems score matrices from TREC qrels and runs. Metric names follow "
        "ir_measures: nDCG@k is trec_eval's ndcg_cut (gain / log2(rank + 1)); nDCG_jk@k is the "
        "Jarvelin-Kekalainen form of Sakai 2006.",
    )
    e.add_argument("qrels", metavar="QRELS", help="TREC qrels file (topic iter docno grade; .gz ok; - = stdin)")
    e.add_argument("run", metavar="RUN", nargs="+", help="TREC run files (one system each; .gz ok)")
    e.add_argument(
        "--metrics", "--metric", dest="metrics", action="append", required=True, metavar="METRIC", help=_metrics_help()
    )
    e.add_argument(
        "--depth",
        type=int,
        default=None,
        help="cut each ranked list at this depth (default: every retrieved document, as trec_eval)",
    )
    e.add_argument(
        "--gains",
        "--gain",
        dest="gains",
        action="append",
        metavar="GRADE=GAIN",
        help="gain of a relevance grade (repeatable; default gain = grade)",
    )
    e.add_argument("--beta", type=float, default=1.0, help="Q-measure beta (default 1)")
    e.add_argument("--log-base", type=float, default=2.0, help="the a of nDCG_jk (default 2)")
    e.add_argument(
        "--ndcg",
        choices=("jk", "trec"),
        default=None,
        help="deprecated: name the form in the metric instead (nDCG@k = trec, nDCG_jk@k = jk)",
    )
    e.add_argument(
        "--empty-topics",
        choices=("error", "drop"),
        default="error",
        help="qrels topics without relevant documents: error (default) or drop",
    )
    add_format(e, default="csv")  # of the matrices printed without --output-dir (its files are CSV)
    add_output(
        e,
        what="the matrix of a single metric (csv), every matrix (json) or each system's mean per "
        "metric (table); with --output-dir, the list of files written",
    )
    add_output_dir(e, what="one DIR/<metric>.csv per metric (needed for CSV of several metrics)")
    add_quiet(e)
    e.set_defaults(func=_run_evaluate, api=evaluate)
