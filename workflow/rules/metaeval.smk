# Stage: metaeval (see README "Do two metrics agree on the top systems?").  For every
# collection of the bootstrap stage with >= 2 metrics, Kendall tau_b vs standardized top-weighted
# tau_w between the metrics' system rankings (bootstrap SEs on shared topic samples), the p-value
# of tau_w, the top-k overlap and the Kemeny consensus; summary.md across collections.
# One job per collection.  Appends its final outputs to FINAL_TARGETS.
# Settings and helper functions: metaeval_setup.smk.


include: "metaeval_setup.smk"


wildcard_constraints:
    me_collection="[A-Za-z0-9_]+",


rule metaeval_collection:
    input:
        me_collection_inputs,
    output:
        expand("results/metaeval/{{me_collection}}/{f}", f=ME_FILES),
    params:
        metrics=lambda wc: ME_METRICS[wc.me_collection],
        seed=config["seed"],
        settings=ME,
        outdir=lambda wc, output: os.path.dirname(output[0]),
    log:
        "logs/metaeval/{me_collection}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/metaeval_collection.py"


rule metaeval_summary:
    input:
        me_collection_files,
    output:
        md="results/metaeval/summary.md",
        csv="results/metaeval/summary.csv",
    params:
        collections={c: f"results/metaeval/{c}" for c in ME_COLLECTIONS},
        threshold=ME["interchangeable_threshold"],
    log:
        "logs/metaeval/summary.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/metaeval_summary.py"


FINAL_TARGETS.extend(
    ["results/metaeval/summary.md", "results/metaeval/summary.csv"]
    + expand("results/metaeval/{me_collection}/{f}", me_collection=ME_COLLECTIONS, f=ME_FILES)
)
