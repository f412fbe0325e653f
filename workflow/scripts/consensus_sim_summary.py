"""Snakemake adapter: simulation cells -> Tables 6-8 and the time box-plots (Figures 2-4)."""
import sys

import matplotlib

matplotlib.use("Agg")
import pandas as pd  # noqa: E402

from agreekit._io import atomic_write  # noqa: E402
from agreekit.consensus.simulation import plot_times, summarize_recovery, summarize_times  # noqa: E402
from agreekit._io import logged_stderr  # noqa: E402

sm = snakemake  # noqa: F821
with logged_stderr(sm.log[0]) as log:  # the traceback reaches the log before it is closed
    df = pd.concat([pd.read_csv(p) for p in sm.input.cells], ignore_index=True)
    df = df.sort_values(["variant", "m", "theta", "profile"], kind="stable")
    for path, table in ((sm.output.profiles, df), (sm.output.recovery, summarize_recovery(df)),
                        (sm.output.times, summarize_times(df))):
        with atomic_write(path) as fh:
            table.to_csv(fh, index=False)
    fig = plot_times(df)
    with atomic_write(sm.output.boxplot, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
