"""make test's runner (tests/run_phases.py): how its tiers' and lanes' exit statuses combine, and what each runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.run_phases import NO_TESTS, combine, commands

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("cpu", "rt", "want"), [
    (0, 0, 0),
    (1, 0, 1), (0, 1, 1), (2, 1, 2),         # a failure in either tier fails the suite; the first tier's code first
    (NO_TESTS, 0, 0), (0, NO_TESTS, 0),      # PYTEST_ARGS naming only one tier's files
    (NO_TESTS, 1, 1), (1, NO_TESTS, 1),
    (NO_TESTS, NO_TESTS, NO_TESTS),          # nothing at all collected: not a pass
    (3, 0, 3), (0, 4, 4),                    # internal error, usage error
])
def test_the_worse_tier_decides(cpu, rt, want):
    assert combine(cpu, rt) == want
    assert combine(cpu, rt, NO_TESTS) == want  # a lane with nothing collected changes nothing
    assert combine(cpu, NO_TESTS, rt) == want


def test_a_failing_second_lane_fails_the_suite():
    assert combine(0, 0, 1) == 1
    assert combine(0, NO_TESTS, 1) == 1
    assert combine(NO_TESTS, NO_TESTS, 0) == 0


def test_the_tiers_split_on_the_marker_and_only_the_cpu_tier_is_parallel():
    cpu, first, second = commands(["-k", "x"], "3", python="py")
    assert cpu == ["py", "-m", "pytest", "-n", "3", "--maxschedchunk", "1", "-m", "not quiet_machine", "-k", "x"]
    assert first == ["py", "-m", "pytest", "-n", "0", "-m", "quiet_machine and not second_lane", "-k", "x"]
    assert second == ["py", "-m", "pytest", "-n", "0", "-m", "quiet_machine and second_lane", "-k", "x"]
    assert commands([], "2")[0][0] == sys.executable


def test_the_real_time_tiers_carry_the_marker():
    """tests/conftest.py marks the tests under tests/e2e, tests/conformance and tests/stubs and the
    listed wall-clock files quiet_machine, no other (the kill -9 campaign, under tests/e2e, is listed
    for the CPU-bound tier), and the listed wall-clock waiters second_lane too: collected from one
    file of each kind, each marker expression selects exactly its tier or lane."""
    files = ["tests/e2e/test_e2e_link_dies.py", "tests/e2e/test_e2e_rtu_pty.py",
             "tests/conformance/test_conformance_modbus.py", "tests/stubs/test_stub_ctw_wheel.py",
             "tests/hil/test_hil_clock.py", "tests/e2e/test_e2e_kill9_campaign.py", "tests/hil/test_run_phases.py"]

    def selected(expr: str) -> set[str]:
        p = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                            "-m", expr, *files], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        return {line.split("::")[0] for line in p.stdout.splitlines() if "::" in line}

    assert selected("quiet_machine") == set(files[:-2])
    assert selected("not quiet_machine") == set(files[-2:])
    # the second lane: the listed wall-clock waiters (the dying link), nothing else
    assert selected("quiet_machine and second_lane") == set(files[:1])
    assert selected("quiet_machine and not second_lane") == set(files[1:-2])
