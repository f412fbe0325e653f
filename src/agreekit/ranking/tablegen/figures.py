"""Figures 1–5 of the paper, regenerated from our coefficient tables (matplotlib, PNG + PDF).

1. Γ̄ (sampled ± 2 SE) against x(n) = 1/n and 1/ln n (Spearman, inverse-square weighers), with
   the residuals from the table's fit below (so the error bars are visible).
2. The degree-selection criterion of the fit of the mean against the degree, all schemes.
3. Table Γ̄(n): exact values to n_exact, the fit from n_exact on (the hand-over is marked), the
   samples, and their residuals in SE units (Kendall mult., Spearman add.).
4. g(x) for the examples of Section 6.2, for both g0 rules of the corrected form and the paper's form.
5. p(γ) before/after standardization for the same examples and the same three g (Gaussian KDE,
   Scott's rule × 0.35), so the spike of Algorithm 1's degenerate g and its removal are visible.

Schemes missing from the run (e.g. the quick config) are skipped; a panel without data says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from agreekit._optional import pyplot
from agreekit._io import atomic_write
from agreekit.ranking._spec import parse_weigher
from agreekit.ranking._vocabulary import COEFFICIENT_REGISTRY
from agreekit.ranking.standardization import StandardizationFunction
from agreekit.ranking.tablegen.sampling import sample_stream
from agreekit.ranking.tables import CoefficientTable

__all__ = ["make_figures"]


def _plt():
    plt = pyplot("the ranking figures")

    plt.rcParams.update(
        {"figure.dpi": 100, "savefig.dpi": 150, "font.size": 8, "svg.hashsalt": "agreekit", "pdf.compression": 6}
    )
    return plt


def _finish(fig, out: Path, title: str) -> None:
    """Title, layout, write (PNG and PDF) and close a figure."""
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, out)
    _plt().close(fig)


def _save(fig, stem: Path):
    stem.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(stem.with_suffix(".png"), "wb") as fh:
        fig.savefig(fh, format="png", metadata={"Software": None})
    with atomic_write(stem.with_suffix(".pdf"), "wb") as fh:
        fig.savefig(fh, format="pdf", metadata={"CreationDate": None, "Producer": None, "Creator": None})


_COEF = {name: c.label for name, c in COEFFICIENT_REGISTRY.items()}
_XLABEL = {"inv_n": "1/n", "inv_log_n": "1/ln n", "inv_sqrt_n": "n^-1/2", "inv_cbrt_n": "n^-1/3"}
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _weigher_text(w: str) -> str:
    """``f(i) = <the family's label>``, an integer power as a superscript (``f(i) = 1/(i+1)²``)."""
    label = re.sub(r"\^(\d+)$", lambda m: m.group(1).translate(_SUPERSCRIPT), parse_weigher(w).label)
    return f"f(i) = {label}"


def _label(t):
    """Legend label: scheme and weigher (the panel title names the coefficient)."""
    return f"{t['scheme']}, {_weigher_text(t['weigher'])}"


def _full(t):
    """Title text naming coefficient, scheme and weigher."""
    return f"{_COEF[t['coefficient']]}, {t['scheme']}, {_weigher_text(t['weigher'])}"


def _select(tables, **kw):
    return [
        t
        for t in tables
        if all(t[k] == v for k, v in kw.items() if k != "family")
        and ("family" not in kw or t["weigher"].split(":")[0] == kw["family"])
    ]


def _empty(ax, msg="no scheme of this kind in the run"):
    ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes)


def _fitted(t, ns, q="mean"):
    tab = CoefficientTable(t)
    vals, ses = [], []
    for n in ns:
        m = tab.moments(int(n), extrapolate=True)
        vals.append(getattr(m, q))
        ses.append(getattr(m, f"{q}_se"))
    return np.asarray(vals), np.asarray(ses)


