"""No third-party notes on the console: cdlib prints "Note: to be able to use all crisp methods, you
need to install some additional packages: {...}" three times when ``cdlib.algorithms`` is imported
(once per algorithms module); agreekit imports it through ``_quiet_import``, which drops exactly those
lines and passes everything else on.  Fast tests of the helper on fake modules and on cdlib itself (an
interpreter of its own, since a module is imported once per process); one slow test runs every
clustering job of the quick config through Snakemake and reads its console."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import uuid
import warnings
from pathlib import Path

import pytest

from agreekit.clustering._detection import _quiet_import
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]

NOTE = "Note: to be able to use all crisp methods, you need to install some additional packages:  {'infomap'}"

#: console lines printed by third-party code (the pipeline's jobs write stderr to their log files, so these
#: would come from stdout or from Snakemake's own process): cdlib's notes, Python warnings shown
#: (``file:line: FutureWarning: ...``, numba's ``NumbaDeprecationWarning``), matplotlib's font notes
THIRD_PARTY_LINES = (
    re.compile(r"Note: to be able to use"),
    re.compile(r"^Note: "),
    re.compile(r"\w+Warning: "),
    re.compile(r"findfont|Matplotlib is building the font cache|Fontconfig"),
)


def third_party_lines(console: str) -> list[str]:
    """The lines of a console log that third-party code printed (see ``THIRD_PARTY_LINES``)."""
    return [ln for ln in console.splitlines() if any(p.search(ln) for p in THIRD_PARTY_LINES)]


def _fake_module(tmp_path, monkeypatch, source: str) -> str:
    """A module of a fresh name on ``sys.path`` whose import runs ``source``."""
    name = f"agreekit_fake_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    return name


def test_the_note_is_dropped_and_everything_else_passes(tmp_path, monkeypatch, capsys):
    name = _fake_module(
        tmp_path,
        monkeypatch,
        f"""
        import sys
        print({NOTE!r})
        print("a line of the package's own on stdout")
        print({NOTE!r})
        print("a real error on stderr", file=sys.stderr)
        print("  " + {NOTE!r})  # not the whole line: kept
        VALUE = 42
        """,
    )
    mod = _quiet_import(name, purpose="a test")
    assert mod.VALUE == 42 and sys.modules[name] is mod
    out, err = capsys.readouterr()
    assert out == "a line of the package's own on stdout\n  " + NOTE + "\n"
    assert err == "a real error on stderr\n"
    # imported: nothing is redirected, the module comes back as it is
    assert _quiet_import(name, purpose="a test") is mod
    assert capsys.readouterr() == ("", "")


def test_a_real_warning_still_shows_and_the_stream_is_restored(tmp_path, monkeypatch):
    name = _fake_module(
        tmp_path,
        monkeypatch,
        f"""
        import warnings
        print({NOTE!r})
        warnings.warn("a real warning from the import", UserWarning)
        """,
    )
    stdout, stderr = sys.stdout, sys.stderr
    with pytest.warns(UserWarning, match="a real warning from the import"):
        _quiet_import(name, purpose="a test")
    assert sys.stdout is stdout and sys.stderr is stderr


def test_compile_time_escape_warnings_of_the_package_are_ignored_others_kept(tmp_path, monkeypatch):
    # cdlib's sources hold regexes such as "\s" in plain strings: compiled without bytecode they warn
    # (DeprecationWarning, SyntaxWarning from Python 3.12); a warning the import raises still shows
    name = _fake_module(
        tmp_path,
        monkeypatch,
        r"""
        import warnings
        PATTERN = "\s+"
        warnings.warn("deprecated thing", DeprecationWarning)
        """,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _quiet_import(name, purpose="a test")
    assert [str(w.message) for w in caught] == ["deprecated thing"]


def test_a_failing_import_raises_and_shows_what_it_printed(tmp_path, monkeypatch, capsys):
    name = _fake_module(
        tmp_path,
        monkeypatch,
        f"""
        print({NOTE!r})
        print("about to fail")
        raise RuntimeError("the package is broken")
        """,
    )
    with pytest.raises(RuntimeError, match="the package is broken"):
        _quiet_import(name, purpose="a test")
    assert capsys.readouterr() == ("about to fail\n", "")
    with pytest.raises(ImportError, match=r"a test needs agreekit_missing_.*agreekit\[workflow\]"):
        _quiet_import(f"agreekit_missing_{uuid.uuid4().hex}", purpose="a test")


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONWARNINGS="default")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_cdlib_prints_its_note_on_import_and_agreekit_does_not():
    pytest.importorskip("cdlib")
    # one interpreter: detect_overlapping imports cdlib (through the helper) and prints its cover's check;
    # then, the reference, cdlib imported afresh without the helper prints its notes
    code = """
import random
import sys
import numpy as np
import networkx as nx
from agreekit.clustering._detection import detect_overlapping
edges = np.array([(i, j) for i in range(5) for j in range(i + 1, 5)] + [(i, j) for i in range(5, 10)
                 for j in range(i + 1, 10)] + [(4, 5)])
cover = detect_overlapping(10, edges, "slpa", rng=7)
from cdlib import algorithms
G = nx.Graph()
G.add_nodes_from(range(10))
G.add_edges_from(edges.tolist())
random.seed(7)
np.random.seed(7)
ref = algorithms.slpa(G)
print(cover == sorted(sorted(int(v) for v in c) for c in ref.communities if c), len(cover))
print("--- cdlib imported again without the helper", flush=True)
for name in [m for m in sys.modules if m == "cdlib" or m.startswith("cdlib.")]:
    del sys.modules[name]
import cdlib.algorithms
"""
    r = _python(code)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    ours, plain = r.stdout.split("--- cdlib imported again without the helper\n")
    # the cover is cdlib's own, called directly with the same seeds; nothing else is printed
    assert ours == "True 2\n", r.stdout
    # cdlib itself prints its notes in this stack (else the line above would show nothing)
    notes = plain.splitlines()
    assert len(notes) >= 1 and all(n.startswith("Note: to be able to use all crisp methods") for n in notes), plain


def test_every_clustering_job_of_the_quick_config_keeps_the_console_clean(tmp_path):
    """Every clustering job of config/quick.yaml (both overlapping-LFR trials import cdlib) as `make results`
    runs them (Snakemake with --printshellcmds); its console has no third-party line."""
    pytest.importorskip("cdlib")
    for name in ("config", "resources"):
        (tmp_path / name).symlink_to(ROOT / name)
    cmd = snakemake_cmd(
        tmp_path,
        "--configfile",
        "config/quick.yaml",
        "--cores",
        "2",
        "--printshellcmds",
        "--until",
        "clustering_figure",
        "clustering_seed_table",
    )
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    console = r.stdout + r.stderr
    assert r.returncode == 0, console[-4000:]
    assert (tmp_path / "results" / "clustering" / "figure9.md").exists()
    overlapping = re.findall(r"results/clustering/lfr_overlapping/\S+\.json", console)
    assert len(set(overlapping)) == 2, console[-3000:]  # the jobs that import cdlib ran here
    assert "Note: to be able to use" not in console
    assert third_party_lines(console) == []
