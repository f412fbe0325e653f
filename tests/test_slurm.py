"""The SLURM profile on a real (single-node) SLURM cluster: the quick configs of all four areas
(config/quick.yaml) through `--profile profiles/slurm` give byte-identical outputs to a local
`--cores 2` run.

The cluster comes from `bash tests/slurm/start.sh` (as root; `.ci/run` starts and stops it and runs this
test, one of the `slow` ones of tests/conftest.py, in `make test-slow`). Without a
running cluster the test is skipped and says so. Files that record wall-clock times (Snakemake
benchmark files, stage times, the solvers' elapsed seconds) cannot be byte-identical; they are
compared with those time fields removed (see `_TIMED`)."""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_quiet_console import third_party_lines
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slurm


def _cluster_state() -> str | None:
    """None if a SLURM node is up and usable, else the reason it is not."""
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return "SLURM not installed (run `bash tests/slurm/start.sh` as root; .ci/run does)"
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        return "snakemake-executor-plugin-slurm not installed (`make venv` installs it)"
    try:
        r = subprocess.run(["sinfo", "-h", "-N", "-o", "%t"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sinfo failed ({exc}): SLURM cluster not up; run `bash tests/slurm/start.sh`"
    states = r.stdout.split()
    if r.returncode != 0 or not any(s.rstrip("*~#") in ("idle", "mix", "alloc") for s in states):
        return (
            f"SLURM cluster not up (sinfo: {(r.stdout + r.stderr).strip()[:200]!r}); "
            "run `bash tests/slurm/start.sh` (as root) first"
        )
    return None


# files that hold wall-clock times: (glob, how to strip the times before comparing)
_TIMED = {
    "ranking/benchmarks/*.tsv": "skip",  # Snakemake `benchmark:` (seconds, memory)
    "ranking/stage_times.md": "skip",  # summary of those
    "consensus/datasets/*.json": "json",  # "elapsed"
    "consensus/datasets.csv": "csv",  # "seconds"
    "consensus/datasets.md": "md",  # seconds column
    "consensus/simulation/cells/*.csv": "csv",  # per-profile solver seconds
    "consensus/simulation/profiles.csv": "csv",
    "consensus/simulation/times.csv": "skip",  # a summary of solver seconds only
    "consensus/simulation/times_boxplot.png": "skip",  # a plot of those seconds
}
_TIME_KEYS = re.compile(r"(elapsed|seconds|time|_s)$", re.I)


def _strip_times(rel: str, data: bytes, how: str):
    if how == "json":
        obj = json.loads(data)

        def drop(o):
            if isinstance(o, dict):
                return {k: drop(v) for k, v in o.items() if not _TIME_KEYS.search(k)}
            if isinstance(o, list):
                return [drop(v) for v in o]
            return o

        return drop(obj)
    if how == "csv":
        rows = list(csv.DictReader(io.StringIO(data.decode())))
        return [{k: v for k, v in row.items() if not _TIME_KEYS.search(k or "")} for row in rows]
    if how == "md":
        lines = data.decode().splitlines()
        head = next((ln for ln in lines if ln.startswith("|")), "")
        cols = [c.strip() for c in head.strip("|").split("|")]
        keep = [i for i, c in enumerate(cols) if not _TIME_KEYS.search(c)]
        return [
            [c for i, c in enumerate(ln.strip("|").split("|")) if i in keep] if ln.startswith("|") else ln
            for ln in lines
        ]
    return None


def _how(rel: str) -> str | None:
    for pattern, how in _TIMED.items():
        if fnmatch.fnmatchcase(rel, pattern):  # `*` also matches "/" here
            return how
    return None


def _workdir(path: Path) -> Path:
    path.mkdir(parents=True)
    for name in ("config", "resources"):
        (path / name).symlink_to(ROOT / name)
    return path


def _snakemake(wd: Path, *extra: str) -> list[str]:
    return snakemake_cmd(
        wd,
        "--configfile",
        "config/quick.yaml",
        "--cores",
        "2",
        *extra,
    )


def _files(res: Path) -> dict[str, Path]:
    return {str(p.relative_to(res)): p for p in sorted(res.rglob("*")) if p.is_file()}


def test_quick_configs_on_slurm_match_local_run(tmp_path):
    reason = _cluster_state()
    if reason:
        if os.environ.get("AGREEKIT_REQUIRE_SLURM"):  # set by .ci/run: there a missing cluster is an error
            pytest.fail(reason)
        pytest.skip(reason)
    local, slurm = _workdir(tmp_path / "local"), _workdir(tmp_path / "slurm")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    # the SLURM run polls the scheduler most of the time: start it first, run the local one meanwhile
    t0 = time.perf_counter()
    sl = subprocess.Popen(
        _snakemake(
            slurm,
            "--profile",
            str(ROOT / "profiles" / "slurm"),
            "--slurm-no-account",
            "--slurm-logdir",
            str(tmp_path / "slurm_logs"),
        ),
        cwd=slurm,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lr = subprocess.run(_snakemake(local), cwd=local, env=env, capture_output=True, text=True, timeout=1800)
    t_local = time.perf_counter() - t0
    try:
        out, _ = sl.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        sl.kill()
        out, _ = sl.communicate()
        pytest.fail(f"SLURM run did not finish in 30 min:\n{out[-4000:]}")
    t_slurm = time.perf_counter() - t0
    assert lr.returncode == 0, f"local run failed:\n{lr.stdout[-2000:]}\n{lr.stderr[-4000:]}"
    # `make results`' console on the quick configs: no third-party notes (cdlib's, warnings, font notes)
    assert third_party_lines(lr.stdout + lr.stderr) == [], "third-party lines on the local run's console"
    assert sl.returncode == 0, f"SLURM run failed:\n{out[-6000:]}"
    assert "SLURM jobid" in out, "jobs were not submitted to SLURM:\n" + out[-3000:]
    n_sbatch = len(set(re.findall(r"SLURM jobid (\d+)", out)))
    print(
        f"\nquick configs, all four areas: local --cores 2 {t_local:.0f} s, SLURM (concurrently) "
        f"{t_slurm:.0f} s wall, {n_sbatch} SLURM jobs"
    )

    a, b = _files(local / "results"), _files(slurm / "results")
    assert sorted(a) == sorted(b), (
        f"different outputs: only local {sorted(set(a) - set(b))}, only SLURM {sorted(set(b) - set(a))}"
    )
    assert len(a) > 100  # every area wrote its tables and figures
    for area in ("ranking", "consensus", "clustering", "bootstrap"):
        assert any(k.startswith(area + "/") for k in a), area  # results/<area>/ of every area
    assert any(k.startswith("tables/") for k in a)  # the regenerated coefficient tables
    differ = []
    for rel in a:
        da, db = a[rel].read_bytes(), b[rel].read_bytes()
        if da == db:
            continue
        how = _how(rel)
        if how == "skip" or (how and _strip_times(rel, da, how) == _strip_times(rel, db, how)):
            continue
        differ.append(rel)
    assert not differ, f"outputs differ between SLURM and local runs: {differ}"
