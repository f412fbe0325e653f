"""Consensus benchmark: QUICK / FAST / exact on the report's datasets, against a naive
numpy QUICK (full score matrix per candidate, as ConsRank's R code) run in the same process,
and the report's own times as anchors.  Writes benchmarks/output/bench_consensus.json.

``--scale`` runs only the issue-14 scale benchmark (QUICK / FAST on 5 random permutations of
m = 1000 … 10⁴ items, against the pre-issue-14 Θ(m³) QUICK kept in tests/_consensus_reference.py,
run in the same process at m = 1000) and writes benchmarks/output/bench_consensus_scale.json."""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from agreekit.consensus import combined_input_matrix, kemeny, read_rankings
from agreekit.consensus._kemeny import warmup
from agreekit.consensus._heuristics import start_vector

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources" / "consensus"
OUT = ROOT / "benchmarks" / "output" / "bench_consensus.json"
OUT_SCALE = ROOT / "benchmarks" / "output" / "bench_consensus_scale.json"


def naive_pass(r0, C):
    """ConsRank's BBconsensus in plain numpy: full penalty from a score matrix per candidate."""
    V = np.abs(C).sum()

    def pen(r):
        s = np.where(r[:, None] <= r[None, :], 1.0, -1.0)
        np.fill_diagonal(s, 0)
        return V - (C * s).sum()

    def respace(r):
        return (np.unique(r, return_inverse=True)[1] + 1) * 2

    R = np.asarray(r0).copy()
    P0 = pen(R)
    order = np.argsort(-R, kind="stable")
    CR = R.copy()
    for k in range(1, len(R)):
        R = respace(R)
        done = R[order[:k]]
        best, bestR = np.inf, None
        for v in range(done.max() + 1, done.min() - 2, -1):
            cand = R.copy()
            cand[order[k]] = v
            p = pen(cand)
            if p < best:
                best, bestR = p, cand
        if best <= P0:
            P0, R, CR = best, bestR, bestR.copy()
        else:
            R = CR.copy()
    return CR, P0


def naive_quick(C):
    m = C.shape[0]
    Q = start_vector(C)
    out = []
    for s in (Q, m + 1 - Q):
        a, _ = naive_pass(s, C)
        b, _ = naive_pass(a, C)
        out += [a, b]
    return out


def timed(fn, repeat=1):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        val = fn()
        best = min(best, time.perf_counter() - t)
    return best, val


def main():
    warmup()
    usa = read_rankings(RES / "usa_ranks.csv", ordinal=True)
    emd = read_rankings(RES / "emond_mason.csv")
    out = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version()}, "results": {}}
    R = out["results"]

    t_q, q = timed(lambda: kemeny(usa, method="quick"), repeat=5)
    C = combined_input_matrix(usa)
    t_naive, _ = timed(lambda: naive_quick(C))
    R["quick_usa"] = {
        "seconds": t_q,
        "tau_x": q.average_tau_x,
        "target_seconds": 0.2,
        "report_seconds": 16.384,
        "naive_numpy_seconds": t_naive,
        "speedup_vs_naive": t_naive / t_q,
    }

    t_f, f = timed(lambda: kemeny(usa, method="fast", n_starts=1000, rng=1), repeat=3)
    t_naive10, _ = timed(
        lambda: [naive_pass(naive_pass(np.random.default_rng(i).permutation(50) + 1, C)[0], C) for i in range(10)]
    )
    R["fast1000_usa"] = {
        "seconds": t_f,
        "tau_x": f.average_tau_x,
        "n_solutions": f.n_optima,
        "target_seconds": 10,
        "report_seconds": 1177.274,
        "naive_numpy_seconds_extrapolated": t_naive10 * 100,
        "speedup_vs_naive": t_naive10 * 100 / t_f,
    }

    for solver in ("bb", "mip"):
        t_e, e = timed(lambda: kemeny(emd, method="exact", solver=solver), repeat=3)
        R[f"exact_emd_{solver}"] = {
            "seconds": t_e,
            "tau_x": e.average_tau_x,
            "n_solutions": e.n_optima,
            "optimal": e.proven,
            "exhaustive": e.exhaustive,
            "target_seconds": 10,
            "report_seconds": 5113.608,
            "speedup_vs_report": 5113.608 / t_e,
        }

    t_u, u = timed(lambda: kemeny(usa, method="exact", rng=1))
    R["exact_usa"] = {
        "seconds": t_u,
        "tau_x": u.average_tau_x,
        "n_solutions": u.n_optima,
        "optimal": u.proven,
        "exhaustive": u.exhaustive,
        "blocks": list(u.blocks),
        "solver": u.solver,
        "target_seconds": 120,
        "cbc_ilp_seconds_notes": 1314,
    }

    # exact solvers on simulated low-consensus profiles (Mallows theta = 0.1, 30 judges)
    from agreekit.consensus.simulation import simulate_profile

    rows = []
    for m, variant in ((15, "complete"), (15, "tied"), (20, "tied"), (20, "incomplete")):
        rng = np.random.default_rng([m, len(variant)])
        X = simulate_profile(m, 0.1, 30, variant, rng)
        row = {"m": m, "variant": variant}
        for solver in ("bb", "mip"):
            t, r = timed(lambda: kemeny(X, method="exact", solver=solver, time_limit=60, max_solutions=10**5))
            row[f"{solver}_seconds"] = t
            row[f"{solver}_n_solutions"] = r.n_optima
            row[f"{solver}_exhaustive"] = r.exhaustive
        rows.append(row)
    R["exact_bb_vs_mip_simulated"] = rows

    # larger, low-consensus blocks (Mallows theta = 0.05, 50 judges): proof vs enumeration
    rows = []
    for m, variant in ((30, "complete"), (50, "complete")):
        X = simulate_profile(m, 0.05, 50, variant, np.random.default_rng(m))
        r = kemeny(X, method="exact", time_limit=30)
        rows.append(
            {
                "m": m,
                "variant": variant,
                "largest_block": max(r.blocks),
                "seconds": r.seconds,
                "n_solutions": r.n_optima,
                "optimal": r.proven,
                "exhaustive": r.exhaustive,
                "time_limit": 30,
                "message": r.message,
            }
        )
    R["exact_large_low_consensus"] = rows

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


