"""CLI subcommands for weighted rank correlations: ``moments`` and ``correlate``."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from agreekit._validation import InputError


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--coefficient", required=True, choices=("spearman", "kendall"), help="the coefficient")
    p.add_argument("--scheme", required=True, choices=("additive", "multiplicative"),
                   help="pair weight f(a_i)+f(b_i) or f(a_i)*f(b_i)")
    p.add_argument("--weigher", required=True,
                   help='weighting function spec, e.g. "harmonic", "inverse_square:n0=1", '
                        '"power:p=1.5,n0=0", "dcg"')


def register(subparsers) -> None:
    p = subparsers.add_parser("moments", help="exact null moments of a weighted rank correlation",
                              description="Exact mean, variance and left variance of Γ over all n! "
                                          "permutations (n = 2..12).")
    _add_config_args(p)
    p.add_argument("--n", required=True, help="ranking length (2..12)")
    p.set_defaults(func=_moments)

    p = subparsers.add_parser("correlate", help="weighted Spearman/Kendall of two rankings",
                              description="Weighted correlation of two rank vectors read from files "
                                          "(one rank per line, or a CSV column).")
    _add_config_args(p)
    p.add_argument("x", help="file with the first rank vector")
    p.add_argument("y", help="file with the second rank vector")
    p.add_argument("--column", default=None,
                   help="CSV column holding the ranks (default: the first column)")
    p.add_argument("--standardize", action="store_true",
                   help="also return g(value) from the coefficient table (see `agreekit standardize`)")
    p.add_argument("--ties", default="average",
                   help="tied ranks: 'average' (default; average ranks, tau_b-style Kendall) or 'raise'")
    from agreekit._cli.tables import add_standardize_options

    add_standardize_options(p, with_scheme_args=False)
    g = p.add_argument_group("significance test (agreekit.weighted_correlation_test)")
    g.add_argument("--test", action="store_true",
                   help="add the p-value under independence: pvalue, method, pvalue_se (and the null moments)")
    g.add_argument("--alternative", default="two-sided", help="two-sided (default), greater or less")
    g.add_argument("--method", default="auto",
                   help="auto (default: exact for n <= 10, else the table's null quantiles, else Monte Carlo), "
                        "exact, table or monte-carlo")
    g.add_argument("--resamples", default="100000", help="Monte Carlo resamples (default 100000)")
    g.add_argument("--seed", default=None, help="Monte Carlo seed (an integer; default: fresh randomness)")
    p.set_defaults(func=_correlate)


def _parse_int(parameter: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(parameter, f"must be an integer; got {text!r}") from None


def _moments(args):
    from agreekit.ranking.moments import exact_moments

    n = _parse_int("n", args.n)
    m = exact_moments(args.coefficient, n=n, weigher=args.weigher, scheme=args.scheme)
    out = m.as_dict()
    out["source"] = "exact"
    return out


def read_rank_file(path: str, *, parameter: str, column: str | None = None) -> np.ndarray:
    """Read ranks from a file: one rank per line, or a CSV column (header row optional).

    Ranks are positive integers, 1 = top; a repeated value is a tie.  UTF-8 (a byte-order mark
    is allowed), plain or gzip-compressed, any line ends; trailing blank lines are ignored.
    Every other problem (missing file, blank line in the middle, ragged CSV row, 0, negative,
    non-integral or NaN rank) is an :class:`InputError` naming ``parameter``, the file and the line.
    """
    import csv

    from agreekit._io import iter_lines
    from agreekit._validation import check_positive_ranks

    lines = list(iter_lines(path, parameter=parameter))
    while lines and not lines[-1][1].strip():
        lines.pop()
    if not lines:
        raise InputError(parameter, f"file {path!r} is empty")
    blank = next((no for no, ln in lines if not ln.strip()), None)
    if blank is not None:
        raise InputError(parameter, f"file {path!r} line {blank} is blank (one rank per line; blank lines "
                                    "are allowed only at the end)")
    try:
        rows = list(csv.reader([ln for _, ln in lines], strict=True))
    except csv.Error as exc:
        raise InputError(parameter, f"file {path!r} is not valid CSV ({exc})") from None
    rows = [[c.strip() for c in r] for r in rows]
    numbers = [no for no, _ in lines]
    has_header = any(not _is_number(tok) for tok in rows[0])
    width = len(rows[0])
    for no, r in zip(numbers, rows):
        if len(r) != width:
            raise InputError(parameter, f"file {path!r} line {no} has {len(r)} fields, but line "
                                        f"{numbers[0]} has {width}")
    if column is not None:
        if not has_header or column not in rows[0]:
            raise InputError("column", f"{column!r} is not a column of {path}")
        j = rows[0].index(column)
    else:
        j = 0
    if has_header:
        if len(set(rows[0])) != len(rows[0]) or not all(rows[0]):
            bad = next(t for i, t in enumerate(rows[0]) if not t or t in rows[0][:i])
            raise InputError(parameter, f"file {path!r} line {numbers[0]}: header name {bad!r} is "
                                        "empty or repeated")
        rows, numbers = rows[1:], numbers[1:]
        if not rows:
            raise InputError(parameter, f"file {path!r} has a header but no ranks")
    return check_positive_ranks(parameter, [r[j] for r in rows],
                                labels=[f"file {path!r} line {no}" for no in numbers])


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return tok == ""  # an empty first cell is a missing rank, not a header name
    return True


def _correlate(args):
    from agreekit.ranking.correlation import weighted_correlation

    x = read_rank_file(args.x, parameter="x", column=args.column)
    y = read_rank_file(args.y, parameter="y", column=args.column)
    value = weighted_correlation(x, y, coefficient=args.coefficient, weigher=args.weigher,
                                 scheme=args.scheme, ties=args.ties)
    from agreekit.ranking.weighting import parse_weigher

    out = {"coefficient": args.coefficient, "scheme": args.scheme,
           "weigher": parse_weigher(args.weigher).spec, "n": int(len(x)), "value": value}
    if getattr(args, "standardize", False):
        from agreekit._cli.tables import standardized_fields

        out.update(standardized_fields(args, value, int(len(x))))
    if getattr(args, "test", False):
        from agreekit.ranking.significance import weighted_correlation_test

        res = weighted_correlation_test(
            x, y, coefficient=args.coefficient, weigher=args.weigher, scheme=args.scheme,
            alternative=args.alternative, method=args.method, n_resamples=_parse_int("resamples", args.resamples),
            rng=None if args.seed is None else _parse_int("seed", args.seed), table=args.table,
            g0_rule=getattr(args, "g0_rule", None))
        out.update({"pvalue": res.pvalue, "method": res.method, "pvalue_se": res.pvalue_se,
                    "alternative": res.alternative, "null_mean": res.null_mean, "null_var": res.null_var,
                    "null_left_var": res.null_left_var})
        if not getattr(args, "standardize", False):
            out["standardized"] = res.standardized
    return out
