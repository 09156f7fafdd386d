# The two commands of the README: `make run` and `make test`.
# Both create (or reuse) a local virtualenv in .venv and install the project into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.croupier-installed
OUT    ?= out
PYTEST_ARGS ?=
# Workers of make test's CPU-bound tier (tests/run_phases.py): two, one per core; its real-time tier
# runs one test at a time in each of its two lanes beside them (WORKERS=3 no longer speeds it: the
# real-time tier sets the pace).
WORKERS ?= 2

.PHONY: run test test-quick soak mutation bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/croupier run --out $(OUT)

# The suite's two tiers side by side (tests/run_phases.py): the real-time tier (tests/e2e,
# tests/conformance, tests/stubs, a few wall-clock files: marker quiet_machine) one test at a time at
# normal priority in each of two lanes (the second: long tests that mostly wait on the wall clock,
# marker second_lane), and beside it the CPU-bound rest over $(WORKERS) workers at idle priority
# (SCHED_IDLE), so no busy neighbour decides a timing verdict (six fresh-clone runs that shared the
# CPUs with busy tests at their priority each lost one to three such verdicts).
test: $(STAMP)
	WORKERS=$(WORKERS) $(BIN)/python tests/run_phases.py $(PYTEST_ARGS)

test-quick: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 -m 'not slow' $(PYTEST_ARGS)

# the opt-in soak tier (tests marked soak, on top of the suite): the volume runs — 10^4 mutated input
# files per kind, 10^5 fuzz frames per wire, 10^4 late-bet attempts per table (simulation and Modbus)
# — and the fifty-kill kill -9 campaign
soak: $(STAMP)
	CROUPIER_SOAK=1 $(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1 $(PYTEST_ARGS)

# the opt-in mutation tier (tests marked mutation, and the planted bugs; never in `make test`'s default
# run): issue 16's eleven planted bugs, each in a copy of the repo against its fast catchers, then mutmut
# over rules/ and hil/checks/ ([tool.mutmut] in pyproject.toml) judged against tests/mutation/survivors.txt;
# the report in $(OUT)/mutation (docs/mutation.md). Many hours on 2 cores: the whole scope runs in
# $(OUT)/mutation-work and an interrupted run goes on there the next time; narrow it with
# CROUPIER_MUTATION_ONLY='rules/roulette_up.py' CROUPIER_MUTATION_TESTS='tests/rules/test_rules_roulette_up.py'
mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet 'mutmut>=3.8,<4'
	CROUPIER_MUTATION=1 CROUPIER_MUTATION_OUT=$(abspath $(OUT))/mutation CROUPIER_MUTATION_KEEP=$(abspath $(OUT))/mutation-work $(BIN)/python -m pytest -n 0 tests/mutation $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/sim_speed.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
