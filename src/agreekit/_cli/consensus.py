"""``agreekit consensus FILE.csv …``: Kemeny consensus ranking of a table of rankings."""

from __future__ import annotations

import argparse
import csv
import io
import warnings

from agreekit._cli._common import (
    add_format,
    add_output,
    add_quiet,
    add_renamed,
    add_rng,
    progress_of,
    render_table,
    write_output,
)
from agreekit._io import check_output_path, dumps_json, is_stdout
from agreekit._cli import resolve_seed
from agreekit._validation import check_float, check_int
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
            pending.append(
                f"option {option_string} is deprecated, use --no-allow-ties (the old spelling is "
                "removed in the next release)"
            )
            setattr(namespace, "_deprecated_options", pending)


#: more solutions than this are not collected (each is a row of n ranks; 10**25 was a numpy dimension error)
_MAX_SOLUTIONS = 10**7
_CALIBRATE_STARTS = 64
#: an estimated run time above this many seconds, with no --time-limit, is announced before it starts
LONG_RUN_SECONDS = 60.0


def _warn_if_long(data, args, seed) -> None:
    """Many starts and no time limit: time a few starts, and say before the run what the whole will take
    (``--n-starts 10**12`` once ran silently for an estimated two years)."""
    import time
    import warnings

    t0 = time.perf_counter()
    kemeny(
        data,
        method=args.method,
        n_starts=_CALIBRATE_STARTS,
        rng=seed,
        allow_ties=args.allow_ties,
        solver=args.solver,
        max_solutions=1,
        progress=False,
    )
    per_start = (time.perf_counter() - t0) / _CALIBRATE_STARTS
    estimate = per_start * args.n_starts
    if estimate > LONG_RUN_SECONDS:
        warnings.warn(
            f"--n-starts {args.n_starts} without --time-limit: estimated {_duration(estimate)} "
            f"({per_start * 1e3:.3g} ms per start, measured on {_CALIBRATE_STARTS} starts); bound it "
            "with --time-limit SEC (the best ranking found by then is returned) or fewer --n-starts",
            UserWarning,
            stacklevel=2,
        )


def _duration(seconds: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"about {seconds / size:.3g} {unit}"
    return f"about {seconds:.3g} seconds"


def _handler(args):
    if not is_stdout(args.output):  # before any work: an unwritable target fails first
        check_output_path(args.output, parameter="--output")
    seed = resolve_seed(args.rng)
    if args.n_starts is not None:
        check_int("--n-starts", args.n_starts, minimum=1, maximum=2**62)
    check_int("--max-solutions", args.max_solutions, minimum=1, maximum=_MAX_SOLUTIONS)
    if args.time_limit is not None:
        check_float("--time-limit", args.time_limit, minimum=0.0, inclusive=False)
    data = read_rankings(
        args.path, weights_column=None if args.no_weights else args.weights_column, ordinal=args.ordinal
    )
    if args.time_limit is None and args.n_starts is not None and args.n_starts > _CALIBRATE_STARTS:
        _warn_if_long(data, args, seed)
    with warnings.catch_warnings():  # the API's rough estimate: the CLI measured its own above
        warnings.filterwarnings("ignore", message="kemeny: n_starts=", category=UserWarning)
        res = kemeny(
            data,
            method=args.method,
            n_starts=args.n_starts,
            rng=seed,
            allow_ties=args.allow_ties,
            time_limit=args.time_limit,
            solver=args.solver,
            max_solutions=args.max_solutions,
            progress=progress_of(args),
        )
    if args.format in ("json", "table"):
        # the seed is reported when the result may depend on it (not for a proven, complete set of optima)
        extra = {} if (res.proven and res.exhaustive) else {"seed": seed}
        record = {**res.to_dict(), **extra}
        text = render_table(record) if args.format == "table" else dumps_json(record) + "\n"
    else:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(
            [
                "solution",
                *res.labels,
                "ordering",
                "average_tau_x",
                "penalty",
                "method",
                "proven",
                "exhaustive",
                "seconds",
            ]
        )
        for k, (sol, ordering) in enumerate(zip(res.solutions, res.orderings), start=1):
            w.writerow(
                [
                    k,
                    *map(int, sol),
                    ordering,
                    repr(float(res.average_tau_x)),
                    repr(float(res.penalty)),
                    res.method,
                    res.proven,
                    res.exhaustive,
                    f"{res.seconds:.6f}",
                ]
            )
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
        "average_tau_x, proven (optimality proven), seconds.",
    )
    p.add_argument("path", metavar="FILE.csv", help="CSV with a header of item labels (- = stdin)")
    p.add_argument(
        "--weights-column",
        default="auto",
        metavar="NAME",
        help="column of row weights (default: a column named 'weight' if present); only their ratios "
        "matter, any finite scale works",
    )
    p.add_argument("--no-weights", action="store_true", help="ignore any weight column")
    p.add_argument(
        "--ordinal",
        action="store_true",
        help="accept any numbers as ordinal scores (lower = better) instead of positive "
        "integer ranks (ConsRank's usa_ranks.csv holds a 0)",
    )
    p.add_argument(
        "--method",
        choices=("auto", "quick", "fast", "exact"),
        default="auto",
        help="algorithm (default auto: exact when cheap, else fast)",
    )
    add_renamed(
        p,
        "--n-starts",
        "--starts",
        type=int,
        default=None,
        metavar="K",
        help="FAST starts (default 100; --starts is a deprecated alias)",
    )
    add_rng(p, what="FAST's random starts")
    add_format(p)
    p.add_argument(
        "--allow-ties",
        "--no-allow-ties",
        "--no-ties",
        dest="allow_ties",
        action=_AllowTies,
        old=("--no-ties",),
        default=True,
        help="allow ties in the consensus (weak orders; the default) or search permutations only "
        "(--no-allow-ties; --no-ties is a deprecated alias)",
    )
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC", help="time limit in seconds")
    p.add_argument(
        "--solver", choices=("auto", "bb", "mip"), default="auto", help="exact solver per block (default auto)"
    )
    p.add_argument(
        "--max-solutions",
        type=int,
        default=1000,
        metavar="N",
        help="cap on the number of optimal rankings listed (default 1000)",
    )
    add_output(p)
    add_quiet(p)
    p.set_defaults(func=_handler, api=(kemeny, read_rankings))
