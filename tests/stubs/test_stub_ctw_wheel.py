"""The Crazy Time World wheel firmware stub (§ 690.8(b)–(d)): CtwWheelSim behind its register map, and
the rig's ``ModbusCtwWheel`` against it — each spin rests where the SimPy model with the same seed
rests it; the wheel's declaration (its clappers) is the device's own; a silent device leaves the spin
untriggered."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import numpy as np
import pytest

from command_scripts import adapter_rig, commands, of_kind, on_model
from devices.contracts import CrazyTimeWorldWheel, CtwStop
from devices.ctw_wheel import CtwWheelParams, CtwWheelSim
from firmware_stubs.ctw_wheel import CtwWheelGlue
from firmware_stubs.launch import end
from hil.adapters.modbus_command import command_writes
from hil.adapters.modbus_ctw_wheel import ModbusCtwWheel
from hil.adapters.stub_control import request
from hil.wire.registers import default_map
from hil.clock import CLOCK_INFO_FIELDS

DEVICE, ROLE = "crazy-time-world-wheel", "ctw_wheel"
RMAP = default_map(DEVICE)
SEED = 13
SCALE = 20  # an ~8 s spin takes ~0.4 s
TIMEOUT_S = 30.0
TIMES = ("device_time_s", "start_time_s", "stop_time_s", "from_rest_report")
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in TIMES}


@contextmanager
def rig(*params: str, wire: str = "tcp", configure: dict | None = None):
    """The stub in its own process, the rig's adapter on it. ``configure``: first give the stub these
    params (and the seed) through its control endpoint, as the rig does per scenario."""
    def make(env, io, url, sink):
        return ModbusCtwWheel(env, io, url, 1, RMAP, sink, ROLE, 0.5, 0.002)
    setup = configure is not None and (
        lambda stub: request(stub.control, {"op": "configure", "params": configure, "seed": SEED}))
    with adapter_rig(DEVICE, make, *params, seed=SEED, scale=SCALE, wire=wire, configure=setup or None) as rigged:
        yield rigged


def spins(n: int):
    return commands(lambda dev, _: dev.spin(), range(n), TIMEOUT_S)


def sim(script, **knobs):
    return on_model(lambda env, sink: CtwWheelSim(env, CtwWheelParams(**knobs), np.random.default_rng(SEED), sink),
                    script)


@pytest.mark.parametrize("wire", ["tcp", "rtu"])
def test_spins_rest_as_the_models_with_the_same_seed(wire):
    with rig(wire=wire) as (env, dev, events, _stub):
        got = env.run(env.process(spins(3)(env, dev)))
    want, sim_events = sim(spins(3))
    assert isinstance(dev, CrazyTimeWorldWheel) and all(isinstance(r, CtwStop) for r in got)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]  # turns exactly: float64
    for g, w in zip(got, want):
        assert g.stop_time_s - g.start_time_s == pytest.approx(w.stop_time_s - w.start_time_s, abs=1e-6)
    flow = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "wire_fault")]
    assert flow == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"]
    [info] = of_kind(events, "device_info")
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == of_kind(sim_events, "device_info")[0]
    assert not of_kind(events, "wire_fault")


def test_misplaced_clappers_are_declared_by_the_device():
    with rig(configure={"clappers": [0, 1, 2], "stop_bias": 1.0}) as (env, dev, events, _stub):
        got = env.run(env.process(spins(2)(env, dev)))
    assert of_kind(events, "device_info")[0]["clappers"] == [0, 1, 2]
    assert all([(s - r.sections[0]) % 64 for s in r.sections] == [0, 1, 2] for r in got)
    want, _ = sim(spins(2), clappers=(0, 1, 2), stop_bias=1.0)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]


def test_a_wheel_that_stops_answering_leaves_the_spin_untriggered():
    with rig() as (env, dev, events, stub):
        def go():
            ev = dev.spin()
            yield env.timeout(1.0)  # the wheel turns for ~8 s
            end(stub.proc)  # the device goes away mid-spin
            # well past the spin's end; the poll in flight may take its whole timeout (0.5 s wall)
            # to fail, so wait until the link's fault is in (at most ~5 s wall)
            for _ in range(100):
                yield ev | env.timeout(1.0)
                if any(k == "wire_fault" for k, _ in events) and env.now > 20.0:
                    break
            return ev

        ev = env.run(env.process(go()))
    assert not ev.triggered  # the croupier's timeout voids the round
    assert of_kind(events, "ctw_start") and not of_kind(events, "ctw_stop")
    assert {f["kind"] for f in of_kind(events, "wire_fault")} & {"disconnected", "timeout"}


def test_registers_show_the_spin_from_the_press(clock, kit):
    glue = CtwWheelGlue(clock, CtwWheelParams(), np.random.default_rng(SEED), RMAP)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            declared = await wire.read("section_count", "clappers")
            [(_, address, words)] = command_writes(RMAP, "spin", 1, {})
            assert not (await wire.client.write_registers(address, words, device_id=1)).isError()
            busy = await wire.read("state", "op_id", "op_start_ns")
            done, _ = await wire.poll_until(lambda v: v["state"] == "done")
            return declared, busy, done

    declared, busy, done = asyncio.run(go())
    (start,), (stop,) = tap.of("ctw_start"), tap.of("ctw_stop")
    assert declared == {"section_count": 64, "clappers": [0, 3, 6]}
    assert busy == {"state": "busy", "op_id": 1, "op_start_ns": clock.ns(start["device_time_s"])}  # at the press
    assert done == {**done, "result_op_id": 1, "result_command": "spin", "result_sections": list(stop["sections"]),
                    "result_turns": stop["turns"], "result_start_ns": clock.ns(stop["start_time_s"]),
                    "result_stop_ns": clock.ns(stop["stop_time_s"])}
