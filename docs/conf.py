"""Sphinx configuration of the agreekit documentation (``make docs``; no network access at build time)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

import agreekit  # noqa: E402

project = "agreekit"
author = "the agreekit developers"
copyright = "2026, the agreekit developers"
release = version = agreekit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.extlinks",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "agreekit_quotes",
    "agreekit_apigen",
    "agreekit_coming_from",
    "agreekit_schema",
    "agreekit_docstrings",
    "agreekit_search",
]

# :doi:`10.1145/...` in docstrings and pages (as scipy writes them)
extlinks = {"doi": ("https://doi.org/%s", "doi:%s")}

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "gallery/*.py", "gallery/*.md5", "gallery/*.json"]
templates_path = ["_templates"]
html_static_path = [p for p in ("_static",) if (DOCS / p).is_dir()] + [str(DOCS / "_build" / "mathjax_static")]
nitpicky = True
# objects of other packages: no intersphinx inventories offline, so references to them stay plain text
EXTERNAL = r"(numpy|np|scipy|sklearn|pandas|pd|cdlib|clusim|networkx|nx|igraph|ir_measures|pytrec_eval|matplotlib|statsmodels|numba|highspy|snakemake|jsonschema)"
nitpick_ignore_regex = [(r"py:.*", EXTERNAL + r"(\..*)?")]


# --- MathJax: served from the built site (the [docs] extra ships it; no CDN at build or view time) ----------
def _mathjax_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("MathJax is missing: install the [docs] extra (`make docs` does)")
    es5 = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    if not (es5 / "tex-svg.js").is_file():
        raise RuntimeError(f"MathJax is incomplete: {es5 / 'tex-svg.js'} is missing")
    return es5


_MATHJAX_STAGE = DOCS / "_build" / "mathjax_static"


def _stage_mathjax() -> None:
    import shutil

    target = _MATHJAX_STAGE / "mathjax"
    if not (target / "tex-svg.js").is_file():  # the SVG build (fonts inside) and its TeX extensions
        shutil.rmtree(target, ignore_errors=True)
        source = _mathjax_dir()
        shutil.copytree(source / "input" / "tex" / "extensions", target / "input" / "tex" / "extensions")
        shutil.copy2(source / "tex-svg.js", target / "tex-svg.js")


_stage_mathjax()
mathjax_path = "mathjax/tex-svg.js"
mathjax3_config = {"tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]}}

# --- autodoc / autosummary / numpydoc -----------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
from agreekit_apigen import CHECKS  # noqa: E402

numpydoc_validation_checks = set(CHECKS)
from agreekit_apigen import VALIDATION_EXCLUDE  # noqa: E402

numpydoc_validation_exclude = VALIDATION_EXCLUDE

# --- MyST ---------------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

# --- sphinx-gallery -----------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "reset_modules": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "min_reported_time": 0,
    "abort_on_example_error": True,
}

# --- HTML ---------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"agreekit {release}"
# five parts (docs/index.md): User guide / Examples / API / Validation & notes / Development; the header
# links to them, the left sidebar shows the current part's pages (grouped by the parts' toctree captions)
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "show_nav_level": 1,
    "navigation_depth": 3,
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"**": ["sidebar-nav-bs"], "index": [], "search": [], "genindex": []}
html_css_files = ["agreekit.css"]  # docs/_static/agreekit.css: page and article width, wrapping code and tables
html_js_files = ["agreekit.js"]  # docs/_static/agreekit.js: break points in long code inside table cells
html_show_sourcelink = False

# --- copy buttons on code blocks (sphinx-copybutton): copy the code, not the prompts or the output ----------
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# --- search (docs/_ext/agreekit_search.py) ------------------------------------------------------------------
# pages that a query equal to one of these terms must find first (main entries of the general index)
_PVALUE = ["p-value", "pvalue", "p-values", "pvalues"]
agreekit_index_terms = {
    "guide/significance": _PVALUE + ["significance"],
    "api/generated/agreekit.ranking.weighted_correlation_test": _PVALUE,
}
# sphinx-gallery's computation-time pages stay in the site but out of the search index
agreekit_nosearch = [r"(^|/)sg_execution_times$", r"(^|/)sg_api_usage$"]
html_copy_source = False
