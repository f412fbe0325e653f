"""Words a user can read: papers are named by their authors and year, not by the project's internal
numbering ("seed 000" … "seed 003", "the seed paper"), and the code and docs carry no issue numbers or
pointers to the developers' notes (history belongs in the CHANGELOG and git)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: generated or third-party folders inside docs/ (not written by hand)
SKIP = ("docs/_build", "docs/api", "docs/gallery", "docs/_static")
SUFFIXES = {".py", ".md", ".rst", ".txt", ".yaml", ".yml", ".json", ".smk", ".toml", ".cfg", ".html", ".tex"}
FORBIDDEN = {
    "internal paper number": re.compile(r"\bseed\s+00[0-9]\b", re.I),
    "the seed paper": re.compile(r"\bthe\s+seed(?:'s)?\s+paper\b", re.I),
    "a seed's figure or equation": re.compile(
        r"\bseed\s+(?:Definitions?|A\.\d|sec\.|Fig(?:ure)?s?\b|Identity|Eq\.|"
        r"Theorem|Tables?|Section|Algorithm)"
    ),
    "issue number": re.compile(r"\bissues?\s+#?\d+", re.I),
    "developers' notes": re.compile(r"shared/notes|\.\./shared\b"),
}


def _files():
    out = []
    for top in ("src", "docs", "workflow"):
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and not rel.startswith(SKIP)
                and "__pycache__" not in rel
                and ".egg-info" not in rel
            ):
                out.append(path)
    return out + [ROOT / "Snakefile"]


def hits(text: str) -> list[str]:
    return [f"{name}: {m.group(0)!r}" for name, rx in FORBIDDEN.items() for m in rx.finditer(text)]


def test_the_patterns_catch_each_form():
    text = "(seed 000, Section 3) the seed paper; issue 23; Issues #4 and ``../shared/notes/x.md``; SEED 003"
    assert len(hits(text)) == 6
    assert hits("a random seed 42; seed=0; the issue of ties; 2006 seeds") == []


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_internal_numbering_in_code_and_docs(path):
    found = [
        f"line {no}: {h}"
        for no, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        for h in hits(line)
    ]
    assert not found, "\n".join(found)
