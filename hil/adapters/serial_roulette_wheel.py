"""The roulette ball wheel over the vendor's serial line protocol (Slingshot-style status lines,
docs/wire/slingshot-roulette.md); implements ``devices.contracts.RouletteWheel``.

``spin()`` sends ``*K``; the wheel's status lines (every 0.5 s and on every state change) become
the SimPy model's telemetry: state 3 → ``ball_launch``, 4 → ``ball_drop``, 5 → ``ball_result``
(and the spin's event succeeds with the ``BallResult``), plus ``wheel_state`` for every change of
state, game or warning. The protocol carries no device clock: every ``device_time_s`` (and the
result's ``*_time_s``) is the rig's receive time of the line, in the environment's time. It
carries no ball revolutions (``None``; the wheel's own void-game judgement, warning bit 8, is
``misspin``) and no launch speed (0.0); ``rotor_speed_rps`` is the speed field (rpm / 60) of the
game's state-2 line, the rotor up to speed (else of its state 3, 1 or 5 line).

Nor does it say which wheel it is: the URL's query says so, ``/dev/ttyUSB0?wheel=double-zero``
(default single zero; also ``baudrate=``, default 9600), or the ``wheel=`` keyword; those keys are
taken out before pyserial opens the rest of the URL.

Wire faults (``wire_fault``, never an exception): a line that is not a status line
(``garbled_line``, ``truncated``, ``overlong`` — with the line's bytes), warning bits 1, 2, 4 as
they come up (``ball_removed``, ``wrong_direction``, ``sensor_fault``), a ``*K`` no new game
answers within ``timeout_s`` (``timeout``; its event stays untriggered: the croupier's own timeout
voids the spin), a game whose lines skipped states (``missed_state``), a win# the wheel cannot
have (``bad_win``), and the link's own (``disconnected``, a silent wheel: ``timeout``).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import simpy

from devices.contracts import BallResult, Telemetry, payload
from devices.roulette_wheel import pocket_order
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.lines import LineLink
from hil.wire.lines import Line
from hil.transport.serial import SerialWireError
from hil.wire.slingshot import (BAUDRATE, DIRECTIONS, START, STATUS_REQUEST, VOID_GAME, WARNINGS, LineError,
                                     Status, parse_status, pocket_of)
from rules.roulette import Wheel

MODEL = "slingshot-serial"  # the lines carry no model string
#: The first status line must come within this after the port opened (wall s).
CONNECT_TIMEOUT_S = 5.0
#: No line for this long is a ``timeout`` fault (four status periods; wall s).
SILENCE_S = 2.0
#: Warning bits that are faults of the wheel (bit 8, the void game, is the result's ``misspin``).
FAULT_BITS = (1, 2, 4)
#: Games remembered (a late line of an older game is still matched to it).
KEEP_GAMES = 8


def split_url(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without the adapter's own query keys (``wheel``, ``baudrate``), and those keys."""
    base, sep, query = url.partition("?")
    if not sep:
        return url, {}
    ours, rest = {}, []
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k in ("wheel", "baudrate"):
            ours[k] = v
        else:
            rest.append((k, v))
    return (f"{base}?{urlencode(rest)}" if rest else base), ours


@dataclass
class _Game:
    spin: int
    event: simpy.Event | None
    start_time_s: float
    launch_time_s: float | None = None
    drop_time_s: float | None = None
    lines: dict[int, Status] = field(default_factory=dict)  # first line seen per state
    done: bool = False


