# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO ?= demo/workspace.db

.PHONY: run test bench install demo clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	@mkdir -p $(dir $(DEMO))
	@test -f $(DEMO) || $(BIN)/memory-desk demo create $(DEMO) --facts 2000 --seed 7
	@echo "Opening demo workspace $(DEMO)"
	$(BIN)/memory-desk $(DEMO)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/bench -s -p no:randomly

clean:
	rm -rf $(VENV) demo build dist
