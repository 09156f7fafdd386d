"""Clauses every Modbus device has: the connect sequence, the map's encoding, the device clock,
and the answers to bad requests (docs/wire/README.md)."""

from __future__ import annotations

import asyncio

from hil.conformance.core import Clause, ClauseFailed, ClauseSkipped, Unreachable, expect
from hil.conformance.modbus import (
    CLOCK_SAMPLES,
    ILLEGAL_ADDRESS,
    ILLEGAL_FUNCTION,
    ILLEGAL_VALUE,
    ModbusContext,
    exception_name,
)
from hil.wire.registers import BIT_TABLES, FEATURES

#: how long the clock-rate clause spans at least, and at most (the rate's bracket is the round
#: trips over the span: a slow link needs a longer one)
RATE_SPAN_S = 1.0
RATE_SPAN_MAX_S = 10.0
#: the clock rate a device must keep, relative to the rig's wall clock, by default: the bench's
#: default ``max_clock_drift_ppm`` (docs/wire/clock.md#the-maximum-drift); ``--max-drift-ppm`` sets it
MAX_DRIFT_PPM = 500.0
#: the function codes the contract lists (docs/wire/README.md, "Modbus semantics"): any other is
#: answered exception 1, ILLEGAL_FUNCTION, and changes nothing ("Answers to bad requests")
CONTRACT_FUNCTIONS = frozenset({1, 2, 3, 4, 5, 6, 15, 16})
#: the codes ``MB-illegal-function`` probes: those a stock Modbus server answers (pymodbus: 7, 8,
#: 11, 12, 17, 20–24, 43), one of the user-defined range (65) and a high one (200)
UNLISTED_FUNCTIONS = (0x41, 200, 7, 8, 11, 12, 17, 20, 21, 22, 23, 24, 43)


def readable(ctx: ModbusContext) -> list[str]:
    return [p.name for p in ctx.map.points if "r" in p.access]


async def connect_sequence(ctx: ModbusContext) -> str:
    """What every adapter does at connect: the status and declaration reads, ``command_seq`` (the
    rig continues it), and 16 reads of ``device_clock_ns`` (the offset from the best round trip)."""
    names = readable(ctx)
    values: dict = {}
    blocks = ctx.map.read_blocks(names)
    refused = []
    for b in blocks:
        code, words = await ctx.request_read(b.table, b.start, b.count)
        if code is not None:
            refused.append((b, code))
            continue
        try:
            values |= ctx.map.decode_block(b, words)
        except ValueError:
            pass  # judged point by point by MB-encoding
    if refused:
        groups = FEATURES.get(ctx.map.device, {})
        lines = []
        for b, code in refused:
            feature = next((f for f, g in groups.items() if set(b.points) & set(g)), None)
            hint = (f" — points of the optional {feature!r} feature: if the device has no {feature}, give it a map "
                    "without them (--register-map)") if feature else ""
            lines.append(f"{b.table} {b.start}+{b.count} ({', '.join(b.points[:4])}{'…' if len(b.points) > 4 else ''})"
                         f": {exception_name(code)}{hint}")
        raise ClauseFailed("the device refuses reads of the map's points: " + "; ".join(lines))
    n = len(blocks)
    seq = f", command_seq {values['command_seq']}" if "command_seq" in values else ""
    best = await ctx.map_clock()
    return (f"{len(names)} readable points in {n} read(s){seq}; {CLOCK_SAMPLES} clock reads, best round trip "
            f"{best.rtt_ns / 1e3:.0f} µs")


async def encoding(ctx: ModbusContext) -> str:
    """Every readable point decodes with the map: enum codes in their table, arrays whole."""
    bad = []
    for name in readable(ctx):
        p = ctx.map.point(name)
        code, words = await ctx.request_read(p.table, p.address, p.span)
        if code is not None:
            bad.append(f"{name} ({p.table} {p.address}): {exception_name(code)}")
            continue
        try:
            ctx.map.decode(p, words[:p.span])
        except ValueError as exc:
            bad.append(str(exc))
    expect(not bad, "; ".join(bad[:5]) + (f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""))
    return f"{len(readable(ctx))} points decode"


