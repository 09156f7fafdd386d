"""The Slingshot-style roulette wheel's line protocol (docs/wire/slingshot-roulette.md): the status
line's grammar and the host's commands, shared by the rig's adapter
(``hil.adapters.serial_roulette_wheel``) and the firmware stub (``firmware_stubs.slingshot``).

Wheel → host, every status period and on every state change, CR LF terminated::

    *X;<state>;<spin#>;<win#>;<warning>;<speed>;<direction>

Host → wheel: ``*K`` (start a game; ``*u 1`` is taken as the same), ``*X`` (send the status line
now). Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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

_STATUS = re.compile(rb"\*X;([1-6]);(\d{1,9});(\d{1,2});([0-9A-Fa-f]);(\d{1,3});([01])")


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


def format_status(s: Status) -> bytes:
    """The status line, terminator included: ``*X;5;007;32;0;030;1\\r\\n``."""
    return b"*X;%d;%03d;%02d;%X;%03d;%d\r\n" % (s.state, s.spin, s.win, s.warning, s.speed_rpm, s.direction)


def parse_status(line: bytes) -> Status:
    """A status line (its CR LF or bare LF may be there or not); ``LineError`` otherwise."""
    text = line.removesuffix(b"\n").removesuffix(b"\r")
    m = _STATUS.fullmatch(text)
    if m is None:
        reason = "not a status line" if not text.startswith(b"*X;") else "malformed status line"
        raise LineError(reason, line)
    state, spin, win, warning, speed, direction = m.groups()
    try:
        return Status(int(state), int(spin), int(win), int(warning, 16), int(speed), int(direction))
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
