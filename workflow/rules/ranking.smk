# Stage: weighted rank correlations — exact moments for every configured scheme, n = 2..n_exact.
# (The Monte Carlo / fit / table stages of the table-generation pipeline build on these.)
from agreekit.weighting import scheme_id

RANKING_SCHEMES = {
    scheme_id(s["coefficient"], s["scheme"], s["weigher"]): s for s in config["ranking"]["schemes"]
}


rule ranking_exact_moments:
    output:
        "results/ranking/exact/{scheme_id}.csv",
    log:
        "logs/ranking/exact/{scheme_id}.log",
    params:
        spec=lambda wc: RANKING_SCHEMES[wc.scheme_id],
        n_exact=config["ranking"]["n_exact"],
    threads: 2
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_exact.py"


FINAL_TARGETS += expand("results/ranking/exact/{scheme_id}.csv", scheme_id=sorted(RANKING_SCHEMES))
