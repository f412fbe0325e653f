"""Adapter: Monte Carlo summaries of one scheme or one batch of schemes on the training grid
(agreekit.ranking.tablegen.generation.sample_batch_stage)."""
import os

from ranking_common import setup

log = setup(snakemake)  # noqa: F821
import numpy as np  # noqa: E402

from agreekit._io import atomic_write  # noqa: E402
from agreekit.ranking.tablegen.generation import sample_batch_stage, scheme_id, summaries_to_arrays  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
for st in settings:
    log.info("sampling %s: n = %s, sizes = %s", scheme_id(st["coefficient"], st["scheme"], st["weigher"]),
             st["grid"]["n"], st["sample_size"])
res = sample_batch_stage(settings, batch_elements=snakemake.params.batch_elements, progress=True)  # noqa: F821
arrays = {}
for sid, per_n in res.items():
    log.info("%s: sizes %s", sid, [per_n[k]["size"] for k in per_n])
    arrays.update({f"{sid}/{k}": v for k, v in summaries_to_arrays(per_n).items()})
with atomic_write(snakemake.output[0], "wb") as fh:  # noqa: F821
    np.savez(fh, **arrays)
log.info("wrote %s (%.1f MB)", snakemake.output[0], os.path.getsize(snakemake.output[0]) / 1e6)  # noqa: F821
