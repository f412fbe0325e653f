"""Benchmark: the fused Kendall permutation kernel against its previous version (issue #25), same process.

Both versions run through ``fused_sample`` (SplitMix64 + Fisher–Yates + the weighted Kendall of the 8
paper schemes on each permutation, one numba thread), interleaved round by round; each figure is the
minimum over the rounds of the process CPU time, so the *ratios* are robust to load on a shared
machine (absolute ns are not).  The previous kernel (main 9409e21: level-major tree with per-level base
offsets and a masked store on every level) is kept below as the reference; the new one
(:mod:`agreekit.ranking.tablegen._fused`: heap-order tree, a shift per level, blend + plain store) must
give bit-identical Γ — checked here on every row measured.

Figures: ns per permutation element and scheme for old Kendall, new Kendall and Spearman (the same
fused entry point) at n = 2000, 10⁴, 3·10⁴; old/new speed-up; Kendall/Spearman ratio before and after;
the saving this implies for the Kendall null-quantile stage (957 s in issue #25's run), from the
speed-up at n = 3·10⁴ (the stage is dominated by n ≈ 10⁴ … 4·10⁴).

Writes ``benchmarks/output/bench_kendall_kernel.json``.
Run: ``.venv/bin/python benchmarks/bench_kendall_kernel.py [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from agreekit.ranking.tablegen import _fused
from agreekit.ranking.tablegen._fused import KENDALL, SPEARMAN, _aligned_empty, _spearman8, fisher_yates, row_state
from agreekit.ranking.tablegen._simd import concat, lane, load4, load8, store8, where, zero8
from agreekit.ranking.tablegen.sampling import stream_key
from agreekit.ranking.weighting import parse_weigher

ROOT = Path(__file__).resolve().parents[1]
WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"]
STAGE_SECONDS = 957.0  # Kendall null-quantile job of issue #25's make results run


# ---- the previous kernel, verbatim (main 9409e21) -------------------------------------------------
@njit(cache=True)
def old_tree_levels(n):  # pragma: no cover - compiled
    K = 0
    while (1 << K) <= n - 1:
        K += 1
    base = np.zeros(K + 1, np.int64)
    for k in range(K):
        base[k + 1] = base[k] + ((n - 1) >> (k + 1)) + 1
    return K, base


@njit(cache=True)
def old_kendall8(y, F, g, K, base, tree, out):  # pragma: no cover - compiled
    n = y.size
    C = F.shape[1]
    k = 4 * g
    for j in range(base[K] * 8):
        tree[j] = 0.0
    s = c = d = zero8()
    for i in range(n):
        p = y[i] - 1
        a = load4(F, i * C + k)
        e = load4(F, p * C + k)
        w = concat(a + e, a * e)
        b = zero8()
        for lev in range(K):
            o = 8 * (base[lev] + (p >> (lev + 1)))
            query = ((p >> lev) & 1) != 0
            t = load8(tree, o)
            b = where(query, b + t, b)
            store8(tree, o, where(query, t, t + w))
        c += w * b
        d += w * s
        s += w
    for l in range(4):
        out[0, k + l] = (2.0 * lane(c, l) - lane(d, l)) / lane(d, l)
        out[1, k + l] = (2.0 * lane(c, l + 4) - lane(d, l + 4)) / lane(d, l + 4)


@njit(cache=True, parallel=True)
def old_fused_sample(coef, n, k0, k1, r0, rows, F, active, out):  # pragma: no cover - compiled
    C = F.shape[1]
    groups = C // 4
    gact = np.zeros(groups, np.int64)
    for m in range(2):
        for c in range(C):
            if active[m, c] > gact[c // 4]:
                gact[c // 4] = active[m, c]
    K, base = old_tree_levels(n)
    nchunks = min(rows, 64)
    for b in prange(nchunks):
        lo = r0 + (rows * b) // nchunks
        hi = r0 + (rows * (b + 1)) // nchunks
        y = np.empty(n, np.int32)
        res = np.empty((2, C))
        tree = _aligned_empty(base[K] * 8 if coef == KENDALL else 8)
        for r in range(lo, hi):
            drawn = False
            for g in range(groups):
                if gact[g] > r:
                    if not drawn:
                        fisher_yates(row_state(k0, k1, r), y)
                        drawn = True
                    if coef == SPEARMAN:
                        _spearman8(y, F, g, res)
                    else:
                        old_kendall8(y, F, g, K, base, tree, res)
            for m in range(2):
                for c in range(C):
                    out[m, c, r - r0] = res[m, c] if active[m, c] > r else np.nan


# ----------------------------------------------------------------------------------------------------


def weight_table(n):
    buf = np.empty(n * 4 + 8)
    start = (-buf.ctypes.data % 64) // 8
    F = buf[start : start + n * 4].reshape(n, 4)
    F[:] = np.column_stack([parse_weigher(w).table(n) for w in WEIGHERS])
    return F


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--elements", type=int, default=400_000, help="rows x n per timed call")
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    res = {
        "numba_threads": 1,
        "cpu_count": os.cpu_count(),
        "loadavg_before": os.getloadavg(),
        "rounds": args.rounds,
        "timer": "min over rounds of time.process_time()",
        "cases": [],
    }
    kernels = {
        "old_kendall": (old_fused_sample, KENDALL),
        "new_kendall": (_fused.fused_sample, KENDALL),
        "spearman": (_fused.fused_sample, SPEARMAN),
    }
    for n in (2000, 10_000, 30_000):
        F = weight_table(n)
        rows = max(4, args.elements // n)
        active = np.full((2, 4), rows, np.int64)
        k0, k1 = stream_key(1, "kendall", n, "bench-kernel")
        outs = {name: np.empty((2, 4, rows)) for name in kernels}
        for name, (fn, coef) in kernels.items():  # JIT warm-up
            fn(coef, n, k0, k1, 0, 2, F, active, outs[name][:, :, :2])
        best = dict.fromkeys(kernels, np.inf)
        for _ in range(args.rounds):
            for name, (fn, coef) in kernels.items():
                t = time.process_time()
                fn(coef, n, k0, k1, 0, rows, F, active, outs[name])
                best[name] = min(best[name], time.process_time() - t)
        identical = bool(np.array_equal(outs["old_kendall"].view(np.uint64), outs["new_kendall"].view(np.uint64)))
        ns = {name: best[name] / (8 * rows * n) * 1e9 for name in kernels}
        case = {
            "n": n,
            "rows": rows,
            "schemes_per_permutation": 8,
            "ns_per_element_and_scheme": ns,
            "speedup_old_over_new": ns["old_kendall"] / ns["new_kendall"],
            "kendall_over_spearman_before": ns["old_kendall"] / ns["spearman"],
            "kendall_over_spearman_after": ns["new_kendall"] / ns["spearman"],
            "bit_identical_to_old": identical,
        }
        res["cases"].append(case)
        print(
            f"n={n:6d} ({rows:3d} rows): old {ns['old_kendall']:.3f}  new {ns['new_kendall']:.3f}  "
            f"spearman {ns['spearman']:.3f} ns/element-scheme; old/new {case['speedup_old_over_new']:.3f}x; "
            f"Kendall/Spearman {case['kendall_over_spearman_before']:.2f} -> {case['kendall_over_spearman_after']:.2f}; "
            f"bit-identical {identical}",
            flush=True,
        )
    big = res["cases"][-1]["speedup_old_over_new"]
    res["kendall_stage_seconds_issue25"] = STAGE_SECONDS
    res["kendall_stage_seconds_estimated"] = STAGE_SECONDS / big
    res["kendall_stage_saving_seconds_estimated"] = STAGE_SECONDS * (1 - 1 / big)
    res["loadavg_after"] = os.getloadavg()
    print(
        f"Kendall quantile stage: {STAGE_SECONDS:.0f} s -> ~{STAGE_SECONDS / big:.0f} s "
        f"(saves ~{STAGE_SECONDS * (1 - 1 / big):.0f} s at the n = 3e4 speed-up); "
        f"load {res['loadavg_before'][0]:.2f} / {res['loadavg_after'][0]:.2f} on {os.cpu_count()} cores"
    )
    out = ROOT / "benchmarks" / "output" / "bench_kendall_kernel.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    return res


if __name__ == "__main__":
    main()
