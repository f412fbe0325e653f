"""Per-topic IR metrics of runs against qrels: :func:`evaluate` and :func:`topic_metrics`.

Every metric is dispatched through the registry (:data:`agreekit.ireval._registry.METRICS`);
the ranked lists of a run are built once as sorted arrays (:class:`_kernels_ir.RankedLists`)
and every metric is computed for all topics at once.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from agreekit._api import _warn, check_rng
from agreekit._jit import pick
from agreekit._resampling import unit_mean_interval
from agreekit._validation import InputError, check_choice, check_float, check_int, parse_ascii_int
from agreekit.ireval import _kernels_ir as _kir
from agreekit.ireval import _ircore
from agreekit.ireval._reading import _Coded, _coded_frame, _qrels_coded, _qrels_lines, _run_coded
from agreekit.ireval._registry import (
    METRICS,
    MetricSpec,
    _is_measure_object,
    _iv_evaluate,
    _iv_topic_metrics,
    parse_metric,
)
from agreekit.ireval._scores import _numeric_id

_NDCG_FORMS = ("jk", "trec")


def _compute(lists: _kir.RankedLists, spec: MetricSpec) -> np.ndarray:
    """The registry's kernel for ``spec``; an unknown kind raises (no fall-through)."""
    definition = METRICS.get(spec.kind)
    if definition is None:
        raise InputError("metrics", f"unknown metric kind {spec.kind!r} (known: {', '.join(METRICS)})")
    return definition.compute(lists, spec)


def topic_metrics(
    ranked_gains: Sequence[float],
    ideal_gains: Sequence[float],
    specs: Sequence[MetricSpec],
    *,
    depth: int | None = None,
    beta: float = 1.0,
    log_base: float = 2.0,
    ndcg: str | None = None,
) -> list[float]:
    """Metric values of one ranked list for one topic.

    ``ranked_gains`` are the gains of the retrieved documents in rank order (0
    for non-relevant), already cut at ``depth``; ``ideal_gains`` the gains of
    all R relevant documents (any order).  Used by :func:`evaluate`; public so
    that the definitions can be checked by hand.  ``ndcg`` is deprecated, as in
    :func:`evaluate`.  Metrics that need the grade of every document (``bpref``,
    ``Judged@k``, ``rel=``) are computed by :func:`evaluate` only.

    Parameters
    ----------
    ranked_gains : sequence of float
        Gains of the retrieved documents in rank order, cut at ``depth``.
    ideal_gains : sequence of float
        Gains of all relevant documents of the topic.
    specs : sequence of MetricSpec
        The metrics (:func:`parse_metric`).
    depth : int, optional
        The evaluation depth (default: every document given): ``P``, ``nCG``, ``nDCG``
        without ``@k`` use k = depth.
    beta : float, optional
        The Q-measure's β (default 1).
    log_base : float, optional
        The base a of nDCG_jk's discount (default 2).
    ndcg : str, optional
        Deprecated (as in :func:`evaluate`).

    Returns
    -------
    list of float
        One value per metric of ``specs``.

    Examples
    --------
    >>> from agreekit.ireval.metrics import topic_metrics, parse_metric
    >>> topic_metrics([1, 0, 1], [1, 1], [parse_metric("AveP")])  # (1/1 + 2/3) / 2
    [0.8333333333333333]
    >>> topic_metrics([0, 1], [1], [parse_metric("nDCG@2")])  # 1/log2(3)
    [0.6309297535714575]
    >>> topic_metrics([0, 1], [1], [parse_metric("nDCG_jk@2")])  # rank 2 undiscounted
    [1.0]
    """
    g, gi, specs = _iv_topic_metrics(ranked_gains, ideal_gains, specs, beta, log_base)
    if ndcg is not None:
        _warn(
            "topic_metrics(): `ndcg=` is deprecated; name the form in the metric: 'nDCG@k' "
            "(trec_eval) or 'nDCG_jk@k' (Jarvelin-Kekalainen)"
        )
        specs = _ndcg_specs(specs, _check_ndcg(ndcg))
    depth = None if depth is None else check_int("depth", depth, minimum=1)
    n = g.size
    lists = _kir.RankedLists(
        n_topics=1,
        seg=np.zeros(n, dtype=np.int64),
        pos=np.arange(1.0, n + 1.0),
        gain=g,
        start=np.zeros(1, dtype=np.int64),
        n_ret=np.array([n], dtype=np.int64),
        ideal=gi,
        istart=np.zeros(1, dtype=np.int64),
        R=np.array([gi.size], dtype=np.int64),
        depth=depth,
        beta=beta,
        log_base=log_base,
    )
    return [float(_compute(lists, spec)[0]) for spec in specs]


