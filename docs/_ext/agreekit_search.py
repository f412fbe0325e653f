"""Search tuning through Sphinx's own mechanisms.

* ``agreekit_index_terms`` (conf.py): ``{docname: [term, ...]}``.  Each term becomes a *main* entry of the
  general index pointing at the top of that page (as an ``{index}`` directive would), so the built-in search
  ranks the page first for a query equal to the term ("p-value", "pvalue"): searchtools.js scores an index
  entry that contains the whole query at 100 × len(query) / len(entry), well above full-text matches.
  Done here, not in the pages, because some of the pages are generated (API pages) and the terms are a
  property of the site's search, not of the text.
* ``agreekit_nosearch``: regular expressions of docnames kept out of the full-text search index (Sphinx's
  ``nosearch`` file metadata), e.g. sphinx-gallery's computation-time pages; the pages stay in the site.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx


def _add_index_terms(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    terms = app.config.agreekit_index_terms.get(docname)
    if not terms:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        raise ValueError(f"agreekit_index_terms: {docname!r} has no section to attach index entries to")
    target_id = "index-search-terms"
    target = nodes.target("", "", ids=[target_id])
    index = addnodes.index(entries=[("single", term, target_id, "main", None) for term in terms], inline=False)
    # after the title, so that a result opens the page at its heading
    position = 1 if section.children and isinstance(section.children[0], nodes.title) else 0
    section.insert(position, target)
    section.insert(position, index)


def _check_terms(app: Sphinx, env) -> None:
    missing = sorted(set(app.config.agreekit_index_terms) - set(env.found_docs))
    if missing:
        raise ValueError(f"agreekit_index_terms names pages that do not exist: {missing}")


def _nosearch(app: Sphinx, doctree: nodes.document) -> None:
    # after Sphinx's metadata collector (also on doctree-read) has filled env.metadata[docname]
    docname = app.env.docname
    if any(re.search(pattern, docname) for pattern in app.config.agreekit_nosearch):
        app.env.metadata.setdefault(docname, {})["nosearch"] = True


def setup(app: Sphinx) -> dict:
    app.add_config_value("agreekit_index_terms", {}, "env", types=[dict])
    app.add_config_value("agreekit_nosearch", [], "env", types=[list])
    app.connect("doctree-read", _add_index_terms)
    app.connect("doctree-read", _nosearch)
    app.connect("env-check-consistency", _check_terms)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
