"""Adapter: the null quantiles of one scheme or batch from the shipped tables, verified bit for bit by a
regeneration at ranking.quantiles.verify.n (agreekit.ranking.tablegen.generation.shipped_quantiles,
verify_quantile_block); fails without writing anything if a shipped row does not reproduce."""

import sys

from agreekit.pipeline import atomic_write, script_log, write_json

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    import numpy as np

    from agreekit.ranking.tablegen.generation import (
        quantile_block_to_arrays,
        scheme_id,
        shipped_quantiles,
        verify_quantile_block,
    )

    p = sm.params
    blocks = {}
    for st in p.settings:
        sid = scheme_id(st["coefficient"], st["scheme"], st["weigher"])
        block, why = shipped_quantiles(st, validate=False)  # checksum; the fit job validates the table it builds
        if block is None:  # the DAG chose this rule, so the shipped table changed since the run started
            print(f"shipped null quantiles of {sid} unusable: {why}", file=sys.__stderr__)
            sys.exit(1)
        blocks[sid] = block
        log.info("quantiles %s: shipped, %d lengths", sid, len(block["n"]))
    res = verify_quantile_block(p.settings, blocks, p.verify_n, batch_elements=p.batch_elements)
    for r in res["rows"]:
        log.info("verify %s n=%d size=%d equal=%s", r["scheme_id"], r["n"], r["size"], r["equal"])
    if res["mismatches"]:
        print(
            "the shipped null quantiles do not reproduce with this code (regenerate them: `make tables`):\n  "
            + "\n  ".join(res["mismatches"]),
            file=sys.__stderr__,
        )
        sys.exit(1)
    write_json(sm.output.verify, res)
    with atomic_write(sm.output.quantiles, "wb") as fh:
        np.savez(fh, **quantile_block_to_arrays(blocks))
    log.info("wrote %s", sm.output.quantiles)
