"""Adapter: exact moments of one scheme (agreekit.ranking.tablegen.generation.exact_stage)."""
from ranking_common import setup

log = setup(snakemake)  # noqa: F821
from agreekit._io import write_json  # noqa: E402
from agreekit.ranking.tablegen.generation import exact_stage  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
log.info("exact moments n=2..%d for %s", settings["n_exact"], snakemake.wildcards.sid)  # noqa: F821
write_json(snakemake.output[0], exact_stage(settings))  # noqa: F821
