# agreekit — the two commands: `make results` and `make test`.
# Both create .venv and install the pinned stack themselves (uv bootstrapped with pip).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
CORES  ?= 2

.PHONY: all results tables test test-slow bench lint clean venv report docs docs-clean dist dist-docs

all: results

$(STAMP): pyproject.toml requirements/lock.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.4,<1"
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -c requirements/lock.txt -e ".[workflow,test]"
	touch $(STAMP)

# the documentation's tools (the [docs] extra, pinned by the same lock file); nothing is fetched at build time
DOCS_STAMP := $(VENV)/.docs-stamp
$(DOCS_STAMP): $(STAMP)
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -c requirements/lock.txt -e ".[workflow,test,docs]"
	touch $(DOCS_STAMP)

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

# CORES+1 workers, one test handed out at a time (see tests/conftest.py): many tests wait on subprocesses,
# the SLURM test (in test-slow) on the scheduler; NUMBA_NUM_THREADS=1 per worker (tests/conftest.py)
TEST_WORKERS ?= $(shell echo $$(( $(CORES) + 1 )))
# `make test`: everything but the `slow` tests (large references, whole pipeline runs; the list and the
# rule are in tests/conftest.py); `make test-slow` runs only those; `.ci/run` runs both
test: $(STAMP)
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/ruff format --check --no-cache .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxschedchunk 1 --hypothesis-profile=ci -m "not slow"

test-slow: $(STAMP)
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxschedchunk 1 --hypothesis-profile=ci -m slow

bench: $(STAMP)
	@set -e; for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

# docs/_build/html (warnings are errors, every cross-reference must resolve, numpydoc validation on);
# one process: the parallel reader (-j 2) lost a worker (EOFError) in two of three builds here
docs: $(DOCS_STAMP)
	@set -e; start=$$(date +%s); \
	MPLBACKEND=Agg $(VENV)/bin/sphinx-build -b html -W --keep-going -n -j 1 -q docs docs/_build/html; \
	echo "docs built in $$(( $$(date +%s) - start )) s: docs/_build/html/index.html"

docs-clean:
	rm -rf docs/_build docs/api docs/gallery

# release artefacts in dist/: the sdist and the wheel (built from the sdist, offline: no build isolation, the
# pinned setuptools of .venv), each file's size printed. `make dist-docs` adds the built documentation as a zip
# (it runs `make docs` first, minutes on 2 cores, hence its own target).
VERSION = $(shell sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' src/agreekit/__init__.py)
dist: $(STAMP)
	rm -rf dist/agreekit-$(VERSION).tar.gz dist/agreekit-$(VERSION)-*.whl
	$(VENV)/bin/uv build --quiet --offline --no-build-isolation --python $(PY) --sdist --wheel --out-dir dist .
	@ls -l dist/agreekit-$(VERSION).tar.gz dist/agreekit-$(VERSION)-*.whl | awk '{ print $$5 " bytes  " $$9 }'

dist-docs: docs
	@mkdir -p dist
	rm -f dist/agreekit-$(VERSION)-docs.zip
	cd docs/_build && rm -rf agreekit-$(VERSION)-docs && cp -r html agreekit-$(VERSION)-docs && \
	  $(CURDIR)/$(PY) -m zipfile -c $(CURDIR)/dist/agreekit-$(VERSION)-docs.zip agreekit-$(VERSION)-docs && rm -rf agreekit-$(VERSION)-docs
	@ls -l dist/agreekit-$(VERSION)-docs.zip | awk '{ print $$5 " bytes  " $$9 }'

clean:
	rm -rf results/* .snakemake logs
