"""Snakemake adapter: LFR trial JSONs -> Rabbany & Zaïane 2015, Figure 7, 8 or 9 (PNG), trial/summary CSVs, Markdown note."""

import json
from agreekit.pipeline import atomic_write, script_log
from agreekit.clustering.experiments import figure_report

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    records = []
    for path in sm.input:
        with open(path, encoding="utf-8") as fh:
            records.append(json.load(fh))
    frame, summary, md = figure_report(int(sm.wildcards.cl_fig), records, dict(sm.params.settings), sm.output.png)
    with atomic_write(sm.output.trials) as fh:
        frame.to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    with atomic_write(sm.output.summary) as fh:
        summary.to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    with atomic_write(sm.output.md) as fh:
        fh.write(md)
    log.info(f"{len(records)} trials")
