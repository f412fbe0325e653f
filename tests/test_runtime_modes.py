"""agreekit under the interpreter's and numba's own switches, and as a good numba neighbour.

* ``python -OO`` (docstrings stripped): every module imports, every README Python example runs
  and states its values (the README's ``# ->`` checks, tests/test_readme.py's runner);
* ``NUMBA_DISABLE_JIT=1`` (numba's debugging switch): the README examples give the same numbers
  as compiled kernels (``AGREEKIT_JIT=compiled``), value for value;
* ``NUMBA_NUM_THREADS=0``: one clear line (API: ``agreekit.InputError``; CLI: stderr, exit 2);
* importing agreekit and calling its kernels leaves numba's classes and settings as they were;
  without any writable cache folder the kernels still work (cached in a temporary folder) and
  numba's classes are still untouched;
* ``InputError`` is presented as ``agreekit.InputError``.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import test_readme  # tests/ is on sys.path (pytest rootdir conftest)

ROOT = Path(__file__).resolve().parents[1]
PY_BLOCKS = [b for b in test_readme.BLOCKS if b["lang"] == "python"]
IDS = [f"line{b['start']}" for b in PY_BLOCKS]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_DISABLE_JIT", "AGREEKIT_JIT"))}
    env.update(MPLBACKEND="Agg", NUMBA_NUM_THREADS="1", **extra)
    return env


def _run(args, *, env, cwd=ROOT, timeout=600):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


# ----------------------------------------------------------------------------------------- python -OO
def test_OO_imports_every_module_and_strips_docstrings():
    script = textwrap.dedent("""
        import importlib, pkgutil, agreekit
        names = sorted(m.name for m in pkgutil.walk_packages(agreekit.__path__, "agreekit."))
        for name in names:
            importlib.import_module(name)
        from agreekit.ranking import weighted_kendall
        from agreekit.clustering import omega, adjusted_rand_index
        from agreekit.consensus import tau_x
        assert weighted_kendall.__doc__ is None and omega.__doc__ is None and tau_x.__doc__ is None
        assert adjusted_rand_index.__doc__ is None
        print(len(names))
    """)
    r = _run(["-OO", "-c", script], env=_env())
    assert r.returncode == 0, r.stderr[-3000:]
    assert int(r.stdout) > 60  # every area with its private modules


def test_docfill_fills_and_leaves_none_alone():
    from agreekit._docstrings import docfill

    def f():
        """A %(x)s and 100%% of it."""

    def g():
        pass

    def h():
        """%(missing)s"""

    assert docfill({"x": "part"})(f) is f and f.__doc__ == "A part and 100% of it."
    assert docfill({"x": "part"})(g).__doc__ is None
    with pytest.raises(KeyError):
        docfill({})(h)


def test_shared_docstring_parts_are_filled():
    from agreekit.clustering import adjusted_rand_index, omega
    from agreekit.consensus import tau_x
    from agreekit.ranking import weighted_correlation, weighted_kendall, weighted_spearman

    for f in (weighted_spearman, weighted_kendall, weighted_correlation, tau_x, omega, adjusted_rand_index):
        assert "%(" not in f.__doc__, f.__name__
    assert "weigher : str, Weigher or callable" in weighted_kendall.__doc__
    assert "r, s : array_like, shape (m,)" in tau_x.__doc__


def _readme_runner(tmp_path: Path, block: dict, record: Path) -> Path:
    """tests/test_readme.py's runner for one block, which also records the checked values (repr)."""
    src, checks = tmp_path / "block.py", tmp_path / "checks.json"
    src.write_text(block["code"], encoding="utf-8")
    checks.write_text(json.dumps(test_readme._python_checks(block["code"], block["first"])), encoding="utf-8")
    code = test_readme._PY_RUNNER.format(
        test_dir=str(Path(test_readme.__file__).parent),
        src_path=str(src),
        checks_path=str(checks),
        offset=block["first"] - 1,
    )
    code = code.replace(
        "    r = mismatch(_compile_expected(text), value)\n",
        "    _seen.append([line, repr(value)])\n    r = mismatch(_compile_expected(text), value)\n",
    )
    code = code.replace("failures = []\n", "failures = []\n_seen = []\n", 1)
    code += f"\nopen({str(record)!r}, 'w').write(json.dumps(_seen))\n"
    runner = tmp_path / "runner.py"
    runner.write_text(code)
    return runner


