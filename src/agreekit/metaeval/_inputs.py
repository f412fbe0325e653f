"""Validation of the ``scores`` mapping shared by :func:`metric_agreement` and :func:`consensus_ranking`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from agreekit._validation import InputError, check_float
from agreekit._resampling import bootstrap_summaries, summary_name, system_summaries
from agreekit.ireval.metrics import GM_OFFSET, align_scores, check_scores
from agreekit._jit import pick
from agreekit.metaeval import _kernels as _k


@dataclass(frozen=True)
class MetricScores:
    """Aligned score matrices: ``X[m]`` is topics x systems of metric ``names[m]``."""

    names: tuple
    topics: pd.Index
    systems: pd.Index
    X: np.ndarray  # (M, n, s)
    statistics: tuple  # per metric: "mean" or "gmean"
    offset: float = GM_OFFSET

    @property
    def n_topics(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_systems(self) -> int:
        return int(self.X.shape[2])

    def summaries(self) -> np.ndarray:
        """(M, s) system summaries over all topics."""
        return np.stack([system_summaries(self.X[m], st, self.offset) for m, st in enumerate(self.statistics)])

    def resampled_summaries(self, idx: np.ndarray) -> np.ndarray:
        """(M, B, s) system summaries over the topic samples ``idx`` (same rows for every metric)."""
        return np.stack([bootstrap_summaries(self.X[m], idx, st, self.offset) for m, st in enumerate(self.statistics)])


def ranks_from_summaries(S: np.ndarray) -> np.ndarray:
    """Average ranks (1 = best = largest summary) along the last axis; ties up to round-off share."""
    shape = S.shape
    flat = np.ascontiguousarray(S.reshape(-1, shape[-1]), dtype=np.float64)
    return pick(_k.average_ranks_desc, flat.size * 16)(flat, _k.TIE_TOL).reshape(shape)


def check_metric_scores(
    scores: Any,
    *,
    summary: Any = "mean",
    parameter: str = "scores",
    min_metrics: int = 2,
    offset: float = GM_OFFSET,
    statistic: Any = None,
    summary_parameter: str = "summary",
) -> MetricScores:
    """Validate ``scores`` (metric name -> topics x systems DataFrame) and align it by label.

    ``summary`` is one summary for every metric (``"mean"`` or ``"gmean"``) or a mapping
    metric name -> summary (missing names use ``"mean"``).  ``statistic`` is the former
    spelling (internal callers); errors name ``summary_parameter``.
    """
    offset = check_float("offset", offset, minimum=0.0)
    if statistic is not None:
        summary = statistic
        # the former spelling, used by internal callers whose own parameter is `summary`
    statistic = summary
    if not isinstance(scores, Mapping):
        raise InputError(
            parameter, f"must be a mapping metric name -> topics x systems DataFrame; got {type(scores).__name__}"
        )
    if len(scores) < min_metrics:
        raise InputError(parameter, f"needs at least {min_metrics} metrics to compare; got {len(scores)}")
    names = []
    for name in scores:
        if not isinstance(name, str) or not name.strip():
            raise InputError(parameter, f"metric names must be non-empty strings; got {name!r}")
        names.append(name)
    frames = []
    ref = None
    for name in names:
        df = check_scores(scores[name], parameter=f"{parameter}[{name!r}]")
        if ref is None:
            ref = df
        elif not isinstance(scores[name], pd.DataFrame) or not isinstance(scores[names[0]], pd.DataFrame):
            if df.shape != ref.shape:
                raise InputError(
                    f"{parameter}[{name!r}]",
                    f"must have the shape of `{parameter}[{names[0]!r}]` {ref.shape}; got {df.shape}",
                )
        else:
            df = align_scores(ref, df, names=(f"{parameter}[{names[0]!r}]", f"{parameter}[{name!r}]"))
        frames.append(df.to_numpy())
    if isinstance(statistic, Mapping):
        unknown = sorted(set(map(str, statistic)) - set(names))
        if unknown:
            raise InputError(summary_parameter, f"names metrics not in `{parameter}`: {unknown}")
        stats = tuple(
            summary_name(statistic.get(n, "mean"), allow_callable=False, parameter=summary_parameter) for n in names
        )
    else:
        st = summary_name(statistic, allow_callable=False, parameter=summary_parameter)
        stats = tuple(st for _ in names)
    X = np.ascontiguousarray(np.stack(frames), dtype=np.float64)
    for m, st in enumerate(stats):
        if st == "gmean" and np.any(X[m] + offset <= 0):
            raise InputError(f"{parameter}[{names[m]!r}]", f"geometric mean needs values > -{offset}")
    return MetricScores(
        names=tuple(names), topics=ref.index.copy(), systems=ref.columns.copy(), X=X, statistics=stats, offset=offset
    )
