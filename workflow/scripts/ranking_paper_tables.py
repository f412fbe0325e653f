"""Adapter: paper Tables 1-5, ours beside the paper's (agreekit.ranking.tablegen.reproduction.render_paper_tables)."""
import json
from pathlib import Path

from ranking_common import setup

setup(snakemake, numba_threads=False)  # noqa: F821
from agreekit.ranking.tablegen.reproduction import read_paper_degrees, read_paper_values, render_paper_tables  # noqa: E402

tables = [json.loads(Path(f).read_text()) for f in snakemake.input.tables]  # noqa: F821
render_paper_tables(tables, read_paper_values(snakemake.input.paper),  # noqa: F821
                    read_paper_degrees(snakemake.input.degrees), Path(snakemake.output[0]).parent)  # noqa: F821
