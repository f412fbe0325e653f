"""Adapter: paper Tables 1-5, ours beside the paper's (agreekit.ranking.tablegen.reproduction.render_paper_tables)."""

import json
from pathlib import Path

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ranking.tablegen.reproduction import read_paper_degrees, read_paper_values, render_paper_tables

    tables = [json.loads(Path(f).read_text()) for f in sm.input.tables]
    render_paper_tables(
        tables, read_paper_values(sm.input.paper), read_paper_degrees(sm.input.degrees), Path(sm.output[0]).parent
    )
