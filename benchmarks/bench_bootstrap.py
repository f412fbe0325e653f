"""Benchmark: full all-pairs bootstrap analysis of one metric vs a straightforward per-pair numpy loop.

Data: TREC-7 ad hoc AP, first 100 runs (4,950 pairs), 50 topics, B = 1000, alpha = 0.05.
Analyses: paired + unpaired tests (ASL per pair -> discriminative power), required difference,
stability (20 fuzziness values), swap rates (21 bins).  Both implementations get the same
resample matrices; the benchmark checks that they agree, then reports the timings and the ratio.

Run: ``.venv/bin/python benchmarks/bench_bootstrap.py`` (writes benchmarks/output/bench_bootstrap.json).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from agreekit.ireval.bootstrap import DEFAULT_FUZZINESS, bootstrap_indices, meta_evaluate
from agreekit.ireval.metrics import load_scores
from agreekit._jit import warm

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_bootstrap.json"
B, ALPHA, SEED, N_RUNS = 1000, 0.05, 2006, 100


def naive(X, idx, idx_swap, idx_pool, k):
    """Per-pair loop, literal Figs. 2, 4-6, 9 and 11 on gathered values."""
    n, s = X.shape
    f = np.asarray(DEFAULT_FUZZINESS)
    asl_p, asl_u, diff_p, diff_u = [], [], [], []
    mr = np.zeros(f.size)
    pt = np.zeros(f.size)
    counter = np.zeros(21, np.int64)
    swaps = np.zeros(21, np.int64)
    for a in range(s):
        for c in range(a + 1, s):
            x, y = X[:, a], X[:, c]
            # paired (Figs. 1, 2, 5)
            z = x - y
            if np.ptp(z) == 0:
                t, w = (0.0 if z[0] == 0 else np.inf), np.zeros(n)
            else:
                t, w = z.mean() / (z.std(ddof=1) / np.sqrt(n)), z - z.mean()
            ws = w[idx]
            m = ws.mean(axis=1)
            sd = ws.std(axis=1, ddof=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                ts = np.abs(m / (sd / np.sqrt(n)))
            ts = np.where(sd <= 1e-5 * np.sqrt((ws**2).mean(axis=1)), np.where((ws == 0).all(axis=1), 0.0, np.inf), ts)
            asl_p.append(np.mean(ts >= abs(t) * (1 - 1e-12)))
            diff_p.append(abs(m[np.argsort(-ts, kind="stable")[k - 1]]) if np.ptp(z) > 0 else np.nan)
            # unpaired (Figs. 3, 4, 6)
            v = np.concatenate([x, y])[idx_pool]
            d = np.abs(v[:, :n].mean(axis=1) - v[:, n:].mean(axis=1))
            asl_u.append(np.mean(d >= abs(x.mean() - y.mean()) * (1 - 1e-12)))
            diff_u.append(np.sort(d)[::-1][k - 1])
            # stability (Fig. 9)
            mx, my = X[idx, a].mean(axis=1), X[idx, c].mean(axis=1)
            dd = mx - my
            dd = np.where(np.abs(dd) <= 1e-12 * np.maximum(np.abs(mx), np.abs(my)), 0.0, dd)  # ties
            for i, ff in enumerate(f):
                eq = (np.abs(dd) < ff * np.maximum(mx, my) * (1 - 1e-9)) | (dd == 0)
                gt = np.sum(~eq & (dd > 0))
                lt = np.sum(~eq & (dd < 0))
                mr[i] += min(gt, lt)
                pt[i] += eq.sum()
            # swap (Fig. 11)
            m2x, m2y = X[idx_swap, a].mean(axis=1), X[idx_swap, c].mean(axis=1)
            d2 = np.where(np.abs(m2x - m2y) <= 1e-12 * np.maximum(np.abs(m2x), np.abs(m2y)), 0.0, m2x - m2y)
            bins = np.minimum(np.floor(np.round(np.abs(dd) / 0.01, 9)).astype(int), 20)
            counter += np.bincount(bins, minlength=21)
            swaps += np.bincount(bins[dd * d2 <= 0], minlength=21)
    P = s * (s - 1) // 2
    return (
        np.array(asl_p),
        np.array(asl_u),
        np.nanmax(diff_p),
        np.max(diff_u),
        mr / (B * P),
        pt / (B * P),
        counter,
        swaps,
    )


def main() -> None:
    X = load_scores(ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores" / "adhoc7_ap.csv")
    X = X.iloc[:, :N_RUNS]
    n, s = X.shape
    ss = np.random.SeedSequence(SEED)
    idx = bootstrap_indices(n, n_resamples=B, rng=ss, stream=0)
    idx_swap = bootstrap_indices(n, n_resamples=B, rng=ss, stream=1)
    idx_pool = bootstrap_indices(2 * n, n_resamples=B, rng=ss, stream=2)

    warm(lambda: meta_evaluate(X.iloc[:, :4], rng=1, n_resamples=B))  # compile / load the numba kernels
    fast_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        ev = meta_evaluate(X, alpha=ALPHA, n_resamples=B, rng=ss)
        fast_times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    ref = naive(X.to_numpy(), idx, idx_swap, idx_pool, int(B * ALPHA))
    naive_time = time.perf_counter() - t0

    asl_p, asl_u, est_p, est_u, mr, pt, counter, swaps = ref
    agree = {
        "paired_asl_equal": bool(np.array_equal(asl_p, ev.paired.asl)),
        "unpaired_asl_equal": bool(np.array_equal(asl_u, ev.unpaired.asl)),
        "paired_estimated_difference_close": bool(np.isclose(est_p, ev.paired.estimated_difference)),
        "unpaired_estimated_difference_close": bool(np.isclose(est_u, ev.unpaired.estimated_difference)),
        "stability_close": bool(
            np.allclose(mr, ev.stability.minority_rate) and np.allclose(pt, ev.stability.proportion_of_ties)
        ),
        "swap_counters_equal": bool(
            np.array_equal(counter, ev.swap.bins["comparisons"]) and np.array_equal(swaps, ev.swap.bins["swaps"])
        ),
    }
    fast = float(np.median(fast_times))
    result = {
        "benchmark": "bootstrap all-pairs analysis, one metric (paired + unpaired tests, power, required "
        "difference, stability, swap)",
        "data": f"adhoc7_ap.csv, first {s} runs, {n} topics, {s * (s - 1) // 2} pairs",
        "n_resamples": B,
        "alpha": ALPHA,
        "fast_seconds_runs": [round(t, 3) for t in fast_times],
        "fast_seconds_median": round(fast, 3),
        "naive_per_pair_numpy_seconds": round(naive_time, 3),
        "speedup_naive_over_fast": round(naive_time / fast, 1),
        "target_seconds": 2.0,
        "meets_target": fast <= 2.0,
        "agreement": agree,
        "paired_power": ev.paired.proportion,
        "unpaired_power": ev.unpaired.proportion,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if not all(agree.values()):
        raise SystemExit("fast and naive implementations disagree")


if __name__ == "__main__":
    main()
