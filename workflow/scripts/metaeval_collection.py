"""Thin adapter: one collection's metrics -> agreekit.metaeval (agreement + consensus) -> files."""

import inspect
import time

from agreekit.pipeline import script_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    from agreekit.ireval.metrics import load_scores
    from agreekit.ireval.report import collection_seed
    from agreekit.metaeval import consensus_ranking, metric_agreement
    from agreekit.metaeval.report import write_collection

    p = sm.params
    s = p.settings
    coll = sm.wildcards.me_collection
    t0 = time.perf_counter()
    scores = {m["name"]: load_scores(m["path"], parameter=m["path"]) for m in p.metrics}
    statistic = {m["name"]: m["statistic"] for m in p.metrics}
    # the same per-collection seed as the bootstrap stage: the same topic samples Q*b;
    # the config's alpha is the intervals' 1 - level (metric_agreement rounds 1 - level to 12 decimals)
    agreement = metric_agreement(
        scores,
        weigher=s["weigher"],
        scheme=s["scheme"],
        n_resamples=s["n_resamples"],
        rng=collection_seed(p.seed, coll),
        summary=statistic,
        confidence_level=1.0 - s["alpha"],
        top_k=s["top_k"],
        pvalue_resamples=s["pvalue_resamples"],
    )
    t1 = time.perf_counter()
    c = s["consensus"]
    # consensus_ranking's summary keyword: `summary` once its area renamed it, `statistic` before
    kw = "summary" if "summary" in inspect.signature(consensus_ranking).parameters else "statistic"
    consensus = consensus_ranking(
        scores,
        method=c["method"],
        time_limit=c["time_limit"],
        rng=collection_seed(p.seed, coll),
        max_solutions=c["max_solutions"],
        **{kw: statistic},
    )
    t2 = time.perf_counter()
    write_collection(coll, agreement, consensus, p.outdir)
    log.info(
        "%s: %d metrics, %d systems, %d topics; agreement %.1f s, consensus %.1f s (%s, proven=%s, "
        "gap=%.3g), total %.1f s",
        coll,
        len(scores),
        agreement.n_systems,
        agreement.n_topics,
        t1 - t0,
        t2 - t1,
        consensus.method,
        consensus.proven,
        consensus.gap,
        time.perf_counter() - t0,
    )
