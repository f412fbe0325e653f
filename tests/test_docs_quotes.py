"""Numbers from benchmarks and the pipeline are quoted in the docs through the ``{bench}`` role, which reads
them from the file that holds them (benchmarks/output/*.json) when the docs are built
(docs/_ext/agreekit_quotes.py).  This test fails when

* a quote names a file, key or format that does not resolve;
* a benchmark passage of a page (a paragraph or table that quotes a file or names ``benchmarks/output``) has a
  figure typed by hand (a number with a unit: ×, s, ms, µs, ns, MiB, GiB) instead of a quote (targets and
  limits, written after ≤, ≥, <, >, "target", "at most" or "up to", are requirements and may be typed);
* the built site (docs/_build/html, when present) shows a figure that is not the file's current value
  (a benchmark was re-run and the docs were not rebuilt, or a page was edited by hand).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
from agreekit_quotes import ROLE_RE, QuoteError, render  # noqa: E402

HTML = DOCS / "_build" / "html"
SKIP = {"_build", "api", "gallery", "_ext", "_templates", "_static"}
UNIT = r"(?:×|x faster|x slower|\s?(?:s|ms|µs|ns|MiB|GiB)\b)"
TYPED = re.compile(r"(?<![\w.^·/⁻-])\d+(?:\.\d+)?(?:\s?[–-]\s?\d+(?:\.\d+)?)?" + UNIT)


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if not (set(p.relative_to(DOCS).parts[:-1]) & SKIP))


def quotes() -> list[tuple[str, int, str]]:
    out = []
    for page in pages():
        for lineno, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for m in ROLE_RE.finditer(line):
                out.append((page.relative_to(DOCS).as_posix(), lineno, m.group(1) or m.group(2)))
    return out


def benchmark_passages(text: str) -> list[tuple[int, str]]:
    """(first line, text) of the paragraphs/tables outside code fences that quote a file or name one."""
    out, block, start, fence = [], [], 0, False
    for lineno, line in enumerate(text.splitlines() + [""], 1):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            continue
        if fence:
            continue
        if line.strip():
            if not block:
                start = lineno
            block.append(line)
            continue
        if block:
            para = "\n".join(block)
            if ROLE_RE.search(para) or "benchmarks/output" in para:
                out.append((start, para))
            block = []
    return out


QUOTES = quotes()


def test_docs_quote_benchmarks():
    assert len(QUOTES) >= 40, "the benchmark figures of the guide pages are quoted, not typed"


@pytest.mark.parametrize(("page", "line", "text"), QUOTES, ids=[f"{p}:{n}" for p, n, _ in QUOTES])
def test_quote_resolves(page, line, text):
    try:
        render(text)
    except QuoteError as exc:
        pytest.fail(f"docs/{page} line {line}: {{bench}}`{text}`: {exc}")


def typed_figures(text: str) -> list[tuple[int, str]]:
    found = []
    for start, para in benchmark_passages(text):
        for k, line in enumerate(para.splitlines()):
            plain = re.sub(r"`[^`]*`", "", ROLE_RE.sub("", line))
            for m in TYPED.finditer(plain):
                if re.search(r"(≤|≥|<|>|target|at most|up to)\s*$", plain[: m.start()]):
                    continue  # a target or a limit, not a measurement
                found.append((start + k, m.group(0)))
    return found


@pytest.mark.parametrize("page", pages(), ids=[p.relative_to(DOCS).as_posix() for p in pages()])
def test_no_typed_benchmark_figures(page):
    found = typed_figures(page.read_text(encoding="utf-8"))
    assert not found, (
        f"docs/{page.relative_to(DOCS).as_posix()}: figures typed by hand in a benchmark passage "
        "(quote them with {bench}`FILE:KEY:FORMAT` from benchmarks/output/): "
        + ", ".join(f"line {n}: {t!r}" for n, t in found)
    )


def test_typed_figure_detector():
    """The detector itself: a typed speed-up in a benchmark passage is caught; a quote, a code span and a
    passage without a benchmark file are not."""
    bad = "Results in `benchmarks/output/bench_bootstrap.json`: 0.55 s vs 10.1 s, 18× faster.\n"
    assert [t for _, t in typed_figures(bad)] == ["0.55 s", "10.1 s", "18×"]
    good = "Results: {bench}`bench_bootstrap.json:speedup_naive_over_fast:.1f;×` (`benchmarks/output`, `2 s`).\n"
    assert typed_figures(good) == []
    assert typed_figures("A 4 × 4 profile takes 3 s.\n") == []


def test_quotes_in_tables_keep_their_cells():
    """A quote in a Markdown table row must not contain '|' (it would split the cell and lose the figure)."""
    for page in pages():
        for lineno, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("|"):
                for m in ROLE_RE.finditer(line):
                    assert "|" not in (m.group(1) or m.group(2)), f"docs/{page.name} line {lineno}: '|' in a quote"


def test_built_site_shows_the_files_values():
    qfile = HTML / "_quotes.json"
    if not qfile.is_file():
        pytest.skip("docs not built (run `make docs`; .ci/run runs this test after building them)")
    built = json.loads(qfile.read_text(encoding="utf-8"))
    assert len(built) == len(QUOTES), "the built site has another set of quotes than the sources: rebuild the docs"
    stale = []
    for q in built:
        now = render(q["text"])
        html = (HTML / f"{q['doc']}.html").read_text(encoding="utf-8")
        if q["shown"] != now:
            stale.append(f"{q['doc']}: {q['text']}: the site shows {q['shown']!r}, the file now holds {now!r}")
        elif f'<span class="agreekit-quote">{now}</span>' not in html:
            stale.append(f"{q['doc']}: {q['text']}: {now!r} is not in {q['doc']}.html")
    assert not stale, "\n".join(stale)
