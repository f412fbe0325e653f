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

import numpy as np

from agreekit._validation import InputError
from agreekit.ranking.tablegen.fitting import select_degree
from agreekit.ranking.tablegen.sampling import sample_coefficient, sample_size, seed_sequence, summarize_sample, training_grid

__all__ = [
    "QUANTITIES",
    "SchemeSpec",
    "scheme_id",
    "schemes_from_config",
    "scheme_settings",
    "config_hash",
    "check_ranking_config",
    "exact_stage",
    "sample_stage",
    "fit_stage",
    "assemble_table",
]

QUANTITIES = ("mean", "var", "left_var")


from agreekit.ranking.weighting import scheme_id  # noqa: E402  (the project-wide id: coef_scheme_weigher-slug)


def _parse(weigher):
    from agreekit.ranking.weighting import parse_weigher

    return parse_weigher(weigher)


@dataclass(frozen=True)
class SchemeSpec:
    """One configured scheme: coefficient, combination scheme, canonical weigher spec, x(n) per quantity."""

    coefficient: str
    scheme: str
    weigher: str
    family: str
    transforms: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return scheme_id(self.coefficient, self.scheme, self.weigher)

    def transform(self, quantity: str) -> str:
        return dict(self.transforms)[quantity]


def _match(rule: Mapping, coefficient: str, scheme: str, family: str) -> bool:
    return all(rule.get(k) in (None, v) for k, v in
               (("coefficient", coefficient), ("scheme", scheme), ("family", family)))


def check_ranking_config(cfg: Mapping) -> None:
    """Cross-field checks the JSON schema cannot express; errors name the config key."""
    _check_figure_examples(cfg)
    g = cfg["grid"]
    for coef, a_max in g["a_max"].items():
        if g["a_min"] > a_max:
            raise InputError(f"ranking.grid.a_min", f"({g['a_min']}) must be <= ranking.grid.a_max.{coef} ({a_max})")
    ds = cfg["degree_selection"]
    if ds["min_degree"] > ds["max_degree"]:
        raise InputError("ranking.degree_selection.min_degree", "must be <= max_degree")
    for coef in ("spearman", "kendall"):
        grid = training_grid(g["q"], g["a_min"], g["a_max"][coef])
        if grid and grid[0] <= cfg["n_exact"]:
            raise InputError("ranking.grid.a_min", f"gives n = {grid[0]} <= ranking.n_exact = {cfg['n_exact']}; the "
                                                  "training grid must start above n_exact")
        npos = len(grid) if ds["fit_subset"] == "all" else (len(grid) + 1) // 2
        if npos < ds["max_degree"] + 1:
            raise InputError("ranking.degree_selection.max_degree",
                             f"({ds['max_degree']}) needs {ds['max_degree'] + 1} fitting points; the {coef} grid "
                             f"gives {npos}")
        if grid and grid[-1] > cfg["n_max"][coef]:
            raise InputError(f"ranking.n_max.{coef}", f"must be >= the largest training n ({grid[-1]})")
        for i, rule in enumerate(cfg["sample_size"][coef]):
            if rule["size"] < 2:
                raise InputError(f"ranking.sample_size.{coef}[{i}].size", "must be >= 2")


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
        spec = SchemeSpec(row["coefficient"], row["scheme"], w.spec, family, tuple(transforms))
        if spec.id in seen:
            raise InputError(f"ranking.schemes[{i}]", f"duplicates ranking.schemes[{seen[spec.id]}] ({spec.id})")
        seen[spec.id] = i
        out.append(spec)
    return out


def scheme_settings(cfg: Mapping, spec: SchemeSpec, seed: int) -> dict:
    """Everything that determines one scheme's table, as a JSON-able dict (the table's provenance)."""
    g = cfg["grid"]
    grid = training_grid(g["q"], g["a_min"], g["a_max"][spec.coefficient])
    rules = cfg["sample_size"][spec.coefficient]
    return {
        "coefficient": spec.coefficient,
        "scheme": spec.scheme,
        "weigher": spec.weigher,
        "n_exact": int(cfg["n_exact"]),
        "grid": {"q": float(g["q"]), "a_min": int(g["a_min"]), "a_max": int(g["a_max"][spec.coefficient]),
                 "n": grid},
        "sample_size": [sample_size(n, rules) for n in grid],
        "transform": dict(spec.transforms),
        "degree_selection": {k: cfg["degree_selection"][k] for k in
                             ("min_degree", "max_degree", "ratio_improve", "ratio_lookahead", "fit_subset")},
        "n_max": int(cfg["n_max"][spec.coefficient]),
        "seed": int(seed),
    }


