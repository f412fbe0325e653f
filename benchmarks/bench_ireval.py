"""Benchmark: ``agreekit.ireval.evaluate`` against pytrec_eval, from files and from memory.

Two shapes of one run: 50 topics x 1000 documents and 5000 topics x 100 documents, with
qrels of 500 / 50 judged documents per topic (half of them from the run's top quarter, as
pooling gives), documents drawn from a collection of 500 000 docnos, runs written topic by
topic in rank order (as TREC runs are).  Metrics: AP, nDCG@10, P@10, RR, R@100
(pytrec_eval: map, ndcg_cut.10, P.10, recip_rank, recall.100).

* from files: ``evaluate(qrels_path, run_path, ...)`` vs ``pytrec_eval.parse_qrel`` +
  ``parse_run`` + ``RelevanceEvaluator(...).evaluate``;
* from memory: ``evaluate`` of the frames ``read_qrels`` / ``read_run`` return vs
  ``RelevanceEvaluator(qrels_dict, ...).evaluate(run_dict)`` on prebuilt dicts.

Times are CPU seconds (``time.process_time``), the median of REPEATS calls after one untimed call,
both tools in the same process (wall seconds are recorded too; the machine is shared).  ``ratio`` = pytrec_eval's
time / agreekit's (>= 1: agreekit is as fast or faster); the target is ratio >= 1 everywhere.
The per-topic values of both tools are compared (largest absolute difference recorded).

agreekit's side: a file is read as bytes in one compiled pass (fields, grades, scores); document ids
stay bytes, matched to the judgements in a small hash table per topic while each topic's list is
ranked; the metrics of every topic come from one compiled pass (``agreekit.ireval._ircore``).  From
memory, the frames' ids are joined and encoded once, then take the same path.

Run: ``.venv/bin/python benchmarks/bench_ireval.py`` (writes benchmarks/output/bench_ireval.json).
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from agreekit.ireval.metrics import evaluate, read_qrels, read_run

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_ireval.json"
SHAPES = ((50, 1000), (5000, 100))
REPEATS = 5
SEED = 34
METRICS = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank", "R@100": "recall_100"}
PYTREC = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100"}


def write_collection(directory: Path, n_topics: int, n_docs: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(SEED)
    collection = 500_000
    qrels, run = directory / f"qrels_{n_topics}x{n_docs}.txt", directory / f"run_{n_topics}x{n_docs}.txt"
    with qrels.open("w") as q, run.open("w") as r:
        for t in range(n_topics):
            docs = rng.choice(collection, size=n_docs, replace=False)
            scores = np.sort(rng.normal(10.0, 2.0, n_docs))[::-1]
            r.writelines(
                f"{401 + t} Q0 DOC-{d:07d} {i + 1} {s:.6f} bench\n" for i, (d, s) in enumerate(zip(docs, scores))
            )
            judged = np.unique(
                np.concatenate([docs[: n_docs // 4], rng.choice(collection, n_docs // 4, replace=False)])
            )
            grades = (rng.random(judged.size) < 0.2) * rng.integers(1, 3, judged.size)
            q.writelines(f"{401 + t} 0 DOC-{d:07d} {g}\n" for d, g in zip(judged, grades))
    return qrels, run


def timed(f):
    cpu, wall, out = [], [], f()  # one untimed call (imports, caches)
    for _ in range(REPEATS):
        c0, w0 = time.process_time(), time.perf_counter()
        out = f()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return float(np.median(cpu)), float(np.median(wall)), out


def main():
    import pytrec_eval

    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n_topics, n_docs in SHAPES:
            qpath, rpath = write_collection(Path(tmp), n_topics, n_docs)
            qrels_df = read_qrels(qpath)
            name, run_df = read_run(rpath)
            with qpath.open() as fh:
                qdict = pytrec_eval.parse_qrel(fh)
            with rpath.open() as fh:
                rdict = pytrec_eval.parse_run(fh)

            def ours_files():
                return evaluate(qpath, rpath, list(METRICS))

            def theirs_files():
                with qpath.open() as fq, rpath.open() as fr:
                    return pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fq), PYTREC).evaluate(
                        pytrec_eval.parse_run(fr)
                    )

            def ours_memory():
                return evaluate(qrels_df, {name: run_df}, list(METRICS))

            def theirs_memory():
                return pytrec_eval.RelevanceEvaluator(qdict, PYTREC).evaluate(rdict)

            case = {
                "topics": n_topics,
                "documents_per_topic": n_docs,
                "run_lines": int(len(run_df)),
                "qrels_lines": int(len(qrels_df)),
            }
            for where, ours, theirs in (("files", ours_files, theirs_files), ("memory", ours_memory, theirs_memory)):
                a_cpu, a_wall, res = timed(ours)
                b_cpu, b_wall, ref = timed(theirs)
                worst = max(
                    float(
                        np.max(
                            np.abs(
                                res[m][name].to_numpy()
                                - pd.Series({t: v[key] for t, v in ref.items()})
                                .reindex(res[m].index, fill_value=0.0)
                                .to_numpy()
                            )
                        )
                    )
                    for m, key in METRICS.items()
                )
                case[where] = {
                    "agreekit_cpu_s": a_cpu,
                    "pytrec_eval_cpu_s": b_cpu,
                    "ratio": b_cpu / a_cpu,
                    "agreekit_wall_s": a_wall,
                    "pytrec_eval_wall_s": b_wall,
                    "ratio_wall": b_wall / a_wall,
                    "max_abs_difference": worst,
                }
            cases.append(case)
            print(json.dumps(case, indent=2))
    ratios = [c[w]["ratio"] for c in cases for w in ("files", "memory")]
    out = {
        "benchmark": "evaluate (AP, nDCG@10, P@10, RR, R@100) vs pytrec_eval, one run, from files and from memory",
        "metrics": list(METRICS),
        "repeats": REPEATS,
        "statistic": "median CPU seconds of the repeats",
        "cases": cases,
        "min_ratio": min(ratios),
        "target_ratio": 1.0,
        "meets_target": min(ratios) >= 1.0,
        "max_abs_difference": max(c[w]["max_abs_difference"] for c in cases for w in ("files", "memory")),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "pandas": pd.__version__,
        "pytrec_eval": getattr(pytrec_eval, "__version__", "?"),
        "machine": platform.machine(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(f"min ratio {out['min_ratio']:.2f} (target >= 1): {'met' if out['meets_target'] else 'NOT met'}")


if __name__ == "__main__":
    main()
