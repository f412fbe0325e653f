"""Adapter: summary table of stage wall times from the Snakemake benchmark files."""

from agreekit.pipeline import atomic_write, script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ranking.tablegen.reproduction import stage_times

    rows = stage_times(list(sm.input))
    lines = [
        "# Stage times of the ranking pipeline (Snakemake `benchmark:` files, wall seconds)",
        "",
        "| stage | jobs | total s | max s |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r['stage']} | {r['jobs']} | {r['total_s']:.1f} | {r['max_s']:.1f} |" for r in rows]
    lines += [
        "",
        f"Sum over stages: {sum(r['total_s'] for r in rows):.1f} s of job time "
        "(jobs run in parallel, so the wall time of the run is smaller).",
    ]
    with atomic_write(sm.output[0]) as fh:
        fh.write("\n".join(lines) + "\n")
