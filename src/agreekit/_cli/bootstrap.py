"""CLI subcommands of the bootstrap area: ``agreekit bootstrap`` and ``agreekit evaluate``.

``agreekit bootstrap SCORES.csv [--test paired|unpaired] [--alpha 0.05] [--resamples 1000]
[--seed S] [--format json|csv]`` runs the bootstrap test on every pair of systems of a
topics x systems score matrix (discriminative power, per-pair ASLs, estimated required
difference).

``agreekit evaluate QRELS RUN... --metric AveP --metric nDCG@100 [--depth 1000]`` builds
such matrices from TREC qrels and runs.
"""
from __future__ import annotations

import argparse
import io
import re
import sys

from agreekit._io import atomic_write, check_output_path, dumps_json, write_files
from agreekit._validation import InputError


def _metric_list(values: list[str]) -> list[str]:
    out = []
    for v in values:
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return out


def _gains(values: list[str] | None):
    if not values:
        return None
    gains = {}
    for v in values:
        m = re.fullmatch(r"\s*(-?\d+)\s*=\s*([0-9.eE+-]+)\s*", v)
        if m is None:
            raise InputError("--gain", f"must look like GRADE=GAIN (e.g. 2=3); got {v!r}")
        gains[int(m.group(1))] = float(m.group(2))
    return gains


def _emit(text: str, output: str | None) -> None:
    if output:
        with atomic_write(output, parameter="--output") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def _run_bootstrap(args: argparse.Namespace):
    try:
        return _bootstrap(args)
    except InputError as exc:  # the library names its keyword; the user typed --resamples
        if exc.parameter == "n_resamples":
            raise InputError("--resamples", str(exc).split(" ", 1)[1]) from None
        raise


def _bootstrap(args: argparse.Namespace):
    if args.output:  # before any work: an unwritable target fails first
        check_output_path(args.output, parameter="--output")
    from agreekit.ireval.bootstrap import discriminative_power, rank_correlation_se
    from agreekit.ireval.metrics import align_scores, load_scores

    from agreekit._cli import resolve_seed

    seed = resolve_seed(args.seed)
    scores = load_scores(args.scores, parameter="SCORES")
    corr = None
    if args.correlate:  # first: it is refused up front if its samples cannot fit in memory
        other = align_scores(scores, load_scores(args.correlate, parameter="--correlate"),
                             names=("SCORES", "--correlate"))
        corr = rank_correlation_se(scores, other, n_resamples=args.resamples, rng=seed,
                                   statistic=args.statistic).summary()
    res = discriminative_power(scores, alpha=args.alpha, test=args.test, n_resamples=args.resamples,
                               rng=seed, statistic=args.statistic)
    if args.format == "csv":
        buf = io.StringIO()
        res.table.to_csv(buf, index=False, float_format="%.10g", lineterminator="\n")
        _emit(buf.getvalue(), args.output)
        return None
    out = {"scores": str(args.scores), "n_topics": int(scores.shape[0]), "n_systems": int(scores.shape[1]),
           "seed": seed, **res.summary()}
    if corr is not None:
        out["rank_correlation"] = corr
    out["pairs"] = res.table.to_dict(orient="records")
    _emit(dumps_json(out) + "\n", args.output)
    return None


