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
CHROMIUM = next((p for p in (os.environ.get("AGREEKIT_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                             shutil.which("chromium-browser")) if p and Path(p).is_file()), None)

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"),
    pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="docs not built (run `make docs` first)"),
]

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-extensions", "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--allow-file-access-from-files", "--virtual-time-budget=15000"]


def _chromium(tmp_path: Path, *args: str) -> str:
    profile = tmp_path / "profile"
    r = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                       timeout=180, env={**os.environ, "HOME": str(tmp_path)})
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
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))


def test_index(tmp_path):
    dom = _open(tmp_path, "index.html", "index.png")
    text = _text(dom)
    for words in ("Agreement measures between rankings, partitions and evaluation metrics", "Quickstart",
                  "Coming from", "API reference", "Kemeny consensus"):
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
