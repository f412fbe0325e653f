"""CLI subcommands for the coefficient tables: ``agreekit standardize`` and ``agreekit table``."""

from __future__ import annotations

from agreekit._cli.ranking import add_emit_args, add_standardize_options, emit, standardize_handler
from agreekit.ranking.tables import available_tables, load_table, open_table, standardize


def _standardize(args):
    emit(args, standardize_handler(args))


def table_handler(args):
    if args.list or args.path_or_scheme_id is None:
        names = available_tables()
        emit(args, [{"table": t} for t in names] if args.format == "csv" else {"tables": names})
        return None
    tab = open_table(args.path_or_scheme_id, parameter="table")
    d = tab.data
    emit(
        args,
        {
            "scheme_id": tab.scheme_id,
            "coefficient": tab.coefficient,
            "scheme": tab.scheme,
            "weigher": tab.weigher,
            "n_exact": tab.n_exact,
            "n_max": tab.n_max,
            "schema_version": d["schema_version"],
            "fits": {q: {k: f[k] for k in ("transform", "degree", "coefficients")} for q, f in d["fits"].items()},
            "config_hash": d["provenance"]["config_hash"],
            "package_version": d["provenance"]["package_version"],
            "checksum": d["checksum"],
            "path": tab.path,
        },
    )


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "standardize",
        help="standardized coefficient g(Gamma) from a coefficient table",
        description="Standardize a weighted rank correlation Gamma computed on rankings of length n: "
        "prints gamma, g(gamma), g0, g1, g2, h2 and the moments used (exact or fitted).",
    )
    add_standardize_options(p)
    p.add_argument("--n", required=True, help="ranking length (an integer >= 2)")
    p.add_argument("--gamma", required=True, type=float, help="raw coefficient in [-1, 1]")
    add_emit_args(p)
    p.set_defaults(func=_standardize, api=standardize)

    t = subparsers.add_parser(
        "table",
        help="list shipped coefficient tables or describe one",
        description="Without arguments, list the shipped tables; with a scheme id "
        "or a JSON path (`-` = stdin), validate it and print its summary.",
    )
    t.add_argument(
        "path_or_scheme_id", nargs="?", default=None, metavar="TABLE", help="scheme id or path (`-` = stdin)"
    )
    t.add_argument("--list", action="store_true", help="list the shipped tables (also without TABLE)")
    add_emit_args(t)
    t.set_defaults(func=table_handler, api=(load_table, available_tables))
