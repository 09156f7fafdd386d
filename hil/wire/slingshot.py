"""The Slingshot-style roulette wheel's line protocol (docs/wire/slingshot-roulette.md): the status
line's grammar and the host's commands, shared by the rig's adapter
(``hil.adapters.serial_roulette_wheel``) and the firmware stub (``firmware_stubs.slingshot``).

Wheel → host, CR LF terminated:

* the status line, every status period and on every state change::

      *X;<state>;<spin#>;<win#>;<warning>;<speed>;<direction>

  (a one-digit win# space-padded, ``*X;5;013; 6;0;177;1``; a zero-padded ``06`` is taken too);
* the bare winning-number line, just before a game's first state-5 line: ``27``, `` 6``;
* the power lines ``*P 1`` (power-up), ``*P 0`` (power-off), ``*P OK`` (the wheel's confirmation).

Host → wheel: ``*K`` (start a game, for a wheel set up to wait for the host; ``*u 1`` is taken as
the same), ``*X`` (send the status line now).

``parse_line`` classifies a line (``Status``, ``BareWin``, ``Power``; ``LineError`` otherwise);
``GameTracker`` turns the lines of a wheel into its games by their state transitions — the one
place where the rig's adapter (``hil.adapters.serial_roulette_wheel``), the raw-log reader of
``croupier outcomes --from slingshot`` (``hil.outcomes``) and the conformance kit read a wheel's
game cycle. Pure: no I/O, no clock (times are given with every line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rules.roulette import DOUBLE_ZERO

#: state code -> name (the page's table)
STATES: dict[int, str] = {1: "wheel_start", 2: "place_bets", 3: "ball_in_rim", 4: "no_more_bets",
                          5: "winning_number", 6: "idle"}
#: warning bit -> name; the warning field is their sum, one hex digit
WARNINGS: dict[int, str] = {1: "ball_removed", 2: "wrong_direction", 4: "sensor_fault", 8: "void_game"}
VOID_GAME = 8
#: win# of the "00" pocket on a double zero wheel
DOUBLE_ZERO_WIN = 37
#: direction code -> the rotor's direction
DIRECTIONS: dict[int, str] = {0: "cw", 1: "ccw"}

START = b"*K"
START_ALIASES = (b"*K", b"*u 1")
STATUS_REQUEST = b"*X"
TERMINATOR = b"\r\n"
BAUDRATE = 9600  # 8N1
STATUS_PERIOD_S = 0.5  # wall seconds, whatever the stub's time scale

MAX_SPIN = 999_999_999
MAX_SPEED_RPM = 999

_STATUS = re.compile(rb"\*X;([1-6]);(\d{1,9});( \d|\d{1,2});([0-9A-Fa-f]);(\d{1,3});([01])")
_BARE = re.compile(rb" ?\d{1,2}")
_POWER = re.compile(rb"\*P (0|1|OK)")
#: power line -> what it says
POWER_LINES: dict[bytes, str] = {b"0": "off", b"1": "on", b"OK": "ok"}
#: how a one-digit win# is padded: the real wheel pads with a space (`` 6``), ``zero`` gives ``06``
PADDINGS = ("space", "zero")


class LineError(ValueError):
    """A line that is not a status line; ``reason`` says why."""

    def __init__(self, reason: str, raw: bytes) -> None:
        self.reason, self.raw = reason, raw
        super().__init__(f"{reason}: {raw!r}")


@dataclass(frozen=True)
class Status:
    """One status line's fields."""

    state: int  # 1..6 (STATES)
    spin: int  # the wheel's game counter since power-up (0 before the first game)
    win: int  # 0..36, 37 = "00"; in states other than 5 the last winning number (0 before the first)
    warning: int  # sum of WARNINGS bits, 0..15
    speed_rpm: int  # rotor speed, rev/min, rounded, 0..999
    direction: int  # rotor direction: 0 clockwise, 1 anticlockwise

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"state {self.state} is not 1..6")
        if not 0 <= self.spin <= MAX_SPIN:
            raise ValueError(f"spin# {self.spin} is not 0..{MAX_SPIN}")
        if not 0 <= self.win <= DOUBLE_ZERO_WIN:
            raise ValueError(f"win# {self.win} is not 0..{DOUBLE_ZERO_WIN}")
        if not 0 <= self.warning <= 15:
            raise ValueError(f"warning {self.warning} is not 0..15")
        if not 0 <= self.speed_rpm <= MAX_SPEED_RPM:
            raise ValueError(f"speed {self.speed_rpm} is not 0..{MAX_SPEED_RPM}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction {self.direction} is not 0 or 1")

    def warnings(self) -> list[str]:
        return [name for bit, name in WARNINGS.items() if self.warning & bit]


