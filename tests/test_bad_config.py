"""Invalid pipeline configs fail at parse time, before any job (issue 14 §3).

Each case is a Snakemake dry run (``-n``) of the default target with one override file: it must
exit non-zero, name the config key, and create no ``results/``.  The real configs must still pass.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(tmp_path: Path, override: dict | None, configfile: str = "config/config.yaml"):
    for name in ("config", "resources"):
        (tmp_path / name).symlink_to(ROOT / name)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
           "-n", "--cores", "1", "--configfile", configfile]
    if override is not None:
        (tmp_path / "extra.yaml").write_text(override if isinstance(override, str) else yaml.safe_dump(override))
        cmd.append("extra.yaml")
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize("override,needles", [
    # a misspelt top-level section used to pass validation silently
    ({"rankng": {"n_exact": 5}}, ["'rankng' was unexpected"]),
    # B * alpha must be an integer (1000 * 0.0333 = 33.3)
    ({"bootstrap": {"alpha": 1.5}}, ["bootstrap.alpha", "must be < 1.0"]),
    # a repeated weigher key planned 78 jobs
    ({"ranking": {"schemes": [{"coefficient": "spearman", "scheme": "additive", "weigher": "power:p=1,p=2"}]}},
     ["ranking.schemes[0].weigher", "given twice"]),
    # a missing required weigher parameter
    ({"ranking": {"schemes": [{"coefficient": "spearman", "scheme": "additive", "weigher": "power"}]}},
     ["ranking.schemes[0].weigher", "needs parameter"]),
    # issue 23: values that passed validation and failed only at job time, and unsafe YAML
    ("seed: 1\nseed: 2\n", ["extra.yaml", "line 2: key 'seed' is given twice"]),
    ("a: &a [lol, lol]\nb: &b [*a, *a]\nc: &c [*b, *b]\n", ["extra.yaml", "YAML aliases"]),
    ("__use_yte__: true\nseed: 3\n", ["'__use_yte__' is not allowed"]),
    ({"metaeval": {"exclude": ["no_such_collection"]}}, ["metaeval.exclude", "no_such_collection"]),
    ({"metaeval": {"weigher": "power:p=-1e5"}}, ["metaeval.weigher", "power:p=-1e5"]),
    ({"clustering": {"lfr": {"n": 10**12}}}, ["1000000000000 is greater than the maximum of 1000000"]),
    ({"clustering": {"lfr": {"min_community": 60, "max_community": 20}}}, ["clustering.lfr.min_community"]),
    ({"consensus": {"simulation": {"theta": [float("inf")]}}}, ["inf is greater than the maximum"]),
    ({"bootstrap": {"robust03": {"metrics": [{"name": "AP", "measure": "../x"}, {"name": "P", "measure": "P@10"}]}}},
     ["bootstrap.robust03.metrics[0].measure", "'../x'"]),
    ({"ranking": {"sample_size": {"spearman": [{"size": 10**15}], "kendall": [{"size": 2000}]}}},
     ["ranking.sample_size.spearman[0].size", "7.1 PiB"]),
], ids=["unknown-top-level-key", "alpha-times-B-not-integer", "weigher-repeated-key", "weigher-missing-p",
        "duplicate-key", "billion-laughs", "use-yte", "exclude-unknown", "metaeval-weigher", "lfr-n-huge",
        "lfr-min-gt-max", "theta-inf", "measure-path", "sample-size-memory"])
def test_invalid_config_fails_before_any_job(tmp_path, override, needles):
    r = _dry_run(tmp_path, override)
    text = r.stdout + r.stderr
    assert r.returncode != 0, text[-2000:]
    for needle in needles:
        assert needle in text, (needle, text[-3000:])
    assert "Job stats" not in text  # nothing was planned
    assert not (tmp_path / "results").exists()


def test_shipped_configs_still_validate(tmp_path):
    r = _dry_run(tmp_path, None, "config/quick.yaml")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