def _progress(iterable, progress, *, total: int, desc: str):
    """``iterable`` with a tqdm bar on stderr when ``progress`` (None: only if stderr is a terminal)."""
    import sys

    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not progress or total <= 1:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, leave=False, file=sys.stderr)


def _check_ndcg(ndcg) -> str:
    if not isinstance(ndcg, str) or ndcg not in _NDCG_FORMS:
        raise InputError("ndcg", f"must be one of {{'jk', 'trec'}}; got {ndcg!r}")
    return ndcg


def _ndcg_specs(specs, ndcg: str) -> list[MetricSpec]:
    """The deprecated ``ndcg="jk"``: a bare ``nDCG@k`` means the JK form (under its given name)."""
    if ndcg == "trec":
        return list(specs)
    return [MetricSpec(sp.name, "nDCG_jk", sp.cutoff) if sp.kind == "nDCG" else sp for sp in specs]


class _MetricScores(dict):
    """``{metric name: topics x systems DataFrame}``, what :func:`evaluate` returns."""

    def __missing__(self, key):
        raise KeyError(
            f"{key!r} is not a metric of this result (metrics: {list(self)}); evaluate() returns "
            "a dict metric name -> topics x systems DataFrame whatever `metrics` is, e.g. "
            "res['AP']['system']"
        )

    def confidence_interval(self, confidence_level=0.95, *, method=None, n_resamples=9999, rng=None) -> dict:
        """Interval for each system's mean score over topics, per metric.

        Estimand: a system's mean metric value over the population of topics the evaluated topics are
        an i.i.d. sample of; the topics are resampled with replacement, one resample of the topics
        shared by all systems of a metric (:func:`agreekit._resampling.unit_mean_interval`; the
        resamples are those of :func:`scipy.stats.bootstrap` with the same generator).

        Parameters
        ----------
        confidence_level : float, optional
            Nominal coverage in (0, 1) (default 0.95).
        method : {None, 'bootstrap', 'percentile', 'jackknife'}, optional
            ``'bootstrap'`` (BCa; also for None), ``'percentile'``, or ``'jackknife'`` (the t interval).
        n_resamples : int, optional
            Bootstrap resamples (default 9999).
        rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
            Randomness of the bootstrap (scipy SPEC 7); one generator for the metrics in their order.

        Returns
        -------
        dict of ConfidenceInterval
            Metric name -> interval whose ``low``, ``high`` and ``estimate`` are arrays with one
            entry per system, in the order of the metric's columns.

        Examples
        --------
        >>> import pandas as pd
        >>> from agreekit.ireval.metrics import evaluate
        >>> qrels = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}}
        >>> run = pd.DataFrame({"topic": ["1", "1", "2", "2", "3"], "docno": ["a", "x", "x", "b", "y"],
        ...                     "score": [2.0, 1.0, 2.0, 1.0, 1.0]})
        >>> ci = evaluate(qrels, {"sys": run}, "RR").confidence_interval(method="jackknife")["RR"]
        >>> float(ci.estimate[0])  # (1 + 1/2 + 0) / 3
        0.5
        >>> bool(ci.low[0] < 0.5 < ci.high[0])
        True
        """
        gen = None if method == "jackknife" else check_rng(rng)
        return {
            name: unit_mean_interval(
                frame.to_numpy(dtype=np.float64),
                confidence_level,
                method=method,
                n_resamples=n_resamples,
                rng=gen,
                estimand=f"each system's population mean {name} over topics",
            )
            for name, frame in self.items()
        }


def _grade_key(k) -> int:
    """A gains key as an integer grade: an int (not a bool) or ASCII digits; else an InputError."""
    if isinstance(k, (bool, np.bool_)):
        raise InputError("gains", f"grade {k!r} is a bool, not an integer grade")
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, (float, np.floating)) and math.isfinite(k) and float(k).is_integer():
        return int(k)
    if isinstance(k, str) and len(k) <= 40 and (g := parse_ascii_int(k)) is not None:
        return g
    raise InputError(
        "gains", f"grade {k!r} must be an integer (e.g. {{1: 1, 2: 3}}); grades are not rounded or truncated"
    )


