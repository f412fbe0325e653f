"""Snakemake adapter: LFR trial JSONs -> seed Figure 7, 8 or 9 (PNG), trial/summary CSVs, Markdown note."""
import json
import sys

from agreekit._io import atomic_write
from agreekit.clustering.experiments import figure_report
from agreekit._io import logged_stderr  # noqa: E402

sm = snakemake  # noqa: F821 (injected by Snakemake)
with logged_stderr(sm.log[0]) as log:  # the traceback reaches the log before it is closed
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
    print(f"{len(records)} trials", file=log)
