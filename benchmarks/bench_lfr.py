"""Benchmark: agreekit's LFR generator vs networkit's LFRGenerator (and networkx at n = 1e4), same process.

Targets (issue 11): n = 1e4, <k> = 20 in <= 5 s; n = 1e5 in <= 60 s.  Parameters: tau1 = 2, tau2 = 1.5,
mu = 0.3, k_max = 50, communities 20-100.  Reported: wall time (best of ``REPEATS``), realized mu and mean
degree; ratios ours / reference.

Run: ``.venv/bin/python benchmarks/bench_lfr.py`` (writes benchmarks/output/bench_lfr.json).
"""
from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from agreekit.clustering.lfr import lfr_benchmark, realized_mixing
from agreekit._jit import warm

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_lfr.json"
MU, REPEATS = 0.3, 3


def best(f, repeats=REPEATS):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def ours(n):
    g = lfr_benchmark(n, tau1=2.0, tau2=1.5, mu=MU, average_degree=20, max_degree=50, seed=1)
    return g.mixing()[0], float(g.degrees.mean())


def networkit(n):
    import networkit as nk

    nk.setNumberOfThreads(1)
    nk.setSeed(1, False)
    gen = nk.generators.LFRGenerator(n)
    gen.generatePowerlawDegreeSequence(20, 50, -2.0)
    gen.generatePowerlawCommunitySizeSequence(20, 100, -1.5)
    gen.setMu(MU)
    G = gen.generate()
    part = gen.getPartition()
    edges = np.array(list(G.iterEdges()), dtype=np.int64)
    lab = np.array(part.getVector())
    comms = [np.flatnonzero(lab == c) for c in np.unique(lab)]
    return realized_mixing(n, edges, comms), 2 * len(edges) / n


def networkx(n):
    from agreekit.clustering.experiments import LFRParameters, lfr_graph

    edges, lab, _ = lfr_graph(LFRParameters(n=n, tau2=1.5), MU, seed=1)
    comms = [np.flatnonzero(lab == c) for c in np.unique(lab)]
    return realized_mixing(n, edges, comms), 2 * len(edges) / n


def main():
    warm(lambda: lfr_benchmark(200, average_degree=10, max_degree=30, seed=0))  # compile the numba kernels
    rows = []
    for n, target in ((10_000, 5.0), (100_000, 60.0)):
        t_ours, (mu_o, k_o) = best(lambda: ours(n))
        row = {"n": n, "target_s": target, "ours_s": t_ours, "ours_mu": mu_o, "ours_mean_degree": k_o,
               "meets_target": t_ours <= target}
        try:
            t_nk, (mu_k, k_k) = best(lambda: networkit(n))
            row.update(networkit_s=t_nk, networkit_mu=mu_k, networkit_mean_degree=k_k, ratio_vs_networkit=t_ours / t_nk)
        except ImportError:
            pass
        if n <= 10_000:
            t_nx, (mu_x, k_x) = best(lambda: networkx(n), repeats=1)
            row.update(networkx_s=t_nx, networkx_mu=mu_x, networkx_mean_degree=k_x, ratio_vs_networkx=t_ours / t_nx)
        rows.append(row)
        print(json.dumps(row))
    meta = {"machine": platform.machine(), "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_average": os.getloadavg(), "mu": MU}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "results": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
