"""Accuracy of ``weighted_correlation_test(method="table")`` against a large Monte Carlo (issue 10).

For every shipped table with null quantiles and held-out ranking lengths n (none of them an n
at which the table stores quantiles), a fresh Monte Carlo reference — its own seed and stream
(``stream_key(seed, coefficient, n, "reference")``, independent of the pipeline's training and
quantile streams), all schemes of a coefficient on the same permutations — gives reference tail
probabilities p_MC at γ = the reference's own quantiles for p in [0.001, 0.5] on both tails.
The table's p_table at the same γ must satisfy

* |p_table − p_MC| <= 0.005 for p_MC >= 0.05 and
* |p_table − p_MC| <= 10 % of p_MC for 0.001 <= p_MC < 0.05.

The reference sizes (default: 10⁷ up to n = 1000, then 3·10⁶ at n ≈ 2000 and 10⁶ beyond, the
issue's 10⁶-sample Monte Carlo) and the reference's own relative standard error at p = 0.001, sqrt((1 − p)/(p B)), are
reported beside every row: the comparison includes the reference's noise, it is not subtracted.

The references (γ and p_MC per row) are cached in ``benchmarks/output/significance_table_reference.npz``
(``--recompute`` to redo them), so the check of a changed table or model takes seconds.
Writes ``benchmarks/output/significance_table_accuracy.json`` and ``.md`` (``--output`` another stem, e.g. for a
second, independent reference: ``--seed 20261202 --n 30000 --coefficient kendall --output
significance_table_accuracy_seed2 --cache benchmarks/output/significance_table_reference_seed2.npz``).
Run: ``.venv/bin/python benchmarks/bench_significance_table_accuracy.py [--n 70,125,...] [--coefficient kendall]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from agreekit.ranking._quantile_model import quantile_model
from agreekit.ranking.tables import available_tables, load_table
from agreekit.ranking.tablegen.reproduction import pvalue_accuracy_row, pvalue_reference_rows
from agreekit.ranking.tablegen.sampling import sample_lanes, stream_key

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output"
HELD_OUT = (70, 125, 300, 1000, 2000, 5400, 12000, 20000, 30000)
SEED = 20261201


def reference_size(n: int) -> int:
    if n <= 1000:
        return 10_000_000
    if n <= 2500:
        return 3_000_000
    return 1_000_000


def compute_references(tabs, n_values, seed, cache):
    """{(scheme_id, n): (size, [(γ, p_MC)])}, from the cache or fresh Monte Carlo (one heavy job at a time)."""
    refs = {}
    if cache.exists():
        with np.load(cache) as z:
            for k in z.files:
                sid, n = k.rsplit("@", 1)
                a = z[k]
                if int(a[0, 0]) == reference_size(int(n)):  # a cached reference of another size is redone
                    refs[(sid, int(n))] = (int(a[0, 0]), [tuple(r) for r in a[1:]])
    by_coef = {}
    for t in tabs:
        by_coef.setdefault(t.coefficient, []).append(t)
    for coef, ts in sorted(by_coef.items()):
        for n in n_values:
            todo = [t for t in ts if (t.scheme_id, n) not in refs]
            if not todo:
                continue
            size = reference_size(n)
            t0 = time.perf_counter()
            samples = sample_lanes(
                coef,
                n=n,
                sizes=[size] * len(todo),
                lanes=[(t.weigher, t.scheme) for t in todo],
                key=stream_key(seed, coef, n, "reference"),
            )
            for t, g in zip(todo, samples):
                refs[(t.scheme_id, n)] = (size, pvalue_reference_rows(g))
            del samples
            print(f"reference {coef} n={n} size={size} x{len(todo)}: {time.perf_counter() - t0:.1f} s", flush=True)
            arrays = {
                f"{sid}@{k}": np.array([[sz, 0.0]] + [list(r) for r in rows]) for (sid, k), (sz, rows) in refs.items()
            }
            np.savez(cache, **arrays)
    return refs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default=",".join(map(str, HELD_OUT)))
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--coefficient", default=None, help="spearman or kendall (default both)")
    ap.add_argument("--tables", default=None, help="comma-separated scheme ids (default: all shipped)")
    ap.add_argument("--recompute", action="store_true", help="ignore the cached references")
    ap.add_argument("--cache", default=str(OUT / "significance_table_reference.npz"))
    ap.add_argument(
        "--output",
        default="significance_table_accuracy",
        help="file stem of the .json / .md written to benchmarks/output/",
    )
    args = ap.parse_args(argv)
    n_values = [int(v) for v in args.n.split(",")]
    ids = args.tables.split(",") if args.tables else available_tables()
    tabs = [load_table(sid) for sid in ids]
    tabs = [t for t in tabs if args.coefficient in (None, t.coefficient) and quantile_model(t) is not None]
    stored = {t.scheme_id: set(int(v) for v in quantile_model(t).nq.n) for t in tabs}
    bad = sorted({n for t in tabs for n in n_values if n in stored[t.scheme_id]})
    if bad:
        raise SystemExit(f"held-out n {bad} are stored n of a table (not held out)")
    cache = Path(args.cache)
    if args.recompute and cache.exists():
        cache.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    load0 = os.getloadavg()
    refs = compute_references(tabs, n_values, args.seed, cache)
    rows = []
    for t in tabs:
        for n in n_values:
            size, ref = refs[(t.scheme_id, n)]
            r = pvalue_accuracy_row(t, n, size, ref)
            rows.append(r)
            print(
                f"{t.scheme_id:45s} n={n:6d} B={size:9d} abs={r['max_abs_err']:.4f} "
                f"rel={r['max_rel_err']:.3f} {'ok' if r['pass'] else 'FAIL'}",
                flush=True,
            )
    out = {"n": n_values, "seed": args.seed, "loadavg_start": load0, "loadavg_end": os.getloadavg(), "rows": rows}
    (OUT / f"{args.output}.json").write_text(json.dumps(out, indent=1) + "\n")
    md = summary_markdown(rows)
    (OUT / f"{args.output}.md").write_text(md)
    print(md)


def summary_markdown(rows) -> str:
    npass = sum(r["pass"] for r in rows)
    n_abs = sum(r["max_abs_err"] <= 0.005 for r in rows)
    n_rel = sum(r["max_rel_err"] <= 0.10 for r in rows)
    lines = [
        "# Table p-values (shipped tables) vs a fresh Monte Carlo at held-out n",
        "",
        "Target: |p_table − p_MC| ≤ 0.005 for p ≥ 0.05, ≤ 10 % relative for 0.001 ≤ p < 0.05 (max over 15 "
        "probabilities × 2 tails). B = reference size; its relative SE at p = 0.001 is sqrt(0.999/(0.001 B)) "
        "(1.0 % at 10⁷, 1.8 % at 3·10⁶, 3.2 % at 10⁶) and is part of the measured error.",
        "",
        f"Passed both criteria: {npass}/{len(rows)}; absolute: {n_abs}/{len(rows)} "
        f"(max {max(r['max_abs_err'] for r in rows):.4f}); relative: {n_rel}/{len(rows)} "
        f"(max {max(r['max_rel_err'] for r in rows):.3f}).",
        "",
    ]
    ns = sorted({r["n"] for r in rows})
    lines += [
        "Per n, also the table's own relative standard error at p = 0.001 (from `pvalue_se`: the effective number "
        "of permutations N_eff of the fit it uses; median over the tables) and the calibration of that error: "
        "z = (p_table − p_MC) / sqrt(p(1 − p)(1/N_eff + 1/B)) over all rows with p ≥ 0.001, RMS and max |z| "
        "(about 1 and 3 if the sampling error is all there is; larger means interpolation error).",
        "",
        "| n | B | rel SE of B at p = 0.001 | rel SE of table at p = 0.001 | passed | worst abs | worst rel | "
        "RMS z | max \\|z\\| |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n in ns:
        rr = [r for r in rows if r["n"] == n]
        for c in ("spearman", "kendall"):
            rc = [r for r in rr if r["scheme_id"].startswith(c)]
            if not rc:
                continue
            zall = np.array([d["z"] for r in rc for d in r["detail"] if d["p_mc"] >= 0.001])
            lines.append(
                f"| {n} {c} | {rc[0]['size']:.0e} | {rc[0]['ref_rel_se_p001']:.3f} | "
                f"{np.median([r['table_rel_se_p001'] for r in rc]):.3f} | {sum(r['pass'] for r in rc)}/{len(rc)} | "
                f"{max(r['max_abs_err'] for r in rc):.4f} | "
                f"{max(r['max_rel_err'] for r in rc):.3f} | "
                f"{np.sqrt(np.mean(zall**2)):.2f} | {np.max(np.abs(zall)):.1f} |"
            )
    lines += [
        "",
        "| table | n | B | max abs err (p ≥ 0.05) | max rel err (0.001 ≤ p < 0.05) | pass |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['scheme_id']} | {r['n']} | {r['size']:.0e} | {r['max_abs_err']:.4f} | "
            f"{r['max_rel_err']:.3f} | {'yes' if r['pass'] else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
