# Stage: bootstrap (see README "Bootstrap meta-evaluation of IR metrics").
# Sakai (2006): paired/unpaired bootstrap tests over all system pairs, discriminative power,
# required difference, stability (MR-PT) and swap methods, Kendall tau between metrics with
# bootstrap SE - for every collection of ready-made TREC score matrices and for metrics computed
# here from TREC 2003 Robust qrels + runs.  Appends its final outputs to FINAL_TARGETS.
import os

validate(config["bootstrap"], "../../config/bootstrap.schema.yaml")

BS = config["bootstrap"]
BS_OUT = "results/bootstrap"
BS_FIGS = ["asl_paired", "asl_unpaired", "mr_pt", "swap", "tau"]
BS_TABLES = ["table2", "table3", "correlations"]


def _bs_metrics():
    """collection -> list of {name, path, statistic}."""
    sm = BS["score_matrices"]
    out = {}
    for coll, keys in sm["collections"].items():
        specs = []
        for key in keys:
            path = os.path.join(sm["dir"], f"{coll}_{key}.csv")
            label = sm["labels"].get(key, key)
            specs.append({"name": label, "path": path, "statistic": "mean"})
            if key in sm["geometric"]:
                specs.append({"name": f"G_{label}", "path": path, "statistic": "gmean"})
        out[coll] = specs
    rb = BS["robust03"]
    if rb["enabled"]:
        out["robust03"] = [{"name": m["name"], "path": f"{BS_OUT}/scores/robust03/{m['measure']}.csv",
                            "statistic": m.get("statistic", "mean")} for m in rb["metrics"]]
    return out


BS_METRICS = _bs_metrics()
BS_COLLECTIONS = list(BS_METRICS)
BS_ROBUST_MEASURES = sorted({m["measure"] for m in BS["robust03"]["metrics"]})

wildcard_constraints:
    bs_collection="[A-Za-z0-9_]+",


rule bootstrap_robust03_scores:
    input:
        qrels=BS["robust03"]["qrels"],
        runs=sorted(os.path.join(BS["robust03"]["runs_dir"], f) for f in os.listdir(BS["robust03"]["runs_dir"])
                    if not f.startswith("."))
        if os.path.isdir(BS["robust03"]["runs_dir"]) else [],
    output:
        expand(BS_OUT + "/scores/robust03/{measure}.csv", measure=BS_ROBUST_MEASURES),
    params:
        runs_dir=BS["robust03"]["runs_dir"],
        measures=BS_ROBUST_MEASURES,
        depth=BS["robust03"]["depth"],
        gains=BS["robust03"].get("gains"),
        beta=BS["robust03"].get("beta", 1.0),
        outdir=BS_OUT + "/scores/robust03",
    log:
        "logs/bootstrap/robust03_scores.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_evaluate.py"


rule bootstrap_analyze:
    input:
        lambda wc: sorted({m["path"] for m in BS_METRICS[wc.bs_collection]}),
    output:
        summary=BS_OUT + "/{bs_collection}/summary.json",
        pairs=BS_OUT + "/{bs_collection}/pairs.csv",
        stability=BS_OUT + "/{bs_collection}/stability.csv",
        swap=BS_OUT + "/{bs_collection}/swap.csv",
        correlations=BS_OUT + "/{bs_collection}/correlations.csv",
    params:
        metrics=lambda wc: BS_METRICS[wc.bs_collection],
        seed=config["seed"],
        settings=BS,
    log:
        "logs/bootstrap/analyze_{bs_collection}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_analyze.py"


rule bootstrap_figures:
    input:
        summary=BS_OUT + "/{bs_collection}/summary.json",
        pairs=BS_OUT + "/{bs_collection}/pairs.csv",
        stability=BS_OUT + "/{bs_collection}/stability.csv",
        swap=BS_OUT + "/{bs_collection}/swap.csv",
        correlations=BS_OUT + "/{bs_collection}/correlations.csv",
    output:
        expand(BS_OUT + "/{{bs_collection}}/fig_{fig}.{ext}", fig=BS_FIGS, ext=["png", "pdf"]),
    params:
        alpha=BS["alpha"],
        threshold=BS["swap"]["threshold"],
        outdir=lambda wc: f"{BS_OUT}/{wc.bs_collection}",
    log:
        "logs/bootstrap/figures_{bs_collection}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_figures.py"


rule bootstrap_tables:
    input:
        expand(BS_OUT + "/{bs_collection}/summary.json", bs_collection=BS_COLLECTIONS),
    output:
        expand(BS_OUT + "/{table}.{ext}", table=BS_TABLES, ext=["csv", "md"]),
    params:
        outdir=BS_OUT,
        alpha=BS["alpha"],
        n_resamples=BS["n_resamples"],
    log:
        "logs/bootstrap/tables.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_tables.py"


FINAL_TARGETS.extend(
    expand(BS_OUT + "/{table}.{ext}", table=BS_TABLES, ext=["csv", "md"])
    + expand(BS_OUT + "/{bs_collection}/fig_{fig}.{ext}", bs_collection=BS_COLLECTIONS, fig=BS_FIGS,
             ext=["png", "pdf"])
)
