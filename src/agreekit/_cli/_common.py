"""Options every subcommand spells the same way (``--format``, ``-o``, ``--quiet``).

* ``-o/--output FILE`` — always a file; ``-`` (the default) is stdout.
* ``--output-dir DIR`` — a directory of several outputs.
* ``--format {json,csv,table}`` — on every subcommand that prints results; ``table`` is for reading
  (aligned columns, numbers to 4 significant digits: :func:`render_table`), json and csv for programs.
* ``--quiet`` — on every subcommand (:func:`agreekit.cli.build_parser` adds it where a module did not):
  no progress bars and no notes on stderr (bars are also off when stderr is not a terminal); errors and
  warnings are still printed.
* ``--rng N`` (synonym ``--seed``) — the integer seed behind the API's ``rng``.
* Every input file may be ``-`` (stdin).
* Renamed options keep their old spelling for one release (:func:`add_renamed`): using it
  prints one ``DeprecationWarning`` line naming the new one.

A handler declares the library function it calls with ``p.set_defaults(api=func)`` (or a
tuple of functions); the CLI contract test checks that every option either is a parameter
of that function under the same name or is one of the CLI-only options of
:data:`CLI_ONLY_OPTIONS`.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from agreekit._io import atomic_write, is_stdout, to_jsonable
from agreekit._validation import InputError

__all__ = [
    "add_output",
    "add_output_dir",
    "add_topic_column",
    "add_format",
    "add_quiet",
    "add_rng",
    "add_renamed",
    "write_output",
    "progress_of",
    "legacy_output_dir",
    "note",
    "render_table",
    "CLI_ONLY_OPTIONS",
]

#: options (``dest`` names) that exist only on the command line, with what they mean
CLI_ONLY_OPTIONS = {
    "output": "a file to write the result to (`-` = stdout)",
    "output_dir": "a directory for several output files",
    "format": "output format (json, csv, or table: aligned columns for reading)",
    "quiet": "no progress bars and no notes on stderr",
    "pairs": "bootstrap: print every pair's row (the default output is the summary)",
    "no_weights": "consensus: ignore any weight column (read_rankings(weights_column=None), which a string option cannot say)",
    "list": "flag: list a subcommand's named choices instead of computing (`clustering --list`, `table --list`)",
    "func": "(internal) the handler",
    "api": "(internal) the library function(s) the subcommand calls",
    "command": "(internal) the subcommand's name",
    "correlate": "bootstrap: a second score matrix whose system ranking is correlated with SCORES",
    "gmean": "metaeval: metrics summarised by the geometric mean (builds the API's summary mapping)",
    "no_pvalue": "metaeval: skip the p-values (the API's pvalue=False)",
    "consensus_method": "metaeval: the `method` of consensus_ranking (a second function's option)",
    "name": "metaeval: the collection's title in the files of --output-dir",
    "column": "the CSV column of an input file to read (ranking `correlate`)",
    "pvalue": "flag: also run the significance test (`correlate --pvalue`)",
    "depth": "rbo: cut each ranked list at depth K (evaluate's --depth is its API parameter)",
    "standardize": "flag: also return the standardized value (`correlate --standardize`)",
    "topic_column": "bootstrap/metaeval: how the score CSV's first column is read (load_scores(topic_column=...))",
}


class _RenamedOption(argparse.Action):
    """Stores like the wrapped action; records use of a deprecated spelling for a warning."""

    def __init__(self, option_strings, dest, *, old=(), inner="store", **kwargs):
        self.old = tuple(old)
        self.inner = inner
        if inner in ("store_true", "store_false"):
            kwargs["nargs"] = 0
            kwargs.setdefault("default", inner == "store_false")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if self.inner == "store_true":
            values = True
        elif self.inner == "store_false":
            values = False
        setattr(namespace, self.dest, values)
        if option_string in self.old:
            new = next(s for s in self.option_strings if s.startswith("--") and s not in self.old)
            pending = getattr(namespace, "_deprecated_options", None) or []
            pending.append(
                f"option {option_string} is deprecated, use {new} (the old spelling is removed in the next release)"
            )
            setattr(namespace, "_deprecated_options", pending)


def add_renamed(p, new: str, *old: str, action: str = "store", **kwargs):
    """``p.add_argument(new, *old, ...)`` where the ``old`` spellings warn when used."""
    return p.add_argument(new, *old, action=_RenamedOption, old=old, inner=action, **kwargs)


def add_output(p, *, what: str = "the result") -> None:
    p.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE",
        help=f"write {what} to FILE (default -, stdout); written atomically",
    )


def add_output_dir(p, *, what: str = "the output files", required: bool = False) -> None:
    p.add_argument(
        "--output-dir", default=None, required=required, metavar="DIR", help=f"write {what} into DIR (all or nothing)"
    )


FORMATS = ("json", "csv", "table")


def add_format(p, *, choices=FORMATS, default: str = "json") -> None:
    p.add_argument(
        "--format",
        choices=tuple(choices),
        default=default,
        help="output format: json, csv, or table (aligned columns, numbers rounded to 4 significant "
        "digits, for reading)",
    )


def add_topic_column(p) -> None:
    p.add_argument(
        "--topic-column",
        choices=("auto", "first", "none"),
        default="auto",
        help="is the score CSV's first column the topic ids? auto (default: by its name - topic, "
        "qid, qno, QueryID, ... - or non-numeric values; distinct integers under another name "
        "are an error), first, or none (every column is a system)",
    )


def add_quiet(p) -> None:
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress and no notes on stderr (progress is shown only when stderr is a terminal; "
        "errors and warnings are always shown)",
    )


def note(args, text: str) -> None:
    """One line ``agreekit CMD: note: text`` on stderr, unless ``--quiet``."""
    if getattr(args, "quiet", False):
        return
    command = getattr(args, "command", None)
    print(f"{'agreekit ' + command if command else 'agreekit'}: note: {text}", file=sys.stderr)


def add_rng(p, *, what: str = "the random draws") -> None:
    p.add_argument(
        "--rng",
        "--seed",
        dest="rng",
        type=int,
        default=None,
        metavar="SEED",
        help=f"integer seed of {what} (the API's rng; default: fresh OS entropy, reported in the output)",
    )


def progress_of(args) -> bool | None:
    """The API's ``progress=`` value for these arguments: False with ``--quiet``, else None (auto)."""
    return False if getattr(args, "quiet", False) else None


