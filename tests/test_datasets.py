"""agreekit.datasets: each loader returns the documented object, equal to reading the repository's resources/
file (and to a plain parse of it, without the library's readers); the synthetic TREC sample: a plain parse, its
documented shape, its generator rewriting the same bytes and ``evaluate`` equal to pytrec_eval on it; the list of
data sets; the CLI's ``agreekit datasets`` and ``dataset:NAME`` in place of an input file."""

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
from agreekit.ireval.metrics import load_scores

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources"
TREC = RES / "bootstrap" / "trec_topic_by_run_scores"
GENERATOR = RES / "datasets" / "make_synthetic_trec.py"
SAMPLE_FILES = ("qrels.txt.gz", "run.sysA.gz", "run.sysB.gz")


def _plain_rankings(path: Path):
    """The CSV by hand: header = labels (+ weight), cells = ranks, empty = NaN."""
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    header, body = rows[0], [r for r in rows[1:] if r]
    w = header.index("weight") if "weight" in header else None
    labels = [h for i, h in enumerate(header) if i != w]
    X = np.array([[float(c) if c else np.nan for i, c in enumerate(r) if i != w] for r in body])
    weights = np.array([float(r[w]) for r in body]) if w is not None else np.ones(len(body))
    return labels, X, weights


@pytest.mark.parametrize(
    ("loader", "file"), [(datasets.load_sports, "sports.csv"), (datasets.load_emond_mason, "emond_mason.csv")]
)
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


@pytest.mark.parametrize(
    ("name", "file"), [("fig1", "fig1_structure.json"), ("fig2a", "fig2a_omega.json"), ("fig2b", "fig2b_matching.json")]
)
def test_clustering_examples_equal_the_resources_file(name, file):
    assert datasets.load_clustering_example(name) == json.loads((RES / "clustering" / file).read_text("utf-8"))


@pytest.mark.parametrize("metric", ["ap", "p10", "rr"])
def test_trec_scores_equal_the_resources_file(metric):
    got = datasets.load_trec_scores(metric)
    path = TREC / f"adhoc8_{metric}.csv"
    pd.testing.assert_frame_equal(got, load_scores(path))
    plain = pd.read_csv(path)  # rows = topics 1..50, columns run1..run129
    assert got.shape == plain.shape == (50, 129)
    assert list(got.columns) == list(plain.columns)
    np.testing.assert_array_equal(got.to_numpy(), plain.to_numpy(dtype=float))


def _plain_trec(path: Path) -> list[list[str]]:
    """A TREC file by hand: gunzip, one whitespace-split row per non-empty line."""
    with gzip.open(path, "rt", encoding="ascii") as fh:
        return [line.split() for line in fh if line.strip()]


def _sample_dir() -> Path:
    return datasets.dataset_path("trec_sample_qrels").parent


def test_trec_sample_loader_equals_a_plain_parse_of_the_shipped_files():
    qrels, runs = datasets.load_trec_sample()
    folder = _sample_dir()
    assert sorted(p.name for p in folder.iterdir()) == sorted([*SAMPLE_FILES, "README.md"])
    lines = _plain_trec(folder / "qrels.txt.gz")
    assert {len(r) for r in lines} == {4} and {r[1] for r in lines} == {"0"}
    assert list(zip(qrels["topic"], qrels["docno"], qrels["relevance"])) == [(t, d, int(g)) for t, _, d, g in lines]
    assert qrels["relevance"].dtype == np.int64
    assert sorted(runs) == ["sysA", "sysB"]
    for tag, frame in runs.items():
        rows = _plain_trec(folder / f"run.{tag}.gz")
        assert {len(r) for r in rows} == {6} and {r[1] for r in rows} == {"Q0"} and {r[5] for r in rows} == {tag}
        assert list(zip(frame["topic"], frame["docno"], frame["score"])) == [
            (t, d, float(s)) for t, _, d, _, s, _ in rows
        ]


