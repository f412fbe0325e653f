"""Every runnable code block of README.md runs on its own, and the values it states are true.

README block rules (for everyone who edits README.md)
-----------------------------------------------------
* Every fenced block tagged ```python or ```bash is run by this test, each ON ITS OWN: a fresh
  temporary copy of the repository is the working directory (files a block writes land there, never
  in the tree), and no name, file or variable from an earlier block exists. Import what you use and
  create the files you read. Use ```console or ```text for blocks that must not run (``make results``,
  long pipeline runs, output listings).
* bash blocks run with ``bash -e -o pipefail``; ``agreekit``, ``python`` and ``snakemake`` are the
  project's (.venv/bin first on PATH; ``.venv/bin/agreekit`` works too). python blocks run in a fresh
  interpreter (matplotlib backend Agg).
* No placeholders: a line ``...`` (Python ``Ellipsis``) or a ``...`` argument in a bash command fails
  the test. Write a real value.
* Stated values are checked. Put them in a comment that starts with ``# ->`` at the end of the line
  that completes the statement:

  - python: ``weighted_spearman(x, y, weigher="harmonic")   # -> 0.7426``. The statement must be an
    expression; its value is compared with the literal after ``->`` (numbers, strings, True/False/None,
    lists/tuples/dicts of them; numpy arrays and scalars compare like lists and numbers). A number is
    checked to the decimals it shows: ``0.7426`` means ``|value - 0.7426| <= 0.5e-4``; a number
    followed by ``...`` (``0.74262...``) means "these digits, truncated": ``|value - 0.74262| <= 1e-5``. Integers
    written without a decimal point compare exactly when the value is an integer type.
  - bash: ``agreekit consensus FILE --method exact   # -> "tau_x": 0.165561, "optimal": true``. The
    command's stdout is parsed as JSON and every key given must be present at the top level with the
    given value (compared as above); if stdout is not JSON, the text after ``->`` must occur in it.
    The ``# ->`` line must end a command (no trailing backslash).

  Free text may follow the value after a second ``#``: ``m.mean  # -> -0.0973  # Table 4, n = 8``.
  Comments without ``->`` are free text and not checked.
* A failure names the block (README line of the opening fence), the README line that failed, and why
  (the exception and its README-line traceback, or expected vs. actual value).
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUNNABLE = ("python", "bash")
# not copied into the temporary working copy (large, generated, or per-machine)
IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "results",
    "logs",
    ".snakemake",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".hypothesis",
    "output",
)
TIMEOUT = 600


# ----------------------------------------------------------------------------------------- extraction
def extract_blocks(text: str) -> list[dict]:
    """Fenced blocks: {'lang', 'start' (README line of the opening fence), 'code', 'first' (line of code[0])}."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = re.match(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        blocks.append({"lang": lang, "start": start, "first": start + 1, "code": "\n".join(body) + "\n"})
        i += 1
    return blocks


BLOCKS = [b for b in extract_blocks(README.read_text(encoding="utf-8")) if b["lang"] in RUNNABLE]


def _where(block: dict) -> str:
    return f"README.md ```{block['lang']} block at line {block['start']}"


# ----------------------------------------------------------------------------------------- values
_ARROW = re.compile(r"#\s*->\s*(.*?)\s*(?:\s#.*)?$")


_TRUNC = re.compile(r"(?<![\w.])(\d+\.\d+|\d+)\.\.\.")


def _expect_node(node, src, trunc=False):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__trunc__":
        return _expect_node(node.args[0], src, True)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        kind, val, tol = _expect_node(node.operand, src, trunc)
        return kind, -val, tol
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        text = ast.get_source_segment(src, node) or repr(node.value)
        if isinstance(node.value, int) and "." not in text and "e" not in text.lower():
            return ("int", node.value, 0.0) if not trunc else ("trunc", float(node.value), 1.0)
        dec = len(text.split(".")[1]) if "." in text and "e" not in text.lower() else 12
        return ("trunc", float(node.value), 10.0**-dec) if trunc else ("num", float(node.value), 0.5 * 10.0**-dec)
    if isinstance(node, (ast.List, ast.Tuple)):
        return ("seq", [_expect_node(e, src) for e in node.elts], None)
    if isinstance(node, ast.Dict):
        return ("map", {ast.literal_eval(k): _expect_node(v, src) for k, v in zip(node.keys, node.values)}, None)
    return ("lit", ast.literal_eval(node), None)


