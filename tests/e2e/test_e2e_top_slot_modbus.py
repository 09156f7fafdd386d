"""The Top Slot over Modbus TCP, its firmware stub in another process: the rig's adapter reports
what ``TopSlotSim`` reports — reels, start, result — and its fault knobs reach the telemetry."""

from __future__ import annotations

from contextlib import contextmanager

from devices.contracts import TopSlot, TopSlotStop
from hil.adapters.modbus_top_slot import ModbusTopSlot
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2

#: Simulated seconds per wall second, the stub's and the rig's: a ~6 s spin takes ~0.3 s.
SCALE = 20
SPIN_TIMEOUT_S = 30.0


@contextmanager
def top_slot(stub, *params: str):
    args = [a for p in params for a in ("--param", p)]
    with stub("top-slot", "--time-scale", str(SCALE), "--seed", "3", *args) as (_proc, url), IoLoop() as io:
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, str, dict]] = []
        dev = ModbusTopSlot(env, io, url, 1, default_map("top-slot"),
                            lambda d, k, p: events.append((d, k, p)), "top_slot", 0.5, 0.002)
        try:
            yield env, dev, events
        finally:
            dev.close()


def run_spins(env, dev, n):
    """``n`` spins one after the other; (command time, event) each, waited for at most SPIN_TIMEOUT_S."""
    def go():
        done = []
        for _ in range(n):
            t, ev = env.now, dev.spin()
            yield ev | env.timeout(SPIN_TIMEOUT_S)
            done.append((t, ev))
        return done

    return env.run(env.process(go()))


def of_kind(events, kind, spin_id=None):
    return [p for _, k, p in events if k == kind and (spin_id is None or p["spin_id"] == spin_id)]


def test_spins_report_like_the_model(stub):
    with top_slot(stub) as (env, dev, events):
        spins = run_spins(env, dev, 3)
    assert isinstance(dev, TopSlot)
    [info] = of_kind(events, "device_info")
    assert info["reel1"] == [str(s) for s in TOP_SLOT_REEL1] and info["reel2"] == list(TOP_SLOT_REEL2)
    assert info["url"].startswith("tcp://127.0.0.1:")
    assert all(ev.triggered for _, ev in spins) and not of_kind(events, "wire_fault")
    assert [ev.value.spin_id for _, ev in spins] == [1, 2, 3]
    for _, ev in spins:
        stop: TopSlotStop = ev.value
        assert [TopSlotStop(**p) for p in of_kind(events, "top_slot_stop", stop.spin_id)] == [stop]
        [start] = of_kind(events, "top_slot_start", stop.spin_id)
        # the same device time mapped when the start was seen and at rest, with the clock map
        # re-estimated in between (docs/wire/clock.md): equal within its uncertainty
        u = max(e[2]["clock_uncertainty_s"] for e in events if e[1] == "clock_estimate")
        assert start["spin_id"] == stop.spin_id and abs(start["device_time_s"] - stop.start_time_s) <= u
        assert stop.spot in info["reel1"] and stop.multiplier in info["reel2"]
        assert stop.reel1_steps > 0 and stop.reel2_steps > 0 and stop.stop_time_s > stop.start_time_s
        assert isinstance(stop.aligned, bool)
    kinds = [(k, p["spin_id"]) for _, k, p in events if k in ("top_slot_start", "top_slot_stop")]
    assert kinds == [(k, i) for i in (1, 2, 3) for k in ("top_slot_start", "top_slot_stop")]


def test_stuck_reel_travels_no_steps(stub):
    with top_slot(stub, "stuck_reel=2") as (env, dev, events):
        spins = run_spins(env, dev, 2)
    stops = [ev.value for _, ev in spins if ev.triggered]
    assert len(stops) == 2 and not of_kind(events, "wire_fault")
    assert all(s.reel2_steps == 0 and s.reel1_steps > 0 for s in stops)
    assert stops[0].multiplier == stops[1].multiplier  # the stuck reel keeps showing its symbol


def test_late_start_is_seen_on_the_device_clock(stub):
    late_s = 2.0
    with top_slot(stub, f"late_start_s={late_s}") as (env, dev, events):
        [(commanded, ev)] = run_spins(env, dev, 1)
    assert ev.triggered
    [start] = of_kind(events, "top_slot_start")
    # The reels cannot start before the command reached the device (which is after env.now at
    # the command) plus the late start; the tolerance is the clock map's uncertainty.
    assert start["device_time_s"] >= commanded + late_s - 0.05
    u = max(e[2]["clock_uncertainty_s"] for e in events if e[1] == "clock_estimate")  # re-estimated between
    assert abs(start["device_time_s"] - ev.value.start_time_s) <= u
