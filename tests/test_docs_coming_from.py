"""Every row of the "Coming from …" pages (docs/coming_from/*.md, ``{equivalents}`` blocks) holds: agreekit's
call and the peer's (scipy, scikit-learn, cdlib, ir_measures, pytrec_eval) or a recorded reference value
give the same number within the row's tolerance, or differ where the row says why they differ.

The same code runs when the docs are built (docs/_ext/agreekit_coming_from.py); here without Sphinx, so
`make test` checks the pages too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from agreekit_coming_from import blocks_in, distance, run_block  # noqa: E402

PAGES = sorted((ROOT / "docs" / "coming_from").glob("*.md"))
PEERS = {"scipy": "scipy", "sklearn": "sklearn", "cdlib": "cdlib", "ir_measures": "ir_measures"}


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_every_row_holds(page):
    if page.stem in PEERS:
        pytest.importorskip(PEERS[page.stem])
    blocks = blocks_in(page)
    assert blocks, f"{page.name} has no equivalents block"
    failures = []
    for spec in blocks:
        records = run_block(spec, cwd=ROOT)
        assert len(records) == len(spec["rows"])
        failures += [f"{page.name}: `{r['ours']}`: {r['why']}" for r in records if not r["ok"]]
    assert not failures, "\n".join(failures)


def test_pages_cover_the_peers():
    assert {p.stem for p in PAGES} >= {"scipy", "sklearn", "cdlib", "ir_measures", "consrank"}


def test_checker_can_fail():
    """A `same` row with different numbers and a `differs` row with equal ones both fail."""
    bad = {
        "setup": "a = 1.0",
        "rows": [
            {"ours": "a", "theirs": "a + 1e-6", "same": 1e-9},
            {"ours": "a", "theirs": "a", "differs": "they do not", "relation": "True"},
            {"ours": "a", "reference": 1.0, "same": 0},
            {"ours": "1 / 0", "theirs": "a", "same": 0},
            # a differs row must hold its claimed relation, and must claim one
            {"ours": "a", "theirs": "2 * a", "differs": "x2", "relation": "theirs == 3 * ours"},
            {"ours": "a", "theirs": "2 * a", "differs": "x2"},
            {"ours": "a", "theirs": "2 * a", "differs": "x2", "relation": "theirs == 2 * ours"},
        ],
    }
    records = run_block(bad)
    assert [r["ok"] for r in records] == [False, False, False, False, False, False, True]
    assert "1e-06" in records[0]["why"] and "source" in records[2]["why"] and "ZeroDivision" in records[3]["why"]
    assert "does not hold" in records[4]["why"] and "needs `relation:`" in records[5]["why"]
    assert distance((1.0, [2.0, 3.0]), (1.0, [2.0, 3.5])) == 0.5 and distance([1], [1, 2]) == float("inf")
