"""Reading TREC qrels and runs (files, frames, mappings) into frames with text ids.

Files are read twice over only when something is wrong: a fast path reads a regular file in
bulk after checks that make it accept exactly what the careful line reader accepts (ASCII text,
space/tab separators, ASCII numbers, the right number of fields, no conflicting judgements, one
run tag); anything else goes to the careful line-by-line reader, which gives the same result or
names the line at fault.  :func:`read_qrels` / :func:`read_run` build frames with pandas' C
parser; :func:`~agreekit.ireval.evaluate` reads the bytes in one compiled pass
(:func:`._ircore.scan_trec`) into the coded form :class:`_Coded`, ids kept as bytes."""

from __future__ import annotations

import csv
import io
import math
import os
import re
import stat
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agreekit._io import (
    MAX_DECOMPRESSED_BYTES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    _open_binary,
    check_input_path,
    iter_lines,
)
from agreekit._validation import InputError, check_name, parse_ascii_float, parse_ascii_int
from agreekit._jit import pick
from agreekit.ireval import _ircore

#: peers' column names -> ours (ir_measures / pytrec_eval frames, PyTerrier frames)
_COLUMN_ALIASES = {"topic": ("query_id", "qid"), "docno": ("doc_id", "docid"), "relevance": ("label",), "score": ()}
_QRELS_LAYOUT = "topic iter docno grade"
_RUN_LAYOUT = "topic Q0 docno rank score tag"
#: whitespace that ``str.split`` separates on but the C parser does not (in ASCII text)
_OTHER_SPACE = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")
_COMMENT = re.compile(r"^[ \t]*#", re.MULTILINE)
#: larger files (or gzip contents) are read line by line, in bounded memory
_BULK_MAX_BYTES = 256 * 2**20
#: str.translate table deleting what an ASCII integer may hold
_INT_CHARS = {ord(c): None for c in "0123456789+-"}


# --------------------------------------------------------------------------- frames
def _topic_doc_frame(parameter: str, source: pd.DataFrame, value: str) -> pd.DataFrame:
    """Copy of ``source[[topic, docno, value]]`` with string ids, or an error naming ``parameter``.

    ir_measures' (``query_id``, ``doc_id``) and PyTerrier's (``qid``, ``label``) column names
    stand for ours when ours are absent."""
    rename = {}
    for ours in ("topic", "docno", value):
        if ours not in source.columns:
            alias = next((a for a in _COLUMN_ALIASES[ours] if a in source.columns), None)
            if alias is not None:
                rename[alias] = ours
    if rename:
        source = source.rename(columns=rename)
    missing = {"topic", "docno", value} - set(source.columns)
    if missing:
        names = {
            "topic": "topic (or query_id / qid)",
            "docno": "docno (or doc_id)",
            "relevance": "relevance (or label)",
            "score": "score",
        }
        raise InputError(parameter, f"DataFrame lacks columns {[names[c] for c in sorted(missing)]}")
    df = source[["topic", "docno", value]]  # a new frame; copy-on-write keeps ``source`` unchanged
    for col in ("topic", "docno"):
        if pd.api.types.infer_dtype(df[col], skipna=False) != "string":  # already text: no copy
            df[col] = df[col].astype(str)
    return df


# --------------------------------------------------------------------------- careful line reader
def _records(parameter: str, source, layout: str, lines=None):
    """(line number, fields) of a whitespace-separated TREC file whose lines have the fields of
    ``layout`` (e.g. ``"topic iter docno grade"``); another field count is an InputError.
    Blank lines and lines starting with ``#`` are skipped."""
    n = len(layout.split())
    for lineno, line in iter_lines(source, parameter=parameter) if lines is None else lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != n:
            raise InputError(parameter, f"{source}: line {lineno}: expected {n} fields '{layout}'; got {len(parts)}")
        yield lineno, parts


