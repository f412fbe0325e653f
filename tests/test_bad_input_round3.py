"""Bad input, round 3 (issue 23): readers, files, CLI, config, pipeline.

CLI cases run through the contract of ``tests/test_bad_input.py`` (exit 2, one stderr line naming the
file or parameter, nothing on stdout, no file created/changed); API cases through ``InputError``.
The unbounded cases run in a subprocess under ``RLIMIT_AS`` = 1 GiB.  Successes compare against the
same input written plainly and against scikit-learn / a brute force written here.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle  # noqa: F401  (InputError pickling is the numeric helper's item)
import stat
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
from test_bad_input import _assert_clean_rejection, _run_ok, scratch  # noqa: F401  (fixture)

from agreekit._io import load_config_yaml
from agreekit._validation import InputError, canonical_label, parse_ascii_float, parse_ascii_int

ROOT = Path(__file__).resolve().parents[1]
CORR = ["--coefficient", "spearman", "--scheme", "additive", "--weigher", "harmonic"]
SC = "{h},A,B\n301,0.1,0.2\n302,0.4,0.5\n303,0.3,0.3\n"

# ----------------------------------------------------------------------------- wrong answers with exit 0


@pytest.mark.parametrize("header", ["qno", "QueryID", "QNo", "qid_num", "Topic ID", "query-no", "topic_ids"])
def test_numeric_topic_column_is_never_a_system(scratch, capsys, header):
    (scratch / "m.csv").write_text(SC.format(h=header))
    (scratch / "ref.csv").write_text(SC.format(h="topic"))
    argv = ["bootstrap", "{}", "--n-resamples", "40", "--rng", "1"]
    got = json.loads(_run_ok(capsys, [a.format("m.csv") for a in argv]))
    ref = json.loads(_run_ok(capsys, [a.format("ref.csv") for a in argv]))
    assert got["n_systems"] == 2 and got["n_topics"] == 3
    assert got == ref


def test_ambiguous_integer_first_column_is_an_error_unless_told(scratch, capsys):
    (scratch / "m.csv").write_text(SC.format(h="x"))
    _assert_clean_rejection(
        capsys,
        scratch,
        ["bootstrap", "m.csv", "--n-resamples", "40"],
        [r"`SCORES`", "m.csv", "'x'", "distinct integers", "--topic-column"],
    )
    first = json.loads(
        _run_ok(capsys, ["bootstrap", "m.csv", "--n-resamples", "40", "--rng", "1", "--topic-column", "first"])
    )
    assert first["n_systems"] == 2
    none = json.loads(
        _run_ok(capsys, ["bootstrap", "m.csv", "--n-resamples", "40", "--rng", "1", "--topic-column", "none"])
    )
    assert none["n_systems"] == 3


def test_metaeval_numeric_topic_column(scratch, capsys):
    text = "qid_num,A,B,C\n" + "".join(f"{300 + i},{0.1 * (i % 3)},{0.05 * i},{0.3}\n" for i in range(1, 9))
    (scratch / "a.csv").write_text(text)
    (scratch / "b.csv").write_text(text.replace("qid_num", "topic"))
    out = json.loads(
        _run_ok(capsys, ["metaeval", "AP=a.csv", "P=b.csv", "--n-resamples", "20", "--rng", "1", "--no-pvalue"])
    )
    assert out["n_systems"] == 3


def test_conflicting_qrels_judgements_name_the_lines(scratch, capsys):
    (scratch / "q.txt").write_text("1 0 d1 1\n1 0 d2 1\n1 0 d1 0\n")
    _assert_clean_rejection(
        capsys,
        scratch,
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        [r"`qrels`", "q.txt", "line 3", "line 1", "conflicting"],
    )
    # the same judgement twice is one judgement: AveP as without the repetition
    (scratch / "q2.txt").write_text("1 0 d1 1\n1 0 d1 1\n1 0 d2 1\n")
    (scratch / "q3.txt").write_text("1 0 d1 1\n1 0 d2 1\n")
    a = _run_ok(capsys, ["evaluate", "q2.txt", "runA.txt", "--metric", "AveP"])
    b = _run_ok(capsys, ["evaluate", "q3.txt", "runA.txt", "--metric", "AveP"])
    assert a == b


def test_conflicting_gains(scratch, capsys):
    _assert_clean_rejection(
        capsys,
        scratch,
        ["evaluate", "qrels.txt", "runA.txt", "--metric", "nDCG@10", "--gain", "2=5", "--gain", "02=1"],
        [r"`--gains`", "grade 2", "'2=5'", "'02=1'"],
    )


def test_one_numeric_label_rule(scratch, capsys):
    from sklearn.metrics import adjusted_rand_score

    (scratch / "a.txt").write_text("1\n01\n+1\n2\n02\n")
    (scratch / "b.txt").write_text("1\n1\n1\n2\n2\n")
    res = json.loads(_run_ok(capsys, ["clustering", "a.txt", "b.txt", "-m", "ari"]))["results"]
    assert res["ari"] == adjusted_rand_score([1, 1, 1, 2, 2], [1, 1, 1, 2, 2]) == 1.0
    (scratch / "c.txt").write_text("1\n01\n1.0\n2\n2\n")
    _assert_clean_rejection(
        capsys, scratch, ["clustering", "c.txt", "b.txt"], [r"`U`", "c.txt", "line 3", "'1.0'", "not an integer"]
    )
    # covers: 1 and 01 are one node, as in label files
    (scratch / "cov.txt").write_text("0 1 01\n2 3\n")
    _assert_clean_rejection(
        capsys, scratch, ["clustering", "cov.txt", "b.txt"], [r"`U`", "cov.txt", "line 1", "'01' twice"]
    )
    assert canonical_label("007") == 7 and canonical_label("q7") == "q7" and canonical_label("2.5") is None


def test_blank_line_inside_membership_matrix(scratch, capsys):
    (scratch / "m.csv").write_text("1,0\n0,1\n\n1,0\n0,1\n1,0\n")
    _assert_clean_rejection(capsys, scratch, ["clustering", "m.csv", "u.txt"], [r"`U`", "m.csv", "line 3 is blank"])


# ASCII decimal numbers only, everywhere: one row per (slot, spelling)
BAD_DIGITS = {"arabic": "\u0663", "fullwidth": "\uff13", "underscore": "1_0", "superscript": "\u00b3"}
DIGIT_SLOTS = {
    "rank-file": ({"r.txt": "1\n2\n{D}\n4\n5\n"}, ["correlate", *CORR, "x.txt", "r.txt"], [r"`y`", "r.txt", "line 3"]),
    "consensus-cell": ({"c.csv": "a,b,c\n1,2,3\n2,{D},1\n"}, ["consensus", "c.csv"], [r"`FILE`", "c.csv", "line 3"]),
    "qrels-grade": (
        {"q.txt": "1 0 d1 1\n1 0 d2 {D}\n"},
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        [r"`qrels`", "q.txt", "line 2"],
    ),
    "run-score": (
        {"r.txt": "1 Q0 d1 1 {D} A\n"},
        ["evaluate", "qrels.txt", "r.txt", "--metric", "AveP"],
        [r"`run`", "r.txt", "line 1"],
    ),
    "moments-n": (
        {},
        ["moments", "--coefficient", "kendall", "--scheme", "additive", "--weigher", "harmonic", "--n", "{D}"],
        [r"`n`", "ASCII"],
    ),
    "metric-cutoff": ({}, ["evaluate", "qrels.txt", "runA.txt", "--metric", "P@{D}"], [r"`metrics`"]),
    "n-resamples": ({}, ["bootstrap", "scores.csv", "--n-resamples", "{D}"], [r"--n-resamples", "ASCII"]),
    "score-matrix": (
        {"m.csv": "topic,A,B\nt1,0.1,{D}\nt2,0.3,0.4\n"},
        ["bootstrap", "m.csv"],
        [r"`SCORES`", "m.csv", "line 2"],
    ),
    "graph-weight": (
        {"g.txt": "0 1 {D}\n1 2\n"},
        ["clustering", "u.txt", "v.txt", "--graph", "g.txt"],
        [r"`graph`", "g.txt", "line 1"],
    ),
    "time-limit": ({}, ["consensus", "rankings.csv", "--time-limit", "{D}"], [r"--time-limit", "ASCII"]),
}
DIGIT_CASES = [(s, d) for s in DIGIT_SLOTS for d in BAD_DIGITS]


@pytest.mark.parametrize("slot,digits", DIGIT_CASES, ids=[f"{s}-{d}" for s, d in DIGIT_CASES])
def test_only_ascii_decimal_numbers(scratch, capsys, slot, digits):
    files, argv, fragments = DIGIT_SLOTS[slot]
    d = BAD_DIGITS[digits]
    for name, text in files.items():
        (scratch / name).write_text(text.replace("{D}", d), encoding="utf-8")
    _assert_clean_rejection(capsys, scratch, [a.replace("{D}", d) for a in argv], fragments)


def test_ascii_parsers_against_python():
    # every ASCII spelling Python accepts is accepted with the same value; nothing else is
    for s in ["0", "-3", "+7", "007", "12345678901234567890"]:
        assert parse_ascii_int(s) == int(s)
    for s in ["2.5", "-.5", "1e-3", "1E+3", "3.", "nan", "-inf", "Infinity"]:
        a, b = parse_ascii_float(s), float(s)
        assert a == b or (np.isnan(a) and np.isnan(b))
    for s in ["\u0661", "\uff11", "1_0", "0x1", "1e", "", " ", "\u00b2", "1.2.3"]:
        assert parse_ascii_int(s) is None and parse_ascii_float(s) is None


# ----------------------------------------------------------------------------- unclear messages


@pytest.mark.parametrize("first", ["NA", "0x1", "nan", "N/A"])
def test_rank_file_first_line_is_a_value_not_a_header(scratch, capsys, first):
    (scratch / "r.txt").write_text(f"{first}\n2\n3\n4\n5\n")
    _assert_clean_rejection(
        capsys, scratch, ["correlate", *CORR, "r.txt", "y.txt"], [r"`x`", "r.txt", "line 1", repr(first)]
    )


def test_unclear_messages_are_clear(scratch, capsys):
    (scratch / "q.txt").write_text("\u00b2 0 d1 1\n")
    (scratch / "r.txt").write_text("\u00b2 Q0 d1 1 1.0 A\n")
    assert json.loads(_run_ok(capsys, ["evaluate", "q.txt", "r.txt", "--metric", "AveP", "--format", "json"]))
    _assert_clean_rejection(
        capsys,
        scratch,
        ["consensus", "rankings.csv", "--max-solutions", str(10**25)],
        [r"`--max-solutions`", "<= 10000000"],
    )
    (scratch / "c.txt").write_text("0 1\n,,,\n2 3\n")
    _assert_clean_rejection(capsys, scratch, ["clustering", "c.txt", "v.txt"], [r"`U`", "c.txt", "line 2"])
    # the coefficient itself is computed for any representable weigher (rescaled in log space); its
    # null distribution is not, and that error must not print 309-digit integers
    line = _assert_clean_rejection(
        capsys,
        scratch,
        [
            "correlate",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "power:p=1e308",
            "x.txt",
            "y.txt",
            "--pvalue",
        ],
        [r"`weigher`"],
    )
    assert len(max(line.split(), key=len)) < 60, line  # no 309-digit integer


# ----------------------------------------------------------------------------- bounds, found while reading


def test_line_length_bound_names_file_and_limit(scratch, capsys, monkeypatch):
    import agreekit._io as io_mod

    monkeypatch.setattr(io_mod, "MAX_LINE_BYTES", 4096)
    (scratch / "r.txt").write_text("1\n" + "2" * 5000 + "\n3\n")
    _assert_clean_rejection(
        capsys, scratch, ["correlate", *CORR, "r.txt", "y.txt"], [r"`x`", "r.txt", "line 2", r"longer than 4\.0 KiB"]
    )
    (scratch / "q.txt").write_text("1 0 " + "d" * 5000)  # no newline at all
    _assert_clean_rejection(
        capsys,
        scratch,
        ["evaluate", "q.txt", "runA.txt", "--metric", "AveP"],
        [r"`qrels`", "q.txt", "line 1", "longer than"],
    )


def test_nul_found_while_reading(scratch, capsys):
    (scratch / "r.txt").write_bytes(b"1\n2\x00\n" + b"3\n" * 10)
    _assert_clean_rejection(capsys, scratch, ["correlate", *CORR, "r.txt", "y.txt"], ["r.txt", "line 2", "NUL"])


def test_gzip_ratio_bound(scratch, capsys, monkeypatch):
    import agreekit._io as io_mod

    monkeypatch.setattr(io_mod, "_RATIO_FLOOR", 1 << 16)
    (scratch / "b.csv.gz").write_bytes(gzip.compress(b"topic,A,B\n" + b"\n" * (1 << 20), mtime=0))
    _assert_clean_rejection(capsys, scratch, ["bootstrap", "b.csv.gz"], [r"`SCORES`", "b.csv.gz", "gzip bomb"])


def test_fifo_keeps_its_first_bytes(tmp_path):
    # /dev/fd/N and FIFOs cannot seek: the gzip sniffing must not eat the first two bytes
    from agreekit._cli.ranking import read_rank_file

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"printf '1\\n2\\n3\\n' > {fifo}"])
    assert read_rank_file(str(fifo), parameter="x").tolist() == [1, 2, 3]
    writer.wait()


def _limited(code: str, cwd, limit=2**30) -> subprocess.CompletedProcess:
    prog = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=cwd, timeout=300)


def _cli_limited(args, cwd):
    return _limited(f"import sys\nfrom agreekit.cli import main\nsys.exit(main({args!r}))", cwd)


def test_unbounded_cases_stay_under_1_gib(tmp_path):
    (tmp_path / "x.txt").write_text("".join(f"{i}\n" for i in range(1, 13)))
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 1.0 A\n")
    with open(tmp_path / "sparse.txt", "wb") as fh:  # a 5 GB sparse file (zeros) as qrels
        fh.truncate(5 * 10**9)
    with open(tmp_path / "bomb.csv.gz", "wb") as raw:  # 1 GiB of "a" without a newline, gzip
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b"a" * (1 << 24)
        for _ in range(64):
            raw.write(z.compress(block))
        raw.write(z.flush())
    with open(tmp_path / "lines.csv.gz", "wb") as raw:  # 256 MiB of newlines, gzip (ratio ~1000)
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b"\n" * (1 << 24)
        raw.write(z.compress(b"topic,A,B\n"))
        for _ in range(16):
            raw.write(z.compress(block))
        raw.write(z.flush())
    cases = [
        (["correlate", *CORR, "/dev/zero", "x.txt"], ["`x`", "/dev/zero", "NUL"]),
        (["evaluate", "sparse.txt", "run.txt", "--metric", "AveP"], ["`qrels`", "sparse.txt", "NUL"]),
        (["bootstrap", "bomb.csv.gz"], ["`SCORES`", "bomb.csv.gz", "longer than 64.0 MiB"]),
        (["bootstrap", "lines.csv.gz"], ["`SCORES`", "lines.csv.gz", "gzip bomb"]),
        (
            ["correlate", *CORR, "x.txt", "x.txt", "--pvalue", "--method", "monte-carlo", "--n-resamples", str(10**12)],
            ["`n_resamples`", "TiB"],
        ),
    ]
    for argv, fragments in cases:
        r = _cli_limited(argv, tmp_path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, (argv, r.stderr[-800:])
        for frag in fragments:
            assert frag in lines[0], (frag, lines[0])
    r = _limited(
        """
        from agreekit._validation import InputError
        from agreekit.clustering.lfr import lfr_benchmark
        try:
            lfr_benchmark(10**9)
        except InputError as exc:
            print(exc.parameter, exc)
        """,
        tmp_path,
    )
    assert r.returncode == 0 and r.stdout.startswith("n ") and "GiB" in r.stdout, r.stderr[-800:]


# ----------------------------------------------------------------------------- table JSON


def _table_text():
    from agreekit.ranking.tables import load_table

    return Path(load_table("spearman_additive_harmonic").path).read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["deep", "nan", "overflow", "huge", "extra-list"])
def test_table_json_bounds(scratch, capsys, kind):
    text = _table_text()
    if kind == "deep":
        bad = "[" * 200_000 + "]" * 200_000
        frags = ["nested too deeply"]
    elif kind == "nan":
        bad = text.replace('"mean": [', '"mean": [NaN, ', 1)
        frags = ["exact/mean/0", "NaN or infinite"]
    elif kind == "overflow":
        bad = text.replace('"mean": [', '"mean": [1e400, ', 1)
        frags = ["exact/mean/0", "NaN or infinite"]
    elif kind == "huge":
        bad = text[:-2] + ', "pad": "' + "x" * (17 * 2**20) + '"}\n'
        frags = ["limit"]
    else:
        data = json.loads(text)
        data["extra"] = list(range(200_000))
        bad = json.dumps(data)
        frags = ["checksum mismatch"]
    (scratch / "t.json").write_text(bad)
    _assert_clean_rejection(capsys, scratch, ["table", "t.json"], [r"`table`", "t.json", *frags])


# ----------------------------------------------------------------------------- long work is announced


def test_consensus_many_starts_without_time_limit_warns_first(tmp_path):
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agreekit",
            "consensus",
            str(ROOT / "resources/consensus/sports.csv"),
            "--method",
            "fast",
            "--n-starts",
            str(10**12),
            "--rng",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = p.stderr.readline()
    finally:
        p.kill()
        p.wait()
    assert "--n-starts 1000000000000 without --time-limit: estimated about" in first
    assert "years" in first and "--time-limit SEC" in first


# ----------------------------------------------------------------------------- files


def test_metaeval_output_dir_is_all_or_nothing_and_safe(scratch, capsys):
    S = ROOT / "resources/bootstrap/trec_topic_by_run_scores"
    argv = [
        "metaeval",
        f"AP={S}/adhoc8_ap.csv",
        f"P@10={S}/adhoc8_p10.csv",
        "--n-resamples",
        "30",
        "--rng",
        "1",
        "--pvalue-resamples",
        "50",
        "--output-dir",
        "out",
    ]
    (scratch / "out" / "heatmap.pdf").mkdir(parents=True)
    (scratch / "out" / "agreement.csv").write_text("old\n")
    _assert_clean_rejection(capsys, scratch, argv, [r"`--output-dir`", "heatmap.pdf", "directory"])
    (scratch / "out" / "heatmap.pdf").rmdir()
    # a planted symlink at the old fixed temporary name is not followed
    (scratch / "victim.txt").write_text("victim\n")
    (scratch / "out" / ".heatmap.tmp.png").symlink_to("../victim.txt")
    os.chmod(scratch / "out" / "agreement.csv", 0o600)
    _run_ok(capsys, argv)
    assert (scratch / "victim.txt").read_text() == "victim\n"
    assert stat.S_IMODE(os.stat(scratch / "out" / "agreement.csv").st_mode) == 0o600
    assert (scratch / "out" / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    names = sorted(p.name for p in (scratch / "out").iterdir())
    assert names == sorted(
        [
            ".heatmap.tmp.png",
            "agreement.csv",
            "agreement.md",
            "collection.json",
            "consensus.csv",
            "consensus.md",
            "heatmap.pdf",
            "heatmap.png",
        ]
    )


def test_overwrite_keeps_permission_bits(tmp_path):
    from agreekit._io import atomic_write, write_files

    p = tmp_path / "o.txt"
    p.write_text("old")
    os.chmod(p, 0o640)
    with atomic_write(p) as fh:
        fh.write("new")
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o640
    os.chmod(p, 0o600)
    write_files({p: "newer"})
    assert stat.S_IMODE(p.stat().st_mode) == 0o600


# ----------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    "text,frag",
    [
        ("a: 1\nb: 2\na: 3\n", "line 3: key 'a' is given twice in one mapping (first on line 1)"),
        ("m:\n  x: 1\n  x: 1\n", "line 3: key 'x' is given twice"),
        ("a: &a [lol, lol]\nb: &b [*a, *a]\nc: [*b, *b]\n", "line 2: YAML aliases"),
        ("__use_yte__: true\nx: 1\n", "'__use_yte__' is not allowed"),
        ("a: [1, 2\n", "is not valid YAML"),
    ],
)
def test_strict_config_loader(tmp_path, text, frag):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(InputError, match="c.yaml") as exc:
        load_config_yaml(p)
    assert frag in str(exc.value)


def test_shipped_configs_load_strictly():
    for p in sorted((ROOT / "config").glob("*.yaml")):
        assert isinstance(load_config_yaml(p), dict), p


def test_logged_stderr_keeps_the_traceback_in_the_log(tmp_path):
    log = tmp_path / "job.log"
    code = textwrap.dedent(f"""
        from agreekit._io import logged_stderr
        with logged_stderr({str(log)!r}):
            print("started")
            import sys; print("to the log", file=sys.stderr)
            raise RuntimeError("boom in the job")
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 1
    text = log.read_text()
    assert "to the log" in text and "Traceback" in text and "RuntimeError: boom in the job" in text
    assert "lost sys.stderr" not in r.stderr and "RuntimeError: boom in the job" in r.stderr
    for script in (
        "clustering_figure",
        "clustering_lfr_trial",
        "clustering_tables",
        "consensus_dataset",
        "consensus_datasets_table",
        "consensus_sim_cell",
        "consensus_sim_summary",
    ):
        src = (ROOT / "workflow" / "scripts" / f"{script}.py").read_text()
        # every script logs through agreekit.pipeline.script_log, which is logged_stderr plus a logger
        assert "with script_log(sm" in src and "sys.stderr = log" not in src, script


def test_table_of_cases_is_large_enough():
    # >= 60 fresh variants beyond the regressions
    assert len(DIGIT_CASES) >= 40
    assert len(DIGIT_CASES) + 7 + 4 + 5 + 5 >= 60
