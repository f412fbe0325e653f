"""Benchmark of agreekit.clustering against scikit-learn and clusim (ratios measured in one process).

Targets (issue 5):
* ARI and NMI at n = 10^7 with 100 and 10^4 clusters: >= 3x faster than scikit-learn;
* adjusted Omega on an overlapping cover of n = 10^4: >= 10x faster than clusim; n = 10^6 must finish;
* ARI'_delta on sparse overlapping memberships at n = 10^6, 10^4 clusters: report (target <= 1 s).

Writes benchmarks/output/bench_clustering.json and .txt.  Run: `.venv/bin/python benchmarks/bench_clustering.py`.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from agreekit.clustering import adjusted_omega, adjusted_rand_index, ari_delta, normalized_mutual_info
from agreekit._jit import warm

OUT = Path(__file__).parent / "output"
REPS = 2


def best_of(fn, reps=REPS):
    best, val = np.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        val = fn()
        best = min(best, time.perf_counter() - t)
    return best, val


def overlapping_cover(rng, n, k, extra=0.2, moved=0.0, base=None):
    """Sparse n x k crisp cover: one community per node, a second one for a fraction `extra`."""
    labels = rng.integers(0, k, n) if base is None else base[0].copy()
    second = rng.random(n) < extra if base is None else base[1]
    second_lab = rng.integers(0, k, n) if base is None else base[2].copy()
    if moved:
        mv = rng.random(n) < moved
        labels[mv] = rng.integers(0, k, int(mv.sum()))
    rows = np.concatenate([np.arange(n), np.flatnonzero(second)])
    cols = np.concatenate([labels, second_lab[second]])
    m = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, k))
    m.data[:] = 1.0  # a duplicate (same community twice) counts once
    return m, (labels, second, second_lab)


def to_clusim(m):
    from clusim.clustering import Clustering

    m = sp.csr_array(m)
    return Clustering(elm2clu_dict={i: m.indices[m.indptr[i] : m.indptr[i + 1]].tolist() for i in range(m.shape[0])})


def main():
    rng = np.random.default_rng(20240501)
    res = {"python": platform.python_version(), "reps": REPS, "partition": [], "omega": [], "ari_delta_approx": {}}
    from sklearn import metrics as skm
    import sklearn

    res["sklearn"] = sklearn.__version__

    # 1. ARI / NMI at n = 1e7 -------------------------------------------------------------
    n = 10**7
    warm(
        lambda: (
            adjusted_rand_index([0, 1, 1], [0, 1, 0]),  # compile numba kernels outside the timings
            normalized_mutual_info([0, 1, 1], [0, 1, 0]),
        )
    )
    for k in (100, 10**4):
        u = rng.integers(0, k, n)
        v = rng.integers(0, k, n)
        t_ari, ari = best_of(lambda: adjusted_rand_index(u, v))
        t_ari_sk, ari_sk = best_of(lambda: skm.adjusted_rand_score(u, v))
        t_nmi, nmi = best_of(lambda: normalized_mutual_info(u, v))
        t_nmi_sk, nmi_sk = best_of(lambda: skm.normalized_mutual_info_score(u, v))
        row = {
            "n": n,
            "k": k,
            "ari_s": t_ari,
            "ari_sklearn_s": t_ari_sk,
            "ari_speedup": t_ari_sk / t_ari,
            "ari_abs_diff": abs(ari - ari_sk),
            "nmi_s": t_nmi,
            "nmi_sklearn_s": t_nmi_sk,
            "nmi_speedup": t_nmi_sk / t_nmi,
            "nmi_abs_diff": abs(nmi - nmi_sk),
        }
        res["partition"].append(row)
        print(row, flush=True)

    # 2. adjusted Omega on overlapping covers ------------------------------------------------
    for n, k in ((10**4, 100), (10**6, 10**4)):
        truth, base = overlapping_cover(rng, n, k)
        cand, _ = overlapping_cover(rng, n, k, moved=0.3, base=base)
        adjusted_omega(truth[:50], cand[:50])
        t_ours, val = best_of(lambda: adjusted_omega(truth, cand))
        row = {"n": n, "k": k, "adjusted_omega": val, "ours_s": t_ours}
        try:
            import clusim.sim as csim

            if n <= 10**4:
                cu, cv = to_clusim(truth), to_clusim(cand)
                t_ref, ref = best_of(lambda: csim.omega_index(cu, cv))
                row.update(clusim_s=t_ref, clusim_value=ref, speedup=t_ref / t_ours, abs_diff=abs(ref - val))
        except ImportError:
            row["clusim"] = "not installed"
        res["omega"].append(row)
        print(row, flush=True)

    # 3. ARI'_delta on sparse overlapping memberships, n = 1e6, k = 1e4 ----------------------
    n, k = 10**6, 10**4
    truth, base = overlapping_cover(rng, n, k)
    cand, _ = overlapping_cover(rng, n, k, moved=0.3, base=base)
    t, val = best_of(lambda: ari_delta(truth, cand, exact=False))
    res["ari_delta_approx"] = {"n": n, "k": k, "seconds": t, "value": val}
    print(res["ari_delta_approx"], flush=True)

    targets = []
    for r in res["partition"]:
        targets.append((f"ARI n=1e7 k={r['k']} >= 3x sklearn", r["ari_speedup"] >= 3))
        targets.append((f"NMI n=1e7 k={r['k']} >= 3x sklearn", r["nmi_speedup"] >= 3))
    for r in res["omega"]:
        if "speedup" in r:
            targets.append((f"adjusted Omega n={r['n']:.0e} >= 10x clusim", r["speedup"] >= 10))
        else:
            targets.append((f"adjusted Omega n={r['n']:.0e} finishes", np.isfinite(r["adjusted_omega"])))
    targets.append(("ARI'_delta n=1e6 k=1e4 <= 1 s", res["ari_delta_approx"]["seconds"] <= 1.0))
    res["targets"] = {name: bool(ok) for name, ok in targets}
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_clustering.json").write_text(json.dumps(res, indent=2) + "\n")
    lines = ["bench_clustering (best of %d, one process)" % REPS]
    for r in res["partition"]:
        lines.append(
            f"n={r['n']:.0e} k={r['k']}: ARI {r['ari_s']:.3f}s vs sklearn {r['ari_sklearn_s']:.3f}s "
            f"({r['ari_speedup']:.1f}x); NMI {r['nmi_s']:.3f}s vs sklearn {r['nmi_sklearn_s']:.3f}s "
            f"({r['nmi_speedup']:.1f}x)"
        )
    for r in res["omega"]:
        extra = (
            f" vs clusim {r['clusim_s']:.3f}s ({r['speedup']:.0f}x, |diff| {r['abs_diff']:.1e})"
            if "clusim_s" in r
            else ""
        )
        lines.append(f"adjusted Omega n={r['n']:.0e} k={r['k']}: {r['ours_s']:.3f}s{extra}")
    a = res["ari_delta_approx"]
    lines.append(f"ARI'_delta sparse overlapping n={a['n']:.0e} k={a['k']}: {a['seconds']:.3f}s")
    lines += [f"target {'met' if ok else 'MISSED'}: {name}" for name, ok in res["targets"].items()]
    (OUT / "bench_clustering.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
