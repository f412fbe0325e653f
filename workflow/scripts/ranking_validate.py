"""Adapter: fresh Monte Carlo E[g(Gamma)] at held-out n for one table or a batch of tables
(agreekit.ranking.tablegen.reproduction.held_out_batch); fails the job if a table misses the target."""

import json
import sys
from pathlib import Path

from agreekit.pipeline import script_log, write_json

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    from agreekit.ranking.tablegen.reproduction import held_out_batch, validation_failures

    tables = [json.loads(Path(f).read_text()) for f in sm.input.tables]
    p = sm.params
    val = p.validation
    res = held_out_batch(tables, p.n, size=val["size"], seed=p.seed, batch_elements=p.batch_elements)
    for sid, rows in res.items():
        for r in rows:
            log.info("%s %s", sid, r)
    bad = validation_failures(res, threshold=float(val["threshold"]))
    for msg in bad:
        log.error("validation: %s", msg)
    if bad and val["enforce"]:
        text = (
            "table validation failed (set ranking.validation.enforce: false to report instead of failing):\n  "
            + "\n  ".join(bad)
        )
        print(text, file=sys.__stderr__)
        sys.exit(1)
    write_json(sm.output[0], res)
