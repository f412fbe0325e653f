"""The documentation's structure, read from its sources (no build needed): the root page's toctree holds the
five parts of the site, in order, and every page sits in exactly one part's toctree (a page added to the root
toctree would become a sixth header link)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
PARTS = [
    ("User guide", "guide/index"),
    ("Examples", "gallery/index"),
    ("API", "api/index"),
    ("Validation & notes", "notes/index"),
    ("Development", "dev/index"),
]


def _toctree_entries(page: Path) -> list[str]:
    """Entries of the ``{toctree}`` blocks of a MyST page, as written (options and blank lines dropped)."""
    entries = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        entries += [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.strip().startswith(":")]
    return entries


def _docname(entry: str, page: Path) -> str:
    target = re.fullmatch(r"(?:.*<(.+)>|(.+))", entry)
    name = (target.group(1) or target.group(2)).strip()
    if name.startswith("/"):
        return name[1:]
    base = page.parent.relative_to(DOCS).as_posix()
    return name if base == "." else f"{base}/{name}"


def test_root_toctree_is_the_five_parts():
    entries = _toctree_entries(DOCS / "index.md")
    got = [(re.fullmatch(r"(.*?)\s*<(.+)>", e).groups() if "<" in e else (e, e)) for e in entries]
    assert got == PARTS, f"docs/index.md's toctree: {got}; want exactly the five parts {PARTS}"


def test_every_page_in_one_part():
    pages = {
        p.relative_to(DOCS).with_suffix("").as_posix()
        for p in DOCS.rglob("*.md")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(DOCS).parts)
        and p.relative_to(DOCS).parts[0] not in ("gallery", "api")
    }
    listed: dict[str, list[str]] = {}
    for part in ("guide/index", "notes/index", "dev/index", "index"):
        page = DOCS / f"{part}.md"
        for entry in _toctree_entries(page):
            listed.setdefault(_docname(entry, page), []).append(part)
    sections = {p for _, p in PARTS} | {"index"}
    missing = sorted(pages - set(listed) - sections)
    assert not missing, f"pages in no part's toctree: {missing}"
    twice = {p: where for p, where in listed.items() if len(where) > 1}
    assert not twice, f"pages listed in more than one toctree: {twice}"
