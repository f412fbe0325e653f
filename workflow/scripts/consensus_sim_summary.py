"""Snakemake adapter: simulation cells -> Tables 6-8 and the time box-plots (Figures 2-4)."""

import matplotlib

matplotlib.use("Agg")
import pandas as pd  # noqa: E402

from agreekit.pipeline import atomic_write, script_log
from agreekit.consensus.simulation import plot_times, summarize_recovery, summarize_times  # noqa: E402

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    df = pd.concat([pd.read_csv(p) for p in sm.input.cells], ignore_index=True)
    df = df.sort_values(["variant", "m", "theta", "profile"], kind="stable")
    for path, table in (
        (sm.output.profiles, df),
        (sm.output.recovery, summarize_recovery(df)),
        (sm.output.times, summarize_times(df)),
    ):
        with atomic_write(path) as fh:
            table.to_csv(fh, index=False)
    fig = plot_times(df)
    with atomic_write(sm.output.boxplot, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
