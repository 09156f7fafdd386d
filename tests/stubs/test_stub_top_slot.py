"""The Top Slot firmware stub (§ 690.3): TopSlotSim behind its register map."""

from __future__ import annotations

import asyncio
import re
import importlib.resources

import numpy as np
import pytest

from devices.top_slot import TopSlotParams
from firmware_stubs.__main__ import main
from firmware_stubs.top_slot import TopSlotGlue, load_par
from hil.wire.registers import default_map
from rules.crazy_time import TOP_SLOT_REEL2
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

RMAP = default_map("top-slot")
STATUS = ("state", "spin_id", "start_ns", "device_clock_ns")


def _glue(clock, par=None, seed: int = 3, **knobs) -> TopSlotGlue:
    return TopSlotGlue(clock, TopSlotParams(**knobs), par or load_par(), np.random.default_rng(seed), RMAP)


def _at_rest(spin_id: int):
    return lambda v: v["state"] == "at_rest" and v["spin_id"] == spin_id


def _default_rules_text() -> str:
    return importlib.resources.files("rules").joinpath(DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")


def test_spin_goes_spinning_then_at_rest_with_the_models_result(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            before = await wire.read()
            await wire.command("spin")
            _, polls = await wire.poll_until(_at_rest(1), *STATUS)
            return before, polls, await wire.read()

    before, polls, rest = asyncio.run(go())
    assert before["state"] == "idle" and before["spin_id"] == 0
    assert polls[0]["state"] == "spinning" and polls[0]["spin_id"] == 1
    (start,), (stop,) = tap.of("top_slot_start"), tap.of("top_slot_stop")
    assert rest == {
        **rest,
        "state": "at_rest", "spin_id": 1, "spot": stop["spot"], "multiplier": stop["multiplier"],
        "aligned": stop["aligned"], "reel1_steps": stop["reel1_steps"], "reel2_steps": stop["reel2_steps"],
        "start_ns": clock.ns(start["device_time_s"]), "stop_ns": clock.ns(stop["stop_time_s"]),
    }
    assert rest["start_ns"] == clock.ns(stop["start_time_s"])
    assert rest["multiplier"] in TOP_SLOT_REEL2 and rest["reel1_steps"] > 0 and rest["reel2_steps"] > 0
    assert rest["device_clock_ns"] >= rest["stop_ns"] > rest["start_ns"]


def test_stuck_reel_two_travels_no_steps(clock, kit):
    glue = _glue(clock, stuck_reel=2)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            shown = await wire.read("multiplier")
            await wire.command("spin")
            rest, _ = await wire.poll_until(_at_rest(1))
            return shown, rest

    _, rest = asyncio.run(go())
    assert rest["reel2_steps"] == 0 and rest["reel1_steps"] > 0


def test_late_start_shows_the_start_late(clock, kit):
    glue = _glue(clock, late_start_s=2.0)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            commanded_ns = (await wire.read("device_clock_ns"))["device_clock_ns"]
            await wire.command("spin")
            right_after = await wire.read(*STATUS)
            rest, _ = await wire.poll_until(_at_rest(1))
            return commanded_ns, right_after, rest

    commanded_ns, right_after, rest = asyncio.run(go())
    assert right_after["state"] == "idle" and right_after["spin_id"] == 0, "the reels have not started yet"
    assert rest["start_ns"] - commanded_ns >= 2 * 10**9


def test_spin_while_spinning_shows_the_newest_spin(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin")
            await wire.command("spin")
            _, polls = await wire.poll_until(_at_rest(2), *STATUS)
            return polls

    polls = asyncio.run(go())
    assert [p["spin_id"] for p in polls] == [2] * len(polls), "the older spin's stop is not shown"
    assert [p["spin_id"] for p in tap.of("top_slot_stop")][-1] == 2


def test_rules_submission_par_drives_the_reels(clock, kit, tmp_path):
    text = re.sub(r'(?m)^align_probability = ".*"$', 'align_probability = "1"', _default_rules_text())
    assert 'align_probability = "1"' in text
    rules = tmp_path / "always_aligned.toml"
    rules.write_text(text, encoding="utf-8")
    par = load_par(rules)
    assert par == parse_rules_submission(text).top_slot
    glue = _glue(clock, par=par)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await wire.command("spin")
            await wire.poll_until(_at_rest(1))
            # read after rest was seen: one poll reads the discrete and input tables separately,
            # and the reels may have stopped between the two reads
            return await wire.read("aligned")

    assert asyncio.run(go())["aligned"] is True


def test_default_par_is_the_shipped_rules_submission():
    assert load_par() == parse_rules_submission(_default_rules_text()).top_slot


def test_bad_rules_file_stops_the_stub_with_its_location(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(re.sub(r'(?m)^align_probability = ".*"$', 'align_probability = "3/2"', _default_rules_text()),
                   encoding="utf-8")
    assert 'align_probability = "3/2"' in bad.read_text(encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["top-slot", "--modbus", "tcp://127.0.0.1:0", "--rules", str(bad)])
    assert "bad.toml" in str(exc.value) and "align_probability" in str(exc.value)
    assert "READY" not in capsys.readouterr().out


def test_subprocess_stub_spins_to_rest(kit):
    async def go(url):
        async with kit.connect(url, RMAP) as wire:
            await wire.command("spin")
            rest, _ = await wire.poll_until(_at_rest(1))
            return rest

    with kit.stub_process("top-slot", "--time-scale", "50") as url:
        rest = asyncio.run(go(url))
    assert rest["multiplier"] in TOP_SLOT_REEL2 and rest["stop_ns"] > rest["start_ns"]
