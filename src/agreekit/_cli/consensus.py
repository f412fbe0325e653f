"""``agreekit consensus FILE.csv …``: Kemeny consensus ranking of a table of rankings."""
from __future__ import annotations

import csv
import io
import sys

from agreekit._io import atomic_write, dumps_json


def _handler(args):
    from agreekit.consensus import kemeny
    from agreekit.consensus._io import read_rankings

    wc = args.weights_column
    if args.no_weights:
        wc = None
    data = read_rankings(args.file, weights_column=wc, ordinal=args.ordinal)
    res = kemeny(data, method=args.method, n_starts=args.starts, rng=args.seed,
                 ties=not args.no_ties, time_limit=args.time_limit, solver=args.solver,
                 max_solutions=args.max_solutions)
    if args.format == "json":
        text = dumps_json(res.to_dict()) + "\n"
    else:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["solution", *res.labels, "ordering", "tau_x", "penalty", "method", "optimal",
                    "exhaustive", "elapsed"])
        for k, (sol, ordering) in enumerate(zip(res.solutions, res.orderings), start=1):
            w.writerow([k, *map(int, sol), ordering, repr(float(res.tau_x)), repr(float(res.penalty)),
                        res.method, res.optimal, res.exhaustive, f"{res.elapsed:.6f}"])
        text = buf.getvalue()
    if args.output:
        with atomic_write(args.output, parameter="--output") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "consensus",
        help="Kemeny consensus (median) ranking of complete, weak or partial rankings",
        description="Kemeny consensus ranking of a CSV of rankings (rows = judges, columns = items, "
                    "cells = rank positions: positive integers, 1 = best, ties share a value, "
                    "empty = unranked). "
                    "Prints items, all solutions found (rank vectors and orderings), tau_x, "
                    "optimal (proven), elapsed.")
    p.add_argument("file", metavar="FILE.csv", help="CSV with a header of item labels")
    p.add_argument("--weights-column", default="auto", metavar="NAME",
                   help="column of row weights (default: a column named 'weight' if present)")
    p.add_argument("--no-weights", action="store_true", help="ignore any weight column")
    p.add_argument("--ordinal", action="store_true",
                   help="accept any numbers as ordinal scores (lower = better) instead of positive "
                        "integer ranks (ConsRank's usa_ranks.csv holds a 0)")
    p.add_argument("--method", choices=("auto", "quick", "fast", "exact"), default="auto",
                   help="algorithm (default auto: exact when cheap, else fast)")
    p.add_argument("--starts", type=int, default=None, metavar="K", help="FAST starts (default 100)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed for FAST's random starts")
    p.add_argument("--format", choices=("json", "csv"), default="json", help="output format")
    p.add_argument("--no-ties", action="store_true", help="search permutations only")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC", help="time limit in seconds")
    p.add_argument("--solver", choices=("auto", "bb", "mip"), default="auto",
                   help="exact solver per block (default auto)")
    p.add_argument("--max-solutions", type=int, default=1000, metavar="N",
                   help="cap on the number of optimal rankings listed (default 1000)")
    p.add_argument("-o", "--output", default=None, metavar="PATH", help="write to PATH instead of stdout")
    p.set_defaults(func=_handler)
