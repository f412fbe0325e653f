"""IR effectiveness metrics from TREC qrels and runs, and topic x system score matrices.

This module turns TREC-format relevance judgements ("qrels") and ranked runs
into per-topic score matrices (topics x systems), the input of the bootstrap
meta-evaluation in :mod:`agreekit.ireval.bootstrap`.  The metrics are those of
Sakai (2006), Eqs. 1-7, and the usual trec_eval ones; a name that ir_measures /
trec_eval also knows gives ir_measures' number (``AP``, ``P@k``, ``nDCG@k``,
``R@k``, ``RR``, ``Rprec``; ir_measures measure objects are accepted too):

============  ==============================================================
name          definition (R = number of relevant documents of the topic)
============  ==============================================================
``AveP``      (1/R) sum_r isrel(r) P(r)                               (Eq. 1)
``P@l``       count(l) / l, the denominator stays l for short lists    (Eq. 2)
``nCG@l``     cg(l) / cgI(l)                                           (Eq. 3)
``nDCG@l``    trec_eval's ``ndcg_cut.l`` (= ir_measures ``nDCG@l``): gain
              g(i) / log2(i + 1) from rank 1, ideal list cut at l
``nDCG_jk@l`` Jarvelin-Kekalainen form used by Sakai (2006): dcg(l) / dcgI(l),
              gain g(i) / log_a(i) for i > a, a = 2                    (Eq. 4)
``Q-measure`` (1/R) sum_r isrel(r) (beta cg(r) + count(r)) / (beta cgI(r) + r)
              with beta = 1                                        (Eqs. 5-6)
``R-prec``    count(R) / R, precision at rank R (trec_eval ``Rprec``)
``R@l``       count(l) / R, recall at cut-off l (trec_eval ``recall_l``)
``RR``        1 / rank of the first relevant document, 0 if none (``RR@l``:
              within the top l; trec_eval ``recip_rank``)
============  ==============================================================

``AveP@l`` / ``Q-measure@l`` evaluate only the top l documents; ``PDoc@l`` is
an alias of ``P@l``, ``AP`` of ``AveP``, ``Q`` of ``Q-measure`` and ``Rprec``
of ``R-prec``.  The geometric-mean variants (G_AveP, G_Q-measure) use the same
per-topic values and differ only in the summary, :func:`geometric_mean` (Eq. 7).
:data:`GM_OFFSET` (1e-5) is the offset of that geometric mean.

nDCG comes in two forms, each with its own name:

* ``nDCG@k``: trec_eval's ``ndcg_cut.k`` (= ir_measures' ``nDCG@k``) - linear
  gain divided by log2(i + 1) from rank 1, the ideal list cut at k too;
* ``nDCG_jk@k`` (the seed's metric): Jarvelin and Kekalainen (2002) as used by
  Sakai (2006) - ranks i <= a (a = ``log_base`` = 2) undiscounted, rank i > a
  divided by log_a(i).

Formerly a bare ``nDCG@k`` meant the JK form; the ``ndcg=`` option that
chose the form is deprecated (if given it still decides what ``nDCG@k`` means).
Neither form is gdeval's TREC Web nDCG (exponential gain 2^g - 1).

Conventions (decisions documented in the README):

* a document is relevant iff its gain is > 0; unjudged documents are
  non-relevant; by default the gain of a judged document is its (integer)
  grade, so TREC grades 1/2 give gains 1/2; ``gains={...}`` overrides the
  gain of the grades it names;
* qrels and run frames may use today's columns (``topic``, ``docno``,
  ``relevance`` / ``score``), ir_measures' (``query_id``, ``doc_id``,
  ``relevance`` / ``score``) or PyTerrier's (``qid``, ``docno``, ``label`` /
  ``score``);
* runs are ranked as trec_eval does: by score descending, ties by docno
  descending (byte order); a docno repeated within a topic is kept at its
  first (best) position only; the list is cut at ``depth``;
* topic and document ids are compared as text, as trec_eval and pytrec_eval do: ``1`` and
  ``01`` are different topics.  A run topic that is absent from the qrels but equal to a
  qrels topic as a number (``01``, ``1.0``, ``+1`` for ``1``) is an error naming both inputs
  (it would silently score 0); a qrels holding ``1`` and ``01`` keeps them apart, with a
  warning;
* a topic of the qrels that a run does not answer scores 0 for that run
  (trec_eval ``-c`` semantics); topics of the run absent from the qrels are
  ignored;
* topics without any relevant document make every metric undefined: they
  raise an error unless ``empty_topics="drop"``.

References
----------
T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006.
K. Jarvelin and J. Kekalainen, "Cumulated gain-based evaluation of IR
techniques", ACM TOIS 20(4), 2002.
"""
from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agreekit._api import ResultBase, _warn
from agreekit._validation import (InputError, check_choice, check_float, check_int, float_matrix, is_ascii_int,
                                 parse_ascii_float, parse_ascii_int)
from agreekit._io import iter_lines, read_csv_rows

__all__ = [
    "GM_OFFSET",
    "read_qrels",
    "read_run",
    "evaluate",
    "parse_metric",
    "load_scores",
    "align_scores",
    "geometric_mean",
    "arithmetic_mean",
    "round_significant",
    "topic_metrics",
]

#: offset of the geometric mean, Sakai (2006) Eq. 7
GM_OFFSET = 1e-5

_METRIC_RE = re.compile(r"^(AveP|AP|Q-measure|Q|PDoc|P|nCG|nDCG_jk|nDCG|R-prec|Rprec|RR|R)(?:@([0-9]{1,18}))?$")
_CANONICAL = {"AveP": "AveP", "AP": "AveP", "Q-measure": "Q-measure", "Q": "Q-measure",
              "P": "P", "PDoc": "P", "nCG": "nCG", "nDCG": "nDCG", "nDCG_jk": "nDCG_jk",
              "R-prec": "R-prec", "Rprec": "R-prec", "RR": "RR", "R": "R"}
