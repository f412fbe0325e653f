"""Adapter: null quantiles of one scheme or one batch of schemes on their own stream
(agreekit.ranking.tablegen.generation.quantile_batch_stage)."""
import os

from ranking_common import setup

log = setup(snakemake)  # noqa: F821
import numpy as np  # noqa: E402

from agreekit._io import atomic_write  # noqa: E402
from agreekit.ranking.tablegen.generation import quantile_batch_stage, quantile_block_to_arrays, scheme_id  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
for st in settings:
    log.info("quantiles %s: n = %s, sizes = %s", scheme_id(st["coefficient"], st["scheme"], st["weigher"]),
             st["quantiles"]["n"], st["quantiles"]["size"])
res = quantile_batch_stage(settings, batch_elements=snakemake.params.batch_elements, progress=True)  # noqa: F821
with atomic_write(snakemake.output[0], "wb") as fh:  # noqa: F821
    np.savez(fh, **quantile_block_to_arrays(res))
log.info("wrote %s (%.1f MB)", snakemake.output[0], os.path.getsize(snakemake.output[0]) / 1e6)  # noqa: F821
