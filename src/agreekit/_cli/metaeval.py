"""``agreekit metaeval METRIC=FILE.csv [METRIC=FILE.csv …]``: do evaluation metrics agree on the top systems?

JSON on stdout (or ``-o FILE``), the agreement table with ``--format csv``, or the collection's
files with ``--output-dir DIR``.  Old spellings kept for one release (one DeprecationWarning
line each): ``--resamples`` (``--n-resamples``), ``--seed`` (``--rng``), ``--statistic``
(``--summary``), ``--alpha A`` (``--confidence-level 1-A``), ``-o DIR`` (``--output-dir DIR``).
"""

from __future__ import annotations

import argparse
import inspect
import io
from pathlib import Path

from agreekit._cli import resolve_seed
from agreekit._cli._common import (
    add_format,
    add_output,
    add_output_dir,
    add_quiet,
    add_renamed,
    add_rng,
    add_topic_column,
    legacy_output_dir,
    render_table,
    write_output,
)
from agreekit._validation import InputError, check_float
from agreekit._io import check_output_path, dumps_json
from agreekit.ireval.metrics import load_scores
from agreekit.metaeval import consensus_ranking, metric_agreement
from agreekit.metaeval.report import with_confidence_level, write_collection
from agreekit.ranking.weighting import SCHEME_REGISTRY


def _pairs(values: list[str]) -> dict[str, str]:
    out = {}
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputError("METRIC=FILE.csv", f"must look like NAME=PATH (e.g. AP=ap.csv); got {v!r}")
        name = name.strip()
        if name in out:
            raise InputError("METRIC=FILE.csv", f"metric {name!r} is given twice")
        out[name] = path.strip()
    return out


