"""Command-line interface: ``agreekit <command> ...`` (also ``python -m agreekit``).

Each area registers its subcommands from its own module in ``agreekit._cli``
(``register(subparsers)``); a handler returns a JSON-able object, which is
printed on stdout, or ``None`` if it printed/wrote its own output.

Errors in user input (:class:`ValueError`, including
:class:`agreekit.InputError`, and unreadable files) are printed as
one line on stderr and give exit code 2, without a traceback.  Warnings are
printed as one line each (``agreekit CMD: warning: Category: message``),
without the source line Python's default format adds.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
import warnings

from agreekit import __version__
from agreekit._io import dumps_json
from agreekit._cli import add_quiet
from agreekit._validation import InputError, did_you_mean, parse_ascii_float, parse_ascii_int

__all__ = ["main", "build_parser"]

#: modules that contribute subcommands; each defines ``register(subparsers)``
SUBCOMMAND_MODULES = (
    "agreekit._cli.ranking",
    "agreekit._cli.tables",
    "agreekit._cli.consensus",
    "agreekit._cli.clustering",
    "agreekit._cli.bootstrap",
    "agreekit._cli.metaeval",
    "agreekit._cli.ranked_lists",
    "agreekit._cli.datasets",
)


#: the subcommands (and aliases) each module registers; ``main`` imports only the module of the command it
#: runs (`agreekit table` does not import the clustering or IR areas: ~0.5 s less per call);
#: tests/test_cli_help.py checks this map against what the modules register
COMMANDS = {
    "moments": "agreekit._cli.ranking",
    "correlate": "agreekit._cli.ranking",
    "standardize": "agreekit._cli.tables",
    "table": "agreekit._cli.tables",
    "consensus": "agreekit._cli.consensus",
    "clustering": "agreekit._cli.clustering",
    "agreement": "agreekit._cli.clustering",
    "bootstrap": "agreekit._cli.bootstrap",
    "evaluate": "agreekit._cli.bootstrap",
    "metaeval": "agreekit._cli.metaeval",
    "rbo": "agreekit._cli.ranked_lists",
    "ap": "agreekit._cli.ranked_lists",
    "datasets": "agreekit._cli.datasets",
}


class CommandError(Exception):
    """Raised by a handler for a user error that is not about one parameter."""


#: examples shown at the end of each subcommand's ``--help`` (every line runs from the repository root)
EXAMPLES = {
    "moments": [
        "agreekit moments --n 8",
        'agreekit moments --coefficient spearman --scheme multiplicative --weigher "inverse_square:n0=1" --n 10',
    ],
    "correlate": [
        "printf '1\\n2\\n3\\n4\\n5\\n' > x.txt; printf '2\\n1\\n3\\n5\\n4\\n' > y.txt",
        "agreekit correlate x.txt y.txt",
        'agreekit correlate --coefficient spearman --scheme multiplicative --weigher "inverse_square:n0=1" '
        "x.txt y.txt --standardize --pvalue --format csv",
        "printf '0.8\\n0.9\\n0.5\\n0.1\\n0.2\\n' > s.txt; "
        "printf '0.9\\n0.7\\n0.5\\n0.2\\n0.1\\n' | agreekit correlate --kind scores - s.txt -o tau.json",
    ],
    "standardize": [
        "agreekit standardize --n 30 --gamma 0.4",
        "agreekit standardize --coefficient spearman --scheme additive --weigher harmonic --n 500 --gamma -0.12 "
        "--form paper",
    ],
    "table": [
        "agreekit table",
        "agreekit table kendall_additive_harmonic --format csv",
    ],
    "consensus": [
        "agreekit consensus resources/consensus/emond_mason.csv --method exact",
        "agreekit consensus resources/consensus/usa_ranks.csv --ordinal --method fast --n-starts 1000 --rng 1 "
        "--format csv -o usa.csv",
        "cat resources/consensus/sports.csv | agreekit consensus - --method quick --no-allow-ties",
    ],
    "clustering": [
        "agreekit clustering --list",
        "printf '0\\n0\\n0\\n1\\n1\\n1\\n' > u.txt; printf '0\\n0\\n1\\n1\\n2\\n2\\n' > v.txt",
        "agreekit clustering u.txt v.txt -m ari -m nmi_sum -m vi",
    ],
    "bootstrap": [
        "agreekit bootstrap resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv --rng 1",
        "agreekit bootstrap resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv --n-resamples 200 --rng 1 "
        "--format table",
        "agreekit bootstrap resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv --test unpaired "
        "--n-resamples 200 --format csv -o pairs.csv",
    ],
    "metaeval": [
        "agreekit metaeval AP=resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv "
        "P@10=resources/bootstrap/trec_topic_by_run_scores/adhoc8_p10.csv --n-resamples 200 --rng 1 "
        "--pvalue-resamples 500",
        "agreekit metaeval AP=resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv "
        "P@10=resources/bootstrap/trec_topic_by_run_scores/adhoc8_p10.csv "
        "RR=resources/bootstrap/trec_topic_by_run_scores/adhoc8_rr.csv --n-resamples 200 --rng 1 "
        "--output-dir metaeval_adhoc8",
    ],
    "rbo": [
        "agreekit rbo resources/bootstrap/robust03_top100/runs/input.Sel50.gz "
        "resources/bootstrap/robust03_top100/runs/input.pircRBa1.gz --depth 20 --n-items 1000 --n-resamples 200 --rng 1 --format csv"
    ],
    "ap": [
        "printf '1\\n2\\n3\\n4\\n5\\n' > x.txt; printf '2\\n1\\n3\\n5\\n4\\n' > y.txt",
        "agreekit ap x.txt y.txt --pvalue --alternative greater",
    ],
    "datasets": [
        "agreekit datasets",
        "agreekit datasets --format csv -o datasets.csv",
        "agreekit consensus dataset:sports --method exact",
    ],
    "evaluate": [
        "agreekit evaluate resources/bootstrap/robust03_top100/robust03_qrels.txt.gz "
        "resources/bootstrap/robust03_top100/runs/input.Sel50.gz --metrics AP,nDCG@10,RR --format json "
        "--depth 100",
    ],
}


class _HelpFormatter(argparse.HelpFormatter):
    """Keeps the examples' line breaks and appends "(default: X)" to options that have a real default."""

    def _fill_text(self, text, width, indent):
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" not in text
            and action.default not in (None, False, argparse.SUPPRESS)
            and action.option_strings
            and action.nargs != 0
        ):
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are one line on stderr (exit code 2), named by the subcommand
    (``agreekit correlate: error: ...``), with a "did you mean" for a misspelt subcommand, option or choice."""

    def error(self, message):  # noqa: D401
        self.exit(2, f"{self.prog}: error: {message}\n")

    def _check_value(self, action, value):
        # argparse's own message, with the close choices before the list of all of them
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(repr, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{did_you_mean(value, action.choices)} (choose from {choices})"
            )

    def parse_args(self, args=None, namespace=None):
        # unknown options: argparse reports them from the top-level parser ("agreekit: error: unrecognized
        # arguments"); they are reported here by the subcommand they were given to, with the close options
        args, extras = self.parse_known_args(args, namespace)
        if extras:
            target = _subcommand_parser(self, getattr(args, "command", None)) or self
            options = [
                s for a in target._actions for s in a.option_strings if s not in getattr(a, "old", ())
            ]  # not the deprecated spellings
            unknown = next(
                (e.split("=", 1)[0] for e in extras if e.startswith("-") and len(e) > 1 and not _looks_negative(e)),
                None,
            )
            hint = did_you_mean(unknown, options) if unknown else ""
            target.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return args


def _looks_negative(text: str) -> bool:
    return parse_ascii_float(text) is not None


def _subcommand_parser(parser: argparse.ArgumentParser, command: str | None):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    return None


def _ascii_int(text: str) -> int:

    value = parse_ascii_int(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"must be an integer written with ASCII digits 0-9; got {text!r}")
    return value


def _ascii_float(text: str) -> float:

    value = parse_ascii_float(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"must be a number written with ASCII digits 0-9; got {text!r}")
    return value


def _ascii_numbers(parser: argparse.ArgumentParser) -> None:
    """Every ``type=int`` / ``type=float`` option reads ASCII decimal numbers only (Python's
    int()/float() also take Arabic-Indic and full-width digits and ``1_0``)."""
    for action in parser._actions:
        if action.type is int:
            action.type = _ascii_int
        elif action.type is float:
            action.type = _ascii_float


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``agreekit`` parser with every subcommand, or only with ``command``'s module when it is a key
    of :data:`COMMANDS` (the options, help and errors of that command are the same either way)."""
    modules = (COMMANDS[command],) if command in COMMANDS else SUBCOMMAND_MODULES
    parser = _Parser(
        prog="agreekit",
        description="Agreement measures between rankings, partitions and evaluation metrics.",
        epilog="Run `agreekit COMMAND --help` for a command's options and examples.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agreekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, title="commands")
    for name in modules:
        importlib.import_module(name).register(sub)
    for name, p in sub.choices.items():
        if not any("--quiet" in a.option_strings for a in p._actions):  # every subcommand has --quiet
            add_quiet(p)
        p.formatter_class = _HelpFormatter
        _ascii_numbers(p)
        if name in EXAMPLES and not p.epilog:
            p.epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
    return parser


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" {exc.filename!r}" if exc.filename is not None else ""
        return f"cannot access{where}: {exc.strerror}"
    import re

    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    # a 150-digit integer (a weigher parameter such as p=1e308 printed exactly) is shown shortened
    return re.sub(r"[0-9]{40,}", lambda m: f"{m.group()[:8]}...({len(m.group())} digits)", line)


def _run(args: argparse.Namespace):
    """Run the handler with warnings printed as one line each (no source line)."""
    prog = f"agreekit {args.command}"

    def one_line(message, category, filename, lineno, line=None):
        text = " ".join(str(message).split())
        return f"{prog}: warning: {category.__name__}: {text}\n"

    saved = warnings.formatwarning
    warnings.formatwarning = one_line
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", DeprecationWarning)  # one line per deprecated spelling used
            for text in getattr(args, "_deprecated_options", None) or ():
                warnings.warn(text, DeprecationWarning, stacklevel=1)
            return args.func(args)
    finally:
        warnings.formatwarning = saved


class _ClosedStdout(io.TextIOBase):
    """Standard output when the process was started with it closed (``agreekit ... >&-``): writing the
    result is an error naming ``--output`` instead of an AttributeError on ``None``."""

    def writable(self):
        return True

    def write(self, text):
        raise InputError("--output", "is standard output, which is closed; give -o FILE")

    @property
    def buffer(self):
        return self

    def flush(self):
        pass


def _guard_standard_streams() -> None:
    """A closed stdout or stderr (file descriptor 1 or 2 not open): hold the descriptor with /dev/null so
    that no file opened later takes its number, write errors to nowhere rather than to stdout (``print(...,
    file=None)`` writes to stdout), and make writing the result to a closed stdout an error.  Messages on
    stderr never fail on its encoding (``PYTHONIOENCODING=ascii``): unencodable characters are escaped."""
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            if fd == 1:
                sys.stdout = _ClosedStdout()
            else:
                sys.stderr = open(fd, "w", closefd=False)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")
    with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
        sys.stderr.reconfigure(errors="backslashreplace")


def _interrupted(exc: BaseException) -> bool:
    """Is ``exc`` a KeyboardInterrupt, or caused by one (numba wraps it in SystemError)?"""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


@contextlib.contextmanager
def _notices(args):
    """Ctrl-C during a numba compilation is raised when it ends (agreekit._jit.interrupts_after_compiling);
    ``--quiet`` also silences the first call's compile notice (agreekit._jit.compile_notice)."""
    from agreekit._jit import interrupts_after_compiling, quiet  # lazy: numba loads only when a subcommand runs

    with interrupts_after_compiling(), quiet(bool(getattr(args, "quiet", False))):
        yield


def main(argv: list[str] | None = None) -> int:
    _guard_standard_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else None
    from agreekit._cli.datasets import expand_dataset_args  # `dataset:NAME` wherever a file is read

    argv = expand_dataset_args(argv)
    try:
        try:
            parser = build_parser(command)
        except ValueError as exc:  # refused while importing an area (the environment: NUMBA_NUM_THREADS)
            print(f"agreekit: error: {_error_line(exc)}", file=sys.stderr)
            return 2
        args = parser.parse_args(argv)  # argparse itself exits 2 on bad usage
        if args.command is None:  # bare `agreekit`: the command list
            parser.print_help()
            return 0
        command = args.command
        try:
            with _notices(args):
                result = _run(args)
        except BrokenPipeError:  # `agreekit ... | head`: the reader left; not an error of the input
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, sys.stdout.fileno())  # the interpreter's final flush must not fail again
            return 141
        except (ValueError, OSError, CommandError) as exc:
            print(f"agreekit {args.command}: error: {_error_line(exc)}", file=sys.stderr)
            return 2
        if result is not None:
            sys.stdout.write(dumps_json(result) + "\n")
        return 0
    except (KeyboardInterrupt, SystemError) as exc:  # Ctrl-C: one line, the shell's exit status, no traceback
        if not _interrupted(exc):  # (inside a compiled kernel's callback Ctrl-C surfaces as a SystemError)
            raise
        name = f"agreekit {command}" if command in COMMANDS else "agreekit"
        with contextlib.suppress(Exception):
            print(f"{name}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
