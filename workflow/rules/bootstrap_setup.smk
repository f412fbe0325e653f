# Settings of the bootstrap stage derived from config["bootstrap"] (helpers only; the rules are in
# bootstrap.smk, which includes this file: Snakemake's linter wants functions and rules apart).
import os

# config["bootstrap"] was validated against config/bootstrap.schema.yaml in common.smk

BS = config["bootstrap"]
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
        out["robust03"] = [{"name": m["name"], "path": f"results/bootstrap/scores/robust03/{m['measure']}.csv",
                            "statistic": m.get("statistic", "mean")} for m in rb["metrics"]]
    return {c: s for c, s in out.items() if c not in BS["exclude"]}


def bs_robust03_runs():
    """The run files of the robust03 collection (sorted; hidden files skipped)."""
    runs_dir = BS["robust03"]["runs_dir"]
    if not os.path.isdir(runs_dir):
        return []
    return sorted(os.path.join(runs_dir, f) for f in os.listdir(runs_dir) if not f.startswith("."))


def bs_collection_inputs(wildcards):
    """The score matrices one collection's analysis reads."""
    return sorted({m["path"] for m in BS_METRICS[wildcards.bs_collection]})


def bs_output_dir(wildcards, output):
    """The folder of a rule's first output (passed to scripts that write several files there)."""
    return os.path.dirname(output[0])


BS_METRICS = _bs_metrics()
BS_COLLECTIONS = list(BS_METRICS)
BS_ROBUST_MEASURES = sorted({m["measure"] for m in BS["robust03"]["metrics"]})
