"""CLI subcommands for the coefficient tables: ``agreekit standardize`` and ``agreekit table``."""
from __future__ import annotations


def _moments_payload(tab, n, form, extrapolate, g0_rule=None):
    m = tab.moments(n, extrapolate=extrapolate)
    g = tab.standardization_function(n, form=form, g0_rule=g0_rule, extrapolate=extrapolate)
    return m, g


def standardize_handler(args):
    import warnings

    from agreekit._validation import check_float, check_int
    from agreekit._validation import check_choice
    from agreekit.ranking.tables import _resolve_table

    from agreekit.ranking.standardization import G0_RULES

    check_choice("form", args.form, ("corrected", "paper"))
    g0_rule = getattr(args, "g0_rule", None)
    if g0_rule is not None:
        check_choice("g0_rule", g0_rule, G0_RULES)
    from agreekit._cli.ranking import _parse_int

    n = check_int("n", args.n if isinstance(args.n, int) else _parse_int("n", args.n), minimum=2)
    gamma = check_float("gamma", args.gamma, minimum=-1.0, maximum=1.0)
    tab = _resolve_table(args.table, args.coefficient, args.scheme, args.weigher)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m, g = _moments_payload(tab, n, args.form, args.extrapolate, g0_rule)
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


def _standardize(args):
    from agreekit._cli.ranking import emit

    emit(args, standardize_handler(args))


def standardized_fields(args, gamma: float, n: int) -> dict:
    """g(gamma) and its parameters for ``correlate --standardize`` (same keys as ``standardize``)."""
    import argparse

    ns = argparse.Namespace(**{**vars(args), "gamma": gamma, "n": n})
    out = standardize_handler(ns)
    return {k: v for k, v in out.items() if k not in ("coefficient", "scheme", "weigher", "n", "gamma")}


def table_handler(args):
    from agreekit.ranking.tables import _load_table, available_tables

    from agreekit._cli.ranking import emit

    if args.list or args.path_or_scheme_id is None:
        names = available_tables()
        emit(args, [{"table": t} for t in names] if args.format == "csv" else {"tables": names})
        return None
    tab = _load_table(args.path_or_scheme_id, parameter="table")
    d = tab.data
    emit(args, {
        "scheme_id": tab.scheme_id, "coefficient": tab.coefficient, "scheme": tab.scheme, "weigher": tab.weigher,
        "n_exact": tab.n_exact, "n_max": tab.n_max, "schema_version": d["schema_version"],
        "fits": {q: {k: f[k] for k in ("transform", "degree", "coefficients")} for q, f in d["fits"].items()},
        "config_hash": d["provenance"]["config_hash"], "package_version": d["provenance"]["package_version"],
        "checksum": d["checksum"], "path": tab.path,
    })


def add_standardize_options(p, *, with_scheme_args: bool = True):
    if with_scheme_args:
        from agreekit._cli.ranking import add_config_args

        add_config_args(p)
    p.add_argument("--form", default="corrected", choices=("corrected", "paper"),
                   help="g with the corrected B, C (E[g]=0) or the paper's printed Eq. 30/32")
    p.add_argument("--g0-rule", dest="g0_rule", default=None, choices=("max_min_slope", "closest_to_zero"),
                   help="how g's free parameter is chosen: max_min_slope (default with --form corrected: "
                        "the strictly increasing g with the largest minimum slope) or closest_to_zero "
                        "(the paper's Algorithm 1; default with --form paper)")
    p.add_argument("--table", default=None,
                   help="coefficient table: a scheme id or a JSON file (`-` = stdin; default: the shipped table)")
    p.add_argument("--extrapolate", action="store_true", help="allow n above the table's n_max (warns)")


def register(subparsers) -> None:
    from agreekit._cli.ranking import add_emit_args
    from agreekit.ranking.tables import available_tables, load_table, standardize

    p = subparsers.add_parser(
        "standardize", help="standardized coefficient g(Gamma) from a coefficient table",
        description="Standardize a weighted rank correlation Gamma computed on rankings of length n: "
                    "prints gamma, g(gamma), g0, g1, g2, h2 and the moments used (exact or fitted).")
    add_standardize_options(p)
    p.add_argument("--n", required=True, help="ranking length (an integer >= 2)")
    p.add_argument("--gamma", required=True, type=float, help="raw coefficient in [-1, 1]")
    add_emit_args(p)
    p.set_defaults(func=_standardize, api=standardize)

    t = subparsers.add_parser("table", help="list shipped coefficient tables or describe one",
                              description="Without arguments, list the shipped tables; with a scheme id "
                                          "or a JSON path (`-` = stdin), validate it and print its summary.")
    t.add_argument("path_or_scheme_id", nargs="?", default=None, metavar="TABLE",
                   help="scheme id or path (`-` = stdin)")
    t.add_argument("--list", action="store_true", help="list the shipped tables (also without TABLE)")
    add_emit_args(t)
    t.set_defaults(func=table_handler, api=(load_table, available_tables))
