"""Every runnable code block of the documentation pages (docs/**/*.md) runs on its own, and the values it
states are true: the README's rules (tests/test_readme.py's module docstring), applied page by page.

Each ```python / ```bash block runs in a fresh copy of the repository; values after ``# ->`` are checked
with test_readme's checker.  Use ```console / ```text for blocks that must not run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import test_readme as tr  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SKIP_DIRS = {"_build", "api", "gallery", "_ext", "_templates", "_static"}


def doc_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if not (set(p.relative_to(DOCS).parts[:-1]) & SKIP_DIRS))


BLOCKS = [
    (page, b)
    for page in doc_pages()
    for b in tr.extract_blocks(page.read_text(encoding="utf-8"))
    if b["lang"] in tr.RUNNABLE
]


def _id(page: Path, block: dict) -> str:
    return f"{page.relative_to(DOCS).as_posix()}:{block['start']}-{block['lang']}"


pristine = tr.pristine


@pytest.mark.parametrize(("page", "block"), BLOCKS, ids=[_id(p, b) for p, b in BLOCKS])
def test_docs_block(page, block, pristine, tmp_path):
    where = f"docs/{page.relative_to(DOCS).as_posix()} ```{block['lang']} block at line {block['start']}"
    wd = tr._workdir(pristine, tmp_path)
    if block["lang"] == "python":
        problems = tr._python_placeholders(block["code"], block["first"])
        assert not problems, f"{where}:\n" + "\n".join(problems)
        src, checks = tmp_path / "block.py", tmp_path / "checks.json"
        src.write_text(block["code"], encoding="utf-8")
        checks.write_text(json.dumps(tr._python_checks(block["code"], block["first"])), encoding="utf-8")
        runner = tmp_path / "runner.py"
        runner.write_text(
            tr._PY_RUNNER.format(
                test_dir=str(Path(tr.__file__).parent),
                src_path=str(src),
                checks_path=str(checks),
                offset=block["first"] - 1,
            )
        )
        r = subprocess.run(
            [sys.executable, str(runner)], cwd=wd, env=tr._env(), capture_output=True, text=True, timeout=tr.TIMEOUT
        )
        err = r.stderr.replace("README.md", f"docs/{page.relative_to(DOCS).as_posix()}")
        assert r.returncode == 0, f"{where} failed (exit {r.returncode}):\n{err[-4000:]}"
        return
    outdir = tmp_path / "outputs"
    outdir.mkdir()
    script, checks, problems = tr._bash_script(block["code"], block["first"], outdir)
    assert not problems, f"{where}:\n" + "\n".join(problems)
    path = tmp_path / "block.sh"
    path.write_text(script)
    r = subprocess.run(["bash", str(path)], cwd=wd, env=tr._env(), capture_output=True, text=True, timeout=tr.TIMEOUT)
    if r.returncode != 0:
        m = re.search(r"README_FAILED_LINE (\d+)", r.stderr)
        line = f"line {m.group(1)}" if m else "a line"
        err = re.sub(r"README_FAILED_LINE \d+\n?", "", r.stderr)
        pytest.fail(f"{where}: {line} failed (exit {r.returncode}):\n{err[-3000:]}\nstdout: {r.stdout[-1000:]}")
    failures = []
    for line, (expected, out) in sorted(checks.items()):
        why = tr._check_bash_output(out.read_text(), expected)
        if why:
            failures.append(f"line {line}: `# -> {expected}`: {why}")
    assert not failures, f"{where}:\n" + "\n".join(failures)


def test_pages_have_blocks():
    """The guide moved out of the README: its blocks must still be found and run here."""
    pages = {p.relative_to(DOCS).as_posix() for p, _ in BLOCKS}
    for page in (
        "quickstart.md",
        "guide/ranking.md",
        "guide/consensus.md",
        "guide/clustering.md",
        "guide/ireval.md",
        "guide/metaeval.md",
        "guide/significance.md",
    ):
        assert page in pages, f"docs/{page} has no runnable block"
