"""Adapter: assemble the versioned JSON table of one scheme (agreekit.tablegen.assemble_table)."""
import json

from ranking_common import setup

log = setup(snakemake, numba_threads=False)  # noqa: F821
from agreekit._io import write_json  # noqa: E402
from agreekit.tablegen import assemble_table  # noqa: E402
from agreekit.tables import load_table  # noqa: E402

with open(snakemake.input.exact) as fh:  # noqa: F821
    exact = json.load(fh)
with open(snakemake.input.fit) as fh:  # noqa: F821
    fitted = json.load(fh)
table = assemble_table(snakemake.params.settings, exact, fitted)  # noqa: F821
write_json(snakemake.output[0], table)  # noqa: F821
load_table(snakemake.output[0])  # noqa: F821  (validates schema + checksum)
log.info("table %s: checksum %s", table["scheme_id"], table["checksum"])
