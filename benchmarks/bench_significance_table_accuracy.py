"""Accuracy of ``weighted_correlation_test(method="table")`` against a large Monte Carlo (issue 10).

For every shipped table with null quantiles (schema >= 1.1) and held-out ranking lengths n
(not training lengths of the table), a fresh Monte Carlo sample of 10⁶ permutations (its own
seed stream, independent of the pipeline's) gives reference tail probabilities p_MC at
γ = its own quantiles for p in [0.001, 0.5] on both tails; the table's p_table at the same γ
must satisfy |p_table - p_MC| <= 0.005 for p_MC >= 0.05 and <= 10 % of p_MC for
0.001 <= p_MC < 0.05.  The reference's own standard error, sqrt(p(1-p)/10⁶), is reported
beside every row (3 % of p at p = 0.001).

Writes ``benchmarks/output/significance_table_accuracy.json`` and ``.md``.
Run: ``.venv/bin/python benchmarks/bench_significance_table_accuracy.py [--size 1000000] [--n 31,200,500]``.

``--synthetic SIZE`` checks the method itself before tables with quantiles exist: for every
configuration it builds a table whose null quantiles (and ``samples`` block) come from SIZE
fresh permutations per training length n <= 146 (the pipeline's grid), shared by all
configurations, and checks it at held-out n = 20, 45, 100 against 10⁶ other permutations.
Output: ``significance_table_accuracy_synthetic.json`` / ``.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from agreekit.ranking import significance as S
from agreekit.ranking.tables import available_tables, load_table
from agreekit.ranking.tablegen.sampling import sample_coefficient

ROOT = Path(__file__).resolve().parents[1]
PROBS = (0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.2, 0.35, 0.5)


def check_table(tab, n_values, *, size, seed):
    model = S._quantile_model(tab)
    train = set(int(v) for v in model.nq.n)
    rows = []
    for n in n_values:
        if n in train or not model.n_lo <= n <= model.n_hi:
            continue
        t0 = time.perf_counter()
        ref = np.sort(sample_coefficient(tab.coefficient, n=n, size=size, weigher=tab.weigher,
                                         scheme=tab.scheme, rng=np.random.default_rng([seed, n, 10])))
        worst_abs = worst_rel = 0.0
        detail = []
        for p in PROBS:
            for side in ("less", "greater"):
                g = float(np.quantile(ref, p if side == "less" else 1 - p))
                p_mc = float(np.mean(ref <= g) if side == "less" else np.mean(ref >= g))
                p_ge, p_le = model.tails(n, g)
                p_tab = p_le if side == "less" else p_ge
                err = p_tab - p_mc
                if p_mc >= 0.05:
                    worst_abs = max(worst_abs, abs(err))
                elif p_mc >= 0.001:
                    worst_rel = max(worst_rel, abs(err) / p_mc)
                detail.append({"side": side, "gamma": g, "p_mc": p_mc, "p_table": p_tab,
                               "se_mc": float(np.sqrt(p_mc * (1 - p_mc) / size))})
        rows.append({"scheme_id": tab.scheme_id, "n": n, "size": size, "max_abs_err_p_ge_0.05": worst_abs,
                     "max_rel_err_0.001_le_p_lt_0.05": worst_rel,
                     "pass": bool(worst_abs <= 0.005 and worst_rel <= 0.10),
                     "seconds": time.perf_counter() - t0, "detail": detail})
        print(f"{tab.scheme_id:45s} n={n:6d} abs={worst_abs:.4f} rel={worst_rel:.3f} "
              f"{'ok' if rows[-1]['pass'] else 'FAIL'}", flush=True)
    return rows


SYNTH_TRAIN_N = [11, 14, 18, 23, 30, 39, 51, 67, 87, 112, 146]


def _shared_samples(tabs, n, size, seed, batch=20_000):
    """Γ of every table's configuration on the same ``size`` random permutations of length n."""
    from agreekit.ranking.correlation import batch_coefficient
    from agreekit.ranking.tablegen.sampling import random_permutations

    rng = np.random.default_rng([seed, n])
    out = {t.scheme_id: np.empty(size) for t in tabs}
    for s0 in range(0, size, batch):
        k = min(batch, size - s0)
        perms = random_permutations(rng, k, n)
        for t in tabs:
            out[t.scheme_id][s0:s0 + k] = batch_coefficient(perms, coefficient=t.coefficient, weigher=t.weigher,
                                                            scheme=t.scheme)
    return out


