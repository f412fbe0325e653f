"""Comparison of generated coefficient tables with the paper: Tables 1–5, reproduction report.

Used by the pipeline's render / validate / reproduction rules.  Inputs are table dicts
(as written by :func:`agreekit.ranking.tablegen.generation.assemble_table`) and the paper's printed values
(``resources/ranking/*.csv``, see the README there).

* :func:`render_paper_tables` — Tables 1–5 with our values beside the paper's, as
  Markdown, LaTeX and CSV.
* :func:`held_out_check` — E[g(Γ)] by fresh Monte Carlo at ranking lengths not in the
  training grid, for ``form="corrected"`` and ``form="paper"``.
* :func:`reproduction_report` — ``results/reproduction.md``.
"""
from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "PAPER_TABLES",
    "read_paper_values",
    "read_paper_degrees",
    "render_paper_tables",
    "exact_comparison",
    "fit_comparison",
    "held_out_check",
    "stage_times",
    "reproduction_report",
]

#: paper table number -> (coefficient, scheme); columns are the four weighers below
PAPER_TABLES = {2: ("spearman", "additive"), 3: ("spearman", "multiplicative"),
                4: ("kendall", "additive"), 5: ("kendall", "multiplicative")}
PAPER_WEIGHERS = ("harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2")
_QLABEL = {"mean": ("Γ̄", "y", r"\bar\Gamma"), "var": ("V", "z", "V"), "left_var": ("V^ℓ", "w", r"V^\ell")}


def _key(coefficient, scheme, weigher):
    return (coefficient, scheme, weigher)


def read_paper_values(path) -> dict:
    """``{(coef, scheme, weigher): {quantity: {"exact": {n: str}, "coefficient": {d: str}, "n_max": str,
    "is_log": str}}}`` from ``paper_tables2_5.csv`` (values kept as printed strings)."""
    out: dict = {}
    with open(path, newline="", encoding="utf-8-sig") as fh:
        for r in csv.DictReader(fh):
            q = out.setdefault(_key(r["coefficient"], r["scheme"], r["weigher"]), {}).setdefault(
                r["quantity"], {"exact": {}, "coefficient": {}})
            if r["kind"] in ("exact", "coefficient"):
                q[r["kind"]][int(r["index"])] = r["value"]
            else:
                q[r["kind"]] = r["value"]
    return out


