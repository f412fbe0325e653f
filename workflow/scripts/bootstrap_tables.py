"""Thin adapter: collection summaries -> Table 2 / Table 3 / correlation tables (CSV + Markdown)."""

import json

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ireval import report as rep

    p = sm.params
    summaries = [json.loads(open(f).read()) for f in sm.input]
    note = f"alpha = {p.alpha}, B = {p.n_resamples}"
    rep.write_table(
        rep.table2(summaries),
        f"{p.outdir}/table2",
        title=f"Table 2 style: sensitivity (ASL < alpha) and estimated difference ({note}; "
        "paired columns of G_ metrics are the AG test, in log units)",
        markdown_columns=rep.MARKDOWN_COLUMNS["table2"],
    )
    rep.write_table(
        rep.table3(summaries),
        f"{p.outdir}/table3",
        title=f"Table 3 style: swap method (swap rate <= 5%; B = {p.n_resamples})",
        markdown_columns=rep.MARKDOWN_COLUMNS["table3"],
    )
    rep.write_table(
        rep.correlation_table(summaries),
        f"{p.outdir}/correlations",
        title="Kendall's tau between metrics with bootstrap SE (Figs. 12-13) and Eq. 11 test",
    )
    log.info("%d collections: tables in %s", len(summaries), p.outdir)
