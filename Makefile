# The two commands of the quickstart. Each creates .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench package package-test clean

# requirements-nlp.txt: the English parse pipeline, one wheel pinned by its sha256 (no dependencies
# of its own to resolve: spacy comes from pyproject.toml).
$(STAMP): pyproject.toml requirements-nlp.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements-nlp.txt
	touch $@

$(TEST_STAMP): pyproject.toml requirements-nlp.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements-nlp.txt
	touch $(STAMP) $@

## make run: the terminal app on the embedded defaults (no LLM, no server)
run: $(STAMP)
	$(BIN)/veramem

## make lint: the layer contracts, ruff (rules, complexity, formatting) and mypy
# import-linter and mypy read packages from the file system, so the package-dir mapping is
# laid out as one tree in .lint/ first; mypy then sees veramem_desktop.core as the shell imports it.
# The same checks run before each commit with `pre-commit install` (.pre-commit-config.yaml).
# LINT_DIR=/tmp/x puts that tree elsewhere, so two checkouts' or two people's runs do not share it.
LINT_DIR ?= .lint
lint: $(TEST_STAMP)
	rm -rf $(LINT_DIR) && mkdir -p $(LINT_DIR)/veramem_desktop
	cp -r veramem_desktop/. $(LINT_DIR)/veramem_desktop/
	for d in core models sync tui; do cp -r $$d $(LINT_DIR)/veramem_desktop/$$d; done
	cd $(LINT_DIR) && PYTHONPATH=. $(CURDIR)/$(BIN)/lint-imports $(CURDIR)/pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	cd $(LINT_DIR) && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml -p veramem_desktop

## make test: lint, then the whole suite (every marker runs)
# The suite runs on TEST_WORKERS pytest-xdist workers: one per CPU, at least 2 and at most 4 (each
# worker holds its own embedding model and parse pipeline). Most of a test's time is a `veramem`
# subprocess or a server it waits on, so one process left the second core idle. `--dist loadgroup`
# keeps a module whose tests share a module-scoped fixture (the packaged build) on one worker
# (tests/conftest.py marks them). `TEST_WORKERS=0 make test` runs it in one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -lt 2 ] && n=2; [ "$$n" -gt 4 ] && n=4; echo $$n)
test: lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

bench: $(STAMP)
	$(BIN)/veramem bench

clean:
	rm -rf .lint $(VENV) build dist *.egg-info

## make package: the standalone build, packaging/dist/veramem/ (PyInstaller, one folder)
package: $(STAMP)
	VENV=$(abspath $(VENV)) bash packaging/build.sh

## make package-test: build, then run the built program through packaging/smoke_test.sh
package-test: package
	bash packaging/smoke_test.sh
