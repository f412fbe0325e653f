"""The API reference, generated from the areas' ``__all__`` at every build (one page per public object).

``docs/api/<area>.rst`` lists every name of ``agreekit.<area>.__all__`` in an autosummary table with
``:toctree:``, so autosummary writes one page per object; nothing is listed by hand, a new public name gets
its page at the next build, and a name dropped from ``__all__`` loses it.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

AREAS = {
    "ranking": "Weighted rank correlations, standardization and significance",
    "ranking.tablegen": "Generating the coefficient tables (the pipeline's stage)",
    "consensus": "Kemeny consensus rankings",
    "clustering": "Clustering agreement and LFR benchmark graphs",
    "ireval": "IR evaluation: metrics and the bootstrap",
    "metaeval": "Meta-evaluation: do two metrics agree on the top systems?",
    "datasets": "Example data sets shipped in the package",
}

#: numpydoc checks run in the build (and by tests/test_docs_numpydoc.py) over every public object.
CHECKS = ("PR01", "PR02", "RT01", "EX01", "GL08")

#: Public objects whose docstrings do not pass those checks yet, listed by name (never by pattern) so that
#: every other object is validated.  tests/test_docs_numpydoc.py fails when an object outside these lists
#: fails, and when one inside them passes (then delete its line): the lists only shrink.
#: Both lists are empty (every public object passes); they stay as
#: the place to park an object temporarily, by name, with the test failing once it passes.
PENDING_SPLIT = ()
PENDING_FIX = ()

#: Data (dicts, tuples): their text is the ``#:`` comment autodoc renders; Parameters/Returns/Examples checks
#: do not apply to a value.
DATA = (
    "agreekit.clustering.MEASURES",
    "agreekit.ireval.METRICS",
    "agreekit.clustering.PHI_FUNCTIONS",
    "agreekit.metaeval.COLUMNS",
)

VALIDATION_EXCLUDE = {"^" + re.escape(name) + "$" for name in (*PENDING_SPLIT, *PENDING_FIX, *DATA)}


def public_names(area: str) -> list[str]:
    module = importlib.import_module(f"agreekit.{area}")
    return list(getattr(module, "__all__", []))


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def write_api(docs: Path) -> None:
    api = docs / "api"
    api.mkdir(exist_ok=True)
    index = [
        "API reference",
        "=============",
        "",
        "One page per public object, generated from each area's ``__all__``.",
        "",
        ".. currentmodule:: agreekit",
        "",
        "Every area raises one exception for bad input:",
        "",
        ".. autosummary::",
        "   :toctree: generated/",
        "   :template: class.rst",
        "",
        "   InputError",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    for area, title in AREAS.items():
        names = public_names(area)
        if not names:
            continue
        module = importlib.import_module(f"agreekit.{area}")
        fname = area.replace(".", "_")
        index.append(f"   {fname}")
        lines = [
            f"``agreekit.{area}``: {title}",
            "=" * (len(title) + len(area) + 16),
            "",
            f".. automodule:: agreekit.{area}",
            "   :no-members:",
            "",
            f".. currentmodule:: agreekit.{area}",
            "",
        ]
        for kind, heading in (("function", "Functions"), ("class", "Classes"), ("data", "Data")):
            group = [n for n in names if _kind(getattr(module, n)) == kind]
            if not group:
                continue
            lines += [
                heading,
                "-" * len(heading),
                "",
                ".. autosummary::",
                "   :toctree: generated/",
                f"   :template: {kind}.rst" if kind != "function" else "",
                "",
            ]
            lines += [f"   {n}" for n in group] + [""]
        text = "\n".join(lines)
        target = api / f"{fname}.rst"
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
    text = "\n".join(index) + "\n"
    target = api / "index.rst"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)


# --------------------------------------------------------------------------------------------------------
# Cross-references in docstrings name objects the way users import them (``agreekit.weighted_kendall``,
# ``agreekit.InputError``, ``KemenyResult.to_dict``, ``agreekit.ranking.weighting``); the reference
# pages document each object once, under its area (``agreekit.ranking.weighted_kendall``).  A reference that
# does not resolve as written is resolved here to the page of the same object: by identity for re-exports,
# to the documented class for its methods and attributes, to the area for a public submodule.  A reference into
# a private module (``agreekit._memory``) is shown as code without a link: private modules have no pages.
def _documented() -> dict[int, str]:
    out = {}
    for area in AREAS:
        module = importlib.import_module(f"agreekit.{area}")
        for name in public_names(area):
            obj = getattr(module, name)
            if inspect.isclass(obj) or callable(obj):
                out.setdefault(id(obj), f"agreekit.{area}.{name}")
    import agreekit

    out[id(agreekit.InputError)] = "agreekit.InputError"
    return out


def _import(path: str):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _candidates(target: str, module: str | None, klass: str | None) -> list[str]:
    out = [target]
    if module:
        if klass:
            out.append(f"{module}.{klass}.{target}")
        out.append(f"{module}.{target}")
    out += [f"agreekit.{area}.{target}" for area in AREAS]
    return out


def _resolve(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    from docutils import nodes as dn
    from sphinx.util.nodes import make_refnode

    target = node["reftarget"].lstrip("~.")
    if (
        target.startswith("agreekit.")
        and any(p.startswith("_") for p in target.split(".")[1:])
        and node.get("reftype") in ("mod", "func", "meth", "attr", "obj", "data")
    ):
        return dn.literal(target, contnode.astext())
    documented = env.app.__dict__.setdefault("_agreekit_documented", _documented())
    py = env.get_domain("py")
    if node.get("reftype") == "mod":
        parts = target.split(".")
        for cut in range(len(parts) - 1, 1, -1):
            name = ".".join(parts[:cut])
            if name in py.modules:
                mod = py.modules[name]
                return make_refnode(app.builder, node["refdoc"], mod.docname, mod.node_id, contnode, name)
        return None
    for cand in _candidates(target, node.get("py:module"), node.get("py:class")):
        parts = cand.split(".")
        for cut in range(len(parts), 1, -1):  # the object, else its owner (a method's class)
            obj = _import(".".join(parts[:cut]))
            if obj is None:
                continue
            name = documented.get(id(obj))
            if name and name in py.objects:
                entry = py.objects[name]
                return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name)
    return None


def setup(app):
    write_api(Path(app.srcdir))
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
