# Stage: clustering (Rabbany & Zaïane 2015, generalized clustering agreement). See README "Clustering agreement".
#   results/clustering/table{1,2,3}.{csv,md}   Rabbany & Zaïane 2015, Tables 1-3, our value beside the paper's
#   results/clustering/figure{7,8,9}.{png,md}, figure{7,8,9}_trials.csv, figure{7,8,9}_summary.csv
#     Rabbany & Zaïane 2015, Figures 7 (unweighted LFR), 8 (weighted LFR), 9 (overlapping LFR); one job per (x, repeat)
# Settings and helper functions: clustering_setup.smk.


include: "clustering_setup.smk"


wildcard_constraints:
    cl_table="|".join(CLUSTERING_TABLES),
    cl_fig="7|8|9",
    cl_section="lfr|lfr_weighted|lfr_overlapping",
    cl_prefix="mu|mw|of",
    cl_x=r"[0-9]\.[0-9]{2}",
    cl_rep=r"[0-9]+",


rule clustering_seed_table:
    input:
        example=lambda wc: f"resources/clustering/{CLUSTERING_TABLES[wc.cl_table]}.json",
    output:
        csv="results/clustering/{cl_table}.csv",
        md="results/clustering/{cl_table}.md",
    params:
        direct_weight=CLUSTERING["alpha"],  # Rabbany & Zaïane's α of D_+ (config key kept)
    log:
        "logs/clustering/{cl_table}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_tables.py"


rule clustering_lfr_trial:
    # one LFR graph (one x value, one repeat) of Figure 7, 8 or 9, all algorithms, all measures
    output:
        "results/clustering/{cl_section}/{cl_prefix}{cl_x}_rep{cl_rep}.json",
    params:
        settings=lambda wc: CLUSTERING[wc.cl_section],
        seed=config["seed"],
        figure=lambda wc: next(f for f, v in CLUSTERING_FIGURES.items() if v[0] == wc.cl_section),
        x_index=lambda wc: next(v[2] for v in CLUSTERING_FIGURES.values() if v[0] == wc.cl_section).index(wc.cl_x),
    log:
        "logs/clustering/{cl_section}_{cl_prefix}{cl_x}_rep{cl_rep}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_lfr_trial.py"


rule clustering_figure:
    input:
        lambda wc: clustering_trials(wc.cl_fig),
    output:
        trials="results/clustering/figure{cl_fig}_trials.csv",
        summary="results/clustering/figure{cl_fig}_summary.csv",
        png="results/clustering/figure{cl_fig}.png",
        md="results/clustering/figure{cl_fig}.md",
    params:
        settings=lambda wc: CLUSTERING[CLUSTERING_FIGURES[wc.cl_fig][0]],
    log:
        "logs/clustering/figure{cl_fig}.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/clustering_figure.py"


FINAL_TARGETS.extend(
    expand("results/clustering/{cl_table}.{ext}", cl_table=list(CLUSTERING_TABLES), ext=["csv", "md"])
    + expand("results/clustering/figure{fig}{ext}", fig=list(CLUSTERING_FIGURES),
             ext=[".png", ".md", "_summary.csv", "_trials.csv"])
)
