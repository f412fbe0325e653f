"""Adapter: Figures 1-5 (agreekit.ranking.tablegen.figures.make_figures)."""

import json
import re
from pathlib import Path

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    from agreekit.ranking.tablegen.figures import make_figures

    tables = [json.loads(Path(f).read_text()) for f in sm.input.tables]
    stems = {}
    for f in sm.output:
        k = int(re.search(r"figure(\d+)\.", f).group(1))
        stems[k] = str(Path(f).with_suffix(""))
    fig = sm.params.figures
    make_figures(
        tables,
        stems,
        examples=fig["examples"],
        kde_samples=fig["kde_samples"],
        kde_bw_factor=fig["kde_bw_factor"],
        seed=sm.params.seed,
    )
