"""Snakemake adapter: one of Rabbany & Zaïane's Tables 1-3 -> CSV + Markdown (ours beside the paper's)."""

import json
from agreekit.pipeline import atomic_write, script_log
from agreekit.clustering import seed_table_frame, seed_table_markdown

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    with open(sm.input.example, encoding="utf-8-sig") as fh:
        example = json.load(fh)
    frame = seed_table_frame(example, direct_weight=float(sm.params.direct_weight))
    with atomic_write(sm.output.csv) as fh:
        frame.to_csv(fh, index=False, float_format="%.6f", lineterminator="\n")
    title = f"{example.get('seed_table', sm.wildcards.cl_table)} — {example.get('name', '')}"
    notes = example.get("other_checks", {}).get("rounding_note")
    md = seed_table_markdown(frame, title=title)
    md += (
        "\nColumns: exact RI_δ / ARI_δ (diagonal removed, P = n² − n), approximate RI′_δ / ARI′_δ "
        "(diagonal kept), I_norm and I_√tr (diagonal kept). bot = D_⊥ (incidence transform), plus = D_+ "
        f"(α = {float(sm.params.direct_weight)}), (N,X) = agreement of X with the edge set.\n"
    )
    if notes:
        md += f"\nNote: {notes}\n"
    with atomic_write(sm.output.md) as fh:
        fh.write(md)
    log.info(f"{sm.output.csv}: {len(frame)} rows")
