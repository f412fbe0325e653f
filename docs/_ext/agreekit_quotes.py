"""Sphinx role ``{bench}`` / ``:bench:``: a number quoted from a file that holds it, never typed.

Syntax: ``{bench}`FILE:KEY[:FORMAT]``` where FILE is relative to ``benchmarks/output/`` (or to the
repository root when it contains a ``/``), KEY is a dotted path into the JSON document (list items by
index, ``a.0.b``; a field named with dots, ``"0.05"``, is found too), and FORMAT is a Python format spec (default ``.3g``) optionally followed by a suffix
after ``;`` (``.1f;×`` renders ``8.0×``; not ``|``, which would split a Markdown table cell).  The role renders the value of the file at build time and records
every quote in ``_quotes.json`` of the HTML output, which ``tests/test_docs_quotes.py`` compares with the
files.  An unknown file or key is a build warning (an error with ``-W``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "output"
ROLE_RE = re.compile(r"\{bench\}`([^`]+)`|:bench:`([^`]+)`")


class QuoteError(ValueError):
    """A quote whose file, key or format does not resolve."""


def parse(text: str) -> tuple[str, str, str, str]:
    """``FILE:KEY[:FORMAT[;SUFFIX]]`` -> (file, key, format spec, suffix)."""
    parts = text.strip().split(":", 2)
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise QuoteError(f"{text!r}: write FILE:KEY[:FORMAT]")
    fmt = parts[2] if len(parts) == 3 else ".3g"
    if "|" in fmt:
        raise QuoteError(f"{text!r}: the suffix separator is ';' ('|' splits Markdown table cells)")
    spec, _, suffix = fmt.partition(";")
    return parts[0], parts[1], spec, suffix


def source_path(file: str) -> Path:
    return (ROOT / file) if "/" in file else (BENCH / file)


def lookup(file: str, key: str):
    """The value at dotted ``key`` in the JSON ``file``."""
    path = source_path(file)
    if not path.is_file():
        raise QuoteError(f"{file}: no such file ({path})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise QuoteError(f"{file}: not JSON ({exc})") from None
    node = data
    parts = key.split(".")
    i = 0
    while i < len(parts):
        part = parts[i]
        if isinstance(node, list):
            try:
                node = node[int(part)]
            except (ValueError, IndexError):
                raise QuoteError(f"{file}: key {key!r}: no item {part!r}") from None
            i += 1
            continue
        # a field whose name holds dots ("0.05") is matched by the shortest run of parts that names it
        j = next(
            (j for j in range(i + 1, len(parts) + 1) if isinstance(node, dict) and ".".join(parts[i:j]) in node), None
        )
        if j is None:
            raise QuoteError(f"{file}: key {key!r}: no field {part!r}")
        node = node[".".join(parts[i:j])]
        i = j
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise QuoteError(f"{file}: key {key!r} is {type(node).__name__}, not a number")
    return node


def render(text: str) -> str:
    """The text the role shows for ``text`` (the file's current value, formatted)."""
    file, key, spec, suffix = parse(text)
    value = lookup(file, key)
    try:
        shown = format(value, spec)
    except ValueError:
        raise QuoteError(f"{text!r}: bad format {spec!r}") from None
    return shown + suffix


def bench_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    try:
        shown = render(text)
    except QuoteError as exc:
        msg = inliner.reporter.warning(f"bench quote: {exc}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    file, key, _, _ = parse(text)
    quotes = env.__dict__.setdefault("agreekit_quotes", {})
    quotes.setdefault(env.docname, []).append(
        {"doc": env.docname, "text": text, "file": file, "key": key, "shown": shown}
    )
    node = nodes.inline(rawtext, shown, classes=["agreekit-quote"])
    node["ids"] = []
    return [node], []


def _purge(app, env, docname):
    env.__dict__.setdefault("agreekit_quotes", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    # a parallel reader's env holds the quotes of the documents it read (``docnames``): take those only
    mine = env.__dict__.setdefault("agreekit_quotes", {})
    theirs = getattr(other, "agreekit_quotes", {})
    for doc in docnames:
        if doc in theirs:
            mine[doc] = theirs[doc]


def _write(app, exc):
    if exc is None and app.builder.format == "html":
        quotes = [q for doc in sorted(getattr(app.env, "agreekit_quotes", {})) for q in app.env.agreekit_quotes[doc]]
        Path(app.outdir, "_quotes.json").write_text(
            json.dumps(quotes, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def setup(app):
    app.add_role("bench", bench_role)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
