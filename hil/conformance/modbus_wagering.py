"""Clauses of the wagering device and the progressive table game system over Modbus
(docs/wire/modbus-wagering.md, docs/wire/modbus-progressive-system.md).

The lock-out and the press log are judged on every device. Presses need the optional
``injection`` feature (``press_inject_*``, the armed probe ``probe_*``): on a device without it
the press clauses and the lock-out latency are skipped, saying so — a black-box device is pressed
through the bench's actuator (docs/wire/actuator.md) by ``croupier run``, not by this kit.

Rounds open by the keyed ``round_open`` command: the kit takes the supervisor key from the device
URL's ``?supervisor_key=`` (docs/wire/modbus-wagering.md, "The supervisor key") and judges that a
wrong key is refused with nothing changed, that a locked round cannot be re-opened by a write to
``betting_open``, that a stake outside the declared limits is refused, and on the progressive
system that pay, confirm and the win lights refuse a wrong key. It sends at most one wrong key in a
row (the right one follows), so the key never locks (5 wrong keys in a row would lock it 30 s).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from hil.conformance.core import Clause, ClauseFailed, ClauseSkipped, expect
from hil.conformance.modbus import POLL_S, DeviceRefused, ModbusContext
from hil.conformance.modbus_common import common_clauses
from hil.wire.registers import INJECTION, STAKE_LIMITS, words_ascii
from hil.wire.supervisor import QUERY, WRONG_KEY_EXCEPTION, key_words, split_key

#: the lock-out budget the checks judge by default (``lockout_budget_s``): the device stops
#: recognising wagers within this of the lock-out command reaching it
LOCKOUT_BUDGET_S = 0.010
#: the armed probe's press offsets after the lock-out (device clock), µs: 1 ms steps to the budget
PROBE_OFFSETS_US = (0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 12000, 15000, 20000, 30000,
                    50000)
#: the conformance presses carry this stake (an odd one, to tell them from a player's)
STAKE_CENTS = 137
ANSWER_LIMIT_S = 2.0


def _spot(ctx: ModbusContext) -> str:
    return "progressive" if ctx.map.device == "progressive-system" else "1"


def _need_injection(ctx: ModbusContext) -> None:
    if INJECTION not in ctx.map.features:
        raise ClauseSkipped("the map has no injection feature (press_inject_*, probe_*): presses and the lock-out "
                            "latency are measured through the bench's actuator by croupier run (docs/wire/actuator.md)")


@dataclass(frozen=True)
class Entry:
    press_id: int
    seat: int
    spot: str
    stake_cents: int
    status: str
    reason: str
    press_ns: int
    answer_ns: int


async def _log(ctx: ModbusContext) -> dict[int, Entry]:
    names = [p.name for p in ctx.map.points if p.name.startswith("press_log_")]
    v = (await ctx.read_points(names)).values
    out = {}
    for i, pid in enumerate(v["press_log_id"]):
        if pid:
            out[int(pid)] = Entry(int(pid), int(v["press_log_seat"][i]), str(v["press_log_spot"][i]),
                                  int(v["press_log_stake_cents"][i]), str(v["press_log_status"][i]),
                                  str(v["press_log_reason"][i]), int(v["press_log_press_ns"][i]),
                                  int(v["press_log_answer_ns"][i]))
    return out


async def _answers(ctx: ModbusContext, count_before: int, n: int, seat: int) -> list[Entry]:
    """The ``n`` press-log entries of ``seat`` with the kit's stake answered after ``count_before``."""
    deadline = asyncio.get_running_loop().time() + ANSWER_LIMIT_S
    while True:
        count = int(await ctx.read("press_count"))
        mine = []
        if count > count_before:
            log = await _log(ctx)
            mine = [e for pid, e in sorted(log.items()) if pid > count_before and e.seat == seat
                    and e.stake_cents == STAKE_CENTS]
            if len(mine) >= n:
                return mine
        if asyncio.get_running_loop().time() > deadline:
            raise ClauseFailed(f"{len(mine)} of {n} press answer(s) in the press log within {ANSWER_LIMIT_S} s "
                               f"(press_count {count_before} -> {count})")
        await asyncio.sleep(POLL_S)


def _key(ctx: ModbusContext) -> bytes:
    key = split_key(ctx.url)[1]
    if key is None:
        raise ClauseFailed(f"the device URL carries no ?{QUERY}=<32 hex digits>: the kit cannot open a round "
                           "(docs/wire/modbus-wagering.md, \"The supervisor key\")")
    return key


