"""Record one timed ``make results`` run in ``benchmarks/output/make_results_timing.json`` (issue 22).

The docs quote the time of ``make results`` from that file (``{bench}`make_results_timing.json:...```), so
the figures are the ones measured, never typed.  A run is timed in a fresh clone as::

    cd CLONE && { echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"; \\
                  /usr/bin/time -v make results; \\
                  echo "rc=$? end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"; } > LOG 2>&1

and recorded with::

    python benchmarks/record_make_results.py LOG CLONE/results [--label NAME]

What is read:

* LOG, first line ``start <UTC time> load <1 5 15 min>`` and last line ``rc=<status> end <UTC time> load ...``;
* LOG, the ``/usr/bin/time -v`` block of ``make results``: elapsed wall clock, user and system CPU seconds,
  maximum resident set size, exit status;
* LOG, Snakemake's last ``N of N steps (100%) done`` (the number of jobs of the run);
* ``RESULTS_DIR/ranking/stage_times.md`` (written by ``workflow/scripts/ranking_stage_times.py``): total
  job seconds per stage of the ranking pipeline and their sum;
* ``git rev-parse HEAD`` of the clone (the parent of RESULTS_DIR, or ``--clone``).

The run's record (keyed by ``--label``, default the clone's directory name) is appended to the runs of the
output file, or replaces the record of the same label; ``max_wall_s`` / ``max_wall_min`` / ``max_cpu_min``
are recomputed over all runs.  A failed run (``rc`` not 0, no 100 % line, exit status not 0) is refused:
it is not a timing of ``make results``.  Bad input: one line on stderr, exit status 2, the output file
untouched.  Same inputs, same bytes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "make_results_timing.json"
BUDGET_S = 600  # make results within 10 min on 2 cores (a quiet machine)
MAX_LOG_BYTES = 64 * 2**20

START_RE = re.compile(r"^start (\S+) load (\S+) (\S+) (\S+)\s*$")
END_RE = re.compile(r"^rc=(-?\d+) end (\S+) load (\S+) (\S+) (\S+)\s*$")
STEPS_RE = re.compile(r"^(\d+) of (\d+) steps \(100%\) done\s*$")
TIME_FIELDS = {
    "command": re.compile(r'^\s*Command being timed: "(.*)"\s*$'),
    "user_s": re.compile(r"^\s*User time \(seconds\): (\S+)\s*$"),
    "sys_s": re.compile(r"^\s*System time \(seconds\): (\S+)\s*$"),
    "elapsed": re.compile(r"^\s*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)\s*$"),
    "max_rss_kib": re.compile(r"^\s*Maximum resident set size \(kbytes\): (\d+)\s*$"),
    "exit_status": re.compile(r"^\s*Exit status: (-?\d+)\s*$"),
}
STAGE_HEADER = "| stage | jobs | total s | max s |"


class RecordError(ValueError):
    """Bad input: ``what`` names the argument or file at fault."""

    def __init__(self, what: str, message: str):
        super().__init__(f"{what}: {message}")


def _float(what: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RecordError(what, f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise RecordError(what, f"{text!r} is not a finite non-negative number")
    return value


def parse_elapsed(text: str, what: str = "LOG") -> float:
    """``/usr/bin/time``'s elapsed wall clock, ``h:mm:ss`` or ``m:ss.ss``, in seconds."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise RecordError(what, f"elapsed time {text!r} is not h:mm:ss or m:ss")
    seconds = 0.0
    for p in parts:
        seconds = 60 * seconds + _float(what, p)
    return seconds


