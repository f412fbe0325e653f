"""Benchmark: Monte Carlo sampling throughput of the table pipeline — fused shared-stream kernel vs today's.

Measured in one process, one numba thread for both (ratios, not absolute timings, are the result):

* **today's kernel** (``agreekit.ranking.tablegen.sampling.sample_coefficient``): PCG64 uniforms ->
  Fisher–Yates into a permutation matrix -> ``batch_coefficient``, one scheme per pass;
* **fused kernel** (``agreekit.ranking.tablegen.sampling.sample_lanes``): per-row SplitMix64 +
  Fisher–Yates + the coefficient of all 8 paper schemes of one coefficient on each permutation, as
  one 8-lane vector (both schemes of the four weighers) per item.

Cases: Spearman n = 36119, Kendall n = 2620 and n = 36119.  The figure of merit is ns per permutation
element *and scheme* (several schemes on one permutation count as several); target >= 4x today's
throughput.  Also: pure-numpy / scipy references (the speed-up over what a user would write), and the
default config's training and validation work (row-elements) with the time it implies.

Writes ``benchmarks/output/bench_ranking_sampling.json``.  Run: ``.venv/bin/python benchmarks/bench_ranking_sampling.py``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numba
import numpy as np
from scipy import stats

from agreekit.ranking.tablegen.sampling import sample_coefficient, sample_lanes, seed_sequence, stream_key
from agreekit.ranking.weighting import parse_weigher

ROOT = Path(__file__).resolve().parents[1]
WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"]
LANES = [(w, s) for s in ("additive", "multiplicative") for w in WEIGHERS]


def ref_kendall_scipy(rng, n, k, f):
    """scipy.stats.weightedtau with a lookup weigher (the O(n log n) reference of the notes), one scheme."""
    ident = np.arange(1, n + 1)
    rank = np.arange(n)
    out = np.empty(k)
    for r in range(k):
        p = rng.permutation(n) + 1
        w = f[:n] + f[p - 1]
        out[r] = stats.weightedtau(-ident, -p, rank=rank, weigher=lambda i: w[i], additive=False).statistic
    return out


def ref_spearman_numpy(rng, n, k, f):
    ident = np.arange(1, n + 1, dtype=float)
    out = np.empty(k)
    for r in range(k):
        p = rng.permutation(n) + 1
        w = f[:n] + f[p - 1]
        mx = np.sum(w * ident) / w.sum()
        my = np.sum(w * p) / w.sum()
        dx, dy = ident - mx, p - my
        out[r] = np.sum(w * dx * dy) / np.sqrt(np.sum(w * dx * dx) * np.sum(w * dy * dy))
    return out


def best_of(fn, repeats=3):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    numba.set_num_threads(1)
    load = os.getloadavg()
    res = {"numba_threads": 1, "cpu_count": os.cpu_count(), "loadavg_before": load, "cases": []}
    for coef, n, k_today, k_fused, k_ref, ref in (
        ("spearman", 36119, 300, 300, 20, ref_spearman_numpy),
        ("kendall", 2620, 1500, 1500, 40, ref_kendall_scipy),
        ("kendall", 36119, 60, 60, 3, ref_kendall_scipy),
    ):
        # today's kernel: one scheme per pass, all 8 schemes
        def today():
            for w, s in LANES:
                rng = np.random.Generator(np.random.PCG64(seed_sequence(1, f"bench/{w}/{s}", n)))
                sample_coefficient(coef, n=n, size=k_today, weigher=w, scheme=s, rng=rng)

        def fused():
            sample_lanes(coef, n=n, sizes=[k_fused] * 8, lanes=LANES, key=stream_key(1, coef, n, "bench"))

        sample_coefficient(
            coef, n=n, size=2, weigher="harmonic", scheme="additive", rng=np.random.default_rng(0)
        )  # JIT warm-up
        sample_lanes(coef, n=n, sizes=[2] * 8, lanes=LANES, key=stream_key(1, coef, n, "bench"))
        t_today = best_of(today)
        t_fused = best_of(fused)
        f = parse_weigher("harmonic").table(n)
        t_ref = best_of(lambda: ref(np.random.default_rng(2), n, k_ref, f), repeats=1)
        ns_today = t_today / (8 * k_today * n) * 1e9
        ns_fused = t_fused / (8 * k_fused * n) * 1e9
        ns_ref = t_ref / (k_ref * n) * 1e9
        case = {
            "coefficient": coef,
            "n": n,
            "schemes_per_permutation": 8,
            "today_ns_per_element_and_scheme": ns_today,
            "fused_ns_per_element_and_scheme": ns_fused,
            "throughput_ratio_fused_vs_today": ns_today / ns_fused,
            "reference": ref.__name__,
            "reference_ns_per_element_and_scheme": ns_ref,
            "throughput_ratio_fused_vs_reference": ns_ref / ns_fused,
        }
        res["cases"].append(case)
        print(
            f"{coef:8s} n={n:6d}: today {ns_today:6.2f} ns, fused {ns_fused:6.2f} ns per element and scheme "
            f"-> {ns_today / ns_fused:5.2f}x  ({ref.__name__}: {ns_ref:8.1f} ns, {ns_ref / ns_fused:6.0f}x)"
        )
    res["loadavg_after"] = os.getloadavg()
    print(f"load average before/after: {load[0]:.2f} / {res['loadavg_after'][0]:.2f} on {os.cpu_count()} cores")
    out = ROOT / "benchmarks" / "output" / "bench_ranking_sampling.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