def _qrels_lines(source, lines=None) -> pd.DataFrame:
    topics, docs, rels = [], [], []
    judged: dict[tuple[str, str], tuple[int, int]] = {}
    for lineno, parts in _records("qrels", source, _QRELS_LAYOUT, lines):
        grade = parse_ascii_int(parts[3]) if len(parts[3]) <= 40 else None
        if grade is None:
            if len(parts[3]) > 40 and parts[3].lstrip("+-").isascii() and parts[3].lstrip("+-").isdigit():
                raise InputError("qrels", f"{source}: line {lineno}: grade {parts[3][:20]!r}... is out of range")
            raise InputError(
                "qrels", f"{source}: line {lineno}: grade {parts[3][:40]!r} is not an integer (ASCII digits 0-9)"
            )
        if abs(grade) >= 2**62:
            raise InputError("qrels", f"{source}: line {lineno}: grade {parts[3]!r} is out of range")
        key = (parts[0], parts[2])
        if key in judged:
            first_line, first_grade = judged[key]
            if first_grade != grade:
                raise InputError(
                    "qrels",
                    f"{source}: line {lineno}: document {parts[2]!r} of topic "
                    f"{parts[0]!r} is judged {grade}, but line {first_line} judged "
                    f"it {first_grade} (conflicting judgements)",
                )
            continue
        judged[key] = (lineno, grade)
        topics.append(parts[0])
        docs.append(parts[2])
        rels.append(grade)
    if not topics:
        raise InputError("qrels", f"{source}: no judgements found")
    return pd.DataFrame({"topic": topics, "docno": docs, "relevance": np.asarray(rels, dtype=np.int64)})


def _run_lines(source, lines=None) -> tuple[str, pd.DataFrame]:
    topics, docs, scores = [], [], []
    tag = tag_line = None
    for lineno, parts in _records("run", source, _RUN_LAYOUT, lines):
        score = parse_ascii_float(parts[4])
        if score is None:
            raise InputError(
                "run", f"{source}: line {lineno}: score {parts[4][:40]!r} is not a number (ASCII digits 0-9)"
            )
        if not math.isfinite(score):
            raise InputError("run", f"{source}: line {lineno}: score must be finite")
        topics.append(parts[0])
        docs.append(parts[2])
        scores.append(score)
        if tag is None:
            tag, tag_line = parts[5], lineno
        elif parts[5] != tag:
            raise InputError(
                "run",
                f"{source}: line {lineno}: run tag {parts[5]!r} differs from "
                f"{tag!r} (line {tag_line}); a run file holds one system - split "
                "it into one file per tag",
            )
    if not topics:
        raise InputError("run", f"{source}: no ranked documents found")
    return tag, pd.DataFrame({"topic": topics, "docno": docs, "score": np.asarray(scores, dtype=np.float64)})


# --------------------------------------------------------------------------- fast path
def _bulk_bytes(parameter: str, source) -> bytes | None:
    """The whole content of a regular file (plain or gzip, a leading byte-order mark dropped)
    within the readers' size bounds; None for a stream, stdin, a larger file or a broken gzip,
    which go to the careful line reader."""
    if hasattr(source, "read") or not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return None
    path = check_input_path(source, parameter=parameter)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
    except OSError:  # pragma: no cover - check_input_path has just read it
        return None
    if path.stat().st_size > _BULK_MAX_BYTES:
        return None
    stream, raw, gz = _open_binary(path, parameter)
    chunks, total = [], 0
    try:
        counter = getattr(stream, "_agreekit_counter", None)
        while True:
            b = stream.read(1 << 24)
            if not b:
                break
            total += len(b)
            if b"\x00" in b or total > _BULK_MAX_BYTES:
                return None
            if gz and (
                total > MAX_DECOMPRESSED_BYTES
                or total > MAX_GZIP_RATIO * max(counter.count if counter is not None else 0, 1 << 16)
            ):
                return None
            chunks.append(b)
    except (EOFError, zlib.error, OSError):
        return None
    finally:
        stream.close()
        raw.close()
    data = b"".join(chunks)
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _bulk_text(parameter: str, source) -> str | None:
    """The whole text of a regular file (plain or gzip) when the fast parser may read it: ASCII,
    ``\\n`` line ends, no NUL byte, no line or size beyond the readers' bounds.  None sends the
    file to the careful line reader (which names what is wrong, or reads what is unusual)."""
    data = _bulk_bytes(parameter, source)
    if data is None or b"\x00" in data or b"\r" in data:
        return None
    if len(data) > MAX_LINE_BYTES and max(map(len, data.split(b"\n"))) + 1 > MAX_LINE_BYTES:
        return None
    if not data.isascii():
        return None
    text = data.decode("ascii")
    if any(c in text for c in _OTHER_SPACE) or ("#" in text and _COMMENT.search(text)):
        return None
    return text


