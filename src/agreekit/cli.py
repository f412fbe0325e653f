"""Command-line interface: ``agreekit <command> ...`` (also ``python -m agreekit``).

Each area registers its subcommands from its own module in ``agreekit._cli``
(``register(subparsers)``); a handler returns a JSON-able object, which is
printed on stdout, or ``None`` if it printed/wrote its own output.

Errors in user input (:class:`ValueError`, including
:class:`agreekit._validation.InputError`, and unreadable files) are printed as
one line on stderr and give exit code 2, without a traceback.  Warnings are
printed as one line each (``agreekit CMD: warning: Category: message``),
without the source line Python's default format adds.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from agreekit import __version__
from agreekit._io import dumps_json

__all__ = ["main", "build_parser"]

#: modules that contribute subcommands; each defines ``register(subparsers)``
SUBCOMMAND_MODULES = (
    "agreekit._cli.ranking",
    "agreekit._cli.tables",
    "agreekit._cli.consensus",
    "agreekit._cli.clustering",
    "agreekit._cli.bootstrap",
    "agreekit._cli.metaeval",
)


class CommandError(Exception):
    """Raised by a handler for a user error that is not about one parameter."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr (exit code 2)."""

    def error(self, message):  # noqa: D401
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agreekit",
        description="Agreement measures between rankings, partitions and evaluation metrics.",
    )
    parser.add_argument("--version", action="version", version=f"agreekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" {exc.filename!r}" if exc.filename is not None else ""
        return f"cannot access{where}: {exc.strerror}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _run(args: argparse.Namespace):
    """Run the handler with warnings printed as one line each (no source line)."""
    prog = f"agreekit {args.command}"

    def one_line(message, category, filename, lineno, line=None):
        text = " ".join(str(message).split())
        return f"{prog}: warning: {category.__name__}: {text}\n"

    saved = warnings.formatwarning
    warnings.formatwarning = one_line
    try:
        return args.func(args)
    finally:
        warnings.formatwarning = saved


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse itself exits 2 on bad usage
    try:
        result = _run(args)
    except (ValueError, OSError, CommandError) as exc:
        print(f"agreekit {args.command}: error: {_error_line(exc)}", file=sys.stderr)
        return 2
    if result is not None:
        sys.stdout.write(dumps_json(result) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
