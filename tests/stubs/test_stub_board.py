"""The multiplier-board firmware stub (§§ 690.5–690.8): MultiplierBoardSim behind its register map,
and the rig's ``ModbusMultiplierBoard`` against it — every command (generate, apply_multiplier,
shuffle, draw, rescue) answers what the SimPy model with the same seed and Rules Submission answers:
the same cells, permutation and draws. The board's fault knobs and Rules Submission come through
the control endpoint, with the rig's per-device seed sequence."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import numpy as np
import pytest
import simpy
from pymodbus.constants import ExcCodes

from command_scripts import adapter_rig
from devices.contracts import BoardDraw, BoardShown, MultiplierBoard
from devices.multiplier_board import MultiplierBoardParams, MultiplierBoardSim
from firmware_stubs.board import MultiplierBoardGlue, load_rules
from firmware_stubs.control import generator
from hil.adapters.modbus_board import ModbusMultiplierBoard
from hil.adapters.modbus_command import command_writes
from hil.adapters.stub_control import configure_stub
from hil.wire.registers import RegisterMap, default_map
from hil.clock import CLOCK_INFO_FIELDS

DEVICE, ROLE = "multiplier-board", "board"
RMAP = default_map(DEVICE)
SEED = 14
SCALE = 20
TIMEOUT_S = 30.0
TIMES = ("device_time_s",)
WIRE_INFO = ("url", *CLOCK_INFO_FIELDS)  # the link and the clock estimate (docs/wire/clock.md)
RULES = load_rules()


def _untimed(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in TIMES}


@contextmanager
def rig(*params: str, wire: str = "tcp", configure: tuple[dict, object, object] | None = None):
    """The stub in its own process, the rig's adapter on it. ``configure``: (params, seed, rules)
    given through the stub's control endpoint first, as the rig does at the start of a scenario."""
    def make(env, io, url, sink):
        return ModbusMultiplierBoard(env, io, url, 1, RMAP, sink, ROLE, 0.5, 0.002)
    with adapter_rig(DEVICE, make, *params, seed=SEED, scale=SCALE, wire=wire,
                     configure=configure and (lambda stub: configure_stub(stub.control, *configure))) as (env, dev, ev, _):
        yield env, dev, ev


def every_command(env, dev):
    """One of each command, on each game's board, as the bonus games use them; each result (or None)."""
    out = []

    def ask(ev):
        yield ev | env.timeout(TIMEOUT_S)
        out.append(ev.value if ev.triggered else None)
        return ev.value if ev.triggered else None

    boards = {}
    for game, m in (("coin-flip", 3), ("cash-hunt", 10), ("pachinko", 1), ("crazy-time", 20)):
        shown = yield from ask(dev.generate(game))
        boards[game] = shown.board_id
        yield from ask(dev.apply_multiplier(shown.board_id, m))
    yield from ask(dev.shuffle(boards["cash-hunt"]))
    yield from ask(dev.draw(boards["cash-hunt"], "auto_pick", 108))
    yield from ask(dev.draw(boards["pachinko"], "drop_zone", 10))
    yield from ask(dev.draw(boards["crazy-time"], "auto_pick", 3))
    yield from ask(dev.rescue(boards["coin-flip"]))
    yield from ask(dev.rescue(boards["pachinko"]))
    return out


def sim(script, rng=None, rules=RULES, **knobs):
    env, events = simpy.Environment(), []
    model = MultiplierBoardSim(env, MultiplierBoardParams(**knobs), rules, rng or np.random.default_rng(SEED),
                               lambda d, k, p: events.append((k, p)))
    return env.run(env.process(script(env, model))), events


def of_kind(events, kind):
    return [p for k, p in events if k == kind]


def _same_as_sim(got, events, want, sim_events) -> None:
    assert [_untimed(vars(r)) for r in got] == [_untimed(vars(r)) for r in want]
    flow = [(k, _untimed(p)) for k, p in events if k not in ("device_info", "wire_fault")]
    assert flow == [(k, _untimed(p)) for k, p in sim_events if k != "device_info"]


@pytest.mark.parametrize("wire", ["tcp", "rtu"])
def test_every_command_answers_as_the_model_with_the_same_seed(wire):
    with rig(wire=wire) as (env, dev, events):
        got = env.run(env.process(every_command(env, dev)))
    want, sim_events = sim(every_command)
    assert isinstance(dev, MultiplierBoard) and None not in got
    _same_as_sim(got, events, want, sim_events)
    assert [len(r.values) for r in got if isinstance(r, BoardShown)] == [2, 2, 108, 108, 16, 16, 64, 64]
    shuffle = next(r for r in got if isinstance(r, BoardDraw) and r.purpose == "shuffle")
    assert sorted(shuffle.value) == list(range(108))
    [info] = of_kind(events, "device_info")
    assert {k: v for k, v in info.items() if k not in WIRE_INFO} == of_kind(sim_events, "device_info")[0]
    assert not of_kind(events, "wire_fault")
    # board_generated reports when the board drew, board_multiplied when it showed: in order
    for gen, mul in zip(of_kind(events, "board_generated"), of_kind(events, "board_multiplied")):
        assert gen["device_time_s"] < mul["device_time_s"]


