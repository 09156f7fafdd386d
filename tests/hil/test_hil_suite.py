"""Every bundled scenario runs and meets its expectation (examples are tests), and every check
is proven able to fail by at least one fault scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.bench import load_bench
from hil.checks import CHECK_IDS
from hil.checks import run_checks
from hil.runner import judge, load_rules, run_scenario
from hil.trace import TraceReader
from hil.scenario import load_scenario

SUITE = Path(__file__).resolve().parents[2] / "scenarios"
FILES = sorted(SUITE.rglob("*.yaml"))
SLOW_ROUNDS = 5_000


def _param(p: Path):
    slow = load_scenario(p).scenario.rounds >= SLOW_ROUNDS
    return pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_bundled_scenario_meets_expectation(path, tmp_path):
    loaded = load_scenario(path)
    result = run_scenario(loaded, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    failing = {c["id"]: (c["verdict"], c["summary"], c["findings"][:3]) for c in result["checks"]
               if c["verdict"] == "fail" or c["id"] in result["expected_failures"]}
    # MET, not NOT DECISIVE: the checks the scenario names in expect.pass / expect.fail were decided
    assert result["outcome"] == "met", (failing, result["undecided"])
    # `croupier check TRACE` reproduces the run's verdicts exactly: the trace carries the limits
    # and the expectation it was judged with
    trace = tmp_path / result["trace"]
    rechecked = [c.to_json() for c in run_checks(trace)]
    assert rechecked == result["checks"]
    with TraceReader(trace) as reader:
        expect = reader.meta()["expect"]
        assert judge(rechecked, expect["fail"], expected_pass=expect["pass"])["outcome"] == "met"


def test_every_check_has_a_fault_scenario():
    expected = set()
    for p in FILES:
        expected |= set(load_scenario(p).scenario.expect.fail)
    assert expected == set(CHECK_IDS)


def test_suite_has_normal_play_of_at_least_500_rounds_and_20k_statistics():
    scenarios = [load_scenario(p).scenario for p in FILES]
    normal = [s for s in scenarios if s.name == "normal-play"][0]
    assert normal.rounds >= 500 and not normal.expect.fail and not normal.faults
    stats = {s.name: s for s in scenarios if s.name.startswith("stat-")}
    assert stats["stat-imbalanced-wheel"].rounds >= 20_000
    assert stats["stat-unbiased-wheel"].rounds >= 20_000
    assert stats["stat-imbalanced-wheel"].expect.fail == ("CT-690.1a-section-chi2",)
