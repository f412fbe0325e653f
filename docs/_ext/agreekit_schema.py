"""``{json-schema} PATH`` directive: a JSON Schema file rendered field by field (a table), at build time.

PATH is relative to the repository root; YAML schemas (``config/*.schema.yaml``) work too.  Nested objects
are flattened to dotted paths (``fits.mean.coefficients``; array items as ``[]``), ``$ref`` to ``$defs``
is followed, and each row shows the type, whether the field is required and the description/constraints.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = (
    "const",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "minItems",
    "maxItems",
    "default",
)


def load(path: str | Path) -> dict:
    p = ROOT / path
    text = p.read_text(encoding="utf-8")
    if p.suffix in (".yaml", ".yml"):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def _resolve(node: dict, root: dict, seen=()) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            break
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        extra = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **extra}
        seen = (*seen, ref)
    return node


def _type(node: dict) -> str:
    if "const" in node:
        return "constant"
    if "enum" in node:
        return "one of"
    t = node.get("type")
    if isinstance(t, list):
        return " | ".join(t)
    if t == "array":
        items = node.get("items")
        if isinstance(items, dict):
            inner = _type(items)
            return f"array of {inner}" if inner else "array"
        return "array"
    if t:
        return t
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " | ".join(_type(n) or "any" for n in node[key])
    return "any"


def _constraints(node: dict) -> str:
    out = []
    for key in CONSTRAINTS:
        if key in node:
            out.append(f"{key} {json.dumps(node[key], ensure_ascii=False)}")
    items = node.get("items")
    if isinstance(items, dict):
        for key in CONSTRAINTS:
            if key in items:
                out.append(f"items: {key} {json.dumps(items[key], ensure_ascii=False)}")
    return "; ".join(out)


def rows(schema: dict) -> list[tuple[str, str, str, str, str]]:
    """(path, type, required, description, constraints) for every field, depth first."""
    out = []

    def walk(node, prefix, required):
        node = _resolve(node, schema)
        props = node.get("properties") or {}
        req = set(node.get("required", []))
        for name, sub in props.items():
            sub = _resolve(sub, schema)
            path = f"{prefix}.{name}" if prefix else name
            out.append(
                (path, _type(sub), "yes" if name in req else "no", sub.get("description", ""), _constraints(sub))
            )
            if isinstance(sub.get("properties"), dict):
                walk(sub, path, req)
            items = _resolve(sub.get("items"), schema) if isinstance(sub.get("items"), dict) else None
            if items and isinstance(items.get("properties"), dict):
                walk(items, f"{path}[]", req)

    walk(schema, "", set())
    return out


class JsonSchema(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        path = self.arguments[0]
        env.note_dependency(str(ROOT / path))
        try:
            schema = load(path)
        except (OSError, ValueError) as exc:
            return [self.state.document.reporter.warning(f"json-schema {path}: {exc}", line=self.lineno)]
        table = nodes.table(classes=["agreekit-schema"])
        group = nodes.tgroup(cols=5)
        table += group
        for width in (22, 12, 6, 40, 20):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        row = nodes.row()
        for title in ("field", "type", "required", "meaning", "constraints"):
            entry = nodes.entry()
            entry += nodes.paragraph(text=title)
            row += entry
        head += row
        body = nodes.tbody()
        group += body
        for path_, type_, req, desc, cons in rows(schema):
            row = nodes.row()
            for i, text in enumerate((path_, type_, req, desc, cons)):
                entry = nodes.entry()
                para = nodes.paragraph()
                para += nodes.literal(text, text) if i in (0, 4) and text else nodes.Text(text)
                entry += para
                row += entry
            body += row
        intro = nodes.paragraph()
        title = schema.get("title") or path
        intro += nodes.Text(f"{title} — rendered from ")
        intro += nodes.literal(path, path)
        intro += nodes.Text(" when the docs were built.")
        return [intro, table]


def setup(app):
    app.add_directive("json-schema", JsonSchema)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
