"""The documentation's structure, read from its sources (no build needed): the root page's toctree holds the
five parts of the site, in order, and every page sits in exactly one part's toctree (a page added to the root
toctree would become a sixth header link)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


#: emphasis opened inside a word: Markdown read a subscript's underscore (``RI′_δ``, ``I_√tr``, ``D_⊥``) or a
#: starred symbol (``Q*ᵇ``) as the start of italics, so the text up to the next one is in italics
_STRAY_EMPHASIS = re.compile(r"[A-Za-z′]_?<em>|</em>[√⊥+{]")


def _stray_emphasis(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", html[max(0, m.start() - 60) : m.end() + 60]) for m in _STRAY_EMPHASIS.finditer(html)]


def test_built_pages_have_no_emphasis_opened_inside_a_word():
    site = Path(__file__).resolve().parents[1] / "docs" / "_build" / "html"
    if not (site / "index.html").is_file():
        pytest.skip("docs not built (run `make docs`; .ci/run runs this test after building them)")
    bad = {}
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel.startswith(("api/", "_modules/")):
            continue
        hits = _stray_emphasis(page.read_text(encoding="utf-8"))
        if hits:
            bad[rel] = hits
    assert not bad, f"escape the underscore or star (\\_ / \\*) in the Markdown source: {bad}"


def test_stray_emphasis_check_catches_a_subscript_read_as_italics():
    assert _stray_emphasis("measures (RI′<em>δ, ARI′</em>δ)")
    assert not _stray_emphasis("the paper <em>Generalization of clustering agreements</em> (2015)")
