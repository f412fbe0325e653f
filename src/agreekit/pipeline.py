"""What the Snakemake workflow uses from agreekit besides the areas' own functions.

The pipeline (the top-level ``Snakefile``, ``workflow/rules/*.smk`` and the ``script:`` adapters in
``workflow/scripts/``) imports only public modules: the areas (``agreekit.ranking``,
``agreekit.ranking.tablegen``, ``agreekit.consensus``, ``agreekit.clustering``, ``agreekit.ireval``,
``agreekit.metaeval``) for the work, and this module for the plumbing:

* :func:`check_pipeline_config` and :class:`PipelineConfigError` — every parse-time check of a
  config (strict YAML, the JSON schemas with their defaults, the cross-field checks), called once by
  ``workflow/rules/common.smk`` so that a bad config fails before any job;
* :func:`script_log` — the one way a script job logs: ``stderr`` and a :mod:`logging` logger go to the
  job's ``log:`` file, an exception's traceback is written there before the file is closed, and
  numba's thread count follows the rule's ``threads``;
* :func:`atomic_write` and :func:`write_json` — outputs appear complete or not at all (a job killed
  half-way leaves no truncated file for Snakemake to mistake for a result);
* :class:`InputError` — bad input, as everywhere in agreekit.

A script job reads (``snakemake`` is the object Snakemake injects)::

    from agreekit.pipeline import script_log, write_json

    with script_log(snakemake, numba_threads=True) as log:
        from agreekit.ranking.tablegen.generation import exact_stage   # after the log is set up
        log.info("exact moments of %s", snakemake.wildcards.sid)
        write_json(snakemake.output[0], exact_stage(snakemake.params.settings))
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agreekit._io import atomic_write, logged_stderr, write_json
from agreekit._validation import InputError

if TYPE_CHECKING:  # loaded on first use (they import every area): see __getattr__
    from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config

__all__ = ["script_log", "atomic_write", "write_json", "InputError", "PipelineConfigError", "check_pipeline_config"]

#: the names that load the config checks (and with them every area) on first access
_LAZY = {"PipelineConfigError": "agreekit._pipeline_config", "check_pipeline_config": "agreekit._pipeline_config"}

#: the format of every job log line
LOG_FORMAT = "%(asctime)s %(message)s"


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'agreekit.pipeline' has no attribute {name!r}")


@contextlib.contextmanager
def script_log(snakemake: Any, *, numba_threads: bool = False) -> Iterator[logging.Logger]:
    """The log of a Snakemake ``script:`` job, for the block.

    Parameters
    ----------
    snakemake : snakemake.script.Snakemake
        The object Snakemake injects into the script; its ``log[0]`` is the log file.
    numba_threads : bool, optional
        Set numba's thread count to the rule's ``threads`` (at most numba's maximum): Snakemake sets
        ``OMP_NUM_THREADS`` and friends for a job but not numba's.

    Yields
    ------
    logging.Logger
        The logger ``agreekit.pipeline``, writing ``LOG_FORMAT`` lines to the log file; ``sys.stderr``
        (warnings, progress bars, ``print(..., file=sys.stderr)``) goes to the same file. On an
        exception its traceback is written to the log before it is closed, and the exception goes on
        (Snakemake shows it and fails the job).
    """
    logger = logging.getLogger("agreekit.pipeline")
    with logged_stderr(snakemake.log[0]) as fh:
        handler = logging.StreamHandler(fh)
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        try:
            if numba_threads:
                import numba

                numba.set_num_threads(max(1, min(int(snakemake.threads), numba.config.NUMBA_NUM_THREADS)))
            yield logger
        finally:
            handler.flush()
            logger.removeHandler(handler)
