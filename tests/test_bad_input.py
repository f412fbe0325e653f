"""Malformed input over every subcommand (issue 14 §7), and the edge cases that must work.

Every malformed case runs ``agreekit.cli.main`` in-process in a scratch folder and asserts the
contract of the brief: exit code 2, nothing on stdout, exactly one line on stderr of the form
``agreekit CMD: error: ...`` that names the file or the parameter, no traceback, and not one file
created, changed or removed in the folder (no partial output, no stray temporary).

The table is built from two parts:

* ``FILE_CASES`` — every file argument of every subcommand crossed with every way a file can be
  unreadable (missing, a directory, empty, binary, UTF-16, truncated / corrupted gzip, a ``.gz``
  that is not gzip).  This checks the shared readers in :mod:`agreekit._io`, the class fix.
* ``CONTENT_CASES`` — readable files with wrong content and bad options, one row per way of
  being wrong (most are rows of issue 14).

The should-succeed cases compare against independent references (the same input written
plainly; scikit-learn / scipy where they compute the same thing).  A few checks need a real
process (tracebacks, warnings printed by the interpreter): they use ``subprocess``.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreekit._io import read_csv_rows, write_files
from agreekit._validation import InputError
from agreekit.cli import main

TABLE_ID = "spearman_additive_harmonic"
CORR = ["--coefficient", "spearman", "--scheme", "additive", "--weigher", "harmonic"]

# ----------------------------------------------------------------------------- valid fixtures

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 0\n2 0 d6 1\n3 0 d7 1\n"
RUN_A = "1 Q0 d1 1 3.0 A\n1 Q0 d2 2 2.0 A\n2 Q0 d4 1 1.0 A\n3 Q0 d9 1 1.0 A\n"
RUN_B = "1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n2 Q0 d5 1 1.0 B\n2 Q0 d6 2 0.5 B\n3 Q0 d7 1 1.0 B\n"
SCORES = "A,B,C\n0.1,0.2,0.3\n0.4,0.5,0.1\n0.3,0.3,0.2\n0.5,0.1,0.4\n"
SCORES2 = "A,B,C\n0.2,0.1,0.3\n0.4,0.6,0.1\n0.3,0.2,0.2\n0.5,0.1,0.3\n"
RANKS_X = "1\n2\n3\n4\n5\n"
RANKS_Y = "2\n1\n3\n5\n4\n"
LABELS_U = "0\n0\n1\n1\n2\n"
LABELS_V = "0\n0\n0\n1\n1\n"
GRAPH = "0 1\n1 2\n2 3\n3 4\n0 4\n"
CONSENSUS = "a,b,c\n1,2,3\n2,1,3\n1,3,2\n"


def _table_json() -> str:
    from agreekit.ranking.tables import load_table

    return Path(load_table(TABLE_ID).path).read_text(encoding="utf-8")


def _base_files() -> dict[str, str]:
    return {
        "qrels.txt": QRELS,
        "runA.txt": RUN_A,
        "runB.txt": RUN_B,
        "scores.csv": SCORES,
        "scores2.csv": SCORES2,
        "x.txt": RANKS_X,
        "y.txt": RANKS_Y,
        "u.txt": LABELS_U,
        "v.txt": LABELS_V,
        "graph.txt": GRAPH,
        "rankings.csv": CONSENSUS,
    }


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), mtime=0)


def _corrupt_gz(text: str) -> bytes:
    data = bytearray(_gz(text * 20))
    data[20:24] = b"XXXX"  # issue 14: 4 bytes overwritten at offset 20
    return bytes(data)


# kind -> (file name suffix or None for "keep the slot's extension", payload(valid text) or None
#          for "do not create", directory flag, regex the message must match)
KINDS = {
    "missing": (None, None, False, r"does not exist|no such|not found"),
    "directory": (None, None, True, r"directory"),
    "empty": (None, lambda t: b"", False, r"empty|no judgements|no ranked|not valid JSON"),
    "binary": (None, lambda t: b"\x89PNG\r\n\x1a\n\x9c\xff" + bytes(range(128, 256)) * 4, False, r"not UTF-8|binary"),
    "utf16": (None, lambda t: t.encode("utf-16"), False, r"UTF-16"),
    "truncated_gz": (".gz", lambda t: _gz(t)[: len(_gz(t)) // 2], False, r"truncated"),
    "corrupted_gz": (".gz", _corrupt_gz, False, r"corrupted"),
    "not_gzip": (".gz", lambda t: t.encode(), False, r"not gzip-compressed"),
}

# slot -> (argv with {F} for the bad file, extension, valid content of the slot, parameter name)
SLOTS = {
    "bootstrap-SCORES": (["bootstrap", "{F}", "--n-resamples", "40", "--rng", "1"], ".csv", SCORES, "SCORES"),
    "bootstrap-correlate": (
        ["bootstrap", "scores.csv", "--correlate", "{F}", "--n-resamples", "40", "--rng", "1"],
        ".csv",
        SCORES2,
        "--correlate",
    ),
    "evaluate-QRELS": (["evaluate", "{F}", "runA.txt", "--metric", "AveP"], ".txt", QRELS, "qrels"),
    "evaluate-RUN": (["evaluate", "qrels.txt", "runA.txt", "{F}", "--metric", "AveP"], ".txt", RUN_B, "run"),
    "correlate-x": (["correlate", *CORR, "{F}", "y.txt"], ".txt", RANKS_X, "x"),
    "correlate-y": (["correlate", *CORR, "x.txt", "{F}"], ".txt", RANKS_Y, "y"),
    "clustering-U": (["clustering", "{F}", "v.txt"], ".txt", LABELS_U, "U"),
    "clustering-V": (["clustering", "u.txt", "{F}"], ".txt", LABELS_V, "V"),
    "clustering-graph": (["clustering", "u.txt", "v.txt", "--graph", "{F}"], ".txt", GRAPH, "graph"),
    "table": (["table", "{F}"], ".json", None, "table"),
    "standardize-table": (
        ["standardize", *CORR, "--n", "5", "--gamma", "0.3", "--table", "{F}"],
        ".json",
        None,
        "table",
    ),
}
# consensus reads its CSV through the shared strict reader (agreekit._io.read_csv_rows)
SLOT_KINDS: dict = {}
SLOTS["consensus-FILE"] = (["consensus", "{F}"], ".csv", CONSENSUS, "FILE")

FILE_CASES = [(slot, kind) for slot in SLOTS for kind in SLOT_KINDS.get(slot, KINDS)]


def _snapshot(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _assert_clean_rejection(capsys, root: Path, argv: list[str], fragments: list[str]) -> str:
    before = _snapshot(root)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors (e.g. a value outside `choices`)
        code = exc.code
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (argv, err)
    assert out == "", out
    assert len(lines) == 1, err
    assert lines[0].startswith(f"agreekit {argv[0]}: error: "), err
    assert "Traceback" not in err
    for frag in fragments:
        assert re.search(frag, lines[0]), (frag, lines[0])
    assert _snapshot(root) == before, "the failed command created, changed or removed a file"
    return lines[0]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    for name, text in _base_files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "table.json").write_text(_table_json(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("slot,kind", FILE_CASES, ids=[f"{s}-{k}" for s, k in FILE_CASES])
def test_unreadable_file_is_one_line_error(scratch, capsys, slot, kind):
    argv, ext, valid, parameter = SLOTS[slot]
    suffix, payload, is_dir, pattern = KINDS[kind]
    valid = _table_json() if valid is None else valid
    name = "bad" + (suffix or ext)
    path = scratch / name
    if is_dir:
        path.mkdir()
    elif payload is not None:
        path.write_bytes(payload(valid))
    argv = [a.replace("{F}", name) for a in argv]
    line = _assert_clean_rejection(capsys, scratch, argv, [re.escape(name), "(?i)" + pattern])
    assert f"`{parameter}`" in line, line


# ----------------------------------------------------------------------------- content cases

# id -> (files to add {name: text or bytes}, argv, regexes the message must match)
CONTENT_CASES = {
    # bootstrap score matrices (issue 14 §3: duplicate / empty system names, §5: header-only)
    "scores-duplicate-system": (
        {"m.csv": "A,A,C\n0.1,0.2,0.3\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        [r"`SCORES`", "m.csv", r"'A' is repeated"],
    ),
    "scores-empty-system": (
        {"m.csv": "A,,C\n0.1,0.2,0.3\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        [r"`SCORES`", "m.csv", r"system 2 has no name"],
    ),
    "scores-ragged-long": (
        {"m.csv": "A,B,C\n0.1,0.2,0.3,0.4\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 2 has 4 fields"],
    ),
    "scores-ragged-short": (
        {"m.csv": "A,B,C\n0.1,0.2,0.3\n0.4,0.5\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 3 has 2 fields"],
    ),
    "scores-header-only": ({"m.csv": "A,B,C\n"}, ["bootstrap", "m.csv"], ["m.csv", "no data rows"]),
    "scores-non-numeric": (
        {"m.csv": "A,B,C\n0.1,0.2,0.3\n0.4,x,0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 3", r"'x'"],
    ),
    "scores-blank-line-inside": (
        {"m.csv": "A,B,C\n0.1,0.2,0.3\n\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 3 is blank"],
    ),
    "scores-missing-value": (
        {"m.csv": "A,B,C\n0.1,,0.3\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 2", "missing"],
    ),
    "scores-nan": (
        {"m.csv": "A,B,C\n0.1,nan,0.3\n0.4,0.5,0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"line 2", "NaN or infinite value 'nan'"],
    ),
    "scores-duplicate-topic": (
        {"m.csv": "topic,A,B\nt1,0.1,0.2\nt1,0.4,0.5\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", r"topic 't1' appears twice"],
    ),
    "scores-semicolons": (
        {"m.csv": "A;B;C\n0.1;0.2;0.3\n0.4;0.5;0.1\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", "no system columns", "delimiter"],
    ),
    "scores-typo-in-first-system": (
        {"m.csv": "A,B,C\n0.1,0.2,0.3\n0.-4,0.5,0.1\n0.3,0.1,0.2\n"},
        ["bootstrap", "m.csv"],
        ["m.csv", "line 3", "'0.-4'", "system 'A'"],
    ),
    "scores-one-system": ({"m.csv": "A\n0.1\n0.4\n"}, ["bootstrap", "m.csv"], [r"`SCORES`", "2 systems"]),
    "scores-unclosed-quote": ({"m.csv": 'A,B\n"0.1,0.2\n0.4,0.5\n'}, ["bootstrap", "m.csv"], ["m.csv"]),
    "correlate-scores-differ": (
        {"m.csv": "A,B,D\n0.1,0.2,0.3\n0.4,0.5,0.1\n0.3,0.3,0.2\n0.5,0.1,0.4\n"},
        ["bootstrap", "scores.csv", "--correlate", "m.csv", "--n-resamples", "40"],
        [r"`--correlate`", "different systems"],
    ),
    "bootstrap-alpha-out-of-range": ({}, ["bootstrap", "scores.csv", "--alpha", "1.5"], [r"`alpha`"]),
    "bootstrap-resamples-zero": ({}, ["bootstrap", "scores.csv", "--n-resamples", "0"], [r"resamples"]),
    "bootstrap-output-proc": (
        {},
        ["bootstrap", "scores.csv", "--n-resamples", "40", "-o", "/proc/x"],
        [r"`--output`", r"'/proc/x'"],
    ),
    "bootstrap-output-dir": (
        {"outdir/keep.txt": "x"},
        ["bootstrap", "scores.csv", "--n-resamples", "40", "-o", "outdir"],
        [r"`--output`", "'outdir'", "directory"],
    ),
    "bootstrap-output-under-file": (
        {},
        ["bootstrap", "scores.csv", "--n-resamples", "40", "-o", "x.txt/out.json"],
        [r"`--output`", "not a directory"],
    ),
    # evaluate (qrels and runs)
    "run-two-tags": (
        {"r.txt": RUN_A + "1 Q0 d7 3 0.5 Z\n"},
        ["evaluate", "qrels.txt", "r.txt", "--metric", "AveP"],
        [r"`run`", "r.txt", r"'Z'", "split"],
    ),
    "run-five-fields": (
        {"r.txt": "1 Q0 d1 1 3.0\n"},
        ["evaluate", "qrels.txt", "r.txt", "--metric", "AveP"],
        ["r.txt", "line 1", "6 fields"],
    ),
    "run-bad-score": (
        {"r.txt": "1 Q0 d1 1 high A\n"},
        ["evaluate", "qrels.txt", "r.txt", "--metric", "AveP"],
        ["r.txt", "'high'"],
    ),
    "run-inf-score": (
        {"r.txt": "1 Q0 d1 1 inf A\n"},
        ["evaluate", "qrels.txt", "r.txt", "--metric", "AveP"],
        ["r.txt", "finite"],
    ),
    "qrels-three-fields": (
        {"q.txt": "1 0 d1\n"},
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        ["q.txt", "line 1", "4 fields"],
    ),
    "qrels-huge-grade": (
        {"q.txt": "1 0 d1 99999999999999999999\n"},
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        ["q.txt", "out of range"],
    ),
    "qrels-bad-grade": (
        {"q.txt": "1 0 d1 yes\n"},
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        ["q.txt", "'yes'"],
    ),
    "qrels-topic-without-relevant": (
        {"q.txt": QRELS + "9 0 dx 0\n"},
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        [r"`qrels`", "no relevant", "drop"],
    ),
    "evaluate-same-system-twice": (
        {},
        ["evaluate", "qrels.txt", "runA.txt", "runA.txt", "--metric", "AveP"],
        [r"`run`", "duplicate system"],
    ),
    "evaluate-unknown-metric": (
        {},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "MAP@x"],
        [r"`metrics`", "unsupported metric"],
    ),
    "evaluate-two-metrics-no-dir": (
        {},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "AveP,P@10"],
        [r"`--output-dir`"],
    ),
    "evaluate-bad-gain": (
        {},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "AveP", "--gain", "2:3"],
        [r"`--gains?`"],
    ),
    # issue 14 §6: multi-file output is all or nothing
    "evaluate-second-target-is-dir": (
        {"out/P@10.csv/x": "keep"},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "AveP,P@10", "-o", "out"],
        [r"`--output-dir`", r"P@10\.csv", "directory"],
    ),
    "evaluate-first-target-is-dir": (
        {"out/AveP.csv/x": "keep", "out/P@10.csv": "old data\n"},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "AveP,P@10", "-o", "out"],
        [r"`--output-dir`", r"AveP\.csv", "directory"],
    ),
    "evaluate-dir-is-file": (
        {},
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "AveP,P@10", "-o", "x.txt"],
        [r"`--output-dir`", "is required"],
    ),  # -o is a file (issue 36)
    # correlate: rank values (positive integers, 1 = top; repeated = ties)
    "ranks-zero": (
        {"r.txt": "1\n0\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "r.txt", "line 2", "'0' is not a positive integer"],
    ),
    "ranks-negative": (
        {"r.txt": "1\n-1\n3\n4\n5\n"},
        ["correlate", *CORR, "r.txt", "y.txt"],
        [r"`x`", "r.txt", "line 2", "'-1'"],
    ),
    "ranks-fraction": (
        {"r.txt": "1\n2.5\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "'2.5' is not a positive integer"],
    ),
    "ranks-nan": (
        {"r.txt": "1\nnan\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "line 2", "'nan' is NaN or infinite"],
    ),
    "ranks-inf": (
        {"r.txt": "1\n2\ninf\n4\n5\n"},
        ["correlate", *CORR, "r.txt", "y.txt"],
        [r"`x`", "line 3", "'inf' is NaN or infinite"],
    ),
    "ranks-huge": (
        {"r.txt": "1\n99999999999999999999\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "line 2", "not a positive integer"],
    ),
    "ranks-word": (
        {"r.txt": "rank\n1\ntwo\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "line 3", "'two'"],
    ),
    "ranks-empty-cell": (
        {"r.txt": "a,b\n1,2\n,1\n3,3\n4,4\n5,5\n", "xc.txt": "a,b\n1,1\n2,2\n3,3\n4,4\n5,5\n"},
        ["correlate", *CORR, "xc.txt", "r.txt", "--column", "a"],  # several columns: --column
        [r"`y`", "line 3", "''"],
    ),
    "ranks-blank-line-inside": (
        {"r.txt": "1\n2\n\n3\n4\n5\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "line 3 is blank"],
    ),
    "ranks-ragged-csv": (
        {"r.txt": "a,b\n1,2\n2\n"},
        ["correlate", *CORR, "x.txt", "r.txt"],
        [r"`y`", "line 3 has 1 fields"],
    ),
    "ranks-header-only": ({"r.txt": "rank\n"}, ["correlate", *CORR, "x.txt", "r.txt"], [r"`y`", "no ranks"]),
    "ranks-missing-column": (
        {"r.csv": "a,b\n1,2\n2,1\n"},
        ["correlate", *CORR, "r.csv", "r.csv", "--column", "c"],
        [r"`column`", "'c'"],
    ),
    "ranks-length-differs": ({"r.txt": "1\n2\n3\n"}, ["correlate", *CORR, "x.txt", "r.txt"], [r"`y`", "same length"]),
    # weigher specs (issue 14 §3): repeated key, missing required parameter; overflow is one line
    "weigher-repeated-key": (
        {},
        [
            "correlate",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "power:p=1,p=2",
            "x.txt",
            "y.txt",
        ],
        [r"`weigher`", "twice"],
    ),
    "weigher-missing-p": (
        {},
        ["correlate", "--coefficient", "spearman", "--scheme", "additive", "--weigher", "power", "x.txt", "y.txt"],
        [r"`weigher`", "needs parameter"],
    ),
    "weigher-overflow": (
        {},
        [
            "correlate",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "power:p=1e308",
            "--pvalue",
            "x.txt",
            "y.txt",
        ],
        [r"`weigher`", r"power:p=1e\+308"],
    ),  # issue 23: power:p=1000 works now; log f overflows
    "weigher-unknown": (
        {},
        ["correlate", "--coefficient", "spearman", "--scheme", "additive", "--weigher", "harmonc", "x.txt", "y.txt"],
        [r"`weigher`", "unknown family"],
    ),
    "moments-repeated-key": (
        {},
        [
            "moments",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "inverse_square:n0=1,n0=2",
            "--n",
            "4",
        ],
        [r"`weigher`", "twice"],
    ),
    "moments-bad-n": (
        {},
        ["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", "--n", "four"],
        [r"`n`"],
    ),
    "moments-bad-coefficient": (
        {},
        ["moments", "--coefficient", "pearson", "--scheme", "additive", "--weigher", "harmonic", "--n", "4"],
        [r"--coefficient", "invalid choice"],
    ),
    # standardize / table
    "standardize-gamma-out-of-range": ({}, ["standardize", *CORR, "--n", "5", "--gamma", "1.5"], [r"`gamma`"]),
    "standardize-table-mismatch": (
        {},
        [
            "standardize",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "5",
            "--gamma",
            "0.1",
            "--table",
            "table.json",
        ],
        [r"`coefficient`", "table"],
    ),
    "table-unknown-id": ({}, ["table", "no_such_scheme"], [r"`table`", "no table for scheme"]),
    "table-not-json": ({"t.json": "{not json"}, ["table", "t.json"], [r"`table`", "t.json", "not valid JSON"]),
    "table-tampered": (
        {"t.json": _table_json().replace('"spearman"', '"kendall"', 1)},
        ["table", "t.json"],
        [r"`table`", "t.json"],
    ),
    # clustering (issue 14 §3: repeated node in a cover line, --mode plus without --graph)
    "cover-repeated-node": (
        {"c.txt": "0 1 1 2\n3 4\n"},
        ["clustering", "c.txt", "v.txt"],
        [r"`U`", "c.txt", "line 1", "'1' twice"],
    ),
    "mode-plus-without-graph": ({}, ["clustering", "u.txt", "v.txt", "--mode", "plus"], [r"`--mode`", "--graph"]),
    "mode-without-V": ({}, ["clustering", "u.txt", "--graph", "graph.txt", "--mode", "plus"], [r"`--mode`"]),
    "alpha-without-plus": (
        {},
        ["clustering", "u.txt", "v.txt", "--graph", "graph.txt", "--direct-weight", "0.3"],
        [r"--direct-weight|--alpha", "--mode plus"],
    ),
    "alpha-out-of-range": (
        {},
        ["clustering", "u.txt", "v.txt", "--graph", "graph.txt", "--mode", "plus", "--direct-weight", "2"],
        [r"--direct-weight|--alpha"],
    ),
    "labels-blank-line-inside": (
        {"l.txt": "0\n\n1\n"},
        ["clustering", "l.txt", "v.txt"],
        [r"`U`", "l.txt", "line 2 is empty"],
    ),
    "labels-two-per-line": (
        {"l.txt": "0\n1 2\n1\n"},
        ["clustering", "l.txt", "v.txt", "--input-format", "labels"],
        [r"`U`", "line 2"],
    ),
    "labels-length-differs": ({"l.txt": "0\n1\n"}, ["clustering", "l.txt", "v.txt"], [r"`V`|`U`"]),
    "graph-four-tokens": (
        {"g.txt": "0 1 1 7\n"},
        ["clustering", "u.txt", "v.txt", "--graph", "g.txt"],
        [r"`graph`", "g.txt", "line 1"],
    ),
    "graph-bad-weight": (
        {"g.txt": "0 1 heavy\n"},
        ["clustering", "u.txt", "v.txt", "--graph", "g.txt"],
        [r"`graph`", "'heavy'"],
    ),
    "matrix-ragged": ({"m.csv": "1,0\n0,1,0\n"}, ["clustering", "m.csv", "v.txt"], [r"`U`", "m.csv", "row 2"]),
    "matrix-negative": (
        {"m.csv": "1,0\n-1,1\n0,1\n1,0\n1,0\n"},
        ["clustering", "m.csv", "v.txt"],
        [r"`U`", "negative"],
    ),
    "clustering-unknown-measure": ({}, ["clustering", "u.txt", "v.txt", "-m", "nope"], [r"measure"]),
    "clustering-output-dir": (
        {"odir/k": "x"},
        ["clustering", "u.txt", "v.txt", "-o", "odir"],
        [r"`--output`", "directory"],
    ),
    # consensus: output target and option checks of the shared frame
    "consensus-output-dir": (
        {"odir/k": "x"},
        ["consensus", "rankings.csv", "-o", "odir"],
        [r"`--output`", "directory"],
    ),
    "consensus-output-proc": ({}, ["consensus", "rankings.csv", "-o", "/proc/x"], [r"`--output`", "'/proc/x'"]),
}


@pytest.mark.parametrize("case", list(CONTENT_CASES))
def test_malformed_content_is_one_line_error(scratch, capsys, case):
    files, argv, fragments = CONTENT_CASES[case]
    for name, text in files.items():
        p = scratch / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    _assert_clean_rejection(capsys, scratch, argv, fragments)


def test_the_table_is_large_enough():
    # issue 14 §7: at least 80 malformed inputs over all subcommands
    assert len(FILE_CASES) + len(CONTENT_CASES) >= 80
    commands = {SLOTS[s][0][0] for s, _ in FILE_CASES} | {argv[0] for _, argv, _ in CONTENT_CASES.values()}
    assert commands == {
        "bootstrap",
        "evaluate",
        "correlate",
        "moments",
        "standardize",
        "table",
        "clustering",
        "consensus",
    }


def test_evaluate_partial_output_keeps_old_files(scratch, capsys):
    # issue 14 §6: DIR/AveP.csv is a directory and DIR/P@10.csv holds old data -> untouched
    (scratch / "out" / "AveP.csv").mkdir(parents=True)
    (scratch / "out" / "P@10.csv").write_text("old data\n")
    assert main(["evaluate", "qrels.txt", "runA.txt", "--metric", "P@10,AveP", "-o", "out"]) == 2
    capsys.readouterr()
    assert (scratch / "out" / "P@10.csv").read_text() == "old data\n"
    assert sorted(p.name for p in (scratch / "out").iterdir()) == ["AveP.csv", "P@10.csv"]
    # and when every target is writable, all of them are written
    shutil.rmtree(scratch / "out" / "AveP.csv")
    assert main(["evaluate", "qrels.txt", "runA.txt", "runB.txt", "--metric", "P@10,AveP", "-o", "out"]) == 0
    capsys.readouterr()
    assert (scratch / "out" / "P@10.csv").read_text().startswith("topic,A,B\n")
    assert (scratch / "out" / "AveP.csv").read_text().startswith("topic,A,B\n")
    assert sorted(p.name for p in (scratch / "out").iterdir()) == ["AveP.csv", "P@10.csv"]


def test_write_files_is_all_or_nothing(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "blocked").mkdir()
    with pytest.raises(InputError, match="blocked"):
        write_files({tmp_path / "old.txt": "new", tmp_path / "blocked": "x"}, parameter="out")
    assert (tmp_path / "old.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked", "old.txt"]
    with pytest.raises(InputError, match="twice"):
        write_files([(tmp_path / "a", "1"), (tmp_path / "a", "2")])
    assert not (tmp_path / "a").exists()
    write_files({tmp_path / "old.txt": "new", tmp_path / "sub" / "b.txt": b"\x00"})
    assert (tmp_path / "old.txt").read_text() == "new" and (tmp_path / "sub" / "b.txt").read_bytes() == b"\x00"
    assert not [p for p in tmp_path.rglob(".*")]  # no temporaries left


# ----------------------------------------------------------------------------- API entry checks


def test_api_entry_points_raise_input_error_naming_the_parameter():
    from agreekit import load_table, standardize
    from agreekit.clustering import adjusted_rand_index, omega, rand_index
    from agreekit.consensus import kemeny
    from agreekit.ireval.bootstrap import paired_test, unpaired_test

    kw = dict(coefficient="spearman", scheme="additive", weigher="harmonic", n=5)
    calls = [
        (lambda: load_table(None), "path_or_scheme_id"),
        (lambda: load_table(5), "path_or_scheme_id"),
        (lambda: standardize(0.3, **kw, table=123), "table"),
        (lambda: kemeny([[1, 2, 3], [2, 1]]), "rankings"),
        (lambda: paired_test(["a", "b", "c"], [1, 2, 3]), "x"),
        (lambda: paired_test([1, 2, 3], [[1], [2, 3]]), "y"),
        (lambda: unpaired_test([0.1, 0.2], ["x", "y"]), "y"),
        (lambda: omega([[0, 1], []], [[0], [1]]), "U"),  # an empty cluster, as the CLI refuses a blank line
        (lambda: omega([[0, 1, 1], [2]], [[0], [1, 2]]), "U"),  # a node twice in one cluster
        (lambda: adjusted_rand_index([], []), "U"),  # README: n = 0 is an error, n = 1 gives 1
        (lambda: rand_index([], []), "U"),
    ]
    for call, parameter in calls:
        with pytest.raises(InputError) as exc:
            call()
        assert exc.value.parameter == parameter, (parameter, str(exc.value))
        assert f"`{parameter}`" in str(exc.value)
    assert adjusted_rand_index([0], [0]) == 1.0 and rand_index([0], [0]) == 1.0


def test_load_table_garbage_file_names_it(tmp_path):
    from agreekit import load_table

    p = tmp_path / "garbage.bin"
    p.write_bytes(bytes(range(256)) * 3)
    with pytest.raises(InputError, match="garbage.bin") as exc:
        load_table(p)
    assert exc.value.parameter == "path_or_scheme_id"


def test_ranking_config_rejects_bad_weighers():
    import copy

    import yaml

    from agreekit.ranking.tablegen.generation import check_ranking_config

    root = Path(__file__).resolve().parents[1]
    base = yaml.safe_load((root / "config" / "config.yaml").read_text())["ranking"]
    check_ranking_config(base)
    for where in ("schemes", "examples"):
        for spec, fragment in (("power:p=1,p=2", "twice"), ("power", "needs parameter")):
            cfg = copy.deepcopy(base)
            target = cfg["schemes"][0] if where == "schemes" else cfg["figures"]["examples"][0]
            target["weigher"] = spec
            with pytest.raises(InputError, match=fragment) as exc:
                check_ranking_config(cfg)
            assert where in exc.value.parameter


# ----------------------------------------------------------------------------- must work


def _run_ok(capsys, argv) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _variants(text: str) -> dict[str, bytes]:
    """The same text with CRLF, a BOM, trailing blank lines, all three, and gzip-compressed."""
    return {
        "crlf": text.replace("\n", "\r\n").encode(),
        "bom": b"\xef\xbb\xbf" + text.encode(),
        "trailing": (text + "\n\n  \n").encode(),
        "all": b"\xef\xbb\xbf" + (text + "\n\n").replace("\n", "\r\n").encode(),
        "gzip": _gz(text),
    }


@pytest.mark.parametrize("variant", ["crlf", "bom", "trailing", "all", "gzip"])
def test_crlf_bom_trailing_blank_lines_read_as_plain(scratch, capsys, variant):
    def with_file(name, text, argv_of):
        ref = _run_ok(capsys, argv_of(name))
        alt = f"alt_{name}" + (".gz" if variant == "gzip" else "")
        (scratch / alt).write_bytes(_variants(text)[variant])
        got = _run_ok(capsys, argv_of(alt))
        assert got.replace(alt, name) == ref, (name, variant)

    with_file("scores.csv", SCORES, lambda f: ["bootstrap", f, "--n-resamples", "40", "--rng", "3"])
    with_file("qrels.txt", QRELS, lambda f: ["evaluate", f, "runA.txt", "runB.txt", "--metric", "AveP"])
    with_file("runB.txt", RUN_B, lambda f: ["evaluate", "qrels.txt", "runA.txt", f, "--metric", "nDCG@10"])
    with_file("y.txt", RANKS_Y, lambda f: ["correlate", *CORR, "x.txt", f])
    with_file("u.txt", LABELS_U, lambda f: ["clustering", f, "v.txt", "-m", "ari", "-m", "nmi"])
    with_file("graph.txt", GRAPH, lambda f: ["clustering", "u.txt", "v.txt", "--graph", f])


def test_bom_header_is_not_part_of_the_first_name(scratch, capsys):
    (scratch / "b.csv").write_bytes(b"\xef\xbb\xbftopic,A,B\n1,0.1,0.2\n2,0.3,0.1\n")
    out = json.loads(_run_ok(capsys, ["bootstrap", "b.csv", "--n-resamples", "40", "--rng", "1", "--pairs"]))
    assert (out["pairs"][0]["system_a"], out["pairs"][0]["system_b"]) == ("A", "B")
    (scratch / "r.csv").write_bytes(b"\xef\xbb\xbfrank\n1\n2\n")
    out = json.loads(_run_ok(capsys, ["correlate", *CORR, "r.csv", "r.csv", "--column", "rank"]))
    assert out["n"] == 2 and out["value"] == 1.0


def test_small_and_degenerate_inputs_work(scratch, capsys):
    from scipy.stats import pearsonr
    from sklearn.metrics import adjusted_rand_score

    # n = 2 rankings: reversed -> -1, identical -> 1, for both coefficients
    (scratch / "a2.txt").write_text("1\n2\n")
    (scratch / "b2.txt").write_text("2\n1\n")
    for coef in ("spearman", "kendall"):
        args = ["correlate", "--coefficient", coef, "--scheme", "multiplicative", "--weigher", "dcg"]
        assert json.loads(_run_ok(capsys, [*args, "a2.txt", "b2.txt"]))["value"] == pytest.approx(-1.0)
        assert json.loads(_run_ok(capsys, [*args, "a2.txt", "a2.txt"]))["value"] == pytest.approx(1.0)
    # identical rankings of n = 5, and an unweighted reference: harmonic weights make rho_w differ from
    # Pearson, but x vs x is exactly 1 for any weights
    assert json.loads(_run_ok(capsys, ["correlate", *CORR, "y.txt", "y.txt"]))["value"] == pytest.approx(1.0)
    # x vs y against the definition (weighted Pearson of the ranks, w_i = 1/x_i + 1/y_i), which is not
    # scipy's unweighted Pearson of the same ranks
    a = np.loadtxt(scratch / "x.txt")
    b = np.loadtxt(scratch / "y.txt")
    w = 1 / a + 1 / b
    da, db = a - np.average(a, weights=w), b - np.average(b, weights=w)
    ref = np.sum(w * da * db) / np.sqrt(np.sum(w * da * da) * np.sum(w * db * db))
    got = json.loads(_run_ok(capsys, ["correlate", *CORR, "x.txt", "y.txt"]))["value"]
    assert got == pytest.approx(ref, rel=1e-12) and abs(got - pearsonr(a, b)[0]) > 1e-3
    # one cluster each: ARI = 1 (scikit-learn's convention)
    (scratch / "one.txt").write_text("7\n7\n7\n7\n7\n")
    res = json.loads(_run_ok(capsys, ["clustering", "one.txt", "one.txt", "-m", "ari"]))["results"]
    assert res["ari"] == adjusted_rand_score([7] * 5, [7] * 5) == 1.0
    # one cluster vs a partition: ARI = 0 like scikit-learn
    res = json.loads(_run_ok(capsys, ["clustering", "one.txt", "u.txt", "-m", "ari"]))["results"]
    assert res["ari"] == pytest.approx(adjusted_rand_score([7] * 5, [0, 0, 1, 1, 2]), abs=1e-12)
    # a 2 x 2 score matrix (the smallest bootstrap input)
    (scratch / "m2.csv").write_text("A,B\n0.1,0.3\n0.2,0.5\n")
    out = json.loads(_run_ok(capsys, ["bootstrap", "m2.csv", "--n-resamples", "40", "--rng", "1", "--pairs"]))
    assert out["n_topics"] == 2 and out["n_systems"] == 2 and len(out["pairs"]) == 1
    # consensus: identical rankings -> that ranking; all ties -> everything tied
    (scratch / "same.csv").write_text("a,b,c,d\n2,1,4,3\n2,1,4,3\n2,1,4,3\n")
    sol = json.loads(_run_ok(capsys, ["consensus", "same.csv"]))["solutions"]
    assert sol == [{"a": 2, "b": 1, "c": 4, "d": 3}]
    (scratch / "ties.csv").write_text("a,b,c\n1,1,1\n1,1,1\n")
    sol = json.loads(_run_ok(capsys, ["consensus", "ties.csv"]))["solutions"]
    assert sol == [{"a": 1, "b": 1, "c": 1}]


def test_rank_ties_pass_the_reader(tmp_path):
    # repeated values are ties: the reader accepts them (whether a coefficient does is its own rule)
    from agreekit._cli.ranking import read_rank_file

    p = tmp_path / "t.txt"
    p.write_bytes(b"\xef\xbb\xbf1\r\n1\r\n3\r\n3.0\r\n\r\n")
    assert read_rank_file(str(p), parameter="x").tolist() == [1, 1, 3, 3]


# ----------------------------------------------------------------------------- real processes


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=cwd)


def test_gzip_failure_has_no_traceback_in_a_real_process(tmp_path):
    # issue 14 §1: a truncated .gz qrels (the first 30 bytes of a valid file) gave an EOFError traceback
    (tmp_path / "q.txt.gz").write_bytes(_gz(QRELS * 20)[:30])
    (tmp_path / "run.txt").write_text(RUN_A)
    r = _cli("evaluate", "q.txt.gz", "run.txt", "--metric", "AveP", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [
        "agreekit evaluate: error: `qrels` 'q.txt.gz' is a truncated or corrupted "
        "gzip file (the compressed data ended early after line 2)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt.gz", "run.txt"]


def test_warnings_are_one_line_in_a_real_process(tmp_path):
    # issue 14 §5: --empty-topics drop printed a UserWarning plus a source line
    (tmp_path / "q.txt").write_text(QRELS + "9 0 dx 0\n")
    (tmp_path / "run.txt").write_text(RUN_A)
    r = _cli("evaluate", "q.txt", "run.txt", "--metric", "AveP", "--empty-topics", "drop", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stderr.splitlines() == [
        "agreekit evaluate: warning: UserWarning: dropping 1 topic(s) without relevant documents: ['9']"
    ]


def test_warning_format_and_no_stray_numpy_warning(scratch, capsys):
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    (scratch / "q.txt").write_text(QRELS + "9 0 dx 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        old, warnings.showwarning = warnings.showwarning, show
        try:
            assert main(["evaluate", "q.txt", "runA.txt", "--metric", "AveP", "--empty-topics", "drop"]) == 0
            assert capsys.readouterr().err.splitlines() == [
                "agreekit evaluate: warning: UserWarning: dropping 1 topic(s) without relevant documents: ['9']"
            ]
            # power:p=1e308 overflows even as log f; the error is the only line (power:p=1000 printed a
            # RuntimeWarning and a source line; issue 23: it now gives its coefficient and p-value)
            assert (
                main(
                    [
                        "correlate",
                        "--coefficient",
                        "spearman",
                        "--scheme",
                        "additive",
                        "--weigher",
                        "power:p=1e308",
                        "--pvalue",
                        "x.txt",
                        "x.txt",
                    ]
                )
                == 2
            )
            err = capsys.readouterr().err.splitlines()
            assert len(err) == 1 and err[0].startswith("agreekit correlate: error: `weigher`"), err
        finally:
            warnings.showwarning = old


# ----------------------------------------------------------------------------- generated CSVs

_cell = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=6).map(
    str.strip
)


@st.composite
def _tables(draw):
    width = draw(st.integers(1, 5))
    header = draw(st.lists(_cell.filter(bool), min_size=width, max_size=width, unique=True))
    rows = draw(st.lists(st.lists(_cell, min_size=width, max_size=width).filter(any), min_size=1, max_size=6))
    return header, rows


@settings(max_examples=150, deadline=None)
@given(table=_tables(), crlf=st.booleans(), bom=st.booleans(), trailing=st.integers(0, 2))
def test_read_csv_rows_round_trips_generated_tables(table, crlf, bom, trailing):
    header, rows = table
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n" if crlf else "\n", quoting=csv.QUOTE_MINIMAL).writerows([header, *rows])
    text = ("\ufeff" if bom else "") + buf.getvalue() + ("\r\n" if crlf else "\n") * trailing
    got = read_csv_rows(io.StringIO(text, newline=""), parameter="FILE")
    assert got.header == header
    assert got.rows == rows


@settings(max_examples=100, deadline=None)
@given(table=_tables(), data=st.data())
def test_read_csv_rows_rejects_generated_ragged_or_duplicate_tables(table, data):
    header, rows = table
    mode = data.draw(st.sampled_from(["ragged", "duplicate", "empty_name"]))
    if mode == "ragged":
        k = data.draw(st.integers(0, len(rows) - 1))
        rows = [list(r) for r in rows]
        rows[k] = rows[k] + ["extra"] if data.draw(st.booleans()) or len(rows[k]) < 3 else rows[k][:-1]
        fragment = "fields, but the header has"
    elif mode == "duplicate":
        header = header + [header[0]]
        rows = [r + ["1"] for r in rows]
        fragment = "is repeated"
    else:
        header = header + [""]
        rows = [r + ["1"] for r in rows]
        fragment = "has no name"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header, *rows])
    with pytest.raises(InputError, match=fragment) as exc:
        read_csv_rows(io.StringIO(buf.getvalue(), newline=""), parameter="FILE")
    assert exc.value.parameter == "FILE"
    assert len(str(exc.value).splitlines()) == 1
