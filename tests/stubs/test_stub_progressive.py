"""The progressive table game system's firmware stub: ProgressiveTableSim behind its register map —
the declaration is the model's meters, every answered press is in the press log (incrementing
nothing), the confirm command increments the confirmed ones and voids the rest (the wager log), the
pay command pays what the model pays, win lights, link and power losses show in the status, and
what the map cannot carry is refused (docs/wire/modbus-progressive-system.md)."""

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
from hil.wire.supervisor import key_words

RMAP = default_map("progressive-system")
#: the system's supervisor key (docs/wire/modbus-progressive-system.md): every keyed command carries it
KEY = bytes(range(1, 17))
SEED = 5
BLAZING = (MeterSpec("mega", 1_000_000, None, "14%", "1%"), MeterSpec("major", 500_000, None, "6%"),
           MeterSpec("minor", 250_000, 200_000, "4%"))
STATUS = ("press_count", "wager_count", "link_state", "link_lost_count", "link_restored_count", "link_lost_ns", "link_restored_ns",
          "power_loss_count", "power_loss_ns", "meter_value_cents", "link_restored_meter_cents", "pay_count")


def _glue(clock, **knobs) -> ProgressiveGlue:
    params = ProgressiveParams(**{"meters": BLAZING, **knobs})
    return ProgressiveGlue(clock, params, np.random.default_rng(SEED), RMAP, supervisor_key=KEY)


async def _write(wire, first: str, values: dict) -> object:
    """One FC16 request of consecutive points from ``first`` (the press injection, the pay command)."""
    words: list[int] = []
    for p in sorted((RMAP.point(n) for n in values), key=lambda p: p.address):
        words += RMAP.encode(p, values[p.name])
    assert RMAP.point(first).address == min(RMAP.point(n).address for n in values)
    return await wire.client.write_registers(RMAP.point(first).address, words, device_id=1)


async def _open(wire, seq: int = 1, key: bytes = KEY):
    """The dealer's next round: one FC16 request of round_open_seq and round_open_key."""
    rr = await _write(wire, "round_open_seq", {"round_open_seq": seq, "round_open_key": key_words(key)})
    assert not rr.isError(), rr
    return rr


async def _press(wire, seat: int, stake_cents: int, seq: int) -> None:
    rr = await _write(wire, "press_inject_seat", {"press_inject_seat": seat, "press_inject_spot": "progressive",
                                                  "press_inject_stake_cents": stake_cents, "press_inject_seq": seq})
    assert not rr.isError(), rr


async def _confirm(wire, press_ids, seq: int, final: bool = True):
    """The dealer's confirmation: one FC16 request of holding 55..125, with the supervisor key."""
    size = RMAP.point("confirm_press_ids").count
    return await _write(wire, "confirm_count", {
        "confirm_count": len(press_ids), "confirm_press_ids": [*press_ids, *[0] * (size - len(press_ids))],
        "confirm_final": "final" if final else "more", "confirm_seq": seq, "confirm_key": key_words(KEY)})


def _wager_entries(log: dict, count: int) -> list[dict]:
    """The wager log's entries 1..count (a ring: those still held), oldest first."""
    size = RMAP.point("wager_log_id").count
    out = []
    for entry in range(max(1, count - size + 1), count + 1):
        i = (entry - 1) % size
        out.append({k.removeprefix("wager_log_"): v[i] for k, v in log.items()})
    return out


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
                                   "meter_reserve_den", "linked", "link_id", "meter_reseed_source")

    d = asyncio.run(go())
    assert d["seats"] == 6 and d["meter_count"] == 3
    assert [words_ascii(d["meter_names"][8 * i:8 * i + 8]) for i in range(4)] == ["mega", "major", "minor", ""]
    assert d["meter_seed_cents"] == [1_000_000, 500_000, 250_000, 0]
    assert d["meter_reseed_cents"] == [1_000_000, 500_000, 200_000, 0]
    assert list(zip(d["meter_increment_num"], d["meter_increment_den"])) == [(7, 50), (3, 50), (1, 25), (0, 1)]
    assert list(zip(d["meter_reserve_num"], d["meter_reserve_den"])) == [(1, 100), (0, 1), (0, 1), (0, 1)]
    assert d["linked"] == "linked" and words_ascii(d["link_id"]) == "bank-7"
    assert d["meter_reseed_source"] == ["fixed"] * 4
    unseeded = ProgressiveGlue(clock, ProgressiveParams(meters=(MeterSpec("progressive", 0, None, "16%", "4%", True),)),
                               np.random.default_rng(0), RMAP)
    assert unseeded._values["meter_reseed_source"] == ["reserve", "fixed", "fixed", "fixed"]


