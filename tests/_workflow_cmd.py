"""The command that runs this checkout's Snakefile in a scratch directory, shared by the workflow tests."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def snakemake_cmd(wd, *args) -> list[str]:
    """``python -m snakemake -s <checkout>/Snakefile --directory <wd> <args>``: the workflow of this checkout run
    in ``wd``, the test's scratch directory (with its own or linked config/ and resources/)."""
    return [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(wd), *map(str, args)]
