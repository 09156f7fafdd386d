"""Clauses of the commanded spinning devices over Modbus: the money wheel
(docs/wire/modbus-money-wheel.md) and the Top Slot (docs/wire/modbus-top-slot.md).

One spin is commanded and polled every ``POLL_S`` until the device shows it at rest; the polls
are the evidence the state-transition, timing and rest-report clauses judge. A second command
sent to the wheel while it shows the spin ``spinning`` must be refused with DEVICE_BUSY (the Top
Slot runs a second spin beside the first: not tried there).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

from hil.adapters.modbus_money_wheel import LAYOUT as WHEEL_LAYOUT
from hil.adapters.modbus_spin import command_words
from hil.adapters.modbus_money_wheel import STATUS as WHEEL_STATUS
from hil.adapters.modbus_top_slot import STATUS as TOP_SLOT_STATUS
from hil.conformance.core import Clause, ClauseFailed, ClauseSkipped, expect
from hil.conformance.modbus import DEVICE_BUSY, POLL_S, DeviceRefused, ModbusContext, Poll, exception_name
from hil.conformance.modbus_common import common_clauses
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2, layout_deviations

#: the longest a spin may take before the clauses give up on it (a money wheel spins ~15 s)
SPIN_LIMIT_S = 120.0
#: a commanded spin shows its new spin_id within this (a device that does not is judged at once)
START_LIMIT_S = 2.0
#: the Top Slot starts within this of the command reaching it (the check's default tolerance,
#: ``top_slot_start_tolerance_s``; docs/wire/modbus-top-slot.md#pass-rules)
TOP_SLOT_START_TOLERANCE_S = 0.100


@dataclass
class Spin:
    """One commanded spin as the polls saw it."""

    before: dict  # the status before the command
    command_tx_ns: int  # rig clock: the command left
    command_rx_ns: int  # its answer came back
    polls: list[Poll]  # from the command's answer to at rest
    busy_code: int | None  # the answer to a second command while spinning (None: accepted!)
    busy_tried: bool
    rest: Poll | None  # the poll that showed the spin at rest
    bit_after_rest: bool | None  # the FC2 point read after seeing at_rest (on_peg / aligned)

    @property
    def new_id(self) -> int:
        return int(self.before["spin_id"]) + 1

    def first_new(self) -> Poll | None:
        return next((p for p in self.polls if int(p.values["spin_id"]) != int(self.before["spin_id"])), None)


async def _spin(ctx: ModbusContext, status: tuple[str, ...], command: str, bit: str, busy: bool) -> Spin:
    names = [n for n in status if ctx.map.has(n)]
    if ctx.offset_ns is None:
        await ctx.map_clock()
    before = (await ctx.read_points(names)).values
    deadline = asyncio.get_running_loop().time() + SPIN_LIMIT_S
    while before["state"] == "spinning":  # a spin in progress (someone else's): wait for its rest
        expect(asyncio.get_running_loop().time() < deadline, "the device shows spinning and never comes to rest")
        await asyncio.sleep(0.05)
        before = (await ctx.read_points(names)).values
    seq = (int(await ctx.read("command_seq")) + 1) & 0xFFFF
    try:
        tx, rx = await ctx.write_points({"command": command, "command_seq": seq})
    except DeviceRefused as exc:
        raise ClauseFailed(f"the spin command ({command}, command_seq {seq}) was refused: {exc}") from None
    spin = Spin(before, tx, rx, [], None, False, None, None)
    started = asyncio.get_running_loop().time() + START_LIMIT_S
    while asyncio.get_running_loop().time() < deadline:
        poll = await ctx.read_points(names)
        spin.polls.append(poll)
        v = poll.values
        if int(v["spin_id"]) == int(before["spin_id"]) and asyncio.get_running_loop().time() > started:
            raise ClauseFailed(f"spin_id stayed {before['spin_id']} for {START_LIMIT_S:.0f} s after the accepted "
                               f"command (state {v['state']!r})")
        if int(v["spin_id"]) == spin.new_id and busy and not spin.busy_tried:  # the device turns now
            spin.busy_tried = True
            for table, address, words in command_words(ctx.map, command, (seq + 1) & 0xFFFF):
                spin.busy_code = await ctx.request_write(table, address, words)
                if spin.busy_code is not None:
                    break
        # at rest with this spin's report (a stop_ns of its own: not the previous spin's left showing)
        if int(v["spin_id"]) >= spin.new_id and (v["state"] == "fault" or (
                v["state"] == "at_rest" and int(v["stop_ns"]) != int(before["stop_ns"]))):
            spin.rest = poll
            spin.bit_after_rest = bool(await ctx.read(bit))
            break
        await asyncio.sleep(POLL_S)
    expect(spin.rest is not None, f"spin {spin.new_id} did not come to rest within {SPIN_LIMIT_S:.0f} s "
                                  f"(last state {spin.polls[-1].values['state'] if spin.polls else '?'})")
    return spin


def _device_now(ctx: ModbusContext, poll: Poll) -> int:
    return int(poll.values["device_clock_ns"])


# ---------------------------------------------------------------------- the money wheel
async def wheel_spin(ctx: ModbusContext) -> Spin:
    return await ctx.evidence.get("spin", lambda: _spin(ctx, WHEEL_STATUS, "spin_cw", "on_peg", busy=True))


async def wheel_layout(ctx: ModbusContext) -> str:
    v = (await ctx.read_points(list(WHEEL_LAYOUT))).values
    count, sections = int(v["section_count"]), list(v["sections"])
    expect(1 <= count <= len(sections), f"section_count {count} is outside 1..{len(sections)}")
    found = layout_deviations([str(s) for s in sections[:count]], int(v["diameter_mm"]) / 1000)
    expect(not found, "; ".join(found))
    return f"{count} sections in the order of § 690.1(b) (section 0 = {sections[0]}), {v['diameter_mm']} mm"


def _start_window(ctx: ModbusContext, spin: Spin, first: Poll) -> tuple[float, float]:
    """Device-clock bounds of a start caused by the command: not before the command left (less
    the clock's uncertainty), not after the read that showed it."""
    return ctx.device_at(spin.command_tx_ns) - ctx.offset_uncertainty_ns, _device_now(ctx, first)


async def wheel_spin_start(ctx: ModbusContext) -> str:
    spin = await wheel_spin(ctx)
    first = spin.first_new()
    expect(first is not None, f"no read showed a new spin_id after the command (spin_id stayed "
                              f"{spin.before['spin_id']})")
    v = first.values
    expect(int(v["spin_id"]) == spin.new_id, f"spin_id went from {spin.before['spin_id']} to {v['spin_id']}; "
                                             f"expected {spin.new_id} (one per accepted command)")
    expect(v["state"] == "spinning", f"the read that first showed spin_id {v['spin_id']} shows state "
                                     f"{v['state']!r}: a new spin_id must appear in the same read as spinning")
    stale = [p for p in spin.polls[:spin.polls.index(first)] if p.values["state"] == "spinning"]
    expect(not stale, f"state spinning was shown with the old spin_id {spin.before['spin_id']} before the new id")
    start = int(v["spin_start_ns"])
    expect(start != 0, "spin_start_ns is 0 (not reported) in the first read of the spin")
    lo, hi = _start_window(ctx, spin, first)
    expect(lo <= start <= hi, f"spin_start_ns {start} is outside the command-to-read window "
                              f"[{lo:.0f}, {hi:.0f}] (device clock)")
    count = int(v["revolution_count"])
    expect(count == 0 or int(v["last_pulse_ns"]) >= start,
           f"revolution_count {count} in the first read counts pulses from before this spin's start "
           f"(last_pulse_ns {v['last_pulse_ns']} < spin_start_ns {start})")
    expect(v["direction"] == "cw", f"direction {v['direction']!r} for a spin_cw command")
    return (f"spin {v['spin_id']}: spinning in its first read, started {(start - lo) / 1e6:.1f} ms after the "
            f"command left, revolution_count {count}")


async def wheel_busy(ctx: ModbusContext) -> str:
    spin = await wheel_spin(ctx)
    expect(spin.busy_tried, "the new spin was never seen: no second command was sent")
    expect(spin.busy_code == DEVICE_BUSY, f"a spin command while the wheel turns: {exception_name(spin.busy_code)}; "
                                          "expected exception 6 (DEVICE_BUSY), changing nothing")
    ids = {int(p.values["spin_id"]) for p in spin.polls}
    expect(ids <= {int(spin.before["spin_id"]), spin.new_id}, f"spin ids {sorted(ids)} after a refused command")
    return "exception 6 (DEVICE_BUSY)"


async def wheel_index_pulses(ctx: ModbusContext) -> str:
    spin = await wheel_spin(ctx)
    mine = [p for p in spin.polls if int(p.values["spin_id"]) == spin.new_id]
    counts = [int(p.values["revolution_count"]) for p in mine]
    back = [(a, b) for a, b in zip(counts, counts[1:]) if b < a]
    expect(not back, f"revolution_count went back during the spin: {back[:3]}")
    start = int(mine[0].values["spin_start_ns"]) if mine else 0
    stop = int(spin.rest.values["stop_ns"])
    last = start
    for a, b in zip(mine, mine[1:]):
        if int(b.values["revolution_count"]) > int(a.values["revolution_count"]):
            t = int(b.values["last_pulse_ns"])
            expect(t > last, f"last_pulse_ns {t} did not move on with revolution_count "
                             f"{b.values['revolution_count']}")
            expect(t <= _device_now(ctx, b), f"last_pulse_ns {t} is after the device clock of its read")
            last = t
    expect(last <= stop or last == start, f"a pulse at {last} is after the rest (stop_ns {stop})")
    revs, pulses = float(spin.rest.values["revolutions"]), int(spin.rest.values["revolution_count"])
    expect(pulses in (math.floor(revs), math.floor(revs) + 1),
           f"{pulses} index pulses for {revs} revolutions: a rotation of R turns passes the index floor(R) or "
           f"floor(R)+1 times")
    return f"{pulses} pulses for {revs} revolutions, pulse times increasing"


async def wheel_rest_report(ctx: ModbusContext) -> str:
    spin = await wheel_spin(ctx)
    v = spin.rest.values
    expect(v["state"] == "at_rest", f"the spin ended in state {v['state']!r}")
    expect(int(v["spin_id"]) == spin.new_id, f"at rest with spin_id {v['spin_id']}, expected {spin.new_id}")
    count = int(await ctx.read("section_count"))
    expect(0 <= int(v["section_index"]) < count, f"section_index {v['section_index']} outside 0..{count - 1}")
    expect(v["direction"] == "cw", f"direction {v['direction']!r} at rest for a spin_cw command")
    start, stop = int(v["spin_start_ns"]), int(v["stop_ns"])
    expect(start <= stop <= _device_now(ctx, spin.rest),
           f"spin_start_ns {start}, stop_ns {stop}, device clock {_device_now(ctx, spin.rest)}: "
           f"expected start <= stop <= clock")
    expect(abs(int(v["duration_us"]) - (stop - start) / 1e3) <= 1000,
           f"duration_us {v['duration_us']} but stop − start is {(stop - start) / 1e3:.0f} µs")
    revs, pegs = float(v["revolutions"]), int(v["pegs_passed"])
    expect(abs(pegs - revs * count) <= 1, f"pegs_passed {pegs} for {revs} revolutions of {count} pegs "
                                          f"(expected within 1 of {revs * count:.1f})")
    expect(int(v["peg_count"]) == pegs, f"peg_count {v['peg_count']} at rest, pegs_passed {pegs}")
    return (f"spin {v['spin_id']} at rest in section {v['section_index']}, {revs} turns, {pegs} pegs, "
            f"on_peg {spin.bit_after_rest} (read after at_rest)")


def money_wheel_clauses() -> list[Clause]:
    page = "modbus-money-wheel.md"
    return [*common_clauses(page),
            Clause("MW-layout", "54 sections in the order of § 690.1(b), diameter >= 1524 mm",
                   f"{page}#the-wheels-layout", wheel_layout),
            Clause("MW-spin-start", "a new spin_id appears in the same read as state spinning, with its "
                   "start time and revolution_count valid", f"{page}#spin-state-transitions", wheel_spin_start),
            Clause("MW-busy", "a spin command while spinning: exception 6 (DEVICE_BUSY)",
                   f"{page}#spin-state-transitions", wheel_busy),
            Clause("MW-index-pulses", "index pulses: floor(R) or floor(R)+1 for R turns, counted up, times "
                   "increasing", f"{page}#pass-rules", wheel_index_pulses),
            Clause("MW-rest-report", "the rest report: section, direction, times, duration, pegs; on_peg read "
                   "after at_rest", f"{page}#spin-state-transitions", wheel_rest_report)]


# ---------------------------------------------------------------------- the Top Slot
async def top_slot_spin(ctx: ModbusContext) -> Spin:
    return await ctx.evidence.get("spin", lambda: _spin(ctx, TOP_SLOT_STATUS, "spin", "aligned", busy=False))


async def top_slot_spin_start(ctx: ModbusContext) -> str:
    spin = await top_slot_spin(ctx)
    first = spin.first_new()
    expect(first is not None, f"no read showed a new spin_id after the command (spin_id stayed "
                              f"{spin.before['spin_id']})")
    v = first.values
    expect(int(v["spin_id"]) == spin.new_id, f"spin_id went from {spin.before['spin_id']} to {v['spin_id']}; "
                                             f"expected {spin.new_id}")
    expect(v["state"] == "spinning", f"the read that first showed spin_id {v['spin_id']} shows state "
                                     f"{v['state']!r}: a new spin_id must appear in the same read as spinning")
    expect(int(v["start_ns"]) != 0, "start_ns is 0 in the first read of the spin")
    return f"spin {v['spin_id']}: spinning in its first read"


async def top_slot_start_tolerance(ctx: ModbusContext) -> str:
    spin = await top_slot_spin(ctx)
    first = spin.first_new()
    expect(first is not None and int(first.values["start_ns"]) != 0, "the spin's start was never shown")
    start = int(first.values["start_ns"])
    # the command reached the device between its request leaving and its answer arriving
    sent = ctx.device_at(spin.command_tx_ns)
    answered = ctx.device_at(spin.command_rx_ns)
    unc = ctx.offset_uncertainty_ns
    tol = TOP_SLOT_START_TOLERANCE_S * 1e9
    if unc + (answered - sent) > tol:
        raise ClauseSkipped(f"the command's round trip and the clock bracket ({(unc + answered - sent) / 1e6:.1f} ms) "
                            f"exceed the tolerance (±{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms): not judged here")
    late, early = start - answered, sent - start
    expect(late - unc <= tol and early - unc <= tol,
           f"the reels started {(start - sent) / 1e6:+.1f} ms from the command (tolerance ±"
           f"{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms, uncertainty ±{(unc + answered - sent) / 1e6:.2f} ms)")
    return (f"started {(start - sent) / 1e6:+.2f} ms after the command left (tolerance ±"
            f"{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms)")


async def top_slot_result(ctx: ModbusContext) -> str:
    spin = await top_slot_spin(ctx)
    v = spin.rest.values
    expect(v["state"] == "at_rest", f"the spin ended in state {v['state']!r}")
    spots = [str(s) for s in TOP_SLOT_REEL1]
    expect(str(v["spot"]) in spots, f"spot {v['spot']!r} is not on reel 1 ({', '.join(spots)})")
    expect(int(v["multiplier"]) in TOP_SLOT_REEL2, f"multiplier {v['multiplier']} is not on reel 2 "
                                                   f"({', '.join(map(str, TOP_SLOT_REEL2))})")
    expect(int(v["reel1_steps"]) > 0 and int(v["reel2_steps"]) > 0,
           f"reel steps {v['reel1_steps']}, {v['reel2_steps']}: a reel did not move")
    start, stop = int(v["start_ns"]), int(v["stop_ns"])
    expect(start <= stop <= _device_now(ctx, spin.rest), f"start_ns {start}, stop_ns {stop}, device clock "
                                                         f"{_device_now(ctx, spin.rest)}")
    return f"{v['spot']} × {v['multiplier']}, aligned {spin.bit_after_rest} (read after at_rest)"


def top_slot_clauses() -> list[Clause]:
    page = "modbus-top-slot.md"
    return [*common_clauses(page),
            Clause("TS-spin-start", "a new spin_id appears in the same read as state spinning, start_ns set",
                   f"{page}#spin-state-transitions", top_slot_spin_start),
            Clause("TS-start-tolerance", f"the reels start within ±{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms of "
                   "the command", f"{page}#pass-rules", top_slot_start_tolerance),
            Clause("TS-result", "the result: a reel-1 spot, a reel-2 multiplier, both reels moved, times; "
                   "aligned read after at_rest", f"{page}#the-reels", top_slot_result)]


