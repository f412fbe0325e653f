"""Pay for numba compilation only when the work repays it.

A numba kernel costs 0.3–3 s to compile on first use (``parallel=True`` kernels the most) and
next to nothing afterwards (``cache=True`` keeps the machine code beside the installed
sources). For the small inputs of a first try — a 4 × 4 profile, n = 6 exact moments — that
compilation is almost all of the run time, so :func:`pick` chooses a variant of a kernel:

* the kernel's own Python source run by CPython (:func:`interpreted`; every kernel it calls
  is interpreted too, so nothing is compiled) — while the kernel has never been compiled
  (neither in this process nor in numba's cache on disk) and the work interpreted so far,
  this call included, stays within :data:`INTERPRET_BUDGET` steps (about 0.1 s of CPython:
  less than compiling); after that the kernel is compiled and used from then on, so a loop
  of many small calls pays for one compilation, not for slow calls;
* the kernel compiled without ``parallel=True`` (:func:`serial`; compiles several times
  faster than a parallel kernel) when the work is below :data:`PARALLEL_ABOVE`;
* the kernel as declared otherwise.

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
import time
import types

import numba as nb
from numba.core.dispatcher import Dispatcher

__all__ = ["interpreted", "serial", "pick", "forced", "available", "warm", "numpy_version", "INTERPRET_BUDGET", "PARALLEL_ABOVE"]

# ----------------------------------------------------------------------------- cache fallback
_CACHE_WARNED: list[str] = []


def _warn_no_cache(reason) -> None:
    if not _CACHE_WARNED:
        import warnings

        _CACHE_WARNED.append(str(reason))
        warnings.warn("agreekit: numba cannot cache compiled kernels here (no writable package folder, HOME "
                      "or NUMBA_CACHE_DIR); they are compiled in every process (set NUMBA_CACHE_DIR to a "
                      f"writable folder to cache them): {str(reason).splitlines()[0][:200]}",
                      RuntimeWarning, stacklevel=2)


def _install_cache_fallback() -> None:
    """``@njit(cache=True)`` without a usable cache folder compiles without a cache, with one warning.

    numba raises ``RuntimeError("cannot cache function ...: no locator available")`` when it
    decorates a function whose source folder is read-only while neither ``NUMBA_CACHE_DIR`` nor the
    user cache folder (``$HOME/.cache``) is writable, and ``OSError`` when saving to a folder that
    turns out unwritable; both become a :class:`RuntimeWarning` (once) and a kernel without a cache.
    """
    from numba.core import caching

    if getattr(Dispatcher.enable_caching, "_agreekit_fallback", False):
        return
    enable, save = Dispatcher.enable_caching, caching.Cache.save_overload

    def enable_caching(self):
        try:
            enable(self)
        except RuntimeError as exc:
            if "cannot cache" not in str(exc):
                raise
            _warn_no_cache(exc)
            self._cache = caching.NullCache()

    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        except OSError as exc:
            _warn_no_cache(exc)

    enable_caching._agreekit_fallback = True
    Dispatcher.enable_caching = enable_caching
    caching.Cache.save_overload = save_overload


_install_cache_fallback()


#: elementary steps a kernel may run interpreted (over all calls) before it is compiled
INTERPRET_BUDGET = 200_000
#: estimated elementary steps above which a parallel kernel is used: below, the serial kernel
#: runs in ~0.2 s or less, while compiling the parallel one costs 1–3 s more (once per install)
PARALLEL_ABOVE = 200_000_000

# keyed by the kernel itself (not id(): a collected kernel's id can be reused)
_PY: dict[Dispatcher, types.FunctionType] = {}
_SERIAL: dict[Dispatcher, Dispatcher] = {}
_SPENT: dict[Dispatcher, float] = {}  # interpreted work so far, per kernel
_READY: dict[Dispatcher, Dispatcher] = {}  # the compiled variant pick() returns from now on
_NUMPY: dict[Dispatcher, tuple] = {}   # kernel -> (numpy version, speed-up over interpreted loops)


def numpy_version(kernel: Dispatcher, *, speedup: float = 100.0):
    """Decorator registering a numpy function as the interpreted version of ``kernel``.

    For kernels whose loops are too slow in CPython even for small inputs: the function must
    give the kernel's results bit for bit (same operations in the same order, vectorised
    over the independent loops; ``tests/test_jit.py`` checks it), and it counts as
    ``work / speedup`` against :data:`INTERPRET_BUDGET`."""
    def register(func):
        _NUMPY[kernel] = (func, float(speedup))
        return func
    return register


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


class _InterpretedModule:
    """A package module seen from interpreted code: its kernels (``_k.kernel``) interpreted."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        value = _swap(getattr(self._module, name))
        setattr(self, name, value)
        return value