def _wrong(key: bytes) -> bytes:
    """A key that is not the device's (the last byte flipped)."""
    return key[:-1] + bytes([key[-1] ^ 0x5A])


async def _keyed(ctx: ModbusContext, seq_point: str, key_point: str, values: dict, key: bytes) -> int | None:
    """One keyed command with a new ``seq_point`` and ``key``: None when answered, else the exception code."""
    seq = (int(await ctx.read(seq_point)) + 1) & 0xFFFF or 1
    try:
        await ctx.write_points({**values, seq_point: seq, key_point: key_words(key)})
    except DeviceRefused as exc:
        return exc.code
    return None


async def _open(ctx: ModbusContext) -> None:
    if (code := await _keyed(ctx, "round_open_seq", "round_open_key", {}, _key(ctx))) is not None:
        raise ClauseFailed(f"round_open with the URL's supervisor key refused: exception {code}")


async def _lock(ctx: ModbusContext) -> tuple[int, int]:
    try:
        return await ctx.write_points({"lockout": True})
    except DeviceRefused as exc:
        raise ClauseFailed(f"lockout = 1 refused: {exc}") from None


async def declaration(ctx: ModbusContext) -> str:
    seats = int(await ctx.read("seats"))
    expect(seats >= 1, f"seats {seats}: at least one seat has a wagering device")
    if ctx.map.has("win_light"):
        expect(seats <= ctx.map.point("win_light").count, f"seats {seats}, but {ctx.map.point('win_light').count} "
                                                          "win lights")
    if ctx.map.device != "progressive-system":
        return f"{seats} seats"
    v = (await ctx.read_points(["meter_count", "meter_names", "meter_increment_den", "meter_reserve_den"])).values
    n = int(v["meter_count"])
    limit = ctx.map.point("meter_value_cents").count
    expect(1 <= n <= limit, f"meter_count {n} outside 1..{limit}")
    per = ctx.map.point("meter_names").count // limit
    try:
        names = [words_ascii(v["meter_names"][i * per:(i + 1) * per]) for i in range(n)]
    except ValueError as exc:
        raise ClauseFailed(f"meter_names: {exc}") from None
    expect(all(names) and len(set(names)) == n, f"meter names {names}: each meter needs its own name")
    dens = [int(d) for d in (*v["meter_increment_den"][:n], *v["meter_reserve_den"][:n])]
    expect(all(d >= 1 for d in dens), f"rate denominators {dens}: each must be >= 1")
    return f"{seats} seats, meters {', '.join(names)}"


async def betting_open(ctx: ModbusContext) -> str:
    await _open(ctx)
    v = (await ctx.read_points(_state_points(ctx))).values
    expect(v.get("betting_open", True) and not v["lockout"], f"after round_open: {v} (expected betting_open 1, "
                                                             "lockout 0)")
    return "round_open with the key: " + ", ".join(f"{k} reads {int(x)}" for k, x in v.items())


def _state_points(ctx: ModbusContext) -> list[str]:
    """``lockout`` and, where the map keeps it, the read-only ``betting_open``."""
    return ["betting_open", "lockout"] if ctx.map.has("betting_open") else ["lockout"]


async def _refusals(ctx: ModbusContext) -> int | None:
    return int(await ctx.read("supervisor_refusals")) if ctx.map.has("supervisor_refusals") else None


