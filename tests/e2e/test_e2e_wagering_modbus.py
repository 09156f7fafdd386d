"""The wagering device over Modbus TCP, its firmware stub in another process: the rig's adapter
answers presses like the SimPy model does, and the lock-out boundary is where the stub put it."""

from __future__ import annotations

import json

from hil.adapters.modbus_wagering import ModbusWageringDevice
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map

LATENCY_S = 0.004
#: the presses the rig sends itself after the lock-out are paced by its own clock: on a loaded
#: 2-core machine they may leave tens of ms late, so this latency leaves room on both sides
#: (the boundary is still judged on the device's own timestamps)
PRESS_LATENCY_S = 0.04


def test_presses_around_the_lockout_match_the_stub_truth(stub, tmp_path):
    truth_file = tmp_path / "truth.jsonl"
    with stub("wagering", "--param", f"lockout_latency_mean_s={PRESS_LATENCY_S}", "--param", "lockout_latency_jitter_s=0",
              "--truth-file", str(truth_file)) as (_proc, url), IoLoop() as io:
        env = WallClockEnvironment()
        events = []
        dev = ModbusWageringDevice(env, io, url, 1, default_map("wagering"),
                                   lambda d, k, p: events.append((env.now, d, k, p)), "wagering", 0.5, 0.002)
        answers = []
        try:
            def round_():
                dev.open_betting()
                yield env.timeout(0.05)
                before = dev.press(1, "5", 500)
                yield env.timeout(0.02)
                dev.lock_out()
                offsets = [0.002 * i for i in range(1, 41)]
                t0 = env.now
                for i, off in enumerate(offsets):
                    yield env.timeout(t0 + off - env.now)
                    answers.append(dev.press(2 + i % 6, "1", 100))
                yield env.timeout(0.1)
                return before

            first = env.run(env.process(round_()))
        finally:
            dev.close()
    assert first.triggered and first.value.accepted
    kinds = [k for _, _, k, _ in events]
    assert "device_info" in kinds and "lockout_command" in kinds and "wire_fault" not in kinds
    assert all(a.triggered for a in answers)
    cmd = next(p for _, _, k, p in events if k == "lockout_command")["device_time_s"]
    results = [(a.value.device_time_s - cmd, a.value.accepted) for a in answers]
    accepted = [o for o, ok in results if ok]
    rejected = [o for o, ok in results if not ok]
    assert accepted and rejected
    assert max(accepted) < PRESS_LATENCY_S <= min(rejected) + 1e-6  # the boundary is the stub's latency
    assert all(a.value.reason == "locked_out" for a in answers if not a.value.accepted)
    truth = [json.loads(line) for line in truth_file.read_text().splitlines()]
    assert len(truth) == 1 and truth[0]["latency_s"] == PRESS_LATENCY_S


def test_armed_probe_finds_the_boundary_whatever_the_link(stub, tmp_path):
    """The actuator presses at device-timed offsets after the lock-out reached the device: the
    boundary is found to the offsets' resolution, even at 20x time compression."""
    with stub("wagering", "--time-scale", "20", "--param", f"lockout_latency_mean_s={LATENCY_S}",
              "--param", "lockout_latency_jitter_s=0") as (_proc, url), IoLoop() as io:
        env = WallClockEnvironment(time_scale=20)
        events = []
        dev = ModbusWageringDevice(env, io, url, 1, default_map("wagering"),
                                   lambda d, k, p: events.append((d, k, p)), "wagering", 0.5, 0.002)
        offsets = [0.0005 * i for i in range(16)]
        try:
            def round_():
                dev.open_betting()
                yield env.timeout(0.2)
                armed = dev.arm_probe(7, "1", 100, offsets)
                yield env.timeout(0.2)
                dev.lock_out()
                yield env.all_of(armed) | env.timeout(5.0)
                return armed

            armed = env.run(env.process(round_()))
        finally:
            dev.close()
    assert all(ev.triggered for ev in armed)
    cmd = next(p for _, k, p in events if k == "lockout_command")["device_time_s"]
    got = [(round(ev.value.device_time_s - cmd, 6), ev.value.accepted) for ev in armed]
    assert [o for o, _ in got] == [round(o, 6) for o in offsets]  # pressed exactly where armed
    assert [ok for _, ok in got] == [o < LATENCY_S for o in offsets]
