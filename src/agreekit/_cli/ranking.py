"""CLI subcommands for weighted rank correlations: ``moments`` and ``correlate``."""

from __future__ import annotations

import re

import argparse
import warnings

import numpy as np

from agreekit._validation import (
    InputError,
    check_float,
    check_int,
    check_positive_ranks,
    parse_ascii_float,
    parse_ascii_int,
)
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
from agreekit._io import dumps_json, iter_lines
from agreekit.ranking.correlation import configuration, configured_correlation, weighted_correlation
from agreekit.ranking.moments import exact_moments
from agreekit.ranking.significance import configured_test, weighted_correlation_test
from agreekit.ranking.tables import resolve_table, standardize
from agreekit.ranking.weighting import COEFFICIENT_REGISTRY, SCHEME_REGISTRY, WEIGHER_FAMILIES

# the choices are the registries' names, the default first (the order of --help)
COEFFICIENTS = ("kendall", *(c for c in COEFFICIENT_REGISTRY if c != "kendall"))
SCHEMES = ("additive", *(s for s in SCHEME_REGISTRY if s != "additive"))
KINDS = ("ranks", "scores")


def add_config_args(p: argparse.ArgumentParser) -> None:
    """``--coefficient/--scheme/--weigher`` with the library's defaults (kendall, additive, harmonic)."""
    p.add_argument(
        "--coefficient",
        default="kendall",
        choices=COEFFICIENTS,
        help="the coefficient (default kendall, as scipy.stats.weightedtau)",
    )
    p.add_argument(
        "--scheme",
        default="additive",
        choices=SCHEMES,
        help="how an item's two weights combine (default additive): "
        + ", ".join(f"{s.name} ({s.formula})" for s in SCHEME_REGISTRY.values()),
    )
    p.add_argument(
        "--weigher",
        default="harmonic",
        help="weighting function of the 1-based rank (default harmonic), a family and its "
        "parameters: " + ", ".join(f.synopsis for f in WEIGHER_FAMILIES.values()),
    )


def add_emit_args(p: argparse.ArgumentParser) -> None:
    add_format(p)
    add_output(p)


def _flat(record, prefix=""):
    import json

    out = {}
    for k, v in record.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flat(v, key + "."))
        elif isinstance(v, (list, tuple)):
            out[key] = json.dumps(v)
        else:
            out[key] = v
    return out


def emit(args, result) -> None:
    """Write ``result`` (a dict, or a list of dicts = rows) as JSON, CSV or a table to ``-o`` (default stdout)."""
    if getattr(args, "format", "json") == "csv":
        import csv
        import io

        rows = [_flat(r) for r in (result if isinstance(result, list) else [result])]
        header = list(dict.fromkeys(k for r in rows for k in r))
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in header})
        text = buf.getvalue()
    elif getattr(args, "format", "json") == "table":
        text = render_table(result)
    else:
        text = dumps_json(result) + "\n"
    write_output(args, text)


