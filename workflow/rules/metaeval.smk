# Stage: metaeval (see README "Do two metrics agree on the top systems?").  Issue 12: for every
# collection of the bootstrap stage with >= 2 metrics, Kendall tau_b vs standardized top-weighted
# tau_w between the metrics' system rankings (bootstrap SEs on shared topic samples), the p-value
# of tau_w, the top-k overlap and the Kemeny consensus; summary.md across collections.
# One job per collection.  Appends its final outputs to FINAL_TARGETS.
import os

validate(config["metaeval"], "../../config/metaeval.schema.yaml")

ME = config["metaeval"]
ME_OUT = "results/metaeval"
ME_FILES = ["agreement.csv", "agreement.md", "heatmap.png", "heatmap.pdf", "consensus.csv", "consensus.md",
            "collection.json"]


def _me_metrics():
    """collection -> list of {name, path, statistic} (the bootstrap stage's inputs)."""
    sm = config["bootstrap"]["score_matrices"]
    out = {}
    for coll, keys in sm["collections"].items():
        specs = []
        for key in keys:
            path = os.path.join(sm["dir"], f"{coll}_{key}.csv")
            label = sm["labels"].get(key, key)
            specs.append({"name": label, "path": path, "statistic": "mean"})
            if key in ME["geometric"]:
                specs.append({"name": f"G_{label}", "path": path, "statistic": "gmean"})
        out[coll] = specs
    rb = config["bootstrap"]["robust03"]
    if rb["enabled"]:
        out["robust03"] = [{"name": m["name"], "path": f"results/bootstrap/scores/robust03/{m['measure']}.csv",
                            "statistic": m.get("statistic", "mean")} for m in rb["metrics"]]
    return {c: s for c, s in out.items() if len(s) >= 2 and c not in ME["exclude"]}


ME_METRICS = _me_metrics()
ME_COLLECTIONS = list(ME_METRICS)

wildcard_constraints:
    me_collection="[A-Za-z0-9_]+",


rule metaeval_collection:
    input:
        lambda wc: sorted({m["path"] for m in ME_METRICS[wc.me_collection]}),
    output:
        [ME_OUT + "/{me_collection}/" + f for f in ME_FILES],
    params:
        metrics=lambda wc: ME_METRICS[wc.me_collection],
        seed=config["seed"],
        settings=ME,
        outdir=lambda wc: f"{ME_OUT}/{wc.me_collection}",
    log:
        "logs/metaeval/{me_collection}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/metaeval_collection.py"


rule metaeval_summary:
    input:
        expand(ME_OUT + "/{me_collection}/{f}", me_collection=ME_COLLECTIONS, f=["agreement.csv", "collection.json"]),
    output:
        md=ME_OUT + "/summary.md",
        csv=ME_OUT + "/summary.csv",
    params:
        collections={c: f"{ME_OUT}/{c}" for c in ME_COLLECTIONS},
        threshold=ME["interchangeable_threshold"],
    log:
        "logs/metaeval/summary.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/metaeval_summary.py"


FINAL_TARGETS.extend(
    [ME_OUT + "/summary.md", ME_OUT + "/summary.csv"]
    + expand(ME_OUT + "/{me_collection}/{f}", me_collection=ME_COLLECTIONS, f=ME_FILES)
)
