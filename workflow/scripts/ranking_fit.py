"""Adapter: fits of one scheme (agreekit.ranking.tablegen.generation.fit_stage) and its table (assemble_table)."""
import json

from ranking_common import setup

log = setup(snakemake, numba_threads=False)  # noqa: F821
import numpy as np  # noqa: E402

from agreekit._io import write_json  # noqa: E402
from agreekit.ranking.tablegen.generation import (  # noqa: E402
    assemble_table,
    fit_stage,
    quantile_block_from_arrays,
    summaries_from_arrays,
)
from agreekit.ranking.tables import load_table  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
sid = snakemake.wildcards.sid  # noqa: F821
with np.load(snakemake.input.samples) as z:  # noqa: F821
    samples = summaries_from_arrays({k: z[k] for k in z.files if k.startswith(sid + "/")}, prefix=sid + "/")
fitted = fit_stage(settings, samples)
for q, f in fitted["fits"].items():
    log.info("%s: x=%s degree=%d (%s) coefficients=%s", q, f["transform"], f["degree"], f["method"],
             f["coefficients"])
write_json(snakemake.output.fit, {k: v for k, v in fitted.items() if k != "null_quantiles"})  # noqa: F821
with open(snakemake.input.exact) as fh:  # noqa: F821
    exact = json.load(fh)
quantiles = None
if snakemake.input.quantiles:  # noqa: F821  (their own sample; else the moment samples' quantiles)
    with np.load(snakemake.input.quantiles[0]) as z:  # noqa: F821
        quantiles = quantile_block_from_arrays({k: z[k] for k in z.files if k.startswith(sid + "/")}, sid)
table = assemble_table(settings, exact, json.loads(json.dumps(fitted)), quantiles=quantiles)
write_json(snakemake.output.table, table)  # noqa: F821
load_table(snakemake.output.table)  # noqa: F821  (validates schema + checksum)
log.info("table %s: checksum %s", table["scheme_id"], table["checksum"])
