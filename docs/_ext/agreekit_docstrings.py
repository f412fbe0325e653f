"""Docstrings are written for ``help()`` (plain text): ``|d|``, ``t*b`` and ``η_`` read naturally there but
are reST markup (substitutions, emphasis, targets).  Before numpydoc parses a docstring, escape those
characters in prose lines; literal blocks, doctest lines, tables and math are left alone.  A reference that
starts with an author's initial (``.. [1] B. Phipson and ...``) would open an enumerated list ("B.") whose
marker overlaps the citation's label: the initial's period is escaped."""

from __future__ import annotations

import re

_EMPH = re.compile(r"(?<![\w*`\\])(\*\*?)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_CITATION_INITIAL = re.compile(r"^(\s*\.\. \[[^\]]+\]\s+)([A-Za-z]{1,2}|[IVXLCDM]+)\.(\s)")
_ROLE = re.compile(r"(:\w+:`[^`]*`|``[^`]*``|`[^`]*`_?)")


def _escape_prose(text: str) -> str:
    parts = _ROLE.split(text)
    for i in range(0, len(parts), 2):  # even parts are outside roles / literals
        seg = parts[i]
        if not seg:
            continue
        keep = []

        def _protect(m):
            keep.append(m.group(0))
            return f"\x00{len(keep) - 1}\x00"

        seg = _EMPH.sub(_protect, seg)
        seg = seg.replace("|", r"\|")
        seg = re.sub(r"(?<=[\w)\]ᵇ′'])\*(?=[\wᵇ'′|,)}\]])", r"\*", seg)
        seg = re.sub(r"(?<=\w)_(?=[\s,.;:)\]]|$)", r"\_", seg)
        seg = re.sub("\x00(\\d+)\x00", lambda m: keep[int(m.group(1))], seg)
        parts[i] = seg
    return "".join(parts)


def escape_lines(lines: list[str]) -> list[str]:
    out = []
    grid = any(line.strip().startswith(("+-", "+=")) for line in lines)
    literal_indent = None  # inside a literal block / directive body: indentation of its parent
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                out.append(line)
                continue
        if (
            not stripped
            or stripped.startswith((">>>", "...", ".. ", "+-", "+=", "=====", "-----"))
            or (grid and stripped.startswith("|"))
            or ":math:" in line
        ):
            out.append(_CITATION_INITIAL.sub(r"\1\2\\.\3", line))
            if stripped.startswith(".. "):
                literal_indent = indent
            continue
        new = _escape_prose(line)
        out.append(new)
        if stripped.endswith("::"):
            literal_indent = indent
    return out


def _process(app, what, name, obj, options, lines):
    lines[:] = escape_lines(lines)


def setup(app):
    app.connect("autodoc-process-docstring", _process, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
