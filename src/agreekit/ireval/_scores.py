"""Topics x systems score matrices: validating, aligning by label, loading from CSV."""

from __future__ import annotations

import os
import re
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from agreekit._io import read_csv_rows
from agreekit._validation import InputError, check_choice, check_name, float_matrix, is_ascii_int, parse_ascii_float

#: ids longer than this are never read as numbers by the ids rule below
_NUMERIC_ID_MAX = 64


def _numeric_id(text: str) -> Decimal | None:
    """The exact value of an id that is an ASCII decimal number (``1``, ``01``, ``+1``, ``1.0``,
    ``1e0``), else None.  Exact (:class:`decimal.Decimal`), so long digit strings that are equal
    as floats are not confused."""
    if len(text) > _NUMERIC_ID_MAX or parse_ascii_float(text, special=False) is None:
        return None
    try:
        return Decimal(text.strip())
    except (ArithmeticError, ValueError):  # pragma: no cover - the pattern admits only numbers
        return None


_TOPIC_HEADERS = {"topic", "topics", "qid", "query", "query_id", "topic_id", "id", ""}
#: header names of a topic-id column: topic, Topic ID, qid, qno, QNo, QueryID, query_id, qid_num, tid, num, ...
_TOPIC_HEADER_RE = re.compile(
    r"(?:q|qry|query|queries|topic|topics|qid|qids|qno|qnum|tid|id|ids|num|number|no|nr)"
    r"(?:[\s_.\-]*(?:id|ids|no|nr|num|number|name|s))*",
    re.IGNORECASE | re.ASCII,
)
_TOPIC_COLUMN_CHOICES = ("auto", "first", "none")


def _first_column_is_topics(df: pd.DataFrame, topic_column: str, parameter: str, shown: str) -> bool:
    """Is the first CSV column the topic ids (``topic_column`` "auto": by its name or its values)?

    The rule (a numeric ``qno`` column must not be read as a system): the first column is the
    topic column if its header is a topic-id name (:data:`_TOPIC_HEADER_RE`), or if its values are
    not all numbers.  A first column of distinct integers under any other name is ambiguous — topic
    ids or a system with integral scores? — and an error asking for ``topic_column``.
    """

    if topic_column == "first":
        return True
    if topic_column == "none":
        return False
    first = str(df.columns[0]).strip()
    cells = df.iloc[:, 0].tolist()
    if first == "" or _TOPIC_HEADER_RE.fullmatch(first):
        frac = next((c for c in cells if parse_ascii_float(c) is not None and not is_ascii_int(c)), None)
        if frac is not None and all(parse_ascii_float(c) is not None for c in cells):  # a topic-like name over scores
            raise InputError(
                parameter,
                f"{shown}: the first column {first!r} is named like topic ids but holds "
                f"scores ({frac!r}); pass topic_column='none' (--topic-column none) if it "
                "is a system, or give the topic ids",
            )
        return True
    if not cells:
        return False
    if all(c != "" and parse_ascii_float(c) is None for c in cells):
        return True  # topic ids such as q1 (a single typo in a system column is an error below)
    if (
        len(cells) >= 2
        and all(is_ascii_int(c) for c in cells)
        and len({int(c) for c in cells}) == len(cells)
        and min(int(c) for c in cells) >= 1
    ):
        raise InputError(
            parameter,
            f"{shown}: the first column {first!r} holds distinct integers "
            f"({cells[0]}, {cells[1]}, ...): topic ids or a system's scores? Name it "
            "'topic' or pass topic_column='first' (CLI --topic-column first) if they "
            "are topic ids, topic_column='none' (--topic-column none) if it is a system",
        )
    return False


#: largest |score| accepted: squared differences summed over topics stay finite in float64
_SCORE_LIMIT = 1e150


