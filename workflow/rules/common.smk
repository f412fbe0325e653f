# Shared helpers for every stage: config validation and the list of final targets.
from snakemake.utils import validate

validate(config, "../../config/config.schema.yaml")

# Every rule file appends the outputs `rule all` must build.
FINAL_TARGETS = []

AGREEKIT_ENV = "../envs/agreekit.yaml"
