"""EVIDENCE-link counts the rig's actuations the device never registered (``actuation_lost``): a
press that left no entry in the device's press log is evidence no other check sees, so a run with
more than the scenario's ``checks.max_actuations_lost`` (0 by default) fails however the other
checks judge the presses that did register. Synthetic rounds: the figures are exact."""

from __future__ import annotations

import pydantic
import pytest

from hil.checks.base import CheckConfig, RoundView
from hil.checks.evidence import RunEvidence
from hil.scenario import CheckSettings
from hil.trace import Event


def _rounds(lost_per_round: list[int]) -> list[RoundView]:
    seq, out = 0, []
    for n, lost in enumerate(lost_per_round, 1):
        evs = []
        for i in range(lost):
            seq += 1
            evs.append(Event(seq, n, n + 0.1 * i, 0, "croupier", "actuation_lost",
                             {"actuation_id": seq, "seat": 2, "spot": "1", "purpose": "player", "coil": 9}))
        seq += 1
        end = Event(seq, n, n + 0.9, 0, "croupier", "round_end", {"round": n})
        out.append(RoundView(n, evs + [end], end=end))
    return out


def _judge(lost_per_round: list[int], **config):
    check = RunEvidence(CheckConfig(rounds_requested=len(lost_per_round), **config))
    for rv in _rounds(lost_per_round):
        check.observe(rv)
    return check.result()


def _measure(r) -> dict:
    return {m.name: (m.value, m.limit) for m in r.measurements}


def test_no_lost_actuation_passes_and_says_so():
    r = _judge([0, 0, 0])
    assert r.verdict == "pass" and r.findings_total == 0
    assert _measure(r)["actuations_lost"] == (0, "<= 0")
    assert "actuations lost" not in r.summary


def test_one_lost_actuation_fails_the_run_by_default_naming_its_round_and_press():
    r = _judge([0, 1, 0])
    assert r.verdict == "fail"
    assert _measure(r)["actuations_lost"] == (1, "<= 0")
    assert r.findings_total == 2
    per_press, overall = r.findings
    assert (per_press.round, per_press.seq) == (2, 2)
    assert per_press.message == ("actuation 2 (player press of seat 2 '1') is in no entry of the device's press "
                                 "log; the scenario allows 0 lost")
    assert (overall.round, overall.seq) == (0, None)
    assert overall.message == "1 of the rig's actuations never registered by the device; the scenario allows 0"


def test_lost_actuations_within_the_scenario_limit_pass_and_are_named_in_the_summary():
    r = _judge([1, 0, 1], max_actuations_lost=2)
    assert r.verdict == "pass" and r.findings_total == 0
    assert _measure(r)["actuations_lost"] == (2, "<= 2")
    assert r.summary == ("3 rounds: 0 wire faults, 0/0 void spins, 0 void rounds, 2 actuations lost — within the "
                         "scenario's limits")


def test_one_past_the_limit_fails_and_per_press_findings_stop_after_three():
    assert _judge([1, 1, 1], max_actuations_lost=3).verdict == "pass"
    r = _judge([2, 2], max_actuations_lost=1)
    assert r.verdict == "fail"
    # the 2nd, 3rd and 4th lost press each named (at most three past the limit), then the total
    assert [f.seq for f in r.findings] == [2, 4, 5, None]
    assert r.findings[-1].message == "4 of the rig's actuations never registered by the device; the scenario allows 1"


def test_a_trace_without_the_limit_is_judged_at_zero_and_the_scenario_refuses_a_negative_one():
    assert CheckConfig.from_json({"max_wire_faults": 2}).max_actuations_lost == 0
    assert CheckSettings(max_actuations_lost=5).max_actuations_lost == 5
    with pytest.raises(pydantic.ValidationError):
        CheckSettings(max_actuations_lost=-1)
