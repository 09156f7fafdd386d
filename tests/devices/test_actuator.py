"""The actuator (docs/wire/actuator.md): its default wiring, the simulated relay closing a simulated
device's buttons, and the rule that attributes each press-log entry to the actuation that made it
(matched, lost, duplicated, foreign)."""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from devices.actuator import WAGERING_SPOTS, ActuatorParams, Attribution, Entry, SimActuator, Wiring, attribute
from devices.contracts import Actuation
from devices.wagering import WageringParams, WageringSim


def act(aid: int, seat: int, spot: str, lo: float, hi: float | None = None, purpose: str = "player", ok: bool = True):
    return Actuation(aid, seat, spot, 0, purpose, lo, lo if hi is None else hi, ok=ok)


def test_default_wiring_is_seat_major_over_the_spot_enum() -> None:
    w = Wiring.of(WAGERING_SPOTS, 7, None)
    assert w.coil(1, "1") == 0 and w.coil(1, "crazy-time") == 7 and w.coil(2, "1") == 9
    assert w.coil(7, "roulette-up") == 62 and w.coil(8, "1") is None
    assert w.seat_buttons(3) == list(WAGERING_SPOTS)


def test_the_default_wiring_of_a_crazy_time_table_has_only_its_terminals_buttons() -> None:
    """GAPS.md B6: a Crazy Time terminal has no roulette-up button: the default wiring leaves its
    coils (k = 8) unwired, the others at the formula's coils (S stays the enum's 9)."""
    from hil.bench import TABLE_SPOTS

    w = Wiring.of(WAGERING_SPOTS, 7, None, TABLE_SPOTS["crazy-time"])
    assert w.coil(7, "roulette-up") is None and w.coil(7, "crazy-time") == 61 and w.coil(2, "1") == 9
    assert w.seat_buttons(3) == list(WAGERING_SPOTS[:8]) and 62 not in w.table().values()


def test_a_buttons_table_wires_only_its_buttons_and_refuses_bad_keys() -> None:
    w = Wiring.of(WAGERING_SPOTS, 7, {"1:1": 4, "7:2": 0})
    assert w.coil(1, "1") == 4 and w.coil(7, "2") == 0 and w.coil(1, "2") is None
    assert w.seat_buttons(7) == ["2"]
    for bad, words in (({"1-1": 0}, "SEAT:SPOT"), ({"0:1": 0}, "seat >= 1"), ({"1:7": 0}, "not a spot"),
                       ({"1:1": 0, "1:2": 0}, "already presses"), ({"1:1": -1}, "address")):
        with pytest.raises(ValueError, match=words):
            Wiring.of(WAGERING_SPOTS, 7, bad)


def test_attribution_matches_each_entry_to_its_actuation_in_time_order() -> None:
    acts = [act(1, 1, "2", 1.000, 1.001), act(2, 1, "2", 1.100, 1.101), act(3, 2, "5", 1.050, 1.051)]
    entries = [Entry(10, 1, "2", 1.0012), Entry(11, 2, "5", 1.0505), Entry(12, 1, "2", 1.1001)]
    got = attribute(acts, entries, clock_uncertainty_s=0.0, match_window_s=0.002)
    assert got.matched == {10: 1, 11: 3, 12: 2} and not got.lost and not got.foreign and not got.duplicates


def test_an_actuation_the_device_never_registered_is_lost() -> None:
    acts = [act(1, 1, "2", 1.0), act(2, 1, "2", 1.2)]
    got = attribute(acts, [Entry(5, 1, "2", 1.2005)], 0.0, 0.002)
    assert got.matched == {5: 2} and got.lost == [1]


def test_a_second_entry_inside_a_matched_window_is_a_duplicate() -> None:
    got = attribute([act(1, 3, "10", 2.0)], [Entry(7, 3, "10", 2.0004), Entry(8, 3, "10", 2.0009)], 0.0, 0.002)
    assert got.matched == {7: 1} and got.duplicates == {8: 1} and not got.foreign


def test_presses_the_rig_did_not_make_are_foreign() -> None:
    acts = [act(1, 1, "1", 1.0)]
    entries = [Entry(1, 1, "1", 1.0003), Entry(2, 1, "2", 1.0003),  # another button
               Entry(3, 1, "1", 1.5),  # the same button, long after
               Entry(4, 4, "1", 0.9)]  # another seat
    got = attribute(acts, entries, 0.0, 0.002)
    assert got.matched == {1: 1} and sorted(got.foreign) == [2, 3, 4]


