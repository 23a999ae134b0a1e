# isoline: `make demo` runs the bundled comparison, `make test` runs the test suite but
# the tests marked `slow` (quality checks that run whole optimizations: every method's gain
# over random search, exact resume of every method in another process, the external-method
# conformance run, the Ray Tune and Dask examples, the Ax peer's conformance checks),
# `make test-slow` runs just those (CI runs both: .ci/run), `make docs` builds the
# documentation site into site/ (warnings are errors).
# Both create .venv on first use. torch is pinned to the CPU build first so that no
# dependency pulls a multi-GB CUDA wheel.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.isoline-installed
# glibc maps every allocation above its mmap threshold (at most 32 MB by default) afresh and
# returns freed heap tops to the system; NeuralBO's candidate scoring (width 500, 8192 rows
# at a time: 33 MB temporaries) then page-faults gigabytes per proposal. Keeping freed
# memory in the process changes no result and cut a neuralbo run's system time from about
# 10 s to 1 s (benchmarks/results/malloc.md).
MALLOC := MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824

.PHONY: venv demo test test-slow lint docs clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(MALLOC) $(VENV)/bin/isoline bench src/isoline/configs/demo.yaml --out demo-report --storage demo.db

test: $(STAMP)
	$(MALLOC) $(PY) -m pytest -n 2 --dist worksteal -p no:cacheprovider --timeout=900 --durations=15 -m "not slow"

test-slow: $(STAMP)
	$(MALLOC) $(PY) -m pytest -n 2 --dist worksteal -p no:cacheprovider --timeout=900 --durations=15 -m slow

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks packaging examples docs/hooks.py
	$(VENV)/bin/ruff format --check src tests benchmarks packaging examples docs/hooks.py
	$(VENV)/bin/mypy

# the docs extra (MkDocs, Material, mkdocstrings) is in "all"; the stamp installs it
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) demo-report demo.db site
