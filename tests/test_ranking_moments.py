import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit import exact_moments
from agreekit._validation import InputError
from agreekit.ranking.weighting import parse_weigher
from _moments_enumerator import enumerate_moments
from ranking_configs import PAPER_CONFIGS, cached_exact, csv_key

DATA = Path(__file__).resolve().parents[1] / "resources" / "ranking" / "exact_moments_n3_10.csv"
QTY = {"G": "mean", "V": "var", "Vl": "left_var"}


@pytest.fixture(scope="module")
def reference():
    df = pd.read_csv(DATA)
    assert len(df) == 384  # 16 configurations x n = 3..10 x 3 quantities
    return df


def _ours(row):
    coef, scheme, weigher = csv_key(row.coeff, row.scheme, row.f, row.n0)
    return getattr(cached_exact(coef, scheme, weigher, int(row.n)), QTY[row.qty])


def test_reproduces_all_384_printed_values(reference):
    """Tables 2-5 of the seed: our value rounded to 7 decimals equals the printed one."""
    mismatches = []
    for row in reference.itertuples():
        ours = _ours(row)
        if round(ours, 7) != pytest.approx(row.paper, abs=1e-12):
            mismatches.append((row.coeff, row.scheme, row.f, row.n0, row.n, row.qty, row.paper, ours))
    assert mismatches == []
    assert len(reference) == 384


def _check_against_enumeration(reference, n):
    """agreekit's exact moments and the CSV's `ours` column against the plain enumerator of
    tests/_moments_enumerator.py (numpy over all n! permutations, no code shared with the library).
    Both sides are float64 sums of n! terms: 1e-12 absolute is ~1e4 ulp of values of order 0.1-1."""
    checked = 0
    for coef, scheme, weigher in PAPER_CONFIGS:
        ref = dict(zip(("mean", "var", "left_var"), enumerate_moments(coef, scheme, weigher, n)))
        m = cached_exact(coef, scheme, weigher, n)
        for q, v in ref.items():
            assert getattr(m, q) == pytest.approx(v, abs=1e-12), (coef, scheme, weigher, n, q)
        rows = reference[(reference.n == n)]
        for row in rows.itertuples():
            if csv_key(row.coeff, row.scheme, row.f, row.n0) == (coef, scheme, weigher):
                # the CSV column has ~11-12 significant digits
                assert row.ours == pytest.approx(ref[QTY[row.qty]], rel=5e-11, abs=1e-12)
                checked += 1
    assert checked == 16 * 3


@pytest.mark.parametrize("n", range(3, 10))
def test_matches_plain_enumeration(reference, n):
    _check_against_enumeration(reference, n)


@pytest.mark.slow
def test_matches_plain_enumeration_n10(reference):
    """10! = 3628800 permutations x 16 configurations: ~1 min of CPU."""
    _check_against_enumeration(reference, 10)


def _numpy_moments(coef, scheme, weigher, n):
    """Independent brute force: itertools + numpy definitions (Eqs. 7, 8, 19, 24, 25)."""
    f = parse_weigher(weigher)
    a = np.arange(1, n + 1, dtype=float)
    vals = []
    for perm in itertools.permutations(range(1, n + 1)):
        b = np.array(perm, dtype=float)
        w = f(a) + f(b) if scheme == "additive" else f(a) * f(b)
        if coef == "spearman":
            ma, mb = (w * a).sum() / w.sum(), (w * b).sum() / w.sum()
            v = (w * (a - ma) * (b - mb)).sum() / math.sqrt((w * (a - ma) ** 2).sum() * (w * (b - mb) ** 2).sum())
        else:
            ww = np.outer(w, w)
            np.fill_diagonal(ww, 0)
            s = np.sign(a[None, :] - a[:, None]) * np.sign(b[None, :] - b[:, None])
            v = (ww * s).sum() / ww.sum()
        vals.append(v)
    vals = np.array(vals)
    mean = vals.mean()
    d = vals - mean
    return mean, (d ** 2).mean(), (d[d < 0] ** 2).sum() / len(vals)


@pytest.mark.parametrize("weigher", ["power:p=0.7,n0=0.5", "dcg"])
@pytest.mark.parametrize("coef", ["spearman", "kendall"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_other_weighers_against_brute_force(coef, scheme, weigher):
    for n in (4, 6):
        m = exact_moments(coef, n=n, weigher=weigher, scheme=scheme)
        ref = _numpy_moments(coef, scheme, weigher, n)
        np.testing.assert_allclose([m.mean, m.var, m.left_var], ref, atol=1e-13)
        assert m.n_permutations == math.factorial(n)


@pytest.mark.parametrize("coef, scheme, weigher", PAPER_CONFIGS)
def test_n2_is_symmetric(coef, scheme, weigher):
    m = exact_moments(coef, n=2, weigher=weigher, scheme=scheme)
    assert (m.mean, m.var, m.left_var) == (0.0, 1.0, 0.5)


def test_callable_weigher_equals_named_family():
    m1 = exact_moments("kendall", n=7, weigher="inverse_square:n0=1", scheme="multiplicative")
    m2 = exact_moments("kendall", n=7, weigher=lambda i: 1.0 / (i + 1.0) ** 2, scheme="multiplicative")
    assert (m1.mean, m1.var, m1.left_var) == pytest.approx((m2.mean, m2.var, m2.left_var), abs=1e-15)


def test_thread_count_does_not_change_result():
    """Byte-identical moments with 1 and 2 numba threads (separate processes)."""
    import os
    import subprocess
    import sys

    code = ("from agreekit import exact_moments; import numba; "
            "m = exact_moments('kendall', n=9, weigher='harmonic', scheme='multiplicative'); "
            "print(numba.get_num_threads(), repr((m.mean, m.var, m.left_var)))")
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        nthreads, values = res.stdout.strip().split(" ", 1)
        assert nthreads == threads
        outs.append(values)
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(n=1), "n"),
        (dict(n=0), "n"),
        (dict(n=13), "n"),
        (dict(n=2.5), "n"),
        (dict(n=5, scheme="sum"), "scheme"),
        (dict(n=5, weigher="cubic"), "weigher"),
    ],
)
def test_bad_input(kwargs, param):
    args = dict(weigher="harmonic", scheme="additive")
    args.update(kwargs)
    with pytest.raises(InputError) as exc:
        exact_moments("kendall", **args)
    assert exc.value.parameter == param
    with pytest.raises(InputError) as exc:
        exact_moments("tau", n=5, weigher="harmonic", scheme="additive")
    assert exc.value.parameter == "coefficient"
