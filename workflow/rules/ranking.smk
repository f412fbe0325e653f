# Stage: weighted rank correlations — the table-generation pipeline.
#   exact (n <= n_exact) -> sample (Monte Carlo on the training grid) -> fit -> table
#   -> validate (fresh Monte Carlo E[g] at held-out n) -> paper tables, figures, reproduction.md
# This file holds the helpers and targets; the rules are in ranking_<stage>.smk.
# All logic lives in agreekit.ranking.tablegen.generation / agreekit.ranking.tablegen.reproduction / agreekit.ranking.tablegen.figures.
import re

from snakemake.exceptions import WorkflowError

from agreekit import InputError
from agreekit.ranking.tablegen.generation import (
    batches_from_schemes,
    scheme_settings,
    schemes_from_config,
    shipped_quantiles,
    shipped_table_path,
    verify_lengths,
)

# checked (check_ranking_config, the schemes) by agreekit.pipeline.check_pipeline_config in common.smk
RANKING_SCHEMES = schemes_from_config(config["ranking"])

RANKING_IDS = [s.id for s in RANKING_SCHEMES]
RANKING_SETTINGS = {s.id: scheme_settings(config["ranking"], s, config["seed"]) for s in RANKING_SCHEMES}
# schemes sampled / validated together on one shared stream (`batch:` in the config); others alone
RANKING_BATCHES = batches_from_schemes(RANKING_SCHEMES)
RANKING_BATCH_OF = {sid: bid for bid, sids in RANKING_BATCHES.items() for sid in sids}
RANKING_SINGLE = [sid for sid in RANKING_IDS if sid not in RANKING_BATCH_OF]
RANKING_VALIDATION_CFG = {"threshold": 0.002, "enforce": True, **config["ranking"]["validation"]}

# Null quantiles: `ranking.quantiles.source: shipped` (default) takes a unit's (batch's or single
# scheme's) null quantiles from the shipped tables when every scheme of it has a shipped table built with
# the same quantile settings (coefficient, scheme, weigher, seed, lengths, sizes, stream) -- the numbers a
# regeneration would give -- and verifies them (bit-for-bit regeneration at ranking.quantiles.verify.n, and
# the gated held-out p-value check); any other unit, or `source: sample` (`make tables`), samples them.
RANKING_QUANTILE_SOURCE = {}
RANKING_QUANTILE_REASON = {}
if "quantiles" in config["ranking"]:
    for _unit, _sids in [*RANKING_BATCHES.items(), *[(s, [s]) for s in RANKING_SINGLE]]:
        if config["ranking"]["quantiles"].get("source", "shipped") != "shipped":
            _why = ["ranking.quantiles.source is sample"]
        else:
            try:
                _why = [shipped_quantiles(RANKING_SETTINGS[s], validate=False)[1] for s in _sids]
                _why = [w for w in _why if w != "shipped"]
            except InputError as exc:
                raise WorkflowError(f"shipped table: {exc}") from None
        RANKING_QUANTILE_SOURCE[_unit] = "sample" if _why else "shipped"
        RANKING_QUANTILE_REASON[_unit] = _why[0] if _why else "shipped"
        if not _why:
            try:
                verify_lengths(config["ranking"], RANKING_SETTINGS[_sids[0]])
            except InputError as exc:
                raise WorkflowError(f"invalid config: {exc}") from None
RANKING_SHIPPED_BATCHES = [b for b in RANKING_BATCHES if RANKING_QUANTILE_SOURCE.get(b) == "shipped"]
RANKING_SHIPPED_SINGLE = [s for s in RANKING_SINGLE if RANKING_QUANTILE_SOURCE.get(s) == "shipped"]
RANKING_SAMPLED_BATCHES = [b for b in RANKING_BATCHES if RANKING_QUANTILE_SOURCE.get(b) == "sample"]
RANKING_SAMPLED_SINGLE = [s for s in RANKING_SINGLE if RANKING_QUANTILE_SOURCE.get(s) == "sample"]
# a unit of the sample / quantiles / validate / p-value-check stages (one job each): a scheme alone (its
# id) or a batch of schemes on one shared stream ("batch/<name>"); the unit's schemes
RANKING_UNITS = {**{sid: [sid] for sid in RANKING_SINGLE},
                 **{f"batch/{bid}": sids for bid, sids in RANKING_BATCHES.items()}}