def _figure1(tables, out: Path):
    """Sampled mean of Γ against x = 1/n and x = 1/ln n, with residuals from the table's fit below."""
    plt = _plt()
    fig = plt.figure(figsize=(9, 8.5))
    gs = fig.add_gridspec(4, 2, height_ratios=[3, 1.4, 3, 1.4])
    for r, scheme in enumerate(("additive", "multiplicative")):
        sel = _select(tables, coefficient="spearman", scheme=scheme, family="inverse_square") or _select(
            tables, scheme=scheme
        )
        coef = sel[0]["coefficient"] if sel else "spearman"
        for c, (tr, xl) in enumerate((("inv_n", "x = 1/n"), ("inv_log_n", "x = 1/ln n"))):
            ax = fig.add_subplot(gs[2 * r, c])
            axr = fig.add_subplot(gs[2 * r + 1, c], sharex=ax)
            if not sel:
                _empty(ax)
            for t in sel:
                n = np.asarray(t["samples"]["n"], float)
                x = 1 / n if tr == "inv_n" else 1 / np.log(n)
                mean = np.asarray(t["samples"]["mean"])
                se = np.asarray(t["samples"]["se"])
                eb = ax.errorbar(x, mean, yerr=2 * se, fmt=".", ms=3, capsize=1.5, lw=0.8, label=_label(t))
                fit, _ = _fitted(t, n)
                axr.errorbar(
                    x,
                    (mean - fit) * 1e3,
                    yerr=2 * se * 1e3,
                    fmt=".",
                    ms=3,
                    capsize=1.5,
                    lw=0.8,
                    color=eb[0].get_color(),
                )
            axr.axhline(0, color="grey", lw=0.6)
            ax.set_ylabel("sampled mean Γ̄ (± 2 SE)")
            ax.set_title(f"{_COEF[coef]}, {scheme} scheme, against {xl}")
            axr.set_xlabel(xl)
            axr.set_ylabel("Γ̄ − fit (×10⁻³)")
            ax.tick_params(labelbottom=True)
            ax.set_xlabel(xl)
            if sel:
                ax.legend(fontsize=6)
    _finish(fig, out, "Figure 1: sampled mean of Γ against x(n); lower panels: sample minus the table's fit (± 2 SE)")


