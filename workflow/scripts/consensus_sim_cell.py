"""Snakemake adapter: one cell (m, theta, variant) of the simulation study -> CSV."""

import numpy as np

from agreekit.pipeline import atomic_write, script_log
from agreekit.consensus.simulation import VARIANTS, run_cell

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    sim = sm.params.sim
    m, theta, variant = int(sm.wildcards.m), float(sm.wildcards.theta), sm.wildcards.variant
    # the cell's stream depends only on the global seed and the cell, never on scheduling
    rng = np.random.SeedSequence([int(sm.params.seed), m, int(round(theta * 1000)), VARIANTS.index(variant)])
    df = run_cell(
        m=m,
        theta=theta,
        variant=variant,
        n_profiles=sim["n_profiles"],
        n_judges=sim["n_judges"],
        n_starts=sim["fast_starts"],
        rng=rng,
        tie_prob=sim["tie_prob"],
        missing_prob=sim["missing_prob"],
        exact_time_limit=sim["exact_time_limit"],
        progress=True,
    )
    with atomic_write(sm.output.csv) as fh:
        df.to_csv(fh, index=False)
