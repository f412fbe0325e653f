"""Adapter: Monte Carlo summaries of one scheme or one batch of schemes on the training grid
(agreekit.ranking.tablegen.generation.sample_batch_stage)."""

import os

from agreekit.pipeline import atomic_write, script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    import numpy as np

    from agreekit.ranking.tablegen.generation import sample_batch_stage, scheme_id, summaries_to_arrays

    settings = sm.params.settings
    for st in settings:
        log.info(
            "sampling %s: n = %s, sizes = %s",
            scheme_id(st["coefficient"], st["scheme"], st["weigher"]),
            st["grid"]["n"],
            st["sample_size"],
        )
    res = sample_batch_stage(settings, batch_elements=sm.params.batch_elements, progress=True)
    arrays = {}
    for sid, per_n in res.items():
        log.info("%s: sizes %s", sid, [per_n[k]["size"] for k in per_n])
        arrays.update({f"{sid}/{k}": v for k, v in summaries_to_arrays(per_n).items()})
    with atomic_write(sm.output[0], "wb") as fh:
        np.savez(fh, **arrays)
    log.info("wrote %s (%.1f MB)", sm.output[0], os.path.getsize(sm.output[0]) / 1e6)
