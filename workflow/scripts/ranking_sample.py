"""Adapter: Monte Carlo samples of one scheme on the training grid (agreekit.ranking.tablegen.generation.sample_stage)."""
import os

from ranking_common import setup

log = setup(snakemake)  # noqa: F821
import numpy as np  # noqa: E402

from agreekit._io import atomic_write  # noqa: E402
from agreekit.ranking.tablegen.generation import sample_stage  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
log.info("sampling %s: n = %s, sizes = %s", snakemake.wildcards.sid, settings["grid"]["n"],  # noqa: F821
         settings["sample_size"])
samples = sample_stage(settings, batch_elements=snakemake.params.batch_elements, progress=True)  # noqa: F821
with atomic_write(snakemake.output[0], "wb") as fh:  # noqa: F821
    np.savez(fh, **samples)
log.info("wrote %s (%.1f MB)", snakemake.output[0], os.path.getsize(snakemake.output[0]) / 1e6)  # noqa: F821
