"""Reading clusterings and graphs from text files (used by the CLI and the pipeline).

Clustering files (``input_format="auto"`` picks by content):

* ``labels`` — one label per line; node i is line i (0-based);
* ``cover`` — one cluster per line, node ids separated by whitespace or commas (overlaps and
  uncovered nodes allowed; the node set is the union of the clusters);
* ``matrix`` — CSV membership matrix, one row per node, one column per cluster (crisp 0/1 or
  soft non-negative); an optional non-numeric header row is skipped.  In ``auto`` mode a file
  ending in ``.csv`` is a matrix when its lines have several comma-separated fields; a ``.csv``
  with one value per line is a label file (a one-column membership matrix needs
  ``input_format="matrix"``);
* ``lfr`` — one node per line followed by its clusters (``node<TAB>c1 [c2 ...]``), the layout of
  the LFR benchmark's ``community.dat``.  ``auto`` never guesses it: a file whose first column is
  the nodes 1..N (or 0..N-1) in order is refused as ambiguous (say ``lfr`` or ``cover``).

A path ``"-"`` reads standard input.

Lines starting with ``#`` are comments; trailing blank lines are ignored, other blank lines are
an error.  A label or node id containing an invisible character (a zero-width space, a
byte-order mark in the middle of a file, e.g. from ``cat a b``) is an error naming the line.  Node ids are integers if every id in the file is an integer, else strings.  A cover
line that lists a node twice is an error (it is ambiguous: a typo or a weight?).  Files are
UTF-8 (a byte-order mark is allowed), plain or gzip-compressed, with any line ends.  A graph
file has one edge per line: ``a b`` or ``a b weight`` (whitespace or commas).
"""

from __future__ import annotations

import csv
import os
import re
import unicodedata
from pathlib import Path

import numpy as np

from agreekit._api import renamed_parameters
from agreekit._io import STDIN, iter_lines
from agreekit._validation import InputError, canonical_label, check_choice, check_name, parse_ascii_float
from agreekit.clustering._inputs import Clustering, as_clustering

__all__ = ["read_clustering", "read_graph"]

_SPLIT = re.compile(r"[,\s]+")