def test_every_press_is_logged_and_increments_nothing(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)
    log_names = [p.name for p in RMAP.points if p.name.startswith("press_log_")]

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _press(wire, 1, 100, 1)  # betting not open: rejected
            await _open(wire)
            for seq, (seat, stake) in enumerate([(2, 125), (3, 125), (9, 125)], start=2):
                await _press(wire, seat, stake, seq)
            status, _ = await wire.poll_until(lambda v: v["press_count"] == 4, *STATUS)
            return status, await wire.read(*log_names)

    status, log = asyncio.run(go())
    presses = tap.of("press")
    assert [(p["seat"], p["accepted"], p["reason"]) for p in presses] == [
        (1, False, "betting_closed"), (2, True, None), (3, True, None), (9, False, "invalid_seat")]
    for p in presses:
        e = _log_entry(log, p["press_id"])
        assert (e["id"], e["seat"], e["spot"], e["stake_cents"]) == (p["press_id"], p["seat"], "progressive",
                                                                      p["stake_cents"])
        assert e["status"] == ("accepted" if p["accepted"] else "rejected") and e["reason"] == (p["reason"] or "none")
        assert (e["press_ns"], e["answer_ns"]) == (clock.ns(p["device_time_s"]), clock.ns(p["answer_time_s"]))
    assert not tap.of("meter_increment") and status["wager_count"] == 0  # pending: nothing confirmed yet
    assert status["meter_value_cents"] == [1_000_000, 500_000, 250_000, 0]
    assert status["link_state"] == "up"


def test_the_confirm_command_increments_the_confirmed_voids_the_rest_and_logs_each(clock, kit):
    """Presses 1..4 accepted; the dealer confirms 1 and 3 in a held batch and 4, 9 (never pressed) and
    1 again in the final one: 1, 3, 4 increment (the wager log, in the model's order, at the
    confirmation's time), 9 and the second 1 are refused, 2 is void; a count above the array's is
    refused and changes nothing."""
    glue = _glue(clock)
    tap = kit.Tap(glue)
    log_names = [p.name for p in RMAP.points if p.name.startswith("wager_log_")]

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _open(wire)
            for seq, seat in enumerate((1, 2, 3, 4), start=1):
                await _press(wire, seat, 125, seq)
            await wire.poll_until(lambda v: v["press_count"] == 4, "press_count")
            bad = await _write(wire, "confirm_count", {"confirm_count": 31, "confirm_press_ids": [1] * 30,
                                                       "confirm_final": "final", "confirm_seq": 1,
                                                       "confirm_key": key_words(KEY)})
            held = await _confirm(wire, [1, 3], 2, final=False)
            mid = await wire.read("wager_count", "meter_value_cents")
            assert not (await _confirm(wire, [4, 9, 1], 3)).isError()
            status, _ = await wire.poll_until(lambda v: v["wager_count"] == 6, *STATUS)
            return bad, held, mid, status, await wire.read(*log_names)

    bad, held, mid, status, log = asyncio.run(go())
    assert bad.isError() and bad.exception_code == ExcCodes.ILLEGAL_VALUE
    assert not held.isError() and mid == {"wager_count": 0, "meter_value_cents": [1_000_000, 500_000, 250_000, 0]}
    incs, voids, refused = tap.of("meter_increment"), tap.of("press_void"), tap.of("confirm_refused")
    assert [i["press_id"] for i in incs if i["meter"] == "mega"] == [1, 3, 4]
    assert [v["press_id"] for v in voids] == [2] and [r["press_id"] for r in refused] == [9, 1]
    entries = _wager_entries(log, status["wager_count"])
    assert [(e["id"], e["press_id"], e["outcome"], e["reason"]) for e in entries] == [
        (1, 1, "confirmed", "none"), (2, 3, "confirmed", "none"), (3, 4, "confirmed", "none"),
        (4, 9, "refused", "none"), (5, 1, "refused", "none"), (6, 2, "void", "not_confirmed")]
    t = clock.ns(incs[0]["device_time_s"])
    assert all(e["ns"] == t for e in entries)
    for e in entries[:3]:
        mine = [i for i in incs if i["press_id"] == e["press_id"]]
        assert e["increment_mask"] == 0b111
        for k, inc in enumerate(mine, start=1):
            assert (e[f"meter{k}_increment_cents"], e[f"meter{k}_value_cents"]) == (inc["amount_cents"],
                                                                                      inc["value_cents"])
    assert all(e["increment_mask"] == 0 for e in entries[3:])
    assert [i["amount_cents"] for i in incs if i["meter"] == "mega"] == [17, 18, 17]  # 17.5 cents each, carried
    assert status["meter_value_cents"] == [1_000_052, 500_022, 250_015, 0]


