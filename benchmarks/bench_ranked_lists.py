"""Benchmark: rank_biased_overlap and ap_correlation — against peers in the same process, and their scaling.

* τ_AP at n = 10⁴ against pyircor 0.2.0 (PyPI) when it is installed.  Its metadata asks for Python < 3.8
  and numpy==1.17.4, so it installs only outside the lock (``.venv/bin/pip install --no-deps
  --ignore-requires-python pyircor``), and its ``check.py`` imports ``collections.Iterable`` (removed in
  Python 3.10): the benchmark sets that alias to ``collections.abc.Iterable`` before importing it (recorded
  as ``shim`` in the output); pyircor's own code runs unchanged.  Its ``tauap`` (with
  ``decreasing=False``: rank vectors) and ``tauap_b`` are timed against ``ap_correlation`` (symmetric=False
  and True) and the values compared.  A second row times an O(n²) pairwise τ_AP compiled with numba,
  written here the way pyircor / ircor compute it (every pair, divided by the lower item's position − 1).
  Target: ≥ 100× faster.
* RBO_ext at 10⁴ items (untied) against PyPI ``rbo``'s ``RankingSimilarity(...).rbo_ext`` when it imports
  (its metadata asks for numpy < 2; the benchmark uses it when it is present anyway).
* Scaling 10⁴ → 10⁶ items for both (target ≤ 150× for 100× the size), and 10⁶-item lists with ties
  (scores rounded to 4 decimals) within a second.  Inputs: RBO, two lists of m distinct integer ids
  drawn from a domain of 2m (about m/2 in common), untied, p = 0.9 and p = 0.999; τ_AP and τ_AP_b, two
  independent random permutations of 1..m given as rank vectors.  Each size is timed in this process,
  after a warm-up call (numba compilation and caches), as the median of several repeats (more for the
  small size); wall-clock and process CPU time are both recorded, the ratios use the wall-clock medians
  (``ratio``) and the CPU medians (``ratio_cpu``, less sensitive to other processes on a shared machine).
  For context the same step is timed for numpy's ``sort`` of a random permutation (O(n log n)) and for
  one random scatter into a new array (O(n), the memory-bound part of τ_AP's layout).

Run: ``.venv/bin/python benchmarks/bench_ranked_lists.py`` (writes benchmarks/output/bench_ranked_lists.json).
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from agreekit.ranking import ap_correlation, rank_biased_overlap

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_ranked_lists.json"


@njit(cache=True)
def tau_ap_pairwise(x, y):
    """O(n²) τ_AP of y against x (ranks, 1 = top, untied), pair by pair as ircor's tauAP."""
    n = x.size
    num = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            if (x[i] - x[j]) * (y[i] - y[j]) > 0:
                num += 1.0 / (max(y[i], y[j]) - 1)
    return 2.0 * num / (n - 1) - 1.0


def import_pyircor():
    """(pyircor's tauap module or None, the shim applied or None, the error if it cannot run)."""
    shim = None
    try:
        from pyircor import tauap as mod
    except ImportError as exc:
        if "Iterable" not in str(exc):
            return None, None, f"{type(exc).__name__}: {exc}"
        import collections
        import collections.abc

        collections.Iterable = collections.abc.Iterable  # removed from collections in Python 3.10
        shim = "collections.Iterable = collections.abc.Iterable (removed in Python 3.10), set before the import"
        try:
            from pyircor import tauap as mod
        except Exception as exc2:  # anything else in its import
            return None, shim, f"{type(exc2).__name__}: {exc2}"
    except Exception as exc:
        return None, None, f"{type(exc).__name__}: {exc}"
    return mod, shim, None


def pyircor_entry(x, y, n):
    """τ_AP and τ_AP_b at n items against pyircor's tauap / tauap_b, if it imports and runs."""
    mod, shim, error = import_pyircor()
    if mod is None:
        return {
            "available": False,
            "error": error,
            "note": "install outside the lock with: .venv/bin/pip install --no-deps --ignore-requires-python pyircor",
        }
    try:
        from importlib.metadata import version

        ver = version("pyircor")
    except Exception:  # pragma: no cover - metadata missing
        ver = None
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    try:
        mod.tauap(xf[:5], yf[:5], decreasing=False)  # its numba functions are compiled at import already
        t_ours, v_ours = best(lambda: ap_correlation(x, y), repeat=11)
        t_ref, v_ref = best(lambda: mod.tauap(xf, yf, decreasing=False), repeat=3)
        tb_ours, vb_ours = best(lambda: ap_correlation(x, y, symmetric=True), repeat=11)
        tb_ref, vb_ref = best(lambda: mod.tauap_b(xf, yf, decreasing=False), repeat=3)
    except Exception as exc:
        return {"available": False, "shim": shim, "error": f"{type(exc).__name__}: {exc}"}
    return {
        "available": True,
        "version": ver,
        "shim": shim,
        "n": n,
        "inputs": "rank vectors (1 = top) as float64, pyircor with decreasing=False",
        "seconds": t_ours,
        "reference_seconds": t_ref,
        "speedup": t_ref / t_ours,
        "abs_difference": abs(v_ours - v_ref),
        "tau_ap_b_seconds": tb_ours,
        "tau_ap_b_reference_seconds": tb_ref,
        "tau_ap_b_speedup": tb_ref / tb_ours,
        "tau_ap_b_abs_difference": abs(vb_ours - vb_ref),
        "target_speedup": 100,
    }


