"""`agreekit rbo` and `agreekit ap` through a subprocess, against values computed here from the definitions."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import pytest
from scipy.stats import combine_pvalues


def run(*argv, stdin=None):
    r = subprocess.run(
        [sys.executable, "-m", "agreekit", *argv],
        capture_output=True,
        text=True,
        input=stdin,
        env={"NUMBA_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    return r.returncode, r.stdout, r.stderr


def webber_untied(S, L, p):
    """(ext, min) of untied lists from explicit prefix overlaps (Webber et al. Eq. 32 and Eq. 11)."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    X = [0] + [len(set(S[: min(d, s)]) & set(L[:d])) for d in range(1, l + 1)]
    w = (1 - p) / p
    head = sum(X[d] / d * p**d for d in range(1, l + 1))
    mn = w * (head + X[l] * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1))))
    ext = (
        w * (head + sum(X[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1)))
        + ((X[l] - X[s]) / l + X[s] / s) * p**l
    )
    return ext, mn


RUN_A = """\
1 Q0 d1 1 9.0 sysA
1 Q0 d2 2 8.0 sysA
1 Q0 d3 3 7.0 sysA
1 Q0 d4 4 6.0 sysA
2 Q0 e1 1 5.0 sysA
2 Q0 e2 2 4.0 sysA
3 Q0 f1 1 1.0 sysA
"""
RUN_B = """\
1 Q0 d2 1 3.0 sysB
1 Q0 d1 2 2.5 sysB
1 Q0 d9 3 2.0 sysB
2 Q0 e2 1 5.0 sysB
2 Q0 e7 2 4.0 sysB
2 Q0 e1 3 3.0 sysB
4 Q0 g1 1 1.0 sysB
"""


def test_rbo_runs_topic_by_topic(tmp_path):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    code, out, err = run("rbo", str(a), str(b), "--p", "0.8")
    assert code == 0 and err == "", err
    res = json.loads(out)
    topics = {r["topic"]: r for r in res["topics"]}
    assert set(topics) == {"1", "2"} and res["only_in_a"] == ["3"] and res["only_in_b"] == ["4"]
    ref1 = webber_untied(["d1", "d2", "d3", "d4"], ["d2", "d1", "d9"], 0.8)
    ref2 = webber_untied(["e1", "e2"], ["e2", "e7", "e1"], 0.8)
    assert topics["1"]["ext"] == pytest.approx(ref1[0], abs=1e-12)
    assert topics["1"]["min"] == pytest.approx(ref1[1], abs=1e-12)
    assert topics["2"]["ext"] == pytest.approx(ref2[0], abs=1e-12)
    assert res["mean"]["ext"] == pytest.approx((ref1[0] + ref2[0]) / 2, abs=1e-12)
    # --depth cuts both lists
    code, out, _ = run("rbo", str(a), str(b), "--p", "0.8", "--depth", "2")
    t1 = {r["topic"]: r for r in json.loads(out)["topics"]}["1"]
    assert t1["ext"] == pytest.approx(webber_untied(["d1", "d2"], ["d2", "d1"], 0.8)[0], abs=1e-12)


def test_rbo_n_items_adds_tests_and_fisher_combination(tmp_path):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    code, out, err = run(
        "rbo", str(a), str(b), "--n-items", "10", "--rng", "3", "-o", str(tmp_path / "o.json"), "--quiet"
    )
    assert code == 0 and out == "" and err == ""
    res = json.loads((tmp_path / "o.json").read_text())
    pv = [t["pvalue"] for t in res["topics"]]
    assert all(t["method"] == "exact" for t in res["topics"])
    assert res["combined"]["method"] == "fisher"
    # Fisher: -2 Σ ln p ~ χ²(2k)
    from scipy.stats import chi2

    assert res["combined"]["pvalue"] == pytest.approx(
        chi2.sf(-2 * sum(math.log(v) for v in pv), 2 * len(pv)), rel=1e-12
    )
    assert res["combined"]["pvalue"] == pytest.approx(combine_pvalues(pv, method="fisher").pvalue, rel=1e-12)
    # csv: one row per topic, the mean, the topics in one run only, the combined p-value
    code, out, err = run("rbo", str(a), str(b), "--n-items", "10", "--format", "csv", "--rng", "3")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["topic"] for r in rows] == ["1", "2", "mean", "3", "4", "combined"]
    assert rows[3]["only_in"] == "A" and rows[4]["only_in"] == "B"