def check_scores(scores: Any, *, parameter: str = "scores", min_topics: int = 2, min_systems: int = 2) -> pd.DataFrame:
    """Validate a topics x systems score matrix and return it as a float DataFrame.

    Accepts a DataFrame (index = topics, columns = systems) or a 2-D array
    (topics and systems numbered from 1).  Rejects NaN/inf, non-numeric
    values, scores beyond ±1e150 (their squared differences overflow), duplicate topic or
    system labels and fewer than ``min_topics``
    topics or ``min_systems`` systems, naming ``parameter``.
    """
    if isinstance(scores, pd.DataFrame):
        df = scores
    else:
        arr = float_matrix(parameter, scores, what="topics x systems matrix")
        df = pd.DataFrame(
            arr,
            index=pd.RangeIndex(1, arr.shape[0] + 1, name="topic"),
            columns=[f"sys{j + 1}" for j in range(arr.shape[1])],
        )
    try:
        values = df.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(parameter, "must contain only numbers") from None
    if values.ndim != 2:
        raise InputError(parameter, "must be 2-D (topics x systems)")
    n, s = values.shape
    if n < min_topics:
        raise InputError(parameter, f"must have at least {min_topics} topics (rows); got {n}")
    if s < min_systems:
        raise InputError(parameter, f"must have at least {min_systems} systems (columns); got {s}")
    if not np.all(np.isfinite(values)):
        bad = np.argwhere(~np.isfinite(values))[0]
        raise InputError(
            parameter,
            f"contains NaN or infinite values (first at topic {df.index[bad[0]]!r}, system {df.columns[bad[1]]!r})",
        )
    big = float(np.max(np.abs(values)))
    if big > _SCORE_LIMIT:
        bad = np.argwhere(np.abs(values) == big)[0]
        raise InputError(
            parameter,
            f"has a score {values[bad[0], bad[1]]:.3g} (topic {df.index[bad[0]]!r}, system "
            f"{df.columns[bad[1]]!r}) beyond ±{_SCORE_LIMIT:.0e}: differences, means "
            "and squared differences of such scores overflow float64",
        )
    if df.index.has_duplicates:
        raise InputError(parameter, "has duplicate topic labels")
    if df.columns.has_duplicates:
        raise InputError(parameter, "has duplicate system labels")
    return pd.DataFrame(values, index=df.index.copy(), columns=df.columns.copy())


def align_scores(reference: pd.DataFrame, other: pd.DataFrame, *, names=("scores_a", "scores_b")) -> pd.DataFrame:
    """Return ``other`` reordered to ``reference``'s topics and systems (by label), or raise.

    Aligning by label, never by position, avoids silently pairing the wrong
    topics or systems; differing topic or system *sets* are an error.

    Parameters
    ----------
    reference : pandas.DataFrame
        Topics × systems scores whose row and column order is kept.
    other : pandas.DataFrame
        Scores of the same topics and systems, in any order.
    names : tuple of two str, optional
        How errors about their labels name the two matrices (default ``("scores_a", "scores_b")``).

    Returns
    -------
    pandas.DataFrame
        ``other`` with ``reference``'s index and columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreekit.ireval.metrics import align_scores
    >>> a = pd.DataFrame({"A": [0.1, 0.3], "B": [0.2, 0.0]}, index=["301", "302"])
    >>> align_scores(a, a.loc[["302", "301"], ["B", "A"]]).equals(a)
    True
    """
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise InputError("names", f"must be a pair of strings (how errors name the two matrices); got {names!r}"[:200])
    for param, frame in (("reference", reference), ("other", other)):
        if not isinstance(frame, pd.DataFrame):
            raise InputError(
                param,
                f"must be a pandas DataFrame of topics x systems scores (see load_scores); got {type(frame).__name__}",
            )
    for axis, what in ((0, "topics"), (1, "systems")):
        a = reference.axes[axis]
        b = other.axes[axis]
        if set(map(str, a)) != set(map(str, b)) or len(a) != len(b):
            only_a = sorted(set(map(str, a)) - set(map(str, b)))
            only_b = sorted(set(map(str, b)) - set(map(str, a)))
            values = {v: t for t in only_a if (v := _numeric_id(t)) is not None}
            same = next(((t, values[v]) for t in only_b if (v := _numeric_id(t)) is not None and v in values), None)
            hint = (
                ""
                if same is None
                else (
                    f"; {same[0]!r} of {names[1]} equals {same[1]!r} of {names[0]} only as "
                    "a number: labels are compared as text"
                )
            )
            raise InputError(
                names[1],
                f"has different {what} than `{names[0]}` "
                f"(only in {names[0]}: {only_a[:5]}; only in {names[1]}: {only_b[:5]}{hint})",
            )
    o = other.copy()
    o.index = o.index.map(str)
    o.columns = o.columns.map(str)
    o = o.loc[[str(t) for t in reference.index], [str(c) for c in reference.columns]]
    o.index = reference.index
    o.columns = reference.columns
    return o


