"""Issue 14 (consensus part): bounded memory and time, the Θ(m²) QUICK, and strict input.

Every row of the issue that concerns ``agreekit consensus`` has a test here.  The fast
kernels are checked against ``tests/_consensus_reference.py``, a verbatim copy of the
pre-issue-14 QUICK/FAST (Θ(m³) per pass), run at test time — no stored outputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import _consensus_reference as ref
from agreekit._validation import InputError
from agreekit.cli import main
from agreekit.consensus import TimeLimitWarning, average_tau_x, combined_input_matrix, kemeny, read_rankings
from agreekit.consensus._exact import components
from agreekit.consensus._kemeny import warmup
from agreekit.consensus import _exact, _heuristics
from agreekit.consensus._matrices import _cim_kernel

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources" / "consensus"
DATASETS = sorted(p.name for p in RES.glob("*.csv") if p.name != "report_results.csv")


def _read(name):
    return read_rankings(RES / name, ordinal=True)  # usa_ranks.csv holds one rank 0


def _random_profile(rng, n, m, weighted=False, nan=0.1):
    X = np.array([rng.integers(1, m + 1, size=m) for _ in range(n)], dtype=float)
    X[rng.random(X.shape) < nan] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 1.0
    w = rng.random(n) * 3 if weighted else np.ones(n)
    return X, w


# --------------------------------------------------------------------------- §2 identical results


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("ties", [True, False])
def test_quick_and_fast_identical_to_reference_on_datasets(name, ties):
    data = _read(name)
    C = combined_input_matrix(data)
    full = not ties
    q_ref, q_top = ref.reference_heuristic(C, "quick", full, 0, None)
    q = kemeny(data, method="quick", allow_ties=ties)
    assert np.array_equal(q.solutions, q_ref)  # same solutions, same order
    assert q.average_tau_x == pytest.approx(q_top / (data.total_weight * C.shape[0] * (C.shape[0] - 1)), abs=1e-12)
    f_ref, _ = ref.reference_heuristic(C, "fast", full, 100, np.random.default_rng(7))
    f = kemeny(data, method="fast", n_starts=100, rng=7, allow_ties=ties)
    assert np.array_equal(f.solutions, f_ref)


@pytest.mark.parametrize("seed", range(6))
def test_quick_pass_identical_to_reference_on_random_profiles(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        m = int(rng.integers(2, 60))
        X, w = _random_profile(rng, int(rng.integers(1, 9)), m, weighted=bool(seed % 2))
        C = _cim_kernel(X, w)
        CT = np.ascontiguousarray(C.T)
        V, eps = ref._tol(C)
        for full in (False, True):
            start = rng.integers(1, m + 1, size=m).astype(np.int64)
            r_ref, p_ref = ref.quick_pass(start, C, full, V, eps)
            r_new, p_new, ok = _heuristics.quick_pass(start, C, CT, full, V, eps, 0.0)
            assert ok and np.array_equal(r_ref, r_new)
            assert p_new == pytest.approx(p_ref, abs=1e-9 * max(V, 1))


def test_fast_batches_do_not_change_results(monkeypatch):
    data = _read("emond_mason.csv")
    C = combined_input_matrix(data)
    whole = ref.reference_heuristic(C, "fast", False, 37, np.random.default_rng(3))[0]
    monkeypatch.setattr(_heuristics, "FAST_BATCH", 5)
    sols, _, n_done, _ = _heuristics.fast_stream(C, 37, np.random.default_rng(3))
    assert n_done == 37 and np.array_equal(sols, whole)


def test_cim_kernel_matches_definition():
    from _consensus_oracle import naive_cim

    rng = np.random.default_rng(5)
    for _ in range(10):
        X, w = _random_profile(rng, 6, 9, weighted=True, nan=0.2)
        np.testing.assert_array_equal(_cim_kernel(X, w), naive_cim(X, w))


def _components_scipy(C, full=False):
    """The pre-issue-14 decomposition (scipy SCC + dense reachability), as a reference."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    eps = 1e-9 * max(float(np.abs(C).max()), 1.0)
    edge = ((C - C.T) >= -eps) if full else (C >= -eps)
    np.fill_diagonal(edge, False)
    n_comp, lab = connected_components(csr_matrix(edge), directed=True, connection="strong")
    Z = np.zeros((C.shape[0], n_comp))
    Z[np.arange(C.shape[0]), lab] = 1.0
    reach = (Z.T @ edge.astype(float) @ Z) > 0
    np.fill_diagonal(reach, False)
    order = np.argsort(-reach.sum(axis=1), kind="stable")
    return [np.flatnonzero(lab == c) for c in order]


