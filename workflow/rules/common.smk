# Shared helpers for every stage: config validation and the list of final targets.
from snakemake.utils import validate

from snakemake.exceptions import WorkflowError

from agreekit._validation import InputError as _InputError


def _config_error(exc):
    return WorkflowError(f"invalid config: {exc}")


# Every config file read strictly first (issue 23): a key given twice, YAML aliases (a "billion
# laughs" file hung the validation) and `__use_yte__` are errors naming the file and line.  Note that
# Snakemake has already loaded the files: a `__use_yte__` template has run by now; configs are
# trusted input (README), this check only keeps such a file from being used.
from agreekit._io import load_config_yaml as _load_config_yaml

for _configfile in dict.fromkeys([*workflow.configfiles, *workflow.overwrite_configfiles]):
    try:
        _load_config_yaml(_configfile, parameter="configfile")
    except _InputError as exc:
        raise _config_error(exc) from None

validate(config, "../../config/config.schema.yaml")


def _check_config_values(cfg):
    """Cross-field and computed checks no schema can express, before any job (issue 23)."""
    from agreekit._memory import check_memory
    from agreekit.ireval.metrics import parse_metric
    from agreekit.ranking.correlation import weighted_correlation

    cl = cfg.get("clustering") or {}
    for sec in ("lfr", "lfr_weighted", "lfr_overlapping"):
        c = cl.get(sec)
        if isinstance(c, dict) and {"min_community", "max_community"} <= set(c):
            if c["min_community"] > c["max_community"]:
                raise _InputError(f"clustering.{sec}.min_community",
                                  f"({c['min_community']}) must be <= clustering.{sec}.max_community "
                                  f"({c['max_community']})")
            if c["max_community"] > c.get("n", c["max_community"]):
                raise _InputError(f"clustering.{sec}.max_community",
                                  f"({c['max_community']}) must be <= clustering.{sec}.n ({c['n']})")
        if isinstance(c, dict) and {"max_degree", "n"} <= set(c) and c["max_degree"] >= c["n"]:
            raise _InputError(f"clustering.{sec}.max_degree", f"({c['max_degree']}) must be < clustering.{sec}.n")
    me = cfg.get("metaeval") or {}
    if "weigher" in me:
        import numpy as _np

        x = _np.arange(1, 201, dtype=_np.int64)
        try:
            value = weighted_correlation(x, x[::-1].copy(), coefficient="kendall", weigher=me["weigher"],
                                         scheme=me.get("scheme", "additive"))
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise _InputError("metaeval.weigher", f"{me['weigher']!r} is unusable: "
                                                  f"{str(exc).splitlines()[0][:300]}") from None
        if not abs(value + 1.0) < 1e-9:
            raise _InputError("metaeval.weigher", f"{me['weigher']!r} gives tau_w = {value} for reversed "
                                                  "rankings of 200 systems (must be -1)")
    bs = cfg.get("bootstrap") or {}
    rb = bs.get("robust03") or {}
    for i, m in enumerate(rb.get("metrics") or []):
        try:
            parse_metric(m["measure"])
        except _InputError as exc:
            raise _InputError(f"bootstrap.robust03.metrics[{i}].measure", str(exc).split(" ", 1)[1]) from None
    if "exclude" in me and isinstance(bs.get("score_matrices"), dict):
        known = set(bs["score_matrices"].get("collections", {})) | {"robust03"}
        unknown = sorted(set(me["exclude"]) - known)
        if unknown:
            raise _InputError("metaeval.exclude", f"names collections that do not exist: {unknown} "
                                                  f"(collections: {sorted(known)})")
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
            check_memory(where, 8.0 * size, f"{size} sampled statistics (8 bytes each)",
                         hint="lower the sample size")


try:
    _check_config_values(config)
except _InputError as exc:
    raise _config_error(exc) from None

# Cross-field checks no schema can express, so that a bad config fails before any job.
# bootstrap: B * alpha must be an integer (the rank k of the decisive bootstrap value).
if isinstance(config.get("bootstrap"), dict) and {"alpha", "n_resamples"} <= set(config["bootstrap"]):
    from agreekit.ireval.bootstrap import critical_rank as _critical_rank

    try:
        _critical_rank(config["bootstrap"]["n_resamples"], config["bootstrap"]["alpha"])
    except _InputError as exc:
        raise WorkflowError(f"invalid config: bootstrap.alpha = {config['bootstrap']['alpha']} with "
                            f"bootstrap.n_resamples = {config['bootstrap']['n_resamples']}: {exc}") from None

# Every rule file appends the outputs `rule all` must build.
FINAL_TARGETS = []

AGREEKIT_ENV = "../envs/agreekit.yaml"
