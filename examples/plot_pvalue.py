"""
p-value of a top-weighted correlation
=====================================

``scipy.stats.weightedtau`` has no p-value. ``weighted_correlation_test`` computes the exact null distribution
over all n! permutations (here n = 8, 40320 permutations) and reads the p-value off it.
"""

import matplotlib.pyplot as plt

from agreekit import weighted_correlation_test
from agreekit.ranking import exact_null_distribution

x = [1, 2, 3, 4, 5, 6, 7, 8]
y = [1, 3, 2, 4, 6, 5, 8, 7]
res = weighted_correlation_test(x, y, alternative="greater")
null = exact_null_distribution("kendall", n=8, weigher="harmonic", scheme="additive")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.hist(null, bins=80, color="C0", alpha=0.8)
ax.axvline(res.statistic, color="C3", label=f"τ_w = {res.statistic:.3f}, p = {res.pvalue:.4f}")
ax.set_xlabel("τ_w under independence (all 8! permutations)")
ax.set_ylabel("count")
ax.set_title("Exact null distribution of τ_w, n = 8", fontsize=10)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, frameon=False)  # below the axes
print(f"method: {res.method}, τ_w = {res.statistic:.4g}, p = {res.pvalue:.4g}")
fig.tight_layout()
