"""The Top Slot over the serial frames on a pty, its firmware stub in another process at 20x
time compression: a spin's ``TopSlotStop`` is its telemetry, and a stuck reel shows on the wire."""

from __future__ import annotations

from test_e2e_serial_wagering import pty_stub

from hil.adapters.serial_top_slot import SerialTopSlot
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop

TIME_SCALE = 20


def spin_once(path: str, io: IoLoop):
    env = WallClockEnvironment(time_scale=TIME_SCALE)
    events = []
    slot = SerialTopSlot(env, io, path, lambda d, k, p: k == "clock_estimate" or events.append((k, p)), "top_slot", 0.5)
    try:
        def go():
            done = slot.spin()
            yield done | env.timeout(60.0)
            return done

        done = env.run(env.process(go()))
    finally:
        slot.close()
    return events, done


def test_a_top_slot_spin_over_the_pty():
    with pty_stub("top-slot", "--seed", "5") as (_proc, path), IoLoop() as io:
        events, done = spin_once(path, io)
    assert done.triggered
    stop = done.value
    assert [k for k, _ in events] == ["device_info", "top_slot_start", "top_slot_stop"]
    info = events[0][1]
    assert info["reel2"] == [1, 2, 3, 4, 5, 7, 10, 15, 20] and "clock_offset_s" in info
    assert events[2][1] == vars(stop)
    assert events[1][1] == {"spin_id": 1, "device_time_s": stop.start_time_s}
    assert stop.reel1_steps > 0 and stop.reel2_steps > 0 and stop.stop_time_s > stop.start_time_s
    assert stop.spot in info["reel1"] and stop.multiplier in info["reel2"]


def test_a_stuck_reel_reaches_the_rig():
    with pty_stub("top-slot", "--param", "stuck_reel=1") as (_proc, path), IoLoop() as io:
        events, done = spin_once(path, io)
    assert done.triggered and done.value.reel1_steps == 0 and done.value.reel2_steps > 0
    assert "wire_fault" not in [k for k, _ in events]
