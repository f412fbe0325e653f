"""Comparison of the shipped tables with the paper (Tables 1-5) and the held-out E[g] check."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from agreekit.ranking.tablegen.reproduction import (
    exact_comparison,
    fit_comparison,
    held_out_check,
    read_paper_degrees,
    read_paper_values,
    render_paper_tables,
    reproduction_report,
)

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources" / "ranking"
TABLES = [json.loads(p.read_text()) for p in sorted((ROOT / "src" / "agreekit" / "data" / "tables").glob("*.json"))]


@pytest.fixture(scope="module")
def paper():
    return read_paper_values(RES / "paper_tables2_5.csv"), read_paper_degrees(RES / "paper_table1_degrees.csv")


def test_paper_csv_transcription(paper):
    values, degrees = paper
    assert len(values) == 16 and len(degrees) == 16
    assert sum(len(q["exact"]) for v in values.values() for q in v.values()) == 384
    assert sum(len(q["coefficient"]) for v in values.values() for q in v.values()) == 187
    # spot checks against the printed tables
    assert values[("spearman", "additive", "inverse_square:n0=2")]["left_var"]["coefficient"] == {
        0: "0.003742",
        1: "0.728583",
        2: "-1.128635",
    }
    assert values[("kendall", "multiplicative", "harmonic")]["mean"]["is_log"] == "True"
    assert degrees[("spearman", "additive", "inverse_square:n0=2")] == {"mean": 4, "var": 3, "left_var": 5}
    # the printed exact values equal the brute-force column of the notes' CSV at 7 decimals
    with open(RES / "exact_moments_n3_10.csv") as fh:
        for r in csv.DictReader(fh):
            assert abs(float(r["paper"]) - float(r["ours"])) < 5.1e-8


def test_exact_rows_384_of_384(paper):
    res = exact_comparison(TABLES, paper[0])
    assert (res["matched"], res["compared"]) == (384, 384)


def test_fitted_curves_close_to_the_papers_polynomials(paper):
    rows = fit_comparison(TABLES, paper[0])
    assert len(rows) == 48
    worst = {q: max(r["max_abs_diff"] for r in rows if r["quantity"] == q) for q in ("mean", "var", "left_var")}
    # independent samples and degree choices, same procedure.  Measured worst differences 0.0267 / 0.0130 /
    # 0.0056; no independent reference bounds the paper's own sampling error (its curves are 3-240 of our
    # fit SEs away), so this is a regression guard at the measured values plus 10 %, not an accuracy claim
    assert worst["mean"] < 0.030 and worst["var"] < 0.0145 and worst["left_var"] < 0.0062
    # the shipped tables choose their basis by held-out error; where it is one of the paper's two, compare
    by = {(t["scheme_id"], q): t["fits"][q] for t in TABLES for q in ("mean", "var", "left_var")}
    for r in rows:
        if by[(r["scheme_id"], r["quantity"])].get("method", "paper_4.2.3") == "paper_4.2.3":
            assert (r["ours_transform"] == "inv_log_n") == (r["paper_is_log"] == "True")
        else:
            assert r["max_diff_in_se"] is not None and r["max_diff_in_se"] >= 0


def test_render_paper_tables(tmp_path, paper):
    render_paper_tables(TABLES, paper[0], paper[1], tmp_path)
    for k in range(1, 6):
        for ext in ("md", "tex", "csv"):
            assert (tmp_path / f"table{k}.{ext}").stat().st_size > 200
    with open(tmp_path / "table2.csv") as fh:
        rows = {r[0]: r for r in csv.reader(fh)}
    assert rows["Γ̄_10"][1:3] == ["-0.1156932", "-0.1156932"]  # ours (rounded) | paper, 1/i column
    assert rows["V^ℓ_3"][7:9] == ["0.2441574", "0.2441574"]
    t1 = (tmp_path / "table1.md").read_text()
    assert t1.count("\n|") == 18  # header, separator, 16 configurations
    assert "\\begin{tabular}" in (tmp_path / "table3.tex").read_text()


def test_held_out_expected_value_of_g(paper):
    from _independent_null import null_sample

    from agreekit.ranking import standardization_function

    tab = next(t for t in TABLES if t["scheme_id"] == "kendall_multiplicative_inverse_square-n0=0")
    # 4e4 permutations (SE of E[g] ~0.0016) drawn by the independent sampler of tests/_independent_null.py
    # (numpy permutations, coefficient checked against scipy.stats.weightedtau), not the fused kernel that
    # drew the table's training samples: the README's held-out criterion |E[g]| <= 0.002 + 3 SE
    n, size = 200, 40_000
    assert n not in tab["samples"]["n"]
    gam = null_sample("kendall", "multiplicative", "inverse_square:n0=0", n, size, np.random.default_rng([11, n]))
    kw = dict(coefficient="kendall", scheme="multiplicative", weigher="inverse_square:n0=0", n=n)
    ind = {}
    for form in ("corrected", "paper"):
        gv = np.asarray(standardization_function(form=form, **kw)(gam), dtype=float)
        ind[form] = (float(gv.mean()), float(gv.std() / np.sqrt(size)))
    assert ind["corrected"][1] < 0.002
    assert abs(ind["corrected"][0]) <= 0.002 + 3 * ind["corrected"][1]
    assert ind["paper"][0] < -0.1  # the printed formulas leave a large negative bias here
    # the pipeline's held-out check (fused sampler) estimates the same E[g]: within 4 SE of both samples
    rows = held_out_check(tab, [n], size=10_000, seed=11)
    r = rows[0]
    assert not r["in_training_grid"] and r["source"] == "fit"
    for form in ("corrected", "paper"):
        m, se = ind[form]
        assert abs(r[f"g_mean_{form}"] - m) <= 4 * np.hypot(se, r[f"g_se_{form}"]), form
    text = reproduction_report(TABLES, paper[0], paper[1], {tab["scheme_id"]: rows})
    assert "**384/384**" in text and "E[g] corrected" in text
    assert np.isfinite(r["raw_mean"])