def _gain_map(gains) -> Any:
    """``gains`` as ``{int grade: float gain}``; non-integer grades (1.5, True) and a grade spelt
    twice with different gains (``{1: 2, "01": 3}``) are refused."""
    if gains is None:
        return None
    if not isinstance(gains, Mapping):
        raise InputError("gains", "must be a mapping grade -> gain (e.g. {1: 1, 2: 2})")
    out: dict[int, float] = {}
    spelt: dict[int, Any] = {}
    for k, v in gains.items():
        grade = _grade_key(k)
        if isinstance(v, (bool, np.bool_)):
            raise InputError("gains", f"gain of grade {k!r} is a bool ({v!r}); give a number")
        try:
            gain = float(v)
        except (TypeError, ValueError):
            raise InputError("gains", f"entry {k!r}: {v!r} must map an integer grade to a number") from None
        if not math.isfinite(gain) or gain < 0:
            raise InputError("gains", f"gain of grade {k!r} must be finite and >= 0")
        if grade in out and out[grade] != gain:
            raise InputError(
                "gains",
                f"grade {grade} is given twice with different gains ({spelt[grade]!r}: "
                f"{out[grade]:g}, {k!r}: {gain:g})",
            )
        out[grade], spelt[grade] = gain, k
    return out


def _as_runs(run) -> list[_Coded]:
    """Every run given, in coded form (``.name`` the system name, ``.source`` what was given)."""
    if isinstance(run, (str, os.PathLike, pd.DataFrame)):
        pairs = [(None, run)]
    elif isinstance(run, Mapping):
        pairs = [(str(nm), src) for nm, src in run.items()]
    elif isinstance(run, Sequence):
        if len(run) == 0:
            raise InputError("run", "no run given")
        pairs = [(None, src) for src in run]
    else:
        raise InputError("run", f"must be a path, a DataFrame, or a list/dict of them; got {type(run).__name__}")
    out = []
    for nm, src in pairs:
        coded = _run_coded(src, name=nm)
        coded.source = src
        out.append(coded)
    return out


def _source_name(source: Any, what: str, name: str | None = None) -> str:
    """How an error names an input: its path (``<stdin>`` for ``-``), else e.g. ``run 'bm25'``."""
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    return f"{what} {name!r}" if name is not None else f"the {what} ({type(source).__name__})"


#: integers written the one way (no sign +, no leading zero, not -0): equal as numbers only if equal as text
_CANONICAL_INT = re.compile(r"0|-?[1-9][0-9]{0,40}")


def _check_topic_ids(qrels_topics: Sequence[str], qrels_shown: str, runs: Sequence[_Coded]) -> None:
    """The one rule for numeric labels, for topic ids: they are compared as text (as trec_eval
    and pytrec_eval do), so a run topic ``01`` is not the qrels topic ``1``.  Since that silently
    scores the run 0 on every such topic, a run topic that is absent from the qrels but equal to a
    qrels topic as a number is an :class:`InputError` naming both inputs and the first such id.
    A qrels file holding two topics equal only as numbers (``1`` and ``01``) is evaluated as two
    topics, as trec_eval would, with a warning."""
    known = set(qrels_topics)
    if all(map(_CANONICAL_INT.fullmatch, qrels_topics)):  # distinct as text = distinct as numbers: no warning
        unknown = [t for r in runs for t in r.topics if t not in known]
        if not unknown:
            return
    by_value: dict[Decimal, str] = {}
    for t in qrels_topics:
        v = _numeric_id(t)
        if v is None:
            continue
        first = by_value.setdefault(v, t)
        if first != t:
            warnings.warn(
                f"{qrels_shown}: topics {first!r} and {t!r} are equal as numbers but differ as "
                "text; they are evaluated as two topics (ids are compared as text, as trec_eval "
                "does)",
                UserWarning,
                stacklevel=3,
            )
    if not by_value:
        return
    for r in runs:
        for t in r.topics:
            if t in known:
                continue
            v = _numeric_id(t)
            if v is not None and v in by_value:
                raise InputError(
                    "run",
                    f"topic {t!r} of {_source_name(r.source, 'run', r.name)} matches topic "
                    f"{by_value[v]!r} of {qrels_shown} only as a number: ids are compared "
                    "as text (as trec_eval does); write the topic ids alike in both",
                )


