"""Thin adapter: TREC qrels + runs -> one topics x systems CSV per measure (agreekit.ireval.metrics.evaluate)."""

from pathlib import Path

from agreekit.pipeline import atomic_write, script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ireval.metrics import evaluate

    p = sm.params
    gains = {int(k): float(v) for k, v in p.gains.items()} if p.gains else None
    mats = evaluate(sm.input.qrels, list(sm.input.runs), list(p.measures), depth=p.depth, gains=gains, beta=p.beta)
    for measure, df in mats.items():
        with atomic_write(Path(p.outdir) / f"{measure}.csv") as fh:
            df.to_csv(fh, float_format="%.10g", lineterminator="\n")
        log.info(
            "%s: %d topics x %d systems, means %.4f-%.4f",
            measure,
            df.shape[0],
            df.shape[1],
            df.mean().min(),
            df.mean().max(),
        )
