# Shared helpers for every stage: config validation and the list of final targets.
import os

from snakemake.exceptions import WorkflowError

from agreekit.pipeline import PipelineConfigError as _PipelineConfigError
from agreekit.pipeline import check_pipeline_config as _check_pipeline_config

# Every parse-time config check (strict YAML of every config file; the JSON schemas, their
# defaults filled in; the cross-field and computed checks) is one library function, so a bad config
# fails before any job and the tests can check each case in-process.
# A job in a process of its own (every SLURM job: `--mode remote`) parses this file again: there only
# the schema defaults are filled in, the main process has checked the same files.
try:
    _check_pipeline_config(config, [*workflow.configfiles, *workflow.overwrite_configfiles],
                           os.path.join(workflow.basedir, "config", "config.schema.yaml"),
                           defaults_only=workflow.remote_exec or workflow.subprocess_exec)
except _PipelineConfigError as exc:
    raise WorkflowError(f"invalid config: {exc}") from None

# Every rule file appends the outputs `rule all` must build.
FINAL_TARGETS = []

AGREEKIT_ENV = "../envs/agreekit.yaml"
