"""The wagering device over the serial frames on a pty, its firmware stub in another process at
20x time compression: presses are answered like the SimPy model answers them, the armed probe
presses land exactly at their device-timed offsets, and the lock-out boundary is the stub's."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

from firmware_stubs.launch import end, launch
from hil.wire.supervisor import split_key
from hil.adapters.serial_wagering import SerialWageringDevice
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop

TIME_SCALE = 20
LATENCY_S = 0.004


@contextmanager
def pty_stub(device: str, *args: str) -> Iterator[tuple[object, str]]:
    """``python -m firmware_stubs DEVICE --pty ...`` (the other serial tests use it too)."""
    with launch(device, "--pty", "--time-scale", str(TIME_SCALE), *args) as stub:
        yield stub.proc, stub.url


def test_presses_and_armed_probe_find_the_stub_latency(tmp_path):
    truth_file = tmp_path / "truth.jsonl"
    offsets = [0.0005 * i for i in range(16)]
    with pty_stub("wagering", "--param", f"lockout_latency_mean_s={LATENCY_S}", "--param",
                  "lockout_latency_jitter_s=0", "--truth-file", str(truth_file)) as (_proc, path), IoLoop() as io:
        env = WallClockEnvironment(time_scale=TIME_SCALE)
        events = []
        dev = SerialWageringDevice(env, io, path, lambda d, k, p: events.append((d, k, p)), "wagering", 0.5)
        try:
            def round_():
                dev.open_betting()
                yield env.timeout(0.1)
                before = dev.press(1, "5", 500)
                invalid = dev.press(99, "2", 100)
                armed = dev.arm_probe(7, "1", 100, offsets)
                yield env.all_of([before, invalid]) | env.timeout(5.0)
                dev.lock_out()
                yield env.all_of(armed) | env.timeout(5.0)
                after = dev.press(2, "10", 100)
                yield after | env.timeout(5.0)
                return before, invalid, armed, after

            before, invalid, armed, after = env.run(env.process(round_()))
        finally:
            dev.close()
    assert all(ev.triggered for ev in [before, invalid, after, *armed])
    assert before.value.accepted and before.value.reason is None
    assert not invalid.value.accepted and invalid.value.reason == "invalid_seat"
    assert not after.value.accepted and after.value.reason == "locked_out"
    kinds = [k for _, k, _ in events]
    assert "wire_fault" not in kinds, [p for _, k, p in events if k == "wire_fault"]
    info = next(p for _, k, p in events if k == "device_info")
    assert info["seats"] == 7 and info["url"] == split_key(path)[0] and {"clock_offset_s", "clock_uncertainty_s"} <= set(info)
    assert kinds.count("betting_open") == 1 and kinds.count("lockout_command") == 1
    presses = [p for _, k, p in events if k == "press"]
    assert len(presses) == 3 + len(offsets) and [p["press_id"] for p in presses] == sorted(p["press_id"] for p in presses)
    assert set(presses[0]) == {"press_id", "seat", "spot", "stake_cents", "accepted", "device_time_s",
                               "answer_time_s", "reason"}
    cmd = next(p for _, k, p in events if k == "lockout_command")["device_time_s"]
    got = [(round(ev.value.device_time_s - cmd, 6), ev.value.accepted) for ev in armed]
    assert [o for o, _ in got] == [round(o, 6) for o in offsets]  # pressed exactly where armed
    accepted = [o for o, ok in got if ok]
    rejected = [o for o, ok in got if not ok]
    assert max(accepted) < LATENCY_S <= min(rejected) + 1e-6  # the boundary is the stub's latency
    assert all(ev.value.reason == "locked_out" for ev in armed if not ev.value.accepted)
    truth = [json.loads(line) for line in truth_file.read_text().splitlines()]
    assert len(truth) == 1 and truth[0]["latency_s"] == LATENCY_S


def test_refused_command_and_lost_device_are_wire_faults():
    with pty_stub("wagering") as (proc, path), IoLoop() as io:
        env = WallClockEnvironment(time_scale=TIME_SCALE)
        faults = []
        dev = SerialWageringDevice(env, io, path, lambda d, k, p: k == "wire_fault" and faults.append(p),
                                   "wagering", 0.5)
        try:
            dev.command("SPIN", direction="cw")  # not a wagering device's command
            env.run(env.timeout(env.now + 2.0))
            assert [f["kind"] for f in faults] == ["nak"] and "unknown_command" in faults[0]["detail"]
            end(proc)  # the device goes away: the pty closes under the adapter
            for _ in range(50):  # up to 10 s of wall time on a loaded machine (the fault comes within ms)
                env.run(env.timeout(env.now + 4.0))
                if "disconnected" in [f["kind"] for f in faults]:
                    break
            assert "disconnected" in [f["kind"] for f in faults]
            # the pty is gone — unless the other test worker's stub was given its number at once,
            # and the adapter's reconnect found that one: then the link is up on a stranger's pty
            if not os.path.exists(split_key(path)[0]):
                assert dev.link.state == "disconnected"
        finally:
            dev.close()
