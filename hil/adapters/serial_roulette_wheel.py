"""The roulette ball wheel over the vendor's serial line protocol (Slingshot-style status lines,
docs/wire/slingshot-roulette.md); implements ``devices.contracts.RouletteWheel`` and, for a wheel
that runs its own game cycle, ``devices.roulette_wheel.AutonomousRouletteWheel``.

Every line goes through ``hil.wire.slingshot.GameTracker`` (the wheel's games by their state
transitions) on the simulation thread, in the order the lines arrived. Two modes (the URL's
``mode=``):

* ``follow`` (the default: a real automatic wheel runs its own cycle). ``next_game()`` succeeds
  with a ``WheelGame`` at the next game whose start the rig saw (its place-bets state 2, or state 1
  after power-up); its ``bets_closed`` event at the wheel's state-4 line ("no more bets", decided
  by the wheel) and its ``result`` at the first state-5 line (a ``BallResult``) or at the game's
  void (a ``GameVoid``: power-off, state 6 mid-game, a voiding warning).
* ``command``: ``spin()`` sends ``*K``; the next game start seen after the command binds it
  (never a game whose start was not seen: recorded ``game_unseen``, its result still reported).

Telemetry: ``game_start`` / ``game_unseen``, ``ball_launch`` (state 3), ``bets_closed`` (state 4),
``ball_result`` (state 5), ``game_void``, ``wheel_power`` (``*P`` lines), ``wheel_warning`` (a
warning bit came up), ``wheel_state`` (a change of state, spin# or warning). The protocol carries
no device clock: every ``device_time_s`` is the rig's receive time of the line, in the
environment's time. It carries no ball revolutions (``None``) and no launch speed (0.0);
``rotor_speed_rps`` is the speed field (rpm / 60) of the game's first state-3 line (else 4, 5) —
never another game's.

Nor does it say which wheel it is: the URL's query says so, ``/dev/ttyUSB0?wheel=double-zero``
(default single zero; also ``baudrate=``, default 9600, and ``mode=follow|command``), or the
keywords; those keys are taken out before pyserial opens the rest of the URL.

Wire faults (``wire_fault``, never an exception): a line that is none of the wheel's lines
(``garbled_line``, ``truncated``, ``overlong`` — with the line's bytes), warning bit 4
(``sensor_fault``), a ``*K`` no new game answers within ``timeout_s`` (``timeout``), a game whose
lines skipped states (``missed_state``), a bare line that disagrees with state 5 (``bare_mismatch``),
a win# the wheel cannot have (``bad_win``), and the link's own (``disconnected``, a silent wheel:
``timeout``). Status, bare and power lines are never garbled.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

import simpy

from devices.contracts import BallResult, Telemetry, payload
from devices.roulette_wheel import GameVoid, WheelGame, pocket_order
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.lines import LineLink
from hil.transport.serial import SerialWireError, open_failure
from hil.wire.lines import Line
from hil.wire.slingshot import (BAUDRATE, DIRECTIONS, START, STATUS_REQUEST, Game, GameTracker, LineError, Status,
                                WheelLine, parse_line, pocket_of)
from rules.roulette import Wheel

MODEL = "slingshot-serial"  # the lines carry no model string
#: The first status line must come within this after the port opened (wall s).
CONNECT_TIMEOUT_S = 5.0
#: No line for this long is a ``timeout`` fault (four status periods; wall s).
SILENCE_S = 2.0
MODES = ("follow", "command")
#: the adapter's own URL query keys
QUERY_KEYS = ("wheel", "baudrate", "mode")


def split_url(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without the adapter's own query keys (``wheel``, ``baudrate``, ``mode``), and those keys."""
    base, sep, query = url.partition("?")
    if not sep:
        return url, {}
    ours, rest = {}, []
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k in QUERY_KEYS:
            ours[k] = v
        else:
            rest.append((k, v))
    return (f"{base}?{urlencode(rest)}" if rest else base), ours


