"""Benchmark: metric_agreement + consensus_ranking on one collection with 7 metrics (21 pairs),
129 systems, 50 topics, B = 1000 — target ≤ 30 s on 2 cores (issue 12 §4).

Data: TREC-8 ad hoc (129 runs, 50 topics): AP, P@10 and RR, their geometric-mean versions
G_AP, G_P@10, G_RR, and RR@5 (reciprocal rank truncated at rank 5: RR values below 1/5 set to 0,
a deterministic 7th metric).  Reference in the same process: a straightforward per-replicate
loop with scipy (kendalltau + weightedtau) for ONE pair on the same resamples; the benchmark
checks that both agree and reports the ratio (per pair) besides the absolute time, the consensus
solver's share and the p-value share.

Run: ``.venv/bin/python benchmarks/bench_metaeval.py`` (writes benchmarks/output/bench_metaeval.json).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import time
from pathlib import Path

import numpy as np
from scipy import stats

from agreekit.consensus import warmup
from agreekit.ireval.metrics import load_scores
from agreekit.metaeval import consensus_ranking, metric_agreement
from agreekit.ranking.weighting import parse_weigher
from agreekit._jit import warm

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_metaeval.json"
D = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"
B, SEED, TARGET = 1000, 12, 30.0


def collection():
    ap, p10, rr = (load_scores(D / f"adhoc8_{k}.csv") for k in ("ap", "p10", "rr"))
    scores = {
        "AP": ap,
        "P@10": p10,
        "RR": rr,
        "G_AP": ap,
        "G_P@10": p10,
        "G_RR": rr,
        "RR@5": rr.where(rr >= 0.2 - 1e-12, 0.0),
    }
    statistic = {"G_AP": "gmean", "G_P@10": "gmean", "G_RR": "gmean"}
    return scores, statistic


def reference_pair(A, Bm, idx):
    """Per-replicate scipy loop for one pair: tau_b and tau_w replicates."""
    f = parse_weigher("harmonic")
    tb, tw = [], []
    for row in idx:
        # means equal in exact arithmetic may differ in the last bits: round before ranking
        ra = stats.rankdata(-np.round(A[row].mean(axis=0), 12))
        rb = stats.rankdata(-np.round(Bm[row].mean(axis=0), 12))
        w = f(ra) + f(rb)
        tb.append(stats.kendalltau(ra, rb).statistic)
        tw.append(
            stats.weightedtau(-ra, -rb, rank=np.arange(ra.size), weigher=lambda i, w=w: w[i], additive=False).statistic
        )
    return np.array(tb), np.array(tw)


def main():
    scores, statistic = collection()
    # compile / load every kernel first, so the timings measure work only
    small = {k: v.iloc[:, :12] for k, v in scores.items()}
    warm(lambda: metric_agreement(small, statistic=statistic, n_resamples=20, rng=0, pvalue_resamples=50))
    warm(lambda: consensus_ranking(small, statistic=statistic, method="exact"))
    warmup()

    runs = []
    for _ in range(2):
        c0, t0 = time.process_time(), time.perf_counter()
        res = metric_agreement(scores, statistic=statistic, n_resamples=B, rng=SEED, pvalue=False)
        c1, t1 = time.process_time(), time.perf_counter()
        resp = metric_agreement(scores, statistic=statistic, n_resamples=B, rng=SEED)
        c2, t2 = time.process_time(), time.perf_counter()
        cons = consensus_ranking(scores, statistic=statistic, method="auto")
        c3, t3 = time.process_time(), time.perf_counter()
        runs.append(
            {
                "agreement_seconds": t1 - t0,
                "agreement_with_pvalues_seconds": t2 - t1,
                "consensus_seconds": t3 - t2,
                "agreement_cpu_seconds": c1 - c0,
                "agreement_with_pvalues_cpu_seconds": c2 - c1,
                "consensus_cpu_seconds": c3 - c2,
            }
        )
    med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
    total = med["agreement_with_pvalues_seconds"] + med["consensus_seconds"]
    total_cpu = med["agreement_with_pvalues_cpu_seconds"] + med["consensus_cpu_seconds"]
    # reference: one pair (AP vs P@10), arithmetic means, same resamples
    X = {k: v.to_numpy() for k, v in scores.items()}
    t0 = time.perf_counter()
    tb, tw = reference_pair(X["AP"], X["P@10"], res.resamples)
    ref_seconds = time.perf_counter() - t0
    agree = bool(
        np.allclose(tb, res.bootstrap_tau_b[:, 0], atol=1e-12)
        and np.allclose(tw, res.bootstrap_tau_w[:, 0], atol=1e-12)
    )
    out = {
        "benchmark": "metric_agreement (21 pairs, B = 1000, p-values) + consensus_ranking (Kemeny, 7 rankings)",
        "data": "adhoc8 (129 runs, 50 topics): AP, P@10, RR, G_AP, G_P@10, G_RR, RR@5",
        "n_resamples": B,
        "runs": runs,
        "median_seconds": med,
        "total_seconds": total,
        "total_cpu_seconds": total_cpu,
        "quiet_machine_estimate_seconds": "<= total_cpu_seconds (all of it parallelisable over 2 cores "
        "except the solver); rerun on a quiet machine for the absolute target",
        "consensus_share": med["consensus_seconds"] / total,
        "pvalue_share": (med["agreement_with_pvalues_seconds"] - med["agreement_seconds"]) / total,
        "target_seconds": TARGET,
        "meets_target": total <= TARGET,
        "consensus": {
            "method": cons.method,
            "proven": cons.proven,
            "gap": cons.gap,
            "average_tau_x": cons.average_tau_x,
            "n_optima": cons.n_optima,
            "message": cons.message,
        },
        "pvalue_methods": sorted(set(resp.to_frame().pvalue_method)),
        "reference_one_pair_scipy_seconds": ref_seconds,
        "fast_seconds_per_pair": med["agreement_seconds"] / 21,
        "speedup_reference_over_fast_per_pair": ref_seconds / (med["agreement_seconds"] / 21),
        "reference_agrees": agree,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
