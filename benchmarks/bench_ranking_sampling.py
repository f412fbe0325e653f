"""Benchmark: Monte Carlo sampling throughput of the table pipeline vs straightforward references.

Measured in one process (ratios, not absolute timings, are the result):

* Spearman ρ_w at n = 36119 (the top of the paper's grid): ``agreekit.ranking.tablegen.sampling.sample_coefficient``
  vs a numpy loop (``Generator.permutation`` + weighted Pearson in numpy) per permutation.
* Kendall τ_w at n = 2620: ours vs ``scipy.stats.weightedtau(..., rank=arange(n), additive=False)``
  with a lookup weigher per permutation (the O(n log n) reference of the notes).
* The cost of the whole default-config sampling stage extrapolated from the per-element rates.

Writes ``benchmarks/output/bench_ranking_sampling.json``.  Run: ``.venv/bin/python benchmarks/bench_ranking_sampling.py``.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numba
import numpy as np
import yaml
from scipy import stats

from agreekit.ranking.tablegen.sampling import sample_coefficient, seed_sequence
from agreekit.ranking.tablegen.generation import scheme_settings, schemes_from_config
from agreekit.ranking.weighting import parse_weigher

ROOT = Path(__file__).resolve().parents[1]


def _weights(f, perm, mult):
    a = f[: perm.size]
    b = f[perm - 1]
    return a * b if mult else a + b


def ref_spearman(rng, n, k, f, mult):
    ident = np.arange(1, n + 1, dtype=float)
    out = np.empty(k)
    for r in range(k):
        p = rng.permutation(n) + 1
        w = _weights(f, p, mult)
        mx = np.sum(w * ident) / w.sum()
        my = np.sum(w * p) / w.sum()
        dx, dy = ident - mx, p - my
        out[r] = np.sum(w * dx * dy) / np.sqrt(np.sum(w * dx * dx) * np.sum(w * dy * dy))
    return out


def ref_spearman_python(rng, n, k, f, mult):
    """Pure-Python weighted Pearson per permutation, as the authors' reference code computes it."""
    out = np.empty(k)
    for r in range(k):
        p = (rng.permutation(n) + 1).tolist()
        fl = f.tolist()
        w = [fl[i] * fl[p[i] - 1] if mult else fl[i] + fl[p[i] - 1] for i in range(n)]
        sw = sum(w)
        mx = sum(wi * (i + 1) for i, wi in enumerate(w)) / sw
        my = sum(wi * pi for wi, pi in zip(w, p)) / sw
        sxy = sum(wi * (i + 1 - mx) * (pi - my) for i, (wi, pi) in enumerate(zip(w, p)))
        sxx = sum(wi * (i + 1 - mx) ** 2 for i, wi in enumerate(w))
        syy = sum(wi * (pi - my) ** 2 for wi, pi in zip(w, p))
        out[r] = sxy / (sxx * syy) ** 0.5
    return out


def ref_kendall(rng, n, k, f, mult):
    ident = np.arange(1, n + 1)
    out = np.empty(k)
    rank = np.arange(n)
    for r in range(k):
        p = rng.permutation(n) + 1
        w = _weights(f, p, mult)
        out[r] = stats.weightedtau(-ident, -p, rank=rank, weigher=lambda i: w[i], additive=False).statistic
    return out


def timed(fn, *a, **kw):
    t = time.perf_counter()
    out = fn(*a, **kw)
    return time.perf_counter() - t, out


def main():
    threads = numba.get_num_threads()
    res = {"numba_threads": threads, "cpu_count": os.cpu_count(), "cases": []}
    for coef, n, k_ours, k_ref, ref in (("spearman", 36119, 2000, 60, ref_spearman),
                                        ("spearman", 36119, 2000, 3, ref_spearman_python),
                                        ("kendall", 2620, 2000, 60, ref_kendall)):
        w = parse_weigher("harmonic")
        f = w(np.arange(1, n + 1))
        rng = np.random.Generator(np.random.PCG64(seed_sequence(1, "bench", n)))
        sample_coefficient(coef, n=n, size=10, weigher=w, scheme="additive", rng=rng)  # JIT warm-up
        t_ours, g = timed(sample_coefficient, coef, n=n, size=k_ours, weigher=w, scheme="additive", rng=rng)
        t_ref, gr = timed(ref, np.random.default_rng(2), n, k_ref, f, False)
        per_ours, per_ref = t_ours / k_ours, t_ref / k_ref
        res["cases"].append({"coefficient": coef, "n": n, "ours_s_per_permutation": per_ours,
                             "reference": ref.__name__, "reference_s_per_permutation": per_ref,
                             "speedup": per_ref / per_ours, "ours_ns_per_element": per_ours / n * 1e9,
                             "sample_mean_ours": float(g.mean()), "sample_mean_ref": float(gr.mean())})
        print(f"{coef:8s} n={n:6d}: ours {per_ours * 1e3:8.3f} ms/perm, {ref.__name__} {per_ref * 1e3:8.3f} "
              f"ms/perm -> {per_ref / per_ours:6.1f}x")
    # extrapolate the default-config sampling stage from the measured per-element rates
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    rate = {c["coefficient"]: c["ours_ns_per_element"] * 1e-9 for c in res["cases"]}
    py = next(c for c in res["cases"] if c["reference"] == "ref_spearman_python")
    res["authors_style_spearman_estimate_h"] = None
    total = 0.0
    elements = {"spearman": 0, "kendall": 0}
    for spec in schemes_from_config(cfg["ranking"]):
        st = scheme_settings(cfg["ranking"], spec, cfg["seed"])
        el = sum(n * s for n, s in zip(st["grid"]["n"], st["sample_size"]))
        elements[spec.coefficient] += el
        total += el * rate[spec.coefficient]
    res["default_config_elements"] = elements
    res["authors_style_spearman_estimate_h"] = (2 * elements["spearman"] * py["reference_s_per_permutation"]
                                                / py["n"] / 3600)  # two passes, as the authors' code
    res["default_config_sampling_estimate_s"] = total
    print(f"pure-Python Spearman (authors' style, two passes) for the default Spearman samples: "
          f"{res['authors_style_spearman_estimate_h']:.1f} h serial")
    print(f"default config: {elements} permutation elements; estimated sampling stage {total:.0f} s "
          f"with {threads} numba threads")
    out = ROOT / "benchmarks" / "output" / "bench_ranking_sampling.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