def _source(path, name: str = "path") -> str | Path:
    """``"-"`` (standard input) as it is, anything else as a :class:`~pathlib.Path`."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InputError(name, f"must be a file path (str or os.PathLike) or '-'; got {type(path).__name__}")
    return STDIN if isinstance(path, str) and path == STDIN else Path(path)


def _content_lines(path, param: str, raw: list[str] | None = None) -> list[tuple[int, list[str]]]:
    if raw is None:
        raw = [line for _, line in iter_lines(path, parameter=param)]
    raw = list(raw)
    while raw and not raw[-1].strip():
        raw.pop()
    out = []
    for no, line in enumerate(raw, start=1):
        s = line.strip()
        if s.startswith("#"):
            continue
        if not s:
            raise InputError(param, f"file {str(path)!r} line {no} is empty (malformed)")
        toks = [t for t in _SPLIT.split(s) if t]
        if not toks:
            raise InputError(
                param, f"file {str(path)!r} line {no} has only separators ({s[:20]!r}): no label, node or edge"
            )
        out.append((no, toks))
    if not out:
        raise InputError(param, f"file {str(path)!r} is empty")
    return out


def _ids(tokens: list[str], where: list[int] | None = None, path=None, param: str = "U") -> list:
    """The one rule for labels and node ids (:func:`agreekit._validation.canonical_label`): an ASCII
    decimal integer is that integer (``1``, ``01``, ``+1`` are one label), anything else a name;
    a number that is not an integer (``1.0``, ``2.5``) is ambiguous and an error naming the line.
    ``where[i]`` is the line of ``tokens[i]``."""
    out = []
    for i, t in enumerate(tokens):
        hidden = next((c for c in t if unicodedata.category(c) in ("Cf", "Cc", "Co", "Cn")), None)
        if hidden is not None:
            line = f" line {where[i]}" if where is not None else ""
            raise InputError(
                param,
                f"file {str(path)!r}{line}: {t!r} contains the invisible character "
                f"U+{ord(hidden):04X} ({unicodedata.name(hidden, 'unnamed')}); "
                "remove it (a byte-order mark inside a file comes from joining files)",
            )
        v = canonical_label(t)
        if v is None:
            line = f" line {where[i]}" if where is not None else ""
            raise InputError(
                param,
                f"file {str(path)!r}{line}: {t!r} is a number but not an integer; "
                "labels and node ids are integers (ASCII digits) or names",
            )
        out.append(v)
    if any(isinstance(v, int) for v in out) and not all(isinstance(v, int) for v in out):
        out = [str(v) for v in out]  # names and integers mixed: all names, 01 and 1 still one
    return out


@renamed_parameters(kind="input_format")
def read_clustering(path: str | os.PathLike, *, input_format: str = "auto", name: str = "U") -> Clustering:
    r"""Read a clustering file (labels, cover or CSV membership matrix) into a :class:`Clustering`.

    Parameters
    ----------
    path : str or path-like
        The file (plain or gzip-compressed); ``"-"`` reads standard input.
    input_format : {"auto", "labels", "cover", "matrix", "lfr"}, optional
        How to read it (see the module documentation); ``"auto"`` (default) picks by content and
        suffix: one token per line is a label file (whatever the suffix), a ``.csv`` with several
        fields per line a membership matrix, else a cover (one cluster per line); a file whose first
        column lists the nodes in order (LFR's ``community.dat``: ``node<TAB>cluster``) is refused as
        ambiguous.  ``"lfr"`` reads that layout.  ``kind=`` is its deprecated spelling.
    name : str, optional
        Parameter name used in error messages (default ``"U"``).

    Returns
    -------
    Clustering
        The clustering in normalized form (node ids as read: integers where every id is one).

    Raises
    ------
    agreekit.InputError
        If the file is missing, empty or malformed (the message names ``name``, the file and the line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from agreekit.clustering import read_clustering
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d, "cover.txt")
    ...     _ = path.write_text("1 2 3\n3 4\n")      # two clusters sharing node 3
    ...     U = read_clustering(path)
    >>> U, U.nodes
    (Clustering(crisp cover, n=4, k=2), (1, 2, 3, 4))
    """
    kind = check_choice("input_format", input_format, ("auto", "labels", "cover", "matrix", "lfr"))
    path = _source(path, check_name("name", name))
    if kind == "matrix":
        return as_clustering(_read_matrix(path, name), name=name)
    raw = [line for _, line in iter_lines(path, parameter=name)]
    if (
        kind == "auto"
        and isinstance(path, Path)
        and path.suffix.lower() == ".csv"
        and any("," in line for line in raw if line.strip() and not line.strip().startswith("#"))
    ):
        return as_clustering(_read_matrix(path, name, raw), name=name)
    lines = _content_lines(path, name, raw)
    if kind == "auto":
        kind = "labels" if all(len(toks) == 1 for _, toks in lines) else "cover"
        if kind == "cover" and _looks_like_node_column(lines):
            first = lines[0][1]
            raise InputError(
                name,
                f"file {str(path)!r} is ambiguous: its first column lists the nodes in order "
                f"(line {lines[0][0]} is {' '.join(first)!r}), as in LFR's community.dat (node, then its "
                "clusters); say input_format='lfr' (CLI --input-format lfr) for that layout "
                "or 'cover' for one cluster per line",
            )
    if kind == "lfr":
        return _read_node_clusters(path, name, lines)
    if kind == "labels":
        bad = [no for no, toks in lines if len(toks) != 1]
        if bad:
            raise InputError(name, f"file {str(path)!r} line {bad[0]} has more than one label (malformed)")
        tokens = [toks[0] for _, toks in lines]
        labels = _ids(tokens, [no for no, _ in lines], path, name)
        if (
            len(tokens) > 2
            and isinstance(canonical_label(tokens[0]), str)
            and all(isinstance(canonical_label(t), int) for t in tokens[1:])
        ):
            raise InputError(
                name,
                f"file {str(path)!r} line {lines[0][0]}: {tokens[0]!r} is not an integer but every "
                "other label is: a header or a typo? (remove the header; label files have none)",
            )
        return as_clustering(np.array(labels, dtype=np.int64 if isinstance(labels[0], int) else object), name=name)
    for no, toks in lines:
        if len(set(toks)) != len(toks):
            dup = next(t for i, t in enumerate(toks) if t in toks[:i])
            raise InputError(
                name, f"file {str(path)!r} line {no} lists node {dup!r} twice (a cluster names each node once)"
            )
    flat = _ids([t for _, toks in lines for t in toks], [no for no, toks in lines for _ in toks], path, name)
    clusters, pos = [], 0
    for no, toks in lines:
        members = flat[pos : pos + len(toks)]
        if len(set(members)) != len(members):
            dup = next(t for i, t in enumerate(toks) if members[i] in members[:i])
            raise InputError(
                name,
                f"file {str(path)!r} line {no} lists node {dup!r} twice (as another "
                "spelling of the same integer; a cluster names each node once)",
            )
        clusters.append(members)
        pos += len(toks)
    return as_clustering(clusters, name=name)


def _looks_like_node_column(lines: list[tuple[int, list[str]]]) -> bool:
    """The first tokens are the integers 1..N or 0..N-1 in order (N >= 3): a node column."""
    if len(lines) < 3:
        return False
    firsts = [canonical_label(toks[0]) for _, toks in lines]
    if not all(isinstance(v, int) for v in firsts):
        return False
    return firsts == list(range(firsts[0], firsts[0] + len(firsts))) and firsts[0] in (0, 1)


def _read_node_clusters(path, name: str, lines: list[tuple[int, list[str]]]):
    """``node c1 [c2 ...]`` per line (LFR's community.dat): the clusters as lists of nodes."""
    bad = next((no for no, toks in lines if len(toks) < 2), None)
    if bad is not None:
        raise InputError(name, f"file {str(path)!r} line {bad}: expected 'node cluster [cluster ...]'")
    nodes = _ids([toks[0] for _, toks in lines], [no for no, _ in lines], path, name)
    seen: dict = {}
    for (no, _), v in zip(lines, nodes):
        if v in seen:
            raise InputError(
                name, f"file {str(path)!r} line {no}: node {v!r} is listed again (first on line {seen[v]})"
            )
        seen[v] = no
    comms = _ids([t for _, toks in lines for t in toks[1:]], [no for no, toks in lines for _ in toks[1:]], path, name)
    clusters: dict = {}
    pos = 0
    for (no, toks), v in zip(lines, nodes):
        mine = comms[pos : pos + len(toks) - 1]
        pos += len(toks) - 1
        if len(set(mine)) != len(mine):
            raise InputError(name, f"file {str(path)!r} line {no}: node {v!r} lists a cluster twice")
        for c in mine:
            clusters.setdefault(c, []).append(v)
    return as_clustering(list(clusters.values()), name=name)


def _read_matrix(path, name: str, raw: list[str] | None = None) -> np.ndarray:
    numbered = enumerate(raw, start=1) if raw is not None else iter_lines(path, parameter=name)
    try:
        rows, blank = [], None
        for no, line in numbered:
            r = next(csv.reader([line], strict=True), [])
            if r and any(c.strip() for c in r):
                if blank is not None:
                    raise InputError(
                        name,
                        f"file {str(path)!r} line {blank} is blank (malformed: blank "
                        "lines are allowed only at the end)",
                    )
                rows.append(r)
            elif rows and blank is None:
                blank = no
    except csv.Error as exc:
        raise InputError(name, f"file {str(path)!r} is not valid CSV ({exc})") from None
    if rows and rows[0][0].strip().startswith("#"):
        rows = rows[1:]
    if not rows:
        raise InputError(name, f"file {str(path)!r} is empty")

    def numeric(r):
        vals = [parse_ascii_float(c) for c in r]
        return None if any(v is None for v in vals) else vals

    if numeric(rows[0]) is None:  # header
        rows = rows[1:]
    if not rows:
        raise InputError(name, f"file {str(path)!r} has a header but no rows")
    width = len(rows[0])
    data = []
    for no, r in enumerate(rows, start=1):
        vals = numeric(r)
        if vals is None:
            raise InputError(name, f"file {str(path)!r} data row {no} is not numeric (malformed)")
        if len(vals) != width:
            raise InputError(name, f"file {str(path)!r} data row {no} has {len(vals)} columns, expected {width}")
        data.append(vals)
    return np.asarray(data, dtype=np.float64)


def read_graph(path: str | os.PathLike, *, name: str = "graph") -> list[tuple]:
    r"""Read an edge list file (``a b`` or ``a b weight`` per line) into a list of edge tuples.

    Parameters
    ----------
    path : str or path-like
        The file (plain or gzip-compressed); ``"-"`` reads standard input.
    name : str, optional
        Parameter name used in error messages (default ``"graph"``).

    Returns
    -------
    list of tuple
        ``(a, b)`` or ``(a, b, weight)`` per line, node ids as integers where every id is one;
        accepted wherever a ``graph=`` is (:func:`as_graph`).

    Examples
    --------
    A gzip-compressed edge list (the second edge weighted):

    >>> import gzip, os, tempfile
    >>> from agreekit.clustering import read_graph
    >>> with tempfile.TemporaryDirectory() as d:
    ...     name = os.path.join(d, "edges.txt.gz")
    ...     with gzip.open(name, "wt") as fh:
    ...         print("1 2", "2 3 0.5", sep="\n", file=fh)
    ...     print(read_graph(name))
    [(1, 2), (2, 3, 0.5)]
    """
    path = _source(path, check_name("name", name))
    lines = _content_lines(path, name)
    for no, toks in lines:
        if len(toks) not in (2, 3):
            raise InputError(name, f"file {str(path)!r} line {no} must be 'a b' or 'a b weight' (malformed)")
    ends = _ids([t for _, toks in lines for t in toks[:2]], [no for no, _ in lines for _ in range(2)], path, name)
    edges = []
    for i, (no, toks) in enumerate(lines):
        if len(toks) == 3:
            w = parse_ascii_float(toks[2])
            if w is None:
                raise InputError(name, f"file {str(path)!r} line {no} has a non-numeric weight {toks[2]!r}")
            edges.append((ends[2 * i], ends[2 * i + 1], w))
        else:
            edges.append((ends[2 * i], ends[2 * i + 1]))
    return edges
