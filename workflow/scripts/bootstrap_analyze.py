"""Thin adapter: all metrics of one collection -> agreekit.ireval.report.analyze_collection."""

import time

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ireval.metrics import load_scores
    from agreekit.ireval.report import MetricInput, analyze_collection, write_collection

    p = sm.params
    s = p.settings
    t0 = time.perf_counter()
    metrics = [MetricInput(m["name"], load_scores(m["path"]), m["statistic"]) for m in p.metrics]
    analysis = analyze_collection(
        sm.wildcards.bs_collection,
        metrics,
        rng=p.seed,
        alpha=s["alpha"],
        n_resamples=s["n_resamples"],
        fuzziness=s["fuzziness"],
        bin_width=s["swap"]["bin_width"],
        n_bins=s["swap"]["n_bins"],
        swap_threshold=s["swap"]["threshold"],
        tau_variant=s["tau_variant"],
        progress=True,
    )
    paths = write_collection(analysis, sm.output.summary.rsplit("/", 1)[0])
    log.info(
        "%s: %d topics x %d systems, %d metrics in %.1f s",
        analysis.collection,
        analysis.n_topics,
        analysis.n_systems,
        len(metrics),
        time.perf_counter() - t0,
    )