def _bulk_frame(text: str, n: int, usecols: list[int], dtypes: dict) -> pd.DataFrame | None:
    """The columns ``usecols`` (the last field among them) of a text of ``n``-field lines, or None
    if a line has another number of fields (or the C parser refuses a value)."""
    first = next((ln for ln in text.split("\n", 64)[:64] if ln.strip()), None)
    if first is None or len(first.split()) != n:  # a longer first line would become an index
        return None
    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            names=list(range(n)),  # all: extra fields raise
            dtype=dtypes,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            engine="c",
            skip_blank_lines=True,
            keep_default_na=False,
        )
    except (ValueError, OverflowError, IndexError, pd.errors.ParserError):
        return None  # e.g. "Expected 6 fields in line 3, saw 7"
    if not isinstance(df.index, pd.RangeIndex) or list(df.columns) != list(range(n)) or len(df) == 0:
        return None
    last = df[n - 1]
    if last.dtype.kind == "f":
        if not np.all(np.isfinite(last.to_numpy())):
            return None
    elif (last.to_numpy(dtype=object) == "").any():  # a short line: its missing fields are empty
        return None
    return df


def _qrels_bulk(text: str) -> tuple[pd.DataFrame, np.ndarray, np.ndarray] | None:
    df = _bulk_frame(text, 4, [0, 2, 3], {0: object, 1: object, 2: object, 3: object})
    if df is None:
        return None
    grades = df[3].to_numpy(dtype=object)
    if "".join(grades).translate(_INT_CHARS):
        return None  # not ASCII digits with a sign (int() would take '1_0'), or too long
    try:
        rel = grades.astype(np.int64)
    except (ValueError, OverflowError):  # '1-2', '+-1'
        return None
    if np.any(np.abs(rel) >= 2**62):
        return None
    topic, docno = df[0].to_numpy(dtype=object), df[2].to_numpy(dtype=object)
    tc, _ = _factorize_grouped(topic)
    dc, du = _factorize_text(docno)
    key = pd.Series(tc.astype(np.int64) * max(len(du), 1) + dc)
    dup = key.duplicated(keep="first").to_numpy()
    if dup.any():
        first = pd.Series(rel[~dup], index=key[~dup].to_numpy())
        if np.any(first.loc[key[dup].to_numpy()].to_numpy() != rel[dup]):
            return None  # conflicting judgements: the line reader names them
        topic, docno, rel, dc = topic[~dup], docno[~dup], rel[~dup], dc[~dup]
    return pd.DataFrame({"topic": topic, "docno": docno, "relevance": rel}), dc, np.asarray(du, dtype=object)


def _run_bulk(text: str) -> tuple[str, pd.DataFrame] | None:
    df = _bulk_frame(text, 6, [0, 2, 4, 5], {0: object, 1: object, 2: object, 3: object, 4: np.float64, 5: object})
    if df is None:
        return None
    score = df[4].to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(score)):
        return None
    tags = df[5].to_numpy(dtype=object)
    if not (tags == tags[0]).all():
        return None
    return str(tags[0]), pd.DataFrame(
        {"topic": df[0].to_numpy(dtype=object), "docno": df[2].to_numpy(dtype=object), "score": score}
    )


# --------------------------------------------------------------------------- public readers
def read_qrels(source: Any) -> pd.DataFrame:
    """Read TREC qrels (``topic iter docno grade``) into a DataFrame.

    ``source`` is a path (plain or ``.gz``; ``-`` = stdin), a DataFrame with columns
    ``topic, docno, relevance`` (or ir_measures' ``query_id, doc_id, relevance``, or
    PyTerrier's ``qid, docno, label``) or a mapping ``{topic: {docno: grade}}``.
    Returns columns ``topic`` (str), ``docno`` (str), ``relevance`` (int64).
    A document judged twice for a topic with the same grade counts once; two different grades
    in a file are an error naming the lines (in a DataFrame or mapping the last one is kept).
    Grades are integers written with ASCII digits.  Topic and document ids are text, compared
    as text (as trec_eval does): ``1`` and ``01`` are two topics.

    Parameters
    ----------
    source : path, file-like, DataFrame or mapping
        The qrels: a file path (``-`` = stdin) or an open text stream, a frame, or
        ``{topic: {docno: grade}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``relevance`` (int64), one row per judged
        document of a topic, in file order.

    Examples
    --------
    >>> import io
    >>> from agreekit.ireval.metrics import read_qrels
    >>> read_qrels(io.StringIO("301 0 d1 1\\n301 0 d2 0\\n302 0 d7 2\\n"))
      topic docno  relevance
    0   301    d1          1
    1   301    d2          0
    2   302    d7          2
    """
    return _read_qrels_coded(source)[0]


