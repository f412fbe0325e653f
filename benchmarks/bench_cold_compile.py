"""Benchmark: the cold first call of ``lfr_benchmark(1000)`` and of Kemeny QUICK on 1000 items.

Each call runs in a new interpreter with ``NUMBA_CACHE_DIR`` set to a new empty folder, so every
numba kernel it needs is compiled (a fresh install), then once more in another interpreter with
that folder kept (the cached path). Reference in the same run: ``python -c "import agreekit"``
(interpreter start-up + import). Reported per call: wall and CPU seconds of the call itself
(``time.process_time`` of the child, all threads) and of the whole child (rusage: start-up,
import, call), the number of kernels numba cached, and whether the one-line compile notice
(``agreekit: compiling ...``) was printed on stderr (it must be, cold, and must not be, cached).

Calls: ``lfr_benchmark(1000, rng=1)`` with its documented defaults (mu 0.1, average degree 20,
degrees up to 50, communities of 20-100 nodes); ``kemeny(X, method="quick")`` on five random
permutations of 1000 items (the profile of ``benchmarks/bench_consensus.py``).

Target (the issue on first calls): each cold first call within a few seconds (<= 5 s) on this
two-core machine; wall time depends on the other load (``load_average`` is recorded), CPU time
much less. ``--src DIR`` runs the children on another source tree (e.g. an export of an older
commit, to compare before/after under the same load) and writes ``bench_cold_compile_src.json``.

Measured on this machine (load 2, two cores), before and after the first-call work, both trees in
one session (``--src`` on an export of the earlier commit): ``lfr_benchmark(1000)`` first call
13.1 s wall / 13.0 s CPU before, 5.7 s / 5.7 s after; QUICK on 1000 items 6.5 s / 6.6 s before,
3.1 s / 3.1 s after; cached calls 0.25-0.5 s; ``import agreekit`` 0.1 s. A second round (quiet machine:
membership assignment and edge deletion interpreted on small inputs, a cheaper ``rebuild_group``) took
``lfr_benchmark(1000)`` from 5.3 s to 3.5 s (19 compiled kernels to 13). The current figures are in
the output file (quoted by the clustering and consensus guides).

Run: ``.venv/bin/python benchmarks/bench_cold_compile.py`` (writes benchmarks/output/bench_cold_compile.json).
"""

from __future__ import annotations

import argparse
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
OUT = ROOT / "benchmarks" / "output" / "bench_cold_compile.json"
TARGET_S = 5.0

_CHILD = """
import json, time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
import agreekit
{setup}
t1, c1 = time.perf_counter(), time.process_time()
{call}
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps(dict(import_wall=t1 - t0, import_cpu=c1 - c0, call_wall=t2 - t1, call_cpu=c2 - c1, check=check)))
"""

CALLS = {
    "lfr_benchmark_1000": (
        "from agreekit.clustering import lfr_benchmark",
        "g = lfr_benchmark(1000, rng=1); check = int(g.edges.shape[0])",
    ),
    "kemeny_quick_1000": (
        "from agreekit.consensus import kemeny\n"
        "X = np.array([np.random.default_rng([1000, i]).permutation(1000) + 1 for i in range(5)])",
        'r = kemeny(X, method="quick"); check = round(float(r.average_tau_x), 12)',
    ),
}


def _run(cmd: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed:\n{r.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r


def _child(name: str, env: dict) -> dict:
    setup, call = CALLS[name]
    wall, cpu, r = _run([sys.executable, "-c", _CHILD.format(setup=setup, call=call)], env)
    inner = json.loads(r.stdout.strip().splitlines()[-1])
    notice = [line for line in r.stderr.splitlines() if line.startswith("agreekit: compiling")]
    return {
        "call_wall_s": round(inner["call_wall"], 2),
        "call_cpu_s": round(inner["call_cpu"], 2),
        "process_wall_s": round(wall, 2),
        "process_cpu_s": round(cpu, 2),
        "notice": notice[0] if notice else None,
        "check": inner["check"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", help="source tree whose agreekit the children import (default: the installed one)")
    opts = ap.parse_args()
    base = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get("NUMBA_NUM_THREADS", "2"))
    base.pop("AGREEKIT_QUIET", None)
    if opts.src:
        base["PYTHONPATH"] = str(Path(opts.src).resolve())
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ref_wall, ref_cpu, _ = _run(
            [sys.executable, "-c", "import agreekit"], dict(base, NUMBA_CACHE_DIR=str(d / "ref"))
        )
        for name in CALLS:
            cache = d / name
            cache.mkdir()
            env = dict(base, NUMBA_CACHE_DIR=str(cache))
            first = _child(name, env)
            kernels = sorted({p.name[:-4].rsplit(".", 1)[0].rsplit("-", 1)[0] for p in cache.rglob("*.nbi")})
            cached = _child(name, env)
            if first["check"] != cached["check"]:
                raise SystemExit(f"{name}: cold and cached calls differ ({first['check']} != {cached['check']})")
            rows[name] = {
                "first": first,
                "cached": cached,
                "kernels_compiled": kernels,
                "meets_target_cpu": first["call_cpu_s"] <= TARGET_S,
                "meets_target_wall": first["call_wall_s"] <= TARGET_S,
            }
            print(
                f"{name:20s} first call {first['call_wall_s']:6.2f} s wall {first['call_cpu_s']:6.2f} s cpu "
                f"(process {first['process_wall_s']:.2f} / {first['process_cpu_s']:.2f}) | cached call "
                f"{cached['call_wall_s']:5.2f} s wall {cached['call_cpu_s']:5.2f} s cpu | {len(kernels)} kernels | "
                f"notice: {first['notice']!r} / cached {cached['notice']!r}",
                flush=True,
            )
    out = {
        "benchmark": "cold first call (empty NUMBA_CACHE_DIR) of lfr_benchmark(1000) and kemeny QUICK on 1000 items",
        "target_first_call_s": TARGET_S,
        "reference_import_agreekit": {"wall_s": round(ref_wall, 2), "cpu_s": round(ref_cpu, 2)},
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "source": opts.src or "installed",
        "calls": rows,
    }
    path = OUT if not opts.src else OUT.with_name("bench_cold_compile_src.json")
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"reference `import agreekit`: {ref_wall:.2f} s wall, {ref_cpu:.2f} s cpu; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
