"""Small example data sets shipped inside the package, each with a loader.

Every data set is a file (or a few files) under ``agreekit/datasets/data/``, with a ``README.md``
beside it giving its source and licence.  The loaders return the objects the library's readers
return for these files, so the examples of the documentation run anywhere ``agreekit`` is
installed:

=====================  ==================================================  ===============================
name                   what                                                loader
=====================  ==================================================  ===============================
``sports``             130 judges rank 7 sports (Marden, 1996)             :func:`load_sports`
``emond_mason``        21 weighted judges, 15 items, ties, partial         :func:`load_emond_mason`
                       rankings (Emond & Mason, 2000)
``clustering_fig1``    9-node graph, ground truth and two candidates       :func:`load_clustering_example`
``clustering_fig2a``   5-cycle with an overlapping ground truth            :func:`load_clustering_example`
``clustering_fig2b``   11-node "problem of matching" example               :func:`load_clustering_example`
``adhoc8_ap``          TREC-8 ad hoc, AP, 50 topics x 129 runs             :func:`load_trec_scores`
``adhoc8_p10``         TREC-8 ad hoc, P@10, 50 topics x 129 runs           :func:`load_trec_scores`
``adhoc8_rr``          TREC-8 ad hoc, RR, 50 topics x 129 runs             :func:`load_trec_scores`
``trec_sample_qrels``  synthetic graded qrels, 10 topics                   :func:`load_trec_sample`
``trec_sample_run_a``  synthetic run ``sysA`` on those topics, depth 100   :func:`load_trec_sample`
``trec_sample_run_b``  synthetic run ``sysB`` on those topics, depth 100   :func:`load_trec_sample`
=====================  ==================================================  ===============================

:func:`available` lists them with their paths; on the command line ``agreekit datasets`` prints the
same, and every input file argument accepts ``dataset:NAME`` (e.g. ``agreekit consensus dataset:sports``).

>>> from agreekit.datasets import load_sports
>>> data = load_sports()
>>> data.X.shape, data.labels[:3]
((130, 7), ('Baseball', 'Football', 'Basketball'))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from agreekit._validation import InputError

__all__ = [
    "Dataset",
    "available",
    "dataset_path",
    "load_sports",
    "load_emond_mason",
    "load_clustering_example",
    "load_trec_scores",
    "load_trec_sample",
]


@dataclass(frozen=True)
class Dataset:
    """One shipped data set, as :func:`available` lists it.

    Parameters
    ----------
    name : str
        The name (``dataset_path(name)``, ``dataset:NAME`` on the command line).
    path : pathlib.Path
        The installed file.
    description : str
        What it holds and where it comes from, in one line.
    loader : str
        The call of this module that loads it, e.g. ``load_sports()``.
    licence : str
        Its licence, in short (the README says more).
    source : pathlib.Path
        The ``README.md`` beside the file: source, licence, format and changes.

    Examples
    --------
    >>> from agreekit.datasets import available
    >>> d = available()[0]
    >>> d.name, d.loader, d.source.name
    ('sports', 'load_sports()', 'README.md')
    """

    name: str
    path: Path
    description: str
    loader: str
    licence: str
    source: Path

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict (paths as text).

        Returns
        -------
        dict
            ``name``, ``path``, ``description``, ``loader``, ``licence``, ``source``.

        Examples
        --------
        >>> from agreekit.datasets import available
        >>> sorted(available()[0].to_dict())
        ['description', 'licence', 'loader', 'name', 'path', 'source']
        """
        return {
            "name": self.name,
            "path": str(self.path),
            "description": self.description,
            "loader": self.loader,
            "licence": self.licence,
            "source": str(self.source),
        }