@pytest.mark.parametrize("full", [False, True])
def test_components_match_scipy_reference(full):
    rng = np.random.default_rng(11)
    for _ in range(150):
        m = int(rng.integers(2, 25))
        base = rng.permutation(m) + 1
        n = int(rng.integers(1, 10))
        X = np.array(
            [np.where(rng.random(m) < 0.3, rng.integers(1, m + 1, size=m), base) for _ in range(n)], dtype=float
        )
        C = _cim_kernel(X, np.ones(n))
        got, want = components(C, full=full), _components_scipy(C, full)
        assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))
    C = combined_input_matrix(_read("usa_ranks.csv"))
    assert [len(b) for b in components(C)] == [len(b) for b in _components_scipy(C)] == [1, 41, 1, 1, 5, 1]


def test_mip_separation_matches_full_triangle_list():
    """The compiled scan finds exactly the violated rows the old m³ list found, in order."""
    rng = np.random.default_rng(2)
    for m in (3, 5, 8):
        A, B = np.nonzero(~np.eye(m, dtype=bool))
        idx = -np.ones((m, m), dtype=np.int64)
        idx[A, B] = np.arange(A.size)
        K, I, J = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
        mask = (K != I) & (K != J) & (I != J)
        tri = np.stack([idx[K[mask], I[mask]], idx[J[mask], I[mask]], idx[K[mask], J[mask]]], axis=1)
        ids = ((K * m + I) * m + J)[mask]
        for _ in range(20):
            x = np.where(rng.random(A.size) < 0.5, rng.random(A.size), rng.integers(0, 2, A.size))
            added = np.sort(rng.choice(ids, size=min(3, ids.size), replace=False))
            old = ids[(x[tri[:, 0]] - x[tri[:, 1]] - x[tri[:, 2]] > 1e-6) & ~np.isin(ids, added)]
            np.testing.assert_array_equal(_exact._violated_triangles(x, idx, added, 1e-6), old)


def test_mip_without_lazy_rows_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "1M")
    C = combined_input_matrix(np.array([np.random.default_rng(i).permutation(40) + 1 for i in range(5)]))
    with pytest.raises(InputError, match=r"`lazy` would need about .* MiB of memory .*59280 transitivity rows"):
        _exact.mip_all_optima(C, lazy=False)


# --------------------------------------------------------------------------- §1 memory and time


