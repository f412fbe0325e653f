"""The release: one version (package = metadata = CHANGELOG.md's newest heading = CITATION.cff), dependency
ranges a library can ship (core: lower bounds only; extras: a cap only with a comment naming why),
environment.yml = requirements/lock.txt, and the built wheel installed into a fresh venv running the README's
and the quickstart's Python blocks (their ``# ->`` values checked) and the gallery scripts from an empty
directory, with the example data taken from the package."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

sys.path.insert(0, str(Path(__file__).parent))
import test_readme as tr  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT_TEXT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
PROJECT = tomllib.loads(PYPROJECT_TEXT)["project"]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def _lock() -> dict[str, str]:
    out = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            out[_norm(name)] = version.strip()
    return out


# ------------------------------------------------------------------------------------------ one version
def _changelog_version() -> str:
    for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^## +v?(\d+\.\d+\.\d+\S*)", line)
        if m:
            return m.group(1)
    raise AssertionError("CHANGELOG.md has no '## X.Y.Z' heading")


def test_version_is_the_changelog_heading_and_the_metadata():
    import importlib.metadata

    import agreekit

    assert agreekit.__version__ == "0.2.0"
    assert _changelog_version() == agreekit.__version__, "CHANGELOG.md's newest heading names another version"
    assert importlib.metadata.version("agreekit") == agreekit.__version__


def test_citation_cff_is_valid_and_names_the_version():
    import yaml

    import agreekit

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    # the keys CFF 1.2.0 requires, and their types (schema: citation-file-format 1.2.0)
    for key in ("message", "title", "authors"):
        assert cff.get(key), f"CITATION.cff lacks {key}"
    assert str(cff["version"]) == agreekit.__version__
    assert cff["type"] == "software" and cff["license"] == PROJECT["license"]
    assert "date-released" not in cff or re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    assert all(("name" in a) or ("family-names" in a) for a in cff["authors"])
    refs = cff["references"]
    assert len(refs) == 4
    dois = {r.get("doi") for r in refs}
    assert {"10.1016/j.ejor.2015.08.048", "10.1145/1148170.1148261", "10.1007/s10618-015-0426-x"} <= dois
    for r in refs:
        assert r["type"] in ("article", "conference-paper") and r["title"] and r["authors"] and r["year"]
        assert "doi" not in r or re.fullmatch(r"10\.\d{4,9}/\S+", r["doi"]), r["doi"]


# ------------------------------------------------------------------------------------------ dependencies
def test_core_dependencies_have_lower_bounds_only():
    for req in PROJECT["dependencies"]:
        ops = {s.operator for s in Requirement(req).specifier}
        assert ops == {">="}, f"core dependency {req!r}: a lower bound only (the lock pins the tested versions)"


def test_extras_capped_only_with_a_comment_naming_why():
    lines = PYPROJECT_TEXT.splitlines()
    start = lines.index("[project.optional-dependencies]")
    for i in range(start, len(lines)):
        if lines[i].startswith("[") and i > start:
            break
        for req in re.findall(r'"([A-Za-z0-9][^"]*)"', lines[i].split("#")[0]):
            spec = Requirement(req).specifier
            assert any(s.operator == ">=" for s in spec), f"{req!r} has no lower bound"
            if any(s.operator in ("<", "<=", "==", "~=") for s in spec):
                comment = " ".join(l for l in lines[max(start, i - 3) : i + 1] if "#" in l)
                assert re.search(r"#.*(incompatib|has no|removed|breaks|drops|renamed)", comment), (
                    f"extra {req!r} is capped without a comment naming the incompatibility"
                )


def test_environment_yml_agrees_with_the_lock():
    import yaml

    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    lock = _lock()
    deps = env["dependencies"]
    conda = [d for d in deps if isinstance(d, str)]
    pip = next(d["pip"] for d in deps if isinstance(d, dict))
    pinned = 0
    for dep in conda:
        name, _, version = re.match(r"([A-Za-z0-9_.\-]+)\s*(==?)?\s*(\S*)", dep).groups()
        if name == "pip":
            continue
        if name == "python":
            assert version == "3.11", "the lock was made with CPython 3.11 (its header)"
            assert "CPython 3.11" in (ROOT / "requirements" / "lock.txt").read_text()
            continue
        assert _norm(name) in lock, f"environment.yml installs {name}, which requirements/lock.txt does not pin"
        assert version == lock[_norm(name)], f"environment.yml: {name}={version}, the lock: {lock[_norm(name)]}"
        pinned += 1
    assert pinned >= 6
    assert "-c requirements/lock.txt" in pip, "pip must install the rest under the lock"
    assert any(p.startswith("-e .[") for p in pip)


# ------------------------------------------------------------------------------------------ the wheel
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # from a clean copy: a build/ or *.egg-info left in the tree would carry files the metadata no longer ships
    tree, dist = tmp_path_factory.mktemp("tree"), tmp_path_factory.mktemp("dist")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc")
    )
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, f"building the wheel failed:\n{r.stderr[-3000:]}"
    return next(dist.glob("agreekit-*.whl"))


def test_wheel_contains_the_datasets_with_their_licences(wheel):
    data = ROOT / "src" / "agreekit" / "datasets" / "data"
    expected = {f"agreekit/datasets/data/{p.relative_to(data).as_posix()}" for p in data.rglob("*") if p.is_file()}
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        missing = expected - names
        assert not missing, f"the wheel lacks {sorted(missing)}"
        folders = {n.split("/")[3] for n in expected}
        assert folders == {"consensus", "clustering", "trec_scores", "trec_sample"}
        for folder in folders:  # every data set's source and licence travel with it
            text = z.read(f"agreekit/datasets/data/{folder}/README.md").decode()
            assert "Licence" in text and "Source" in text, folder
        # the shipped files are the repository's resources, byte for byte (the synthetic trec_sample is the
        # output of resources/datasets/make_synthetic_trec.py, tested in tests/test_datasets.py)
        for name, res in (
            ("consensus/sports.csv", "consensus/sports.csv"),
            ("trec_scores/adhoc8_ap.csv", "bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv"),
        ):
            assert z.read(f"agreekit/datasets/data/{name}") == (ROOT / "resources" / res).read_bytes()
    size = wheel.stat().st_size
    print(f"wheel {wheel.name}: {size} bytes")
    assert size < 4_000_000, f"the wheel grew to {size} bytes"


def _python_blocks(path: Path) -> list[dict]:
    return [b for b in tr.extract_blocks(path.read_text(encoding="utf-8")) if b["lang"] == "python"]


def test_wheel_in_a_fresh_venv_runs_readme_quickstart_and_gallery(wheel, tmp_path):
    """From an empty directory, with only the installed wheel (+ matplotlib and igraph for the gallery, pytest
    for the `# ->` checker), resolved offline from uv's cache under requirements/lock.txt."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv not found (make installs it into .venv)")
    venv = tmp_path / "fresh"
    r = subprocess.run(
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    r = subprocess.run(
        [
            uv,
            "pip",
            "install",
            "--offline",
            "--quiet",
            "--python",
            str(py),
            "-c",
            str(ROOT / "requirements" / "lock.txt"),
            f"agreekit[plot] @ {wheel.as_uri()}",
            "igraph",
            "pytest",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if r.returncode != 0:
        pytest.skip(f"the wheel's dependencies cannot be resolved offline from uv's cache: {r.stderr.strip()[-300:]}")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        MPLBACKEND="Agg",
        NUMBA_NUM_THREADS="1",
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        PATH=str(venv / "bin") + os.pathsep + env.get("PATH", ""),
    )
    where = subprocess.run(
        [str(py), "-c", "import agreekit; print(agreekit.__file__)"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert str(venv) in where.stdout, f"agreekit imported from {where.stdout!r} {where.stderr[-500:]}"

    ran = []
    for page in (ROOT / "README.md", ROOT / "docs" / "quickstart.md"):
        for i, block in enumerate(_python_blocks(page)):
            work = tmp_path / f"{page.stem}_{i}"
            work.mkdir()
            src, checks = work / "block.py", work / "checks.json"
            src.write_text(block["code"], encoding="utf-8")
            checks.write_text(json.dumps(tr._python_checks(block["code"], block["first"])), encoding="utf-8")
            runner = work / "runner.py"
            runner.write_text(
                tr._PY_RUNNER.format(
                    test_dir=str(Path(tr.__file__).parent),
                    src_path=str(src),
                    checks_path=str(checks),
                    offset=block["first"] - 1,
                )
            )
            r = subprocess.run([str(py), str(runner)], cwd=empty, env=env, capture_output=True, text=True, timeout=900)
            err = r.stderr.replace("README.md", page.name)
            assert r.returncode == 0, f"{page.name} python block at line {block['start']} failed:\n{err[-3000:]}"
            ran.append(f"{page.name}:{block['start']}")
    examples = sorted((ROOT / "examples").glob("*.py"))
    assert examples
    for script in examples:
        r = subprocess.run([str(py), str(script)], cwd=empty, env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, f"gallery script {script.name} failed:\n{r.stderr[-3000:]}"
        ran.append(script.name)
    assert sorted(p.name for p in empty.iterdir()) == [], "a block or script wrote into the working directory"
    assert len(ran) >= 10, ran
