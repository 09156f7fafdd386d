"""The Pachinko firmware stub (§ 690.7(b), (d)): PachinkoSim behind its register map, and the rig's
``ModbusPachinkoBoard`` against it — each drop lands where the SimPy model with the same seed lands
it, path and all; a lodged puck never lands; a refused zone is a wire fault."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import numpy as np
import pytest
from pymodbus.constants import ExcCodes

from command_scripts import adapter_rig, commands, of_kind, on_model
from devices.contracts import PachinkoBoard, PuckLanding
from devices.pachinko import PachinkoParams, PachinkoSim
from firmware_stubs.launch import launch
from firmware_stubs.pachinko import PachinkoGlue, path_words
from hil.adapters.modbus_command import command_writes
from hil.adapters.modbus_pachinko import ModbusPachinkoBoard
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import default_map
from hil.clock import CLOCK_INFO_FIELDS
from rules.pachinko import DROP_ZONES

DEVICE, ROLE = "pachinko-board", "pachinko"
RMAP = default_map(DEVICE)
SEED = 12
SCALE = 20
TIMEOUT_S = 30.0
TIMES = ("device_time_s", "start_time_s", "stop_time_s", "from_rest_report")
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)
ZONES = (4, 13, 8, 1)  # 1: a faulty croupier's zone, still dropped (§ 690.7(d) is the check's)


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in TIMES}


@contextmanager
def rig(*params: str, wire: str = "tcp"):
    def make(env, io, url, sink):
        return ModbusPachinkoBoard(env, io, url, 1, RMAP, sink, ROLE, 0.5, 0.002)
    with adapter_rig(DEVICE, make, *params, seed=SEED, scale=SCALE, wire=wire) as (env, dev, ev, _):
        yield env, dev, ev


def drops(zones, timeout_s: float = TIMEOUT_S):
    return commands(lambda dev, zone: dev.drop(zone), zones, timeout_s)


def sim(script, **knobs):
    return on_model(lambda env, sink: PachinkoSim(env, PachinkoParams(**knobs), np.random.default_rng(SEED), sink),
                    script)


@pytest.mark.parametrize("wire", ["tcp", "rtu"])
def test_drops_land_as_the_models_with_the_same_seed(wire):
    with rig(wire=wire) as (env, dev, events):
        got = env.run(env.process(drops(ZONES)(env, dev)))
    want, sim_events = sim(drops(ZONES))
    assert isinstance(dev, PachinkoBoard) and all(isinstance(r, PuckLanding) for r in got)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]
    assert [r.zone for r in got] == list(ZONES) and all(len(r.path) == 12 for r in got)
    for g, w in zip(got, want):
        assert g.stop_time_s - g.start_time_s == pytest.approx(w.stop_time_s - w.start_time_s, abs=1e-6)
    flow = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "wire_fault")]
    assert flow == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"]
    [info] = of_kind(events, "device_info")
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == of_kind(sim_events, "device_info")[0]
    assert info["zones"] == list(DROP_ZONES) and not of_kind(events, "wire_fault")


def test_a_tilted_board_lands_as_the_tilted_model():
    with rig("tilt_deg=5") as (env, dev, _events):
        got = env.run(env.process(drops((4, 4, 4))(env, dev)))
    want, _ = sim(drops((4, 4, 4)), tilt_deg=5)
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]
    assert sum(r.path.count("R") for r in got) > sum(r.path.count("L") for r in got)


def test_a_lodged_puck_is_released_but_never_lands():
    with rig("puck_stuck_probability=1") as (env, dev, events):
        [got] = env.run(env.process(drops((7,), timeout_s=5.0)(env, dev)))
    assert got is None  # the croupier times out and voids the round
    assert [_untimed(p) for p in of_kind(events, "puck_drop")] == [{"drop_id": 1, "zone": 7}]
    assert not of_kind(events, "puck_landed") and not of_kind(events, "wire_fault")


def test_a_zone_the_board_refuses_is_a_wire_fault_and_the_board_carries_on():
    with rig() as (env, dev, events):
        with pytest.raises(ValueError):
            dev.drop(-1)  # not a uint16: refused at the call, as the model refuses it
        got = env.run(env.process(drops((17, 5))(env, dev)))
    assert got[0] is None and got[1].drop_id == 1 and got[1].zone == 5
    [fault] = of_kind(events, "wire_fault")
    assert fault["kind"] == "exception_response"


# ------------------------------------------------------------------ the glue, register by register
def test_path_bits_and_registers_follow_the_model(clock, kit):
    glue = PachinkoGlue(clock, PachinkoParams(), np.random.default_rng(SEED), RMAP)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            declared = await wire.read("rows", "spots")
            for table, address, words in command_writes(RMAP, "drop", 1, {"arg_zone": 9}):
                assert not (await wire.client.write_registers(address, words, device_id=1)).isError()
            busy = await wire.read("state", "op_id", "op_zone")
            done, _ = await wire.poll_until(lambda v: v["state"] == "done")
            # refused: a zone outside the board; nothing changes, the seq is not taken
            [(_, address, words)] = command_writes(RMAP, "drop", 2, {"arg_zone": 40})
            rr = await wire.client.write_registers(address, words, device_id=1)
            return declared, busy, done, rr, await wire.read("op_id", "op_zone")

    declared, busy, done, refused, after = asyncio.run(go())
    assert declared == {"rows": 12, "spots": 16} and busy == {"state": "busy", "op_id": 1, "op_zone": 9}
    (drop,), (landed,) = tap.of("puck_drop"), tap.of("puck_landed")
    assert done == {**done, "result_op_id": 1, "result_zone": 9, "result_spot": landed["spot"], "result_rows": 12,
                    "result_path": path_words(landed["path"], 4), "result_start_ns": clock.ns(drop["device_time_s"]),
                    "result_stop_ns": clock.ns(landed["stop_time_s"]), "op_start_ns": clock.ns(drop["device_time_s"])}
    assert refused.isError() and refused.exception_code == ExcCodes.ILLEGAL_VALUE
    assert after == {"op_id": 1, "op_zone": 9}


def test_path_words_put_row_r_at_bit_r():
    assert path_words("RL" + "L" * 14 + "R", 4) == [0b1, 0b1, 0, 0]
    assert path_words("", 2) == [0, 0]


def test_a_board_longer_than_the_path_registers_is_refused(clock):
    with pytest.raises(ValueError, match="result_path holds 64 rows"):
        PachinkoGlue(clock, PachinkoParams(rows=66), np.random.default_rng(0), RMAP)


def test_control_refuses_knobs_the_model_refuses_and_keeps_the_board():
    from hil.adapters.stub_control import StubControlError, request

    with launch(DEVICE, "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE),
                "--control", "tcp://127.0.0.1:0") as stub:
        answer = request(stub.control, {"op": "configure", "params": {"tilt_deg": 2.0, "rows": 14}, "seed": 3})
        assert answer["params"]["tilt_deg"] == 2.0 and answer["params"]["rows"] == 14
        with pytest.raises(StubControlError, match="unknown parameter"):
            request(stub.control, {"op": "configure", "params": {"tilt": 2.0}})
        with pytest.raises(StubControlError, match="rows"):
            request(stub.control, {"op": "configure", "params": {"rows": 13}})  # odd: not a lattice
        with pytest.raises(StubControlError, match="result_path holds 64 rows"):
            request(stub.control, {"op": "configure", "params": {"rows": 80}})  # more rows than the path holds
        with IoLoop() as io:  # the configured board is the one on the wire, and it still drops
            env = WallClockEnvironment(time_scale=SCALE)
            events: list[tuple[str, dict]] = []
            dev = ModbusPachinkoBoard(env, io, stub.url, 1, RMAP, lambda d, k, p: events.append((k, p)), ROLE, 0.5,
                                      0.002)
            try:
                [landing] = env.run(env.process(drops((6,))(env, dev)))
            finally:
                dev.close()
    assert of_kind(events, "device_info")[0]["rows"] == 14
    assert landing is not None and len(landing.path) == 14