def synthetic_tables(size, seed):
    import copy

    from agreekit.ranking.tables import CoefficientTable

    tabs = [load_table(sid) for sid in available_tables()]
    samples = {n: _shared_samples(tabs, n, size, seed) for n in SYNTH_TRAIN_N}
    out = []
    for tab in tabs:
        d = copy.deepcopy(tab.data)
        smp = {n: samples[n][tab.scheme_id] for n in SYNTH_TRAIN_N}
        block = S.null_quantile_block(smp)
        fm = [tab.moments(n).mean for n in SYNTH_TRAIN_N]
        d["samples"] = {"n": SYNTH_TRAIN_N, "size": block["size"],
                        "mean": [float(np.mean(smp[n])) for n in SYNTH_TRAIN_N], "se": [0.0] * len(fm),
                        "fitted_mean": fm, "var": [float(np.mean((smp[n] - m) ** 2)) for n, m in zip(SYNTH_TRAIN_N, fm)],
                        "left_var": [0.0] * len(fm)}
        d["null_quantiles"] = block
        out.append(CoefficientTable(d, None))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--n", default="31,200,500,2000")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--tables", default=None, help="comma-separated scheme ids (default: all shipped)")
    ap.add_argument("--synthetic", type=int, default=0, help="training sample size of synthetic tables (see above)")
    ap.add_argument("--tag", default="", help="suffix of the output files (to run subsets in parallel)")
    args = ap.parse_args(argv)
    n_values = [int(v) for v in args.n.split(",")]
    out = {"size": args.size, "n": n_values, "loadavg_start": os.getloadavg(), "rows": [], "without_quantiles": []}
    if args.synthetic:
        n_values = [20, 45, 100]
        out.update(n=n_values, synthetic_training_size=args.synthetic, synthetic_training_n=SYNTH_TRAIN_N)
        tabs = synthetic_tables(args.synthetic, args.seed + 1)
        if args.tables:
            tabs = [t for t in tabs if t.scheme_id in args.tables.split(",")]
    else:
        ids = args.tables.split(",") if args.tables else available_tables()
        tabs = [load_table(sid) for sid in ids]
    for tab in tabs:
        if S._quantile_model(tab) is None:
            out["without_quantiles"].append(tab.scheme_id)
            continue
        out["rows"].extend(check_table(tab, n_values, size=args.size, seed=args.seed))
    out["loadavg_end"] = os.getloadavg()
    stem = "significance_table_accuracy" + ("_synthetic" if args.synthetic else "") + (f"_{args.tag}" if args.tag else "")
    dest = ROOT / "benchmarks" / "output" / f"{stem}.json"
    dest.write_text(json.dumps(out, indent=1) + "\n")
    title = "# Table p-values vs a 10⁶-sample Monte Carlo at held-out n"
    if args.synthetic:
        title += (f" (synthetic tables: {args.synthetic} permutations per training n in {SYNTH_TRAIN_N})")
    lines = [title, "", f"Load average at start / end: {out['loadavg_start'][0]:.1f} / {out['loadavg_end'][0]:.1f}.", "",
             "Target: |p_table − p_MC| ≤ 0.005 for p ≥ 0.05, ≤ 10 % relative for 0.001 ≤ p < 0.05.", "",
             "| table | n | max abs err (p ≥ 0.05) | max rel err (0.001 ≤ p < 0.05) | pass |", "|---|---|---|---|---|"]
    for r in out["rows"]:
        lines.append(f"| {r['scheme_id']} | {r['n']} | {r['max_abs_err_p_ge_0.05']:.4f} | "
                     f"{r['max_rel_err_0.001_le_p_lt_0.05']:.3f} | {'yes' if r['pass'] else 'NO'} |")
    if out["without_quantiles"]:
        lines += ["", "Tables without null quantiles (schema 1.0): " + ", ".join(out["without_quantiles"])]
    (dest.with_suffix(".md")).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
