"""Generation of the coefficient tables: exact moments + Monte Carlo + fits → one JSON per scheme.

This is the library side of the Snakemake pipeline (``workflow/rules/ranking*.smk``):
the rules are thin adapters over the functions here, so everything can also be run
from Python.  One *scheme* is a (coefficient, combination scheme, weigher) triple; its
*settings* (:func:`scheme_settings`) are everything that determines its table — the
training grid, sample sizes, x(n) transforms, degree-selection rule, n_exact, n_max and
the global seed — and nothing else, so adding a scheme to the config leaves the other
tables (and their config hashes) unchanged.

Stages (Sections 4–5 of the paper):

1. :func:`exact_stage` — Γ̄, V, V^ℓ for n = 2..n_exact by enumeration
   (:func:`agreekit.ranking.moments.exact_moments`).
2. :func:`sample_stage` — Γ(id, π) for ``N_sample(n)`` random π at every training n.
3. :func:`fit_stage` — mean: inverse-variance WLS + degree selection; V, V^ℓ: Eq. 38
   around the *fitted* mean, unweighted fits + degree selection.
4. :func:`assemble_table` — the versioned JSON table with provenance and checksum.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agreekit._validation import InputError
from agreekit.ranking.tablegen.fitting import fit_with_covariance, select_degree, select_fit_held_out, x_of_n
from agreekit.ranking.tablegen.sampling import quantile_probs, sample_lanes, sample_size, stream_key, training_grid

# scheme_id re-exported: the project-wide id
from agreekit.ranking.weighting import COEFFICIENT_REGISTRY, parse_weigher, scheme_id
from agreekit import __version__
from agreekit._io import to_jsonable
from agreekit.ranking.moments import exact_moments
from agreekit.ranking.tables import SCHEMA_VERSION, load_table, shipped_tables_dir, table_checksum

__all__ = [
    "QUANTITIES",
    "SchemeSpec",
    "scheme_id",
    "schemes_from_config",
    "scheme_settings",
    "config_hash",
    "check_ranking_config",
    "batches_from_schemes",
    "exact_stage",
    "sample_stage",
    "sample_batch_stage",
    "summarize_for_fit",
    "summaries_to_arrays",
    "summaries_from_arrays",
    "fit_stage",
    "quantile_grid",
    "quantile_settings",
    "quantile_batch_stage",
    "quantile_block_to_arrays",
    "quantile_block_from_arrays",
    "shipped_table_path",
    "shipped_quantiles",
    "verify_quantile_block",
    "verify_lengths",
    "assemble_table",
]

QUANTITIES = ("mean", "var", "left_var")


def _parse(weigher):
    return parse_weigher(weigher)


@dataclass(frozen=True)
class SchemeSpec:
    """One configured scheme: coefficient, combination scheme, canonical weigher spec, x(n) per quantity."""

    coefficient: str
    scheme: str
    weigher: str
    family: str
    transforms: tuple[tuple[str, str], ...]
    batch: str | None = None

    @property
    def id(self) -> str:
        return scheme_id(self.coefficient, self.scheme, self.weigher)

    def transform(self, quantity: str) -> str:
        return dict(self.transforms)[quantity]


def _match(rule: Mapping, coefficient: str, scheme: str, family: str) -> bool:
    return all(
        rule.get(k) in (None, v) for k, v in (("coefficient", coefficient), ("scheme", scheme), ("family", family))
    )


def check_ranking_config(cfg: Mapping) -> None:
    """Cross-field checks the JSON schema cannot express; errors name the config key."""
    _check_figure_examples(cfg)
    g = cfg["grid"]
    for coef, a_max in g["a_max"].items():
        if g["a_min"] > a_max:
            raise InputError("ranking.grid.a_min", f"({g['a_min']}) must be <= ranking.grid.a_max.{coef} ({a_max})")
    ds = cfg["degree_selection"]
    if ds["min_degree"] > ds["max_degree"]:
        raise InputError("ranking.degree_selection.min_degree", "must be <= max_degree")
    for coef in COEFFICIENT_REGISTRY:
        grid = training_grid(g["q"], g["a_min"], g["a_max"][coef])
        if grid and grid[0] <= cfg["n_exact"]:
            raise InputError(
                "ranking.grid.a_min",
                f"gives n = {grid[0]} <= ranking.n_exact = {cfg['n_exact']}; the "
                "training grid must start above n_exact",
            )
        npos = len(grid) if ds["fit_subset"] == "all" else (len(grid) + 1) // 2
        if npos < ds["max_degree"] + 1:
            raise InputError(
                "ranking.degree_selection.max_degree",
                f"({ds['max_degree']}) needs {ds['max_degree'] + 1} fitting points; the {coef} grid gives {npos}",
            )
        if grid and grid[-1] > cfg["n_max"][coef]:
            raise InputError(f"ranking.n_max.{coef}", f"must be >= the largest training n ({grid[-1]})")
        if "quantiles" in cfg and grid:
            qc = cfg["quantiles"]
            if qc["dense_upto"] < grid[0]:
                raise InputError(
                    "ranking.quantiles.dense_upto", f"({qc['dense_upto']}) must be >= the first training n ({grid[0]})"
                )
            stored = set(quantile_grid(grid[0], qc["dense_upto"], qc["q"], cfg["n_max"][coef]))
            for n in qc["check"]["n"][coef]:
                if n in stored:
                    raise InputError(
                        f"ranking.quantiles.check.n.{coef}",
                        f"holds n = {n}, a stored length of the quantile grid (the check needs held-out n)",
                    )
                if not grid[0] <= n <= cfg["n_max"][coef]:
                    raise InputError(
                        f"ranking.quantiles.check.n.{coef}",
                        f"holds n = {n}, outside the quantile range {grid[0]}..{cfg['n_max'][coef]}",
                    )
        rules = cfg["sample_size"][coef]
        if isinstance(rules, Mapping):
            if not rules.get("target_se", 0) > 0:
                raise InputError(f"ranking.sample_size.{coef}.target_se", "must be > 0")
            rules = rules["min_size"]
            where = f"ranking.sample_size.{coef}.min_size"
        else:
            where = f"ranking.sample_size.{coef}"
        for i, rule in enumerate(rules):
            if rule["size"] < 2:
                raise InputError(f"{where}[{i}].size", "must be >= 2")


def schemes_from_config(cfg: Mapping) -> list[SchemeSpec]:
    """The configured schemes, weigher specs parsed and canonicalised, x(n) rules resolved."""
    out: list[SchemeSpec] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(cfg["schemes"]):
        try:
            w = _parse(row["weigher"])
        except (ValueError, TypeError) as exc:
            raise InputError(f"ranking.schemes[{i}].weigher", f"is invalid: {exc}") from None
        family = w.spec.split(":", 1)[0]
        transforms = []
        for q in QUANTITIES:
            override = (row.get("transform") or {}).get(q)
            if override is None:
                rules = cfg["transform"][q]
                hit = next((r for r in rules if _match(r, row["coefficient"], row["scheme"], family)), None)
                if hit is None:
                    raise InputError(f"ranking.transform.{q}", f"has no rule for scheme {i}; end it with a catch-all")
                override = hit["x"]
            transforms.append((q, override))
        spec = SchemeSpec(row["coefficient"], row["scheme"], w.spec, family, tuple(transforms), row.get("batch"))
        if spec.id in seen:
            raise InputError(f"ranking.schemes[{i}]", f"duplicates ranking.schemes[{seen[spec.id]}] ({spec.id})")
        seen[spec.id] = i
        out.append(spec)
    return out


def batches_from_schemes(specs) -> dict[str, list[str]]:
    """``{batch id: [scheme ids]}`` for schemes carrying a ``batch`` name; the id is ``<coefficient>-<batch>``.

    Schemes of different coefficients never share a batch (their streams differ).
    """
    out: dict[str, list[str]] = {}
    for s in specs:
        if s.batch is not None:
            out.setdefault(f"{s.coefficient}-{s.batch}", []).append(s.id)
    return out


def scheme_settings(cfg: Mapping, spec: SchemeSpec, seed: int) -> dict:
    """Everything that determines one scheme's table, as a JSON-able dict (the table's provenance)."""
    g = cfg["grid"]
    grid = training_grid(g["q"], g["a_min"], g["a_max"][spec.coefficient])
    rules = cfg["sample_size"][spec.coefficient]
    if isinstance(rules, Mapping):
        sizes = {
            "target_se": float(rules["target_se"]),
            "min_size": [sample_size(n, rules["min_size"]) for n in grid],
            "max_elements": int(rules.get("max_elements", 10**18)),
        }
    else:
        sizes = [sample_size(n, rules) for n in grid]
    return {
        "coefficient": spec.coefficient,
        "scheme": spec.scheme,
        "weigher": spec.weigher,
        "n_exact": int(cfg["n_exact"]),
        "grid": {"q": float(g["q"]), "a_min": int(g["a_min"]), "a_max": int(g["a_max"][spec.coefficient]), "n": grid},
        "sample_size": sizes,
        "sampler": "shared-stream-v1",
        "transform": dict(spec.transforms),
        "degree_selection": {
            **{
                k: cfg["degree_selection"][k]
                for k in ("min_degree", "max_degree", "ratio_improve", "ratio_lookahead", "fit_subset")
            },
            "method": cfg["degree_selection"].get("method", "paper"),
            **(
                {"transforms": list(cfg["degree_selection"]["transforms"])}
                if "transforms" in cfg["degree_selection"]
                else {}
            ),
        },
        "n_max": int(cfg["n_max"][spec.coefficient]),
        "seed": int(seed),
        **({"quantiles": quantile_settings(cfg, spec.coefficient, grid)} if "quantiles" in cfg else {}),
    }


def _canonical(obj) -> bytes:
    return json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def config_hash(settings: Mapping) -> str:
    """``"sha256:<hex>"`` of the canonical JSON of a scheme's settings."""
    return "sha256:" + hashlib.sha256(_canonical(settings)).hexdigest()


