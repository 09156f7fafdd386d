"""A serial-frames device whose clock drifts (docs/wire/clock.md): the money wheel's stub on a pty,
its clock 3,000 ppm slow (``--clock-ppm -3000``). The adapter's periodic ``HELLO`` round trips feed
the estimator; it recovers the drift within its stated uncertainty, the ``HEARTBEAT`` checks raise
no ``clock_drift`` against the tracked map, and a bench maximum below it is one ``clock_drift`` fault."""

from __future__ import annotations

import pytest

from firmware_stubs.launch import launch
from hil.adapters.serial_money_wheel import SerialMoneyWheel
from hil.clock import WallClockEnvironment, max_clock_drift
from hil.transport.ioloop import IoLoop

SCALE = 5
PPM = -3000.0


@pytest.mark.parametrize("max_ppm", [10_000.0, pytest.param(1_000.0, marks=pytest.mark.slow)])
def test_hello_round_trips_track_a_drifting_serial_clock(max_ppm):
    with launch("money-wheel", "--pty", "--time-scale", str(SCALE), "--clock-ppm", str(PPM)) as stub, IoLoop() as io:
        env = WallClockEnvironment(time_scale=SCALE)
        events = []
        with max_clock_drift(max_ppm):
            wheel = SerialMoneyWheel(env, io, stub.url, lambda d, k, p: events.append((k, p)), "wheel", 0.5)
        try:
            env.run(until=env.now + 7 * SCALE)  # 7 s of wall time: about 7 HELLO round trips
            m = wheel.clock
        finally:
            wheel.close()
    assert m.fitted and m.samples >= 8 + 4, m
    assert abs(m.fitted_drift_ppm - PPM) <= m.drift_uncertainty_ppm, m
    faults = [p for k, p in events if k == "wire_fault"]
    if max_ppm > abs(PPM):
        assert not faults, faults  # neither the estimate nor a HEARTBEAT contradicts the tracked clock
    else:
        assert [f["kind"] for f in faults] == ["clock_drift"] and "allows 1000 ppm" in faults[0]["detail"], faults
    assert [p["reason"] for k, p in events if k == "clock_estimate"][0] == "connect"