async def reopen_refused(ctx: ModbusContext) -> str:
    """A locked round is not re-opened: after the lock-out, a write of 1 to ``betting_open`` and a
    ``round_open`` with a wrong key are refused with an exception, the lock-out stays, and (with
    injection) the next press is rejected ``locked_out``; the right key then opens the next round."""
    key = _key(ctx)
    await _open(ctx)
    await _lock(ctx)
    await asyncio.sleep(LOCKOUT_BUDGET_S * 5)
    bo = ctx.map.point("betting_open") if ctx.map.has("betting_open") else None
    coil = await ctx.request_write(bo.table, bo.address, [True]) if bo else -1
    n0 = await _refusals(ctx)
    wrong = await _keyed(ctx, "round_open_seq", "round_open_key", {}, _wrong(key))
    v = (await ctx.read_points(_state_points(ctx))).values
    expect(coil is not None, "a write of 1 to betting_open after the lock-out was answered (it must be refused)")
    expect(wrong == WRONG_KEY_EXCEPTION, f"round_open with a wrong key: {'answered' if wrong is None else f'exception {wrong}'}; "
                                         f"expected exception {WRONG_KEY_EXCEPTION} (ILLEGAL_FUNCTION)")
    expect(v["lockout"] and not v.get("betting_open", False), f"after the refused re-opens: lockout {v['lockout']}, betting_open "
                                                   f"{v['betting_open']} (expected 1, 0: nothing changed)")
    n1 = await _refusals(ctx)
    expect(n0 is None or (n1 - n0) & 0xFFFF == 1, f"supervisor_refusals moved {n0} -> {n1} for one wrong key")
    late = ""
    if INJECTION in ctx.map.features:
        before = int(await ctx.read("press_count"))
        await _inject(ctx, 3)
        (e,) = (await _answers(ctx, before, 1, 3))[:1]
        expect(e.status == "rejected" and e.reason == "locked_out",
               f"the press after the refused re-opens: {e.status} ({e.reason}); expected rejected (locked_out)")
        late = f"; the next press {e.press_id} rejected (locked_out)"
    await _open(ctx)  # the right key opens the next round (and resets the wrong-key count)
    return f"betting_open write: {'no such coil' if bo is None else f'exception {coil}'}; wrong key: exception {wrong}; lock-out kept{late}"


async def stake_limits(ctx: ModbusContext) -> str:
    """A press whose stake is outside the declared limits (``stake_max_cents`` + 1, 4,294,967,295 ¢)
    is refused with ILLEGAL_VALUE and presses nothing (``press_count`` unchanged)."""
    _need_injection(ctx)
    if STAKE_LIMITS not in ctx.map.features:
        raise ClauseSkipped("the map declares no stake limits (stake_min_cents, stake_max_cents)")
    lo, hi = int(await ctx.read("stake_min_cents")), int(await ctx.read("stake_max_cents"))
    expect(1 <= lo <= STAKE_CENTS <= hi, f"declared limits {lo}..{hi} cents (expected 1 <= min <= {STAKE_CENTS} <= max)")
    await _open(ctx)
    before = int(await ctx.read("press_count"))
    codes = []
    for stake in sorted({hi + 1, 2**32 - 1} - {2**32}) + ([lo - 1] if lo > 1 else []):
        seq = (int(await ctx.read("press_inject_seq")) + 1) & 0xFFFF
        try:
            await ctx.write_points({"press_inject_seat": 1, "press_inject_spot": _spot(ctx),
                                    "press_inject_stake_cents": stake, "press_inject_seq": seq})
            codes.append((stake, None))
        except DeviceRefused as exc:
            codes.append((stake, exc.code))
    await asyncio.sleep(0.05)
    after = int(await ctx.read("press_count"))
    expect(all(c == 3 for _, c in codes), "; ".join(f"stake {s}: {'answered' if c is None else f'exception {c}'}"
                                                   for s, c in codes) + " (expected exception 3, ILLEGAL_VALUE)")
    expect(after == before, f"press_count moved {before} -> {after}: a refused stake was pressed")
    return f"limits {lo}..{hi} cents; stakes {', '.join(str(s) for s, _ in codes)} refused (exception 3), none pressed"


async def meter_writes_need_the_key(ctx: ModbusContext) -> str:
    """The progressive system's pay, confirm and win-light commands with a wrong key are refused
    (exception 1) and change nothing: meters, pay_count, wager_count and the win lights read back
    the same."""
    key = _key(ctx)
    watched = ["meter_value_cents", "pay_count", "wager_count", "win_light"]
    before = (await ctx.read_points(watched)).values
    size = ctx.map.point("confirm_press_ids").count
    got = {}
    for command, seq, kp, values in (
            ("pay", "pay_seq", "pay_key", {"pay_meter": 0, "pay_percent": 100, "pay_winners": 1}),
            ("confirm", "confirm_seq", "confirm_key", {"confirm_count": 0, "confirm_press_ids": [0] * size,
                                                       "confirm_final": "final"}),
            ("win_light", "win_light_seq", "win_light_key", {"win_light_seat": 1, "win_light_on": 1})):
        got[command] = await _keyed(ctx, seq, kp, values, _wrong(key))
        # the right key resets the wrong-key count (a harmless command: opening betting)
        await _open(ctx)
    await asyncio.sleep(0.05)
    after = (await ctx.read_points(watched)).values
    bad = [f"{c}: {'answered' if code is None else f'exception {code}'}" for c, code in got.items()
           if code != WRONG_KEY_EXCEPTION]
    expect(not bad, "with a wrong key " + "; ".join(bad) + f" (expected exception {WRONG_KEY_EXCEPTION})")
    changed = [n for n in watched if after[n] != before[n]]
    expect(not changed, f"changed by refused commands: {', '.join(changed)}")
    return "pay, confirm, win_light with a wrong key: exception 1 each; meters, counts and lights unchanged"