class SlingshotRouletteWheel:
    """An automatic roulette wheel speaking the Slingshot-style status lines."""

    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, telemetry: Telemetry,
                 name: str = "ball_wheel", timeout_s: float = 0.5, *, wheel: str | None = None,
                 baudrate: int | None = None, silence_s: float = SILENCE_S) -> None:
        self.env, self.io, self.url, self.telemetry, self.name = env, io, url, telemetry, name
        self.timeout_s = timeout_s
        port_url, query = split_url(url)
        try:
            self.wheel = Wheel(wheel or query.get("wheel", Wheel.SINGLE_ZERO.value))
            self.baudrate = int(baudrate or query.get("baudrate", BAUDRATE))
        except ValueError as exc:
            raise ValueError(f"{name}: {url!r}: {exc} (wheel is single-zero or double-zero)") from None
        self.port_url = port_url
        self.pockets = pocket_order(self.wheel)
        self.faults = 0
        self.link = LineLink(port_url, self.baudrate, timeout_s, on_line=self._on_line, on_fault=self._link_fault,
                             on_connect=self._on_reconnect, on_tick=self._on_tick, silence_s=silence_s, name=name)
        # reader / I/O threads
        self._lock = threading.Lock()
        self._pending: deque[tuple[int, simpy.Event]] = deque()  # (tx_ns, event) of *K not yet answered
        self._last: Status | None = None
        self._first = threading.Event()
        # simulation thread
        self._shown: Status | None = None
        self._games: dict[int, _Game] = {}
        first = self._connect()
        telemetry(name, "device_info", {"model": MODEL, "wheel": self.wheel.value, "pockets": list(self.pockets),
                                        "url": url, "baudrate": self.baudrate, "spin": first.spin,
                                        "clock": "receive_time"})

    # ----------------------------------------------------------- connect / close (simulation thread)
    def _connect(self) -> Status:
        try:
            self.link.open()
        except Exception as exc:  # noqa: BLE001 — pyserial raises several types for a bad URL
            raise ConnectionError(f"{self.name}: cannot open {self.port_url}: {exc}") from exc
        try:
            self.link.send_line(STATUS_REQUEST)  # a wheel without it sends its status within 0.5 s anyway
            if not self._first.wait(CONNECT_TIMEOUT_S):
                raise ConnectionError(f"{self.name}: no status line from {self.url} within {CONNECT_TIMEOUT_S} s")
        except BaseException:
            self.link.close()
            raise
        with self._lock:
            assert self._last is not None
            return self._last

    def close(self) -> None:
        self.link.close()

    # ----------------------------------------------------------- the Protocol (simulation thread)
    def spin(self) -> simpy.Event:
        """Start a game now (``*K``); succeeds with ``BallResult`` when the wheel shows state 5."""
        ev = self.env.event()
        self.io.loop.call_soon_threadsafe(self._send_start, ev)
        return ev

    def _send_start(self, ev: simpy.Event) -> None:  # I/O thread
        try:
            with self._lock:  # a state-1 line cannot be matched before the command is pending
                tx_ns = self.link.send_line(START)
                self._pending.append((tx_ns, ev))
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)

    # ----------------------------------------------------------- faults / posting
    def fault(self, kind: str, detail: str, raw: bytes | None = None) -> None:
        """A wire fault, recorded in the trace from the simulation thread (from any thread)."""
        self.faults += 1
        p: dict[str, Any] = {"kind": kind, "detail": detail}
        if raw is not None:  # lossless, and readable
            p.update(line=repr(raw)[2:-1], raw_hex=raw.hex())
        self.post(lambda: self.telemetry(self.name, "wire_fault", p))

    def _link_fault(self, kind: str, detail: str) -> None:
        self.fault(kind, detail)

    def post(self, fn: Callable[[], None]) -> None:
        self.env.call_soon_threadsafe(fn)

    # ----------------------------------------------------------- lines (reader thread)
    def _on_line(self, line: Line) -> None:
        if line.blank:
            return
        if line.cut is not None:
            self.fault(line.cut, f"a line {line.cut} ({len(line.raw)} bytes)", line.raw)
            return
        try:
            st = parse_status(line.text)
        except LineError as exc:
            self.fault("garbled_line", exc.reason, line.raw)
            return
        with self._lock:
            prev, self._last = self._last, st
            new_game = prev is not None and st.spin != prev.spin and st.state != 6
            ev = self._pending.popleft()[1] if new_game and self._pending else None
        self._first.set()
        t = self.env.wall_to_sim(line.rx_ns)
        self.post(lambda: self._apply(st, t, line.raw, new_game, ev))

    def _on_tick(self, now_ns: int) -> None:
        limit = round(self.timeout_s * 1e9)
        with self._lock:
            late = [p for p in self._pending if now_ns - p[0] > limit]
            if late:
                self._pending = deque(p for p in self._pending if now_ns - p[0] <= limit)
        for _ in late:
            self.fault("timeout", f"{START.decode()} not answered: no new game within {self.timeout_s} s")

    def _on_reconnect(self) -> None:
        try:
            self.link.send_line(STATUS_REQUEST)
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)
        self.post(lambda: self.telemetry(self.name, "wire_reconnected", {"url": self.url}))

    # ----------------------------------------------------------- the wheel's state (simulation thread)
    def _apply(self, st: Status, t: float, raw: bytes, new_game: bool, ev: simpy.Event | None) -> None:
        prev, self._shown = self._shown, st
        if prev is None or (st.state, st.spin, st.warning) != (prev.state, prev.spin, prev.warning):
            self.telemetry(self.name, "wheel_state", {"state": st.state, "spin": st.spin, "win": st.win,
                                                      "warning": st.warning, "speed": st.speed_rpm,
                                                      "direction": st.direction, "device_time_s": t})
        rising = st.warning & ~(prev.warning if prev is not None else 0)
        for bit in FAULT_BITS:
            if rising & bit:
                self.fault(WARNINGS[bit], f"warning {bit} in state {st.state} of game {st.spin}", raw)
        if new_game:
            self._games[st.spin] = _Game(st.spin, ev, t)
            while len(self._games) > KEEP_GAMES:
                del self._games[next(iter(self._games))]
        game = self._games.get(st.spin)
        if game is None or game.done:
            return
        game.lines.setdefault(st.state, st)
        direction = DIRECTIONS[st.direction]
        if st.state == 3 and game.launch_time_s is None:
            game.launch_time_s = t
            self.telemetry(self.name, "ball_launch", {"spin_id": st.spin, "rotor_direction": direction,
                                                      "launch_speed_rps": 0.0, "device_time_s": t})
        elif st.state == 4 and game.drop_time_s is None:
            game.drop_time_s = t
            self.telemetry(self.name, "ball_drop", {"spin_id": st.spin, "ball_revolutions": None,
                                                    "device_time_s": t})
        elif st.state == 5:
            self._finish(game, st, t, raw)

    def _finish(self, game: _Game, st: Status, t: float, raw: bytes) -> None:
        game.done = True
        misspin = bool(st.warning & VOID_GAME)
        try:
            pocket = pocket_of(st.win, self.wheel.value)
        except ValueError as exc:
            self.fault("bad_win", f"game {st.spin}: {exc}", raw)  # no result: the event stays untriggered
            return
        missing = sorted(({1, 2} if misspin else {1, 2, 3, 4}) - set(game.lines))
        if missing:
            self.fault("missed_state", f"game {st.spin} reached state 5 without state(s) {missing}")
        speed_line = next((game.lines[s] for s in (2, 3, 1) if s in game.lines), st)
        result = BallResult(
            spin_id=st.spin,
            pocket=pocket,
            pocket_index=self.pockets.index(pocket),
            ball_revolutions=None,
            rotor_direction=DIRECTIONS[st.direction],
            misspin=misspin,
            launch_speed_rps=0.0,
            rotor_speed_rps=speed_line.speed_rpm / 60.0,
            start_time_s=game.start_time_s,
            launch_time_s=game.launch_time_s,
            drop_time_s=game.drop_time_s,
            stop_time_s=t,
        )
        self.telemetry(self.name, "ball_result", payload(result))
        if game.event is not None and not game.event.triggered:
            game.event.succeed(result)
