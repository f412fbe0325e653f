"""Adapter: fresh Monte Carlo E[g(Gamma)] at held-out n (agreekit.ranking.tablegen.reproduction.held_out_check)."""
import json

from ranking_common import setup

log = setup(snakemake)  # noqa: F821
from agreekit._io import write_json  # noqa: E402
from agreekit.ranking.tablegen.reproduction import held_out_check  # noqa: E402

with open(snakemake.input.table) as fh:  # noqa: F821
    table = json.load(fh)
p = snakemake.params  # noqa: F821
rows = held_out_check(table, p.n, size=p.size, seed=p.seed, batch_elements=p.batch_elements)
for r in rows:
    log.info("%s", r)
write_json(snakemake.output[0], rows)  # noqa: F821
