"""The money-wheel firmware stub (§ 690.1, § 690.2): MoneyWheelSim behind its register map."""

from __future__ import annotations

import asyncio

import numpy as np

from devices.money_wheel import MoneyWheelParams
from firmware_stubs.money_wheel import MoneyWheelGlue
from hil.wire.registers import default_map
from rules.crazy_time import WHEEL_SECTIONS

RMAP = default_map("money-wheel")
STATUS = ("state", "spin_id", "revolution_count", "peg_count", "direction", "on_peg", "device_clock_ns")


def _glue(clock, seed: int = 7, **knobs) -> MoneyWheelGlue:
    return MoneyWheelGlue(clock, MoneyWheelParams(**knobs), np.random.default_rng(seed), RMAP)


def _at_rest(spin_id: int):
    return lambda v: v["state"] == "at_rest" and v["spin_id"] == spin_id


def test_spin_goes_spinning_then_at_rest_with_the_models_rest_report(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            before = await wire.read()
            await wire.command("spin_cw")
            rest, polls = await wire.poll_until(_at_rest(1), *STATUS)
            return before, polls, await wire.read()

    before, polls, after = asyncio.run(go())
    assert before["state"] == "idle" and before["spin_id"] == 0 and before["direction"] == "none"
    assert polls[0]["state"] == "spinning" and polls[0]["spin_id"] == 1 and polls[0]["direction"] == "cw"
    assert not any(p["on_peg"] for p in polls if p["state"] == "spinning")
    # peg_count is latched at rest (the model gives no live count): 0 all through the first spin
    assert all(p["peg_count"] == 0 for p in polls if p["state"] == "spinning")

    (start,), (stop,) = tap.of("spin_start"), tap.of("spin_stop")
    pulses = tap.of("index_pulse")
    assert stop["revolutions"] >= 3, "healthy params give at least 3 revolutions (§ 690.2(b))"
    assert len(pulses) >= 2 and [p["count"] for p in pulses] == list(range(1, len(pulses) + 1))
    assert after == {
        **after,
        "state": "at_rest", "spin_id": stop["spin_id"], "section_index": stop["section_index"],
        "on_peg": stop["on_peg"], "direction": "cw", "revolutions": round(stop["revolutions"] * 1000) / 1000,
        "pegs_passed": stop["pegs_passed"], "peg_count": stop["pegs_passed"],
        "duration_us": round(stop["duration_s"] * 1e6), "spin_start_ns": clock.ns(start["device_time_s"]),
        "stop_ns": clock.ns(stop["stop_time_s"]), "revolution_count": len(pulses),
        "last_pulse_ns": clock.ns(pulses[-1]["device_time_s"]),
    }
    assert after["spin_start_ns"] == clock.ns(stop["start_time_s"])
    assert after["device_clock_ns"] >= after["stop_ns"]
    # the live counter counted up through the spin
    counts = [p["revolution_count"] for p in polls]
    assert counts == sorted(counts) and counts[-1] == len(pulses)


def test_layout_registers_are_the_regulations_wheel(clock, kit):
    glue = _glue(clock)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            return await wire.read("diameter_mm", "section_count", "sections")

    layout = asyncio.run(go())
    assert layout == {"diameter_mm": 1830, "section_count": 54, "sections": [str(s) for s in WHEEL_SECTIONS]}


def test_spin_while_turning_is_refused_and_the_stub_keeps_serving(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin_cw")
            await wire.command("spin_ccw", refused=6)  # while the wheel turns: DEVICE_BUSY, nothing changes
            during = await wire.read(*STATUS)
            await wire.poll_until(_at_rest(1), *STATUS)
            seq = await wire.command("spin_ccw")
            second = await wire.read(*STATUS)
            await wire.poll_until(_at_rest(2), *STATUS)
            await wire.command("spin_cw", seq)  # the same seq again: not a new command
            await wire.command("none")  # a new seq with no command: nothing
            return during, second, await wire.read(*STATUS)

    during, second, last = asyncio.run(go())
    assert during["state"] == "spinning" and during["spin_id"] == 1 and during["direction"] == "cw"
    assert glue.refused == 1
    assert second["state"] == "spinning" and second["spin_id"] == 2 and second["direction"] == "ccw"
    assert second["revolution_count"] == 0, "the live counter restarts with each spin"
    assert last["state"] == "at_rest" and last["spin_id"] == 2 and last["direction"] == "ccw"
    assert len(tap.of("spin_start")) == 2 and len(tap.of("spin_stop")) == 2


def test_stuck_index_sensor_gives_no_revolution_count(clock, kit):
    glue = _glue(clock, index_sensor_stuck=True)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin_ccw")
            _, polls = await wire.poll_until(_at_rest(1), *STATUS)
            return polls, await wire.read()

    polls, rest = asyncio.run(go())
    assert all(p["revolution_count"] == 0 for p in polls)
    assert rest["revolution_count"] == 0 and rest["last_pulse_ns"] == 0
    assert rest["revolutions"] >= 3, "the wheel itself turned as usual"


def test_weak_push_shows_fewer_than_three_revolutions(clock, kit):
    glue = _glue(clock, push_scale=0.35)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin_cw")
            rest, _ = await wire.poll_until(_at_rest(1), "state", "spin_id", "revolutions", "revolution_count")
            return rest

    rest = asyncio.run(go())
    (stop,) = tap.of("spin_stop")
    assert rest["revolutions"] < 3 and rest["revolutions"] == round(stop["revolutions"] * 1000) / 1000
    assert rest["revolution_count"] == len(tap.of("index_pulse"))


def test_dropped_telemetry_never_shows_the_rest(clock, kit):
    glue = _glue(clock, telemetry_dropout=1.0)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin_cw")
            physics = glue.model.last_physics
            assert physics is not None, "the model took the push"
            over_ns = clock.ns(physics.duration_s) + 10**9  # the model's spin is over by then
            last, polls = await wire.poll_until(lambda v: v["device_clock_ns"] > over_ns, *STATUS)
            return polls

    polls = asyncio.run(go())
    assert tap.events == [], "every message was dropped"
    assert all(p["state"] == "idle" and p["spin_id"] == 0 for p in polls)


def test_subprocess_stub_spins_to_rest(kit):
    async def go(url):
        async with kit.connect(url, RMAP) as wire:
            assert (await wire.read("section_count"))["section_count"] == 54
            await wire.command("spin_cw")
            rest, _ = await wire.poll_until(_at_rest(1), "state", "spin_id", "revolutions", "direction")
            return rest

    with kit.stub_process("money-wheel", "--time-scale", "50") as url:
        rest = asyncio.run(go(url))
    assert rest["direction"] == "cw" and rest["revolutions"] >= 3
