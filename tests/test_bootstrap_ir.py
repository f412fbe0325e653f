"""agreekit.ireval.metrics: hand-computed metrics, ir_measures cross-checks, TREC parsing errors."""

import gzip
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit._validation import InputError
from agreekit.ireval.metrics import (
    evaluate,
    geometric_mean,
    load_scores,
    parse_metric,
    read_qrels,
    read_run,
    round_significant,
    topic_metrics,
)

ROBUST = Path(__file__).resolve().parents[1] / "resources" / "bootstrap" / "robust03_top100"

QRELS = {"1": {"a": 2, "b": 1, "c": 1, "d": 0}}
# ranked list: x (unjudged), a (2), d (0), b (1), y (unjudged); c is not retrieved
RUN = pd.DataFrame({"topic": "1", "docno": list("xadby"), "score": [5.0, 4, 3, 2, 1]})


def _one(metric, **kw):
    return float(evaluate(QRELS, {"s": RUN}, metric, **kw)[metric].iloc[0, 0])


def test_hand_computed_metrics():
    assert _one("AveP") == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert _one("P@3") == pytest.approx(1 / 3)
    assert _one("P@10") == pytest.approx(2 / 10)  # denominator stays l although L = 5 < l
    # Q: BR(2) = (2 + 1) / (3 + 2), BR(4) = (3 + 2) / (4 + 4); ideal gains 2, 1, 1
    assert _one("Q-measure") == pytest.approx((3 / 5 + 5 / 8) / 3)
    assert _one("nCG@3") == pytest.approx(2 / 4)
    assert _one("nCG@10") == pytest.approx(3 / 4)  # plateau: cgI(l) = cgI(R) for l >= R
    # nDCG_jk (a = 2): ranks 1 and 2 undiscounted, rank 4 divided by log2(4) = 2
    ideal = 2 + 1 + 1 / math.log2(3)
    assert _one("nDCG_jk@5") == pytest.approx((2 + 1 / 2) / ideal)
    assert _one("nDCG_jk@2") == pytest.approx(2 / 3)
    assert _one("Q-measure", beta=0.0) == pytest.approx(_one("AveP"))  # beta = 0 gives AveP
    assert _one("AveP", depth=3) == pytest.approx((1 / 2) / 3)  # cut at depth
    assert _one("AveP@3") == pytest.approx((1 / 2) / 3)
    assert _one("nDCG_jk@5", gains={2: 3, 1: 1}) == pytest.approx((3 + 1 / 2) / (3 + 1 + 1 / math.log2(3)))


def test_q_measure_vs_avep_binary_relevance():
    specs = [parse_metric("AveP"), parse_metric("Q-measure")]
    # no relevant document below rank R -> Q = AveP
    ap, q = topic_metrics([1, 1, 0, 0], [1, 1], specs)
    assert q == pytest.approx(ap)
    ap, q = topic_metrics([1, 0, 1, 0], [1, 1, 1], specs)  # relevant at ranks 1, 3 with R = 3
    assert q == pytest.approx(ap)
    # a relevant document below rank R -> Q > AveP
    ap, q = topic_metrics([0, 1, 0, 1], [1, 1], specs)
    assert q > ap
    assert ap == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert q == pytest.approx(((1 + 1) / (2 + 2) + (2 + 2) / (2 + 4)) / 2)  # cgI(2) = cgI(4) = 2


def test_geometric_mean_with_zeros():
    x = np.array([0.0, 0.5, 0.2])
    expect = math.exp((math.log(1e-5) + math.log(0.5 + 1e-5) + math.log(0.2 + 1e-5)) / 3) - 1e-5
    assert geometric_mean(x) == pytest.approx(expect, rel=1e-12)
    assert round_significant([0.123456, 0.0012345, 0.0]).tolist() == [0.1235, 0.001234, 0.0]


