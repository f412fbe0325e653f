"""Monte Carlo sampling of weighted rank correlations under uniform permutations.

Section 4.1 of [1]_: for a ranking length n, draw ``N_sample(n)`` permutations
uniformly (with repetition), evaluate Γ(id, π) for each and summarise the sample.
The training lengths are log-spaced, ``n_a = round(q**a)`` (Section 4.2.1).

Randomness is fully determined by ``(global seed, scheme id, n)``: the stream for
one ranking length is a :class:`numpy.random.Generator` (PCG64) built from
``SeedSequence([seed, *sha256(scheme_id)[:4 words], n])``.  Permutations are
produced by a Fisher–Yates shuffle driven by the generator's float64 stream, one
row at a time in parallel with numba.  Because consecutive ``Generator.random``
calls concatenate to one stream, the result does not depend on the batch size
nor on the number of threads.

References
----------
.. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
   Coefficients", arXiv:2504.08428, 2025, Sections 4.1, 4.2.1 and 5.1.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agreekit._validation import InputError, check_int
from agreekit.ranking._kernels import random_permutations  # runtime kernel (significance uses it too)
from agreekit.ranking.correlation import batch_coefficient
from agreekit.ranking._vocabulary import coefficient_code, scheme_flag
from agreekit.ranking.tablegen._fused import fused_sample
from agreekit.ranking._rescaling import weigher_table
from agreekit.ranking._spec import check_coefficient, check_scheme, parse_weigher

__all__ = [
    "training_grid",
    "sample_size",
    "seed_sequence",
    "random_permutations",
    "sample_coefficient",
    "SampleSummary",
    "summarize_sample",
    "stream_key",
    "sample_lanes",
    "sample_stream",
    "quantile_probs",
]


def training_grid(q: float, a_min: int, a_max: int) -> list[int]:
    """Ranking lengths ``n_a = round(q**a)`` for ``a_min <= a <= a_max`` (Section 4.2.1).

    Rounding is half-up on the exact float value (``q**a`` is never a half-integer
    for the paper's q = 1.3).  Duplicate lengths (possible for q close to 1) are
    removed, keeping the order.

    Examples
    --------
    >>> training_grid(1.3, 9, 12)
    [11, 14, 18, 23]
    """
    q = float(q)
    if not q > 1:
        raise InputError("q", f"must be > 1; got {q}")
    a_min = check_int("a_min", a_min, minimum=0)
    a_max = check_int("a_max", a_max, minimum=a_min)
    out: list[int] = []
    for a in range(a_min, a_max + 1):
        n = int(math.floor(q**a + 0.5))
        if n >= 2 and (not out or n != out[-1]):
            out.append(n)
    return out


def sample_size(n: int, rules: Sequence[Mapping]) -> int:
    """``N_sample(n)`` from an ordered rule list ``[{n_upto: N, size: S}, ..., {size: S}]``.

    The first rule whose ``n_upto`` is absent or ``>= n`` applies.
    """
    for rule in rules:
        upto = rule.get("n_upto")
        if upto is None or n <= int(upto):
            return int(rule["size"])
    raise InputError("sample_size", f"no rule applies to n = {n}; end the list with a rule without `n_upto`")


def seed_sequence(seed: int, scheme_id: str, n: int) -> np.random.SeedSequence:
    """The :class:`~numpy.random.SeedSequence` of one (scheme, n) Monte Carlo stream."""
    digest = hashlib.sha256(scheme_id.encode("utf-8")).digest()
    words = [int.from_bytes(digest[4 * k : 4 * k + 4], "little") for k in range(4)]
    return np.random.SeedSequence([int(seed), *words, int(n)])


def sample_coefficient(
    coefficient: str,
    *,
    n: int,
    size: int,
    weigher,
    scheme: str,
    rng: np.random.Generator,
    batch_elements: int = 4_000_000,
    progress: bool = False,
) -> np.ndarray:
    """Γ(id, π) for ``size`` uniform random permutations π of length ``n``.

    Parameters
    ----------
    coefficient : {'spearman', 'kendall'}
    n, size : int
        Ranking length and number of sampled permutations.
    weigher, scheme
        As in :func:`agreekit.ranking.correlation.batch_coefficient`.
    rng : numpy.random.Generator
        The stream (see :func:`seed_sequence`).
    batch_elements : int
        Memory bound: permutations are drawn in batches of ``max(1, batch_elements // n)`` rows.
        The result does not depend on it.
    """
    n = check_int("n", n, minimum=2)
    size = check_int("size", size, minimum=1)
    rows = max(1, min(size, int(batch_elements) // n))
    out = np.empty(size, dtype=np.float64)
    perms = np.empty((rows, n), dtype=np.int64)
    u = np.empty((rows, n), dtype=np.float64)
    it = range(0, size, rows)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc=f"n={n}", leave=False, unit="batch")
    for start in it:
        k = min(rows, size - start)
        p = random_permutations(rng, k, n, out=perms[:k], _u=u[:k])
        out[start : start + k] = batch_coefficient(p, coefficient=coefficient, weigher=weigher, scheme=scheme)
    return out


@dataclass(frozen=True)
class SampleSummary:
    """Summary of one Monte Carlo sample of Γ at ranking length ``n``.

    ``se`` is the standard error of the mean, ``sqrt(var_pop / size)`` (Section 4.1).
    ``var`` and ``left_var`` are Eq. 38 evaluated around ``center`` (the fitted mean).
    """

    n: int
    size: int
    mean: float
    se: float
    center: float
    var: float
    left_var: float


def summarize_sample(gammas: np.ndarray, n: int, *, center: float | None = None) -> SampleSummary:
    """Mean, standard error, and Eq. 38's v and v^ℓ around ``center`` (default: the sample mean).

    The left variance uses a strict ``gamma < center`` (the Heaviside choice is irrelevant:
    a value equal to the centre contributes 0).
    """
    g = np.asarray(gammas, dtype=np.float64)
    size = g.size
    mean = float(np.sum(g)) / size  # numpy's pairwise summation: deterministic for a given array
    var_pop = float(np.sum((g - mean) ** 2)) / size
    c = mean if center is None else float(center)
    d2 = (g - c) ** 2
    v = float(np.sum(d2)) / size
    vl = float(np.sum(np.where(g < c, d2, 0.0))) / size
    return SampleSummary(
        n=int(n), size=int(size), mean=mean, se=math.sqrt(var_pop / size), center=c, var=v, left_var=vl
    )


# ------------------------------------------------------------------ shared, fused sampling


def stream_key(seed: int, coefficient: str, n: int, purpose: str = "training") -> tuple[np.uint64, np.uint64]:
    """128-bit key of the permutation stream shared by every scheme of ``coefficient`` at length ``n``.

    ``SeedSequence([seed, *sha256(f"{coefficient}/{purpose}")[:4 words], n]).generate_state(2, uint64)``.
    Row r of the stream is one permutation (see :mod:`agreekit.ranking.tablegen._fused`), so a
    scheme's sample depends on (seed, coefficient, n, purpose, its own size) only — not on which
    other schemes share the job.
    """
    digest = hashlib.sha256(f"{coefficient}/{purpose}".encode("utf-8")).digest()
    words = [int.from_bytes(digest[4 * k : 4 * k + 4], "little") for k in range(4)]
    k = np.random.SeedSequence([int(seed), *words, int(n)]).generate_state(2, np.uint64)
    return np.uint64(k[0]), np.uint64(k[1])


def sample_lanes(
    coefficient: str,
    *,
    n: int,
    sizes: Sequence[int],
    lanes: Sequence[tuple[str, str]],
    key: tuple[np.uint64, np.uint64],
    batch_elements: int = 40_000_000,
    progress: bool = False,
) -> list[np.ndarray]:
    """Γ(id, π_r) on one shared permutation stream for several schemes of one coefficient.

    Parameters
    ----------
    coefficient : {'spearman', 'kendall'}
    n : int
        Ranking length.
    sizes : sequence of int
        Rows used by each lane: lane s gets Γ on rows ``0 .. sizes[s] - 1`` of the stream.
    lanes : sequence of (weigher, scheme)
        Weigher spec and combination scheme of each lane.
    key : (uint64, uint64)
        The stream key (:func:`stream_key`).
    batch_elements : int
        Memory bound (rows per kernel call x n).  The result does not depend on it.

    Returns
    -------
    list of ndarray
        One float64 array of length ``sizes[s]`` per lane.
    """
    coefficient = check_coefficient(coefficient)
    n = check_int("n", n, minimum=2)
    if len(sizes) != len(lanes) or not lanes:
        raise InputError("sizes", "needs one size per lane (and at least one lane)")
    sizes = [check_int("sizes", s, minimum=1) for s in sizes]
    cols: dict[str, int] = {}
    where = []
    for weigher, scheme in lanes:
        spec = parse_weigher(weigher).spec
        cols.setdefault(spec, len(cols))
        where.append((int(scheme_flag(check_scheme(scheme))), cols[spec]))  # lane 1 = the multiplicative scheme
    if len(set(where)) != len(where):
        raise InputError("lanes", "lists a (weigher, scheme) twice")
    C = 4 * ((len(cols) + 3) // 4)
    # C-contiguous and 64-byte aligned: a row's four weights of a column group never straddle a cache line
    buf = np.empty(n * C + 8)
    start = (-buf.ctypes.data % 64) // 8
    F = buf[start : start + n * C].reshape(n, C)
    for spec, c in cols.items():
        t = weigher_table(parse_weigher(spec), n)
        if t.size != n:
            raise InputError(
                "weigher",
                f"{spec!r}: f(1..{n}) spans more than 2**240; coefficient tables "
                "need weights float64 can hold for every permutation at once",
            )
        F[:, c] = t
    for c in range(len(cols), C):  # padding columns repeat a real one and are never read back
        F[:, c] = F[:, 0]
    active = np.zeros((2, C), dtype=np.int64)
    for (m, c), size in zip(where, sizes):
        active[m, c] = size
    total = int(active.max())
    out = [np.empty(size) for size in sizes]
    rows = max(1, min(total, int(batch_elements) // n))
    buf = np.empty((2, C, rows))
    it = range(0, total, rows)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc=f"{coefficient} n={n}", leave=False, unit="batch")
    coef = coefficient_code(coefficient)  # an unknown name raises
    for r0 in it:
        k = min(rows, total - r0)
        fused_sample(coef, n, key[0], key[1], r0, k, F, active, buf[:, :, :k])
        for s, (m, c) in enumerate(where):
            hi = min(sizes[s], r0 + k)
            if hi > r0:
                out[s][r0:hi] = buf[m, c, : hi - r0]
    return out


def sample_stream(
    coefficient: str,
    *,
    n: int,
    size: int,
    weigher,
    scheme: str,
    seed: int,
    purpose: str = "training",
    batch_elements: int = 40_000_000,
) -> np.ndarray:
    """Γ for the first ``size`` rows of the shared stream of (seed, coefficient, n, purpose) — one scheme.

    Equal, value for value, to that scheme's lane of :func:`sample_lanes` on the same stream.
    """
    key = stream_key(seed, coefficient, n, purpose)
    return sample_lanes(
        coefficient,
        n=n,
        sizes=[size],
        lanes=[(parse_weigher(weigher).spec, scheme)],
        key=key,
        batch_elements=batch_elements,
    )[0]


#: probabilities of the stored null quantiles (logit-spaced, 1e-4 .. 1 - 1e-4, 201 values)
def quantile_probs() -> np.ndarray:
    """``expit(linspace(logit(1e-4), logit(1 - 1e-4), 201))`` — the probabilities of a table's null quantiles."""
    from scipy.special import expit, logit

    return expit(np.linspace(logit(1e-4), logit(1 - 1e-4), 201))
