# The two commands of the README: `make run` and `make test`. Both install what they need.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Four projects, each with its own metadata: prerender (setup.py, setup.cfg), coreapi
# (coreapi/pyproject.toml), the plumbing both require (plumbing/pyproject.toml) and the demo shop
# (examples/pyproject.toml). requirements/dev.txt pins every package they and prerender's [dev]
# extra need, but the plumbing, which is installed from the repository (tools/lock.py);
# requirements/prerender.txt and requirements/coreapi.txt pin each service's runtime alone, at the
# same versions, for production (docs/operations.md, "Production install").
METADATA := setup.py setup.cfg coreapi/pyproject.toml plumbing/pyproject.toml examples/pyproject.toml
LOCK := requirements/dev.txt
# `make lock` keeps the pins that still fit the metadata; `make lock LOCK_FLAGS=--upgrade` moves
# every pin to the newest allowed version, `LOCK_FLAGS='-P flask'` one package.
LOCK_FLAGS ?=

# The browser modules' tools (package.json, package-lock.json: TypeScript's checker, ESLint, esbuild for their
# release tree, axe-core for the browser tests): npm ci only when the lock changes.
NODE_STAMP := node_modules/.package-lock.json
# The release tree's sources, folders included (removing a file changes its folder's time only).
STATIC_SOURCES := $(shell find prerender/static)
STATIC_BUILD := prerender/static_build/source-digest

.PHONY: install static lock run test test-js test-unit test-integration test-coreapi lint format typecheck clean bench

install: $(STAMP) $(STATIC_BUILD)

# The lock first (pip itself too), then the four local projects without their dependencies, so
# nothing moves a pin; built by the lock's setuptools, without build isolation (no download).
$(STAMP): $(LOCK) $(METADATA)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "$$(grep -E '^pip==' $(LOCK))"
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e ./plumbing -e . -e ./coreapi -e ./examples
	touch $(STAMP)

# Re-resolves the three lock files from the metadata with pip-compile (needs the package index; the
# plumbing's wheel is built for it and left out of the locks: tools/lock.py), then installs them.
lock: $(STAMP)
	$(BIN)/python tools/lock.py $(LOCK_FLAGS)
	$(MAKE) install

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $(NODE_STAMP)

# The release tree of the browser files (tools/build_static.mjs: esbuild, minified, the SDK in one module,
# precompressed siblings), rebuilt when a source file (or folder), the script or the npm lock changes. prerender serves
# it while it matches the sources, the readable prerender/static/ otherwise (prerender/rendering/assets.py).
static: $(STATIC_BUILD)

$(STATIC_BUILD): $(STATIC_SOURCES) tools/build_static.mjs $(NODE_STAMP)
	node tools/build_static.mjs

run: install
	$(BIN)/python tools/devstack.py

# The checks and the browser modules' unit tests first (seconds), then every other test, on every CPU
# (pytest-xdist: one worker per CPU, each with its own live servers, databases and caches; docs/decisions.md,
# "Issue 25: the suite in parallel"); the run ends with its 20 slowest tests, the ones to look at when the
# suite grows slow. `make test PYTEST_WORKERS=0` runs it in one process.
PYTEST_WORKERS ?= auto
test: lint typecheck test-js
	$(BIN)/python -m pytest --durations=20 --numprocesses=$(PYTEST_WORKERS) --dist=worksteal

# The browser modules' unit tests (tests/js/, Node's own test runner, no browser: a few seconds).
test-js: $(NODE_STAMP)
	node --test tests/js/

# ruff (ruff.toml): the linter, and the formatter's check of every Python file; ESLint (eslint.config.js) on
# the browser modules and the Node scripts.
lint: install $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint .

# Rewrites the files as the linter and the formatter want them.
format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# mypy --strict on prerender/, coreapi/ and plumbing/ (setup.cfg [mypy]), and TypeScript's checker on the browser
# modules' JSDoc (tsconfig.json).
typecheck: install $(NODE_STAMP)
	$(BIN)/mypy
	npx --no-install tsc -p tsconfig.json

test-unit: install
	$(BIN)/python -m pytest tests/unit

test-integration: install
	$(BIN)/python -m pytest tests/integration

test-coreapi: install
	$(BIN)/python -m pytest tests/coreapi

# wrk (the load generator of the throughput and busy-day figures) and nginx (figures 7 and 10), Debian's
# packages, installed when missing (root, as on the project's machines); without them those figures say so.
BENCH_TOOLS := $(if $(shell command -v wrk),,wrk) $(if $(shell command -v nginx || test -x /usr/sbin/nginx && echo y),,nginx)

bench: install
	@if [ -n "$(strip $(BENCH_TOOLS))" ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_TOOLS) >/dev/null \
		&& { /usr/sbin/nginx -s stop >/dev/null 2>&1 || true; } \
		|| echo "could not install $(BENCH_TOOLS): the figures that need them say so"; \
	fi
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) *.egg-info build dist coreapi/*.egg-info coreapi/build coreapi/dist \
		examples/*.egg-info examples/build examples/dist plumbing/*.egg-info plumbing/build plumbing/dist \
		instance/coreapi.sqlite .pytest_cache \
		.mypy_cache .ruff_cache node_modules prerender/static_build
