"""Issue 13, "Exposure": what a Modbus client without the supervisor key could do to the stubs,
refused (docs/wire/modbus-wagering.md, "The supervisor key"; docs/wire/modbus-progressive-system.md).

Each attack the issue measured is replayed by a client that does not know the key: a press of
4,294,967,295 ¢ and its confirmation, ``betting_open`` = 1 after the lock-out, a 100 % payout, every
win light. Each is refused with an exception, the meters and lights read back unchanged, and the
refusal is logged with the client's address; with the key, the same commands work."""

from __future__ import annotations

import asyncio
import re
import time

import numpy as np
import pytest
from pymodbus.constants import ExcCodes

from devices.progressive import ProgressiveParams
from devices.supervisor import LOCK_AFTER
from devices.wagering import DEFAULT_MAX_STAKE_CENTS, WageringParams
from firmware_stubs.launch import launch
from firmware_stubs.progressive import ProgressiveGlue
from firmware_stubs.wagering import WageringGlue
from hil.transport.serial import SerialLink
from hil.wire.registers import default_map
from hil.wire.supervisor import key_fields, key_words, split_key

PMAP, WMAP = default_map("progressive-system"), default_map("wagering")
KEY = bytes.fromhex("00112233445566778899aabbccddeeff")
WRONG = bytes(16)  # what a client that does not know the key writes (or any other 16 bytes)
HUGE = 2**32 - 1  # the stake: 4,294,967,295 ¢
SEED_CENTS = 1_000_000  # the default meter's seed (devices.progressive.DEFAULT_METERS)


async def _write(wire, values: dict):
    """One FC16 request of ``values`` (contiguous points, in address order)."""
    points = sorted((wire.map.point(n) for n in values), key=lambda p: p.address)
    words: list[int] = []
    for p in points:
        words += wire.map.encode(p, values[p.name])
    return await wire.client.write_registers(points[0].address, words, device_id=1)


async def _keyed(wire, seq_point: str, key_point: str, values: dict, key: bytes, seq: int):
    return await _write(wire, {**values, seq_point: seq, key_point: key_words(key)})


async def _open(wire, key: bytes, seq: int):
    return await _keyed(wire, "round_open_seq", "round_open_key", {}, key, seq)


async def _inject(wire, seat: int, stake: int, seq: int, spot: str = "progressive"):
    return await _write(wire, {"press_inject_seat": seat, "press_inject_spot": spot,
                               "press_inject_stake_cents": stake, "press_inject_seq": seq})


async def _confirm(wire, ids: list[int], key: bytes, seq: int):
    size = wire.map.point("confirm_press_ids").count
    return await _keyed(wire, "confirm_seq", "confirm_key", {
        "confirm_count": len(ids), "confirm_press_ids": [*ids, *[0] * (size - len(ids))],
        "confirm_final": "final"}, key, seq)


async def _pay(wire, key: bytes, seq: int, percent: int = 100):
    return await _keyed(wire, "pay_seq", "pay_key", {"pay_meter": 0, "pay_percent": percent, "pay_winners": 1},
                        key, seq)


def _code(rr) -> int | None:
    return rr.exception_code if rr.isError() else None


def _refusal_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("SUPERVISOR ")]


def _progressive(clock) -> ProgressiveGlue:
    return ProgressiveGlue(clock, ProgressiveParams(), np.random.default_rng(3), PMAP, supervisor_key=KEY)


