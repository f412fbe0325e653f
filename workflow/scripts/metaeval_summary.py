"""Thin adapter: per-collection metaeval results -> summary.md / summary.csv."""

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.metaeval.report import write_summary

    p = sm.params
    table = write_summary(p.collections, sm.output.md, sm.output.csv, threshold=p.threshold)
    log.info(
        "%d collections, %d metric pairs, %d disagreements",
        len(p.collections),
        len(table),
        int(table["disagree"].sum()),
    )
