import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agreekit.cli import main

RES = Path(__file__).resolve().parents[1] / "resources" / "consensus"


def test_cli_json(capsys):
    assert main(["consensus", str(RES / "emond_mason.csv"), "--weights-column", "weight", "--method", "exact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items"] == list("ABCDEFGHIJKLMNO")
    assert out["n_optima"] == 3 and out["proven"] is True
    assert round(out["average_tau_x"], 6) == 0.165561
    assert "D J (E K) (A B N) (C L) I H F G (M O)" in out["orderings"]
    assert {"seconds", "solutions"} <= set(out)
    assert out["solutions"][0]["D"] == 1


def test_cli_csv_fast_seeded(capsys):
    args = [
        "consensus",
        str(RES / "sports.csv"),
        "--method",
        "fast",
        "--n-starts",
        "20",
        "--rng",
        "5",
        "--format",
        "csv",
    ]
    assert main(args) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 1
    assert rows[0]["ordering"] == "Cycling Swimming Basketball Baseball Tennis Football Jogging"
    assert round(float(rows[0]["average_tau_x"]), 6) == 0.144322


def test_cli_output_file(tmp_path):
    out = tmp_path / "sub" / "cons.json"
    assert main(["consensus", str(RES / "german.csv"), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["orderings"] == ["a b c d"]


@pytest.mark.parametrize(
    "content, extra, needle",
    [
        ("a,b,c\n1,2,3\n,,\n", [], "line 3 ranks no item"),
        ("a,b\n1,x\n", [], "line 2, column 2 ('b'): 'x' is not a rank"),
        ("a\n1\n", [], "at least 2 items"),
        ("a,b,w\n1,2,-1\n", ["--weights-column", "w"], "non-negative"),
        ("a,b\n1,2\n", ["--weights-column", "w"], "weights_column"),
    ],
)
def test_cli_bad_input_exit_2_no_output(tmp_path, capsys, content, extra, needle):
    f = tmp_path / "in.csv"
    f.write_text(content)
    out = tmp_path / "out.json"
    assert main(["consensus", str(f), "-o", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [f]


def test_cli_missing_file_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "agreekit", "consensus", "no_such_file.csv"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "no_such_file" in proc.stderr
