"""Rows of Rabbany & Zaïane's (2015) Tables 1-3 for an example (graph, ground truth, candidates).

Pipeline helpers (not in :mod:`agreekit.clustering`'s ``__all__``; import them from here):
:func:`seed_table`, :func:`seed_table_frame`, :func:`seed_table_markdown` and
:data:`SEED_TABLE_COLUMNS`, the table's columns (name -> (measure, exact)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agreekit._api import renamed_parameters
from agreekit._validation import InputError
from agreekit.clustering._comembership import ari_delta, i_norm, i_sqrt_tr, ri_delta
from agreekit.clustering._registry import agreement_with_graph
from agreekit.clustering._inputs import as_clustering

__all__ = ["SEED_TABLE_COLUMNS", "seed_table", "seed_table_frame", "seed_table_markdown"]

#: column name -> (measure, exact)
SEED_TABLE_COLUMNS: dict[str, tuple[Any, bool]] = {
    "RI_delta": (ri_delta, True),
    "ARI_delta": (ari_delta, True),
    "RI_delta_approx": (ri_delta, False),
    "ARI_delta_approx": (ari_delta, False),
    "I_norm": (i_norm, False),
    "I_sqrt_tr": (i_sqrt_tr, False),
}


@renamed_parameters(alpha="direct_weight")
def seed_table(example: Mapping, *, direct_weight: float = 0.5) -> list[dict]:
    """Compute the nine rows of Rabbany & Zaïane's Tables 1-3 for one example.

    Parameters
    ----------
    example : mapping
        With keys ``nodes``, ``edges`` (pairs of node ids), ``clusterings`` (name -> list of
        clusters), ``ground_truth`` (a name) and ``candidates`` (two names), as in
        ``resources/clustering/*.json``.
    direct_weight : float
        Rabbany & Zaïane's α of the D_+ rows: the weight of D(T, C) (``alpha=`` is deprecated).

    Returns
    -------
    list of dict
        One dict per row: ``{"row": label, "RI_delta": ..., ..., "I_sqrt_tr": ...}``; labels are
        ``(T,C)``, ``bot(T,C|G)``, ``plus(T,C|G)`` for each candidate C, then ``(N,T)``, ``(N,C)``.
    """
    try:
        nodes = list(example["nodes"])
        edges = [tuple(e) for e in example["edges"]]
        truth_name = example["ground_truth"]
        cand_names = list(example["candidates"])
        cl = {
            name: as_clustering(example["clusterings"][name], nodes=nodes, name=name)
            for name in [truth_name, *cand_names]
        }
    except (KeyError, TypeError) as exc:
        raise InputError("example", f"is not a valid example description (missing or bad {exc})") from None
    truth = cl[truth_name]
    rows = []

    def row(label, fn):
        out = {"row": label}
        for col, (measure, exact) in SEED_TABLE_COLUMNS.items():
            out[col] = fn(measure, exact)
        rows.append(out)

    for c in cand_names:
        row(f"({truth_name},{c})", lambda m, e, c=c: m(truth, cl[c], exact=e))
    for c in cand_names:
        row(f"bot({truth_name},{c}|G)", lambda m, e, c=c: m(truth, cl[c], exact=e, graph=edges, mode="transform"))
    for c in cand_names:
        row(
            f"plus({truth_name},{c}|G)",
            lambda m, e, c=c: m(truth, cl[c], exact=e, graph=edges, mode="plus", direct_weight=direct_weight),
        )
    for name in [truth_name, *cand_names]:
        row(f"(N,{name})", lambda m, e, name=name: agreement_with_graph(cl[name], edges, m, exact=e))
    return rows


@renamed_parameters(alpha="direct_weight")
def seed_table_frame(example: Mapping, *, direct_weight: float = 0.5):
    """:func:`seed_table` beside the paper's printed values (pandas DataFrame).

    Columns: ``row`` (our label), ``seed_row`` (the label printed in the paper), then for each
    measure column ``<col>`` (ours), ``<col>_paper`` and ``<col>_diff`` (ours − paper).
    """
    import pandas as pd

    printed = example.get("expected_table_values", {})
    labels = example.get("table_row_labels_in_seed", {})
    cols = list(example.get("columns", SEED_TABLE_COLUMNS))
    records = []
    for r in seed_table(example, direct_weight=direct_weight):
        rec = {"row": r["row"], "seed_row": labels.get(r["row"], r["row"])}
        paper = printed.get(r["row"])
        for i, c in enumerate(SEED_TABLE_COLUMNS):
            rec[c] = r[c]
            p = paper[cols.index(c)] if paper is not None and c in cols else float("nan")
            rec[f"{c}_paper"] = p
            rec[f"{c}_diff"] = r[c] - p
        records.append(rec)
    return pd.DataFrame(records)


def seed_table_markdown(frame, *, title: str = "") -> str:
    """Markdown rendering of :func:`seed_table_frame`: ``ours (paper)`` per cell, 3 decimals (4 for ours)."""
    cols = list(SEED_TABLE_COLUMNS)
    lines = [f"### {title}", ""] if title else []
    lines.append("| row (seed label) | " + " | ".join(cols) + " |")
    lines.append("|---|" + "---|" * len(cols))
    for _, r in frame.iterrows():
        cells = []
        for c in cols:
            flag = "" if abs(r[f"{c}_diff"]) <= 5e-4 + 1e-12 else " **≠**"
            cells.append(f"{r[c]:.4f} ({r[f'{c}_paper']:.3f}){flag}")
        label = f"{r['row']} ({r['seed_row']})".replace("|", "\\|")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    worst = float(frame[[f"{c}_diff" for c in cols]].abs().to_numpy().max())
    lines += [
        "",
        f"Largest |ours − paper| in this table: {worst:.2e} (tolerance 5e-4; ours at 4 decimals, "
        "paper in parentheses).",
    ]
    return "\n".join(lines) + "\n"
