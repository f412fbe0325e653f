# Shared helpers for every stage: config validation and the list of final targets.
from snakemake.utils import validate

validate(config, "../../config/config.schema.yaml")

# Cross-field checks no schema can express, so that a bad config fails before any job.
# bootstrap: B * alpha must be an integer (the rank k of the decisive bootstrap value).
if isinstance(config.get("bootstrap"), dict) and {"alpha", "n_resamples"} <= set(config["bootstrap"]):
    from snakemake.exceptions import WorkflowError

    from agreekit._validation import InputError as _InputError
    from agreekit.ireval.bootstrap import critical_rank as _critical_rank

    try:
        _critical_rank(config["bootstrap"]["n_resamples"], config["bootstrap"]["alpha"])
    except _InputError as exc:
        raise WorkflowError(f"invalid config: bootstrap.alpha = {config['bootstrap']['alpha']} with "
                            f"bootstrap.n_resamples = {config['bootstrap']['n_resamples']}: {exc}") from None

# Every rule file appends the outputs `rule all` must build.
FINAL_TARGETS = []

AGREEKIT_ENV = "../envs/agreekit.yaml"
