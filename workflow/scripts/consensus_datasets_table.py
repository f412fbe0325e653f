"""Snakemake adapter: per-dataset JSONs + the report's figures -> one table (CSV, Markdown)."""
import json
import sys
from pathlib import Path

import pandas as pd

from agreekit._io import atomic_write
from agreekit.consensus.comparison import methods_table

sm = snakemake  # noqa: F821
with open(sm.log[0], "w") as log:
    sys.stderr = log
    results = {Path(p).stem: json.loads(Path(p).read_text()) for p in sm.input.jsons}
    report = pd.read_csv(sm.input.report)
    df = methods_table(results, report)
    with atomic_write(sm.output.csv) as fh:
        df.to_csv(fh, index=False)
    cols = ["dataset", "n_items", "method", "n_solutions", "tau_x", "optimal", "all_optima", "seconds",
            "report_n_solutions", "report_tau_x", "report_seconds"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df[cols].iterrows():
        lines.append("| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |")
    with atomic_write(sm.output.md) as fh:
        fh.write("Consensus rankings: QUICK, FAST and exact side by side (times in seconds on this "
                 "machine; report_* columns are the report's figures).\n\n" + "\n".join(lines) + "\n")
