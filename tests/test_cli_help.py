"""CLI finish: every subcommand's --help shows choices, defaults and examples; bare `agreekit` lists the
commands; commands that draw random numbers report the seed they used (so any run can be repeated)."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agreekit.cli import COMMANDS, EXAMPLES, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
SCORES = "resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv"


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {name: p for name, p in action.choices.items()}


def test_bare_agreekit_prints_the_command_list(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in _subparsers():
        assert name in out
    r = subprocess.run([sys.executable, "-m", "agreekit"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "consensus" in r.stdout and "bootstrap" in r.stdout


def test_command_map_names_every_subcommand_and_its_module_builds_the_same_parser():
    """`main` builds only the named command's module (COMMANDS): the map must list every registered
    command, and the one-module parser must give the same help, the same parse and the same usage error."""
    full = _subparsers()
    assert sorted(COMMANDS) == sorted(full)
    for name, module in COMMANDS.items():
        part = build_parser(name)
        action = next(a for a in part._actions if a.__class__.__name__ == "_SubParsersAction")
        assert set(action.choices) <= set(full)
        assert action.choices[name].format_help() == full[name].format_help(), name
    code = (
        "import sys, contextlib, io; from agreekit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['table'])\n"
        "print(sorted(m for m in ('agreekit.clustering', 'agreekit.ireval', 'agreekit.consensus') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.strip() == "[]", r.stdout + r.stderr  # only the tables command's module was imported
    r = subprocess.run(
        [sys.executable, "-m", "agreekit", "table", "--format", "xml"], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "invalid choice: 'xml'" in r.stderr, r.stderr
    assert main(["standardize", "--n", "30", "--gamma", "0.4"]) == 0


@pytest.mark.parametrize("name", sorted(set(_subparsers()) - {"agreement"}))
def test_help_shows_choices_defaults_and_examples(name):
    p = _subparsers()[name]
    text = p.format_help()
    assert "examples:" in text and f"agreekit {name}" in text.split("examples:")[1], text
    assert name in EXAMPLES
    for action in p._actions:
        if action.choices:
            assert "{" + ",".join(action.choices) + "}" in text, (name, action.dest)
        if action.option_strings and action.default not in (None, False, "==SUPPRESS==") and action.nargs != 0:
            # either the formatter appended "(default: X)" or the help text itself explains the default
            assert "default" in (action.help or "") or f"(default: {action.default})" in text, (name, action.dest)


def test_listed_choices_include_the_contract_options():
    subs = _subparsers()
    want = {
        "moments": ["coefficient", "scheme"],
        "correlate": ["coefficient", "scheme", "form"],
        "standardize": ["coefficient", "scheme", "form"],
        "bootstrap": ["test", "format"],
        "consensus": ["format", "method"],
        "clustering": ["format"],
    }
    for name, dests in want.items():
        acts = {a.dest: a for a in subs[name]._actions}
        for d in dests:
            assert acts[d].choices, (name, d)


@pytest.mark.parametrize(
    "bad",
    [
        ["moments", "--coefficient", "pearson", "--scheme", "additive", "--weigher", "harmonic", "--n", "5"],
        [
            "standardize",
            "--coefficient",
            "spearman",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "50",
            "--gamma",
            "0.1",
            "--form",
            "printed",
        ],
    ],
)
def test_bad_choice_is_one_line_exit_2(bad):
    r = subprocess.run([sys.executable, "-m", "agreekit", *bad], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "invalid choice" in r.stderr and "Traceback" not in r.stderr


def _json(args):
    r = subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_bootstrap_reports_the_seed_it_drew_and_it_repeats_the_run():
    args = ["bootstrap", SCORES, "--resamples", "100"]
    a, b = _json(args), _json(args)
    assert isinstance(a["seed"], int) and a["seed"] != b["seed"]  # fresh entropy each time
    again = _json(args + ["--seed", str(a["seed"])])
    assert again == a
    assert _json(args + ["--seed", "7"])["seed"] == 7


def test_consensus_reports_the_seed_it_drew_and_it_repeats_the_run():
    args = ["consensus", "resources/consensus/emond_mason.csv", "--method", "fast", "--n-starts", "20"]
    a = _json(args)
    assert isinstance(a["seed"], int)
    again = _json(args + ["--rng", str(a["seed"])])
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in a.items() if k != "seconds"}


def test_examples_in_help_run(tmp_path):
    """Every example line of every --help runs from a copy of the repository root (exit 0)."""
    import shutil

    for name in ("resources",):
        shutil.copytree(ROOT / name, tmp_path / name)
    bindir = str(Path(sys.executable).parent)
    for name, lines in EXAMPLES.items():
        script = "set -e\n" + "\n".join(lines) + "\n"
        r = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={"PATH": bindir + ":/usr/bin:/bin", "NUMBA_NUM_THREADS": "1", "HOME": str(tmp_path)},
        )
        assert r.returncode == 0, f"examples of {name}: {shlex.join(lines)}\n{r.stderr[-2000:]}"
