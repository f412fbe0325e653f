"""Options every subcommand spells the same way (``--format``, ``-o``, ``--quiet``).

* ``-o/--output FILE`` — always a file; ``-`` (the default) is stdout.
* ``--output-dir DIR`` — a directory of several outputs.
* ``--format {json,csv}`` — on every subcommand that prints results.
* ``--quiet`` — no progress bars on stderr (they are also off when stderr is not a terminal).
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

from agreekit._io import atomic_write, is_stdout
from agreekit._validation import InputError

__all__ = ["add_output", "add_output_dir", "add_topic_column", "add_format", "add_quiet", "add_rng", "add_renamed",
           "write_output", "progress_of", "legacy_output_dir", "CLI_ONLY_OPTIONS"]

#: options (``dest`` names) that exist only on the command line, with what they mean
CLI_ONLY_OPTIONS = {
    "output": "a file to write the result to (`-` = stdout)",
    "output_dir": "a directory for several output files",
    "format": "output format (json or csv)",
    "quiet": "no progress bars on stderr",
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
            pending.append(f"option {option_string} is deprecated, use {new} (the old spelling is removed "
                           "in the next release)")
            setattr(namespace, "_deprecated_options", pending)


def add_renamed(p, new: str, *old: str, action: str = "store", **kwargs):
    """``p.add_argument(new, *old, ...)`` where the ``old`` spellings warn when used."""
    return p.add_argument(new, *old, action=_RenamedOption, old=old, inner=action, **kwargs)


def add_output(p, *, what: str = "the result") -> None:
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help=f"write {what} to FILE (default -, stdout); written atomically")


def add_output_dir(p, *, what: str = "the output files", required: bool = False) -> None:
    p.add_argument("--output-dir", default=None, required=required, metavar="DIR",
                   help=f"write {what} into DIR (all or nothing)")


def add_format(p, *, choices=("json", "csv"), default: str = "json") -> None:
    p.add_argument("--format", choices=tuple(choices), default=default, help="output format")


def add_topic_column(p) -> None:
    p.add_argument("--topic-column", choices=("auto", "first", "none"), default="auto",
                   help="is the score CSV's first column the topic ids? auto (default: by its name - topic, "
                        "qid, qno, QueryID, ... - or non-numeric values; distinct integers under another name "
                        "are an error), first, or none (every column is a system)")


def add_quiet(p) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (progress is shown only when stderr is a terminal)")


def add_rng(p, *, what: str = "the random draws") -> None:
    p.add_argument("--rng", "--seed", dest="rng", type=int, default=None, metavar="SEED",
                   help=f"integer seed of {what} (the API's rng; default: fresh OS entropy, reported in "
                        "the output)")


def progress_of(args) -> bool | None:
    """The API's ``progress=`` value for these arguments: False with ``--quiet``, else None (auto)."""
    return False if getattr(args, "quiet", False) else None


def write_output(args, text: str, *, parameter: str = "--output") -> None:
    """Write ``text`` to ``args.output`` (atomically), or to stdout when it is ``-`` or unset."""
    target = getattr(args, "output", None)
    if target is None or is_stdout(target):   # `-`, /dev/stdout, /proc/self/fd/1
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError as exc:   # e.g. PYTHONIOENCODING=ascii and a label such as 'é'
            raise InputError(parameter, f"is standard output, whose encoding ({exc.encoding}) cannot write "
                                        f"{exc.object[exc.start:exc.end]!r}; set PYTHONIOENCODING=utf-8 or give "
                                        "-o FILE (files are written UTF-8)") from None
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
        warnings.warn(f"-o {out}: -o is now always a file; {out} is a directory, so it is read as "
                      f"--output-dir {out} (use that spelling: this one is removed in the next release)",
                      DeprecationWarning, stacklevel=2)
        args.output_dir, args.output = out, "-"
