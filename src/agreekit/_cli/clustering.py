"""CLI subcommands for the clustering area: ``agreekit clustering`` (alias ``agreekit agreement``)."""

from __future__ import annotations

import argparse
import csv
import io

from agreekit._cli._common import add_format, add_output, add_quiet, add_renamed, render_table, write_output
from agreekit._io import STDIN, check_output_path, dumps_json
from agreekit._validation import InputError

_GRAPH_MEASURES = ("ri_delta", "ari_delta", "ri_delta_approx", "ari_delta_approx", "i_norm", "i_sqrt_tr")


class _Lazy:
    """A library function named by module and name, imported on first use (``agreekit --help``
    must not pay for importing the clustering area); ``inspect.signature`` sees the function
    through ``__wrapped__``."""

    def __init__(self, module: str, name: str):
        self.__module__, self.__name__, self.__qualname__ = module, name, name

    @property
    def __wrapped__(self):
        import importlib

        return getattr(importlib.import_module(self.__module__), self.__name__)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)


#: the library functions the subcommand calls (its options are their parameters)
API = (
    _Lazy("agreekit.clustering", "read_clustering"),
    _Lazy("agreekit.clustering", "ri_delta"),
    _Lazy("agreekit.clustering", "agreement_with_graph"),
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "clustering",
        aliases=["agreement"],
        help="agreement between two clusterings (partitions, overlapping covers, soft memberships)",
        description=(
            "Agreement between clusterings U and V. Files: a label per line (node i = line i), one "
            "cluster per line (node ids separated by spaces/commas; overlapping covers), or CSV "
            "membership matrices (*.csv, one row per node); '-' reads standard input (one of U, V, "
            "--graph). With --graph (edge list 'a b [w]' per line) the structure-aware forms are "
            "computed; with --graph and no V, the agreement of U with the graph's edges. "
            "`agreekit clustering --list` shows the measures (`-m omega` is the adjusted Omega index, "
            "as cdlib's omega; `-m omega_unadjusted` the raw one)."
        ),
    )
    p.add_argument("U", nargs="?", help="clustering file ('-' = stdin)")
    p.add_argument("V", nargs="?", help="clustering file ('-' = stdin; omit with --graph for the (N, U) agreement)")
    p.add_argument("--graph", metavar="EDGES", help="edge list file: 'a b' or 'a b weight' per line ('-' = stdin)")
    p.add_argument(
        "--measure",
        "-m",
        action="append",
        metavar="NAME",
        help="measure name from --list (repeatable; default: ari_delta)",
    )
    p.add_argument(
        "--mode",
        choices=("transform", "plus"),
        default=None,
        help="graph-aware form with --graph and V: D_bot (transform, default) or D_+ (plus)",
    )
    add_renamed(
        p,
        "--direct-weight",
        "--alpha",
        type=float,
        default=None,
        metavar="W",
        help="--mode plus: weight W of D(U, V) in D_+ = W D(U,V) + (1-W)|D(U,N) - D(V,N)| (Rabbany & "
        "Zaïane's alpha; default 0.5). --alpha is its deprecated spelling",
    )
    p.add_argument(
        "--input-format",
        choices=("auto", "labels", "cover", "matrix", "lfr"),
        default="auto",
        help="how to read U and V (default: auto-detect; lfr = 'node<TAB>cluster ...' per line, LFR's "
        "community.dat; a one-column *.csv is a label file unless you say matrix)",
    )
    add_format(p)
    add_output(p)
    add_quiet(p)
    p.add_argument("--list", action="store_true", help="list the registered measures and exit")
    p.set_defaults(func=_agreement, api=API)


def _emit(args, obj, rows: list[list]) -> None:
    if args.format == "json":
        text = dumps_json(obj) + "\n"
    elif args.format == "table":
        text = render_table(obj)
    else:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        text = buf.getvalue()
    write_output(args, text)


def _agreement(args: argparse.Namespace):
    # lazy: building the CLI parser (`agreekit --help`) must not import the clustering area (see _Lazy)
    from agreekit.clustering import agreement_with_graph, get_measure, list_measures, read_clustering, read_graph

    if args.output not in (None, STDIN):
        check_output_path(args.output, parameter="--output")
    if args.list:
        reg = list_measures()
        rows = [["name", "kind", "input", "graph", "description"]] + [
            [d["name"], d["kind"], d["input"], str(d["graph"]).lower(), d["description"]] for d in reg
        ]
        _emit(args, reg, rows)
        return None
    if args.U is None:
        raise InputError("U", "is required (or use --list)")
    if args.V is None and args.graph is None:
        raise InputError("V", "is required unless --graph is given")
    stdin_users = [name for name, v in (("U", args.U), ("V", args.V), ("--graph", args.graph)) if v == STDIN]
    if len(stdin_users) > 1:
        raise InputError(stdin_users[1], f"is '-' (stdin) but {stdin_users[0]} already reads stdin; give a file")
    if args.mode is not None and (args.graph is None or args.V is None):
        raise InputError("--mode", "selects the graph-aware form of a measure of U and V; it needs both V and --graph")
    if args.direct_weight is not None and args.mode != "plus":
        raise InputError(
            "--direct-weight", "is the weight of D(U, V) in D_+ and needs --mode plus (with V and --graph)"
        )
    mode = args.mode or "transform"
    weight = 0.5 if args.direct_weight is None else args.direct_weight
    if not 0.0 <= weight <= 1.0:
        raise InputError("--direct-weight", f"must be in [0, 1]; got {weight}")
    specs = [get_measure(m) for m in (args.measure or ["ari_delta"])]
    U = read_clustering(args.U, input_format=args.input_format, name="U")
    V = read_clustering(args.V, input_format=args.input_format, name="V") if args.V is not None else None
    graph = read_graph(args.graph) if args.graph is not None else None
    results = {}
    for spec in specs:
        if V is None:
            results[spec.name] = agreement_with_graph(U, graph, spec.name)
        elif graph is not None:
            if not spec.graph:
                raise InputError(
                    "--measure",
                    f"{spec.name!r} does not use a graph; drop --graph or use one of {', '.join(_GRAPH_MEASURES)}",
                )
            results[spec.name] = spec(U, V, graph=graph, mode=mode, direct_weight=weight)
        else:
            results[spec.name] = spec(U, V)
    obj = {"U": args.U, "V": args.V, "graph": args.graph, "n": U.n}
    if graph is not None:
        obj["mode"] = "agreement_with_graph" if V is None else mode
        if V is not None and mode == "plus":
            obj["direct_weight"] = weight
    obj["results"] = results
    rows = [["measure", "value"]] + [[k, repr(float(v))] for k, v in results.items()]
    _emit(args, obj, rows)
    return None