def _swap(value):
    if isinstance(value, Dispatcher):
        return interpreted(value)
    if isinstance(value, types.ModuleType) and value.__name__.startswith("agreekit"):
        return _InterpretedModule(value)
    return value


def interpreted(kernel: Dispatcher) -> types.FunctionType:
    """The kernel's Python function, with every numba kernel it refers to (globals and closure
    cells) replaced by its interpreted version, so that calling it compiles nothing; or the
    numpy version registered with :func:`numpy_version`."""
    key = kernel
    fn = _PY.get(key)
    if fn is not None:
        return fn
    if key in _NUMPY:
        return _NUMPY[key][0]
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


def warm(call) -> None:
    """Run ``call()`` twice, with every kernel it meets compiled serial, then as declared, so
    that later calls of any size find their variant compiled (benchmarks' warm-up)."""
    for mode in ("serial", "compiled"):
        with forced(mode):
            call()


def serial(kernel: Dispatcher) -> Dispatcher:
    """The kernel compiled without ``parallel=True`` (its own cache entry); the kernel itself
    when it is not parallel."""
    d = _SERIAL.get(kernel)
    if d is not None:
        return d
    opts = dict(kernel.targetoptions)
    opts.pop("nopython", None)
    if not opts.pop("parallel", False):
        d = kernel
    else:
        py = kernel.py_func
        fn = types.FunctionType(py.__code__, py.__globals__, py.__name__, py.__defaults__, py.__closure__)
        fn.__qualname__ = py.__qualname__ + "__serial"  # distinct cache files
        fn.__module__ = py.__module__
        fn.__doc__ = py.__doc__
        d = nb.njit(cache=kernel._cache.__class__.__name__ != "NullCache", **opts)(fn)
    _SERIAL[kernel] = d
    return d


def available(kernel: Dispatcher) -> bool:
    """Compiled in this process, or in numba's cache on disk (then loading it is cheap)."""
    if kernel.signatures:
        return True
    cache_file = getattr(kernel._cache, "_cache_file", None)
    return cache_file is not None and os.path.exists(cache_file._index_path)


def pick(kernel: Dispatcher, work: float):
    """The variant of ``kernel`` to call for an estimated ``work`` (elementary steps): see the
    module docstring."""
    mode = _mode()
    if mode == "compiled":
        return kernel
    if mode == "serial":
        return serial(kernel)
    if mode == "interpreted":
        return interpreted(kernel)
    if work >= PARALLEL_ABOVE:
        return kernel
    key = kernel
    ready = _READY.get(key)
    if ready is not None:  # compiled before: no more checks (Dispatcher.signatures costs µs)
        return ready
    twin = serial(kernel)
    if twin.signatures:
        _READY[key] = twin
        return twin
    if twin is not kernel and kernel.signatures:
        _READY[key] = kernel
        return kernel
    spent = _SPENT.get(key, 0.0) + (work / _NUMPY[key][1] if key in _NUMPY else work)
    if spent <= INTERPRET_BUDGET and not available(twin) and not (twin is not kernel and available(kernel)):
        _SPENT[key] = spent
        return interpreted(kernel)
    if twin is not kernel and not available(twin) and available(kernel):
        return kernel
    return twin


@nb.njit(cache=True)
def now():  # pragma: no cover - compiled
    """``time.perf_counter()`` inside a compiled kernel (deadline checks of long searches)."""
    with nb.objmode(t="float64"):
        t = time.perf_counter()
    return t
