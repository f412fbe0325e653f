"""R-prec and trec_eval's nDCG against pytrec_eval and a rank-by-rank formula written here (ir_measures
computes these measures by calling pytrec_eval, so it is not a second reference): since issue 20 a bare ``nDCG@k`` is
trec_eval's form and the seed's Jarvelin-Kekalainen form is ``nDCG_jk@k``; ``ndcg=`` is deprecated."""

import math
from pathlib import Path

import pandas as pd
import pytest

from agreekit._validation import InputError
from agreekit.ireval.metrics import evaluate, parse_metric, read_qrels, read_run, topic_metrics

ROBUST = Path(__file__).resolve().parents[1] / "resources" / "bootstrap" / "robust03_top100"

QRELS = {"1": {"a": 2, "b": 1, "c": 1, "d": 0}}
RUN = pd.DataFrame({"topic": "1", "docno": list("xadby"), "score": [5.0, 4, 3, 2, 1]})


def _one(metric, **kw):
    return float(evaluate(QRELS, {"s": RUN}, metric, **kw)[metric].iloc[0, 0])


def test_hand_computed_rprec_and_trec_ndcg():
    # R = 3 relevant (a, b, c); top 3 = x, a, d -> one relevant
    assert _one("R-prec") == pytest.approx(1 / 3)
    assert _one("Rprec") == pytest.approx(1 / 3)
    # trec: gains 2 at rank 2, 1 at rank 4; ideal 2, 1, 1 at ranks 1-3
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert _one("nDCG@5") == pytest.approx(dcg / ideal, abs=1e-15)
    assert _one("nDCG@2") == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-15)
    # Jarvelin-Kekalainen under its own name (ranks 1-2 undiscounted, rank 4 / log2(4))
    assert _one("nDCG_jk@5") == pytest.approx((2 + 1 / 2) / (2 + 1 + 1 / math.log2(3)))


def test_deprecated_ndcg_option_still_selects_the_form_and_warns_once():
    for form, name in (("jk", "nDCG_jk@5"), ("trec", "nDCG@5")):
        with pytest.warns(DeprecationWarning) as w:
            old = _one("nDCG@5", ndcg=form)
        assert len(w) == 1 and "nDCG_jk@k" in str(w[0].message)
        assert old == _one(name)
    with pytest.warns(DeprecationWarning) as w:
        old = topic_metrics([0, 1], [1], [parse_metric("nDCG@2")], ndcg="jk")
    assert len(w) == 1 and old == topic_metrics([0, 1], [1], [parse_metric("nDCG_jk@2")]) == [1.0]


def test_bad_ndcg_form_and_rprec_cutoff_are_rejected():
    with pytest.warns(DeprecationWarning), pytest.raises(InputError, match="`ndcg`"):
        evaluate(QRELS, {"s": RUN}, "nDCG@5", ndcg="gdeval")
    with pytest.warns(DeprecationWarning), pytest.raises(InputError, match="`ndcg`"):
        topic_metrics([1], [1], [parse_metric("nDCG@5")], ndcg="TREC")
    with pytest.raises(InputError, match="R-prec takes no cut-off"):
        parse_metric("R-prec@10")


def _pytrec(qrels_df, run_df, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")  # [test] extra; only these tests need it
    qrels, run = {}, {}
    for t, d, r in qrels_df.itertuples(index=False):
        qrels.setdefault(str(t), {})[str(d)] = int(r)
    for t, d, s in run_df.itertuples(index=False):
        run.setdefault(str(t), {})[str(d)] = float(s)
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


@pytest.mark.skipif(not ROBUST.exists(), reason="robust03 fixture not shipped")
def test_rprec_and_trec_ndcg_match_pytrec_eval_on_all_robust03_runs():
    qrels_df = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    paths = sorted((ROBUST / "runs").glob("input.*.gz"))
    runs = dict(read_run(p) for p in paths)
    assert len(runs) == 17
    ours = evaluate(qrels_df, runs, ["R-prec", "nDCG@10", "nDCG@20", "nDCG@100"], depth=100)
    worst = 0.0
    n_checked = 0
    for name, run_df in runs.items():
        # pytrec_eval sees the run cut to depth 100 exactly as trec_eval ranks it (score desc, docno desc)
        ref = _pytrec(qrels_df, run_df, {"Rprec", "ndcg_cut.10,20,100"})
        for t in ours["R-prec"].index:
            r = ref.get(t, {})  # topics the run does not answer score 0 (trec_eval -c)
            for ours_name, ref_name in (
                ("R-prec", "Rprec"),
                ("nDCG@10", "ndcg_cut_10"),
                ("nDCG@20", "ndcg_cut_20"),
                ("nDCG@100", "ndcg_cut_100"),
            ):
                d = abs(ours[ours_name].loc[t, name] - r.get(ref_name, 0.0))
                worst = max(worst, d)
                n_checked += 1
    assert n_checked == 17 * 100 * 4
    assert worst <= 1e-12


def _trec_forms_plain(qrels_df, run_df, k, depth=100):
    """trec_eval's ndcg_cut_k (gain = relevance level, discount log2(rank + 1), ideal over all judged
    relevant documents) and Rprec, per topic, with the run ranked by score then docno, both descending."""
    out = {}
    for t, rel in qrels_df.groupby("topic"):
        gains = {d: int(r) for d, r in zip(rel.docno, rel.relevance) if int(r) > 0}
        docs = run_df[run_df.topic == t].sort_values(["score", "docno"], ascending=[False, False])
        docs = docs.docno.tolist()[:depth]
        dcg = sum(gains.get(d, 0) / math.log2(r + 1) for r, d in enumerate(docs[:k], start=1))
        ideal = sorted(gains.values(), reverse=True)[:k]
        idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
        R = len(gains)
        out[t] = (dcg / idcg if idcg > 0 else 0.0, sum(d in gains for d in docs[:R]) / R if R else 0.0)
    return out


def test_trec_ndcg_and_rprec_match_the_plain_formula_and_jk_differs():
    if not ROBUST.exists():
        pytest.fail("resources/bootstrap/robust03_top100 is part of the repository")
    qrels_df = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    name, run_df = read_run(ROBUST / "runs" / "input.MU03rob01.gz")
    ours = evaluate(qrels_df, {name: run_df}, ["nDCG@20", "R-prec"], depth=100)
    jk = evaluate(qrels_df, {name: run_df}, "nDCG_jk@20", depth=100)["nDCG_jk@20"]
    ref = _trec_forms_plain(qrels_df, run_df, 20)
    assert len(ref) == 100
    for t in ours["nDCG@20"].index:
        assert ours["nDCG@20"].loc[t, name] == pytest.approx(ref[t][0], rel=0, abs=1e-12)
        assert ours["R-prec"].loc[t, name] == pytest.approx(ref[t][1], rel=0, abs=1e-12)
    gap = (jk[name] - ours["nDCG@20"][name]).abs()
    assert gap.max() > 0.01  # the paper's form is a different metric
