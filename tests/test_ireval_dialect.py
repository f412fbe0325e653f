"""Issue 20 in the IR-evaluation, bootstrap and meta-evaluation areas: the one dialect.

* metric names mean what ir_measures means (``nDCG@k`` = trec_eval, ``RR``, ``R@k``, ``Rprec``, ``AP``,
  ``P@k``), measured side by side with ir_measures on every robust03 run (ir_measures dispatches to
  pytrec_eval: one reference); measure objects and ir_measures / PyTerrier frames accepted;
* ``pvalue`` = (b + 1) / (B + 1) beside Sakai's ``asl`` = b / B, for every ``alternative``, against a
  plain numpy bootstrap written here;
* every renamed spelling still works, warns once and gives the same value.
"""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit._io import dumps_json
from agreekit._validation import InputError
from agreekit.cli import main
from agreekit.ireval import (
    bootstrap_indices,
    difference_se,
    discriminative_power,
    evaluate,
    meta_evaluate,
    paired_test,
    parse_metric,
    rank_correlation_se,
    read_qrels,
    read_run,
    stability,
    swap_rates,
    unpaired_test,
)
from agreekit.ireval import report as rep

ROOT = Path(__file__).resolve().parents[1]
ROBUST = ROOT / "resources" / "bootstrap" / "robust03_top100"
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"
try:  # a [test] extra; only the tests marked `needs_ir_measures` use it
    import ir_measures
except ImportError:  # pragma: no cover
    ir_measures = None
needs_ir_measures = pytest.mark.skipif(ir_measures is None, reason="ir_measures not installed")

QRELS = {"1": {"a": 2, "b": 1, "c": 1, "d": 0}, "2": {"e": 1}}
RUN = pd.DataFrame(
    {"topic": ["1"] * 5 + ["2"] * 3, "docno": list("xadby") + list("pqe"), "score": [5.0, 4, 3, 2, 1, 3, 2, 1]}
)


# ----------------------------------------------------------------------------- metrics vs ir_measures
@pytest.fixture(scope="module")
def robust03():
    if not ROBUST.exists():
        pytest.skip("robust03 fixture not shipped")
    qrels = read_qrels(ROBUST / "robust03_qrels.txt.gz")
    runs = dict(read_run(p) for p in sorted((ROBUST / "runs").glob("input.*.gz")))
    assert len(runs) == 17
    return qrels, runs


MEASURES = ("nDCG@10", "nDCG@100", "AP", "P@10", "RR", "R@10", "R@100", "Rprec")


@needs_ir_measures
def test_every_ir_measures_name_equals_ir_measures_on_all_robust03_runs(robust03):
    qrels, runs = robust03
    objs = [ir_measures.parse_measure(m) for m in MEASURES]
    # ir_measures' own frame columns for the qrels, PyTerrier's for the runs
    q_irm = qrels.rename(columns={"topic": "query_id", "docno": "doc_id"})
    ours = evaluate(q_irm, {n: r.rename(columns={"topic": "qid"}) for n, r in runs.items()}, objs, depth=100)
    assert set(ours) == set(MEASURES)
    qr = [ir_measures.Qrel(t, d, int(g)) for t, d, g in qrels.itertuples(index=False)]
    worst, checked = 0.0, 0
    for name, run in runs.items():
        sd = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in run.itertuples(index=False)]
        ref = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(objs, qr, sd)}
        for m in MEASURES:
            col = ours[m][name]
            for t, v in col.items():
                worst = max(worst, abs(v - ref.get((m, t), 0.0)))  # unanswered topics score 0
                checked += 1
    assert checked == 17 * 100 * len(MEASURES)
    assert worst <= 1e-12


@needs_ir_measures
def test_ndcg_at_10_is_ir_measures_and_the_jk_form_has_its_own_name(robust03):
    qrels, runs = robust03
    sel = {"input.Sel50": runs["input.Sel50"]} if "input.Sel50" in runs else dict([next(iter(runs.items()))])
    name = next(iter(sel))
    res = evaluate(qrels, sel, ["nDCG@10", "nDCG_jk@10"], depth=100)
    qr = [ir_measures.Qrel(t, d, int(g)) for t, d, g in qrels.itertuples(index=False)]
    sd = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in sel[name].itertuples(index=False)]
    ref = pd.Series({m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qr, sd)})
    ref = ref.reindex(res["nDCG@10"].index, fill_value=0.0)
    assert np.max(np.abs(res["nDCG@10"][name].to_numpy() - ref.to_numpy())) <= 1e-12
    assert np.max(np.abs(res["nDCG_jk@10"][name].to_numpy() - ref.to_numpy())) > 0.01  # issue: 0.056 on Sel50