NDCG_FORMS = ("jk", "trec")
_SUPPORTED = "AP (AveP), P@k (PDoc@k), R@k, RR, Rprec (R-prec), nDCG@k, nDCG_jk@k, nCG@k, Q-measure"


@dataclass(frozen=True)
class MetricSpec(ResultBase):
    """A parsed metric name: ``kind`` in {AveP, P, Q-measure, nCG, nDCG, nDCG_jk, R-prec, R, RR},
    ``cutoff`` or None."""

    name: str
    kind: str
    cutoff: int | None


def _is_measure_object(obj) -> bool:
    """An ir_measures measure (``ir_measures.nDCG@10``): its ``str`` is the ir_measures name."""
    return type(obj).__module__.split(".")[0] == "ir_measures" or hasattr(obj, "SUPPORTED_PARAMS")


def parse_metric(name: Any) -> MetricSpec:
    """Parse a metric name such as ``"AP"``, ``"P@10"``, ``"nDCG@10"``, ``"RR"``, ``"Q-measure"``.

    ``name`` may also be an ir_measures measure object (``ir_measures.nDCG@10``); its
    ``str`` is parsed, and a measure or parameter this module does not compute is an
    :class:`~agreekit.InputError` naming it.

    Parameters
    ----------
    name : str or ir_measures measure
        The metric's name.

    Returns
    -------
    MetricSpec
        ``name`` (canonical spelling), ``kind`` and ``cutoff`` (None without ``@k``).

    Examples
    --------
    >>> parse_metric("nDCG@100")
    MetricSpec(name='nDCG@100', kind='nDCG', cutoff=100)
    >>> parse_metric("nDCG_jk@100").kind
    'nDCG_jk'
    """
    if not isinstance(name, str):
        if not _is_measure_object(name):
            raise InputError("metrics", f"entries must be metric names or ir_measures measures; got {name!r}")
        name = str(name)
    m = _METRIC_RE.match(name.strip())
    if m is None:
        raise InputError("metrics", f"unsupported metric {name!r}; use {_SUPPORTED} "
                                    "(optionally AveP@l, Q-measure@l, RR@l; no measure parameters)")
    cutoff = None if m.group(2) is None else int(m.group(2))
    if cutoff is not None and _CANONICAL[m.group(1)] == "R-prec":
        raise InputError("metrics", f"{name!r}: R-prec takes no cut-off (its cut-off is R)")
    if cutoff is not None and cutoff < 1:
        raise InputError("metrics", f"cut-off of {name!r} must be >= 1")
    return MetricSpec(name=name, kind=_CANONICAL[m.group(1)], cutoff=cutoff)


# --------------------------------------------------------------------------- reading


def _read_lines(param: str, path) -> list[tuple[int, list[str]]]:
    """Whitespace-split content lines (blank and ``#`` lines skipped) of a plain or gzip file."""
    return [(lineno, line.split()) for lineno, line in iter_lines(path, parameter=param)
            if line.strip() and not line.lstrip().startswith("#")]


#: peers' column names -> ours (ir_measures / pytrec_eval frames, PyTerrier frames)
_COLUMN_ALIASES = {"topic": ("query_id", "qid"), "docno": ("doc_id", "docid"), "relevance": ("label",),
                   "score": ()}


def _topic_doc_frame(parameter: str, source: pd.DataFrame, value: str) -> pd.DataFrame:
    """Copy of ``source[[topic, docno, value]]`` with string ids, or an error naming ``parameter``.

    ir_measures' (``query_id``, ``doc_id``) and PyTerrier's (``qid``, ``label``) column names
    stand for ours when ours are absent."""
    rename = {}
    for ours in ("topic", "docno", value):
        if ours not in source.columns:
            alias = next((a for a in _COLUMN_ALIASES[ours] if a in source.columns), None)
            if alias is not None:
                rename[alias] = ours
    if rename:
        source = source.rename(columns=rename)
    missing = {"topic", "docno", value} - set(source.columns)
    if missing:
        names = {"topic": "topic (or query_id / qid)", "docno": "docno (or doc_id)",
                 "relevance": "relevance (or label)", "score": "score"}
        raise InputError(parameter, f"DataFrame lacks columns {[names[c] for c in sorted(missing)]}")
    df = source[["topic", "docno", value]].copy()
    df["topic"] = df["topic"].astype(str)
    df["docno"] = df["docno"].astype(str)
    return df


def _records(parameter: str, source, layout: str):
    """(line number, fields) of a whitespace-separated TREC file whose lines have the fields of
    ``layout`` (e.g. ``"topic iter docno grade"``); another field count is an InputError."""
    n = len(layout.split())
    for lineno, parts in _read_lines(parameter, source):
        if len(parts) != n:
            raise InputError(parameter, f"{source}: line {lineno}: expected {n} fields '{layout}'; "
                                        f"got {len(parts)}")
        yield lineno, parts


