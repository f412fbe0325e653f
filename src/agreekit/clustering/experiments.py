"""The LFR experiments of Rabbany & Zaïane 2015 (sec. 5, Figures 7-9): community detection on LFR benchmarks.

Pipeline code (``workflow/scripts/clustering_*.py``), kept apart from the measures in three
private modules; this module gathers their public names:

* :mod:`agreekit.clustering._detection` — graphs and detection: :class:`LFRParameters`,
  :func:`lfr_graph` (agreekit's or networkx's LFR generator), :func:`detect_communities`
  (python-igraph, :data:`ALGORITHMS`), :func:`detect_overlapping` (cdlib,
  :data:`OVERLAPPING_METHODS`), :func:`min_degree_for`, :data:`GENERATORS`;
* :mod:`agreekit.clustering._trials` — one trial of Rabbany & Zaïane 2015, Figure 7, 8 or 9 (:func:`lfr_trial`,
  :func:`weighted_lfr_trial`, :func:`overlapping_lfr_trial`, :func:`lfr_trial_for_figure`), the
  measures of each figure (:data:`FIGURE7_MEASURES`, ...), and the trial tables
  (:func:`trials_frame`, :func:`summarize_trials`, :func:`figure_settings`);
* :mod:`agreekit.clustering._figures` — plots (:func:`plot_agreement`, :func:`plot_figure`,
  :func:`plot_figure7`), the paper's findings checked (:func:`figure_findings`) and the Markdown
  note (:func:`figure_markdown`, :func:`figure_report`).

networkx, python-igraph and cdlib are optional dependencies (``pip install agreekit[workflow]``),
matplotlib too (extra ``plot``); each is imported only when a function needing it runs.
"""

from __future__ import annotations

from agreekit.clustering._detection import (
    ALGORITHMS,
    GENERATORS,
    OVERLAPPING_METHODS,
    LFRParameters,
    detect_communities,
    detect_overlapping,
    lfr_graph,
    min_degree_for,
)
from agreekit.clustering._figures import (
    figure_findings,
    figure_markdown,
    figure_report,
    plot_agreement,
    plot_figure,
    plot_figure7,
)
from agreekit.clustering._trials import (
    FIGURE7_MEASURES,
    FIGURE8_MEASURES,
    FIGURE9_MEASURES,
    figure_settings,
    lfr_trial,
    lfr_trial_for_figure,
    overlapping_lfr_trial,
    summarize_trials,
    trials_frame,
    weighted_lfr_trial,
)

__all__ = [
    "LFRParameters",
    "min_degree_for",
    "lfr_graph",
    "detect_communities",
    "detect_overlapping",
    "lfr_trial",
    "weighted_lfr_trial",
    "overlapping_lfr_trial",
    "trials_frame",
    "summarize_trials",
    "plot_agreement",
    "plot_figure7",
    "ALGORITHMS",
    "OVERLAPPING_METHODS",
    "GENERATORS",
    "FIGURE7_MEASURES",
    "FIGURE8_MEASURES",
    "FIGURE9_MEASURES",
    "figure_settings",
    "plot_figure",
    "figure_findings",
    "figure_markdown",
    "lfr_trial_for_figure",
    "figure_report",
]
