"""The money wheel over the serial frames on a pty, its firmware stub in another process at 20x
time compression: a spin's ``SpinStop`` is its telemetry, pulses are counted as they happen, and
a fault knob of the model reaches the rig through the wire."""

from __future__ import annotations

import math

from test_e2e_serial_wagering import pty_stub

from hil.adapters.serial_money_wheel import SerialMoneyWheel
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from rules.crazy_time import WHEEL_SECTIONS

TIME_SCALE = 20


def spin_once(path: str, io: IoLoop, twice: bool = False):
    env = WallClockEnvironment(time_scale=TIME_SCALE)
    events = []
    wheel = SerialMoneyWheel(env, io, path, lambda d, k, p: k == "clock_estimate" or events.append((k, p)), "wheel", 0.5)
    try:
        def go():
            done = wheel.spin("ccw")
            refused = wheel.spin("cw") if twice else None  # while the wheel turns
            yield done | env.timeout(60.0)
            yield env.timeout(1.0)
            return done, refused

        done, refused = env.run(env.process(go()))
    finally:
        wheel.close()
    return wheel, events, done, refused


def test_a_spin_over_the_pty_reports_what_the_model_did():
    with pty_stub("money-wheel", "--seed", "3") as (_proc, path), IoLoop() as io:
        wheel, events, done, _ = spin_once(path, io)
    assert done.triggered
    stop = done.value
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    info = next(p for k, p in events if k == "device_info")
    assert tuple(info["sections"]) == tuple(str(s) for s in WHEEL_SECTIONS) == wheel.info().sections
    assert info["pegs"] == len(WHEEL_SECTIONS) and info["diameter_m"] == 1.83
    assert kinds[1] == "spin_start" and kinds[-1] == "spin_stop"
    assert next(p for k, p in events if k == "spin_stop") == vars(stop)
    start = next(p for k, p in events if k == "spin_start")
    assert start["spin_id"] == stop.spin_id == 1 and start["direction"] == stop.direction == "ccw"
    assert start["device_time_s"] == stop.start_time_s
    pulses = [p for k, p in events if k == "index_pulse"]
    assert [p["count"] for p in pulses] == list(range(1, len(pulses) + 1))
    assert abs(len(pulses) - stop.revolutions) <= 1 and math.floor(stop.revolutions) >= 3
    times = [p["device_time_s"] for p in pulses]
    assert stop.start_time_s < times[0] and times == sorted(times) and times[-1] < stop.stop_time_s
    assert stop.spot == wheel.info().sections[stop.section_index]
    assert abs(stop.duration_s - (stop.stop_time_s - stop.start_time_s)) < 1e-6


def test_a_fault_knob_passes_through_and_a_busy_wheel_refuses():
    with pty_stub("money-wheel", "--param", "index_sensor_stuck=true") as (_proc, path), IoLoop() as io:
        _wheel, events, done, refused = spin_once(path, io, twice=True)
    assert done.triggered and not refused.triggered
    assert "index_pulse" not in [k for k, _ in events]  # the stuck sensor gives no pulses
    assert done.value.revolutions > 1
    faults = [p for k, p in events if k == "wire_fault"]
    assert [f["kind"] for f in faults] == ["nak"] and "busy" in faults[0]["detail"]
    assert [k for k, _ in events].count("spin_start") == 1