def _read_qrels_coded(source: Any) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """:func:`read_qrels` and the docnos factorized (codes, uniques)."""
    df = _qrels_frame(source)
    if df is not None:
        return _last_judgement(df)
    text = _bulk_text("qrels", source)
    got = None if text is None else _qrels_bulk(text)
    if got is not None:
        return got
    df = _qrels_lines(source)  # each document judged once already
    dc, du = _factorize_text(df["docno"].to_numpy(dtype=object))
    return df, dc, du


def _qrels_frame(source: Any) -> pd.DataFrame | None:
    """A qrels DataFrame or mapping as a checked frame (repeated judgements not yet resolved);
    None for a file or stream."""
    if isinstance(source, pd.DataFrame):
        df = _topic_doc_frame("qrels", source, "relevance")
        try:
            rel = pd.to_numeric(df["relevance"], errors="raise")
        except (TypeError, ValueError):
            raise InputError("qrels", "relevance values must be integers") from None
        if not np.all(np.isfinite(rel)) or not np.all(rel == np.round(rel)):
            raise InputError("qrels", "relevance values must be integers")
        df["relevance"] = rel.astype(np.int64)
        return df
    if isinstance(source, Mapping):  # {topic: {docno: grade}}: built column by column
        topics: list = []
        docs: list = []
        grades: list = []
        for t, judged in source.items():
            topics += [str(t)] * len(judged)
            docs += map(str, judged.keys())
            grades += judged.values()
        frame = pd.DataFrame(
            {"topic": topics, "docno": docs, "relevance": grades}, columns=["topic", "docno", "relevance"]
        )
        return _qrels_frame(frame)
    return None


# --------------------------------------------------------------------------- coded form (evaluate)
_NO_BYTES = np.frombuffer(b"", dtype=np.uint8)  # read-only, as every id buffer (one compiled signature)
_NO_INDEX = np.zeros(0, dtype=np.int64)


class _Coded:
    """A qrels or a run as arrays, the form :func:`~agreekit.ireval.evaluate` works on.

    Per row: ``tcode``, the topic's index into ``topics`` (str, in order of first appearance);
    the docno as the bytes ``buf[ds:de]`` (UTF-8; equal bytes = equal ids, byte order = code
    point order); ``values`` (int64 grades or float64 scores).  ``last_wins``: a document judged
    twice for a topic keeps its last judgement (frames, mappings), else (files) two different
    grades are an error the careful reader of ``source`` names.  ``name``: a run's system name."""

    __slots__ = ("topics", "tcode", "buf", "ds", "de", "values", "last_wins", "source", "name")

    def __init__(self, topics, tcode, buf, ds, de, values, *, last_wins=True, source=None, name=None):
        self.topics, self.tcode, self.buf, self.ds, self.de = topics, tcode, buf, ds, de
        self.values, self.last_wins, self.source, self.name = values, last_wins, source, name


