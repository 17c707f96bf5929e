# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Each first checks the system libraries Qt needs (packaging/system-deps.sh: as root it
# installs them, otherwise it names the one command that would) before the long work.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DIST_STAMP := $(VENV)/.installed-dist

.PHONY: run test check bench install window-test dist dist-test clean

# Test workers (pytest-xdist): one per core by default; `make test JOBS=1` runs in one process.
JOBS ?= auto
PARALLEL := -n $(JOBS) --dist loadgroup

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

$(DIST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,dist]"
	touch $(DIST_STAMP)

install: $(STAMP)

# The window on the demo workspace (kept in your data folder; `memory-desk --demo --fresh`
# builds a new one).
run:
	@sh packaging/system-deps.sh xcb
	@$(MAKE) --no-print-directory install
	$(BIN)/memory-desk --demo

# The whole suite, the slow tier included (what CI runs), on every core.
test:
	@sh packaging/system-deps.sh offscreen
	@$(MAKE) --no-print-directory install
	$(BIN)/ruff check desktop tests
	QT_QPA_PLATFORM=offscreen $(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PARALLEL)

# The quick loop while working: everything but the slow tier.
check: $(STAMP)
	$(BIN)/ruff check desktop tests
	QT_QPA_PLATFORM=offscreen $(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PARALLEL) -m "not slow"

# The real window on the X11 (xcb) platform under Xvfb (CI runs it; needs Xvfb).
window-test:
	@sh packaging/system-deps.sh xcb
	@command -v Xvfb >/dev/null || { echo "window-test needs Xvfb: sudo apt-get install -y xvfb xauth" >&2; exit 1; }
	@$(MAKE) --no-print-directory install
	env -u QT_QPA_PLATFORM $(BIN)/python -m pytest tests/window -p no:randomly

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/bench -s -p no:randomly

# dist/: the sdist, the wheel, and the one-folder app dist/memory-desk/ (PyInstaller).
dist: $(DIST_STAMP)
	rm -rf dist build/pyinstaller
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
		packaging/memory-desk.spec

# Runs the built app (not part of `make test`: building it takes minutes).
dist-test: dist
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/dist -p no:randomly

clean:
	rm -rf $(VENV) demo build dist