def test_the_four_attacks_are_refused_and_the_meter_is_unchanged(clock, kit, capsys):
    """The issue's four attacks by a client without the key (its own connection, its own address),
    while the dealer (with the key) runs a round: every one refused, nothing moved; the dealer's
    own confirm and pay work."""
    glue = _progressive(clock)

    async def go():
        async with kit.serve(PMAP, glue, clock) as dealer:
            async with kit.connect(f"tcp://127.0.0.1:{dealer.client.comm_params.port}", PMAP) as stranger:
                out = {"meter0": (await stranger.read("meter_value_cents"))["meter_value_cents"][0]}
                assert _code(await _open(dealer, KEY, 1)) is None
                # 1. a press of 4,294,967,295 cents, and its confirmation
                out["huge_press"] = _code(await _inject(stranger, 1, HUGE, 1))
                out["press_count"] = (await stranger.read("press_count"))["press_count"]
                assert _code(await _inject(stranger, 2, 100, 2)) is None  # a stake in the limits: a press
                await stranger.poll_until(lambda v: v["press_count"] == 1, "press_count")
                out["stranger_confirm"] = _code(await _confirm(stranger, [1], WRONG, 1))
                out["meter_after_confirm"] = (await stranger.read("meter_value_cents"))["meter_value_cents"][0]
                # 2. betting_open = 1 after the dealer's lock-out, then a press
                assert not (await dealer.client.write_coil(PMAP.point("lockout").address, True, device_id=1)).isError()
                await asyncio.sleep(0.05)  # the lock-out takes effect (5 ms of model time)
                out["reopen_coil"] = _code(await stranger.client.write_coil(PMAP.point("betting_open").address, True,
                                                                              device_id=1))
                out["reopen_key"] = _code(await _open(stranger, WRONG, 2))
                out["state"] = await stranger.read("lockout", "betting_open")
                assert _code(await _inject(stranger, 3, 100, 3)) is None
                log, _ = await stranger.poll_until(lambda v: v["press_count"] == 2, "press_count", "press_log_status",
                                                   "press_log_reason")
                out["late_press"] = (log["press_log_status"][1], log["press_log_reason"][1])
                # 3. pay 100 % of the meter
                out["stranger_pay"] = _code(await _pay(stranger, WRONG, 1))
                # 4. every win light: the coils, and the command for each seat
                lights = PMAP.point("win_light")
                out["light_coils"] = _code(await stranger.client.write_coils(lights.address, [True] * lights.count,
                                                                               device_id=1))
                out["light_cmds"] = [_code(await _keyed(stranger, "win_light_seq", "win_light_key",
                                                        {"win_light_seat": s, "win_light_on": 1}, WRONG, s))
                                     for s in range(1, 8)]
                await asyncio.sleep(0.02)
                out["after"] = await stranger.read("meter_value_cents", "pay_count", "wager_count", "win_light",
                                                   "supervisor_refusals")
                # the dealer, with the key: the round's confirmation and a payout work
                out["dealer_confirm"] = _code(await _confirm(dealer, [1], KEY, 2))
                out["dealer_pay"] = _code(await _pay(dealer, KEY, 2))
                done, _ = await dealer.poll_until(lambda v: v["pay_count"] == 1, "pay_count", "pay_result_jackpot_cents",
                                                  "pay_result_paid_cents", "wager_count")
                out["paid"] = done
                return out

    out = asyncio.run(go())
    err = capsys.readouterr().err
    fn, val = ExcCodes.ILLEGAL_FUNCTION, ExcCodes.ILLEGAL_VALUE
    assert out["meter0"] == SEED_CENTS
    assert out["huge_press"] == val and out["press_count"] == 0  # refused: never pressed, never a meter
    assert out["stranger_confirm"] == fn and out["meter_after_confirm"] == SEED_CENTS
    assert out["reopen_coil"] == ExcCodes.ILLEGAL_ADDRESS and out["reopen_key"] == fn
    assert out["state"] == {"lockout": True, "betting_open": False}
    assert out["late_press"] == ("rejected", "locked_out")
    assert out["stranger_pay"] == fn
    # the stranger's 5th wrong key in a row (confirm, round_open, pay, 2 lights) locks its connection
    assert out["light_coils"] == ExcCodes.ILLEGAL_ADDRESS
    assert out["light_cmds"] == [fn] * (LOCK_AFTER - 3) + [ExcCodes.DEVICE_BUSY] * (10 - LOCK_AFTER)
    after = out["after"]
    assert after["meter_value_cents"][0] == SEED_CENTS and after["pay_count"] == 0 and after["wager_count"] == 0
    assert after["win_light"] == [False] * 8 and not any(glue.model.lights)
    assert after["supervisor_refusals"] == 1 + 1 + 1 + 7  # confirm, round_open, pay, 7 lights (key refusals)
    # with the key, on the dealer's own connection (the stranger's lock is its own): the press confirmed (+20 % of 100 cents), then paid in full
    assert out["dealer_confirm"] is None and out["dealer_pay"] is None
    assert out["paid"]["pay_result_jackpot_cents"] == SEED_CENTS + 20 == out["paid"]["pay_result_paid_cents"]
    # logged with the stranger's address (rate-limited: the first at once, the rest summed later)
    lines = _refusal_lines(err)
    assert lines and re.match(r"SUPERVISOR progressive-system: refused confirm from 127\.0\.0\.1:\d+: wrong key",
                              lines[0]), err
    assert len(lines) < 5, lines


