"""The money wheel over Modbus TCP, its firmware stub in another process: the rig's adapter
reports what ``MoneyWheelSim`` reports — layout, spin start, index pulses, rest — and a fault
knob of the model reaches the rig's telemetry as it would in simulation."""

from __future__ import annotations

import importlib.resources
import math
from contextlib import contextmanager

from devices.contracts import MoneyWheel, SpinStop
from hil.adapters.modbus_money_wheel import ModbusMoneyWheel
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map, parse_register_map
from rules.crazy_time import WHEEL_SECTIONS

#: Simulated seconds per wall second, the stub's and the rig's: a ~15 s spin takes < 1 s.
SCALE = 20
#: How long (simulated) the rig waits for a spin before giving up on it — a healthy spin is ~15 s.
SPIN_TIMEOUT_S = 45.0


@contextmanager
def wheel(stub, *params: str, rmap=None, poll_period_s=0.002):
    """A stub wheel (``--param`` each of ``params``) and the rig's adapter to it; yields
    (env, adapter, telemetry events as (device, kind, payload))."""
    args = [a for p in params for a in ("--param", p)]
    with stub("money-wheel", "--time-scale", str(SCALE), "--seed", "7", *args) as (_proc, url), IoLoop() as io:
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, str, dict]] = []
        dev = ModbusMoneyWheel(env, io, url, 1, rmap or default_map("money-wheel"),
                               lambda d, k, p: events.append((d, k, p)), "wheel", 0.5, poll_period_s)
        try:
            yield env, dev, events
        finally:
            dev.close()


def run_spins(env, dev, directions):
    """Spin once per direction, one after the other; the events, each waited for at most
    SPIN_TIMEOUT_S."""
    def go():
        done = []
        for d in directions:
            ev = dev.spin(d)
            yield ev | env.timeout(SPIN_TIMEOUT_S)
            done.append(ev)
        return done

    return env.run(env.process(go()))


def of_kind(events, kind, spin_id=None):
    return [p for _, k, p in events if k == kind and (spin_id is None or p["spin_id"] == spin_id)]


def test_layout_is_declared_like_the_model(stub):
    with wheel(stub) as (_env, dev, events):
        info = dev.info()
    assert isinstance(dev, MoneyWheel)
    assert info.sections == tuple(str(s) for s in WHEEL_SECTIONS)
    assert info.pegs == len(WHEEL_SECTIONS) == 54 and info.diameter_m == 1.83
    declared = of_kind(events, "device_info")
    assert len(declared) == 1
    d = declared[0]
    assert tuple(d["sections"]) == info.sections and d["pegs"] == 54 and d["diameter_m"] == 1.83
    assert d["model"] == info.model and d["url"].startswith("tcp://127.0.0.1:")
    assert {"clock_offset_s", "clock_uncertainty_s", "rtt_min_us"} <= set(d)


def test_spins_in_both_directions_report_like_the_model(stub):
    with wheel(stub) as (env, dev, events):
        spins = run_spins(env, dev, ["cw", "ccw"])
    assert all(ev.triggered for ev in spins)
    assert not of_kind(events, "wire_fault")
    sections = dev.info().sections
    for ev, direction in zip(spins, ["cw", "ccw"]):
        stop: SpinStop = ev.value
        assert stop.direction == direction
        assert [SpinStop(**p) for p in of_kind(events, "spin_stop", stop.spin_id)] == [stop]
        [start] = of_kind(events, "spin_start", stop.spin_id)
        # the same device time, mapped when the start was seen and again at rest: the clock map is
        # re-estimated in between (docs/wire/clock.md), within its uncertainty
        u = max(e["clock_uncertainty_s"] for e in of_kind(events, "clock_estimate"))
        assert start["direction"] == direction and abs(start["device_time_s"] - stop.start_time_s) <= u
        assert stop.spot == sections[stop.section_index]
        assert stop.revolutions >= 3 and stop.pegs_passed > 3 * len(sections)
        assert math.isclose(stop.stop_time_s - stop.start_time_s, stop.duration_s, abs_tol=1e-6)
        pulses = of_kind(events, "index_pulse", stop.spin_id)
        assert len(pulses) in (math.floor(stop.revolutions), math.floor(stop.revolutions) + 1)
        assert [p["count"] for p in pulses] == list(range(1, len(pulses) + 1))
        assert all(stop.start_time_s < p["device_time_s"] <= stop.stop_time_s for p in pulses)
    assert [s.value.spin_id for s in spins] == [1, 2]
    # The trace order is the order things happened: start, pulses, stop, for each spin.
    kinds = [(k, p.get("spin_id")) for _, k, p in events if k in ("spin_start", "index_pulse", "spin_stop")]
    for sid in (1, 2):
        mine = [i for i, (_, s) in enumerate(kinds) if s == sid]
        assert kinds[mine[0]][0] == "spin_start" and kinds[mine[-1]][0] == "spin_stop"
    assert max(i for i, (_, s) in enumerate(kinds) if s == 1) < min(i for i, (_, s) in enumerate(kinds) if s == 2)


