"""
LFR benchmark: AMI and overlapping NMI against the mixing μ
===========================================================

On an LFR benchmark graph the mixing μ is the share of each node's edges that leave its community: at small
μ the planted communities are plain to see, towards μ = 0.5 and beyond they dissolve into the rest of the
graph. Louvain (python-igraph's multilevel algorithm, as in the seed's Figure 7) runs on graphs of n = 300
nodes at six values of μ from 0.2 to 0.7, three graphs each, and what it finds is scored against the planted communities with
the adjusted mutual information (AMI, chance-corrected; equals scikit-learn's ``adjusted_mutual_info_score``)
and the overlapping NMI of covers (ONMI: the LFK variant, the seed's NMI′, and the MGH variant, NMI″; on
partitions neither equals the classic NMI). Every graph and every Louvain run has its own stream, spawned from
one ``SeedSequence``.
"""

import matplotlib.pyplot as plt
import numpy as np

from agreekit.clustering import adjusted_mutual_info, lfr_benchmark, overlapping_nmi
from agreekit.clustering.experiments import detect_communities

n, repeats = 300, 3
mus = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
streams = np.random.SeedSequence(2015).spawn(len(mus) * repeats)
scores = {"AMI": [], "ONMI, LFK (NMI′)": [], "ONMI, MGH (NMI″)": []}
for i, mu in enumerate(mus):
    rows = []
    for ss in streams[i * repeats : (i + 1) * repeats]:
        graph_ss, louvain_ss = ss.spawn(2)
        g = lfr_benchmark(
            n, mu=mu, average_degree=15, max_degree=40, min_community=20, max_community=60, rng=graph_ss, progress=False
        )
        truth = g.labels()
        found = detect_communities(n, g.edges, "louvain", rng=louvain_ss)
        rows.append(
            (
                adjusted_mutual_info(truth, found),
                overlapping_nmi(truth, found),
                overlapping_nmi(truth, found, variant="mgh"),
            )
        )
    for name, col in zip(scores, np.array(rows).T):
        scores[name].append((col.mean(), col.std(ddof=1)))
    print(f"mu = {mu:.1f}: " + ", ".join(f"{name} {vals[-1][0]:.3f}" for name, vals in scores.items()))

fig, ax = plt.subplots(figsize=(5.5, 4))
for (name, vals), marker, shift in zip(scores.items(), "osD", (-0.008, 0, 0.008)):
    mean, sd = np.array(vals).T
    ax.errorbar(np.add(mus, shift), mean, yerr=sd, marker=marker, capsize=3, label=name)  # shifted to be seen
ax.set_xlabel("mixing μ of the LFR graph")
ax.set_ylabel(f"agreement with the planted communities\n(mean ± SD over {repeats} graphs)")
ax.set_title(f"Louvain on LFR graphs, n = {n}")
ax.set_ylim(-0.05, 1.05)
ax.legend(loc="lower left")
fig.tight_layout()
