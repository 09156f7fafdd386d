"""The coin-flipper firmware stub (§ 690.5(b), (d)): CoinFlipperSim behind its register map, and the
rig's ``ModbusCoinFlipper`` against it — each flip reports what the SimPy model with the same seed
reports; fault knobs reach the wire; garbage is a recorded ``bad_value``, never a crash."""

from __future__ import annotations

import asyncio
import importlib.resources
from contextlib import contextmanager

import numpy as np
import pytest

from devices.coin_flipper import CoinFlipperParams, CoinFlipperSim
from command_scripts import adapter_rig, commands, of_kind, on_model
from devices.contracts import CoinFlipper, CoinFlipResult
from firmware_stubs.coin_flipper import CoinFlipperGlue
from hil.adapters.modbus_coin_flipper import ModbusCoinFlipper
from hil.adapters.modbus_command import command_writes
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map, parse_register_map
from hil.clock import CLOCK_INFO_FIELDS

DEVICE, ROLE = "coin-flipper", "coin_flipper"
RMAP = default_map(DEVICE)
SEED = 11
#: the stub's and the rig's simulated seconds per wall second: a ~1.9 s flip takes ~0.1 s
SCALE = 20
TIMEOUT_S = 30.0
TIMES = ("device_time_s", "start_time_s", "stop_time_s", "from_rest_report")
#: what an adapter's device_info adds to the model's: the link and the clock map
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in TIMES}


@contextmanager
def rig(*params: str, wire: str = "tcp", rmap=None, poll_period_s: float = 0.002):
    """The stub in its own process (``--seed SEED``), the rig's adapter on it; yields (env, dev, events)."""
    def make(env, io, url, sink):
        return ModbusCoinFlipper(env, io, url, 1, rmap or RMAP, sink, ROLE, 0.5, poll_period_s)
    with adapter_rig(DEVICE, make, *params, seed=SEED, scale=SCALE, wire=wire) as (env, dev, ev, _):
        yield env, dev, ev


def flips(n: int):
    return commands(lambda dev, _: dev.flip(), range(n), TIMEOUT_S)


def sim(script, **knobs):
    """The same script on the SimPy model with the stub's seed; (results, events)."""
    return on_model(lambda env, sink: CoinFlipperSim(env, CoinFlipperParams(**knobs), np.random.default_rng(SEED),
                                                     sink), script)


@pytest.mark.parametrize("wire", ["tcp", "rtu"])
def test_flips_equal_the_models_with_the_same_seed(wire):
    with rig(wire=wire) as (env, dev, events):
        got = env.run(env.process(flips(4)(env, dev)))
    want, sim_events = sim(flips(4))
    assert isinstance(dev, CoinFlipper) and all(isinstance(r, CoinFlipResult) for r in got)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]
    for g, w in zip(got, want):  # the clock map is an offset: durations come through to the ns
        assert g.stop_time_s - g.start_time_s == pytest.approx(w.stop_time_s - w.start_time_s, abs=1e-6)
    kinds = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "wire_fault")]
    assert kinds == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"]
    [info] = of_kind(events, "device_info")
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == of_kind(sim_events, "device_info")[0]
    assert not of_kind(events, "wire_fault")
    starts = of_kind(events, "coin_flip_start")
    assert [s["device_time_s"] for s in starts] == [r.start_time_s for r in got]


def test_fault_knob_reaches_the_wire():
    """ψ ≤ 45°: the coin never turns over — every flip rests on the face it started from."""
    with rig("precession_deg=30") as (env, dev, _events):
        got = env.run(env.process(flips(3)(env, dev)))
    assert all(r.face == r.start_face and r.half_turns == 0 for r in got)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in sim(flips(3), precession_deg=30)[0]]


def test_a_flip_missed_by_the_poller_still_reports_its_start_first():
    """Polls 0.5 wall s (10 simulated s) apart never see the coin in the air: the start comes from
    the result, marked ``from_rest_report``, before the stop."""
    with rig(poll_period_s=0.5) as (env, dev, events):
        [r] = env.run(env.process(flips(1)(env, dev)))
    flow = [(k, p) for k, p in events if k.startswith("coin_flip")]
    assert [k for k, _ in flow] == ["coin_flip_start", "coin_flip_stop"]
    assert flow[0][1] == {"flip_id": 1, "device_time_s": r.start_time_s, "from_rest_report": True}