def progress(args):
    """``progress=`` for the API: off with ``--quiet`` or when stderr is not a terminal, else the API's auto."""
    import sys

    value = progress_of(args)
    if value is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return False
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "moments",
        help="exact null moments of a weighted rank correlation",
        description="Exact mean, variance and left variance of Γ over all n! permutations (n = 2..12).",
    )
    add_config_args(p)
    p.add_argument("--n", required=True, help="ranking length (2..12)")
    add_quiet(p)
    add_emit_args(p)
    p.set_defaults(func=_moments, api=exact_moments)

    p = subparsers.add_parser(
        "correlate",
        help="weighted Kendall/Spearman of two rankings",
        description="Weighted correlation of two rankings read from files "
        "(one value per line, or a CSV column; `-` = stdin): rank "
        "vectors (1 = top, the default) or, with --kind scores, "
        "scores (higher = better, ranked descending with average ties).",
    )
    p.add_argument("x", help="file with the first ranking (`-` = stdin)")
    p.add_argument("y", help="file with the second ranking (`-` = stdin)")
    p.add_argument(
        "--kind", default="ranks", choices=KINDS, help="ranks (default; 1 = top) or scores (higher = better)"
    )
    add_config_args(p)
    p.add_argument("--column", default=None, help="CSV column holding the values (default: the first column)")
    p.add_argument(
        "--standardize",
        action="store_true",
        help="also return g(value) from the coefficient table (see `agreekit standardize`)",
    )
    p.add_argument(
        "--ties",
        default="average",
        choices=("average", "raise"),
        help="ties: 'average' (default; average ranks, tau_b-style Kendall) or 'raise'",
    )

    add_standardize_options(p, with_scheme_args=False)
    g = p.add_argument_group("significance test (agreekit.weighted_correlation_test)")
    add_renamed(
        g,
        "--pvalue",
        "--test",
        action="store_true",
        dest="pvalue",
        help="add the p-value under independence: pvalue, method, pvalue_se (and the null moments); "
        "--test is its deprecated spelling",
    )
    g.add_argument(
        "--alternative",
        default="two-sided",
        choices=("two-sided", "greater", "less"),
        help="the alternative hypothesis",
    )
    g.add_argument(
        "--method",
        default="auto",
        choices=("auto", "exact", "table", "monte-carlo"),
        help="auto (default: exact for n <= 10, else the table's null quantiles, else Monte Carlo), "
        "exact, table or monte-carlo",
    )
    add_renamed(
        g,
        "--n-resamples",
        "--resamples",
        dest="n_resamples",
        type=int,
        default=100000,
        help="Monte Carlo resamples (default 100000; --resamples is its deprecated spelling)",
    )
    add_rng(g, what="the Monte Carlo permutations")
    add_quiet(p)
    add_emit_args(p)
    p.set_defaults(func=_correlate, api=(weighted_correlation, weighted_correlation_test, standardize))


def _parse_int(parameter: str, text: str) -> int:

    value = parse_ascii_int(text) if isinstance(text, str) else None
    if value is None:
        raise InputError(parameter, f"must be an integer written with ASCII digits 0-9; got {_short(text)}")
    return value


def _short(text) -> str:
    """``repr(text)``, cut to 40 characters (a 5000-digit option value is not repeated in full)."""
    r = repr(text)
    return r if len(r) <= 40 else r[:30] + f"...' ({len(str(text))} characters)"


def _moments(args):
    n = _parse_int("n", args.n)
    m = exact_moments(args.coefficient, n=n, weigher=args.weigher, scheme=args.scheme, progress=progress(args))
    d = m.to_dict()
    out = {k: d[k] for k in ("coefficient", "scheme", "weigher", "n", "mean", "var", "left_var")}
    out["source"] = "exact"
    emit(args, out)


