"""The bonus games of Crazy Time as code: Coin Flip (§ 690.5), Cash Hunt (§ 690.6), Pachinko
(§ 690.7) and Crazy Time World (§ 690.8).

Pure: constants, frozen dataclasses and functions, no I/O, no clocks, no randomness — the random
parts (multipliers, drop zones, Rescue activation, picks, the coin, the puck, the virtual wheel)
are the devices'; these functions say what the regulation makes of them. The controller uses them
to run a bonus game, the checks to verify one from the trace.

Boards are tuples of ints, one per cell, ``DOUBLE`` (0) for the cell showing "Double": Coin
Flip (red, blue); Cash Hunt's 108 cells; Pachinko's landing spots 1..16 as cells 0..15 (spot
numbers in the API are 1-based: cell i is spot i+1); Crazy Time World's sections 0..63.

Decisions where the text leaves room (docs/rules-crazy-time.md):

* "Displayed" values are after the Top Slot multiplier, which every game applies to its board
  before play (§ 690.5(e), § 690.6(g), § 690.7(f), § 690.8(f)). The Rescue conditions
  (§ 690.5(f), § 690.7(g)) are judged by the Rules Submission's ``rescue_reading``
  (``RESCUE_READINGS``): on the displayed values ("displayed", the default), or on the multipliers
  before the Top Slot multiplier ("before-top-slot"); ``rescue_value`` is the one rule both the
  croupier and the checks use.
* The 50× that replaces a Double (§ 690.7(e)(2), § 690.8(e)(3)) is literal: neither multiplied
  by the Top Slot multiplier nor doubled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from fractions import Fraction
from typing import Literal

from rules.crazy_time import Spot

#: A cell showing "Double" (§ 690.7(c)(2), § 690.8(b)(2)); every multiplier is >= 2.
DOUBLE = 0
#: What replaces "Double" (§ 690.7(e)(2), § 690.8(e)(3)).
DOUBLE_REPLACEMENT = 50

#: How the Rescue conditions of § 690.5(f) and § 690.7(g) read a cell (docs/rules-crazy-time.md):
#: "displayed" — the value shown, the Top Slot multiplier included (§ 690.5(e), § 690.7(f) apply it
#: before the flip / drop); "before-top-slot" — the multiplier as generated (and doubled, or raised),
#: without the Top Slot multiplier (§ 690.5(c) calls those "multipliers" and the multiplied ones
#: "final payout odds").
RescueReading = Literal["displayed", "before-top-slot"]
RESCUE_READINGS: tuple[str, ...] = ("displayed", "before-top-slot")
DEFAULT_RESCUE_READING: RescueReading = "displayed"

#: § 690.5(b): the two sides of the coin, in board order (board cell 0, cell 1).
COIN_SIDES: tuple[str, str] = ("red", "blue")
#: § 690.5(c)(1)
COIN_FLIP_RANGE = (2, 100)
#: § 690.5(f)(1)–(2): the small multiplier 2x or 3x, the big one greater than 15x
RESCUE_FLIP_SMALL = frozenset({2, 3})
RESCUE_FLIP_BIG_ABOVE = 15
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


# --------------------------------------------------------------------------- the board

#: bonus spot -> the section each board check cites, and what the board's cells are
_BOARD_SECTIONS: dict[Spot, dict[str, str]] = {
    Spot.COIN_FLIP: {"cells": "§ 690.5(c)", "range": "§ 690.5(c)(1)", "double": "§ 690.5(c)(1)",
                     "top_slot": "§ 690.5(e)", "what": "sides of the coin with a multiplier"},
    Spot.CASH_HUNT: {"cells": "§ 690.6(b)", "range": "§ 690.6(b)(1)", "double": "§ 690.6(b)(1)",
                     "top_slot": "§ 690.6(g)", "what": "multipliers"},
    Spot.PACHINKO: {"cells": "§ 690.7(b)", "range": "§ 690.7(c)(1)", "double": "§ 690.7(c)(2)",
                    "top_slot": "§ 690.7(f)", "what": "landing spots"},
    Spot.CRAZY_TIME: {"cells": "§ 690.8(b)", "range": "§ 690.8(b)(1)", "double": "§ 690.8(b)(2)",
                      "top_slot": "§ 690.8(f)", "what": "wheel sections"},
}


def _bonus_game(game: Spot | str) -> Spot:
    if game not in BOARDS:
        raise ValueError(f"{game!r} is no bonus game (one of {', '.join(BOARDS)}; § 690.1(d))")
    return Spot(game)


def _check_multiplier(multiplier: int) -> None:
    if isinstance(multiplier, bool) or not isinstance(multiplier, int) or multiplier < 1:
        raise ValueError(f"a Top Slot multiplier is a positive int (§ 690.3(b)(2)), not {multiplier!r}")


def cell_name(game: Spot | str, index: int) -> str:
    """How a message names cell ``index`` (0-based) of ``game``'s board: the coin's side
    ("red side"), Cash Hunt's "cell 17", Pachinko's 1-based "spot 5", Crazy Time World's
    "section 17" (sections 0..63)."""
    game = _bonus_game(game)
    if game is Spot.COIN_FLIP:
        return f"{COIN_SIDES[index]} side" if 0 <= index < len(COIN_SIDES) else f"cell {index}"
    if game is Spot.PACHINKO:
        return f"spot {index + 1}"
    if game is Spot.CRAZY_TIME:
        return f"section {index}"
    return f"cell {index}"


def apply_top_slot(values: Sequence[int], multiplier: int) -> tuple[int, ...]:
    """The board after the Top Slot multiplier: every multiplier times ``multiplier``, a "Double"
    stays "Double" (§ 690.5(e), § 690.6(g), § 690.7(f), § 690.8(f): the Top Slot multiplier "shall
    be multiplied by all … payout odds"; "Double" is no payout odds)."""
    _check_multiplier(multiplier)
    return tuple(DOUBLE if v == DOUBLE else v * multiplier for v in values)


def board_deviations(game: Spot | str, values: Sequence[int], multiplier: int = 1) -> list[str]:
    """Every way a bonus board, as generated (``multiplier`` 1) or as shown after the Top Slot
    multiplier ``multiplier``, deviates from the regulation; empty if it complies.

    Checked: the number of cells (§ 690.5(c): two sides; § 690.6(b): 108; § 690.7(b): 16;
    § 690.8(b): 64); every cell's multiplier before the Top Slot (``value / multiplier``; a value
    that is not a multiple of ``multiplier`` cannot have been multiplied by it) within the game's
    range (§ 690.5(c)(1), § 690.6(b)(1), § 690.7(c)(1), § 690.8(b)(1)); "Double" only where it
    may be displayed, and in one cell at most (§ 690.7(c)(2), § 690.8(b)(2)).

    Not for a board after a Double or a Rescue (§ 690.7(e), (g), § 690.8(e)): those may exceed
    the range (§ 690.7(c)(3), § 690.8(b)(5)).
    """
    game = _bonus_game(game)
    _check_multiplier(multiplier)
    cells, (low, high), may_double = BOARDS[game]
    sec = _BOARD_SECTIONS[game]
    out: list[str] = []
    if len(values) != cells:
        out.append(f"{sec['cells']}: the board has {len(values)} {sec['what']}; expected {cells}")
    doubles = []
    for i, v in enumerate(values):
        name = cell_name(game, i)
        if isinstance(v, bool) or not isinstance(v, int):
            out.append(f"{sec['range']}: {name} shows {v!r}, which is no whole multiplier")
            continue
        if v == DOUBLE:
            doubles.append(name)
            if not may_double:
                out.append(f"{sec['double']}: {name} shows Double; multipliers range from {low}x to {high}x "
                           f"and this game has no Double")
            continue
        if v % multiplier:
            out.append(f"{sec['top_slot']}: {name} shows {v}x, which is not a multiplier times the Top Slot "
                       f"multiplier {multiplier}x")
            continue
        base = v // multiplier
        if not low <= base <= high:
            shown = f"{v}x" if multiplier == 1 else f"{v}x ({base}x times the Top Slot multiplier {multiplier}x)"
            out.append(f"{sec['range']}: {name} shows {shown}; multipliers range from {low}x to {high}x")
    if may_double and len(doubles) > 1:
        out.append(f"{sec['double']}: \"Double\" may be displayed in one {sec['what'][:-1]} only; "
                   f"{len(doubles)} show it ({', '.join(doubles)})")
    return out


# --------------------------------------------------------------------------- Coin Flip § 690.5

def _coin(values: Sequence[int], face: str) -> None:
    if len(values) != len(COIN_SIDES):
        raise ValueError(f"§ 690.5(b)–(c): a coin has two sides with a multiplier each, not {len(values)} values")
    if face not in COIN_SIDES:
        raise ValueError(f"§ 690.5(b): the coin's sides are {' and '.join(COIN_SIDES)}, not {face!r}")


def coin_value(values: Sequence[int], face: str) -> int:
    """The winning payout odds of a flip: the multiplier on the side that "comes to rest face up"
    (§ 690.5(d)). ``values`` are (red, blue) as displayed; ``face`` is "red" or "blue"."""
    _coin(values, face)
    return values[COIN_SIDES.index(face)]


def rescue_value(value: int, reading: str = DEFAULT_RESCUE_READING, top_slot_multiplier: int = 1,
                 literal: bool = False) -> Fraction:
    """What the Rescue conditions (§ 690.5(f), § 690.7(g)) judge of a cell showing ``value``: the
    displayed value itself (``reading`` "displayed"), or the multiplier without the Top Slot
    multiplier ``top_slot_multiplier`` ("before-top-slot": ``value / top_slot_multiplier``). A
    ``literal`` cell — the 50x that replaced a Pachinko Double (§ 690.7(e)(2)), which the Top Slot
    never multiplied — is its value under either reading. "Double" is no multiplier: 0."""
    if reading not in RESCUE_READINGS:
        raise ValueError(f"rescue reading {reading!r}: one of {', '.join(RESCUE_READINGS)}")
    _check_multiplier(top_slot_multiplier)
    if value == DOUBLE or literal or reading == "displayed":
        return Fraction(value)
    return Fraction(value, top_slot_multiplier)


def rescue_flip_unmet(values: Sequence[int], face: str, reading: str = DEFAULT_RESCUE_READING,
                      top_slot_multiplier: int = 1) -> tuple[str, ...]:
    """The conditions of § 690.5(f)(1)–(3) a flip that landed ``face`` up does not meet, each named by
    its paragraph; empty when a Rescue Flip may be activated (``rescue_flip_eligible``). Same
    arguments and reading as ``rescue_flip_eligible``."""
    _coin(values, face)
    judged = [rescue_value(v, reading, top_slot_multiplier) for v in values]
    small, big = sorted(judged)
    if small == big:
        return (f"(f)(1)–(3): both sides show {small}x, so there is no small multiplier distinct from the big one",)
    out = []
    if small not in RESCUE_FLIP_SMALL:
        out.append(f"(f)(1): the small multiplier was {small}x, not 2x or 3x")
    if not big > RESCUE_FLIP_BIG_ABOVE:
        out.append(f"(f)(2): the big multiplier was {big}x, not greater than {RESCUE_FLIP_BIG_ABOVE}x")
    if judged[COIN_SIDES.index(face)] != small:
        out.append(f"(f)(3): the coin landed with the big multiplier ({big}x) facing up, not the small one")
    return tuple(out)


def rescue_flip_eligible(values: Sequence[int], face: str, reading: str = DEFAULT_RESCUE_READING,
                         top_slot_multiplier: int = 1) -> bool:
    """Whether a Rescue Flip may be activated after a flip that landed ``face`` up (§ 690.5(f)):
    all of "(1) The small multiplier was 2× or 3×. (2) The big multiplier was greater than 15×.
    (3) The coin landed with the small multiplier facing up." (``rescue_flip_unmet`` names the
    ones that fail.)

    ``values`` are the sides as displayed (red, blue), after the Top Slot multiplier
    ``top_slot_multiplier`` (§ 690.5(e): applied "prior to the coin being flipped"). ``reading``
    "displayed" (the default) judges (f)(1)–(3) on them: a 2× side under a 2× Top Slot shows 4× and
    is no longer small enough; "before-top-slot" judges the multipliers as generated (4× under ×2
    is a 2×). Two equal sides have no small multiplier distinct from the big one: not eligible.
    """
    _coin(values, face)
    judged = [rescue_value(v, reading, top_slot_multiplier) for v in values]
    small, big = sorted(judged)
    return (small != big                                          # a small multiplier distinct from the big one
            and small in RESCUE_FLIP_SMALL                            # (1)
            and big > RESCUE_FLIP_BIG_ABOVE                           # (2)
            and judged[COIN_SIDES.index(face)] == small)              # (3)


# --------------------------------------------------------------------------- Pachinko § 690.7

def _spot_index(values: Sequence[int], landed_spot: int) -> int:
    if isinstance(landed_spot, bool) or not isinstance(landed_spot, int) or not 1 <= landed_spot <= len(values):
        raise ValueError(f"§ 690.7(b): landing spots are numbered 1..{len(values)}, not {landed_spot!r}")
    return landed_spot - 1


def pachinko_double(values: Sequence[int], landed_spot: int) -> tuple[int, ...]:
    """The board after the puck came to rest on "Double" in ``landed_spot`` (1-based) (§ 690.7(e)):
    "(1) All other multipliers in the other landing spots shall be doubled. (2) The "Double" shall
    be replaced with 50×."

    The 50× is literal: it is not multiplied by the Top Slot multiplier (§ 690.7(f) multiplies
    the payout odds displayed before the drop; the 50× appears later) nor doubled."""
    i = _spot_index(values, landed_spot)
    if values[i] != DOUBLE:
        raise ValueError(f"§ 690.7(e): spot {landed_spot} shows {values[i]}x, not Double")
    if values.count(DOUBLE) != 1:
        raise ValueError(f"§ 690.7(c)(2): \"Double\" may be displayed in one slot; {values.count(DOUBLE)} show it")
    return tuple(DOUBLE_REPLACEMENT if j == i else 2 * v for j, v in enumerate(values))


def pachinko_rescue_eligible(value: int, reading: str = DEFAULT_RESCUE_READING, top_slot_multiplier: int = 1,
                             literal: bool = False) -> bool:
    """Whether a Rescue Drop may be activated on the multiplier the puck rests on: "when the puck
    comes to rest on a 2×, 3× or 4× multiplier" (§ 690.7(g)). ``value`` is the landing spot as
    displayed (after the Top Slot multiplier, § 690.7(f), and any Double, § 690.7(e)); ``reading``
    "displayed" judges it as shown, "before-top-slot" as ``value / top_slot_multiplier``
    (``rescue_value``; a ``literal`` 50x is 50x either way)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return rescue_value(value, reading, top_slot_multiplier, literal) in PACHINKO_RESCUE_TRIGGERS


def pachinko_rescue(values: Sequence[int], trigger: int, reading: str = DEFAULT_RESCUE_READING,
                    top_slot_multiplier: int = 1, literal: Collection[int] = ()) -> tuple[int, ...]:
    """The board after a Rescue Drop activated on a spot showing ``trigger`` (§ 690.7(g)): "(1) A
    multiplier lower than the triggering multiplier shall be updated to be equal to the triggering
    multiplier. (2) A multiplier equal to or greater than the triggering multiplier shall remain
    the same." A "Double" is no multiplier and stays.

    Cells are compared as ``reading`` judges them (``rescue_value``): on one board every cell
    carries the same Top Slot multiplier, so both readings raise the same cells to the trigger's
    displayed value — except a ``literal`` cell (0-based indices: the 50x that replaced a Double,
    § 690.7(e)(2)), which is 50x under either reading and so never lower than a 2x–4x multiplier."""
    if not pachinko_rescue_eligible(trigger, reading, top_slot_multiplier):
        raise ValueError(f"§ 690.7(g): a Rescue Drop is activated on a 2x, 3x or 4x multiplier, not {trigger!r} "
                         f"(rescue reading {reading!r}, Top Slot multiplier x{top_slot_multiplier})")
    t = rescue_value(trigger, reading, top_slot_multiplier)
    out = []
    for i, v in enumerate(values):
        lit = i in literal
        if v != DOUBLE and rescue_value(v, reading, top_slot_multiplier, lit) < t:
            out.append(int(t) if lit else trigger)
        else:
            out.append(v)
    return tuple(out)


# --------------------------------------------------------------------------- Crazy Time World § 690.8

def ctw_double(values: Sequence[int], second: bool) -> tuple[int, ...]:
    """The wheel after the selected clapper came to rest on "Double" (§ 690.8(e)): "(1) All
    multipliers on the wheel shall be doubled"; the second time (``second``), "(3) … doubled a
    second time. The "Double" shall be replaced by a 50× multiplier" — literally 50×, neither
    doubled nor multiplied by the Top Slot multiplier. After the first Double it stays "Double"."""
    if values.count(DOUBLE) != 1:
        raise ValueError(f"§ 690.8(b)(2): \"Double\" may be displayed in one section; "
                         f"{values.count(DOUBLE)} show it, so the clapper cannot have landed on the Double")
    return tuple((DOUBLE_REPLACEMENT if second else DOUBLE) if v == DOUBLE else 2 * v for v in values)


def clapper_deviations(clappers: Sequence[int], sections: int = CTW_SECTIONS) -> list[str]:
    """Every way the clappers' positions deviate from § 690.8(b); empty if they comply.

    ``clappers``: the section (0-based, 0..sections-1) each clapper is on. § 690.8(b): "three
    clappers" on a wheel of ``sections`` sections; § 690.8(b)(4): "spaced so that there are at
    least two sections of the wheel between clappers" — checked between each pair of neighbouring
    clappers going round the wheel, across the wrap from the last section to section 0 too
    (1, 4, 7 complies; 1, 3, … does not).
    """
    out: list[str] = []
    if len(clappers) != CTW_CLAPPERS:
        out.append(f"§ 690.8(b): the wheel has {CTW_CLAPPERS} clappers; found {len(clappers)}")
    ok = []
    for c in clappers:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < sections:
            out.append(f"§ 690.8(b): a clapper is on section {c!r}; the wheel's {sections} sections are "
                       f"numbered 0..{sections - 1}")
        else:
            ok.append(c)
    if dup := sorted(c for c, n in Counter(ok).items() if n > 1):
        out.append(f"§ 690.8(b)(4): more than one clapper on section(s) {', '.join(map(str, dup))}")
    positions = sorted(set(ok))
    if len(positions) >= 2:
        for a, b in zip(positions, positions[1:] + positions[:1]):
            between = (b - a) % sections - 1
            if between < CTW_MIN_SECTIONS_BETWEEN:
                out.append(f"§ 690.8(b)(4): the clappers on sections {a} and {b} have {between} section(s) "
                           f"between them; at least {CTW_MIN_SECTIONS_BETWEEN} required")
    return out