@pytest.mark.parametrize("block", PY_BLOCKS, ids=IDS)
def test_readme_python_examples_under_OO(block, tmp_path):
    runner = _readme_runner(tmp_path, block, tmp_path / "values.json")
    r = _run(["-OO", str(runner)], env=_env(), cwd=ROOT)  # the examples read resources/
    assert r.returncode == 0, f"README block at line {block['start']} under -OO:\n{r.stderr[-3000:]}"
    assert json.loads((tmp_path / "values.json").read_text()), "no checked value ran"


# ----------------------------------------------------------------------------------------- numba's switches
@pytest.mark.parametrize("block", PY_BLOCKS, ids=IDS)
def test_numba_disable_jit_gives_the_compiled_numbers(block, tmp_path):
    values = {}
    for label, extra in (("compiled", {"AGREEKIT_JIT": "compiled"}), ("nojit", {"NUMBA_DISABLE_JIT": "1"})):
        wd = tmp_path / label
        wd.mkdir()
        runner = _readme_runner(wd, block, wd / "values.json")
        r = _run([str(runner)], env=_env(**extra), cwd=ROOT)  # the examples read resources/
        assert r.returncode == 0, f"README block at line {block['start']} ({label}):\n{r.stderr[-3000:]}"
        values[label] = json.loads((wd / "values.json").read_text())
    assert values["compiled"], "no checked value ran"
    assert values["nojit"] == values["compiled"]


