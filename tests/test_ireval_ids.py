"""Issue 23, one rule for numeric labels, for TREC topic ids: qrels and run ids are compared as text
(as trec_eval and pytrec_eval do), and a run topic that is absent from the qrels but equal to a qrels
topic as a number (``01`` for ``1``) is an InputError naming both inputs, not a silent score of 0.

References: pytrec_eval (trec_eval's own code) for what "compared as text" means, hand-computed AP
for the ids that must keep working, and the CLI contract of tests/test_bad_input.py (exit 2, one
stderr line, no traceback, no output file) in a real process."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pandas as pd
import pytest

from agreekit._validation import InputError
from agreekit.ireval.metrics import evaluate

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n"


def _run_text(topics: tuple[str, str]) -> str:
    a, b = topics
    return f"{a} Q0 d1 1 2.0 r\n{a} Q0 d2 2 1.0 r\n{b} Q0 d4 1 1.0 r\n"


def _files(tmp_path, run_topics):
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(_run_text(run_topics))
    return q, r


@pytest.mark.parametrize("first", ["01", "001", "1.0", "+1", "1e0", "1.", "1.000"])
def test_run_topic_equal_only_as_a_number_is_an_error_naming_both_files(tmp_path, first):
    q, r = _files(tmp_path, (first, "02"))
    with pytest.raises(InputError) as exc:
        evaluate(str(q), str(r), "AP")
    assert exc.value.parameter == "run"
    assert exc.value.message == (
        f"topic {first!r} of {r} matches topic '1' of {q} only as a number: ids are "
        "compared as text (as trec_eval does); write the topic ids alike in both"
    )


def test_the_first_such_id_in_run_order_is_named(tmp_path):
    q, r = _files(tmp_path, ("1", "02"))  # topic 1 is written alike, topic 2 is not
    with pytest.raises(InputError, match=r"topic '02' of .* matches topic '2' of "):
        evaluate(str(q), str(r), "AP")


def test_frames_and_mappings_are_named_by_what_they_are():
    run = pd.DataFrame({"topic": ["01", "01"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match=r"topic '01' of run 'bm25' matches topic '1' of the qrels \(dict\) "):
        evaluate({"1": {"d1": 1}}, {"bm25": run}, "AP")
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "relevance": [1]})
    with pytest.raises(InputError, match=r"of run 'bm25' matches topic '1' of the qrels \(DataFrame\) "):
        evaluate(qrels, {"bm25": run}, "AP")


def test_trec_eval_compares_ids_as_text():
    """The reason for the rule: trec_eval (through pytrec_eval) finds no common topic of qrels 1, 2
    and run 01, 02 and evaluates nothing."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator({"1": {"d1": 1}, "2": {"d3": 1}}, {"map"})
    assert ev.evaluate({"01": {"d1": 1.0}, "02": {"d3": 1.0}}) == {}
    assert ev.evaluate({"1": {"d1": 1.0}, "2": {"d3": 1.0}}) == {"1": {"map": 1.0}, "2": {"map": 1.0}}


