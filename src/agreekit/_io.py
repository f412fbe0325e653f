"""I/O helpers shared by the CLI, the library's file readers and the pipeline adapters.

Reading (every reader of a user file goes through these, so every bad file gets the
same kind of one-line :class:`~agreekit.InputError` naming the parameter
and the file):

* :func:`check_input_path` — the argument is a path to an existing regular file;
* :func:`iter_lines` / :func:`read_text` — text decoded as UTF-8 with an optional
  byte-order mark (``utf-8-sig``), universal newlines (CRLF is fine), transparently
  gunzipped when the file is gzip-compressed; a truncated or corrupted ``.gz``, a
  ``.gz`` that is not gzip, binary or UTF-16 content are errors naming the file;
* :func:`read_csv_rows` — a strict CSV reader: a header whose names are non-empty and
  distinct, every row as wide as the header, no blank rows except trailing ones.

Writing: :func:`atomic_write` guarantees that no partial output file is left behind
(the content goes to a temporary sibling, renamed over the target only when writing
succeeded; a symbolic link is written through, never replaced; a character device or a
FIFO is written in place and ``/dev/stdout`` is standard output; a dangling link, a block
device and a socket are refused); :func:`write_files` extends this to several files, all or nothing: every
target is checked first, all contents go to temporaries, and the renames happen only
when every temporary was written.
"""

from __future__ import annotations

import codecs
import dataclasses
import contextlib
import csv
import gzip
import io
import json
import math
import os
import re
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agreekit._validation import InputError
from agreekit._memory import format_bytes

__all__ = [
    "atomic_write",
    "write_files",
    "to_jsonable",
    "dumps_json",
    "write_json",
    "check_input_path",
    "check_output_path",
    "is_stdout",
    "iter_lines",
    "read_text",
    "read_csv_rows",
    "CsvRows",
    "load_config_yaml",
]

_GZIP_MAGIC = b"\x1f\x8b"


# --------------------------------------------------------------------------- reading


#: the path that means standard input (and, for outputs, standard output)
STDIN = "-"


class _NoClose(io.RawIOBase):
    """A raw view of a binary stream whose close() leaves the stream open (for stdin)."""

    def __init__(self, stream):
        self._stream = stream

    def readable(self):
        return True

    def readinto(self, b):
        data = self._stream.read1(len(b)) if hasattr(self._stream, "read1") else self._stream.read(len(b))
        b[: len(data)] = data
        return len(data)


