"""Benchmark: sequential Monte Carlo p-values and moments computed without a table (issue 24).

1. ``weighted_correlation_test(x, y, weigher="dcg")`` at n = 40 (no shipped table, Monte Carlo):
   sequential (Besag & Clifford, h = 20, at most 100 000 resamples) against the fixed-size run of
   100 000 resamples, in one process, on pairs drawn under H0 (so p ~ uniform).  Quotes the median
   resamples used and the median time per call of each, and their ratio.
2. ``standardize(0.3, weigher="dcg", n=40)``: the first call computes the moments (10⁵ Monte Carlo
   permutations), the second reads them from the in-process cache, a third (memory cleared) from
   the on-disk cache.  Target: second call <= 10 ms (quoted beside the first call's time).
3. The rejection rate of the sequential test under H0 at α = 0.05 and 0.01 (n = 12, 2000 pairs).

Writes ``benchmarks/output/bench_sequential_pvalue.json``.
Run: ``.venv/bin/python benchmarks/bench_sequential_pvalue.py``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main() -> dict:
    tmp = tempfile.mkdtemp(prefix="agreekit-bench-cache-")
    os.environ["AGREEKIT_CACHE_DIR"] = tmp
    from agreekit import weighted_correlation_test
    from agreekit.ranking import _cache
    from agreekit.ranking.tables import standardize

    out: dict = {}
    # -- 2. moments without a table, then from the cache (first: it is the first use of the kernels too)
    t0 = time.perf_counter()
    g1 = standardize(0.3, weigher="dcg", n=40)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    g2 = standardize(0.3, weigher="dcg", n=40)
    second = time.perf_counter() - t0
    _cache._MEMORY.clear()
    t0 = time.perf_counter()
    g3 = standardize(0.3, weigher="dcg", n=40)
    disk = time.perf_counter() - t0
    assert g1 == g2 == g3
    out["standardize_dcg_n40"] = {
        "first_call_s": first,
        "second_call_ms": 1e3 * second,
        "disk_cache_call_ms": 1e3 * disk,
        "target_second_call_ms": 10.0,
        "ok": second <= 0.010,
        "stats": dict(_cache.STATS),
    }

    # -- 1. sequential vs fixed-size at n = 40, dcg
    n, B = 40, 100_000
    x = np.arange(1, n + 1)
    rng = np.random.default_rng(2024)
    ys = [rng.permutation(n) + 1 for _ in range(40)]
    weighted_correlation_test(x, ys[0], weigher="dcg", method="monte-carlo", n_resamples=1000, rng=0)  # warm
    seq_t, seq_used, seq_p = [], [], []
    for k, y in enumerate(ys):
        t0 = time.perf_counter()
        r = weighted_correlation_test(x, y, weigher="dcg", method="monte-carlo", n_resamples=B, rng=k, sequential=True)
        seq_t.append(time.perf_counter() - t0)
        seq_used.append(r.n_resamples_used)
        seq_p.append(r.pvalue)
    fix_t, fix_p = [], []
    for k, y in enumerate(ys[:5]):
        t0 = time.perf_counter()
        r = weighted_correlation_test(x, y, weigher="dcg", method="monte-carlo", n_resamples=B, rng=k, sequential=False)
        fix_t.append(time.perf_counter() - t0)
        fix_p.append(r.pvalue)
    out["dcg_n40"] = {
        "pairs_sequential": len(ys),
        "pairs_fixed": len(fix_t),
        "n_resamples": B,
        "median_resamples_used": float(np.median(seq_used)),
        "max_resamples_used": int(np.max(seq_used)),
        "median_seconds_sequential": float(np.median(seq_t)),
        "median_seconds_fixed": float(np.median(fix_t)),
        "time_ratio_fixed_over_sequential": float(np.median(fix_t) / np.median(seq_t)),
        "pvalues_sequential_first5": [round(p, 4) for p in seq_p[:5]],
        "pvalues_fixed": [round(p, 4) for p in fix_p],
    }

    # -- 3. validity under H0
    reps, m = 2000, 12
    xr = np.arange(1, m + 1)
    rr = np.random.default_rng(7)
    p = np.array(
        [
            weighted_correlation_test(
                xr, rr.permutation(m) + 1, method="monte-carlo", n_resamples=10_000, rng=rr, sequential=True
            ).pvalue
            for _ in range(reps)
        ]
    )
    out["h0_rejection_n12"] = {
        a: {"rate": float(np.mean(p <= a)), "se": math.sqrt(a * (1 - a) / reps)} for a in (0.05, 0.01)
    }
    return out


if __name__ == "__main__":
    res = main()
    dest = ROOT / "benchmarks" / "output" / "bench_sequential_pvalue.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))