def test_pyterrier_qrels_frame_and_ir_measures_run_frame():
    q = pd.DataFrame(
        [(t, d, g) for t, docs in QRELS.items() for d, g in docs.items()], columns=["qid", "docno", "label"]
    )
    r = RUN.rename(columns={"topic": "query_id", "docno": "doc_id"})
    a = evaluate(q, {"s": r}, ["AP", "RR", "R@2"])
    b = evaluate(QRELS, {"s": RUN}, ["AP", "RR", "R@2"])
    for m in a:
        pd.testing.assert_frame_equal(a[m], b[m])
    # by hand: topic 1 ranks x a d b y -> RR 1/2, R@2 = 1/3; topic 2 ranks p q e -> RR 1/3, R@2 = 0
    assert b["RR"]["s"].tolist() == [0.5, 1 / 3]
    assert b["R@2"]["s"].tolist() == [1 / 3, 0.0]
    with pytest.raises(InputError, match="`qrels`.*topic \\(or query_id / qid\\)"):
        evaluate(pd.DataFrame({"q": ["1"], "docno": ["a"], "relevance": [1]}), {"s": RUN}, "AP")


def test_rr_at_k_is_rr_truncated_at_k(robust03):
    qrels, runs = robust03
    res = evaluate(qrels, runs, ["RR", "RR@5"], depth=100)
    full, cut = res["RR"].to_numpy(), res["RR@5"].to_numpy()
    assert np.array_equal(cut, np.where(full >= 1 / 5, full, 0.0))  # first relevant within the top 5 or 0
    assert np.count_nonzero(full != cut) > 0


@needs_ir_measures
@pytest.mark.parametrize("measure", ["nDCG(dcg='exp-log2')@10", "ERR@10", "P(judged_only=True)@10", "SetP"])
def test_unsupported_ir_measures_objects_are_an_input_error_naming_them(measure):
    obj = ir_measures.parse_measure(measure)
    with pytest.raises(InputError, match=r"`metrics` unsupported metric " + __import__("re").escape(repr(str(obj)))):
        evaluate(QRELS, {"s": RUN}, [obj])
    with pytest.raises(InputError, match="`metrics`"):
        evaluate(QRELS, {"s": RUN}, obj)


@needs_ir_measures
def test_evaluate_returns_one_type_whatever_metrics_is():
    one = evaluate(QRELS, {"s": RUN}, "AP")
    obj = evaluate(QRELS, {"s": RUN}, ir_measures.AP)
    many = evaluate(QRELS, {"s": RUN}, ["AP", "P@2"])
    for res in (one, obj, many):
        assert isinstance(res, dict) and all(isinstance(v, pd.DataFrame) for v in res.values())
    pd.testing.assert_frame_equal(one["AP"], many["AP"])
    pd.testing.assert_frame_equal(obj["AP"], many["AP"])
    with pytest.raises(KeyError, match="returns a dict metric name"):
        one["s"]  # the pre-issue-20 habit evaluate(..., "AP")["s"] gets told what changed


# ----------------------------------------------------------------------------- p-values vs plain numpy
def _numpy_paired(x, y, idx):
    z = np.asarray(x) - np.asarray(y)
    n = z.size
    t = z.mean() / (z.std(ddof=1) / math.sqrt(n))
    w = z - z.mean()
    tb = np.array([w[i].mean() / (w[i].std(ddof=1) / math.sqrt(n)) for i in idx])
    return t, tb


def _numpy_unpaired(x, y, idx):
    v = np.concatenate([x, y])
    d = np.mean(x) - np.mean(y)
    db = np.array([v[i[: len(x)]].mean() - v[i[len(x) :]].mean() for i in idx])
    return d, db