class _Qrels:
    """The judgements of the evaluated topics: per judgement its topic index ``qseg`` (into
    ``topics``), docno bytes ``buf[qs:qe]``, ``qgrade`` and ``qgain``; and each topic's ideal list."""

    def __init__(self, buf, qseg, qs, qe, qgrade, qgain, topics: list[str]):
        keep = qseg >= 0
        self.topics, self.buf = topics, buf
        self.qseg, self.qs, self.qe = qseg[keep], qs[keep], qe[keep]
        self.qgrade, self.qgain = qgrade[keep], qgain[keep]
        pos = self.qgain > 0  # the ideal list: each topic's positive gains in decreasing order
        self.ideal = self.qgain[pos][np.lexsort((-self.qgain[pos], self.qseg[pos]))]
        self.R = np.bincount(self.qseg[pos], minlength=len(topics)).astype(np.int64)
        self.istart = np.concatenate(([0], np.cumsum(self.R)[:-1])).astype(np.int64)


def _ranked(
    qr: _Qrels, run: _Coded, depth: int | None, *, beta: float, log_base: float, judgements: bool
) -> _kir.RankedLists:
    """trec_eval's ranking of one run over the qrels topics, as flat sorted arrays: score
    descending, ties by docno descending (byte order); a docno repeated within a topic is kept at
    its first (best) position only; each list cut at ``depth`` (None: every document)."""
    T = len(qr.topics)
    index = {t: i for i, t in enumerate(qr.topics)}
    tmap = np.array([index.get(t, -1) for t in run.topics] + [-1], dtype=np.int64)
    rt = tmap[run.tcode]
    score = run.values
    cut = 0 if depth is None or depth >= rt.size else depth  # 0: no cut (a depth beyond every list is none either)
    order, seg, pos, gain, grade, judged, start, n_ret = pick(_ircore.rank_join, 12 * (rt.size + qr.qseg.size))(
        T, rt, score, run.buf, run.ds, run.de,
        qr.qseg, qr.buf, qr.qs, qr.qe, qr.qgain, qr.qgrade, cut,
    )  # fmt: skip
    lists = _kir.RankedLists(
        n_topics=T,
        seg=seg,
        pos=pos,
        gain=gain,
        start=start,
        n_ret=n_ret,
        ideal=qr.ideal,
        istart=qr.istart,
        R=qr.R,
        depth=depth,
        beta=beta,
        log_base=log_base,
    )
    if judgements:
        lists.grade = grade
        lists.judged = judged
        s_f = score[order]
        same = (seg[1:] == seg[:-1]) & (s_f[1:] == s_f[:-1])
        if same.any():  # ir_measures' Judged@k takes equal scores in docno-ascending order: mirror each block
            head = np.concatenate(([True], ~same))
            bid = np.cumsum(head) - 1
            bstart = np.flatnonzero(head)
            bend = np.append(bstart[1:], seg.size)
            lists.judged_asc = judged[bstart[bid] + bend[bid] - 1 - np.arange(seg.size)]
        lists.qseg, lists.qgrade, lists.qgain = qr.qseg, qr.qgrade, qr.qgain
    return lists


def _values(lists: _kir.RankedLists, specs: Sequence[MetricSpec]) -> np.ndarray:
    """specs x topics values: the common metrics (relevant = gain > 0) in one compiled pass
    (:func:`._ircore.fused_metrics`), the others by their registry kernel."""
    out = np.empty((len(specs), lists.n_topics))
    fused = [
        k
        for k, sp in enumerate(specs)
        if sp.rel is None and sp.kind in _ircore.FUSED_KINDS and METRICS[sp.kind].compute is _FUSED_COMPUTE[sp.kind]
    ]
    if fused:
        kinds = np.array([_ircore.FUSED_KINDS[specs[k].kind] for k in fused], dtype=np.int64)
        cuts = np.array([_kir._cut(lists, specs[k], default_depth=specs[k].kind in _DEPTH_CUT) for k in fused])
        out[fused] = pick(_ircore.fused_metrics, 2 * (lists.seg.size * len(fused) + lists.ideal.size))(
            kinds, cuts, lists.gain, lists.pos, lists.start, lists.n_ret, lists.ideal, lists.istart, lists.R
        )
    for k, spec in enumerate(specs):
        if k not in fused:
            out[k] = _compute(lists, spec)
    return out


