"""Reading ranking tables (CSV) for the CLI and the pipeline."""
from __future__ import annotations

import numpy as np
import pandas as pd

from agreekit._validation import InputError
from agreekit.consensus._matrices import RankingData, as_rankings

__all__ = ["read_rankings"]


def read_rankings(path, *, weights_column: str | None = "auto") -> RankingData:
    """Read a judges × items CSV (header = item labels; empty cell = unranked).

    ``weights_column``: name of a column of row weights; ``"auto"`` (default) uses a
    column named ``weight`` if there is one; ``None`` uses no weights.
    """
    try:
        df = pd.read_csv(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError("FILE", f"is not a readable CSV table: {exc}") from None
    weights = None
    if weights_column == "auto":
        weights_column = "weight" if "weight" in df.columns else None
    if weights_column is not None:
        if weights_column not in df.columns:
            raise InputError("weights_column", f"{weights_column!r} is not a column of {path}")
        weights = pd.to_numeric(df.pop(weights_column), errors="coerce").to_numpy(dtype=float)
        if np.isnan(weights).any():
            raise InputError("weights", f"column {weights_column!r} must be numeric with no empty cells")
    bad = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise InputError("rankings", f"column {bad[0]!r} holds non-numeric ranks")
    return as_rankings(df, weights=weights)