def _ids_bytes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(buffer, start, end) of an object array of str ids, as UTF-8 bytes (one join, one encode)."""
    n = values.size
    if n == 0:
        return _NO_BYTES, _NO_INDEX, _NO_INDEX
    items = values.tolist()
    buf = np.frombuffer("\x00".join(items).encode("utf-8", "surrogatepass"), dtype=np.uint8)
    ok, start, end = pick(_ircore.split_joined, buf.size)(buf, n)
    if ok:  # no id holds a NUL: the NULs are the separators
        return buf, start, end
    parts = [v.encode("utf-8", "surrogatepass") for v in items]
    end = np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=n))
    return np.frombuffer(b"".join(parts), dtype=np.uint8), np.concatenate(([0], end[:-1])), end


def _coded_frame(df: pd.DataFrame, value: str, **kw) -> _Coded:
    """A checked qrels / run frame (str ids) in coded form."""
    tcode, topics = _factorize_grouped(df["topic"].to_numpy(dtype=object))
    buf, ds, de = _ids_bytes(df["docno"].to_numpy(dtype=object))
    dtype = np.int64 if value == "relevance" else np.float64
    return _Coded(
        [str(t) for t in topics], tcode.astype(np.int64), buf, ds, de, df[value].to_numpy(dtype=dtype, copy=True), **kw
    )


def _scan_coded(data: bytes, *, qrels: bool) -> _Coded | None:
    """A file's bytes read in one compiled pass (:func:`._ircore.scan_trec`), or None if the
    careful line reader must read it (it then names what is wrong, or reads what is unusual)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    if qrels:
        got = pick(_ircore.scan_trec, 2 * buf.size)(buf, 4, 3, False, -1, MAX_LINE_BYTES, _ircore._POW10)
    else:
        got = pick(_ircore.scan_trec, 2 * buf.size)(buf, 6, 4, True, 5, MAX_LINE_BYTES, _ircore._POW10)
    status, _, ts, te, ds, de, grades, scores, hard = got
    if status:
        return None
    values = grades if qrels else scores
    if hard.size:  # scores beyond the exact fast conversion: Python's float
        for row, a, b in hard.tolist():
            values[row] = float(data[a:b])
        if not np.all(np.isfinite(values[hard[:, 0]])):
            return None  # the careful reader names the line
    tcode, first = pick(_ircore.factorize, 4 * ts.size)(buf, ts, te, _NO_BYTES, _NO_INDEX, _NO_INDEX)
    topics = [data[a:b].decode("ascii") for a, b in zip(ts[first].tolist(), te[first].tolist())]
    name = None
    if not qrels:  # the run tag: the last field of the first line read
        a = 0
        while True:
            b = data.find(b"\n", a)
            parts = data[a : None if b < 0 else b].split()
            if parts and not parts[0].startswith(b"#"):
                name = parts[5].decode("ascii")
                break
            a = b + 1
    return _Coded(topics, tcode, buf, ds, de, values, last_wins=not qrels, name=name)


def _qrels_coded(source: Any) -> _Coded:
    """The qrels in coded form (files read by the compiled pass when it may)."""
    df = _qrels_frame(source)
    if df is not None:
        return _coded_frame(df, "relevance")
    data = _bulk_bytes("qrels", source)
    got = None if data is None else _scan_coded(data, qrels=True)
    if got is not None:
        got.source = source
        return got
    return _coded_frame(_qrels_lines(source), "relevance")  # each document judged once already


def _run_coded(source: Any, *, name: str | None = None) -> _Coded:
    """:func:`read_run` in coded form (files read by the compiled pass when it may)."""
    check_name("name", name, allow_none=True)
    if isinstance(source, pd.DataFrame):
        nm, df = read_run(source, name=name)
        return _coded_frame(df, "score", name=nm)
    data = _bulk_bytes("run", source)
    got = None if data is None else _scan_coded(data, qrels=False)
    if got is None:
        tag, df = _run_lines(source)
        got = _coded_frame(df, "score", name=tag)
    got.source = source
    got.name = name or got.name or Path(source).name
    return got


#: below this many ids, pd.factorize hashes the strings about as fast as the byte route
_BYTES_MIN = 4096