def timed(f, repeat=5):
    """(median wall seconds, median CPU seconds, the last result) over ``repeat`` calls of ``f``."""
    wall, cpu = [], []
    out = None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = f()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu)), out


def best(f, repeat=3):
    """(median wall seconds, the last result): the peer comparisons."""
    w, _, out = timed(f, repeat)
    return w, out


REPEATS = {10_000: 51, 1_000_000: 9}


def scaling_entry(inputs, make_call):
    """Time the call at 10⁴ and 10⁶ items (median of REPEATS) and the ratios."""
    entry = {"inputs": inputs}
    for m in (10_000, 1_000_000):
        call = make_call(m)
        call()  # warm-up
        wall, cpu, _ = timed(call, REPEATS[m])
        entry[f"seconds_{'1e4' if m == 10_000 else '1e6'}"] = wall
        entry[f"cpu_seconds_{'1e4' if m == 10_000 else '1e6'}"] = cpu
        entry[f"repeats_{'1e4' if m == 10_000 else '1e6'}"] = REPEATS[m]
    entry["milliseconds_1e4"] = entry["seconds_1e4"] * 1e3
    entry["milliseconds_1e6"] = entry["seconds_1e6"] * 1e3
    entry["ratio"] = entry["seconds_1e6"] / entry["seconds_1e4"]
    entry["ratio_cpu"] = entry["cpu_seconds_1e6"] / entry["cpu_seconds_1e4"]
    return entry