async def lockout_latched(ctx: ModbusContext) -> str:
    """``lockout_command_ns`` is latched before the lock-out write is answered: the first read
    after the answer shows when the command reached the device."""
    if ctx.offset_ns is None:
        await ctx.map_clock()
    await _open(ctx)
    expect(int(await ctx.read("lockout_command_ns")) == 0, "lockout_command_ns is not 0 after betting opened")
    tx, rx = await _lock(ctx)
    poll = await ctx.read_points(["lockout_command_ns", "device_clock_ns"])
    at = int(poll.values["lockout_command_ns"])
    expect(at != 0, "lockout_command_ns is 0 in the first read after the lock-out write was answered")
    lo = ctx.device_at(tx) - ctx.offset_uncertainty_ns
    hi = ctx.device_at(rx) + ctx.offset_uncertainty_ns
    expect(lo <= at <= hi, f"lockout_command_ns {at} is outside the write's round trip [{lo:.0f}, {hi:.0f}] "
                           "(device clock)")
    expect(bool(await ctx.read("lockout")), "lockout reads 0 after the lock-out")
    return f"latched {(at - lo) / 1e3:.0f} µs after the write left (round trip {(rx - tx) / 1e3:.0f} µs)"


async def _inject(ctx: ModbusContext, seat: int) -> None:
    seq = (int(await ctx.read("press_inject_seq")) + 1) & 0xFFFF
    try:
        await ctx.write_points({"press_inject_seat": seat, "press_inject_spot": _spot(ctx),
                                "press_inject_stake_cents": STAKE_CENTS, "press_inject_seq": seq})
    except DeviceRefused as exc:
        raise ClauseFailed(f"the injected press was refused: {exc}") from None


def _entry_ok(e: Entry, seat: int, spot: str) -> list[str]:
    bad = []
    if (e.seat, e.spot, e.stake_cents) != (seat, spot, STAKE_CENTS):
        bad.append(f"press {e.press_id} logged as seat {e.seat}, {e.spot}, {e.stake_cents} cents; pressed seat "
                   f"{seat}, {spot}, {STAKE_CENTS} cents")
    if not 0 < e.press_ns <= e.answer_ns:
        bad.append(f"press {e.press_id}: press_ns {e.press_ns}, answer_ns {e.answer_ns} (expected 0 < press <= "
                   "answer)")
    if (e.status == "accepted") != (e.reason == "none"):
        bad.append(f"press {e.press_id}: status {e.status} with reason {e.reason}")
    return bad


async def press_log(ctx: ModbusContext) -> str:
    """An injected press while betting is open is accepted, one after the lock-out rejected
    (``locked_out``); each is in the press log at entry (id − 1) mod N, press_count counts it."""
    _need_injection(ctx)
    await _open(ctx)
    seat = 1
    before = int(await ctx.read("press_count"))
    await _inject(ctx, seat)
    (ok,) = (await _answers(ctx, before, 1, seat))[:1]
    await _lock(ctx)
    await asyncio.sleep(LOCKOUT_BUDGET_S * 5)
    mid = int(await ctx.read("press_count"))
    await _inject(ctx, seat)
    (late,) = (await _answers(ctx, mid, 1, seat))[:1]
    bad = _entry_ok(ok, seat, _spot(ctx)) + _entry_ok(late, seat, _spot(ctx))
    expect(not bad, "; ".join(bad))
    expect(ok.status == "accepted", f"a press while betting is open: {ok.status} ({ok.reason})")
    expect(late.status == "rejected" and late.reason == "locked_out",
           f"a press {LOCKOUT_BUDGET_S * 5e3:.0f} ms after the lock-out: {late.status} ({late.reason}); expected "
           "rejected (locked_out)")
    return f"press {ok.press_id} accepted, press {late.press_id} rejected (locked_out)"