async def command_seq_continued(ctx: ModbusContext) -> str:
    """``command_seq`` reads back the value last written (the rig continues it after a reconnect),
    and a command ``none`` with a new ``command_seq`` changes nothing else."""
    if not ctx.map.has("command_seq"):
        raise ClauseSkipped("the map has no command_seq")
    seq = int(await ctx.read("command_seq"))
    status = [n for n in ("state", "spin_id", "op_id") if ctx.map.has(n)]
    before = (await ctx.read_points(status)).values
    new = (seq + 1) & 0xFFFF
    await ctx.write_points({"command": "none", "command_seq": new})
    back = int(await ctx.read("command_seq"))
    after = (await ctx.read_points(status)).values
    expect(back == new, f"wrote command_seq {new}, read back {back}")
    expect(after == before, f"command none changed the status: {before} -> {after}")
    return f"command_seq {seq} -> {new}, read back {back}"


async def clock_monotonic(ctx: ModbusContext) -> str:
    samples = await ctx.clock_samples()
    ns = [s.device_ns for s in samples]
    back = [(a, b) for a, b in zip(ns, ns[1:]) if b <= a]
    expect(not back, f"device_clock_ns did not increase between reads: {back[:3]}")
    expect(ns[0] > 0, "device_clock_ns reads 0")
    return f"{len(ns)} reads, increasing"


def rate_span_s(rtt_ns: float, limit_ppm: float) -> float:
    """How long two samples must lie apart for the rate's bracket (rtt / span) to be half of
    the limit: at least ``RATE_SPAN_S``, at most ``RATE_SPAN_MAX_S``."""
    return min(max(RATE_SPAN_S, rtt_ns * 1e-9 / (limit_ppm * 1e-6 / 2)), RATE_SPAN_MAX_S)


async def clock_rate(ctx: ModbusContext) -> str:
    """The device clock ticks at the wall rate: two best-of-8 samples far enough apart that the
    bracket is well inside the limit (``rate_span_s``); a link too slow for that within
    ``RATE_SPAN_MAX_S`` cannot judge it (skip, saying so — never a pass on a bracket wider than the limit)."""
    limit = ctx.max_drift_ppm
    first = min(await ctx.clock_samples(8), key=lambda s: s.rtt_ns)
    span = rate_span_s(first.rtt_ns, limit)
    await asyncio.sleep(span)
    best: tuple[float, float, float] | None = None  # (uncertainty, rate, wall) of the narrowest bracket
    while True:
        # a later sample whose round trips a moment's load stretched widens the bracket: sample
        # again, further apart, up to RATE_SPAN_MAX_S, and judge the narrowest bracket (each one
        # bounds the same rate: choosing by width, never by the rate, biases nothing)
        last = min(await ctx.clock_samples(8), key=lambda s: s.rtt_ns)
        wall = last.mid_ns - first.mid_ns
        unc = (first.rtt_ns + last.rtt_ns) / 2 / wall * 1e6
        if best is None or unc < best[0]:
            best = (unc, ((last.device_ns - first.device_ns) / wall - 1) * 1e6, wall)
        if best[0] <= limit or wall / 1e9 + span / 2 > RATE_SPAN_MAX_S:
            break
        await asyncio.sleep(span / 2)
    unc_ppm, rate_ppm, wall = best
    ctx.notes["clock_rate_ppm"] = (round(rate_ppm, 1), round(unc_ppm, 1))
    if unc_ppm > limit:
        if abs(rate_ppm) - unc_ppm > limit:
            raise ClauseFailed(f"the device clock runs {rate_ppm:+.0f} ± {unc_ppm:.0f} ppm from the wall clock "
                               f"(limit ±{limit:.0f} ppm)")
        raise ClauseSkipped(f"{rate_ppm:+.0f} ± {unc_ppm:.0f} ppm over {wall / 1e9:.1f} s: the round trips "
                            f"({first.rtt_ns / 1e6:.1f} ms) are too long to judge ±{limit:.0f} ppm here; the rig's "
                            "drift estimate over a run judges it (clock.md)")
    expect(abs(rate_ppm) - unc_ppm <= limit,
           f"the device clock runs {rate_ppm:+.0f} ± {unc_ppm:.0f} ppm from the wall clock (limit ±{limit:.0f} ppm)")
    return f"{rate_ppm:+.0f} ± {unc_ppm:.0f} ppm (limit ±{limit:.0f} ppm)"


