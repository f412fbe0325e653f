"""Benchmark: coverage of the 95 % intervals of Kendall's τ_b and Spearman's ρ_s, and the speed of the τ_b
analytic interval at n = 10⁵.

Coverage: bivariate normal data with correlation ρ = 0, 0.5, 0.8 at n = 20, 60, 200; the population values
are τ = (2/π)·asin ρ and ρ_s = (6/π)·asin(ρ/2).  Per cell, R replicates (default 1000), each a fresh sample,
its coefficient computed by agreekit (constant weights) and its intervals by
:mod:`agreekit.ranking._intervals` — ``"analytic"`` (Fisher z: τ_b with 0.437/(n − 4), ρ_s with
Bonett–Wright), ``"u-statistic"`` (τ_b, Fisher z with the consistent U-statistic variance) and
``"bootstrap"`` (BCa over items, B = 999 resamples by default).  Coverage = the fraction of replicates whose
interval holds the population value; its Monte Carlo standard error at R = 1000 and 95 % is about 0.007.
The target band is 0.93–0.97 for every cell of the analytic and BCa methods.

Speed: the τ_b interval with the U-statistic variance (O(n log n): the per-item concordance counts with a
Fenwick tree) at n = 10⁵, against its O(n²) definition compiled with numba (all pairs), timed in the same
process; the ratio is the portable result.

Writes ``benchmarks/output/bench_interval_coverage.json`` and ``.md``.
Run: ``.venv/bin/python benchmarks/bench_interval_coverage.py [--replicates R] [--resamples B]`` (about 6 min on
one core of a loaded 2-core machine); ``--speed-only`` re-measures the speed section alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

# one BLAS thread: the bootstrap's matrix products are small, and threads only contend on a shared machine
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from agreekit.ranking import _intervals as I  # noqa: E402
from agreekit.ranking._config import configuration  # noqa: E402
from agreekit.ranking.correlation import configured_correlation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output"
NS = (20, 60, 200)
RHOS = (0.0, 0.5, 0.8)
METHODS = {"kendall": ("analytic", "u-statistic", "bootstrap"), "spearman": ("analytic", "bootstrap")}


def ones(i):
    return np.ones(np.shape(i))


def population(coefficient, rho):
    return 2 / math.pi * math.asin(rho) if coefficient == "kendall" else 6 / math.pi * math.asin(rho / 2)


def coverage_cell(coefficient, n, rho, R, B, seed, R_analytic):
    """Coverage of each method in one cell: the bootstrap on the first ``R`` data sets, the closed-form
    intervals (cheap) on ``max(R, R_analytic)``, so that their coverage is known to a smaller SE."""
    config = configuration(coefficient, "additive", ones)
    truth = population(coefficient, rho)
    gen = np.random.default_rng(seed)
    cov = np.array([[1.0, rho], [rho, 1.0]])
    hits = {m: 0 for m in METHODS[coefficient]}
    width = {m: 0.0 for m in METHODS[coefficient]}
    count = {m: 0 for m in METHODS[coefficient]}
    for r in range(max(R, R_analytic)):
        z = gen.multivariate_normal([0.0, 0.0], cov, n)
        x = stats.rankdata(z[:, 0]).astype(np.int64)
        y = stats.rankdata(z[:, 1]).astype(np.int64)
        g = configured_correlation(x, y, config)
        for m in METHODS[coefficient]:
            if m == "bootstrap" and r >= R:
                continue
            ci = I.correlation_interval(x, y, config, g, 0.95, method=m, n_resamples=B, rng=gen)
            hits[m] += ci.low <= truth <= ci.high
            width[m] += ci.high - ci.low
            count[m] += 1
    return {
        m: {"coverage": hits[m] / count[m], "mean_width": width[m] / count[m], "replicates": count[m]}
        for m in METHODS[coefficient]
    }


@numba.njit(cache=True)
def _u_variance_quadratic(x, y):  # pragma: no cover - compiled
    """τ_b and the consistent U-statistic variance from their O(n²) definition (all ordered pairs)."""
    n = x.size
    ti = np.zeros(n)
    n1 = 0.0
    n2 = 0.0
    nz = 0.0
    for i in range(n):
        s = 0.0
        for j in range(n):
            if i != j:
                d = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
                s += d
                if d != 0:
                    nz += 1.0
                if x[i] == x[j]:
                    n1 += 0.5
                if y[i] == y[j]:
                    n2 += 0.5
        ti[i] = s
    n0 = n * (n - 1) / 2.0
    c = n * (n - 1) / (2.0 * math.sqrt((n0 - n1) * (n0 - n2)))
    tau = c * ti.sum() / (n * (n - 1))
    ti = c * ti / (n - 1)
    s1 = ((ti - tau) ** 2).sum() / (n - 1)
    s2 = c * c * nz / (n * (n - 1)) - tau * tau
    return tau, (4.0 * (n - 2) * s1 + 2.0 * s2) / (n * (n - 1))


def speed(n=100_000):
    gen = np.random.default_rng(12345)
    z = gen.multivariate_normal([0.0, 0.0], [[1.0, 0.5], [0.5, 1.0]], n)
    x = stats.rankdata(z[:, 0]).astype(np.float64)
    y = stats.rankdata(z[:, 1]).astype(np.float64)
    config = configuration("kendall", "additive", ones)
    g = configured_correlation(x.astype(np.int64), y.astype(np.int64), config)
    I.correlation_interval(x[:100], y[:100], config, 0.0, method="u-statistic")  # compile
    _u_variance_quadratic(x[:100], y[:100])
    fast = []
    for _ in range(5):
        t = time.perf_counter()
        ci = I.correlation_interval(x, y, config, g, 0.95, method="u-statistic")
        fast.append(time.perf_counter() - t)
    t = time.perf_counter()
    tau_ref, var_ref = _u_variance_quadratic(x, y)
    slow = time.perf_counter() - t
    tau, var = I.kendall_u_variance(x, y)
    t = time.perf_counter()
    I.correlation_interval(x, y, config, g, 0.95, method="analytic")
    fieller = time.perf_counter() - t
    return {
        "n": n,
        "u_statistic_interval_s": min(fast),
        "quadratic_definition_s": slow,
        "ratio": slow / min(fast),
        "fieller_interval_s": fieller,
        "variance_rel_diff": abs(var - var_ref) / var_ref,
        "tau_abs_diff": abs(tau - tau_ref),
        "interval": [ci.low, ci.high],
    }


def markdown(doc):
    lines = [
        "# Coverage of 95 % intervals (bivariate normal data)",
        "",
        f"BCa: {doc['replicates']} data sets per cell, {doc['resamples']} resamples each (Monte Carlo SE ≈ "
        f"{doc['coverage_se']:.4f}); the closed-form intervals: {doc['analytic_replicates']} data sets per cell "
        f"(SE ≈ {doc['analytic_coverage_se']:.4f}). Target band {doc['band'][0]}–{doc['band'][1]}.",
        "",
        "| coefficient | method | n | ρ = 0 | ρ = 0.5 | ρ = 0.8 |",
        "|---|---|---|---|---|---|",
    ]
    for coef, methods in METHODS.items():
        for m in methods:
            for n in NS:
                cells = []
                for rho in RHOS:
                    c = doc["coverage"][coef][m][str(n)][str(rho)]["coverage"]
                    mark = "" if doc["band"][0] <= c <= doc["band"][1] else " ✗"
                    cells.append(f"{c:.3f}{mark}")
                lines.append(f"| {coef} | {m} | {n} | " + " | ".join(cells) + " |")
    s = doc["speed"]
    lines += [
        "",
        f"Speed at n = {s['n']}: τ_b interval with the U-statistic variance {s['u_statistic_interval_s']:.3f} s, "
        f"its O(n²) definition (numba) {s['quadratic_definition_s']:.1f} s: ratio {s['ratio']:.0f}×.",
        "",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument(
        "--analytic-replicates",
        type=int,
        default=10000,
        help="data sets per cell for the closed-form intervals (the bootstrap uses --replicates)",
    )
    ap.add_argument("--resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--speed-only",
        action="store_true",
        help="re-measure the speed section only and update it in the existing output file",
    )
    a = ap.parse_args()
    if a.speed_only:
        path = OUT / "bench_interval_coverage.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["speed"] = speed()
        print(json.dumps(doc["speed"], indent=1))
        if not a.no_write:
            path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
            (OUT / "bench_interval_coverage.md").write_text(markdown(doc), encoding="utf-8")
        return
    t0 = time.perf_counter()
    seeds = np.random.SeedSequence(a.seed).spawn(len(METHODS) * len(NS) * len(RHOS))
    coverage = {}
    k = 0
    for coef in METHODS:
        for n in NS:
            for rho in RHOS:
                t = time.perf_counter()
                cell = coverage_cell(coef, n, rho, a.replicates, a.resamples, seeds[k], a.analytic_replicates)
                k += 1
                for m, v in cell.items():
                    coverage.setdefault(coef, {}).setdefault(m, {}).setdefault(str(n), {})[str(rho)] = v
                print(
                    coef,
                    n,
                    rho,
                    {m: v["coverage"] for m, v in cell.items()},
                    f"{time.perf_counter() - t:.1f} s",
                    flush=True,
                )
    band = (0.93, 0.97)
    misses = [
        f"{coef} {m} n={n} rho={rho}: {v['coverage']:.3f}"
        for coef, ms in coverage.items()
        for m, ns in ms.items()
        if m != "u-statistic"
        for n, rs in ns.items()
        for rho, v in rs.items()
        if not band[0] <= v["coverage"] <= band[1]
    ]
    misses_u = [
        f"kendall u-statistic n={n} rho={rho}: {v['coverage']:.3f}"
        for n, rs in coverage["kendall"]["u-statistic"].items()
        for rho, v in rs.items()
        if not band[0] <= v["coverage"] <= band[1]
    ]
    R_a = max(a.replicates, a.analytic_replicates)
    doc = {
        "replicates": a.replicates,
        "resamples": a.resamples,
        "seed": a.seed,
        "confidence_level": 0.95,
        "band": list(band),
        "coverage_se": math.sqrt(0.95 * 0.05 / a.replicates),
        "analytic_replicates": R_a,
        "analytic_coverage_se": math.sqrt(0.95 * 0.05 / R_a),
        "coverage": coverage,
        "cells_outside_band": misses,
        "u_statistic_cells_outside_band": misses_u,
        "coverage_seconds": time.perf_counter() - t0,
    }
    doc["speed"] = speed()
    doc["numba_threads"] = numba.get_num_threads()
    doc["cpu_count"] = os.cpu_count()
    print(json.dumps({k: v for k, v in doc.items() if k != "coverage"}, indent=1))
    if not a.no_write:
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "bench_interval_coverage.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        (OUT / "bench_interval_coverage.md").write_text(markdown(doc), encoding="utf-8")


if __name__ == "__main__":
    main()