def test_configured_through_control_with_the_rigs_seed_sequence_and_rules():
    """The rig hands the stub its device's SeedSequence and its Rules Submission: the board draws
    exactly what the bench's SimPy board would — here from a submission whose coin-flip board
    shows only 7x, and with a weak generator (``biased_probability``)."""
    rules = RULES.model_copy(update={"coin_flip": RULES.coin_flip.model_copy(update={"multiplier_weights": {7: 1}})})
    ss = np.random.SeedSequence(2024).spawn(7)[3]
    seed = {"entropy": ss.entropy, "spawn_key": list(ss.spawn_key)}
    knobs = {"biased_probability": 0.5}
    with rig(configure=(knobs, seed, rules)) as (env, dev, events):
        got = env.run(env.process(every_command(env, dev)))
    want, sim_events = sim(every_command, rng=np.random.Generator(np.random.PCG64(ss)), rules=rules, **knobs)
    _same_as_sim(got, events, want, sim_events)
    assert got[0].values == (7, 7)
    assert generator(seed).integers(1 << 30) == np.random.Generator(np.random.PCG64(ss)).integers(1 << 30)


def test_early_generation_reports_the_draw_before_the_command():
    def script(env, dev):
        yield env.timeout(5.0)
        t, ev = env.now, dev.generate("cash-hunt")
        yield ev | env.timeout(TIMEOUT_S)
        return t, ev.value

    with rig("early_generation=true") as (env, dev, _events):
        commanded, shown = env.run(env.process(script(env, dev)))
    assert shown.device_time_s < commanded - 1.0  # drawn at power-up, long before it was asked for
    assert shown.values == sim(lambda env, m: (yield m.generate("cash-hunt")), early_generation=True)[0].values


def test_a_value_beyond_the_register_shows_saturated():
    """A faulty board's out-of-range cell that a uint16 cannot hold shows 65535 — out of every
    game's range, as the value itself."""
    def script(env, dev):
        ev = dev.generate("pachinko")
        yield ev | env.timeout(TIMEOUT_S)
        return ev.value

    knobs = ("out_of_range_game=pachinko", "out_of_range_value=70000")
    with rig(*knobs) as (env, dev, _events):
        shown = env.run(env.process(script(env, dev)))
    want = sim(script, out_of_range_game="pachinko", out_of_range_value=70000)[0]
    assert 70000 in want.values
    assert shown.values == tuple(65535 if v == 70000 else v for v in want.values)


def test_commands_the_board_refuses_are_wire_faults_and_the_board_carries_on():
    def script(env, dev):
        shown = dev.generate("cash-hunt")
        yield shown | env.timeout(TIMEOUT_S)
        no_rescue = dev.rescue(shown.value.board_id)  # Cash Hunt has no Rescue: refused by the board
        no_board = dev.shuffle(99)  # no such board
        yield env.timeout(1.0)
        after = dev.draw(shown.value.board_id, "auto_pick", 108)
        yield after | env.timeout(TIMEOUT_S)
        return no_rescue, no_board, after

    with rig() as (env, dev, events):
        with pytest.raises(ValueError):
            dev.draw(1, "no-such-purpose", 3)  # the map has no code for it: refused at the call
        with pytest.raises(ValueError):
            dev.generate("roulette")
        no_rescue, no_board, after = env.run(env.process(script(env, dev)))
    assert not no_rescue.triggered and not no_board.triggered and after.triggered
    faults = of_kind(events, "wire_fault")
    assert [f["kind"] for f in faults] == ["exception_response", "exception_response"]
    assert after.value.board_id == 1 and 0 <= after.value.value < 108


# ------------------------------------------------------------------ the glue, register by register
def test_registers_hold_the_models_board_and_refuse_what_it_refuses(clock, kit):
    glue = MultiplierBoardGlue(clock, MultiplierBoardParams(), RULES, np.random.default_rng(SEED), RMAP)
    tap = kit.Tap(glue)

    async def write(wire, command, seq, **args):
        [(_, address, words)] = command_writes(RMAP, command, seq, args)  # one FC16 request
        return await wire.client.write_registers(address, words, device_id=1)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            assert not (await write(wire, "generate", 1, arg_game="pachinko")).isError()
            done, _ = await wire.poll_until(lambda v: v["state"] == "done")
            refused = await write(wire, "rescue", 2, arg_board_id=7)  # no board 7
            return done, refused, await wire.read("state", "op_id", "result_op_id")

    done, refused, after = asyncio.run(go())
    (shown,) = tap.of("board_generated")
    assert done == {**done, "op_id": 1, "result_op_id": 1, "result_command": "generate", "result_board_id": 1,
                    "result_game": "pachinko", "result_multiplier": 1, "result_cells": 16,
                    "result_time_ns": clock.ns(shown["device_time_s"])}
    assert done["result_values"][:16] == list(shown["values"]) and done["result_values"][16:] == [0] * 92
    assert refused.isError() and refused.exception_code == ExcCodes.ILLEGAL_VALUE
    assert after == {"state": "done", "op_id": 1, "result_op_id": 1}


def test_command_writes_are_one_request_with_the_seq_last_on_a_split_map():
    [(table, address, words)] = command_writes(RMAP, "draw", 5, {"arg_board_id": 3, "arg_purpose": "drop_zone",
                                                                 "arg_n": 10})
    assert (table, address, len(words)) == ("holding", 0, 10)
    assert RMAP.decode("command_seq", words[1:2]) == 5 and RMAP.decode("arg_n", words[8:10]) == 10
    # a vendor map whose command_seq sits apart: the arguments go first, command_seq last
    data = RMAP.model_dump(by_alias=True)
    data["points"] = [{**p, "address": 50} if p["name"] == "command_seq" else p for p in data["points"]]
    split = RegisterMap.model_validate(data)
    writes = command_writes(split, "generate", 6, {"arg_game": "cash-hunt"})
    assert [(a, len(w)) for _, a, w in writes] == [(0, 1), (2, 8), (50, 1)]
    with pytest.raises(ValueError, match="no argument point"):
        command_writes(RMAP, "generate", 7, {"arg_colour": 1})