async def lockout_latency(ctx: ModbusContext) -> str:
    """The armed probe presses at device-timed offsets after the lock-out: every press before the
    boundary accepted, every press after it rejected (``locked_out``), the boundary within the budget."""
    _need_injection(ctx)
    await _open(ctx)
    seat = 2
    size = ctx.map.point("probe_offsets_us").count
    offsets = list(PROBE_OFFSETS_US[:size])
    seq = (int(await ctx.read("probe_arm_seq")) + 1) & 0xFFFF
    before = int(await ctx.read("press_count"))
    try:
        await ctx.write_points({"probe_seat": seat, "probe_spot": _spot(ctx), "probe_stake_cents": STAKE_CENTS,
                                "probe_count": len(offsets), "probe_offsets_us": offsets + [0] * (size - len(offsets)),
                                "probe_arm_seq": seq})
    except DeviceRefused as exc:
        raise ClauseFailed(f"arming the probe was refused: {exc}") from None
    await _lock(ctx)
    lock_ns = int(await ctx.read("lockout_command_ns"))
    answers = await _answers(ctx, before, len(offsets), seat)
    got = sorted(((e.press_ns - lock_ns) / 1e3, e) for e in answers)
    accepted = [o for o, e in got if e.status == "accepted"]
    rejected = [o for o, e in got if e.status != "accepted"]
    reasons = {e.reason for _, e in got if e.status != "accepted"}
    expect(reasons <= {"locked_out"}, f"probe presses rejected for {sorted(reasons)}; expected locked_out")
    expect(not (accepted and rejected and max(accepted) > min(rejected)),
           f"accepted and rejected presses interleave: accepted up to {max(accepted or [0]):.0f} µs, rejected from "
           f"{min(rejected or [0]):.0f} µs after the lock-out")
    expect(rejected, f"every probe press up to {offsets[-1] / 1e3:.0f} ms after the lock-out was accepted: the "
                     "device does not lock out")
    lo, hi = (max(accepted) if accepted else 0.0), min(rejected)
    ctx.notes["lockout_latency_us"] = (lo, hi)
    expect(hi <= LOCKOUT_BUDGET_S * 1e6, f"wagers still recognised {lo / 1e3:.1f} ms after the lock-out (boundary in "
                                         f"({lo / 1e3:.1f}, {hi / 1e3:.1f}] ms; budget {LOCKOUT_BUDGET_S * 1e3:.0f} ms)")
    return f"lock-out effective in ({lo / 1e3:.1f}, {hi / 1e3:.1f}] ms (device clock; budget " \
           f"{LOCKOUT_BUDGET_S * 1e3:.0f} ms)"


async def _wager_entries(ctx: ModbusContext) -> dict[int, dict]:
    """press id -> its wager-log entry (the progressive system's ring), latest entry per press."""
    names = [p.name for p in ctx.map.points if p.name.startswith("wager_log_")]
    v = (await ctx.read_points(names)).values
    entries = sorted((int(e), i) for i, e in enumerate(v["wager_log_id"]) if e)
    out = {}
    for _entry, i in entries:
        out[int(v["wager_log_press_id"][i])] = {
            "outcome": str(v["wager_log_outcome"][i]), "reason": str(v["wager_log_reason"][i]),
            "mask": int(v["wager_log_increment_mask"][i]), "ns": int(v["wager_log_ns"][i]),
            "increment": int(v["wager_log_meter1_increment_cents"][i]), "value": int(v["wager_log_meter1_value_cents"][i])}
    return out