def parse_timed_log(text: str, what: str = "LOG"):
    """(non-blank lines, start match, end match, fields of the last ``/usr/bin/time -v`` block) of a timed log
    (first line ``start ...``, last line ``rc=... end ...``); shared with record_make_test.py."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise RecordError(what, "empty")
    start = START_RE.match(lines[0])
    if not start:
        raise RecordError(what, f"first line is not 'start <time> load <l1> <l5> <l15>': {lines[0][:80]!r}")
    end = END_RE.match(lines[-1])
    if not end:
        raise RecordError(what, "last line is not 'rc=<status> end <time> load ...' (is the run still going?)")
    found: dict = {}
    for ln in lines:
        for key, rx in TIME_FIELDS.items():
            m = rx.match(ln)
            if m:
                found[key] = m.group(1)  # the last block wins: that of the outer `make`
    missing = [k for k in TIME_FIELDS if k not in found]
    if missing:
        raise RecordError(what, f"no /usr/bin/time -v block (missing {', '.join(missing)})")
    return lines, start, end, found


def parse_log(text: str, what: str = "LOG") -> dict:
    """The figures of a timed ``make results`` log (see the module docstring); raises :class:`RecordError`."""
    lines, start, end, found = parse_timed_log(text, what)
    if "make results" not in found["command"]:
        raise RecordError(what, f"timed command is {found['command']!r}, not make results")
    steps = [STEPS_RE.match(ln) for ln in lines]
    steps = [m for m in steps if m]
    rc = int(end.group(1))
    status = int(found["exit_status"])
    if rc != 0 or status != 0:
        raise RecordError(what, f"make results failed (rc={rc}, exit status {status}): not a timing")
    if not steps:
        raise RecordError(what, "no Snakemake 'N of N steps (100%) done' line: the run did not finish")
    done, total = int(steps[-1].group(1)), int(steps[-1].group(2))
    if done != total:
        raise RecordError(what, f"last 100% line says {done} of {total} steps")
    user_s = _float(what, found["user_s"])
    sys_s = _float(what, found["sys_s"])
    wall_s = parse_elapsed(found["elapsed"], what)
    return {
        "start": start.group(1),
        "end": end.group(2),
        "load_start": [_float(what, x) for x in start.groups()[1:]],
        "load_end": [_float(what, x) for x in end.groups()[2:]],
        "rc": rc,
        "jobs": total,
        "wall_s": round(wall_s, 2),
        "wall_min": round(wall_s / 60, 3),
        "user_s": round(user_s, 2),
        "sys_s": round(sys_s, 2),
        "cpu_min": round((user_s + sys_s) / 60, 3),
        "max_rss_mib": round(int(found["max_rss_kib"]) / 1024, 1),
    }


def parse_stage_times(text: str, what: str = "stage_times.md") -> dict:
    """``{stage: {"jobs", "total_s", "max_s"}}`` from the table of ``results/ranking/stage_times.md``."""
    lines = text.splitlines()
    try:
        i = next(k for k, ln in enumerate(lines) if ln.strip() == STAGE_HEADER)
    except StopIteration:
        raise RecordError(what, f"no table with header {STAGE_HEADER!r}") from None
    out: dict = {}
    for ln in lines[i + 2 :]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) != 4:
            raise RecordError(what, f"row {ln!r} has {len(cells)} cells, not 4")
        stage, jobs, total, mx = cells
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", stage) or stage in out:
            raise RecordError(what, f"bad or repeated stage name {stage!r}")
        if not jobs.isdigit():
            raise RecordError(what, f"stage {stage}: jobs {jobs!r} is not a count")
        out[stage] = {"jobs": int(jobs), "total_s": _float(what, total), "max_s": _float(what, mx)}
    if not out:
        raise RecordError(what, "the stage table has no rows")
    return out


def parse_stage_sum(text: str, stages: dict, what: str = "stage_times.md") -> float:
    """The file's own ``Sum over stages: X s`` (the sum of the unrounded job times), else the rows' sum."""
    m = re.search(r"^Sum over stages: (\S+) s\b", text, re.M)
    return _float(what, m.group(1)) if m else round(sum(v["total_s"] for v in stages.values()), 1)


def git_head(clone: Path) -> str:
    try:
        res = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError as exc:
        raise RecordError("--clone", f"cannot run git ({exc})") from None
    head = res.stdout.strip()
    if res.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}", head):
        raise RecordError("--clone", f"{clone} is not a git checkout ({res.stderr.strip()[:100]})")
    return head


def _read(path: Path, what: str) -> str:
    if not path.is_file():
        raise RecordError(what, f"{path}: no such file")
    if path.stat().st_size > MAX_LOG_BYTES:
        raise RecordError(what, f"{path}: larger than {MAX_LOG_BYTES // 2**20} MiB")
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RecordError(what, f"{path}: {exc.strerror}") from None


def build_record(log: Path, results: Path, *, label: str | None = None, clone: Path | None = None) -> dict:
    """The run record of ``log`` and ``results`` (see the module docstring)."""
    if not results.is_dir():
        raise RecordError("RESULTS_DIR", f"{results}: not a directory")
    clone = results.resolve().parent if clone is None else clone
    label = clone.resolve().name if label is None else label
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", label):
        raise RecordError("--label", f"{label!r}: use letters, digits, '_', '.', '-' (it is a key of the docs)")
    run = parse_log(_read(log, "LOG"), "LOG")
    stage_file = results / "ranking" / "stage_times.md"
    stage_text = _read(stage_file, "RESULTS_DIR")
    stages = parse_stage_times(stage_text, str(stage_file))
    return {
        "label": label,
        "commit": git_head(clone),
        **run,
        "stage_job_s": {s: v["total_s"] for s, v in stages.items()},
        "stage_jobs": {s: v["jobs"] for s, v in stages.items()},
        "stage_job_total_s": parse_stage_sum(stage_text, stages, str(stage_file)),
    }


def merge(document: dict | None, record: dict, *, budget_s: float = BUDGET_S) -> dict:
    """``document`` with ``record`` appended (or replacing the run of the same label) and the maxima updated."""
    runs = [] if document is None else [r for r in document.get("runs", [])]
    for k, r in enumerate(runs):
        if r.get("label") == record["label"]:
            runs[k] = record
            break
    else:
        runs.append(record)
    worst = max(runs, key=lambda r: r["wall_s"])
    return {
        "description": "timed fresh-clone `make results` runs (/usr/bin/time -v), written by "
        "benchmarks/record_make_results.py; stage_job_s: results/ranking/stage_times.md "
        "(job wall seconds per ranking stage)",
        "budget_s": budget_s,
        "runs": runs,
        "max_wall_s": worst["wall_s"],
        "max_wall_min": round(worst["wall_s"] / 60, 3),
        "max_wall_label": worst["label"],
        "max_cpu_min": max(r["cpu_min"] for r in runs),
        "max_rss_mib": max(r["max_rss_mib"] for r in runs),
        "all_within_budget": all(r["wall_s"] <= budget_s for r in runs),
    }


def _load(out: Path) -> dict | None:
    if not out.exists():
        return None
    try:
        doc = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordError("--out", f"{out}: not readable JSON ({exc})") from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("runs"), list)
        or not all(isinstance(r, dict) and "label" in r and "wall_s" in r for r in doc["runs"])
    ):
        raise RecordError("--out", f"{out}: not a make_results_timing document")
    return doc


def write_atomic(out: Path, document: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", metavar="LOG", type=Path, help="log of the timed run")
    ap.add_argument("results", metavar="RESULTS_DIR", type=Path, help="the clone's results/ directory")
    ap.add_argument("--label", help="name of the run in the file (default: the clone's directory name)")
    ap.add_argument("--clone", type=Path, help="the clone (default: the parent of RESULTS_DIR)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"output JSON (default {OUT.relative_to(ROOT)})")
    ap.error = lambda message: (print(f"record_make_results: {message}", file=sys.stderr), sys.exit(2))
    args = ap.parse_args(argv)
    try:
        record = build_record(args.log, args.results, label=args.label, clone=args.clone)
        document = merge(_load(args.out), record)
        write_atomic(args.out, document)
    except RecordError as exc:
        print(f"record_make_results: {exc}", file=sys.stderr)
        return 2
    print(
        f"{args.out}: run {record['label']!r} ({record['commit'][:9]}): {record['wall_s']:.0f} s wall, "
        f"{record['cpu_min']:.1f} CPU-min, {record['jobs']} jobs; max wall {document['max_wall_s']:.0f} s "
        f"(budget {document['budget_s']} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
