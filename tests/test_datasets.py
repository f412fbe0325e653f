"""agreekit.datasets: each loader returns the documented object, equal to reading the repository's resources/
file (and to a plain parse of it, without the library's readers); the list of data sets; the CLI's
``agreekit datasets`` and ``dataset:NAME`` in place of an input file."""
from __future__ import annotations

import csv
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit import InputError, datasets
from agreekit.consensus import RankingData, read_rankings
from agreekit.ireval.metrics import load_scores, read_qrels, read_run

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources"
TREC = RES / "bootstrap" / "trec_topic_by_run_scores"
ROBUST = RES / "bootstrap" / "robust03_top100"


def _plain_rankings(path: Path):
    """The CSV by hand: header = labels (+ weight), cells = ranks, empty = NaN."""
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    header, body = rows[0], [r for r in rows[1:] if r]
    w = header.index("weight") if "weight" in header else None
    labels = [h for i, h in enumerate(header) if i != w]
    X = np.array([[float(c) if c else np.nan for i, c in enumerate(r) if i != w] for r in body])
    weights = np.array([float(r[w]) for r in body]) if w is not None else np.ones(len(body))
    return labels, X, weights


@pytest.mark.parametrize(("loader", "file"), [(datasets.load_sports, "sports.csv"),
                                              (datasets.load_emond_mason, "emond_mason.csv")])
def test_ranking_loaders_equal_the_resources_file(loader, file):
    data = loader()
    assert isinstance(data, RankingData)
    ref = read_rankings(RES / "consensus" / file)
    labels, X, weights = _plain_rankings(RES / "consensus" / file)
    for got in (data, ref):
        assert list(got.labels) == labels
        np.testing.assert_array_equal(got.X, X)
        np.testing.assert_array_equal(got.weights, weights)


def test_ranking_data_shapes_as_documented():
    s, e = datasets.load_sports(), datasets.load_emond_mason()
    assert s.X.shape == (130, 7) and not np.isnan(s.X).any()
    assert e.X.shape == (21, 15) and e.weights.sum() == 112 and np.isnan(e.X).any()


@pytest.mark.parametrize(("name", "file"), [("fig1", "fig1_structure.json"), ("fig2a", "fig2a_omega.json"),
                                            ("fig2b", "fig2b_matching.json")])
def test_clustering_examples_equal_the_resources_file(name, file):
    assert datasets.load_clustering_example(name) == json.loads((RES / "clustering" / file).read_text("utf-8"))


@pytest.mark.parametrize("metric", ["ap", "p10", "rr"])
def test_trec_scores_equal_the_resources_file(metric):
    got = datasets.load_trec_scores(metric)
    path = TREC / f"adhoc8_{metric}.csv"
    pd.testing.assert_frame_equal(got, load_scores(path))
    plain = pd.read_csv(path)                   # rows = topics 1..50, columns run1..run129
    assert got.shape == plain.shape == (50, 129)
    assert list(got.columns) == list(plain.columns)
    np.testing.assert_array_equal(got.to_numpy(), plain.to_numpy(dtype=float))


def test_robust03_sample_is_the_resources_collection_on_ten_topics():
    qrels, runs = datasets.load_robust03_sample()
    with gzip.open(ROBUST / "robust03_qrels.txt.gz", "rt") as fh:
        lines = [line.split() for line in fh if line.strip()]
    topics = list(dict.fromkeys(t for t, *_ in lines))[:10]
    assert sorted(qrels["topic"].unique()) == sorted(topics)
    want = {(t, d, int(g)) for t, _, d, g in lines if t in topics}
    assert set(zip(qrels["topic"], qrels["docno"], qrels["relevance"])) == want
    assert len(qrels) == len(want)
    full = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    pd.testing.assert_frame_equal(qrels.reset_index(drop=True),
                                  full[full["topic"].isin(topics)].reset_index(drop=True))
    assert sorted(runs) == ["InexpC2", "uwmtCR0"]
    for tag, frame in runs.items():
        with gzip.open(ROBUST / "runs" / f"input.{tag}.gz", "rt") as fh:
            rows = [line.split() for line in fh if line.split()[0] in topics]
        assert list(zip(frame["topic"], frame["docno"], frame["score"])) == \
            [(t, d, float(s)) for t, _, d, _, s, _ in rows]
        name, ref = read_run(ROBUST / "runs" / f"input.{tag}.gz")
        ref = ref[ref["topic"].isin(topics)].reset_index(drop=True)
        pd.testing.assert_frame_equal(frame.reset_index(drop=True), ref)
        assert frame.groupby("topic").size().max() == 100


