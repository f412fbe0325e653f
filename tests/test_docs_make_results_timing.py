"""benchmarks/record_make_results.py: the times of ``make results`` that the docs quote are parsed from the timed
run's log and ``results/ranking/stage_times.md`` correctly, and a failed or unfinished run is refused.

The logs here are written by the test with figures chosen by the test (the expected record is computed from
those figures, not read back from the script); the commit is ``git rev-parse HEAD`` of a repository the test
creates.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "record_make_results.py"
TIMING = ROOT / "benchmarks" / "output" / "make_results_timing.json"

STAGES = [("exact", 16, 31.4, 3.2), ("sample", 2, 88.0, 47.5), ("quantiles_shipped", 2, 19.3, 10.1)]


def time_block(
    wall: str, user: float, sys_: float, rss_kib: int, status: int = 0, command: str = "make results"
) -> str:
    return (
        f'\tCommand being timed: "{command}"\n\tUser time (seconds): {user:.2f}\n'
        f"\tSystem time (seconds): {sys_:.2f}\n\tPercent of CPU this job got: 91%\n"
        f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {wall}\n\tAverage shared text size (kbytes): 0\n"
        f"\tMaximum resident set size (kbytes): {rss_kib}\n\tSwaps: 0\n\tPage size (bytes): 4096\n"
        f"\tExit status: {status}\n"
    )


def write_log(
    path: Path,
    *,
    wall="20:34.56",
    user=1100.25,
    sys_=80.75,
    rss_kib=431776,
    status=0,
    rc=0,
    steps=(147, 148),
    final=True,
    start=True,
    end=True,
) -> Path:
    text = ""
    if start:
        text += "start 2026-12-02T01:40:21Z load 0.73 1.31 2.03\n"
    text += "python3 -m venv .venv\nBuilding DAG of jobs...\n"
    text += "".join(f"{k} of {steps[1]} steps ({int(100 * k / steps[1])}%) done\n" for k in range(1, steps[0] + 1))
    if final:
        text += f"{steps[1]} of {steps[1]} steps (100%) done\nElapsed time: 0:19:58.959046\n"
    text += time_block(wall, user, sys_, rss_kib, status)
    if end:
        text += f"rc={rc} end 2026-12-02T02:01:00Z load 1.92 2.05 2.11\n"
    path.write_text(text)
    return path


def make_clone(tmp_path: Path, name: str = "qrun9") -> tuple[Path, str]:
    clone = tmp_path / name
    (clone / "results" / "ranking").mkdir(parents=True)
    rows = "".join(f"| {s} | {j} | {t:.1f} | {m:.1f} |\n" for s, j, t, m in STAGES)
    (clone / "results" / "ranking" / "stage_times.md").write_text(
        "# Stage times of the ranking pipeline (Snakemake `benchmark:` files, wall seconds)\n\n"
        "| stage | jobs | total s | max s |\n|---|---|---|---|\n" + rows + "\nSum over stages: 138.7 s of job time\n"
    )
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return clone, head


def record(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=120)


def test_record_of_a_timed_run(tmp_path):
    clone, head = make_clone(tmp_path)
    log = write_log(tmp_path / "run.log")
    out = tmp_path / "timing.json"
    res = record(log, clone / "results", "--out", out)
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    [run] = doc["runs"]
    assert run["label"] == "qrun9" and run["commit"] == head
    assert run["wall_s"] == pytest.approx(20 * 60 + 34.56)
    assert run["wall_min"] == pytest.approx((20 * 60 + 34.56) / 60, abs=1e-3)
    assert (run["user_s"], run["sys_s"]) == (1100.25, 80.75)
    assert run["cpu_min"] == pytest.approx((1100.25 + 80.75) / 60, abs=1e-3)
    assert run["max_rss_mib"] == pytest.approx(431776 / 1024, abs=0.05)
    assert run["load_start"] == [0.73, 1.31, 2.03] and run["load_end"] == [1.92, 2.05, 2.11]
    assert (run["jobs"], run["rc"]) == (148, 0)
    assert run["stage_job_s"] == {s: t for s, _, t, _ in STAGES}
    assert run["stage_jobs"] == {s: j for s, j, _, _ in STAGES}
    assert run["stage_job_total_s"] == 138.7  # the file's own sum (of the unrounded job times)
    assert doc["budget_s"] == 600 and doc["max_wall_s"] == run["wall_s"] and doc["max_wall_label"] == "qrun9"
    assert doc["all_within_budget"] is False  # 1234.56 s > 600 s


def test_hours_in_elapsed_and_a_second_run(tmp_path):
    clone, _ = make_clone(tmp_path)
    out = tmp_path / "timing.json"
    assert record(write_log(tmp_path / "a.log"), clone / "results", "--label", "a", "--out", out).returncode == 0
    first = out.read_bytes()
    assert record(write_log(tmp_path / "a.log"), clone / "results", "--label", "a", "--out", out).returncode == 0
    assert out.read_bytes() == first  # same input, same bytes; the run is replaced
    res = record(
        write_log(tmp_path / "b.log", wall="1:02:03", user=2000, sys_=100),
        clone / "results",
        "--label",
        "b",
        "--out",
        out,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    assert [r["label"] for r in doc["runs"]] == ["a", "b"]
    assert doc["runs"][1]["wall_s"] == 3723.0
    assert doc["max_wall_s"] == 3723.0 and doc["max_wall_label"] == "b"
    assert doc["max_cpu_min"] == pytest.approx(2100 / 60, abs=1e-3)
    # re-recording "b" with a shorter run replaces it and the maximum follows
    assert (
        record(
            write_log(tmp_path / "b.log", wall="9:59.00"), clone / "results", "--label", "b", "--out", out
        ).returncode
        == 0
    )
    doc = json.loads(out.read_text())
    assert len(doc["runs"]) == 2 and doc["max_wall_s"] == 20 * 60 + 34.56 and doc["max_wall_label"] == "a"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(rc=2), "failed"),
        (dict(status=1), "failed"),
        (dict(final=False), "did not finish"),
        (dict(end=False), "still going"),
        (dict(start=False), "first line"),
        (dict(wall="20m"), "elapsed time"),
    ],
)
def test_a_failed_or_unfinished_run_is_refused(tmp_path, kwargs, message):
    clone, _ = make_clone(tmp_path)
    out = tmp_path / "timing.json"
    out.write_text('{"runs": []}\n')
    res = record(write_log(tmp_path / "run.log", **kwargs), clone / "results", "--out", out)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("record_make_results: LOG: ") and message in lines[0], res.stderr
    assert out.read_text() == '{"runs": []}\n'  # untouched


def test_missing_stage_table_and_not_a_clone(tmp_path):
    clone, _ = make_clone(tmp_path)
    log = write_log(tmp_path / "run.log")
    (clone / "results" / "ranking" / "stage_times.md").write_text("# no table\n")
    res = record(log, clone / "results", "--out", tmp_path / "t.json")
    assert res.returncode == 2 and "stage_times.md: no table" in res.stderr
    assert not (tmp_path / "t.json").exists()
    bare = tmp_path / "bare" / "results" / "ranking"
    bare.mkdir(parents=True)
    (bare / "stage_times.md").write_text(
        "| stage | jobs | total s | max s |\n|---|---|---|---|\n| exact | 1 | 1.0 | 1.0 |\n"
    )
    res = record(log, bare.parent, "--out", tmp_path / "t.json")
    assert (
        res.returncode == 2 and res.stderr.startswith("record_make_results: --clone: ") and res.stderr.count("\n") == 1
    ), res.stderr
    assert not (tmp_path / "t.json").exists()


def test_stage_table_header_is_the_pipelines():
    """The parser reads the table that workflow/scripts/ranking_stage_times.py writes."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import record_make_results as rmr
    finally:
        sys.path.remove(str(SCRIPT.parent))
    adapter = (ROOT / "workflow" / "scripts" / "ranking_stage_times.py").read_text()
    assert f'"{rmr.STAGE_HEADER}"' in adapter


def test_committed_timing_file_is_consistent():
    if not TIMING.is_file():
        pytest.skip("benchmarks/output/make_results_timing.json not recorded yet (the lead records both runs)")
    doc = json.loads(TIMING.read_text())
    assert len(doc["runs"]) >= 2, "the docs quote two timed runs"
    for run in doc["runs"]:
        assert run["rc"] == 0 and run["jobs"] > 0 and len(run["commit"]) == 40
        assert run["cpu_min"] == pytest.approx((run["user_s"] + run["sys_s"]) / 60, abs=1e-3)
        assert run["wall_min"] == pytest.approx(run["wall_s"] / 60, abs=1e-3)
    assert doc["max_wall_s"] == max(r["wall_s"] for r in doc["runs"])
    assert doc["all_within_budget"] == all(r["wall_s"] <= doc["budget_s"] for r in doc["runs"])
