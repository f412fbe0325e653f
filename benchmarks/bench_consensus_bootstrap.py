"""Consensus bootstrap benchmark: :func:`agreekit.consensus.bootstrap_consensus` with 200 resamples
of the sports data (130 judges x 7 items, exact solves) and of a simulated 100-judge x 50-item profile
(Mallows theta = 0.1, QUICK), against a plain judge bootstrap timed in the same process (the
resampled rows copied, ``kemeny`` on the copy, the same solver) and against one solve of the full
data.  Writes benchmarks/output/bench_consensus_bootstrap.json.

Usage: python benchmarks/bench_consensus_bootstrap.py
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from agreekit.consensus import bootstrap_consensus, kemeny, read_rankings
from agreekit.consensus._kemeny import warmup
from agreekit.consensus.simulation import simulate_profile

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_consensus_bootstrap.json"
B = 200


def plain_bootstrap(X, labels, method, n_resamples, seed):
    """The judge bootstrap written out: rows drawn with replacement and copied, one kemeny per copy."""
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    full = {tuple(s) for s in kemeny(X, method=method, labels=labels, rng=seed).solutions}
    hits = 0
    for _ in range(n_resamples):
        res = kemeny(X[rng.integers(0, n, n)], method=method, labels=labels, rng=rng)
        hits += bool(full & {tuple(s) for s in res.solutions})
    return hits / n_resamples


def timed(fn):
    t = time.perf_counter()
    val = fn()
    return time.perf_counter() - t, val


def case(name, X, labels, method):
    t_one, _ = timed(lambda: kemeny(X, method=method, labels=labels, rng=0))
    t_boot, res = timed(
        lambda: (
            bootstrap_consensus(X, n_resamples=B, rng=0, method=method)
            if labels is None
            else bootstrap_consensus(_frame(X, labels), n_resamples=B, rng=0, method=method)
        )
    )
    t_plain, plain_support = timed(lambda: plain_bootstrap(X, labels, method, B, 1))
    return {
        "data": name,
        "judges": int(X.shape[0]),
        "items": int(X.shape[1]),
        "method": method,
        "n_resamples": B,
        "seconds": t_boot,
        "seconds_per_resample": t_boot / B,
        "one_solve_seconds": t_one,
        "ratio_to_one_solve": t_boot / t_one,
        "plain_bootstrap_seconds": t_plain,
        "speedup_vs_plain_bootstrap": t_plain / t_boot,
        "support": res.support,
        "plain_bootstrap_support": plain_support,
        "n_distinct_orderings": len(res.orderings),
        "proven": res.proven,
    }


def _frame(X, labels):
    import pandas as pd

    return pd.DataFrame(X, columns=labels)


def main():
    warmup()
    sports = read_rankings(ROOT / "resources" / "consensus" / "sports.csv")
    profile = simulate_profile(50, 0.1, 100, "complete", np.random.default_rng(50))
    out = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "results": {
            "sports_exact": case("sports", sports.X, list(sports.labels), "auto"),
            "mallows_100x50_quick": case("mallows theta=0.1", np.asarray(profile, dtype=float), None, "quick"),
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