def test_the_window_widens_by_the_clock_uncertainty_and_a_failed_actuation_matches_nothing() -> None:
    entry = [Entry(1, 1, "1", 0.9995)]  # stamped before the bracket: inside it only within the clock map's ±1 ms
    assert attribute([act(1, 1, "1", 1.0)], entry, 0.0, 0.002).foreign == [1]
    assert attribute([act(1, 1, "1", 1.0)], entry, 0.001, 0.002).matched == {1: 1}
    got = attribute([act(1, 1, "1", 1.0, ok=False)], [Entry(1, 1, "1", 1.0)], 0.0, 0.002)
    assert got.foreign == [1] and not got.lost
    assert attribute([], [], 0.0, 0.0) == Attribution()


def _table(params: ActuatorParams, **wagering):
    env = simpy.Environment()
    log: list[tuple[str, str, dict]] = []
    sink = lambda d, k, p: log.append((d, k, p))  # noqa: E731
    device = WageringSim(env, WageringParams(**wagering), np.random.default_rng(1), sink)
    presses = []
    device.watch(presses.append)
    actuator = SimActuator(env, params, Wiring.of(WAGERING_SPOTS, 7, params.buttons), device,
                           np.random.default_rng(2), sink)
    return env, device, actuator, presses, log


def test_the_sim_actuator_presses_a_button_at_its_closing_edge_with_the_device_stake() -> None:
    env, device, actuator, presses, log = _table(ActuatorParams(pulse_s=0.05, contact_delay_s=0.002,
                                                                contact_jitter_s=0.0005), button_stake_cents=300)
    device.open_betting()
    done = [actuator.press(2, "5"), actuator.press(2, "5"), actuator.press(3, "1")]  # the second waits for the first
    env.run(until=1.0)
    acts = [e.value for e in done]
    assert [(p.seat, p.spot, p.stake_cents, p.accepted) for p in presses] == [(2, "5", 300, True), (3, "1", 300, True),
                                                                              (2, "5", 300, True)]
    for a in acts:
        assert a.closed_hi_s - a.closed_lo_s == pytest.approx(0.001)
    # each press is stamped inside its closing bracket, and one coil's presses never overlap
    by_act = attribute(acts, [Entry(p.press_id, p.seat, p.spot, p.device_time_s) for p in presses], 0.0, 0.0)
    assert sorted(by_act.matched.values()) == [1, 2, 3] and not by_act.lost
    assert acts[1].closed_lo_s >= acts[0].closed_hi_s + 2 * 0.05 - 0.002
    assert [k for d, k, _ in log if d == "actuator"].count("actuation") == 3


def test_a_button_held_closed_by_someone_else_registers_no_second_press() -> None:
    env, device, actuator, presses, _ = _table(ActuatorParams())
    device.open_betting()
    device.button(1, "2", True)  # a player holds it
    env.run(until=0.2)
    ev = actuator.press(1, "2")  # the rig's closing is no edge: wired OR
    env.run(until=0.5)
    device.button(1, "2", False)
    assert ev.processed and len(presses) == 1
    assert attribute([ev.value], [Entry(p.press_id, p.seat, p.spot, p.device_time_s) for p in presses],
                     0.0, 0.01).lost == [1]


def test_a_dead_button_registers_none_of_its_closings_and_its_actuations_are_lost() -> None:
    env, device, actuator, presses, _ = _table(ActuatorParams(), dead_buttons=("2:1",))
    device.open_betting()
    done = [actuator.press(2, "1"), actuator.press(2, "5"), actuator.press(3, "1"), actuator.press(2, "1")]
    env.run(until=1.0)
    assert [(p.seat, p.spot) for p in presses] == [(2, "5"), (3, "1")]  # the broken contact: nothing
    att = attribute([e.value for e in done], [Entry(p.press_id, p.seat, p.spot, p.device_time_s) for p in presses],
                    0.0, 0.01)
    assert att.lost == [1, 4] and sorted(att.matched.values()) == [2, 3] and not att.foreign
    for bad in (("9:1",), ("1",), (":1",), ("2:",)):
        with pytest.raises(ValueError, match="dead_buttons"):
            WageringParams(dead_buttons=bad)


def test_opening_betting_disarms_the_probe_and_a_repeated_lock_out_changes_nothing() -> None:
    env, device, _, presses, log = _table(ActuatorParams(), lockout_latency_jitter_s=0.0)
    device.open_betting()
    device.arm_probe(7, "1", 100, [0.001, 0.02])
    device.lock_out()
    env.run(until=0.01)
    device.lock_out()  # repeated: no second command, no re-arm
    device.open_betting()  # disarms the probe press still to come at 20 ms
    env.run(until=0.1)
    assert [k for _, k, _ in log].count("lockout_command") == 1
    assert [(p.seat, p.accepted) for p in presses] == [(7, True)]
