"""benchmarks/record_make_test.py: the `make test` times the docs quote are parsed from the timed log (figures
chosen here, the expected record computed from them), and a failed or unfinished run is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_docs_make_results_timing import make_clone, time_block

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "record_make_test.py"
TIMING = ROOT / "benchmarks" / "output" / "make_test_timing.json"


def write_log(
    path: Path,
    *,
    summary="3250 passed, 3 skipped, 22 warnings in 478.31s (0:07:58)",
    wall="8:41.20",
    user=1010.5,
    sys_=90.25,
    status=0,
    rc=0,
    command="make test",
) -> Path:
    text = "start 2026-12-02T06:50:00Z load 0.20 0.50 1.00\npython3 -m venv .venv\n........ [100%]\n"
    text += (summary + "\n") if summary else ""
    text += time_block(wall, user, sys_, 800000, status, command=command)
    text += f"rc={rc} end 2026-12-02T06:59:00Z load 2.10 2.00 1.50\n"
    path.write_text(text)
    return path


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_record_reads_the_figures(tmp_path):
    clone, head = make_clone(tmp_path, "trun1")
    out = tmp_path / "t.json"
    # `make test` runs pytest twice (the doctests, then tests/): both summaries are summed
    two = "147 passed in 50.00s\n3103 passed, 3 skipped, 22 warnings in 428.31s (0:07:08)"
    r = _run(write_log(tmp_path / "a.log", summary=two), "--clone", clone, "--out", out)
    assert r.returncode == 0, r.stderr
    run = json.loads(out.read_text())["runs"][0]
    assert run["commit"] == head and run["label"] == "trun1"
    assert (run["passed"], run["skipped"], run["pytest_s"]) == (3250, 3, 478.31)
    assert run["wall_s"] == pytest.approx(8 * 60 + 41.2) and run["cpu_min"] == pytest.approx(
        (1010.5 + 90.25) / 60, abs=1e-3
    )
    assert json.loads(out.read_text())["all_within_budget"] is True


@pytest.mark.parametrize(
    "kw,needle",
    [
        ({"summary": "1 failed, 3249 passed in 500.00s"}, "failed"),
        ({"summary": None}, "no pytest summary"),
        ({"rc": 2, "status": 2}, "rc=2"),
        ({"command": "make results"}, "not make test"),
        ({"command": "make test-slow"}, "not make test"),  # the other target is recorded with --target test-slow
    ],
)
def test_failed_or_foreign_runs_are_refused(tmp_path, kw, needle):
    clone, _ = make_clone(tmp_path, "trun2")
    out = tmp_path / "t.json"
    r = _run(write_log(tmp_path / "b.log", **kw), "--clone", clone, "--out", out)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


def test_shipped_record_holds_successful_runs():
    doc = json.loads(TIMING.read_text())
    assert doc["runs"] and all(r["passed"] > 3000 and r["pytest_s"] <= r["wall_s"] for r in doc["runs"])


def test_the_slow_target_goes_to_its_own_file_without_the_budget(tmp_path):
    clone, _ = make_clone(tmp_path, "trun3")
    out = tmp_path / "slow.json"
    log = write_log(tmp_path / "c.log", summary="41 passed in 300.50s", command="make test-slow")
    assert _run(log, "--clone", clone, "--out", out).returncode == 2  # not `make test`
    r = _run(log, "--clone", clone, "--out", out, "--target", "test-slow")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert "budget_s" not in doc and "all_within_budget" not in doc and "make test-slow" in doc["description"]
    assert (doc["runs"][0]["passed"], doc["runs"][0]["pytest_s"]) == (41, 300.5)
