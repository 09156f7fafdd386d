"""Clauses of the serial framed devices (docs/wire/serial-frames.md): the money wheel, the Top
Slot and the wagering device. The link is ``hil.transport.serial.SerialLink`` (the rig's own);
every frame the device sends is kept with its arrival stamp, so the clauses judge the whole
conversation: answers, sequence numbers, heartbeats, clocks and events.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from typing import Any

import serial

from hil.conformance.core import Clause, ClauseFailed, ClauseSkipped, Evidence, Unreachable, expect
from hil.conformance.modbus_common import MAX_DRIFT_PPM, rate_span_s
from hil.conformance.modbus_spinning import TOP_SLOT_START_TOLERANCE_S
from hil.conformance.modbus_wagering import LOCKOUT_BUDGET_S, PROBE_OFFSETS_US, STAKE_CENTS
from hil.transport.serial import SerialLink, SerialWireError
from hil.wire.frames import BY_NAME, HEADER, PROBE_SLOTS, SYNC, VERSION, Frame, crc16, encode
from hil.wire.supervisor import QUERY, key_fields, split_key
from rules.crazy_time import TOP_SLOT_REEL2, layout_deviations

PAGE = "serial-frames.md"
KIND = {"money-wheel": "money_wheel", "top-slot": "top_slot", "wagering": "wagering"}
#: what follows each HELLO the device sends
DECLARES = {"money-wheel": "WHEEL_LAYOUT", "wagering": "WAGERING_INFO"}
#: commands a device kind does not obey (answered unknown_command)
FOREIGN = {"money-wheel": "LOCK_OUT", "top-slot": "OPEN_BETTING", "wagering": "TOP_SLOT_SPIN"}
ANSWER_S = 1.0
HEARTBEAT_S = 1.0
#: slack on the heartbeat period for the link and the machine
HEARTBEAT_SLACK_S = 0.25
SPIN_LIMIT_S = 120.0


class SerialContext:
    """The framed link to one device and every frame it sent (arrival order)."""

    def __init__(self, url: str, device: str, max_drift_ppm: float = MAX_DRIFT_PPM) -> None:
        url, self.key = split_key(url)  # the wagering device's supervisor key (OPEN_BETTING): not pyserial's
        self.url, self.device, self.max_drift_ppm = url, device, max_drift_ppm
        self.frames: list[Frame] = []
        self._lock = threading.Lock()
        self.link = SerialLink(url, on_frame=self._on_frame, silence_s=3600)
        self.evidence = Evidence()
        self.notes: dict[str, Any] = {}
        self.offset_ns: float | None = None
        self.offset_uncertainty_ns = 0.0

    def _on_frame(self, f: Frame) -> None:
        with self._lock:
            self.frames.append(f)

    async def open(self) -> None:
        try:
            self.link.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise Unreachable(f"{self.url}: {exc}") from None
        first = await self.hello()
        if first is None:
            raise Unreachable(f"{self.url}: no answer to HELLO within {ANSWER_S} s")

    def close(self) -> None:
        self.link.close()

    def since(self, i: int) -> list[Frame]:
        with self._lock:
            return self.frames[i:]

    def index_of(self, frame: Frame, start: int = 0) -> int:
        """Where ``frame`` (this very object) stands in the arrival order, from ``start`` on."""
        with self._lock:
            return next(i for i in range(start, len(self.frames)) if self.frames[i] is frame)

    @property
    def mark(self) -> int:
        with self._lock:
            return len(self.frames)

    def send(self, msg_type: str, **fields: Any) -> tuple[int, int]:
        try:
            return self.link.send(msg_type, **fields)
        except SerialWireError as exc:
            raise Unreachable(exc.detail) from None

    async def wait_for(self, start: int, pred, timeout_s: float = ANSWER_S) -> Frame | None:
        deadline = time.monotonic() + timeout_s
        while True:
            for f in self.since(start):
                if pred(f):
                    return f
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.001)

    async def command(self, msg_type: str, **fields: Any) -> tuple[int, int, Frame | None, int]:
        """Send a command; (seq, tx_ns, its ACK or None, mark before sending)."""
        mark = self.mark
        seq, tx = self.send(msg_type, **fields)
        ack = await self.wait_for(mark, lambda f: f.msg_type == "ACK" and f.fields["acked_seq"] == seq)
        return seq, tx, ack, mark

    async def hello(self) -> tuple[int, Frame, Frame] | None:
        """HELLO → (tx_ns, the ACK, the device's HELLO); the clock offset from the best round trip.

        The answer is the first ``HELLO`` after the ``ACK`` of ours (the device ACKs, then
        answers): a ``HELLO`` before that ACK is the device's power-up one, or a stale one still
        in the pipe when ours left, whose clock was read before ours was sent — taken as the
        answer, it shifts the offset by as much as it is old, outside the half round trip."""
        seq, tx, ack, mark = await self.command("HELLO", device_kind="host", protocol_version=1,
                                                clock_ns=time.perf_counter_ns())
        if ack is None:
            return None
        answer = await self.wait_for(self.index_of(ack, mark) + 1, lambda f: f.msg_type == "HELLO")
        if answer is None:
            return None
        rtt = answer.rx_ns - tx
        offset = answer.fields["clock_ns"] - (tx + answer.rx_ns) / 2
        if self.offset_ns is None or rtt / 2 < self.offset_uncertainty_ns:
            self.offset_ns, self.offset_uncertainty_ns = offset, rtt / 2
        return tx, ack, answer

    def device_at(self, rig_ns: float) -> float:
        return rig_ns + self.offset_ns


def _raw(seq: int, type_code: int, payload: bytes = b"", *, version: int = VERSION, crc_delta: int = 0,
         length: int | None = None) -> bytes:
    body = HEADER.pack(version, seq, type_code) + payload
    covered = (len(body) if length is None else length).to_bytes(2, "little") + body
    return SYNC + covered + ((crc16(covered) ^ crc_delta) & 0xFFFF).to_bytes(2, "little")


# ---------------------------------------------------------------------- every framed device
async def hello(ctx: SerialContext) -> str:
    got = await ctx.hello()
    expect(got is not None, f"HELLO: no ACK and HELLO within {ANSWER_S} s")
    tx, ack, answer = got
    expect(ack.fields["status"] == "ok", f"HELLO answered {ack.fields['status']}")
    expect(ack.rx_ns <= answer.rx_ns, "the device's HELLO came before its ACK of the host's HELLO")
    kind = answer.fields["device_kind"]
    expect(kind == KIND[ctx.device], f"the device says it is a {kind}, not a {KIND[ctx.device]}")
    seen = f"ACK then HELLO ({kind}) in {(answer.rx_ns - tx) / 1e3:.0f} µs"
    if ctx.device in DECLARES:
        start = ctx.frames.index(answer)
        after = await ctx.wait_for(start, lambda f: f.msg_type == DECLARES[ctx.device])
        expect(after is not None, f"no {DECLARES[ctx.device]} after the device's HELLO")
        seen += f", then {DECLARES[ctx.device]}"
    return seen


async def declaration(ctx: SerialContext) -> str:
    mark = ctx.mark
    await ctx.hello()
    want = DECLARES[ctx.device]
    f = await ctx.wait_for(mark, lambda f: f.msg_type == want)
    expect(f is not None, f"no {want} after HELLO")
    if ctx.device == "wagering":
        expect(f.fields["seats"] >= 1, f"WAGERING_INFO seats {f.fields['seats']}")
        return f"{f.fields['seats']} seats"
    ctx.notes["sections"] = len(f.fields["sections"])
    found = layout_deviations([str(s) for s in f.fields["sections"]], f.fields["diameter_mm"] / 1000)
    expect(not found, "; ".join(found))
    return f"{len(f.fields['sections'])} sections in the order of § 690.1(b), {f.fields['diameter_mm']} mm"


async def heartbeat(ctx: SerialContext) -> str:
    mark = ctx.mark
    t0 = time.perf_counter_ns()
    await asyncio.sleep(2 * HEARTBEAT_S + HEARTBEAT_SLACK_S)
    stamps = [t0] + [f.rx_ns for f in ctx.since(mark)] + [time.perf_counter_ns()]
    gap = max(b - a for a, b in zip(stamps, stamps[1:])) / 1e9
    expect(gap <= HEARTBEAT_S + HEARTBEAT_SLACK_S, f"{gap:.2f} s without a frame from the device (HEARTBEAT at "
                                                   f"least every {HEARTBEAT_S:.0f} s)")
    beats = [f for f in ctx.since(mark) if f.msg_type == "HEARTBEAT"]
    clocks = [f.fields["clock_ns"] for f in beats]
    expect(all(b > a for a, b in zip(clocks, clocks[1:])), f"HEARTBEAT clock_ns not increasing: {clocks}")
    return f"{len(beats)} heartbeat(s), longest silence {gap:.2f} s"


async def clock_rate(ctx: SerialContext) -> str:
    samples = []
    for _ in range(6):
        got = await ctx.hello()
        expect(got is not None, "HELLO not answered")
        tx, _ack, answer = got
        samples.append((answer.rx_ns - tx, (tx + answer.rx_ns) / 2, answer.fields["clock_ns"]))
    a = min(samples[:3])
    await asyncio.sleep(rate_span_s(a[0], ctx.max_drift_ppm))
    for _ in range(3):
        got = await ctx.hello()
        expect(got is not None, "HELLO not answered")
        tx, _ack, answer = got
        samples.append((answer.rx_ns - tx, (tx + answer.rx_ns) / 2, answer.fields["clock_ns"]))
    b = min(samples[-3:])
    wall = b[1] - a[1]
    rate_ppm = ((b[2] - a[2]) / wall - 1) * 1e6
    unc_ppm = (a[0] + b[0]) / 2 / wall * 1e6
    ctx.notes["clock_rate_ppm"] = (round(rate_ppm, 1), round(unc_ppm, 1))
    limit = ctx.max_drift_ppm
    expect(abs(rate_ppm) - unc_ppm <= limit, f"the device clock runs {rate_ppm:+.0f} ± {unc_ppm:.0f} ppm from the "
                                             f"wall clock (limit ±{limit:.0f} ppm)")
    if unc_ppm > limit:
        raise ClauseSkipped(f"{rate_ppm:+.0f} ± {unc_ppm:.0f} ppm: the HELLO round trips ({a[0] / 1e6:.1f} ms) are "
                            f"too long to judge ±{limit:.0f} ppm here; the rig's drift estimate over a run judges it")
    return f"{rate_ppm:+.0f} ± {unc_ppm:.0f} ppm (limit ±{limit:.0f} ppm)"


async def garbled(ctx: SerialContext) -> str:
    """Frames the parser must reject are not answered, and the next good frame is: noise, a bad
    CRC, a bad length, a bad version, an unknown type, a bad payload, a frame cut short."""
    hello = BY_NAME["HELLO"].pack({"device_kind": "host", "protocol_version": 1, "clock_ns": 1})
    bad_seqs = list(range(0xBEE0, 0xBEE7))
    cut = encode("HELLO", bad_seqs[6], device_kind="host", protocol_version=1, clock_ns=1)[:9]
    candidates = [
        ("noise", bytes(range(0x10, 0x40))),
        ("crc_error", _raw(bad_seqs[0], 0x02, hello, crc_delta=0x0101)),
        ("bad_length", _raw(bad_seqs[1], 0x02, hello, length=2)),
        ("bad_version", _raw(bad_seqs[2], 0x02, hello, version=9)),
        ("unknown_type", _raw(bad_seqs[3], 0x7E, b"")),
        ("bad_payload", _raw(bad_seqs[4], 0x02, hello[:-1])),
        ("bad_payload (code)", _raw(bad_seqs[5], 0x02, bytes([9]) + hello[1:])),
        ("truncated", cut),
    ]
    mark = ctx.mark
    for _name, data in candidates:
        try:
            ctx.link.write_raw(data)
        except SerialWireError as exc:
            raise Unreachable(exc.detail) from None
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)  # longer than a frame's pause: the cut frame is given up
    got = await ctx.hello()
    answered = [f for f in ctx.since(mark) if f.msg_type == "ACK" and f.fields["acked_seq"] in bad_seqs]
    expect(not answered, f"garbled frame(s) answered: ACK of seq {[f.fields['acked_seq'] for f in answered]} "
                         "(frames the parser rejects are not answered)")
    expect(got is not None, "after garbled frames the device no longer answers a good HELLO")
    ctx.notes["garbled_sent"] = len(candidates)
    return f"{len(candidates)} garbled candidates sent, 0 answered; the next HELLO answered"


async def unknown_command(ctx: SerialContext) -> str:
    foreign = FOREIGN[ctx.device]
    _seq, _tx, ack, _m = await ctx.command(foreign, **(key_fields(None) if foreign == "OPEN_BETTING" else {}))
    expect(ack is not None, f"{foreign} (not a command of a {ctx.device}) was not ACKed")
    expect(ack.fields["status"] == "unknown_command", f"{foreign} to a {ctx.device}: ACK {ack.fields['status']}; "
                                                      "expected unknown_command")
    _seq, _tx, ack2, _m = await ctx.command("HEARTBEAT", clock_ns=time.perf_counter_ns())
    expect(ack2 is not None and ack2.fields["status"] == "unknown_command",
           f"an event type (HEARTBEAT) from the host: {ack2.fields['status'] if ack2 else 'no ACK'}; expected "
           "unknown_command")
    return f"{foreign} and HEARTBEAT: ACK unknown_command"


async def sequence(ctx: SerialContext) -> str:
    """Every frame the device sent during the run, from its HELLO on: seq + 1 each."""
    frames = ctx.since(0)
    bad = []
    for a, b in zip(frames, frames[1:]):
        if b.msg_type == "HELLO" and b.seq == 0:
            continue  # the device restarted
        if b.seq != (a.seq + 1) & 0xFFFF:
            bad.append(f"{a.msg_type} seq {a.seq} then {b.msg_type} seq {b.seq}")
    expect(not bad, "; ".join(bad[:3]))
    return f"{len(frames)} frames, seq + 1 each"


# ---------------------------------------------------------------------- the money wheel
async def _wheel_spin(ctx: SerialContext) -> dict[str, Any]:
    seq, tx, ack, mark = await ctx.command("SPIN", direction="cw")
    expect(ack is not None, "SPIN was not ACKed")
    expect(ack.fields["status"] == "ok", f"SPIN answered {ack.fields['status']}")
    start = await ctx.wait_for(mark, lambda f: f.msg_type == "SPIN_START", 2.0)
    expect(start is not None, "no SPIN_START within 2 s of the SPIN")
    _s, _t, busy, _m = await ctx.command("SPIN", direction="cw")
    stop = await ctx.wait_for(mark, lambda f: f.msg_type == "SPIN_STOP", SPIN_LIMIT_S)
    expect(stop is not None, f"no SPIN_STOP within {SPIN_LIMIT_S:.0f} s")
    frames = ctx.since(mark)
    pulses = [f for f in frames[:frames.index(stop)] if f.msg_type == "INDEX_PULSE"]
    return {"tx": tx, "ack": ack, "start": start, "stop": stop, "pulses": pulses, "busy": busy}


async def wheel_spin(ctx: SerialContext) -> dict[str, Any]:
    return await ctx.evidence.get("spin", lambda: _wheel_spin(ctx))


async def wheel_start(ctx: SerialContext) -> str:
    s = await wheel_spin(ctx)
    st = s["start"].fields
    expect(st["direction"] == "cw", f"SPIN_START direction {st['direction']} for a SPIN cw")
    lo = ctx.device_at(s["tx"]) - ctx.offset_uncertainty_ns
    hi = ctx.device_at(s["start"].rx_ns) + ctx.offset_uncertainty_ns
    expect(lo <= st["t_ns"] <= hi, f"SPIN_START t_ns {st['t_ns']} outside [{lo:.0f}, {hi:.0f}] (the SPIN left, "
                                   "the SPIN_START arrived)")
    expect(s["ack"].rx_ns <= s["start"].rx_ns, "SPIN_START came before the SPIN's ACK (ACK first, then act)")
    return f"spin {st['spin_id']} started {(st['t_ns'] - lo) / 1e6:.1f} ms after the SPIN left"


async def wheel_busy(ctx: SerialContext) -> str:
    s = await wheel_spin(ctx)
    busy = s["busy"]
    expect(busy is not None, "a SPIN while the wheel turns was not ACKed")
    expect(busy.fields["status"] == "busy", f"a SPIN while the wheel turns: ACK {busy.fields['status']}; "
                                            "expected busy")
    return "ACK busy"


async def wheel_pulses(ctx: SerialContext) -> str:
    s = await wheel_spin(ctx)
    sid, stop = s["start"].fields["spin_id"], s["stop"].fields
    mine = [p.fields for p in s["pulses"] if p.fields["spin_id"] == sid]
    counts, times = [p["count"] for p in mine], [p["t_ns"] for p in mine]
    expect(counts == list(range(1, len(counts) + 1)), f"INDEX_PULSE counts {counts}: expected 1, 2, …")
    expect(all(b > a for a, b in zip(times, times[1:])), "INDEX_PULSE t_ns not increasing")
    expect(all(stop["start_ns"] <= t <= stop["stop_ns"] for t in times), "an INDEX_PULSE outside the spin")
    revs = stop["revolutions_milli"] / 1000
    expect(len(counts) in (math.floor(revs), math.floor(revs) + 1),
           f"{len(counts)} index pulses for {revs} revolutions: expected floor(R) or floor(R)+1")
    return f"{len(counts)} pulses for {revs} revolutions"


async def wheel_stop(ctx: SerialContext) -> str:
    s = await wheel_spin(ctx)
    st, stop = s["start"].fields, s["stop"].fields
    expect(stop["spin_id"] == st["spin_id"], f"SPIN_STOP of spin {stop['spin_id']}, started {st['spin_id']}")
    expect(stop["start_ns"] == st["t_ns"], f"SPIN_STOP start_ns {stop['start_ns']} != SPIN_START t_ns {st['t_ns']}")
    expect(stop["start_ns"] <= stop["stop_ns"], "stop_ns before start_ns")
    expect(stop["direction"] == "cw", f"SPIN_STOP direction {stop['direction']}")
    revs = stop["revolutions_milli"] / 1000
    n = ctx.notes.get("sections", 54)
    expect(abs(stop["pegs_passed"] - revs * n) <= 1 + 1e-3 * n,
           f"pegs_passed {stop['pegs_passed']} for {revs} revolutions of {n} pegs (expected within 1 of "
           f"{revs * n:.1f})")
    expect(0 <= stop["section_index"] < n, f"section_index {stop['section_index']} outside 0..{n - 1}")
    return f"spin {stop['spin_id']} at rest in section {stop['section_index']}, {revs} turns"


# ---------------------------------------------------------------------- the Top Slot
async def _top_spin(ctx: SerialContext) -> dict[str, Any]:
    seq, tx, ack, mark = await ctx.command("TOP_SLOT_SPIN")
    expect(ack is not None and ack.fields["status"] == "ok",
           f"TOP_SLOT_SPIN answered {ack.fields['status'] if ack else 'nothing'}")
    start = await ctx.wait_for(mark, lambda f: f.msg_type == "TOP_SLOT_START", 2.0)
    expect(start is not None, "no TOP_SLOT_START within 2 s")
    stop = await ctx.wait_for(mark, lambda f: f.msg_type == "TOP_SLOT_STOP"
                              and f.fields["spin_id"] == start.fields["spin_id"], SPIN_LIMIT_S)
    expect(stop is not None, f"no TOP_SLOT_STOP within {SPIN_LIMIT_S:.0f} s")
    return {"tx": tx, "ack": ack, "start": start, "stop": stop}


async def top_spin(ctx: SerialContext) -> dict[str, Any]:
    return await ctx.evidence.get("spin", lambda: _top_spin(ctx))


async def top_start(ctx: SerialContext) -> str:
    s = await top_spin(ctx)
    t = s["start"].fields["t_ns"]
    sent = ctx.device_at(s["tx"])
    tol = TOP_SLOT_START_TOLERANCE_S * 1e9
    unc = ctx.offset_uncertainty_ns
    expect(sent - unc - tol <= t <= ctx.device_at(s["ack"].rx_ns) + unc + tol,
           f"the reels started {(t - sent) / 1e6:+.1f} ms from the TOP_SLOT_SPIN (tolerance ±"
           f"{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms)")
    return f"started {(t - sent) / 1e6:+.2f} ms after the command left"


async def top_stop(ctx: SerialContext) -> str:
    s = await top_spin(ctx)
    f = s["stop"].fields
    expect(f["multiplier"] in TOP_SLOT_REEL2, f"multiplier {f['multiplier']} not on reel 2")
    expect(f["reel1_steps"] > 0 and f["reel2_steps"] > 0, f"reel steps {f['reel1_steps']}, {f['reel2_steps']}")
    expect(f["start_ns"] == s["start"].fields["t_ns"] and f["start_ns"] <= f["stop_ns"],
           f"start_ns {f['start_ns']}, stop_ns {f['stop_ns']}, TOP_SLOT_START t_ns {s['start'].fields['t_ns']}")
    return f"{f['spot']} × {f['multiplier']}, aligned {f['aligned']}"


# ---------------------------------------------------------------------- the wagering device
async def _answers(ctx: SerialContext, mark: int, n: int, seat: int, timeout_s: float = 2.0) -> list[dict]:
    deadline = time.monotonic() + timeout_s
    while True:
        got = [f.fields for f in ctx.since(mark) if f.msg_type == "PRESS_ANSWER" and f.fields["seat"] == seat
               and f.fields["stake_cents"] == STAKE_CENTS]
        if len(got) >= n or time.monotonic() > deadline:
            expect(len(got) >= n, f"{len(got)} of {n} PRESS_ANSWER(s) within {timeout_s} s")
            return got
        await asyncio.sleep(0.002)


async def _ok(ctx: SerialContext, msg_type: str, **fields: Any) -> tuple[int, Frame, int]:
    _seq, tx, ack, mark = await ctx.command(msg_type, **fields)
    expect(ack is not None, f"{msg_type} was not ACKed within {ANSWER_S} s")
    expect(ack.fields["status"] == "ok", f"{msg_type} answered {ack.fields['status']}")
    return tx, ack, mark


def _open_fields(ctx: SerialContext) -> dict[str, int]:
    if ctx.key is None:
        raise ClauseFailed(f"the device URL carries no ?{QUERY}=<32 hex digits>: OPEN_BETTING needs the key "
                           "(docs/wire/serial-frames.md, OPEN_BETTING)")
    return key_fields(ctx.key)


async def wagering_round(ctx: SerialContext) -> str:
    tx, _ack, mark = await _ok(ctx, "OPEN_BETTING", **_open_fields(ctx))
    opened = await ctx.wait_for(mark, lambda f: f.msg_type == "BETTING_OPEN")
    expect(opened is not None, "no BETTING_OPEN after OPEN_BETTING")
    _tx, _a, mark = await _ok(ctx, "PRESS", seat=1, spot="1", stake_cents=STAKE_CENTS)
    (ok,) = (await _answers(ctx, mark, 1, 1))[:1]
    expect(ok["accepted"] and ok["reason"] == "none", f"a press while betting is open: accepted {ok['accepted']}, "
                                                     f"reason {ok['reason']}")
    expect(0 < ok["press_ns"] <= ok["answer_ns"], f"press_ns {ok['press_ns']}, answer_ns {ok['answer_ns']}")
    tx, ack, mark = await _ok(ctx, "LOCK_OUT")
    lock = await ctx.wait_for(mark, lambda f: f.msg_type == "LOCKOUT_COMMAND")
    expect(lock is not None, "no LOCKOUT_COMMAND after LOCK_OUT")
    lo = ctx.device_at(tx) - ctx.offset_uncertainty_ns
    hi = ctx.device_at(ack.rx_ns) + ctx.offset_uncertainty_ns
    expect(lo <= lock.fields["t_ns"] <= hi, f"LOCKOUT_COMMAND t_ns {lock.fields['t_ns']} outside the LOCK_OUT's "
                                            f"round trip [{lo:.0f}, {hi:.0f}]")
    await asyncio.sleep(LOCKOUT_BUDGET_S * 5)
    _tx, _a, mark = await _ok(ctx, "PRESS", seat=1, spot="1", stake_cents=STAKE_CENTS)
    (late,) = (await _answers(ctx, mark, 1, 1))[:1]
    expect(not late["accepted"] and late["reason"] == "locked_out",
           f"a press after the lock-out: accepted {late['accepted']}, reason {late['reason']}; expected rejected "
           "(locked_out)")
    expect(late["press_id"] > ok["press_id"], f"press_id {late['press_id']} after {ok['press_id']}")
    return f"press {ok['press_id']} accepted, LOCKOUT_COMMAND in the round trip, press {late['press_id']} locked_out"


async def wagering_reopen_refused(ctx: SerialContext) -> str:
    """A locked round is not re-opened: after LOCK_OUT, an OPEN_BETTING with a wrong key is ACKed
    ``refused``, no BETTING_OPEN follows, and the next PRESS is ``locked_out``; a PRESS whose stake is
    past the declared maximum is ``bad_args`` and answered by no PRESS_ANSWER."""
    right = _open_fields(ctx)
    await _ok(ctx, "OPEN_BETTING", **right)
    await _ok(ctx, "LOCK_OUT")
    await asyncio.sleep(LOCKOUT_BUDGET_S * 5)
    wrong = dict(right, key_15=right["key_15"] ^ 0x5A)
    _s, _t, ack, mark = await ctx.command("OPEN_BETTING", **wrong)
    expect(ack is not None and ack.fields["status"] == "refused",
           f"OPEN_BETTING with a wrong key after the lock-out: {ack.fields['status'] if ack else 'no ACK'}; "
           "expected refused")
    reopened = await ctx.wait_for(mark, lambda f: f.msg_type == "BETTING_OPEN", timeout_s=0.2)
    expect(reopened is None, "a BETTING_OPEN followed the refused OPEN_BETTING")
    _tx, _a, mark = await _ok(ctx, "PRESS", seat=1, spot="1", stake_cents=STAKE_CENTS)
    (late,) = (await _answers(ctx, mark, 1, 1))[:1]
    expect(not late["accepted"] and late["reason"] == "locked_out",
           f"the press after the refused re-open: accepted {late['accepted']}, reason {late['reason']}")
    decl = next((f for f in reversed(ctx.frames) if f.msg_type == "WAGERING_INFO"), None)
    expect(decl is not None, "no WAGERING_INFO seen")
    hi = int(decl.fields["max_stake_cents"])
    over = []
    for stake in sorted({min(hi + 1, 2**32 - 1), 2**32 - 1}):
        _s, _t, a, mark = await ctx.command("PRESS", seat=1, spot="1", stake_cents=stake)
        over.append((stake, a.fields["status"] if a else "no ACK"))
    expect(all(st == "bad_args" for _, st in over) or hi == 2**32 - 1,
           "; ".join(f"PRESS of {s} cents: {st}" for s, st in over) + " (expected bad_args)")
    await _ok(ctx, "OPEN_BETTING", **right)  # the right key opens the next round (the wrong-key count reset)
    return (f"wrong key after the lock-out: refused, no BETTING_OPEN, press {late['press_id']} locked_out; "
            f"stakes {', '.join(str(s) for s, _ in over)} over the {hi}-cent maximum: bad_args")


async def wagering_latency(ctx: SerialContext) -> str:
    await _ok(ctx, "OPEN_BETTING", **_open_fields(ctx))
    offsets = list(PROBE_OFFSETS_US[:PROBE_SLOTS])
    _s, _t, bad, _m = await ctx.command("ARM_PROBE", seat=2, spot="1", stake_cents=STAKE_CENTS, count=PROBE_SLOTS + 1,
                                        **{f"offset_us_{i}": 0 for i in range(PROBE_SLOTS)})
    expect(bad is not None and bad.fields["status"] == "bad_args",
           f"ARM_PROBE with count {PROBE_SLOTS + 1}: {bad.fields['status'] if bad else 'no ACK'}; expected bad_args")
    await _ok(ctx, "ARM_PROBE", seat=2, spot="1", stake_cents=STAKE_CENTS, count=len(offsets),
              **{f"offset_us_{i}": (offsets[i] if i < len(offsets) else 0) for i in range(PROBE_SLOTS)})
    _tx, _ack, mark = await _ok(ctx, "LOCK_OUT")
    lock = await ctx.wait_for(mark, lambda f: f.msg_type == "LOCKOUT_COMMAND")
    expect(lock is not None, "no LOCKOUT_COMMAND after LOCK_OUT")
    got = sorted(((a["press_ns"] - lock.fields["t_ns"]) / 1e3, a) for a in await _answers(ctx, mark, len(offsets), 2))
    accepted = [o for o, a in got if a["accepted"]]
    rejected = [o for o, a in got if not a["accepted"]]
    reasons = {a["reason"] for _, a in got if not a["accepted"]}
    expect(reasons <= {"locked_out"}, f"probe presses rejected for {sorted(reasons)}")
    expect(rejected, "every probe press was accepted: the device does not lock out")
    expect(not accepted or max(accepted) < min(rejected), "accepted and rejected probe presses interleave")
    lo, hi = (max(accepted) if accepted else 0.0), min(rejected)
    ctx.notes["lockout_latency_us"] = (lo, hi)
    expect(hi <= LOCKOUT_BUDGET_S * 1e6, f"wagers recognised {lo / 1e3:.1f} ms after the lock-out (budget "
                                         f"{LOCKOUT_BUDGET_S * 1e3:.0f} ms)")
    return f"lock-out effective in ({lo / 1e3:.1f}, {hi / 1e3:.1f}] ms (device clock); ARM_PROBE count 17: bad_args"


def clauses(device: str) -> list[Clause]:
    out = [Clause("SF-hello", "HELLO: ACK, then the device's HELLO (its kind), then its declaration",
                  f"{PAGE}#conversation", hello)]
    if device in DECLARES:
        out.append(Clause("SF-declaration", f"{DECLARES[device]} after each HELLO, in range",
                          f"{PAGE}#message-types", declaration))
    out += [Clause("SF-heartbeat", "a frame at least every second (HEARTBEAT), clock increasing",
                   f"{PAGE}#conversation", heartbeat),
            Clause("SF-clock-rate", "the device clock ticks at the wall rate (within --max-drift-ppm, default "
                   f"{MAX_DRIFT_PPM:.0f})", "clock.md#what-your-clock-must-do-vendors", clock_rate),
            Clause("SF-garbled", "garbled frames are ignored (not answered) and the next good frame is answered",
                   f"{PAGE}#receiving-the-parsers-rules-and-rejection-counters", garbled),
            Clause("SF-unknown-command", "a command of another device kind, or an event type: ACK unknown_command",
                   f"{PAGE}#conversation", unknown_command)]
    if device == "money-wheel":
        out += [Clause("SF-spin-start", "SPIN: ACK ok, then SPIN_START timed between command and arrival",
                       f"{PAGE}#spin--0x10-command-host--device", wheel_start),
                Clause("SF-spin-busy", "a SPIN while the wheel turns: ACK busy", f"{PAGE}#conversation", wheel_busy),
                Clause("SF-index-pulses", "INDEX_PULSE counts 1, 2, …: floor(R) or floor(R)+1 for R turns",
                       f"{PAGE}#index_pulse--0x12-event-device--host", wheel_pulses),
                Clause("SF-spin-stop", "SPIN_STOP: the spin's id and start, times, section",
                       f"{PAGE}#spin_stop--0x13-event-device--host", wheel_stop)]
    elif device == "top-slot":
        out += [Clause("SF-top-slot-start", f"TOP_SLOT_START within ±{TOP_SLOT_START_TOLERANCE_S * 1e3:.0f} ms of "
                       "the command", f"{PAGE}#top_slot_start--0x21-event-device--host", top_start),
                Clause("SF-top-slot-stop", "TOP_SLOT_STOP: a reel-2 multiplier, both reels moved, times",
                       f"{PAGE}#top_slot_stop--0x22-event-device--host", top_stop)]
    else:
        out += [Clause("SF-wagering-round", "OPEN_BETTING, PRESS accepted, LOCK_OUT timed, PRESS locked_out",
                       f"{PAGE}#press_answer--0x35-event-device--host", wagering_round),
                Clause("SF-reopen-refused", "after LOCK_OUT, OPEN_BETTING with a wrong key: refused, the next PRESS "
                       "locked_out; a stake past the declared maximum: bad_args",
                       f"{PAGE}#open_betting--0x30-command-host--device", wagering_reopen_refused),
                Clause("SF-lockout-latency", f"ARM_PROBE: the lock-out stops wagers within "
                       f"{LOCKOUT_BUDGET_S * 1e3:.0f} ms; count 17 is bad_args",
                       f"{PAGE}#arm_probe--0x36-command-host--device", wagering_latency)]
    out.append(Clause("SF-sequence", "the device's frames: seq + 1 each, no gap or repeat", f"{PAGE}#sequence-numbers",
                      sequence))
    return out

