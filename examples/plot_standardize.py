"""
Standardize a weighted correlation and see g
=============================================

A top-weighted Kendall τ_w of two independent rankings is not centred on 0: with harmonic weights its null
mean at n = 30 is negative. The standardization g maps [-1, 1] onto itself with E[g(Γ)] = 0, so that 0
means "as expected by chance" again.
"""

import matplotlib.pyplot as plt
import numpy as np

from agreekit.ranking import standardization_function, load_table

n = 30
table = load_table("kendall_additive_harmonic")
m = table.moments(n)
g = standardization_function(n=n)  # kendall, additive, harmonic

gamma = np.linspace(-1, 1, 401)
fig, ax = plt.subplots(figsize=(5, 4))
ax.plot(gamma, g(gamma), label="g(Γ)")
ax.plot(gamma, gamma, ":", color="grey", label="identity")
ax.axvline(m.mean, color="C3", lw=0.8, label=f"null mean = {m.mean:.3f}")
ax.set_xlabel("τ_w (Γ)")
ax.set_ylabel("standardized g(Γ)")
ax.set_title(f"Kendall τ_w, harmonic weights, n = {n}")
ax.legend()
print(f"g(Γ̄) = {float(g(m.mean)):.4f}, g(0.4) = {float(g(0.4)):.4f}")
fig.tight_layout()
