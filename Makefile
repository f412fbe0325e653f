# agreekit — the two commands: `make results` and `make test`.
# Both create .venv and install the pinned stack themselves (uv bootstrapped with pip).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
CORES  ?= 2

.PHONY: all results tables test bench lint clean venv report

all: results

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.4,<1"
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e ".[workflow,test]"
	touch $(STAMP)

venv: $(STAMP)

results: $(STAMP)
	$(VENV)/bin/snakemake --cores $(CORES) --printshellcmds

# the ranking tables with their null quantiles sampled (the default run takes and verifies the shipped ones)
tables: $(STAMP)
	$(VENV)/bin/snakemake --cores $(CORES) --printshellcmds --configfile config/tables.yaml -- ranking_all
	@for f in results/tables/*.json; do \
	  if cmp -s "$$f" "src/agreekit/data/tables/$$(basename $$f)"; then echo "identical to shipped: $$f"; \
	  else echo "DIFFERS from shipped: $$f"; fi; done

report: results
	$(VENV)/bin/snakemake --cores $(CORES) --report results/report.html

test: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n $(CORES) --hypothesis-profile=ci

bench: $(STAMP)
	@set -e; for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

clean:
	rm -rf results/* .snakemake logs