async def confirm(ctx: ModbusContext) -> str:
    """The progressive system's meters grow only at the confirmation: a press confirmed after the
    lock-out gets a ``confirmed`` entry and meter 1 grows by its increment, at once; a press not
    confirmed gets a ``void`` entry (``not_confirmed``) and grows nothing."""
    _need_injection(ctx)
    await _open(ctx)
    await asyncio.sleep(0.05)  # the previous round's pending presses are dropped at the opening
    before = int(await ctx.read("press_count"))
    await _inject(ctx, 1)
    await _inject(ctx, 2)
    got = {e.seat: e for e in await _answers(ctx, before, 1, 1)} | {e.seat: e for e in await _answers(ctx, before, 1, 2)}
    kept, dropped = got[1], got[2]
    expect(kept.status == dropped.status == "accepted", f"presses while betting is open: {kept.status}, {dropped.status}")
    await _lock(ctx)
    meter0 = int((await ctx.read("meter_value_cents"))[0])
    count0 = int(await ctx.read("wager_count"))
    seq = (int(await ctx.read("confirm_seq")) + 1) & 0xFFFF
    size = ctx.map.point("confirm_press_ids").count
    try:
        await ctx.write_points({"confirm_count": 1, "confirm_press_ids": [kept.press_id] + [0] * (size - 1),
                                "confirm_final": "final", "confirm_seq": seq, "confirm_key": key_words(_key(ctx))})
    except DeviceRefused as exc:
        raise ClauseFailed(f"the confirm command (with the URL's supervisor key) was refused: {exc}") from None
    deadline = asyncio.get_running_loop().time() + ANSWER_LIMIT_S
    while (int(await ctx.read("wager_count")) - count0) & 0xFFFF < 2:
        expect(asyncio.get_running_loop().time() < deadline,
               f"wager_count moved by {(int(await ctx.read('wager_count')) - count0) & 0xFFFF} within "
               f"{ANSWER_LIMIT_S} s of a final confirmation of 1 press with 1 other pending (expected 2 entries)")
        await asyncio.sleep(POLL_S)
    entries = await _wager_entries(ctx)
    meter1 = int((await ctx.read("meter_value_cents"))[0])
    k, d = entries.get(kept.press_id), entries.get(dropped.press_id)
    expect(k is not None and k["outcome"] == "confirmed" and k["mask"] & 1,
           f"the confirmed press {kept.press_id}: wager-log entry {k}; expected confirmed, meter 1 incremented")
    expect(d is not None and d["outcome"] == "void" and d["reason"] == "not_confirmed" and not d["mask"],
           f"the press not confirmed ({dropped.press_id}): wager-log entry {d}; expected void (not_confirmed)")
    expect(k["value"] == meter0 + k["increment"] and meter1 >= k["value"],
           f"meter 1 was {meter0} cents, the entry says +{k['increment']} to {k['value']}, the meter shows {meter1}")
    expect(k["increment"] > 0, f"a confirmed {STAKE_CENTS}-cent wager incremented meter 1 by {k['increment']} cents")
    return (f"press {kept.press_id} confirmed: meter 1 {meter0} -> {k['value']} cents (+{k['increment']}); "
            f"press {dropped.press_id} void (not_confirmed)")


def wagering_clauses(device: str) -> list[Clause]:
    page = "modbus-wagering.md" if device == "wagering" else "modbus-progressive-system.md"
    return [*common_clauses(page),
            Clause("WG-declaration", "seats (and the progressive system's meters) are declared sensibly",
                   f"{page}#input-registers", declaration),
            Clause("WG-betting-open", "round_open with the supervisor key opens betting and clears the lock-out",
                   "modbus-wagering.md#opening-a-round", betting_open),
            Clause("WG-lockout-latched", "lockout_command_ns is latched before the lock-out write is answered",
                   f"{page}#coils", lockout_latched),
            Clause("WG-press-log", "injected presses: accepted while open, rejected (locked_out) after; each in "
                   "the press log", f"{page}#input-registers", press_log),
            Clause("WG-lockout-latency", f"the lock-out stops the recognition of wagers within "
                   f"{LOCKOUT_BUDGET_S * 1e3:.0f} ms (armed probe)", f"{page}#holding-registers", lockout_latency),
            Clause("WG-reopen-refused", "a locked round is not re-opened: betting_open = 1 and a wrong key refused, "
                   "the lock-out kept, the next press locked_out", "modbus-wagering.md#opening-a-round", reopen_refused),
            Clause("WG-stake-limits", "a stake outside the declared limits is refused (ILLEGAL_VALUE) and presses "
                   "nothing", "modbus-wagering.md#stake-limits", stake_limits),
            *([Clause("PG-confirm", "meters grow only at the confirmation: a confirmed press incremented, an "
                      "unconfirmed one void", f"{page}#meters-grow-only-at-the-dealers-confirmation", confirm)]
              if device == "progressive-system" else []),
            *([Clause("PG-key-refused", "pay, confirm and win lights with a wrong supervisor key: exception 1, "
                      "nothing changes", f"{page}#the-supervisor-key", meter_writes_need_the_key)]
              if device == "progressive-system" else [])]
