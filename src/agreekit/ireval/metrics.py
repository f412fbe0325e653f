"""IR effectiveness metrics from TREC qrels and runs, and topic x system score matrices.

This module turns TREC-format relevance judgements ("qrels") and ranked runs
into per-topic score matrices (topics x systems), the input of the bootstrap
meta-evaluation in :mod:`agreekit.ireval.bootstrap`.  The metrics are those of
Sakai (2006), Eqs. 1-7, and the usual trec_eval ones; a name that ir_measures /
trec_eval also knows gives ir_measures' number (``AP``, ``P@k``, ``nDCG@k``,
``R@k``, ``RR``, ``Rprec``, ``bpref``, ``Judged@k``, ``Success@k``; ir_measures
measure objects, ir_measures' parameters such as ``P(rel=2)@10`` and trec_eval's
names such as ``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank`` are accepted too).
Every name comes from one registry, :data:`METRICS`:

==============  ============================================================
name            definition (R = number of relevant documents of the topic)
==============  ============================================================
``AveP``        (1/R) sum_r isrel(r) P(r)                               (Eq. 1)
``P@l``         count(l) / l, the denominator stays l for short lists    (Eq. 2)
``nCG@l``       cg(l) / cgI(l)                                           (Eq. 3)
``nDCG@l``      trec_eval's ``ndcg_cut.l`` (= ir_measures ``nDCG@l``): gain
                g(i) / log2(i + 1) from rank 1, ideal list cut at l
``nDCG_jk@l``   Jarvelin-Kekalainen form used by Sakai (2006): dcg(l) / dcgI(l),
                gain g(i) / log_a(i) for i > a, a = 2                    (Eq. 4)
``Q-measure``   (1/R) sum_r isrel(r) (beta cg(r) + count(r)) / (beta cgI(r) + r)
                with beta = 1                                        (Eqs. 5-6)
``R-prec``      count(R) / R, precision at rank R (trec_eval ``Rprec``)
``R@l``         count(l) / R, recall at cut-off l (trec_eval ``recall_l``)
``RR``          1 / rank of the first relevant document, 0 if none (``RR@l``:
                within the top l; trec_eval ``recip_rank``)
``bpref``       trec_eval's bpref: (1/R) sum over relevant retrieved r of
                1 - min(n_r, R) / min(R, N), n_r the judged non-relevant documents
                ranked above r, N the topic's judged non-relevant documents
``Judged@l``    judged documents among the top l / min(l, retrieved) (ir_measures)
``Success@l``   1 if a relevant document is among the top l, else 0
==============  ============================================================

``AveP@l`` / ``Q-measure@l`` evaluate only the top l documents; ``PDoc@l`` is
an alias of ``P@l``, ``AP`` of ``AveP``, ``Q`` of ``Q-measure``, ``Rprec``
of ``R-prec`` and ``Bpref`` of ``bpref``.  ``rel=k`` (``P(rel=2)@10``, ``AP(rel=2)``,
``R``, ``RR``, ``Rprec``, ``bpref``, ``Success``) counts a document as relevant iff its
grade is >= k, as ir_measures and trec_eval's ``-l k`` do (a topic without such a
document scores 0).  The geometric-mean variants (G_AveP, G_Q-measure) use the same
per-topic values and differ only in the summary, :func:`geometric_mean` (Eq. 7).
:data:`GM_OFFSET` (1e-5) is the offset of that geometric mean.

nDCG comes in two forms, each with its own name:

* ``nDCG@k``: trec_eval's ``ndcg_cut.k`` (= ir_measures' ``nDCG@k``) - linear
  gain divided by log2(i + 1) from rank 1, the ideal list cut at k too;
* ``nDCG_jk@k``: Jarvelin and Kekalainen (2002) as used by Sakai (2006) - ranks
  i <= a (a = ``log_base`` = 2) undiscounted, rank i > a divided by log_a(i).

The ``ndcg=`` option that chose the form of a bare ``nDCG@k`` is deprecated (if given
it still decides what ``nDCG@k`` means).  Neither form is gdeval's TREC Web nDCG
(exponential gain 2^g - 1).

Conventions:

* a document is relevant iff its gain is > 0; unjudged documents are
  non-relevant; by default the gain of a judged document is its (integer)
  grade, so TREC grades 1/2 give gains 1/2; ``gains={...}`` overrides the
  gain of the grades it names;
* qrels and run frames may use these columns (``topic``, ``docno``,
  ``relevance`` / ``score``), ir_measures' (``query_id``, ``doc_id``,
  ``relevance`` / ``score``) or PyTerrier's (``qid``, ``docno``, ``label`` /
  ``score``);
* runs are ranked as trec_eval does: by score descending, ties by docno
  descending (byte order); a docno repeated within a topic is kept at its
  first (best) position only; every retrieved document is used unless
  ``depth`` cuts the lists;
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

The implementation is split into private modules: the registry (``_registry``), the
readers (``_reading``), the per-topic kernels over sorted arrays (``_kernels_ir``),
:func:`evaluate` (``_evaluate``), score matrices (``_scores``) and summaries
(``_summaries``); every name importable from here before the split still is.

References
----------
T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
:doi:`10.1145/1148170.1148261`

K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
ACM Transactions on Information Systems 20(4), 422-446, 2002. :doi:`10.1145/582415.582418`

C. Buckley and E. M. Voorhees, "Retrieval evaluation with incomplete information",
SIGIR 2004, pp. 25-32. :doi:`10.1145/1008992.1009000`
"""

from __future__ import annotations

from agreekit._api import _warn
from agreekit.ireval._evaluate import evaluate, topic_metrics
from agreekit.ireval._reading import read_qrels, read_run
from agreekit.ireval._registry import METRICS, MetricDefinition, MetricSpec, parse_metric
from agreekit.ireval._scores import align_scores, check_scores, load_scores  # noqa: F401 (metaeval validates with it)
from agreekit.ireval._summaries import GM_OFFSET, arithmetic_mean, geometric_mean, round_significant

__all__ = [
    "GM_OFFSET",
    "METRICS",
    "MetricDefinition",
    "MetricSpec",
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

#: helpers that had no underscore before the split: old name -> (module, new name)
_RENAMED = {
    "NDCG_FORMS": ("agreekit.ireval._evaluate", "_NDCG_FORMS"),
    "TOPIC_COLUMN_CHOICES": ("agreekit.ireval._scores", "_TOPIC_COLUMN_CHOICES"),
}


def __getattr__(name: str):
    """The old spellings of helpers now private, with a DeprecationWarning (removed next release)."""
    if name in _RENAMED:
        import importlib

        module, new = _RENAMED[name]
        _warn(f"agreekit.ireval.metrics.{name} is private now ({new}); it is not part of the public API", stacklevel=2)
        return getattr(importlib.import_module(module), new)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
