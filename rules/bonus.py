"""The bonus games of Crazy Time as code: Coin Flip (§ 690.5), Cash Hunt (§ 690.6), Pachinko
(§ 690.7) and Crazy Time World (§ 690.8).

Pure: constants, frozen dataclasses and functions, no I/O, no clocks, no randomness — the random
parts (multipliers, drop zones, Rescue activation, picks, the coin, the puck, the virtual wheel)
are the devices'; these functions say what the regulation makes of them. The controller uses them
to run a bonus game, the checks to verify one from the trace.

Boards are tuples of ints, one per cell, ``DOUBLE`` (0) for the cell showing "Double".
"""

from __future__ import annotations

from rules.crazy_time import Spot

#: A cell showing "Double" (§ 690.7(c)(2), § 690.8(b)(2)); every multiplier is >= 2.
DOUBLE = 0
#: What replaces "Double" (§ 690.7(e)(2), § 690.8(e)(3)).
DOUBLE_REPLACEMENT = 50

#: § 690.5(b): the two sides of the coin, in board order (board cell 0, cell 1).
COIN_SIDES: tuple[str, str] = ("red", "blue")
#: § 690.5(c)(1)
COIN_FLIP_RANGE = (2, 100)
#: § 690.6(b)
CASH_HUNT_CELLS = 108
CASH_HUNT_RANGE = (5, 500)
#: § 690.7(b)–(c)
PACHINKO_SPOTS = 16
PACHINKO_RANGE = (2, 400)
#: § 690.7(g): the multipliers on which a Rescue Drop may be activated
PACHINKO_RESCUE_TRIGGERS = frozenset({2, 3, 4})
#: § 690.8(b)
CTW_SECTIONS = 64
CTW_RANGE = (15, 400)
CTW_CLAPPERS = 3
#: § 690.8(b)(4): "at least two sections of the wheel between clappers"
CTW_MIN_SECTIONS_BETWEEN = 2

#: bonus spot -> (cells on its board, multiplier range, may show one Double)
BOARDS: dict[Spot, tuple[int, tuple[int, int], bool]] = {
    Spot.COIN_FLIP: (2, COIN_FLIP_RANGE, False),
    Spot.CASH_HUNT: (CASH_HUNT_CELLS, CASH_HUNT_RANGE, False),
    Spot.PACHINKO: (PACHINKO_SPOTS, PACHINKO_RANGE, True),
    Spot.CRAZY_TIME: (CTW_SECTIONS, CTW_RANGE, True),
}
