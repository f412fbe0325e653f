"""Reading ranking tables (CSV) for the CLI and the pipeline."""

from __future__ import annotations

import math

import numpy as np

from agreekit._io import read_csv_rows
from agreekit._validation import InputError, check_name, parse_ascii_float
from agreekit.consensus._matrices import RankingData, as_rankings

__all__ = ["read_rankings"]


def _parse_rank(cell: str, ordinal: bool = False):
    """A rank cell: '' -> NaN (unranked), a positive integer ('3', '3.0') -> float, else None.
    With ``ordinal`` any finite number is accepted."""
    s = cell.strip()
    if s == "":
        return math.nan
    v = parse_ascii_float(s)  # ASCII decimal numbers only ('\u0661', '\uff11', '1_0' are not ranks)
    if v is None or not math.isfinite(v):
        return None
    if not ordinal and (v < 1 or v != math.floor(v)):
        return None
    return v


def read_rankings(
    path, *, weights_column: str | None = "auto", parameter: str = "FILE", ordinal: bool = False
) -> RankingData:
    """Read a judges × items CSV of rankings.

    Layout: a header of item labels (non-empty, unique), then one ranking per line with
    exactly one cell per header cell.  A cell holds the item's rank position — a positive
    integer, 1 = best, equal values = ties — or is empty when the judge did not rank the
    item.  Trailing blank lines are ignored; ``.gz`` files are decompressed; a UTF-8
    byte-order mark is ignored (:func:`agreekit._io.read_csv_rows` reads the table).  Anything else (ragged rows, duplicate or empty item names, ranks such as
    0, -1, 2.5, ``nan``) raises :class:`~agreekit.InputError` naming the file,
    line and column.

    Parameters
    ----------
    path : str, pathlib.Path or file-like
        The CSV file (``"-"`` = stdin; a ``.gz`` name is decompressed) or an open text stream.
    weights_column : str or None, optional
        Name of a column of row weights (non-negative numbers; only their ratios matter, see
        :func:`as_rankings`); ``"auto"`` (default) uses a column named ``weight`` if there is
        one; ``None`` uses no weights (every row weighs 1).
    parameter : str, optional
        The name errors give the file (default ``"FILE"``, the CLI's argument).
    ordinal : bool, default False
        Accept any finite numbers as ordinal scores (lower = better), as ConsRank does;
        ConsRank's ``USAranks`` data (``resources/consensus/usa_ranks.csv``) needs it, as one
        of its cells is 0.

    Returns
    -------
    RankingData
        The rankings (``X`` with NaN for unranked cells), the weights (1 per row without a
        weight column) and the item labels (the header without the weight column).

    Examples
    --------
    >>> import io
    >>> from agreekit.consensus import read_rankings
    >>> data = read_rankings(io.StringIO("a,b,c,weight\\n1,2,3,2\\n2,1,,1\\n"))
    >>> data.labels, data.weights.tolist(), data.X[1].tolist()
    (('a', 'b', 'c'), [2.0, 1.0], [2.0, 1.0, nan])
    """
    if weights_column is not None and not isinstance(weights_column, str):
        raise InputError(
            "weights_column", f"must be a column name, 'auto' or None; got {type(weights_column).__name__}"
        )
    if not isinstance(ordinal, (bool, np.bool_)):
        raise InputError("ordinal", f"must be True or False; got {ordinal!r}")
    table = read_csv_rows(
        path, parameter=check_name("parameter", parameter), what="item"
    )  # ragged rows, empty/duplicate names
    src, header = table.source, table.header
    seen = {name: j + 1 for j, name in enumerate(header)}
    if weights_column == "auto":
        weights_column = "weight" if "weight" in seen else None
    if weights_column is not None and weights_column not in seen:
        raise InputError("weights_column", f"{weights_column!r} is not a column of {src}")
    wcol = None if weights_column is None else seen[weights_column] - 1
    items = [j for j in range(len(header)) if j != wcol]
    X = np.empty((len(table.rows), len(items)))
    w = np.ones(len(table.rows)) if wcol is not None else None
    for r, (line, cells) in enumerate(zip(table.lines, table.rows)):
        for t, j in enumerate(items):
            v = _parse_rank(cells[j], ordinal)
            if v is None:
                raise InputError(
                    parameter,
                    f"{src} line {line}, column {j + 1} ({header[j]!r}): "
                    f"{cells[j]!r} is not a rank; ranks are positive "
                    f"integers (1 = best, equal values = ties, empty = unranked)"
                    + ("" if ordinal else "; use ordinal=True (CLI: --ordinal) for arbitrary ordinal scores"),
                )
            X[r, t] = v
        if np.isnan(X[r]).all():
            raise InputError(parameter, f"{src} line {line} ranks no item (every item cell is empty)")
        if wcol is not None:
            cell = cells[wcol]
            wv = parse_ascii_float(cell)
            wv = math.nan if wv is None else wv
            if not math.isfinite(wv) or wv < 0:
                raise InputError(
                    parameter,
                    f"{src} line {line}, column {wcol + 1} ({weights_column!r}): "
                    f"weight {cell!r} is not a non-negative number",
                )
            w[r] = wv
    return as_rankings(X, weights=w, labels=[header[j] for j in items], parameter=parameter, ordinal=ordinal)
