"""The Roulette X multiplier illuminator over Modbus TCP, its firmware stub in another process
(§ 617b.5(b), (d)): configured through its control endpoint as the rig configures it at the start of
a scenario — the scenario's fault knobs, the bench's seed sequence for the role, the Roulette X Rules
Submission — the rig's ``ModbusIlluminator`` reports the very illuminations the SimPy model with that
seed reports, in order, with the same telemetry; faults included. A stub that dies under the rig is
a recorded ``wire_fault``: the rig neither crashes nor resolves a command the device never answered."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
import simpy

from devices.contracts import Illumination, MultiplierIlluminator
from devices.illuminator import IlluminatorParams, IlluminatorSim
from firmware_stubs.illuminator import load_roulette_x
from hil.adapters.modbus_illuminator import ModbusIlluminator
from hil.adapters.stub_control import configure_stub
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map
from hil.clock import CLOCK_INFO_FIELDS

ROLE = "illuminator"
#: simulated seconds per wall second, the stub's and the rig's: a 1.5 s illumination takes 75 ms
SCALE = 20
TIMEOUT_S = 30.0
N = 16
#: the rig's seed sequence for the role (hil.bench spawns one per role from the scenario seed)
ROLE_SEED = np.random.SeedSequence(7303).spawn(9)[4]
RULES_B = load_roulette_x().model_copy(update={"paytable": "B"})
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)
FAULTS = {"lit_early": True, "duplicate_numbers": 0.5, "off_paytable_value": 0.5}


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k != "device_time_s"}


@contextmanager
def rig(stub_control, knobs: dict):
    """A stub configured through its control endpoint as the rig does it (Paytable B, a double zero
    wheel, ``knobs``, the role's seed sequence), and the rig's adapter on it; yields (env, dev,
    events, the stub's effective params)."""
    with stub_control({ROLE: "illuminator"}, "modbus", SCALE) as urls, IoLoop() as io:
        url, control = urls[ROLE]
        seed = {"entropy": ROLE_SEED.entropy, "spawn_key": list(ROLE_SEED.spawn_key)}
        params = configure_stub(control, {"wheel": "double-zero", **knobs}, seed, RULES_B)
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, dict]] = []
        dev = ModbusIlluminator(env, io, url, 1, default_map("illuminator"), lambda d, k, p: events.append((k, p)),
                                ROLE, 0.5, 0.002)
        try:
            yield env, dev, events, params
        finally:
            dev.close()


def play(env, dev, n: int):
    """``n`` illuminations one after the other, each awaited up to TIMEOUT_S; each as (when it was
    commanded, when the result came or the wait ended, the result or None)."""
    def script():
        out = []
        for _ in range(n):
            t, ev = env.now, dev.illuminate()
            yield ev | env.timeout(TIMEOUT_S)
            out.append((t, env.now, ev.value if ev.triggered else None))
        return out

    return env.run(env.process(script()))


def model(n: int, knobs: dict):
    """The bench's SimPy illuminator for the role, with the same seed sequence; (results, events)."""
    env, events = simpy.Environment(), []
    sim = IlluminatorSim(env, IlluminatorParams(wheel="double-zero", **knobs), RULES_B, None,
                         np.random.Generator(np.random.PCG64(ROLE_SEED)), lambda d, k, p: events.append((k, p)))

    def script():
        out = []
        for _ in range(n):
            out.append((yield sim.illuminate()))
        return out

    return env.run(env.process(script())), events


@pytest.mark.parametrize("knobs", [{}, FAULTS], ids=["healthy", "faulty"])
def test_illuminations_configured_through_control_equal_the_models(stub_control, knobs):
    with rig(stub_control, knobs) as (env, dev, events, params):
        env.run(until=env.now + 3.0)  # the device clock past early_s: a draw before its epoch shows 0
        got = play(env, dev, N)
    want, sim_events = model(N, knobs)
    assert isinstance(dev, MultiplierIlluminator)
    assert params == {**params, "wheel": "double-zero", **knobs}
    assert all(isinstance(r, Illumination) for _, _, r in got)
    assert [_untimed(vars(r)) for _, _, r in got] == [_untimed(vars(r)) for r in want]
    assert [r.illumination_id for _, _, r in got] == list(range(1, N + 1))
    flow = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "clock_estimate")]  # the rig's own
    assert flow == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"], "no wire_fault either"
    [info] = [p for k, p in events if k == "device_info"]
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == {
        "wheel": "double-zero", "paytable": "B", "multipliers": [50, 100, 175, 250]}
    assert info["url"].startswith("tcp://127.0.0.1:")
    shown = [r for _, _, r in got]
    assert any("00" in r.numbers for r in shown), "00 came through the wire as '00'"
    # device_time_s is the draw in the rig's time: at the command (lit_early: early_s before it), and
    # illuminate_s before the multipliers were lit, which is before the rig saw them
    early_s = IlluminatorParams().early_s if knobs else 0.0
    lit_s, slack_s = IlluminatorParams().illuminate_s, 0.1
    for t, seen, r in got:
        assert t - early_s - slack_s <= r.device_time_s <= seen - lit_s - early_s + slack_s
    if knobs:  # the faults reached the stub through its control endpoint, and the wire shows them
        assert any(len(set(r.numbers)) < len(r.numbers) for r in shown)
        assert any(1000 in r.multipliers for r in shown)


def test_a_stub_killed_under_the_rig_is_a_wire_fault_never_a_crash(stub):
    with stub("illuminator", "--time-scale", str(SCALE), "--seed", "5") as (proc, url), IoLoop() as io:
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, dict]] = []
        dev = ModbusIlluminator(env, io, url, 1, default_map("illuminator"), lambda d, k, p: events.append((k, p)))
        try:
            [(_, _, first)] = play(env, dev, 1)
            proc.kill()  # the device dies: by its pid, as every process here ends
            proc.wait(timeout=10)
            lost = dev.illuminate()
            env.run(until=env.now + 2.0 * SCALE)  # 2 wall seconds of polling a dead device
        finally:
            dev.close()
    assert isinstance(first, Illumination) and first.illumination_id == 1
    assert not lost.triggered
    faults = [p for k, p in events if k == "wire_fault"]
    assert faults, "the lost device is on record"
    assert {f["kind"] for f in faults} <= {"disconnected", "timeout"}, faults
    assert [p["illumination_id"] for k, p in events if k == "illumination"] == [1]
