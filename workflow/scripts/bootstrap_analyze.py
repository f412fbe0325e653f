"""Thin adapter: all metrics of one collection -> agreekit.ireval.report.analyze_collection."""
import sys
import time

sys.stderr = open(snakemake.log[0], "w")  # noqa: F821

from agreekit.ireval.report import MetricInput, analyze_collection, write_collection  # noqa: E402
from agreekit.ireval.metrics import load_scores  # noqa: E402

p = snakemake.params  # noqa: F821
s = p.settings
t0 = time.perf_counter()
metrics = [MetricInput(m["name"], load_scores(m["path"]), m["statistic"]) for m in p.metrics]
analysis = analyze_collection(
    snakemake.wildcards.bs_collection, metrics, rng=p.seed, alpha=s["alpha"],  # noqa: F821
    n_resamples=s["n_resamples"], fuzziness=s["fuzziness"], bin_width=s["swap"]["bin_width"],
    n_bins=s["swap"]["n_bins"], swap_threshold=s["swap"]["threshold"], tau_variant=s["tau_variant"],
    progress=True)
paths = write_collection(analysis, snakemake.output.summary.rsplit("/", 1)[0])  # noqa: F821
print(f"{analysis.collection}: {analysis.n_topics} topics x {analysis.n_systems} systems, "
      f"{len(metrics)} metrics in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
