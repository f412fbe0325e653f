# Settings of the clustering stage derived from config["clustering"] (helpers only; the rules are in
# clustering.smk, which includes this file: Snakemake's linter wants functions and rules apart).
# config["clustering"] was validated against config/clustering.schema.yaml in common.smk

CLUSTERING = config["clustering"]
CLUSTERING_TABLES = CLUSTERING["tables"]
# figure -> (config section, wildcard prefix, x values formatted with 2 decimals)
CLUSTERING_FIGURES = {
    "7": ("lfr", "mu", [f"{float(v):.2f}" for v in CLUSTERING["lfr"]["mu"]]),
    "8": ("lfr_weighted", "mw", [f"{float(v):.2f}" for v in CLUSTERING["lfr_weighted"]["mu_weights"]]),
    "9": ("lfr_overlapping", "of", [f"{float(v):.2f}" for v in CLUSTERING["lfr_overlapping"]["overlap_fraction"]]),
}


def clustering_trials(fig):
    section, prefix, xs = CLUSTERING_FIGURES[fig]
    reps = range(CLUSTERING[section]["repeats"])
    return [f"results/clustering/{section}/{prefix}{x}_rep{r}.json" for x in xs for r in reps]