def test_missing_topics_score_zero_and_run_only_topics_are_ignored():
    qrels = {"1": {"a": 1}, "2": {"b": 1}, "10": {"c": 1}}
    run = pd.DataFrame({"topic": ["1", "99"], "docno": ["a", "b"], "score": [1.0, 1.0]})
    m = evaluate(qrels, {"s": run}, ["AveP", "nDCG@10"])
    assert m["AveP"].index.tolist() == ["1", "2", "10"]  # numeric topic order
    assert m["AveP"]["s"].tolist() == [1.0, 0.0, 0.0]
    assert m["nDCG@10"]["s"].tolist() == [1.0, 0.0, 0.0]


def test_ties_duplicates_and_trec_eval_order(tmp_path):
    # equal scores: trec_eval ranks by docno descending, so "b" before "a"; repeated docno kept once
    qrels = {"1": {"a": 1, "z": 1}}
    run = pd.DataFrame({"topic": "1", "docno": ["a", "b", "a", "z"], "score": [1.0, 1.0, 0.5, 0.1]})
    assert evaluate(qrels, {"s": run}, "AveP")["AveP"].iloc[0, 0] == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_topic_without_relevant_documents():
    qrels = {"1": {"a": 1}, "2": {"b": 0}}
    run = pd.DataFrame({"topic": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="no relevant"):
        evaluate(qrels, {"s": run}, "AveP")
    with pytest.warns(UserWarning, match="dropping 1 topic"):
        m = evaluate(qrels, {"s": run}, "AveP", empty_topics="drop")["AveP"]
    assert m.index.tolist() == ["1"]


def test_malformed_trec_files(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n1 0 b\n")
    with pytest.raises(InputError, match="line 2"):
        read_qrels(q)
    q.write_text("1 0 a x\n")
    with pytest.raises(InputError, match="grade"):
        read_qrels(q)
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 a 1 0.5 tag\n1 Q0 b 2 high tag\n")
    with pytest.raises(InputError, match="line 2.*score"):
        read_run(r)
    r.write_text("1 Q0 a 1 0.5\n")
    with pytest.raises(InputError, match="6 fields"):
        read_run(r)
    with pytest.raises(InputError, match="unsupported metric 'MAP'"):
        parse_metric("MAP")


def test_read_gzip_and_names(tmp_path):
    p = tmp_path / "input.mine.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("1 Q0 a 1 2.0 myrun\n1 Q0 b 2 1.0 myrun\n")
    name, df = read_run(p)
    assert name == "myrun" and df.shape == (2, 3)
    m = evaluate({"1": {"b": 1}}, [p], "P@2")["P@2"]
    assert m.columns.tolist() == ["myrun"] and m.iloc[0, 0] == 0.5


def test_load_scores_layouts(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("run1,run2\n0.1,0.2\n0.3,0.4\n")
    df = load_scores(a)
    assert df.index.tolist() == [1, 2] and df.columns.tolist() == ["run1", "run2"]
    b = tmp_path / "b.csv"
    b.write_text("topic,A,B\nq1,0.1,0.2\nq2,0.3,0.4\n")
    assert load_scores(b).index.tolist() == ["q1", "q2"]
    bad = tmp_path / "bad.csv"
    bad.write_text("topic,A,B\nq1,0.1,\nq2,0.3,0.4\n")
    with pytest.raises(InputError, match="line 2: missing value"):
        load_scores(bad)
    bad.write_text("topic,A,B\nq1,0.1,abc\nq2,0.3,0.4\n")
    with pytest.raises(InputError, match="non-numeric"):
        load_scores(bad)
    bad.write_text("A\n0.1\n0.2\n")
    with pytest.raises(InputError, match="at least 2 systems"):
        load_scores(bad)
    bad.write_text("A,B\n0.1,0.2\n")
    with pytest.raises(InputError, match="at least 2 topics"):
        load_scores(bad)


# ------------------------------------------------------------------ cross-checks with ir_measures


@pytest.fixture
def ir_measures():
    """ir_measures for the tests that use it (a [test] extra; the other tests of this file do not need it)."""
    return pytest.importorskip("ir_measures")


def _irm_qrels(ir_measures, qrels_df):
    return [
        ir_measures.Qrel(t, d, int(r))
        for t, d, r in zip(qrels_df.topic.tolist(), qrels_df.docno.tolist(), qrels_df.relevance.tolist())
    ]


def _irm(ir_measures, qrels_df, run_df, measures):
    """ir_measures' values by (measure, topic); ``qrels_df`` may be a list made once by _irm_qrels."""
    qrels = qrels_df if isinstance(qrels_df, list) else _irm_qrels(ir_measures, qrels_df)
    run = [
        ir_measures.ScoredDoc(t, d, float(s))
        for t, d, s in zip(run_df.topic.tolist(), run_df.docno.tolist(), run_df.score.tolist())
    ]
    out = {}
    for m in ir_measures.iter_calc(measures, qrels, run):
        out[(str(m.measure), m.query_id)] = m.value
    return out


def test_avep_and_precision_match_ir_measures_on_random_runs_with_ties(ir_measures):
    rng = np.random.default_rng(0)
    rows, runs = [], []
    for t in range(1, 9):
        docs = [f"d{i:03d}" for i in range(60)]
        for d in docs:
            g = int(rng.choice([0, 0, 0, 1, 2]))
            rows.append((str(t), d, g))
        if not any(r[2] > 0 for r in rows if r[0] == str(t)):
            rows.append((str(t), "d000", 1))
        for d in rng.choice(docs + [f"u{i}" for i in range(20)], size=40, replace=False):
            runs.append((str(t), str(d), float(rng.integers(0, 8))))  # many score ties
    qrels = pd.DataFrame(rows, columns=["topic", "docno", "relevance"]).drop_duplicates(["topic", "docno"])
    run = pd.DataFrame(runs, columns=["topic", "docno", "score"])
    ours = evaluate(qrels, {"s": run}, ["AveP", "P@10", "P@5"], depth=30)
    ref = _irm(ir_measures, qrels, run, [ir_measures.AP @ 30, ir_measures.P @ 10, ir_measures.P @ 5])
    for t in ours["AveP"].index:
        assert ours["AveP"].loc[t, "s"] == pytest.approx(ref[("AP@30", t)], abs=1e-12)
        assert ours["P@10"].loc[t, "s"] == pytest.approx(ref[("P@10", t)], abs=1e-12)
        assert ours["P@5"].loc[t, "s"] == pytest.approx(ref[("P@5", t)], abs=1e-12)


@pytest.mark.skipif(not ROBUST.exists(), reason="robust03 fixture not shipped")
def test_avep_and_p10_match_ir_measures_on_robust03(ir_measures):
    qrels = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    names = ["MU03rob01", "NLPR03vb10", "rutcor03100"]  # integer-score ties, short run, ties at the cut
    runs = {n: read_run(ROBUST / "runs" / f"input.{n}.gz")[1] for n in names}
    ours = evaluate(qrels, runs, ["AveP", "P@10"], depth=100)
    irm_qrels = _irm_qrels(ir_measures, qrels)
    for n in names:
        ref = _irm(ir_measures, irm_qrels, runs[n], [ir_measures.AP @ 100, ir_measures.P @ 10])
        for t in ours["AveP"].index:
            assert ours["AveP"].loc[t, n] == pytest.approx(ref.get(("AP@100", t), 0.0), abs=1e-12)
            assert ours["P@10"].loc[t, n] == pytest.approx(ref.get(("P@10", t), 0.0), abs=1e-12)


def test_ndcg_jk_differs_from_trec_eval_ndcg_by_definition(ir_measures):
    """ir_measures' nDCG (= our nDCG@k) discounts from rank 1 by log2(r + 1); Sakai's original
    form (nDCG_jk@k) does not discount ranks 1-2 and divides rank i > 2 by log2(i)."""
    qrels = pd.DataFrame({"topic": "1", "docno": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"topic": "1", "docno": ["x", "a", "b"], "score": [3.0, 2.0, 1.0]})
    res = evaluate(qrels, {"s": run}, ["nDCG_jk@10", "nDCG@10"])
    jk, ours = res["nDCG_jk@10"].iloc[0, 0], res["nDCG@10"].iloc[0, 0]
    ref = _irm(ir_measures, qrels, run, [ir_measures.nDCG @ 10])[("nDCG@10", "1")]
    assert jk == pytest.approx((1 + 1 / math.log2(3)) / 2)
    assert ref == pytest.approx((1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3)))
    assert ours == pytest.approx(ref, abs=1e-15)
    assert abs(jk - ref) > 0.1


def _q_measure_plain(qrels, run, depth, gains, beta=1.0):
    """Q-measure (Sakai 2006 Eqs. 5-6, notes 11) per topic, written out rank by rank; the run is ordered
    as trec_eval orders it (score descending, then docno descending)."""
    out = {}
    # one sort of the whole run by (score, docno) descending, then its rows per topic in that order
    # (docnos are unique within a topic, so the per-topic order is the per-topic sort's)
    ordered = run.sort_values(["score", "docno"], ascending=[False, False], kind="stable")
    by_topic = {t: d.docno.tolist() for t, d in ordered.groupby("topic", sort=False)}
    for t, rel in qrels.groupby("topic"):
        g = {
            d: gains.get(int(r), 0)
            for d, r in zip(rel.docno.tolist(), rel.relevance.tolist())
            if gains.get(int(r), 0) > 0
        }
        R = len(g)
        if R == 0:
            continue
        ideal = sorted(g.values(), reverse=True)
        docs = by_topic.get(t, [])
        cg = cgi = count = 0.0
        total = 0.0
        for r, d in enumerate(docs[:depth], start=1):
            cgi += ideal[r - 1] if r <= R else 0.0
            if d in g:
                cg += g[d]
                count += 1
                total += (beta * cg + count) / (beta * cgi + r)
        out[t] = total / R
    return out


def test_robust03_means_against_ir_measures_and_plain_q_measure(ir_measures):
    """All 17 robust03 runs, 100 topics: per-run mean AveP@100 equals ir_measures' AP@100 and per-topic
    Q-measure (gains 2/1) equals the rank-by-rank formula above (replaces ranges quoted from the notes)."""
    if not ROBUST.exists():
        pytest.fail("resources/bootstrap/robust03_top100 is part of the repository")
    paths = sorted((ROBUST / "runs").glob("input.*.gz"))
    m = evaluate(ROBUST / "robust03_qrels.txt.gz", paths, ["AveP", "Q-measure"], depth=100, gains={1: 1, 2: 2})
    assert m["AveP"].shape == (100, 17)
    qrels = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    irm_qrels = _irm_qrels(ir_measures, qrels)  # once for the 17 runs
    for p in paths:
        name, run = read_run(p)
        ref = _irm(ir_measures, irm_qrels, run, [ir_measures.AP @ 100])
        ap = np.array([ref.get(("AP@100", t), 0.0) for t in m["AveP"].index])
        np.testing.assert_allclose(m["AveP"][name].to_numpy(), ap, rtol=0, atol=1e-12)
        q = _q_measure_plain(qrels, run, 100, {1: 1, 2: 2})
        np.testing.assert_allclose(
            m["Q-measure"][name].to_numpy(), [q.get(t, 0.0) for t in m["Q-measure"].index], rtol=0, atol=1e-12
        )
    assert (m["Q-measure"] < m["AveP"] - 1e-12).to_numpy().any()  # graded: Q can be below AveP