def _shown(path) -> str:
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) == STDIN:
        return "<stdin>"
    return repr(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else "<stream>"


def check_input_path(path: Any, *, parameter: str) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` to an existing, readable regular file.

    Raises :class:`InputError` naming ``parameter`` if ``path`` is not a str/path-like, does
    not exist, is a directory or another non-regular file, or cannot be read.

    >>> check_input_path(5, parameter="qrels")
    Traceback (most recent call last):
    ...
    agreekit.InputError: `qrels` must be a file path (str or os.PathLike); got int
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InputError(parameter, f"must be a file path (str or os.PathLike); got {type(path).__name__}")
    if isinstance(path, str) and path == STDIN:
        return Path(STDIN)
    p = Path(path)
    shown = _shown(path)
    if os.fspath(path) == "":
        raise InputError(parameter, "is an empty path")
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError(parameter, f"file {shown} does not exist") from None
    except OSError as exc:
        raise InputError(parameter, f"cannot read {shown}: {exc.strerror}") from None
    if p.is_dir():
        raise InputError(parameter, f"{shown} is a directory, not a file")
    import stat as _stat

    if not _stat.S_ISREG(st.st_mode) and not _stat.S_ISFIFO(st.st_mode) and not _stat.S_ISCHR(st.st_mode):
        raise InputError(parameter, f"{shown} is not a regular file")
    if not os.access(p, os.R_OK):
        raise InputError(parameter, f"cannot read {shown}: permission denied")
    return p


def _open_binary(path: Path, parameter: str):
    shown = _shown(path)
    if os.fspath(path) == STDIN:
        raw = io.BufferedReader(_NoClose(sys.stdin.buffer))
        head = raw.peek(2)[:2]
    else:
        try:
            raw = open(path, "rb")
        except OSError as exc:
            raise InputError(parameter, f"cannot read {shown}: {exc.strerror}") from None
        head = raw.peek(2)[:2]  # peek, not read + seek: a pipe (/dev/fd/N, a FIFO) cannot seek back
    if head == _GZIP_MAGIC:
        counter = _Counting(raw)
        gz = gzip.GzipFile(fileobj=io.BufferedReader(counter), mode="rb")
        gz._agreekit_counter = counter
        return gz, raw, True
    if path.suffix.lower() == ".gz":
        raw.close()
        raise InputError(
            parameter, f"{shown} is named *.gz but is not gzip-compressed (rename it or compress it with gzip)"
        )
    if head in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raw.close()
        raise InputError(parameter, f"{shown} is UTF-16 text; save it as UTF-8")
    return raw, raw, False


def _decode_error(parameter: str, shown: str, exc: Exception, gz: bool, lineno: int) -> InputError:
    where = f" after line {lineno}" if lineno else ""
    if isinstance(exc, UnicodeDecodeError):
        byte = exc.object[exc.start : exc.start + 1]
        return InputError(
            parameter,
            f"{shown} is not UTF-8 text (undecodable byte 0x{byte.hex()}{where}); is it a binary or UTF-16 file?",
        )
    if isinstance(exc, EOFError):
        return InputError(
            parameter, f"{shown} is a truncated or corrupted gzip file (the compressed data ended early{where})"
        )
    if isinstance(exc, (zlib.error, gzip.BadGzipFile)) or gz:
        return InputError(parameter, f"{shown} is a corrupted gzip file ({exc}{where})")
    return InputError(parameter, f"cannot read {shown}: {getattr(exc, 'strerror', None) or exc}")


#: the longest line a reader accepts (bytes, newline included); a file without newlines (``/dev/zero``,
#: a sparse file) must not be read into memory whole
MAX_LINE_BYTES = 64 * 2**20
#: a gzip file may decompress to at most this many bytes ...
MAX_DECOMPRESSED_BYTES = 2 * 2**30
#: ... and, past :data:`_RATIO_FLOOR` bytes, to at most this many times its compressed size (text
#: compresses 3-20x; a gzip bomb ~1000x)
MAX_GZIP_RATIO = 300
_RATIO_FLOOR = 4 * 2**20
_LINE_END = re.compile(r"\r\n|\r|\n")


class _Counting(io.RawIOBase):
    """A raw reader that counts the (compressed) bytes read through it."""

    def __init__(self, raw):
        self._raw = raw
        self.count = 0

    def readable(self):
        return True

    def readinto(self, b):
        data = self._raw.read(len(b))
        b[: len(data)] = data
        self.count += len(data)
        return len(data)


def _size_text(n: int) -> str:

    return format_bytes(n)


def _split_line(text: str) -> list[str]:
    """One physical line (up to and including ``\n``) as logical lines: ``\r\n``, ``\r``, ``\n`` end a line."""
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith(("\n", "\r")):
        text = text[:-1]
    return _LINE_END.split(text) if "\r" in text else [text]


def iter_lines(source: Any, *, parameter: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` (1-based; newline stripped) of a text file or stream.

    ``source`` is a path (plain text or gzip-compressed, detected by content) or a text
    stream.  The text is decoded as UTF-8; a leading byte-order mark is dropped; ``\r\n``
    and ``\r`` line ends are accepted.  Memory is one line at a time, and bounded: a line
    longer than :data:`MAX_LINE_BYTES` and a gzip file that decompresses to more than
    :data:`MAX_DECOMPRESSED_BYTES` (or to more than :data:`MAX_GZIP_RATIO` times its size) are
    errors found while reading, as are NUL bytes.  Every failure (missing file, directory,
    truncated or corrupted gzip, undecodable bytes, NUL bytes, a bound) raises
    :class:`InputError` naming ``parameter`` and the file.
    """
    limit = MAX_LINE_BYTES
    if hasattr(source, "read"):  # an open stream (text, or binary decoded as UTF-8)
        fh = source
        if isinstance(source, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(source, "mode", ""):
            fh = io.TextIOWrapper(source, encoding="utf-8-sig")
        lineno = 0
        try:
            while True:
                line = fh.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(("\n", "\r")):
                    raise InputError(
                        parameter, f"<stream> line {lineno + 1} is longer than {_size_text(limit)} (no line end found)"
                    )
                for part in _split_line(line):
                    lineno += 1
                    if lineno == 1 and part.startswith("\ufeff"):
                        part = part[1:]
                    if "\x00" in part:
                        raise InputError(
                            parameter, f"<stream> line {lineno} contains NUL bytes; is it a binary or UTF-16 file?"
                        )
                    yield lineno, part
        except (UnicodeDecodeError, OSError) as exc:
            raise _decode_error(parameter, "<stream>", exc, False, lineno) from None
        return
    path = check_input_path(source, parameter=parameter)
    shown = _shown(source)
    stream, raw, gz = _open_binary(path, parameter)
    counter = getattr(stream, "_agreekit_counter", None)
    lineno = 0
    total = 0
    try:
        while True:
            b = stream.readline(limit + 1)
            if not b:
                break
            if b"\x00" in b:
                raise InputError(
                    parameter, f"{shown} line {lineno + 1} contains NUL bytes; is it a binary or UTF-16 file?"
                )
            if len(b) > limit and not b.endswith(b"\n"):
                raise InputError(
                    parameter,
                    f"{shown} line {lineno + 1} is longer than {_size_text(limit)} "
                    "(no line end found; is it a text file?)",
                )
            total += len(b)
            if gz:
                packed = counter.count if counter is not None else 0
                if total > MAX_DECOMPRESSED_BYTES or (total > _RATIO_FLOOR and total > MAX_GZIP_RATIO * packed):
                    raise InputError(
                        parameter,
                        f"{shown} decompresses to more than {_size_text(total)} "
                        f"from {_size_text(packed)} (the limits are "
                        f"{_size_text(MAX_DECOMPRESSED_BYTES)} and {MAX_GZIP_RATIO} "
                        "times the compressed size; is it a gzip bomb?)",
                    )
            text = b.decode("utf-8")
            if lineno == 0 and text.startswith("\ufeff"):
                text = text[1:]
            for part in _split_line(text):
                lineno += 1
                yield lineno, part
    except (UnicodeDecodeError, EOFError, zlib.error, OSError) as exc:
        if gz and isinstance(exc, UnicodeDecodeError):
            # undecodable bytes inside a gzip stream: corruption (the CRC will say so) or binary content
            try:
                while stream.read(1 << 20):
                    pass
            except (EOFError, zlib.error, OSError) as gz_exc:
                exc = gz_exc
        raise _decode_error(parameter, shown, exc, gz, lineno) from None
    finally:
        stream.close()
        raw.close()


def read_text(source: Any, *, parameter: str) -> str:
    """The whole text of a file (see :func:`iter_lines` for decoding and errors), ``\\n`` line ends."""
    return "".join(line + "\n" for _, line in iter_lines(source, parameter=parameter))


@dataclass(frozen=True)
class CsvRows:
    """A CSV table read by :func:`read_csv_rows`: ``header``, ``rows`` (lists of stripped
    strings, all as wide as the header) and ``lines`` (the file line where each row starts)."""

    header: list[str]
    rows: list[list[str]]
    lines: list[int]
    source: str


def read_csv_rows(source: Any, *, parameter: str, empty_header: str = "error", what: str = "column") -> CsvRows:
    """Read a CSV table strictly: a header row, then rows of the same width.

    Cells are stripped of surrounding whitespace.  Errors (:class:`InputError` naming
    ``parameter``, the file and the line): empty file, header only, a blank line before
    the last data row (trailing blank lines are ignored; ``,,`` is a row of empty cells), a row wider or narrower than the
    header, an empty or repeated header name (``what`` says what the header names are, e.g.
    ``"system"``).  ``empty_header="first"`` allows an empty first header cell (the
    index column written by ``DataFrame.to_csv``).

    >>> import io
    >>> read_csv_rows(io.StringIO("a,b\\n1,2\\n\\n"), parameter="FILE").rows
    [['1', '2']]
    >>> read_csv_rows(io.StringIO("a,b\\n1,2,3\\n"), parameter="FILE")
    Traceback (most recent call last):
    ...
    agreekit.InputError: `FILE` <stream> line 2 has 3 fields, but the header has 2
    """
    shown = _shown(source)
    numbered = iter_lines(source, parameter=parameter)
    current = [0]

    def lines():
        for no, line in numbered:
            current[0] = no
            yield line + "\n"  # the line end back: a quoted field may hold a newline (csv keeps it)

    reader = csv.reader(lines(), strict=True)
    header = None
    rows: list[list[str]] = []
    starts: list[int] = []
    blank_at = None
    try:
        prev_end = 0
        for row in reader:
            start = prev_end + 1
            prev_end = reader.line_num
            cells = [c.strip() for c in row]
            if len(cells) == 0 or cells == [""]:  # a blank line (",," is a row of empty cells)
                if header is not None and blank_at is None:
                    blank_at = start
                elif header is None:
                    blank_at = blank_at or start
                continue
            if header is None:
                if blank_at is not None:
                    raise InputError(parameter, f"{shown} line {blank_at} is blank; the header must be the first line")
                header = cells
                hline = start
                continue
            if blank_at is not None:
                raise InputError(
                    parameter, f"{shown} line {blank_at} is blank (blank lines are allowed only at the end)"
                )
            if len(cells) != len(header):
                raise InputError(
                    parameter, f"{shown} line {start} has {len(cells)} fields, but the header has {len(header)}"
                )
            rows.append(cells)
            starts.append(start)
    except csv.Error as exc:
        raise InputError(parameter, f"{shown} line {current[0]} is not valid CSV ({exc})") from None
    if header is None:
        raise InputError(parameter, f"{shown} is empty")
    for j, name in enumerate(header):
        if not name and not (j == 0 and empty_header == "first"):
            raise InputError(parameter, f"{shown} line {hline}: header {what} {j + 1} has no name")
    seen: dict[str, int] = {}
    for j, name in enumerate(header):
        if name in seen and name:
            raise InputError(
                parameter,
                f"{shown} line {hline}: {what} name {name!r} is repeated (columns {seen[name] + 1} and {j + 1})",
            )
        seen[name] = j
    if not rows:
        raise InputError(parameter, f"{shown} has a header but no data rows")
    return CsvRows(header, rows, starts, shown)


# --------------------------------------------------------------------------- writing

#: output paths that mean standard output: written like ``-`` (never opened, replaced or renamed over)
STDOUT_PATHS = frozenset({"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/thread-self/fd/1"})


def is_stdout(path: Any) -> bool:
    """True if the output ``path`` means standard output: ``-``, ``/dev/stdout``, ``/dev/fd/1``,
    ``/proc/self/fd/1`` (or ``/proc/<this process>/fd/1``)."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        return False
    text = os.fspath(path)
    if text == STDIN:
        return True
    norm = os.path.normpath(text) if text.startswith("/") else text
    return norm in STDOUT_PATHS or norm == f"/proc/{os.getpid()}/fd/1"


@dataclass(frozen=True)
class _Target:
    """Where an output really goes: ``kind`` is ``"stdout"``, ``"file"`` (a regular file, new or
    existing, replaced atomically: ``real`` is the path renamed over, the end of a symlink chain) or
    ``"stream"`` (an existing character device or FIFO, written in place: a device node and a pipe are
    never replaced by a file)."""

    kind: str
    path: Path
    real: Path


def _resolve_target(path: Any, parameter: str) -> _Target:
    """Classify an output path (see :class:`_Target`) or raise :class:`InputError` naming ``parameter``.

    * a symbolic link is never replaced: a link to a regular file is written through (its final
      target is replaced atomically, the link stays); a link to a device or FIFO is written in place;
      a dangling link is refused (writing through it would create a file wherever it points);
    * a block device, a socket or a directory is refused."""
    import stat as _stat

    shown = repr(os.fspath(path))
    p = Path(path)
    if is_stdout(path):
        return _Target("stdout", p, p)
    try:
        lst = os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        _check_parent(p, parameter)
        return _Target("file", p, p)
    except OSError as exc:
        raise InputError(parameter, f"cannot write {shown}: {exc.strerror}") from None
    st = lst
    if _stat.S_ISLNK(lst.st_mode):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            where = os.readlink(p)
            raise InputError(
                parameter,
                f"cannot write {shown}: it is a symbolic link to {where!r}, which does "
                "not exist (remove the link or create its target)",
            ) from None
        except OSError as exc:
            raise InputError(parameter, f"cannot write {shown}: {exc.strerror}") from None
    mode = st.st_mode
    if _stat.S_ISDIR(mode):
        raise InputError(parameter, f"cannot write {shown}: it is a directory")
    if _stat.S_ISCHR(mode) or _stat.S_ISFIFO(mode):
        if not os.access(p, os.W_OK):
            raise InputError(parameter, f"cannot write {shown}: permission denied")
        return _Target("stream", p, p)
    if not _stat.S_ISREG(mode):
        what = "a block device" if _stat.S_ISBLK(mode) else "a socket" if _stat.S_ISSOCK(mode) else "not a regular file"
        raise InputError(
            parameter,
            f"cannot write {shown}: it is {what}; give a regular file, a character device, a FIFO or - (stdout)",
        )
    real = p
    if _stat.S_ISLNK(lst.st_mode):
        real = Path(os.path.realpath(p))
        try:
            same = os.path.samefile(real, p)
        except OSError:
            same = False
        if not same:  # e.g. /proc/<pid>/fd/N of a deleted file
            raise InputError(parameter, f"cannot write {shown}: it is a link that does not lead to a file path")
    _check_parent(real, parameter, shown=shown)
    return _Target("file", p, real)


def _check_parent(path: Path, parameter: str, *, shown: str | None = None) -> None:
    shown = shown or repr(os.fspath(path))
    anc = path.parent
    while not anc.exists() and anc != anc.parent:
        if anc.is_symlink():
            raise InputError(parameter, f"cannot write {shown}: {str(anc)!r} is a dangling symbolic link")
        anc = anc.parent
    if not anc.is_dir():
        raise InputError(parameter, f"cannot write {shown}: {str(anc)!r} is not a directory")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise InputError(parameter, f"cannot write {shown}: permission denied in {str(anc)!r}")


def check_output_path(path: Any, *, parameter: str) -> Path:
    """Return ``path`` as a Path if it can be written, else raise :class:`InputError`.

    Writable: ``-`` or ``/dev/stdout``; a new file in a writable folder; an existing regular file
    (replaced atomically); a symbolic link to one (its target is replaced, the link stays); an existing
    character device or FIFO (written in place).  Refused: a directory, a dangling symbolic link, a
    block device, a socket."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "":
        raise InputError(parameter, f"must be a file path; got {path!r}")
    path = Path(path)
    _resolve_target(path, parameter)
    return path


def _check_target(path: Path, parameter: str) -> None:
    _resolve_target(path, parameter)


def _make_temp(path: Path, parameter: str, *, shown: Path | None = None) -> tuple[int, str]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InputError(parameter, f"cannot write {os.fspath(shown or path)!r}: {exc.strerror}") from None


def _publish(tmp: str, path: Path, parameter: str, *, shown: Path | None = None) -> None:
    # mkstemp creates 0600: an existing target keeps its permission bits (a 0600 file stays 0600),
    # a new one gets the usual permissions (0666 minus the umask)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(parameter, f"cannot write {os.fspath(shown or path)!r}: {exc.strerror}") from None


def _write_stream(target: _Target, data: str | bytes, parameter: str, mode: str = "wb", **kwargs) -> None:
    """Write ``data`` to standard output or in place to a character device / FIFO (opened without
    ``O_CREAT``: if the node vanished, nothing is created)."""
    binary = "b" in mode
    try:
        if target.kind == "stdout":
            if binary or isinstance(data, bytes):
                sys.stdout.flush()
                sys.stdout.buffer.write(data if isinstance(data, bytes) else data.encode("utf-8"))
                sys.stdout.buffer.flush()
            else:
                sys.stdout.write(data)
                sys.stdout.flush()
            return
        fd = os.open(target.path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        if isinstance(data, str) and binary:
            data = data.encode("utf-8")
        with os.fdopen(fd, mode if not isinstance(data, bytes) or binary else "wb", **kwargs) as fh:
            fh.write(data)
    except OSError as exc:
        raise InputError(parameter, f"cannot write {os.fspath(target.path)!r}: {exc.strerror}") from None


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", *, parameter: str = "output", **kwargs) -> Iterator[Any]:
    """Open a temporary sibling of ``path``; rename it to ``path`` on success.

    A target that cannot be written (a directory, a folder without write permission, a
    file system such as ``/proc``, a dangling symbolic link, a block device, a socket) raises
    :class:`InputError` naming ``parameter`` and ``path`` (never the temporary file), before
    anything is written.  A symbolic link is never replaced: the file it leads to is
    (atomically).  A character device (``/dev/null``) or a FIFO is written in place and
    ``/dev/stdout`` (``/proc/self/fd/1``) is standard output: the content is collected and
    written there only when the block succeeded (nothing is written on failure).
    """
    target = _resolve_target(Path(path), parameter)
    if target.kind != "file":
        buf = io.BytesIO() if "b" in mode else io.StringIO(newline="")
        yield buf
        _write_stream(target, buf.getvalue(), parameter, mode, **kwargs)
        return
    fd, tmp = _make_temp(target.real, parameter, shown=target.path)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        _publish(tmp, target.real, parameter, shown=target.path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_files(
    contents: Mapping[str | os.PathLike, str | bytes] | Iterable[tuple[Any, Any]], *, parameter: str = "output"
) -> list[Path]:
    """Write several files all or nothing; return their paths.

    ``contents`` maps each target path to its text (``str``, written UTF-8 with ``\\n``
    line ends as given) or bytes.  Every target is checked first (not a directory, its
    folder writable, no path given twice; see :func:`atomic_write` for symbolic links,
    devices, FIFOs and ``/dev/stdout``); then every content goes to a temporary sibling;
    only when all were written are they renamed over their targets (devices and FIFOs are
    written last, in place).  On any failure no regular target is created or changed and the
    temporaries are removed.
    """
    items = list(contents.items() if isinstance(contents, Mapping) else contents)
    paths = [Path(p) for p, _ in items]
    seen = set()
    targets = []
    for p in paths:
        t = _resolve_target(p, parameter)
        key = "<stdout>" if t.kind == "stdout" else os.path.abspath(t.real)
        if key in seen:
            raise InputError(parameter, f"names {os.fspath(p)!r} twice")
        seen.add(key)
        targets.append(t)
    temps: list[str | None] = []
    try:
        for t, (_, data) in zip(targets, items):
            if t.kind != "file":
                temps.append(None)
                continue
            fd, tmp = _make_temp(t.real, parameter, shown=t.path)
            temps.append(tmp)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            except OSError as exc:
                raise InputError(parameter, f"cannot write {os.fspath(t.path)!r}: {exc.strerror}") from None
        for t, tmp in zip(targets, temps):
            if tmp is not None:
                _publish(tmp, t.real, parameter, shown=t.path)
        for t, (_, data) in zip(targets, items):
            if t.kind != "file":
                _write_stream(t, data, parameter)
    finally:
        for tmp in temps:
            if tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
    return paths


def to_jsonable(obj: Any) -> Any:
    """Plain JSON values: numpy scalars/arrays, NaN/inf -> None, dataclasses (their ``to_dict()``
    where they have one, else their repr fields), pandas objects (``to_dict()``)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (
            obj.to_dict()
            if hasattr(obj, "to_dict")
            else {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.repr}
        )
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    if hasattr(obj, "to_dict") and hasattr(obj, "index"):  # pandas objects
        return to_jsonable(obj.to_dict())
    return obj


def dumps_json(obj: Any, *, indent: int | None = 2) -> str:
    """Deterministic JSON text (sorted keys are *not* imposed; insertion order is kept)."""
    return json.dumps(to_jsonable(obj), indent=indent, allow_nan=False)


def write_json(path: str | os.PathLike, obj: Any, *, indent: int | None = 2) -> None:
    """Write ``obj`` as JSON to ``path`` atomically."""
    text = dumps_json(obj, indent=indent)
    with atomic_write(path) as fh:
        fh.write(text + "\n")


# --------------------------------------------------------------------------- configs


def load_config_yaml(source: Any, *, parameter: str = "configfile") -> Any:
    """Load a pipeline config (YAML or JSON) strictly, or raise :class:`InputError` naming the file
    and line.

    Stricter than ``yaml.safe_load`` (and Snakemake's loader) in three ways that matter for a
    config: a key given twice in one mapping is an error (YAML keeps the last one
    silently); anchors and aliases are refused (a "billion laughs" file is a few hundred bytes
    that expand to 10^9 nodes and hang the validation); and the key ``__use_yte__``, which makes
    Snakemake run the file as a YTE template (Python code), is refused.  Configs are otherwise
    trusted input (README).
    """
    import yaml

    shown = _shown(source)
    text = read_text(source, parameter=parameter)

    class _Strict(yaml.SafeLoader):
        pass

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise InputError(
                parameter,
                f"{shown} line {event.start_mark.line + 1}: YAML aliases (*{event.anchor}) are not allowed in a config",
            )
        node = yaml.SafeLoader.compose_node(self, parent, index)
        return node

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                hash(key)
            except TypeError:
                raise InputError(parameter, f"{shown} line {line}: a mapping key must be a scalar") from None
            if key in seen:
                raise InputError(
                    parameter,
                    f"{shown} line {line}: key {key!r} is given twice in one mapping (first on line {seen[key]})",
                )
            seen[key] = line
            if key == "__use_yte__":
                raise InputError(
                    parameter,
                    f"{shown} line {line}: '__use_yte__' is not allowed (it makes "
                    "Snakemake run the config as a YTE template, i.e. execute Python)",
                )
        return yaml.SafeLoader.construct_mapping(self, node, deep=deep)

    def construct_number(self, node):
        # YAML 1.1 numbers that YAML 1.2 (and a reader's eye) reads otherwise: 017 is octal 15, 1:30 is
        # sexagesimal 90, 0b11 is 3, 1_000 is 1000 -- refused instead of silently converted
        text = str(node.value).strip()
        body = text.lstrip("+-")
        kind = (
            "an octal number"
            if re.fullmatch(r"0[0-9]+", body)
            else "a base-60 (sexagesimal) number"
            if ":" in body
            else "a binary number"
            if body.lower().startswith("0b")
            else "a number with '_' separators"
            if "_" in body
            else None
        )
        if kind is not None:
            value = (
                yaml.SafeLoader.construct_yaml_int(self, node)
                if node.tag.endswith(":int")
                else yaml.SafeLoader.construct_yaml_float(self, node)
            )
            raise InputError(
                parameter,
                f"{shown} line {node.start_mark.line + 1}: {text!r} is {kind} in YAML 1.1 "
                f"(= {value!r}); write the number plainly or quote it as a string",
            )
        if node.tag.endswith(":int"):
            return yaml.SafeLoader.construct_yaml_int(self, node)
        return yaml.SafeLoader.construct_yaml_float(self, node)

    _Strict.compose_node = compose_node
    _Strict.add_constructor("tag:yaml.org,2002:int", construct_number)
    _Strict.add_constructor("tag:yaml.org,2002:float", construct_number)
    _Strict.add_constructor(
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
        lambda loader, node: dict(construct_mapping(loader, node, deep=True)),
    )
    try:
        return yaml.load(text, Loader=_Strict)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(parameter, f"{shown}{where} is not valid YAML ({problem})") from None


@contextlib.contextmanager
def logged_stderr(path: str | os.PathLike) -> Iterator[Any]:
    """``sys.stderr`` goes to the job log ``path`` for the block; an exception's traceback is written to
    the log *before* it is closed (with ``with open(log) as fh: sys.stderr = fh`` the traceback
    came after the close: an empty log and "lost sys.stderr" on the console), and ``sys.stderr`` is
    restored so that the exception also reaches the console."""
    import traceback

    saved = sys.stderr
    with open(path, "w", encoding="utf-8") as log:
        sys.stderr = log
        try:
            yield log
        except BaseException:
            traceback.print_exc(file=log)
            log.flush()
            raise
        finally:
            sys.stderr = saved