async def illegal_address(ctx: ModbusContext) -> str:
    """A read of an address no point of the map covers, past every point of the table, is
    refused with ILLEGAL_ADDRESS (exception 2). Address 65535 unless the map uses it."""
    seen = []
    for table in ("coil", "discrete", "holding", "input"):
        if any(p.table == table and p.end > 65535 for p in ctx.map.points):
            continue
        code, _ = await ctx.request_read(table, 65535, 1)
        seen.append((table, code))
    wrong = [f"{t} 65535: {exception_name(c)}" for t, c in seen if c != ILLEGAL_ADDRESS]
    expect(not wrong, "expected exception 2 (ILLEGAL_ADDRESS); " + "; ".join(wrong))
    return f"{len(seen)} tables: exception 2 (ILLEGAL_ADDRESS)"


def unlisted_requests(address: int, value: int) -> list[bytes]:
    """One request PDU per code of ``UNLISTED_FUNCTIONS``, each well formed for that code, so a
    device that implements it would act: FC22 (mask write) and FC23 (read/write) would set the
    holding register at ``address`` to ``value``, FC21 write a file record, FC8 echo its data."""
    a, v = address.to_bytes(2, "big"), value.to_bytes(2, "big")
    body = {
        0x41: b"\x00\x00\x00\x01", 200: b"\x00\x00\x00\x01",
        7: b"", 11: b"", 12: b"", 17: b"",               # exception status, event counter/log, server id
        8: b"\x00\x00\xa5\x37",                          # diagnostics: return query data
        20: b"\x07\x06\x00\x01\x00\x00\x00\x01",          # read file record 1.0, one register
        21: b"\x09\x06\x00\x01\x00\x00\x00\x01" + v,      # write file record 1.0
        22: a + b"\x00\x00" + v,                          # mask write: AND 0, OR value
        23: b"\x00\x00\x00\x01" + a + b"\x00\x01\x02" + v,  # read 1 at 0, write value at address
        24: a,                                           # read FIFO queue
        43: b"\x0e\x01\x00",                             # read device identification
    }
    return [bytes([fc]) + body[fc] for fc in UNLISTED_FUNCTIONS]


async def writable_snapshot(ctx: ModbusContext) -> dict[tuple[str, int], list]:
    """The values of every point the rig may write and read back (holding registers and coils
    with access ``rw``), block by block: what a refused request must leave as it was."""
    names = [p.name for p in ctx.map.points if p.table in ("holding", "coil") and p.access == "rw"]
    out = {}
    for b in ctx.map.read_blocks(names) if names else []:
        code, values = await ctx.request_read(b.table, b.start, b.count)
        out[(b.table, b.start)] = values if code is None else [f"exception {code}"]
    return out


async def illegal_function(ctx: ModbusContext) -> str:
    """Every function code the contract does not list (any but 1–6, 15, 16) is answered exception 1
    with the code + 0x80, and changes nothing: probed with the codes a stock Modbus server
    implements (``UNLISTED_FUNCTIONS``), each a well-formed request of its kind (a mask write and
    a read/write aimed at a writable holding register), against a snapshot of the writable holding
    registers and coils. Over TCP each on a connection of its own; over RTU on the link, the
    line's one master. A code not answered at all ends the probe (each costs the link's timeout)."""
    holding = next((p for p in ctx.map.points if p.table == "holding" and p.access == "rw"), None)
    address = holding.address if holding is not None else 0
    before = await writable_snapshot(ctx)
    code, current = await ctx.request_read("holding", address, 1) if holding is not None else (None, [0])
    value = (int(current[0]) ^ 1) & 0xFFFF if code is None and current else 1  # what an executed write would set
    wrong, answered = [], []
    for request in unlisted_requests(address, value):
        fc = request[0]
        answer = await (ctx.raw_pdu(request) if ctx.link.url.scheme == "tcp" else ctx.link_pdu(request))
        if answer is None:
            rest = len(UNLISTED_FUNCTIONS) - len(answered) - len(wrong) - 1
            wrong.append(f"function code {fc} was not answered"
                         + (f" ({rest} other code(s) not probed)" if rest else ""))
            break
        if len(answer) >= 2 and answer[0] == fc | 0x80 and answer[1] == ILLEGAL_FUNCTION:
            answered.append(fc)
        else:
            wrong.append(f"function code {fc} answered {answer.hex(' ')}")
    try:
        after = await writable_snapshot(ctx)
    except Unreachable as exc:  # a device that stops answering after a refused code fails here, saying so
        raise ClauseFailed("; ".join(wrong + [f"after the probe the device no longer answers reads ({exc})"])) from None
    changed = [f"{t} {a}: {before[key]} -> {after.get(key)}" for key in before if after.get(key) != before[key]
               for t, a in [key]]
    expect(not wrong, "; ".join(wrong) + " — expected an exception response, code + 0x80, with code 1 "
                      "(ILLEGAL_FUNCTION)" + (f"; and the writable points changed: {'; '.join(changed[:3])}"
                                              if changed else ""))
    expect(not changed, f"refused function codes changed the writable points: {'; '.join(changed[:3])}")
    cells = sum(len(v) for v in before.values())
    return (f"function codes {', '.join(map(str, answered))}: exception 1 (ILLEGAL_FUNCTION); "
            f"{cells} writable register(s) and coil(s) unchanged")