#: name -> (file under data/, description, loader call, licence)
_REGISTRY: dict[str, tuple[str, str, str, str]] = {
    "sports": (
        "consensus/sports.csv",
        "130 judges rank 7 sports (L. Roussos, in Marden 1996; ConsRank's `sports`)",
        "load_sports()",
        "GPL-3.0 (ConsRank's data; see README)",
    ),
    "emond_mason": (
        "consensus/emond_mason.csv",
        "21 weighted judges (W = 112) rank 15 items, ties and partial rankings (Emond & Mason 2000)",
        "load_emond_mason()",
        "GPL-3.0 (ConsRank's data; see README)",
    ),
    "clustering_fig1": (
        "clustering/fig1_structure.json",
        "9 nodes, 15 edges, ground truth and two candidates (Rabbany & Zaiane 2015, Fig. 1)",
        'load_clustering_example("fig1")',
        "MIT (rabbanyk/CommunityEvaluation)",
    ),
    "clustering_fig2a": (
        "clustering/fig2a_omega.json",
        "5-cycle with an overlapping ground truth (Rabbany & Zaiane 2015, Fig. 2(a))",
        'load_clustering_example("fig2a")',
        "MIT (rabbanyk/CommunityEvaluation)",
    ),
    "clustering_fig2b": (
        "clustering/fig2b_matching.json",
        "11 nodes, the 'problem of matching' (Rabbany & Zaiane 2015, Fig. 2(b))",
        'load_clustering_example("fig2b")',
        "MIT (rabbanyk/CommunityEvaluation)",
    ),
    "adhoc8_ap": (
        "trec_scores/adhoc8_ap.csv",
        "TREC-8 ad hoc AP, 50 topics x 129 runs (Urbano et al. 2019)",
        'load_trec_scores("ap")',
        "CC-BY-SA-4.0",
    ),
    "adhoc8_p10": (
        "trec_scores/adhoc8_p10.csv",
        "TREC-8 ad hoc P@10, 50 topics x 129 runs (Urbano et al. 2019)",
        'load_trec_scores("p10")',
        "CC-BY-SA-4.0",
    ),
    "adhoc8_rr": (
        "trec_scores/adhoc8_rr.csv",
        "TREC-8 ad hoc RR, 50 topics x 129 runs (Urbano et al. 2019)",
        'load_trec_scores("rr")',
        "CC-BY-SA-4.0",
    ),
    "trec_sample_qrels": (
        "trec_sample/qrels.txt.gz",
        "Synthetic graded qrels (0/1/2), 10 topics (101-110), 983 judgements",
        "load_trec_sample()",
        "BSD-3-Clause (synthetic, agreekit's own)",
    ),
    "trec_sample_run_a": (
        "trec_sample/run.sysA.gz",
        "Synthetic run sysA on those 10 topics, depth 100",
        "load_trec_sample()",
        "BSD-3-Clause (synthetic, agreekit's own)",
    ),
    "trec_sample_run_b": (
        "trec_sample/run.sysB.gz",
        "Synthetic run sysB on those 10 topics, depth 100",
        "load_trec_sample()",
        "BSD-3-Clause (synthetic, agreekit's own)",
    ),
}

_CLUSTERING = {"fig1": "clustering_fig1", "fig2a": "clustering_fig2a", "fig2b": "clustering_fig2b"}
_TREC_METRICS = {"ap": "adhoc8_ap", "p10": "adhoc8_p10", "rr": "adhoc8_rr"}


def _read_rankings(name: str):
    # imported on use: `import agreekit.datasets` (the CLI's `dataset:NAME`) stays free of the areas
    from agreekit.consensus import read_rankings

    return read_rankings(dataset_path(name))


def _ireval_metrics():
    # imported on use: `import agreekit.datasets` (the CLI's `dataset:NAME`) stays free of the areas
    from agreekit.ireval import metrics

    return metrics


def _data_dir() -> Path:
    return Path(str(resources.files("agreekit.datasets").joinpath("data")))


def dataset_path(name: str) -> Path:
    """The file of the shipped data set ``name`` (see :func:`available`).

    Parameters
    ----------
    name : str
        A data set name, e.g. ``"sports"`` or ``"adhoc8_ap"``.

    Returns
    -------
    pathlib.Path
        The installed file (read it with the library's readers or any other tool).

    Raises
    ------
    agreekit.InputError
        If ``name`` is not a shipped data set (the message lists them).

    Examples
    --------
    >>> from agreekit.datasets import dataset_path
    >>> dataset_path("sports").name
    'sports.csv'
    """
    if not isinstance(name, str) or name not in _REGISTRY:
        import difflib

        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError("name", f"{name!r} is not a shipped data set; {hint}available: {', '.join(_REGISTRY)}")
    return _data_dir() / _REGISTRY[name][0]


def available() -> list[Dataset]:
    """The shipped data sets: name, installed path, description, loader, licence and the README with the source.

    Returns
    -------
    list of Dataset
        One entry per data set, in the order of the module's table.

    Examples
    --------
    >>> from agreekit.datasets import available
    >>> [d.name for d in available()][:2]
    ['sports', 'emond_mason']
    >>> available()[0].path.is_file()
    True
    """
    out = []
    for name, (rel, description, loader, licence) in _REGISTRY.items():
        path = _data_dir() / rel
        out.append(
            Dataset(
                name=name,
                path=path,
                description=description,
                loader=loader,
                licence=licence,
                source=path.parent / "README.md",
            )
        )
    return out


def load_sports():
    """130 people's rankings of seven sports (ConsRank's ``sports``; Marden 1996).

    Returns
    -------
    agreekit.consensus.RankingData
        ``read_rankings`` of the shipped ``sports.csv``: 130 complete rankings of 7 sports, ties
        allowed, every row weight 1.

    References
    ----------
    .. [1] J. I. Marden, 1996. Analyzing and Modeling Rank Data. Chapman & Hall.

    Examples
    --------
    >>> from agreekit.datasets import load_sports
    >>> from agreekit.consensus import kemeny
    >>> kemeny(load_sports(), method="exact").orderings
    ['Cycling Swimming Basketball Baseball Tennis Football Jogging']
    """
    return _read_rankings("sports")


