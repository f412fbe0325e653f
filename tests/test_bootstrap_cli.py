"""CLI: agreekit bootstrap / agreekit evaluate, including bad input (exit 2, no traceback)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit.ireval.bootstrap import discriminative_power
from agreekit.cli import main
from agreekit.ireval.metrics import load_scores

ROOT = Path(__file__).resolve().parents[1]
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"
ROBUST = ROOT / "resources" / "bootstrap" / "robust03_top100"


@pytest.fixture
def small_csv(tmp_path):
    X = load_scores(SCORES / "adhoc5_ap.csv").iloc[:, :8]
    p = tmp_path / "s.csv"
    X.to_csv(p)
    return p, X


def test_bootstrap_json_matches_library(small_csv, capsys):
    p, X = small_csv
    assert main(["bootstrap", str(p), "--seed", "7", "--resamples", "400", "--pairs"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = discriminative_power(X, rng=7, n_resamples=400)
    assert out["n_pairs"] == 28 and out["n_significant"] == ref.n_significant
    assert out["estimated_difference"] == pytest.approx(ref.estimated_difference)
    assert [r["asl"] for r in out["pairs"]] == ref.asl.tolist()


def test_bootstrap_csv_unpaired_and_output_file(small_csv, tmp_path, capsys):
    p, X = small_csv
    o = tmp_path / "out.csv"
    assert (
        main(
            [
                "bootstrap",
                str(p),
                "--test",
                "unpaired",
                "--alpha",
                "0.01",
                "--seed",
                "1",
                "--format",
                "csv",
                "-o",
                str(o),
            ]
        )
        == 0
    )
    df = pd.read_csv(o)
    ref = discriminative_power(X, test="unpaired", alpha=0.01, rng=1)
    np.testing.assert_array_equal(df["asl"].to_numpy(), ref.asl)
    assert list(df.columns[:2]) == ["system_a", "system_b"]


def test_bootstrap_correlate(small_csv, tmp_path, capsys):
    p, X = small_csv
    q = tmp_path / "p10.csv"
    load_scores(SCORES / "adhoc5_p10.csv").iloc[:, :8].to_csv(q)
    assert main(["bootstrap", str(p), "--seed", "1", "--correlate", str(q)]) == 0
    out = json.loads(capsys.readouterr().out)
    # the SE against a plain numpy bootstrap (scipy's tau-b per topic sample, same seed's topic samples)
    from scipy.stats import kendalltau
    from agreekit.ireval.bootstrap import bootstrap_indices

    A, P = X.to_numpy(), load_scores(q).to_numpy()
    n = A.shape[0]
    idx = bootstrap_indices(n, rng=1)
    boot = [kendalltau(a, b).statistic for a, b in zip(A[idx].sum(axis=1) / n, P[idx].sum(axis=1) / n)]
    assert out["rank_correlation"]["standard_error"] == pytest.approx(np.std(boot, ddof=1), rel=1e-9)
    assert out["rank_correlation"]["correlation"] == pytest.approx(
        kendalltau(A.mean(axis=0), P.mean(axis=0)).statistic, rel=1e-12
    )


@pytest.mark.parametrize(
    "content, needle",
    [
        ("topic,A,B\n1,0.1,nan\n2,0.2,0.3\n", "NaN"),
        ("topic,A\n1,0.1\n2,0.2\n", "at least 2 systems"),
        ("topic,A,B\n1,0.1,0.2\n", "at least 2 topics"),
        ("topic,A,B\n1,0.1,x\n2,0.2,0.3\n", "non-numeric"),
    ],
)
def test_bootstrap_bad_scores_exit_2_no_output(tmp_path, capsys, content, needle):
    p = tmp_path / "bad.csv"
    p.write_text(content)
    o = tmp_path / "out.json"
    assert main(["bootstrap", str(p), "-o", str(o)]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not o.exists() and not list(tmp_path.glob(".out.json*"))


def test_bootstrap_mismatched_topics_and_alpha(small_csv, tmp_path, capsys):
    p, X = small_csv
    q = tmp_path / "other.csv"
    X.iloc[:-1].to_csv(q)
    assert main(["bootstrap", str(p), "--correlate", str(q)]) == 2
    assert "different topics" in capsys.readouterr().err
    assert main(["bootstrap", str(p), "--alpha", "0.0005"]) == 2  # B * alpha < 1
    assert "alpha" in capsys.readouterr().err
    # B * alpha = 12.3: k rounded down to 12 with a warning (it used to be refused)
    with pytest.warns(UserWarning, match="rounded down to 12"):
        assert main(["bootstrap", str(p), "--alpha", "0.0123", "--rng", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["k"] == 12


def test_evaluate_cli(tmp_path, capsys):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n")
    r1 = tmp_path / "r1"
    r1.write_text("1 Q0 a 1 2.0 sysA\n1 Q0 x 2 1.0 sysA\n2 Q0 c 1 1.0 sysA\n")
    r2 = tmp_path / "r2"
    r2.write_text("1 Q0 b 1 2.0 sysB\n")
    assert main(["evaluate", str(q), str(r1), str(r2), "--metric", "AveP"]) == 0
    out = capsys.readouterr().out
    df = pd.read_csv(pd.io.common.StringIO(out), index_col=0)
    assert df.columns.tolist() == ["sysA", "sysB"]
    assert df.loc[1, "sysA"] == pytest.approx(0.5) and df.loc[2, "sysB"] == 0.0
    d = tmp_path / "mats"
    assert (
        main(
            [
                "evaluate",
                str(q),
                str(r1),
                str(r2),
                "--metrics",
                "AveP,P@2",
                "--metrics",
                "nDCG_jk@10",
                "--metrics",
                "nDCG@10",
                "--gains",
                "2=3",
                "--output-dir",
                str(d),
            ]
        )
        == 0
    )
    res = json.loads(capsys.readouterr().out)
    assert set(res["metrics"]) == {"AveP", "P@2", "nDCG_jk@10", "nDCG@10"}
    m = load_scores(d / "nDCG_jk@10.csv")
    assert m.loc["1", "sysB"] == pytest.approx(3 / (3 + 1))  # b (gain 3) at rank 1; ideal gains 3, 1
    m = load_scores(d / "nDCG@10.csv")  # trec_eval: ideal 3 + 1 / log2(3)
    assert m.loc["1", "sysB"] == pytest.approx(3 / (3 + 1 / math.log2(3)))
    # the written matrix feeds `agreekit bootstrap`
    assert main(["bootstrap", str(d / "AveP.csv"), "--rng", "1", "--n-resamples", "100"]) == 0


@pytest.mark.parametrize(
    "qrels, run, needle",
    [
        ("1 0 a\n", "1 Q0 a 1 1.0 s\n", "expected 4 fields"),
        ("1 0 a 1\n", "1 Q0 a 1 one s\n", "not a number"),
        ("1 0 a 0\n", "1 Q0 a 1 1.0 s\n", "no relevant document"),
    ],
)
def test_evaluate_bad_input(tmp_path, capsys, qrels, run, needle):
    q = tmp_path / "q"
    q.write_text(qrels)
    r = tmp_path / "r"
    r.write_text(run)
    assert main(["evaluate", str(q), str(r), "--metric", "AveP"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert main(["evaluate", str(q), str(r), "--metric", "MAP@x"]) == 2
    assert main(["evaluate", str(q), str(r), "--metric", "AveP,P@10"]) == 2  # needs --output-dir


def test_subprocess_error_has_no_traceback(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("topic,A,B\n1,0.1,nan\n2,0.2,0.3\n")
    proc = subprocess.run([sys.executable, "-m", "agreekit", "bootstrap", str(p)], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "NaN" in proc.stderr


def test_missing_file_exit_2(tmp_path, capsys):
    assert main(["bootstrap", str(tmp_path / "missing.csv")]) == 2
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "--metric", "AveP"]) == 2
    assert "does not exist" in capsys.readouterr().err
