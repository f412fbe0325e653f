"""``{equivalents}`` directive: a table of equivalent calls, every row executed when the docs build.

The directive body is YAML::

    setup: |
      import numpy as np            # run once; every row sees its names
    rows:
      - ours: weighted_kendall(x, y)                  # an expression
        theirs: scipy.stats.weightedtau(x, y)[0]      # an expression, or
        reference: 0.165561                           # a published value (with `source:`)
        source: ConsRank 3.0 on emond_mason.csv (notes/consensus.md §3)
        same: 1e-12                                   # |ours - theirs| <= tol, or
        differs: "why the two numbers differ"         # they differ by more than 1e-9 AND
        relation: "abs(ours / np.log(2) - theirs) <= 1e-12"   # the claimed relation holds

A ``differs`` row must state the relation it claims as a Python expression in ``ours`` and ``theirs``
(the two values) and the setup's names, e.g. a unit conversion, an independent computation of each side,
or two Monte Carlo estimates within k standard errors of the exact value; the row holds only if the
expression is true.  Both sides are evaluated, the table shows both values and the verdict, and a row
whose verdict is false (``same`` but different, ``differs`` but equal or with a false or missing
``relation``, or an exception) is a build warning, i.e. an error with ``-W``.  ``tests/test_docs_coming_from.py`` runs the same rows with :func:`run_block` without Sphinx.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive

BLOCK_RE = re.compile(r"^```\{equivalents\}[^\n]*\n(.*?)^```", re.S | re.M)


def _plain(value):
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (str, bytes)):
        try:
            return value.item()
        except (TypeError, ValueError):
            return value
    return value


def _flat(value):
    value = _plain(value)
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_flat(v))
        return out
    return [value]


def show(value) -> str:
    value = _plain(value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.10g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(show(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return str(value)


def distance(a, b) -> float:
    """The largest absolute difference between two values (inf when their shapes differ)."""
    fa, fb = _flat(a), _flat(b)
    if len(fa) != len(fb):
        return math.inf
    worst = 0.0
    for x, y in zip(fa, fb):
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return math.inf
            continue
        if x is None or y is None:
            if x is not y:
                return math.inf
            continue
        x, y = float(x), float(y)
        if math.isnan(x) and math.isnan(y):
            continue
        if math.isnan(x) or math.isnan(y):
            return math.inf
        worst = max(worst, abs(x - y))
    return worst


def parse_block(text: str) -> dict:
    spec = yaml.safe_load(text)
    if not isinstance(spec, dict) or not isinstance(spec.get("rows"), list):
        raise ValueError("an equivalents block is a mapping with `rows:` (and optionally `setup:`)")
    return spec


def run_block(spec: dict, cwd: Path | None = None) -> list[dict]:
    """Execute ``setup`` and every row; return one record per row with values and the verdict."""
    import os

    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        ns: dict = {"__name__": "agreekit_docs"}
        exec(compile(spec.get("setup", ""), "<equivalents setup>", "exec"), ns)
        out = []
        for row in spec["rows"]:
            rec = {
                "ours": row["ours"],
                "theirs": row.get("theirs"),
                "source": row.get("source"),
                "same": row.get("same"),
                "differs": row.get("differs"),
                "relation": row.get("relation"),
                "ok": False,
                "why": "",
            }
            try:
                rec["ours_value"] = eval(row["ours"], ns)
                if "theirs" in row:
                    rec["theirs_value"] = eval(row["theirs"], ns)
                elif "reference" in row:
                    rec["theirs_value"] = row["reference"]
                    if not row.get("source"):
                        raise ValueError("a `reference:` row needs its `source:`")
                else:
                    raise ValueError("a row needs `theirs:` or `reference:`")
                d = distance(rec["ours_value"], rec["theirs_value"])
                rec["distance"] = d
                if "same" in row:
                    tol = float(row["same"])
                    rec["ok"] = d <= tol
                    rec["why"] = "" if rec["ok"] else f"differ by {d:.3g} > {tol:g}"
                elif "differs" in row:
                    if not row.get("relation"):
                        raise ValueError(
                            "a `differs:` row needs `relation:` (the claimed relation of "
                            "`ours` and `theirs`, a Python expression)"
                        )
                    if d <= 1e-9:
                        rec["why"] = "the row says they differ, but they are equal"
                    elif not bool(
                        eval(row["relation"], {**ns, "ours": rec["ours_value"], "theirs": rec["theirs_value"]})
                    ):
                        rec["why"] = f"the claimed relation `{row['relation']}` does not hold"
                    else:
                        rec["ok"] = True
                else:
                    raise ValueError("a row needs `same: TOL` or `differs: REASON`")
            except Exception as exc:  # noqa: BLE001 - reported as the row's failure
                rec["why"] = f"{type(exc).__name__}: {exc}"
            out.append(rec)
        return out
    finally:
        os.chdir(old)


def blocks_in(path: Path) -> list[dict]:
    return [parse_block(m.group(1)) for m in BLOCK_RE.finditer(path.read_text(encoding="utf-8"))]


def _literal(text: str):
    return nodes.literal(text, text)


def _cell(*children):
    entry = nodes.entry()
    para = nodes.paragraph()
    for ch in children:
        para += ch
    entry += para
    return entry


class Equivalents(Directive):
    has_content = True
    optional_arguments = 0

    def run(self):
        env = self.state.document.settings.env
        root = Path(env.srcdir).parent
        try:
            spec = parse_block("\n".join(self.content))
        except Exception as exc:  # noqa: BLE001
            return [self.state.document.reporter.warning(f"equivalents: {exc}", line=self.lineno)]
        records = run_block(spec, cwd=root)
        table = nodes.table(classes=["agreekit-equivalents"])
        group = nodes.tgroup(cols=5)
        table += group
        for width in (30, 12, 30, 12, 24):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for title in ("agreekit", "value", "peer", "value", "verdict"):
            row += _cell(nodes.Text(title))
        head += row
        group += head
        body = nodes.tbody()
        messages = []
        for rec in records:
            row = nodes.row()
            row += _cell(_literal(rec["ours"]))
            row += _cell(nodes.Text(show(rec.get("ours_value", "—"))))
            peer = _literal(rec["theirs"]) if rec["theirs"] else nodes.Text(rec["source"] or "")
            row += _cell(peer)
            row += _cell(nodes.Text(show(rec.get("theirs_value", "—"))))
            if rec["same"] is not None:
                verdict = f"same (|Δ| = {rec.get('distance', math.nan):.1e} ≤ {float(rec['same']):g})"
                if rec["theirs"] and rec["source"]:
                    verdict += f"; {rec['source']}"
            else:
                verdict = f"differs: {rec['differs']} (checked: {rec['relation']})"
            row += _cell(nodes.Text(verdict if rec["ok"] else f"FAILED: {rec['why']}"))
            body += row
            if not rec["ok"]:
                messages.append(
                    self.state.document.reporter.warning(
                        f"equivalents row `{rec['ours']}`: {rec['why']}", line=self.lineno
                    )
                )
        group += body
        return [table, *messages]


def setup(app):
    app.add_directive("equivalents", Equivalents)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