# ----------------------------------------------------------------------------------- stages


def exact_stage(settings: Mapping) -> dict:
    """Exact Γ̄, V, V^ℓ for n = 2..n_exact (JSON-able dict of lists)."""
    ns = list(range(2, settings["n_exact"] + 1))
    res = {"n": ns, "mean": [], "var": [], "left_var": []}
    for n in ns:
        m = exact_moments(settings["coefficient"], n=n, weigher=settings["weigher"], scheme=settings["scheme"])
        res["mean"].append(float(m.mean))
        res["var"].append(float(m.var))
        res["left_var"].append(float(m.left_var))
    return res


#: variance assumed for sizing the first training n of a target-SE rule (an upper bound in practice)
_FIRST_VAR = 0.3


def _size_at(settings: Mapping, k: int, prev_var: float | None) -> int:
    """N_sample at the k-th training n: a fixed rule list, or sized to the target SE of the mean.

    Target-SE form: ``max(min_size, min(ceil(V / target_se**2), max_elements // n))`` with V the
    variance of the same scheme's sample at the previous training n (V falls with n, so this is
    conservative) — so a scheme's sizes depend on its own samples only.
    """
    rule = settings["sample_size"]
    if not isinstance(rule, Mapping):
        return int(rule[k])
    n = settings["grid"]["n"][k]
    v = _FIRST_VAR if prev_var is None else prev_var
    want = int(np.ceil(v / rule["target_se"] ** 2))
    return int(max(rule["min_size"][k], min(want, rule["max_elements"] // n)))


def summarize_for_fit(gammas: np.ndarray, *, window: float | None = None) -> dict:
    """What the fits need from one sample, without keeping the sample.

    Mean, its SE, central moments, the null quantiles, and the sorted values within
    ``mean ± window`` together with sums over the values below that window, so that Eq. 38's
    v^ℓ around any centre c inside the window is exact:
    ``N v^ℓ(c) = S2 - 2 d S1 + d² S0 + Σ_{lo <= x < c} (x - c)²`` with ``d = c - mean`` and the sums
    over ``x < lo`` of ``(x - mean)^k``.  ``window`` defaults to ``8 SE + 1e-3``.
    """
    g = np.asarray(gammas, dtype=np.float64)
    N = g.size
    mean = float(np.sum(g)) / N
    d = g - mean
    d2 = d * d
    var_pop = float(np.sum(d2)) / N
    se = float(np.sqrt(var_pop / N))
    w = 8 * se + 1e-3 if window is None else float(window)
    lo, hi = mean - w, mean + w
    below = g < lo
    inside = np.sort(g[(g >= lo) & (g <= hi)])
    left = g < mean
    return {
        "size": N,
        "mean": mean,
        "se": se,
        "var_pop": var_pop,
        "m4": float(np.sum(d2 * d2)) / N,
        "left4": float(np.sum(np.where(left, d2 * d2, 0.0))) / N,
        "left2": float(np.sum(np.where(left, d2, 0.0))) / N,
        "lo": lo,
        "hi": hi,
        "S0": float(np.count_nonzero(below)),
        "S1": float(np.sum(d[below])),
        "S2": float(np.sum(d2[below])),
        "window": inside,
        "quantiles": np.quantile(g, quantile_probs(), method="linear"),
    }


def _left_var_at(summ: Mapping, c: float, where: str) -> float:
    """Eq. 38's v^ℓ around centre ``c`` from :func:`summarize_for_fit` output (exact inside the window)."""
    if not summ["lo"] <= c <= summ["hi"]:
        raise InputError(
            where,
            f"the fitted mean {c:.6f} is outside the stored window "
            f"[{summ['lo']:.6f}, {summ['hi']:.6f}] around the sample mean; the fit does not "
            "describe the samples (increase the sample sizes or lower the degree)",
        )
    dd = c - summ["mean"]
    win = np.asarray(summ["window"])
    part = win[win < c] - c
    return float(summ["S2"] - 2 * dd * summ["S1"] + dd * dd * summ["S0"] + np.sum(part * part)) / summ["size"]


def sample_batch_stage(settings_list, *, batch_elements: int = 40_000_000, progress: bool = False) -> dict:
    """Monte Carlo at every training n for several schemes of one coefficient on one shared stream.

    Returns ``{scheme_id: {"n<N>": summary}}`` with :func:`summarize_for_fit` summaries.  Every
    scheme gets exactly what it would get alone (row r of the stream is the same permutation
    for all of them); only the work is shared.
    """
    settings_list = list(settings_list)
    coefs = {st["coefficient"] for st in settings_list}
    grids = {tuple(st["grid"]["n"]) for st in settings_list}
    seeds = {st["seed"] for st in settings_list}
    if len(coefs) != 1 or len(grids) != 1 or len(seeds) != 1:
        raise InputError("batch", "schemes sampled together must share the coefficient, training grid and seed")
    coef, grid, seed = coefs.pop(), list(grids.pop()), seeds.pop()
    sids = [scheme_id(st["coefficient"], st["scheme"], st["weigher"]) for st in settings_list]
    lanes = [(st["weigher"], st["scheme"]) for st in settings_list]
    out: dict = {sid: {} for sid in sids}
    prev = [None] * len(sids)
    it = enumerate(grid)
    if progress:
        from tqdm import tqdm

        it = tqdm(list(it), desc=f"sample {coef} x{len(sids)}", unit="n")
    for k, n in it:
        sizes = [_size_at(st, k, prev[j]) for j, st in enumerate(settings_list)]
        samples = sample_lanes(
            coef, n=n, sizes=sizes, lanes=lanes, key=stream_key(seed, coef, n), batch_elements=batch_elements
        )
        for j, sid in enumerate(sids):
            summ = summarize_for_fit(samples[j])
            out[sid][f"n{n}"] = summ
            prev[j] = summ["var_pop"]
    return out


def sample_stage(settings: Mapping, *, batch_elements: int = 40_000_000, progress: bool = False) -> dict:
    """:func:`sample_batch_stage` for one scheme: ``{"n<N>": summary}``."""
    res = sample_batch_stage([settings], batch_elements=batch_elements, progress=progress)
    return next(iter(res.values()))


_SUMMARY_SCALARS = ("size", "mean", "se", "var_pop", "m4", "left4", "left2", "lo", "hi", "S0", "S1", "S2")


def summaries_to_arrays(per_scheme: Mapping) -> dict:
    """Flatten ``{"n<N>": summary}`` into arrays for ``numpy.savez`` (inverse: :func:`summaries_from_arrays`)."""
    out = {}
    for key, summ in per_scheme.items():
        out[f"{key}.scalars"] = np.array([summ[f] for f in _SUMMARY_SCALARS], dtype=np.float64)
        out[f"{key}.window"] = np.asarray(summ["window"], dtype=np.float64)
        out[f"{key}.quantiles"] = np.asarray(summ["quantiles"], dtype=np.float64)
    return out


def summaries_from_arrays(arrays: Mapping, prefix: str = "") -> dict:
    """Inverse of :func:`summaries_to_arrays` (keys may carry a ``prefix``)."""
    out: dict = {}
    for name in arrays:
        if not name.startswith(prefix) or not name.endswith(".scalars"):
            continue
        key = name[len(prefix) : -len(".scalars")]
        vals = np.asarray(arrays[name])
        summ = {f: float(v) for f, v in zip(_SUMMARY_SCALARS, vals)}
        summ["size"] = int(summ["size"])
        summ["window"] = np.asarray(arrays[f"{prefix}{key}.window"])
        summ["quantiles"] = np.asarray(arrays[f"{prefix}{key}.quantiles"])
        out[key] = summ
    return out


def _fit_quantity(settings, ns, y, se, transform, *, weights):
    ds = settings["degree_selection"]
    if ds.get("method", "paper") == "held_out":
        cands = [transform] + [t for t in ds.get("transforms", []) if t != transform]
        sel = select_fit_held_out(
            ns, y, se=se, transforms=cands, min_degree=ds["min_degree"], max_degree=ds["max_degree"]
        )
        transform = sel.fit.transform
        coef, cov = fit_with_covariance(x_of_n(np.asarray(ns, float), transform), y, sel.degree, se=se)
        method = "held_out_loo"
    else:
        sel = select_degree(
            ns,
            y,
            transform=transform,
            weights=weights,
            min_degree=ds["min_degree"],
            max_degree=ds["max_degree"],
            ratio_improve=ds["ratio_improve"],
            ratio_lookahead=ds["ratio_lookahead"],
            fit_subset=ds["fit_subset"],
        )
        coef = np.asarray(sel.fit.coefficients)
        _, cov = fit_with_covariance(
            x_of_n(np.asarray(ns, float), transform),
            y,
            sel.degree,
            se=se,
            weights=weights if weights is not None else np.ones_like(y),
        )
        method = "paper_4.2.3"
    return sel, [float(c) for c in coef], cov, method


def fit_stage(settings: Mapping, samples: Mapping) -> dict:
    """Fit Γ̄ (inverse-variance WLS), then V and V^ℓ around the fitted mean (Eq. 38).

    ``samples`` maps ``"n<N>"`` to :func:`summarize_for_fit` summaries.  Degree choice per
    ``settings["degree_selection"]["method"]``: ``"paper"`` (Section 4.2.3; V, V^ℓ unweighted) or
    ``"held_out"`` (leave-one-out error, every quantity weighted by its inverse variance).  Each
    fit stores the covariance of its coefficients, so the table can report the standard error
    of its predictions.  Returns ``{"samples": {...}, "fits": {...}, "null_quantiles": {...}}``.
    """
    ns = settings["grid"]["n"]
    summ = [samples[f"n{n}"] for n in ns]
    mean = np.array([s["mean"] for s in summ])
    se = np.array([s["se"] for s in summ])
    size = np.array([s["size"] for s in summ], dtype=float)
    if np.any(se <= 0):
        raise InputError("samples", "a sampled mean has zero standard error; increase the sample size")
    held = settings["degree_selection"].get("method", "paper") == "held_out"
    fits = {}
    sel, coef, cov, method = _fit_quantity(settings, ns, mean, se, settings["transform"]["mean"], weights=1.0 / se**2)
    fits["mean"] = (sel, coef, cov, method)
    center = np.polynomial.polynomial.polyval(x_of_n(np.asarray(ns, float), sel.fit.transform), np.asarray(coef))
    var = np.array([s["var_pop"] + (s["mean"] - c) ** 2 for s, c in zip(summ, center)])
    lvar = np.array([_left_var_at(s, float(c), f"samples.n{n}") for s, c, n in zip(summ, center, ns)])
    # SE of v and v^l from the sample's fourth moments (delta method, around the sample mean)
    var_se = np.sqrt(np.maximum(np.array([s["m4"] - s["var_pop"] ** 2 for s in summ]), 1e-300) / size)
    lvar_se = np.sqrt(np.maximum(np.array([s["left4"] - s["left2"] ** 2 for s in summ]), 1e-300) / size)
    fits["var"] = _fit_quantity(
        settings, ns, var, var_se, settings["transform"]["var"], weights=(1.0 / var_se**2) if held else None
    )
    fits["left_var"] = _fit_quantity(
        settings, ns, lvar, lvar_se, settings["transform"]["left_var"], weights=(1.0 / lvar_se**2) if held else None
    )
    samp = {
        "n": list(ns),
        "size": [int(s["size"]) for s in summ],
        "mean": mean.tolist(),
        "se": se.tolist(),
        "fitted_mean": [float(c) for c in center],
        "var": var.tolist(),
        "var_se": var_se.tolist(),
        "left_var": lvar.tolist(),
        "left_var_se": lvar_se.tolist(),
    }
    fit_json = {}
    for q, (r, coef, cov, method) in fits.items():
        fit_json[q] = {
            "transform": r.fit.transform,
            "degree": r.degree,
            "coefficients": coef,
            "covariance": [[float(v) for v in row] for row in cov],
            "method": method,
            "weighting": "inverse_variance" if (q == "mean" or held) else "none",
            "candidate_degrees": list(r.degrees),
            "mse": [float(m) for m in r.mse],
            "n_min": int(min(ns)),
            "n_max": int(settings["n_max"]),
            "n_train_max": int(max(ns)),
        }
    nq = {
        "probs": [float(p) for p in quantile_probs()],
        "n": list(ns),
        "size": [int(s["size"]) for s in summ],
        "values": [[float(v) for v in s["quantiles"]] for s in summ],
    }
    return {"samples": samp, "fits": fit_json, "null_quantiles": nq}


# ------------------------------------------------------------------ null quantiles


def quantile_grid(first_n: int, dense_upto: int, q: float, n_max: int) -> list[int]:
    """Ranking lengths of the null quantiles: every n in ``first_n..dense_upto``, then
    ``round(q**a)`` for the a with ``dense_upto < q**a < n_max``, then ``n_max`` itself.

    Examples
    --------
    >>> quantile_grid(11, 14, 1.5, 40)
    [11, 12, 13, 14, 17, 26, 38, 40]
    """
    q = float(q)
    if not q > 1:
        raise InputError("ranking.quantiles.q", f"must be > 1; got {q}")
    out = list(range(int(first_n), int(dense_upto) + 1))
    a = int(np.floor(np.log(max(dense_upto, 1)) / np.log(q)))
    while True:
        n = int(np.floor(q**a + 0.5))
        if n >= n_max:
            break
        if n > (out[-1] if out else 0):
            out.append(n)
        a += 1
    if not out or out[-1] < n_max:
        out.append(int(n_max))
    return out


def quantile_settings(cfg: Mapping, coefficient: str, grid) -> dict:
    """The ``quantiles`` entry of a scheme's settings: its ranking lengths and sample sizes.

    ``N(n) = min(rule(n), max(max_elements // n, min_size))`` (at least 1000) with ``rule`` the first
    entry of ``ranking.quantiles.size.<coefficient>.size`` that applies: the element cap bounds the work
    per length, and ``min_size`` (optional, default 0) keeps the precision of the p-values from falling
    with n beyond the cap.  The sample is drawn from its own stream (purpose ``"quantiles"``),
    independent of the moment samples.
    """
    qc = cfg["quantiles"]
    ns = quantile_grid(grid[0], qc["dense_upto"], qc["q"], int(cfg["n_max"][coefficient]))
    rule = qc["size"][coefficient]
    cap = int(rule.get("max_elements", 10**18))
    floor = int(rule.get("min_size", 0))
    sizes = [int(max(1000, min(sample_size(n, rule["size"]), max(cap // n, floor)))) for n in ns]
    return {
        "n": ns,
        "size": sizes,
        "stream": "quantiles",
        "probs": "expit(linspace(logit(1e-4), logit(1-1e-4), 201))",
        "round": 9,
    }


def _quantile_row(g: np.ndarray, probs: np.ndarray, digits: int):
    g = np.asarray(g, dtype=np.float64)
    N = g.size
    mean = float(np.sum(g)) / N
    sd = float(np.sqrt(np.sum((g - mean) ** 2) / N))
    q = np.round(np.quantile(g, probs, method="linear"), digits)
    return round(mean, 12), round(sd, 12), q


def quantile_batch_stage(settings_list, *, batch_elements: int = 40_000_000, progress: bool = False) -> dict:
    """Null quantiles for several schemes of one coefficient on one shared stream (purpose ``"quantiles"``).

    At every n of ``settings["quantiles"]["n"]`` each scheme gets Γ on the first ``size`` rows of
    the stream of (seed, coefficient, n, "quantiles") and keeps the 201 quantiles of
    :func:`~agreekit.ranking.tablegen.sampling.quantile_probs` (rounded to ``round`` decimals) with
    the sample's mean and standard deviation.  As for the moment samples, a scheme's numbers do
    not depend on which other schemes share the job.  Returns ``{scheme_id: block}`` with the
    table's ``null_quantiles`` block.
    """
    import time

    settings_list = list(settings_list)
    coefs = {st["coefficient"] for st in settings_list}
    seeds = {st["seed"] for st in settings_list}
    if len(coefs) != 1 or len(seeds) != 1:
        raise InputError("batch", "schemes sampled together must share the coefficient and seed")
    coef, seed = coefs.pop(), seeds.pop()
    sids = [scheme_id(st["coefficient"], st["scheme"], st["weigher"]) for st in settings_list]
    lanes = [(st["weigher"], st["scheme"]) for st in settings_list]
    size_at = [dict(zip(st["quantiles"]["n"], st["quantiles"]["size"])) for st in settings_list]
    digits = {int(st["quantiles"].get("round", 9)) for st in settings_list}
    if len(digits) != 1:
        raise InputError("batch", "schemes sampled together must share ranking.quantiles")
    digits = digits.pop()
    all_n = sorted(set().union(*[set(s) for s in size_at]))
    probs = quantile_probs()
    out = {
        sid: {"probs": [float(p) for p in probs], "n": [], "size": [], "mean": [], "sd": [], "values": []}
        for sid in sids
    }
    t0 = time.perf_counter()
    for i, n in enumerate(all_n):
        which = [j for j in range(len(sids)) if n in size_at[j]]
        samples = sample_lanes(
            coef,
            n=n,
            sizes=[size_at[j][n] for j in which],
            lanes=[lanes[j] for j in which],
            key=stream_key(seed, coef, n, "quantiles"),
            batch_elements=batch_elements,
        )
        for j, g in zip(which, samples):
            mean, sd, q = _quantile_row(g, probs, digits)
            b = out[sids[j]]
            b["n"].append(int(n))
            b["size"].append(int(g.size))
            b["mean"].append(mean)
            b["sd"].append(sd)
            b["values"].append([float(v) for v in q])
        if progress:
            print(
                f"quantiles {coef} n={n} ({i + 1}/{len(all_n)}) sizes={[size_at[j][n] for j in which]} "
                f"{time.perf_counter() - t0:.1f} s",
                flush=True,
            )
    return out


def quantile_block_to_arrays(blocks: Mapping) -> dict:
    """``{scheme_id: null_quantiles block}`` as arrays for ``numpy.savez``."""
    out = {}
    for sid, b in blocks.items():
        for k in ("probs", "n", "size", "mean", "sd", "values"):
            out[f"{sid}/{k}"] = np.asarray(b[k])
    return out


def quantile_block_from_arrays(arrays: Mapping, sid: str) -> dict:
    """One scheme's ``null_quantiles`` block from :func:`quantile_block_to_arrays` output."""
    g = lambda k: np.asarray(arrays[f"{sid}/{k}"])  # noqa: E731
    return {
        "probs": [float(v) for v in g("probs")],
        "n": [int(v) for v in g("n")],
        "size": [int(v) for v in g("size")],
        "mean": [float(v) for v in g("mean")],
        "sd": [float(v) for v in g("sd")],
        "values": [[float(v) for v in row] for row in g("values")],
    }


def shipped_table_path(scheme_id_: str):
    """Path of the shipped table of ``scheme_id_`` (``agreekit/data/tables/<id>.json``); it may not exist."""
    return Path(str(shipped_tables_dir().joinpath(f"{scheme_id_}.json")))


#: the settings of a scheme that determine its null quantiles (the rest only changes the moment fits)
_QUANTILE_KEYS = ("coefficient", "scheme", "weigher", "seed", "quantiles")


def shipped_quantiles(settings: Mapping, *, validate: bool = True) -> tuple[dict | None, str]:
    """The shipped table's ``null_quantiles`` block, if it was built with this scheme's quantile settings.

    A scheme's null quantiles depend only on its coefficient, scheme, weigher, the seed and
    ``settings["quantiles"]`` (lengths, sizes, stream, probabilities, rounding): the same stream
    gives the same numbers whatever the rest of the config, the batching or ``--cores``.  So the
    default pipeline run takes them from the shipped table when these settings are equal to the
    ones recorded in its provenance (and verifies them with :func:`verify_quantile_block`), and
    samples them otherwise.

    Parameters
    ----------
    settings : dict
        One scheme's settings (:func:`scheme_settings`).
    validate : bool, optional
        Validate the shipped table against the table schema (:func:`agreekit.ranking.tables.load_table`,
        about 0.7 s per table); False checks only its checksum (for the workflow's parse time).

    Returns
    -------
    block : dict or None
        The block, or None when it cannot be used.
    reason : str
        Why not (or ``"shipped"``).

    Examples
    --------
    >>> from agreekit.ranking.tables import load_table
    >>> settings = load_table("spearman_additive_harmonic").data["provenance"]["settings"]
    >>> block, why = shipped_quantiles(settings)
    >>> why, len(block["n"]), block["size"][0]
    ('shipped', 97, 1000000)
    >>> shipped_quantiles({**settings, "seed": 1})[1]
    'shipped table spearman_additive_harmonic was built with other seed'
    """
    if "quantiles" not in settings:
        return None, "the config has no ranking.quantiles"
    sid = scheme_id(settings["coefficient"], settings["scheme"], settings["weigher"])
    path = shipped_table_path(sid)
    if not path.is_file():
        return None, f"no shipped table {sid}"
    if validate:
        data = load_table(path).data  # validates schema and checksum (InputError naming the file otherwise)
    else:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(str(path), f"unreadable shipped table ({exc})") from None
        if not isinstance(data, dict) or table_checksum(data) != data.get("checksum"):
            raise InputError(str(path), "checksum mismatch (the shipped table was modified)")
    prov = data.get("provenance", {}).get("settings", {})
    diff = [k for k in _QUANTILE_KEYS if prov.get(k) != settings.get(k)]
    if diff:
        return None, f"shipped table {sid} was built with other {', '.join(diff)}"
    block = data.get("null_quantiles")
    if not block or block.get("n") != settings["quantiles"]["n"] or block.get("size") != settings["quantiles"]["size"]:
        return None, f"shipped table {sid} has no null quantiles for these lengths and sizes"
    return copy.deepcopy(dict(block)), "shipped"


def verify_lengths(cfg: Mapping, settings: Mapping) -> list[int]:
    """The lengths ``ranking.quantiles.verify.n.<coefficient>`` at which shipped null quantiles are regenerated.

    Each must be a stored length of the scheme's quantile grid (checked only for schemes that take
    shipped quantiles: other configs, e.g. ``config/quick.yaml``, have other grids).

    Raises
    ------
    InputError
        Naming ``ranking.quantiles.verify.n.<coefficient>`` for an n that is not stored.

    Examples
    --------
    >>> from agreekit.ranking.tables import load_table
    >>> st = load_table("kendall_additive_harmonic").data["provenance"]["settings"]
    >>> verify_lengths({"quantiles": {"verify": {"n": {"spearman": [11], "kendall": [11, 101]}}}}, st)
    [11, 101]
    """
    coef = settings["coefficient"]
    ns = [int(n) for n in cfg.get("quantiles", {}).get("verify", {}).get("n", {}).get(coef, [])]
    stored = set(settings["quantiles"]["n"])
    for n in ns:
        if n not in stored:
            raise InputError(
                f"ranking.quantiles.verify.n.{coef}", f"holds n = {n}, not a stored length of the quantile grid"
            )
    return ns


def verify_quantile_block(settings_list, blocks: Mapping, n_values, *, batch_elements: int = 40_000_000) -> dict:
    """Regenerate the null quantiles at some stored lengths and compare them with ``blocks`` bit for bit.

    ``settings_list`` are schemes of one coefficient (one shared stream, as in
    :func:`quantile_batch_stage`), ``blocks`` maps their scheme ids to ``null_quantiles`` blocks
    (e.g. from :func:`shipped_quantiles`) and ``n_values`` are stored lengths of those blocks.  Each
    (scheme, n) row — size, mean, sd and the 201 quantiles — must be *equal* to the regenerated one:
    the shipped quantiles are then the output of this code, seed and stream.

    Returns
    -------
    dict
        ``{"n": [...], "rows": [{"scheme_id", "n", "size", "equal"}...], "mismatches": [message, ...]}``.

    Raises
    ------
    InputError
        If an n is not a stored length of every block (parameter ``ranking.quantiles.verify.n``).

    Examples
    --------
    >>> from agreekit.ranking.tables import load_table
    >>> settings = load_table("spearman_additive_harmonic").data["provenance"]["settings"]
    >>> block, _ = shipped_quantiles(settings)
    >>> res = verify_quantile_block([settings], {"spearman_additive_harmonic": block}, [11])
    >>> res["rows"], res["mismatches"]
    ([{'scheme_id': 'spearman_additive_harmonic', 'n': 11, 'size': 1000000, 'equal': True}], [])
    """
    settings_list = list(settings_list)
    n_values = [int(n) for n in n_values]
    sub = []
    for st in settings_list:
        sid = scheme_id(st["coefficient"], st["scheme"], st["weigher"])
        blk = blocks[sid]
        missing = [n for n in n_values if n not in blk["n"]]
        if missing:
            raise InputError("ranking.quantiles.verify.n", f"holds n = {missing[0]}, not a stored length of {sid}")
        size = dict(zip(blk["n"], blk["size"]))
        q = dict(st["quantiles"], n=n_values, size=[int(size[n]) for n in n_values])
        sub.append(dict(st, quantiles=q))
    fresh = quantile_batch_stage(sub, batch_elements=batch_elements) if n_values else {}
    rows, bad = [], []
    for st in sub:
        sid = scheme_id(st["coefficient"], st["scheme"], st["weigher"])
        blk = blocks[sid]
        for k, n in enumerate(n_values):
            i = blk["n"].index(n)
            new = fresh[sid]
            same = (
                blk["size"][i] == new["size"][k]
                and blk["mean"][i] == new["mean"][k]
                and blk["sd"][i] == new["sd"][k]
                and list(blk["values"][i]) == list(new["values"][k])
            )
            rows.append({"scheme_id": sid, "n": n, "size": int(new["size"][k]), "equal": bool(same)})
            if not same:
                diff = max(abs(a - b) for a, b in zip(blk["values"][i], new["values"][k]))
                bad.append(
                    f"{sid} at n = {n}: the stored null quantiles differ from a regeneration with this code "
                    f"(max |difference| {diff:.3g}, mean {blk['mean'][i]!r} vs {new['mean'][k]!r})"
                )
    return {"n": n_values, "rows": rows, "mismatches": bad}


def assemble_table(settings: Mapping, exact: Mapping, fitted: Mapping, quantiles: Mapping | None = None) -> dict:
    """The final table (see ``agreekit/schemas/table.schema.json``) with config hash and checksum."""
    sid = scheme_id(settings["coefficient"], settings["scheme"], settings["weigher"])
    table = {
        "schema": "agreekit-coefficient-table",
        "schema_version": SCHEMA_VERSION,
        "scheme_id": sid,
        "coefficient": settings["coefficient"],
        "scheme": settings["scheme"],
        "weigher": settings["weigher"],
        "n_exact": settings["n_exact"],
        "n_max": settings["n_max"],
        "exact": copy.deepcopy(dict(exact)),
        "samples": copy.deepcopy(dict(fitted["samples"])),
        "fits": copy.deepcopy(dict(fitted["fits"])),
        "null_quantiles": copy.deepcopy(dict(fitted["null_quantiles"] if quantiles is None else quantiles)),
        "provenance": {
            "package": "agreekit",
            "package_version": __version__,
            "config_hash": config_hash(settings),
            "settings": copy.deepcopy(dict(settings)),
            "seed": settings["seed"],
            "seed_derivation": "shared stream per (coefficient, n): numpy SeedSequence([seed, *first 4 "
            "little-endian uint32 words of sha256(coefficient + '/training'), n])"
            ".generate_state(2, uint64) = key; row r = SplitMix64 from "
            "mix(k0 ^ mix(k1 + r * 0x9E3779B97F4A7C15)); Fisher-Yates with Lemire's "
            "bounded 32-bit draws (agreekit.ranking.tablegen._fused)",
        },
    }
    table["checksum"] = table_checksum(table)
    return table


def _check_figure_examples(cfg: Mapping) -> None:
    """Each figure example names a configured scheme, its weigher spec valid and canonical."""
    configured = {(s.coefficient, s.scheme, s.weigher) for s in schemes_from_config(cfg)}
    for i, ex in enumerate(cfg["figures"]["examples"]):
        key = f"ranking.figures.examples[{i}].weigher"
        try:
            spec = _parse(ex["weigher"]).spec
        except (ValueError, TypeError) as exc:
            raise InputError(key, f"is invalid: {exc}") from None
        if spec != ex["weigher"]:
            raise InputError(key, f"must be written in canonical form {spec!r} (as in ranking.schemes)")
        if (ex["coefficient"], ex["scheme"], spec) not in configured:
            raise InputError(key, f"({ex['coefficient']}, {ex['scheme']}, {spec}) is not one of ranking.schemes")
