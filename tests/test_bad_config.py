"""Invalid pipeline configs fail at parse time, before any job (issue 14 §3).

Every parse-time check is :func:`agreekit._pipeline_config.check_pipeline_config`, which the
``Snakefile`` calls (``workflow/rules/common.smk``).  Each bad case is checked in-process on the config
merged as ``snakemake --configfile config/config.yaml extra.yaml`` merges it; real Snakemake dry runs
(``-n``) prove the wiring: a YAML-level error and a schema error exit non-zero naming the key, plan no
job and create no ``results/``; the error text is ``invalid config: `` + the function's message; the
shipped configs pass (issue 21: one dry run per kind of failure instead of one per case).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError

from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config, merged_pipeline_config
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "config" / "config.schema.yaml"


def _workdir(tmp_path: Path, override) -> Path:
    for name in ("config", "resources"):
        (tmp_path / name).symlink_to(ROOT / name)
    if override is not None:
        (tmp_path / "extra.yaml").write_text(override if isinstance(override, str) else yaml.safe_dump(override))
    return tmp_path


def _dry_run(tmp_path: Path, override: dict | str | None, configfile: str = "config/config.yaml"):
    _workdir(tmp_path, override)
    cmd = snakemake_cmd(
        tmp_path,
        "-n",
        "--cores",
        "1",
        "--configfile",
        configfile,
    )
    if override is not None:
        cmd.append("extra.yaml")
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)


def _check(tmp_path: Path, override, configfile: str = "config/config.yaml"):
    """check_pipeline_config on the config as Snakemake merges it; the error raised (None if valid)."""
    _workdir(tmp_path, override)
    files = [tmp_path / configfile] + ([tmp_path / "extra.yaml"] if override is not None else [])
    cfg = merged_pipeline_config(files, workflow_configfile=tmp_path / "config" / "config.yaml")
    try:
        check_pipeline_config(cfg, [tmp_path / "config" / "config.yaml", *files], SCHEMA)
    except (PipelineConfigError, WorkflowError) as exc:
        return exc
    return None


def _assert_fails_before_any_job(tmp_path: Path, r, needles):
    text = r.stdout + r.stderr
    assert r.returncode != 0, text[-2000:]
    for needle in needles:
        assert needle in text, (needle, text[-3000:])
    assert "Job stats" not in text  # nothing was planned
    assert not (tmp_path / "results").exists()
    return text


CASES = [
    # a misspelt top-level section used to pass validation silently
    ({"rankng": {"n_exact": 5}}, ["'rankng' was unexpected"]),
    # B * alpha must be an integer (1000 * 0.0333 = 33.3)
    ({"bootstrap": {"alpha": 1.5}}, ["bootstrap.alpha", "must be < 1.0"]),
    # a repeated weigher key planned 78 jobs
    (
        {"ranking": {"schemes": [{"coefficient": "spearman", "scheme": "additive", "weigher": "power:p=1,p=2"}]}},
        ["ranking.schemes[0].weigher", "given twice"],
    ),
    # a missing required weigher parameter
    (
        {"ranking": {"schemes": [{"coefficient": "spearman", "scheme": "additive", "weigher": "power"}]}},
        ["ranking.schemes[0].weigher", "needs parameter"],
    ),
    # issue 23: values that passed validation and failed only at job time, and unsafe YAML
    ("seed: 1\nseed: 2\n", ["extra.yaml", "line 2: key 'seed' is given twice"]),
    ("a: &a [lol, lol]\nb: &b [*a, *a]\nc: &c [*b, *b]\n", ["extra.yaml", "YAML aliases"]),
    ("__use_yte__: true\nseed: 3\n", ["'__use_yte__' is not allowed"]),
    ({"metaeval": {"exclude": ["no_such_collection"]}}, ["metaeval.exclude", "no_such_collection"]),
    ({"bootstrap": {"exclude": ["adhoc9"]}}, ["bootstrap.exclude", "adhoc9", "adhoc8"]),
    ({"metaeval": {"weigher": "power:p=-1e5"}}, ["metaeval.weigher", "power:p=-1e5"]),
    ({"clustering": {"lfr": {"n": 10**12}}}, ["1000000000000 is greater than the maximum of 1000000"]),
    ({"clustering": {"lfr": {"min_community": 60, "max_community": 20}}}, ["clustering.lfr.min_community"]),
    ({"consensus": {"simulation": {"theta": [float("inf")]}}}, ["inf is greater than the maximum"]),
    (
        {"bootstrap": {"robust03": {"metrics": [{"name": "AP", "measure": "../x"}, {"name": "P", "measure": "P@10"}]}}},
        ["bootstrap.robust03.metrics[0].measure", "'../x'"],
    ),
    (
        {"ranking": {"sample_size": {"spearman": [{"size": 10**15}], "kendall": [{"size": 2000}]}}},
        ["ranking.sample_size.spearman[0].size", "7.1 PiB"],
    ),
]
IDS = [
    "unknown-top-level-key",
    "alpha-times-B-not-integer",
    "weigher-repeated-key",
    "weigher-missing-p",
    "duplicate-key",
    "billion-laughs",
    "use-yte",
    "exclude-unknown",
    "bootstrap-exclude-unknown",
    "metaeval-weigher",
    "lfr-n-huge",
    "lfr-min-gt-max",
    "theta-inf",
    "measure-path",
    "sample-size-memory",
]


@pytest.mark.parametrize("override,needles", CASES, ids=IDS)
def test_invalid_config_fails_before_any_job(tmp_path, override, needles):
    exc = _check(tmp_path, override)
    assert exc is not None, "accepted"
    for needle in needles:
        assert needle in str(exc), (needle, str(exc)[-3000:])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config", "extra.yaml", "resources"]  # no output


def test_dry_run_yaml_error_is_the_function_message(tmp_path):
    """The Snakefile calls check_pipeline_config: its dry run fails with `invalid config: ` + that message."""
    override, needles = CASES[IDS.index("duplicate-key")]
    (tmp_path / "in").mkdir()
    exc = _check(tmp_path / "in", override)
    assert isinstance(exc, PipelineConfigError), exc
    # the message names the file (Snakemake passes it on as an absolute path)
    message = str(exc).replace(str(tmp_path / "in"), str(tmp_path / "run"))
    assert message != str(exc)
    (tmp_path / "run").mkdir()
    text = _assert_fails_before_any_job(tmp_path / "run", _dry_run(tmp_path / "run", override), needles)
    assert f"invalid config: {message}" in text, (message, text[-3000:])


def test_dry_run_schema_error_fails_before_any_job(tmp_path):
    override, needles = CASES[IDS.index("unknown-top-level-key")]
    _assert_fails_before_any_job(tmp_path, _dry_run(tmp_path, override), needles)


@pytest.mark.parametrize("configfile", ["config/config.yaml", "config/quick.yaml", "config/tables.yaml"])
def test_shipped_configs_pass_the_checks(tmp_path, configfile):
    assert _check(tmp_path, None, configfile) is None


def test_shipped_configs_still_validate(tmp_path):
    r = _dry_run(tmp_path, None, "config/quick.yaml")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]


def test_defaults_only_fills_the_same_defaults_and_skips_the_value_checks(tmp_path):
    """A job in a process of its own (`--mode remote`: every SLURM job) re-parses the Snakefile; there
    common.smk passes ``defaults_only=True``: the same defaults as the main process's full check, the
    schemas still enforced, the computed checks (which its main process ran) skipped."""
    quick = ROOT / "config" / "quick.yaml"
    files = [ROOT / "config" / "config.yaml", quick]
    full = merged_pipeline_config([quick], workflow_configfile=files[0])
    check_pipeline_config(full, files, SCHEMA)
    only = merged_pipeline_config([quick], workflow_configfile=files[0])
    del only["bootstrap"]["swap"]["bin_width"]  # a key the schema fills in
    check_pipeline_config(only, files, SCHEMA, defaults_only=True)
    assert only == full
    bad = merged_pipeline_config([quick], workflow_configfile=files[0])
    bad["clustering"]["lfr"].update(min_community=60, max_community=20)  # a computed check
    check_pipeline_config(bad, files, SCHEMA, defaults_only=True)
    with pytest.raises(PipelineConfigError, match="min_community"):
        check_pipeline_config(bad, files, SCHEMA)
    bad["bootstrap"]["n_resamples"] = 5  # the schema (minimum 20) still holds
    with pytest.raises(WorkflowError, match="n_resamples|5 is less than"):
        check_pipeline_config(bad, files, SCHEMA, defaults_only=True)
