"""
Metric agreement on a TREC collection
=====================================

Do AP, P@10 and RR rank the 129 TREC-8 ad hoc runs alike, and do they agree on the *top* runs? Kendall's
τ_b weighs every pair of runs alike; the standardized top-weighted τ_w (harmonic weights) looks at the top.
Bootstrap standard errors come from the same topic samples for every metric.
"""

import matplotlib.pyplot as plt

from agreekit.datasets import load_trec_scores
from agreekit.metaeval import metric_agreement

scores = {name: load_trec_scores(key) for name, key in (("AP", "ap"), ("P@10", "p10"), ("RR", "rr"))}
res = metric_agreement(scores, n_resamples=100, rng=2006)
table = res.to_frame()
print(table[["metric_a", "metric_b", "tau_b", "tau_b_se", "tau_w_standardized"]].round(3))

labels = [f"{a} / {b}" for a, b in zip(table["metric_a"], table["metric_b"])]
fig, ax = plt.subplots(figsize=(5, 3.5))
x = range(len(labels))
ax.errorbar([i - 0.1 for i in x], table["tau_b"], yerr=table["tau_b_se"], fmt="o", label="τ_b ± SE")
ax.errorbar(
    [i + 0.1 for i in x],
    table["tau_w_standardized"],
    yerr=table["tau_w_standardized_se"],
    fmt="s",
    label="g(τ_w) ± SE (top-weighted)",
)
ax.set_xticks(list(x), labels)
ax.set_xlabel("pair of metrics")
ax.set_ylabel("agreement of the run rankings")
ax.set_title("Do AP, P@10 and RR rank the 129 TREC-8 runs alike?", fontsize=10)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=8, frameon=False)  # below the axes
fig.tight_layout()
