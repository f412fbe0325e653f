"""Adapter: exact moments of one scheme (agreekit.ranking.tablegen.generation.exact_stage)."""

from agreekit.pipeline import script_log, write_json

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm, numba_threads=True) as log:
    from agreekit.ranking.tablegen.generation import exact_stage

    settings = sm.params.settings
    log.info("exact moments n=2..%d for %s", settings["n_exact"], sm.wildcards.sid)
    write_json(sm.output[0], exact_stage(settings))
