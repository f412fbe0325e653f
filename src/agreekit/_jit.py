"""Pay for numba compilation only when the work repays it.

A numba kernel costs 0.3–3 s to compile on first use (``parallel=True`` kernels the most) and
nothing afterwards (``cache=True`` keeps the machine code next to the installed sources). For
the small inputs of a first try — a 4 × 4 profile, n = 6 exact moments — that compilation is
almost all of the run time, so :func:`pick` chooses, from an estimate of the work, between

* the kernel's own Python source run by CPython (:func:`interpreted`; every kernel it calls
  is interpreted too, so nothing is compiled),
* the kernel compiled without ``parallel=True`` (:func:`serial`; compiles several times
  faster than a parallel kernel), and
* the kernel as declared.

All three execute the same source statements: a ``prange`` loop is a ``range`` loop in the
first two, and the kernels that use it write one output slot per iteration (no reductions
across iterations), so the results are the same bits whichever is chosen — the tests check
this kernel by kernel (``tests/test_jit.py``).

``AGREEKIT_JIT=compiled`` (environment) always takes the declared kernel, ``serial`` the serial
one, ``interpreted`` the Python one (for tests); the default is ``auto``.
"""
from __future__ import annotations

import contextlib
import os
import types

import numba as nb
from numba.core.dispatcher import Dispatcher

__all__ = ["interpreted", "serial", "pick", "forced", "INTERPRET_BELOW", "PARALLEL_ABOVE"]

#: estimated elementary steps below which CPython runs the kernel's source (about 10–50 ms)
INTERPRET_BELOW = 50_000
#: estimated elementary steps above which a parallel kernel is used (its extra compile time,
#: 1–3 s once per install, is then repaid on later calls; below it the work takes milliseconds)
PARALLEL_ABOVE = 2_000_000

_PY: dict[int, types.FunctionType] = {}
_SERIAL: dict[int, Dispatcher] = {}


_MODES = ("auto", "compiled", "serial", "interpreted")
_FORCED: list[str] = []


def _mode() -> str:
    if _FORCED:
        return _FORCED[-1]
    mode = os.environ.get("AGREEKIT_JIT", "auto")
    if mode not in _MODES:
        raise ValueError(f"AGREEKIT_JIT must be one of {', '.join(_MODES)}; got {mode!r}")
    return mode


@contextlib.contextmanager
def forced(mode: str):
    """Within the block, :func:`pick` returns the given variant whatever the work
    (``"compiled"``: the declared kernel, ``"serial"``, ``"interpreted"``); used by the
    ``warmup()`` functions, which compile every variant a later timing may meet."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}; got {mode!r}")
    _FORCED.append(mode)
    try:
        yield
    finally:
        _FORCED.pop()


def _swap(value):
    return interpreted(value) if isinstance(value, Dispatcher) else value


def interpreted(kernel: Dispatcher) -> types.FunctionType:
    """The kernel's Python function, with every numba kernel it refers to (globals and closure
    cells) replaced by its interpreted version, so that calling it compiles nothing."""
    key = id(kernel)
    fn = _PY.get(key)
    if fn is not None:
        return fn
    py = kernel.py_func
    glb = dict(py.__globals__)
    closure = None
    if py.__closure__:
        closure = tuple(types.CellType() for _ in py.__closure__)
    fn = types.FunctionType(py.__code__, glb, py.__name__, py.__defaults__, closure)
    fn.__kwdefaults__ = py.__kwdefaults__
    fn.__qualname__ = py.__qualname__
    fn.__module__ = py.__module__
    fn.__doc__ = py.__doc__
    _PY[key] = fn  # registered before the recursion: kernels may refer to each other
    for name in py.__code__.co_names:
        if name in glb:
            glb[name] = _swap(glb[name])
    if closure:
        for new, old in zip(closure, py.__closure__):
            new.cell_contents = _swap(old.cell_contents)
    return fn


def serial(kernel: Dispatcher) -> Dispatcher:
    """The kernel compiled without ``parallel=True`` (its own cache entry)."""
    opts = dict(kernel.targetoptions)
    if not opts.pop("parallel", False):
        return kernel
    key = id(kernel)
    d = _SERIAL.get(key)
    if d is None:
        py = kernel.py_func
        fn = types.FunctionType(py.__code__, py.__globals__, py.__name__, py.__defaults__, py.__closure__)
        fn.__qualname__ = py.__qualname__ + "__serial"  # distinct cache files
        fn.__module__ = py.__module__
        fn.__doc__ = py.__doc__
        d = _SERIAL[key] = nb.njit(cache=kernel._cache.__class__.__name__ != "NullCache", **opts)(fn)
    return d


def pick(kernel: Dispatcher, work: float):
    """The variant of ``kernel`` for an estimated ``work`` (elementary steps): interpreted below
    :data:`INTERPRET_BELOW`, serial below :data:`PARALLEL_ABOVE`, else the declared kernel."""
    mode = _mode()
    if mode == "compiled":
        return kernel
    if mode == "serial":
        return serial(kernel)
    if mode == "interpreted" or work < INTERPRET_BELOW:
        return interpreted(kernel)
    if work < PARALLEL_ABOVE:
        return serial(kernel)
    return kernel
