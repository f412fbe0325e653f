"""
How sure is the consensus of the sports data?
=============================================

130 people ranked seven sports (ConsRank's ``sports`` data). The exact Kemeny consensus is unique,
but how many of the judges' resamples would choose it again? ``bootstrap_consensus`` resamples the
judges 200 times with replacement and solves every consensus exactly. The left panel is the
precedence matrix: the fraction of resamples whose consensus puts the row sport strictly before the
column sport. The right panel shows each sport's position in the resampled consensus: its mean
and 95 % percentile interval, with the full-data position as a cross.
"""

import matplotlib.pyplot as plt
import numpy as np

from agreekit.consensus import bootstrap_consensus, kendall_w, top_down_concordance
from agreekit.datasets import load_sports

data = load_sports()
res = bootstrap_consensus(data, n_resamples=200, rng=0)
w = kendall_w(data)
ct = top_down_concordance(data)
print(f"consensus: {res.to_dict()['consensus'][0]}")
print(f"support: {res.support:.3f}; {len(res.orderings)} distinct consensus orderings")
print(
    f"Kendall's W = {w.statistic:.3f} (p = {w.pvalue:.2g}, {w.method}); "
    f"top-down C_T = {ct.statistic:.3f} (p = {ct.pvalue:.2g}, {ct.method})"
)
table = res.to_frame()
print(table.round(2).to_string(index=False))

order = np.lexsort((np.arange(len(res.labels)), res.consensus[0]))  # consensus order, best first
labels = [res.labels[i] for i in order]
P = res.precedence[np.ix_(order, order)].copy()
np.fill_diagonal(P, np.nan)  # an item is never before itself: left blank

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.3), gridspec_kw={"width_ratios": [1.15, 1]})
cmap = plt.get_cmap("viridis").copy()
cmap.set_bad("lightgrey")
im = ax1.imshow(P, cmap=cmap, vmin=0, vmax=1)
ax1.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
ax1.set_yticks(range(len(labels)), labels)
for i in range(len(labels)):
    for j in range(len(labels)):
        if i != j:
            ax1.text(
                j,
                i,
                f"{P[i, j]:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if P[i, j] < 0.6 else "black",
            )
ax1.set_xlabel("column sport")
ax1.set_ylabel("row sport")
ax1.set_title("P(row sport before column sport)", fontsize=10)
fig.colorbar(im, ax=ax1, fraction=0.046, pad=0.04, label="fraction of resamples")

y = np.arange(len(labels))
ax2.errorbar(
    table.mean_position,
    y,
    xerr=[table.mean_position - table.position_low, table.position_high - table.mean_position],
    fmt="o",
    color="C0",
    capsize=3,
    label="mean position, 95 % interval",
)
ax2.plot(table.consensus_rank, y, "x", color="C3", markersize=8, label="full-data consensus")
ax2.set_yticks(y, table["item"])
ax2.invert_yaxis()
ax2.set_xticks(range(1, len(labels) + 1))
ax2.set_xlabel("position in the consensus (1 = top)")
ax2.set_title(f"position over {res.n_resamples} judge resamples (support {res.support:.3f})", fontsize=10)
ax2.legend(loc="lower left", fontsize=8)
fig.tight_layout()
