"""Memory guard: refuse work whose arrays cannot fit *before* allocating them.

Functions that must hold an array whose size grows with a user parameter (the bootstrap
replicates returned by :func:`agreekit.ireval.bootstrap.paired_test`, the per-pair
selection buffers of the bootstrap over many resamples, the transitivity rows of a full
MIP …) estimate the bytes first and call :func:`check_memory`, which raises
:class:`~agreekit.InputError` naming the parameter and the estimate when it
exceeds the limit.  Work that can be streamed is streamed instead and never calls this.

The limit is :data:`DEFAULT_MAX_MEMORY` (4 GiB) unless the environment variable
``AGREEKIT_MAX_MEMORY`` sets another one (bytes, or with a suffix K, M, G, T: ``16G``).
"""

from __future__ import annotations

import os
import re

from agreekit._validation import InputError

__all__ = ["DEFAULT_MAX_MEMORY", "max_memory", "format_bytes", "check_memory"]

DEFAULT_MAX_MEMORY = 4 * 2**30
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def max_memory() -> int:
    """The memory limit in bytes (``AGREEKIT_MAX_MEMORY`` or 4 GiB)."""
    raw = os.environ.get("AGREEKIT_MAX_MEMORY", "").strip()
    if not raw:
        return DEFAULT_MAX_MEMORY
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", raw, flags=re.IGNORECASE)
    if m is None:
        raise InputError("AGREEKIT_MAX_MEMORY", f"must be a number of bytes such as 8G or 500M; got {raw!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def format_bytes(n: float) -> str:
    """``1536 -> '1.5 KiB'``."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def check_memory(parameter: str, nbytes: float, what: str, *, hint: str = "") -> None:
    """Raise InputError naming ``parameter`` if ``nbytes`` exceed :func:`max_memory`.

    ``what`` says what would be allocated (e.g. ``"2 x 10000000000 bootstrap replicates"``).
    """
    limit = max_memory()
    if nbytes > limit:
        msg = (
            f"would need about {format_bytes(nbytes)} of memory for {what}, more than the limit of "
            f"{format_bytes(limit)} (set AGREEKIT_MAX_MEMORY to raise it)"
        )
        if hint:
            msg += f"; {hint}"
        raise InputError(parameter, msg)
