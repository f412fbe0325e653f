"""Matplotlib for the report modules (:mod:`agreekit.ireval.report`, :mod:`agreekit.metaeval.report`).

matplotlib is imported on first use (``import agreekit`` and the measures never pay for it), with
the non-interactive Agg backend; figures are written as PNG and PDF next to each other, each
through a temporary file so that a reader never sees half a figure.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["pyplot", "save_figure"]


def pyplot():
    """``matplotlib.pyplot`` with the Agg backend (imported here, lazily: matplotlib is heavy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, stem: str | Path) -> None:
    """Write ``fig`` to ``stem.png`` (150 dpi) and ``stem.pdf`` (no creation date: same bytes each run)."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    for ext, kw in ((".png", {"dpi": 150}), (".pdf", {"metadata": {"CreationDate": None}})):
        tmp = stem.parent / f".{stem.name}.tmp{ext}"
        fig.savefig(tmp, bbox_inches="tight", **kw)
        tmp.replace(stem.with_suffix(ext))
