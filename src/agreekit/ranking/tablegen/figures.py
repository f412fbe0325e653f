"""Figures 1–5 of the paper, regenerated from our coefficient tables (matplotlib, PNG + PDF).

1. Γ̄ (sampled + exact) against x(n) = 1/n and 1/ln n (Spearman, inverse-square weighers).
2. MSE of the candidate fits against the polynomial degree (mean), all schemes.
3. Fitted Γ̄(n) curves with the samples and exact points (Kendall mult., Spearman add.).
4. g(x) for the examples of Section 6.2.
5. p(γ) before/after standardization for the same examples (Gaussian KDE, Scott's rule × 0.35).

Schemes missing from the run (e.g. the quick config) are skipped; a panel without data says so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = ["make_figures"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "font.size": 8,
                         "svg.hashsalt": "agreekit", "pdf.compression": 6})
    return plt


def _save(fig, stem: Path):
    from agreekit._io import atomic_write

    stem.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(stem.with_suffix(".png"), "wb") as fh:
        fig.savefig(fh, format="png", metadata={"Software": None})
    with atomic_write(stem.with_suffix(".pdf"), "wb") as fh:
        fig.savefig(fh, format="pdf", metadata={"CreationDate": None, "Producer": None, "Creator": None})


def _label(t):
    return f"{t['coefficient']}/{t['scheme'][:4]}/{t['weigher']}"


def _select(tables, **kw):
    return [t for t in tables if all(t[k] == v for k, v in kw.items() if k != "family")
            and ("family" not in kw or t["weigher"].split(":")[0] == kw["family"])]


def _empty(ax, msg="no scheme of this kind in the run"):
    ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes)


def figure1(tables, out: Path):
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(8, 6), squeeze=False)
    for r, scheme in enumerate(("additive", "multiplicative")):
        sel = _select(tables, coefficient="spearman", scheme=scheme, family="inverse_square") or \
            _select(tables, scheme=scheme)
        for c, (tr, xl) in enumerate((("inv_n", "x = 1/n"), ("inv_log_n", "x = 1/ln n"))):
            ax = axes[r][c]
            if not sel:
                _empty(ax)
            for t in sel:
                n = np.asarray(t["samples"]["n"], float)
                x = 1 / n if tr == "inv_n" else 1 / np.log(n)
                ax.errorbar(x, t["samples"]["mean"], yerr=t["samples"]["se"], fmt=".", ms=3, label=_label(t))
            ax.set_xlabel(xl)
            ax.set_ylabel("sampled mean of Γ")
            ax.set_title(f"{scheme}")
            if sel:
                ax.legend(fontsize=6)
    fig.suptitle("Figure 1: sampled mean of Γ against x(n)")
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)


def figure2(tables, out: Path):
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), squeeze=False)
    for c, coef in enumerate(("spearman", "kendall")):
        ax = axes[0][c]
        sel = _select(tables, coefficient=coef)
        if not sel:
            _empty(ax)
        for t in sel:
            f = t["fits"]["mean"]
            ax.semilogy(f["candidate_degrees"], f["mse"], "o-", ms=3, label=f"{t['scheme'][:4]}/{t['weigher']} "
                                                                              f"(D={f['degree']})")
        ax.set_xlabel("polynomial degree D_γ")
        ax.set_ylabel("MSE (all training points)")
        ax.set_title(coef)
        if sel:
            ax.legend(fontsize=6)
    fig.suptitle("Figure 2: MSE of the fit of the mean against the degree")
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)


def figure3(tables, out: Path):
    from agreekit.ranking.tables import CoefficientTable

    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), squeeze=False)
    for c, (coef, scheme) in enumerate((("kendall", "multiplicative"), ("spearman", "additive"))):
        ax = axes[0][c]
        sel = _select(tables, coefficient=coef, scheme=scheme, family="inverse_square") or \
            _select(tables, coefficient=coef)
        if not sel:
            _empty(ax)
        for t in sel:
            tab = CoefficientTable(t)
            ns = np.unique(np.round(np.geomspace(2, t["n_max"], 300)).astype(int))
            curve = [tab.moments(int(n)).mean for n in ns]
            line, = ax.semilogx(ns, curve, "-", lw=1, label=_label(t))
            ax.errorbar(t["samples"]["n"], t["samples"]["mean"], yerr=t["samples"]["se"], fmt=".", ms=3,
                        color=line.get_color())
            ax.plot(t["exact"]["n"], t["exact"]["mean"], "x", ms=4, color=line.get_color())
        ax.set_xlabel("n")
        ax.set_ylabel("mean of Γ (curve: table; dots: samples; x: exact)")
        ax.set_title(f"{coef}, {scheme}")
        if sel:
            ax.legend(fontsize=6)
    fig.suptitle("Figure 3: estimated mean of Γ against n")
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)


def _examples(tables, examples):
    by = {(t["coefficient"], t["scheme"], t["weigher"]): t for t in tables}
    out = []
    for e in examples:
        t = by.get((e["coefficient"], e["scheme"], e["weigher"]))
        if t is not None:
            out.append((t, min(int(e["n"]), t["n_max"])))
    if not out and tables:
        out = [(t, min(30, t["n_max"])) for t in tables[:2]]
    return out


def figure4(tables, examples, out: Path):
    from agreekit.ranking.tables import CoefficientTable

    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 4.5))
    x = np.linspace(-1, 1, 401)
    for t, n in _examples(tables, examples):
        g = CoefficientTable(t).standardization_function(n)
        ax.plot(x, g(x), label=f"{_label(t)}, n={n}")
    ax.plot(x, x, ":", color="grey", lw=0.8)
    ax.set_xlabel("x")
    ax.set_ylabel("g(x)")
    ax.legend(fontsize=6)
    ax.set_title("Figure 4: standardization functions g(x)")
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)


def figure5(tables, examples, out: Path, *, size: int, bw_factor: float, seed: int):
    from scipy.stats import gaussian_kde

    from agreekit.ranking.tablegen.sampling import sample_coefficient, seed_sequence
    from agreekit.ranking.tables import CoefficientTable

    plt = _plt()
    ex = _examples(tables, examples)
    fig, axes = plt.subplots(1, max(1, len(ex)), figsize=(3.2 * max(1, len(ex)), 3.2), squeeze=False)
    grid = np.linspace(-1, 1, 400)
    for ax, (t, n) in zip(axes[0], ex):
        rng = np.random.Generator(np.random.PCG64(seed_sequence(seed, t["scheme_id"] + "/figure5", n)))
        gam = sample_coefficient(t["coefficient"], n=n, size=size, weigher=t["weigher"], scheme=t["scheme"], rng=rng)
        g = CoefficientTable(t).standardization_function(n)
        std = np.asarray(g(gam), float)
        for vals, style, lab in ((gam, "--", "before"), (std, "-", "after")):
            kde = gaussian_kde(vals)
            kde.set_bandwidth(kde.scotts_factor() * bw_factor)
            ax.plot(grid, kde(grid), style, label=f"{lab} (mean {vals.mean():+.3f})")
        ax.set_title(f"{_label(t)}, n={n}", fontsize=7)
        ax.set_xlabel("γ")
        ax.legend(fontsize=6)
    fig.suptitle("Figure 5: p(γ) before and after standardization (KDE, Scott × %.2f)" % bw_factor)
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)


def make_figures(tables: Sequence[Mapping], outputs: Mapping[int, str], *, examples: Sequence[Mapping],
                 kde_samples: int, kde_bw_factor: float, seed: int) -> None:
    """Write Figures 1–5; ``outputs[k]`` is the path stem (without suffix) of figure k."""
    tables = sorted(tables, key=lambda t: t["scheme_id"])
    figure1(tables, Path(outputs[1]))
    figure2(tables, Path(outputs[2]))
    figure3(tables, Path(outputs[3]))
    figure4(tables, examples, Path(outputs[4]))
    figure5(tables, examples, Path(outputs[5]), size=kde_samples, bw_factor=kde_bw_factor, seed=seed)
