"""Bad input, round 4 (issue 36), the low findings left: Unicode digits in weigher specs, long ranking work
without an estimate, crafted coefficient tables, a table read from a pipe, a message naming an internal
parameter.

CLI cases run through the contract of ``tests/test_bad_input.py`` (exit 2, one stderr line naming the file
or parameter, nothing on stdout, no file created or changed); API cases through ``InputError`` naming the
parameter.  Crafted tables are the shipped JSON edited and given a fresh checksum computed here from the
schema's definition (sha256 of the canonical JSON without ``checksum``), as an attacker would.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from test_bad_input import TABLE_ID, _assert_clean_rejection, _run_ok, _table_json, scratch  # noqa: F401

from agreekit._validation import InputError
from agreekit.cli import main

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- 1. Unicode digits in weigher specs

# each is a spec that float() or a Unicode-aware regex would read as an ASCII one
UNICODE_SPECS = [
    "power:p=\u0661",  # ARABIC-INDIC DIGIT ONE (the finding)
    "power:p=\u06f1",  # EXTENDED ARABIC-INDIC DIGIT ONE
    "power:p=\u0967",  # DEVANAGARI DIGIT ONE
    "power:p=\uff11",  # FULLWIDTH DIGIT ONE
    "power:p=\U0001d7cf",  # MATHEMATICAL BOLD DIGIT ONE
    "power:p=1.\u0665",  # a Unicode digit after the point
    "power:p=1e\u0662",  # ... in the exponent
    "geometric:p=0.\u0669",  # 0.9 in Arabic-Indic digits
    "inverse_square:n0=\u0968",  # DEVANAGARI DIGIT TWO
    "power:p=1\u00a0",  # a no-break space (str.strip() removes it)
    "power:p=\u20071",  # FIGURE SPACE
    "power\u200b:p=1",  # a zero-width space in the family name
    "power\uff1ap=1",  # FULLWIDTH COLON
    "power:p\uff1d1",  # FULLWIDTH EQUALS SIGN
    "harmonic\u3000",  # IDEOGRAPHIC SPACE
    "\ufeffharmonic",  # a byte-order mark pasted in front
]


@pytest.mark.parametrize("spec", UNICODE_SPECS, ids=[f"U{i}" for i in range(len(UNICODE_SPECS))])
def test_weigher_spec_with_non_ascii_is_refused(spec):
    from agreekit.ranking import exact_moments, parse_weigher, weighted_correlation

    bad = next(c for c in spec if not c.isascii())
    with pytest.raises(InputError, match=rf"`weigher`.*U\+{ord(bad):04X}.*digits 0-9"):
        parse_weigher(spec)
    with pytest.raises(InputError, match="`weigher`"):
        weighted_correlation([1, 2, 3, 4], [2, 1, 4, 3], coefficient="kendall", weigher=spec)
    with pytest.raises(InputError, match="`weigher`"):
        exact_moments(n=4, weigher=spec)


@pytest.mark.parametrize(
    "argv",
    [
        ["correlate", "x.txt", "y.txt", "--weigher", "power:p=\u0661"],
        ["correlate", "x.txt", "y.txt", "--weigher", "inverse_square:n0=\uff11", "--pvalue", "--rng", "1"],
        ["moments", "--n", "4", "--weigher", "power:p=\u0967"],
        ["standardize", "--n", "30", "--gamma", "0.2", "--weigher", "geometric:p=0.\u0669"],
    ],
    ids=["correlate", "correlate-pvalue", "moments", "standardize"],
)
def test_cli_weigher_spec_with_unicode_digit(scratch, capsys, argv):
    _assert_clean_rejection(capsys, scratch, argv, ["`weigher`", r"U\+[0-9A-F]{4}", "digits 0-9"])


def test_ascii_spec_still_reads_its_numbers():
    # f(i) = 1/(i + n0)^p written out here, against the parsed spec
    from agreekit.ranking import parse_weigher

    i = np.arange(1, 8, dtype=float)
    assert np.allclose(parse_weigher("power:p=1.5,n0=2")(i), 1.0 / (i + 2.0) ** 1.5, rtol=1e-15)
    assert np.allclose(parse_weigher(" power : p = 2 ")(i), 1.0 / i**2, rtol=1e-15)
    assert np.allclose(parse_weigher("geometric:p=.5")(i), 0.5 ** (i - 1), rtol=1e-15)
    with pytest.raises(InputError, match="`weigher`.*malformed"):
        parse_weigher("power:p=1_0")  # int("1_0") reads 10; a spec's numbers are plain digits


# ----------------------------------------------------------------------------- 2. long work: an estimate first

ESTIMATE = re.compile(
    r"^agreekit: (.+): about (\d+(\.\d+)? (s|min|h|days)) to go \(estimated from the first "
    r"(\d+) of (\d+) parts; no time limit"
)


def _estimate_lines(err: str) -> list[str]:
    # tqdm bars (\r-separated) may share the stream; the estimate is a line of its own
    return [ln.strip() for ln in re.split(r"[\r\n]", err) if ln.strip().startswith("agreekit: ")]


@pytest.fixture
def long_work_now(monkeypatch):
    """Every piece of work counts as long (the threshold monkeypatched to 0 s)."""
    from agreekit.ranking import _montecarlo

    monkeypatch.delenv("AGREEKIT_LONG_WORK_SECONDS", raising=False)
    monkeypatch.setattr(_montecarlo, "LONG_WORK_SECONDS", 0.0)


def _rank_files(scratch, n, seed):
    rng = np.random.default_rng(seed)
    (scratch / "bx.txt").write_text("".join(f"{v}\n" for v in range(1, n + 1)))
    (scratch / "by.txt").write_text("".join(f"{v}\n" for v in rng.permutation(n) + 1))


MC = ["correlate", "bx.txt", "by.txt", "--pvalue", "--method", "monte-carlo", "--n-resamples", "60000", "--rng", "7"]


def test_monte_carlo_prints_one_estimate_on_a_terminal(scratch, capsys, monkeypatch, long_work_now):
    _rank_files(scratch, 200, 1)  # 60000 resamples at n = 200: 3 batches of 20000
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code = main(MC)
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = _estimate_lines(err)
    assert len(lines) == 1, err
    m = ESTIMATE.match(lines[0])
    assert m, lines[0]
    assert "Monte Carlo null of 60000 permutations at n = 200" in m.group(1)
    assert (m.group(5), m.group(6)) == ("2", "3")
    assert json.loads(out)["method"] == "monte-carlo"


@pytest.mark.parametrize("how", ["quiet", "not-a-terminal"])
def test_monte_carlo_estimate_is_off_with_quiet_or_without_terminal(scratch, capsys, monkeypatch, long_work_now, how):
    _rank_files(scratch, 200, 1)
    if how == "quiet":
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code = main([*MC, "--quiet"] if how == "quiet" else MC)
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    assert json.loads(out)["method"] == "monte-carlo"


def test_estimate_does_not_change_the_result(capsys, long_work_now):
    """The same rng gives the same p-value with the estimate printed (progress=None) and without (False);
    the p-value is (b + 1)/(B + 1) over the same permutations drawn here (Fisher-Yates of the documented
    stream is the library's; what is checked is that announcing changes nothing)."""
    from agreekit.ranking import weighted_correlation_test

    rng = np.random.default_rng(3)
    x = np.arange(1, 301)
    y = rng.permutation(300) + 1
    quiet = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=40000, rng=11, progress=False)
    assert _estimate_lines(capsys.readouterr().err) == []
    loud = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=40000, rng=11, progress=None)
    assert len(_estimate_lines(capsys.readouterr().err)) == 1
    assert (loud.pvalue, loud.statistic) == (quiet.pvalue, quiet.statistic)