def read_paper_degrees(path) -> dict:
    """``{(coef, scheme, weigher): {"mean": D, "var": D, "left_var": D}}`` from Table 1's CSV."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return {_key(r["coefficient"], r["scheme"], r["weigher"]):
                {q: int(r[q]) for q in ("mean", "var", "left_var")} for r in csv.DictReader(fh)}


def _by_key(tables: Sequence[Mapping]) -> dict:
    return {_key(t["coefficient"], t["scheme"], t["weigher"]): t for t in tables}


def _fmt(x, digits=7):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}f}" if abs(x) < 1e3 else f"{x:.6g}"


def _weigher_label(w):
    if w == "harmonic":
        return "1/i"
    if w.startswith("inverse_square:n0="):
        return f"1/(i+{w.split('=')[1]})^2"
    return w


def _write_all(outdir: Path, stem: str, title: str, header: list[str], rows: list[list[str]]):
    outdir.mkdir(parents=True, exist_ok=True)
    from agreekit._io import atomic_write

    md = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    with atomic_write(outdir / f"{stem}.md") as fh:
        fh.write("\n".join(md) + "\n")

    def tex(s):
        return (s.replace("\\", r"\textbackslash{}").replace("_", r"\_").replace("^", r"\^{}")
                .replace("Γ̄", r"$\bar\Gamma$").replace("V^ℓ", r"$V^\ell$").replace("—", "--")
                .replace("&", r"\&").replace("#", r"\#").replace("%", r"\%"))

    lines = [f"% {title}", r"\begin{tabular}{" + "l" * len(header) + "}", r"\hline",
             " & ".join(tex(h) for h in header) + r" \\", r"\hline"]
    lines += [" & ".join(tex(c) for c in r) + r" \\" for r in rows]
    lines += [r"\hline", r"\end{tabular}"]
    with atomic_write(outdir / f"{stem}.tex") as fh:
        fh.write("\n".join(lines) + "\n")
    with atomic_write(outdir / f"{stem}.csv", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def render_paper_tables(tables: Sequence[Mapping], paper_values: Mapping, paper_degrees: Mapping,
                        outdir) -> None:
    """Write ``table1..table5.{md,tex,csv}`` into ``outdir`` (our value beside the paper's).

    Configurations absent from ``tables`` are shown as "—" in the "ours" columns.
    """
    outdir = Path(outdir)
    ours = _by_key(tables)
    # ---- Table 1: degrees
    header = ["coefficient", "scheme", "f(i)", "D_γ ours", "D_γ paper", "D_v ours", "D_v paper",
              "D_v^ℓ ours", "D_v^ℓ paper"]
    rows = []
    keys = list(paper_degrees) + [k for k in ours if k not in paper_degrees]
    for k in keys:
        t = ours.get(k)
        p = paper_degrees.get(k, {})
        row = [k[0], k[1], _weigher_label(k[2])]
        for q in ("mean", "var", "left_var"):
            row += [str(t["fits"][q]["degree"]) if t else "—", str(p.get(q, "—"))]
        rows.append(row)
    _write_all(outdir, "table1", "Table 1: selected polynomial degrees (ours vs paper)", header, rows)
    # ---- Tables 2-5
    for num, (coef, scheme) in PAPER_TABLES.items():
        header = ["row"]
        for w in PAPER_WEIGHERS:
            header += [f"{_weigher_label(w)} ours", f"{_weigher_label(w)} paper"]
        rows = []
        for q in ("mean", "var", "left_var"):
            sym, letter, _ = _QLABEL[q]
            n_exact = max([ours[_key(coef, scheme, w)]["n_exact"] for w in PAPER_WEIGHERS
                           if _key(coef, scheme, w) in ours] + [10])
            for n in range(3, n_exact + 1):
                row = [f"{sym}_{n}"]
                for w in PAPER_WEIGHERS:
                    t = ours.get(_key(coef, scheme, w))
                    val = None
                    if t and n in t["exact"]["n"]:
                        val = t["exact"][q][t["exact"]["n"].index(n)]
                    pv = paper_values.get(_key(coef, scheme, w), {}).get(q, {}).get("exact", {}).get(n, "—")
                    row += [_fmt(val), pv]
                rows.append(row)
            row_nmax, row_log = [f"n_max^{q}"], [f"is_log^{q}"]
            for w in PAPER_WEIGHERS:
                t = ours.get(_key(coef, scheme, w))
                p = paper_values.get(_key(coef, scheme, w), {}).get(q, {})
                row_nmax += [str(t["fits"][q]["n_max"]) if t else "—", p.get("n_max", "—")]
                row_log += [str(t["fits"][q]["transform"] == "inv_log_n") if t else "—", p.get("is_log", "—")]
            rows += [row_nmax, row_log]
            dmax = 0
            for w in PAPER_WEIGHERS:
                t = ours.get(_key(coef, scheme, w))
                p = paper_values.get(_key(coef, scheme, w), {}).get(q, {}).get("coefficient", {})
                dmax = max(dmax, (t["fits"][q]["degree"] if t else 0), max(p, default=0))
            for d in range(dmax + 1):
                row = [f"{letter}_{d}"]
                for w in PAPER_WEIGHERS:
                    t = ours.get(_key(coef, scheme, w))
                    c = t["fits"][q]["coefficients"] if t else []
                    p = paper_values.get(_key(coef, scheme, w), {}).get(q, {}).get("coefficient", {})
                    row += [f"{c[d]:.7g}" if d < len(c) else "—", p.get(d, "—")]
                rows.append(row)
        _write_all(outdir, f"table{num}", f"Table {num}: {coef}, {scheme} weighting scheme (ours vs paper)",
                   header, rows)


def _round_half_even_str(x: float, digits: int = 7) -> float:
    return float(f"{x:.{digits}f}")


def exact_comparison(tables: Sequence[Mapping], paper_values: Mapping) -> dict:
    """Count exact values equal to the paper's at the printed precision (rounded to 7 decimals).

    Returns ``{"matched": int, "compared": int, "mismatches": [...]}``.
    """
    matched = compared = 0
    mism = []
    for t in tables:
        p = paper_values.get(_key(t["coefficient"], t["scheme"], t["weigher"]))
        if not p:
            continue
        for q in ("mean", "var", "left_var"):
            for n, printed in p[q]["exact"].items():
                if n not in t["exact"]["n"]:
                    continue
                ours = t["exact"][q][t["exact"]["n"].index(n)]
                compared += 1
                if abs(_round_half_even_str(ours) - float(printed)) < 5e-9:
                    matched += 1
                else:
                    mism.append((t["scheme_id"], q, n, ours, printed))
    return {"matched": matched, "compared": compared, "mismatches": mism}


def _paper_poly(pq: Mapping, n):
    coefs = [float(pq["coefficient"][d]) for d in sorted(pq["coefficient"])]
    x = 1.0 / np.log(n) if pq.get("is_log") == "True" else 1.0 / n
    return np.polynomial.polynomial.polyval(x, coefs)


def fit_comparison(tables: Sequence[Mapping], paper_values: Mapping, *, n_points: int = 400) -> list[dict]:
    """Max |ours − paper| of the fitted curves over n ∈ [n_exact+1, n_max] per scheme and quantity."""
    from agreekit.ranking.tables import CoefficientTable

    out = []
    for t in tables:
        p = paper_values.get(_key(t["coefficient"], t["scheme"], t["weigher"]))
        if not p:
            continue
        tab = CoefficientTable(t)
        n_lo = t["n_exact"] + 1
        ns = np.unique(np.round(np.geomspace(n_lo, t["n_max"], n_points)).astype(int))
        for k, q in enumerate(("mean", "var", "left_var")):
            ours = np.array([getattr(tab.moments(int(n)), q) for n in ns])
            paper = _paper_poly(p[q], ns.astype(float))
            diff = np.abs(ours - paper)
            i = int(np.argmax(diff))
            out.append({"scheme_id": t["scheme_id"], "quantity": q, "n_range": (int(ns[0]), int(ns[-1])),
                        "max_abs_diff": float(diff[i]), "at_n": int(ns[i]),
                        "ours_transform": t["fits"][q]["transform"],
                        "paper_is_log": p[q].get("is_log")})
    return out


def held_out_check(table: Mapping, n_values: Sequence[int], *, size: int, seed: int,
                   batch_elements: int = 4_000_000) -> list[dict]:
    """Fresh Monte Carlo E[g(Γ)] at held-out ranking lengths for both forms of g.

    The stream is seeded from ``(seed, scheme_id + "/validation", n)`` so it is independent
    of the training samples.  Returns one dict per n with the raw mean, the means of g for
    ``form="corrected"`` and ``form="paper"``, and their standard errors.
    """
    from agreekit.ranking.tablegen.sampling import sample_coefficient, seed_sequence
    from agreekit.ranking.tables import CoefficientTable

    tab = CoefficientTable(table)
    out = []
    for n in n_values:
        n = int(n)
        rng = np.random.Generator(np.random.PCG64(seed_sequence(seed, table["scheme_id"] + "/validation", n)))
        gam = sample_coefficient(table["coefficient"], n=n, size=size, weigher=table["weigher"],
                                 scheme=table["scheme"], rng=rng, batch_elements=batch_elements)
        m = tab.moments(n, extrapolate=True)
        row = {"n": n, "source": m.source, "in_training_grid": n in table["samples"]["n"],
               "beyond_n_max": n > table["n_max"], "size": size,
               "raw_mean": float(gam.mean()), "raw_se": float(gam.std() / math.sqrt(size)),
               "table_mean": m.mean}
        for form in ("corrected", "paper"):
            try:
                g = tab.standardization_function(n, form=form, extrapolate=True)
                gv = np.asarray(g(gam), dtype=float)
                row[f"g_mean_{form}"] = float(gv.mean())
                row[f"g_se_{form}"] = float(gv.std() / math.sqrt(size))
                row[f"flat_{form}"] = bool(getattr(g, "flat", False))
            except ValueError as exc:  # BoundConsistencyError is a ValueError
                row[f"g_mean_{form}"] = None
                row[f"g_se_{form}"] = None
                row[f"error_{form}"] = f"{type(exc).__name__}: {exc}"
        out.append(row)
    return out


def stage_times(benchmark_files: Sequence[str]) -> list[dict]:
    """Sum Snakemake ``benchmark:`` wall times per stage (the directory name under the benchmark root)."""
    acc: dict[str, list[float]] = {}
    for f in benchmark_files:
        stage = Path(f).parent.name
        with open(f) as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        if rows:
            acc.setdefault(stage, []).append(float(rows[0]["s"]))
    return [{"stage": s, "jobs": len(v), "total_s": sum(v), "max_s": max(v)} for s, v in acc.items()]


def _md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def reproduction_report(tables: Sequence[Mapping], paper_values: Mapping, paper_degrees: Mapping,
                        validation: Mapping[str, list], *, config_note: str = "") -> str:
    """The Markdown text of ``results/reproduction.md``."""
    ex = exact_comparison(tables, paper_values)
    fits = fit_comparison(tables, paper_values)
    out = ["# Reproduction of the paper's tables (Standardization of Weighted Ranking Correlation Coefficients)",
           "", config_note, ""]
    out += ["## 1. Exact moments vs Tables 2–5", "",
            f"Exact rows equal to the printed values (our value rounded to 7 decimals): "
            f"**{ex['matched']}/{ex['compared']}**" + (" (the paper prints 384)." if ex["compared"] else "."), ""]
    if ex["mismatches"]:
        out += [_md_table(["scheme", "quantity", "n", "ours", "paper"],
                          [(a, b, c, f"{d:.10f}", e) for a, b, c, d, e in ex["mismatches"]]), ""]
    out += ["## 2. Fitted curves vs the paper's printed polynomials", "",
            "Max |ours − paper| over n ∈ [n_exact+1, n_max] (400 log-spaced n) per quantity. The paper's "
            "polynomials are evaluated with its printed (rounded/truncated) coefficients and is_log flags.", ""]
    rows = [(f["scheme_id"], f["quantity"], f"{f['n_range'][0]}–{f['n_range'][1]}", f"{f['max_abs_diff']:.2e}",
             f["at_n"], f["ours_transform"], f["paper_is_log"]) for f in fits]
    out += [_md_table(["scheme", "quantity", "n range", "max abs diff", "at n", "our x(n)", "paper is_log"], rows), ""]
    if fits:
        for q in ("mean", "var", "left_var"):
            vals = [f["max_abs_diff"] for f in fits if f["quantity"] == q]
            out.append(f"* {q}: worst case over the schemes {max(vals):.2e}, median {np.median(vals):.2e}")
        out.append("")
    out += ["## 3. Selected degrees vs Table 1", ""]
    rows, agree, total = [], 0, 0
    for t in tables:
        k = _key(t["coefficient"], t["scheme"], t["weigher"])
        p = paper_degrees.get(k)
        if not p:
            continue
        cells = []
        for q in ("mean", "var", "left_var"):
            d = t["fits"][q]["degree"]
            total += 1
            agree += d == p[q]
            cells.append(f"{d} / {p[q]}" + ("" if d == p[q] else " ≠"))
        rows.append((t["scheme_id"], *cells))
    out += [f"Degrees equal to Table 1: **{agree}/{total}** (ours / paper).", "",
            _md_table(["scheme", "D_γ", "D_v", "D_v^ℓ"], rows), "",
            "Table 1 itself is inconsistent with Tables 2–4 for three D_v^ℓ cells (Spearman/additive/n0=2: 5, "
            "Spearman/multiplicative/n0=1: 6, Kendall/additive/n0=2: 5), whose printed coefficients are degree-2 "
            "fits; the authors' own selection rule on their own data gives 2 there. Our pipeline applies the "
            "rule of Section 4.2.3 to our own samples and does not copy either; the sampled data differ from "
            "the authors' (independent random streams), so degrees can differ where the MSE ratios are close "
            "to the thresholds.", ""]
    out += ["## 4. E[g(Γ)] at held-out n (fresh Monte Carlo)", "",
            "Mean of g(Γ) over fresh uniform random permutations at ranking lengths not in the training grid, "
            "for the corrected B, C (`form=\"corrected\"`) and the paper's printed Eq. 30/32 "
            "(`form=\"paper\"`); ± one standard error. The raw mean shows the size of the shift removed.", ""]
    rows = []
    worst = {"corrected": 0.0, "paper": 0.0}
    for sid in sorted(validation):
        for r in validation[sid]:
            cells = []
            for form in ("corrected", "paper"):
                m, se = r.get(f"g_mean_{form}"), r.get(f"g_se_{form}")
                if m is None:
                    cells.append(r.get(f"error_{form}", "error"))
                else:
                    cells.append(f"{m:+.4f} ± {se:.4f}")
                    worst[form] = max(worst[form], abs(m))
            note = "extrapolated" if r["beyond_n_max"] else ("in grid" if r["in_training_grid"] else "held out")
            rows.append((sid, r["n"], note, f"{r['raw_mean']:+.4f}", *cells))
    out += [_md_table(["scheme", "n", "n status", "raw mean Γ", "E[g] corrected", "E[g] paper"], rows), "",
            f"Worst |E[g]|: corrected {worst['corrected']:.4f}, paper {worst['paper']:.4f}.", ""]
    return "\n".join(out)
