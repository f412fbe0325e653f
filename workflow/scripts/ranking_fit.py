"""Adapter: fits of one scheme (agreekit.tablegen.fit_stage)."""
from ranking_common import setup

log = setup(snakemake, numba_threads=False)  # noqa: F821
import numpy as np  # noqa: E402

from agreekit._io import write_json  # noqa: E402
from agreekit.tablegen import fit_stage  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
with np.load(snakemake.input.samples) as z:  # noqa: F821
    samples = {k: z[k] for k in z.files}
fitted = fit_stage(settings, samples)
for q, f in fitted["fits"].items():
    log.info("%s: x=%s degree=%d coefficients=%s", q, f["transform"], f["degree"], f["coefficients"])
write_json(snakemake.output[0], fitted)  # noqa: F821
