"""CLI subcommands for the clustering area: ``agreekit clustering`` (alias ``agreekit agreement``)."""
from __future__ import annotations

import argparse
import csv
import io
import sys

from agreekit._io import atomic_write, check_output_path, dumps_json
from agreekit._validation import InputError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "clustering", aliases=["agreement"],
        help="agreement between two clusterings (partitions, overlapping covers, soft memberships)",
        description=(
            "Agreement between clusterings U and V. Files: a label per line (node i = line i), one "
            "cluster per line (node ids separated by spaces/commas; overlapping covers), or CSV "
            "membership matrices (*.csv, one row per node). With --graph (edge list 'a b [w]' per "
            "line) the structure-aware forms are computed; with --graph and no V, the agreement of U "
            "with the graph's edges. `agreekit clustering --list` shows the measures."),
    )
    p.add_argument("U", nargs="?", help="clustering file")
    p.add_argument("V", nargs="?", help="clustering file (omit with --graph for the (N, U) agreement)")
    p.add_argument("--graph", metavar="EDGES", help="edge list file: 'a b' or 'a b weight' per line")
    p.add_argument("--measure", "-m", action="append", metavar="NAME",
                   help="measure name from --list (repeatable; default: ari_delta)")
    p.add_argument("--mode", choices=("transform", "plus"), default=None,
                   help="graph-aware form with --graph and V: D_bot (transform, default) or D_+ (plus)")
    p.add_argument("--alpha", type=float, default=None, help="alpha of D_+ (--mode plus; default 0.5)")
    p.add_argument("--input-format", choices=("auto", "labels", "cover", "matrix"), default="auto",
                   help="how to read U and V (default: auto-detect)")
    p.add_argument("--format", choices=("json", "csv"), default="json", help="output format")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE (atomically)")
    p.add_argument("--list", action="store_true", help="list the registered measures and exit")
    p.set_defaults(func=_agreement)


def _emit(args, obj, rows: list[list]) -> None:
    if args.format == "json":
        text = dumps_json(obj) + "\n"
    else:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        text = buf.getvalue()
    if args.output:
        with atomic_write(args.output, parameter="--output") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def _agreement(args: argparse.Namespace):
    from agreekit.clustering import agreement_with_graph, get_measure, list_measures
    from agreekit.clustering._files import read_clustering, read_graph

    if args.list:
        reg = list_measures()
        rows = [["name", "kind", "input", "graph", "description"]] + [
            [d["name"], d["kind"], d["input"], str(d["graph"]).lower(), d["description"]] for d in reg]
        _emit(args, reg, rows)
        return None
    if args.U is None:
        raise InputError("U", "is required (or use --list)")
    if args.V is None and args.graph is None:
        raise InputError("V", "is required unless --graph is given")
    if args.mode is not None and (args.graph is None or args.V is None):
        raise InputError("--mode", "selects the graph-aware form of a measure of U and V; it needs "
                                   "both V and --graph")
    if args.alpha is not None and args.mode != "plus":
        raise InputError("--alpha", "is the weight of D_+ and needs --mode plus (with V and --graph)")
    args.mode = args.mode or "transform"
    args.alpha = 0.5 if args.alpha is None else args.alpha
    if not 0.0 <= args.alpha <= 1.0:
        raise InputError("--alpha", f"must be in [0, 1]; got {args.alpha}")
    if args.output:
        check_output_path(args.output, parameter="--output")
    specs = [get_measure(m) for m in (args.measure or ["ari_delta"])]
    U = read_clustering(args.U, kind=args.input_format, name="U")
    V = read_clustering(args.V, kind=args.input_format, name="V") if args.V is not None else None
    graph = read_graph(args.graph) if args.graph is not None else None
    results = {}
    for spec in specs:
        if V is None:
            results[spec.name] = agreement_with_graph(U, graph, spec.name)
        elif graph is not None:
            if not spec.graph:
                graph_ok = ", ".join(s for s in ("ri_delta", "ari_delta", "ri_delta_approx", "ari_delta_approx",
                                                 "i_norm", "i_sqrt_tr"))
                raise InputError("--measure", f"{spec.name!r} does not use a graph; drop --graph or use one of "
                                              f"{graph_ok}")
            results[spec.name] = spec(U, V, graph=graph, mode=args.mode, alpha=args.alpha)
        else:
            results[spec.name] = spec(U, V)
    obj = {"U": args.U, "V": args.V, "graph": args.graph, "n": U.n}
    if graph is not None:
        obj["mode"] = "agreement_with_graph" if V is None else args.mode
        if V is not None and args.mode == "plus":
            obj["alpha"] = args.alpha
    obj["results"] = results
    rows = [["measure", "value"]] + [[k, repr(float(v))] for k, v in results.items()]
    _emit(args, obj, rows)
    return None
