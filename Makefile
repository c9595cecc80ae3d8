# Everything runs in a project-local virtualenv that the first target creates, one per
# interpreter: .venv for python3, .venv-3.12 for `make test PYTHON=python3.12`.
PYTHON  ?= python3
VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifeq ($(VERSION),)
$(error $(PYTHON) does not run: pass PYTHON=<a CPython 3.11, 3.12 or 3.13>)
endif
VENV    := $(if $(filter python3,$(PYTHON)),.venv,.venv-$(VERSION))
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-stamp
QUICK   := benchmarks/report-quick$(VENV:.venv%=%)

.PHONY: demo test lit pytest pytest-frontend docs bench bench-quick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,distributed]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

# every test: lit, pytest, and the model zoo compiled vs imperative (exit 1 on any disagreement)
test: lit pytest bench-quick

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -q lit_tests

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

# the bytecode frontend's tests only (what CI runs on the other interpreters)
pytest-frontend: $(STAMP)
	$(BIN)/python -m pytest -q tests/frontend

# The model zoo, plain Python vs janus.jit; report in benchmarks/report (json, md, png).
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,distributed,bench]'
	$(BIN)/janus-bench -o benchmarks/report

bench-quick: $(STAMP)
	$(BIN)/janus-bench --quick -o $(QUICK) --no-plot

docs: $(STAMP)
	$(BIN)/python -m janus.dialects.docgen > docs/dialect.md
	$(BIN)/python -m janus.frontend.trace.coverage docs/coverage.md  # this interpreter's section
	$(BIN)/python -m janus.frontend.ops.coverage > docs/numpy-coverage.md
	$(BIN)/python -m janus.frontend.ops.gradients docs/autodiff.md

clean:
	rm -rf .venv .venv-3.* build *.egg-info
