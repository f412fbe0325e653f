"""``agreekit consensus FILE.csv …``: Kemeny consensus ranking of a table of rankings."""
from __future__ import annotations

import argparse
import csv
import io

from agreekit._cli._common import (add_format, add_output, add_quiet, add_renamed, add_rng, progress_of,
                                   write_output)
from agreekit._io import dumps_json
from agreekit._cli import resolve_seed
from agreekit.consensus import kemeny, read_rankings


class _AllowTies(argparse.Action):
    """``--allow-ties`` / ``--no-allow-ties``, with the former ``--no-ties`` as a deprecated alias
    (one action, so that the option is named as the API's ``allow_ties``)."""

    def __init__(self, option_strings, dest, *, old=(), **kwargs):
        self.old = tuple(old)
        kwargs["nargs"] = 0
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, not option_string.startswith("--no-"))
        if option_string in self.old:
            pending = getattr(namespace, "_deprecated_options", None) or []
            pending.append(f"option {option_string} is deprecated, use --no-allow-ties (the old spelling is "
                           "removed in the next release)")
            setattr(namespace, "_deprecated_options", pending)


def _handler(args):
    seed = resolve_seed(args.rng)
    data = read_rankings(args.path, weights_column=None if args.no_weights else args.weights_column,
                         ordinal=args.ordinal)
    res = kemeny(data, method=args.method, n_starts=args.n_starts, rng=seed,
                 allow_ties=args.allow_ties, time_limit=args.time_limit, solver=args.solver,
                 max_solutions=args.max_solutions, progress=progress_of(args))
    if args.format == "json":
        # the seed is reported when the result may depend on it (not for a proven, complete set of optima)
        extra = {} if (res.proven and res.exhaustive) else {"seed": seed}
        text = dumps_json({**res.to_dict(), **extra}) + "\n"
    else:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["solution", *res.labels, "ordering", "average_tau_x", "penalty", "method", "proven",
                    "exhaustive", "seconds"])
        for k, (sol, ordering) in enumerate(zip(res.solutions, res.orderings), start=1):
            w.writerow([k, *map(int, sol), ordering, repr(float(res.average_tau_x)), repr(float(res.penalty)),
                        res.method, res.proven, res.exhaustive, f"{res.seconds:.6f}"])
        text = buf.getvalue()
    write_output(args, text)
    return None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "consensus",
        help="Kemeny consensus (median) ranking of complete, weak or partial rankings",
        description="Kemeny consensus ranking of a CSV of rankings (rows = judges, columns = items, "
                    "cells = rank positions: positive integers, 1 = best, ties share a value, "
                    "empty = unranked). "
                    "Prints items, all solutions found (rank vectors and orderings), n_optima, "
                    "average_tau_x, proven (optimality proven), seconds.")
    p.add_argument("path", metavar="FILE.csv", help="CSV with a header of item labels (- = stdin)")
    p.add_argument("--weights-column", default="auto", metavar="NAME",
                   help="column of row weights (default: a column named 'weight' if present)")
    p.add_argument("--no-weights", action="store_true", help="ignore any weight column")
    p.add_argument("--ordinal", action="store_true",
                   help="accept any numbers as ordinal scores (lower = better) instead of positive "
                        "integer ranks (ConsRank's usa_ranks.csv holds a 0)")
    p.add_argument("--method", choices=("auto", "quick", "fast", "exact"), default="auto",
                   help="algorithm (default auto: exact when cheap, else fast)")
    add_renamed(p, "--n-starts", "--starts", type=int, default=None, metavar="K",
                help="FAST starts (default 100; --starts is a deprecated alias)")
    add_rng(p, what="FAST's random starts")
    add_format(p)
    p.add_argument("--allow-ties", "--no-allow-ties", "--no-ties", dest="allow_ties", action=_AllowTies,
                   old=("--no-ties",), default=True,
                   help="allow ties in the consensus (weak orders; the default) or search permutations only "
                        "(--no-allow-ties; --no-ties is a deprecated alias)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC", help="time limit in seconds")
    p.add_argument("--solver", choices=("auto", "bb", "mip"), default="auto",
                   help="exact solver per block (default auto)")
    p.add_argument("--max-solutions", type=int, default=1000, metavar="N",
                   help="cap on the number of optimal rankings listed (default 1000)")
    add_output(p)
    add_quiet(p)
    p.set_defaults(func=_handler, api=(kemeny, read_rankings))
