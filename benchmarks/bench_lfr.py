"""Benchmark: agreekit's LFR generator vs networkit's LFRGenerator (and networkx at n = 1e4), same process.

Targets (issue 11): n = 1e4, <k> = 20 in <= 5 s; n = 1e5 in <= 60 s.  Parameters: tau1 = 2, tau2 = 1.5,
mu = 0.3, k_max = 50, communities 20-100.  Reported: wall time (best of ``REPEATS``), realized mu and mean
degree; ratios ours / reference.

Regimes (issue 23), each checked for realized mu_t within +-0.01 of the request, no dropped stub pair
(or an LFRWarning giving the number) and the degree tail P(k >= 45) within 2 standard errors of the
requested power law, ours beside networkit's ``LFRGenerator`` on the same parameters — once with
networkit's own sampling of the degree and community-size laws (``networkit``), once given our
degree sequence and partition (``networkit_same_input``; the disjoint version where ours overlaps):
two equal communities (n = 1000, <k> = 15, mu 0.1 / 0.3 / 0.5), one dominant community (842 + 158,
mu = 0.5: infeasible per node, must warn), many small overlapping communities (n = 10 000, sizes
10-50, o_n = 2000, o_m = 2), the 2009 comparative-analysis setting (n = 5000, sizes 10-50, tau2 = 1,
mu = 0.1), mu = 0, weighted overlapping (mu = mu_w = 0.3).

Run: ``.venv/bin/python benchmarks/bench_lfr.py`` (writes benchmarks/output/bench_lfr.json).
"""

from __future__ import annotations

import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from agreekit.clustering.lfr import LFRWarning, _powerlaw_table, lfr_benchmark, realized_mixing
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
    g = lfr_benchmark(n, tau1=2.0, tau2=1.5, mu=MU, average_degree=20, max_degree=50, rng=1, progress=False)
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

    edges, lab, _ = lfr_graph(LFRParameters(n=n, tau2=1.5), MU, rng=1)
    comms = [np.flatnonzero(lab == c) for c in np.unique(lab)]
    return realized_mixing(n, edges, comms), 2 * len(edges) / n


REGIMES = {
    **{
        f"two_equal_mu{mu}": dict(n=1000, mu=mu, average_degree=15, max_degree=50, min_community=500, max_community=500)
        for mu in (0.1, 0.3, 0.5)
    },
    "dominant_842_158_mu0.5": dict(
        n=1000, mu=0.5, average_degree=15, max_degree=50, min_community=150, max_community=850, tau2=1.0, rng=16
    ),
    "small_overlapping": dict(
        n=10_000,
        mu=0.3,
        average_degree=20,
        max_degree=50,
        min_community=10,
        max_community=50,
        overlapping_nodes=2000,
        overlapping_memberships=2,
    ),
    "lf2009_small_mu0.1": dict(
        n=5000, mu=0.1, tau2=1.0, average_degree=20, max_degree=50, min_community=10, max_community=50
    ),
    "mu0": dict(n=1000, mu=0.0),
    "weighted_overlapping": dict(n=1000, mu=0.3, mu_weights=0.3, overlapping_nodes=200, overlapping_memberships=2),
}
TAIL_K = 45


def _tail(deg, kw):
    """Realized P(k >= TAIL_K), the requested power law's, and the z-score (binomial SE)."""
    from agreekit.clustering.lfr import _solve_lower_end

    tau1, kmax = kw.get("tau1", 2.0), kw.get("max_degree", 50)
    lo = _solve_lower_end(kw.get("average_degree", 20), kmax, tau1, "average_degree")
    x, p = _powerlaw_table(lo, kmax, tau1)
    target = float(p[x >= TAIL_K].sum())
    got = float((np.asarray(deg) >= TAIL_K).mean())
    return got, target, (got - target) / float(np.sqrt(target * (1 - target) / len(deg)))


