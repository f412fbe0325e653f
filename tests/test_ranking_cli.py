import json
import subprocess
import sys

import pytest

from agreekit import exact_moments, weighted_kendall
from agreekit.cli import main


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_moments_json(capsys):
    code, out, err = run(
        capsys,
        "moments",
        "--coefficient",
        "kendall",
        "--scheme",
        "multiplicative",
        "--weigher",
        "inverse_square:n0=1",
        "--n",
        "6",
    )
    assert code == 0 and err == ""
    res = json.loads(out)
    ref = exact_moments("kendall", n=6, weigher="inverse_square:n0=1", scheme="multiplicative")
    assert res == {
        "coefficient": "kendall",
        "scheme": "multiplicative",
        "weigher": "inverse_square:n0=1",
        "n": 6,
        "mean": ref.mean,
        "var": ref.var,
        "left_var": ref.left_var,
        "source": "exact",
    }
    # Table 4 of the seed, n = 6, Kendall/mult/1/(i+1)^2: -0.1911483, 0.316453, 0.0974049
    assert round(res["mean"], 7) == -0.1911483 and round(res["var"], 7) == 0.316453


def test_correlate_files(tmp_path, capsys):
    x = tmp_path / "x.txt"
    y = tmp_path / "y.csv"
    x.write_text("1\n2\n3\n4\n5\n")
    y.write_text("item,rank\na,2\nb,1\nc,3\nd,5\ne,4\n")
    code, out, err = run(
        capsys,
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        str(x),
        str(y),
        "--column",
        "rank",
    )
    assert code == 2  # x has no "rank" column
    assert "`column`" in err
    y.write_text("rank\n2\n1\n3\n5\n4\n")
    code, out, err = run(
        capsys, "correlate", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", str(x), str(y)
    )
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(weighted_kendall([1, 2, 3, 4, 5], [2, 1, 3, 5, 4]), abs=1e-15)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", "--n", "1"], "`n`"),
        (["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", "--n", "x"], "`n`"),
        (
            ["moments", "--coefficient", "tau", "--scheme", "additive", "--weigher", "harmonic", "--n", "4"],
            "--coefficient",
        ),
        (["moments", "--coefficient", "kendall", "--scheme", "sum", "--weigher", "harmonic", "--n", "4"], "--scheme"),
        (
            ["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "cubic", "--n", "4"],
            "`weigher`",
        ),
        (
            ["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "power:p=", "--n", "4"],
            "`weigher`",
        ),
        (["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic"], "--n"),
    ],
)
def test_bad_moments_args(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "xtext, ytext, fragment",
    [
        ("1\n2\n3\n", "1\n2\n", "same length"),
        ("1\n2\n2.5\n", "1\n2\n3\n", "integer"),
        ("1\nnan\n3\n", "1\n2\n3\n", "NaN"),
        ("1\n2\n5\n", "1\n2\n3\n", "permutation"),
        ("", "1\n2\n3\n", "empty"),
    ],
)
def test_bad_correlate_files(tmp_path, capsys, xtext, ytext, fragment):
    x = tmp_path / "x.txt"
    y = tmp_path / "y.txt"
    x.write_text(xtext)
    y.write_text(ytext)
    code, out, err = run(
        capsys,
        "correlate",
        "--coefficient",
        "spearman",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        str(x),
        str(y),
    )
    assert code == 2 and out == ""
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_missing_file(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "correlate",
        "--coefficient",
        "spearman",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        str(tmp_path / "nope"),
        str(tmp_path / "nope2"),
    )
    assert code == 2 and "`x`" in err


def test_console_script_exit_code_and_no_traceback():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agreekit",
            "moments",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "0",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == "agreekit moments: error: `n` must be >= 2; got 0"


def _rank_files(tmp_path, x, y):
    fx, fy = tmp_path / "x.txt", tmp_path / "y.txt"
    fx.write_text("".join(f"{v}\n" for v in x))
    fy.write_text("".join(f"{v}\n" for v in y))
    return str(fx), str(fy)


def test_correlate_test_exact(tmp_path, capsys):
    from agreekit import weighted_correlation_test

    x, y = [1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 3, 5, 4, 6, 8, 7]
    fx, fy = _rank_files(tmp_path, x, y)
    code, out, err = run(
        capsys,
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        fx,
        fy,
        "--pvalue",
        "--alternative",
        "greater",
    )
    assert code == 0 and err == ""
    res = json.loads(out)
    ref = weighted_correlation_test(x, y, alternative="greater", method="exact")
    assert res["method"] == "exact" and res["pvalue_se"] == 0.0
    assert res["pvalue"] == ref.pvalue and res["value"] == ref.statistic
    # the library result is checked against a brute-force count in test_ranking_significance.py


def test_correlate_test_monte_carlo_seeded(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(0)
    x, y = rng.permutation(40) + 1, rng.permutation(40) + 1
    fx, fy = _rank_files(tmp_path, x, y)
    argv = [
        "correlate",
        "--coefficient",
        "spearman",
        "--scheme",
        "multiplicative",
        "--weigher",
        "harmonic",
        fx,
        fy,
        "--pvalue",
        "--method",
        "monte-carlo",
        "--n-resamples",
        "2000",
        "--rng",
        "5",
    ]
    code, out1, _ = run(capsys, *argv)
    code2, out2, _ = run(capsys, *argv)
    assert code == code2 == 0 and out1 == out2
    res = json.loads(out1)
    assert res["method"] == "monte-carlo" and res["pvalue_se"] > 0
    assert res["pvalue"] * 2001 == pytest.approx(round(res["pvalue"] * 2001))  # (b+1)/(B+1) on two tails


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--method", "bootstrap"], "--method"),
        (["--alternative", "bigger"], "--alternative"),
        (["--n-resamples", "many"], "--n-resamples"),
        (["--rng", "x1"], "--rng"),
        (["--rng", "-1"], "`rng`"),
        (["--kind", "values"], "--kind"),
    ],
)
def test_correlate_test_bad_options(tmp_path, capsys, extra, fragment):
    fx, fy = _rank_files(tmp_path, [1, 2, 3, 4], [2, 1, 4, 3])
    code, out, err = run(
        capsys,
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        fx,
        fy,
        "--pvalue",
        *extra,
    )
    assert code == 2 and out == "" and fragment in err and len(err.strip().splitlines()) == 1


def test_correlate_ties(tmp_path, capsys):
    fx, fy = _rank_files(tmp_path, [1, 2, 2, 4, 5], [2, 1, 3, 5, 4])
    base = ["correlate", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", fx, fy]
    code, out, err = run(capsys, *base)
    assert code == 0
    assert json.loads(out)["value"] == pytest.approx(weighted_kendall([1, 2, 2, 4, 5], [2, 1, 3, 5, 4]))
    code, out, err = run(capsys, *base, "--ties", "raise")
    assert code == 2 and out == "" and "ties" in err and "`x`" in err
    # p-values of tied rankings: the tie-preserving null (issue 24); the table method needs untied rankings
    code, out, err = run(capsys, *base, "--pvalue")
    assert code == 0 and 0 < json.loads(out)["pvalue"] <= 1
    code, out, err = run(capsys, *base, "--pvalue", "--method", "table")
    assert code == 2 and out == "" and "`method`" in err and "untied" in err