def _count(obs, null, alternative):
    tol = 1e-12 * abs(obs)
    return {
        "two-sided": int(np.sum(np.abs(null) >= abs(obs) - tol)),
        "greater": int(np.sum(null >= obs - tol)),
        "less": int(np.sum(null <= obs + tol)),
    }[alternative]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_and_unpaired_pvalues_follow_scipy_and_asl_follows_sakai(alternative):
    rng = np.random.default_rng(7)
    x = rng.uniform(size=25)
    y = x - 0.03 + rng.normal(0, 0.08, 25)
    B = 999
    # the drawn samples are bootstrap_indices' rows: stream 0 (paired) and stream 2 (unpaired) of the seed
    idx = bootstrap_indices(25, n_resamples=B, rng=11)
    res = paired_test(x, y, n_resamples=B, rng=11, alternative=alternative)
    t, tb = _numpy_paired(x, y, idx)
    b = _count(t, tb, alternative)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == (b + 1) / (B + 1) and res.asl == b / B
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)

    idx2 = bootstrap_indices(50, n_resamples=B, rng=11, stream=2)
    ures = unpaired_test(x, y, n_resamples=B, rng=11, alternative=alternative)
    d, db = _numpy_unpaired(x, y, idx2)
    b = _count(d, db, alternative)
    assert ures.statistic == pytest.approx(d, rel=1e-12)
    assert ures.pvalue == (b + 1) / (B + 1) and ures.asl == b / B
    assert tuple(ures) == (ures.statistic, ures.pvalue)


def test_one_sided_pvalues_split_the_two_sided_count():
    rng = np.random.default_rng(3)
    x = rng.uniform(size=30)
    y = x - 0.02 + rng.normal(0, 0.05, 30)
    r = {a: paired_test(x, y, n_resamples=500, rng=2, alternative=a) for a in ("two-sided", "greater", "less")}
    # t > 0: "greater" counts the upper tail only, "less" nearly every replicate
    assert r["greater"].asl <= r["two-sided"].asl and r["less"].asl > 0.9
    assert r["greater"].asl + r["less"].asl == pytest.approx(1.0, abs=2 / 500)
    with pytest.raises(InputError, match="`alternative`"):
        paired_test(x, y, alternative="two_sided")
    # identical systems: Sakai's ASL 1 and p 1; a constant non-zero difference: ASL 0 but p = 1/(B+1), never 0
    same = paired_test(x, x, n_resamples=99, rng=1)
    shift = paired_test(x + 0.1, x, n_resamples=99, rng=1)
    assert (same.asl, same.pvalue) == (1.0, 1.0)
    assert (shift.asl, shift.pvalue) == (0.0, 1 / 100)


def test_discriminative_power_rounds_k_down_and_counts_sakais_asl():
    X = pd.read_csv(SCORES / "adhoc8_ap.csv").iloc[:, :8]
    with pytest.warns(UserWarning, match="rounded down to 49"):
        res = discriminative_power(X, n_resamples=999, rng=5)
    assert res.k == 49
    asl = res.table["asl"].to_numpy()
    assert res.n_significant == int(np.sum(asl < 0.05))
    # the per-pair ASL is the paired test's ASL on the same topic samples (B = 999, stream 0)
    a, b = res.table.loc[0, ["system_a", "system_b"]]
    one = paired_test(X[a], X[b], n_resamples=999, rng=5)
    assert one.asl == pytest.approx(res.table.loc[0, "asl"], abs=1e-15)


# ----------------------------------------------------------------------------- deprecated spellings
def _warns_once(call):
    with pytest.warns(DeprecationWarning) as w:
        out = call()
    dep = [x for x in w if issubclass(x.category, DeprecationWarning)]
    assert len(dep) == 1, [str(x.message) for x in dep]
    return out, str(dep[0].message)


X = np.random.default_rng(0).uniform(size=(20, 5)) + np.linspace(0, 0.2, 5)


def _same_paired(a, b):
    assert (a.statistic, a.pvalue, a.asl) == (b.statistic, b.pvalue, b.asl)
    assert np.array_equal(a.null_distribution, b.null_distribution)


@pytest.mark.parametrize(
    "func,args",
    [
        (paired_test, (X[:, 0], X[:, 1])),
        (unpaired_test, (X[:, 0], X[:, 1])),
    ],
)
def test_statistic_keyword_of_the_tests_is_summary(func, args):
    old, msg = _warns_once(lambda: func(*args, statistic="gmean", n_resamples=200, rng=1))
    assert "`summary=`" in msg
    _same_paired(old, func(*args, summary="gmean", n_resamples=200, rng=1))
    with pytest.raises(InputError, match="give only `summary`"):
        func(*args, statistic="gmean", summary="gmean")


