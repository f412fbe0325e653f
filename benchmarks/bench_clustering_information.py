"""Benchmark of AMI (exact expected MI) and overlapping NMI against scikit-learn / cdlib, in one process.

Targets (issue 11):
* adjusted_mutual_info at n = 10^6 with 10^3 x 10^3 clusters: >= 10x faster than scikit-learn's
  adjusted_mutual_info_score, same value;
* reported: AMI at n = 10^6 with 100 x 100 and at n = 10^5 with 10^3 x 10^3 clusters (the issue's
  reference timings of scikit-learn: 2.8 s and 2.75 s), and an unequal-size case (geometric sizes);
* reported: overlapping_nmi (LFK and MGH) vs cdlib on an overlapping cover of n = 2000.

Writes benchmarks/output/bench_clustering_information.json and .txt.
Run: `.venv/bin/python benchmarks/bench_clustering_information.py` (scikit-learn's n = 10^6,
10^3 x 10^3 case alone takes 1-5 minutes).
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from agreekit.clustering import adjusted_mutual_info, overlapping_nmi
from agreekit._jit import warm

OUT = Path(__file__).parent / "output"


def timed(fn, reps):
    best, val = np.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        val = fn()
        best = min(best, time.perf_counter() - t)
    return best, val


def groups(labels, ids, k):
    """Clusters (arrays of ids) of the labelling ``labels`` of ``ids``."""
    order = np.argsort(labels, kind="stable")
    return np.split(ids[order], np.cumsum(np.bincount(labels, minlength=k))[:-1])


def main():
    import sklearn
    from sklearn import metrics as skm

    res = {
        "python": platform.python_version(),
        "sklearn": sklearn.__version__,
        "load_before": os.getloadavg(),
        "ami": [],
        "overlapping_nmi": [],
    }
    rng = np.random.default_rng(20261201)
    warm(lambda: adjusted_mutual_info([0, 1, 1, 0], [0, 1, 0, 0]))  # compile the kernels outside the timings
    cases = [
        (10**6, 1000, 1000, "uniform"),
        (10**6, 100, 100, "uniform"),
        (10**5, 1000, 1000, "uniform"),
        (10**5, 1000, 1000, "geometric"),
    ]
    for n, ku, kv, kind in cases:
        if kind == "uniform":
            u, v = rng.integers(0, ku, n), rng.integers(0, kv, n)
        else:  # very unequal cluster sizes: few equal margins to group
            u = np.minimum(rng.geometric(3.0 / ku, n) - 1, ku - 1)
            v = np.minimum(rng.geometric(3.0 / kv, n) - 1, kv - 1)
        v[: n // 4] = u[: n // 4]  # some agreement beyond chance
        t_ours, ours = timed(lambda: adjusted_mutual_info(u, v), 3)
        t_sk, ref = timed(lambda: skm.adjusted_mutual_info_score(u, v), 1)
        row = {
            "n": n,
            "k_u": int(np.unique(u).size),
            "k_v": int(np.unique(v).size),
            "sizes": kind,
            "ours_s": t_ours,
            "sklearn_s": t_sk,
            "speedup": t_sk / t_ours,
            "ami": ours,
            "ami_sklearn": ref,
            "abs_diff": abs(ours - ref),
        }
        res["ami"].append(row)
        print(row, flush=True)

    from cdlib import NodeClustering
    from cdlib.evaluation import (
        overlapping_normalized_mutual_information_LFK,
        overlapping_normalized_mutual_information_MGH,
    )

    n, k = 2000, 40
    lab = rng.integers(0, k, n)
    second = rng.random(n) < 0.2
    lab2 = rng.integers(0, k, n)
    X = [np.flatnonzero((lab == c) | (second & (lab2 == c))).tolist() for c in range(k)]
    moved = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), lab)
    Y = [np.flatnonzero(moved == c).tolist() for c in range(k)]
    for variant, peer in (
        ("lfk", overlapping_normalized_mutual_information_LFK),
        ("mgh", overlapping_normalized_mutual_information_MGH),
    ):
        t_ours, ours = timed(lambda: overlapping_nmi(X, Y, variant=variant), 3)
        t_cd, ref = timed(lambda: peer(NodeClustering(X, None), NodeClustering(Y, None)).score, 1)
        row = {
            "n": n,
            "k": k,
            "variant": variant,
            "ours_s": t_ours,
            "cdlib_s": t_cd,
            "speedup": t_cd / t_ours,
            "value": ours,
            "value_cdlib": ref,
            "abs_diff": abs(ours - ref),
        }
        res["overlapping_nmi"].append(row)
        print(row, flush=True)
    n, k = 10**6, 10**4
    lab = rng.integers(0, k, n)
    second = rng.random(n) < 0.2
    lab2 = rng.integers(0, k, n)
    moved = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), lab)
    X = groups(np.concatenate([lab, lab2[second]]), np.concatenate([np.arange(n), np.flatnonzero(second)]), k)
    Y = groups(moved, np.arange(n), k)
    t_ours, ours = timed(lambda: overlapping_nmi(X, Y, nodes=range(n)), 1)
    res["overlapping_nmi"].append(
        {"n": n, "k": k, "variant": "lfk (20% of nodes in 2 clusters)", "ours_s": t_ours, "value": ours}
    )
    print(res["overlapping_nmi"][-1], flush=True)
    res["load_after"] = os.getloadavg()

    OUT.mkdir(exist_ok=True)
    (OUT / "bench_clustering_information.json").write_text(json.dumps(res, indent=2) + "\n")
    lines = [
        f"agreekit.clustering AMI / overlapping NMI benchmark (python {res['python']}, "
        f"scikit-learn {res['sklearn']}; load avg before {res['load_before'][0]:.1f}, "
        f"after {res['load_after'][0]:.1f} on 2 cores)",
        "",
    ]
    for r in res["ami"]:
        lines.append(
            f"AMI n={r['n']:>8} {r['k_u']}x{r['k_v']} ({r['sizes']}): ours {r['ours_s']:.3f} s, "
            f"scikit-learn {r['sklearn_s']:.2f} s -> {r['speedup']:.0f}x; |diff| {r['abs_diff']:.1e}"
        )
    for r in res["overlapping_nmi"]:
        if "cdlib_s" in r:
            lines.append(
                f"overlapping NMI {r['variant']} n={r['n']} k={r['k']}: ours {r['ours_s']:.4f} s, cdlib "
                f"{r['cdlib_s']:.2f} s -> {r['speedup']:.0f}x; |diff| {r['abs_diff']:.1e}"
            )
        else:
            lines.append(f"overlapping NMI {r['variant']} n={r['n']} k={r['k']}: ours {r['ours_s']:.2f} s")
    (OUT / "bench_clustering_information.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
