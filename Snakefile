# agreekit pipeline: `make results` (or `snakemake` — the default profile sets --cores).
# Each stage lives in workflow/rules/<stage>.smk and appends its final outputs to FINAL_TARGETS.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/ranking.smk"
include: "workflow/rules/ranking_exact.smk"
include: "workflow/rules/ranking_sample.smk"
include: "workflow/rules/ranking_fit.smk"
include: "workflow/rules/ranking_report.smk"
include: "workflow/rules/consensus.smk"
include: "workflow/rules/clustering.smk"
include: "workflow/rules/bootstrap.smk"
include: "workflow/rules/metaeval.smk"


rule all:
    default_target: True
    input:
        FINAL_TARGETS,