def test_statistic_keyword_of_discriminative_power_stability_swap_difference_se():
    kw = dict(n_resamples=200, rng=4)
    old, _ = _warns_once(lambda: discriminative_power(X, statistic="gmean", **kw))
    new = discriminative_power(X, summary="gmean", **kw)
    pd.testing.assert_frame_equal(old.table, new.table)
    assert old.summary_name == "gmean"
    old, _ = _warns_once(lambda: stability(X, statistic="gmean", **kw))
    assert np.array_equal(old.minority_rate, stability(X, summary="gmean", **kw).minority_rate)
    old, _ = _warns_once(lambda: swap_rates(X, statistic="gmean", **kw))
    pd.testing.assert_frame_equal(old.bins, swap_rates(X, summary="gmean", **kw).bins)
    old, _ = _warns_once(lambda: difference_se(X[:, 0], X[:, 1], statistic="gmean", **kw))
    assert old.standard_error == difference_se(X[:, 0], X[:, 1], summary="gmean", **kw).standard_error


@pytest.mark.parametrize(
    "old_kw,new_kw",
    [
        ({"method": "spearman"}, {"coefficient": "spearman"}),
        ({"statistic": "gmean"}, {"summary": "gmean"}),
        ({"statistic_b": "gmean"}, {"summary_b": "gmean"}),
    ],
)
def test_rank_correlation_se_renames(old_kw, new_kw):
    Y = X + np.random.default_rng(1).normal(0, 0.1, X.shape)
    old, _ = _warns_once(lambda: rank_correlation_se(X, Y, n_resamples=200, rng=2, **old_kw))
    new = rank_correlation_se(X, Y, n_resamples=200, rng=2, **new_kw)
    assert (old.correlation, old.standard_error, old.pvalue) == (new.correlation, new.standard_error, new.pvalue)
    assert tuple(new) == (new.correlation, new.pvalue)


@pytest.mark.parametrize(
    "old_kw,new_kw",
    [({"statistic": "gmean"}, {"summary": "gmean"}), ({"paired_statistic": "mean"}, {"paired_summary": "mean"})],
)
def test_meta_evaluate_renames(old_kw, new_kw):
    old, _ = _warns_once(lambda: meta_evaluate(X, n_resamples=200, rng=3, **old_kw))
    assert dumps_json(old.to_dict()) == dumps_json(meta_evaluate(X, n_resamples=200, rng=3, **new_kw).to_dict())


def test_analyze_collection_seed_and_metric_input_statistic():
    m_old, _ = _warns_once(lambda: rep.MetricInput("G", pd.DataFrame(X), statistic="gmean"))
    assert m_old.summary == rep.MetricInput("G", pd.DataFrame(X), summary="gmean").summary == "gmean"
    mets = [rep.MetricInput("A", pd.DataFrame(X)), rep.MetricInput("G", pd.DataFrame(X), "gmean")]
    old, _ = _warns_once(lambda: rep.analyze_collection("c", mets, seed=9, n_resamples=100))
    assert dumps_json(old.to_dict()) == dumps_json(rep.analyze_collection("c", mets, rng=9, n_resamples=100).to_dict())


@pytest.mark.parametrize(
    "obj_call,old,new",
    [
        (lambda: paired_test(X[:, 0], X[:, 1], n_resamples=50, rng=1), "statistic_name", "summary_name"),
        (lambda: discriminative_power(X, n_resamples=100, rng=1), "statistic", "summary_name"),
        (lambda: rank_correlation_se(X, X[:, ::-1], n_resamples=50, rng=1), "method", "coefficient"),
        (
            lambda: rep.analyze_collection("c", [rep.MetricInput("A", pd.DataFrame(X))], rng=1, n_resamples=100),
            "statistics",
            "summary_names",
        ),
        (lambda: rep.MetricInput("A", pd.DataFrame(X)), "statistic", "summary"),
    ],
)
def test_renamed_result_attributes_warn_once(obj_call, old, new):
    obj = obj_call()
    value, msg = _warns_once(lambda: getattr(obj, old))
    assert value == getattr(obj, new) and f".{new}" in msg


@pytest.mark.parametrize(
    "make",
    [
        lambda: discriminative_power(X, n_resamples=100, rng=1),
        lambda: swap_rates(X, n_resamples=100, rng=1),
        lambda: meta_evaluate(X, n_resamples=100, rng=1),
        lambda: rank_correlation_se(X, X[:, ::-1], n_resamples=50, rng=1),
        lambda: rep.analyze_collection("c", [rep.MetricInput("A", pd.DataFrame(X))], rng=1, n_resamples=100),
    ],
)
def test_summary_method_is_a_deprecated_alias_of_to_dict(make):
    res = make()
    old, msg = _warns_once(res.summary)
    assert dumps_json(old) == dumps_json(res.to_dict()) and "to_dict()" in msg


