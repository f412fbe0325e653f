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
    from agreekit._cli.tables import add_standardize_options

    add_standardize_options(p, with_scheme_args=False)
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
    """Read ranks from a file: one number per line, or a CSV column (header row optional)."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise InputError(parameter, f"file not found: {path}")
    text = p.read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise InputError(parameter, f"file {path} is empty")
    first = lines[0].split(",")
    has_header = any(not _is_number(tok.strip()) for tok in first)
    df = pd.read_csv(p, header=0 if has_header else None, skip_blank_lines=True)
    if column is not None:
        if not has_header or column not in df.columns:
            raise InputError("column", f"{column!r} is not a column of {path}")
        series = df[column]
    else:
        series = df.iloc[:, 0]
    values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        raise InputError(parameter, f"{path} contains NaN or non-numeric ranks")
    return values


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return tok.lower() in {"nan"}  # NaN is numeric here; rejected later with a clear message
    return True


def _correlate(args):
    from agreekit.ranking.correlation import weighted_correlation

    x = read_rank_file(args.x, parameter="x", column=args.column)
    y = read_rank_file(args.y, parameter="y", column=args.column)
    value = weighted_correlation(x, y, coefficient=args.coefficient, weigher=args.weigher,
                                 scheme=args.scheme)
    from agreekit.ranking.weighting import parse_weigher

    out = {"coefficient": args.coefficient, "scheme": args.scheme,
           "weigher": parse_weigher(args.weigher).spec, "n": int(len(x)), "value": value}
    if getattr(args, "standardize", False):
        from agreekit._cli.tables import standardized_fields

        out.update(standardized_fields(args, value, int(len(x))))
    return out
