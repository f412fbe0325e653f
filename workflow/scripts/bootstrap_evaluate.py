"""Thin adapter: TREC qrels + runs -> one topics x systems CSV per measure (agreekit.ireval.metrics.evaluate)."""
import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")  # noqa: F821

from agreekit._io import atomic_write  # noqa: E402
from agreekit.ireval.metrics import evaluate  # noqa: E402

p = snakemake.params  # noqa: F821
gains = {int(k): float(v) for k, v in p.gains.items()} if p.gains else None
mats = evaluate(snakemake.input.qrels, list(snakemake.input.runs), list(p.measures),  # noqa: F821
                depth=p.depth, gains=gains, beta=p.beta)
for measure, df in mats.items():
    with atomic_write(Path(p.outdir) / f"{measure}.csv") as fh:
        df.to_csv(fh, float_format="%.10g", lineterminator="\n")
    print(f"{measure}: {df.shape[0]} topics x {df.shape[1]} systems, means "
          f"{df.mean().min():.4f}-{df.mean().max():.4f}", file=sys.stderr)