def _networkit_graph(n, mu, deg=None, labels=None, kw=None):
    import networkit as nk

    nk.setNumberOfThreads(1)
    nk.setSeed(1, False)
    gen = nk.generators.LFRGenerator(n)
    if deg is None:
        gen.generatePowerlawDegreeSequence(kw.get("average_degree", 20), kw.get("max_degree", 50), -kw.get("tau1", 2.0))
        gen.generatePowerlawCommunitySizeSequence(
            kw.get("min_community", 20), kw.get("max_community", 100), -kw.get("tau2", 1.5)
        )
    else:
        gen.setDegreeSequence([int(d) for d in deg])
        part = nk.Partition(n)
        part.setUpperBound(int(labels.max()) + 1)
        for v, c in enumerate(labels.tolist()):
            part.addToSubset(c, v)
        gen.setPartition(part)
    gen.setMu(mu)
    t = time.perf_counter()
    G = gen.generate()
    secs = time.perf_counter() - t
    edges = np.array(list(G.iterEdges()), dtype=np.int64).reshape(-1, 2)
    lab = np.array(gen.getPartition().getVector())
    comms = [np.flatnonzero(lab == c) for c in np.unique(lab)]
    d = np.bincount(edges.ravel(), minlength=n)
    return dict(
        seconds=secs,
        mu_t=realized_mixing(n, edges, comms),
        mean_degree=float(d.mean()),
        communities=len(comms),
        degree_sum_lost=int((deg.sum() - d.sum()) // 2) if deg is not None else None,
        tail=d,
    )


def regime_rows():
    rows = []
    for name, kw in REGIMES.items():
        kw = dict(kw)
        n, rng = kw.pop("n"), kw.pop("rng", 1)
        t = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = lfr_benchmark(n, rng=rng, progress=False, **kw)
        secs = time.perf_counter() - t
        warned = [str(w.message) for w in caught if issubclass(w.category, LFRWarning)]
        got, target, z = _tail(g.degrees, kw)
        row = dict(
            regime=name,
            n=n,
            **{k: v for k, v in kw.items()},
            rng=rng,
            ours_s=secs,
            communities=len(g.communities),
            ours_mu_t=g.realized_mu,
            ours_mu_w=g.realized_mu_weights,
            ours_dropped=g.dropped_edges,
            ours_mean_degree=float(g.degrees.mean()),
            tail_k=TAIL_K,
            tail_target=target,
            ours_tail=got,
            ours_tail_z=z,
            ours_warnings=warned,
            ours_repairs=g.repairs,
            ours_meets=bool(
                abs(g.realized_mu - kw["mu"]) <= 0.01 and g.dropped_edges == 0 and abs(z) <= 2 and not warned
            ),
        )
        try:
            import networkit  # noqa: F401
        except ImportError:
            rows.append(row)
            continue
        if g.overlapping:  # networkit has no overlap: the disjoint version of the regime
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kw_d = {k: v for k, v in kw.items() if not k.startswith("overlapping")}
                gd = lfr_benchmark(n, rng=rng, progress=False, **kw_d)
            row["networkit_on"] = "disjoint version (no overlapping nodes)"
        else:
            gd = g
        try:
            same = _networkit_graph(n, kw["mu"], deg=gd.degrees, labels=gd.labels())
            nt = same.pop("tail")
            row.update({f"networkit_same_input_{k}": v for k, v in same.items()})
            row["networkit_same_input_tail"], _, row["networkit_same_input_tail_z"] = _tail(nt, kw)
        except Exception as exc:  # networkit refusing a regime is a result too
            row["networkit_same_input_error"] = f"{type(exc).__name__}: {exc}"
        if not name.startswith("two_equal"):  # networkit's size law needs min < max
            try:
                own = _networkit_graph(n, kw["mu"], kw=kw)
                nt = own.pop("tail")
                row.update({f"networkit_{k}": v for k, v in own.items() if k != "degree_sum_lost"})
                row["networkit_tail"], _, row["networkit_tail_z"] = _tail(nt, kw)
            except Exception as exc:
                row["networkit_error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("ours_repairs",)}, default=str))
    return rows


def main():
    warm(
        lambda: lfr_benchmark(200, average_degree=10, max_degree=30, rng=0, progress=False)
    )  # compile the numba kernels
    rows = []
    for n, target in ((10_000, 5.0), (100_000, 60.0)):
        t_ours, (mu_o, k_o) = best(lambda: ours(n))
        row = {
            "n": n,
            "target_s": target,
            "ours_s": t_ours,
            "ours_mu": mu_o,
            "ours_mean_degree": k_o,
            "meets_target": t_ours <= target,
        }
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
    regimes = regime_rows()
    meta = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "mu": MU,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "results": rows, "regimes": regimes}, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main()