RANKING_SHIPPED_UNITS = RANKING_SHIPPED_SINGLE + [f"batch/{bid}" for bid in RANKING_SHIPPED_BATCHES]


def _alternation(names):
    return "|".join(re.escape(i) for i in names) if names else "(?!x)x"


wildcard_constraints:
    sid=_alternation(RANKING_IDS),
    unit=_alternation(list(RANKING_UNITS)),
    shipped_unit=_alternation(RANKING_SHIPPED_UNITS),


def ranking_samples_file(wildcards):
    bid = RANKING_BATCH_OF.get(wildcards.sid)
    if bid is None:
        return f"results/ranking/samples/{wildcards.sid}.npz"
    return f"results/ranking/samples/batch/{bid}.npz"


def ranking_quantiles_file(wildcards):
    if "quantiles" not in config["ranking"]:
        return []
    bid = RANKING_BATCH_OF.get(wildcards.sid)
    unit = wildcards.sid if bid is None else f"batch/{bid}"
    src = RANKING_QUANTILE_SOURCE[wildcards.sid if bid is None else bid]
    return [f"results/ranking/quantiles/{'shipped/' if src == 'shipped' else ''}{unit}.npz"]


def ranking_shipped_tables(sids):
    return [str(shipped_table_path(s)) for s in sids]


def ranking_quantile_verify_n(sid):
    return verify_lengths(config["ranking"], RANKING_SETTINGS[sid])


def ranking_unit_settings(wildcards):
    return [RANKING_SETTINGS[sid] for sid in RANKING_UNITS[wildcards.unit]]


def ranking_unit_tables(wildcards):
    return [f"results/tables/{sid}.json" for sid in RANKING_UNITS[wildcards.unit]]


def ranking_validation_n(sid):
    return config["ranking"]["validation"]["n"][RANKING_SETTINGS[sid]["coefficient"]]


def ranking_pvalue_check_n(sid):
    return config["ranking"]["quantiles"]["check"]["n"][RANKING_SETTINGS[sid]["coefficient"]]


def ranking_pvalue_check_size(wildcards=None):
    return config["ranking"]["quantiles"]["check"]["size"]


def ranking_settings(wildcards):
    return RANKING_SETTINGS[wildcards.sid]


def ranking_threads(wildcards=None):
    return max(1, workflow.cores)


RANKING_TABLES = expand("results/tables/{sid}.json", sid=RANKING_IDS)
RANKING_VALIDATION = expand("results/ranking/validation/{sid}.json", sid=RANKING_SINGLE) + expand(
    "results/ranking/validation/batch/{bid}.json", bid=list(RANKING_BATCHES)
)
RANKING_QUANTILE_STAGES = ["pvalue_check"] if "quantiles" in config["ranking"] else []
RANKING_QUANTILE_BENCHMARKS = (
    expand("results/ranking/benchmarks/quantiles/{sid}.tsv", sid=RANKING_SAMPLED_SINGLE)
    + expand("results/ranking/benchmarks/quantiles/batch/{bid}.tsv", bid=RANKING_SAMPLED_BATCHES)
    + expand("results/ranking/benchmarks/quantiles_shipped/{sid}.tsv", sid=RANKING_SHIPPED_SINGLE)
    + expand("results/ranking/benchmarks/quantiles_shipped/batch/{bid}.tsv", bid=RANKING_SHIPPED_BATCHES)
)
RANKING_PVALUE_CHECK = (
    expand("results/ranking/pvalue_check/{sid}.json", sid=RANKING_SINGLE)
    + expand("results/ranking/pvalue_check/batch/{bid}.json", bid=list(RANKING_BATCHES))
    if "quantiles" in config["ranking"]
    else []
)
RANKING_QUANTILE_VERIFY = expand(
    "results/ranking/quantiles/shipped/{sid}.verify.json", sid=RANKING_SHIPPED_SINGLE
) + expand("results/ranking/quantiles/shipped/batch/{bid}.verify.json", bid=RANKING_SHIPPED_BATCHES)
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