def test_a_flood_of_wrong_keys_locks_the_key_and_logs_a_few_lines(clock, kit, capsys):
    """Wrong keys lock the client's connection after LOCK_AFTER in a row (the right key too is then
    DEVICE_BUSY on it, nothing changes); 200 wrong keys cost at most a line or two on stderr."""
    glue = _progressive(clock)

    async def go():
        async with kit.serve(PMAP, glue, clock) as wire:
            codes = [_code(await _pay(wire, bytes([i % 250 + 1]) * 16, i + 1)) for i in range(200)]
            right = _code(await _pay(wire, KEY, 999))
            return codes, right, await wire.read("meter_value_cents", "pay_count", "supervisor_refusals")

    codes, right, after = asyncio.run(go())
    assert codes[:LOCK_AFTER] == [ExcCodes.ILLEGAL_FUNCTION] * LOCK_AFTER
    assert set(codes[LOCK_AFTER:]) == {ExcCodes.DEVICE_BUSY}  # locked: 30 s of device time
    assert right == ExcCodes.DEVICE_BUSY
    assert after["meter_value_cents"][0] == SEED_CENTS and after["pay_count"] == 0
    assert after["supervisor_refusals"] == 201
    assert 1 <= len(_refusal_lines(capsys.readouterr().err)) <= 3


def test_the_key_is_never_kept_and_a_key_alone_opens_nothing(clock, kit):
    """The key registers read 0 after a keyed command; a key written in one request and the
    command's seq in the next is a command without the key (refused)."""
    glue = WageringGlue(clock, WageringParams(), np.random.default_rng(1), WMAP, supervisor_key=KEY)

    async def go():
        async with kit.serve(WMAP, glue, clock) as wire:
            assert _code(await _open(wire, KEY, 1)) is None
            kept = (await wire.read("round_open_key"))["round_open_key"]
            await wire.client.write_coil(WMAP.point("lockout").address, True, device_id=1)
            assert not (await _write(wire, {"round_open_key": key_words(KEY)})).isError()
            split = _code(await _write(wire, {"round_open_seq": 2}))
            return kept, split, await wire.read("lockout", "betting_open", "stake_min_cents", "stake_max_cents")

    kept, split, state = asyncio.run(go())
    assert kept == [0] * 8
    assert split == ExcCodes.ILLEGAL_FUNCTION and state["lockout"] and not state["betting_open"]
    assert (state["stake_min_cents"], state["stake_max_cents"]) == (1, DEFAULT_MAX_STAKE_CENTS)


