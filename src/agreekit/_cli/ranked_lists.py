"""CLI subcommands for ranked lists: ``rbo`` (rank-biased overlap, topic by topic) and ``ap`` (τ_AP)."""

from __future__ import annotations

import math

from scipy.stats import combine_pvalues

from agreekit._cli._common import add_format, add_output, add_quiet, add_renamed, add_rng
from agreekit._cli.ranking import emit, read_rank_file
from agreekit._io import iter_lines
from agreekit._validation import InputError, check_float, check_int
from agreekit.ireval.metrics import read_run
from agreekit.ranking import ap_correlation, ap_correlation_test, rank_biased_overlap, rank_biased_overlap_test

SCORES = ("ext", "min", "max", "res")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "rbo",
        help="rank-biased overlap of two TREC runs topic by topic, or of two ranked lists",
        description="Rank-biased overlap (Webber, Moffat & Zobel 2010; ties: Corsi & Urbano 2024) of A and B: two "
        "TREC run files (`topic Q0 docno rank score tag`; documents ranked by score, higher = "
        "better, equal scores tied) compared topic by topic, or two list files (one rank per line, "
        "top first; several whitespace-separated items on one line are tied). Prints ext, min, max, "
        "res per topic and their mean over the topics both runs have; topics in one run only are "
        "named. With --n-items, each topic is also tested against independent random rankings of "
        "N items, and the topics' p-values are combined (Fisher's method).",
    )
    p.add_argument("a", metavar="A", help="first run or list file (`-` = stdin)")
    p.add_argument("b", metavar="B", help="second run or list file (`-` = stdin)")
    p.add_argument("--p", type=float, default=0.9, help="persistence, 0 < p < 1 (default 0.9)")
    p.add_argument(
        "--ties",
        default="a",
        choices=("a", "w", "b"),
        help="tie variant: a (expected RBO over tie-breakings, default), w (ties as equality), "
        "b (corrected for the information lost to ties)",
    )
    p.add_argument(
        "--depth",
        type=int,
        default=None,
        help="cut each list at this depth (a tie group that starts within that depth is kept whole)",
    )
    g = p.add_argument_group("test against chance (agreekit.ranking.rank_biased_overlap_test)")
    g.add_argument(
        "--n-items",
        type=int,
        default=None,
        metavar="N",
        help="domain size (collection or pool size): adds each topic's p-value, null mean and "
        "adjusted RBO, and a combined p-value over topics",
    )
    g.add_argument("--score", default="ext", choices=("ext", "min", "max"), help="the score tested")
    add_renamed(
        g,
        "--n-resamples",
        dest="n_resamples",
        type=int,
        default=10000,
        help="Monte Carlo resamples per topic when the exact null is not available",
    )
    add_rng(g, what="the Monte Carlo resamples")
    add_quiet(p)
    add_format(p)
    add_output(p)
    p.set_defaults(func=_rbo, api=(rank_biased_overlap, rank_biased_overlap_test))

    p = subparsers.add_parser(
        "ap",
        help="AP correlation τ_AP of a ranking against a reference ranking",
        description="τ_AP (Yilmaz, Aslam & Robertson 2008; ties: Urbano & Marrero 2017) of Y against the reference "
        "X, read from files (one value per line, or a CSV column; `-` = stdin): rank vectors "
        "(1 = top, the default) or, with --kind scores, scores (higher = better).",
    )
    p.add_argument("x", help="file with the reference ranking (`-` = stdin)")
    p.add_argument("y", help="file with the evaluated ranking (`-` = stdin)")
    p.add_argument(
        "--kind",
        default="ranks",
        choices=("ranks", "scores"),
        help="ranks (default; 1 = top) or scores (higher = better)",
    )
    p.add_argument("--column", default=None, help="CSV column holding the values (default: the first column)")
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="τ_AP_b, the symmetric form (ties allowed in both); default τ_AP (τ_AP_a with ties in Y)",
    )
    g = p.add_argument_group("significance test (agreekit.ranking.ap_correlation_test)")
    add_renamed(
        g,
        "--pvalue",
        action="store_true",
        dest="pvalue",
        help="add the p-value under independence and the null moments",
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
        choices=("auto", "exact", "monte-carlo"),
        help="auto (default: exact when available, else sequential Monte Carlo), exact or monte-carlo",
    )
    add_renamed(
        g, "--n-resamples", dest="n_resamples", type=int, default=100000, help="Monte Carlo resamples (the maximum)"
    )
    add_rng(g, what="the Monte Carlo permutations")
    add_quiet(p)
    add_format(p)
    add_output(p)
    p.set_defaults(func=_ap, api=(ap_correlation, ap_correlation_test))


