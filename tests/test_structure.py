"""The package's structure: one-way imports (import-linter contracts in pyproject.toml), few
function-level imports, no private names taken across areas.

The contracts run as `lint-imports` in `make test`; here each one is shown to *fail* when a
forbidden import is added to a copy of the package, so a contract that checks nothing is caught.
"""

from __future__ import annotations

import ast
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "agreekit"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
AREAS = ("ranking", "consensus", "clustering", "ireval", "metaeval")

#: the issue's bound on function-level `agreekit` imports in src/ (there were 98 before issue 21)
MAX_FUNCTION_LEVEL_IMPORTS = 20

#: private names still imported across packages, each waiting for a public name in a file that
#: another change of issue 21 owns (empty: ranking's entries got their public names)
PENDING_PRIVATE: set = set()


def _modules(src: Path = SRC):
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        yield ".".join(parts), is_pkg, path


def _absolute(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _agreekit_imports(src: Path = SRC):
    """(module, path, node, target module, inside a function?) for every import of agreekit code."""
    for module, is_pkg, path in _modules(src):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stack = [(tree, False)]
        while stack:
            node, in_function = stack.pop()
            for child in ast.iter_child_nodes(node):
                inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.ImportFrom):
                    target = _absolute(module, is_pkg, child)
                    if target.split(".")[0] == "agreekit":
                        yield module, path, child, target, in_function
                elif isinstance(child, ast.Import):
                    for alias in child.names:
                        if alias.name.split(".")[0] == "agreekit":
                            yield module, path, child, alias.name, in_function
                stack.append((child, inner))