def test_a_new_round_voids_the_unconfirmed_presses_and_a_lost_increment_has_no_bit(clock, kit):
    glue = _glue(clock, lost_increment_probability=1.0)
    tap = kit.Tap(glue)
    log_names = [p.name for p in RMAP.points if p.name.startswith("wager_log_")]

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _open(wire)
            await _press(wire, 1, 500, 1)
            await _press(wire, 2, 500, 2)
            await wire.poll_until(lambda v: v["press_count"] == 2, "press_count")
            await _confirm(wire, [1], 1, final=False)  # held, never finished
            await _open(wire, 2)  # the next round: the held batch is discarded
            await _press(wire, 3, 500, 3)
            await wire.poll_until(lambda v: v["press_count"] == 3, "press_count")
            await _confirm(wire, [3], 2)
            status, _ = await wire.poll_until(lambda v: v["wager_count"] == 3, *STATUS)
            return status, await wire.read(*log_names)

    status, log = asyncio.run(go())
    entries = _wager_entries(log, status["wager_count"])
    assert [(e["press_id"], e["outcome"], e["increment_mask"]) for e in entries] == [
        (1, "void", 0), (2, "void", 0), (3, "confirmed", 0)]
    assert [v["press_id"] for v in tap.of("press_void")] == [1, 2] and not tap.of("meter_increment")
    assert glue.model.lost_increments == [3] and status["meter_value_cents"][0] == 1_000_000


def test_the_pay_command_pays_what_the_model_pays_and_refusals_change_nothing(clock, kit):
    glue = _glue(clock)
    tap = kit.Tap(glue)
    result = [p.name for p in RMAP.points if p.name.startswith("pay_result_")]

    def pay(index, percent, winners, seq):
        return {"pay_meter": index, "pay_percent": percent, "pay_winners": winners, "pay_seq": seq,
                "pay_key": key_words(KEY)}

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            await _open(wire)
            await _press(wire, 1, 1_000, 1)
            await wire.poll_until(lambda v: v["press_count"] == 1, "press_count")
            await _confirm(wire, [1], 1)
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


async def _light(wire, seat: int, on: bool, seq: int):
    """The keyed win-light command: one FC16 request of holding 126..136."""
    return await _write(wire, "win_light_seat", {"win_light_seat": seat, "win_light_on": int(on),
                                                 "win_light_seq": seq, "win_light_key": key_words(KEY)})


def test_win_lights_are_lit_by_the_keyed_command_and_stamped_when_they_change(clock, kit):
    glue = _glue(clock, seats=7)
    tap = kit.Tap(glue)

    async def go():
        async with kit.serve(RMAP, glue, clock) as wire:
            assert not (await _light(wire, 3, True, 1)).isError()
            first = await wire.read("win_light", "win_light_ns")
            await _light(wire, 3, True, 2)  # already lit: nothing changes
            again = await wire.read("win_light_ns")
            beyond = await _light(wire, 8, True, 3)  # seat 8 of a 7-seat table
            coil = await _coil(wire, "win_light", True, offset=3)  # the coils are read-only
            await _light(wire, 3, False, 4)
            return first, again, beyond, coil, await wire.read("win_light", "win_light_ns")

    first, again, beyond, coil, out = asyncio.run(go())
    assert coil.isError() and coil.exception_code == ExcCodes.ILLEGAL_ADDRESS
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
            await _open(wire)
            await _press(wire, 1, 500, 1)
            await wire.poll_until(lambda v: v["press_count"] == 1, "press_count")
            await _confirm(wire, [1], 1)
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