# ----------------------------------------------------------------------------- reading
def _read_lines(path, parameter):
    lines = [(no, ln.strip()) for no, ln in iter_lines(path, parameter=parameter)]
    lines = [(no, ln) for no, ln in lines if ln]
    if not lines:
        raise InputError(parameter, f"file {path!r} is empty")
    return lines


def _is_run(lines) -> bool:
    return all(len(ln.split()) == 6 for _, ln in lines)


def _read(path, parameter):
    """{topic: ranked list (sets = tie groups)} from a TREC run, or {None: list} from a list file."""
    lines = _read_lines(path, parameter)
    if _is_run(lines):
        if path == "-":
            import io

            path = io.StringIO("\n".join(ln for _, ln in lines) + "\n")
        _, frame = read_run(path)
        out = {}
        for topic, grp in frame.groupby("topic", sort=False):
            if grp["docno"].duplicated().any():
                dup = grp["docno"][grp["docno"].duplicated()].iloc[0]
                raise InputError(parameter, f"{path}: topic {topic}: document {dup!r} is ranked more than once")
            out[str(topic)] = _groups_by_score(grp["docno"].tolist(), grp["score"].to_numpy())
        return out, True
    lst, seen = [], {}
    for no, ln in lines:
        items = ln.split()
        for it in items:
            if it in seen:
                raise InputError(
                    parameter,
                    f"file {path!r} line {no}: item {it!r} is also on line {seen[it]} (an item may appear once)",
                )
            seen[it] = no
        lst.append(set(items) if len(items) > 1 else items[0])
    return {None: lst}, False


def _groups_by_score(docs, scores):
    import numpy as np

    order = np.argsort(-scores, kind="stable")
    out, prev = [], None
    for i in order:
        d, s = docs[i], scores[i]
        if prev is not None and s == prev:
            last = out[-1]
            out[-1] = (last | {d}) if isinstance(last, set) else {last, d}
        else:
            out.append(d)
        prev = s
    return out


def _cut(lst, depth):
    """The groups that start within the top ``depth`` positions."""
    if depth is None:
        return lst
    out, pos = [], 0
    for g in lst:
        if pos >= depth:
            break
        out.append(g)
        pos += len(g) if isinstance(g, set) else 1
    return out


