"""Thin adapter: per-collection metaeval results -> summary.md / summary.csv."""
import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: F821

from agreekit.metaeval.report import write_summary  # noqa: E402

p = snakemake.params  # noqa: F821
table = write_summary(p.collections, snakemake.output.md, snakemake.output.csv,  # noqa: F821
                      threshold=p.threshold)
print(f"{len(p.collections)} collections, {len(table)} metric pairs, {int(table['disagree'].sum())} disagreements",
      file=sys.stderr)
