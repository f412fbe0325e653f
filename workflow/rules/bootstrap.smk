# Stage: bootstrap (see README "Bootstrap meta-evaluation of IR metrics").
# Sakai (2006): paired/unpaired bootstrap tests over all system pairs, discriminative power,
# required difference, stability (MR-PT) and swap methods, Kendall tau between metrics with
# bootstrap SE - for every collection of ready-made TREC score matrices and for metrics computed
# here from TREC 2003 Robust qrels + runs.  Appends its final outputs to FINAL_TARGETS.
# Settings and helper functions: bootstrap_setup.smk.


include: "bootstrap_setup.smk"


wildcard_constraints:
    bs_collection="[A-Za-z0-9_]+",


rule bootstrap_robust03_scores:
    input:
        qrels=BS["robust03"]["qrels"],
        runs=bs_robust03_runs(),
    output:
        expand("results/bootstrap/scores/robust03/{measure}.csv", measure=BS_ROBUST_MEASURES),
    params:
        measures=BS_ROBUST_MEASURES,
        depth=BS["robust03"]["depth"],
        gains=BS["robust03"].get("gains"),
        beta=BS["robust03"].get("beta", 1.0),
        outdir=bs_output_dir,
    log:
        "logs/bootstrap/robust03_scores.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_evaluate.py"


rule bootstrap_analyze:
    input:
        bs_collection_inputs,
    output:
        summary="results/bootstrap/{bs_collection}/summary.json",
        pairs="results/bootstrap/{bs_collection}/pairs.csv",
        stability="results/bootstrap/{bs_collection}/stability.csv",
        swap="results/bootstrap/{bs_collection}/swap.csv",
        correlations="results/bootstrap/{bs_collection}/correlations.csv",
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
        summary="results/bootstrap/{bs_collection}/summary.json",
        pairs="results/bootstrap/{bs_collection}/pairs.csv",
        stability="results/bootstrap/{bs_collection}/stability.csv",
        swap="results/bootstrap/{bs_collection}/swap.csv",
        correlations="results/bootstrap/{bs_collection}/correlations.csv",
    output:
        expand("results/bootstrap/{{bs_collection}}/fig_{fig}.{ext}", fig=BS_FIGS, ext=["png", "pdf"]),
    params:
        alpha=BS["alpha"],
        threshold=BS["swap"]["threshold"],
        outdir=bs_output_dir,
    log:
        "logs/bootstrap/figures_{bs_collection}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_figures.py"


rule bootstrap_tables:
    input:
        expand("results/bootstrap/{bs_collection}/summary.json", bs_collection=BS_COLLECTIONS),
    output:
        expand("results/bootstrap/{table}.{ext}", table=BS_TABLES, ext=["csv", "md"]),
    params:
        outdir=bs_output_dir,
        alpha=BS["alpha"],
        n_resamples=BS["n_resamples"],
    log:
        "logs/bootstrap/tables.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/bootstrap_tables.py"


FINAL_TARGETS.extend(
    expand("results/bootstrap/{table}.{ext}", table=BS_TABLES, ext=["csv", "md"])
    + expand(
        "results/bootstrap/{bs_collection}/fig_{fig}.{ext}", bs_collection=BS_COLLECTIONS, fig=BS_FIGS,
        ext=["png", "pdf"],
    )
)