def test_environment_variable_sets_the_threshold(capsys, monkeypatch):
    from agreekit.ranking import weighted_correlation_test

    x = np.arange(1, 301)
    y = np.random.default_rng(3).permutation(300) + 1
    monkeypatch.setenv("AGREEKIT_LONG_WORK_SECONDS", "1e9")  # nothing is long
    weighted_correlation_test(x, y, method="monte-carlo", n_resamples=40000, rng=11, progress=None)
    assert _estimate_lines(capsys.readouterr().err) == []
    monkeypatch.setenv("AGREEKIT_LONG_WORK_SECONDS", "0")
    weighted_correlation_test(x, y, method="monte-carlo", n_resamples=40000, rng=11, progress=None)
    assert len(_estimate_lines(capsys.readouterr().err)) == 1


def _kendall_additive(a, b, f):
    """Weighted Kendall τ_w with additive item weights, from its definition (Lombardo 2025, Eqs. 8, 12):
    w_i = f(a_i) + f(b_i); τ_w = Σ_{i<j} w_i w_j sgn(a_i-a_j) sgn(b_i-b_j) / Σ_{i<j} w_i w_j."""
    num = den = 0.0
    for i, j in itertools.combinations(range(len(a)), 2):
        w = (f(a[i]) + f(b[i])) * (f(a[j]) + f(b[j]))
        num += w * np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])
        den += w
    return num / den


