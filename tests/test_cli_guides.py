"""A command line that guides: ``--quiet`` on every subcommand, ``bootstrap``'s summary, ``--format table``,
"did you mean" for what was misspelt, the subcommand's name in usage errors, metaeval's ``confidence_level``.

The usage errors run in real processes (the contract of tests/test_bad_input.py: exit code 2, nothing on
stdout, exactly one line ``agreekit CMD: error: ...`` on stderr, no traceback).  The other checks run
``agreekit.cli.main`` in-process; the numbers a table prints are checked against the JSON of the same run with
the rounding rule written here (4 significant digits), and the bootstrap summary against its own per-pair rows
counted with numpy.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"
ROBUST = ROOT / "resources" / "bootstrap" / "robust03_top100"
RUN_A = ROBUST / "runs" / "input.Sel50.gz"
RUN_B = ROBUST / "runs" / "input.pircRBa1.gz"
QRELS = ROBUST / "robust03_qrels.txt.gz"


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A scratch folder with small inputs of every kind (ranks, labels, rankings, a score matrix)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.txt").write_text("1\n2\n3\n4\n5\n")
    (tmp_path / "y.txt").write_text("2\n1\n3\n5\n4\n")
    (tmp_path / "u.txt").write_text("0\n0\n1\n1\n2\n2\n")
    (tmp_path / "v.txt").write_text("0\n0\n0\n1\n1\n1\n")
    (tmp_path / "r.csv").write_text("a,b,c,d,e\n1,2,3,4,5\n2,1,3,5,4\n1,3,2,4,5\n")
    rng = np.random.default_rng(5)
    base = rng.uniform(0.1, 0.9, size=6)
    for name, noise in (("m1", 0.05), ("m2", 0.1)):
        frame = pd.DataFrame(
            np.clip(base + rng.normal(0, noise, size=(12, 6)), 0.0, 1.0),
            columns=[f"s{i}" for i in range(1, 7)],
            index=pd.Index(range(1, 13), name="topic"),
        )
        frame.to_csv(tmp_path / f"{name}.csv")
    return tmp_path


class _Terminal(io.StringIO):
    """stderr that says it is a terminal, so progress bars are shown unless --quiet."""

    def isatty(self):
        return True


def _run(argv, monkeypatch, *, terminal=False):
    """``main(argv)`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), (_Terminal() if terminal else io.StringIO())
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(list(map(str, argv)))
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


# ----------------------------------------------------------------------------------------------- --quiet


def _minimal_argv(name: str, p: argparse.ArgumentParser) -> list[str]:
    """The command with a placeholder for every required argument (enough to parse, not to run)."""
    argv = [name]
    for a in p._actions:
        if a.option_strings and not a.required:
            continue
        if isinstance(a, argparse._HelpAction):
            continue
        value = str(next(iter(a.choices))) if a.choices else "1"
        if a.option_strings:
            argv += [a.option_strings[0], value]
        elif a.nargs != "?" and a.nargs != "*":
            argv.append(value)
    return argv


def test_every_subcommand_accepts_quiet():
    """Walk the built parser: every subcommand (and alias), whichever module registered it, has --quiet."""
    subs = _subparsers()
    assert set(subs) >= set(COMMANDS)
    for name, p in subs.items():
        assert any("--quiet" in a.option_strings for a in p._actions), name
        argv = _minimal_argv(name, p)
        ns = build_parser().parse_args(argv + ["--quiet"])
        assert ns.quiet is True and ns.command == name, argv
        assert build_parser().parse_args(argv).quiet is False, argv
        assert "--quiet" in p.format_help(), name


#: one quick run per subcommand; stderr is a terminal, so without --quiet progress bars and notes would show
RUNS = {
    "moments": ["moments", "--n", "6"],
    "correlate": [
        "correlate",
        "x.txt",
        "y.txt",
        "--pvalue",
        "--method",
        "monte-carlo",
        "--n-resamples",
        "2000",
        "--rng",
        "1",
    ],
    "standardize": ["standardize", "--n", "30", "--gamma", "0.4"],
    "table": ["table"],
    "consensus": ["consensus", "r.csv", "--method", "fast", "--n-starts", "50", "--rng", "1"],
    "clustering": ["clustering", "u.txt", "v.txt", "-m", "ari"],
    "agreement": ["agreement", "u.txt", "v.txt", "-m", "vi"],
    "bootstrap": ["bootstrap", "m1.csv", "--n-resamples", "100", "--rng", "1"],
    "evaluate": ["evaluate", QRELS, RUN_A, "--metrics", "AP", "--depth", "20"],
    "metaeval": ["metaeval", "A=m1.csv", "B=m2.csv", "--n-resamples", "50", "--rng", "1", "--pvalue-resamples", "200"],
    "rbo": ["rbo", "x.txt", "y.txt"],
    "ap": ["ap", "x.txt", "y.txt", "--pvalue"],
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_quiet_leaves_stderr_empty_on_a_terminal(name, files, monkeypatch):
    code, out, err = _run(RUNS[name] + ["--quiet"], monkeypatch, terminal=True)
    assert code == 0, err
    assert out and err == "", err


def test_the_run_table_covers_every_command_of_this_branch():
    # a command registered later (by another module) is still checked by test_every_subcommand_accepts_quiet
    assert set(RUNS) >= {
        "moments",
        "correlate",
        "standardize",
        "table",
        "consensus",
        "clustering",
        "agreement",
        "bootstrap",
        "evaluate",
        "metaeval",
        "rbo",
        "ap",
    }


def test_without_quiet_the_terminal_gets_progress_and_notes(files, monkeypatch):
    """The control of the test above: the same kind of run without --quiet writes to the terminal."""
    code, out, err = _run(
        ["consensus", "r.csv", "--method", "fast", "--n-starts", "3000", "--rng", "1"], monkeypatch, terminal=True
    )
    assert code == 0 and "FAST starts" in err, err
    code, out, err = _run(
        ["consensus", "r.csv", "--method", "fast", "--n-starts", "3000", "--rng", "1", "--quiet"],
        monkeypatch,
        terminal=True,
    )
    assert code == 0 and err == ""
    code, out, err = _run(RUNS["bootstrap"], monkeypatch, terminal=True)
    assert code == 0 and err.splitlines() == [
        "agreekit bootstrap: note: the summary; --pairs (or -o FILE) adds the 15 per-pair rows"
    ], err


# ------------------------------------------------------------------------------------- bootstrap's summary


def test_bootstrap_prints_a_summary_and_the_pairs_on_request(files, monkeypatch):
    path = SCORES / "adhoc5_ap.csv"  # 61 systems: 1830 pairs (adhoc8: 129 systems, 8256 pairs)
    frame = pd.read_csv(path)
    assert all(c.startswith("run") for c in frame.columns)  # every column is a system (no topic column)
    n_topics, n_systems = frame.shape
    argv = ["bootstrap", path, "--n-resamples", "200", "--rng", "3"]
    code, out, err = _run(argv, monkeypatch)
    assert code == 0, err
    assert len(out.encode()) < 1000, len(out)
    summary = json.loads(out)
    assert "pairs" not in summary
    assert (summary["n_topics"], summary["n_systems"]) == (n_topics, n_systems)
    assert summary["n_pairs"] == n_systems * (n_systems - 1) // 2 == 1830

    code, full_text, _ = _run(argv + ["--pairs"], monkeypatch)
    full = json.loads(full_text)
    assert len(full_text.encode()) > 300 * len(out.encode())
    pairs = pd.DataFrame(full["pairs"])
    assert len(pairs) == 1830 and {k: v for k, v in full.items() if k != "pairs"} == summary
    # the headline numbers, counted again from the rows
    asl = pairs["asl"].to_numpy()
    assert summary["n_significant"] == int(np.sum(asl < summary["alpha"])) == int(pairs["significant"].sum())
    assert summary["proportion"] == pytest.approx(np.mean(asl < summary["alpha"]), abs=1e-15)
    assert summary["estimated_difference"] == pytest.approx(np.nanmax(pairs["required_difference"]), abs=1e-15)
    assert summary["asl_quartiles"] == pytest.approx(np.quantile(asl, [0.25, 0.5, 0.75]), abs=1e-15)

    # a file written with -o has every pair; csv is the per-pair table
    code, out_o, err = _run(argv + ["-o", "b.json"], monkeypatch)
    assert code == 0 and out_o == "" and err == ""
    assert json.loads((files / "b.json").read_text()) == full
    code, csv_text, _ = _run(argv + ["--format", "csv"], monkeypatch)
    assert len(pd.read_csv(io.StringIO(csv_text))) == 1830


def test_bootstrap_summary_of_the_help_example_is_small(files, monkeypatch):
    """The first --help example (adhoc8, 8256 pairs: 2.3 MB of JSON with every pair) prints its summary."""
    code, out, err = _run(
        ["bootstrap", SCORES / "adhoc8_ap.csv", "--rng", "1", "--n-resamples", "40", "--alpha", "0.05"], monkeypatch
    )
    assert code == 0, err
    summary = json.loads(out)
    assert len(out.encode()) < 1000 and summary["n_pairs"] == 129 * 128 // 2 == 8256
    assert set(summary) == {
        "n_topics",
        "n_systems",
        "seed",
        "test",
        "statistic",
        "alpha",
        "k",
        "n_resamples",
        "n_pairs",
        "n_significant",
        "proportion",
        "estimated_difference",
        "asl_quartiles",
    }


# ------------------------------------------------------------------------------------------ --format table


def _leaves(obj, prefix=""):
    """Scalar leaves of a JSON object as {dotted key: value} (lists of records are left out)."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_leaves(v, f"{prefix}{k}."))
    elif not isinstance(obj, list):
        out[prefix[:-1]] = obj
    return out


def _significant_digits(text: str) -> int:
    mantissa = re.sub(r"[eE].*", "", text).lstrip("-").replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) if "." not in text or True else len(mantissa)


def _check_cell(cell: str, value, where):
    """``cell`` shows ``value``: text as itself, integers exactly, floats within half a unit of their 4th
    significant digit and with at most 4 significant digits; null as '-'."""
    if value is None:
        assert cell == "-", where
    elif isinstance(value, bool):
        assert cell == str(value).lower(), where
    elif isinstance(value, int):
        assert cell == str(value), where
    elif isinstance(value, float):
        shown = float(cell)
        unit = 10.0 ** (math.floor(math.log10(abs(value))) - 3) if value != 0 else 0.0
        assert abs(shown - value) <= unit / 2 * (1 + 1e-9), (where, cell, value)
        assert _significant_digits(cell) <= 4, (where, cell)
    else:
        assert cell == str(value), where


def _key_value_block(text: str) -> dict[str, str]:
    """The ``key  value`` lines before the first blank line; the values must start in one column."""
    block = text.split("\n\n")[0].splitlines()
    starts = set()
    rows = {}
    key_width = max(len(line.split("  ")[0]) for line in block if not line.startswith(" "))
    for line in block:
        if line.startswith(" "):  # a continuation line of a list shown one item per line
            continue
        key = line[:key_width].rstrip()
        starts.add(len(line) - len(line[key_width:].lstrip()) if line[key_width:].strip() else None)
        rows[key] = line[key_width:].strip()
    assert len(starts - {None}) <= 1, block
    return rows


def _grid(lines: list[str]) -> list[dict[str, str]]:
    """An aligned table (header, a dashed rule, rows): the rule's dashes give each column's span."""
    rule = lines[1]
    spans = [m.span() for m in re.finditer(r"-+", rule)]
    header = [lines[0][a:b].strip() for a, b in spans]
    rows = []
    for line in lines[2:]:
        for (a, b), (c, _) in zip(spans, spans[1:]):
            assert line[b:c].strip() == "", (line, rule)  # nothing between the columns
        rows.append({h: line[a:b].strip() for h, (a, b) in zip(header, spans)})
    return rows


TABLE_CASES = {
    "correlate": ["correlate", "x.txt", "y.txt", "--pvalue", "--standardize"],
    "standardize": ["standardize", "--n", "30", "--gamma", "0.4"],
    "moments": ["moments", "--n", "7", "--weigher", "inverse_square:n0=1"],
    "ap": ["ap", "x.txt", "y.txt", "--pvalue", "--rng", "2"],
    "rbo": ["rbo", "x.txt", "y.txt", "--p", "0.8"],
    "clustering": ["clustering", "u.txt", "v.txt", "-m", "ari", "-m", "vi", "-m", "nmi_sum"],
    "consensus": ["consensus", "r.csv", "--method", "exact"],
    "bootstrap": ["bootstrap", "m1.csv", "--n-resamples", "100", "--rng", "1"],
    "metaeval": [
        "metaeval",
        "A=m1.csv",
        "B=m2.csv",
        "--n-resamples",
        "50",
        "--rng",
        "1",
        "--pvalue-resamples",
        "200",
        "--confidence-level",
        "0.9",
    ],
    "table": ["table", "kendall_additive_harmonic"],
}


@pytest.mark.parametrize("name", sorted(TABLE_CASES))
def test_format_table_shows_every_value_of_the_json_rounded(name, files, monkeypatch):
    argv = TABLE_CASES[name]
    code, js, err = _run(argv, monkeypatch)
    assert code == 0, err
    code, text, err = _run(argv + ["--format", "table"], monkeypatch)
    assert code == 0, err
    record = json.loads(js)
    record.pop("seconds", None)
    if isinstance(record.get("consensus"), dict):
        record["consensus"].pop("seconds", None)
    shown = _key_value_block(text)
    leaves = {k: v for k, v in _leaves(record).items() if not isinstance(v, list) and k in shown}
    # every scalar of the JSON whose key is a line of the block (long mappings are blocks of their own)
    assert len(leaves) >= 0.7 * len([k for k in _leaves(record) if not k.startswith("consensus.ranking")]), (
        sorted(shown),
        sorted(_leaves(record)),
    )
    for key, value in leaves.items():
        _check_cell(shown[key], value, key)
    # each list of records of the JSON is a titled table below
    for key, value in record.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            section = text.split(f"\n{key}:\n", 1)[1].split("\n\n")[0].splitlines()
            rows = _grid([line[2:] for line in section])
            if len(rows) == len(value):  # one row per record
                for row, rec in zip(rows, value):
                    for k, v in rec.items():
                        if not isinstance(v, (list, dict)):
                            _check_cell(row[k], v, (key, k))
            else:  # transposed: one row per field
                names = list(rows[0])[1:]
                assert len(names) == len(value)
                for row in rows:
                    field = row[list(row)[0]]
                    for col, rec in zip(names, value):
                        _check_cell(row[col], rec[field], (key, field))


def test_format_table_of_rows(files, monkeypatch):
    """A list of rows (rbo on two TREC runs, `clustering --list`, evaluate's means) is one aligned table."""
    code, text, err = _run(["rbo", RUN_A, RUN_B, "--depth", "10", "--format", "table"], monkeypatch)
    assert code == 0, err
    code, js, _ = _run(["rbo", RUN_A, RUN_B, "--depth", "10"], monkeypatch)
    topics = json.loads(js)["topics"]
    section = text.split("\ntopics:\n", 1)[1].split("\n\n")[0].splitlines()
    rows = _grid([line[2:] for line in section])
    assert len(rows) == len(topics) == 100
    for row, rec in zip(rows, topics):
        for k in ("topic", "ext", "min", "max", "res", "depth_a"):
            _check_cell(row[k], rec[k], k)

    code, text, _ = _run(["clustering", "--list", "--format", "table"], monkeypatch)
    from sklearn.metrics import adjusted_rand_score  # noqa: F401  (the measures listed are the registry's)

    rows = _grid(text.splitlines())
    code, js, _ = _run(["clustering", "--list"], monkeypatch)
    assert [r["name"] for r in rows] == [d["name"] for d in json.loads(js)]

    # evaluate: each system's mean over the topics, against pandas on the CSV matrices of the same run
    code, text, err = _run(["evaluate", QRELS, RUN_A, RUN_B, "--metrics", "AP,P@10", "--format", "table"], monkeypatch)
    assert code == 0, err
    lines = text.splitlines()
    assert lines[0] == "mean over 100 topics"
    rows = _grid(lines[1:])
    for metric in ("AP", "P@10"):
        code, csv_text, _ = _run(["evaluate", QRELS, RUN_A, RUN_B, "--metrics", metric], monkeypatch)
        means = pd.read_csv(io.StringIO(csv_text), index_col=0).mean(axis=0)
        for row in rows:
            _check_cell(row[metric], float(means[row["system"]]), (metric, row["system"]))


def test_table_cells_are_rounded_to_4_significant_digits(files, monkeypatch):
    code, text, _ = _run(["correlate", "x.txt", "y.txt", "--format", "table"], monkeypatch)
    value = _key_value_block(text)["value"]
    # Kendall's tau_w of x, y with harmonic additive weights, written out: 0.36730087...
    assert value == "0.3673"


# ---------------------------------------------------------------------------------------- did you mean


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "agreekit", *map(str, args)], capture_output=True, text=True, cwd=cwd)


SUGGESTIONS = {
    "subcommand": (
        ["corelate", "x.txt", "y.txt"],
        "agreekit",
        ["invalid choice: 'corelate'", "did you mean 'correlate'"],
    ),
    "option": (
        ["correlate", "--formt", "json", "x.txt", "y.txt"],
        "agreekit correlate",
        ["unrecognized arguments: --formt", "did you mean '--format'"],
    ),
    "option-with-value": (
        ["bootstrap", "m1.csv", "--n-resampels=10"],
        "agreekit bootstrap",
        ["--n-resampels=10", "did you mean '--n-resamples'?"],
    ),
    "top-level-option": (["--verison"], "agreekit", ["did you mean '--version'"]),
    "choice": (
        ["correlate", "--format", "tabel", "x.txt", "y.txt"],
        "agreekit correlate",
        ["argument --format: invalid choice: 'tabel'", "did you mean 'table'"],
    ),
    "coefficient": (
        ["moments", "--coefficient", "spearmn", "--n", "5"],
        "agreekit moments",
        ["did you mean 'spearman'"],
    ),
    "weigher": (
        ["moments", "--n", "5", "--weigher", "harmonc"],
        "agreekit moments",
        ["`weigher` unknown family 'harmonc'", "did you mean 'harmonic'", "known families: harmonic"],
    ),
    "weigher-case": (
        ["correlate", "x.txt", "y.txt", "--weigher", "Inverse_Square:n0=1"],
        "agreekit correlate",
        ["did you mean 'inverse_square'"],
    ),
    "measure": (
        ["clustering", "u.txt", "v.txt", "-m", "amii"],
        "agreekit clustering",
        ["`measure` unknown measure 'amii'", "did you mean 'ami'"],
    ),
    "ir-metric": (
        ["evaluate", QRELS, RUN_A, "--metrics", "map2"],
        "agreekit evaluate",
        ["unsupported metric 'map2'", "did you mean 'map'"],
    ),
}


@pytest.mark.parametrize("case", sorted(SUGGESTIONS))
def test_misspelt_names_get_a_suggestion(case, files):
    argv, prog, fragments = SUGGESTIONS[case]
    r = _cli(*argv, cwd=files)
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), r.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    assert lines[0].count("did you mean") == 1


@pytest.mark.parametrize(
    "argv,prog",
    [
        (["correlate", "x.txt"], "agreekit correlate"),  # a missing argument
        (["bootstrap", "m1.csv", "--alpha"], "agreekit bootstrap"),  # an option without its value
        (["rbo", "x.txt", "y.txt", "--p", "abc"], "agreekit rbo"),  # a value of the wrong type
        (["clustering", "u.txt", "v.txt", "--zzzz"], "agreekit clustering"),  # nothing close: no suggestion
    ],
)
def test_usage_errors_name_the_subcommand(argv, prog, files):
    r = _cli(*argv, cwd=files)
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and r.stdout == "" and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"{prog}: error: "), lines[0]
    assert "did you mean" not in lines[0]


def test_deprecated_spellings_are_not_suggested(files, monkeypatch):
    # --n-resampels is close to both --n-resamples and the deprecated --resamples: only the new one is offered
    r = _cli("bootstrap", "m1.csv", "--n-resampels", "10", cwd=files)
    assert "did you mean '--n-resamples'?" in r.stderr and "'--resamples'" not in r.stderr, r.stderr


def test_the_suggestion_helper():
    from agreekit._validation import did_you_mean
    from agreekit.clustering import get_measure
    from agreekit.ranking import parse_weigher
    from agreekit.ranking.weighting import WEIGHER_FAMILIES
    from agreekit import InputError

    assert did_you_mean("corelate", list(COMMANDS)) == "; did you mean 'correlate'?"
    assert did_you_mean("qqqq", list(COMMANDS)) == ""
    assert did_you_mean("GEOMETRIC", WEIGHER_FAMILIES, fold=str.lower) == "; did you mean 'geometric'?"
    with pytest.raises(InputError, match=r"unknown family 'powr'.*did you mean 'power'\?"):
        parse_weigher("powr:p=2")
    with pytest.raises(InputError, match=r"unknown measure 'omgea'; did you mean 'omega'"):
        get_measure("omgea")


# ----------------------------------------------------------------------------- metaeval's confidence_level


def test_metaeval_states_its_confidence_level(files, monkeypatch):
    base = ["metaeval", "A=m1.csv", "B=m2.csv", "--n-resamples", "50", "--rng", "1", "--pvalue-resamples", "200"]
    code, out, err = _run(base + ["--confidence-level", "0.9"], monkeypatch)
    assert code == 0, err
    got = json.loads(out)
    assert got["confidence_level"] == 0.9 and got["alpha"] == pytest.approx(0.1, abs=1e-12)
    keys = list(got)
    assert keys.index("confidence_level") == keys.index("alpha") + 1  # beside alpha
    code, out, _ = _run(base, monkeypatch)
    assert json.loads(out)["confidence_level"] == 0.95
    # the deprecated --alpha A (= 1 - level) is reported as the level it means
    with pytest.warns(DeprecationWarning, match="--confidence-level"):
        code, out, err = _run(base + ["--alpha", "0.2"], monkeypatch)
    assert code == 0 and json.loads(out)["confidence_level"] == pytest.approx(0.8, abs=1e-12)
    # the collection's files say it too
    code, out, err = _run(base + ["--confidence-level", "0.8", "--output-dir", "coll"], monkeypatch)
    assert code == 0, err
    info = json.loads((files / "coll" / "collection.json").read_text())
    assert info["confidence_level"] == 0.8
    # and the intervals are at that level: the 90 % interval lies inside the 95 % one (same samples)
    code, narrow, _ = _run(base + ["--confidence-level", "0.9", "--format", "csv"], monkeypatch)
    code, wide, _ = _run(base + ["--confidence-level", "0.95", "--format", "csv"], monkeypatch)
    n, w = pd.read_csv(io.StringIO(narrow)).iloc[0], pd.read_csv(io.StringIO(wide)).iloc[0]
    assert w["tau_b_ci_low"] <= n["tau_b_ci_low"] <= n["tau_b_ci_high"] <= w["tau_b_ci_high"]
