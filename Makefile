# agreekit — the two commands: `make results` and `make test`.
# Both create .venv and install the pinned stack themselves (uv bootstrapped with pip).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
CORES  ?= 2

.PHONY: all results test bench lint clean venv report

all: results

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.4,<1"
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e ".[workflow,test]"
	touch $(STAMP)

venv: $(STAMP)

results: $(STAMP)
	$(VENV)/bin/snakemake --cores $(CORES) --printshellcmds

report: results
	$(VENV)/bin/snakemake --cores $(CORES) --report results/report.html

test: $(STAMP)
	$(PY) -m pytest -q -n $(CORES) --hypothesis-profile=ci

bench: $(STAMP)
	@set -e; for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

clean:
	rm -rf results/* .snakemake logs