class SlingshotRouletteWheel:
    """An automatic roulette wheel speaking the Slingshot-style status lines."""

    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, telemetry: Telemetry,
                 name: str = "ball_wheel", timeout_s: float = 0.5, *, wheel: str | None = None,
                 baudrate: int | None = None, mode: str | None = None, silence_s: float = SILENCE_S) -> None:
        self.env, self.io, self.url, self.telemetry, self.name = env, io, url, telemetry, name
        self.timeout_s = timeout_s
        port_url, query = split_url(url)
        try:
            self.wheel = Wheel(wheel or query.get("wheel", Wheel.SINGLE_ZERO.value))
            self.baudrate = int(baudrate or query.get("baudrate", BAUDRATE))
        except ValueError as exc:
            raise ValueError(f"{name}: {url!r}: {exc} (wheel is single-zero or double-zero)") from None
        self.mode = mode or query.get("mode", "follow")
        if self.mode not in MODES:
            raise ValueError(f"{name}: {url!r}: mode {self.mode!r} is not follow or command")
        self.autonomous = self.mode == "follow"
        self.port_url = port_url
        self.pockets = pocket_order(self.wheel)
        self.faults = 0
        self.garbled = 0  # lines that are none of the wheel's (never a status, bare or power line)
        self.link = LineLink(port_url, self.baudrate, timeout_s, on_line=self._on_line, on_fault=self._link_fault,
                             on_connect=self._on_reconnect, on_tick=self._on_tick, silence_s=silence_s, name=name)
        # reader / I/O threads
        self._lock = threading.Lock()
        self._pending: deque[tuple[int, simpy.Event]] = deque()  # (tx_ns, event) of *K not yet bound
        self._last: Status | None = None
        self._first = threading.Event()
        # simulation thread
        self.tracker = GameTracker(keep=16)
        self._shown: Status | None = None
        self._bound: dict[int, tuple[simpy.Event | None, WheelGame | None]] = {}  # Game.index -> its command / handle
        self._waiting: list[simpy.Event] = []  # next_game() events
        self._open: WheelGame | None = None  # the last game begun that no next_game() took yet
        self._power_waiting: list[simpy.Event] = []
        first = self._connect()
        telemetry(name, "device_info", {"model": MODEL, "wheel": self.wheel.value, "pockets": list(self.pockets),
                                        "url": url, "baudrate": self.baudrate, "spin": first.spin,
                                        "clock": "receive_time", "cycle": "autonomous" if self.autonomous
                                        else "commanded"})

    # ----------------------------------------------------------- connect / close (simulation thread)
    def _connect(self) -> Status:
        try:
            self.link.open()
        except Exception as exc:  # noqa: BLE001 — pyserial raises several types for a bad URL
            # the bench names the role and the URL (hil.bench._refused_at_connect): said once
            raise ConnectionError(f"the port did not open ({open_failure(exc)})") from exc
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

    # ----------------------------------------------------------- the Protocols (simulation thread)
    def spin(self) -> simpy.Event:
        """Start a game now (``*K``); succeeds with ``BallResult`` when the wheel shows state 5, or
        with a ``GameVoid`` when that game is void (power-off, state 6, a voiding warning)."""
        ev = self.env.event()
        self.io.loop.call_soon_threadsafe(self._send_start, ev)
        return ev

    def next_game(self) -> simpy.Event:
        """Follow mode: succeeds with the ``WheelGame`` of the next game whose start the rig sees."""
        ev = self.env.event()
        g, self._open = self._open, None
        if g is not None and not g.bets_closed.triggered and not g.result.triggered:
            ev.succeed(g)  # a game begun (its start seen) whose bets are still open: the croupier joins it
        else:
            self._waiting.append(ev)
        return ev

    @property
    def powered(self) -> bool:
        """False between a ``*P 0`` (or state 6 after ``*P 0``) and the next ``*P 1`` or game start."""
        return self.tracker.powered and self.tracker.power != "off"

    def power_up(self) -> simpy.Event:
        """Succeeds when the wheel is powered (at once when it is)."""
        ev = self.env.event()
        if self.powered:
            ev.succeed(True)
        else:
            self._power_waiting.append(ev)
        return ev

    def _send_start(self, ev: simpy.Event) -> None:  # I/O thread
        try:
            with self._lock:
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
            item = parse_line(line.text)
        except LineError as exc:
            self.garbled += 1
            self.fault("garbled_line", exc.reason, line.raw)
            return
        if isinstance(item, Status):
            with self._lock:
                self._last = item
            self._first.set()
        t = self.env.wall_to_sim(line.rx_ns)
        self.post(lambda: self._apply(item, t, line.raw, line.rx_ns))

    def _on_tick(self, now_ns: int) -> None:
        limit = round(self.timeout_s * 1e9)
        with self._lock:
            late = [p for p in self._pending if now_ns - p[0] > limit]
            if late:
                self._pending = deque(p for p in self._pending if now_ns - p[0] <= limit)
        for _ in late:
            self.fault("timeout", f"{START.decode()} not answered: no new game within {self.timeout_s} s")

    def _on_reconnect(self) -> None:
        self.post(self.tracker.lost)  # lines may be lost: a game under way is one whose start was not seen
        try:
            self.link.send_line(STATUS_REQUEST)
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)
        self.post(lambda: self.telemetry(self.name, "wire_reconnected", {"url": self.url}))

    # ----------------------------------------------------------- the wheel's games (simulation thread)
    def _apply(self, item: WheelLine, t: float, raw: bytes, rx_ns: int) -> None:
        if isinstance(item, Status):
            prev, self._shown = self._shown, item
            if prev is None or (item.state, item.spin, item.warning) != (prev.state, prev.spin, prev.warning):
                self.telemetry(self.name, "wheel_state", {"state": item.state, "spin": item.spin, "win": item.win,
                                                          "warning": item.warning, "speed": item.speed_rpm,
                                                          "direction": item.direction, "device_time_s": t})
        for kind, what in self.tracker.feed(item, t):
            if kind == "power":
                self.telemetry(self.name, "wheel_power", {**what, "line": raw.decode("ascii", "replace").strip(),
                                                          "device_time_s": t})
            elif kind == "warning":
                self.telemetry(self.name, "wheel_warning", {**what, "device_time_s": t})
            elif kind == "fault":
                self.fault(what["kind"], what["detail"], raw)
            elif isinstance(what, Game):
                getattr(self, f"_on_{kind}")(what, t, rx_ns)
        if self._power_waiting and self.powered:
            waiting, self._power_waiting = self._power_waiting, []
            for ev in waiting:
                ev.succeed(True)

    def _game_json(self, g: Game, t: float) -> dict[str, Any]:
        return {"spin_id": g.spin, "game": g.index, "after_power_up": g.after_power_up, "device_time_s": t}

    def _on_game_start(self, g: Game, t: float, rx_ns: int) -> None:
        self.telemetry(self.name, "game_start", self._game_json(g, t))
        ev = None
        with self._lock:  # the oldest *K sent before this line arrived
            if self._pending and self._pending[0][0] <= rx_ns:
                ev = self._pending.popleft()[1]
        handle = WheelGame(g.spin, t, g.after_power_up, self.env.event(), self.env.event())
        waiting, self._waiting = self._waiting, []
        for w in waiting:
            w.succeed(handle)
        self._open = None if waiting else handle
        self._bound[g.index] = (ev, handle)
        for old in [i for i in self._bound if i < g.index - 8]:
            del self._bound[old]

    def _on_game_unseen(self, g: Game, t: float, rx_ns: int) -> None:
        # never bound to a command or a round: its start was not seen
        self.telemetry(self.name, "game_unseen", {**self._game_json(g, t), "state": g.states[:1] or None})

    def _on_ball_launch(self, g: Game, t: float, rx_ns: int) -> None:
        self.telemetry(self.name, "ball_launch", {"spin_id": g.spin, "rotor_direction": DIRECTIONS[g.direction or 0],
                                                  "launch_speed_rps": 0.0, "device_time_s": t})

    def _on_bets_closed(self, g: Game, t: float, rx_ns: int) -> None:
        self.telemetry(self.name, "bets_closed", {"spin_id": g.spin, "game": g.index, "device_time_s": t})
        _ev, handle = self._bound.get(g.index, (None, None))
        if handle is not None and not handle.bets_closed.triggered:
            handle.bets_closed.succeed(t)

    def _on_void(self, g: Game, t: float, rx_ns: int) -> None:
        void = GameVoid(g.spin, str(g.void), t)
        self.telemetry(self.name, "game_void", {"spin_id": g.spin, "game": g.index, "reason": void.reason,
                                                "rotor_speed_rpm": g.speed_rpm, "win": g.win,
                                                "rotor_direction": None if g.direction is None else DIRECTIONS[g.direction],
                                                "device_time_s": t})
        self._resolve(g, void)

    def _on_result(self, g: Game, t: float, rx_ns: int) -> None:
        assert g.win is not None
        try:
            pocket = pocket_of(g.win, self.wheel.value)
        except ValueError as exc:
            self.fault("bad_win", f"game {g.spin}: {exc}")  # no result: the game is void
            self._resolve(g, GameVoid(g.spin, "bad_win", t))
            return
        result = BallResult(
            spin_id=g.spin,
            pocket=pocket,
            pocket_index=self.pockets.index(pocket),
            ball_revolutions=None,
            rotor_direction=DIRECTIONS[g.direction if g.direction is not None else 0],
            misspin=g.void is not None,
            launch_speed_rps=0.0,
            rotor_speed_rps=(g.speed_rpm or 0) / 60.0,
            start_time_s=g.start_s if g.start_s is not None else g.first_s,
            launch_time_s=g.launch_s,
            drop_time_s=None,  # not on the wire (state 4 is the wheel's "no more bets", not the drop)
            stop_time_s=t,
        )
        self.telemetry(self.name, "ball_result", {**payload(result), "game": g.index, "start_seen": g.start_seen,
                                                  "rotor_speed_rpm": g.speed_rpm})
        self._resolve(g, result)

    def _resolve(self, g: Game, value: BallResult | GameVoid) -> None:
        ev, handle = self._bound.pop(g.index, (None, None))
        if ev is not None and not ev.triggered:
            ev.succeed(value)
        if handle is not None and not handle.result.triggered:
            handle.result.succeed(value)
