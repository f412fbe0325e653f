"""
Two TREC runs, topic by topic: rank-biased overlap
==================================================

How similar are the top-10 result lists of two TREC 2003 Robust track runs, query by query? RBO (p = 0.9
gives 86% of the weight to the top 10) compares lists over different documents; its test against chance
needs the number of documents either run could have returned, here the collection size, and gives the
chance-corrected *adjusted* RBO = (RBO − E₀)/(1 − E₀) and a p-value per topic. Fisher's method combines the
topics' p-values.
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import combine_pvalues

from agreekit.ireval.metrics import read_run
from agreekit.ranking import rank_biased_overlap_test

D = "../resources/bootstrap/robust03_top100/runs"
N_DOCS = 528_155          # TREC disks 4 and 5 without the Congressional Record: the Robust 2003 collection
DEPTH, P = 10, 0.9


def top_lists(path):
    """topic -> top-DEPTH list, ranked by score (higher = better), equal scores tied (a set)."""
    _, run = read_run(path)
    out = {}
    for topic, g in run.groupby("topic", sort=False):
        g = g.sort_values("score", ascending=False, kind="mergesort")
        lst, prev = [], None
        for doc, score in zip(g["docno"], g["score"]):
            if len(lst) >= DEPTH and score != prev:
                break
            if score == prev:
                last = lst[-1]
                lst[-1] = (last | {doc}) if isinstance(last, set) else {last, doc}
            else:
                lst.append(doc)
            prev = score
        out[topic] = lst
    return out


a, b = top_lists(f"{D}/input.Sel50.gz"), top_lists(f"{D}/input.pircRBa1.gz")
topics = [t for t in a if t in b]
res = [rank_biased_overlap_test(a[t], b[t], n_items=N_DOCS, p=P, n_resamples=2000, rng=i)
       for i, t in enumerate(topics)]
ext = np.array([r.statistic for r in res])
adj = np.array([r.adjusted for r in res])
pv = np.array([r.pvalue for r in res])
print(f"{len(topics)} topics; mean RBO_ext {ext.mean():.3f}, mean adjusted {adj.mean():.3f}; "
      f"{np.mean(pv < 0.05):.0%} of the topics with p < 0.05; methods: {sorted({r.method for r in res})}")
combined = combine_pvalues(pv, method="fisher").pvalue
print("Fisher's combined p-value over topics:", f"{combined:.3g}" if combined > 0 else "below 1e-300")

order = np.argsort(ext)
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.bar(range(len(topics)), ext[order], color=np.where(pv[order] < 0.05, "tab:red", "tab:grey"))
ax.plot(range(len(topics)), adj[order], "k.", ms=3, label="adjusted RBO")
ax.set_xlabel("topics, sorted by RBO_ext")
ax.set_ylabel(f"RBO_ext of the top {DEPTH} (p = {P})")
ax.set_title("Sel50 vs pircRBa1 (red: p < 0.05 against independent random rankings)", fontsize=9)
ax.legend(loc="upper left")
fig.tight_layout()
