"""Thin adapter: one collection's CSVs -> Figs. 7-8, 10, 11, 12-13 (PNG + PDF)."""

import json

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    import pandas as pd

    from agreekit.ireval import report as rep

    i, p = sm.input, sm.params
    summary = json.loads(open(i.summary).read())
    name = summary["collection"]
    pairs = pd.read_csv(i.pairs)
    rep.plot_asl_curves(
        pairs, "paired", f"{p.outdir}/fig_asl_paired", alpha=p.alpha, title=f"{name}: paired bootstrap ASL curves"
    )
    rep.plot_asl_curves(
        pairs, "unpaired", f"{p.outdir}/fig_asl_unpaired", alpha=p.alpha, title=f"{name}: unpaired bootstrap ASL curves"
    )
    rep.plot_mr_pt(pd.read_csv(i.stability), f"{p.outdir}/fig_mr_pt", title=f"{name}: MR-PT curves")
    rep.plot_swap_rates(
        pd.read_csv(i.swap), f"{p.outdir}/fig_swap", threshold=p.threshold, title=f"{name}: swap rate by difference bin"
    )
    rep.plot_rank_correlations(
        pd.read_csv(i.correlations),
        f"{p.outdir}/fig_tau",
        n_systems=summary["n_systems"],
        title=f"{name}: Kendall's tau between metrics (bootstrap SE)",
    )
    log.info("%s: figures in %s", name, p.outdir)
