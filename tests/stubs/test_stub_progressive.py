"""The progressive table game system's firmware stub: ProgressiveTableSim behind its register map —
the declaration is the model's meters, every answered press is in the press log with its meter
increments, the pay command pays what the model pays, win lights, link and power losses show in the
status, and what the map cannot carry is refused (docs/wire/modbus-progressive-system.md)."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from pymodbus.constants import ExcCodes

from devices.progressive import MeterSpec, ProgressiveParams
from firmware_stubs.progressive import ProgressiveGlue, cli_params
from hil.adapters.stub_control import request
from hil.wire.registers import ascii_words, default_map, words_ascii

RMAP = default_map("progressive-system")
SEED = 5
BLAZING = (MeterSpec("mega", 1_000_000, None, "14%", "1%"), MeterSpec("major", 500_000, None, "6%"),
           MeterSpec("minor", 250_000, 200_000, "4%"))
STATUS = ("press_count", "link_state", "link_lost_count", "link_restored_count", "link_lost_ns", "link_restored_ns",
          "power_loss_count", "power_loss_ns", "meter_value_cents", "link_restored_meter_cents", "pay_count")


def _glue(clock, **knobs) -> ProgressiveGlue:
    params = ProgressiveParams(**{"meters": BLAZING, **knobs})
    return ProgressiveGlue(clock, params, np.random.default_rng(SEED), RMAP)


async def _write(wire, first: str, values: dict) -> object:
    """One FC16 request of consecutive points from ``first`` (the press injection, the pay command)."""
    words: list[int] = []
    for name, value in values.items():
        words += RMAP.encode(name, value)
    return await wire.client.write_registers(RMAP.point(first).address, words, device_id=1)


async def _press(wire, seat: int, stake_cents: int, seq: int) -> None:
    rr = await _write(wire, "press_inject_seat", {"press_inject_seat": seat, "press_inject_spot": "progressive",
                                                  "press_inject_stake_cents": stake_cents, "press_inject_seq": seq})
    assert not rr.isError(), rr


async def _coil(wire, name: str, value: bool, offset: int = 0):
    return await wire.client.write_coil(RMAP.point(name).address + offset, value, device_id=1)


def _log_entry(log: dict, press_id: int) -> dict:
    i = (press_id - 1) % RMAP.point("press_log_id").count
    return {k.removeprefix("press_log_"): v[i] for k, v in log.items()}


def test_the_declaration_is_the_models_meters(clock, kit):
    glue = _glue(clock, link_id="bank-7", seats=6)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            return await wire.read("seats", "meter_count", "meter_names", "meter_seed_cents", "meter_reseed_cents",
                                   "meter_increment_num", "meter_increment_den", "meter_reserve_num",
                                   "meter_reserve_den", "linked", "link_id")

    d = asyncio.run(go())
    assert d["seats"] == 6 and d["meter_count"] == 3
    assert [words_ascii(d["meter_names"][8 * i:8 * i + 8]) for i in range(4)] == ["mega", "major", "minor", ""]
    assert d["meter_seed_cents"] == [1_000_000, 500_000, 250_000, 0]
    assert d["meter_reseed_cents"] == [1_000_000, 500_000, 200_000, 0]
    assert list(zip(d["meter_increment_num"], d["meter_increment_den"])) == [(7, 50), (3, 50), (1, 25), (0, 1)]
    assert list(zip(d["meter_reserve_num"], d["meter_reserve_den"])) == [(1, 100), (0, 1), (0, 1), (0, 1)]
    assert d["linked"] == "linked" and words_ascii(d["link_id"]) == "bank-7"


def test_every_press_is_logged_with_its_meter_increments(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)
    log_names = [p.name for p in RMAP.points if p.name.startswith("press_log_")]

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _press(wire, 1, 100, 1)  # betting not open: rejected, nothing incremented
            assert not (await _coil(wire, "betting_open", True)).isError()
            for seq, (seat, stake) in enumerate([(2, 125), (3, 125), (9, 125)], start=2):
                await _press(wire, seat, stake, seq)
            status, _ = await wire.poll_until(lambda v: v["press_count"] == 4, *STATUS)
            return status, await wire.read(*log_names)

    status, log = asyncio.run(go())
    presses, incs = tap.of("press"), tap.of("meter_increment")
    assert [(p["seat"], p["accepted"], p["reason"]) for p in presses] == [
        (1, False, "betting_closed"), (2, True, None), (3, True, None), (9, False, "invalid_seat")]
    for p in presses:
        e = _log_entry(log, p["press_id"])
        mine = [i for i in incs if i["press_id"] == p["press_id"]]
        assert (e["id"], e["seat"], e["spot"], e["stake_cents"]) == (p["press_id"], p["seat"], "progressive",
                                                                      p["stake_cents"])
        assert e["status"] == ("accepted" if p["accepted"] else "rejected") and e["reason"] == (p["reason"] or "none")
        assert (e["press_ns"], e["answer_ns"]) == (clock.ns(p["device_time_s"]), clock.ns(p["answer_time_s"]))
        assert e["increment_mask"] == (0b111 if p["accepted"] else 0)
        for k, inc in enumerate(mine, start=1):
            assert (e[f"meter{k}_increment_cents"], e[f"meter{k}_value_cents"]) == (inc["amount_cents"],
                                                                                      inc["value_cents"])
    assert [i["amount_cents"] for i in incs if i["meter"] == "mega"] == [17, 18]  # 17.5 cents each, carried
    assert status["meter_value_cents"] == [1_000_035, 500_015, 250_010, 0]
    assert status["link_state"] == "up"


def test_the_pay_command_pays_what_the_model_pays_and_refusals_change_nothing(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)
    result = [p.name for p in RMAP.points if p.name.startswith("pay_result_")]

    def pay(index, percent, winners, seq):
        return {"pay_meter": index, "pay_percent": percent, "pay_winners": winners, "pay_seq": seq}

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _coil(wire, "betting_open", True)
            await _press(wire, 1, 1_000, 1)
            await wire.poll_until(lambda v: v["press_count"] == 1, "press_count")
            refused = [await _write(wire, "pay_meter", pay(*args)) for args in
                       [(3, 100, 1, 1), (0, 0, 1, 2), (0, 101, 1, 3), (0, 100, 0, 4)]]
            ok = await _write(wire, "pay_meter", pay(2, 100, 3, 5))
            done, _ = await wire.poll_until(lambda v: v["pay_count"] == 1, "pay_count", *result)
            return refused, ok, done, await wire.read("meter_value_cents")

    refused, ok, done, after = asyncio.run(go())
    assert all(r.isError() and r.exception_code == ExcCodes.ILLEGAL_VALUE for r in refused)
    assert not ok.isError()
    [hit] = tap.of("meter_hit")
    assert hit["meter"] == "minor" and hit["jackpot_cents"] == 250_040 and hit["pay_id"] == 1
    assert (hit["paid_cents"], hit["remainder_cents"], hit["reseed_cents"], hit["value_cents"]) == (83_346, 2, 200_000,
                                                                                                    200_002)
    assert done == {"pay_count": 1, "pay_result_meter": 2, "pay_result_percent": 100, "pay_result_winners": 3,
                    "pay_result_jackpot_cents": 250_040, "pay_result_paid_cents": 83_346,
                    "pay_result_remainder_cents": 2, "pay_result_reseed_cents": 200_000,
                    "pay_result_value_cents": 200_002, "pay_result_reserve_cents": 0,
                    "pay_result_ns": clock.ns(hit["device_time_s"])}
    assert after["meter_value_cents"] == [1_000_140, 500_060, 200_002, 0]


def test_win_lights_are_coils_stamped_when_they_change(clock, kit):
    glue = _glue(clock, seats=7)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            assert not (await _coil(wire, "win_light", True, offset=2)).isError()  # seat 3
            first = await wire.read("win_light", "win_light_ns")
            await _coil(wire, "win_light", True, offset=2)  # already lit: nothing changes
            again = await wire.read("win_light_ns")
            beyond = await _coil(wire, "win_light", True, offset=7)  # seat 8 of a 7-seat table
            await _coil(wire, "win_light", False, offset=2)
            return first, again, beyond, await wire.read("win_light", "win_light_ns")

    first, again, beyond, out = asyncio.run(go())
    lit, dark = tap.of("win_light")
    assert (lit["seat"], lit["on"], dark["seat"], dark["on"]) == (3, True, 3, False)
    assert first["win_light"] == [False, False, True] + [False] * 5
    assert first["win_light_ns"][2] == clock.ns(lit["device_time_s"]) == again["win_light_ns"][2]
    assert beyond.isError() and beyond.exception_code == ExcCodes.ILLEGAL_VALUE
    assert out["win_light"] == [False] * 8 and out["win_light_ns"][2] == clock.ns(dark["device_time_s"])


def test_link_and_power_losses_show_in_the_status(clock, kit):
    """Link lost 8 s after power-up for 8 s (a press during it is refused "link_lost"), then a power
    loss at 20 s resets the meters to their seeds (at 40× time: 0.2, 0.2 and 0.5 s of wall time)."""
    glue = _glue(clock, link_loss_at_s=8.0, link_loss_duration_s=8.0, power_loss_at_s=20.0)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _coil(wire, "betting_open", True)
            await _press(wire, 1, 500, 1)
            lost, _ = await wire.poll_until(lambda v: v["link_state"] == "lost", *STATUS)
            await _press(wire, 2, 500, 2)
            reasons, _ = await wire.poll_until(lambda v: v["press_count"] == 2, "press_count", "press_log_reason")
            restored, _ = await wire.poll_until(lambda v: v["link_restored_count"] == 1, *STATUS)
            powered, _ = await wire.poll_until(lambda v: v["power_loss_count"] == 1, *STATUS)
            return lost, reasons, restored, powered

    lost, reasons, restored, powered = asyncio.run(go())
    [ll], [lr], [pl] = tap.of("link_lost"), tap.of("link_restored"), tap.of("power_loss")
    assert lost["link_lost_count"] == 1 and lost["link_lost_ns"] == clock.ns(ll["device_time_s"])
    assert lost["meter_value_cents"][0] == 1_000_070
    assert reasons["press_log_reason"][1] == "link_lost"
    assert restored["link_state"] == "up" and restored["link_restored_ns"] == clock.ns(lr["device_time_s"])
    assert restored["link_restored_meter_cents"] == [1_000_070, 500_030, 250_020, 0] == [
        *lr["meters"].values(), 0]
    assert powered["power_loss_ns"] == clock.ns(pl["device_time_s"])
    assert powered["meter_value_cents"] == [1_000_000, 500_000, 250_000, 0]
    assert lr["device_time_s"] - ll["device_time_s"] == pytest.approx(8.0)


@pytest.mark.parametrize(("knobs", "message"), [
    ({"meters": tuple(MeterSpec(f"m{i}", 100) for i in range(5))}, "holds 4 meters"),
    ({"meters": (MeterSpec("a-name-of-17-char", 100),)}, "16 ASCII"),
    ({"meters": (MeterSpec("mégà", 100),)}, "ASCII"),
    ({"seats": 9}, "holds 8 seats"),
    ({"link_id": "x" * 17}, "16 ASCII"),
])
def test_the_glue_refuses_what_the_map_cannot_carry(clock, knobs, message):
    with pytest.raises(ValueError, match=message):
        ProgressiveGlue(clock, ProgressiveParams(**knobs), np.random.default_rng(0), RMAP)


def test_names_and_cli_meters():
    assert words_ascii(ascii_words("minor", 8)) == "minor" and ascii_words(None, 2) == [0, 0]
    meters = [{"name": "mega", "seed_cents": 5, "increment_rate": "14%"}]
    assert cli_params({"meters": json.dumps(meters), "seats": "5"}) == {"meters": meters, "seats": "5"}
    assert cli_params({"meters": meters}) == {"meters": meters}
    with pytest.raises(ValueError, match="not JSON"):
        cli_params({"meters": "[{"})


def test_the_stub_process_takes_meters_on_the_command_line_and_the_control_endpoint(kit):
    meters = [{"name": "progressive", "seed_cents": 7_500, "increment_rate": "1/3", "reserve_rate": "2%"}]
    with kit.stub_process("progressive-system", "--param", f"meters={json.dumps(meters)}", "--param", "seats=5",
                          "--control", "tcp://127.0.0.1:0") as url:
        declared = asyncio.run(_declared(kit, url))
    assert declared == {"seats": 5, "meter_count": 1, "meter_seed_cents": [7_500, 0, 0, 0],
                        "meter_increment_num": [1, 0, 0, 0], "meter_increment_den": [3, 1, 1, 1]}


def test_the_control_endpoint_configures_meters_and_refuses_bad_ones(kit):
    from firmware_stubs.launch import launch

    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--control", "tcp://127.0.0.1:0") as stub:
        before = asyncio.run(_declared(kit, stub.url))
        effective = request(stub.control, {"op": "configure", "seed": {"entropy": 3, "spawn_key": [1]}, "params": {
            "meters": [{"name": "mega", "seed_cents": 200_000, "increment_rate": "14%"},
                       {"name": "minor", "seed_cents": 50_000, "increment_rate": "4%"}],
            "lost_increment_probability": 0.25}})
        after = asyncio.run(_declared(kit, stub.url))
        bad = request_refused(stub.control, {"op": "configure", "params": {
            "meters": [{"name": "mega", "seed_cents": 1, "increment_rate": 0.14}]}})
        still = asyncio.run(_declared(kit, stub.url))
    assert before["meter_count"] == 1 and before["meter_seed_cents"][0] == 1_000_000
    assert effective["params"]["lost_increment_probability"] == 0.25
    assert after == still == {"seats": 7, "meter_count": 2, "meter_seed_cents": [200_000, 50_000, 0, 0],
                              "meter_increment_num": [7, 1, 0, 0], "meter_increment_den": [50, 25, 1, 1]}
    assert "increment_rate" in bad


def request_refused(url: str, message: dict) -> str:
    from hil.adapters.stub_control import StubControlError

    with pytest.raises(StubControlError) as exc:
        request(url, message)
    return str(exc.value)


async def _declared(kit, url: str) -> dict:
    async with kit.connect(url, RMAP) as wire:
        return await wire.read("seats", "meter_count", "meter_seed_cents", "meter_increment_num", "meter_increment_den")