class _AlphaAsLevel(argparse.Action):
    """The deprecated ``--alpha A`` (the intervals' 1 - level): stores ``confidence_level = 1 - A``."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.old = tuple(option_strings)  # every spelling of this action is a deprecated one

    def __call__(self, parser, namespace, values, option_string=None):
        if not 0.0 < values < 1.0:
            parser.error(f"argument {option_string}: must lie in (0, 1); got {values}")
        setattr(namespace, self.dest, round(1.0 - values, 12))
        pending = getattr(namespace, "_deprecated_options", None) or []
        pending.append(
            f"option {option_string} A is deprecated, use --confidence-level (= 1 - A) (the old "
            "spelling is removed in the next release)"
        )
        setattr(namespace, "_deprecated_options", pending)


def _summary_keyword(func) -> str:
    """``summary`` if ``func`` already takes it, else its older ``statistic`` (consensus_ranking)."""
    return "summary" if "summary" in inspect.signature(func).parameters else "statistic"


def _handler(args: argparse.Namespace):
    legacy_output_dir(args)
    if args.output not in (None, "-"):
        check_output_path(args.output, parameter="--output")
    if args.time_limit is not None:
        check_float("--time-limit", args.time_limit, minimum=0.0, inclusive=False)
    seed = resolve_seed(args.rng)  # reported: a run without --rng can be repeated with --rng SEED
    files = _pairs(args.scores)
    if len(files) < 2:
        raise InputError("METRIC=FILE.csv", f"needs at least 2 metrics to compare; got {len(files)}")
    if sum(1 for p in files.values() if p == "-") > 1:
        raise InputError("METRIC=FILE.csv", "at most one metric can be read from stdin (-)")
    unknown = sorted(set(args.gmean or []) - set(files))
    if unknown:
        raise InputError("--gmean", f"names metrics that were not given: {unknown}")
    scores = {name: load_scores(path, parameter=name, topic_column=args.topic_column) for name, path in files.items()}
    summary = {name: ("gmean" if name in (args.gmean or []) else args.summary) for name in files}
    agreement = metric_agreement(
        scores,
        weigher=args.weigher,
        scheme=args.scheme,
        n_resamples=args.n_resamples,
        rng=seed,
        summary=summary,
        confidence_level=args.confidence_level,
        top_k=args.top_k,
        pvalue=not args.no_pvalue,
        pvalue_resamples=args.pvalue_resamples,
    )
    consensus = consensus_ranking(
        scores,
        method=args.consensus_method,
        time_limit=args.time_limit,
        rng=seed,
        **{_summary_keyword(consensus_ranking): summary},
    )
    if args.output_dir:
        paths = write_collection(args.name, agreement, consensus, Path(args.output_dir))
        info = {"output_dir": str(args.output_dir), "seed": seed, "files": {k: str(v) for k, v in paths.items()}}
        if args.format == "csv":
            write_output(args, "file,path\n" + "".join(f"{k},{v}\n" for k, v in info["files"].items()))
        elif args.format == "table":
            write_output(args, render_table(info))
        else:
            write_output(args, dumps_json(info) + "\n")
        return None
    if args.format == "csv":
        buf = io.StringIO()
        agreement.to_frame().to_csv(buf, index=False, float_format="%.10g", lineterminator="\n")
        write_output(args, buf.getvalue())
        return None
    # the intervals' confidence_level is stated beside alpha (= 1 - confidence_level)
    out = {"scores": files, "seed": seed, **with_confidence_level(agreement), "consensus": consensus.to_dict()}
    write_output(args, render_table(out) if args.format == "table" else dumps_json(out) + "\n")
    return None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "metaeval",
        help="agreement between evaluation metrics (tau_b, standardized top-weighted tau_w, "
        "bootstrap SEs) and their Kemeny consensus ranking",
        description="For every pair of metrics (each a topics x systems CSV of per-topic scores, same "
        "topics and systems): Kendall tau_b and the standardized top-weighted tau_w between "
        "the system rankings, bootstrap SEs from topic samples shared by all metrics, the "
        "p-value of tau_w and the top-k overlap; plus the Kemeny consensus of the metrics' "
        "system rankings. JSON on stdout (or -o FILE; --format csv: the agreement table), or "
        "the files in DIR with --output-dir.",
    )
    p.add_argument(
        "scores",
        metavar="METRIC=FILE.csv",
        nargs="+",
        help="metric name and its topics x systems CSV (header = system names; FILE may be - for one metric)",
    )
    add_topic_column(p)
    p.add_argument("--weigher", default="harmonic", help="weighting function of tau_w (default harmonic)")
    p.add_argument("--scheme", choices=tuple(SCHEME_REGISTRY), default="additive", help="weighting scheme of tau_w")
    add_renamed(
        p, "--n-resamples", "--resamples", type=int, default=1000, help="B, bootstrap topic samples (default 1000)"
    )
    add_rng(p, what="the bootstrap samples and p-values")
    add_renamed(
        p, "--summary", "--statistic", choices=("mean", "gmean"), default="mean", help="system summary (default mean)"
    )
    p.add_argument(
        "--gmean",
        action="append",
        metavar="METRIC",
        help="summarise this metric by the geometric mean (repeatable), e.g. G_AP",
    )
    p.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        help="level of the percentile bootstrap intervals (default 0.95)",
    )
    p.add_argument(
        "--alpha",
        dest="confidence_level",
        type=float,
        action=_AlphaAsLevel,
        default=argparse.SUPPRESS,
        help="deprecated alias: A = 1 - the intervals' level (it never was a significance level); "
        "use --confidence-level",
    )
    p.add_argument("--top-k", type=int, default=10, metavar="K", help="size of the top set (default 10)")
    p.add_argument("--no-pvalue", action="store_true", help="skip the p-values of tau_w")
    p.add_argument(
        "--pvalue-resamples",
        type=int,
        default=10_000,
        metavar="N",
        help="Monte Carlo size for p-values that need one, e.g. tied rankings (default 10000)",
    )
    p.add_argument(
        "--consensus-method",
        choices=("auto", "exact", "fast", "quick"),
        default="auto",
        help="Kemeny solver of the consensus ranking",
    )
    p.add_argument(
        "--time-limit", type=float, default=None, metavar="SEC", help="time limit of the consensus solver in seconds"
    )
    p.add_argument("--name", default="collection", help="collection name used in the files' titles (with --output-dir)")
    add_format(p)
    add_output(p, what="the JSON result (or, with --format csv, the agreement table)")
    add_output_dir(p, what="agreement.{csv,md}, heatmap.{png,pdf}, consensus.{csv,md}, collection.json")
    add_quiet(p)
    p.set_defaults(func=_handler, api=(metric_agreement, consensus_ranking))