def _run_python(code: str, timeout: float = 300):
    """Run ``code`` in a fresh interpreter; return (its JSON output, peak RSS in MiB)."""
    wrapper = (
        code + "\nimport resource, json as _j\nprint(_j.dumps({'out': OUT, 'rss_mib': "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    return res["out"], res["rss_mib"]


def test_fast_with_a_billion_starts_streams_and_honours_the_time_limit():
    # today (sports.csv): numpy _ArrayMemoryError (52 GiB) while drawing the starts; here the
    # 15-item EMD data, whose optimum does not reach the bound (so it stays unproven)
    out, rss = _run_python(
        "import warnings, time\n"
        "from agreekit.consensus import kemeny, read_rankings\nfrom agreekit.consensus._kemeny import warmup\n"
        "import resource\n"
        "warmup()\n"
        "d = read_rankings('resources/consensus/emond_mason.csv')\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    r = kemeny(d, method='fast', n_starts=10**9, time_limit=2, rng=1)\n"
        "OUT = dict(elapsed=r.seconds, proven=r.proven, tau=round(r.average_tau_x, 6), message=r.message,\n"
        "           warned=[x.category.__name__ for x in w],\n"
        "           grow=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base)\n"
    )
    # elapsed time and memory (streamed starts) are measured in benchmarks/bench_limits.py
    assert out["tau"] == 0.165561  # the known optimum of emond_mason.csv
    assert not out["proven"] and "TimeLimitWarning" in out["warned"]
    assert "of 1000000000 FAST starts" in out["message"]


def test_auto_on_1000_random_items_does_not_build_cubic_arrays():
    # today: OOM kill after 67 s (mip_all_optima builds an m x m x m meshgrid, 7.45 GiB)
    out, rss = _run_python(
        "import numpy as np, warnings\n"
        "from agreekit.consensus import kemeny\n"
        "X = np.array([np.random.default_rng(i).permutation(1000) + 1 for i in range(5)])\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    r = kemeny(X, time_limit=5, rng=0)\n"
        "OUT = dict(method=r.method, elapsed=r.seconds, message=r.message, proven=r.proven)\n"
    )
    assert out["method"] == "fast" and "no exact attempt" in out["message"]
    # its time and memory (m² doubles are 8 MB; m³ would be 7.45 GiB) are in benchmarks/bench_limits.py


def test_auto_picks_method_by_size():
    from agreekit.consensus import _kemeny as K

    rng = np.random.default_rng(0)
    small = kemeny(rng.permutation(np.tile(np.arange(1, 6), (4, 1)).T).T)
    assert small.method == "exact"
    X = np.array([np.random.default_rng(i).permutation(K.AUTO_FAST_MAX_ITEMS + 1) + 1 for i in range(3)])
    big = kemeny(X)
    assert big.method == "quick" and "quick" in big.message


HARD = np.array([np.random.default_rng(100 + i).permutation(3000) + 1 for i in range(5)])


@pytest.mark.parametrize(
    "kw",
    [
        {"method": "quick"},
        {"method": "fast", "n_starts": 10**6},
        {"method": "auto"},
        {"method": "exact", "solver": "mip"},
    ],
)
def test_every_method_honours_time_limit(kw):
    # today QUICK on 5 rankings of 3000 items with --time-limit 10 was still running after 900 s
    warmup()  # numba's first call (loading the cached kernels) is not the solvers' time
    with pytest.warns(TimeLimitWarning, match="time_limit=0.3 s reached"):  # elapsed: bench_limits.py
        res = kemeny(HARD, time_limit=0.3, rng=0, **kw)
    assert not res.proven and not res.proven and "not proven optimal" in res.message
    r = res.solutions[0]
    assert r.shape == (3000,) and sorted(set(r)) == list(range(1, r.max() + 1))  # a valid weak order
    assert res.average_tau_x == pytest.approx(average_tau_x(r, HARD), abs=1e-12)


def test_exact_bb_honours_time_limit():
    """Counted work, not a slow machine: the proof needs more than 10^6 branch-and-bound nodes (a node
    budget with no clock stops it unproven, from the QUICK solution as the incumbent), and the time limit
    is a quarter of the time this machine takes for those 10^6 nodes (measured here), so the limit falls
    before the proof on any machine, fast or slow."""
    import time

    from agreekit.consensus._matrices import _cim_and_transpose

    X = np.array([np.random.default_rng(300 + i).permutation(30) + 1 for i in range(7)])
    warmup()
    C, _ = _cim_and_transpose(X.astype(float), np.ones(len(X)))
    init = kemeny(X, method="quick").solutions[0]
    budget = 10**6
    t0 = time.perf_counter()
    _, _, proven, _, nodes = _exact.branch_and_bound(C, init, max_nodes=budget)
    per_budget = time.perf_counter() - t0
    assert not proven and nodes == budget + 1  # the node budget, not a clock, stopped it
    with pytest.warns(TimeLimitWarning):
        res = kemeny(X, method="exact", solver="bb", time_limit=per_budget / 4)
    assert not res.proven and "not proven optimal" in res.message  # elapsed: benchmarks/bench_limits.py


def test_no_warning_without_time_limit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = kemeny(_read("emond_mason.csv"), method="fast", n_starts=20, rng=1)
    assert res.n_optima >= 1


# --------------------------------------------------------------------------- §3 strict input


@pytest.mark.parametrize(
    "content, needle",
    [
        ("a,b,c\n1,2,3,4\n2,1,3\n", "line 2 has 4 fields, but the header has 3"),  # ragged
        ("a,b,c\n1,2,3\n2,1\n", "line 3 has 2 fields"),
        ("a,a,b\n1,2,3\n", "line 1: item name 'a' is repeated (columns 1 and 2)"),  # was renamed a.1
        ("a,,b\n1,2,3\n", "line 1: header item 2 has no name"),  # was Unnamed: 1
        ("a,b,c\n-1,2,3\n", "line 2, column 1 ('a'): '-1' is not a rank"),
        ("a,b,c\n1,0,3\n", "line 2, column 2 ('b'): '0' is not a rank"),
        ("a,b,c\n1,2,2.5\n", "line 2, column 3 ('c'): '2.5' is not a rank"),
        ("a,b,c\n1,nan,2\n", "line 2, column 2 ('b'): 'nan' is not a rank"),
        ("a,b,c\n", "has a header but no data rows"),
    ],
)
def test_cli_rejects_bad_consensus_csv(tmp_path, capsys, content, needle):
    f = tmp_path / "in.csv"
    f.write_text(content)
    out = tmp_path / "out.json"
    assert main(["consensus", str(f), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and str(f) in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [f]


def test_cli_edge_cases_still_read(tmp_path):
    f = tmp_path / "ok.csv"
    f.write_text("\ufeffa,b,c\r\n1,2,\r\n2,2,1\r\n\r\n\n")  # BOM, CRLF, unranked cell, trailing blanks
    out = tmp_path / "out.json"
    assert main(["consensus", str(f), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["items"] == ["a", "b", "c"]


@pytest.mark.parametrize("bad", [-1, 0, 2.5, np.inf])
def test_api_rejects_invalid_rank_values(bad):
    X = np.array([[1.0, 2.0, 3.0], [2.0, 1.0, 3.0]])
    X[1, 2] = bad
    with pytest.raises(InputError, match=r"`rankings`"):
        kemeny(X)
    with pytest.raises(InputError, match=r"`candidate`"):
        average_tau_x([1, 2, bad], X[:1])


def test_ranks_allowed_values():
    # positive integers, ties as repeated values, NaN = unranked, integral floats, gaps
    res = kemeny(np.array([[1, 1, 5, np.nan], [2.0, 1.0, 3.0, 4.0]]), method="exact")
    assert res.proven
    # opt-in for ConsRank-style ordinal scores (usa_ranks.csv holds a 0)
    with pytest.raises(InputError, match="line 57, column 46 \\('Virginia'\\): '0' is not a rank"):
        read_rankings(RES / "usa_ranks.csv")
    assert read_rankings(RES / "usa_ranks.csv", ordinal=True).X.shape == (104, 50)


def test_cli_fast_with_a_billion_starts(tmp_path):
    out = tmp_path / "o.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agreekit",
            "consensus",
            str(RES / "sports.csv"),
            "--method",
            "fast",
            "--n-starts",
            "1000000000",
            "--time-limit",
            "1",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert round(res["average_tau_x"], 6) == 0.144322 and "of 1000000000 FAST starts" in res["message"]
    # sports' optimum reaches the Emond-Mason bound, so it is proven despite the time limit
    assert res["proven"] is True


def test_cim_transpose_computed_row_by_row():
    from agreekit.consensus._matrices import _cim_and_transpose

    X, w = _random_profile(np.random.default_rng(8), 7, 30, weighted=True, nan=0.2)
    C, CT = _cim_and_transpose(X, w)
    np.testing.assert_array_equal(C, _cim_kernel(X, w))
    np.testing.assert_array_equal(CT, C.T)