def test_numba_disable_jit_every_variant_is_the_python_function():
    script = textwrap.dedent("""
        from agreekit import _jit
        from agreekit.ranking import _kernels
        k = _kernels.kendall_weighted_fenwick
        assert not hasattr(k, "signatures")          # numba returned the plain function
        for mode in ("auto", "compiled", "serial", "interpreted"):
            with _jit.forced(mode):
                assert _jit.pick(k, 10**12) is k and _jit.pick(k, 1) is k
        assert _jit.serial(k) is k and _jit.interpreted(k) is k and _jit.available(k)
        print("ok")
    """)
    r = _run(["-c", script], env=_env(NUMBA_DISABLE_JIT="1"))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_bad_numba_num_threads_is_one_clear_line(value, tmp_path):
    env = _env()
    env["NUMBA_NUM_THREADS"] = value
    r = _run(["-c", "import agreekit.ranking"], env=env)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("agreekit.InputError: `NUMBA_NUM_THREADS`") and repr(value) in last
    assert "numba/" not in r.stderr  # raised before numba's import fails inside numba
    (tmp_path / "x.txt").write_text("1\n2\n3\n")
    (tmp_path / "y.txt").write_text("1\n3\n2\n")
    agreekit = str(Path(sys.executable).parent / "agreekit")
    for cmd in (["correlate", "x.txt", "y.txt"], ["correlate", "--help"], ["table"]):
        c = subprocess.run([agreekit, *cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert c.returncode == 2 and c.stdout == "", (cmd, c.stdout, c.stderr)
        assert len(c.stderr.strip().splitlines()) == 1 and "NUMBA_NUM_THREADS" in c.stderr, (cmd, c.stderr)


# ----------------------------------------------------------------------------------------- numba's classes
_SNAPSHOT = textwrap.dedent("""
    import inspect, json, sys
    import numba
    from numba.core import caching, config, dispatcher, registry

    def snapshot():
        out = {}
        for mod in (caching, dispatcher, registry):
            for name, cls in vars(mod).items():
                if inspect.isclass(cls) and cls.__module__ == mod.__name__:
                    for attr, value in vars(cls).items():
                        out[f"{mod.__name__}.{name}.{attr}"] = id(value)
        settings = {k: repr(getattr(config, k)) for k in dir(config) if k.isupper()}
        return out, settings
""")


def test_importing_and_running_agreekit_leaves_numba_as_it_was():
    script = _SNAPSHOT + textwrap.dedent("""
        before, cfg_before = snapshot()
        import numpy as np
        import agreekit
        from agreekit import _jit
        from agreekit.ranking import weighted_kendall, weighted_correlation_test
        from agreekit.clustering import adjusted_rand_index
        from agreekit.consensus import kemeny
        with _jit.forced("compiled"):
            weighted_kendall(np.arange(1, 50), np.arange(49, 0, -1))
            adjusted_rand_index([0, 0, 1, 1, 2], [0, 1, 1, 2, 2])
        with _jit.forced("serial"):
            kemeny([[1, 2, 3], [2, 1, 3]], method="exact")
        after, cfg_after = snapshot()
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        cfg = sorted(k for k in cfg_before if cfg_before[k] != cfg_after.get(k))
        print(json.dumps([changed, cfg]))
    """)
    r = _run(["-c", script], env=_env())
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == [[], []]


def test_without_a_cache_folder_numba_classes_stay_and_kernels_work(tmp_path):
    # no writable cache folder anywhere (numba's locators find none: simulated by a config that lists
    # only numba's in-tree locator for a read-only package folder): agreekit adds its temporary locator
    # through numba's setting, numba's classes are untouched, other (non-agreekit) functions still get
    # numba's own error
    pkg = tmp_path / "ro"
    script = _SNAPSHOT + textwrap.dedent(f"""
        import os, warnings
        caching_classes = {{n: c for n, c in vars(caching).items() if inspect.isclass(c)}}
        # numba's default locators all fail here: the in-tree one for a read-only folder, no user dir
        config.CACHE_LOCATOR_CLASSES = "numba.core.caching.ZipCacheLocator"
        before, _ = snapshot()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import numpy as np
            from agreekit.ranking import weighted_kendall
            from agreekit.ranking._kernels import kendall_weighted_fenwick
            from agreekit import _jit
            with _jit.forced("compiled"):
                v = weighted_kendall(np.arange(1, 100), np.arange(99, 0, -1))
        after, _ = snapshot()
        assert before == after
        msgs = [str(w.message) for w in caught if "cannot cache" in str(w.message)]
        where = kendall_weighted_fenwick._cache._cache_path
        os.makedirs({str(pkg)!r}, exist_ok=True)
        open(os.path.join({str(pkg)!r}, "other.py"), "w").write(
            "import numba\\n@numba.njit(cache=True)\\ndef f(x):\\n    return x + 1\\n")
        sys.path.insert(0, {str(pkg)!r})
        try:
            import other
            other_error = "none"
        except RuntimeError as exc:
            other_error = "cannot cache" if "cannot cache" in str(exc) else str(exc)
        print(json.dumps([v, len(msgs), "agreekit-numba-" in where, other_error]))
    """)
    env = _env()
    env.pop("NUMBA_CACHE_DIR", None)
    r = _run(["-c", script], env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == [-1.0, 1, True, "cannot cache"]


# ----------------------------------------------------------------------------------------- InputError
def test_input_error_is_presented_as_agreekit_input_error():
    import agreekit
    from agreekit import InputError, parse_weigher

    assert (
        InputError.__module__ == "agreekit"
        and f"{InputError.__module__}.{InputError.__qualname__}" == "agreekit.InputError"
        and agreekit.InputError is InputError
    )
    with pytest.raises(InputError) as info:
        parse_weigher("bogus")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is InputError and back.parameter == "weigher"
    r = _run(["-c", "from agreekit import parse_weigher; parse_weigher('bogus')"], env=_env())
    assert r.stderr.strip().splitlines()[-1].startswith("agreekit.InputError: `weigher`")
    hits = []
    for path in (ROOT / "src").rglob("*.py"):
        hits += [
            f"{path}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1) if "_validation.InputError" in line
        ]
    assert not hits