def _compile_expected(text: str):
    """The expectation written after `# ->`: a literal; `0.123...` marks a truncated number."""
    src = _TRUNC.sub(r"__trunc__(\1)", text.strip())
    src = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", src)))
    return _expect_node(ast.parse(src, mode="eval").body, src)


def _plain(value):
    """numpy/pandas values -> Python scalars and lists."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (TypeError, ValueError):
            return value
    return value


def mismatch(expected, actual, path="value") -> str | None:
    """None if `actual` matches the compiled expectation, else a one-line reason."""
    kind, exp, tol = expected
    actual = _plain(actual)
    if kind in ("num", "int", "trunc"):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            return f"{path}: expected a number {exp!r}, got {actual!r}"
        if kind == "trunc":  # the digits shown, then anything: exp <= |value| < exp + step (sign-aware)
            lo, hi = (exp, exp + tol) if exp > 0 or (exp == 0 and actual >= 0) else (exp - tol, exp)
            ok = (lo - 1e-12 <= actual < hi) if exp >= 0 else (lo < actual <= hi + 1e-12)
            return None if ok else f"{path}: expected {exp!r}... (truncated), got {actual!r}"
        if kind == "int" and isinstance(actual, int):
            return None if actual == exp else f"{path}: expected {exp}, got {actual}"
        if not (math.isfinite(actual) and abs(actual - exp) <= tol * (1 + 1e-9) + 1e-15):
            return f"{path}: expected {exp!r} (± {tol:g}), got {actual!r}"
        return None
    if kind == "seq":
        if isinstance(actual, (str, bytes)) or not hasattr(actual, "__len__"):
            return f"{path}: expected a sequence of {len(exp)}, got {actual!r}"
        actual = list(actual)
        if len(actual) != len(exp):
            return f"{path}: expected {len(exp)} items, got {len(actual)}: {actual!r}"
        for k, (e, a) in enumerate(zip(exp, actual)):
            r = mismatch(e, a, f"{path}[{k}]")
            if r:
                return r
        return None
    if kind == "map":
        if not isinstance(actual, dict):
            return f"{path}: expected a mapping, got {actual!r}"
        for key, e in exp.items():
            if key not in actual:
                return f"{path}: key {key!r} missing (keys: {sorted(actual)[:20]})"
            r = mismatch(e, actual[key], f"{path}[{key!r}]")
            if r:
                return r
        return None
    return None if actual == exp else f"{path}: expected {exp!r}, got {actual!r}"


# ----------------------------------------------------------------------------------------- python blocks
_PY_RUNNER = r'''
import ast, json, os, sys, traceback
sys.path.insert(0, {test_dir!r})
from test_readme import _compile_expected, mismatch
src = open({src_path!r}, encoding="utf-8").read()
checks = json.loads(open({checks_path!r}, encoding="utf-8").read())   # README line -> expected text
tree = ast.parse(src, filename="README.md")
ast.increment_lineno(tree, {offset})
failures = []
def __readme_check__(value, line, text):
    r = mismatch(_compile_expected(text), value)
    if r:
        failures.append(f"README.md line {{line}}: `# -> {{text}}`: {{r}}")
    return value
body = []
for stmt in tree.body:
    lines = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
    hit = [l for l in lines if str(l) in checks]
    if hit and isinstance(stmt, ast.Expr):
        line = hit[-1]
        call = ast.Call(func=ast.Name("__readme_check__", ast.Load()),
                        args=[stmt.value, ast.Constant(line), ast.Constant(checks[str(line)])], keywords=[])
        stmt = ast.copy_location(ast.Expr(ast.copy_location(call, stmt.value)), stmt)
    elif hit:
        failures.append(f"README.md line {{hit[-1]}}: `# ->` on a statement that is not an expression")
    body.append(stmt)
tree.body = body
ast.fix_missing_locations(tree)
ns = {{"__name__": "__main__", "__readme_check__": __readme_check__}}
try:
    exec(compile(tree, "README.md", "exec"), ns)
except BaseException:
    tb = traceback.format_exc().splitlines()
    keep = [l for l in tb if "README.md" in l or not l.startswith("  File")]
    print("README_EXCEPTION\n" + "\n".join(keep[-12:]), file=sys.stderr)
    sys.exit(3)
if failures:
    print("README_VALUE\n" + "\n".join(failures), file=sys.stderr)
    sys.exit(4)
'''


def _python_checks(code: str, first: int) -> dict:
    checks = {}
    for k, line in enumerate(code.splitlines()):
        m = _ARROW.search(line)
        if m and "#" in line:
            checks[str(first + k)] = m.group(1)
    return checks


def _python_placeholders(code: str, first: int) -> list[str]:
    out = []
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [f"README.md line {first + (exc.lineno or 1) - 1}: SyntaxError: {exc.msg}"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            out.append(f"README.md line {first + node.lineno - 1}: placeholder `...` in a runnable block")
    return out


# ----------------------------------------------------------------------------------------- bash blocks
def _bash_script(code: str, first: int, outdir: Path) -> tuple[str, dict, list[str]]:
    """The block as a script with README line numbers in errors, and per-line output capture for `# ->`."""
    checks, problems, lines = {}, [], []
    header = ['set -e -o pipefail', f'trap \'echo "README_FAILED_LINE $(( LINENO - __H + {first} ))" >&2\' ERR']
    for k, line in enumerate(code.splitlines()):
        readme_line = first + k
        body = line.split(" #")[0] if not line.lstrip().startswith("#") else ""
        if re.search(r"(^|\s)\.\.\.(\s|$)", body):
            problems.append(f"README.md line {readme_line}: placeholder `...` in a runnable block")
        m = _ARROW.search(line)
        if m and not line.lstrip().startswith("#") and " #" in line:
            cmd = line[: m.start()].rstrip()
            if cmd.endswith("\\"):
                problems.append(f"README.md line {readme_line}: `# ->` must end a command (no trailing \\)")
            out = outdir / f"out_{readme_line}.txt"
            checks[readme_line] = (m.group(1), out)
            # keep the capture on the same line so LINENO maps to the README line
            line = f'{{ {cmd.strip()} ; }} > "{out}"; cat "{out}"'
        lines.append(line)
    script = "\n".join(header) + f"\n__H={len(header) + 2}\n" + "\n".join(lines) + "\n"
    return script, checks, problems


def _check_bash_output(text: str, expected: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None if expected in text else f"output does not contain {expected!r}; output: {text[:300]!r}"
    exp_src = expected.strip()
    if not exp_src.startswith("{"):
        exp_src = "{" + exp_src + "}"
    try:
        exp = _compile_expected(exp_src)
    except (SyntaxError, ValueError):
        return f"cannot read the expected value {expected!r} (write JSON-like `\"key\": value` pairs)"
    return mismatch(exp, data, "output")


# ----------------------------------------------------------------------------------------- the test
@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    dst = tmp_path_factory.mktemp("readme_repo") / "repo"
    shutil.copytree(ROOT, dst, ignore=IGNORE, symlinks=True)
    return dst


def _workdir(pristine: Path, tmp_path: Path) -> Path:
    wd = tmp_path / "repo"
    shutil.copytree(pristine, wd, symlinks=True)
    venv = ROOT / ".venv"
    if venv.is_dir():
        (wd / ".venv").symlink_to(venv)
    return wd


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    env.setdefault("NUMBA_NUM_THREADS", "1")
    return env


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b['start']}-{b['lang']}" for b in BLOCKS])
def test_readme_block(block, pristine, tmp_path):
    wd = _workdir(pristine, tmp_path)
    where = _where(block)
    if block["lang"] == "python":
        problems = _python_placeholders(block["code"], block["first"])
        assert not problems, f"{where}:\n" + "\n".join(problems)
        src, checks = tmp_path / "block.py", tmp_path / "checks.json"
        src.write_text(block["code"], encoding="utf-8")
        checks.write_text(json.dumps(_python_checks(block["code"], block["first"])), encoding="utf-8")
        runner = tmp_path / "runner.py"
        runner.write_text(
            _PY_RUNNER.format(
                test_dir=str(Path(__file__).parent),
                src_path=str(src),
                checks_path=str(checks),
                offset=block["first"] - 1,
            )
        )
        r = subprocess.run(
            [sys.executable, str(runner)], cwd=wd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT
        )
        assert r.returncode == 0, f"{where} failed (exit {r.returncode}):\n{r.stderr[-4000:]}"
        return
    outdir = tmp_path / "outputs"
    outdir.mkdir()
    script, checks, problems = _bash_script(block["code"], block["first"], outdir)
    assert not problems, f"{where}:\n" + "\n".join(problems)
    path = tmp_path / "block.sh"
    path.write_text(script)
    r = subprocess.run(["bash", str(path)], cwd=wd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        m = re.search(r"README_FAILED_LINE (\d+)", r.stderr)
        line = f"README.md line {m.group(1)}" if m else "a line"
        err = re.sub(r"README_FAILED_LINE \d+\n?", "", r.stderr)
        pytest.fail(f"{where}: {line} failed (exit {r.returncode}):\n{err[-3000:]}\nstdout: {r.stdout[-1000:]}")
    failures = []
    for readme_line, (expected, out) in sorted(checks.items()):
        why = _check_bash_output(out.read_text(), expected)
        if why:
            failures.append(f"README.md line {readme_line}: `# -> {expected}`: {why}")
    assert not failures, f"{where}:\n" + "\n".join(failures)


# ----------------------------------------------------------------------------------------- self-tests
def test_value_convention_is_strict():
    """The checker itself: digits shown set the tolerance, truncation, containers, JSON words."""
    assert mismatch(_compile_expected("0.7426"), 0.74262) is None
    assert mismatch(_compile_expected("0.7426"), 0.7427) is not None
    assert mismatch(_compile_expected("0.7426..."), 0.74269) is None
    assert mismatch(_compile_expected("0.7426..."), 0.74271) is not None
    assert mismatch(_compile_expected("3"), 3) is None and mismatch(_compile_expected("3"), 4) is not None
    assert mismatch(_compile_expected("(-0.0973, [1, 2])"), (-0.09728, [1, 2])) is None
    assert mismatch(_compile_expected("(-0.0972844812..., 0.13...)"), (-0.09728448129, 0.139)) is None
    assert mismatch(_compile_expected("(-0.0972844812..., 0.13...)"), (-0.0972844811, 0.139)) is not None
    assert mismatch(_compile_expected("['a b', 'c']"), ["a b", "c"]) is None
    assert mismatch(_compile_expected("['a b', 'c']"), ["a b"]) is not None
    assert _check_bash_output('{"tau_x": 0.1655614, "optimal": true}', '"tau_x": 0.165561, "optimal": true') is None
    assert _check_bash_output('{"tau_x": 0.1655614, "optimal": false}', '"optimal": true') is not None
    assert _check_bash_output("hello world\n", "world") is None


def test_extraction_finds_fences_and_line_numbers():
    text = "a\n```python\nx = 1  # -> 1\n```\n\n```console\n$ ls\n```\n```bash\necho hi ... there\n```\n"
    blocks = extract_blocks(text)
    assert [(b["lang"], b["start"]) for b in blocks] == [("python", 2), ("console", 6), ("bash", 9)]
    assert _python_checks(blocks[0]["code"], blocks[0]["first"]) == {"3": "1"}
    _, _, problems = _bash_script(blocks[2]["code"], blocks[2]["first"], Path("/tmp"))
    assert problems and "line 10" in problems[0]
