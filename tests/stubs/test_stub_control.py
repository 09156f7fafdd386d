"""A stub's control endpoint, on both wires (Modbus TCP; serial frames on a pty): ``configure``
gives the device a fresh model whose parameters the rig then observes through the device,
refuses unknown or invalid parameters without touching the model, and ``truth`` returns the
lock-out ground truth the model drew. Each stub runs in its own process, ended by pid."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from firmware_stubs.launch import launch
from hil.adapters.stub_control import StubControlError, request
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.serial import SerialLink
from hil.wire.registers import default_map
from hil.wire.supervisor import split_key

TIME_SCALE = 20
READY_TIMEOUT_S = 15.0
#: far from the default model's 5 ms ± 1 ms: only the configured model locks out here
LATENCY_S = 0.0105
OFFSETS_S = [0.001 * i for i in range(16)]


@contextmanager
def control_stub(wire: str, device: str = "wagering") -> Iterator[tuple[str, str]]:
    """``python -m firmware_stubs DEVICE (--modbus tcp://127.0.0.1:0 | --pty) --control ...``;
    yields (device url, control url)."""
    where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
    with launch(device, *where, "--time-scale", str(TIME_SCALE), "--control", "tcp://127.0.0.1:0") as stub:
        assert stub.control and stub.control.startswith("tcp://") and "?token=" in stub.control, stub
        yield stub.url, stub.control


def _adapter(wire: str, env, io, url: str, telemetry):
    if wire == "modbus":
        from hil.adapters.modbus_wagering import ModbusWageringDevice

        return ModbusWageringDevice(env, io, url, 1, default_map("wagering"), telemetry, "wagering", 0.5, 0.002)
    from hil.adapters.serial_wagering import SerialWageringDevice

    return SerialWageringDevice(env, io, url, telemetry, "wagering", 0.5)


def _probe_round(dev, env):
    """Open betting, arm the probe, lock out: the armed presses' answers."""
    def round_():
        dev.open_betting()
        yield env.timeout(0.1)
        armed = dev.arm_probe(3, "1", 100, OFFSETS_S)
        yield env.timeout(0.1)
        dev.lock_out()
        yield env.all_of(armed) | env.timeout(5.0)
        return armed

    return env.run(env.process(round_()))


def _probe_with_adapter(wire: str, env, io, url: str, events: list) -> list:
    """One armed-probe round through a fresh adapter (closed after); ``events`` gets its telemetry."""
    dev = _adapter(wire, env, io, url, lambda d, k, p: events.append((k, p)))
    try:
        return _probe_round(dev, env)
    finally:
        dev.close()


@pytest.mark.parametrize("wire", ["modbus", "serial"])
def test_configure_changes_the_model_refuses_unknown_params_and_reports_truth(wire):
    with control_stub(wire) as (url, control), IoLoop() as io:
        answer = request(control, {"op": "configure", "seed": 7,
                                   "params": {"lockout_latency_mean_s": LATENCY_S, "lockout_latency_jitter_s": 0,
                                              "seats": 5}})
        assert answer["params"]["lockout_latency_mean_s"] == LATENCY_S and answer["params"]["seats"] == 5
        # refused: an unknown knob, a value the model cannot take — the configured model stays
        with pytest.raises(StubControlError, match="unknown parameter"):
            request(control, {"op": "configure", "params": {"lockout_latency_mean_s": 0.002, "no_such_knob": 1}})
        with pytest.raises(StubControlError, match="seats"):
            request(control, {"op": "configure", "params": {"seats": "many"}})
        assert request(control, {"op": "truth"})["truth"] == []  # nothing locked out yet

        env = WallClockEnvironment(time_scale=TIME_SCALE)
        events = []
        armed = _probe_with_adapter(wire, env, io, url, events)
        truth = request(control, {"op": "truth"})["truth"]

    assert all(ev.triggered for ev in armed), "every armed press is answered"
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    assert next(p for k, p in events if k == "device_info")["seats"] == 5  # the configured model's
    cmd = next(p for k, p in events if k == "lockout_command")["device_time_s"]
    got = [(ev.value.device_time_s - cmd, ev.value.accepted) for ev in armed]
    accepted = [o for o, ok in got if ok]
    rejected = [o for o, ok in got if not ok]
    assert accepted and rejected
    assert max(accepted) < LATENCY_S <= min(rejected) + 1e-6  # the configured latency, not the default's
    assert len(truth) == 1 and truth[0]["latency_s"] == LATENCY_S and truth[0]["ignored"] is False


@pytest.mark.parametrize("wire", ["modbus", "serial"])
def test_configure_again_renews_the_model_and_its_truth(wire):
    """A second configure (the next scenario) starts afresh: a new model with the new knobs, the
    truth of the previous one cleared, the device clock running on."""
    with control_stub(wire) as (url, control), IoLoop() as io:
        request(control, {"op": "configure", "params": {"lockout_latency_mean_s": LATENCY_S,
                                                        "lockout_latency_jitter_s": 0}})
        env = WallClockEnvironment(time_scale=TIME_SCALE)
        _probe_with_adapter(wire, env, io, url, [])
        assert len(request(control, {"op": "truth"})["truth"]) == 1
        answer = request(control, {"op": "configure", "params": {"lockout_ignored": True}, "seed": 1})
        assert answer["params"]["lockout_ignored"] is True
        assert answer["params"]["lockout_latency_mean_s"] != LATENCY_S  # defaults again, not layered
        assert request(control, {"op": "truth"})["truth"] == []
        armed = _probe_with_adapter(wire, env, io, url, [])
        truth = request(control, {"op": "truth"})["truth"]
    assert all(ev.triggered and ev.value.accepted for ev in armed)  # the lock-out is ignored now
    assert len(truth) == 1 and truth[0]["ignored"] is True


def test_serial_configure_declares_the_new_device_at_once():
    """On the serial wire the new model declares itself as soon as it exists (as after a HELLO):
    a host already connected sees the new seats without asking."""
    with control_stub("serial") as (url, control):
        frames = []
        link = SerialLink(split_key(url)[0], on_frame=frames.append, name="test")  # the path, not the key
        link.open()
        try:
            request(control, {"op": "configure", "params": {"seats": 3}})
            deadline = time.monotonic() + 5.0
            while not any(f.msg_type == "WAGERING_INFO" and f.fields["seats"] == 3 for f in frames):
                assert time.monotonic() < deadline, [f.msg_type for f in frames]
                time.sleep(0.01)
        finally:
            link.close()
        # unasked (this host sent no HELLO), and not the power-up declaration: no HELLO before it
        i = next(i for i, f in enumerate(frames) if f.msg_type == "WAGERING_INFO" and f.fields["seats"] == 3)
        assert i == 0 or frames[i - 1].msg_type != "HELLO"


@pytest.mark.parametrize("wire", ["modbus", "serial"])
def test_ping_and_unknown_op(wire):
    with control_stub(wire) as (_url, control):
        assert request(control, {"op": "ping"}) == {"ok": True}
        with pytest.raises(StubControlError, match="unknown op"):
            request(control, {"op": "reboot"})
