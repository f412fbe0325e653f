"""Words a user can read: papers are named by their authors and year, not by the project's internal
numbering ("seed 000" … "seed 003", "the seed paper"), and the code and docs carry no issue numbers or
pointers to the developers' notes (history belongs in the CHANGELOG and git)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: generated or third-party folders inside docs/ (not written by hand)
SKIP = ("docs/_build", "docs/api", "docs/gallery", "docs/_static")
SUFFIXES = {".py", ".md", ".rst", ".txt", ".yaml", ".yml", ".json", ".smk", ".toml", ".cfg", ".html", ".tex"}
FORBIDDEN = {
    "internal paper number": re.compile(r"\bseed\s+`?00[0-9]\b", re.I),
    "the seed paper": re.compile(r"\bthe\s+seed(?:'s)?\s+paper\b", re.I),
    "a seed's figure or equation": re.compile(
        r"\bseed\s+(?:Definitions?|A\.\d|sec\.|§|Fig(?:ure)?s?\b|Identity|Eq\.|"
        r"Theorem|Tables?|Section|Algorithm)",
        re.I,
    ),
    # the paper as "the seed's ..." / "the seed authors'": a random seed has no figures, findings or authors
    "the seed's (the paper's) ...": re.compile(r"\bseed['’]s\b|\bseed\s+(?:authors?|text|caption|writes)\b", re.I),
    # "Table 3 of the seed", "Eqs. 30/32 of the seed", "(0.5 in the seed)", "tau_w of the seed"; a random
    # seed's "stream (3, pair) of the seed" or "the seed of the Monte Carlo moments" stays allowed
    "a part of the seed (the paper)": re.compile(
        r"(?:\b(?:Tables?|Figures?|Algorithms?|Equations?|Sections?|Definitions?|Identity|Theorem|count|"
        r"tau_w|F-measure)\b|\b(?:Figs?|Eqs?|sec)\.|§)[^.;:\n]{0,20}?\b(?:of|in)\s+the\s+seed\b|"
        r"\b(?:printed|not|\d(?:\.\d+)?)\s+in\s+the\s+seed\b",
        re.I,
    ),
    "issue number": re.compile(r"\bissues?\s+#?\d+", re.I),
    "developers' notes": re.compile(r"shared/notes|\.\./shared\b"),
}


def _files():
    out = []
    for top in ("src", "docs", "workflow"):
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and not rel.startswith(SKIP)
                and "__pycache__" not in rel
                and ".egg-info" not in rel
            ):
                out.append(path)
    return out + [ROOT / "Snakefile"]


def hits(text: str) -> list[str]:
    return [f"{name}: {m.group(0)!r}" for name, rx in FORBIDDEN.items() for m in rx.finditer(text)]


def test_the_patterns_catch_each_form():
    text = "(seed 000, Section 3) the seed paper; issue 23; Issues #4 and ``../shared/notes/x.md``; SEED 003"
    assert len(hits(text)) == 6
    assert hits("a random seed 42; seed=0; the issue of ties; 2006 seeds") == []


@pytest.mark.parametrize(
    "line",
    [
        "print(x)  # overlapping covers: the seed's Figure 2(b), NMI' (LFK)",
        "# Seed Figure 7: Agreement with the unweighted LFR ground truth",
        "omega_unadjusted(Vc, U1)  # -> 0.5  # the seed's ω",
        "# graph-aware: D_+ (direct_weight = the seed's alpha)",
        "The seed’s Algorithm 1 takes the g0 closest to 0.",
        "(the convention of the seed authors' program)",
        "m = tab.moments(10)  # an exact row (Table 3 of the seed)",
        "B and C as printed in Eqs. 30/32 of the seed, with",
        "the weight of D(U, V) (0.5 in the seed).",
        '"demon": None,  # extra, not in the seed',
        "which is tau_w of the seed when there are no ties.",
        "Implements Rabbany & Zaïane (DMKD 2015; seed `003`)",
        "(seed §3.1)",
        "The seed caption gives U2's matrix exactly; the seed writes RI − 1",
    ],
)
def test_the_paper_as_the_seed_is_caught(line):
    assert hits(line), line


@pytest.mark.parametrize(
    "line",
    [
        "np.random.seed(seed)",
        "kemeny(X, seed=1); rng=np.random.default_rng(seed)",
        "the seed of the Monte Carlo moments is derived from the configuration",
        '"""Independent generator per pair: stream (3, pair) of the seed; a Generator is used as is."""',
        "SeedSequence([seed, *sha256(scheme_id)[:4 words], n]); seed_table(example); seeded from `seed`",
        "The same seed gives the same result, whatever the threads.",
        "the graph of an int seed is unchanged; 2006 seeds",
    ],
)
def test_a_random_seed_is_not_caught(line):
    assert hits(line) == [], line


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_internal_numbering_in_code_and_docs(path):
    found = [
        f"line {no}: {h}"
        for no, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        for h in hits(line)
    ]
    assert not found, "\n".join(found)
