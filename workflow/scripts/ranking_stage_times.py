"""Adapter: summary table of stage wall times from the Snakemake benchmark files."""
from ranking_common import setup

setup(snakemake, numba_threads=False)  # noqa: F821
from agreekit._io import atomic_write  # noqa: E402
from agreekit.ranking.tablegen.reproduction import stage_times  # noqa: E402

rows = stage_times(list(snakemake.input))  # noqa: F821
lines = ["# Stage times of the ranking pipeline (Snakemake `benchmark:` files, wall seconds)", "",
         "| stage | jobs | total s | max s |", "|---|---|---|---|"]
lines += [f"| {r['stage']} | {r['jobs']} | {r['total_s']:.1f} | {r['max_s']:.1f} |" for r in rows]
lines += ["", f"Sum over stages: {sum(r['total_s'] for r in rows):.1f} s of job time "
              "(jobs run in parallel, so the wall time of the run is smaller)."]
with atomic_write(snakemake.output[0]) as fh:  # noqa: F821
    fh.write("\n".join(lines) + "\n")
