"""Generate agreekit's synthetic TREC sample: graded qrels on 10 topics and two runs of depth 100.

The files are made up (no real documents, topics, judgements or submitted runs); they have the shape of
a small TREC test collection so that the examples of ``agreekit.ireval`` run anywhere.  Usage::

    python resources/datasets/make_synthetic_trec.py                 # writes src/agreekit/datasets/data/trec_sample/
    python resources/datasets/make_synthetic_trec.py --out DIR       # anywhere else (the tests compare the bytes)

The output is byte for byte the same on every run: a fixed seed (``numpy.random.default_rng(SEED)``), only
the generator's integers and uniform doubles with exact arithmetic on them (``+``, ``*``: no library maths
whose last bit could differ between platforms), scores printed with 6 decimals, and gzip with ``mtime=0``
and no file name in the header.

The model, per topic:

* a pool of ``n_judged`` documents (60-150) is judged; each gets a grade 0 (not relevant), 1 (relevant)
  or 2 (highly relevant), the share of relevant documents varying by topic (about 10-40 %);
* the candidate documents a system can retrieve are the judged pool plus 300 unjudged documents;
* each document has a *topicality* ``z`` shared by both systems (so the runs overlap, about 55-70 of
  100 documents per topic) and each system adds its own noise ``u_s`` (``z`` and ``u_s`` are sums of
  three uniforms, scaled by ``Z_SCALE`` and ``NOISE_SCALE``).  System ``s`` scores a document
  ``QUALITY[s] * grade + z + u_s + JUDGED_BONUS * judged`` and its run is its 100 best-scored documents,
  scores descending.  ``sysA`` weighs the grade more than ``sysB`` (1.0 vs 0.6), so it is the better
  system on average (mean AP about 0.56 vs 0.39), though not on every topic.  The bonus of judged
  documents stands for the pool having been formed from top-ranked documents: about a quarter of the
  retrieved documents are unjudged.
"""
from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import numpy as np

SEED = 20031          # any fixed number; changing it changes every file
TOPICS = [str(t) for t in range(101, 111)]
N_UNJUDGED = 300      # unjudged candidate documents per topic
DEPTH = 100           # documents per topic in each run
COLLECTION = 500_000  # document numbers are drawn from 0 .. COLLECTION-1
QUALITY = {"sysA": 1.0, "sysB": 0.6}    # weight of the grade in each system's score
Z_SCALE, NOISE_SCALE, JUDGED_BONUS = 1.0, 2.5, 3.0
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "src" / "agreekit" / "datasets" / "data" / "trec_sample"


def _noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """Centred noise with variance 1/4: a sum of three uniforms (exact arithmetic only)."""
    return rng.random(n) + rng.random(n) + rng.random(n) - 1.5


def generate(seed: int = SEED) -> dict[str, str]:
    """The three files' text: ``{"qrels.txt": ..., "run.sysA": ..., "run.sysB": ...}``."""
    rng = np.random.default_rng(seed)
    qrels: list[str] = []
    runs: dict[str, list[str]] = {tag: [] for tag in QUALITY}
    for topic in TOPICS:
        n_judged = int(rng.integers(60, 151))
        docs = rng.choice(COLLECTION, size=n_judged + N_UNJUDGED, replace=False)
        docnos = np.array([f"SYN-{d:06d}" for d in docs], dtype=object)
        judged = np.zeros(docs.size, dtype=bool)
        judged[:n_judged] = True
        # grades of the judged pool: P(relevant) varies by topic; a third of the relevant ones are "highly"
        p_rel = 0.1 + 0.3 * rng.random()
        u_rel, u_high = rng.random(n_judged), rng.random(n_judged)
        grades = np.zeros(docs.size, dtype=np.int64)
        grades[:n_judged] = np.where(u_rel < p_rel, np.where(u_high < 1 / 3, 2, 1), 0)
        for i in np.argsort(docnos[:n_judged], kind="stable"):
            qrels.append(f"{topic} 0 {docnos[i]} {grades[i]}\n")
        z = _noise(rng, docs.size) * Z_SCALE                       # topicality, shared by the systems
        for tag, q in QUALITY.items():
            score = q * grades + z + NOISE_SCALE * _noise(rng, docs.size) + JUDGED_BONUS * judged + 10.0
            top = np.argsort(-score, kind="stable")[:DEPTH]
            text = [f"{s:.6f}" for s in score[top]]
            if len(set(text)) != DEPTH:                         # trec_eval would break ties by docno
                raise RuntimeError(f"tied printed scores in topic {topic} of {tag}; change SEED")
            for rank, (i, s) in enumerate(zip(top, text), start=1):
                runs[tag].append(f"{topic} Q0 {docnos[i]} {rank} {s} {tag}\n")
    out = {"qrels.txt": "".join(qrels)}
    out.update({f"run.{tag}": "".join(lines) for tag, lines in runs.items()})
    return out


def write(out_dir: Path, seed: int = SEED) -> list[Path]:
    """Write ``qrels.txt.gz``, ``run.sysA.gz`` and ``run.sysB.gz`` into ``out_dir`` (created if needed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in generate(seed).items():
        path = out_dir / f"{name}.gz"
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9,
                                                     mtime=0) as gz:
            gz.write(text.encode("ascii"))
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    for path in write(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