@dataclass(frozen=True)
class BareWin:
    """A bare winning-number line (`` 6``, ``27``): the wheel's number, just before state 5."""

    win: int


@dataclass(frozen=True)
class Power:
    """A power line: ``*P 1`` ("on"), ``*P 0`` ("off"), ``*P OK`` ("ok", the wheel confirms)."""

    what: str


WheelLine = Status | BareWin | Power


def format_status(s: Status, pad: str = "space") -> bytes:
    """The status line, terminator included: ``*X;5;007;32;0;130;1\\r\\n``, a one-digit win#
    space-padded (``*X;5;013; 6;0;177;1``) as the real wheel sends it, or ``pad="zero"`` (``06``)."""
    win = b"%2d" % s.win if pad == "space" else b"%02d" % s.win
    return b"*X;%d;%03d;%s;%X;%03d;%d\r\n" % (s.state, s.spin, win, s.warning, s.speed_rpm, s.direction)


def format_bare(win: int, pad: str = "space") -> bytes:
    """The bare winning-number line, terminator included: ``` 6\\r\\n``` (``06`` zero-padded)."""
    return (b"%2d" % win if pad == "space" else b"%02d" % win) + TERMINATOR


def format_power(what: str) -> bytes:
    """``*P 1`` / ``*P 0`` / ``*P OK`` (``what``: on / off / ok), terminator included."""
    code = {v: k for k, v in POWER_LINES.items()}[what]
    return b"*P " + code + TERMINATOR


def parse_line(line: bytes) -> WheelLine:
    """Any line the wheel sends (its CR LF or bare LF may be there or not): a ``Status``, a
    ``BareWin`` or a ``Power``; ``LineError`` for anything else."""
    text = line.removesuffix(b"\n").removesuffix(b"\r")
    if _BARE.fullmatch(text):
        win = int(text)
        if win > DOUBLE_ZERO_WIN:
            raise LineError(f"bare win# {win} is not 0..{DOUBLE_ZERO_WIN}", line)
        return BareWin(win)
    if (m := _POWER.fullmatch(text)) is not None:
        return Power(POWER_LINES[m.group(1)])
    if text.startswith(b"*P"):
        raise LineError("malformed power line", line)
    return parse_status(line)


def parse_status(line: bytes) -> Status:
    """A status line (its CR LF or bare LF may be there or not); ``LineError`` otherwise."""
    text = line.removesuffix(b"\n").removesuffix(b"\r")
    m = _STATUS.fullmatch(text)
    if m is None:
        reason = "not a status line" if not text.startswith(b"*X;") else "malformed status line"
        raise LineError(reason, line)
    state, spin, win, warning, speed, direction = m.groups()
    try:
        return Status(int(state), int(spin), int(win.strip()), int(warning, 16), int(speed), int(direction))
    except ValueError as exc:
        raise LineError(str(exc), line) from None


def win_code(pocket: int | str) -> int:
    """A pocket as win#: 0..36, and 37 for "00"."""
    return DOUBLE_ZERO_WIN if pocket == DOUBLE_ZERO else int(pocket)


