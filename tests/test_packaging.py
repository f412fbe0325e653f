"""Packaging as users install it: dependency ranges with lower bounds (no caps: tests/test_release.py), a runtime without
matplotlib/statsmodels, the metadata (SPDX licence, classifiers, URLs, one version source, py.typed), and the
built wheel installed into a fresh venv without extras computing a standardized coefficient, a p-value, a
consensus and an AMI.  The exact pins stay in requirements/lock.txt, which `make` installs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
ALL = [(None, r) for r in PROJECT["dependencies"]] + [
    (extra, r) for extra, reqs in PROJECT["optional-dependencies"].items() for r in reqs
]


@pytest.mark.parametrize(("extra", "req"), ALL, ids=[f"{e or 'runtime'}:{r.split(';')[0]}" for e, r in ALL])
def test_dependency_has_a_lower_bound_and_no_pin(extra, req):
    # upper bounds: none on the core dependencies, on extras only with a reason (tests/test_release.py)
    ops = {s.operator for s in Requirement(req).specifier}
    assert ops & {">", ">=", "~=", "=="}, f"{req!r} ({extra or 'runtime'}) has no lower bound"
    assert "==" not in ops, f"{req!r}: exact pins belong in requirements/lock.txt, not in the metadata"


def test_runtime_has_no_plotting_or_fitting_stack():
    names = {Requirement(r).name for r in PROJECT["dependencies"]}
    assert not names & {"matplotlib", "statsmodels", "snakemake"}, names
    extras = PROJECT["optional-dependencies"]
    assert {Requirement(r).name for r in extras["plot"]} == {"matplotlib"}
    assert "statsmodels" in {Requirement(r).name for r in extras["tablegen"]}
    workflow = {Requirement(r).name for r in extras["workflow"]}
    assert {"matplotlib", "statsmodels"} <= workflow, "make results needs both"


def test_lock_pins_every_dependency_of_make():
    lock = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            lock[re.sub(r"[-_.]+", "-", name.lower())] = version
    for extra, req in ALL:
        if extra in (None, "workflow", "test", "docs"):
            r = Requirement(req)
            name = re.sub(r"[-_.]+", "-", r.name.lower())
            assert name in lock, f"{r.name} ({extra or 'runtime'}) is not pinned in requirements/lock.txt"
            assert r.specifier.contains(lock[name], prereleases=True), (
                f"requirements/lock.txt pins {r.name}=={lock[name]}, outside {r.specifier}"
            )
    assert "-c requirements/lock.txt" in (ROOT / "Makefile").read_text(), "make must install the pinned set"


def test_metadata():
    assert PROJECT["license"] == "BSD-3-Clause"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "agreekit.__version__"}
    assert PROJECT["readme"] == "README.md"
    classifiers = PROJECT["classifiers"]
    assert "Typing :: Typed" in classifiers and any(
        c.startswith("Programming Language :: Python :: 3.") for c in classifiers
    )
    assert not any(c.startswith("License ::") for c in classifiers), "the SPDX expression replaces licence classifiers"
    assert {"Homepage", "Documentation", "Source", "Changelog", "Issues"} <= set(PROJECT["urls"])
    assert (ROOT / "src" / "agreekit" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["agreekit"]


def test_one_version_source():
    import importlib.metadata

    import agreekit

    assert importlib.metadata.version("agreekit") == agreekit.__version__
    assert "version" not in PROJECT  # [project] takes it from agreekit.__version__ (test_metadata)


def test_plotting_without_matplotlib_names_the_extra(monkeypatch):
    import builtins

    from agreekit._optional import import_optional

    real = builtins.__import__

    def no_mpl(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    for mod in [m for m in sys.modules if m.split(".")[0] == "matplotlib"]:
        monkeypatch.delitem(sys.modules, mod)
    with pytest.raises(ImportError, match=r'pip install "agreekit\[plot\]"'):
        import_optional("matplotlib.pyplot", purpose="plot_times")


# ------------------------------------------------------------------------------------------- the wheel
SCRIPT = textwrap.dedent('''
    import importlib.util, json
    import agreekit
    for area in ("ranking", "consensus", "clustering", "ireval", "metaeval"):
        getattr(agreekit, area)
    import numpy as np
    from agreekit import standardize, weighted_correlation_test
    from agreekit.consensus import kemeny
    from agreekit.clustering import adjusted_mutual_info
    res = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 6, 5, 8, 7])
    cons = kemeny(np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3]]), method="exact")
    import agreekit._plot
    try:
        agreekit._plot.pyplot()
        plot_error = None
    except ImportError as exc:
        plot_error = str(exc)
    print(json.dumps({
        "standardized": standardize(0.4, n=30),
        "pvalue": res.pvalue,
        "consensus": cons.orderings,
        "ami": adjusted_mutual_info([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2]),
        "matplotlib": importlib.util.find_spec("matplotlib") is not None,
        "statsmodels": importlib.util.find_spec("statsmodels") is not None,
        "plot_error": plot_error,
        "file": agreekit.__file__,
        "typed": importlib.util.find_spec("agreekit").submodule_search_locations[0],
    }))
''')


def test_wheel_installs_into_a_fresh_venv_without_extras(tmp_path):
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv not found (make installs it into .venv)")
    dist = tmp_path / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, f"building the wheel failed:\n{r.stderr[-3000:]}"
    wheel = next(dist.glob("agreekit-*.whl"))
    venv = tmp_path / "fresh"
    r = subprocess.run(
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    r = subprocess.run(
        [uv, "pip", "install", "--offline", "--quiet", "--python", str(py), str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if r.returncode != 0:
        pytest.skip(f"the wheel's dependencies cannot be resolved offline from uv's cache: {r.stderr.strip()[-300:]}")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    r = subprocess.run([str(py), "-c", SCRIPT], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert r.returncode == 0, f"the installed wheel failed:\n{r.stderr[-3000:]}"
    import json

    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert str(venv) in out["file"], f"imported agreekit from {out['file']}, not from the fresh venv"
    assert not out["matplotlib"] and not out["statsmodels"], "the runtime pulled in matplotlib/statsmodels"
    assert out["plot_error"] and 'agreekit[plot]' in out["plot_error"], out["plot_error"]
    assert (Path(out["typed"]) / "py.typed").is_file()
    # the same numbers as the repository's own tests and pages
    assert abs(out["standardized"] - 0.48475227879115923) < 1e-12
    assert abs(out["pvalue"] - 36 / 4032) < 1e-12  # exact: 360 of 8! permutations, two-sided
    from agreekit.consensus import kemeny  # the source tree's (tested against brute force elsewhere)
    import numpy as np

    assert out["consensus"] == kemeny(np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3]]), method="exact").orderings
    from sklearn.metrics import adjusted_mutual_info_score

    assert abs(out["ami"] - adjusted_mutual_info_score([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2])) < 1e-12
