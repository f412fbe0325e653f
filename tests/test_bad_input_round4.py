"""Bad input, round 4 (issue 36): silent misreads, unbounded work, the CLI's streams, unguarded helpers.

CLI cases run through the contract of ``tests/test_bad_input.py`` (exit 2, one stderr line naming the
file or parameter, nothing on stdout, no file created or changed); API cases through ``InputError``
naming the parameter.  Successes are compared with the same data written plainly and with
scikit-learn's ``adjusted_rand_score`` / a definition written here.  The output targets (devices, FIFOs,
symbolic links, ``/dev/stdout``) are in ``tests/test_bad_input_round4_output.py``.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score
from test_bad_input import _assert_clean_rejection, _run_ok, scratch  # noqa: F401  (fixture)

from agreekit._validation import InputError

ROOT = Path(__file__).resolve().parents[1]


def _ari_cli(capsys, argv) -> float:
    return json.loads(_run_ok(capsys, [*argv, "-m", "ari"]))["results"]["ari"]


# ----------------------------------------------------------------------------- High: label files named *.csv

LAB_U = [0, 0, 1, 1, 2, 2]
LAB_V = [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("name", ["labels.csv", "labels.CSV", "l.Csv", "labels.csv.gz"])
def test_label_file_named_csv_is_labels(scratch, capsys, name):
    text = "".join(f"{x}\n" for x in LAB_U)
    data = gzip.compress(text.encode()) if name.endswith(".gz") else text.encode()
    (scratch / name).write_bytes(data)
    (scratch / "same.txt").write_text(text)
    (scratch / "other.txt").write_text("".join(f"{x}\n" for x in LAB_V))
    assert _ari_cli(capsys, ["clustering", name, "same.txt"]) == pytest.approx(1.0)
    assert _ari_cli(capsys, ["clustering", name, "other.txt"]) == pytest.approx(adjusted_rand_score(LAB_U, LAB_V))


def test_label_file_named_csv_with_string_labels_and_crlf(scratch, capsys):
    (scratch / "a.csv").write_bytes(b"x\r\nx\r\ny\r\ny\r\nz\r\nz\r\n")
    (scratch / "b.txt").write_text("".join(f"{x}\n" for x in LAB_V))
    assert _ari_cli(capsys, ["clustering", "a.csv", "b.txt"]) == pytest.approx(adjusted_rand_score(LAB_U, LAB_V))


def test_membership_matrix_csv_is_still_a_matrix(scratch, capsys):
    # one-hot rows of LAB_U: the same partition as the label file
    (scratch / "m.csv").write_text(
        "c0,c1,c2\n" + "".join(",".join("1" if j == x else "0" for j in range(3)) + "\n" for x in LAB_U)
    )
    (scratch / "v.txt").write_text("".join(f"{x}\n" for x in LAB_V))
    assert _ari_cli(capsys, ["clustering", "m.csv", "v.txt"]) == pytest.approx(adjusted_rand_score(LAB_U, LAB_V))


def test_one_column_matrix_needs_input_format_matrix(tmp_path):
    from agreekit.clustering import read_clustering

    p = tmp_path / "soft.csv"
    p.write_text("1\n0.5\n1\n")
    with pytest.raises(InputError, match="`U`.*line 2.*'0.5'.*not an integer"):  # not silently soft
        read_clustering(p)
    soft = read_clustering(p, input_format="matrix")  # the one-column matrix must be asked for
    assert soft.k == 1 and not soft.crisp


@pytest.mark.parametrize("first", ["label", "cluster", "O1", "node_label"])
def test_header_like_first_label_is_refused(scratch, capsys, first):
    (scratch / "h.txt").write_text(f"{first}\n0\n0\n1\n1\n")
    _assert_clean_rejection(capsys, scratch, ["clustering", "h.txt", "u.txt"], [r"`U`", "h.txt", "line 1", "header"])


def test_mixed_names_and_integers_beyond_the_first_line_still_read(tmp_path):
    from agreekit.clustering import read_clustering

    p = tmp_path / "mixed.txt"
    p.write_text("a\n1\nb\n1\n")  # not the header pattern: names and integers in the body
    assert read_clustering(p).k == 3


# ----------------------------------------------------------------------------- Medium: LFR community.dat


def _lfr_text(labels, *, sep="\t", base=1):
    return "".join(f"{i + base}{sep}{c}\n" for i, c in enumerate(labels))


@pytest.mark.parametrize("sep,base", [("\t", 1), (" ", 1), (",", 1), ("\t", 0), ("  ", 0)])
def test_lfr_layout_is_refused_when_guessed(scratch, capsys, sep, base):
    (scratch / "community.dat").write_text(_lfr_text([1, 1, 2, 2, 2, 3], sep=sep, base=base))
    _assert_clean_rejection(
        capsys, scratch, ["clustering", "community.dat", "u.txt"], [r"`U`", "community.dat", "ambiguous", "lfr"]
    )


def test_lfr_layout_read_with_input_format_lfr(scratch, capsys):
    u, v = [1, 1, 2, 2, 2, 3, 3, 1], [5, 5, 5, 6, 6, 7, 7, 7]
    (scratch / "u.dat").write_text(_lfr_text(u))
    (scratch / "v.dat").write_text(_lfr_text(v))
    got = _ari_cli(capsys, ["clustering", "u.dat", "v.dat", "--input-format", "lfr"])
    assert got == pytest.approx(adjusted_rand_score(u, v))


def test_lfr_overlapping_nodes(tmp_path):
    from agreekit.clustering import read_clustering

    p = tmp_path / "community.dat"
    p.write_text("1\t1\n2\t1\n3\t1 2\n4\t2\n5\t2\n")
    c = read_clustering(p, input_format="lfr")
    M = c.matrix.toarray() if hasattr(c.matrix, "toarray") else np.asarray(c.matrix)
    got = sorted(sorted(np.asarray(c.nodes)[M[:, j] > 0].tolist()) for j in range(M.shape[1]))
    assert got == [[1, 2, 3], [3, 4, 5]]


@pytest.mark.parametrize(
    "text,frag",
    [
        ("1\t1\n1\t2\n2\t1\n", "listed again"),
        ("1\t1\n2\n3\t1\n", "line 2"),
        ("1\t1 1\n2\t1\n", "twice"),
        ("1\t1.5\n2\t1\n", "not an integer"),
    ],
)
def test_lfr_malformed(tmp_path, text, frag):
    from agreekit.clustering import read_clustering

    p = tmp_path / "c.dat"
    p.write_text(text)
    with pytest.raises(InputError, match=f"`U`.*{frag}"):
        read_clustering(p, input_format="lfr")


def test_cover_whose_first_column_is_not_consecutive_is_still_a_cover(tmp_path):
    from agreekit.clustering import read_clustering

    p = tmp_path / "cover.txt"
    p.write_text("1 2 3\n7 8\n4 5 6\n")
    assert read_clustering(p).k == 3


# ----------------------------------------------------------------------------- Low: invisible characters


@pytest.mark.parametrize(
    "payload,slot",
    [
        (b"0\n0\n1\n" + b"\xef\xbb\xbf" + b"1\n2\n", "labels-mid-bom"),  # cat a b, b with a BOM
        ("0\n0\n1\u200b\n1\n2\n".encode(), "labels-zwsp"),
        ("0 1 2\n3 4\u2060\n".encode(), "cover-word-joiner"),
        ("0 1\n2\u00ad 3\n".encode(), "cover-soft-hyphen"),
        ("a\nb\u200e\nb\n".encode(), "labels-lrm"),
    ],
)
def test_invisible_characters_are_refused(scratch, capsys, payload, slot):
    (scratch / "w.txt").write_bytes(payload)
    _assert_clean_rejection(capsys, scratch, ["clustering", "w.txt", "u.txt"], [r"`U`", "w.txt", "invisible", "line"])


def test_invisible_character_in_graph(scratch, capsys):
    (scratch / "g.txt").write_text("0 1\n1\u200b 2\n")
    _assert_clean_rejection(
        capsys,
        scratch,
        ["clustering", "u.txt", "v.txt", "--graph", "g.txt"],
        [r"`graph`", "g.txt", "line 2", "U\\+200B"],
    )


def test_leading_bom_is_still_fine(scratch, capsys):
    (scratch / "b.txt").write_bytes(b"\xef\xbb\xbf" + "".join(f"{x}\n" for x in LAB_U).encode())
    (scratch / "p.txt").write_text("".join(f"{x}\n" for x in LAB_U))
    assert _ari_cli(capsys, ["clustering", "b.txt", "p.txt"]) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- Medium: correlate files

SCORES_X = [0.9, 0.8, 0.5, 0.1, 0.2]
SCORES_Y = [0.7, 0.9, 0.5, 0.2, 0.1]


@pytest.mark.parametrize("sep_text", ["0,9", "0,90", " 0,9 ", "1,25"])
def test_decimal_comma_is_refused(scratch, capsys, sep_text):
    (scratch / "dc.txt").write_text(f"{sep_text}\n0,8\n0,5\n0,1\n0,2\n")
    (scratch / "s.txt").write_text("".join(f"{v}\n" for v in SCORES_Y))
    _assert_clean_rejection(
        capsys, scratch, ["correlate", "--kind", "scores", "dc.txt", "s.txt"], [r"`x`", "dc.txt", "decimal comma"]
    )


@pytest.mark.parametrize(
    "text", ["1,5\n2,4\n3,3\n4,2\n5,1\n", "a,b\n1,5\n2,4\n3,3\n4,2\n5,1\n", "1,2,3\n2,3,1\n3,1,2\n4,4,4\n5,5,5\n"]
)
def test_several_columns_without_column_are_refused(scratch, capsys, text):
    (scratch / "two.csv").write_text(text)
    _assert_clean_rejection(capsys, scratch, ["correlate", "two.csv", "y.txt"], [r"`x`", "two.csv", "--column"])


def test_several_columns_with_column_read_that_column(scratch, capsys):
    (scratch / "two.csv").write_text("a,b\n" + "".join(f"{9 - i},{r}\n" for i, r in enumerate([1, 2, 3, 4, 5])))
    (scratch / "two_y.csv").write_text("b,a\n" + "".join(f"{r},{i}\n" for i, r in enumerate([2, 1, 3, 5, 4])))
    got = json.loads(_run_ok(capsys, ["correlate", "two.csv", "two_y.csv", "--column", "b"]))
    ref = json.loads(_run_ok(capsys, ["correlate", "x.txt", "y.txt"]))
    assert got == ref


@pytest.mark.parametrize("first", ["O1", "o1", "l", "Ol", "I0"])
def test_mistyped_first_value_is_not_a_header(scratch, capsys, first):
    (scratch / "t.txt").write_text(f"{first}\n2\n3\n4\n5\n")
    _assert_clean_rejection(capsys, scratch, ["correlate", "t.txt", "y.txt"], [r"`x`", "t.txt", "line 1", "mistyped"])


def test_real_header_and_decimal_point_still_work(scratch, capsys):
    (scratch / "h.txt").write_text("score\n" + "".join(f"{v}\n" for v in SCORES_X))
    (scratch / "plain.txt").write_text("".join(f"{v}\n" for v in SCORES_X))
    (scratch / "p.txt").write_text("".join(f"{v}\n" for v in SCORES_Y))
    argv = ["correlate", "--kind", "scores", "--coefficient", "kendall"]
    got = json.loads(_run_ok(capsys, [*argv, "h.txt", "p.txt"]))
    assert got == json.loads(_run_ok(capsys, [*argv, "plain.txt", "p.txt"]))


# ----------------------------------------------------------------------------- Medium: topic-named score columns


@pytest.mark.parametrize("header", ["Q", "no", "nr", "num", "id", "qid"])
def test_topic_named_column_holding_scores_is_refused(scratch, capsys, header):
    (scratch / "m.csv").write_text(f"{header},A,B\n0.35,0.1,0.2\n0.5,0.4,0.5\n0.25,0.3,0.3\n")
    _assert_clean_rejection(
        capsys,
        scratch,
        ["bootstrap", "m.csv", "--n-resamples", "40", "--rng", "1"],
        [r"`SCORES`", "m.csv", f"'{header}'", "--topic-column none"],
    )
    got = json.loads(
        _run_ok(capsys, ["bootstrap", "m.csv", "--n-resamples", "40", "--rng", "1", "--topic-column", "none"])
    )
    assert got["n_systems"] == 3 and got["n_topics"] == 3


def test_topic_named_column_with_integer_ids_is_still_the_topics(scratch, capsys):
    (scratch / "m.csv").write_text("Q,A,B\n301,0.1,0.2\n302,0.4,0.5\n303,0.3,0.3\n")
    got = json.loads(_run_ok(capsys, ["bootstrap", "m.csv", "--n-resamples", "40", "--rng", "1"]))
    assert got["n_systems"] == 2


# ----------------------------------------------------------------------------- Medium: metaeval seed, time limit

MA = "topic,A,B,C\n" + "".join(f"{i},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10},{(i % 4) / 4}\n" for i in range(1, 9))
MB = "topic,A,B,C\n" + "".join(f"{i},{(i * 5 % 10) / 10},{(i * 3 % 7) / 7},{(i % 3) / 3}\n" for i in range(1, 9))


def _strip_times(obj):
    if isinstance(obj, dict):
        return {k: _strip_times(v) for k, v in obj.items() if k not in ("seconds", "elapsed")}
    if isinstance(obj, list):
        return [_strip_times(v) for v in obj]
    return obj


def test_metaeval_without_rng_reports_a_seed_that_repeats_the_run(scratch, capsys):
    (scratch / "a.csv").write_text(MA)
    (scratch / "b.csv").write_text(MB)
    argv = ["metaeval", "AP=a.csv", "P=b.csv", "--n-resamples", "30", "--pvalue-resamples", "50"]
    first = json.loads(_run_ok(capsys, argv))
    assert isinstance(first["seed"], int)
    again = json.loads(_run_ok(capsys, [*argv, "--rng", str(first["seed"])]))
    assert _strip_times(again) == _strip_times(first)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_metaeval_time_limit_must_be_positive(scratch, capsys, value):
    (scratch / "a.csv").write_text(MA)
    (scratch / "b.csv").write_text(MB)
    _assert_clean_rejection(
        capsys, scratch, ["metaeval", "AP=a.csv", "P=b.csv", f"--time-limit={value}"], [r"--time-limit"]
    )


# ----------------------------------------------------------------------------- Medium: kemeny bounds, memory

R3 = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]])


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"n_starts": 10**30}, "n_starts"),
        ({"n_starts": 2**62 + 1}, "n_starts"),
        ({"max_solutions": 10**30}, "max_solutions"),
        ({"max_solutions": 10**7 + 1}, "max_solutions"),
        ({"max_solutions": -1}, "max_solutions"),
        ({"time_limit": math.nan}, "time_limit"),
        ({"n_starts": True}, "n_starts"),
        ({"n_starts": 0}, "n_starts"),
    ],
)
def test_kemeny_counts_are_bounded(kw, param):
    from agreekit.consensus import kemeny

    with pytest.raises(InputError, match=f"`{param}`"):
        kemeny(R3, method="fast", rng=1, **kw)


def test_kemeny_long_fast_run_warns_before_it_starts():
    from agreekit.consensus import kemeny

    X = np.array([np.random.default_rng(k).permutation(20) + 1 for k in range(3)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the warning comes before the work: raise it
        with pytest.raises(UserWarning, match=r"n_starts=1000000000000 .*20 items.*time_limit"):
            kemeny(X, method="fast", n_starts=10**12, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        kemeny(X, method="fast", n_starts=10, rng=1)  # short: no warning


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"time_limit": math.nan}, "time_limit"),
        ({"rng": 1.5}, "rng"),
        ({"max_solutions": -1}, "max_solutions"),
        ({"n_starts": 0}, "n_starts"),
        ({"time_limit": 0}, "time_limit"),
        ({"max_solutions": 10**30}, "max_solutions"),
    ],
)
def test_consensus_ranking_checks_every_option(kw, param):
    import pandas as pd

    from agreekit.metaeval import consensus_ranking

    a = pd.DataFrame({"s1": [0.9, 0.8], "s2": [0.5, 0.6], "s3": [0.1, 0.2]})
    with pytest.raises(InputError, match=f"`{param}`"):
        consensus_ranking({"A": a, "B": a}, **kw)  # two identical metrics: proven by the bound, no kemeny call


def test_consensus_of_20000_items_is_refused_with_an_estimate():
    from agreekit.consensus import kemeny

    X = np.array([np.random.default_rng(k).permutation(20000) + 1 for k in range(3)])
    with pytest.raises(InputError, match=r"`rankings` would need about [0-9.]+ GiB .*20000 x 20000"):
        kemeny(X, method="quick")


def test_consensus_memory_limit_from_the_environment(monkeypatch):
    from agreekit.consensus import kemeny

    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "1M")
    X = np.array([np.random.default_rng(k).permutation(300) + 1 for k in range(3)])
    with pytest.raises(InputError, match=r"`rankings` would need about 2.1 MiB"):  # 3 * 8 * 300**2 bytes
        kemeny(X, method="quick")
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "4M")
    assert kemeny(X, method="quick").solutions.shape[1] == 300


def test_consensus_cli_20000_items_one_line(scratch, capsys):
    rng = np.random.default_rng(0)
    rows = [",".join(f"i{j}" for j in range(20000))] + [
        ",".join(map(str, rng.permutation(20000) + 1)) for _ in range(3)
    ]
    (scratch / "big.csv").write_text("\n".join(rows) + "\n")
    _assert_clean_rejection(
        capsys, scratch, ["consensus", "big.csv", "--method", "quick"], [r"`rankings`", "GiB", "20000 items"]
    )


def test_consensus_cli_checks_output_before_the_work(scratch, capsys):
    _assert_clean_rejection(
        capsys, scratch, ["consensus", "rankings.csv", "-o", "x.txt/out.json"], [r"`--output`", "x.txt"]
    )


# ----------------------------------------------------------------------------- Low: consensus arrays


@pytest.mark.parametrize(
    "bad,what",
    [
        (np.array([[1 + 0j, 2, 3], [1, 2, 3]]), "complex"),
        (np.array([[True, False, True], [False, True, True]]), "booleans"),
        (np.array([["1", "2", "3"], ["2", "1", "3"]]), "strings"),
        (np.array([["\u0661", "2", "3"], ["2", "1", "3"]]), "strings"),  # Arabic-Indic 1
        (np.array([["2020-01-01", "2020-01-02"]], dtype="datetime64[D]"), "datetimes"),
        (np.ma.masked_array([[1, 2, 3], [2, 1, 3]], mask=[[0, 1, 0], [0, 0, 0]]), "masked"),
        (np.array([[1, 2, "x"], [2, 1, 3]], dtype=object), "str"),
        (np.array([[1, 2, True], [2, 1, 3]], dtype=object), "booleans"),
    ],
)
def test_consensus_refuses_non_numbers(bad, what):
    from agreekit.consensus import kemeny

    with pytest.raises(InputError, match=f"`rankings`.*{what}"):
        kemeny(bad, method="quick")


def test_ordering_string_unranked_and_labels():
    from agreekit.consensus import ordering_string

    assert ordering_string([2, 1, 2], ["a", "b", "c"]) == "b (a c)"
    assert ordering_string([np.nan, 1, 1, 2], list("abcd")) == "(b c) d [unranked: a]"
    with pytest.raises(InputError, match="`labels`"):
        ordering_string([1, 2, 3], ["a", "b"])
    with pytest.raises(InputError, match="`ranks`"):
        ordering_string(["1", "2"], ["a", "b"])
    with pytest.raises(InputError, match="`labels`"):
        ordering_string([1, 2], None)


@pytest.mark.parametrize("r", [None, "abc", [1 + 1j, 2], [[1, 2], [2, 1]]])
def test_kemeny_distance_validates(r):
    from agreekit.consensus import kemeny_distance

    with pytest.raises(InputError, match="`r`|`ranking`"):
        kemeny_distance(r, [1, 2])


def test_kemeny_distance_value():
    from agreekit.consensus import kemeny_distance

    # the definition: 0 agree, 1 tie vs order, 2 reversed (pairs of 3 items)
    assert kemeny_distance([1, 2, 3], [3, 2, 1]) == 6.0
    assert kemeny_distance([1, 2, 3], [1, 1, 3]) == 1.0


# ----------------------------------------------------------------------------- Low: helpers


@pytest.mark.parametrize("stream", [-1, 1.5, True, "0", None, 2**64, np.nan])
def test_bootstrap_indices_stream(stream):
    from agreekit._resampling import bootstrap_indices

    with pytest.raises(InputError, match="`stream`"):
        bootstrap_indices(5, n_resamples=3, rng=1, stream=stream)


def test_bootstrap_indices_streams_are_distinct():
    from agreekit._resampling import bootstrap_indices

    a = bootstrap_indices(50, n_resamples=4, rng=1, stream=0)
    b = bootstrap_indices(50, n_resamples=4, rng=1, stream=1)
    assert a.shape == (4, 50) and a.min() >= 0 and a.max() < 50 and not np.array_equal(a, b)


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"values": [3, 4, 5, 6], "maximum": 2.5}, "maximum"),
        ({"values": [3, 4, 5, 6], "minimum": 0}, "minimum"),
        ({"values": [3, 4, 5, 6], "maximum": 10**18}, "maximum"),
        ({"values": [True, False, True]}, "values"),
        ({"values": [np.nan, 2, 3]}, "values"),
        ({"values": np.array([1 + 1j, 2])}, "values"),
        ({"values": None}, "values"),
        ({"values": [[1, 2], [3, 4]]}, "values"),
        ({"values": []}, "values"),
        ({"values": [4, 4, 5], "maximum": 3}, "maximum"),
        ({"values": np.ma.masked_array([2, 3, 4], [0, 1, 0])}, "values"),
        ({"values": ["2", "3"]}, "values"),
    ],
)
def test_powerlaw_exponent_mle_validates(kw, param):
    from agreekit.clustering.lfr import powerlaw_exponent_mle

    with pytest.raises(InputError, match=f"`{param}`"):
        powerlaw_exponent_mle(**kw)


def test_powerlaw_exponent_mle_value():
    from scipy.optimize import minimize_scalar

    from agreekit.clustering.lfr import powerlaw_exponent_mle

    x = np.array([2, 2, 2, 3, 3, 4, 5, 7, 9])
    k = np.arange(2, 10)

    def nll(t):  # the truncated discrete power law's negative log-likelihood, written here
        return t * np.log(x).sum() + len(x) * np.log((k**-t).sum())

    ref = minimize_scalar(nll, bounds=(-5, 10), method="bounded", options={"xatol": 1e-10}).x
    assert powerlaw_exponent_mle(x) == pytest.approx(ref, abs=1e-6)


@pytest.mark.parametrize(
    "args,kw,param",
    [
        ((None, [[0, 1]], [[0, 1]]), {}, "n"),
        ((4, [[0, 5]], [[0, 1]]), {}, "edges"),
        ((4, [[0, 1]], None), {}, "communities"),
        ((4, [[0, 1]], [[0, 1]]), {"weights": [np.nan]}, "weights"),
        ((4, [[0, 1.5]], [[0, 1]]), {}, "edges"),
        ((4, [[0, 1, 2]], [[0, 1]]), {}, "edges"),
        ((4, [[0, 1]], [[0, 9]]), {}, "communities"),
        ((4, [[0, 1]], [[0, 1]]), {"weights": [1, 2]}, "weights"),
        ((4, [], [[0, 1]]), {}, "edges"),
        ((True, [[0, 1]], [[0, 1]]), {}, "n"),
    ],
)
def test_realized_mixing_validates(args, kw, param):
    from agreekit.clustering.lfr import realized_mixing

    with pytest.raises(InputError, match=f"`{param}`"):
        realized_mixing(*args, **kw)


def test_realized_mixing_value():
    from agreekit.clustering.lfr import realized_mixing

    # path 0-1-2-3, communities {0,1}, {2,3}: node 0: 0/1, node 1: 1/2, node 2: 1/2, node 3: 0/1 -> mean 0.25
    assert realized_mixing(4, [[0, 1], [1, 2], [2, 3]], [[0, 1], [2, 3]]) == pytest.approx(0.25)
    assert realized_mixing(4, [[0, 1], [1, 2], [2, 3]], [[0, 1], [2, 3]], weights=[1, 3, 1]) == pytest.approx(
        (0 + 3 / 4 + 3 / 4 + 0) / 4
    )


# ----------------------------------------------------------------------------- Low: the CLI's streams


def _agreekit(args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, timeout=120, cwd=ROOT, **kw
    )


def test_ctrl_c_is_one_line():
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agreekit",
            "consensus",
            "resources/consensus/usa_ranks.csv",
            "--ordinal",
            "--method",
            "fast",
            "--n-starts",
            "100000000",
            "--time-limit",
            "600",
            "--quiet",
            "--rng",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    time.sleep(6)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert out == ""
    assert err.strip().splitlines() == ["agreekit consensus: interrupted"]


def test_closed_stdout_is_one_line_error():
    res = subprocess.run(
        f"{sys.executable} -m agreekit table >&-", shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert lines[0].startswith("agreekit table: error: `--output`") and "closed" in lines[0]


def test_closed_stdout_with_o_file_works(tmp_path):
    res = subprocess.run(
        f"{sys.executable} -m agreekit table -o {tmp_path / 't.json'} >&-",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "t.json").read_text())


def test_closed_stderr_never_sends_the_error_to_stdout():
    res = subprocess.run(
        f"{sys.executable} -m agreekit consensus no-such-file.csv 2>&-",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert res.returncode == 2
    assert res.stdout == ""


def test_broken_pipe_is_quiet():
    res = subprocess.run(
        f"{sys.executable} -m agreekit clustering --list --format csv | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize(
    "args,frag",
    [
        (["consensus", "{d}/u.csv", "--format", "csv"], "`--output`"),
        (["consensus", "{d}/nofile_\u00e9.csv"], "`FILE`"),
    ],
)
def test_ascii_stdout_and_stderr(tmp_path, args, frag):
    (tmp_path / "u.csv").write_text("\u00e9,b,c\n1,2,3\n2,1,3\n", encoding="utf-8")
    res = _agreekit([a.format(d=tmp_path) for a in args], env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and frag in lines[0] and "Traceback" not in res.stderr


def test_ascii_stdout_json_still_works(tmp_path):
    (tmp_path / "u.csv").write_text("\u00e9,b,c\n1,2,3\n2,1,3\n", encoding="utf-8")
    res = _agreekit(["consensus", str(tmp_path / "u.csv")], env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert res.returncode == 0, res.stderr
    assert "\\u00e9" in res.stdout and "\u00e9" in json.dumps(json.loads(res.stdout), ensure_ascii=False)


# ----------------------------------------------------------------------------- Low: options the call does not use


@pytest.mark.parametrize("func", ["ri_delta", "ari_delta", "i_norm", "i_sqrt_tr"])
@pytest.mark.parametrize(
    "kw,param",
    [
        ({"mode": "bogus"}, "mode"),
        ({"direct_weight": math.nan}, "direct_weight"),
        ({"direct_weight": 1.5}, "direct_weight"),
        ({"exact": "yes"}, "exact"),
        ({"exact": 2}, "exact"),
    ],
)
def test_unused_options_are_still_checked(func, kw, param):
    import agreekit.clustering as C

    with pytest.raises(InputError, match=f"`{param}`"):
        getattr(C, func)(LAB_U, LAB_V, **kw)  # no graph: mode and direct_weight are not used, still checked


@pytest.mark.parametrize(
    "kw,param", [({"normalized": "yes"}, "normalized"), ({"normalized": np.ones(2)}, "normalized")]
)
def test_variation_of_information_flag(kw, param):
    from agreekit.clustering import variation_of_information

    with pytest.raises(InputError, match=f"`{param}`"):
        variation_of_information(LAB_U, LAB_V, **kw)


def test_as_graph_and_compare_methods_take_plain_inputs():
    from agreekit.clustering import as_clustering, as_graph
    from agreekit.consensus import compare_methods

    g = as_graph([(0, 1), (1, 2)], [0, 0, 1])  # a label vector is made a Clustering
    assert g.a.tolist() == as_graph([(0, 1), (1, 2)], as_clustering([0, 0, 1])).a.tolist()
    with pytest.raises(InputError, match="`clustering`"):
        as_graph([(0, 1)], None)
    with pytest.raises(InputError, match="`data`"):
        compare_methods(None)
    with pytest.raises(InputError, match="`exact_time_limit`"):
        compare_methods(R3, exact_time_limit=-1)


# ----------------------------------------------------------------------------- Low: YAML 1.1 numbers, quoted newlines


@pytest.mark.parametrize(
    "text,kind,value",
    [
        ("seed: 017\n", "octal", "15"),
        ("seed: -017\n", "octal", "-15"),
        ("t: 1:30\n", "sexagesimal", "90"),
        ("t: 1:30.5\n", "sexagesimal", "90.5"),
        ("n: 0b101\n", "binary", "5"),
        ("n: 1_000\n", "'_' separators", "1000"),
        ("a:\n  b: [1, 010]\n", "octal", "8"),
    ],
)
def test_yaml_11_numbers_are_refused(tmp_path, text, kind, value):
    from agreekit._io import load_config_yaml

    (tmp_path / "c.yaml").write_text(text)
    with pytest.raises(InputError, match=rf"`configfile` .*c\.yaml' line \d+: .*{kind}.*\(= {value}\)"):
        load_config_yaml(tmp_path / "c.yaml")


def test_yaml_plain_and_quoted_numbers_still_read(tmp_path):
    from agreekit._io import load_config_yaml

    (tmp_path / "c.yaml").write_text("seed: 17\nzero: 0\nq: '017'\nh: 0x1F\nf: 0.25\nneg: -3\n")
    assert load_config_yaml(tmp_path / "c.yaml") == {"seed": 17, "zero": 0, "q": "017", "h": 31, "f": 0.25, "neg": -3}


def test_quoted_csv_field_keeps_its_newline(tmp_path):
    import csv
    import io

    from agreekit._io import read_csv_rows

    text = 'name,B\n"two\nlines",2\n"a ""q""",3\n'
    got = read_csv_rows(io.StringIO(text), parameter="f")
    ref = list(csv.reader(io.StringIO(text)))  # the csv module on the whole text: the reference
    assert [got.header, *got.rows] == ref
    assert got.lines == [2, 4]