def test_timings_and_results_protocol():
    res = paired_test(X[:, 0], X[:, 1], n_resamples=50, rng=1)
    d = res.to_dict()
    assert d["pvalue"] == res.pvalue and d["asl"] == res.asl and d["alternative"] == "two-sided"
    dp = discriminative_power(X, n_resamples=100, rng=1)
    pd.testing.assert_frame_equal(dp.to_frame(), dp.table)
    assert parse_metric("nDCG@10").to_dict() == {"name": "nDCG@10", "kind": "nDCG", "cutoff": 10, "rel": None}


# ----------------------------------------------------------------------------- metaeval renames
@pytest.fixture(scope="module")
def coll():
    rng = np.random.default_rng(5)
    base = rng.uniform(size=(25, 8)) + np.linspace(1, 0, 8)
    return {"A": pd.DataFrame(base), "B": pd.DataFrame(base * rng.uniform(0.5, 1.5, base.shape))}


def test_metric_agreement_statistic_and_alpha(coll):
    from agreekit.metaeval import metric_agreement

    kw = dict(n_resamples=100, rng=1, pvalue=False)
    new = metric_agreement(coll, summary="gmean", confidence_level=0.9, **kw)
    old, msg = _warns_once(lambda: metric_agreement(coll, statistic="gmean", confidence_level=0.9, **kw))
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    old, msg = _warns_once(lambda: metric_agreement(coll, summary="gmean", alpha=0.1, **kw))
    assert "confidence_level" in msg
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    assert new.confidence_level == 0.9 and new.summary_names == ("gmean", "gmean")
    # the percentile interval is at the level: the 5 % and 95 % quantiles of the replicates
    v = new.bootstrap_tau_b[:, 0]
    assert new.table["tau_b_ci_low"][0] == pytest.approx(np.quantile(v[np.isfinite(v)], 0.05), abs=1e-15)
    assert new.table["tau_b_ci_high"][0] == pytest.approx(np.quantile(v[np.isfinite(v)], 0.95), abs=1e-15)
    assert _warns_once(lambda: new.alpha)[0] == 0.1
    assert _warns_once(lambda: new.statistic)[0] == ("gmean", "gmean")
    assert new.to_dict()["alpha"] == 0.1  # the collection.json keys stay those of the seed pipeline
    with pytest.raises(InputError, match="give only `confidence_level`"):
        metric_agreement(coll, alpha=0.1, confidence_level=0.9)


def test_pipeline_alpha_gives_the_seed_interval_bits(coll):
    """metaeval_collection.py passes confidence_level = 1 - config alpha; 1 - 0.95 is rounded back to 0.05 so
    the percentile levels (and so every interval of the shipped tables) are the seed pipeline's bits."""
    from agreekit.metaeval import metric_agreement

    a = metric_agreement(coll, n_resamples=100, rng=1, pvalue=False, confidence_level=1.0 - 0.05)
    v = a.bootstrap_tau_w_standardized[:, 0]
    v = v[np.isfinite(v)]
    assert a.table["tau_w_standardized_ci_low"][0] == np.quantile(v, 0.05 / 2)
    assert a.table["tau_w_standardized_ci_high"][0] == np.quantile(v, 1 - 0.05 / 2)


# ----------------------------------------------------------------------------- CLI
@pytest.fixture()
def ap_csv(tmp_path):
    f = tmp_path / "ap.csv"
    pd.read_csv(SCORES / "adhoc8_ap.csv").iloc[:, :6].to_csv(f, index=False)
    return f