def _figure2(tables, out: Path):
    """Degree-selection criterion of the fit of the mean against the degree."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), squeeze=False)
    for c, coef in enumerate(("spearman", "kendall")):
        ax = axes[0][c]
        sel = _select(tables, coefficient=coef)
        if not sel:
            _empty(ax)
        methods = set()
        for t in sel:
            f = t["fits"]["mean"]
            methods.add(f.get("method", "paper_4.2.3"))
            (line,) = ax.semilogy(
                f["candidate_degrees"],
                f["mse"],
                "o-",
                ms=3,
                lw=0.8,
                label=f"{_label(t)} (x = {_XLABEL.get(f['transform'], f['transform'])}, chosen D = {f['degree']})",
            )
            k = f["candidate_degrees"].index(f["degree"])
            ax.plot([f["degree"]], [f["mse"][k]], "s", ms=7, mfc="none", color=line.get_color())
        ax.set_xlabel("polynomial degree D_γ of the fit of the mean of Γ")
        if methods == {"held_out_loo"}:
            ax.set_ylabel("leave-one-out error (mean of (residual/SE)²)")
        else:
            ax.set_ylabel("MSE over all training points (Section 4.2.3)")
        ax.set_title(f"{_COEF[coef]}: fit of the mean, all schemes (squares: chosen degree)")
        if sel:
            ax.legend(fontsize=6)
    _finish(fig, out, "Figure 2: degree-selection criterion of the fit of the mean against the degree")


def _figure3(tables, out: Path):
    """Table mean Γ̄(n): exact values up to n_exact, then the fit; residuals in SE units below."""
    plt = _plt()
    fig = plt.figure(figsize=(10, 6.5))
    gs = fig.add_gridspec(2, 2, height_ratios=[3, 1.6])
    for c, (coef, scheme) in enumerate((("kendall", "multiplicative"), ("spearman", "additive"))):
        ax = fig.add_subplot(gs[0, c])
        axr = fig.add_subplot(gs[1, c], sharex=ax)
        sel = _select(tables, coefficient=coef, scheme=scheme, family="inverse_square") or _select(
            tables, coefficient=coef
        )
        if not sel:
            _empty(ax)
        for t in sel:
            ne = int(t["n_exact"])
            ns = np.unique(np.round(np.geomspace(ne, t["n_max"], 300)).astype(int))
            curve, cse = _fitted(t, ns)
            ex_n = np.asarray(t["exact"]["n"])
            ex_m = np.asarray(t["exact"]["mean"])
            (line,) = ax.semilogx(ex_n, ex_m, "-", lw=1)
            col = line.get_color()
            ax.plot(ex_n, ex_m, "x", ms=4, color=col)
            # the fit from n_exact on, so the hand-over n_exact -> n_exact + 1 is drawn as it is
            ax.semilogx(ns, curve, "-", lw=1, color=col, label=_label(t))
            n = np.asarray(t["samples"]["n"], float)
            mean = np.asarray(t["samples"]["mean"])
            se = np.asarray(t["samples"]["se"])
            ax.errorbar(n, mean, yerr=2 * se, fmt=".", ms=3, capsize=1.5, lw=0.8, color=col)
            fit, _ = _fitted(t, n)
            axr.errorbar(n, (mean - fit) / se, yerr=2.0, fmt=".", ms=3, capsize=1.5, lw=0.6, color=col)
            if np.all(np.isfinite(cse)):
                fit_n = ns > ne
                axr.plot(
                    ns[fit_n],
                    2 * cse[fit_n] / np.interp(np.log(ns[fit_n]), np.log(n), se),
                    "-",
                    lw=0.6,
                    color=col,
                    alpha=0.6,
                )
        ax.axvline(sel[0]["n_exact"] + 0.5 if sel else 10.5, color="grey", lw=0.6, ls=":")
        axr.axhline(0, color="grey", lw=0.6)
        ax.set_xlabel("ranking length n")
        ax.set_ylabel("mean of Γ (x exact, · sampled ± 2 SE, line: table)")
        ax.set_title(f"{_COEF[coef]}, {scheme} scheme (dotted: exact → fit)")
        axr.set_xlabel("ranking length n")
        axr.set_ylabel("(sample − fit) / SE")
        if sel:
            ax.legend(fontsize=6)
    _finish(
        fig,
        out,
        "Figure 3: mean of Γ against n; lower panels: residuals of the samples in SE units "
        "(bars ± 2; thin lines: 2 × fit SE / sample SE)",
    )


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


def _g_variants(m):
    """[(label, style, g or exception)] for the corrected form with each g0 rule and the paper form."""
    import inspect

    has_rule = "g0_rule" in inspect.signature(StandardizationFunction.from_moments).parameters
    specs = [
        ("corrected, g0 max–min slope", "-", {"form": "corrected", "g0_rule": "max_min_slope"}),
        ("corrected, g0 closest to 0 (Alg. 1)", "-.", {"form": "corrected", "g0_rule": "closest_to_zero"}),
        ("paper Eq. 30/32 (biased)", ":", {"form": "paper"}),
    ]
    out = []
    for lab, style, kw in specs:
        if "g0_rule" in kw and not has_rule:
            if kw["g0_rule"] == "max_min_slope":
                continue
            kw = {"form": "corrected"}
        try:
            out.append((lab, style, StandardizationFunction.from_moments(m.mean, m.var, m.left_var, **kw)))
        except ValueError as exc:
            out.append((lab, style, exc))
    return out


def _min_slope(g):
    x = np.linspace(-1, 1, 2001)
    return float(np.min(g.derivative(x))) if hasattr(g, "derivative") else float("nan")


def _panels(tables, examples, width: float, height: float):
    """(examples, figure, axes): one panel of ``width`` x ``height`` inches per example (at least one)."""
    ex = _examples(tables, examples)
    k = max(1, len(ex))
    fig, axes = _plt().subplots(1, k, figsize=(width * k, height), squeeze=False)
    return ex, fig, axes


def _figure4(tables, examples, out: Path):
    """g(x) of each example for both g0 rules and the paper's form."""
    ex, fig, axes = _panels(tables, examples, 3.4, 3.8)
    x = np.linspace(-1, 1, 401)
    for ax, (t, n) in zip(axes[0], ex):
        m = CoefficientTable(t).moments(n)
        for lab, style, g in _g_variants(m):
            if isinstance(g, Exception):
                ax.plot([], [], style, label=f"{lab}: {type(g).__name__}")
                continue
            ax.plot(x, g(x), style, lw=1.2, label=f"{lab} (min g′ {_min_slope(g):.2f})")
        ax.plot(x, x, color="grey", lw=0.5)
        ax.axvline(m.mean, color="grey", lw=0.5, ls="--")
        ax.set_xlabel("x (value of Γ; dashed line: mean of Γ)")
        ax.set_ylabel("g(x)")
        ax.set_title(f"{_full(t)}, n = {n}", fontsize=7)
        ax.legend(fontsize=5.5, loc="upper left")
    if not ex:
        _empty(axes[0][0])
    _finish(fig, out, "Figure 4: standardization functions g(x) (grey: identity)")