def read_qrels(source: Any) -> pd.DataFrame:
    """Read TREC qrels (``topic iter docno grade``) into a DataFrame.

    ``source`` is a path (plain or ``.gz``; ``-`` = stdin), a DataFrame with columns
    ``topic, docno, relevance`` (or ir_measures' ``query_id, doc_id, relevance``, or
    PyTerrier's ``qid, docno, label``) or a mapping ``{topic: {docno: grade}}``.
    Returns columns ``topic`` (str), ``docno`` (str), ``relevance`` (int64).
    A document judged twice for a topic with the same grade counts once; two different grades
    in a file are an error naming the lines (in a DataFrame or mapping the last one is kept).
    Grades are integers written with ASCII digits.  Topic and document ids are text, compared
    as text (as trec_eval does): ``1`` and ``01`` are two topics.

    Parameters
    ----------
    source : path, file-like, DataFrame or mapping
        The qrels: a file path (``-`` = stdin) or an open text stream, a frame, or
        ``{topic: {docno: grade}}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``relevance`` (int64), one row per judged
        document of a topic, in file order.

    Examples
    --------
    >>> import io
    >>> from agreekit.ireval.metrics import read_qrels
    >>> read_qrels(io.StringIO("301 0 d1 1\\n301 0 d2 0\\n302 0 d7 2\\n"))
      topic docno  relevance
    0   301    d1          1
    1   301    d2          0
    2   302    d7          2
    """
    if isinstance(source, pd.DataFrame):
        df = _topic_doc_frame("qrels", source, "relevance")
        try:
            rel = pd.to_numeric(df["relevance"], errors="raise")
        except (TypeError, ValueError):
            raise InputError("qrels", "relevance values must be integers") from None
        if not np.all(np.isfinite(rel)) or not np.all(rel == np.round(rel)):
            raise InputError("qrels", "relevance values must be integers")
        df["relevance"] = rel.astype(np.int64)
    elif isinstance(source, Mapping):
        rows = [(str(t), str(d), g) for t, docs in source.items() for d, g in docs.items()]
        return read_qrels(pd.DataFrame(rows, columns=["topic", "docno", "relevance"]))
    else:
        topics, docs, rels = [], [], []
        judged: dict[tuple[str, str], tuple[int, int]] = {}
        for lineno, parts in _records("qrels", source, "topic iter docno grade"):
            grade = parse_ascii_int(parts[3]) if len(parts[3]) <= 40 else None
            if grade is None:
                if len(parts[3]) > 40 and parts[3].lstrip("+-").isascii() and parts[3].lstrip("+-").isdigit():
                    raise InputError("qrels", f"{source}: line {lineno}: grade {parts[3][:20]!r}... is out of range")
                raise InputError("qrels", f"{source}: line {lineno}: grade {parts[3][:40]!r} "
                                          "is not an integer (ASCII digits 0-9)")
            if abs(grade) >= 2 ** 62:
                raise InputError("qrels", f"{source}: line {lineno}: grade {parts[3]!r} is out of range")
            key = (parts[0], parts[2])
            if key in judged:
                first_line, first_grade = judged[key]
                if first_grade != grade:
                    raise InputError("qrels", f"{source}: line {lineno}: document {parts[2]!r} of topic "
                                              f"{parts[0]!r} is judged {grade}, but line {first_line} judged "
                                              f"it {first_grade} (conflicting judgements)")
                continue
            judged[key] = (lineno, grade)
            topics.append(parts[0])
            docs.append(parts[2])
            rels.append(grade)
        if not topics:
            raise InputError("qrels", f"{source}: no judgements found")
        df = pd.DataFrame({"topic": topics, "docno": docs,
                           "relevance": np.asarray(rels, dtype=np.int64)})
    return df.drop_duplicates(["topic", "docno"], keep="last").reset_index(drop=True)


def read_run(source: Any, *, name: str | None = None) -> tuple[str, pd.DataFrame]:
    """Read a TREC run (``topic Q0 docno rank score tag``).

    Returns ``(system_name, frame)``, the frame having columns ``topic``,
    ``docno``, ``score``.  The name is ``name`` if given, else the run's tag
    (6th column), else the file name.  A file holds one system: a second run
    tag is an error (split such a file into one file per tag).  ``source`` may also be a DataFrame with
    columns ``topic, docno, score`` (or ``query_id, doc_id, score``, or ``qid, docno, score``).  The rank column is ignored (trec_eval
    ranks by score).

    Parameters
    ----------
    source : path, file-like or DataFrame
        The run: a file path (plain or ``.gz``; ``-`` = stdin), an open text stream, or a frame.
    name : str, optional
        The system's name (default: the run tag, else the file name).

    Returns
    -------
    name : str
        The system's name.
    frame : pandas.DataFrame
        Columns ``topic`` (str), ``docno`` (str), ``score`` (float64), in file order.

    Examples
    --------
    >>> import io
    >>> from agreekit.ireval.metrics import read_run
    >>> name, run = read_run(io.StringIO("301 Q0 d1 1 2.5 bm25\\n301 Q0 d9 2 1.0 bm25\\n"))
    >>> name, run["docno"].tolist(), run["score"].tolist()
    ('bm25', ['d1', 'd9'], [2.5, 1.0])
    """
    if isinstance(source, pd.DataFrame):
        df = _topic_doc_frame("run", source, "score")
        try:
            df["score"] = pd.to_numeric(df["score"], errors="raise").astype(np.float64)
        except (TypeError, ValueError):
            raise InputError("run", "scores must be numbers") from None
        if not np.all(np.isfinite(df["score"].to_numpy())):
            raise InputError("run", "scores must be finite")
        tag = None
        if "tag" in source.columns and len(source):
            tag = str(source["tag"].iloc[0])
        return (name or tag or "run"), df
    topics, docs, scores = [], [], []
    tag = tag_line = None
    for lineno, parts in _records("run", source, "topic Q0 docno rank score tag"):
        score = parse_ascii_float(parts[4])
        if score is None:
            raise InputError("run", f"{source}: line {lineno}: score {parts[4][:40]!r} is not a number "
                                    "(ASCII digits 0-9)")
        if not math.isfinite(score):
            raise InputError("run", f"{source}: line {lineno}: score must be finite")
        topics.append(parts[0])
        docs.append(parts[2])
        scores.append(score)
        if tag is None:
            tag, tag_line = parts[5], lineno
        elif parts[5] != tag:
            raise InputError("run", f"{source}: line {lineno}: run tag {parts[5]!r} differs from "
                                    f"{tag!r} (line {tag_line}); a run file holds one system - split "
                                    "it into one file per tag")
    if not topics:
        raise InputError("run", f"{source}: no ranked documents found")
    if name is None:
        name = tag or Path(source).name
    return name, pd.DataFrame({"topic": topics, "docno": docs, "score": np.asarray(scores)})