def test_text_ids_are_unaffected():
    """``q1``, ``301``: a run topic absent from the qrels that is not a number, or a number equal to
    no qrels topic, is ignored as before (trec_eval), and the scores are AP by hand."""
    qrels = {"q1": {"d1": 1, "d2": 1}, "301": {"d3": 1}}
    run = pd.DataFrame(
        {
            "topic": ["q1", "q1", "q1", "301", "q2", "302", "0302"],
            "docno": ["d1", "dx", "d2", "d3", "d1", "d3", "d3"],
            "score": [3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ap = evaluate(qrels, {"s": run}, "AP")["AP"]["s"]
    assert ap.to_dict() == {"301": 1.0, "q1": pytest.approx((1 / 1 + 2 / 3) / 2, abs=1e-15)}


def test_numbers_are_compared_exactly_not_as_floats():
    # equal as float64 (both 1.2345678901234567e19), different numbers: no error, the run topic is ignored
    qrels = {"12345678901234567890": {"d1": 1}}
    run = pd.DataFrame({"topic": ["12345678901234567891"], "docno": ["d1"], "score": [1.0]})
    assert float("12345678901234567890") == float("12345678901234567891")
    assert evaluate(qrels, {"s": run}, "AP")["AP"]["s"].tolist() == [0.0]
    run["topic"] = "012345678901234567890"
    with pytest.raises(InputError, match="only as a number"):
        evaluate(qrels, {"s": run}, "AP")


@pytest.mark.parametrize("topic", ["\u0661", "1_0", "0x1", "inf", "q01"])
def test_what_is_not_an_ascii_number_is_only_text(topic):
    # Arabic-Indic one, 1_0, 0x1 are numbers to Python's int()/float() but not in agreekit's files
    qrels = {"1": {"d1": 1}, "10": {"d1": 1}, "q1": {"d1": 1}}
    run = pd.DataFrame({"topic": [topic], "docno": ["d1"], "score": [1.0]})
    assert evaluate(qrels, {"s": run}, "AP")["AP"]["s"].tolist() == [0.0, 0.0, 0.0]


def test_qrels_with_1_and_01_keep_two_topics_with_a_warning():
    """trec_eval keeps qrels topics 1 and 01 apart; so does evaluate(), with a warning (a qrels
    file like that is most likely a mistake).  Same per-topic AP as pytrec_eval."""
    qrels = {"1": {"d1": 1}, "01": {"d2": 1, "d3": 1}}
    run = pd.DataFrame(
        {"topic": ["1", "1", "01", "01"], "docno": ["d1", "d2", "d2", "d1"], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    with pytest.warns(UserWarning, match=r"topics '1' and '01' are equal as numbers but differ as text"):
        ap = evaluate(qrels, {"s": run}, "AP")["AP"]["s"]
    assert ap.to_dict() == {"1": 1.0, "01": 0.5}
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(
        {"1": {"d1": 2.0, "d2": 1.0}, "01": {"d2": 2.0, "d1": 1.0}}
    )
    assert ap.to_dict() == {t: v["map"] for t, v in ref.items()}


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("out", [["-o", "ap.csv"], ["--output-dir", "mats", "--metrics", "P@10"]])
def test_cli_exit_2_one_line_no_traceback_no_output(tmp_path, out):
    _files(tmp_path, ("01", "02"))
    r = _cli("evaluate", "qrels.txt", "run.txt", "--metrics", "AP", *out, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "agreekit evaluate: error: `run` topic '01' of run.txt matches topic '1' of qrels.txt only as a number: "
        "ids are compared as text (as trec_eval does); write the topic ids alike in both"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt", "run.txt"]


def test_cli_run_from_stdin_is_named_stdin(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    r = subprocess.run(
        [sys.executable, "-m", "agreekit", "evaluate", "qrels.txt", "-", "--metrics", "AP"],
        input=_run_text(("1", "+2")),
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        "agreekit evaluate: error: `run` topic '+2' of <stdin> matches topic '2' of qrels.txt only as a number: "
        "ids are compared as text (as trec_eval does); write the topic ids alike in both"
    ]


def test_cli_text_ids_still_evaluate(tmp_path):
    _files(tmp_path, ("1", "2"))
    r = _cli("evaluate", "qrels.txt", "run.txt", "--metrics", "AP", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["topic,r", "1,1", "2,0.5"]


def test_score_matrices_aligned_by_label_say_when_ids_match_only_as_numbers():
    from agreekit.ireval.metrics import align_scores

    a = pd.DataFrame({"A": [0.1, 0.3], "B": [0.2, 0.0]}, index=["1", "2"])
    b = a.set_axis(["01", "02"], axis=0)
    with pytest.raises(InputError) as exc:
        align_scores(a, b)
    assert exc.value.parameter == "scores_b"
    assert exc.value.message == (
        "has different topics than `scores_a` (only in scores_a: ['1', '2']; only in "
        "scores_b: ['01', '02']; '01' of scores_b equals '1' of scores_a only as a "
        "number: labels are compared as text)"
    )
    c = a.set_axis(["q1", "q2"], axis=0)  # different text ids: the error as before, no hint
    with pytest.raises(InputError, match=r"only in scores_b: \['q1', 'q2'\]\)$"):
        align_scores(a, c)
