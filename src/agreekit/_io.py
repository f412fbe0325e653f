"""Small I/O helpers shared by the CLI and the pipeline adapters.

``atomic_write`` guarantees that no partial output file is left behind: the
content goes to a temporary file in the target directory, which is renamed
over the target only when writing succeeded.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

import numpy as np

__all__ = ["atomic_write", "to_jsonable", "dumps_json", "write_json"]


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[Any]:
    """Open a temporary sibling of ``path``; rename it to ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        # mkstemp creates 0600; give the file the usual permissions (0666 minus the umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays (and NaN) to plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return None if math.isnan(x) or math.isinf(x) else x
    return obj


def dumps_json(obj: Any, *, indent: int | None = 2) -> str:
    """Deterministic JSON text (sorted keys are *not* imposed; insertion order is kept)."""
    return json.dumps(to_jsonable(obj), indent=indent, allow_nan=False)


def write_json(path: str | os.PathLike, obj: Any, *, indent: int | None = 2) -> None:
    """Write ``obj`` as JSON to ``path`` atomically."""
    text = dumps_json(obj, indent=indent)
    with atomic_write(path) as fh:
        fh.write(text + "\n")
