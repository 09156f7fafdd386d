"""The uncertainty a wager is decided with (docs/wire/clock.md): the croupier and the checks apply the
one rule "accepted before no more bets by more than the clock map's uncertainty" with one value, the
largest declared from the round's start up to the wagering device's ``clock_estimate`` reason
``decision`` — never with an estimate recorded after the decision.

On a hand-made trace of the soak run's round 7 (a press 1.907 ms before "no more bets", the round's
end-of-round estimate 2.37 ms): with the decision declared at 1.5 ms the press is a wager for the
croupier (``TableCroupier._player_presses``) and for the checks (refunded in a void round, meter
incremented: no settlement deviation, the late-bet check passes); declared at 2.4 ms the croupier
refuses it and the checks agree. A trace without a decision record (recorded before the rule) is judged with the round's
largest, as before: that round 7 still fails.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import simpy

from hil.adapters.modbus_base import DeviceClockTracking
from hil.clock import ClockMap
from hil.controller import TableCroupier
from hil.scenario import parse_scenario
from hil.trace import DECISION, ClockDeclarations, TraceReader, TraceWriter
from tests.hil.clock_rounds import AGREE, SCENARIO, record_press, record_void_round, verdicts

NO_MORE_BETS_S = 475.8
PRESS_S = NO_MORE_BETS_S - 0.001907  # press 1939 of the soak run's round 7
PRESS_ID = 1939


class _Clock:
    now = 0.0


class _Wagering(DeviceClockTracking):
    """The wagering device's adapter as far as the clock goes: its map, recorded in the trace."""

    def __init__(self, writer: TraceWriter, uncertainty_s: float) -> None:
        self.name, self.telemetry, self.max_clock_drift_ppm = "wagering", writer.record, 500
        self.clock = ClockMap(0.0, uncertainty_s, 100.0)

    def adopt(self, uncertainty_s: float) -> None:
        """A refit the I/O thread adopted and posted (``_post_estimate``), recorded before the decision."""
        self.clock = ClockMap(0.0, uncertainty_s, 100.0)
        self.telemetry(self.name, "clock_estimate", self.clock_payload(self.clock, "moved"))


def _round7(tmp_path: Path, decision_u_s: float | None, end_u_s: float = 0.00237) -> tuple[Path, list[int], dict]:
    """Round 0 declares the map at 1.1 ms; round 1: the press, "no more bets", the refit in force at the
    decision (``decision_u_s``), the croupier's decision, the wagers refunded (a void round), the
    end-of-round estimate at ``end_u_s``. ``decision_u_s`` None: the decision made as before the rule
    (the current map's uncertainty, 1.5 ms, no decision record). Returns the trace and the press ids
    the croupier made wagers, and the writer's declared decision uncertainties."""
    path = tmp_path / f"t-{decision_u_s}.sqlite"
    clock = _Clock()
    with TraceWriter(path, {"game": "crazy-time", "check_config": {"max_void_round_ratio": 1.0}}) as w:
        w.clock = clock
        wagering = _Wagering(w, 0.0011)
        w.record("wagering", "device_info", wagering.clock_payload(wagering.clock, "connect"))
        w.commit()
        w.round = clock.now = 1
        w.record("croupier", "round_start", {"round": 1})
        sc = parse_scenario(SCENARIO, "t.yaml").scenario
        croupier = TableCroupier(simpy.Environment(), wagering, w, sc, np.random.default_rng(1))
        clock.now = PRESS_S + 0.002
        record_press(w, croupier, PRESS_ID, PRESS_S)
        clock.now = NO_MORE_BETS_S
        w.record("croupier", "no_more_bets", {})
        w.record("wagering", "lockout_command", {"device_time_s": NO_MORE_BETS_S + 0.0005})
        clock.now = NO_MORE_BETS_S + 15.0
        wagering.adopt(0.0015 if decision_u_s is None else decision_u_s)
        if decision_u_s is None:  # the rule before: the current map, nothing recorded
            croupier.wagering = type("Old", (), {"clock": wagering.clock, "name": "wagering"})()
        wagers = [a.press_id for a in croupier._player_presses(NO_MORE_BETS_S)]
        record_void_round(w, wagers)
        clock.now = NO_MORE_BETS_S + 75.05
        wagering.clock = ClockMap(0.0, end_u_s, 100.0)
        wagering.clock_record()  # the runner's, at the commit
        decided = dict(w.clock_declarations.decided)
        w.commit(round_end=True)
    return path, wagers, decided


