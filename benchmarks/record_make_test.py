"""Record one timed ``make test`` run in ``benchmarks/output/make_test_timing.json`` (issue 21).

The docs quote the time of ``make test`` from that file (``{bench}`make_test_timing.json:...```), never typed.
A run is timed in a fresh clone with the local SLURM cluster up (as ``.ci/run`` runs it)::

    cd CLONE && bash tests/slurm/start.sh && \\
    { echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"; \\
      AGREEKIT_REQUIRE_SLURM=1 /usr/bin/time -v make test; \\
      echo "rc=$? end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"; } > LOG 2>&1

and recorded with ``python benchmarks/record_make_test.py LOG --clone CLONE [--label NAME]``; a timed
``make test-slow`` (the ``slow`` tests ``make test`` leaves out) with ``--target test-slow``, into
``make_test_slow_timing.json``.

What is read from LOG: the first line ``start <UTC time> load <1 5 15 min>``, the last line
``rc=<status> end ...``, the ``/usr/bin/time -v`` block of ``make test`` (wall clock including the venv on a
fresh clone, user and system CPU seconds of everything below ``make``; SLURM jobs run under slurmd and are not
in it) and pytest's summary lines (``N passed, M skipped, ... in S s``; ``make test`` runs pytest twice, the doctests
then ``tests/``: counts and seconds are summed).  A run
with failures or errors, or without the summary, is refused.  Bad input: one line on stderr, exit status 2,
the output file untouched.  Same inputs, same bytes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_make_results import (  # noqa: E402  (the shared parsing of a timed log)
    RecordError,
    _float,
    _read,
    git_head,
    parse_elapsed,
    parse_timed_log,
    write_atomic,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "make_test_timing.json"
BUDGET_S = 540  # issue 21: `make test` not slower than on 676197c (9 min on 2 cores)
SUMMARY_RE = re.compile(r"^=*\s*(?P<counts>(?:\d+ \w+(?:, )?)+) in (?P<secs>[0-9.]+)s\b")


#: the two test targets: `make test` (all but the `slow` tests; the budget applies) and `make test-slow`
TARGETS = ("test", "test-slow")


def parse_log(text: str, what: str = "LOG", target: str = "test") -> dict:
    lines, start, end, found = parse_timed_log(text, what)
    if found["command"].strip() != f"make {target}":
        raise RecordError(what, f"timed command is {found['command']!r}, not make {target}")
    summaries = [m for m in map(SUMMARY_RE.match, lines) if m]
    if not summaries:
        raise RecordError(what, "no pytest summary line ('N passed ... in S s')")
    counts: dict = {}  # `make test` runs pytest twice (the doctests, then tests/): the sums of both
    for m in summaries:
        for n, w in re.findall(r"(\d+) (\w+)", m.group("counts")):
            counts[w] = counts.get(w, 0) + int(n)
    rc, status = int(end.group(1)), int(found["exit_status"])
    bad = {k: counts[k] for k in ("failed", "error", "errors") if counts.get(k)}
    if rc != 0 or status != 0 or bad:
        raise RecordError(what, f"make test failed (rc={rc}, exit status {status}, {bad}): not a timing")
    user_s, sys_s = _float(what, found["user_s"]), _float(what, found["sys_s"])
    wall_s = parse_elapsed(found["elapsed"], what)
    pytest_s = sum(_float(what, m.group("secs")) for m in summaries)
    return {
        "start": start.group(1),
        "end": end.group(2),
        "load_start": [_float(what, x) for x in start.groups()[1:]],
        "load_end": [_float(what, x) for x in end.groups()[2:]],
        "passed": counts.get("passed", 0),
        "skipped": counts.get("skipped", 0),
        "pytest_s": round(pytest_s, 2),
        "pytest_min": round(pytest_s / 60, 3),
        "wall_s": round(wall_s, 2),
        "wall_min": round(wall_s / 60, 3),
        "user_s": round(user_s, 2),
        "sys_s": round(sys_s, 2),
        "cpu_min": round((user_s + sys_s) / 60, 3),
    }


def merge(document: dict | None, record: dict, target: str = "test") -> dict:
    runs = [r for r in (document or {}).get("runs", []) if r.get("label") != record["label"]] + [record]
    worst = max(runs, key=lambda r: r["wall_s"])
    doc = {
        "description": f"timed fresh-clone `make {target}` runs with the local SLURM cluster up "
        "(/usr/bin/time -v; pytest_s: pytest's own summary), written by "
        "benchmarks/record_make_test.py"
    }
    if target == "test":  # the budget is for `make test`
        doc["budget_s"] = BUDGET_S
    doc.update(
        runs=runs,
        max_wall_s=worst["wall_s"],
        max_wall_label=worst["label"],
        max_pytest_s=max(r["pytest_s"] for r in runs),
    )
    if target == "test":
        doc["all_within_budget"] = all(r["wall_s"] <= BUDGET_S for r in runs)
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--clone", type=Path, required=True, help="the clone the run was timed in (its commit)")
    ap.add_argument("--label", help="key of the run (default: the clone's directory name)")
    ap.add_argument(
        "--target",
        choices=TARGETS,
        default="test",
        help="the timed make target (default: test; test-slow: its own --out file)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="default: benchmarks/output/make_test_timing.json (make_test_slow_timing.json for test-slow)",
    )
    a = ap.parse_args(argv)
    if a.out is None:
        a.out = OUT if a.target == "test" else OUT.with_name("make_test_slow_timing.json")
    try:
        label = a.label or a.clone.resolve().name
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", label):
            raise RecordError("--label", f"{label!r}: use letters, digits, '_', '.', '-'")
        record = {"label": label, "commit": git_head(a.clone), **parse_log(_read(a.log, "LOG"), "LOG", a.target)}
        import json

        doc = json.loads(a.out.read_text(encoding="utf-8")) if a.out.exists() else None
        write_atomic(a.out, merge(doc, record, a.target))
    except (RecordError, ValueError) as exc:
        print(f"record_make_test: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{a.out}: {label} {record['wall_s']:.0f} s wall, pytest {record['pytest_s']:.0f} s, {record['passed']} passed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
