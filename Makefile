# The two commands of the README: `make run` and `make test`. Both install what they need.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test test-unit test-integration test-coreapi clean bench

install: $(STAMP)

$(STAMP): setup.py setup.cfg
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: install
	$(BIN)/python tools/devstack.py

test: install
	$(BIN)/python -m pytest

test-unit: install
	$(BIN)/python -m pytest tests/unit

test-integration: install
	$(BIN)/python -m pytest tests/integration

test-coreapi: install
	$(BIN)/python -m pytest tests/coreapi

bench: install
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) *.egg-info instance/coreapi.sqlite .pytest_cache