def write_output(args, text: str, *, parameter: str = "--output") -> None:
    """Write ``text`` to ``args.output`` (atomically), or to stdout when it is ``-`` or unset."""
    target = getattr(args, "output", None)
    if target is None or is_stdout(target):  # `-`, /dev/stdout, /proc/self/fd/1
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError as exc:  # e.g. PYTHONIOENCODING=ascii and a label such as 'é'
            raise InputError(
                parameter,
                f"is standard output, whose encoding ({exc.encoding}) cannot write "
                f"{exc.object[exc.start : exc.end]!r}; set PYTHONIOENCODING=utf-8 or give "
                "-o FILE (files are written UTF-8)",
            ) from None
        sys.stdout.flush()
        return

    with atomic_write(target, parameter=parameter) as fh:
        fh.write(text)


def legacy_output_dir(args) -> None:
    """``-o DIR`` naming an existing directory (the old spelling of ``--output-dir DIR``): kept for one
    release with a warning.  Any other ``-o`` is a file, whatever its name (``-o res.json``, ``-o out``)."""
    out = getattr(args, "output", "-")
    if out is None or is_stdout(out) or getattr(args, "output_dir", None):
        return
    if Path(out).is_dir():
        warnings.warn(
            f"-o {out}: -o is now always a file; {out} is a directory, so it is read as "
            f"--output-dir {out} (use that spelling: this one is removed in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        args.output_dir, args.output = out, "-"


# ------------------------------------------------------------------------------------ --format table


def _cell(value) -> str:
    """A value as a table cell: floats to 4 significant digits, None (JSON null, e.g. NaN) as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = f"{value:.4g}"
        return "0" if text == "-0" else text
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    return str(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _flatten(record: dict, prefix: str = "") -> dict:
    """Nested mappings as ``key.sub`` keys (a long mapping of scalars, such as a consensus ranking of
    every system, is kept whole: it is shown as its own block)."""
    out = {}
    for k, v in record.items():
        if isinstance(v, dict) and v and (len(v) <= 12 or any(isinstance(x, dict) for x in v.values())):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _grid(header: list[str], rows: list[list], numeric: list[bool], indent: str = "") -> list[str]:
    """Aligned columns: numbers right-aligned, text left-aligned, two spaces between columns."""
    cells = [[str(h) for h in header]] + [[_cell(v) for v in r] for r in rows]
    widths = [max(len(r[j]) for r in cells) for j in range(len(header))]
    lines = []
    for i, r in enumerate(cells):
        parts = [c.rjust(w) if numeric[j] else c.ljust(w) for j, (c, w) in enumerate(zip(r, widths))]
        lines.append((indent + "  ".join(parts)).rstrip())
        if i == 0:
            lines.append((indent + "  ".join("-" * w for w in widths)).rstrip())
    return lines


def _records_table(records: list[dict], indent: str = "") -> list[str]:
    """A list of records as a table; transposed (one row per field) when it has many fields and few
    records (metaeval's metric pairs, consensus solutions)."""
    flat = [_flatten(r) for r in records]
    header = list(dict.fromkeys(k for r in flat for k in r))
    if len(header) > 8 and len(flat) < len(header):
        # each record's column is named by its first text field(s) when they tell the records apart
        # (metaeval's "AP / P@10"), else by its number
        keys, names = [], [str(i) for i in range(1, len(flat) + 1)]
        for m in (1, 2):
            cand = header[:m]
            if all(isinstance(r.get(k), str) for r in flat for k in cand):
                labels = [" / ".join(r[k] for k in cand) for r in flat]
                if len(set(labels)) == len(labels):
                    keys, names = cand, labels
                    break
        rows = [[k, *(r.get(k) for r in flat)] for k in header if k not in keys]
        numeric = [False] + [all(_is_number(row[j]) or row[j] is None for row in rows) for j in range(1, len(flat) + 1)]
        return _grid([" / ".join(keys), *names], rows, numeric, indent)
    rows = [[r.get(k) for k in header] for r in flat]
    numeric = [all(_is_number(row[j]) or row[j] is None for row in rows) for j in range(len(header))]
    return _grid(header, rows, numeric, indent)


def _is_records(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def render_table(result) -> str:
    """``--format table``: a result (a dict, or a list of dicts = rows) as aligned text for reading.

    A list of records is one table (columns = keys; nested dicts become ``key.sub`` columns).  A dict
    is a block of ``key  value`` lines (nested dicts flattened to ``key.sub``, lists joined by commas),
    followed by one titled table per list of records it holds (``pairs:``, ``topics:``, ``solutions:``).
    Floats are rounded to 4 significant digits, ``null`` (e.g. NaN) is ``-``.
    """

    obj = to_jsonable(result)
    if _is_records(obj):
        return "\n".join(_records_table(obj)) + "\n"
    if not isinstance(obj, dict):
        return _cell(obj) + "\n"
    scalars, tables = {}, {}
    for k, v in obj.items():
        if _is_records(v):
            tables[k] = v
        elif (
            isinstance(v, dict)
            and v
            and all(_is_records(x) or isinstance(x, dict) for x in v.values())
            and any(_is_records(x) for x in v.values())
        ):
            for k2, v2 in v.items():
                (tables if _is_records(v2) else scalars)[f"{k}.{k2}"] = v2
        else:
            scalars[k] = v
    lines, blocks = [], {}
    flat = _flatten(scalars)
    if flat:
        width = max(len(k) for k in flat)
        for k, v in flat.items():
            if (
                isinstance(v, list) and v and (any(isinstance(x, str) and " " in x for x in v) or len(_cell(v)) > 80)
            ):  # orderings, long lists: one per line
                values = [_cell(x) for x in v] or [""]
                lines.append(f"{k.ljust(width)}  {values[0]}".rstrip())
                lines.extend(" " * (width + 2) + x for x in values[1:])
            elif isinstance(v, dict) and len(v) > 12:  # a long mapping (a consensus ranking): a block below
                blocks[k] = v
            else:
                lines.append(f"{k.ljust(width)}  {_cell(v)}".rstrip())
    for k, v in blocks.items():
        if lines:
            lines.append("")
        lines.append(f"{k}:")
        lines.extend(
            _grid(
                ["key", "value"],
                [[a, b] for a, b in v.items()],
                [False, all(_is_number(b) or b is None for b in v.values())],
                "  ",
            )[2:]
        )
    for k, records in tables.items():
        if lines:
            lines.append("")
        lines.append(f"{k}:")
        lines.extend(_records_table(records, indent="  "))
    return "\n".join(lines) + "\n"
