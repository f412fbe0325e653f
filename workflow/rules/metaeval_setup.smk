# Settings of the metaeval stage derived from config (helpers only; the rules are in metaeval.smk,
# which includes this file: Snakemake's linter wants functions and rules apart).
import os

# config["metaeval"] was validated against config/metaeval.schema.yaml in common.smk

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


def me_collection_inputs(wildcards):
    """The score matrices one collection's analysis reads."""
    return sorted({m["path"] for m in ME_METRICS[wildcards.me_collection]})


def me_collection_files(wildcards):
    """The per-collection files the summary reads."""
    return [f"results/metaeval/{c}/{f}" for c in ME_COLLECTIONS for f in ("agreement.csv", "collection.json")]
