"""Clauses of the roulette ball wheel's vendor line protocol (docs/wire/slingshot-roulette.md): a
Slingshot-style wheel runs its own game cycle, so the kit listens — through the rig's own
``LineLink`` and ``GameTracker`` — for one whole game and the next one's start, and judges the
lines, their period, the state transitions and the result; it also sends what the wheel must
ignore. The protocol has no device clock: nothing here depends on the wheel's time scale.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import serial

from hil.conformance.core import Clause, Evidence, Unreachable, expect
from hil.transport.lines import LineLink
from hil.transport.serial import SerialWireError
from hil.wire.lines import Line
from hil.wire.slingshot import (
    BAUDRATE,
    DOUBLE_ZERO_WIN,
    FAULT_BITS,
    STATUS_PERIOD_S,
    STATUS_REQUEST,
    Game,
    GameTracker,
    LineError,
    Status,
    parse_line,
)

PAGE = "slingshot-roulette.md"
#: slack on the status period for the line's wire time and the machine
PERIOD_SLACK_S = 0.25
#: the longest the kit waits for a game to begin, end, and the next to begin (the live wheel: ~30 s a game)
GAME_LIMIT_S = 120.0
#: a status line answers ``*X`` within this (≈ 22 ms of wire time at 9600 baud)
ANSWER_S = 0.15


class LineContext:
    """The line link to one wheel and every line it sent, as parsed, with its arrival time."""

    def __init__(self, url: str, baudrate: int = BAUDRATE) -> None:
        self.url = url
        self.lines: list[tuple[Line, Any]] = []  # (the line, what it parsed to, or the LineError)
        self.tracker = GameTracker()
        self.events: list[tuple[float, str, Any]] = []
        self._lock = threading.Lock()
        self.link = LineLink(url, baudrate, on_line=self._on_line, silence_s=3600)
        self.evidence = Evidence()
        self.notes: dict[str, Any] = {}

    def _on_line(self, line: Line) -> None:
        if line.blank:
            return
        try:
            item: Any = parse_line(line.text) if line.cut is None else LineError(f"{line.cut} line")
        except LineError as exc:
            item = exc
        with self._lock:
            self.lines.append((line, item))
            if not isinstance(item, LineError):
                t = line.rx_ns * 1e-9
                self.events += [(t, kind, what) for kind, what in self.tracker.feed(item, t)]

    async def open(self) -> None:
        try:
            self.link.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise Unreachable(f"{self.url}: {exc}") from None
        deadline = time.monotonic() + 3 * STATUS_PERIOD_S + 1.0
        while not self.since(0):
            if time.monotonic() > deadline:
                raise Unreachable(f"{self.url}: no line from the wheel within {deadline - time.monotonic() + 3:.1f} s "
                                  "(it sends its status every 0.5 s)")
            await asyncio.sleep(0.01)

    def close(self) -> None:
        self.link.close()

    def since(self, i: int) -> list[tuple[Line, Any]]:
        with self._lock:
            return self.lines[i:]

    def send(self, text: bytes) -> int:
        try:
            return self.link.send_line(text)
        except SerialWireError as exc:
            raise Unreachable(exc.detail) from None


async def _one_game(ctx: LineContext) -> dict[str, Any]:
    """Wait for a game whose start is seen to be settled (void ones are passed over, and counted),
    and the next game to begin."""
    deadline = time.monotonic() + GAME_LIMIT_S
    while time.monotonic() < deadline:
        with ctx._lock:
            games = ctx.tracker.games
            for i, g in enumerate(games[:-1]):
                if g.start_seen and g.status == "settled":
                    faults = [(t, w) for t, k, w in ctx.events if k == "fault"]
                    void = [h for h in games[:i] if h.status == "void"]
                    return {"game": g, "next": games[i + 1], "faults": faults, "void_before": void}
        await asyncio.sleep(0.05)
    with ctx._lock:
        shown = [(g.spin, g.states, g.status) for g in ctx.tracker.games]
    expect(False, f"no whole settled game (its start, its result, the next game's start) within "
                  f"{GAME_LIMIT_S:.0f} s; games seen (spin#, states, status): {shown}")
    raise AssertionError("unreachable")


async def game(ctx: LineContext) -> dict[str, Any]:
    return await ctx.evidence.get("game", lambda: _one_game(ctx))


async def line_format(ctx: LineContext) -> str:
    await game(ctx)
    lines = ctx.since(0)
    bad = [(ln.raw, str(item)) for ln, item in lines if isinstance(item, LineError)]
    expect(not bad, f"{len(bad)} of {len(lines)} lines are not the protocol's: {bad[:3]}")
    no_crlf = [ln.raw for ln, _ in lines if not ln.raw.endswith(b"\r\n")]
    expect(not no_crlf, f"{len(no_crlf)} lines do not end in CR LF: {no_crlf[:3]}")
    kinds = ctx.tracker.counts
    return f"{len(lines)} lines, all valid ({kinds['status']} status, {kinds['bare']} bare, {kinds['power']} power)"


async def status_period(ctx: LineContext) -> str:
    await game(ctx)
    stamps = [ln.rx_ns for ln, item in ctx.since(0) if isinstance(item, Status)]
    expect(len(stamps) >= 2, "fewer than 2 status lines")
    gap = max(b - a for a, b in zip(stamps, stamps[1:])) / 1e9
    expect(gap <= STATUS_PERIOD_S + PERIOD_SLACK_S, f"{gap:.2f} s between two status lines (every "
                                                    f"{STATUS_PERIOD_S} s, and at every change)")
    mark = len(ctx.since(0))
    tx = ctx.send(STATUS_REQUEST)
    deadline = time.monotonic() + 1.0
    answer = None
    while answer is None and time.monotonic() < deadline:
        answer = next((ln for ln, item in ctx.since(mark) if isinstance(item, Status)), None)
        await asyncio.sleep(0.002)
    expect(answer is not None, "no status line within 1 s of *X")
    took = (answer.rx_ns - tx) / 1e9
    expect(took <= ANSWER_S, f"*X answered after {took * 1e3:.0f} ms (within {ANSWER_S * 1e3:.0f} ms)")
    return f"longest gap {gap:.2f} s; *X answered in {took * 1e3:.0f} ms"


async def game_cycle(ctx: LineContext) -> str:
    got = await game(ctx)
    g: Game = got["game"]
    nxt: Game = got["next"]
    missed = [w["detail"] for _, w in got["faults"] if w["kind"] == "missed_state"]
    expect(not missed, "; ".join(missed))
    expect(g.states[:1] in ([1], [2]) and [s for s in g.states if s in (2, 3, 4, 5)] == [2, 3, 4, 5],
           f"game {g.spin} showed states {g.states}: expected 2, 3, 4, 5 in that order (1 first only after "
           "power-up)")
    expect(1 not in g.states or g.after_power_up, f"game {g.spin} showed state 1 without a power-up before it")
    expect(nxt.spin == g.spin + 1, f"the game after {g.spin} has spin# {nxt.spin}: expected {g.spin + 1}")
    void = got["void_before"]
    passed = f" ({len(void)} void game(s) before it: {', '.join(f'{h.spin} {h.void}' for h in void)})" if void else ""
    return f"game {g.spin}: states {g.states}, {g.status}; next game {nxt.spin}{passed}"


async def result(ctx: LineContext) -> str:
    got = await game(ctx)
    g: Game = got["game"]
    expect(g.win is not None and 0 <= g.win <= DOUBLE_ZERO_WIN, f"game {g.spin}: win# {g.win} outside 0..37")
    mismatch = [w["detail"] for _, w in got["faults"] if w["kind"] == "bare_mismatch"]
    expect(not mismatch, "; ".join(mismatch))
    expect(g.speed_rpm is not None and 0 < g.speed_rpm <= 999, f"game {g.spin}: rotor speed {g.speed_rpm} rpm in "
                                                                "its states 3–5")
    bare = "bare line matches" if g.bare_win is not None else "no bare line"
    return f"game {g.spin}: {g.win}{' (00)' if g.win == DOUBLE_ZERO_WIN else ''}, {g.speed_rpm} rpm, {bare}"


async def no_fault(ctx: LineContext) -> str:
    await game(ctx)
    with ctx._lock:
        warnings = [w for _, k, w in ctx.events if k == "warning"]
    faults = [w for w in warnings if w["bit"] in FAULT_BITS]
    expect(not faults, f"fault warning(s) {faults}")
    return f"{len(warnings)} warning(s), no fault bit" if warnings else "no warning"


async def ignores_the_rest(ctx: LineContext) -> str:
    """Unknown commands, garbage and a line cut short: never answered, and the wheel keeps serving."""
    mark = len(ctx.since(0))
    for junk in (b"*Z 9", b"hello", bytes(range(0x20, 0x7F))[:60], b"*X;9;;"):
        ctx.send(junk)
    try:
        ctx.link.write_raw(b"*X;2")  # cut short: no terminator
    except SerialWireError as exc:
        raise Unreachable(exc.detail) from None
    await asyncio.sleep(2 * STATUS_PERIOD_S + PERIOD_SLACK_S)
    after = ctx.since(mark)
    bad = [(ln.raw, str(item)) for ln, item in after if isinstance(item, LineError)]
    expect(not bad, f"after the junk the wheel sent lines that are not the protocol's: {bad[:3]}")
    statuses = [ln for ln, item in after if isinstance(item, Status)]
    expect(len(statuses) >= 2, f"{len(statuses)} status line(s) in {2 * STATUS_PERIOD_S + PERIOD_SLACK_S:.2f} s "
                               "after the junk: the wheel must keep serving")
    return f"5 junk lines ignored; {len(statuses)} status lines after them"


def clauses() -> list[Clause]:
    return [
        Clause("RW-lines", "every line is a status, bare or power line, CR LF terminated", f"{PAGE}#lines-wheel--host",
               line_format),
        Clause("RW-period", f"a status line at least every {STATUS_PERIOD_S} s and in answer to *X",
               f"{PAGE}#when-lines-are-sent", status_period),
        Clause("RW-game-cycle", "a game: states 2, 3, 4, 5 (1 only after power-up), the next game spin# + 1",
               f"{PAGE}#the-game-cycle-gametracker", game_cycle),
        Clause("RW-result", "the result: win# 0..37, the bare line equal to it, the rotor speed of its own states",
               f"{PAGE}#status-line", result),
        Clause("RW-warnings", "no fault warning bit (sensor, motor, encoder) during the run", f"{PAGE}#warnings",
               no_fault),
        Clause("RW-ignores", "unknown commands, garbage and cut lines are ignored; the wheel keeps serving",
               f"{PAGE}#commands-host--wheel", ignores_the_rest),
    ]
