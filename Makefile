# The two commands of the README: `make run` and `make test`.
# Both create (or reuse) a local virtualenv in .venv and install the project into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.croupier-installed
OUT    ?= out
PYTEST_ARGS ?=
# Three test workers on two cores: a third of the suite waits on real time (firmware stubs paced by
# the wall clock), so two workers keep the cores ~60 % busy; three finish the suite in about 8 min
# instead of 11 (measured side by side on a fresh clone, 2 cores).
WORKERS ?= 3

.PHONY: run test test-quick soak bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/croupier run --out $(OUT)

test: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 $(PYTEST_ARGS)

test-quick: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 -m 'not slow' $(PYTEST_ARGS)

# the opt-in soak tier: the fifty-kill kill -9 campaign (about 3.5 min of one core) on top of the suite
soak: $(STAMP)
	CROUPIER_SOAK=1 $(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/sim_speed.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
