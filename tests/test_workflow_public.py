"""The pipeline uses agreekit's public face only, and logs one way.

Every workflow file (the top-level ``Snakefile``, ``workflow/rules/*.smk``, ``workflow/scripts/*.py``)
imports only public agreekit modules (no ``agreekit._x`` and no ``agreekit.area._y``); every script
job logs through :func:`agreekit.pipeline.script_log`. And :mod:`agreekit.pipeline` itself: its
``script_log`` routes stderr and the logger to the job's log and writes a traceback there.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_FILES = sorted(
    [ROOT / "Snakefile", *(ROOT / "workflow" / "rules").glob("*.smk"), *(ROOT / "workflow" / "scripts").glob("*.py")]
)
SCRIPTS = [p for p in WORKFLOW_FILES if p.suffix == ".py"]

# `import agreekit.x.y`, `from agreekit.x import a, b`, `from agreekit import a`, `importlib.import_module("agreekit.x")`
_IMPORT = re.compile(r"^\s*(?:from\s+(agreekit(?:\.\w+)*)\s+import\s+([^#\n]+)|import\s+(agreekit(?:\.\w+)*))", re.M)
_DYNAMIC = re.compile(r"import_module\(\s*[\"'](agreekit[\w.]*)[\"']")


def private_imports(text: str) -> list[str]:
    """The agreekit modules (or names) a file imports that are private: a dotted part starting with ``_``."""
    bad = []
    for m in _IMPORT.finditer(text):
        module = m.group(1) or m.group(3)
        names = [n.strip().split(" as ")[0].strip("() ") for n in (m.group(2) or "").split(",")]
        if any(part.startswith("_") for part in module.split(".")[1:]):
            bad.append(module)
        elif m.group(1):
            bad += [f"{module}.{n}" for n in names if n.startswith("_") and n]
    bad += [m.group(1) for m in _DYNAMIC.finditer(text) if any(p.startswith("_") for p in m.group(1).split(".")[1:])]
    return bad


def test_the_workflow_files_are_all_checked():
    assert (ROOT / "Snakefile") in WORKFLOW_FILES and len(WORKFLOW_FILES) >= 25
    assert len(SCRIPTS) >= 20


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_workflow_file_imports_only_public_agreekit_modules(path):
    assert private_imports(path.read_text(encoding="utf-8")) == []


def test_the_private_import_detector_catches_every_form():
    text = (
        "from agreekit._io import atomic_write\nimport agreekit._jit\nfrom agreekit.clustering._tables import x\n"
        "from agreekit import _validation\nimportlib.import_module('agreekit._pipeline_config')\n"
        "    from agreekit.ranking._kernels import (a,\n"
    )
    assert private_imports(text) == [
        "agreekit._io",
        "agreekit._jit",
        "agreekit.clustering._tables",
        "agreekit._validation",
        "agreekit.ranking._kernels",
        "agreekit._pipeline_config",
    ]
    assert (
        private_imports(
            "from agreekit.pipeline import script_log, write_json\nimport agreekit.ranking\n"
            "from agreekit import InputError\n"
        )
        == []
    )


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_logs_through_script_log(path):
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^with script_log\(sm(, numba_threads=True)?\) as log:$", text, re.M), path.name
    assert "sys.stderr =" not in text and "logging.basicConfig" not in text and "file=log" not in text
    assert not re.search(r"print\([^)]*file=sys\.stderr", text)  # a log line goes through `log`


def test_public_names_of_agreekit_pipeline():
    import agreekit.pipeline as pl
    from agreekit import InputError
    from agreekit._io import atomic_write, write_json
    from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config

    assert pl.atomic_write is atomic_write and pl.write_json is write_json and pl.InputError is InputError
    assert pl.PipelineConfigError is PipelineConfigError and pl.check_pipeline_config is check_pipeline_config
    assert sorted(pl.__all__) == sorted(
        ["script_log", "atomic_write", "write_json", "InputError", "PipelineConfigError", "check_pipeline_config"]
    )
    with pytest.raises(AttributeError):
        pl.no_such_name  # noqa: B018


def _job(tmp_path, threads=1):
    return types.SimpleNamespace(log=[str(tmp_path / "job.log")], threads=threads)


def test_script_log_routes_stderr_and_the_logger_to_the_job_log(tmp_path):
    from agreekit.pipeline import script_log

    saved = sys.stderr
    with script_log(_job(tmp_path)) as log:
        log.info("hello %d", 42)
        print("to stderr", file=sys.stderr)
    assert sys.stderr is saved
    lines = (tmp_path / "job.log").read_text().splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} hello 42", lines[0]) and lines[1] == "to stderr"
    log.info("after the block")  # the handler is gone: nothing more in the closed file
    assert (tmp_path / "job.log").read_text().splitlines() == lines


def test_script_log_writes_the_traceback_before_closing(tmp_path):
    from agreekit.pipeline import script_log

    with pytest.raises(ZeroDivisionError):
        with script_log(_job(tmp_path)):
            1 / 0
    text = (tmp_path / "job.log").read_text()
    assert "Traceback" in text and "ZeroDivisionError: division by zero" in text


def test_script_log_sets_numba_threads_to_the_rules_threads(tmp_path):
    import numba

    from agreekit.pipeline import script_log

    before = numba.get_num_threads()
    try:
        with script_log(_job(tmp_path, threads=1), numba_threads=True):
            assert numba.get_num_threads() == 1
        with script_log(_job(tmp_path, threads=10**6), numba_threads=True):
            assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    finally:
        numba.set_num_threads(before)
