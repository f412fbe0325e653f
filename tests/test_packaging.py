"""Packaging contracts: the library installs without the workflow stack; data stays out of the wheel."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_core_dependencies_exclude_workflow_stack():
    project = _pyproject()["project"]
    core = " ".join(project["dependencies"]).lower()
    assert "snakemake" not in core and "pytest" not in core
    assert any(dep.startswith("snakemake[reports]") for dep in project["optional-dependencies"]["workflow"])
    # every dependency carries an upper bound (pinned ranges)
    for dep in project["dependencies"] + project["optional-dependencies"]["workflow"]:
        assert "<" in dep, dep


def test_wheel_excludes_test_and_pipeline_data():
    cfg = _pyproject()["tool"]["setuptools"]
    assert cfg["packages"]["find"]["where"] == ["src"]
    patterns = cfg["package-data"]["agreekit"]
    assert all(not p.startswith(("tests", "resources", "..")) for p in patterns)


def test_library_import_does_not_import_snakemake():
    import subprocess
    import sys

    code = "import sys, agreekit, agreekit.cli; print('snakemake' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_ci_runs_make_test():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert readme.index("make results") < 400 and readme.index("make test") < 400