def pocket_of(win: int, wheel: str) -> int | str:
    """win# as the pocket of a ``wheel`` ("single-zero" | "double-zero"); ValueError if it has none."""
    if win == DOUBLE_ZERO_WIN:
        if wheel != "double-zero":
            raise ValueError(f"win# {win} (00) on a {wheel} wheel")
        return DOUBLE_ZERO
    if not 0 <= win <= 36:
        raise ValueError(f"win# {win} is no pocket")
    return win


# --------------------------------------------------------------------------- the game cycle
#: warning bits that void the game in progress when they come up in state 3 or 4 (the ball on the
#: rim): the ball was removed / not sensed, it runs the rotor's way; and the wheel's own void game
VOID_BITS: dict[int, str] = {1: "ball_removed", 2: "wrong_direction", 8: "void_game"}
#: warning bits that are faults of the wheel (a wire fault in the rig's trace) and void the game in
#: progress (states 2–4)
FAULT_BITS: dict[int, str] = {4: "sensor_fault"}
#: the states a game whose start was seen must show before its result (state 1 only after power-up)
EXPECTED_STATES = (2, 3, 4)


@dataclass
class Game:
    """One game of the wheel as its lines showed it. Times are the caller's (receive times)."""

    index: int  # 1, 2, … in the order the games began on the line
    spin: int  # the wheel's spin#; a game restarted after power-up keeps its number
    start_s: float | None  # its first line of state 1 or 2; None: the game began before the rig listened
    first_s: float  # its first line, whatever the state
    after_power_up: bool = False  # began with state 1 after ``*P 1``
    states: list[int] = field(default_factory=list)  # in the order first seen
    launch_s: float | None = None  # first state-3 line
    bets_closed_s: float | None = None  # first state-4 line: the wheel's "no more bets"
    result_s: float | None = None  # first state-5 line
    win: int | None = None
    bare_win: int | None = None  # the bare line before state 5
    speed_rpm: int | None = None  # of the game's first state-3 line (else 4, 5): never another game's
    direction: int | None = None
    warning: int = 0  # every warning bit seen on the game's lines
    void: str | None = None  # why the game is void (power_off, wheel_idle, void_game, ball_removed, …)
    void_s: float | None = None

    @property
    def start_seen(self) -> bool:
        return self.start_s is not None

    @property
    def resolved(self) -> bool:
        return self.void is not None or self.result_s is not None

    @property
    def status(self) -> str:
        """``settled`` (a result, not void), ``void``, or ``open`` (no result yet)."""
        if self.void is not None:
            return "void"
        return "settled" if self.result_s is not None else "open"

    def to_json(self) -> dict:
        return {"index": self.index, "spin": self.spin, "start_s": self.start_s, "first_s": self.first_s,
                "start_seen": self.start_seen, "after_power_up": self.after_power_up, "states": list(self.states),
                "launch_s": self.launch_s, "bets_closed_s": self.bets_closed_s, "result_s": self.result_s,
                "win": self.win, "bare_win": self.bare_win, "speed_rpm": self.speed_rpm,
                "direction": None if self.direction is None else DIRECTIONS[self.direction],
                "warning": self.warning, "status": self.status, "void": self.void, "void_s": self.void_s}


