"""Adapter: fits of one scheme (agreekit.ranking.tablegen.generation.fit_stage) and its table (assemble_table)."""

import json

from agreekit.pipeline import script_log, write_json

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    import numpy as np

    from agreekit.ranking.tablegen.generation import (
        assemble_table,
        fit_stage,
        quantile_block_from_arrays,
        summaries_from_arrays,
    )
    from agreekit.ranking.tables import load_table

    settings = sm.params.settings
    sid = sm.wildcards.sid
    with np.load(sm.input.samples) as z:
        samples = summaries_from_arrays({k: z[k] for k in z.files if k.startswith(sid + "/")}, prefix=sid + "/")
    fitted = fit_stage(settings, samples)
    for q, f in fitted["fits"].items():
        log.info(
            "%s: x=%s degree=%d (%s) coefficients=%s", q, f["transform"], f["degree"], f["method"], f["coefficients"]
        )
    write_json(sm.output.fit, {k: v for k, v in fitted.items() if k != "null_quantiles"})
    with open(sm.input.exact) as fh:
        exact = json.load(fh)
    quantiles = None
    if sm.input.quantiles:  # (their own sample; else the moment samples' quantiles)
        with np.load(sm.input.quantiles[0]) as z:
            quantiles = quantile_block_from_arrays({k: z[k] for k in z.files if k.startswith(sid + "/")}, sid)
    table = assemble_table(settings, exact, json.loads(json.dumps(fitted)), quantiles=quantiles)
    write_json(sm.output.table, table)
    load_table(sm.output.table)  # (validates schema + checksum)
    log.info("table %s: checksum %s", table["scheme_id"], table["checksum"])