def test_trec_sample_has_the_documented_shape():
    """10 topics, graded 0/1/2 qrels over 60-150 judged documents a topic, 100 documents a topic per run
    ranked by distinct descending scores, unjudged documents in both runs, overlapping runs, sysA better
    on mean AP (AP written here: binary relevance, grade > 0)."""
    folder = _sample_dir()
    qrels = _plain_trec(folder / "qrels.txt.gz")
    judged: dict[str, dict[str, int]] = {}
    for t, _, d, g in qrels:
        assert d not in judged.setdefault(t, {})
        judged[t][d] = int(g)
    assert len(judged) == 10 and {g for j in judged.values() for g in j.values()} == {0, 1, 2}
    assert all(60 <= len(j) <= 150 and any(g > 0 for g in j.values()) for j in judged.values())
    ranked, mean_ap = {}, {}
    for tag in ("sysA", "sysB"):
        rows = _plain_trec(folder / f"run.{tag}.gz")
        ranked[tag] = {}
        for t, _, d, k, s, _ in rows:
            ranked[tag].setdefault(t, []).append((int(k), float(s), d))
        assert set(ranked[tag]) == set(judged)
        aps = []
        for t, docs in ranked[tag].items():
            assert [k for k, _, _ in docs] == list(range(1, 101))
            scores = [s for _, s, _ in docs]
            assert all(a > b for a, b in zip(scores, scores[1:]))
            assert len({d for _, _, d in docs}) == 100
            hits, ap = 0, 0.0
            for i, (_, _, d) in enumerate(docs, start=1):
                if judged[t].get(d, 0) > 0:
                    hits += 1
                    ap += hits / i
            aps.append(ap / sum(g > 0 for g in judged[t].values()))
        mean_ap[tag] = float(np.mean(aps))
        unjudged = [sum(d not in judged[t] for _, _, d in docs) for t, docs in ranked[tag].items()]
        assert all(5 <= u <= 50 for u in unjudged), unjudged
    overlap = [len({d for *_, d in ranked["sysA"][t]} & {d for *_, d in ranked["sysB"][t]}) for t in judged]
    assert all(30 <= o <= 90 for o in overlap), overlap
    assert mean_ap["sysA"] > mean_ap["sysB"] + 0.05


def test_trec_sample_generator_rewrites_the_same_bytes(tmp_path):
    r = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(SAMPLE_FILES)
    for name in SAMPLE_FILES:
        new, shipped = (tmp_path / "out" / name).read_bytes(), (_sample_dir() / name).read_bytes()
        assert gzip.decompress(new) == gzip.decompress(shipped), name
        assert new == shipped, f"{name}: same text, different gzip bytes"


def test_trec_sample_evaluate_equals_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from agreekit.ireval import evaluate

    qrels, runs = datasets.load_trec_sample()
    folder = _sample_dir()
    qrel_dict: dict[str, dict[str, int]] = {}
    for t, _, d, g in _plain_trec(folder / "qrels.txt.gz"):
        qrel_dict.setdefault(t, {})[d] = int(g)
    got = evaluate(qrels, runs, ["AP", "nDCG@10", "P@10"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, {"map", "ndcg_cut_10", "P_10"})
    for tag in ("sysA", "sysB"):
        run_dict: dict[str, dict[str, float]] = {}
        for t, _, d, _, s, _ in _plain_trec(folder / f"run.{tag}.gz"):
            run_dict.setdefault(t, {})[d] = float(s)
        ref = evaluator.evaluate(run_dict)
        assert sorted(ref) == sorted(got["AP"].index)
        for ours, theirs in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10")):
            want = np.array([ref[t][theirs] for t in got[ours].index])
            np.testing.assert_allclose(got[ours][tag].to_numpy(), want, rtol=0, atol=1e-12, err_msg=f"{ours} {tag}")
    assert got["AP"]["sysA"].mean() != got["AP"]["sysB"].mean()


def test_available_lists_every_file_with_its_readme():
    items = datasets.available()
    names = [d.name for d in items]
    assert len(names) == len(set(names)) == 11
    assert {"sports", "emond_mason", "adhoc8_ap", "adhoc8_p10"} <= set(names)
    assert [(d.name, d.path.name, d.loader) for d in items if d.name.startswith("trec_sample")] == [
        ("trec_sample_qrels", "qrels.txt.gz", "load_trec_sample()"),
        ("trec_sample_run_a", "run.sysA.gz", "load_trec_sample()"),
        ("trec_sample_run_b", "run.sysB.gz", "load_trec_sample()"),
    ]
    assert all(d.licence.startswith("BSD-3-Clause") for d in items if d.name.startswith("trec_sample"))
    assert not [d.name for d in items if "robust03" in d.name or "robust03" in str(d.path)]
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
    r = _cli(
        "metaeval",
        "AP=dataset:adhoc8_ap",
        "P@10=dataset:adhoc8_p10",
        "--n-resamples",
        "20",
        "--rng",
        "1",
        "--no-pvalue",
        cwd=tmp_path,
    )
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