def _rank_run(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    """trec_eval ranking: score desc, docno desc; drop repeated docnos; cut at depth."""
    df = run.sort_values(["topic", "score", "docno"], ascending=[True, False, False], kind="mergesort")
    df = df.drop_duplicates(["topic", "docno"], keep="first")
    df = df.assign(rank=df.groupby("topic", sort=False).cumcount() + 1)
    return df[df["rank"] <= depth]


# --------------------------------------------------------------------------- metrics


def _discount(ranks: np.ndarray, log_base: float) -> np.ndarray:
    """Original nDCG discount: 1 for i <= a, log_a(i) for i > a."""
    return np.where(ranks <= log_base, 1.0, np.log(np.maximum(ranks, 1)) / math.log(log_base))


def topic_metrics(ranked_gains: Sequence[float], ideal_gains: Sequence[float],
                  specs: Sequence[MetricSpec], *, depth: int = 1000, beta: float = 1.0,
                  log_base: float = 2.0, ndcg: str | None = None) -> list[float]:
    """Metric values of one ranked list for one topic.

    ``ranked_gains`` are the gains of the retrieved documents in rank order (0
    for non-relevant), already cut at ``depth``; ``ideal_gains`` the gains of
    all R relevant documents (any order).  Used by :func:`evaluate`; public so
    that the definitions can be checked by hand.  ``ndcg`` is deprecated, as in
    :func:`evaluate`.

    Parameters
    ----------
    ranked_gains : sequence of float
        Gains of the retrieved documents in rank order, cut at ``depth``.
    ideal_gains : sequence of float
        Gains of all relevant documents of the topic.
    specs : sequence of MetricSpec
        The metrics (:func:`parse_metric`).
    depth : int, optional
        The evaluation depth (default 1000).
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
    if ndcg is not None:
        _warn("topic_metrics(): `ndcg=` is deprecated; name the form in the metric: 'nDCG@k' "
              "(trec_eval) or 'nDCG_jk@k' (Jarvelin-Kekalainen)")
        specs = _ndcg_specs(specs, _check_ndcg(ndcg))
    g_all = np.asarray(ranked_gains, dtype=np.float64)
    gi_all = np.sort(np.asarray(ideal_gains, dtype=np.float64))[::-1]
    gi_all = gi_all[gi_all > 0]
    R = gi_all.size
    if R == 0:
        raise InputError("qrels", "topic has no relevant document; every metric is undefined")
    out = []
    for spec in specs:
        L = depth if spec.cutoff is None else min(depth, spec.cutoff)
        g = g_all[:L]
        n = g.size
        if spec.kind in ("AveP", "Q-measure"):
            if n == 0:
                out.append(0.0)
                continue
            rel = g > 0
            ranks = np.arange(1, n + 1, dtype=np.float64)
            count = np.cumsum(rel)
            if spec.kind == "AveP":
                out.append(float(np.sum(count[rel] / ranks[rel]) / R))
            else:
                cg = np.cumsum(g)
                gi = np.zeros(n)
                gi[:min(n, R)] = gi_all[:n]
                cgi = np.cumsum(gi)
                br = (beta * cg + count) / (beta * cgi + ranks)
                out.append(float(np.sum(br[rel]) / R))
            continue
        if spec.kind == "R-prec":
            out.append(float(np.count_nonzero(g_all[:R] > 0) / R))
            continue
        if spec.kind == "RR":
            hit = np.flatnonzero(g > 0)
            out.append(float(1.0 / (hit[0] + 1)) if hit.size else 0.0)
            continue
        ell = depth if spec.cutoff is None else spec.cutoff
        g = g_all[:ell]
        if spec.kind == "P":
            out.append(float(np.count_nonzero(g > 0) / ell))
        elif spec.kind == "R":
            out.append(float(np.count_nonzero(g > 0) / R))
        elif spec.kind == "nCG":
            out.append(float(g.sum() / gi_all[:ell].sum()))
        else:  # nDCG (trec_eval) or nDCG_jk
            ranks = np.arange(1, g.size + 1, dtype=np.float64)
            ranks_i = np.arange(1, min(ell, R) + 1, dtype=np.float64)
            if spec.kind == "nDCG":  # trec_eval ndcg_cut: gain / log2(rank + 1) from rank 1
                dcg = float(np.sum(g / np.log2(ranks + 1.0)))
                dcgi = float(np.sum(gi_all[:ell] / np.log2(ranks_i + 1.0)))
            else:
                dcg = float(np.sum(g / _discount(ranks, log_base)))
                dcgi = float(np.sum(gi_all[:ell] / _discount(ranks_i, log_base)))
            out.append(dcg / dcgi)
    return out


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
    if ndcg not in NDCG_FORMS:
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
        raise KeyError(f"{key!r} is not a metric of this result (metrics: {list(self)}); evaluate() returns "
                       "a dict metric name -> topics x systems DataFrame whatever `metrics` is, e.g. "
                       "res['AP']['system']")


def _gain_map(gains) -> Any:
    if gains is None:
        return None
    if not isinstance(gains, Mapping):
        raise InputError("gains", "must be a mapping grade -> gain (e.g. {1: 1, 2: 2})")
    out = {}
    for k, v in gains.items():
        try:
            out[int(k)] = float(v)
        except (TypeError, ValueError):
            raise InputError("gains", f"entry {k!r}: {v!r} must map an integer grade to a number") from None
        if not math.isfinite(out[int(k)]) or out[int(k)] < 0:
            raise InputError("gains", f"gain of grade {k!r} must be finite and >= 0")
    return out


def _as_runs(run) -> list[tuple[str, pd.DataFrame, Any]]:
    """(system name, frame, source) of every run given."""
    if isinstance(run, (str, os.PathLike, pd.DataFrame)):
        return [(*read_run(run), run)]
    if isinstance(run, Mapping):
        return [(*read_run(src, name=str(nm)), src) for nm, src in run.items()]
    if isinstance(run, Sequence):
        if len(run) == 0:
            raise InputError("run", "no run given")
        return [(*read_run(src), src) for src in run]
    raise InputError("run", f"must be a path, a DataFrame, or a list/dict of them; got {type(run).__name__}")


def _source_name(source: Any, what: str, name: str | None = None) -> str:
    """How an error names an input: its path (``<stdin>`` for ``-``), else e.g. ``run 'bm25'``."""
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    return f"{what} {name!r}" if name is not None else f"the {what} ({type(source).__name__})"


#: ids longer than this are never read as numbers by the ids rule below
_NUMERIC_ID_MAX = 64


def _numeric_id(text: str) -> Decimal | None:
    """The exact value of an id that is an ASCII decimal number (``1``, ``01``, ``+1``, ``1.0``,
    ``1e0``), else None.  Exact (:class:`decimal.Decimal`), so long digit strings that are equal
    as floats are not confused."""
    if len(text) > _NUMERIC_ID_MAX or parse_ascii_float(text, special=False) is None:
        return None
    try:
        return Decimal(text.strip())
    except (ArithmeticError, ValueError):  # pragma: no cover - the pattern admits only numbers
        return None


def _check_topic_ids(qrels_topics: Sequence[str], qrels_shown: str,
                     runs: Sequence[tuple[str, pd.DataFrame, Any]]) -> None:
    """The one rule for numeric labels, for topic ids: they are compared as text (as trec_eval
    and pytrec_eval do), so a run topic ``01`` is not the qrels topic ``1``.  Since that silently
    scores the run 0 on every such topic, a run topic that is absent from the qrels but equal to a
    qrels topic as a number is an :class:`InputError` naming both inputs and the first such id.
    A qrels file holding two topics equal only as numbers (``1`` and ``01``) is evaluated as two
    topics, as trec_eval would, with a warning."""
    known = set(qrels_topics)
    by_value: dict[Decimal, str] = {}
    for t in qrels_topics:
        v = _numeric_id(t)
        if v is None:
            continue
        first = by_value.setdefault(v, t)
        if first != t:
            warnings.warn(f"{qrels_shown}: topics {first!r} and {t!r} are equal as numbers but differ as "
                          "text; they are evaluated as two topics (ids are compared as text, as trec_eval "
                          "does)", UserWarning, stacklevel=3)
    if not by_value:
        return
    for name, df, source in runs:
        for t in pd.unique(df["topic"]):
            if t in known:
                continue
            v = _numeric_id(t)
            if v is not None and v in by_value:
                raise InputError("run", f"topic {t!r} of {_source_name(source, 'run', name)} matches topic "
                                        f"{by_value[v]!r} of {qrels_shown} only as a number: ids are compared "
                                        "as text (as trec_eval does); write the topic ids alike in both")


def evaluate(qrels: Any, run: Any, metrics: Any = ("AveP",), *,
             depth: int = 1000, gains: Mapping | None = None, beta: float = 1.0,
             log_base: float = 2.0, ndcg: str | None = None, empty_topics: str = "error",
             progress: bool | None = None) -> dict:
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
        Metric names (see module docstring): ``"AP"``, ``"P@10"``, ``"R@100"``, ``"RR"``,
        ``"Rprec"``, ``"nDCG@10"`` (trec_eval's form), ``"nDCG_jk@10"`` (Sakai's),
        ``"Q-measure"``, ``"nCG@1000"``, ...; ir_measures measure objects
        (``ir_measures.nDCG@10``) are keyed by their ``str``.
    depth : int, default 1000
        Each ranked list is cut at this many documents (the paper's L).
        P@l, nCG@l, nDCG@l without ``@l`` use l = depth.
    gains : mapping, optional
        Grade -> gain, overriding the default gain = grade (grades <= 0 and
        grades mapped to 0 are non-relevant), e.g. ``{2: 3}`` or ``{1: 0}``.
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
        names), also for a single metric (formerly a string ``metrics`` gave
        the bare DataFrame).

    Examples
    --------
    >>> import pandas as pd
    >>> from agreekit.ireval.metrics import evaluate
    >>> qrels = {"1": {"a": 1, "b": 2}, "2": {"c": 1}}
    >>> run = pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["a", "x", "y"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> evaluate(qrels, {"sys": run}, "AP")["AP"]["sys"].tolist()
    [0.5, 0.0]
    """
    single = isinstance(metrics, str) or _is_measure_object(metrics)
    entries = [metrics] if single else list(metrics)
    if not entries:
        raise InputError("metrics", "at least one metric is required")
    specs = [parse_metric(m) for m in entries]
    names = [sp.name for sp in specs]
    if len(set(names)) != len(names):
        raise InputError("metrics", "contains duplicates")
    depth = check_int("depth", depth, minimum=1)
    beta = check_float("beta", beta, minimum=0.0)
    log_base = check_float("log_base", log_base, minimum=1.0, inclusive=False)
    check_choice("empty_topics", empty_topics, ("error", "drop"))
    if ndcg is not None:
        _warn("evaluate(): `ndcg=` is deprecated; name the form in the metric: 'nDCG@k' (trec_eval, "
              "the default meaning) or 'nDCG_jk@k' (Jarvelin-Kekalainen, Sakai 2006)")
        specs = _ndcg_specs(specs, check_choice("ndcg", ndcg, NDCG_FORMS))
    gmap = _gain_map(gains)

    q = read_qrels(qrels)
    if gmap is None:
        q = q.assign(gain=np.where(q["relevance"] > 0, q["relevance"], 0).astype(np.float64))
    else:
        default = np.where(q["relevance"] > 0, q["relevance"], 0).astype(np.float64)
        q = q.assign(gain=q["relevance"].map(gmap).fillna(pd.Series(default, index=q.index))
                     .astype(np.float64))
    ideal = {t: grp["gain"].to_numpy()[grp["gain"].to_numpy() > 0] for t, grp in q.groupby("topic")}
    empty = sorted(t for t, g in ideal.items() if g.size == 0)
    if empty:
        if empty_topics == "error":
            raise InputError("qrels", f"{len(empty)} topic(s) have no relevant document (gain > 0), so "
                                      f"every metric is undefined for them: {empty[:5]}"
                                      f"{' ...' if len(empty) > 5 else ''}; pass empty_topics='drop' "
                                      "to drop them")
        warnings.warn(f"dropping {len(empty)} topic(s) without relevant documents: {empty[:5]}",
                      stacklevel=2)
    topics = [t for t in ideal if ideal[t].size > 0]
    if all(re.fullmatch(r"-?[0-9]{1,18}", t) for t in topics):  # ASCII digits ('\u00b2'.isdigit() is True)
        topics.sort(key=int)
    else:
        topics.sort()
    gain_lookup = q[q["gain"] > 0].set_index(["topic", "docno"])["gain"]

    runs = _as_runs(run)
    _check_topic_ids(list(pd.unique(q["topic"])), _source_name(qrels, "qrels"), runs)
    sys_names = [nm for nm, _, _ in runs]
    if len(set(sys_names)) != len(sys_names):
        dup = sorted({n for n in sys_names if sys_names.count(n) > 1})
        raise InputError("run", f"duplicate system names {dup}; pass a dict name -> run")
    values = np.zeros((len(specs), len(topics), len(runs)))
    topic_pos = {t: i for i, t in enumerate(topics)}
    for j, (_, df, _) in _progress(enumerate(runs), progress, total=len(runs), desc="evaluate: runs"):
        ranked = _rank_run(df[df["topic"].isin(topic_pos)], depth)
        g = gain_lookup.reindex(pd.MultiIndex.from_arrays([ranked["topic"], ranked["docno"]]))
        ranked = ranked.assign(gain=g.fillna(0.0).to_numpy())
        answered = set()
        for t, grp in ranked.groupby("topic", sort=False):
            answered.add(t)
            values[:, topic_pos[t], j] = topic_metrics(grp["gain"].to_numpy(), ideal[t], specs,
                                                       depth=depth, beta=beta, log_base=log_base)
        # topics the run did not answer keep the value 0 (trec_eval -c)
    index = pd.Index(topics, name="topic")
    return _MetricScores(
        (spec.name, pd.DataFrame(values[k], index=index, columns=pd.Index(sys_names, name="system")))
        for k, spec in enumerate(specs))


# --------------------------------------------------------------------------- score matrices

_TOPIC_HEADERS = {"topic", "topics", "qid", "query", "query_id", "topic_id", "id", ""}
#: header names of a topic-id column: topic, Topic ID, qid, qno, QNo, QueryID, query_id, qid_num, tid, num, ...
_TOPIC_HEADER_RE = re.compile(
    r"(?:q|qry|query|queries|topic|topics|qid|qids|qno|qnum|tid|id|ids|num|number|no|nr)"
    r"(?:[\s_.\-]*(?:id|ids|no|nr|num|number|name|s))*", re.IGNORECASE | re.ASCII)
TOPIC_COLUMN_CHOICES = ("auto", "first", "none")


def _first_column_is_topics(df: pd.DataFrame, topic_column: str, parameter: str, shown: str) -> bool:
    """Is the first CSV column the topic ids (``topic_column`` "auto": by its name or its values)?

    The rule (a numeric ``qno`` column is not a system): the first column is the
    topic column if its header is a topic-id name (:data:`_TOPIC_HEADER_RE`), or if its values are
    not all numbers.  A first column of distinct integers under any other name is ambiguous — topic
    ids or a system with integral scores? — and an error asking for ``topic_column``.
    """

    if topic_column == "first":
        return True
    if topic_column == "none":
        return False
    first = str(df.columns[0]).strip()
    cells = df.iloc[:, 0].tolist()
    if first == "" or _TOPIC_HEADER_RE.fullmatch(first):
        frac = next((c for c in cells if parse_ascii_float(c) is not None and not is_ascii_int(c)), None)
        if frac is not None and all(parse_ascii_float(c) is not None for c in cells):  # a topic-looking header (Q, no, nr) over scores
            raise InputError(parameter, f"{shown}: the first column {first!r} is named like topic ids but holds "
                                        f"scores ({frac!r}); pass topic_column='none' (--topic-column none) if it "
                                        "is a system, or give the topic ids")
        return True
    if not cells:
        return False
    if all(c != "" and parse_ascii_float(c) is None for c in cells):
        return True  # topic ids such as q1 (a single typo in a system column is an error below)
    if (len(cells) >= 2 and all(is_ascii_int(c) for c in cells) and len({int(c) for c in cells}) == len(cells)
            and min(int(c) for c in cells) >= 1):
        raise InputError(parameter, f"{shown}: the first column {first!r} holds distinct integers "
                                    f"({cells[0]}, {cells[1]}, ...): topic ids or a system's scores? Name it "
                                    "'topic' or pass topic_column='first' (CLI --topic-column first) if they "
                                    "are topic ids, topic_column='none' (--topic-column none) if it is a system")
    return False


#: largest |score| accepted: squared differences summed over topics stay finite in float64
_SCORE_LIMIT = 1e150


def check_scores(scores: Any, *, parameter: str = "scores", min_topics: int = 2,
                 min_systems: int = 2) -> pd.DataFrame:
    """Validate a topics x systems score matrix and return it as a float DataFrame.

    Accepts a DataFrame (index = topics, columns = systems) or a 2-D array
    (topics and systems numbered from 1).  Rejects NaN/inf, non-numeric
    values, scores beyond ±1e150 (their squared differences overflow), duplicate topic or
    system labels and fewer than ``min_topics``
    topics or ``min_systems`` systems, naming ``parameter``.
    """
    if isinstance(scores, pd.DataFrame):
        df = scores
    else:
        arr = float_matrix(parameter, scores, what="topics x systems matrix")
        df = pd.DataFrame(arr, index=pd.RangeIndex(1, arr.shape[0] + 1, name="topic"),
                          columns=[f"sys{j + 1}" for j in range(arr.shape[1])])
    try:
        values = df.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(parameter, "must contain only numbers") from None
    if values.ndim != 2:
        raise InputError(parameter, "must be 2-D (topics x systems)")
    n, s = values.shape
    if n < min_topics:
        raise InputError(parameter, f"must have at least {min_topics} topics (rows); got {n}")
    if s < min_systems:
        raise InputError(parameter, f"must have at least {min_systems} systems (columns); got {s}")
    if not np.all(np.isfinite(values)):
        bad = np.argwhere(~np.isfinite(values))[0]
        raise InputError(parameter, f"contains NaN or infinite values (first at topic {df.index[bad[0]]!r}, "
                                    f"system {df.columns[bad[1]]!r})")
    big = float(np.max(np.abs(values)))
    if big > _SCORE_LIMIT:
        bad = np.argwhere(np.abs(values) == big)[0]
        raise InputError(parameter, f"has a score {values[bad[0], bad[1]]:.3g} (topic {df.index[bad[0]]!r}, system "
                                    f"{df.columns[bad[1]]!r}) beyond ±{_SCORE_LIMIT:.0e}: differences, means "
                                    "and squared differences of such scores overflow float64")
    if df.index.has_duplicates:
        raise InputError(parameter, "has duplicate topic labels")
    if df.columns.has_duplicates:
        raise InputError(parameter, "has duplicate system labels")
    return pd.DataFrame(values, index=df.index.copy(), columns=df.columns.copy())


def align_scores(reference: pd.DataFrame, other: pd.DataFrame, *, names=("scores_a", "scores_b")) -> pd.DataFrame:
    """Return ``other`` reordered to ``reference``'s topics and systems (by label), or raise.

    Aligning by label, never by position, avoids silently pairing the wrong
    topics or systems; differing topic or system *sets* are an error.

    Parameters
    ----------
    reference : pandas.DataFrame
        Topics × systems scores whose row and column order is kept.
    other : pandas.DataFrame
        Scores of the same topics and systems, in any order.
    names : tuple of str, optional
        How errors name the two matrices (default ``("scores_a", "scores_b")``).

    Returns
    -------
    pandas.DataFrame
        ``other`` with ``reference``'s index and columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreekit.ireval.metrics import align_scores
    >>> a = pd.DataFrame({"A": [0.1, 0.3], "B": [0.2, 0.0]}, index=["301", "302"])
    >>> align_scores(a, a.loc[["302", "301"], ["B", "A"]]).equals(a)
    True
    """
    for axis, what in ((0, "topics"), (1, "systems")):
        a = reference.axes[axis]
        b = other.axes[axis]
        if set(map(str, a)) != set(map(str, b)) or len(a) != len(b):
            only_a = sorted(set(map(str, a)) - set(map(str, b)))
            only_b = sorted(set(map(str, b)) - set(map(str, a)))
            values = {v: t for t in only_a if (v := _numeric_id(t)) is not None}
            same = next(((t, values[v]) for t in only_b if (v := _numeric_id(t)) is not None and v in values), None)
            hint = "" if same is None else (f"; {same[0]!r} of {names[1]} equals {same[1]!r} of {names[0]} only as "
                                            "a number: labels are compared as text")
            raise InputError(names[1], f"has different {what} than `{names[0]}` "
                                       f"(only in {names[0]}: {only_a[:5]}; only in {names[1]}: {only_b[:5]}{hint})")
    o = other.copy()
    o.index = o.index.map(str)
    o.columns = o.columns.map(str)
    o = o.loc[[str(t) for t in reference.index], [str(c) for c in reference.columns]]
    o.index = reference.index
    o.columns = reference.columns
    return o


def load_scores(path: str | os.PathLike, *, parameter: str = "scores", topic_column: str = "auto") -> pd.DataFrame:
    """Load a topics x systems score matrix from CSV.

    The header row names the systems (non-empty, distinct).  If the first
    column is named like a topic id (``topic``, ``qid``, ``qno``, ``QueryID``, ``query_id``,
    ``qid_num``, empty, ...) or holds only non-numeric values it becomes the index; otherwise rows
    are topics numbered 1..n (the layout of Urbano et al.'s TREC matrices).  A first column of
    distinct positive integers under another name is ambiguous and an error unless
    ``topic_column`` says what it is: ``"first"`` (the first column is the topic ids) or
    ``"none"`` (every column is a system).  Numbers are ASCII decimal numbers.

    Parameters
    ----------
    path : path or file-like
        The CSV file (``-`` = stdin) or an open text stream.
    parameter : str, default "scores"
        How errors name the input (e.g. a CLI argument).
    topic_column : {"auto", "first", "none"}
        Whether the first column holds the topic ids (``"auto"``: decided by its name and
        values, as above).

    Returns
    -------
    pandas.DataFrame
        Topics x systems float scores, index ``topic`` (the ids as text, or 1..n), columns
        ``system``.

    Examples
    --------
    A ``qno`` column is the topic ids; without a topic column the rows are numbered:

    >>> import io
    >>> from agreekit.ireval.metrics import load_scores
    >>> load_scores(io.StringIO("qno,A,B\\n301,0.1,0.2\\n302,0.3,0.0\\n"))
    system    A    B
    topic
    301     0.1  0.2
    302     0.3  0.0
    >>> load_scores(io.StringIO("A,B\\n0.1,0.2\\n0.3,0.0\\n")).index.tolist()
    [1, 2]
    """
    table = read_csv_rows(path, parameter=parameter, empty_header="first", what="system")
    shown = table.source

    topic_column = check_choice("topic_column", topic_column, TOPIC_COLUMN_CHOICES)
    df = pd.DataFrame(table.rows, columns=table.header, dtype=str)
    first = str(df.columns[0])
    use_index = _first_column_is_topics(df, topic_column, parameter, shown)
    if use_index and df.shape[1] < 2:
        hint = " (is the delimiter ','?)" if any(c in first for c in ";\t|") else ""
        raise InputError(parameter, f"{shown} has no system columns besides the topic column {first!r}{hint}")
    if use_index:
        df = df.set_index(df.columns[0])
        df.index.name = "topic"
        if df.index.has_duplicates:
            dup = df.index[df.index.duplicated()][0]
            raise InputError(parameter, f"{shown}: topic {dup!r} appears twice")
    else:
        df.index = pd.RangeIndex(1, len(df) + 1, name="topic")
    df.columns = pd.Index([str(c) for c in df.columns], name="system")
    num = df.apply(lambda c: c.map(lambda v: np.nan if (f := parse_ascii_float(v)) is None else f)
                   ).astype(np.float64)
    bad = num.isna() & df.ne("").to_numpy() & ~df.isin(["nan", "NaN", "NA"]).to_numpy()
    if bad.to_numpy().any():
        r, c = np.argwhere(bad.to_numpy())[0]
        raise InputError(parameter, f"{shown} line {table.lines[r]}: non-numeric value {df.iat[r, c]!r} "
                                    f"at topic {df.index[r]!r}, system {df.columns[c]!r}")
    if num.shape[0] and num.shape[1] and not np.all(np.isfinite(num.to_numpy(dtype=np.float64))):
        r, c = np.argwhere(~np.isfinite(num.to_numpy(dtype=np.float64)))[0]
        what = "missing value" if df.iat[r, c] == "" else f"NaN or infinite value {df.iat[r, c]!r}"
        raise InputError(parameter, f"{shown} line {table.lines[r]}: {what} at topic {df.index[r]!r}, "
                                    f"system {df.columns[c]!r}")
    return check_scores(num, parameter=parameter)


# --------------------------------------------------------------------------- summaries


def round_significant(x: Any, digits: int = 4) -> np.ndarray:
    """Round to ``digits`` significant figures (Sakai's per-topic values before a GM).

    Parameters
    ----------
    x : array_like
        Values to round.
    digits : int, optional
        Significant figures kept (default 4).

    Returns
    -------
    numpy.ndarray
        The rounded values (float64).

    Examples
    --------
    >>> from agreekit.ireval.metrics import round_significant
    >>> round_significant([0.123456, 12.34567]).tolist()
    [0.1235, 12.35]
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(x == 0, 0, np.floor(np.log10(np.abs(np.where(x == 0, 1, x)))))
    factor = 10.0 ** (digits - 1 - mag)
    return np.round(x * factor) / factor


def arithmetic_mean(x: Any, axis: int = 0) -> np.ndarray:
    """Arithmetic mean (the default summary statistic).

    Parameters
    ----------
    x : array_like
        Scores (e.g. topics × systems).
    axis : int, optional
        The axis averaged over (default 0: over topics).

    Returns
    -------
    numpy.ndarray
        The means.

    Examples
    --------
    >>> from agreekit.ireval.metrics import arithmetic_mean
    >>> arithmetic_mean([[0.1, 0.2], [0.3, 0.4]]).round(6).tolist()
    [0.2, 0.3]
    """
    return np.mean(np.asarray(x, dtype=np.float64), axis=axis)


def geometric_mean(x: Any, axis: int = 0, *, offset: float = GM_OFFSET) -> np.ndarray:
    """Sakai's geometric mean, Eq. 7: ``exp(mean(ln(x + offset))) - offset``.

    Natural log; the offset lets zero values in.  This is *not* trec_eval's
    ``gm_map`` (which floors at 1e-5 and does not subtract the offset).

    Parameters
    ----------
    x : array_like
        Non-negative scores (e.g. topics × systems).
    axis : int, optional
        The axis averaged over (default 0: over topics).
    offset : float, optional
        Added before the log and subtracted after (default 1e-5).

    Returns
    -------
    numpy.ndarray
        The geometric means.

    Examples
    --------
    >>> from agreekit.ireval.metrics import geometric_mean
    >>> round(float(geometric_mean([0.25, 1.0])), 6)
    0.500002
    """
    x = np.asarray(x, dtype=np.float64)
    if np.any(x + offset <= 0):
        raise InputError("x", f"geometric mean needs values > -offset ({-offset})")
    return np.exp(np.mean(np.log(x + offset), axis=axis)) - offset
