"""Every user guide reads how-to-use first and keeps its implementation and validation notes apart.

A guide page (one per capability) ends with a section headed exactly ``## Implementation and validation
notes`` (then, optionally, ``## References``).  Above that heading a page speaks to a user: what to call,
which option when, what the result means.  Evidence that a number is right (which tests and benchmarks
check it, what it was cross-checked against, brute force, the history of a fix) belongs below it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
NOTES = "## Implementation and validation notes"
#: the how-to pages; the choosers, the cookbook, the glossary and the index are not capability guides
GUIDES = (
    "ranking",
    "significance",
    "tables",
    "json_tables",
    "new_scheme",
    "ranked_lists",
    "intervals",
    "how_sure",
    "consensus",
    "clustering",
    "ireval",
    "metaeval",
    "inputs",
    "slurm",
)
#: words that mark validation evidence or development history (case-insensitive)
EVIDENCE = re.compile(
    r"tests/|\btest_\w+\.py|benchmarks/|\bbrute[- ]force\b|\bvalidat(?:ed|ion|es)\b|\bcross-check|"
    r"\bplanted\b|\bregression test\b|\bpreviously\b|\bused to (?:give|return|be)\b",
    re.I,
)


def _sections(text):
    """The page's level-2 headings in order, outside fenced code."""
    heads, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif line.startswith(fence):
                fence = None
            continue
        if fence is None and line.startswith("## "):
            heads.append(line.rstrip())
    return heads


@pytest.mark.parametrize("name", GUIDES)
def test_guide_has_notes_section_last(name):
    heads = _sections((GUIDE / f"{name}.md").read_text(encoding="utf-8"))
    assert NOTES in heads, f"docs/guide/{name}.md has no '{NOTES}' section"
    after = heads[heads.index(NOTES) + 1 :]
    assert after in ([], ["## References"]), f"docs/guide/{name}.md: only References may follow the notes: {after}"


@pytest.mark.parametrize("name", GUIDES)
def test_guide_usage_part_has_no_validation_evidence(name):
    text = (GUIDE / f"{name}.md").read_text(encoding="utf-8")
    usage = text.split(NOTES)[0]
    hits = [f"line {i}: {line.strip()[:100]}" for i, line in enumerate(usage.splitlines(), 1) if EVIDENCE.search(line)]
    assert not hits, f"docs/guide/{name}.md: validation evidence above the notes section:\n" + "\n".join(hits)


def test_the_check_catches_evidence_above_the_notes():
    page = "# X\n\nCall `f`. It was cross-checked against scipy.\n\n" + NOTES + "\n\nTests.\n"
    assert EVIDENCE.search(page.split(NOTES)[0])
    assert _sections("```\n## not a heading\n```\n## A\n" + NOTES + "\n") == ["## A", NOTES]
