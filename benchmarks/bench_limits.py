"""Wall-clock and memory limits moved out of the unit tests (issue 21): time limits honoured and memory
bounded for the consensus solvers and the streamed bootstrap.

Each case runs in a fresh interpreter; beside it, a reference interpreter in the same run does the same
imports and numba warm-up only, so memory is reported as growth over that reference (peak RSS, MiB) and
time as the ratio elapsed / time_limit.  The targets are those the unit tests used to assert:

* FAST with 10⁹ starts on Emond-Mason, time_limit 2 s: elapsed <= 2 + 1.5 s, RSS growth of the solve < 100 MiB,
  process peak < 2000 MiB (52 GiB before streaming);
* auto on 1000 random items, time_limit 5 s: elapsed <= 5 + 3 s, process peak < 1000 MiB (m³ arrays: 7.45 GiB);
* every method on 5 x 3000 items, time_limit 0.3 s: elapsed <= 0.3 + 6 s (Θ(m²) set-up on top);
* exact branch and bound on 7 x 30 items, time_limit 0.2 s: elapsed < 3 s;
* bootstrap CLI, 4·10⁶ resamples of 20 topics: process peak < 600 MiB (1.2 GiB unstreamed).

Writes benchmarks/output/bench_limits.json; exits 1 if a target is missed.
Run: ``.venv/bin/python benchmarks/bench_limits.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "output" / "bench_limits.json"

PRELUDE = (
    "import json, resource, time, warnings\nimport numpy as np\n"
    "from agreekit.consensus import kemeny, read_rankings\nfrom agreekit.consensus._kemeny import warmup\n"
    "warmup()\nbase = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
)
EPILOGUE = (
    "\nOUT['peak_mib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "OUT['grow_mib'] = OUT['peak_mib'] - base\nprint(json.dumps(OUT))\n"
)

CASES = {
    "fast_billion_starts": (
        "d = read_rankings('resources/consensus/emond_mason.csv')\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
        "    r = kemeny(d, method='fast', n_starts=10**9, time_limit=2, rng=1)\n"
        "OUT = dict(elapsed=r.seconds, time_limit=2)\n",
        lambda o: o["elapsed"] <= 2 + 1.5 and o["grow_mib"] < 100 and o["peak_mib"] < 2000,
    ),
    "auto_1000_items": (
        "X = np.array([np.random.default_rng(i).permutation(1000) + 1 for i in range(5)])\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
        "    r = kemeny(X, time_limit=5, rng=0)\n"
        "OUT = dict(elapsed=r.seconds, time_limit=5)\n",
        lambda o: o["elapsed"] <= 5 + 3 and o["peak_mib"] < 1000,
    ),
    "exact_bb_30_items": (
        "X = np.array([np.random.default_rng(300 + i).permutation(30) + 1 for i in range(7)])\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
        "    r = kemeny(X, method='exact', solver='bb', time_limit=0.2)\n"
        "OUT = dict(elapsed=r.seconds, time_limit=0.2)\n",
        lambda o: o["elapsed"] < 3,
    ),
}
for _kw in (
    "{'method': 'quick'}",
    "{'method': 'fast', 'n_starts': 10**6}",
    "{'method': 'auto'}",
    "{'method': 'exact', 'solver': 'mip'}",
):
    CASES["every_method_3000_items " + _kw] = (
        "HARD = np.array([np.random.default_rng(100 + i).permutation(3000) + 1 for i in range(5)])\n"
        "t = time.perf_counter()\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
        f"    r = kemeny(HARD, time_limit=0.3, rng=0, **{_kw})\n"
        "OUT = dict(elapsed=time.perf_counter() - t, time_limit=0.3)\n",
        lambda o: o["elapsed"] <= 0.3 + 6,
    )


def run(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bootstrap_case(tmp: Path) -> dict:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    f = tmp / "M.csv"
    pd.DataFrame(rng.uniform(size=(20, 3)), columns=list("ABC")).to_csv(f, index=False)
    code = (
        "import resource, json\nfrom agreekit.cli import main\nimport agreekit.ireval.bootstrap\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        f"rc = main(['bootstrap', {str(f)!r}, '--n-resamples', '4000000', '--seed', '1', '--alpha', '0.01',"
        f" '-o', {str(tmp / 'o.json')!r}])\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(json.dumps({'rc': rc, 'peak_mib': peak, 'grow_mib': peak - base}))\n"
    )
    return run(code)


def main() -> int:
    reference = run(PRELUDE + "OUT = {}\n" + EPILOGUE)  # imports + warm-up only
    rows, ok = {"reference_interpreter": reference}, True
    for name, (code, target) in CASES.items():
        o = run(PRELUDE + code + EPILOGUE)
        o["elapsed_over_limit"] = o["elapsed"] / o["time_limit"]
        o["peak_over_reference"] = o["peak_mib"] / reference["peak_mib"]
        o["met"] = bool(target(o))
        ok &= o["met"]
        rows[name] = o
        print(
            f"{name}: {o['elapsed']:.2f} s for a {o['time_limit']} s limit, peak {o['peak_mib']:.0f} MiB "
            f"(reference {reference['peak_mib']:.0f}), {'met' if o['met'] else 'MISSED'}",
            flush=True,
        )
    with tempfile.TemporaryDirectory() as tmp:
        o = bootstrap_case(Path(tmp))
    o["met"] = o["rc"] == 0 and o["peak_mib"] < 600
    o["peak_over_reference"] = o["peak_mib"] / reference["peak_mib"]
    ok &= o["met"]
    rows["bootstrap_4e6_resamples"] = o
    print(f"bootstrap 4e6 resamples: peak {o['peak_mib']:.0f} MiB, {'met' if o['met'] else 'MISSED'}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
