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
from agreekit._validation import InputError, check_choice
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
        out.append((no, [t for t in _SPLIT.split(s) if t]))
    if not out:
        raise InputError(param, f"file {str(path)!r} is empty")
    return out


def _ids(tokens: list[str]) -> list:
    try:
        return [int(t) for t in tokens]
    except ValueError:
        return tokens


@renamed_parameters(kind="input_format")
def read_clustering(path: str | os.PathLike, *, input_format: str = "auto", name: str = "U") -> Clustering:
    """Read a clustering file (labels, cover or CSV membership matrix) into a :class:`Clustering`.

    Parameters
    ----------
    path : str or path-like
        The file (plain or gzip-compressed); ``"-"`` reads standard input.
    input_format : {"auto", "labels", "cover", "matrix"}
        How to read it (see the module documentation); ``"auto"`` picks by suffix and content.
        ``kind=`` is its deprecated spelling.
    name : str
        Parameter name used in error messages.

    Returns
    -------
    Clustering
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
        return as_clustering(np.array([toks[0] for _, toks in lines], dtype=object), name=name)
    for no, toks in lines:
        if len(set(toks)) != len(toks):
            dup = next(t for i, t in enumerate(toks) if t in toks[:i])
            raise InputError(name, f"file {str(path)!r} line {no} lists node {dup!r} twice (a cluster "
                                   "names each node once)")
    flat = _ids([t for _, toks in lines for t in toks])
    clusters, pos = [], 0
    for _, toks in lines:
        clusters.append(flat[pos:pos + len(toks)])
        pos += len(toks)
    return as_clustering(clusters, name=name)


def _read_matrix(path, name: str) -> np.ndarray:
    try:
        rows = [r for r in csv.reader(line for _, line in iter_lines(path, parameter=name))
                if r and any(c.strip() for c in r)]
    except csv.Error as exc:
        raise InputError(name, f"file {str(path)!r} is not valid CSV ({exc})") from None
    if rows and rows[0][0].strip().startswith("#"):
        rows = rows[1:]
    if not rows:
        raise InputError(name, f"file {str(path)!r} is empty")

    def numeric(r):
        try:
            return [float(c) for c in r]
        except ValueError:
            return None
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
    """Read an edge list file (``a b`` or ``a b weight`` per line) into a list of edge tuples.

    ``path`` ``"-"`` reads standard input.
    """
    path = _source(path)
    lines = _content_lines(path, name)
    for no, toks in lines:
        if len(toks) not in (2, 3):
            raise InputError(name, f"file {str(path)!r} line {no} must be 'a b' or 'a b weight' (malformed)")
    ends = _ids([t for _, toks in lines for t in toks[:2]])
    edges = []
    for i, (no, toks) in enumerate(lines):
        if len(toks) == 3:
            try:
                w = float(toks[2])
            except ValueError:
                raise InputError(name, f"file {str(path)!r} line {no} has a non-numeric weight {toks[2]!r}") from None
            edges.append((ends[2 * i], ends[2 * i + 1], w))
        else:
            edges.append((ends[2 * i], ends[2 * i + 1]))
    return edges
