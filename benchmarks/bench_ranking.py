"""Benchmarks for the weighted rank correlations and exact moments (issue: foundation).

Run: ``make bench`` (all benchmarks) or ``.venv/bin/python benchmarks/bench_ranking.py``.
Writes ``benchmarks/output/bench_ranking.txt``.  Every speed claim is a ratio against a
reference measured in the same process:

* weighted_kendall (O(n log n), numba) vs scipy.stats.weightedtau with a lookup weigher and
  additive=False (the same coefficient), and vs the O(n^2) definition (numba-compiled, so the
  ratio isolates the algorithm, not the language);
* exact enumeration of all n! permutations: wall and CPU time for the 16 paper configurations
  at n = 3..10, and one configuration per coefficient at n = 10, 11, 12.

The machine's load average is recorded: other jobs on a 2-core machine inflate wall times.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np
from scipy import stats

from agreekit import exact_moments, weighted_kendall
from agreekit.ranking._kernels import kendall_weighted_quadratic
from agreekit.ranking.weighting import parse_weigher
from agreekit._jit import warm

OUT = Path(__file__).parent / "output" / "bench_ranking.txt"
QUICK = "--quick" in sys.argv  # smaller sizes for a smoke run


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def kendall_section(lines):
    lines.append("## weighted_kendall vs scipy.stats.weightedtau(additive=False) and the O(n^2) definition")
    lines.append("harmonic weigher, additive scheme, random permutations; best-of-k wall times")
    lines.append(
        f"{'n':>8} {'ours [ms]':>10} {'scipy [ms]':>11} {'O(n^2) [ms]':>12} "
        f"{'x scipy':>8} {'x O(n^2)':>9} {'|diff| max':>10}"
    )
    rng = np.random.default_rng(2024)
    f = parse_weigher("harmonic")
    warm(lambda: weighted_kendall([1, 2, 3], [3, 1, 2]))  # compile
    sizes = [1000, 10000] if QUICK else [1000, 10000, 36119, 100000]
    for n in sizes:
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        w = f(x) + f(y)
        rep = 20 if n <= 10000 else 5
        t_ours = best_of(lambda: weighted_kendall(x, y), rep)
        ours = weighted_kendall(x, y)
        t_scipy = best_of(lambda: stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False), 3)
        ref = stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False)[0]
        t_quad = best_of(lambda: kendall_weighted_quadratic(x, y, w), 1 if n >= 36119 else 3)
        quad = kendall_weighted_quadratic(x, y, w)
        diff = max(abs(ours - ref), abs(ours - quad))
        lines.append(
            f"{n:>8} {t_ours * 1e3:>10.3f} {t_scipy * 1e3:>11.2f} {t_quad * 1e3:>12.2f} "
            f"{t_scipy / t_ours:>8.1f} {t_quad / t_ours:>9.1f} {diff:>10.1e}"
        )
    lines.append("")


CONFIGS = [
    (c, s, w)
    for c in ("spearman", "kendall")
    for s in ("additive", "multiplicative")
    for w in ("harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2")
]


def exact_section(lines):
    lines.append(f"## exact enumeration (numba threads: {numba.get_num_threads()})")
    for c in ("spearman", "kendall"):
        warm(lambda: exact_moments(c, n=5, weigher="harmonic", scheme="additive"))  # compile
    t_wall = time.perf_counter()
    t_cpu = time.process_time()
    for c, s, w in CONFIGS:
        for n in range(3, 11):
            exact_moments(c, n=n, weigher=w, scheme=s, progress=False)
    lines.append(
        f"all 16 paper configurations, n = 3..10: wall {time.perf_counter() - t_wall:.2f} s, "
        f"CPU {time.process_time() - t_cpu:.2f} s (target: <= 5 s wall on 2 cores)"
    )
    top = 11 if QUICK else 12
    lines.append(
        f"{'coefficient':>12} {'n':>3} {'n!':>12} {'wall [s]':>9} {'CPU [s]':>8} "
        f"{'ns/perm (CPU)':>14}  mean, var, left_var (harmonic, additive)"
    )
    for c in ("spearman", "kendall"):
        for n in range(10, top + 1):
            t_wall = time.perf_counter()
            t_cpu = time.process_time()
            m = exact_moments(c, n=n, weigher="harmonic", scheme="additive", progress=False)
            wall = time.perf_counter() - t_wall
            cpu = time.process_time() - t_cpu
            per = cpu / math.factorial(n) * 1e9
            lines.append(
                f"{c:>12} {n:>3} {math.factorial(n):>12} {wall:>9.2f} {cpu:>8.2f} {per:>14.1f}  "
                f"{m.mean:.10f}, {m.var:.10f}, {m.left_var:.10f}"
            )
    lines.append("")


def main():
    lines = [
        f"# bench_ranking ({time.strftime('%Y-%m-%d %H:%M:%S')}, numpy {np.__version__}, "
        f"numba {numba.__version__}, cores {os.cpu_count()}, load average before "
        f"{os.getloadavg()[0]:.2f})",
        "",
    ]
    kendall_section(lines)
    exact_section(lines)
    lines.append(f"load average after: {os.getloadavg()[0]:.2f}")
    text = "\n".join(lines) + "\n"
    print(text)
    if not QUICK:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(text)


if __name__ == "__main__":
    main()
