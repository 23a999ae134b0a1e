# isoline: `make demo` runs the bundled comparison, `make test` runs the test suite.
# Both create .venv on first use. torch is pinned to the CPU build first so that no
# dependency pulls a multi-GB CUDA wheel.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.isoline-installed

.PHONY: venv demo test lint clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/isoline bench src/isoline/configs/demo.yaml --out demo-report --storage demo.db

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist worksteal -p no:cacheprovider --timeout=900 --durations=15

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks packaging examples
	$(VENV)/bin/ruff format --check src tests benchmarks packaging examples
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) demo-report demo.db
