# Membrane: `make serve` serves the API on SQLite, `make test` runs the whole suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: serve test system-deps fuzz install install-dev migrate lint check bench-locomo bench-lifecycle bench-load bench-scale bench-consolidation clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The default install: the service with its ONNX embedder and no torch (.venv: ~360 MB).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

# `make test` also tests the torch runtime (the `torch` extra). torch is named as its CPU
# build (+cpu): from the wheels pip already finds (find-links, a local index) or else
# from PyTorch's CPU index; PyPI's default Linux wheel would pull the CUDA libraries.
TORCH_VERSION ?= 2.13.0+cpu
TORCH_INDEX_URL ?= https://download.pytorch.org/whl/cpu
$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install --quiet 'torch==$(TORCH_VERSION)' 2>/dev/null \
		|| $(BIN)/pip install --quiet --extra-index-url $(TORCH_INDEX_URL) 'torch==$(TORCH_VERSION)'
	$(BIN)/pip install --quiet -e '.[torch,dev]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

migrate: install
	$(BIN)/membrane migrate

serve: migrate
	$(BIN)/membrane serve

# Debian's Chromium renders /docs and /redoc in tests/test_docs_offline.py.
system-deps:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y --no-install-recommends chromium)

test: install-dev system-deps
	$(BIN)/python -m pytest

# The Schemathesis campaign of tests/test_fuzz.py at full length: FUZZ_EXAMPLES random cases
# per store (on top of the coverage phase's fixed ones), shrinking on; `make test` runs a short
# seeded variant. Reports (schemathesis.txt, report.json, server.log, summary.txt) per store in
# FUZZ_REPORT_DIR. Every run (here, in `make test` and CI) draws a fresh seed and prints it;
# replay one with make fuzz FUZZ_SEED=<seed>.
# It also runs the trust property over random revisions and imports (tests/
# test_trust_revision_properties.py) with REVISION_EXAMPLES examples per store (make test: 40).
FUZZ_EXAMPLES ?= 10000
FUZZ_REPORT_DIR ?= /tmp/membrane-fuzz
REVISION_EXAMPLES ?= 1000
fuzz: install-dev
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_REPORT_DIR=$(FUZZ_REPORT_DIR) \
		REVISION_EXAMPLES=$(REVISION_EXAMPLES) \
		$(BIN)/python -m pytest tests/test_fuzz.py tests/test_trust_revision_properties.py -rA

# ruff (lint + format check) and mypy --strict over everything that is Python here.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app bench tests deploy/docker/healthcheck.py clients/generate_python.py
	$(BIN)/hadolint Dockerfile

check: lint test

bench-locomo: install-dev
	$(BIN)/python bench/locomo.py --store sqlite --out bench/results/locomo-sqlite.json

bench-load: install-dev
	MEMBRANE_CAPACITY__MAX_IN_FLIGHT=2 $(BIN)/python bench/load.py --store sqlite --workers 2 --out bench/results/load-sqlite.json
	$(BIN)/python bench/load.py --store postgres --workers 2 --out bench/results/load-postgres.json

bench-scale: install-dev
	$(BIN)/python bench/scale.py --store sqlite --records 200000 --reuse
	$(BIN)/python bench/scale.py --store postgres --records 100000 --reuse

bench-consolidation: install-dev
	$(BIN)/python bench/consolidation.py --store sqlite --episodes 50000 --reuse
	$(BIN)/python bench/consolidation.py --store postgres --episodes 50000 --reuse

bench-lifecycle: install-dev
	$(BIN)/python bench/lifecycle.py --store sqlite --out bench/results/lifecycle-sqlite.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache membrane.db*