def _run_evaluate(args: argparse.Namespace):
    from pathlib import Path

    from agreekit.ireval.metrics import evaluate

    metrics = _metric_list(args.metric)
    if not metrics:
        raise InputError("--metric", "at least one metric is required")
    if len(metrics) > 1 and not args.output_dir:
        raise InputError("--output-dir", "is required with more than one metric (one CSV per metric)")
    targets = {}
    if args.output_dir:
        for name in metrics:
            path = Path(args.output_dir) / (re.sub(r"[^A-Za-z0-9@._-]", "_", name) + ".csv")
            if path in targets.values():
                raise InputError("--metric", f"{name!r} would overwrite {str(path)!r} (written for another "
                                             "metric)")
            targets[name] = check_output_path(path, parameter="--output-dir")
    mats = evaluate(args.qrels, list(args.runs), metrics, depth=args.depth, gains=_gains(args.gain),
                    beta=args.beta, ndcg=args.ndcg, empty_topics=args.empty_topics)
    if not args.output_dir:
        buf = io.StringIO()
        mats[metrics[0]].to_csv(buf, float_format="%.10g", lineterminator="\n")
        sys.stdout.write(buf.getvalue())
        return None
    written, contents = {}, {}
    for name, df in mats.items():
        buf = io.StringIO()
        df.to_csv(buf, float_format="%.10g", lineterminator="\n")
        contents[targets[name]] = buf.getvalue()
        written[name] = {"path": str(targets[name]), "mean": df.mean(axis=0).round(10).to_dict()}
    write_files(contents, parameter="--output-dir")  # all or nothing
    return {"qrels": str(args.qrels), "n_topics": int(next(iter(mats.values())).shape[0]),
            "systems": [str(c) for c in next(iter(mats.values())).columns], "metrics": written}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bootstrap", help="bootstrap tests over all system pairs of a topics x systems score matrix",
        description="Sakai's bootstrap test on every pair of systems: per-pair ASL, discriminative "
                    "power (pairs with ASL < alpha) and the estimated difference required for "
                    "ASL < alpha.")
    p.add_argument("scores", metavar="SCORES.csv", help="topics x systems CSV (header = system names)")
    p.add_argument("--test", choices=("paired", "unpaired"), default="paired",
                   help="paired or unpaired bootstrap test (Sakai 2006)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--resamples", type=int, default=1000, help="B, bootstrap samples (default 1000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: drawn from OS entropy; the JSON output reports the seed used)")
    p.add_argument("--format", choices=("json", "csv"), default="json",
                   help="json: summary + pairs; csv: the per-pair table")
    p.add_argument("--statistic", choices=("mean", "gmean"), default="mean",
                   help="summary statistic (gmean with --test paired = the AG variant; also used "
                        "for both rankings of --correlate)")
    p.add_argument("--correlate", metavar="OTHER.csv", default=None,
                   help="also report Kendall's tau between the system rankings of SCORES and OTHER "
                        "(same topics and systems) with its bootstrap SE")
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.set_defaults(func=_run_bootstrap)

    e = subparsers.add_parser(
        "evaluate", help="per-topic IR metrics (AveP, P@l, Q-measure, nCG@l, nDCG@l) from TREC qrels and runs",
        description="Build topics x systems score matrices from TREC qrels and runs.")
    e.add_argument("qrels", metavar="QRELS", help="TREC qrels file (topic iter docno grade; .gz ok)")
    e.add_argument("runs", metavar="RUN", nargs="+", help="TREC run files (one system each; .gz ok)")
    e.add_argument("--metric", action="append", required=True,
                   help="metric (repeatable or comma-separated): AveP, P@10, Q-measure, nCG@100, nDCG@100, R-prec")
    e.add_argument("--depth", type=int, default=1000, help="cut each ranked list at this depth (default 1000)")
    e.add_argument("--gain", action="append", metavar="GRADE=GAIN",
                   help="gain of a relevance grade (repeatable; default gain = grade)")
    e.add_argument("--beta", type=float, default=1.0, help="Q-measure beta (default 1)")
    e.add_argument("--ndcg", choices=("jk", "trec"), default="jk",
                   help="nDCG form: jk = Jarvelin-Kekalainen as in Sakai 2006 (default), "
                        "trec = trec_eval's ndcg_cut (gain / log2(rank + 1))")
    e.add_argument("--empty-topics", choices=("error", "drop"), default="error",
                   help="qrels topics without relevant documents: error (default) or drop")
    e.add_argument("-o", "--output-dir", default=None,
                   help="write DIR/<metric>.csv per metric (required for several metrics); "
                        "without it the single matrix is printed as CSV")
    e.set_defaults(func=_run_evaluate)
