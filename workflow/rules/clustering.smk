# Stage: clustering (seed 003, generalized clustering agreement). See README "Clustering agreement".
#   results/clustering/table{1,2,3}.{csv,md}   seed Tables 1-3, our value beside the paper's
#   results/clustering/figure7.{png,md}, figure7_trials.csv, figure7_summary.csv   seed Figure 7 (LFR)
validate(config["clustering"], "../../config/clustering.schema.yaml")

CLUSTERING = config["clustering"]
CLUSTERING_TABLES = CLUSTERING["tables"]
CLUSTERING_MUS = [f"{float(m):.2f}" for m in CLUSTERING["lfr"]["mu"]]
CLUSTERING_REPS = list(range(CLUSTERING["lfr"]["repeats"]))


wildcard_constraints:
    cl_table="|".join(CLUSTERING_TABLES),
    cl_mu=r"[0-9]\.[0-9]{2}",
    cl_rep=r"[0-9]+",


rule clustering_seed_table:
    input:
        example=lambda wc: f"resources/clustering/{CLUSTERING_TABLES[wc.cl_table]}.json",
    output:
        csv="results/clustering/{cl_table}.csv",
        md="results/clustering/{cl_table}.md",
    params:
        alpha=CLUSTERING["alpha"],
    log:
        "logs/clustering/{cl_table}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_tables.py"


rule clustering_lfr_trial:
    output:
        "results/clustering/lfr/mu{cl_mu}_rep{cl_rep}.json",
    params:
        lfr=CLUSTERING["lfr"],
        seed=config["seed"],
        mu_index=lambda wc: CLUSTERING_MUS.index(wc.cl_mu),
    log:
        "logs/clustering/lfr_mu{cl_mu}_rep{cl_rep}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_lfr_trial.py"


rule clustering_figure7:
    input:
        expand("results/clustering/lfr/mu{cl_mu}_rep{cl_rep}.json", cl_mu=CLUSTERING_MUS, cl_rep=CLUSTERING_REPS),
    output:
        trials="results/clustering/figure7_trials.csv",
        summary="results/clustering/figure7_summary.csv",
        png="results/clustering/figure7.png",
        md="results/clustering/figure7.md",
    params:
        lfr=CLUSTERING["lfr"],
    log:
        "logs/clustering/figure7.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_figure7.py"


FINAL_TARGETS.extend(
    expand("results/clustering/{cl_table}.{ext}", cl_table=list(CLUSTERING_TABLES), ext=["csv", "md"])
    + [
        "results/clustering/figure7.png",
        "results/clustering/figure7.md",
        "results/clustering/figure7_summary.csv",
    ]
)