def _factorize_text(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values)`` (codes in order of first appearance, and the uniques) of an object
    array of ids, computed on their bytes without hashing a Python string per row.

    ASCII ids without NUL become a fixed-width byte matrix read as 8-byte words; the words
    are factorized one column at a time (``codes * n_uniques + next codes``, integers only), which
    is exact: two ids get the same code if and only if all their bytes are equal.  Anything else
    (non-ASCII or non-str ids, a NUL, few ids) goes to ``pd.factorize``."""
    n = values.size
    if n < _BYTES_MIN:
        codes, uniq = pd.factorize(values)
        return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)
    try:
        if "\x00" in "".join(values):  # fixed-width bytes would drop a trailing NUL
            raise ValueError
        raw = values.astype("S")  # UnicodeEncodeError (a ValueError) for a non-ASCII id
    except (TypeError, ValueError):
        codes, uniq = pd.factorize(values)
        return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)
    width = raw.dtype.itemsize
    words = -(-width // 8)
    grid = np.zeros((n, 8 * words), dtype=np.uint8)
    grid[:, :width] = raw.view(np.uint8).reshape(n, width)
    cols = grid.view(np.uint64).T.copy()  # one row per 8-byte word (equality is all that matters)
    codes, _ = pd.factorize(cols[0])
    codes = codes.astype(np.int64, copy=False)
    for j in range(1, words):
        cj, uj = pd.factorize(cols[j])
        codes, _ = pd.factorize(codes * len(uj) + cj)  # < n * n: no overflow below 3e9 ids
        codes = codes.astype(np.int64, copy=False)
    running = np.maximum.accumulate(codes)  # codes are in order of first appearance
    first = np.concatenate(([True], running[1:] > running[:-1]))
    return codes, values[first]


def _factorize_grouped(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values)`` hashing only the first value of each run of equal values (qrels
    and runs are written topic by topic)."""
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), np.array([], dtype=object)
    head = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    if head.size > values.size // 4:
        codes, uniq = pd.factorize(values)
        return codes, np.asarray(uniq, dtype=object)
    hc, uniq = pd.factorize(values[head])
    return np.repeat(hc, np.diff(np.append(head, values.size))), np.asarray(uniq, dtype=object)


def _last_judgement(df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``df`` with one row per (topic, docno), the last one (as a dict would keep), in order; and
    its docnos factorized."""
    tc, _ = _factorize_grouped(df["topic"].to_numpy(dtype=object))
    dc, du = _factorize_text(df["docno"].to_numpy(dtype=object))
    dup = pd.Series(tc.astype(np.int64) * max(len(du), 1) + dc).duplicated(keep="last").to_numpy()
    if dup.any():
        df, dc = df[~dup], dc[~dup]
    return df.reset_index(drop=True), dc, np.asarray(du, dtype=object)


def read_run(source: Any, *, name: str | None = None) -> tuple[str, pd.DataFrame]:
    """Read a TREC run (``topic Q0 docno rank score tag``).

    Returns ``(system_name, frame)``, the frame having columns ``topic``,
    ``docno``, ``score``.  The name is ``name`` if given, else the run's tag
    (6th column), else the file name.  A file holds one system: a second run
    tag is an error (split such a file into one file per tag).  ``source`` may also be a DataFrame with
    columns ``topic, docno, score`` (or ``query_id, doc_id, score``, or ``qid, docno, score``).  The rank column
    is ignored (trec_eval ranks by score).

    Parameters
    ----------
    source : path, file-like or DataFrame
        The run: a file path (plain or ``.gz``; ``-`` = stdin), an open text stream, or a frame.
    name : str, optional
        The system's name (default: the run tag, else the file name).

    Returns
    -------
    name : str
        The system's name.
    frame : pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``score`` (float64), in file order.

    Examples
    --------
    >>> import io
    >>> from agreekit.ireval.metrics import read_run
    >>> name, run = read_run(io.StringIO("301 Q0 d1 1 2.5 bm25\\n301 Q0 d9 2 1.0 bm25\\n"))
    >>> name, run["docno"].tolist(), run["score"].tolist()
    ('bm25', ['d1', 'd9'], [2.5, 1.0])
    """
    check_name("name", name, allow_none=True)
    if isinstance(source, pd.DataFrame):
        df = _topic_doc_frame("run", source, "score")
        try:
            df["score"] = pd.to_numeric(df["score"], errors="raise").astype(np.float64)
        except (TypeError, ValueError):
            raise InputError("run", "scores must be numbers") from None
        if not np.all(np.isfinite(df["score"].to_numpy())):
            raise InputError("run", "scores must be finite")
        tag = None
        if "tag" in source.columns and len(source):
            tag = str(source["tag"].iloc[0])
        return (name or tag or "run"), df
    text = _bulk_text("run", source)
    got = None if text is None else _run_bulk(text)
    tag, df = got if got is not None else _run_lines(source)
    if name is None:
        name = tag or Path(source).name
    return name, df
