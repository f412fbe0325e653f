"""Snakemake adapter: one LFR graph of Rabbany & Zaïane 2015, Figure 7, 8 or 9 (one x value, one repeat) -> JSON."""

import numpy as np

from agreekit.pipeline import script_log, write_json
from agreekit.clustering.experiments import lfr_trial_for_figure

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    figure = int(sm.params.figure)
    # stream id: (global seed, 3, [figure], x index, repeat) -> independent of --cores and job order
    key = (
        [int(sm.params.seed), 3]
        + ([] if figure == 7 else [figure])
        + [int(sm.params.x_index), int(sm.wildcards.cl_rep)]
    )
    seed = int(np.random.SeedSequence(key).generate_state(1)[0])
    rec = lfr_trial_for_figure(figure, dict(sm.params.settings), float(sm.wildcards.cl_x), rng=seed)
    write_json(sm.output[0], rec)
    log.info(
        f"figure {figure} x={sm.wildcards.cl_x} rep={sm.wildcards.cl_rep}: {rec['edges']} edges, "
        f"{rec['true_communities']} communities, realized mu {rec['realized_mu']:.4f}"
    )