def test_a_press_before_no_more_bets_by_more_than_the_decision_s_uncertainty_is_a_wager_for_both(tmp_path):
    path, wagers, _ = _round7(tmp_path, 0.0015)
    assert wagers == [PRESS_ID]  # the croupier: 1.907 ms before, map 1.5 ms: a wager
    with TraceReader(path) as r:
        estimates = [(e.payload["reason"], e.payload["clock_uncertainty_s"]) for e in r.events()
                     if e.kind == "clock_estimate"]
    assert estimates == [("moved", 0.0015), (DECISION, 0.0015), ("round", 0.00237)]
    assert verdicts(path) == AGREE


def test_a_press_within_the_decision_s_uncertainty_is_refused_and_the_checks_agree(tmp_path):
    path, wagers, _ = _round7(tmp_path, 0.0024)
    assert wagers == []
    with TraceReader(path) as r:
        refused = [e.payload for e in r.events() if e.kind == "wager_rejected"]
    assert [(p["press_id"], p["reason"], p["clock_uncertainty_s"]) for p in refused] == [
        (PRESS_ID, "placed after no more bets", 0.0024)]
    assert verdicts(path) == AGREE


def test_a_round_without_a_decision_record_is_judged_with_the_round_s_largest_as_before(tmp_path):
    """The soak run's round 7 as it was recorded: the croupier took the press with its map's 1.5 ms,
    the checks judge it with the end-of-round 2.37 ms — the rig's false FAIL, unchanged for such a trace."""
    path, wagers, _ = _round7(tmp_path, None)
    assert wagers == [PRESS_ID]
    got = verdicts(path)
    assert got == {"CT-690.2e-settlement": ("fail", 1), "CT-690.2a-late-bets": ("fail", 1)}, got


def test_the_declarations_up_to_the_decision_set_its_uncertainty():
    d = ClockDeclarations()
    d.observe("w", "device_info", {"clock_uncertainty_s": 0.002})
    d.new_round()  # round 1: the map in force at its start counts
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": 0.001, "reason": "moved"})
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": 0.001, "reason": DECISION})
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": 0.009, "reason": "round"})  # after: no part of it
    assert d.decided == {"w": 0.002}
    d.new_round()  # round 2 starts with the 9 ms map; a reconnect's map is in force from then on
    d.observe("w", "wire_reconnected", {"clock_uncertainty_s": 0.0005})
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": 0.0007, "reason": DECISION})
    assert d.decided == {"w": 0.009}
    d.new_round()  # round 3: a resumed run connected afresh (its preamble's device_info)
    d.observe("w", "device_info", {"clock_uncertainty_s": 0.0003})
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": "bad", "reason": DECISION})  # not a number: none
    assert d.decided == {} and d.since_start == {"w": 0.0003}
    d.observe("w", "clock_estimate", {"clock_uncertainty_s": 0.0004, "reason": DECISION})
    assert d.decided == {"w": 0.0004}


@pytest.mark.parametrize("decision_u_s", [0.0015, 0.0024])
def test_the_writer_s_value_is_the_checks_value(tmp_path, decision_u_s):
    """The croupier reads the writer's declarations; the checks re-derive them from the file."""
    path, _, decided = _round7(tmp_path, decision_u_s)
    assert decided == {"wagering": decision_u_s}
    d = ClockDeclarations()
    with TraceReader(path) as r:
        for n, events in r.rounds():
            d.new_round()
            for e in events:
                d.observe(e.device, e.kind, e.payload)
            if n == 1:
                assert d.decided == decided