def load_emond_mason():
    """Emond and Mason's 21 weighted rankings of 15 items, with ties and unranked items.

    Returns
    -------
    agreekit.consensus.RankingData
        ``read_rankings`` of the shipped ``emond_mason.csv``: 21 rows, weights summing to 112,
        items labelled A-O (ConsRank's ``EMD``).

    Examples
    --------
    >>> from agreekit.datasets import load_emond_mason
    >>> data = load_emond_mason()
    >>> data.X.shape, float(data.weights.sum())
    ((21, 15), 112.0)
    """
    return _read_rankings("emond_mason")


def load_clustering_example(name: str) -> dict[str, Any]:
    """A worked example of Rabbany and Zaïane (2015): a graph, a ground truth and candidate clusterings.

    Parameters
    ----------
    name : {"fig1", "fig2a", "fig2b"}
        Figure 1 (9 nodes, two candidates with equal contingency tables), Figure 2(a) (a 5-cycle with
        an overlapping ground truth, for Omega) or Figure 2(b) (11 nodes, the "problem of matching").

    Returns
    -------
    dict
        The example's JSON document: ``nodes``, ``edges``, ``clusterings`` (name -> list of node
        lists), ``ground_truth``, ``candidates``, the paper's printed table values
        (``expected_table_values``) and further checks.

    References
    ----------
    .. [1] R. Rabbany and O. R. Zaïane, 2015. Generalization of clustering agreements and distances
       for overlapping clusters and network communities. Data Mining and Knowledge Discovery 29(5),
       1458-1485. :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.datasets import load_clustering_example
    >>> ex = load_clustering_example("fig2a")
    >>> len(ex["nodes"]), len(ex["edges"])
    (5, 5)
    """
    if name not in _CLUSTERING:
        raise InputError("name", f"must be one of {', '.join(map(repr, _CLUSTERING))}; got {name!r}")
    return json.loads(dataset_path(_CLUSTERING[name]).read_text(encoding="utf-8"))


def load_trec_scores(metric: str = "ap"):
    """Per-topic scores of the 129 TREC-8 ad hoc runs (Urbano, Lima and Hanjalic, 2019).

    Parameters
    ----------
    metric : {"ap", "p10", "rr"}, default "ap"
        Average precision, precision at 10 or reciprocal rank (binary relevance, trec_eval's).

    Returns
    -------
    pandas.DataFrame
        ``agreekit.ireval.load_scores`` of the shipped matrix: 50 topics (index 1..50) x 129 runs
        (``run1`` … ``run129``, the same columns for every metric).

    References
    ----------
    .. [1] J. Urbano, H. Lima and A. Hanjalic, 2019. Statistical significance testing in information
       retrieval: an empirical analysis of type I, type II and type III errors. SIGIR 2019, 505-514.
       :doi:`10.1145/3331184.3331259`

    Examples
    --------
    >>> from agreekit.datasets import load_trec_scores
    >>> load_trec_scores("p10").shape
    (50, 129)
    """
    if metric not in _TREC_METRICS:
        raise InputError("metric", f"must be one of {', '.join(map(repr, _TREC_METRICS))}; got {metric!r}")
    return _ireval_metrics().load_scores(dataset_path(_TREC_METRICS[metric]))


def load_trec_sample():
    """A small synthetic TREC test collection: graded qrels on 10 topics and two runs of depth 100.

    The data are made up (generated by ``resources/datasets/make_synthetic_trec.py`` in the source
    repository with a fixed seed; BSD-3-Clause), in TREC's formats: qrels graded 0, 1, 2 for topics
    101-110 (61-128 judged documents per topic) and the runs ``sysA`` and ``sysB``, 100 documents per
    topic each, overlapping and with unjudged documents; ``sysA`` is the better system on average.

    Returns
    -------
    qrels : pandas.DataFrame
        ``agreekit.ireval.read_qrels`` of the shipped qrels (columns ``topic``, ``docno``, ``relevance``).
    runs : dict of str to pandas.DataFrame
        System name -> ``read_run`` frame (columns ``topic``, ``docno``, ``score``); pass it as
        ``run`` to :func:`agreekit.ireval.evaluate`.

    Examples
    --------
    >>> from agreekit.datasets import load_trec_sample
    >>> from agreekit.ireval import evaluate
    >>> qrels, runs = load_trec_sample()
    >>> sorted(runs), qrels["topic"].nunique(), sorted(qrels["relevance"].unique().tolist())
    (['sysA', 'sysB'], 10, [0, 1, 2])
    >>> evaluate(qrels, runs, ["AP"])["AP"].shape
    (10, 2)
    """
    metrics = _ireval_metrics()
    qrels = metrics.read_qrels(dataset_path("trec_sample_qrels"))
    runs = dict(metrics.read_run(dataset_path(name)) for name in ("trec_sample_run_a", "trec_sample_run_b"))
    return qrels, runs
