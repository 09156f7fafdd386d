"""Clauses of the command devices over Modbus (docs/wire/README.md#command-devices): the bonus
games' multiplier board, coin flipper, Pachinko board and Crazy Time World wheel, and Roulette X's
multiplier illuminator. One command is written (``command``, ``arg_*``, ``command_seq`` in the
adapter's writes) and the status polled until its result shows; the polls are the evidence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hil.adapters.modbus_command import command_writes
from hil.conformance.core import Clause, ClauseFailed, ClauseSkipped, expect
from hil.conformance.modbus import ILLEGAL_VALUE, POLL_S, ModbusContext, Poll, exception_name
from hil.conformance.modbus_common import common_clauses
from hil.wire.registers import code_pocket
from rules.bonus import COIN_SIDES

#: the longest an operation may take (a Crazy Time World spin is ~8 s)
OP_LIMIT_S = 60.0
#: an accepted command shows its op_id within this
START_LIMIT_S = 2.0

PAGES = {"multiplier-board": "modbus-multiplier-board.md", "coin-flipper": "modbus-coin-flipper.md",
         "pachinko-board": "modbus-pachinko-board.md", "crazy-time-world-wheel": "modbus-ctw-wheel.md",
         "illuminator": "modbus-illuminator.md"}
#: the command each device is asked to run, with its arguments
COMMANDS: dict[str, tuple[str, dict[str, Any]]] = {
    "multiplier-board": ("generate", {"arg_game": "pachinko"}), "coin-flipper": ("flip", {}),
    "pachinko-board": ("drop", {"arg_zone": 7}), "crazy-time-world-wheel": ("spin", {}),
    "illuminator": ("illuminate", {}),
}


@dataclass
class Op:
    before: dict
    command: str
    args: dict
    tx_ns: int
    rx_ns: int
    polls: list[Poll]
    done: Poll | None

    @property
    def new_id(self) -> int:
        return int(self.before["op_id"]) + 1


def _status(ctx: ModbusContext) -> list[str]:
    """The status and the result block (arrays of up to 16 registers: the big ones are read on demand)."""
    core = ("state", "op_id", "op_start_ns", "device_clock_ns")
    return [p.name for p in ctx.map.points
            if "r" in p.access and (p.name in core or (p.name.startswith("result_") and p.span <= 16))]


async def _op(ctx: ModbusContext) -> Op:
    command, args = COMMANDS[ctx.map.device]
    if ctx.offset_ns is None:
        await ctx.map_clock()
    names = _status(ctx)
    before = (await ctx.read_points(names)).values
    seq = (int(await ctx.read("command_seq")) + 1) & 0xFFFF
    writes = command_writes(ctx.map, command, seq, args)
    tx = rx = 0
    for table, address, words in writes:
        code = await ctx.request_write(table, address, words)
        if code is not None:
            raise ClauseFailed(f"the command {command} {args or ''} was refused: {exception_name(code)}")
        tx, rx = tx or ctx.link.tx_ns, ctx.link.rx_ns
    op = Op(before, command, args, tx, rx, [], None)
    loop = asyncio.get_running_loop()
    deadline, counted = loop.time() + OP_LIMIT_S, loop.time() + START_LIMIT_S
    while loop.time() < deadline:
        poll = await ctx.read_points(names)
        op.polls.append(poll)
        if int(poll.values["op_id"]) == int(before["op_id"]) and loop.time() > counted:
            raise ClauseFailed(f"op_id stayed {before['op_id']} for {START_LIMIT_S:.0f} s after the accepted command")
        if int(poll.values["result_op_id"]) >= op.new_id:
            op.done = poll
            break
        await asyncio.sleep(POLL_S)
    expect(op.done is not None, f"no result for op {op.new_id} within {OP_LIMIT_S:.0f} s (state "
                                f"{op.polls[-1].values['state'] if op.polls else '?'})")
    return op


async def op(ctx: ModbusContext) -> Op:
    return await ctx.evidence.get("op", lambda: _op(ctx))


async def command_accepted(ctx: ModbusContext) -> str:
    o = await op(ctx)
    first = next((p for p in o.polls if int(p.values["op_id"]) != int(o.before["op_id"])), None)
    expect(first is not None, f"op_id stayed {o.before['op_id']} after the command")
    v = first.values
    expect(int(v["op_id"]) == o.new_id, f"op_id went from {o.before['op_id']} to {v['op_id']}; expected "
                                        f"{o.new_id} (one per accepted command)")
    expect(v["state"] in ("busy", "done"), f"state {v['state']!r} in the first read showing op {v['op_id']}")
    if v["state"] == "done":
        expect(int(v["result_op_id"]) == o.new_id, f"state done with result_op_id {v['result_op_id']} != op_id "
                                                   f"{v['op_id']}: done means the latest command's result is shown")
    busy = [p for p in o.polls if p.values["state"] == "busy" and int(p.values["op_id"]) != o.new_id]
    expect(not busy, "state busy shown with the previous op_id")
    d = o.done.values
    expect(d["state"] == "done" and int(d["op_id"]) == o.new_id,
           f"with result_op_id {d['result_op_id']}: state {d['state']!r}, op_id {d['op_id']}; expected done, "
           f"{o.new_id}")
    expect(d["result_command"] == o.command, f"result_command {d['result_command']!r} for a {o.command} command")
    return f"op {o.new_id}: {first.values['state']} in its first read, done after {len(o.polls)} read(s)"


async def op_times(ctx: ModbusContext) -> str:
    o = await op(ctx)
    d = o.done.values
    sent = ctx.device_at(o.tx_ns) - ctx.offset_uncertainty_ns
    stop, now = int(d["result_stop_ns"]), int(d["device_clock_ns"])
    expect(sent <= stop <= now, f"result_stop_ns {stop} outside [command sent {sent:.0f}, device clock {now}]")
    if not ctx.map.has("op_start_ns"):
        return f"result {(stop - sent) / 1e6:.1f} ms after the command"
    start = int(d["result_start_ns"])
    expect(sent <= start <= stop, f"result_start_ns {start} outside [command sent {sent:.0f}, result_stop_ns {stop}]")
    shown = [int(p.values["op_start_ns"]) for p in o.polls if int(p.values["op_id"]) == o.new_id]
    bad = [s for s in shown if s and s != start]
    expect(not bad, f"op_start_ns {bad[0] if bad else 0} differs from result_start_ns {start}")
    early = [s for s in shown if s and s < sent]
    expect(not early, f"op_start_ns {early[0] if early else 0} before the command was sent")
    return f"started {(start - sent) / 1e6:.1f} ms, done {(stop - sent) / 1e6:.1f} ms after the command"


def _board(ctx: ModbusContext, d: dict, o: Op) -> list[str]:
    cells = int(d["result_cells"])
    room = ctx.map.point("result_values").count
    bad = [] if d["result_game"] == o.args["arg_game"] else [f"result_game {d['result_game']!r} for "
                                                             f"{o.args['arg_game']!r}"]
    if not 1 <= cells <= room:
        bad.append(f"result_cells {cells} outside 1..{room}")
    return bad


def _coin(ctx: ModbusContext, d: dict, o: Op) -> list[str]:
    bad = [f"{k} {d[k]!r} is not a side ({', '.join(COIN_SIDES)})" for k in ("result_face", "result_start_face")
           if d[k] not in COIN_SIDES]
    if not (float(d["result_launch_speed_mps"]) > 0 and float(d["result_spin_rate_rps"]) > 0):
        bad.append(f"launch speed {d['result_launch_speed_mps']} m/s, spin rate {d['result_spin_rate_rps']} rps: "
                   "both > 0")
    return bad


def _pachinko(ctx: ModbusContext, d: dict, o: Op) -> list[str]:
    bad = []
    if int(d["result_zone"]) != o.args["arg_zone"]:
        bad.append(f"result_zone {d['result_zone']} for a drop in zone {o.args['arg_zone']}")
    return bad


def _ctw(ctx: ModbusContext, d: dict, o: Op) -> list[str]:
    return [] if float(d["result_turns"]) > 0 else [f"result_turns {d['result_turns']}: the wheel turned"]


def _illuminator(ctx: ModbusContext, d: dict, o: Op) -> list[str]:
    count = int(d["result_count"])
    room = min(ctx.map.point("result_numbers").count, ctx.map.point("result_multipliers").count)
    if not 1 <= count <= room:
        return [f"result_count {count} outside 1..{room}"]
    codes = list(d["result_numbers"])[:count]
    return [f"result_numbers[{i}] = {c}: no pocket (0..36, 37 = 00)" for i, c in enumerate(codes)
            if code_pocket(int(c)) is None]


FIELDS: dict[str, Callable[[ModbusContext, dict, Op], list[str]]] = {
    "multiplier-board": _board, "coin-flipper": _coin, "pachinko-board": _pachinko,
    "crazy-time-world-wheel": _ctw, "illuminator": _illuminator}


async def result_fields(ctx: ModbusContext) -> str:
    o = await op(ctx)
    bad = FIELDS[ctx.map.device](ctx, o.done.values, o)
    expect(not bad, "; ".join(bad))
    shown = {k: v for k, v in o.done.values.items() if k.startswith("result_") and not k.endswith("_ns")
             and not isinstance(v, list)}
    return ", ".join(f"{k.removeprefix('result_')} {v}" for k, v in list(shown.items())[:6])


#: a command each device must refuse (ILLEGAL_VALUE), and why
REFUSED: dict[str, tuple[str, dict[str, Any], str]] = {
    "multiplier-board": ("apply_multiplier", {"arg_board_id": 65535, "arg_multiplier": 2}, "a board never generated"),
    "pachinko-board": ("drop", {"arg_zone": 99}, "a zone outside the 16 spots"),
}


async def command_refused(ctx: ModbusContext) -> str:
    """A command the device cannot execute is answered ILLEGAL_VALUE and changes nothing, its
    ``command_seq`` included."""
    if ctx.map.device not in REFUSED:
        raise ClauseSkipped(f"a {ctx.map.device}'s command takes no argument it could refuse")
    command, args, why = REFUSED[ctx.map.device]
    await op(ctx)  # after the accepted command: the status it left is the baseline
    seq0 = int(await ctx.read("command_seq"))
    before = (await ctx.read_points(["state", "op_id", "result_op_id"])).values
    writes = command_writes(ctx.map, command, (seq0 + 1) & 0xFFFF, args)
    codes = [await ctx.request_write(t, a, w) for t, a, w in writes]
    expect(codes[-1] == ILLEGAL_VALUE, f"{command} {args} ({why}): {exception_name(codes[-1])}; expected exception 3 "
                                       "(ILLEGAL_VALUE)")
    await asyncio.sleep(0.05)
    after = (await ctx.read_points(["state", "op_id", "result_op_id"])).values
    seq1 = int(await ctx.read("command_seq"))
    expect(after == before and seq1 == seq0, f"the refused command changed the device: {before} -> {after}, "
                                             f"command_seq {seq0} -> {seq1}")
    return f"{command} ({why}): exception 3 (ILLEGAL_VALUE), nothing changed"


def command_clauses(device: str) -> list[Clause]:
    page = PAGES[device]
    command = COMMANDS[device][0]
    return [*common_clauses(page),
            Clause("CD-command", f"a {command} command: op_id + 1 with state busy (or done) in one read, then "
                   "done with its result", "README.md#command-devices", command_accepted),
            Clause("CD-times", "result times on the device clock: after the command, start <= stop <= clock",
                   "README.md#command-devices", op_times),
            Clause("CD-result", "the result's fields are in range", f"{page}#input-registers", result_fields),
            Clause("CD-refused", "a command the device cannot execute: exception 3 (ILLEGAL_VALUE), nothing changes "
                   "(command_seq included)", "README.md#command-devices", command_refused)]
