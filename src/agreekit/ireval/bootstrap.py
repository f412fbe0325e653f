"""Bootstrap meta-evaluation of evaluation metrics (Sakai, SIGIR 2006).

Given a topics x systems score matrix of one evaluation metric, this module
answers "how good is the metric?" with the bootstrap:

* :func:`paired_test` - Studentised paired bootstrap test (Figs. 1-2), with
  the log-space "AG" variant for geometric means (``summary="gmean"``);
* :func:`unpaired_test` - unpaired (two-sample) bootstrap test for any
  summary statistic (Figs. 3-4);
* :func:`discriminative_power` - the test over all system pairs: number and
  share of pairs with ASL < alpha, the per-pair ASL table (ASL curves,
  Figs. 7-8) and the estimated difference required for ASL < alpha (Figs. 5-6);
* :func:`stability` - minority rate and proportion of ties over bootstrap
  topic sets for fuzziness values f (Fig. 9, Eqs. 9-10, MR-PT curves, Fig. 10);
* :func:`swap_rates` - swap rates per difference bin (Fig. 11) and the
  abs / max / rel / sensitivity quantities of Table 3;
* :func:`rank_correlation_se` - Kendall's tau (or Spearman's rho) between the
  system rankings of two metrics, its bootstrap standard error (Eq. 12) and the
  classical normal test (Eq. 11) or t test;
* :func:`difference_se` - the bootstrap standard error of a difference (Eq. 13);
* :func:`meta_evaluate` - everything above for one metric, on one shared set
  of bootstrap samples.

:data:`DEFAULT_FUZZINESS` is the stability method's grid f = 0.01, 0.02, ..., 0.20.
``summary`` (``"mean"`` or ``"gmean"``, Sakai's Eq. 7) is how a system's per-topic
values are summarised, everywhere; a result's ``statistic`` is the value of a statistic.

Resampling.  One B x n matrix of topic indices (``resamples``; row b is the
bootstrap topic sample Q*b) is shared by every pair, every metric, the
stability method and the standard errors; the swap method uses a second,
independent matrix, and the unpaired test a B x (n + m) matrix over the
pooled values.  Each can be injected for deterministic tests.  Otherwise they
are drawn with ``numpy.random.default_rng``: an integer seed (or ``None`` or
a ``SeedSequence``) gives three independent named streams - topic samples
(stream 0), the swap method's second samples (stream 1) and the unpaired
pooled indices (stream 2) - so the same seed yields the same Q*b in every
function; a ``Generator`` is drawn from in call order.

Round-off.  Means of different topic values that are equal in exact
arithmetic can differ in the last bits depending on summation order; the
stability and swap methods therefore treat |x - y| <= 1e-12 max(|x|, |y|)
as a tie, and the bins use floor(round(|D| / width, 9)).

Counting rule.  With b = #{b : |t*b| >= |t|} (two-sided; ``alternative="greater"``
counts t*b >= t, ``"less"`` t*b <= t), Sakai's achieved significance level is
``asl`` = b / B (Efron and Tibshirani; it can be 0), and ``pvalue`` follows scipy's
rule for resampling p-values, (b + 1) / (B + 1) (never 0; ``scipy.stats.permutation_test``).
Discriminative power and the stability of its tables count what Sakai counts: a pair is
significant iff ASL < alpha.  Comparisons use scipy's relative tolerance for round-off:
|t*b| counts when |t*b| >= |t| (1 - 1e-12).  Degenerate pairs: identical systems (all
differences 0) get t = 0 and ASL = 1; a constant non-zero difference gets
t = +-inf and ASL = 0; a bootstrap replicate with zero spread gets t* = 0 when
all its values are 0 and +-inf otherwise.

Layout.  This module is the public face and the :func:`meta_evaluate` orchestration; the
analyses live one per module (the tests in ``_tests``, discriminative power in ``_power``,
stability and swap rates in ``_stability``, correlations and standard errors in
``_correlation``) over the resampling core in :mod:`agreekit._resampling`, which
:mod:`agreekit.metaeval` shares.  Every name keeps its path ``agreekit.ireval.bootstrap.X``.

References
----------
T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006,
pp. 525-532. :doi:`10.1145/1148170.1148261`

B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall/CRC, 1993.
:doi:`10.1201/9780429246593`
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agreekit._api import ResultBase, renamed_parameters
from agreekit._memory import check_memory
from agreekit._resampling import STREAM_POOLED, STREAM_SWAP, STREAM_TOPICS, bootstrap_indices, stream_generator
from agreekit._resampling import summary_name
from agreekit._validation import InputError, check_float, check_int

# the analyses, one module each; their public names are this module's (and agreekit.ireval's)
from agreekit.ireval._correlation import (
    DifferenceSEResult,
    RankCorrelationResult,
    difference_se,
    kendall_critical_value,
    kendall_normal_test,
    rank_correlation_se,
    spearman_t_test,
)
from agreekit.ireval._power import DiscriminativePowerResult, discriminative_power, format_difference
from agreekit.ireval._power import (  # noqa: F401 (old paths, tests)
    _paired_all_pairs,
    _paired_all_pairs_stream,
    _paired_stream_numpy,
    _pairs,
)
from agreekit.ireval._stability import MAX_BINS, _check_fuzziness
from agreekit.ireval._stability import (
    DEFAULT_FUZZINESS,
    StabilityResult,
    SwapResult,
    difference_bin,
    stability,
    swap_rates,
)
from agreekit.ireval._tests import (  # noqa: F401
    ALTERNATIVES,
    PairedTestResult,
    UnpairedTestResult,
    critical_rank,
    paired_test,
    unpaired_test,
)
from agreekit.ireval._scores import check_scores
from agreekit.ireval._summaries import GM_OFFSET

__all__ = [
    "DEFAULT_FUZZINESS",
    "bootstrap_indices",
    "critical_rank",
    "difference_bin",
    "format_difference",
    "paired_test",
    "unpaired_test",
    "discriminative_power",
    "stability",
    "swap_rates",
    "rank_correlation_se",
    "kendall_normal_test",
    "kendall_critical_value",
    "spearman_t_test",
    "difference_se",
    "meta_evaluate",
    "PairedTestResult",
    "UnpairedTestResult",
    "DiscriminativePowerResult",
    "StabilityResult",
    "SwapResult",
    "RankCorrelationResult",
    "DifferenceSEResult",
    "MetaEvaluation",
]

# --------------------------------------------------------------------------- everything


@dataclass(frozen=True)
class MetaEvaluation(ResultBase):
    """All analyses of one metric on shared bootstrap samples (see :func:`meta_evaluate`).

    Parameters
    ----------
    paired, unpaired : DiscriminativePowerResult or None
        Discriminative power with the paired and the unpaired test (None when not run).
    stability : StabilityResult or None
        The stability method's MR and PT.
    swap : SwapResult or None
        The swap method's bins and Table 3 quantities.

    Examples
    --------
    Only the analyses asked for are run; ``to_dict()`` is what the pipeline's summary.json holds:

    >>> from agreekit.ireval.bootstrap import meta_evaluate
    >>> X = [[0.1, 0.4, 0.5], [0.2, 0.3, 0.6], [0.15, 0.35, 0.55], [0.3, 0.5, 0.5]]
    >>> ev = meta_evaluate(X, n_resamples=200, rng=1, analyses=("paired", "swap"))
    >>> ev.unpaired is None, ev.stability is None, sorted(ev.to_dict())
    (True, True, ['paired', 'swap'])
    >>> ev.paired.n_significant, ev.swap.abs_difference
    (1, 0.02)
    """

    paired: DiscriminativePowerResult | None
    unpaired: DiscriminativePowerResult | None
    stability: StabilityResult | None
    swap: SwapResult | None

    def to_dict(self) -> dict:
        """Plain-dict summary of every analysis (JSON-able)."""
        out = {}
        if self.paired is not None:
            out["paired"] = self.paired.to_dict()
        if self.unpaired is not None:
            out["unpaired"] = self.unpaired.to_dict()
        if self.stability is not None:
            out["stability"] = self.stability.to_frame().to_dict(orient="list")
        if self.swap is not None:
            out["swap"] = self.swap.to_dict()
        return out


_ANALYSES = ("paired", "unpaired", "stability", "swap")


def _check_analyses(analyses: Any) -> tuple[str, ...]:
    if isinstance(analyses, str):
        analyses = (analyses,)
    try:
        items = tuple(analyses) if not isinstance(analyses, np.ndarray) or analyses.ndim == 1 else None
    except TypeError:
        items = None
    if items is None or not all(isinstance(a, str) for a in items):
        raise InputError("analyses", f"must be a sequence of names from {_ANALYSES}; got {analyses!r}")
    bad = set(items) - set(_ANALYSES)
    if bad:
        raise InputError("analyses", f"unknown analyses {sorted(bad)}")
    return items


@renamed_parameters(statistic="summary", paired_statistic="paired_summary")
def meta_evaluate(
    scores: Any,
    *,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    rng: Any = None,
    summary: str = "mean",
    paired_summary: str | None = None,
    fuzziness: Sequence[float] = DEFAULT_FUZZINESS,
    bin_width: float = 0.01,
    n_bins: int = 21,
    swap_threshold: float = 0.05,
    analyses: Sequence[str] = ("paired", "unpaired", "stability", "swap"),
    offset: float = GM_OFFSET,
    batch_size: int | None = None,
) -> MetaEvaluation:
    """Paired and unpaired tests, discriminative power, required differences, stability and swap.

    One set of topic samples Q*b serves the paired test, the stability and the
    swap method; the swap method's Q'*b and the unpaired pooled indices come
    from independent streams of the same seed.

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
        Per-topic values of one metric.
    alpha : float, default 0.05
        The significance level: discriminative power counts pairs with Sakai's
        ASL = b / B < alpha (Sakai's 2006 count).
    n_resamples, rng
        B and the seed of the three shared sets of samples.
    summary : {"mean", "gmean"}
        The metric's summary (``"gmean"`` for G_AveP etc.; formerly ``statistic``).
    paired_summary : {"mean", "gmean"}, optional
        Summary of the paired test (formerly ``paired_statistic``); defaults to
        ``summary``, i.e. "gmean" runs the AG paired test.
    fuzziness : sequence of float, default f = 0.01, ..., 0.20
        The stability method's fuzziness values.
    bin_width, n_bins, swap_threshold
        The swap method's bins and the swap rate behind ``abs`` (0.01, 21, 0.05).
    analyses : sequence of str
        Which of ``"paired"``, ``"unpaired"``, ``"stability"``, ``"swap"`` to run (one name is
        a sequence of one).  The options of the analyses not run are checked too.
    offset : float, default 1e-5
        Geometric-mean offset.
    batch_size : int, optional
        As in :func:`discriminative_power`.

    Returns
    -------
    MetaEvaluation
        One result per analysis (None for those not run).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Sections 4-5: discriminative power, the stability and swap methods on shared samples).
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Five systems on 20 topics: the paired test tells more pairs apart than the unpaired one
    (Sakai Figs. 7-8):

    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import meta_evaluate
    >>> topic_ease = np.random.default_rng(0).uniform(size=(20, 1))
    >>> X = topic_ease + np.linspace(0, 0.3, 5) + np.random.default_rng(1).normal(0, .1, (20, 5))
    >>> ev = meta_evaluate(X, rng=7, analyses=("paired", "unpaired"))
    >>> ev.paired.n_significant, ev.unpaired.n_significant
    (9, 2)
    """
    df = check_scores(scores)
    n = df.shape[0]
    analyses = _check_analyses(analyses)
    # every option is checked, also those of analyses not run
    check_float("alpha", alpha, minimum=0.0, maximum=1.0, inclusive=False)
    summary_name(summary, allow_callable=False)
    if paired_summary is not None:
        summary_name(paired_summary, allow_callable=False, parameter="paired_summary")
    _check_fuzziness(fuzziness)
    check_float("bin_width", bin_width, minimum=0.0, inclusive=False)
    check_int("n_bins", n_bins, minimum=1, maximum=MAX_BINS)
    check_float("swap_threshold", swap_threshold, minimum=0.0, maximum=1.0)
    check_float("offset", offset, minimum=0.0)
    if batch_size is not None:
        check_int("batch_size", batch_size, minimum=1)
    B = check_int("n_resamples", n_resamples, minimum=1)
    s = df.shape[1]
    check_memory(
        "n_resamples",
        B * (8.0 * 4 * n + 8.0 * (4 * s + 8)),
        f"the three sets of {B} bootstrap samples of {n} topics shared by the analyses",
    )
    if isinstance(rng, np.random.Generator):
        idx = bootstrap_indices(n, n_resamples=n_resamples, rng=rng)
        idx_swap = bootstrap_indices(n, n_resamples=n_resamples, rng=rng)
        idx_pool = bootstrap_indices(2 * n, n_resamples=n_resamples, rng=rng)
    else:
        if isinstance(rng, np.random.BitGenerator):
            rng = np.random.default_rng(rng)
        elif not (rng is None or isinstance(rng, np.random.SeedSequence)):
            stream_generator(rng, 0)  # the same InputError for a bad rng as everywhere
        ss = (
            rng
            if isinstance(rng, np.random.SeedSequence)
            else (np.random.SeedSequence() if rng is None else np.random.SeedSequence(check_int("rng", rng, minimum=0)))
        )
        idx = bootstrap_indices(n, n_resamples=n_resamples, rng=ss, stream=STREAM_TOPICS)
        idx_swap = bootstrap_indices(n, n_resamples=n_resamples, rng=ss, stream=STREAM_SWAP)
        idx_pool = bootstrap_indices(2 * n, n_resamples=n_resamples, rng=ss, stream=STREAM_POOLED)
    pstat = summary if paired_summary is None else paired_summary
    paired = unpaired = stab = swap = None
    if "paired" in analyses:
        paired = discriminative_power(
            df, alpha=alpha, test="paired", resamples=idx, summary=pstat, offset=offset, batch_size=batch_size
        )
    if "unpaired" in analyses:
        unpaired = discriminative_power(
            df, alpha=alpha, test="unpaired", resamples=idx_pool, summary=summary, offset=offset, batch_size=batch_size
        )
    if "stability" in analyses:
        stab = stability(df, fuzziness=fuzziness, summary=summary, resamples=idx, offset=offset)
    if "swap" in analyses:
        swap = swap_rates(
            df,
            summary=summary,
            bin_width=bin_width,
            n_bins=n_bins,
            threshold=swap_threshold,
            resamples=idx,
            resamples_prime=idx_swap,
            offset=offset,
        )
    return MetaEvaluation(paired=paired, unpaired=unpaired, stability=stab, swap=swap)
