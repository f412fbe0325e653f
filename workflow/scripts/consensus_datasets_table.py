"""Snakemake adapter: per-dataset JSONs + the report's figures -> one table (CSV, Markdown)."""

import json
from pathlib import Path

import pandas as pd

from agreekit.pipeline import atomic_write, script_log
from agreekit.consensus import methods_table

# the per-dataset JSONs and the shipped table keep the original names (library name -> shipped name)
SHIPPED = {"n_optima": "n_solutions", "average_tau_x": "tau_x", "proven": "optimal", "seconds": "elapsed"}
FROM_JSON = {old: new for new, old in SHIPPED.items()}
COLUMNS = {"n_optima": "n_solutions", "average_tau_x": "tau_x", "proven": "optimal"}  # 'seconds' stays

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    results = {}
    for p in sm.input.jsons:
        res = json.loads(Path(p).read_text())
        res["methods"] = {meth: {FROM_JSON.get(k, k): v for k, v in d.items()} for meth, d in res["methods"].items()}
        results[Path(p).stem] = res
    report = pd.read_csv(sm.input.report)
    df = methods_table(results, report).rename(columns=COLUMNS)
    with atomic_write(sm.output.csv) as fh:
        df.to_csv(fh, index=False)
    cols = [
        "dataset",
        "n_items",
        "method",
        "n_solutions",
        "tau_x",
        "optimal",
        "all_optima",
        "seconds",
        "report_n_solutions",
        "report_tau_x",
        "report_seconds",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df[cols].iterrows():
        lines.append("| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |")
    with atomic_write(sm.output.md) as fh:
        fh.write(
            "Consensus rankings: QUICK, FAST and exact side by side (times in seconds on this "
            "machine; report_* columns are the report's figures).\n\n" + "\n".join(lines) + "\n"
        )