def main():
    rng = np.random.default_rng(2026)
    res = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        },
        "note": "timed on the machine named above; on a shared machine under load the 10⁶ cases suffer most "
        "(memory bandwidth and caches are shared), so rerun on a quiet machine for the reference figures",
    }
    # ------------------------------------------------------------------ τ_AP against the reference
    n = 10_000
    x = rng.permutation(n) + 1
    y = np.where(rng.random(n) < 0.5, x, rng.permutation(n) + 1)
    y = np.argsort(np.argsort(y + rng.random(n) * 0.1)) + 1  # a correlated untied ranking
    ap_correlation(np.arange(1, 6), np.array([2, 1, 3, 5, 4]))
    tau_ap_pairwise(x[:5].astype(np.float64), np.arange(1.0, 6.0))
    t_ours, v_ours = best(lambda: ap_correlation(x, y), repeat=11)
    t_ref, v_ref = best(lambda: tau_ap_pairwise(x.astype(np.float64), y.astype(np.float64)), repeat=3)
    res["tau_ap_vs_reference"] = {
        "n": n,
        "reference": "O(n^2) pairwise tau_AP compiled with numba (pyircor's algorithm, written in this benchmark)",
        "seconds": t_ours,
        "reference_seconds": t_ref,
        "speedup": t_ref / t_ours,
        "abs_difference": abs(v_ours - v_ref),
        "target_speedup": 100,
    }
    res["tau_ap_vs_pyircor"] = pyircor_entry(x, y, n)
    # ------------------------------------------------------------------ RBO against PyPI rbo
    xs = rng.permutation(3 * n)[:n]
    ys = np.where(rng.random(n) < 0.3, xs, rng.permutation(3 * n)[:n] + 3 * n)
    ys = pd.unique(ys)
    try:
        import rbo as rbo_pkg

        rank_biased_overlap(xs[:5], ys[:5])
        xl, yl = xs.tolist(), ys.tolist()
        t_ours, r_ours = best(lambda: rank_biased_overlap(xs, ys, p=0.99), repeat=11)
        t_ref, v_ref = best(lambda: rbo_pkg.RankingSimilarity(xl, yl).rbo_ext(p=0.99), repeat=3)
        res["rbo_vs_pypi_rbo"] = {
            "items": int(n),
            "p": 0.99,
            "available": True,
            "seconds": t_ours,
            "reference_seconds": t_ref,
            "speedup": t_ref / t_ours,
            "abs_difference": abs(r_ours.ext - v_ref),
        }
    except ImportError:
        res["rbo_vs_pypi_rbo"] = {"available": False}
    # ------------------------------------------------------------------ scaling 10⁴ → 10⁶
    scale = {}
    for p in (0.9, 0.999):

        def make_rbo(m, p=p):
            a = rng.permutation(2 * m)[:m]
            b = rng.permutation(2 * m)[:m]
            return lambda: rank_biased_overlap(a, b, p=p)

        scale[f"rbo_p{p}"] = scaling_entry(
            f"two untied lists of m distinct integer ids from a domain of 2m, numpy int64 arrays, p = {p}", make_rbo
        )
    for symmetric in (False, True):

        def make_ap(m, symmetric=symmetric):
            a = rng.permutation(m) + 1
            b = rng.permutation(m) + 1
            return lambda: ap_correlation(a, b, symmetric=symmetric)

        scale["tau_ap_b" if symmetric else "tau_ap"] = scaling_entry(
            "two independent random permutations of 1..m as numpy int64 rank vectors"
            + (", symmetric=True" if symmetric else ""),
            make_ap,
        )

    # the same step for two well-kept numpy routines, in this process: context for the ratios above
    def make_sort(m):
        a = rng.permutation(m) + 1
        return lambda: np.sort(a)

    def make_scatter(m):
        a = rng.permutation(m)
        b = (rng.permutation(m) + 1).astype(np.int32)

        def call():
            out = np.zeros(m, np.int32)
            out[a] = b
            return out

        return call

    scale["reference_numpy_sort"] = scaling_entry(
        "numpy.sort of a random permutation of 1..m (int64): an O(n log n) library routine", make_sort
    )
    scale["reference_numpy_scatter"] = scaling_entry(
        "one random scatter, out[a] = b into a new int32 array of m items (a: a random permutation of 0..m-1): "
        "an O(n) step whose writes leave the L2 cache at 10^6 items",
        make_scatter,
    )
    scale["target_ratio"] = 150
    res["scaling"] = scale
    # ------------------------------------------------------------------ τ_AP time per item, 10³ … 10⁷
    series = []
    for m in (1_000, 10_000, 100_000, 1_000_000, 10_000_000):
        a = rng.permutation(m) + 1
        b = rng.permutation(m) + 1
        ap_correlation(a, b)  # warm-up
        wall, _, _ = timed(lambda a=a, b=b: ap_correlation(a, b), max(5, min(101, 10_000_000 // (m * 10))))
        series.append(
            {
                "items": m,
                "seconds": wall,
                "ns_per_item": wall / m * 1e9,
                "ns_per_item_per_log2": wall / m * 1e9 / np.log2(m),
            }
        )
    res["tau_ap_per_item"] = {
        "inputs": "two independent random permutations of 1..m as numpy int64 rank vectors, symmetric=False",
        "series": series,
        "note": "an O(n log n) count costs a constant time per item and per log2(n); it rises where the "
        "work arrays leave the processor's caches",
    }
    # ------------------------------------------------------------------ 10⁶ items with ties
    m = 1_000_000
    sa = pd.Series(np.round(rng.random(m), 4), index=np.arange(m))
    sb = pd.Series(np.round(rng.random(m), 4), index=np.arange(m) + m // 2)
    rank_biased_overlap(sa, sb, p=0.999, kind="scores")
    t_rbo, c_rbo, _ = timed(lambda: rank_biased_overlap(sa, sb, p=0.999, kind="scores"))
    va, vb = np.round(rng.random(m), 4), np.round(rng.random(m), 4)
    ap_correlation(va, vb, symmetric=True, kind="scores")
    t_ap, c_ap, _ = timed(lambda: ap_correlation(va, vb, symmetric=True, kind="scores"))
    res["ties_1e6"] = {
        "items": m,
        "distinct_scores": 10001,
        "inputs": "RBO: two pandas Series item -> score (scores uniform, rounded to 4 decimals, "
        "integer item ids, half of them shared), kind='scores', p = 0.999; τ_AP_b: two "
        "numpy score vectors rounded to 4 decimals, kind='scores', symmetric=True",
        "rbo_seconds": t_rbo,
        "rbo_cpu_seconds": c_rbo,
        "tau_ap_b_seconds": t_ap,
        "tau_ap_b_cpu_seconds": c_ap,
        "repeats": 5,
        "target_seconds": 1.0,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
