"""The one registry of IR metrics: name -> definition, parameters and spellings.

Everything that knows metric names is built from :data:`METRICS`: the parser
(:func:`parse_metric`, with ir_measures' ``Name(param=v)@k`` syntax and trec_eval's
``name_k`` names), the error message that lists what is supported (with a "did you mean"),
the dispatch of :func:`agreekit.ireval.metrics.evaluate` (each entry's ``compute``) and the
CLI's help.  Adding a metric is one :class:`MetricDefinition` in :data:`METRICS` (its
kernel in :mod:`agreekit.ireval._kernels_ir`) and its tests.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_flag, check_float, real_array
from agreekit.ireval import _kernels_ir as _kir


@dataclass(frozen=True)
class MetricSpec(ResultBase):
    """A parsed metric name, what :func:`parse_metric` returns.

    Parameters
    ----------
    name : str
        The name as given (the key of :func:`~agreekit.ireval.evaluate`'s result).
    kind : str
        A key of :data:`agreekit.ireval.METRICS` (``"AveP"``, ``"P"``, ``"nDCG"``, ...).
    cutoff : int or None
        The ``@k`` (None without one).
    rel : int or None, optional
        ir_measures' / trec_eval's relevance level: None (default) counts a document as relevant
        iff its gain is > 0, ``rel=k`` iff its grade is >= k.

    Examples
    --------
    >>> from agreekit.ireval import MetricSpec, parse_metric
    >>> parse_metric("AP(rel=2)") == MetricSpec("AP(rel=2)", "AveP", None, 2)
    True
    """

    name: str
    kind: str
    cutoff: int | None
    rel: int | None = None


@dataclass(frozen=True)
class MetricDefinition(ResultBase):
    """One IR metric of the registry :data:`agreekit.ireval.METRICS`.

    Parameters
    ----------
    kind : str
        The canonical name (``"AveP"``, ``"nDCG"``, ...).
    compute : callable
        ``compute(lists, spec)``: the per-topic values (a float array over the topics of the
        ranked lists ``lists``) of the metric ``spec`` (a :class:`MetricSpec`).
    doc : str
        The definition in one line.
    aliases : tuple of str, optional
        Other spellings of ``kind`` (``("AP",)`` for ``"AveP"``).
    cutoff : {"optional", "forbidden"}, optional
        Whether ``@k`` is allowed (default ``"optional"``).
    params : tuple of str, optional
        The ir_measures parameters accepted besides ``cutoff`` (``("rel",)``).
    trec_eval : tuple of str, optional
        The trec_eval names (``"{k}"`` stands for the cut-off: ``"P_{k}"``).
    needs_judgements : bool, optional
        Whether the metric needs the grade of every retrieved document, not only its gain.

    Examples
    --------
    >>> from agreekit.ireval import METRICS
    >>> METRICS["AveP"].aliases, METRICS["AveP"].trec_eval
    (('AP',), ('map', 'map_cut_{k}'))
    >>> sorted(METRICS["P"].spellings)
    ['P', 'PDoc']
    """

    kind: str
    compute: Callable[..., Any] = field(repr=False)
    doc: str
    aliases: tuple[str, ...] = ()
    cutoff: str = "optional"
    params: tuple[str, ...] = ()
    trec_eval: tuple[str, ...] = ()
    needs_judgements: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        """``kind`` and its aliases."""
        return (self.kind, *self.aliases)


def _registry(*defs: MetricDefinition) -> Mapping[str, MetricDefinition]:
    return MappingProxyType({d.kind: d for d in defs})


#: the IR metrics: kind -> :class:`MetricDefinition` (read-only)
METRICS: Mapping[str, MetricDefinition] = _registry(
    MetricDefinition(
        "AveP",
        _kir.average_precision,
        "average precision, (1/R) sum_r isrel(r) P(r)",
        aliases=("AP",),
        params=("rel",),
        trec_eval=("map", "map_cut_{k}"),
    ),
    MetricDefinition(
        "P",
        _kir.precision,
        "precision at k, count(k) / k (without @k: at depth, or "
        "relevant retrieved / retrieved when every document is used)",
        aliases=("PDoc",),
        params=("rel",),
        trec_eval=("P_{k}",),
    ),
    MetricDefinition("R", _kir.recall, "recall at k, count(k) / R", params=("rel",), trec_eval=("recall_{k}",)),
    MetricDefinition(
        "RR",
        _kir.reciprocal_rank,
        "1 / rank of the first relevant document (0 if none)",
        params=("rel",),
        trec_eval=("recip_rank",),
    ),
    MetricDefinition(
        "R-prec",
        _kir.r_precision,
        "precision at rank R",
        aliases=("Rprec",),
        cutoff="forbidden",
        params=("rel",),
        trec_eval=("Rprec",),
    ),
    MetricDefinition(
        "nDCG",
        _kir.ndcg_trec,
        "trec_eval's ndcg_cut: gain / log2(rank + 1), ideal list cut at k",
        trec_eval=("ndcg_cut_{k}", "ndcg"),
    ),
    MetricDefinition(
        "nDCG_jk",
        _kir.ndcg_jk,
        "Jarvelin-Kekalainen nDCG as used by Sakai (2006): ranks <= a undiscounted, rank i > a divided by log_a(i)",
    ),
    MetricDefinition("nCG", _kir.ncg, "normalized cumulated gain, cg(k) / cgI(k)"),
    MetricDefinition(
        "Q-measure",
        _kir.q_measure,
        "Sakai's Q-measure, (1/R) sum_r isrel(r) (beta cg(r) + count(r)) / (beta cgI(r) + r)",
        aliases=("Q",),
    ),
    MetricDefinition(
        "bpref",
        _kir.bpref,
        "trec_eval's bpref (Buckley and Voorhees 2004)",
        aliases=("Bpref",),
        cutoff="forbidden",
        params=("rel",),
        trec_eval=("bpref",),
        needs_judgements=True,
    ),
    MetricDefinition("Judged", _kir.judged, "fraction of the top k documents that are judged", needs_judgements=True),
    MetricDefinition(
        "Success",
        _kir.success,
        "1 if a relevant document is in the top k, else 0",
        params=("rel",),
        trec_eval=("success_{k}",),
    ),
)

#: spelling (kind or alias) -> kind
_SPELLINGS = {s: d.kind for d in METRICS.values() for s in d.spellings}
_NAMES = "|".join(re.escape(s) for s in sorted(_SPELLINGS, key=len, reverse=True))
#: ``Name``, ``Name@k``, ``Name(param=value, ...)``, ``Name(param=value)@k``
_METRIC_RE = re.compile(rf"^({_NAMES})(?:\(([^()]*)\))?(?:@([0-9]{{1,18}}))?$")
_PARAM_RE = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*([+-]?[0-9]{1,18})\s*$")


def _trec_patterns() -> list[tuple[re.Pattern, str, bool]]:
    """(pattern, kind, takes a cut-off) of every trec_eval name (``P_10`` and ``P.10`` alike)."""
    out = []
    for d in METRICS.values():
        for t in d.trec_eval:
            if "{k}" in t:
                stem = re.escape(t.replace("_{k}", ""))
                out.append((re.compile(rf"^{stem}[._]([0-9]{{1,18}})$"), d.kind, True))
            else:
                out.append((re.compile(rf"^{re.escape(t)}$"), d.kind, False))
    return out


_TREC = _trec_patterns()


def supported_text() -> str:
    """The supported spellings, as error messages and the CLI's help list them."""
    parts = []
    for d in METRICS.values():
        k = "" if d.cutoff == "forbidden" else "@k"
        alias = f" ({', '.join(d.aliases)})" if d.aliases else ""
        parts.append(f"{d.kind}{k}{alias}")
    return ", ".join(parts)


def _all_spellings() -> list[str]:
    """Every accepted bare name: the kinds, their aliases and the trec_eval names (``P_k``)."""
    return list(_SPELLINGS) + [t.replace("{k}", "k") for d in METRICS.values() for t in d.trec_eval]


def _did_you_mean(text: str) -> str:
    """``; did you mean 'nDCG@10'?`` for a misspelt name (difflib), else ``""``.  Only suggestions
    that parse with the rest of what was typed (``@10``, ``(rel=2)``) are offered."""
    head = re.split(r"[@(]", text, maxsplit=1)[0]
    tail = text[len(head) :]
    names = [n for n in _all_spellings() if not n.endswith("_k")]

    def parses(candidate: str) -> bool:
        try:
            _parse(candidate, candidate, suggest=False)
        except InputError:
            return False
        return True

    close = [c for c in difflib.get_close_matches(head, names, n=6, cutoff=0.6) if parses(c + tail)]
    if not close:  # a case slip: 'ndcg@10', 'ap'
        lower = difflib.get_close_matches(head.lower(), sorted({n.lower() for n in names}), n=3, cutoff=0.6)
        close = [n for low in lower for n in names if n.lower() == low and parses(n + tail)]
    close = list(dict.fromkeys(close))[:3]
    if not close:
        return ""
    return f"; did you mean {' or '.join(repr(c + tail) for c in close)}?"


def _is_measure_object(obj) -> bool:
    """An ir_measures measure (``ir_measures.nDCG@10``): its ``str`` is the ir_measures name."""
    return type(obj).__module__.split(".")[0] == "ir_measures" or hasattr(obj, "SUPPORTED_PARAMS")


def _spec(name: str, kind: str, cutoff: int | None, rel: int | None) -> MetricSpec:
    d = METRICS[kind]
    if cutoff is not None and d.cutoff == "forbidden":
        raise InputError(
            "metrics", f"{name!r}: {kind} takes no cut-off" + (" (its cut-off is R)" if kind == "R-prec" else "")
        )
    if cutoff is not None and cutoff < 1:
        raise InputError("metrics", f"cut-off of {name!r} must be >= 1")
    if rel is not None and rel < 1:
        raise InputError("metrics", f"{name!r}: rel must be >= 1 (the lowest grade counted as relevant)")
    return MetricSpec(name=name, kind=kind, cutoff=cutoff, rel=rel)


def parse_metric(name: Any) -> MetricSpec:
    """Parse a metric name such as ``"AP"``, ``"P@10"``, ``"nDCG@10"``, ``"P(rel=2)@10"`` or ``"map"``.

    Three spellings are understood, all listed in the registry
    :data:`agreekit.ireval.METRICS`:

    * this library's and ir_measures' names with an optional cut-off: ``AP``, ``P@10``,
      ``nDCG@10``, ``R@100``, ``RR``, ``Rprec``, ``bpref``, ``Judged@10``, ``Success@10``,
      ``nDCG_jk@10``, ``Q-measure``, ``nCG@100``;
    * ir_measures' parameters: ``P(rel=2)@10``, ``AP(rel=2)``, ``nDCG(cutoff=10)``,
      ``R(rel=2)@100``, ``RR(rel=2)`` (``rel=k``: a document is relevant iff its grade is
      >= k; ``cutoff`` = ``@k``);
    * trec_eval's names: ``map``, ``map_cut_10``, ``P_10``, ``recall_100``, ``ndcg_cut_10``,
      ``ndcg``, ``recip_rank``, ``Rprec``, ``bpref``, ``success_10`` (``P.10`` too).

    ``name`` may also be an ir_measures measure object (``ir_measures.nDCG@10``); its
    ``str`` is parsed.  A measure or parameter this module does not compute is an
    :class:`~agreekit.InputError` naming it (with the closest supported names).

    Parameters
    ----------
    name : str or ir_measures measure
        The metric's name.

    Returns
    -------
    MetricSpec
        ``name`` (as given), ``kind`` (a key of the registry), ``cutoff`` (None without
        ``@k``) and ``rel`` (None without ``rel=``).

    Examples
    --------
    >>> parse_metric("nDCG@100")
    MetricSpec(name='nDCG@100', kind='nDCG', cutoff=100, rel=None)
    >>> parse_metric("P(rel=2)@10")
    MetricSpec(name='P(rel=2)@10', kind='P', cutoff=10, rel=2)
    >>> parse_metric("ndcg_cut_10").kind, parse_metric("map").kind
    ('nDCG', 'AveP')
    """
    if not isinstance(name, str):
        if not _is_measure_object(name):
            raise InputError("metrics", f"entries must be metric names or ir_measures measures; got {name!r}")
        name = str(name)
    return _parse(name, name.strip())


def _parse(name: str, text: str, *, suggest: bool = True) -> MetricSpec:
    """:func:`parse_metric` of the stripped ``text`` (``suggest``: a "did you mean" on failure)."""
    for pattern, kind, with_cutoff in _TREC:
        m = pattern.match(text)
        if m is not None:
            return _spec(name, kind, int(m.group(1)) if with_cutoff else None, None)
    m = _METRIC_RE.match(text)
    if m is None:
        hint = _did_you_mean(text) if suggest else ""
        raise InputError(
            "metrics",
            f"unsupported metric {name!r}{hint} (supported: "
            f"{supported_text()}; ir_measures parameters such as P(rel=2)@10 and "
            "trec_eval names such as map, P_10, ndcg_cut_10 are accepted)",
        )
    kind = _SPELLINGS[m.group(1)]
    cutoff = None if m.group(3) is None else int(m.group(3))
    rel = None
    if m.group(2) is not None:
        allowed = METRICS[kind].params + (() if METRICS[kind].cutoff == "forbidden" else ("cutoff",))
        seen = set()
        for item in filter(None, (p.strip() for p in m.group(2).split(","))):
            pm = _PARAM_RE.match(item)
            if pm is None or pm.group(1) not in allowed:
                raise InputError(
                    "metrics",
                    f"unsupported metric {name!r}: parameter {item!r} of {kind} is not "
                    f"computed here (supported parameters: {', '.join(allowed) or 'none'})",
                )
            key, value = pm.group(1), int(pm.group(2))
            if key in seen:
                raise InputError("metrics", f"{name!r}: parameter {key!r} given twice")
            seen.add(key)
            if key == "rel":
                rel = value
            elif cutoff is not None:
                raise InputError("metrics", f"{name!r}: give the cut-off once (cutoff= or @k)")
            else:
                cutoff = value
    return _spec(name, kind, cutoff, rel)


# ----------------------------------------------------------------------------- public-entry checks


def _iv_evaluate(*, metrics: Any, progress: Any) -> None:
    """The options of :func:`agreekit.ireval.evaluate` that its body would otherwise trip over."""

    if not (isinstance(metrics, str) or _is_measure_object(metrics)):
        if (
            isinstance(metrics, (np.ndarray, np.ma.MaskedArray))
            and metrics.ndim != 1
            or not isinstance(metrics, Iterable)
            or isinstance(metrics, (bytes, Mapping))
        ):
            raise InputError(
                "metrics",
                f"must be a metric name, an ir_measures measure or a sequence of them; got {type(metrics).__name__}",
            )
    check_flag("progress", progress, allow_none=True)


def _iv_topic_metrics(ranked_gains: Any, ideal_gains: Any, specs: Any, beta: Any, log_base: Any) -> tuple:
    """:func:`agreekit.ireval.metrics.topic_metrics`'s inputs checked: (gains, positive ideal gains sorted
    in decreasing order, specs as a list)."""

    check_float("beta", beta, minimum=0.0)
    check_float("log_base", log_base, minimum=1.0, inclusive=False)
    g = real_array("ranked_gains", ranked_gains, min_ndim=1, max_ndim=1)
    gi = real_array("ideal_gains", ideal_gains, min_ndim=1, max_ndim=1)
    gi = np.sort(gi)[::-1]
    gi = gi[gi > 0]
    if gi.size == 0:
        raise InputError(
            "ideal_gains", "holds no positive gain (the topic has no relevant document): every metric is undefined"
        )
    if isinstance(specs, MetricSpec) or isinstance(specs, (str, bytes, Mapping)) or not isinstance(specs, Iterable):
        raise InputError("specs", f"must be a sequence of metrics from parse_metric(); got {type(specs).__name__}")
    specs = list(specs)
    for sp in specs:
        if not isinstance(sp, MetricSpec):
            raise InputError(
                "specs", f"must hold metrics from parse_metric() (e.g. parse_metric('AP')); got {type(sp).__name__}"
            )
    return g, gi, specs
