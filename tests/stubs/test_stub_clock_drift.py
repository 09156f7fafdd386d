"""A stub's drifting device clock (``firmware_stubs.modbus.ModelClock``, ``--clock-ppm``, the control
endpoint's ``clock`` and ``info`` ops; docs/wire/clock.md)."""

from __future__ import annotations

import pytest

from firmware_stubs.launch import launch
from firmware_stubs.modbus import ModelClock
from hil.adapters.stub_control import StubControlError, stub_clock, stub_info


def test_the_device_clock_runs_ppm_fast_and_never_jumps_when_the_rate_changes():
    c = ModelClock(ppm=2000)
    assert c.ns(0.0) == 0 and c.ns(10.0) == round(10.0 * 1.002 * 1e9)
    c.env.run(until=5.0)
    before = c.ns(5.0)
    c.set_ppm(-300)
    t = c._anchor_s  # the instant the new rate took effect (model time, at least 5 s)
    assert c.ns(t) == round(t * 1.002 * 1e9) and c.ns(5.0) <= before + 1e6
    assert c.ns(t + 1.0) - c.ns(t) == round(1.0 * (1 - 300e-6) * 1e9)
    with pytest.raises(ValueError, match="ppm"):
        c.set_ppm(2e5)
    assert ModelClock().ns(3.25) == 3_250_000_000  # no drift: model time, as before


def test_the_control_endpoint_sets_and_reports_the_clock():
    with launch("top-slot", "--modbus", "tcp://127.0.0.1:0", "--time-scale", "4", "--clock-ppm", "150",
                "--control", "tcp://127.0.0.1:0") as stub:
        info = stub_info(stub.control)
        assert info["device"] == "top-slot" and info["wire"] == "modbus"
        assert info["time_scale"] == 4.0 and info["clock_ppm"] == 150.0 and "params" in info
        assert stub_clock(stub.control) == {"ppm": 150.0, "time_scale": 4.0}  # asked, left alone
        assert stub_clock(stub.control, -2000)["ppm"] == -2000.0
        assert stub_info(stub.control)["clock_ppm"] == -2000.0
        with pytest.raises(StubControlError, match="ppm"):
            stub_clock(stub.control, 1e6)
        assert stub_info(stub.control)["clock_ppm"] == -2000.0  # a refused rate changes nothing