#: the registry kernels :func:`._ircore.fused_metrics` stands for (a kind whose registry entry
#: was replaced is computed by its entry)
_FUSED_COMPUTE = {
    "AveP": _kir.average_precision,
    "P": _kir.precision,
    "R": _kir.recall,
    "RR": _kir.reciprocal_rank,
    "nDCG": _kir.ndcg_trec,
    "R-prec": _kir.r_precision,
    "Success": _kir.success,
}
#: kinds whose list without ``@k`` is cut at the evaluation depth (the others use every document given)
_DEPTH_CUT = {"P", "R", "nDCG"}


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Any = ("AveP",),
    *,
    depth: int | None = None,
    gains: Mapping | None = None,
    beta: float = 1.0,
    log_base: float = 2.0,
    ndcg: str | None = None,
    empty_topics: str = "error",
    progress: bool | None = None,
) -> dict:
    """Per-topic IR metrics of one or more runs: a dict metric -> topics x systems matrix.

    Parameters
    ----------
    qrels : path, DataFrame or mapping
        TREC qrels (see :func:`read_qrels`; ir_measures / PyTerrier frames too).  The
        evaluated topics are the qrels topics (sorted as strings, numerically when all
        are integers).
    run : path, DataFrame, or a list / dict (name -> run) of them
        TREC runs; one system per run.  Topic ids are compared with the qrels' as text (as
        trec_eval does); a run topic equal to a qrels topic only as a number (``01`` vs
        ``1``) is an :class:`~agreekit.InputError`.
    metrics : str, ir_measures measure, or a sequence of them
        Metric names (see :func:`parse_metric` and the module docstring): ``"AP"``,
        ``"P@10"``, ``"R@100"``, ``"RR"``, ``"Rprec"``, ``"nDCG@10"`` (trec_eval's form),
        ``"nDCG_jk@10"`` (Sakai's), ``"Q-measure"``, ``"nCG@1000"``, ``"bpref"``,
        ``"Judged@10"``, ``"Success@10"``; ir_measures' parameters (``"P(rel=2)@10"``) and
        trec_eval's names (``"map"``, ``"P_10"``, ``"ndcg_cut_10"``); ir_measures measure
        objects (``ir_measures.nDCG@10``) are keyed by their ``str``.
    depth : int, optional
        Cut each ranked list at this many documents (the paper's L).  Default: every
        retrieved document, as trec_eval, pytrec_eval and ir_measures do.  ``P``, ``nCG``
        and ``nDCG`` without ``@l`` use l = depth (without a depth: ``P`` is relevant
        retrieved / retrieved, ``nCG`` / ``nDCG`` use the whole list and every relevant
        document).
    gains : mapping, optional
        Grade -> gain, overriding the default gain = grade (grades <= 0 and
        grades mapped to 0 are non-relevant), e.g. ``{2: 3}`` or ``{1: 0}``.  Grades are
        integers (``int`` or ASCII digits); a grade given twice (``1`` and ``"01"``) with
        different gains is an error.
    beta : float, default 1
        Q-measure's beta (1 = Sakai 2006; 0 gives AveP).
    log_base : float, default 2
        The a of ``nDCG_jk`` (ranks 1..a undiscounted, rank i > a divided by log_a(i)).
    ndcg : {"jk", "trec"}, optional
        Deprecated (name the form instead: ``nDCG@k`` = trec_eval's ``ndcg_cut.k``,
        ``nDCG_jk@k`` = Jarvelin-Kekalainen).  If given, it still decides what a bare
        ``nDCG@k`` means, with a :class:`DeprecationWarning`.
    empty_topics : {"error", "drop"}
        What to do with qrels topics without relevant documents.
    progress : bool, optional
        A progress bar over the runs on stderr (default: only when stderr is a terminal).

    Returns
    -------
    dict of DataFrame
        Always a dict metric name -> DataFrame (index ``topic``, columns = system
        names), also for a single metric.

    References
    ----------
    K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
    ACM Transactions on Information Systems 20(4), 422-446, 2002. :doi:`10.1145/582415.582418`

    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> import pandas as pd
    >>> from agreekit.ireval.metrics import evaluate
    >>> qrels = {"1": {"a": 1, "b": 2}, "2": {"c": 1}}
    >>> run = pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["a", "x", "y"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> evaluate(qrels, {"sys": run}, "AP")["AP"]["sys"].tolist()
    [0.5, 0.0]
    >>> evaluate(qrels, {"sys": run}, ["P(rel=2)@2", "map"])["map"]["sys"].tolist()
    [0.5, 0.0]
    """
    _iv_evaluate(metrics=metrics, progress=progress)
    single = isinstance(metrics, str) or _is_measure_object(metrics)
    entries = [metrics] if single else list(metrics)
    if not entries:
        raise InputError("metrics", "at least one metric is required")
    specs = [parse_metric(m) for m in entries]
    names = [sp.name for sp in specs]
    if len(set(names)) != len(names):
        raise InputError("metrics", "contains duplicates")
    depth = None if depth is None else check_int("depth", depth, minimum=1)
    beta = check_float("beta", beta, minimum=0.0)
    log_base = check_float("log_base", log_base, minimum=1.0, inclusive=False)
    check_choice("empty_topics", empty_topics, ("error", "drop"))
    if ndcg is not None:
        _warn(
            "evaluate(): `ndcg=` is deprecated; name the form in the metric: 'nDCG@k' (trec_eval, "
            "the default meaning) or 'nDCG_jk@k' (Jarvelin-Kekalainen, Sakai 2006)"
        )
        specs = _ndcg_specs(specs, check_choice("ndcg", ndcg, _NDCG_FORMS))
    gmap = _gain_map(gains)
    judgements = any(sp.rel is not None or METRICS[sp.kind].needs_judgements for sp in specs)

    qc = _qrels_coded(qrels)
    keep, conflict = pick(_ircore.dedupe_judgements, 8 * qc.tcode.size)(
        qc.tcode, qc.buf, qc.ds, qc.de, qc.values, len(qc.topics), qc.last_wins
    )
    if conflict >= 0:  # two grades for one document in a file: the careful reader names the lines
        qc = _coded_frame(_qrels_lines(qc.source), "relevance")
        keep = np.ones(qc.tcode.size, dtype=bool)
    qtcode, qs, qe, grade = qc.tcode, qc.ds, qc.de, qc.values
    if not keep.all():
        qtcode, qs, qe, grade = qtcode[keep], qs[keep], qe[keep], grade[keep]
    gain = np.maximum(grade, 0).astype(np.float64)  # default gain = grade, grades <= 0 non-relevant
    if gmap is not None:
        for g, v in gmap.items():
            gain[grade == g] = v
    all_topics = qc.topics
    n_rel = np.bincount(qtcode, weights=(gain > 0).astype(np.float64), minlength=len(all_topics))
    empty = sorted(t for t, n in zip(all_topics, n_rel) if n == 0)
    if empty:
        if empty_topics == "error":
            raise InputError(
                "qrels",
                f"{len(empty)} topic(s) have no relevant document (gain > 0), so "
                f"every metric is undefined for them: {empty[:5]}"
                f"{' ...' if len(empty) > 5 else ''}; pass empty_topics='drop' "
                "to drop them",
            )
        warnings.warn(f"dropping {len(empty)} topic(s) without relevant documents: {empty[:5]}", stacklevel=2)
    empty_set = set(empty)
    topics = sorted(t for t in all_topics if t not in empty_set) if empty_set else sorted(all_topics)
    if all(re.fullmatch(r"-?[0-9]{1,18}", t) for t in topics):  # ASCII digits ('\u00b2'.isdigit() is True)
        topics.sort(key=int)

    runs = _as_runs(run)
    _check_topic_ids(all_topics, _source_name(qrels, "qrels"), runs)
    sys_names = [r.name for r in runs]
    if len(set(sys_names)) != len(sys_names):
        dup = sorted({n for n in sys_names if sys_names.count(n) > 1})
        raise InputError("run", f"duplicate system names {dup}; pass a dict name -> run")
    index = {t: i for i, t in enumerate(topics)}
    qseg = np.array([index.get(t, -1) for t in all_topics], dtype=np.int64)[qtcode]
    qr = _Qrels(qc.buf, qseg, qs, qe, grade, gain, topics)
    values = np.zeros((len(specs), len(topics), len(runs)))
    for j, coded in _progress(enumerate(runs), progress, total=len(runs), desc="evaluate: runs"):
        lists = _ranked(qr, coded, depth, beta=beta, log_base=log_base, judgements=judgements)
        values[:, :, j] = _values(lists, specs)
        # topics the run did not answer keep the value 0 (trec_eval -c)
    index = pd.Index(topics, name="topic")
    return _MetricScores(
        (spec.name, pd.DataFrame(values[k], index=index, columns=pd.Index(sys_names, name="system")))
        for k, spec in enumerate(specs)
    )
