"""``agreekit metaeval METRIC=FILE.csv [METRIC=FILE.csv …]``: do evaluation metrics agree on the top systems?"""
from __future__ import annotations

import argparse
from pathlib import Path

from agreekit._validation import InputError


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


def _handler(args: argparse.Namespace):
    from agreekit.ireval.metrics import load_scores
    from agreekit.metaeval import consensus_ranking, metric_agreement

    files = _pairs(args.scores)
    if len(files) < 2:
        raise InputError("METRIC=FILE.csv", f"needs at least 2 metrics to compare; got {len(files)}")
    unknown = sorted(set(args.gmean or []) - set(files))
    if unknown:
        raise InputError("--gmean", f"names metrics that were not given: {unknown}")
    scores = {name: load_scores(path, parameter=name) for name, path in files.items()}
    statistic = {name: ("gmean" if name in (args.gmean or []) else args.statistic) for name in files}
    agreement = metric_agreement(scores, weigher=args.weigher, scheme=args.scheme, n_resamples=args.resamples,
                                 rng=args.seed, statistic=statistic, alpha=args.alpha, top_k=args.top_k,
                                 pvalue=not args.no_pvalue, pvalue_resamples=args.pvalue_resamples)
    consensus = consensus_ranking(scores, method=args.consensus_method, statistic=statistic,
                                  time_limit=args.time_limit, rng=0 if args.seed is None else args.seed)
    if args.output_dir:
        from agreekit.metaeval.report import write_collection

        paths = write_collection(args.name, agreement, consensus, Path(args.output_dir))
        return {"output_dir": str(args.output_dir), "files": {k: str(v) for k, v in paths.items()}}
    return {"scores": files, "seed": args.seed, **agreement.to_dict(), "consensus": consensus.to_dict()}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "metaeval", help="agreement between evaluation metrics (tau_b, standardized top-weighted tau_w, "
                         "bootstrap SEs) and their Kemeny consensus ranking",
        description="For every pair of metrics (each a topics x systems CSV of per-topic scores, same "
                    "topics and systems): Kendall tau_b and the standardized top-weighted tau_w between "
                    "the system rankings, bootstrap SEs from topic samples shared by all metrics, the "
                    "p-value of tau_w and the top-k overlap; plus the Kemeny consensus of the metrics' "
                    "system rankings. JSON on stdout, or the files in DIR with -o.")
    p.add_argument("scores", metavar="METRIC=FILE.csv", nargs="+",
                   help="metric name and its topics x systems CSV (header = system names)")
    p.add_argument("--weigher", default="harmonic", help="weighting function of tau_w (default harmonic)")
    p.add_argument("--scheme", choices=("additive", "multiplicative"), default="additive",
                   help="weighting scheme of tau_w")
    p.add_argument("--resamples", type=int, default=1000, metavar="B", help="bootstrap topic samples (default 1000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="random seed (default: fresh entropy)")
    p.add_argument("--statistic", choices=("mean", "gmean"), default="mean", help="system summary (default mean)")
    p.add_argument("--gmean", action="append", metavar="METRIC",
                   help="summarise this metric by the geometric mean (repeatable), e.g. G_AP")
    p.add_argument("--alpha", type=float, default=0.05, help="level of the bootstrap intervals (default 0.05)")
    p.add_argument("--top-k", type=int, default=10, metavar="K", help="size of the top set (default 10)")
    p.add_argument("--no-pvalue", action="store_true", help="skip the p-values of tau_w")
    p.add_argument("--pvalue-resamples", type=int, default=10_000, metavar="N",
                   help="Monte Carlo size for p-values that need one, e.g. tied rankings (default 10000)")
    p.add_argument("--consensus-method", choices=("auto", "exact", "fast", "quick"), default="auto",
                   help="Kemeny solver of the consensus ranking")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC",
                   help="time limit of the consensus solver in seconds")
    p.add_argument("--name", default="collection", help="collection name used in the files' titles (with -o)")
    p.add_argument("-o", "--output-dir", default=None, metavar="DIR",
                   help="write agreement.{csv,md}, heatmap.{png,pdf}, consensus.{csv,md}, collection.json to DIR")
    p.set_defaults(func=_handler)
