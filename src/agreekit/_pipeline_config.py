"""Parse-time checks of the pipeline config.

Every check the workflow runs on its config before any job lives here, in one function the
``Snakefile`` calls (``workflow/rules/common.smk``) and the tests call in-process: the strict
reading of every config file, the JSON schemas (``config/config.schema.yaml`` and the per-stage
``config/<stage>.schema.yaml``, defaults filled in as the rules expect them) and the cross-field
and computed checks no schema can express.  The library never imports the workflow; the JSON
schemas are validated with :func:`snakemake.utils.validate` (the ``workflow`` extra), so that a
schema error reads exactly as Snakemake words it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, MutableMapping

import numpy as np

from agreekit._io import load_config_yaml
from agreekit._jit import forced
from agreekit._memory import check_memory
from agreekit._validation import InputError
from agreekit.ireval.bootstrap import critical_rank
from agreekit.ireval.metrics import parse_metric
from agreekit.ranking.correlation import weighted_correlation
from agreekit.ranking.tablegen.generation import check_ranking_config, schemes_from_config

__all__ = ["PipelineConfigError", "check_pipeline_config", "merged_pipeline_config"]

# the stage sections validated against config/<stage>.schema.yaml, in the order the Snakefile includes them
_STAGE_SCHEMAS = ("consensus", "clustering", "bootstrap", "metaeval")


class PipelineConfigError(InputError):
    """An invalid pipeline config; the workflow reports it as ``invalid config: <text>``.

    Parameters
    ----------
    parameter : str
        The config key (or file) at fault.
    message : str
        What is wrong with it.
    text : str, optional
        The whole text of the error when it is not ```parameter` message``.

    Examples
    --------
    >>> err = PipelineConfigError("seed", "must be >= 0")
    >>> print(err.parameter, "|", err)
    seed | `seed` must be >= 0
    """

    def __init__(self, parameter: str, message: str, text: str | None = None):
        super().__init__(parameter, message)
        self.text = text
        if text is not None:
            self.args = (text,)

    def __str__(self) -> str:
        return self.args[0]

    def __reduce__(self):
        return (type(self), (self.parameter, self.message, self.text))


def _from(exc: InputError) -> PipelineConfigError:
    return PipelineConfigError(exc.parameter, exc.message, str(exc))


def merged_pipeline_config(
    configfiles: Iterable[str | os.PathLike], *, workflow_configfile: str | os.PathLike | None = "config/config.yaml"
) -> dict:
    """The config as ``snakemake --configfile A B ...`` builds it (without running Snakemake).

    Snakemake 9 deep-updates (:func:`snakemake.utils.update_config`) an empty dict with each
    ``--configfile`` in turn, then the ``configfile:`` of the ``Snakefile`` with that result.

    Parameters
    ----------
    configfiles : iterable of path-like
        The ``--configfile`` files, in order.
    workflow_configfile : path-like or None, optional
        The ``configfile:`` of the ``Snakefile`` (skipped when None or absent, as Snakemake does
        when ``--configfile`` is given).

    Returns
    -------
    dict
        The merged config (not validated: see :func:`check_pipeline_config`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.yaml").write_text("seed: 1\\nx: {a: 1, b: [1, 2]}\\n")
    >>> _ = (d / "b.yaml").write_text("x: {b: [3]}\\n")
    >>> merged_pipeline_config([d / "b.yaml"], workflow_configfile=d / "a.yaml")
    {'seed': 1, 'x': {'a': 1, 'b': [3]}}
    """
    # snakemake (the `workflow` extra) only when called: the module imports without it
    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config

    overwrite: dict = {}
    for f in configfiles:
        update_config(overwrite, load_configfile(os.fspath(f)))
    config: dict = {}
    if workflow_configfile is not None and os.path.exists(workflow_configfile):
        update_config(config, load_configfile(os.fspath(workflow_configfile)))
    update_config(config, overwrite)
    return config


def check_pipeline_config(
    config: MutableMapping,
    configfiles: Iterable[str | os.PathLike],
    schema: str | os.PathLike,
    *,
    defaults_only: bool = False,
) -> None:
    """Check a pipeline config before any job; fill in the schema defaults in place.

    In this order: every config file read strictly (a key given twice, YAML aliases and
    ``__use_yte__`` are errors naming the file and line), the JSON schema ``schema``, the
    cross-field and computed checks (LFR sizes, the meta-evaluation weigher, IR measures, excluded
    collections, sample sizes against the memory budget, ``bootstrap.alpha`` against
    ``bootstrap.n_resamples``, the ranking grid and schemes), then the stage schemas
    ``<stage>.schema.yaml`` next to ``schema``.

    Parameters
    ----------
    config : dict
        The merged config (e.g. Snakemake's ``config``, or :func:`merged_pipeline_config`);
        defaults of the schemas are set in it.
    configfiles : iterable of path-like
        The config files it was merged from (each read again, strictly).
    schema : path-like
        ``config/config.schema.yaml``.
    defaults_only : bool, default False
        Only validate against the schemas and fill in their defaults: for the jobs Snakemake runs in
        a process of their own (``--mode remote``, e.g. every SLURM job, or ``subprocess``), whose
        main process has checked the same config files; the strict re-reading of the files and the
        cross-field and computed checks are skipped there.

    Returns
    -------
    None
        The config is valid (and completed with the schema defaults).

    Raises
    ------
    PipelineConfigError
        Naming the config key or file; the workflow reports ``invalid config: <error>``.
    snakemake.exceptions.WorkflowError
        A schema violation, as :func:`snakemake.utils.validate` words it.

    Examples
    --------
    >>> from pathlib import Path
    >>> import agreekit
    >>> root = Path(agreekit.__file__).parents[2]
    >>> if (root / "config" / "config.schema.yaml").is_file():  # a source checkout
    ...     cfg = merged_pipeline_config([], workflow_configfile=root / "config" / "config.yaml")
    ...     cfg["clustering"]["lfr"].update(min_community=60, max_community=20)
    ...     try:
    ...         check_pipeline_config(cfg, [root / "config" / "config.yaml"], root / "config" / "config.schema.yaml")
    ...     except PipelineConfigError as exc:
    ...         print(exc)
    ... else:
    ...     print("`clustering.lfr.min_community` (60) must be <= clustering.lfr.max_community (20)")
    `clustering.lfr.min_community` (60) must be <= clustering.lfr.max_community (20)
    """
    from snakemake.utils import validate  # the `workflow` extra, only when called

    # Note that Snakemake has already loaded the files: a `__use_yte__` template has run by now;
    # configs are trusted input (README), this check only keeps such a file from being used.
    if not defaults_only:
        for f in dict.fromkeys(os.fspath(f) for f in configfiles):
            try:
                load_config_yaml(f, parameter="configfile")
            except InputError as exc:
                raise _from(exc) from None
    schema = os.path.abspath(schema)
    validate(config, schema)
    if not defaults_only:
        try:
            _check_config_values(config)
            _check_bootstrap(config)
            _check_ranking(config)
        except PipelineConfigError:
            raise
        except InputError as exc:
            raise _from(exc) from None
    for section in _STAGE_SCHEMAS:
        validate(config[section], os.path.join(os.path.dirname(schema), f"{section}.schema.yaml"))


def _check_config_values(cfg: Mapping) -> None:
    """Cross-field and computed checks no schema can express, before any job."""
    cl = cfg.get("clustering") or {}
    for sec in ("lfr", "lfr_weighted", "lfr_overlapping"):
        c = cl.get(sec)
        if isinstance(c, dict) and {"min_community", "max_community"} <= set(c):
            if c["min_community"] > c["max_community"]:
                raise InputError(
                    f"clustering.{sec}.min_community",
                    f"({c['min_community']}) must be <= clustering.{sec}.max_community ({c['max_community']})",
                )
            if c["max_community"] > c.get("n", c["max_community"]):
                raise InputError(
                    f"clustering.{sec}.max_community",
                    f"({c['max_community']}) must be <= clustering.{sec}.n ({c['n']})",
                )
        if isinstance(c, dict) and {"max_degree", "n"} <= set(c) and c["max_degree"] >= c["n"]:
            raise InputError(f"clustering.{sec}.max_degree", f"({c['max_degree']}) must be < clustering.{sec}.n")
    me = cfg.get("metaeval") or {}
    if "weigher" in me:
        x = np.arange(1, 201, dtype=np.int64)
        try:
            # interpreted kernels (the same bits, see agreekit._jit): loading compiled ones costs ~1 s
            # of numba start-up in every Snakemake parse, 30x this call
            with forced("interpreted"):
                value = weighted_correlation(
                    x, x[::-1].copy(), coefficient="kendall", weigher=me["weigher"], scheme=me.get("scheme", "additive")
                )
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise InputError(
                "metaeval.weigher", f"{me['weigher']!r} is unusable: {str(exc).splitlines()[0][:300]}"
            ) from None
        if not abs(value + 1.0) < 1e-9:
            raise InputError(
                "metaeval.weigher",
                f"{me['weigher']!r} gives tau_w = {value} for reversed rankings of 200 systems (must be -1)",
            )
    bs = cfg.get("bootstrap") or {}
    rb = bs.get("robust03") or {}
    for i, m in enumerate(rb.get("metrics") or []):
        try:
            parse_metric(m["measure"])
        except InputError as exc:
            raise InputError(f"bootstrap.robust03.metrics[{i}].measure", str(exc).split(" ", 1)[1]) from None
    if isinstance(bs.get("score_matrices"), dict):
        sm = bs["score_matrices"]
        # the schema's patterns again, whole-string: JSON-schema's `$` (Python's re.search) lets a final
        # newline through, and these names become file names
        for where, names in (
            ("collections", sm.get("collections") or {}),
            ("labels", sm.get("labels") or {}),
            ("geometric", sm.get("geometric") or []),
        ):
            for name in names:
                if not (isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_]+", name, flags=re.ASCII)):
                    raise InputError(
                        f"bootstrap.score_matrices.{where}",
                        f"name {name!r} does not match "
                        "'^[A-Za-z0-9_]+$' (letters, digits, _: it is part of file names)",
                    )
        for coll, keys in (sm.get("collections") or {}).items():
            for key in keys or ():
                if not (isinstance(key, str) and re.fullmatch(r"[A-Za-z0-9]+", key, flags=re.ASCII)):
                    raise InputError(
                        f"bootstrap.score_matrices.collections.{coll}",
                        f"metric key {key!r} does not match '^[A-Za-z0-9]+$' (it is part of file names)",
                    )
        known = set(bs["score_matrices"].get("collections", {})) | {"robust03"}
        for where, section in (("bootstrap.exclude", bs), ("metaeval.exclude", me)):
            unknown = sorted(set(section.get("exclude") or ()) - known)
            if unknown:
                raise InputError(
                    where, f"names collections that do not exist: {unknown} (collections: {sorted(known)})"
                )
    rk = cfg.get("ranking") or {}

    def _sizes(node, where):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("size", "min_size") and isinstance(v, int) and not isinstance(v, bool):
                    yield f"{where}.{k}", v
                else:
                    yield from _sizes(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from _sizes(v, f"{where}[{i}]")

    for key in ("sample_size", "validation", "quantiles"):
        for where, size in _sizes(rk.get(key), f"ranking.{key}"):
            check_memory(where, 8.0 * size, f"{size} sampled statistics (8 bytes each)", hint="lower the sample size")


def _check_bootstrap(cfg: Mapping) -> None:
    """``bootstrap.n_resamples * bootstrap.alpha`` must be an integer (the rank of the decisive value)."""
    bs = cfg.get("bootstrap")
    if isinstance(bs, dict) and {"alpha", "n_resamples"} <= set(bs):
        B, alpha = bs["n_resamples"], bs["alpha"]
        exact = B * alpha
        if not _is_integer(exact):  # the API rounds down with a warning; a config is refused
            fixes = [f"bootstrap.n_resamples = {_near_multiple(alpha, B)}"]
            a = round(max(1, round(exact)) / B, 6)
            if _is_integer(B * a):
                fixes.insert(0, f"bootstrap.alpha = {a:g}")
            raise PipelineConfigError(
                "bootstrap.alpha",
                "n_resamples * alpha must be an integer",
                f"bootstrap.n_resamples * bootstrap.alpha = {B} * {alpha} = {exact:g} must be an integer "
                f"(the rank of the decisive bootstrap value); e.g. {' or '.join(fixes)}",
            )
        try:
            critical_rank(B, alpha)
        except InputError as exc:
            raise PipelineConfigError(
                "bootstrap.alpha",
                exc.message,
                f"bootstrap.alpha = {bs['alpha']} with bootstrap.n_resamples = {bs['n_resamples']}: {exc}",
            ) from None


def _is_integer(x: float) -> bool:
    """``x`` is an integer up to float rounding (the tolerance of :func:`agreekit.ireval.bootstrap.critical_rank`)."""
    return abs(round(x) - x) <= 1e-9 * max(1.0, abs(x))


def _near_multiple(alpha: float, B: int) -> str:
    """The smallest n_resamples >= B with n_resamples * alpha an integer, or a hint if there is none nearby."""
    for n in range(B, B + 100_000):
        if _is_integer(n * alpha):
            return str(n)
    return "a multiple of 1 / bootstrap.alpha"


def _check_ranking(cfg: Mapping) -> None:
    """The ranking stage's cross-field checks and its schemes (weigher specs, transforms, duplicates)."""
    check_ranking_config(cfg["ranking"])
    schemes_from_config(cfg["ranking"])