async def illegal_value(ctx: ModbusContext) -> str:
    """A write of an enum code the map does not define is refused with ILLEGAL_VALUE (exception
    3) and changes nothing (the first writable enum point: ``command`` where the device has one)."""
    enums = [p for p in ctx.map.points if p.enum and p.access == "rw" and not p.bits]
    if not enums:
        raise ClauseSkipped("the map has no writable enum16 point")
    p = next((q for q in enums if q.name == "command"), enums[0])
    bad = next(c for c in range(65535, -1, -1) if c not in p.enum)
    before = await ctx.read(p.name)
    code = await ctx.request_write(p.table, p.address, [bad])
    after = await ctx.read(p.name)
    expect(code == ILLEGAL_VALUE, f"writing code {bad} (not in its enum) to {p.name}: {exception_name(code)}; "
                                  "expected exception 3 (ILLEGAL_VALUE)")
    expect(after == before, f"{p.name} changed from {before!r} to {after!r} after a refused write")
    return f"{p.name} = {bad}: exception 3 (ILLEGAL_VALUE), unchanged"


async def read_only_refuse_writes(ctx: ModbusContext) -> str:
    """Points the map marks read-only in a writable table (holding registers, coils) refuse a
    write with an exception and keep their value."""
    ro = [p for p in ctx.map.points if p.table not in ("discrete", "input") and p.access == "r"]
    if not ro:
        raise ClauseSkipped("the map has no read-only holding register or coil (input registers and discrete "
                            "inputs cannot be written by any function code)")
    wrong = []
    for p in ro:
        before = await ctx.request_read(p.table, p.address, p.span)
        words = [not v for v in before[1]] if p.table in BIT_TABLES else [(w + 1) & 0xFFFF for w in before[1]]
        code = await ctx.request_write(p.table, p.address, words)
        after = await ctx.request_read(p.table, p.address, p.span)
        if code is None or after != before:
            wrong.append(f"{p.name}: {exception_name(code)}, {'unchanged' if after == before else 'changed'}")
    expect(not wrong, "; ".join(wrong))
    return f"{len(ro)} read-only points refused the write"


def common_clauses(page: str) -> list[Clause]:
    """The clauses of every Modbus device; ``page`` is its docs/wire page."""
    return [
        Clause("MB-connect", "connect sequence: status, declaration, command_seq, 16 clock reads",
               "README.md#the-connect-sequence", connect_sequence),
        Clause("MB-encoding", "every readable point decodes with the map (types, enum codes)",
               f"{page}#enums", encoding),
        Clause("MB-command-seq", "command_seq is continued: reads back the value written; command none does "
               "nothing", "README.md#modbus-semantics", command_seq_continued),
        Clause("MB-clock-monotonic", "device_clock_ns increases with every read", "README.md#time-on-the-wire",
               clock_monotonic),
        Clause("MB-clock-rate", "the device clock ticks at the wall rate (within --max-drift-ppm, default "
               f"{MAX_DRIFT_PPM:.0f})",
               "clock.md#what-your-clock-must-do-vendors", clock_rate),
        Clause("MB-illegal-address", "a read of an unmapped address: exception 2 (ILLEGAL_ADDRESS)",
               "README.md#answers-to-bad-requests", illegal_address),
        Clause("MB-illegal-function", "every function code outside the contract (probed: "
               f"{', '.join(map(str, UNLISTED_FUNCTIONS))}): exception 1 (ILLEGAL_FUNCTION), nothing changes",
               "README.md#answers-to-bad-requests", illegal_function),
        Clause("MB-illegal-value", "an enum code outside the map: exception 3 (ILLEGAL_VALUE), nothing changes",
               "README.md#answers-to-bad-requests", illegal_value),
        Clause("MB-read-only", "read-only holding registers and coils refuse writes",
               "README.md#answers-to-bad-requests", read_only_refuse_writes),
    ]

