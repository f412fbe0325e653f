"""Optional dependencies: figures need matplotlib (extra ``plot``), fitting coefficient tables needs
statsmodels (extra ``tablegen``).  The runtime (correlations, tables, tests, consensus, measures) imports
neither; a call that needs one says which extra installs it."""

from __future__ import annotations

import importlib

#: top-level module -> the extra that installs it
EXTRAS = {"matplotlib": "plot", "statsmodels": "tablegen"}


def import_optional(name: str, *, purpose: str):
    """Import ``name`` (e.g. ``"matplotlib.pyplot"``), or raise an ImportError naming the extra to install."""
    top = name.split(".")[0]
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        extra = EXTRAS.get(top, "workflow")
        raise ImportError(
            f"{purpose} needs {top}, which is not installed; install it with "
            f"`pip install \"agreekit[{extra}]\"` (or `pip install {top}`)"
        ) from exc


def pyplot(purpose: str):
    """matplotlib.pyplot on the non-interactive Agg backend."""
    matplotlib = import_optional("matplotlib", purpose=purpose)
    matplotlib.use("Agg")
    return import_optional("matplotlib.pyplot", purpose=purpose)