class GameTracker:
    """A wheel's games from its lines, by state transitions (docs/wire/slingshot-roulette.md,
    "The game cycle"). ``feed(line, t)`` returns what the line meant, in order, as
    ``(kind, payload)``: ``power`` ({what, confirms}), ``game_start`` (Game: its start seen),
    ``game_unseen`` (Game: a game already under way when the rig began to listen — or whose start
    was lost — recorded, never bound to a command or a round), ``ball_launch``, ``bets_closed``,
    ``result``, ``void`` (each a Game), ``warning`` ({bit, name, state, spin}) and ``fault``
    ({kind, detail}: ``sensor_fault``, ``missed_state``, ``bare_mismatch``).

    * A game begins at a line of state 1 or 2 after a line of another state, or with another
      spin#; state 1 is expected only after power-up, a game between games begins at state 2.
    * A game ends at its first state-5 line (its result; warning bit 8 there: void) or is void
      when ``*P 0`` or a state-6 line comes before that (``power_off``, ``wheel_idle``), or a
      voiding warning comes up (``VOID_BITS``, ``FAULT_BITS``).
    * Later lines of an ended game (the status repeats every 0.5 s) change nothing.
    """

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep  # remember this many games at most (a live wheel runs for weeks); None: all
        self.games: list[Game] = []
        self._begun = 0
        self.last: Status | None = None
        self.power: str | None = None  # the last power line's word before its OK ("on" / "off")
        self.powered = True
        self._power_up = False  # *P 1 seen: the next state-1 game is the pending game, replayed
        self._bare: int | None = None
        self.counts = {"status": 0, "bare": 0, "power": 0}

    @property
    def current(self) -> Game | None:
        return self.games[-1] if self.games else None

    def lost(self) -> None:
        """Lines may have been lost (the link reconnected): the next line is taken as the first
        one heard, so a game under way then counts as one whose start was not seen."""
        self.last = None

    def feed(self, item: WheelLine, t: float) -> list[tuple[str, object]]:
        out: list[tuple[str, object]] = []
        if isinstance(item, Power):
            self.counts["power"] += 1
            confirms = self.power if item.what == "ok" else None
            if item.what == "ok":
                if confirms == "off":
                    self.powered = False
                elif confirms == "on":
                    self.powered = True
            else:
                self.power = item.what
                if item.what == "on":
                    self._power_up = True
            out.append(("power", {"what": item.what, "confirms": confirms}))
            g = self.current
            if item.what == "off" and g is not None and not g.resolved:
                self._void(out, g, "power_off", t)
            return out
        if isinstance(item, BareWin):
            self.counts["bare"] += 1
            self._bare = item.win
            return out
        self.counts["status"] += 1
        st, prev = item, self.last
        self.last = st
        g = self.current
        if st.state == 6:
            if g is not None and not g.resolved:
                self._void(out, g, "power_off" if self.power == "off" else "wheel_idle", t)
            self._warnings(out, st, prev, None, t)
            return out
        if st.state in (1, 2):
            begins = (prev is None or prev.state not in (1, 2) or st.spin != prev.spin
                      or (prev.state == 2 and st.state == 1) or g is None)
            if begins:
                seen = prev is not None or st.state == 1
                g = self._new(Game(self._begun + 1, st.spin, t if seen else None, t,
                                   after_power_up=st.state == 1 and self._power_up))
                self._power_up = False
                self._bare = None
                self.power, self.powered = "on", True  # a wheel that plays is powered, *P lines or not
                out.append(("game_start" if seen else "game_unseen", g))
        elif g is None or g.spin != st.spin:
            # a state 3–5 line of a game whose start never came (before the rig listened, or lost)
            g = self._new(Game(self._begun + 1, st.spin, None, t))
            self._bare = None if st.state != 5 else self._bare
            out.append(("game_unseen", g))
        self._warnings(out, st, prev, g, t)
        if g is None or g.resolved:
            return out
        g.warning |= st.warning
        if st.state not in g.states:
            g.states.append(st.state)
        if st.state in (3, 4, 5) and g.speed_rpm is None:
            g.speed_rpm, g.direction = st.speed_rpm, st.direction
        if st.state == 3 and g.launch_s is None:
            g.launch_s = t
            out.append(("ball_launch", g))
        elif st.state == 4 and g.bets_closed_s is None:
            g.bets_closed_s = t
            out.append(("bets_closed", g))
        elif st.state == 5:
            g.result_s, g.win = t, st.win
            if self._bare is not None:
                g.bare_win = self._bare
                if self._bare != st.win:
                    out.append(("fault", {"kind": "bare_mismatch", "detail":
                                          f"game {st.spin}: bare line {self._bare}, state 5 shows {st.win}"}))
            self._bare = None
            void = bool(st.warning & VOID_GAME)
            if g.start_seen:
                missing = sorted(set((2,) if void else EXPECTED_STATES) - set(g.states))
                if missing:
                    out.append(("fault", {"kind": "missed_state", "detail":
                                          f"game {st.spin} reached state 5 without state(s) {missing}"}))
            if void:
                g.void, g.void_s = "void_game", t
            out.append(("result", g))
        return out

    def _new(self, g: Game) -> Game:
        self._begun += 1
        self.games.append(g)
        if self.keep is not None and len(self.games) > self.keep:
            del self.games[:len(self.games) - self.keep]
        return g

    def _warnings(self, out: list, st: Status, prev: Status | None, g: Game | None, t: float) -> None:
        rising = st.warning & ~(prev.warning if prev is not None else 0)
        for bit, name in WARNINGS.items():
            if not rising & bit:
                continue
            out.append(("warning", {"bit": bit, "name": name, "state": st.state, "spin": st.spin}))
            if bit in FAULT_BITS:
                out.append(("fault", {"kind": FAULT_BITS[bit], "detail": f"warning {bit} ({name}) in state "
                                      f"{st.state} of game {st.spin}"}))
            if g is None or g.resolved or st.state == 5:
                continue  # bit 8 on the state-5 line: the result's own void (``feed``)
            if (bit in FAULT_BITS and st.state in (2, 3, 4)) or (bit in VOID_BITS and st.state in (3, 4)):
                self._void(out, g, name, t)

    def _void(self, out: list, g: Game, reason: str, t: float) -> None:
        g.void, g.void_s = reason, t
        out.append(("void", g))