def _figure5(tables, examples, out: Path, *, size: int, bw_factor: float, seed: int):
    """p(γ) before and after standardization with both g0 rules and the paper's form."""
    from scipy.stats import gaussian_kde

    ex, fig, axes = _panels(tables, examples, 3.6, 3.9)
    grid = np.linspace(-1, 1, 801)
    for ax, (t, n) in zip(axes[0], ex):
        gam = sample_stream(
            t["coefficient"], n=n, size=size, weigher=t["weigher"], scheme=t["scheme"], seed=seed, purpose="figure5"
        )
        m = CoefficientTable(t).moments(n)
        curves = [("before: Γ", "--", gam, "grey")]
        for lab, style, g in _g_variants(m):
            if not isinstance(g, Exception):
                curves.append((lab, style, np.asarray(g(gam), float), None))
        top = 0.0
        peaks = []
        for lab, style, vals, col in curves:
            kde = gaussian_kde(vals)
            kde.set_bandwidth(kde.scotts_factor() * bw_factor)
            dens = kde(grid)
            spike = float(np.mean(np.abs(vals) < 0.02))
            (line,) = ax.plot(
                grid,
                dens,
                style,
                lw=1.1,
                color=col,
                label=f"{lab}: mean {vals.mean():+.3f}, {100 * spike:.0f}% in |·|<0.02",
            )
            peaks.append((dens.max(), line.get_color(), lab))
            if "closest" not in lab:
                top = max(top, dens.max())
        ax.set_ylim(0, 1.25 * top if top > 0 else None)
        for pk, col, lab in peaks:
            if pk > 1.25 * top:
                ax.text(
                    0.98,
                    0.6,
                    f"Alg. 1 peak {pk:.1f}\n(off scale)",
                    transform=ax.transAxes,
                    fontsize=6,
                    color=col,
                    ha="right",
                    va="top",
                )
        ax.set_title(f"{_full(t)}, n = {n}", fontsize=7)
        ax.set_xlabel("γ (raw Γ, or g(Γ) after standardization)")
        ax.set_ylabel("density p(γ)")
        ax.legend(fontsize=5, loc="upper left")
    if not ex:
        _empty(axes[0][0])
    _finish(
        fig,
        out,
        "Figure 5: p(γ) before and after standardization, by g0 rule "
        "(Gaussian KDE, Scott × %.2f; %d permutations)" % (bw_factor, size),
    )


def make_figures(
    tables: Sequence[Mapping],
    outputs: Mapping[int, str],
    *,
    examples: Sequence[Mapping],
    kde_samples: int,
    kde_bw_factor: float,
    seed: int,
) -> None:
    """Write Figures 1–5; ``outputs[k]`` is the path stem (without suffix) of figure k."""
    tables = sorted(tables, key=lambda t: t["scheme_id"])
    _figure1(tables, Path(outputs[1]))
    _figure2(tables, Path(outputs[2]))
    _figure3(tables, Path(outputs[3]))
    _figure4(tables, examples, Path(outputs[4]))
    _figure5(tables, examples, Path(outputs[5]), size=kde_samples, bw_factor=kde_bw_factor, seed=seed)
