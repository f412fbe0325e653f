"""The IR metric registry: names as users type them (ir_measures parameters, trec_eval names, bpref,
Judged@k, Success@k) against pytrec_eval / ir_measures on TREC 2003 Robust, fail-closed dispatch,
the CLI built from the registry, "did you mean", the default depth (every document, as
pytrec_eval), and the pairing / gains rules of the ireval API."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit import InputError
from agreekit.ireval import difference_se, paired_test
from agreekit.ireval.metrics import METRICS, MetricSpec, evaluate, parse_metric, read_qrels, read_run, topic_metrics

ROOT = Path(__file__).resolve().parents[1]
ROBUST = ROOT / "resources" / "bootstrap" / "robust03_top100"
try:
    import pytrec_eval
except ImportError:  # pragma: no cover
    pytrec_eval = None
try:
    import ir_measures
except ImportError:  # pragma: no cover
    ir_measures = None
needs_pytrec = pytest.mark.skipif(pytrec_eval is None, reason="pytrec_eval not installed")
needs_irm = pytest.mark.skipif(ir_measures is None, reason="ir_measures not installed")


@pytest.fixture(scope="module")
def robust03():
    if not ROBUST.exists():
        pytest.skip("robust03 fixture not shipped")
    qrels = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    runs = dict(read_run(p) for p in sorted((ROBUST / "runs").glob("input.*.gz")))
    assert len(runs) == 17
    return qrels, runs


def _qrels_dict(qrels: pd.DataFrame) -> dict:
    out: dict = {}
    for t, d, g in qrels.itertuples(index=False):
        out.setdefault(t, {})[d] = int(g)
    return out


def _run_dict(run: pd.DataFrame) -> dict:
    out: dict = {}
    for t, d, s in run.itertuples(index=False):
        out.setdefault(t, {})[d] = float(s)
    return out


# ----------------------------------------------------------------------------- C: names vs the peers
#: trec_eval name as typed -> pytrec_eval's measure (request, result key)
TREC_NAMES = {
    "map": ("map", "map"),
    "map_cut_10": ("map_cut.10", "map_cut_10"),
    "P_10": ("P.10", "P_10"),
    "P.20": ("P.20", "P_20"),
    "recall_100": ("recall.100", "recall_100"),
    "ndcg_cut_10": ("ndcg_cut.10", "ndcg_cut_10"),
    "ndcg": ("ndcg", "ndcg"),
    "recip_rank": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "bpref": ("bpref", "bpref"),
    "success_1": ("success.1", "success_1"),
    "success_10": ("success.10", "success_10"),
}


@needs_pytrec
def test_trec_eval_names_equal_pytrec_eval_on_all_robust03_runs(robust03):
    qrels, runs = robust03
    ours = evaluate(qrels, runs, list(TREC_NAMES))  # default depth: every retrieved document
    ev = pytrec_eval.RelevanceEvaluator(_qrels_dict(qrels), {req for req, _ in TREC_NAMES.values()})
    worst, cells = 0.0, 0
    for name, run in runs.items():
        res = ev.evaluate(_run_dict(run))
        for m, (_, key) in TREC_NAMES.items():
            ref = pd.Series({t: v[key] for t, v in res.items()}).reindex(ours[m].index, fill_value=0.0)
            worst = max(worst, float(np.max(np.abs(ours[m][name].to_numpy() - ref.to_numpy()))))
            cells += ref.size
    assert cells == 17 * 100 * len(TREC_NAMES) >= 1000
    assert worst <= 1e-12


IRM_NAMES = [
    "P(rel=2)@10",
    "AP(rel=2)",
    "nDCG(cutoff=10)",
    "R(rel=2)@100",
    "RR(rel=2)",
    "Rprec(rel=2)",
    "Bpref",
    "Bpref(rel=2)",
    "Judged@5",
    "Judged@10",
    "Judged@100",
    "Success@1",
    "Success@10",
    "Success(rel=2)@5",
    "AP@10",
]


@needs_irm
def test_ir_measures_syntax_bpref_judged_success_equal_ir_measures(robust03):
    qrels, runs = robust03
    # the runs with ties at the Judged@k boundaries (ir_measures breaks ties by docno ascending there)
    sel = {n: runs[n] for n in ("MU03rob01", "rutcor03100", "Sel50", "pircRBa1")}
    ours = evaluate(qrels, sel, IRM_NAMES)  # typed as strings
    objs = [ir_measures.parse_measure(m) for m in IRM_NAMES]
    ours_obj = evaluate(qrels, sel, objs)  # and as measure objects
    qr = [ir_measures.Qrel(t, d, int(g)) for t, d, g in qrels.itertuples(index=False)]
    worst, cells = 0.0, 0
    for name, run in sel.items():
        sd = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in run.itertuples(index=False)]
        ref = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(objs, qr, sd)}
        for typed, obj in zip(IRM_NAMES, objs):
            for t, v in ours[typed][name].items():
                worst = max(worst, abs(v - ref.get((str(obj), t), 0.0)))  # unanswered topics score 0
                cells += 1
            assert ours_obj[str(obj)][name].equals(ours[typed][name])
    assert cells == 4 * 100 * len(IRM_NAMES) >= 1000
    assert worst <= 1e-12


def test_parameter_and_trec_names_parse_to_the_registry_kinds():
    assert parse_metric("P(rel=2)@10") == MetricSpec("P(rel=2)@10", "P", 10, 2)
    assert parse_metric("nDCG(cutoff=10)") == MetricSpec("nDCG(cutoff=10)", "nDCG", 10, None)
    assert parse_metric("R(rel=2)@100").rel == 2 and parse_metric("RR(rel=2)").kind == "RR"
    assert [
        parse_metric(n).kind
        for n in (
            "map",
            "P_10",
            "ndcg_cut_10",
            "recip_rank",
            "bpref",
            "Judged@3",
            "Success@5",
            "map_cut_5",
            "recall.100",
        )
    ] == ["AveP", "P", "nDCG", "RR", "bpref", "Judged", "Success", "AveP", "R"]
    for bad, why in [
        ("nDCG(rel=2)@10", "parameter"),
        ("P(rel=2)@10(x)", "unsupported"),
        ("P(cutoff=5)@10", "once"),
        ("bpref@10", "no cut-off"),
        ("P(rel=0)@10", "rel must be"),
        ("AP(rel=2, rel=3)", "twice"),
        ("Rprec@5", "no cut-off"),
    ]:
        with pytest.raises(InputError, match=why):
            parse_metric(bad)


def test_did_you_mean_for_misspelt_metric_names():
    for typed, meant in [
        ("nDGC@10", "nDCG@10"),
        ("ndcg@10", "nDCG@10"),
        ("Judgd@10", "Judged@10"),
        ("recip_rnk", "recip_rank"),
        ("bperf", "bpref"),
    ]:
        with pytest.raises(InputError, match=re.escape(f"did you mean {meant!r}")):
            parse_metric(typed)
    with pytest.raises(InputError) as exc:
        parse_metric("zzzz")
    assert "did you mean" not in str(exc.value)


# ----------------------------------------------------------------------------- A: one registry
def _spellings() -> set[str]:
    return {s for d in METRICS.values() for s in (d.kind, *d.aliases)}


def test_cli_help_lists_exactly_the_registry():
    out = subprocess.run(
        [sys.executable, "-m", "agreekit", "evaluate", "--help"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "400", "PATH": ""},
        check=True,
    ).stdout
    text = " ".join(out.split())
    listed = re.search(r"metric \(repeatable or comma-separated\): (.*?); ir_measures parameters", text).group(1)
    names = set()
    for part in listed.split(", "):
        m = re.fullmatch(r"([\w\-]+)(?:\[@k\])?(?: \(([^)]*)\))?", part.strip())
        assert m is not None, part
        names.add(m.group(1))
        names.update(a.strip() for a in (m.group(2) or "").split(",") if a.strip())
    assert names == _spellings()


def test_every_registry_entry_parses_and_computes():
    qrels = {"1": {"a": 2, "b": 1, "c": 0}, "2": {"d": 1}}
    run = pd.DataFrame({"topic": ["1", "1", "1", "2"], "docno": ["c", "a", "x", "d"], "score": [3.0, 2, 1, 1]})
    for d in METRICS.values():
        for spelling in (d.kind, *d.aliases):
            name = spelling if d.cutoff == "forbidden" else f"{spelling}@2"
            res = evaluate(qrels, {"s": run}, name)[name]["s"]
            assert res.shape == (2,) and np.all((res >= 0) & (res <= 1)), name


def test_unknown_kind_raises_in_every_dispatcher():
    from agreekit.ireval import _evaluate, _kernels_ir

    bogus = MetricSpec("x", "nDCG_JK", 10)
    with pytest.raises(InputError, match="unknown metric kind 'nDCG_JK'"):
        topic_metrics([1.0, 0.0], [1.0], [bogus])
    lists = _kernels_ir.RankedLists(
        n_topics=1,
        seg=np.zeros(1, dtype=np.int64),
        pos=np.ones(1),
        gain=np.ones(1),
        start=np.zeros(1, dtype=np.int64),
        n_ret=np.ones(1, dtype=np.int64),
        ideal=np.ones(1),
        istart=np.zeros(1, dtype=np.int64),
        R=np.ones(1, dtype=np.int64),
    )
    with pytest.raises(InputError, match="unknown metric kind"):
        _evaluate._compute(lists, MetricSpec("y", "ERR", None))
    for name in ("ERR@20", "nDCG_JK@10", "AP@", "", "MAP"):
        with pytest.raises(InputError, match="unsupported metric"):
            parse_metric(name)
        with pytest.raises(InputError, match="unsupported metric"):
            evaluate({"1": {"a": 1}}, pd.DataFrame({"topic": ["1"], "docno": ["a"], "score": [1.0]}), name)


def test_registry_is_read_only_and_every_kind_has_a_doc():
    with pytest.raises(TypeError):
        METRICS["X"] = None
    assert all(d.doc and callable(d.compute) for d in METRICS.values())
    assert {
        "AveP",
        "P",
        "R",
        "RR",
        "R-prec",
        "nDCG",
        "nDCG_jk",
        "nCG",
        "Q-measure",
        "bpref",
        "Judged",
        "Success",
    } == set(METRICS)


def test_old_helper_names_still_import_with_a_deprecation_warning():
    import agreekit.ireval.metrics as m

    with pytest.warns(DeprecationWarning, match="private"):
        assert m.NDCG_FORMS == ("jk", "trec")
    with pytest.warns(DeprecationWarning, match="private"):
        assert m.TOPIC_COLUMN_CHOICES == ("auto", "first", "none")
    with warnings.catch_warnings():  # the validator metaeval shares keeps its name
        warnings.simplefilter("error")
        assert m.check_scores([[1.0, 0.0], [0.0, 1.0]]).shape == (2, 2)
    with pytest.raises(AttributeError):
        m.no_such_name  # noqa: B018


# ----------------------------------------------------------------------------- B: default depth
def _deep_topic():
    """One topic, 1500 retrieved documents, 30 relevant ones spread over ranks 1..1500."""
    rng = np.random.default_rng(7)
    rel_ranks = np.sort(rng.choice(np.arange(1, 1501), size=30, replace=False))
    docs = [f"d{i:04d}" for i in range(1, 1501)]
    qrels = {"401": {docs[r - 1]: 1 for r in rel_ranks}} | {"402": {"z1": 1, "z2": 0}}
    qrels["401"]["unretrieved"] = 1
    run = pd.DataFrame(
        {
            "topic": ["401"] * 1500 + ["402"],
            "docno": docs + ["z1"],
            "score": np.concatenate([np.linspace(100.0, 1.0, 1500), [1.0]]),
        }
    )
    return qrels, run, rel_ranks


@needs_pytrec
def test_default_depth_is_every_document_like_pytrec_eval():
    qrels, run, rel_ranks = _deep_topic()
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recall.1000", "ndcg", "Rprec", "bpref"})
    ref = ev.evaluate(_run_dict(run))["401"]
    res = evaluate(qrels, {"s": run}, ["AP", "R@1000", "nDCG", "Rprec", "bpref"])
    assert abs(res["AP"].loc["401", "s"] - ref["map"]) <= 1e-12
    assert abs(res["nDCG"].loc["401", "s"] - ref["ndcg"]) <= 1e-12
    assert abs(res["bpref"].loc["401", "s"] - ref["bpref"]) <= 1e-12
    # the definition by hand: relevant documents below rank 1000 count (R = 31 with the unretrieved one)
    by_hand = sum((i + 1) / r for i, r in enumerate(rel_ranks)) / 31
    assert abs(res["AP"].loc["401", "s"] - by_hand) <= 1e-12
    cut = evaluate(qrels, {"s": run}, "AP", depth=1000)["AP"].loc["401", "s"]
    assert abs(cut - sum((i + 1) / r for i, r in enumerate(rel_ranks) if r <= 1000) / 31) <= 1e-12
    assert cut < by_hand - 1e-3  # the old default lost the tail


# ----------------------------------------------------------------------------- B: the bulk reader
def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@needs_pytrec
def test_files_with_ties_repeats_tabs_and_comments_equal_pytrec_eval(tmp_path):
    rng = np.random.default_rng(3)
    lines, qlines = [], []
    for t in range(1, 21):
        for d in rng.choice(60, size=40, replace=False):
            lines.append(f"{t}\tQ0 doc{d:03d} 0  {rng.integers(0, 5) / 2}\trunA")  # many ties, tabs
        for d in rng.choice(60, size=30, replace=False):
            qlines.append(f"{t} 0 doc{d:03d} {rng.integers(0, 3)}")
    qtext = "\n".join(qlines) + "\n"
    fast = _write(tmp_path / "q.txt", qtext)
    slow = _write(tmp_path / "q_comment.txt", "# a comment line\n" + qtext)  # the careful reader
    run = _write(tmp_path / "r.txt", "\n".join(lines) + "\n")
    a = evaluate(fast, run, ["AP", "nDCG@10", "bpref", "P_5"])
    b = evaluate(slow, run, ["AP", "nDCG@10", "bpref", "P_5"])
    q = {}
    for ln in qlines:
        t, _, d, g = ln.split()
        q.setdefault(t, {})[d] = int(g)
    r = {}
    for ln in lines:
        t, _, d, _, s, _ = ln.split()
        r.setdefault(t, {}).setdefault(d, float(s))
    ref = pytrec_eval.RelevanceEvaluator(q, {"map", "ndcg_cut.10", "bpref", "P.5"}).evaluate(r)
    for m, key in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("bpref", "bpref"), ("P_5", "P_5")):
        want = pd.Series({t: v[key] for t, v in ref.items()}).reindex(a[m].index)
        assert np.max(np.abs(a[m]["runA"].to_numpy() - want.to_numpy())) <= 1e-12, m
        assert a[m].equals(b[m])


@pytest.mark.parametrize(
    "content,match",
    [
        ("1 0 d1 1.0\n", "grade '1.0' is not an integer"),
        ("1 0 d1 1e3\n", "grade '1e3' is not an integer"),
        ("1 0 d1 1_0\n", "grade '1_0' is not an integer"),  # int() would read 10
        ("1 0 d1 +-1\n", "grade '+-1' is not an integer"),
        ("1 0 d1 1\n1 0 d1 2\n", "line 2: document 'd1' of topic '1' is judged 2, but line 1 judged it 1"),
        ("1 0 d1 1 x\n", "line 1: expected 4 fields"),
        ("1 0 d1 1\n1 0 d2\n", "line 2: expected 4 fields"),
        ("1 0 d1\x0c1\n", "line 1: expected 4 fields"),  # a form feed separates, as str.split does
    ],
)
def test_bulk_qrels_reader_refuses_what_the_line_reader_refuses(tmp_path, content, match):
    p = tmp_path / "q.txt"
    p.write_text(content)
    if "\x0c" in content:
        assert len(read_qrels(p)) == 1  # form feed = whitespace, as trec_eval's split
        return
    with pytest.raises(InputError, match=re.escape(match)):
        read_qrels(p)


@pytest.mark.parametrize(
    "content,match",
    [
        ("1 Q0 d1 1 inf t\n", "line 1: score must be finite"),
        ("1 Q0 d1 1 1e400 t\n", "line 1: score must be finite"),
        ("1 Q0 d1 1 0x1 t\n", "score '0x1' is not a number"),
        ("1 Q0 d1 1 2 t\n1 Q0 d2 2 1 u\n", "line 2: run tag 'u' differs"),
        ("1 Q0 d1 1 2 t x\n1 Q0 d2 2 1 t\n", "line 1: expected 6 fields"),
        ("1 Q0 d1 1 2 t\n1 Q0 d2 2 1\n", "line 2: expected 6 fields"),
    ],
)
def test_bulk_run_reader_refuses_what_the_line_reader_refuses(tmp_path, content, match):
    p = tmp_path / "r.txt"
    p.write_text(content)
    with pytest.raises(InputError, match=re.escape(match)):
        read_run(p)


def test_ids_stay_text_in_the_bulk_reader(tmp_path):
    p = _write(tmp_path / "q.txt", "01 0 NA 1\n1 0 null 2\n001 0 1e3 1\n")
    q = read_qrels(p)
    assert q["topic"].tolist() == ["01", "1", "001"] and q["docno"].tolist() == ["NA", "null", "1e3"]
    name, r = read_run(_write(tmp_path / "r.txt", "01 Q0 NaN 1 0.5 t\n"))
    assert r["docno"].tolist() == ["NaN"] and r["topic"].tolist() == ["01"]


# ----------------------------------------------------------------------------- D: pairing and gains
def test_paired_test_and_difference_se_pair_series_by_label():
    rng = np.random.default_rng(0)
    x = pd.Series(rng.random(12), index=[f"t{i}" for i in range(12)])
    y = pd.Series(rng.random(12), index=x.index)
    shuffled = y.sample(frac=1.0, random_state=1)
    assert not shuffled.index.equals(y.index)
    a = paired_test(x, y, n_resamples=200, rng=5)
    b = paired_test(x, shuffled, n_resamples=200, rng=5)
    assert a.statistic == b.statistic and a.pvalue == b.pvalue
    z = x.to_numpy() - y.to_numpy()  # the t statistic by its definition
    assert abs(a.statistic - z.mean() / (z.std(ddof=1) / np.sqrt(z.size))) <= 1e-12
    d1 = difference_se(x, y, n_resamples=200, rng=5)
    d2 = difference_se(x, shuffled, n_resamples=200, rng=5)
    assert d1.difference == d2.difference and d1.standard_error == d2.standard_error
    other = pd.Series(y.to_numpy(), index=[f"u{i}" for i in range(12)])
    for f in (paired_test, difference_se):
        with pytest.raises(InputError, match="different topic labels"):
            f(x, other, n_resamples=50, rng=1)


@pytest.mark.parametrize(
    "gains,match",
    [
        ({1.5: 5}, "grade 1.5 must be an integer"),
        ({True: 5}, "is a bool"),
        ({1: 2, "01": 3}, "given twice with different gains"),
        ({"x": 1}, "must be an integer"),
        ({1: True}, "is a bool"),
    ],
)
def test_gains_refuse_non_integer_bool_and_conflicting_grades(gains, match):
    run = pd.DataFrame({"topic": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match=match):
        evaluate({"1": {"a": 1, "b": 2}}, run, "nDCG@2", gains=gains)


def test_gains_accept_integer_spellings_alike():
    run = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    q = {"1": {"a": 1, "b": 2}}
    want = (1 / 1 + 3 / np.log2(3)) / (3 / 1 + 1 / np.log2(3))  # a (gain 1) then b (gain 3)
    for g in ({2: 3}, {"2": 3}, {np.int64(2): 3.0}, {2: 3, "02": 3}, {2.0: 3}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert abs(evaluate(q, {"s": run}, "nDCG@2", gains=g)["nDCG@2"].loc["1", "s"] - want) <= 1e-15


# ----------------------------------------------------------------------------- the CLI
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True)


def test_cli_did_you_mean_is_one_stderr_line(tmp_path):
    q = _write(tmp_path / "q.txt", "1 0 a 1\n1 0 b 0\n")
    r = _write(tmp_path / "r.txt", "1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0 s\n")
    res = _cli("evaluate", str(q), str(r), "--metrics", "nDGC@10")
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "did you mean 'nDCG@10'" in lines[0] and "Traceback" not in res.stderr


def test_cli_parameters_with_commas_and_trec_names(tmp_path):
    q = _write(tmp_path / "q.txt", "1 0 a 2\n1 0 b 1\n1 0 c 0\n")
    r = _write(tmp_path / "r.txt", "1 Q0 b 1 3.0 s\n1 Q0 a 2 2.0 s\n1 Q0 c 3 1.0 s\n")
    res = _cli("evaluate", str(q), str(r), "--metrics", "P(rel=2,cutoff=2),map", "--format", "json")
    assert res.returncode == 0, res.stderr
    import json

    got = json.loads(res.stdout)["metrics"]
    assert got["P(rel=2,cutoff=2)"]["s"]["1"] == 0.5  # only 'a' has grade >= 2
    assert abs(got["map"]["s"]["1"] - (1 / 1 + 2 / 2) / 2) <= 1e-12  # b at 1, a at 2: both relevant