# ----------------------------------------------------------------------------- contracts
def _config():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def _lint(tmp_path: Path, edits: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`lint-imports` over a copy of the package (with ``edits``: module file -> line appended)."""
    work = tmp_path / "work"
    shutil.copytree(SRC, work / "src" / "agreekit", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", work / "pyproject.toml")
    for rel, line in (edits or {}).items():
        f = work / "src" / "agreekit" / rel
        f.write_text(f.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")
    env = {"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(work / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )


def test_contracts_are_declared():
    cfg = _config()
    assert cfg["root_package"] == "agreekit"
    assert {c["id"] for c in cfg["contracts"]} == {"layers", "private", "runtime"}


def test_contracts_hold(tmp_path):
    out = _lint(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(
    "contract, rel, line",
    [
        # an area importing the CLI (the CLI sits above the areas)
        ("layers", "consensus/comparison.py", "import agreekit._cli.consensus"),
        # a shared helper importing an area (shared helpers sit at the bottom)
        ("layers", "_io.py", "import agreekit.ranking.weighting"),
        # metaeval taking another area's private module
        ("private", "metaeval/_agreement.py", "from agreekit.ireval import _kernels"),
        # the CLI taking an area's private module
        ("private", "_cli/clustering.py", "import agreekit.clustering._files"),
        # the ranking runtime importing the table generator, even indirectly
        ("runtime", "ranking/tables.py", "from agreekit.ranking.tablegen import fitting"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path, contract, rel, line):
    out = _lint(tmp_path, {rel: line})
    assert out.returncode == 1, out.stdout + out.stderr
    name = next(c["name"] for c in _config()["contracts"] if c["id"] == contract)
    report = " ".join(out.stdout.split())
    assert f"{' '.join(name.split())} BROKEN" in report, out.stdout
    assert "1 broken" in report or "2 broken" in report


def test_runtime_contract_covers_every_ranking_runtime_module():
    import agreekit.ranking

    runtime = {
        f"agreekit.ranking.{m.name}" for m in pkgutil.iter_modules(agreekit.ranking.__path__) if m.name != "tablegen"
    }
    contract = next(c for c in _config()["contracts"] if c["id"] == "runtime")
    assert set(contract["source_modules"]) == runtime
    assert contract["forbidden_modules"] == ["agreekit.ranking.tablegen"]


def test_layers_name_every_top_level_module():
    layered = {
        m.strip()
        for layer in next(c for c in _config()["contracts"] if c["id"] == "layers")["layers"]
        for m in layer.split("|")
    }
    top = {f"agreekit.{m.name}" for m in pkgutil.iter_modules([str(SRC)])}
    assert top == layered


# ----------------------------------------------------------------------------- imports in functions
def _has_reason(path: Path, node: ast.stmt) -> bool:
    """A comment on the import's line(s) or on the line right above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    own = lines[node.lineno - 1 : node.end_lineno]
    above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
    return any("#" in text for text in own) or above.startswith("#")


def test_few_function_level_imports_each_with_its_reason():
    found = [(m, path, node) for m, path, node, _, in_function in _agreekit_imports() if in_function]
    assert len(found) < MAX_FUNCTION_LEVEL_IMPORTS, [f"{p.name}:{n.lineno}" for _, p, n in found]
    missing = [f"{path.relative_to(SRC)}:{node.lineno}" for _, path, node in found if not _has_reason(path, node)]
    assert not missing, f"function-level imports without a comment saying why: {missing}"


def test_the_counter_sees_function_level_imports(tmp_path):
    """The counter (_agreekit_imports, the one the test above uses) is not blind: run on a small package
    it finds the imports inside functions, methods, nested functions and lambdas' enclosing functions,
    resolves relative ones, and does not count module-level or non-agreekit imports as function-level."""
    pkg = tmp_path / "agreekit"
    (pkg / "area").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "area" / "__init__.py").write_text("from agreekit import _io\n")
    (pkg / "area" / "m.py").write_text(
        "import numpy\n"
        "from agreekit import _validation\n"
        "from . import sibling\n"
        "def f():\n"
        "    from agreekit.ranking import tables  # lazy: a reason\n"
        "    import agreekit.ireval\n"
        "    import json\n"
        "    def g():\n"
        "        from .. import clustering\n"
        "    return g\n"
        "class K:\n"
        "    def method(self):\n"
        "        # the comment above is the reason\n"
        "        from .sibling import x\n"
    )
    found = sorted((target, in_function, node.lineno) for _, _, node, target, in_function in _agreekit_imports(pkg))
    assert found == [
        ("agreekit", False, 1),
        ("agreekit", False, 2),
        ("agreekit", True, 9),
        ("agreekit.area", False, 3),
        ("agreekit.area.sibling", True, 14),
        ("agreekit.ireval", True, 6),
        ("agreekit.ranking", True, 5),
    ]
    reasons = {node.lineno: _has_reason(path, node) for _, path, node, _, inner in _agreekit_imports(pkg) if inner}
    assert reasons == {5: True, 6: False, 9: False, 14: True}


# ----------------------------------------------------------------------------- private names
def _package_of(module: str) -> str:
    """The area (or `_cli`, or `cli`) a module belongs to; shared helpers are ``agreekit._x``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def test_no_private_names_taken_across_packages():
    """`from agreekit.X.mod import _name` only inside X (shared helpers agreekit._x are for everyone);
    the table generator takes only public names of the ranking runtime."""
    bad = []
    for module, path, node, target, _ in _agreekit_imports():
        if not isinstance(node, ast.ImportFrom):
            continue
        shared = target.count(".") == 1 and target.split(".")[1].startswith("_") or target == "agreekit"
        if shared:
            continue
        crosses = _package_of(module) != _package_of(target)
        into_runtime = ".tablegen" in module and target.startswith("agreekit.ranking.") and ".tablegen" not in target
        for alias in node.names:
            private = alias.name.startswith("_") and not alias.name.startswith("__")
            if private and (crosses or into_runtime) and (module, target, alias.name) not in PENDING_PRIVATE:
                bad.append(f"{path.relative_to(SRC)}:{node.lineno} {target}.{alias.name}")
    assert not bad, bad


def test_pending_private_imports_are_still_there():
    """Drop an entry from PENDING_PRIVATE once its public name exists (this fails then)."""
    seen = {
        (m, t, a.name)
        for m, _, node, t, _ in _agreekit_imports()
        if isinstance(node, ast.ImportFrom)
        for a in node.names
    }
    assert PENDING_PRIVATE <= seen, PENDING_PRIVATE - seen