def load_scores(path: str | os.PathLike, *, parameter: str = "scores", topic_column: str = "auto") -> pd.DataFrame:
    """Load a topics x systems score matrix from CSV.

    The header row names the systems (non-empty, distinct).  If the first
    column is named like a topic id (``topic``, ``qid``, ``qno``, ``QueryID``, ``query_id``,
    ``qid_num``, empty, ...) or holds only non-numeric values it becomes the index; otherwise rows
    are topics numbered 1..n (the layout of Urbano et al.'s TREC matrices).  A first column of
    distinct positive integers under another name is ambiguous and an error unless
    ``topic_column`` says what it is: ``"first"`` (the first column is the topic ids) or
    ``"none"`` (every column is a system).  Numbers are ASCII decimal numbers.

    Parameters
    ----------
    path : path or file-like
        The CSV file (``-`` = stdin) or an open text stream.
    parameter : str, default "scores"
        How errors name the input (e.g. a CLI argument).
    topic_column : {"auto", "first", "none"}
        Whether the first column holds the topic ids (``"auto"``: decided by its name and
        values, as above).

    Returns
    -------
    pandas.DataFrame
        Topics x systems float scores, index ``topic`` (the ids as text, or 1..n), columns
        ``system``.

    References
    ----------
    J. Urbano, H. Lima and A. Hanjalic, "Statistical significance testing in information retrieval: an
    empirical analysis of type I, type II and type III errors", SIGIR 2019, pp. 505-514.
    :doi:`10.1145/3331184.3331259`

    Examples
    --------
    A ``qno`` column is the topic ids; without a topic column the rows are numbered:

    >>> import io
    >>> from agreekit.ireval.metrics import load_scores
    >>> load_scores(io.StringIO("qno,A,B\\n301,0.1,0.2\\n302,0.3,0.0\\n"))
    system    A    B
    topic
    301     0.1  0.2
    302     0.3  0.0
    >>> load_scores(io.StringIO("A,B\\n0.1,0.2\\n0.3,0.0\\n")).index.tolist()
    [1, 2]
    """
    table = read_csv_rows(path, parameter=check_name("parameter", parameter), empty_header="first", what="system")
    shown = table.source

    topic_column = check_choice("topic_column", topic_column, _TOPIC_COLUMN_CHOICES)
    df = pd.DataFrame(table.rows, columns=table.header, dtype=str)
    first = str(df.columns[0])
    use_index = _first_column_is_topics(df, topic_column, parameter, shown)
    if use_index and df.shape[1] < 2:
        hint = " (is the delimiter ','?)" if any(c in first for c in ";\t|") else ""
        raise InputError(parameter, f"{shown} has no system columns besides the topic column {first!r}{hint}")
    if use_index:
        df = df.set_index(df.columns[0])
        df.index.name = "topic"
        if df.index.has_duplicates:
            dup = df.index[df.index.duplicated()][0]
            raise InputError(parameter, f"{shown}: topic {dup!r} appears twice")
    else:
        df.index = pd.RangeIndex(1, len(df) + 1, name="topic")
    df.columns = pd.Index([str(c) for c in df.columns], name="system")
    num = df.apply(lambda c: c.map(lambda v: np.nan if (f := parse_ascii_float(v)) is None else f)).astype(np.float64)
    bad = num.isna() & df.ne("").to_numpy() & ~df.isin(["nan", "NaN", "NA"]).to_numpy()
    if bad.to_numpy().any():
        r, c = np.argwhere(bad.to_numpy())[0]
        raise InputError(
            parameter,
            f"{shown} line {table.lines[r]}: non-numeric value {df.iat[r, c]!r} "
            f"at topic {df.index[r]!r}, system {df.columns[c]!r}",
        )
    if num.shape[0] and num.shape[1] and not np.all(np.isfinite(num.to_numpy(dtype=np.float64))):
        r, c = np.argwhere(~np.isfinite(num.to_numpy(dtype=np.float64)))[0]
        what = "missing value" if df.iat[r, c] == "" else f"NaN or infinite value {df.iat[r, c]!r}"
        raise InputError(
            parameter, f"{shown} line {table.lines[r]}: {what} at topic {df.index[r]!r}, system {df.columns[c]!r}"
        )
    return check_scores(num, parameter=parameter)
