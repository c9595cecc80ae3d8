# Everything runs in a project-local virtualenv that the first target creates.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lit pytest docs bench bench-quick clean

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

# The model zoo, plain Python vs janus.jit; report in benchmarks/report (json, md, png).
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,distributed,bench]'
	$(BIN)/janus-bench -o benchmarks/report

bench-quick: $(STAMP)
	$(BIN)/janus-bench --quick -o benchmarks/report-quick --no-plot

docs: $(STAMP)
	$(BIN)/python -m janus.dialects.docgen > docs/dialect.md
	$(BIN)/python -m janus.frontend.trace.coverage > docs/coverage.md
	$(BIN)/python -m janus.frontend.ops.coverage > docs/numpy-coverage.md
	$(BIN)/python -m janus.frontend.ops.gradients docs/autodiff.md

clean:
	rm -rf $(VENV) build *.egg-info
