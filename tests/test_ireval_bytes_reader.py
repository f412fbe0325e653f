"""evaluate()'s compiled path: TREC files read from their bytes, ids compared as bytes per topic.

References: Python's ``float`` for the scores read, pytrec_eval (trec_eval's code) for the
metrics from files and from mappings (ties, unsorted runs, unusual spacing, non-ASCII ids), the
definitions written here for what pytrec_eval's dict input cannot express (a document twice in
a run), and the same content written another way (comments, blank lines, CRLF) for the
fallback to the careful line reader.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreekit import InputError, _jit
from agreekit.ireval._reading import _scan_coded
from agreekit.ireval.metrics import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

OURS = ["AP", "nDCG@10", "P@5", "RR", "R@20", "bpref", "Rprec", "nDCG"]
THEIRS = {
    "AP": "map",
    "nDCG@10": "ndcg_cut_10",
    "P@5": "P_5",
    "RR": "recip_rank",
    "R@20": "recall_20",
    "bpref": "bpref",
    "Rprec": "Rprec",
    "nDCG": "ndcg",
}
MEASURES = {"map", "ndcg_cut.10", "P.5", "recip_rank", "recall.20", "bpref", "Rprec", "ndcg"}


def _pytrec(qrels: dict, run: dict) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)


def _assert_matches(res, ref: dict, system: str):
    for m in OURS:
        col = res[m][system]
        for topic, value in col.items():
            expect = ref[topic][THEIRS[m]] if topic in ref else 0.0
            assert value == pytest.approx(expect, abs=1e-12), (m, topic)


def _collection(rng, n_topics=12, n_docs=60, *, ids=None):
    """qrels and a run as dicts, with tied scores (few distinct values) and runs not in rank order."""
    ids = ids or (lambda d: f"D{d:03d}")
    qrels, run = {}, {}
    for t in range(n_topics):
        topic = str(300 + t)
        docs = rng.choice(2 * n_docs, size=n_docs, replace=False)
        run[topic] = {ids(d): float(rng.integers(0, 8)) / 4 for d in docs}
        judged = rng.choice(2 * n_docs, size=n_docs // 2, replace=False)
        grades = rng.integers(0, 3, size=judged.size)
        grades[0] = 1
        qrels[topic] = {ids(d): int(g) for d, g in zip(judged, grades)}
    return qrels, run


def _write(path, qrels, run, *, sep=" "):
    qpath, rpath = path / "qrels.txt", path / "run.txt"
    qpath.write_text("".join(f"{t}{sep}0{sep}{d}{sep}{g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    lines = [f"{t}{sep}Q0{sep}{d}{sep}1{sep}{s!r}{sep}sys\n" for t, docs in run.items() for d, s in docs.items()]
    rpath.write_text("".join(lines))
    return qpath, rpath


@pytest.mark.parametrize("seed", range(4))
def test_files_with_ties_and_unsorted_runs_match_pytrec_eval(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = _collection(rng)
    qpath, rpath = _write(tmp_path, qrels, run, sep=" \t " if seed % 2 else " ")
    res = evaluate(qpath, rpath, OURS)
    with qpath.open() as fq, rpath.open() as fr:
        ref = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fq), MEASURES).evaluate(pytrec_eval.parse_run(fr))
    _assert_matches(res, ref, "sys")


def test_non_ascii_ids_ties_in_code_point_order_match_pytrec_eval():
    """Equal scores are ranked by docno descending; for non-ASCII ids the byte order of UTF-8 is
    trec_eval's strcmp order (and Python's code point order)."""
    rng = np.random.default_rng(7)
    alphabet = ["a", "Z", "é", "ß", "日本", "\U0001f600", "0", "ä"]

    def ids(d):
        return alphabet[d % len(alphabet)] + alphabet[(d // len(alphabet)) % len(alphabet)] + str(d)

    qrels, run = _collection(rng, ids=ids)
    frame = pd.DataFrame(
        [(t, d, s) for t, docs in run.items() for d, s in docs.items()], columns=["topic", "docno", "score"]
    )
    res = evaluate(qrels, {"sys": frame}, OURS)
    _assert_matches(res, _pytrec(qrels, run), "sys")


def test_ids_are_text_and_a_nul_inside_an_id_is_kept():
    """'01' and '1' are two documents; an id holding a NUL byte is its own id (the definition:
    AP = (1/R) sum over relevant ranks r of (relevant in the top r) / r)."""
    qrels = {"1": {"01": 1, "a\x00b": 1, "c": 1}}
    run = pd.DataFrame({"topic": ["1"] * 4, "docno": ["1", "01", "a", "a\x00b"], "score": [4.0, 3.0, 2.0, 1.0]})
    res = evaluate(qrels, {"s": run}, ["AP", "P@4"])
    assert res["AP"]["s"].tolist() == [pytest.approx((1 / 2 + 2 / 4) / 3)]
    assert res["P@4"]["s"].tolist() == [0.5]


def test_a_document_twice_in_a_run_counts_at_its_best_rank(tmp_path):
    """trec_eval keeps a document once; here at its first (best) position, the later one dropped."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 9 s\n1 Q0 a 2 8 s\n1 Q0 x 3 7 s\n1 Q0 a 4 6 s\n1 Q0 b 5 5 s\n")
    res = evaluate(tmp_path / "q", tmp_path / "r", ["AP", "P@3", "RR"])
    # ranked list x, a, b: AP = (1/2 + 2/3) / 2, P@3 = 2/3, RR = 1/2
    assert res["AP"]["s"].iloc[0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert res["P@3"]["s"].iloc[0] == pytest.approx(2 / 3, abs=1e-15)
    assert res["RR"]["s"].iloc[0] == 0.5


def test_scores_read_from_bytes_are_pythons_float():
    """The compiled reader's scores are bit for bit ``float(text)`` (correct rounding), on numbers
    with long mantissas, large and small exponents, subnormals, signs and signed zeros."""
    rng = np.random.default_rng(3)
    texts = ["0", "-0", "-0.0", "+.5", "5.", "1e22", "1e23", "9007199254740993", "0.1", "0.30000000000000004"]
    texts += ["4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "123456789012345678901234567890"]
    texts += ["0.000000000000000000000000001", "1E+5", "1e-5", "-12.5e-3", "00012.50"]
    for _ in range(3000):
        mant = str(int(rng.integers(0, 10 ** int(rng.integers(1, 19)))))
        k = int(rng.integers(0, len(mant) + 1))
        num = mant[:k] + "." + mant[k:] if rng.random() < 0.7 else mant
        if num == ".":
            num = "0."
        if rng.random() < 0.4:
            num += f"e{int(rng.integers(-40, 40))}"
        texts.append(("-" if rng.random() < 0.3 else "") + num)
    data = "".join(f"1 Q0 d{i} {i + 1} {t} run\n" for i, t in enumerate(texts)).encode()
    got = _scan_coded(data, qrels=False).values
    expect = np.array([float(t) for t in texts])
    assert np.array_equal(got.view(np.int64), expect.view(np.int64))


def test_conflicting_judgements_in_a_file_name_both_lines(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 a 1\n1 0 a 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 s\n")
    with pytest.raises(InputError, match=r"line 4: document 'a' of topic '1' is judged 2, but line 1 judged it 1"):
        evaluate(tmp_path / "q", tmp_path / "r", "AP")
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 a 1\n")  # the same grade twice: one judgement
    assert evaluate(tmp_path / "q", tmp_path / "r", "P@1")["P@1"]["s"].tolist() == [1.0]


def test_unusual_files_read_by_the_careful_reader_give_the_same_values(tmp_path):
    """Comments, blank lines, CRLF line ends and a long score are read by the careful line reader
    (or skipped by both readers): the values equal those of the plain file, and pytrec_eval's."""
    rng = np.random.default_rng(11)
    qrels, run = _collection(rng, n_topics=5)
    qpath, rpath = _write(tmp_path, qrels, run)
    ref = evaluate(qpath, rpath, OURS)
    _assert_matches(ref, _pytrec(qrels, run), "sys")
    q_text, r_text = qpath.read_text(), rpath.read_text()
    variants = {
        "comments": ("# judged\n\n" + q_text, "  # a run\n" + r_text + "\n\n"),
        "crlf": (q_text.replace("\n", "\r\n"), r_text.replace("\n", "\r\n")),
        "long-mantissa": (q_text, r_text.replace(" 1.75 sys", " 1.7500000000000000000000000001 sys")),
    }
    for name, (qt, rt) in variants.items():
        (tmp_path / f"q_{name}").write_text(qt, newline="")
        (tmp_path / f"r_{name}").write_text(rt, newline="")
        res = evaluate(tmp_path / f"q_{name}", tmp_path / f"r_{name}", OURS)
        for m in OURS:
            pd.testing.assert_frame_equal(res[m], ref[m], check_exact=True)


@pytest.mark.parametrize("seed", range(3))
def test_interpreted_serial_and_compiled_kernels_give_the_same_bits(tmp_path, seed):
    """The compiled passes run interpreted for small inputs (agreekit._jit): same results."""
    rng = np.random.default_rng(seed)
    qrels, run = _collection(rng, n_topics=4, n_docs=20)
    qpath, rpath = _write(tmp_path, qrels, run)
    metrics = [*OURS, "Judged@10", "P(rel=2)@5", "Q", "nDCG_jk@5", "Success@3"]
    out = {}
    for mode in ("interpreted", "serial", "compiled"):
        with _jit.forced(mode):
            res_f = evaluate(qpath, rpath, metrics)
            frame = pd.DataFrame(
                [(t, d, s) for t, docs in run.items() for d, s in docs.items()], columns=["topic", "docno", "score"]
            )
            res_m = evaluate(qrels, {"sys": frame}, metrics)
        out[mode] = np.stack([r[m].to_numpy() for r in (res_f, res_m) for m in metrics])
    assert np.array_equal(out["interpreted"], out["compiled"])
    assert np.array_equal(out["serial"], out["compiled"])