def read_rank_file(path: str, *, parameter: str, column: str | None = None, kind: str = "ranks") -> np.ndarray:
    """Read ranks (or, with ``kind="scores"``, real scores) from a file: one value per line, or a
    CSV column (header row optional); ``-`` is stdin.

    Ranks are positive integers, 1 = top; a repeated value is a tie.  UTF-8 (a byte-order mark
    is allowed), plain or gzip-compressed, any line ends; trailing blank lines are ignored.
    Every other problem (missing file, blank line in the middle, ragged CSV row, 0, negative,
    non-integral or NaN rank) is an :class:`InputError` naming ``parameter``, the file and the line.
    """
    import csv

    lines = list(iter_lines(path, parameter=parameter))
    while lines and not lines[-1][1].strip():
        lines.pop()
    if not lines:
        raise InputError(parameter, f"file {path!r} is empty")
    blank = next((no for no, ln in lines if not ln.strip()), None)
    if blank is not None:
        raise InputError(
            parameter,
            f"file {path!r} line {blank} is blank (one rank per line; blank lines are allowed only at the end)",
        )
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
            raise InputError(
                parameter, f"file {path!r} line {no} has {len(r)} fields, but line {numbers[0]} has {width}"
            )
    if column is None and width > 1:  # no silent first column, no decimal comma read as two fields
        comma = (
            None if has_header else next((ln for _, ln in lines if re.fullmatch(r"\s*[+-]?[0-9]+,[0-9]+\s*", ln)), None)
        )
        hint = (
            f"; {comma.strip()!r} looks like a decimal comma: write {comma.strip().replace(',', '.')!r}"
            if comma is not None
            else ""
        )
        raise InputError(
            parameter,
            f"file {path!r} line {numbers[0]} has {width} fields: give one value per line, "
            f"or a header row and --column NAME{hint}",
        )
    if (
        column is None
        and has_header
        and width == 1
        and rows[0][0]
        and parse_ascii_float(rows[0][0].translate(str.maketrans("OoIl", "0011"))) is not None
    ):
        raise InputError(
            parameter,
            f"file {path!r} line {numbers[0]}: {rows[0][0]!r} is read as a header but looks "
            "like a mistyped number (letter O or l for a digit?)",
        )
    if column is not None:
        if not has_header or column not in rows[0]:
            raise InputError("column", f"{column!r} is not a column of {path}")
        j = rows[0].index(column)
    else:
        j = 0
    if has_header:
        if len(set(rows[0])) != len(rows[0]) or not all(rows[0]):
            bad = next(t for i, t in enumerate(rows[0]) if not t or t in rows[0][:i])
            raise InputError(parameter, f"file {path!r} line {numbers[0]}: header name {bad!r} is empty or repeated")
        rows, numbers = rows[1:], numbers[1:]
        if not rows:
            raise InputError(parameter, f"file {path!r} has a header but no ranks")
    if kind == "scores":
        return _scores(parameter, [r[j] for r in rows], [f"file {path!r} line {no}" for no in numbers])
    # ASCII decimal numbers only: a token that is not one is passed on as text, so the rank check
    # names it (float() would take '\u0661', '\uff11' and '1_0')
    values = [_ascii_or_text(r[j]) for r in rows]
    return check_positive_ranks(parameter, values, labels=[f"file {path!r} line {no}" for no in numbers])


class _NotANumber(str):
    """A token that is not an ASCII decimal number: shown as itself, but float() refuses it."""

    def __float__(self):
        raise ValueError(f"not an ASCII decimal number: {str(self)!r}")


def _ascii_or_text(tok: str):

    return tok if parse_ascii_float(tok) is not None else _NotANumber(tok)


def _scores(parameter, tokens, labels) -> np.ndarray:
    import math

    out = np.empty(len(tokens))

    for i, (tok, where) in enumerate(zip(tokens, labels)):
        v = parse_ascii_float(tok)
        v = math.nan if v is None else v
        if not math.isfinite(v):
            raise InputError(parameter, f"{where}: {tok!r} is not a finite score")
        out[i] = v
    return out


_NOT_A_NAME = re.compile(r"(?i)(?:na|n/a|nan|null|none|[+-]?inf(?:inity)?)|[0-9+\-.].*|\d.*")


def _is_number(tok: str) -> bool:
    """Could ``tok`` be a (possibly bad) value rather than a header name?  A header name is a word;
    an empty cell, a number, a missing-value marker (``NA``, ``nan``) or anything starting like a number
    (``0x1``, ``1_0``, Arabic-Indic or full-width digits) is a value, which the rank check then names
    with its file and line."""
    return tok == "" or _NOT_A_NAME.fullmatch(tok) is not None