def test_bootstrap_cli_old_spellings_warn_once_and_give_the_same_output(ap_csv, tmp_path, capsys):
    new_out, old_out = tmp_path / "new.json", tmp_path / "old.json"
    assert (
        main(["bootstrap", str(ap_csv), "--n-resamples", "200", "--rng", "3", "--summary", "gmean", "-o", str(new_out)])
        == 0
    )
    assert capsys.readouterr().err == ""
    for old_opt, new_opt in (("--resamples", "--n-resamples"), ("--statistic", "--summary")):
        argv = [
            "bootstrap",
            str(ap_csv),
            "--n-resamples",
            "200",
            "--rng",
            "3",
            "--summary",
            "gmean",
            "-o",
            str(old_out),
        ]
        argv[argv.index(new_opt)] = old_opt
        with pytest.warns(DeprecationWarning) as w:
            assert main(argv) == 0
        assert len([x for x in w if issubclass(x.category, DeprecationWarning)]) == 1
        assert old_out.read_text() == new_out.read_text()
    # -o - is stdout, never a file named "-" (--pairs: stdout has the summary only unless asked)
    assert (
        main(
            ["bootstrap", str(ap_csv), "--n-resamples", "200", "--rng", "3", "--summary", "gmean", "-o", "-", "--pairs"]
        )
        == 0
    )
    assert capsys.readouterr().out == new_out.read_text()
    assert main(["bootstrap", str(ap_csv), "--n-resamples", "200", "--rng", "3", "--format", "csv"]) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert len(table) == 15 and "asl" in table.columns


def test_evaluate_cli_old_output_dir_and_ndcg_spellings(tmp_path, capsys):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n")
    r = tmp_path / "r1"
    r.write_text("1 Q0 x 1 3.0 sysA\n1 Q0 a 2 2.0 sysA\n1 Q0 b 3 1.0 sysA\n2 Q0 c 1 1.0 sysA\n")
    new_dir, old_dir = tmp_path / "new", tmp_path / "old"
    assert main(["evaluate", str(q), str(r), "--metrics", "AP,nDCG_jk@10", "--output-dir", str(new_dir)]) == 0
    capsys.readouterr()
    # -o is a file; only an existing directory is still read as the old --output-dir spelling
    assert main(["evaluate", str(q), str(r), "--metrics", "AP,nDCG_jk@10", "-o", str(old_dir)]) == 2
    assert "--output-dir" in capsys.readouterr().err and not old_dir.exists()
    old_dir.mkdir()
    with pytest.warns(DeprecationWarning) as w:
        assert main(["evaluate", str(q), str(r), "--metrics", "AP,nDCG_jk@10", "-o", str(old_dir)]) == 0
    assert len(w) == 1 and "--output-dir" in str(w[0].message)
    capsys.readouterr()
    for f in ("AP.csv", "nDCG_jk@10.csv"):
        assert (old_dir / f).read_text() == (new_dir / f).read_text()
    with pytest.warns(DeprecationWarning) as w:
        assert main(["evaluate", str(q), str(r), "--metrics", "nDCG@10", "--ndcg", "jk"]) == 0
    assert len(w) == 1
    jk = capsys.readouterr().out
    assert main(["evaluate", str(q), str(r), "--metrics", "nDCG_jk@10"]) == 0
    assert capsys.readouterr().out == jk
    # json: every metric in one document, read from stdin too
    assert main(["evaluate", str(q), str(r), "--metrics", "AP,RR", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"]["RR"]["sysA"] == {"1": 0.5, "2": 1.0}


def test_metaeval_cli_alpha_is_confidence_level(tmp_path, capsys):
    args = [
        "metaeval",
        f"AP={SCORES / 'adhoc8_ap.csv'}",
        f"P10={SCORES / 'adhoc8_p10.csv'}",
        "--n-resamples",
        "50",
        "--rng",
        "1",
        "--no-pvalue",
        "--consensus-method",
        "quick",
        "--format",
        "csv",
    ]
    assert main(args + ["--confidence-level", "0.9"]) == 0
    new = capsys.readouterr().out
    with pytest.warns(DeprecationWarning) as w:
        assert main(args + ["--alpha", "0.1"]) == 0
    assert len(w) == 1 and "--confidence-level" in str(w[0].message)
    assert capsys.readouterr().out == new


def test_progress_bar_goes_to_stderr_and_changes_no_number(capsys):
    Y = np.random.default_rng(2).uniform(size=(200, 4))
    quiet = discriminative_power(Y, n_resamples=30_000, rng=1, progress=False)
    assert capsys.readouterr().err == ""
    shown = discriminative_power(Y, n_resamples=30_000, rng=1, progress=True)  # 3 batches of samples
    assert "bootstrap: resamples" in capsys.readouterr().err
    pd.testing.assert_frame_equal(quiet.table, shown.table)
    runs = {f"s{i}": RUN.assign(score=RUN["score"] * (i + 1)) for i in range(3)}
    a = evaluate(QRELS, runs, "AP", progress=True)
    assert "evaluate: runs" in capsys.readouterr().err
    pd.testing.assert_frame_equal(a["AP"], evaluate(QRELS, runs, "AP", progress=False)["AP"])
