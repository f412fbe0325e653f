"""Every cited work carries its DOI where it is cited: the list in ``agreekit._references`` against the
References sections of the docstrings in src/ and the guide pages.

- each DOI in the list is well formed, and every DOI written in src/, the guides, the "Coming from" pages,
  docs/citing.md and CITATION.cff is one of the list (an unlisted DOI was never confirmed);
- a docstring's References section that cites a listed work (by a title fragment or an "Authors year"
  form of the list) gives its year and its DOI as ``:doi:`10.…``` (or, for a work without a DOI, its
  arXiv / Anthology identifier); DOIs in docstrings are written only in that form;
- a public object's docstring that cites a listed work anywhere lists it in its References section;
- a guide or "Coming from" page that cites a listed work gives its DOI (``{doi}`10.…```) or identifier in
  the page's ``## References`` section.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

from agreekit._references import BY_KEY, DOI_PATTERN, WORKS, Work

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "agreekit"
PAGES = sorted((ROOT / "docs" / "guide").glob("*.md")) + sorted((ROOT / "docs" / "coming_from").glob("*.md"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import agreekit_apigen as apigen  # noqa: E402

#: a DOI inside running text (closing punctuation and an unbalanced ")" are trimmed by :func:`dois_in`)
DOI_IN_TEXT = re.compile(r"\b10\.\d{4,9}/[^\s`'\"<>\]{}]+")


def dois_in(text: str) -> list[str]:
    out = []
    for m in DOI_IN_TEXT.finditer(text):
        doi = m.group(0)
        while doi and (doi[-1] in ".,;:" or (doi[-1] == ")" and doi.count(")") > doi.count("("))):
            doi = doi[:-1]
        out.append(doi)
    return out


def references_sections(text: str) -> list[tuple[int, str]]:
    """The numpydoc ``References`` sections of a docstring or a source file: (line number, body)."""
    lines = text.splitlines()
    out = []
    for i in range(len(lines) - 1):
        if lines[i].strip() != "References" or not re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            continue
        body = []
        for j in range(i + 2, len(lines)):
            line, stripped = lines[j], lines[j].strip()
            if j + 1 < len(lines) and stripped and re.fullmatch(r"\s*-{3,}\s*", lines[j + 1]):
                break  # the next section's heading
            if stripped.startswith(('"""', "'''")):
                break  # the end of the docstring
            body.append(line)
            if stripped.endswith(('"""', "'''")):
                break
        out.append((i + 1, "\n".join(body)))
    return out


def section_problems(body: str, where: str) -> list[str]:
    """What a References section lacks for the listed works it cites."""
    problems = []
    for work in WORKS:
        if not work.cited_in(body):
            continue
        if str(work.year) not in body:
            problems.append(f"{where}: {work.key} cited without its year {work.year}")
        if work.doi and f":doi:`{work.doi}`" not in body:
            problems.append(f"{where}: {work.key} cited without :doi:`{work.doi}`")
        if not work.doi and work.identifier and work.identifier not in body:
            problems.append(f"{where}: {work.key} cited without {work.identifier}")
    for doi in dois_in(body):
        if f":doi:`{doi}`" not in body:
            problems.append(f"{where}: DOI {doi} not written as :doi:`...`")
    return problems