def test_available_lists_every_file_with_its_readme():
    items = datasets.available()
    names = [d.name for d in items]
    assert len(names) == len(set(names)) == 11
    assert {"sports", "emond_mason", "adhoc8_ap", "adhoc8_p10", "robust03_qrels"} <= set(names)
    for d in items:
        assert d.path.is_file() and d.source.is_file() and d.source.name == "README.md"
        assert d.description and d.loader and d.licence
        assert d.loader.split("(")[0] in datasets.__all__
        assert json.loads(json.dumps(d.to_dict()))["path"] == str(d.path)
    assert datasets.dataset_path("sports") == items[0].path


def test_unknown_names_are_input_errors():
    with pytest.raises(InputError, match=r"did you mean 'sports'"):
        datasets.dataset_path("sprots")
    with pytest.raises(InputError, match=r"`metric`"):
        datasets.load_trec_scores("ndcg")
    with pytest.raises(InputError, match=r"`name`"):
        datasets.load_clustering_example("fig3")


def test_lazy_attribute():
    import agreekit

    assert agreekit.datasets is datasets
    code = "import sys, agreekit; print('agreekit.datasets' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "False", r.stderr


# ------------------------------------------------------------------------------------------ the CLI
def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_accepts_dataset_sports(tmp_path):
    by_name = _cli("consensus", "dataset:sports", "--method", "exact", cwd=tmp_path)
    by_path = _cli("consensus", str(RES / "consensus" / "sports.csv"), "--method", "exact", cwd=tmp_path)
    assert by_name.returncode == 0, by_name.stderr
    a, b = json.loads(by_name.stdout), json.loads(by_path.stdout)
    a.pop("seconds", None), b.pop("seconds", None)
    assert a == b and a["items"][0] == "Baseball"
    # `--option=dataset:NAME` and the metaeval NAME=FILE form
    r = _cli("metaeval", "AP=dataset:adhoc8_ap", "P@10=dataset:adhoc8_p10", "--n-resamples", "20", "--rng", "1",
             "--no-pvalue", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["scores"]["AP"] == str(datasets.dataset_path("adhoc8_ap"))


def test_cli_unknown_dataset_is_one_line_exit_2(tmp_path):
    r = _cli("consensus", "dataset:sprots", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("agreekit consensus: error: dataset:sprots is not a shipped data set")
    assert "did you mean 'sports'" in r.stderr


def test_cli_never_writes_into_a_dataset(tmp_path):
    from agreekit._cli.datasets import expand_dataset_args

    argv = ["consensus", "dataset:sports", "-o", "dataset:sports", "--output=dataset:x"]
    out = expand_dataset_args(argv)
    assert out[1] == str(datasets.dataset_path("sports")) and out[2:] == argv[2:]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_cli_datasets_lists_names_paths_descriptions(tmp_path, fmt):
    r = _cli("datasets", "--format", fmt, "-o", "list.out", "--quiet", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    text = (tmp_path / "list.out").read_text()
    rows = json.loads(text)["datasets"] if fmt == "json" else list(csv.DictReader(text.splitlines()))
    assert [row["name"] for row in rows] == [d.name for d in datasets.available()]
    for row in rows:
        assert Path(row["path"]).is_file() and row["description"]
