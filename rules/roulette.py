"""The Roulette wheel as data, for Roulette Up (§ 617b.4) and Roulette X (§ 617b.5).

Pure: constants and functions, no I/O, no clocks.

A pocket (a "number" in the regulation's words) is an ``int`` 0–36, or the string ``"00"`` for
double zero. Why a string and not -1: -1 sorts *below* 0, but § 617b.4(g)(1)(ii) puts 00 *above*
0; -1 would invite ``a < b`` on pockets, which is wrong on a double-zero wheel. ``"00"`` is how the
number is announced and written on the layout, it cannot be compared with an ``int`` by accident
(Python raises ``TypeError``), and order is asked of ``streak_rank`` only.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

#: A pocket: 0–36, or "00" (double zero).
Pocket = int | Literal["00"]

DOUBLE_ZERO: Literal["00"] = "00"


class Wheel(StrEnum):
    """The two Roulette wheels § 617b.4(a) and § 617b.5(c) allow (§ 617a.1(d))."""

    SINGLE_ZERO = "single-zero"
    """0 and 1–36: 37 pockets."""
    DOUBLE_ZERO = "double-zero"
    """0, 00 and 1–36: 38 pockets."""


#: The pockets of each wheel, in the order of § 617b.4(g)(1)(ii) ("00 shall be deemed to be
#: greater than 0, but less than 1").
POCKETS: dict[Wheel, tuple[Pocket, ...]] = {
    Wheel.SINGLE_ZERO: (0, *range(1, 37)),
    Wheel.DOUBLE_ZERO: (0, DOUBLE_ZERO, *range(1, 37)),
}

#: The red numbers of the standard layout (the colours are in § 617a.1, which is not among the
#: texts transcribed here; listed for the sim and the layout check only, no rule here uses them).
RED_NUMBERS: frozenset[int] = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})

#: The highest number on either wheel; spinning it ends a Roulette Up streak (§ 617b.4(g)(2)(ii)).
HIGHEST_NUMBER = 36


def pockets(wheel: Wheel | str) -> tuple[Pocket, ...]:
    """The pockets of ``wheel``, in streak order (0 < 00 < 1 < … < 36)."""
    return POCKETS[Wheel(wheel)]


def parse_pocket(value: object, wheel: Wheel | str) -> Pocket:
    """``value`` as a pocket of ``wheel``: an int 0–36 or "00"; the strings "0"–"36" are accepted
    (as a TOML key or an announcement is written). Anything else raises ``ValueError``."""
    wheel = Wheel(wheel)
    pocket: object = value
    if isinstance(value, str) and value != DOUBLE_ZERO:
        pocket = int(value) if value.isdigit() and (value == "0" or not value.startswith("0")) else value
    if isinstance(pocket, bool) or pocket not in POCKETS[wheel] or (isinstance(pocket, str) and pocket != DOUBLE_ZERO):
        raise ValueError(f"{value!r} is no number of a {wheel} wheel (0{', 00' if wheel is Wheel.DOUBLE_ZERO else ''}, "
                         f"1–36; § 617a.1(d))")
    return pocket  # type: ignore[return-value]


def colour(pocket: Pocket) -> Literal["red", "black", "green"]:
    """The colour of ``pocket`` on the standard layout (0 and 00 green)."""
    if pocket == 0 or pocket == DOUBLE_ZERO:
        return "green"
    return "red" if pocket in RED_NUMBERS else "black"


def streak_rank(pocket: Pocket) -> int:
    """The rank of ``pocket`` in the order of § 617b.4(g)(1): 0 → 0, 00 → 1, n → n + 1.

    "For purposes of a double zero wheel, 00 shall be deemed to be greater than 0, but less than
    1" (§ 617b.4(g)(1)(ii)). The same ranks serve a single-zero wheel (there is no 00 on it, and
    only comparisons matter). Compare ``streak_rank(a) < streak_rank(b)``, never ``a < b``.
    """
    if pocket == DOUBLE_ZERO:
        return 1
    if isinstance(pocket, bool) or not isinstance(pocket, int) or not 0 <= pocket <= HIGHEST_NUMBER:
        raise ValueError(f"{pocket!r} is no Roulette number (0, 00, 1–36)")
    return 0 if pocket == 0 else pocket + 1