def test_rbo_list_files_with_ties(tmp_path):
    x, y = tmp_path / "x.txt", tmp_path / "y.txt"
    x.write_text("red\nblue green\nyellow\npink\n")
    y.write_text("blue red\nwhite\nyellow black purple\ngreen\n")
    code, out, err = run("rbo", str(x), str(y), "--p", "0.95")
    assert code == 0, err
    res = json.loads(out)
    # Corsi & Urbano's README example
    assert round(res["ext"], 7) == 0.6922853 and round(res["min"], 7) == 0.3310519 and round(res["max"], 7) == 0.8930692
    code, out, err = run("rbo", str(x), "-", "--p", "0.95", "--ties", "w", stdin=y.read_text())
    assert code == 0 and round(json.loads(out)["ext"], 7) == 0.7068257


@pytest.mark.parametrize(
    "files, extra, fragment",
    [
        (("red\nred\n", "a\n"), [], "`a`"),
        (("a\nb\n", "b\nc\n"), ["--p", "1.5"], "`p`"),
        (("a\nb\n", "b\nc\n"), ["--n-items", "2"], "`n_items`"),
        (("", "b\nc\n"), [], "`a`"),
        (("a b\nb\n", "b\nc\n"), [], "`a`"),
        (("a\nb\n", "b\nc\n"), ["--depth", "0"], "`depth`"),
    ],
)
def test_rbo_bad_input_is_one_line_exit_2(tmp_path, files, extra, fragment):
    x, y = tmp_path / "x.txt", tmp_path / "y.txt"
    x.write_text(files[0])
    y.write_text(files[1])
    code, out, err = run("rbo", str(x), str(y), *extra)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err and "Traceback" not in err


def tau_ap_direct(rx, ry):
    n = len(rx)
    order = sorted(range(n), key=lambda i: ry[i])
    return 2 * sum(sum(1 for j in order[:k] if rx[j] < rx[order[k]]) / k for k in range(1, n)) / (n - 1) - 1


def test_ap_and_pvalue(tmp_path):
    x, y = tmp_path / "x.txt", tmp_path / "y.txt"
    x.write_text("1\n2\n3\n4\n5\n6\n")
    y.write_text("2\n1\n3\n5\n4\n6\n")
    code, out, err = run("ap", str(x), str(y), "--pvalue", "--alternative", "greater")
    assert code == 0, err
    res = json.loads(out)
    assert res["value"] == pytest.approx(tau_ap_direct([1, 2, 3, 4, 5, 6], [2, 1, 3, 5, 4, 6]), abs=1e-12)
    # exact p-value: the fraction of the 720 orders with τ_AP >= the observed one
    import itertools

    null = [tau_ap_direct(list(range(1, 7)), list(p)) for p in itertools.permutations(range(1, 7))]
    ref = sum(v >= res["value"] - 1e-12 for v in null) / len(null)
    assert res["method"] == "exact" and res["pvalue"] == pytest.approx(ref, abs=1e-12)
    code, out, err = run("ap", str(x), str(y), "--symmetric", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))
    ref_b = (
        tau_ap_direct([1, 2, 3, 4, 5, 6], [2, 1, 3, 5, 4, 6]) + tau_ap_direct([2, 1, 3, 5, 4, 6], [1, 2, 3, 4, 5, 6])
    ) / 2
    assert row["coefficient"] == "tau_ap_b" and float(row["value"]) == pytest.approx(ref_b, abs=1e-12)


def test_ap_bad_input_is_one_line_exit_2(tmp_path):
    x, y = tmp_path / "x.txt", tmp_path / "y.txt"
    x.write_text("1\n2\n2\n4\n")
    y.write_text("1\n2\n3\n4\n")
    code, out, err = run("ap", str(x), str(y))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "`x`" in err
    x.write_text("0.1\nnan\n0.3\n")
    y.write_text("0.1\n0.2\n0.3\n")
    code, out, err = run("ap", str(x), str(y), "--kind", "scores")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
