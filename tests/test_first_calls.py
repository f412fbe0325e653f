"""First calls in a fresh install: the compile notice on stderr, one compiled variant per kernel,
and the numpy versions that spare a first call some compiling (checked against the definitions).

The benchmark of the cold first calls themselves is benchmarks/bench_cold_compile.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import networkx as nx
import numba as nb
import numpy as np
import pytest

from agreekit import _jit
from agreekit.clustering import _lfr_kernels as K
from agreekit.clustering.lfr import _community_roots, _eg_excess
from agreekit.consensus import _heuristics as H
from agreekit.consensus import _matrices as M

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- the notice
def _fresh_kernel():
    """A kernel compiled nowhere (no cache: numba's NullCache), so its first call would compile."""

    @nb.njit
    def k(x):
        return x + 1

    return k


@pytest.fixture
def loud(monkeypatch):
    monkeypatch.delenv("AGREEKIT_QUIET", raising=False)
    monkeypatch.delenv("AGREEKIT_JIT", raising=False)


def test_notice_once_when_a_kernel_must_compile(loud, capsys):
    k = _fresh_kernel()
    assert _jit.compile_notice("the test kernels", 4.4, [k])
    err = capsys.readouterr().err
    assert err == "agreekit: compiling the test kernels (first call, cached afterwards; about 4 s)\n"
    assert not _jit.compile_notice("the test kernels", 4.4, [k])  # once per process and name
    assert capsys.readouterr().err == ""


def test_no_notice_when_compiled_or_interpreted(loud, capsys):
    k = _fresh_kernel()
    k(1)  # compiled in this process
    assert not _jit.compile_notice("the compiled kernels", 3, [k])
    k2 = _fresh_kernel()
    with _jit.forced("interpreted"):  # nothing will be compiled
        assert not _jit.compile_notice("the interpreted kernels", 3, [k2])
    assert capsys.readouterr().err == ""


def test_notice_silenced_by_env_quiet_and_cli_quiet(loud, monkeypatch, capsys):
    from agreekit import cli

    k = _fresh_kernel()
    with _jit.quiet():
        assert not _jit.compile_notice("the quiet kernels", 3, [k])
    with cli._notices(argparse.Namespace(quiet=True)):  # the CLI's --quiet
        assert not _jit.compile_notice("the quiet kernels", 3, [k])
    monkeypatch.setenv("AGREEKIT_QUIET", "1")
    assert not _jit.compile_notice("the quiet kernels", 3, [k])
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("AGREEKIT_QUIET", "0")  # "0" is not quiet
    with cli._notices(argparse.Namespace(quiet=False)):
        assert _jit.compile_notice("the quiet kernels", 3, [k])
    assert "compiling the quiet kernels" in capsys.readouterr().err


_COLD = """
import json, sys, warnings
import numpy as np
from numba.core.dispatcher import Dispatcher
from agreekit._sorting import stable_order
from agreekit.clustering import _lfr_kernels as K, lfr_benchmark
from agreekit.consensus import _heuristics as H, kemeny
g = lfr_benchmark(1000, rng=1)
X = np.array([np.random.default_rng([1000, i]).permutation(1000) + 1 for i in range(5)])
r = kemeny(X, method="quick")
sigs = {f"{m.__name__.rsplit('.', 1)[-1]}.{n}": len(d.signatures) for m in (K, H) for n, d in vars(m).items() if isinstance(d, Dispatcher)}
sigs["stable_order"] = len(stable_order.signatures)
print(json.dumps(dict(sigs=sigs, edges=g.edges.tolist()[:50], m=len(g.edges), sol=r.solutions.tolist(), tau=r.average_tau_x)))
"""


def test_cold_first_calls_say_so_once_and_compile_one_variant_per_kernel(tmp_path):
    """A fresh numba cache: one notice line per area, every kernel compiled for one signature
    (no second variant for a literal True/False/0 argument); the cache kept: no notice, same results."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGREEKIT_QUIET", "AGREEKIT_JIT"))}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba"), NUMBA_NUM_THREADS="1")
    code = textwrap.dedent(_COLD)
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert cold.returncode == 0, cold.stderr
    lines = [x for x in cold.stderr.splitlines() if x.startswith("agreekit: compiling")]
    assert [x.split(" (")[0] for x in lines] == [
        "agreekit: compiling the LFR kernels",
        "agreekit: compiling the Kemeny QUICK kernels",
    ], cold.stderr
    out = json.loads(cold.stdout.strip().splitlines()[-1])
    several = {name: n for name, n in out["sigs"].items() if n > 1}
    assert not several, several
    assert out["sigs"]["_lfr_kernels.wire_groups"] == 1 and out["sigs"]["_heuristics.quick_pass"] == 1
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert "agreekit: compiling" not in warm.stderr
    again = json.loads(warm.stdout.strip().splitlines()[-1])
    assert {k: again[k] for k in ("edges", "m", "sol", "tau")} == {k: out[k] for k in ("edges", "m", "sol", "tau")}


# ----------------------------------------------------------------------------- numpy versions = definitions
def _cim_by_definition(X, w):
    """C[i, j] = sum over the judges ranking both, in judge order, of +w_k (x_ki <= x_kj) or -w_k."""
    n, m = X.shape
    C = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            s = 0.0
            for k in range(n):
                a, b = X[k, i], X[k, j]
                if w[k] != 0.0 and a == a and b == b:
                    s += w[k] if a <= b else -w[k]
            C[i, j] = s
    return C


@pytest.mark.parametrize("seed", range(4))
def test_combined_input_matrix_numpy_and_kernel_equal_the_definition(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 9)), int(rng.integers(2, 25))
    X = rng.integers(1, m // 2 + 2, size=(n, m)).astype(float)  # ties
    X[rng.random(X.shape) < 0.15] = np.nan  # partial rankings
    w = rng.integers(0, 4, size=n) / rng.choice([1.0, 3.0, 7.0])  # zero and inexact weights
    ref = _cim_by_definition(X, w)
    for mode in ("interpreted", "compiled", "serial"):
        with _jit.forced(mode):
            C = M._cim_kernel(X, w)
        assert np.array_equal(C, ref), mode  # bit for bit: the same additions in the same order
    assert not np.signbit(ref[ref == 0]).any()  # no -0.0 (the numpy version adds 0.0 to the others)


@pytest.mark.parametrize("seed", range(4))
def test_start_counts_and_abs_sum_numpy_equal_the_definition(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    C = rng.integers(-3, 4, size=(m, m)) / rng.choice([1.0, 3.0])
    np.fill_diagonal(C, 0.0)
    CT = np.ascontiguousarray(C.T)
    Q = np.ones(m, dtype=np.int64)
    for i in range(m):
        for j in range(i + 1, m):
            Q[i] += C[i, j] > 0 and C[j, i] != 0
            Q[j] += C[j, i] > 0 and C[i, j] != 0
    s, mx = 0.0, 0.0
    for v in C.ravel().tolist():  # row by row, one addition at a time
        s += abs(v)
        mx = max(mx, abs(v))
    for mode in ("interpreted", "compiled"):
        with _jit.forced(mode):
            assert np.array_equal(H.start_vector(C, CT=CT), (m + 1) - Q), mode
            assert H.abs_sum(C) == (s, mx), mode


def test_eg_excess_numpy_and_kernel_equal_the_definition_and_networkx():
    rng = np.random.default_rng(5)
    for _ in range(400):
        d = rng.integers(0, 12, size=int(rng.integers(0, 14))).astype(np.int64)
        x = sorted(d.tolist(), reverse=True)
        ref = sum(
            max(0, sum(x[:k]) - k * (k - 1) - sum(min(v, k) for v in x[k:])) for k in range(1, len(x) + 1)
        )  # Erdős-Gallai: every left side minus its bound, the shortfalls added
        assert _eg_excess(d) == ref == K.eg_excess(d), d
        if d.sum() % 2 == 0:
            assert (ref == 0) == nx.is_graphical(d.tolist()), d


def test_slot_components_match_networkx_components_of_each_community():
    rng = np.random.default_rng(3)
    n, o_m, k = 60, 2, 5
    membership = np.full((n, o_m), -1, dtype=np.int64)
    for v in range(n):
        cs = rng.choice(k, size=int(rng.integers(1, o_m + 1)), replace=False)
        membership[v, : cs.size] = cs
    pairs = {tuple(sorted(p)) for p in rng.integers(0, n, size=(90, 2)).tolist() if p[0] != p[1]}
    a, b = (np.array(z, dtype=np.int64) for z in zip(*sorted(pairs)))
    roots = _community_roots(a, b, membership, n)
    assert np.array_equal(roots < 0, membership < 0)
    for c in range(k):
        nodes = [v for v in range(n) if c in membership[v]]
        G = nx.Graph()
        G.add_nodes_from(nodes)
        G.add_edges_from((u, v) for u, v in zip(a.tolist(), b.tolist()) if u in G and v in G)
        label = {v: int(roots[v, list(membership[v]).index(c)]) for v in nodes}
        for comp in nx.connected_components(G):
            assert len({label[v] for v in comp}) == 1
        assert len({label[v] for v in nodes}) == nx.number_connected_components(G)


_CTRL_C_DURING_COMPILE = """
import os, signal, numba
from numba.core import event
from agreekit import _jit

class Kick(event.Listener):  # Ctrl-C as numba takes its compiler lock (the compilation starts)
    def on_start(self, ev):
        os.kill(os.getpid(), signal.SIGINT)
    def on_end(self, ev):
        pass

@numba.njit
def f(x):
    return x + 1

def run():
    kick = Kick()
    event.register("numba:compiler_lock", kick)
    try:
        f(1)
        return "no interrupt"
    except KeyboardInterrupt:
        return f"interrupted, {len(f.signatures)} signature(s) compiled"
    finally:
        event.unregister("numba:compiler_lock", kick)

with _jit.interrupts_after_compiling() if os.environ["DEFER"] == "1" else open(os.devnull):
    print(run())
"""


@pytest.mark.parametrize("defer", ["1", "0"])
def test_ctrl_c_during_a_compilation_is_raised_when_it_ends(defer):
    """Deferred, Ctrl-C arrives after the compilation (the function is compiled) and the CLI says
    "interrupted".  Not deferred (the contrast), it either aborts the compilation or, raised inside one of
    LLVM's callbacks, is printed as "Exception ignored" and lost, so the run goes on: never both."""
    env = dict(os.environ, DEFER=defer)
    done = subprocess.run([sys.executable, "-c", _CTRL_C_DURING_COMPILE], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    got = done.stdout.strip()
    if defer == "1":
        assert got == "interrupted, 1 signature(s) compiled", done.stdout + done.stderr[-2000:]
    else:
        assert got in ("interrupted, 0 signature(s) compiled", "no interrupt"), done.stdout
