"""Matplotlib for the report modules (:mod:`agreekit.ireval.report`, :mod:`agreekit.metaeval.report`).

matplotlib is imported on first use (``import agreekit`` and the measures never pay for it), with
the non-interactive Agg backend; figures are written as PNG and PDF next to each other, each
through a unique temporary file so that a reader never sees half a figure.
"""

from __future__ import annotations

from pathlib import Path

from agreekit._io import write_files
from agreekit._optional import pyplot as _optional_pyplot

__all__ = ["pyplot", "save_figure", "figure_files"]


def pyplot():
    """``matplotlib.pyplot`` with the Agg backend (imported here, lazily: matplotlib is heavy)."""
    return _optional_pyplot("figures")


def figure_files(fig, stem: str | Path) -> dict[Path, bytes]:
    """``{stem.png: bytes, stem.pdf: bytes}`` of a figure, rendered in memory (no file touched), for
    :func:`agreekit._io.write_files` together with the other outputs of a command (all or nothing)."""
    import io

    stem = Path(stem)
    out = {}
    for ext, kw in ((".png", {"dpi": 150}), (".pdf", {"metadata": {"CreationDate": None}})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext[1:], bbox_inches="tight", **kw)
        out[stem.with_suffix(ext)] = buf.getvalue()
    return out


def save_figure(fig, stem: str | Path) -> None:
    """Write ``fig`` to ``stem.png`` (150 dpi) and ``stem.pdf`` (no creation date: same bytes each run),
    all or nothing, through unique temporary names (mkstemp in the target folder: a fixed temporary
    name such as ``.heatmap.tmp.png`` could be a planted symlink)."""
    write_files(figure_files(fig, stem), parameter="output")
