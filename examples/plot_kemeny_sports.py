"""
Kemeny consensus of the sports data
===================================

130 people ranked seven sports (ConsRank's ``sports`` data). The exact Kemeny consensus, searched over all
47293 weak orders, is unique; each judge's τ_x with it shows how far the crowd agrees.
"""

import matplotlib.pyplot as plt
import numpy as np

from agreekit.consensus import kemeny, tau_x
from agreekit.datasets import load_sports

data = load_sports()
res = kemeny(data, method="exact")
print(f"consensus {res.orderings}, average τ_x = {res.average_tau_x:.4g}, proven optimal: {res.proven}")

consensus = res.solutions[0]
taus = np.array([tau_x(row, consensus) for row in data.X])
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.hist(taus, bins=20, color="C2")
ax.axvline(res.average_tau_x, color="k", ls="--", label=f"average τ_x = {res.average_tau_x:.3f}")
ax.set_xlabel("τ_x of a judge with the consensus")
ax.set_ylabel("judges")
ax.set_title(f"Consensus: {res.orderings[0]}", fontsize=8)
ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()
