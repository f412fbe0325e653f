"""``agreekit datasets``: the example data shipped in the package; and ``dataset:NAME`` as an input file.

Every input file argument of every subcommand accepts ``dataset:NAME`` (a name of
``agreekit datasets``): :func:`expand_dataset_args` replaces it by the installed file's path
before the arguments are parsed (``agreekit consensus dataset:sports``).
"""

from __future__ import annotations

import sys

from agreekit._cli._common import add_format, add_output, add_quiet, write_output
from agreekit._io import dumps_json
from agreekit._validation import InputError
from agreekit.datasets import available, dataset_path

#: the prefix that names a shipped data set where a file path is expected
PREFIX = "dataset:"
#: options whose value is an output, never a data set (writing into the package is refused)
_OUTPUT_OPTIONS = ("-o", "--output", "--output-dir")


def _resolve(text: str) -> str:
    return str(dataset_path(text[len(PREFIX) :]))


def expand_dataset_args(argv: list[str]) -> list[str]:
    """``argv`` with every ``dataset:NAME`` (also ``--option=dataset:NAME``, ``AP=dataset:NAME``) replaced by the data set's
    path; an unknown name is one line on stderr and exit code 2. Values of output options are left as given.

    >>> expand_dataset_args(["consensus", "dataset:sports"])[1].endswith("sports.csv")
    True
    >>> expand_dataset_args(["table", "--list"])
    ['table', '--list']
    """
    if not any(PREFIX in a for a in argv):
        return list(argv)
    out = []
    for i, arg in enumerate(argv):
        option, eq, value = arg.partition("=")
        try:
            if arg.startswith(PREFIX) and not (i and argv[i - 1] in _OUTPUT_OPTIONS):
                arg = _resolve(arg)
            elif eq and value.startswith(PREFIX) and option not in _OUTPUT_OPTIONS:  # --qrels=…, AP=…
                arg = f"{option}={_resolve(value)}"
        except InputError as exc:
            command = next((a for a in argv if not a.startswith("-")), "")
            name = (arg.partition("=")[2] if not arg.startswith(PREFIX) else arg)[len(PREFIX) :]
            print(
                f"agreekit {command}: error: " + str(exc).replace(f"`name` {name!r}", PREFIX + name, 1), file=sys.stderr
            )
            raise SystemExit(2) from None
        out.append(arg)
    return out


def datasets_handler(args):
    rows = [d.to_dict() for d in available()]
    if args.format == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        text = buf.getvalue()
    else:
        text = dumps_json({"datasets": rows}) + "\n"
    write_output(args, text)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "datasets",
        help="list the example data sets shipped in the package (name, path, description)",
        description="List the example data sets shipped in the package: name, installed path, description, "
        "the Python loader, licence and the README with the source. Any input file argument "
        "of any subcommand accepts dataset:NAME (e.g. `agreekit consensus dataset:sports`).",
    )
    add_format(p)
    add_output(p, what="the list")
    add_quiet(p)
    p.set_defaults(func=datasets_handler, api=available)
