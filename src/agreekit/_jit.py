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

numba's own switches are respected: with ``NUMBA_DISABLE_JIT=1`` (numba's debugging switch) every
kernel is its Python function and every variant is that function (same results, slowly);
``NUMBA_NUM_THREADS`` that is not a positive integer is an :class:`~agreekit.InputError` naming it.

A first call that will compile for seconds says so in one line on stderr before it starts
(:func:`compile_notice`), only when numba's cache does not hold the kernels yet; ``AGREEKIT_QUIET=1``
(environment) or :func:`quiet` (the CLI's ``--quiet``) silences it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import time
import types

from agreekit._validation import InputError


def _check_thread_count() -> None:
    """numba refuses ``NUMBA_NUM_THREADS`` below 1 with a traceback from inside its import: say it in one line."""
    value = os.environ.get("NUMBA_NUM_THREADS")
    if value is None or not value.strip():
        return
    try:
        ok = int(value) >= 1
    except ValueError:
        ok = False
    if not ok:
        raise InputError(
            "NUMBA_NUM_THREADS",
            f"(environment variable) must be a positive integer (numba's thread count); got {value!r}",
        )


_check_thread_count()

import numba as nb  # noqa: E402  (after the environment check)
from numba.core import caching, config, event  # noqa: E402
from numba.core.dispatcher import Dispatcher  # noqa: E402

__all__ = [
    "interpreted",
    "serial",
    "pick",
    "forced",
    "available",
    "warm",
    "numpy_version",
    "INTERPRET_BUDGET",
    "PARALLEL_ABOVE",
    "compile_notice",
    "quiet",
    "interrupts_after_compiling",
]

# ----------------------------------------------------------------------------- cache fallback
# numba raises ``RuntimeError("cannot cache function ...: no locator available")`` when it decorates an
# ``@njit(cache=True)`` function and finds no writable cache folder: not the package's own
# ``__pycache__`` (read-only install), not ``NUMBA_CACHE_DIR`` (unset), not the user cache folder (no
# writable HOME). Then agreekit's kernels are cached in a temporary folder of the process (so compiled
# in every process) with one RuntimeWarning. This goes through numba's own setting for the list of
# cache locators (``NUMBA_CACHE_LOCATOR_CLASSES``, i.e. ``numba.config.CACHE_LOCATOR_CLASSES``): numba's
# default locators first, in their order, then :class:`_TemporaryLocator`, which answers only for
# agreekit's source files. No numba class is modified; other numba users in the process meet the same
# locators as before, and the setting is only made when numba has no locator for agreekit's folder.
_CACHE_WARNED: list[str] = []
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_TEMPORARY: list[str] = []


def _warn_no_cache(reason) -> None:
    if not _CACHE_WARNED:
        import warnings

        _CACHE_WARNED.append(str(reason))
        warnings.warn(
            "agreekit: numba cannot cache compiled kernels here (no writable package folder, HOME "
            "or NUMBA_CACHE_DIR); they are compiled in every process (set NUMBA_CACHE_DIR to a "
            f"writable folder to cache them): {str(reason).splitlines()[0][:200]}",
            RuntimeWarning,
            stacklevel=2,
        )


def _temporary_folder() -> str:
    if not _TEMPORARY:
        import shutil
        import tempfile

        path = tempfile.mkdtemp(prefix="agreekit-numba-")
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        _TEMPORARY.append(path)
    return _TEMPORARY[0]


class _TemporaryLocator(caching.UserProvidedCacheLocator):
    """numba cache locator of last resort: agreekit's kernels in a temporary folder of this process."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(_temporary_folder(), self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        path = os.path.abspath(py_file)
        if not os.path.exists(path) or os.path.commonpath([path, _PACKAGE_DIR]) != _PACKAGE_DIR:
            return None  # not agreekit's: numba's behaviour unchanged
        try:
            self = cls(py_func, py_file)
            self.ensure_cache_path()
        except OSError:
            return None
        _warn_no_cache(f"cannot cache function {py_func.__qualname__!r}: no locator available for file {py_file!r}")
        return self


def _default_locators() -> list[str]:
    configured = getattr(config, "CACHE_LOCATOR_CLASSES", "")
    if configured:
        return [name.strip() for name in configured.split(",") if name.strip()]
    return [f"{c.__module__}.{c.__qualname__}" for c in caching.FunctionCache._impl_class._locator_classes]


def _probe():  # pragma: no cover - never called: its source file is the probe for numba's locators
    pass


def _install_cache_fallback() -> None:
    """Append :class:`_TemporaryLocator` to numba's locator list if no default locator serves agreekit."""
    if config.DISABLE_JIT:
        return
    if not hasattr(config, "CACHE_LOCATOR_CLASSES"):  # numba < 0.62: no such setting
        if caching.FunctionCache._impl_class._locator_classes and not any(
            cls.from_function(_probe, __file__) is not None
            for cls in caching.FunctionCache._impl_class._locator_classes
        ):
            with contextlib.suppress(OSError):
                config.CACHE_DIR = _temporary_folder()  # numba's NUMBA_CACHE_DIR, for this process
                _warn_no_cache("no locator available")
        return
    names = _default_locators()
    mine = f"{__name__}.{_TemporaryLocator.__qualname__}"
    if mine in names:
        return
    for name in names:
        module, _, attr = name.rpartition(".")
        cls = getattr(__import__(module, fromlist=[attr]), attr) if module else getattr(caching, attr, None)
        if cls is not None and cls.from_function(_probe, __file__) is not None:
            return
    config.CACHE_LOCATOR_CLASSES = ",".join([*names, mine])


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
_NUMPY: dict[Dispatcher, tuple] = {}  # kernel -> (numpy version, speed-up over interpreted loops)


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
    if not isinstance(kernel, Dispatcher):  # NUMBA_DISABLE_JIT=1: the kernel is its Python function
        return kernel
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
    if not isinstance(kernel, Dispatcher):  # NUMBA_DISABLE_JIT=1: nothing is compiled
        return kernel
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
    if not isinstance(kernel, Dispatcher):  # NUMBA_DISABLE_JIT=1: nothing to compile
        return True
    if kernel.signatures:
        return True
    cache_file = getattr(kernel._cache, "_cache_file", None)
    if cache_file is None or not os.path.exists(cache_file._index_path):
        return False
    try:  # numba's index of the kernel's cached overloads: empty when stale (the source changed)
        return bool(cache_file._load_index())
    except Exception:  # an unreadable index: numba will compile
        return False


def pick(kernel: Dispatcher, work: float):
    """The variant of ``kernel`` to call for an estimated ``work`` (elementary steps): see the
    module docstring."""
    mode = _mode()
    if mode == "compiled" or not isinstance(kernel, Dispatcher):  # not a Dispatcher: NUMBA_DISABLE_JIT=1
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


_QUIET: list[bool] = []
_NOTICED: set[str] = set()


@contextlib.contextmanager
def quiet(on: bool = True):
    """Within the block, no :func:`compile_notice` (the CLI's ``--quiet``)."""
    _QUIET.append(bool(on))
    try:
        yield
    finally:
        _QUIET.pop()


def compile_notice(what: str, seconds: float, kernels) -> bool:
    """One line on stderr, ``agreekit: compiling WHAT (first call, cached afterwards; about N s)``,
    when one of ``kernels`` is neither compiled in this process nor in numba's cache (so the call
    about to run compiles it), once per process and ``what``.  Silent under :func:`quiet`, with
    ``AGREEKIT_QUIET`` set to anything but ``""``/``"0"``, and when nothing is compiled
    (``AGREEKIT_JIT=interpreted``, ``NUMBA_DISABLE_JIT=1``).  Returns whether it printed."""
    import sys

    if what in _NOTICED or (_QUIET and _QUIET[-1]) or os.environ.get("AGREEKIT_QUIET", "").strip() not in ("", "0"):
        return False
    if sys.stderr is None or _mode() == "interpreted" or all(available(k) for k in kernels):
        return False
    _NOTICED.add(what)
    print(
        f"agreekit: compiling {what} (first call, cached afterwards; about {seconds:.0f} s)",
        file=sys.stderr,
        flush=True,
    )
    return True


class _CompileDepth(event.Listener):
    """Counts how deep numba's compiler lock is held (it is re-entrant); raises the Ctrl-C that arrived
    while it was held when the outermost hold ends."""

    def __init__(self):
        self.depth = 0
        self.pending = False

    def on_start(self, event):
        self.depth += 1

    def on_end(self, event):
        self.depth -= 1
        if self.depth == 0 and self.pending:
            self.pending = False
            raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_after_compiling():
    """Within the block, Ctrl-C (SIGINT) that arrives while numba compiles is raised as
    :class:`KeyboardInterrupt` when the compilation ends, instead of at once.

    LLVM calls back into Python while it compiles; a KeyboardInterrupt raised inside such a callback is
    printed as "Exception ignored ..." and lost, and the run goes on.  For the CLI, which owns its
    process (a SIGINT handler and a listener of numba's documented ``numba:compiler_lock`` event: every
    compilation holds that lock, and the event ends after the lock is released; both removed on exit); outside the main thread it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    listener = _CompileDepth()

    def on_sigint(signum, frame):
        if listener.depth > 0:
            listener.pending = True
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    event.register("numba:compiler_lock", listener)
    try:
        yield
    finally:
        event.unregister("numba:compiler_lock", listener)
        signal.signal(signal.SIGINT, previous)


@nb.njit(cache=True)
def now():  # pragma: no cover - compiled
    """``time.perf_counter()`` inside a compiled kernel (deadline checks of long searches)."""
    with nb.objmode(t="float64"):
        t = time.perf_counter()
    return t
