"""Reading clusterings and graphs from text files (used by the CLI and the pipeline).

Clustering files (``input_format="auto"`` picks by content):

* ``labels`` — one label per line; node i is line i (0-based);
* ``cover`` — one cluster per line, node ids separated by whitespace or commas (overlaps and
  uncovered nodes allowed; the node set is the union of the clusters);
* ``matrix`` — CSV membership matrix, one row per node, one column per cluster (crisp 0/1 or
  soft non-negative); an optional non-numeric header row is skipped.  Files ending in ``.csv``
  are read as matrices in ``auto`` mode.

A path ``"-"`` reads standard input.

Lines starting with ``#`` are comments; trailing blank lines are ignored, other blank lines are
an error.  Node ids are integers if every id in the file is an integer, else strings.  A cover
line that lists a node twice is an error (it is ambiguous: a typo or a weight?).  Files are
UTF-8 (a byte-order mark is allowed), plain or gzip-compressed, with any line ends.  A graph
file has one edge per line: ``a b`` or ``a b weight`` (whitespace or commas).
"""
from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np

from agreekit._api import renamed_parameters
from agreekit._io import STDIN, iter_lines
from agreekit._validation import InputError, canonical_label, check_choice, parse_ascii_float
from agreekit.clustering._inputs import Clustering, as_clustering

__all__ = ["read_clustering", "read_graph"]

_SPLIT = re.compile(r"[,\s]+")


def _source(path) -> str | Path:
    """``"-"`` (standard input) as it is, anything else as a :class:`~pathlib.Path`."""
    return STDIN if isinstance(path, str) and path == STDIN else Path(path)


def _content_lines(path, param: str) -> list[tuple[int, list[str]]]:
    raw = [line for _, line in iter_lines(path, parameter=param)]
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
            raise InputError(param, f"file {str(path)!r} line {no} has only separators ({s[:20]!r}): no label, "
                                    "node or edge")
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
        v = canonical_label(t)
        if v is None:
            line = f" line {where[i]}" if where is not None else ""
            raise InputError(param, f"file {str(path)!r}{line}: {t!r} is a number but not an integer; "
                                    "labels and node ids are integers (ASCII digits) or names")
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
    input_format : {"auto", "labels", "cover", "matrix"}, optional
        How to read it (see the module documentation); ``"auto"`` (default) picks by suffix and
        content: ``.csv`` is a membership matrix, one token per line a label file, else a cover
        (one cluster per line).  ``kind=`` is its deprecated spelling.
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
    kind = check_choice("input_format", input_format, ("auto", "labels", "cover", "matrix"))
    path = _source(path)
    if kind == "auto" and isinstance(path, Path) and path.suffix.lower() == ".csv":
        kind = "matrix"
    if kind == "matrix":
        return as_clustering(_read_matrix(path, name), name=name)
    lines = _content_lines(path, name)
    if kind == "auto":
        kind = "labels" if all(len(toks) == 1 for _, toks in lines) else "cover"
    if kind == "labels":
        bad = [no for no, toks in lines if len(toks) != 1]
        if bad:
            raise InputError(name, f"file {str(path)!r} line {bad[0]} has more than one label (malformed)")
        labels = _ids([toks[0] for _, toks in lines], [no for no, _ in lines], path, name)
        return as_clustering(np.array(labels, dtype=np.int64 if isinstance(labels[0], int) else object),
                             name=name)
    for no, toks in lines:
        if len(set(toks)) != len(toks):
            dup = next(t for i, t in enumerate(toks) if t in toks[:i])
            raise InputError(name, f"file {str(path)!r} line {no} lists node {dup!r} twice (a cluster "
                                   "names each node once)")
    flat = _ids([t for _, toks in lines for t in toks], [no for no, toks in lines for _ in toks], path, name)
    clusters, pos = [], 0
    for no, toks in lines:
        members = flat[pos:pos + len(toks)]
        if len(set(members)) != len(members):
            dup = next(t for i, t in enumerate(toks) if members[i] in members[:i])
            raise InputError(name, f"file {str(path)!r} line {no} lists node {dup!r} twice (as another "
                                   "spelling of the same integer; a cluster names each node once)")
        clusters.append(members)
        pos += len(toks)
    return as_clustering(clusters, name=name)


def _read_matrix(path, name: str) -> np.ndarray:
    try:
        rows, blank = [], None
        for no, line in iter_lines(path, parameter=name):
            r = next(csv.reader([line], strict=True), [])
            if r and any(c.strip() for c in r):
                if blank is not None:
                    raise InputError(name, f"file {str(path)!r} line {blank} is blank (malformed: blank "
                                           "lines are allowed only at the end)")
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
    path = _source(path)
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