def _canonical(obj) -> bytes:
    from agreekit._io import to_jsonable

    return json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def config_hash(settings: Mapping) -> str:
    """``"sha256:<hex>"`` of the canonical JSON of a scheme's settings."""
    return "sha256:" + hashlib.sha256(_canonical(settings)).hexdigest()


# ----------------------------------------------------------------------------------- stages

def exact_stage(settings: Mapping) -> dict:
    """Exact Γ̄, V, V^ℓ for n = 2..n_exact (JSON-able dict of lists)."""
    from agreekit.ranking.moments import exact_moments

    ns = list(range(2, settings["n_exact"] + 1))
    res = {"n": ns, "mean": [], "var": [], "left_var": []}
    for n in ns:
        m = exact_moments(settings["coefficient"], n=n, weigher=settings["weigher"], scheme=settings["scheme"])
        res["mean"].append(float(m.mean))
        res["var"].append(float(m.var))
        res["left_var"].append(float(m.left_var))
    return res


def sample_stage(settings: Mapping, *, batch_elements: int = 4_000_000, progress: bool = False) -> dict:
    """Monte Carlo samples of Γ at every training n: ``{"n<N>": gammas}`` (for ``numpy.savez``)."""
    sid = scheme_id(settings["coefficient"], settings["scheme"], settings["weigher"])
    out = {}
    ns = settings["grid"]["n"]
    it = zip(ns, settings["sample_size"])
    if progress:
        from tqdm import tqdm
        it = tqdm(list(it), desc=f"sample {sid}", unit="n")
    for n, size in it:
        rng = np.random.Generator(np.random.PCG64(seed_sequence(settings["seed"], sid, n)))
        out[f"n{n}"] = sample_coefficient(settings["coefficient"], n=n, size=size, weigher=settings["weigher"],
                                          scheme=settings["scheme"], rng=rng, batch_elements=batch_elements)
    return out


def fit_stage(settings: Mapping, samples: Mapping[str, np.ndarray]) -> dict:
    """Fit Γ̄ (WLS, 1/SE² weights), then V and V^ℓ around the fitted mean (unweighted).

    Returns ``{"samples": {...per-n summaries...}, "fits": {quantity: {...}}}``.
    """
    ns = settings["grid"]["n"]
    ds = settings["degree_selection"]
    sel = dict(min_degree=ds["min_degree"], max_degree=ds["max_degree"], ratio_improve=ds["ratio_improve"],
               ratio_lookahead=ds["ratio_lookahead"], fit_subset=ds["fit_subset"])
    plain = [summarize_sample(samples[f"n{n}"], n) for n in ns]
    mean = np.array([s.mean for s in plain])
    se = np.array([s.se for s in plain])
    if np.any(se <= 0):
        raise InputError("samples", "a sampled mean has zero standard error; increase the sample size")
    fits = {}
    fits["mean"] = select_degree(ns, mean, transform=settings["transform"]["mean"], weights=1.0 / se**2, **sel)
    center = fits["mean"].fit(np.asarray(ns))
    around = [summarize_sample(samples[f"n{n}"], n, center=c) for n, c in zip(ns, center)]
    var = np.array([s.var for s in around])
    lvar = np.array([s.left_var for s in around])
    fits["var"] = select_degree(ns, var, transform=settings["transform"]["var"], **sel)
    fits["left_var"] = select_degree(ns, lvar, transform=settings["transform"]["left_var"], **sel)
    samp = {
        "n": list(ns),
        "size": [s.size for s in plain],
        "mean": mean.tolist(),
        "se": se.tolist(),
        "fitted_mean": [float(c) for c in center],
        "var": var.tolist(),
        "left_var": lvar.tolist(),
    }
    fit_json = {}
    for q, r in fits.items():
        fit_json[q] = {
            "transform": r.fit.transform,
            "degree": r.degree,
            "coefficients": list(r.fit.coefficients),
            "weighting": "inverse_variance" if q == "mean" else "none",
            "candidate_degrees": list(r.degrees),
            "mse": list(r.mse),
            "n_min": int(min(ns)),
            "n_max": int(settings["n_max"]),
            "n_train_max": int(max(ns)),
        }
    return {"samples": samp, "fits": fit_json}


def assemble_table(settings: Mapping, exact: Mapping, fitted: Mapping) -> dict:
    """The final table (see ``agreekit/schemas/table.schema.json``) with config hash and checksum."""
    from agreekit import __version__
    from agreekit.ranking.tables import SCHEMA_VERSION, table_checksum

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
        "provenance": {
            "package": "agreekit",
            "package_version": __version__,
            "config_hash": config_hash(settings),
            "settings": copy.deepcopy(dict(settings)),
            "seed": settings["seed"],
            "seed_derivation": "numpy SeedSequence([seed, *first 4 little-endian uint32 words of "
                               "sha256(scheme_id), n]) -> PCG64; Fisher-Yates on Generator.random float64",
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
