"""The built documentation in a real browser: headless Chromium opens the index, an API page, a guide page
with equations and ``search.html?q=kemeny``, and the test checks what a reader sees there: the page text,
equations rendered by the shipped MathJax (SVG, no network), and search results.  Screenshots are saved
under docs/_build/screenshots/ to look at.

Needs the built site (`make docs`; .ci/run runs this test after building it) and Debian's ``chromium``
(.ci/run installs it); skipped with the reason when either is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "docs" / "_build" / "html"
SHOTS = ROOT / "docs" / "_build" / "screenshots"
CHROMIUM = next(
    (
        p
        for p in (
            os.environ.get("AGREEKIT_CHROMIUM"),
            "/usr/bin/chromium",
            shutil.which("chromium"),
            shutil.which("chromium-browser"),
        )
        if p and Path(p).is_file()
    ),
    None,
)

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"),
    pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="docs not built (run `make docs` first)"),
]

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-extensions",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--allow-file-access-from-files",
    "--virtual-time-budget=15000",
]


def _chromium(tmp_path: Path, *args: str) -> str:
    profile = tmp_path / "profile"
    r = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert r.returncode == 0, f"chromium failed ({r.returncode}): {r.stderr[-2000:]}"
    return r.stdout


def _open(tmp_path: Path, page: str, shot: str) -> str:
    url = (HTML / page.split("?")[0]).as_uri() + ("?" + page.split("?")[1] if "?" in page else "")
    dom = _chromium(tmp_path, "--dump-dom", url)
    SHOTS.mkdir(parents=True, exist_ok=True)
    png = SHOTS / shot
    png.unlink(missing_ok=True)
    _chromium(tmp_path, f"--screenshot={png}", "--window-size=1280,1600", url)
    assert png.is_file() and png.stat().st_size > 10_000, f"no screenshot of {page}"
    return dom


def _text(dom: str) -> str:
    dom = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", dom)))


def test_index(tmp_path):
    dom = _open(tmp_path, "index.html", "index.png")
    text = _text(dom)
    for words in (
        "Agreement measures between rankings, partitions and evaluation metrics",
        "Quickstart",
        "Coming from",
        "User guide",
        "Examples",
        "API",
        "Validation & notes",
        "Development",
        "Kemeny consensus",
    ):
        assert words in text, f"index: {words!r} not on the page"
    assert 'class="bd-sidebar' in dom or "bd-sidebar" in dom, "the theme's navigation is missing"


def test_api_page_with_equations(tmp_path):
    dom = _open(tmp_path, "api/generated/agreekit.clustering.lfr_benchmark.html", "api_lfr_benchmark.png")
    text = _text(dom)
    for words in ("agreekit.clustering.lfr_benchmark", "Parameters", "Returns", "Examples"):
        assert words in text, f"API page: {words!r} not on the page"
    n_math = dom.count("<mjx-container")
    assert n_math >= 4, f"API page: {n_math} equations rendered by MathJax (expected the :math: of the parameters)"
    assert "\\propto" not in text, "API page: raw TeX left on the page (MathJax did not run)"


def test_guide_equations(tmp_path):
    dom = _open(tmp_path, "guide/ranking.html", "guide_ranking.png")
    assert dom.count("<mjx-container") >= 5, "ranking guide: the definitions of ρ_w, τ_w were not rendered"
    assert "<svg" in dom, "ranking guide: MathJax's SVG output is missing"
    assert "\\operatorname" not in _text(dom), "ranking guide: raw TeX left on the page"


def test_search_kemeny(tmp_path):
    dom = _open(tmp_path, "search.html?q=kemeny", "search_kemeny.png")
    results = re.findall(r'<li[^>]*>\s*<a href="([^"]+)"', dom.split('id="search-results"', 1)[-1])
    pages = {r.split("#")[0].split("?")[0] for r in results}
    assert len(pages) >= 3, f"search for 'kemeny' found {len(pages)} pages: {sorted(pages)}"
    for expected in ("guide/consensus.html", "api/generated/agreekit.consensus.kemeny.html"):
        assert any(p.endswith(expected) for p in pages), f"search for 'kemeny' misses {expected}: {sorted(pages)}"


# --- layout and search at real window sizes, through the DevTools protocol (a pipe: no port, stdlib only) ---


class _Page:
    """One headless Chromium tab driven over ``--remote-debugging-pipe`` (JSON messages ending in NUL)."""

    def __init__(self, tmp_path: Path, width: int, height: int):
        import json

        self._json = json
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():  # the protocol's pipes are the child's fds 3 (commands) and 4 (answers)
            a, b = os.dup(to_child_r), os.dup(from_child_w)  # >= 5 by now: dup2 cannot clobber them
            os.dup2(a, 3)
            os.dup2(b, 4)  # dup2'ed descriptors are inherited by the exec'ed browser

        self._proc = subprocess.Popen(
            [
                CHROMIUM,
                *[f for f in FLAGS if not f.startswith("--virtual-time")],
                "--remote-debugging-pipe",
                f"--user-data-dir={tmp_path / f'profile{width}'}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=fds,
            close_fds=False,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.session = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _read(self) -> dict:
        while b"\0" not in self._buf:
            chunk = os.read(self._from_child, 1 << 16)
            assert chunk, "chromium closed the DevTools pipe"
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return self._json.loads(msg)

    def call(self, method: str, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to_child, self._json.dumps(msg).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._id:
                assert "error" not in answer, f"{method}: {answer['error']}"
                return answer["result"]

    def js(self, expression: str):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in r, f"javascript failed: {r['exceptionDetails']}"
        return r["result"].get("value")

    def open(self, page: str, *, ready: str = "document.readyState === 'complete'", timeout: float = 60.0):
        import time

        url = (HTML / page.split("?")[0]).as_uri() + ("?" + page.split("?")[1] if "?" in page else "")
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not self.js(f"document.readyState === 'complete' && ({ready})"):
            assert time.monotonic() < deadline, f"{page}: not ready after {timeout} s ({ready})"
            time.sleep(0.2)
        time.sleep(0.5)  # fonts, MathJax typesetting

    def screenshot(self, name: str) -> Path:
        import base64

        SHOTS.mkdir(parents=True, exist_ok=True)
        png = SHOTS / name
        png.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))
        return png

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        os.close(self._to_child)
        os.close(self._from_child)
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


@pytest.fixture(scope="module")
def page_1920(tmp_path_factory):
    page = _Page(tmp_path_factory.mktemp("chromium"), 1920, 1200)
    yield page
    page.close()


@pytest.fixture(scope="module")
def page_1400(tmp_path_factory):
    page = _Page(tmp_path_factory.mktemp("chromium"), 1400, 1000)
    yield page
    page.close()


# the article's width, and every code block and table that is wider than its own box or than the article
MEASURE = r"""(() => {
  const article = document.querySelector('article.bd-article');
  const box = article.getBoundingClientRect();
  const bad = [];
  for (const el of article.querySelectorAll('pre, table')) {
    const r = el.getBoundingClientRect();
    const scroller = el.closest('.pst-scrollable-table-container, div.highlight, .bd-article-container');
    const over = el.scrollWidth > el.clientWidth + 1 || r.right > box.right + 1
                 || (scroller && scroller.scrollWidth > scroller.clientWidth + 1);
    if (over) bad.push(`${el.tagName.toLowerCase()} (${el.scrollWidth} > ${el.clientWidth} px): `
                       + el.textContent.trim().slice(0, 60));
  }
  const container = document.querySelector('.bd-article-container');
  return {article: box.width, n: article.querySelectorAll('pre, table').length, bad: bad,
          page_overflow: container.scrollWidth > container.clientWidth + 1};
})()"""

LAYOUT_PAGES = [
    "quickstart.html",
    "guide/significance.html",
    "guide/clustering.html",
    "api/generated/agreekit.ranking.weighted_correlation_test.html",
]


@pytest.mark.parametrize("page", LAYOUT_PAGES)
def test_layout_1920(page_1920, page):
    page_1920.open(page)
    m = page_1920.js(MEASURE)
    page_1920.screenshot("1920_" + page.replace("/", "_").replace(".html", ".png"))
    assert m["n"] > 0, f"{page}: no code block or table measured"
    assert m["article"] >= 900, f"{page}: the article is {m['article']:.0f} px wide at 1920 px (want >= 900)"
    assert not m["bad"], f"{page}: {len(m['bad'])} code blocks/tables overflow their box: {m['bad']}"
    assert not m["page_overflow"], f"{page}: the article scrolls horizontally"


@pytest.mark.parametrize("page", LAYOUT_PAGES)
def test_layout_1400(page_1400, page):
    page_1400.open(page)
    m = page_1400.js(MEASURE)
    page_1400.screenshot("1400_" + page.replace("/", "_").replace(".html", ".png"))
    assert not m["bad"], f"{page}: {len(m['bad'])} code blocks/tables overflow their box at 1400 px: {m['bad']}"


def test_sidebar_hierarchy(page_1920):
    """Every part of the site is a header link; a guide page's left sidebar lists its part's pages."""
    page_1920.open("guide/significance.html")
    header = page_1920.js(
        "[...document.querySelectorAll('.bd-header .navbar-nav .nav-link')].map(a => a.textContent.trim())"
    )
    assert header[:5] == ["User guide", "Examples", "API", "Validation & notes", "Development"], header
    side = page_1920.js(
        "[...document.querySelectorAll('.bd-sidebar-primary .bd-docs-nav a')].map(a => a.textContent.trim())"
    )
    assert len(side) >= 10 and "Quickstart" in side, f"left sidebar of the significance guide: {side}"
    assert page_1920.js("!!document.querySelector('button.copybtn')"), "no copy button on code blocks"


def _search(page: _Page, query: str) -> list[str]:
    from urllib.parse import quote

    page.open(
        f"search.html?q={quote(query)}",
        ready="/Search finished/.test(document.querySelector('#search-results')?.textContent || '')",
    )
    page.screenshot(f"1920_search_{query}.png")
    hrefs = page.js("[...document.querySelectorAll('#search-results li > a')].map(a => a.getAttribute('href'))")
    return [h.split("#")[0].split("?")[0] for h in hrefs]


@pytest.mark.parametrize("query", ["p-value", "pvalue"])
def test_search_pvalue(page_1920, query):
    results = _search(page_1920, query)
    first5 = results[:5]
    for expected in ("guide/significance.html", "api/generated/agreekit.ranking.weighted_correlation_test.html"):
        assert any(r.endswith(expected) for r in first5), f"search {query!r}: {expected} not in the first five {first5}"
    assert not any("sg_execution_times" in r for r in results), f"search {query!r} lists timing pages"


def test_search_no_timing_pages(page_1920):
    results = _search(page_1920, "execution")
    assert results is not None
    assert not any("sg_execution_times" in r for r in results), f"timing pages in the search index: {results}"


def test_reference_labels(page_1920):
    """numpydoc References: each label stands left of its text; no author initial turned into a list marker."""
    page_1920.open("api/generated/agreekit.ranking.weighted_correlation_test.html")
    refs = page_1920.js(r"""[...document.querySelectorAll('.bd-article div.citation')].map(c => {
        const label = c.querySelector('span.label').getBoundingClientRect();
        const body = c.querySelector(':scope > :not(span.label)');
        return {text: c.textContent.trim().slice(0, 50), lists: c.querySelectorAll('ol, ul').length,
                overlap: label.right > body.getBoundingClientRect().left + 0.5};
    })""")
    assert len(refs) >= 2, f"the API page lists {len(refs)} references"
    for ref in refs:
        assert ref["lists"] == 0, f"reference rendered as a list (its marker overlaps the label): {ref['text']!r}"
        assert not ref["overlap"], f"reference label overlaps its text: {ref['text']!r}"
