"""Benchmark: the first call of every CLI subcommand in a fresh install (empty numba cache).

Each subcommand runs on a small input in a new interpreter with ``NUMBA_CACHE_DIR`` set to a new
empty folder, so every numba kernel the call needs is compiled (nothing else is cached), then a
second time with that folder kept (the cached path). Reference in the same run: ``python -c "import
agreekit"`` (interpreter start-up + import). Reported per subcommand: wall seconds and CPU seconds
(user + sys of the child; less sensitive to other load on the machine), first and cached call.
Target (issue 13): first call <= 2 s wall on a quiet machine. Small work runs the kernels' own
Python source (or their numpy versions) instead of compiling them (``agreekit._jit``); a second
table, not part of the target, shows first calls whose work is large enough to compile.

Run: ``.venv/bin/python benchmarks/bench_first_call.py`` (writes benchmarks/output/bench_first_call.json).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_first_call.json"
AGREEKIT = [sys.executable, "-m", "agreekit"]
SC = "resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv"
R = "resources/bootstrap/robust03_top100"
T = "resources/bootstrap/trec_topic_by_run_scores"


def _inputs(d: Path) -> dict[str, list[str]]:
    (d / "p44.csv").write_text("a,b,c,d\n1,2,3,4\n2,1,3,4\n1,3,2,4\n4,3,2,1\n")
    (d / "x.txt").write_text("1\n2\n3\n4\n5\n")
    (d / "y.txt").write_text("2\n1\n3\n5\n4\n")
    (d / "u.txt").write_text("0\n0\n0\n1\n1\n1\n")
    (d / "v.txt").write_text("0\n0\n1\n1\n2\n2\n")
    return {
        "moments": ["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", "--n", "6"],
        "correlate": [
            "correlate",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            str(d / "x.txt"),
            str(d / "y.txt"),
        ],
        "standardize": [
            "standardize",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "500",
            "--gamma",
            "-0.12",
        ],
        "table": ["table", "kendall_additive_harmonic"],
        "consensus": ["consensus", str(d / "p44.csv")],
        "clustering": ["clustering", str(d / "u.txt"), str(d / "v.txt"), "-m", "ari", "-m", "nmi_sum"],
        "bootstrap": ["bootstrap", SC, "--resamples", "100", "--seed", "1"],
        "evaluate": [
            "evaluate",
            f"{R}/robust03_qrels.txt.gz",
            f"{R}/runs/input.Sel50.gz",
            "--metric",
            "AveP",
            "--depth",
            "100",
        ],
        "metaeval": [
            "metaeval",
            f"AP={T}/adhoc8_ap.csv",
            f"P@10={T}/adhoc8_p10.csv",
            "--resamples",
            "200",
            "--seed",
            "1",
            "--pvalue-resamples",
            "500",
        ],
    }


def _larger_inputs(d: Path) -> dict[str, list[str]]:
    """Work large enough that the kernels are compiled (reported, not part of the target)."""
    return {
        "moments n=10": [
            "moments",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "10",
        ],
        "consensus 15 items": ["consensus", "resources/consensus/emond_mason.csv"],
        "bootstrap B=2000": ["bootstrap", SC, "--resamples", "2000", "--seed", "1"],
        "metaeval B=1000": [
            "metaeval",
            f"AP={T}/adhoc8_ap.csv",
            f"P@10={T}/adhoc8_p10.csv",
            "--resamples",
            "1000",
            "--seed",
            "1",
            "--pvalue-resamples",
            "500",
        ],
    }


def _run(cmd: list[str], env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    base = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get("NUMBA_NUM_THREADS", "2"))
    rows, larger = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ref = _run([sys.executable, "-c", "import agreekit"], dict(base, NUMBA_CACHE_DIR=str(d / "ref_cache")))
        for table, inputs in ((rows, _inputs(d)), (larger, _larger_inputs(d))):
            if table is larger:
                print("-- larger inputs (kernels compiled; not part of the target):", flush=True)
            for name, args in inputs.items():
                cache = d / f"cache_{name.replace(' ', '_')}"
                cache.mkdir()
                env = dict(base, NUMBA_CACHE_DIR=str(cache))
                first = _run(AGREEKIT + args, env)
                cached = _run(AGREEKIT + args, env)
                table[name] = {
                    "first_wall_s": round(first[0], 2),
                    "first_cpu_s": round(first[1], 2),
                    "cached_wall_s": round(cached[0], 2),
                    "cached_cpu_s": round(cached[1], 2),
                    "kernels_compiled": sorted(p.stem.split("-")[0] for p in cache.rglob("*.nbi")),
                }
                print(
                    f"{name:19s} first {first[0]:6.2f} s wall {first[1]:6.2f} s cpu | cached {cached[0]:5.2f} s "
                    f"wall {cached[1]:5.2f} s cpu | {len(table[name]['kernels_compiled'])} kernels",
                    flush=True,
                )
    out = {
        "benchmark": "first CLI call with an empty NUMBA_CACHE_DIR",
        "target_first_wall_s": 2.0,
        "reference_import_agreekit": {"wall_s": round(ref[0], 2), "cpu_s": round(ref[1], 2)},
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "subcommands": rows,
        "meets_target": all(r["first_wall_s"] <= 2.0 for r in rows.values()),
        "larger_inputs": larger,
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(f"reference `import agreekit`: {ref[0]:.2f} s wall, {ref[1]:.2f} s cpu; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