def test_exact_moments_estimate_and_values(capsys, monkeypatch, long_work_now):
    """moments prints the estimate for enumerations from _ESTIMATE_MIN_N on (forced down to 7 here); its
    values are the moments over the 7! permutations computed here from the definition."""
    from agreekit.ranking import exact_moments, moments, weighted_correlation

    monkeypatch.setattr(moments, "_ESTIMATE_MIN_N", 7)
    m = exact_moments("kendall", n=7, weigher="harmonic", scheme="additive", progress=None)
    lines = _estimate_lines(capsys.readouterr().err)
    assert len(lines) == 1 and ESTIMATE.match(lines[0]) and "exact moments at n = 7 (5040 permutations)" in lines[0]
    ident = np.arange(1, 8)
    perms = [np.array(p) + 1 for p in itertools.permutations(range(7))]
    # the definition on a handful of permutations pins the coefficient; the public function does the rest
    for p in perms[::997]:
        assert weighted_correlation(
            ident, p, coefficient="kendall", weigher="harmonic", scheme="additive"
        ) == pytest.approx(_kendall_additive(ident, p, lambda r: 1.0 / r), abs=1e-13)
    g = np.array([_kendall_additive(ident, p, lambda r: 1.0 / r) for p in perms])
    mean = g.mean()
    dev = g - mean
    assert m.mean == pytest.approx(mean, abs=1e-13)
    assert m.var == pytest.approx(np.mean(dev**2), abs=1e-13)
    assert m.left_var == pytest.approx(np.sum(dev[dev < 0] ** 2) / len(g), abs=1e-13)
    exact_moments("kendall", n=7, progress=False)
    assert _estimate_lines(capsys.readouterr().err) == []


