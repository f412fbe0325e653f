"""Adapter: null quantiles of one scheme or one batch of schemes on their own stream
(agreekit.ranking.tablegen.generation.quantile_batch_stage)."""

import os

from agreekit.pipeline import atomic_write, script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    import numpy as np

    from agreekit.ranking.tablegen.generation import quantile_batch_stage, quantile_block_to_arrays, scheme_id

    settings = sm.params.settings
    for st in settings:
        log.info(
            "quantiles %s: n = %s, sizes = %s",
            scheme_id(st["coefficient"], st["scheme"], st["weigher"]),
            st["quantiles"]["n"],
            st["quantiles"]["size"],
        )
    res = quantile_batch_stage(settings, batch_elements=sm.params.batch_elements, progress=True)
    with atomic_write(sm.output[0], "wb") as fh:
        np.savez(fh, **quantile_block_to_arrays(res))
    log.info("wrote %s (%.1f MB)", sm.output[0], os.path.getsize(sm.output[0]) / 1e6)