def test_an_unknown_face_code_is_a_bad_value_never_a_crash():
    """The rig's map gives ``result_face`` other codes than the device uses: the flip's event never
    triggers (the croupier voids), the fault is recorded once, polling goes on."""
    toml = importlib.resources.files("hil.wire").joinpath("maps/coin_flipper.toml").read_text(encoding="utf-8")
    shipped = ('name = "result_face"\ntable = "input"\naddress = 10\ntype = "enum16"\n'
               'enum = { 0 = "none", 1 = "red", 2 = "blue" }')
    assert shipped in toml
    rmap = parse_register_map(toml.replace(shipped, shipped.replace('1 = "red", 2 = "blue"', '7 = "red", 8 = "blue"')),
                              "vendor.toml", DEVICE)
    with rig(rmap=rmap) as (env, dev, events):
        got = env.run(env.process(flips(2)(env, dev)))
    assert got == [None, None] and not of_kind(events, "coin_flip_stop")
    faults = of_kind(events, "wire_fault")
    assert faults and all(f["kind"] == "bad_value" and "result_face" in f["detail"] for f in faults)
    assert len(faults) <= 2
    assert [s["flip_id"] for s in of_kind(events, "coin_flip_start")] == [1, 2]  # polling went on


# ------------------------------------------------------------------ the glue, register by register
def _glue(clock, **knobs) -> CoinFlipperGlue:
    return CoinFlipperGlue(clock, CoinFlipperParams(**knobs), np.random.default_rng(SEED), RMAP)


async def _command(wire, command: str, seq: int, **args):
    for table, address, words in command_writes(RMAP, command, seq, args):
        rr = await wire.client.write_registers(address, words, device_id=1)
        assert not rr.isError(), rr


def test_registers_go_busy_then_done_with_the_models_result(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            before = await wire.read()
            await _command(wire, "flip", 1)
            right_after = await wire.read("state", "op_id", "op_start_ns")
            done, polls = await wire.poll_until(lambda v: v["state"] == "done")
            return before, right_after, polls, done

    before, right_after, polls, done = asyncio.run(go())
    assert before["state"] == "idle" and before["op_id"] == 0 and before["result_op_id"] == 0
    assert right_after == {"state": "busy", "op_id": 1, "op_start_ns": 0}  # the launch delay
    (start,), (stop,) = tap.of("coin_flip_start"), tap.of("coin_flip_stop")
    assert any(p["state"] == "busy" and p["op_start_ns"] == clock.ns(start["device_time_s"]) for p in polls)
    assert done == {**done, "op_id": 1, "result_op_id": 1, "result_command": "flip", "result_face": stop["face"],
                    "result_start_face": stop["start_face"], "result_half_turns": stop["half_turns"],
                    "result_launch_speed_mps": stop["launch_speed_mps"], "result_spin_rate_rps": stop["spin_rate_rps"],
                    "result_start_ns": clock.ns(stop["start_time_s"]), "result_stop_ns": clock.ns(stop["stop_time_s"])}


def test_command_none_executes_nothing_and_a_repeated_seq_nothing_again(clock, kit):
    glue = _glue(clock)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _command(wire, "none", 1)
            idle = await wire.read("state", "op_id")
            await _command(wire, "flip", 2)
            await _command(wire, "flip", 2)  # the same seq: not a new command
            return idle, await wire.read("state", "op_id")

    idle, once = asyncio.run(go())
    assert idle == {"state": "idle", "op_id": 0} and once == {"state": "busy", "op_id": 1}


def test_serial_frames_are_refused_for_a_modbus_only_device(capsys):
    from firmware_stubs.__main__ import main

    with pytest.raises(SystemExit):
        main([DEVICE, "--pty"])
    assert "Modbus only" in capsys.readouterr().err


def test_an_idle_device_is_polled_slowly_and_a_command_wakes_the_poller():
    """No command awaiting its result and the coin at rest: the status is read every
    ``IDLE_POLL_S`` (not every 2 ms); a flip is still answered, start and stop, as the model's."""
    from firmware_stubs.modbus import ModbusStub, ModelClock
    from hil.adapters.modbus_command import IDLE_POLL_S

    clock = ModelClock(SCALE)
    stub = ModbusStub(RMAP, _glue(clock), clock)
    with IoLoop() as io:
        port = io.run(stub.start_tcp("127.0.0.1", 0), timeout_s=10)
        env = WallClockEnvironment(time_scale=SCALE)
        events: list[tuple[str, dict]] = []
        dev = ModbusCoinFlipper(env, io, f"tcp://127.0.0.1:{port}", 1, RMAP, lambda d, k, p: events.append((k, p)),
                                ROLE, 0.5, 0.002)
        try:
            before = stub.requests
            idle_s = 20 * IDLE_POLL_S
            env.run(until=env.now + idle_s * SCALE)
            idle_polls = stub.requests - before
            got = env.run(env.process(flips(1)(env, dev)))
        finally:
            dev.close()
            io.run(stub.stop(), timeout_s=10)
    assert idle_polls <= 2 * 20, f"{idle_polls} polls in {idle_s} s idle"  # 2 ms polling: ~500
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in sim(flips(1))[0]]
    assert [k for k, _ in events if k.startswith("coin_flip")] == ["coin_flip_start", "coin_flip_stop"]