def _correlate(args):
    if args.x == "-" and args.y == "-":
        raise InputError("y", "only one of x, y may be `-` (stdin)")
    x = read_rank_file(args.x, parameter="x", column=args.column, kind=args.kind)
    y = read_rank_file(args.y, parameter="y", column=args.column, kind=args.kind)
    # the boundary: coefficient, scheme and weigher are parsed once here and passed down as they are
    config = configuration(args.coefficient, args.scheme, args.weigher)
    value = configured_correlation(x, y, config, ties=args.ties, kind=args.kind)
    out = {
        "coefficient": config.coefficient,
        "scheme": config.scheme,
        "weigher": config.weigher.spec,
        "kind": args.kind,
        "n": int(len(x)),
        "value": value,
    }
    if getattr(args, "standardize", False):
        out.update(standardized_fields(args, value, int(len(x)), config))
    if getattr(args, "pvalue", False):
        n_resamples = _parse_int("n_resamples", str(args.n_resamples))
        rng = args.rng
        if rng is None:  # fresh OS entropy, reported so that the run can be repeated
            rng = int(np.random.SeedSequence().entropy % 2**63)
        res = configured_test(
            x,
            y,
            config,
            alternative=args.alternative,
            method=args.method,
            n_resamples=n_resamples,
            rng=rng,
            table=args.table,
            g0_rule=getattr(args, "g0_rule", None),
            progress=progress(args),
            kind=args.kind,
        )
        out.update(
            {
                "pvalue": res.pvalue,
                "method": res.method,
                "pvalue_se": res.pvalue_se,
                "alternative": res.alternative,
                "null_mean": res.null_mean,
                "null_var": res.null_var,
                "null_left_var": res.null_left_var,
            }
        )
        if res.method == "monte-carlo":
            out["rng"] = rng
        if not getattr(args, "standardize", False):
            out["standardized"] = res.standardized
    emit(args, out)


# ------------------------------------------------------------------ standardization (also `agreekit standardize`)


def standardize_handler(args, config=None):
    """The record of ``agreekit standardize`` (and of ``correlate --standardize``, which passes the
    ``config`` it parsed); ``form`` and ``g0_rule`` are validated by the table's standardization_function."""
    n = check_int("n", args.n if isinstance(args.n, int) else _parse_int("n", args.n), minimum=2)
    gamma = check_float("gamma", args.gamma, minimum=-1.0, maximum=1.0)
    if config is None:
        config = configuration(args.coefficient, args.scheme, args.weigher)
    tab = resolve_table(args.table, config)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = tab.standardization_function(
            n, form=args.form, g0_rule=getattr(args, "g0_rule", None), extrapolate=args.extrapolate
        )
        m = tab.moments(n, extrapolate=args.extrapolate)
    out = {
        "coefficient": tab.coefficient,
        "scheme": tab.scheme,
        "weigher": tab.weigher,
        "n": n,
        "form": args.form,
        "gamma": gamma,
        "standardized": float(g(gamma)),
        "g0": float(g.g0),
        "g1": float(g.g1),
        "g2": float(g.g2),
        "h2": float(g.h2),
        "flat": bool(g.flat),
        "g0_rule": g.g0_rule,
        "min_slope": float(g.min_slope),
        "mean": m.mean,
        "var": m.var,
        "left_var": m.left_var,
        "source": m.source,
        "table": tab.scheme_id,
    }
    if caught:
        out["warning"] = str(caught[0].message)
    return out


def standardized_fields(args, gamma: float, n: int, config) -> dict:
    """g(gamma) and its parameters for ``correlate --standardize`` (same keys as ``standardize``)."""
    ns = argparse.Namespace(**{**vars(args), "gamma": gamma, "n": n})
    out = standardize_handler(ns, config)
    return {k: v for k, v in out.items() if k not in ("coefficient", "scheme", "weigher", "n", "gamma")}


def add_standardize_options(p, *, with_scheme_args: bool = True):
    if with_scheme_args:
        add_config_args(p)
    p.add_argument(
        "--form",
        default="corrected",
        choices=("corrected", "paper"),
        help="g with the corrected B, C (E[g]=0) or the paper's printed Eq. 30/32",
    )
    p.add_argument(
        "--g0-rule",
        dest="g0_rule",
        default=None,
        choices=("max_min_slope", "closest_to_zero"),
        help="how g's free parameter is chosen: max_min_slope (default with --form corrected: "
        "the strictly increasing g with the largest minimum slope) or closest_to_zero "
        "(the paper's Algorithm 1; default with --form paper)",
    )
    p.add_argument(
        "--table",
        default=None,
        help="coefficient table: a scheme id or a JSON file (`-` = stdin; default: the shipped table)",
    )
    p.add_argument("--extrapolate", action="store_true", help="allow n above the table's n_max (warns)")
