"""Adapter: Figures 1-5 (agreekit.ranking.tablegen.figures.make_figures)."""
import json
import re
from pathlib import Path

from ranking_common import setup

setup(snakemake)  # noqa: F821
from agreekit.ranking.tablegen.figures import make_figures  # noqa: E402

tables = [json.loads(Path(f).read_text()) for f in snakemake.input.tables]  # noqa: F821
stems = {}
for f in snakemake.output:  # noqa: F821
    k = int(re.search(r"figure(\d+)\.", f).group(1))
    stems[k] = str(Path(f).with_suffix(""))
fig = snakemake.params.figures  # noqa: F821
make_figures(tables, stems, examples=fig["examples"], kde_samples=fig["kde_samples"],
             kde_bw_factor=fig["kde_bw_factor"], seed=snakemake.params.seed)  # noqa: F821