def page_references(text: str) -> str | None:
    """The ``## References`` section of a Markdown page (up to the next level-2 heading), or None."""
    m = re.search(r"^## References[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else None


def page_problems(text: str, where: str) -> list[str]:
    text_outside_code = re.sub(r"^(```|~~~).*?^\1[ \t]*$", "", text, flags=re.M | re.S)
    cited = [w for w in WORKS if w.cited_in(text_outside_code)]
    if not cited:
        return []
    refs = page_references(text)
    if refs is None:
        return [f"{where}: cites {[w.key for w in cited]} but has no '## References' section"]
    problems = []
    for work in cited:
        if not work.cited_in(refs):
            problems.append(f"{where}: {work.key} is cited but not listed under ## References")
        elif work.doi and f"{{doi}}`{work.doi}`" not in refs:
            problems.append(f"{where}: {work.key} listed without {{doi}}`{work.doi}`")
        elif not work.doi and work.identifier and work.identifier not in refs:
            problems.append(f"{where}: {work.key} listed without {work.identifier}")
    return problems


def _src_files():
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


# --- the list --------------------------------------------------------------------------------------------


def test_list_is_well_formed():
    assert len(BY_KEY) == len(WORKS), "duplicate keys"
    for work in WORKS:
        assert isinstance(work, Work)
        assert work.authors and 1900 <= work.year <= 2030 and work.venue and work.cites, work.key
        if work.doi is None:
            assert work.no_doi, f"{work.key}: no DOI and no reason why"
        else:
            assert DOI_PATTERN.match(work.doi), f"{work.key}: malformed DOI {work.doi!r}"
            assert work.no_doi is None, work.key
        for pattern in work.cites:
            re.compile(pattern)


def test_each_work_is_recognised_by_its_own_citation():
    """A work's patterns recognise its own full citation and no other work's title."""
    for work in WORKS:
        line = f"{work.authors} ({work.year}). {work.title or ''}. {work.venue}."
        assert work.cited_in(line), f"{work.key}: its patterns miss its own citation {line!r}"
        for other in WORKS:
            if other.key != work.key and other.title and other.authors != work.authors:
                assert not work.cited_in(other.title), f"{work.key} matches the title of {other.key}"


def test_every_doi_written_is_listed():
    listed = {w.doi for w in WORKS if w.doi}
    files = [*_src_files(), *sorted(SRC.rglob("README.md")), *PAGES, ROOT / "docs" / "citing.md"]
    files.append(ROOT / "CITATION.cff")
    stray = []
    for path in files:
        for doi in dois_in(path.read_text(encoding="utf-8")):
            if doi not in listed:
                stray.append(f"{path.relative_to(ROOT)}: {doi}")
    assert not stray, "DOIs not in agreekit._references (confirm them and add them, or remove them):\n" + "\n".join(
        stray
    )


# --- docstrings ------------------------------------------------------------------------------------------


def test_references_sections_in_src_carry_dois():
    problems = []
    for path in _src_files():
        text = path.read_text(encoding="utf-8")
        for line, body in references_sections(text):
            problems += section_problems(body, f"{path.relative_to(ROOT)}:{line}")
    assert not problems, "\n".join(problems)


def _public_objects():
    out = []
    for area in apigen.AREAS:
        module = importlib.import_module(f"agreekit.{area}")
        for name in apigen.public_names(area):
            obj = getattr(module, name)
            if inspect.isclass(obj) or callable(obj):
                out.append((f"agreekit.{area}.{name}", obj))
    return out


@pytest.mark.skipif(sys.flags.optimize >= 2, reason="docstrings are stripped under -OO")
def test_public_docstrings_list_what_they_cite():
    """A public function's or class's (rendered) docstring that cites a listed work anywhere lists it, with
    its DOI, in its References section (module docstrings: their References sections are checked above)."""
    problems = []
    for name, obj in _public_objects():
        doc = inspect.getdoc(obj) or ""
        cited = [w for w in WORKS if w.cited_in(doc)]
        if not cited:
            continue
        sections = references_sections(doc)
        body = "\n".join(b for _, b in sections)
        if not sections:
            problems.append(f"{name}: cites {[w.key for w in cited]} but has no References section")
            continue
        for work in cited:
            if not work.cited_in(body):
                problems.append(f"{name}: {work.key} cited but not listed in References")
        problems += section_problems(body, name)
    assert not problems, "\n".join(problems)


# --- pages -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pages_give_the_dois_of_what_they_cite(path):
    problems = page_problems(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


def test_citing_page_and_citation_file_agree_with_the_list():
    """docs/citing.md and CITATION.cff give the four papers' DOIs as the list does."""
    citing = (ROOT / "docs" / "citing.md").read_text(encoding="utf-8")
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    for key in ("amodio2016", "sakai2006", "rabbany2015"):
        doi = BY_KEY[key].doi
        assert f"https://doi.org/{doi}" in citing and f'doi: "{doi}"' in cff, key
    assert BY_KEY["lombardo2025"].identifier in citing


# --- the checks catch a missing DOI ----------------------------------------------------------------------


def test_checks_catch_a_missing_doi():
    body = (
        "    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, \"A new rank correlation coefficient for\n"
        "           information retrieval\", SIGIR 2008. :doi:`10.1145/1390334.1390435`\n"
    )
    assert section_problems(body, "x") == []
    assert section_problems(body.replace(" :doi:`10.1145/1390334.1390435`", ""), "x")
    assert section_problems(body.replace(":doi:`10.1145/1390334.1390435`", "doi:10.1145/1390334.1390435"), "x")
    assert section_problems(body.replace("2008", "20O8"), "x")
    page = "# P\n\nAs Yilmaz, Aslam & Robertson 2008 define it.\n\n## References\n\n* E. Yilmaz (2008). {doi}`10.1145/1390334.1390435`\n"
    assert page_problems(page, "p") == []
    assert page_problems(page.replace("{doi}`10.1145/1390334.1390435`", ""), "p")
    assert page_problems(page.split("## References")[0], "p")
    src = 'def f():\n    """F.\n\n    References\n    ----------\n' + body + '    """\n'
    assert [b for _, b in references_sections(src)] == [body.rstrip("\n")]