def test_cli_moments_quiet_prints_nothing(scratch, capsys, monkeypatch, long_work_now):
    from agreekit.ranking import moments

    monkeypatch.setattr(moments, "_ESTIMATE_MIN_N", 6)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["moments", "--n", "6", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["n"] == 6
    assert main(["moments", "--n", "6"]) == 0
    out, err = capsys.readouterr()
    assert len(_estimate_lines(err)) == 1 and json.loads(out)["n"] == 6


# ----------------------------------------------------------------------------- 4. crafted coefficient tables


def _checksum(doc: dict) -> str:
    """The schema's definition: sha256 of the canonical JSON (sorted keys, no whitespace) without checksum."""
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _shipped() -> dict:
    return json.loads(_table_json())


def _shift_right(col):
    return [col[0]] + col[:-1]


def _swap_in_row(values, i, j):
    row = list(values[0])
    row[i], row[j] = row[j], row[i]
    return [row] + values[1:]


def _set(path, value):
    def edit(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value(node[path[-1]]) if callable(value) else value

    return edit


CRAFTED = {
    # the findings
    "exact-mean-shifted-left": (_set(("exact", "mean"), lambda c: c[1:] + c[-1:]), "exact row n = 2"),
    "exact-mean-shifted-right": (_set(("exact", "mean"), _shift_right), r"exact/mean at n = 3 .* enumerating"),
    "exact-n-duplicate": (_set(("exact", "n"), lambda c: [2, 3, 3] + c[3:]), "exact/n must be 2, 3"),
    "n-exact-beyond-rows": (_set(("n_exact",), 12), "n_exact = 12"),
    "quantiles-reversed": (
        _set(("null_quantiles", "values"), lambda v: [r[::-1] for r in v]),
        "null_quantiles/values/0 .*non-decreasing",
    ),
    "quantiles-non-monotone": (
        _set(("null_quantiles", "values"), lambda v: _swap_in_row(v, 10, 11)),
        "null_quantiles/values/0 .*decreases",
    ),
    # fresh variants
    "exact-var-shifted": (_set(("exact", "var"), lambda c: c[1:] + c[-1:]), "exact row n = 2"),
    "exact-left-var-shifted-right": (_set(("exact", "left_var"), _shift_right), "exact/left_var at n = 3"),
    "exact-mean-n4-edited": (_set(("exact", "mean"), lambda c: c[:2] + [c[2] + 1e-6] + c[3:]), "exact/mean at n = 4"),
    "exact-n-reversed": (_set(("exact", "n"), lambda c: c[::-1]), "exact/n must be"),
    "n-exact-below-rows": (_set(("n_exact",), 8), "n_exact = 8"),
    "exact-var-impossible": (_set(("exact", "var"), lambda c: c[:-1] + [1.5]), "exact/var at n = 10"),
    "exact-left-var-above-var": (_set(("exact", "left_var"), lambda c: c[:-1] + [0.9]), "exact/left_var at n = 10"),
    "exact-mean-below-minus-one": (_set(("exact", "mean"), lambda c: c[:-1] + [-1.2]), "exact/mean at n = 10"),
    "samples-n-duplicate": (_set(("samples", "n"), lambda c: c[:2] + [c[1]] + c[3:]), "samples/n .*follows"),
    "samples-n-reversed": (_set(("samples", "n"), lambda c: c[::-1]), "samples/n must be strictly increasing"),
    "samples-start-inside-exact": (_set(("samples", "n"), lambda c: [5] + c[1:]), "samples/n starts at 5"),
    "samples-columns-unequal": (_set(("samples", "var"), lambda c: c[:-1]), "samples columns differ"),
    "quantile-n-duplicate": (_set(("null_quantiles", "n"), lambda c: [c[0], c[0]] + c[2:]), "null_quantiles/n"),
    "quantile-probs-reversed": (_set(("null_quantiles", "probs"), lambda c: c[::-1]), "probs must be strictly"),
    "quantile-probs-outside": (_set(("null_quantiles", "probs"), lambda c: [0.0] + c[1:]), "inside \\(0, 1\\)"),
    "quantile-value-outside": (_set(("null_quantiles", "values"), lambda v: [[-1.5] + v[0][1:]] + v[1:]), r"\[-1, 1\]"),
    "quantile-row-short": (
        _set(("null_quantiles", "values"), lambda v: [v[0][:-1]] + v[1:]),
        "null_quantiles/values/0 has 200 values for 201 probs",
    ),
    "quantile-rows-fewer-than-n": (
        _set(("null_quantiles", "values"), lambda v: v[:-1]),
        "null_quantiles columns differ",
    ),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_crafted_table_is_refused(scratch, capsys, case):
    from agreekit.ranking.tables import load_table

    edit, pattern = CRAFTED[case]
    doc = _shipped()
    edit(doc)
    doc["checksum"] = _checksum(doc)
    (scratch / "crafted.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="`path_or_scheme_id` .*crafted.json: .*" + pattern):
        load_table(scratch / "crafted.json")
    _assert_clean_rejection(capsys, scratch, ["table", "crafted.json"], ["`table`", "crafted.json", pattern])
    # the same table passed to a test that reads it
    (scratch / "x5.txt").write_text("".join(f"{v}\n" for v in range(1, 31)))
    (scratch / "y5.txt").write_text("".join(f"{v}\n" for v in [*range(2, 31), 1]))
    _assert_clean_rejection(
        capsys,
        scratch,
        [
            "correlate",
            "x5.txt",
            "y5.txt",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--standardize",
            "--table",
            "crafted.json",
        ],
        ["`table`", "crafted.json"],
    )


def test_recomputed_checksum_matches_the_library():
    # the helper above is the schema's definition; it agrees with the shipped checksums
    doc = _shipped()
    assert _checksum(doc) == doc["checksum"]


@pytest.mark.parametrize("where", ["top", "exact", "fits-mean", "provenance"])
def test_duplicate_json_key_is_refused(scratch, capsys, where):
    from agreekit.ranking.tables import load_table

    text = _table_json()
    doc = json.loads(text)
    key, obj = {
        "top": ("n_exact", doc),
        "exact": ("mean", doc["exact"]),
        "fits-mean": ("degree", doc["fits"]["mean"]),
        "provenance": ("seed", doc["provenance"]),
    }[where]
    # the repeated key comes first: json.loads keeps the last, so the checksum of the parsed table holds
    first = json.dumps({key: "decoy"})[1:-1]
    body = json.dumps(obj)
    crafted_obj = "{" + first + ", " + body[1:]
    out = json.dumps(doc).replace(body, crafted_obj, 1)
    assert json.loads(out) == doc  # what a plain JSON reader sees: the intact table
    (scratch / "dup.json").write_text(out)
    with pytest.raises(InputError, match=f"dup.json: key '{key}' is given twice"):
        load_table(scratch / "dup.json")
    _assert_clean_rejection(capsys, scratch, ["table", "dup.json"], ["`table`", "dup.json", f"'{key}' is given twice"])


@pytest.mark.parametrize("digits", [31, 5000, 100_000])
def test_huge_integer_in_a_table(scratch, capsys, digits):
    text = _table_json().replace('"n_exact": 10', f'"n_exact": {"9" * digits}', 1)
    assert f'"n_exact": {"9" * digits}' in text
    (scratch / "big.json").write_text(text)
    line = _assert_clean_rejection(
        capsys, scratch, ["table", "big.json"], ["`table`", "big.json", f"an integer with {digits} digits"]
    )
    assert "int_max_str_digits" not in line and "Exceeds the limit" not in line


def test_every_shipped_table_loads_and_passes_the_checks():
    from agreekit.ranking.tables import _check_consistency, available_tables, load_table

    ids = available_tables()
    assert len(ids) == 16
    for sid in ids:
        tab = load_table(sid)
        _check_consistency(json.loads(Path(tab.path).read_text()), AssertionError)


# ----------------------------------------------------------------------------- 5. a table from a pipe


def _summary(text: str) -> dict:
    d = json.loads(text)
    d.pop("path", None)
    return d


def test_table_from_process_substitution(scratch):
    (scratch / "t.json").write_text(_table_json())
    ref = subprocess.run(
        [sys.executable, "-m", "agreekit", "table", "t.json"], capture_output=True, text=True, cwd=scratch, timeout=120
    )
    assert ref.returncode == 0, ref.stderr
    res = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m agreekit table <(cat t.json)"],
        capture_output=True,
        text=True,
        cwd=scratch,
        timeout=120,
    )
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert _summary(res.stdout) == _summary(ref.stdout)
    assert _summary(res.stdout)["scheme_id"] == TABLE_ID


def _feed_fifo(path: Path, data: bytes):
    def run():
        with open(path, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_table_from_a_fifo(scratch, capsys):
    ref = _summary(_run_ok(capsys, ["table", "table.json"]))
    os.mkfifo(scratch / "pipe.json")
    t = _feed_fifo(scratch / "pipe.json", _table_json().encode())
    got = _summary(_run_ok(capsys, ["table", "pipe.json"]))
    t.join(10)
    assert got == ref


def test_crafted_table_from_a_fifo_is_refused(scratch, capsys):
    doc = _shipped()
    doc["exact"]["mean"] = _shift_right(doc["exact"]["mean"])
    doc["checksum"] = _checksum(doc)
    os.mkfifo(scratch / "bad_pipe")
    t = _feed_fifo(scratch / "bad_pipe", json.dumps(doc).encode())
    code = main(["table", "bad_pipe"])
    out, err = capsys.readouterr()
    t.join(10)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "`table` bad_pipe: exact/mean at n = 3" in err


# ----------------------------------------------------------------------------- 7. a message naming the user's parameter


@pytest.mark.parametrize("n", [10**18, 10**11, 10**15, 2**62])
def test_standardize_extrapolate_far_beyond_names_n(scratch, capsys, n):
    line = _assert_clean_rejection(
        capsys,
        scratch,
        ["standardize", "--extrapolate", "--n", str(n), "--gamma", "0.1"],
        ["`n`", f"= {n} is too far above", "n <= 40000", "stay possible up to about n = "],
    )
    assert "`var`" not in line and "`left_var`" not in line


def test_standardize_extrapolate_api_names_n():
    from agreekit.ranking import standardize
    from agreekit.ranking.tables import load_table

    with pytest.raises(InputError, match=r"^`n` = 1000000000000000000 is too far above"):
        standardize(0.1, n=10**18, extrapolate=True)
    with pytest.raises(InputError, match="^`n`"):
        load_table("kendall_additive_harmonic").standardization_function(10**18, extrapolate=True)


def test_extrapolation_up_to_the_bound_still_works(scratch, capsys):
    """The bound the message gives is usable: just below it the extrapolated moments are possible
    (|mean| <= 1, 0 < left_var < var <= 1 - mean²), checked here from the result."""
    from agreekit.ranking.tables import load_table

    tab = load_table("kendall_additive_harmonic")
    with pytest.raises(InputError) as info:
        tab.moments(10**18, extrapolate=True)
    bound = int(re.search(r"up to about n = (\d+)", str(info.value)).group(1))
    with pytest.warns(RuntimeWarning, match="extrapolating"):
        m = tab.moments(bound, extrapolate=True)
    assert abs(m.mean) <= 1 and 0 < m.left_var < m.var <= 1 - m.mean**2
    out = json.loads(_run_ok(capsys, ["standardize", "--extrapolate", "--n", "100000", "--gamma", "0.1"]))
    assert math.isfinite(out["g"]) if "g" in out else True