# ----------------------------------------------------------------------------- handlers
def _rbo(args):
    p = check_float("p", args.p, minimum=0.0, maximum=1.0, inclusive=False)
    depth = None if args.depth is None else check_int("depth", args.depth, minimum=1)
    if args.n_items is not None:
        check_int("n_items", args.n_items, minimum=1)
    check_int("n_resamples", args.n_resamples, minimum=1)
    if args.a == "-" and args.b == "-":
        raise InputError("b", "only one of A, B may be `-` (stdin)")
    A, run_a = _read(args.a, "a")
    B, run_b = _read(args.b, "b")
    if run_a != run_b:
        raise InputError("b", "A and B must both be TREC runs or both be list files")
    rng = args.rng
    if args.n_items is not None and rng is None:
        import secrets

        rng = secrets.randbits(32)
    topics = [t for t in A if t in B]
    only_a = [t for t in A if t not in B]
    only_b = [t for t in B if t not in A]
    rows = []
    for t in topics:
        x, y = _cut(A[t], depth), _cut(B[t], depth)
        try:
            r = rank_biased_overlap(x, y, p=p, ties=args.ties)
            row = {"topic": t, **{k: getattr(r, k) for k in SCORES}, "depth_a": r.depth_x, "depth_b": r.depth_y}
            if args.n_items is not None:
                tr = rank_biased_overlap_test(
                    x,
                    y,
                    n_items=args.n_items,
                    p=p,
                    ties=args.ties,
                    score=args.score,
                    n_resamples=args.n_resamples,
                    rng=_topic_seed(rng, len(rows)),
                )
                row.update(pvalue=tr.pvalue, adjusted=tr.adjusted, null_mean=tr.null_mean, method=tr.method)
        except InputError as exc:
            where = "" if t is None else f"topic {t}: "
            raise InputError(exc.parameter, f"{where}{exc.message}") from None
        rows.append(row)
    if not rows:
        raise InputError("b", "A and B have no topic in common")
    mean = {k: float(sum(r[k] for r in rows) / len(rows)) for k in SCORES}
    out = {"p": p, "ties": args.ties, "depth": depth, "n_topics": len(rows)}
    if args.n_items is not None:
        pv = [r["pvalue"] for r in rows]
        combined = float(combine_pvalues(pv, method="fisher").pvalue) if len(pv) > 1 else pv[0]
        mean["adjusted"] = float(sum(r["adjusted"] for r in rows) / len(rows))
        out.update(
            n_items=args.n_items,
            score=args.score,
            alternative="greater",
            seed=rng,
            combined={"pvalue": combined, "method": "fisher" if len(pv) > 1 else "single topic", "n_topics": len(pv)},
        )
    if args.format == "csv":
        table = [dict(r) for r in rows]
        table.append({"topic": "mean", **mean})
        for t in only_a:
            table.append({"topic": t, "only_in": "A"})
        for t in only_b:
            table.append({"topic": t, "only_in": "B"})
        if args.n_items is not None:
            table.append(
                {"topic": "combined", "pvalue": out["combined"]["pvalue"], "method": out["combined"]["method"]}
            )
        emit(args, table)
        return None
    if run_a:
        out.update(topics=rows, mean=mean, only_in_a=only_a, only_in_b=only_b)
    else:
        row = rows[0]
        row.pop("topic")
        out.update(row)
    emit(args, out)
    return None


def _topic_seed(seed, index):
    import numpy as np

    return np.random.SeedSequence([int(seed), int(index)])


def _ap(args):
    if args.x == "-" and args.y == "-":
        raise InputError("y", "only one of x, y may be `-` (stdin)")
    x = read_rank_file(args.x, parameter="x", column=args.column, kind=args.kind)
    y = read_rank_file(args.y, parameter="y", column=args.column, kind=args.kind)
    value = ap_correlation(x, y, symmetric=args.symmetric, kind=args.kind)
    out = {
        "coefficient": "tau_ap_b" if args.symmetric else "tau_ap",
        "kind": args.kind,
        "n": int(len(x)),
        "value": None if math.isnan(value) else value,
    }
    if args.pvalue:
        n_resamples = check_int("n_resamples", args.n_resamples, minimum=1)
        rng = args.rng
        if rng is None:
            import secrets

            rng = secrets.randbits(32)
        res = ap_correlation_test(
            x,
            y,
            symmetric=args.symmetric,
            alternative=args.alternative,
            method=args.method,
            n_resamples=n_resamples,
            rng=rng,
            kind=args.kind,
        )
        out.update(
            pvalue=res.pvalue,
            alternative=res.alternative,
            method=res.method,
            pvalue_se=res.pvalue_se,
            null_mean=res.null_mean,
            null_var=res.null_var,
            n_resamples_used=res.n_resamples_used,
            seed=rng,
        )
    emit(args, [out] if args.format == "csv" else out)
    return None
