"""Adapter: table p-values vs a fresh Monte Carlo at held-out n for one table or a batch of tables
(agreekit.ranking.tablegen.reproduction.pvalue_check_batch); reported in results/reproduction.md.
Fails the job (writing nothing) if a table misses the target by more than 3 standard errors
(pvalue_gate_failures), unless ranking.quantiles.check.enforce is false."""

import json
import sys
from pathlib import Path

from agreekit.pipeline import script_log, write_json

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    from agreekit.ranking.tablegen.reproduction import pvalue_check_batch, pvalue_gate_failures

    tables = [json.loads(Path(f).read_text()) for f in sm.input.tables]
    p = sm.params
    res = pvalue_check_batch(tables, p.n, size=p.size, seed=p.seed, batch_elements=p.batch_elements)
    for sid, rows in res.items():
        for r in rows:
            log.info(
                "%s n=%d B=%d abs=%.4f rel=%.3f pass=%s",
                sid,
                r["n"],
                r["size"],
                r["max_abs_err"],
                r["max_rel_err"],
                r["pass"],
            )
    bad = pvalue_gate_failures(res)
    for msg in bad:
        log.error("p-value check: %s", msg)
    if bad and p.enforce:
        print(
            "table p-value check failed (set ranking.quantiles.check.enforce: false to report instead of failing):\n  "
            + "\n  ".join(bad),
            file=sys.__stderr__,
        )
        sys.exit(1)
    write_json(sm.output[0], res)