def timed_cpu(fn, repeat=1):
    """(best wall seconds, best CPU seconds of this process over all threads, value)."""
    best, best_cpu, val = np.inf, np.inf, None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        val = fn()
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    return best, best_cpu, val


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def scale():
    """Issue 14 §2 targets: QUICK (5 rankings) m = 1000 <= 0.1 s, m = 10^4 <= 10 s; FAST with
    100 starts at m = 1000 <= 10 s; memory O(m²); the same solutions as the old QUICK."""
    sys.path.insert(0, str(ROOT / "tests"))
    import _consensus_reference as ref

    warmup()
    out = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_avg_start": os.getloadavg()},
        "results": {},
    }
    R = out["results"]

    def profile(m):
        return np.array([np.random.default_rng([m, i]).permutation(m) + 1 for i in range(5)])

    X = profile(1000)
    C = combined_input_matrix(X)
    t_q, c_q, q = timed_cpu(lambda: kemeny(X, method="quick"), repeat=5)
    t_ref, c_ref, (ref_sols, _) = timed_cpu(lambda: ref.reference_heuristic(C, "quick", False, 0, None))
    t_f, c_f, f = timed_cpu(lambda: kemeny(X, method="fast", n_starts=100, rng=1), repeat=2)
    R["quick_m1000"] = {
        "seconds": t_q,
        "cpu_seconds": c_q,
        "old_theta_m3_cpu_seconds": c_ref,
        "target_seconds": 0.1,
        "old_theta_m3_seconds": t_ref,
        "speedup_vs_old": t_ref / t_q,
        "same_solutions_as_old": bool(np.array_equal(q.solutions, ref_sols)),
        "tau_x": q.average_tau_x,
    }
    R["fast100_m1000"] = {
        "seconds": t_f,
        "cpu_seconds": c_f,
        "target_seconds": 10,
        "tau_x": f.average_tau_x,
        "old_quick_seconds_x50_extrapolated": t_ref * 50,
        "speedup_vs_old_extrapolated": t_ref * 50 / t_f,
    }
    for m in (3000, 10000):
        X = profile(m)
        rss0 = _rss_mib()
        t, c, r = timed_cpu(lambda: kemeny(X, method="quick"))
        R[f"quick_m{m}"] = {
            "seconds": t,
            "cpu_seconds": c,
            "target_seconds": 10 if m == 10000 else None,
            "tau_x": r.average_tau_x,
            "peak_rss_mib": _rss_mib(),
            "peak_rss_growth_mib": _rss_mib() - rss0,
            "m2_doubles_mib": 8 * m * m / 2**20,
            "old_theta_m3_seconds_extrapolated": t_ref * (m / 1000) ** 3,
        }
    out["machine"]["load_avg_end"] = os.getloadavg()
    OUT_SCALE.parent.mkdir(parents=True, exist_ok=True)
    OUT_SCALE.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    if "--scale" in sys.argv[1:]:
        scale()
    else:
        main()
        scale()