@pytest.mark.parametrize("stake", [0, DEFAULT_MAX_STAKE_CENTS + 1, HUGE])
def test_the_wagering_stub_refuses_a_stake_outside_the_limits(clock, kit, stake):
    glue = WageringGlue(clock, WageringParams(), np.random.default_rng(1), WMAP, supervisor_key=KEY)

    async def go():
        async with kit.serve(WMAP, glue, clock) as wire:
            await _open(wire, KEY, 1)
            press = _code(await _inject(wire, 1, stake, 1, spot="5"))
            size = WMAP.point("probe_offsets_us").count
            probe = _code(await _write(wire, {"probe_seat": 1, "probe_spot": "5", "probe_stake_cents": stake,
                                              "probe_count": 1, "probe_offsets_us": [0] * size, "probe_arm_seq": 1}))
            ok = _code(await _inject(wire, 1, DEFAULT_MAX_STAKE_CENTS, 2, spot="5"))
            v, _ = await wire.poll_until(lambda v: v["press_count"] == 1, "press_count", "press_log_stake_cents")
            return press, probe, ok, v

    press, probe, ok, v = asyncio.run(go())
    assert press == probe == ExcCodes.ILLEGAL_VALUE and ok is None
    assert v["press_count"] == 1 and v["press_log_stake_cents"][0] == DEFAULT_MAX_STAKE_CENTS


def test_the_stub_process_prints_its_key_and_takes_one():
    """READY names the key in the device URL's query (drawn, or ``--supervisor-key``); a stranger
    over the process's real socket is refused, the URL's key is obeyed."""
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--supervisor-key", KEY.hex()) as stub:
        url, key = split_key(stub.url)
        assert key == KEY and url.startswith("tcp://127.0.0.1:")
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0") as a, launch("wagering", "--modbus", "tcp://127.0.0.1:0") as b:
        ka, kb = split_key(a.url)[1], split_key(b.url)[1]
        assert ka and kb and ka != kb  # drawn per stub
    with pytest.raises(Exception, match="supervisor key"):
        with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--supervisor-key", "00" * 16):
            pass


def _frames_until(frames: list, pred, limit_s: float = 5.0):
    deadline = time.monotonic() + limit_s
    while True:
        if (hit := next((f for f in frames if pred(f)), None)) is not None:
            return hit
        assert time.monotonic() < deadline, [f.msg_type for f in frames]
        time.sleep(0.005)


def test_the_serial_wagering_stub_refuses_a_wrong_key_and_a_huge_stake():
    """Over the serial frames: after LOCK_OUT an OPEN_BETTING without the key is ACKed ``refused``
    (no BETTING_OPEN) and the next PRESS is ``locked_out``; a PRESS of 4,294,967,295 ¢ is ACKed
    ``bad_args`` and answered by no PRESS_ANSWER; WAGERING_INFO declares the limits."""
    with launch("wagering", "--pty", "--supervisor-key", KEY.hex()) as stub:
        path, key = split_key(stub.url)
        assert key == KEY
        frames: list = []
        link = SerialLink(path, on_frame=frames.append, name="test")
        link.open()
        try:
            def send(msg, **fields):
                seq, _ = link.send(msg, **fields)
                return _frames_until(frames, lambda f: f.msg_type == "ACK" and f.fields["acked_seq"] == seq)

            send("HELLO", device_kind="host", protocol_version=1, clock_ns=time.perf_counter_ns())
            info = _frames_until(frames, lambda f: f.msg_type == "WAGERING_INFO")
            assert send("OPEN_BETTING", **key_fields(KEY)).fields["status"] == "ok"
            assert send("LOCK_OUT").fields["status"] == "ok"
            time.sleep(0.05)
            n = len(frames)
            refused = send("OPEN_BETTING", **key_fields(WRONG)).fields["status"]
            huge = send("PRESS", seat=1, spot="5", stake_cents=HUGE).fields["status"]
            assert send("PRESS", seat=1, spot="5", stake_cents=100).fields["status"] == "ok"
            late = _frames_until(frames, lambda f: f.msg_type == "PRESS_ANSWER")
            time.sleep(0.05)
            after = frames[n:]
        finally:
            link.close()
    assert (info.fields["min_stake_cents"], info.fields["max_stake_cents"]) == (1, DEFAULT_MAX_STAKE_CENTS)
    assert refused == "refused" and huge == "bad_args"
    assert not any(f.msg_type == "BETTING_OPEN" for f in after)
    answers = [f for f in after if f.msg_type == "PRESS_ANSWER"]
    assert [a.fields["stake_cents"] for a in answers] == [100]
    assert not late.fields["accepted"] and late.fields["reason"] == "locked_out"
