"""Adapter: exact moments for one scheme, n = 2..n_exact -> CSV."""
import sys

import numba
import pandas as pd

from agreekit._io import atomic_write
from agreekit.moments import exact_moments

sys.stderr = open(snakemake.log[0], "w")  # noqa: F821 (snakemake object injected)
numba.set_num_threads(max(1, min(snakemake.threads, numba.config.NUMBA_NUM_THREADS)))  # noqa: F821
spec = snakemake.params.spec  # noqa: F821
rows = []
for n in range(2, snakemake.params.n_exact + 1):  # noqa: F821
    m = exact_moments(spec["coefficient"], n=n, weigher=spec["weigher"], scheme=spec["scheme"])
    rows.append(m.as_dict())
    print(f"n={n}: {m.mean:.12f} {m.var:.12f} {m.left_var:.12f} ({m.elapsed:.2f} s)", file=sys.stderr)
with atomic_write(snakemake.output[0]) as fh:  # noqa: F821
    pd.DataFrame(rows).to_csv(fh, index=False, float_format="%.17g")