def test_pulses_between_two_polls_are_each_counted_and_marked_coalesced(stub):
    """A slow poller (2.4 simulated s between polls, pulses ~1–3 s apart) still gives one pulse
    per revolution; the pulses it saw together carry the latest pulse's time, marked coalesced."""
    with wheel(stub, poll_period_s=0.12) as (env, dev, events):
        [ev] = run_spins(env, dev, ["cw"])
    stop = ev.value
    pulses = of_kind(events, "index_pulse", stop.spin_id)
    assert len(pulses) in (math.floor(stop.revolutions), math.floor(stop.revolutions) + 1)
    assert [p["count"] for p in pulses] == list(range(1, len(pulses) + 1))
    coalesced = [p for p in pulses if p.get("coalesced")]
    assert coalesced  # the first turns are faster than the poll period
    for p in coalesced:  # same time as the next pulse, or as the last of its group
        group = [q for q in pulses if q["device_time_s"] == p["device_time_s"]]
        assert len(group) > 1 and all(q.get("coalesced") for q in group)


def test_stuck_index_sensor_gives_no_pulses(stub):
    with wheel(stub, "index_sensor_stuck=true") as (env, dev, events):
        [ev] = run_spins(env, dev, ["cw"])
    assert ev.triggered and ev.value.revolutions >= 3
    assert not of_kind(events, "index_pulse")
    assert of_kind(events, "spin_start") and not of_kind(events, "wire_fault")


def test_dropped_telemetry_leaves_the_spin_event_untriggered(stub):
    with wheel(stub, "telemetry_dropout=1.0") as (env, dev, events):
        [ev] = run_spins(env, dev, ["ccw"])
    assert not ev.triggered  # the controller times out and voids the spin
    assert of_kind(events, "device_info")  # device_info is not subject to the dropout
    assert not [k for _, k, _ in events if k in ("spin_start", "index_pulse", "spin_stop", "wire_fault")]


def test_spin_command_while_turning_is_a_wire_fault_and_the_wheel_carries_on(stub):
    with wheel(stub) as (env, dev, events):
        def go():
            first = dev.spin("cw")
            yield env.timeout(1.0)  # the wheel turns for ~15 s
            refused = dev.spin("ccw")
            yield first | env.timeout(SPIN_TIMEOUT_S)
            after = dev.spin("ccw")
            yield after | env.timeout(SPIN_TIMEOUT_S)
            return first, refused, after

        first, refused, after = env.run(env.process(go()))
    assert first.triggered and after.triggered and not refused.triggered
    [fault] = of_kind(events, "wire_fault")
    assert fault["kind"] == "exception_response"
    assert (first.value.spin_id, first.value.direction) == (1, "cw")
    assert (after.value.spin_id, after.value.direction) == (2, "ccw")
    assert [p["spin_id"] for p in of_kind(events, "spin_start")] == [1, 2]


def test_an_unknown_enum_code_is_a_bad_value_never_a_crash(stub):
    """The rig's map gives ``direction`` other codes than the wheel uses (a wrong vendor map):
    each impossible value is recorded once, the spin's event never triggers, polling goes on."""
    toml = importlib.resources.files("hil.wire").joinpath("maps/money_wheel.toml").read_text(encoding="utf-8")
    shipped = 'enum = { 0 = "none", 1 = "cw", 2 = "ccw" }'
    assert shipped in toml
    rmap = parse_register_map(toml.replace(shipped, 'enum = { 0 = "none", 5 = "cw", 6 = "ccw" }'), "vendor.toml",
                              "money-wheel")
    with wheel(stub, rmap=rmap) as (env, dev, events):
        [ev] = run_spins(env, dev, ["cw"])
    assert not ev.triggered and not of_kind(events, "spin_stop")
    faults = [(i, p) for i, (_, k, p) in enumerate(events) if k == "wire_fault"]
    assert faults and all(p["kind"] == "bad_value" and "direction" in p["detail"] for _, p in faults)
    assert len(faults) <= 2  # the bad start and the bad rest report, not one per poll
    # Polling went on: the index pulses kept coming after the first fault.
    assert any(k == "index_pulse" for _, k, _ in events[faults[0][0]:])