# --------------------------------------------------------------------------- raw wheel logs
#: a timestamped log line: seconds (``12.250``) or ISO 8601, then exactly one space or tab
_LOG_SECONDS = re.compile(rb"(\d+(?:\.\d+)?)[ \t]")
_LOG_ISO = re.compile(rb"(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)[ \t]")
LOG_FORMATS = ("plain", "seconds", "iso")


@dataclass(frozen=True)
class LogLine:
    """One wheel line of a raw log: its line number in the file, its time (s; None in a plain
    log), its timestamp as written (ISO logs), and the wheel's bytes without the terminator."""

    lineno: int
    t: float | None
    stamp: str | None
    data: bytes


def _iso_seconds(text: str) -> float:
    import datetime as dt

    t = dt.datetime.fromisoformat(text.replace(",", ".").replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.timestamp()


def parse_log(raw: bytes) -> tuple[str, list[LogLine]]:
    """A raw wheel log's format and lines (docs/wire/slingshot-roulette.md, "Raw logs"). Formats,
    decided for the whole file: ``plain`` (each line as the wheel sent it), ``seconds`` (``12.250``
    then one space or tab then the line) and ``iso`` (``2026-11-30T14:02:11.250`` — ``Z`` or an
    offset allowed, a space for ``T`` too — then one space or tab then the line). LF or CR LF;
    blank lines and lines starting with ``#`` are skipped. ValueError for a bad timestamp."""
    rows = [(i, ln.removesuffix(b"\r")) for i, ln in enumerate(raw.split(b"\n"), 1)]
    rows = [(i, ln) for i, ln in rows if ln.strip() and not ln.startswith(b"#")]
    fmt = "plain"
    if rows and all(_LOG_ISO.match(ln) for _, ln in rows):
        fmt = "iso"
    elif rows and all(_LOG_SECONDS.match(ln) for _, ln in rows):
        fmt = "seconds"
    out: list[LogLine] = []
    for i, ln in rows:
        if fmt == "plain":
            out.append(LogLine(i, None, None, ln))
            continue
        m = (_LOG_ISO if fmt == "iso" else _LOG_SECONDS).match(ln)
        assert m is not None
        stamp = m.group(1).decode("ascii")
        try:
            t = _iso_seconds(stamp) if fmt == "iso" else float(stamp)
        except ValueError as exc:
            raise ValueError(f"line {i}: bad timestamp {stamp!r}: {exc}") from None
        out.append(LogLine(i, t, stamp if fmt == "iso" else None, ln[m.end():]))
    return fmt, out
