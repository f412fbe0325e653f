# Stage: weighted rank correlations — the table-generation pipeline (issue 3).
#   exact (n <= n_exact) -> sample (Monte Carlo on the training grid) -> fit -> table
#   -> validate (fresh Monte Carlo E[g] at held-out n) -> paper tables, figures, reproduction.md
# This file holds the helpers and targets; the rules are in ranking_<stage>.smk.
# All logic lives in agreekit.ranking.tablegen.generation / agreekit.ranking.tablegen.reproduction / agreekit.ranking.tablegen.figures.
import re

from snakemake.exceptions import WorkflowError

from agreekit._validation import InputError
from agreekit.ranking.tablegen.generation import check_ranking_config, scheme_settings, schemes_from_config

try:
    check_ranking_config(config["ranking"])
    RANKING_SCHEMES = schemes_from_config(config["ranking"])
except InputError as exc:
    raise WorkflowError(f"invalid config: {exc}") from None

RANKING_IDS = [s.id for s in RANKING_SCHEMES]
RANKING_SETTINGS = {s.id: scheme_settings(config["ranking"], s, config["seed"]) for s in RANKING_SCHEMES}


wildcard_constraints:
    sid="|".join(re.escape(i) for i in RANKING_IDS),


def ranking_settings(wildcards):
    return RANKING_SETTINGS[wildcards.sid]


def ranking_threads(wildcards=None):
    return max(1, workflow.cores)


RANKING_TABLES = expand("results/tables/{sid}.json", sid=RANKING_IDS)
RANKING_VALIDATION = expand("results/ranking/validation/{sid}.json", sid=RANKING_IDS)
RANKING_PAPER_TABLES = expand(
    "results/paper_tables/table{k}.{ext}", k=[1, 2, 3, 4, 5], ext=["md", "tex", "csv"]
)
RANKING_FIGURES = expand(
    "results/figures/ranking_figure{k}.{ext}", k=[1, 2, 3, 4, 5], ext=["png", "pdf"]
)
RANKING_TARGETS = (
    RANKING_TABLES
    + RANKING_PAPER_TABLES
    + RANKING_FIGURES
    + ["results/reproduction.md", "results/ranking/stage_times.md"]
)
FINAL_TARGETS.extend(RANKING_TARGETS)

