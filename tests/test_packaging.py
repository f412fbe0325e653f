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


def test_license_in_repo_and_wheel(tmp_path):
    """BSD-3-Clause as pyproject.toml says, shipped in the wheel's dist-info; no data files in the wheel."""
    import shutil
    import subprocess
    import sys
    import zipfile

    text = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause License" in text and "Neither the name of the copyright holder" in text
    assert _pyproject()["project"]["license"] == {"text": "BSD-3-Clause"}
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        import pytest

        pytest.skip("uv not found (make venv installs it)")
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "results", "logs", ".snakemake",
                                                             "build", "*.egg-info", "__pycache__"))
    r = subprocess.run([uv, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("agreekit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    lic = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
    assert lic, names
    assert zipfile.ZipFile(wheel).read(lic[0]).decode() == text
    assert not any(n.startswith(("resources/", "tests/", "workflow/")) for n in names)
