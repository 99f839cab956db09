# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# Both create .venv with the machine's python3 when it is missing and re-install the
# project whenever pyproject.toml changes (the stamp files track that).

PYTHON ?= python3
# One test process per CPU; the modules that start a Ray cluster share one process
# (xdist_group "ray"), so two clusters never compete for the same cores. PYTEST_PARALLEL= runs
# the suite in one process.
PYTEST_PARALLEL ?= -n auto --dist loadgroup
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck pytest bench clean

demo: $(RUNTIME_STAMP)
	$(BIN)/grounding-router demo

test: $(DEV_STAMP)
	$(MAKE) lint typecheck pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(BIN)/pytest $(PYTEST_PARALLEL) $(PYTEST_ARGS)

bench: $(DEV_STAMP)
	$(BIN)/python scripts/bench/run_all.py $(BENCH_ARGS)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(RUNTIME_STAMP)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build dist
