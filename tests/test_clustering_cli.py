"""`agreekit clustering` CLI (alias `agreekit agreement`)."""

import json
import subprocess
import sys

import pytest

from agreekit.clustering import adjusted_rand_index, agreement_with_graph, ari_delta, normalized_mutual_info, ri_delta
from agreekit.cli import main


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "u.txt").write_text("0\n0\n1\n1\n1\n")
    (tmp_path / "v.txt").write_text("# labels\na\nb\nb\nb\nc\n\n")
    (tmp_path / "cover.txt").write_text("0 1 2\n2,3,4\n")
    (tmp_path / "soft.csv").write_text("c1,c2\n1,0\n0.5,0.5\n0,1\n0,1\n0.2,0.8\n")
    (tmp_path / "g.txt").write_text("0 1\n1 2\n2 3 2.0\n3 4\n")
    return tmp_path


def run(capsys, *argv):
    code = main(["clustering", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_labels_json(files, capsys):
    code, out, _ = run(capsys, files / "u.txt", files / "v.txt", "--measure", "ari", "--measure", "nmi_sqrt")
    assert code == 0
    res = json.loads(out)
    u, v = [0, 0, 1, 1, 1], ["a", "b", "b", "b", "c"]
    assert res["n"] == 5
    assert res["results"]["ari"] == pytest.approx(adjusted_rand_index(u, v), abs=1e-15)
    assert res["results"]["nmi_sqrt"] == pytest.approx(
        normalized_mutual_info(u, v, average_method="geometric"), abs=1e-15
    )


def test_cover_and_matrix_csv_output(files, capsys):
    code, out, _ = run(
        capsys, files / "cover.txt", files / "soft.csv", "-m", "ari_delta_approx", "-m", "i_norm", "--format", "csv"
    )
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == "measure,value"
    vals = dict(line.split(",") for line in lines[1:])
    soft = [[1, 0], [0.5, 0.5], [0, 1], [0, 1], [0.2, 0.8]]
    import numpy as np

    assert float(vals["ari_delta_approx"]) == pytest.approx(
        ari_delta([[0, 1, 2], [2, 3, 4]], np.array(soft), exact=False), abs=1e-15
    )


def test_graph_modes_and_graph_agreement(files, capsys):
    edges = [(0, 1), (1, 2), (2, 3, 2.0), (3, 4)]
    code, out, _ = run(
        capsys,
        files / "u.txt",
        files / "cover.txt",
        "--graph",
        files / "g.txt",
        "-m",
        "ri_delta",
        "--mode",
        "plus",
        "--direct-weight",
        "0.3",
    )
    assert code == 0
    got = json.loads(out)["results"]["ri_delta"]
    assert got == pytest.approx(
        ri_delta([0, 0, 1, 1, 1], [[0, 1, 2], [2, 3, 4]], graph=edges, mode="plus", direct_weight=0.3), abs=1e-15
    )
    code, out, _ = run(capsys, files / "u.txt", "--graph", files / "g.txt", "-m", "ari_delta")
    assert code == 0
    assert json.loads(out)["results"]["ari_delta"] == pytest.approx(
        agreement_with_graph([0, 0, 1, 1, 1], edges, "ari_delta"), abs=1e-15
    )


def test_list(capsys):
    code, out, _ = run(capsys, "--list")
    assert code == 0
    names = [d["name"] for d in json.loads(out)]
    assert "omega_unadjusted" in names and "omega" in names and "ari_delta" in names


@pytest.mark.parametrize(
    "content,other,match",
    [
        ("0\n\n1\n", "u.txt", "line 2 is empty"),
        ("", "u.txt", "is empty"),
        ("0\n1\n", "u.txt", "same node set"),
        ("0 1\n5 6\n", "cover.txt", "different node set"),
    ],
)
def test_bad_files_exit_2(files, capsys, content, other, match):
    bad = files / "bad.txt"
    bad.write_text(content)
    code, out, err = run(capsys, bad, files / other, "-m", "ari_delta")
    assert code == 2
    assert match in err and "Traceback" not in err
    assert out == ""


def test_bad_matrix_and_graph_files(files, capsys):
    (files / "neg.csv").write_text("1,0\n-0.5,1\n0,1\n0,1\n1,0\n")
    code, _, err = run(capsys, files / "neg.csv", files / "u.txt")
    assert code == 2 and "negative" in err
    (files / "ragged.csv").write_text("1,0\n1\n")
    code, _, err = run(capsys, files / "ragged.csv", files / "u.txt")
    assert code == 2 and "columns" in err
    (files / "g2.txt").write_text("0 1 2 3\n")
    code, _, err = run(capsys, files / "u.txt", files / "v.txt", "--graph", files / "g2.txt")
    assert code == 2 and "malformed" in err
    code, _, err = run(capsys, files / "u.txt", files / "v.txt", "--graph", files / "g.txt", "-m", "nmi_sum")
    assert code == 2 and "does not use a graph" in err
    code, _, err = run(capsys, files / "u.txt", files / "cover.txt", "-m", "ari")
    assert code == 2 and "partitions" in err


def test_no_partial_output_file_on_error(files, capsys):
    (files / "empty.txt").write_text("")
    out = files / "out" / "res.json"
    code, _, _ = run(capsys, files / "empty.txt", files / "u.txt", "-o", out)
    assert code == 2 and not out.exists()
    code, _, _ = run(capsys, files / "u.txt", files / "v.txt", "-o", out, "--format", "csv")
    assert code == 0 and out.read_text().startswith("measure,value\n")


def test_subprocess_exit_code_without_traceback(files):
    proc = subprocess.run(
        [sys.executable, "-m", "agreekit", "agreement", str(files / "u.txt"), str(files / "missing.txt")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "missing.txt" in proc.stderr


def test_information_and_overlapping_nmi_measures(files, capsys):
    from agreekit.clustering import adjusted_mutual_info, fowlkes_mallows, overlapping_nmi, v_measure

    code, out, _ = run(
        capsys,
        files / "u.txt",
        files / "v.txt",
        "-m",
        "ami",
        "-m",
        "ami_max",
        "-m",
        "fowlkes_mallows",
        "-m",
        "v_measure",
        "-m",
        "mi",
    )
    assert code == 0
    res = json.loads(out)["results"]
    u, v = [0, 0, 1, 1, 1], ["a", "b", "b", "b", "c"]
    assert res["ami"] == pytest.approx(adjusted_mutual_info(u, v), abs=1e-15)
    assert res["ami_max"] == pytest.approx(adjusted_mutual_info(u, v, average_method="max"), abs=1e-15)
    assert res["fowlkes_mallows"] == pytest.approx(fowlkes_mallows(u, v), abs=1e-15)
    assert res["v_measure"] == pytest.approx(v_measure(u, v), abs=1e-15)
    (files / "c2.txt").write_text("0 1\n1 2 3\n4\n")
    code, out, _ = run(capsys, files / "cover.txt", files / "c2.txt", "-m", "overlapping_nmi_lfk", "-m", "onmi_mgh")
    assert code == 0
    res = json.loads(out)["results"]
    cover, c2 = [[0, 1, 2], [2, 3, 4]], [[0, 1], [1, 2, 3], [4]]
    assert res["overlapping_nmi_lfk"] == pytest.approx(overlapping_nmi(cover, c2), abs=1e-15)
    assert res["overlapping_nmi_mgh"] == pytest.approx(overlapping_nmi(cover, c2, variant="mgh"), abs=1e-15)
    code, out, _ = run(capsys, "--list")
    assert {"ami", "overlapping_nmi_lfk", "overlapping_nmi_mgh", "homogeneity"} <= {d["name"] for d in json.loads(out)}
    code, _, err = run(capsys, files / "cover.txt", files / "c2.txt", "-m", "ami")
    assert code == 2 and "partitions" in err and "Traceback" not in err
