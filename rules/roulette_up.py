"""Roulette Up (§ 617b.4): the streak, its paytables and their exact RTP.

Pure: frozen dataclasses and functions, no I/O, no clocks. Odds are exact (``rules.odds``):
the non-progressive paytables pay "N to 1" (``ToOne``), the progressive ones "N for 1"
(``ForOne``). Money is integer cents.

The streak (§ 617b.4(f)–(g)): the number the ball comes to rest in after the Roulette Up wagers
are placed is the starting number, box 1 of the streak tracker (§ 617b.4(f)). Each later number
that is greater than the one before moves the dolly to the next box (§ 617b.4(g)(1)(i)); on a
double-zero wheel 0 < 00 < 1 (§ 617b.4(g)(1)(ii), ``rules.roulette.streak_rank``). The streak
ends (§ 617b.4(g)(2)) when a number is less than or equal to the preceding one (it adds no box),
when 36 is spun (it adds its box: it is greater than any number before it), or when the longest
streak of the paytable is reached. Wagers are taken only before the starting number is
established (§ 617b.4(d)): ``StreakState.wagers_open``.

The paytables are transcribed below as the rows of § 617b.4(h) (Pa.B. 54-1537 text) and parsed at
import, so that a reviewer can compare them with the regulation row by row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.odds import ForOne, ToOne
from rules.roulette import HIGHEST_NUMBER, Pocket, Wheel, parse_pocket, pockets, streak_rank


# --------------------------------------------------------------------------- payouts

@dataclass(frozen=True)
class Loss:
    """"Loss": the wager is lost."""

    def __str__(self) -> str:
        return "Loss"


@dataclass(frozen=True)
class Push:
    """"Push": the wager is returned, nothing is paid."""

    def __str__(self) -> str:
        return "Push"


@dataclass(frozen=True)
class ProgressiveMeter:
    """"100% of progressive meter": the amount on the meter is paid (in total: see
    ``settle_streak``)."""

    percent: int = 100

    def __str__(self) -> str:
        return f"{self.percent}% of progressive meter"


Payout = ToOne | ForOne | Loss | Push | ProgressiveMeter
LOSS, PUSH, METER = Loss(), Push(), ProgressiveMeter()


def _payout(cell: str) -> Payout | None:
    """One cell of a § 617b.4(h) paytable; None for "n/a" (no such streak on this paytable)."""
    cell = cell.strip()
    if m := re.fullmatch(r"([\d,]+) (to|for) 1", cell):
        n = int(m[1].replace(",", ""))
        return ToOne(n) if m[2] == "to" else ForOne(n)
    return {"Loss": LOSS, "Push": PUSH, "100% of progressive meter": METER, "n/a": None}[cell]


# --------------------------------------------------------------------------- paytables

#: § 617b.4(h)(1), transcribed row by row: streak length | A | B | C | D | E.
NON_PROGRESSIVE_ROWS = """
| 8 | 400 to 1 | 400 to 1 | 275 to 1 | 800 to 1 | 250 to 1 |
| 7 | 150 to 1 | 100 to 1 | 150 to 1 | 400 to 1 | 125 to 1 |
| 6 | 100 to 1 | 25 to 1 | 25 to 1 | 100 to 1 | 50 to 1 |
| 5 | 30 to 1 | 10 to 1 | 15 to 1 | 30 to 1 | 15 to 1 |
| 4 | 10 to 1 | 4 to 1 | 10 to 1 | 20 to 1 | 5 to 1 |
| 3 | 2 to 1 | 2 to 1 | 3 to 1 | Loss | 1 to 1 |
| 2 | Loss | Push | Loss | Loss | Push |
| 1 | Loss | Loss | Loss | Loss | Loss |
"""
NON_PROGRESSIVE_NAMES = ("A", "B", "C", "D", "E")

#: § 617b.4(h)(2), transcribed row by row per progressive paytable: streak length | payout, and on
#: the first row | seed/reseed | incrementation | reserve rate.
PROGRESSIVE_ROWS: Mapping[str, str] = MappingProxyType({
    "1": """
| 9 | 100% of progressive meter | 10,000× the progressive wager | 20% | 4% |
| 8 | 3,000 for 1 | |
| 7 | 1,500 for 1 | |
| 6 | 250 for 1 | |
| 5 | 25 for 1 | |
| 4 | Loss | |
| 3 | Loss | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "2": """
| 9 | 100% of progressive meter | 10,000× the progressive wager | 20% | 4% |
| 8 | 5,000 for 1 | |
| 7 | 2,000 for 1 | |
| 6 | 200 for 1 | |
| 5 | 20 for 1 | |
| 4 | Loss | |
| 3 | Loss | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "3": """
| 9 | 100% of progressive meter | 10,000× the progressive wager | 18% | 4% |
| 8 | 1,000 for 1 | |
| 7 | 500 for 1 | |
| 6 | 100 for 1 | |
| 5 | 20 for 1 | |
| 4 | 10 for 1 | |
| 3 | Loss | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "4": """
| 9 | n/a | 3,000× the progressive wager | 18% | 5% |
| 8 | 100% of progressive meter | |
| 7 | 250 for 1 | |
| 6 | 50 for 1 | |
| 5 | 20 for 1 | |
| 4 | 4 for 1 | |
| 3 | 2 for 1 | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "5": """
| 9 | n/a | 3,000× the progressive wager | 18% | 5% |
| 8 | 100% of progressive meter | |
| 7 | 350 for 1 | |
| 6 | 75 for 1 | |
| 5 | 15 for 1 | |
| 4 | 4 for 1 | |
| 3 | 2 for 1 | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "6": """
| 9 | n/a | 3,000× the progressive wager | 18% | 5% |
| 8 | 100% of progressive meter | |
| 7 | 500 for 1 | |
| 6 | 100 for 1 | |
| 5 | 20 for 1 | |
| 4 | 10 for 1 | |
| 3 | Loss | |
| 2 | Loss | |
| 1 | Loss | |
""",
    "7": """
| 9 | n/a | 3,000× the progressive wager | 19% | n/a |
| 8 | 100% of progressive meter | |
| 7 | 450 for 1 | |
| 6 | 100 for 1 | |
| 5 | 20 for 1 | |
| 4 | 10 for 1 | |
| 3 | Loss | |
| 2 | Loss | |
| 1 | Loss | |
""",
})


@dataclass(frozen=True)
class ProgressiveTerms:
    """The seed/reseed, incrementation and reserve rate of a progressive paytable (§ 617b.4(h)(2)).

    ``seed_multiple``: the meter's seed and reseed, in progressive wagers ("10,000× the
    progressive wager"); ``increment_rate`` and ``reserve_rate``: the fraction of each progressive
    wager added to the meter and to the reserve (None: "n/a")."""

    seed_multiple: int
    increment_rate: Fraction
    reserve_rate: Fraction | None


@dataclass(frozen=True)
class RouletteUpPaytable:
    """One § 617b.4(h) paytable: the payout for each streak length 1..``longest``.

    ``longest`` is "the longest Roulette Up streak" of § 617b.4(g)(2)(iii): the longest streak
    the paytable has a payout for (8 on A–E and progressive 4–7, whose length 9 is "n/a"; 9 on
    progressive 1–3)."""

    name: str
    pays: Mapping[int, Payout]
    progressive: ProgressiveTerms | None = None

    @property
    def longest(self) -> int:
        return max(self.pays)

    @property
    def label(self) -> str:
        return f"Paytable {self.name}" if self.progressive is None else f"Progressive Paytable {self.name}"

    def payout(self, length: int) -> Payout:
        if length not in self.pays:
            raise ValueError(f"{self.label} has no streak of length {length} (1–{self.longest}; § 617b.4(h))")
        return self.pays[length]


def _rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.strip().splitlines()]


def _percent(cell: str) -> Fraction | None:
    return None if cell == "n/a" else Fraction(int(cell.removesuffix("%")), 100)


def _non_progressive() -> dict[str, RouletteUpPaytable]:
    cols: dict[str, dict[int, Payout]] = {n: {} for n in NON_PROGRESSIVE_NAMES}
    for length, *cells in _rows(NON_PROGRESSIVE_ROWS):
        for name, cell in zip(NON_PROGRESSIVE_NAMES, cells, strict=True):
            payout = _payout(cell)
            assert payout is not None and not isinstance(payout, ForOne | ProgressiveMeter)
            cols[name][int(length)] = payout
    return {n: RouletteUpPaytable(n, MappingProxyType(dict(sorted(p.items())))) for n, p in cols.items()}


def _progressive(name: str, text: str) -> RouletteUpPaytable:
    rows = _rows(text)
    pays: dict[int, Payout] = {}
    for length, cell, *_ in rows:
        if (payout := _payout(cell)) is not None:
            assert not isinstance(payout, ToOne | Push), "progressive paytables pay 'for 1'"
            pays[int(length)] = payout
    seed, increment, reserve = rows[0][2:5]
    seed_multiple = int(re.fullmatch(r"([\d,]+)× the progressive wager", seed)[1].replace(",", ""))  # type: ignore[index]
    increment_rate = _percent(increment)
    assert increment_rate is not None
    return RouletteUpPaytable(name, MappingProxyType(dict(sorted(pays.items()))),
                              ProgressiveTerms(seed_multiple, increment_rate, _percent(reserve)))


#: Every § 617b.4(h) paytable by name: "A"–"E" (non-progressive), "1"–"7" (progressive).
PAYTABLES: Mapping[str, RouletteUpPaytable] = MappingProxyType({
    **_non_progressive(), **{n: _progressive(n, t) for n, t in PROGRESSIVE_ROWS.items()}})
for _t in PAYTABLES.values():
    assert sorted(_t.pays) == list(range(1, _t.longest + 1)), f"{_t.label}: a streak length is missing"
    assert (sum(isinstance(p, ProgressiveMeter) for p in _t.pays.values()) == 1) == (_t.progressive is not None)


def paytable(name: str | RouletteUpPaytable) -> RouletteUpPaytable:
    """A § 617b.4(h) paytable by name ("A"–"E", "1"–"7"; "P1" is "1")."""
    if isinstance(name, RouletteUpPaytable):
        return name
    key = str(name).upper().removeprefix("P")
    if key not in PAYTABLES:
        raise ValueError(f"no Roulette Up paytable {name!r}: § 617b.4(h) has A–E and progressive 1–7")
    return PAYTABLES[key]


#: the name of the Roulette Up meter on the progressive table game system (one meter per table)
UP_METER = "progressive"


def meter_spec(table: str | RouletteUpPaytable, stake_cents: int) -> dict[str, Any]:
    """The progressive table game system's meter for a progressive paytable's row (§ 617b.4(h)(2))
    on a progressive wager of ``stake_cents`` (``devices.progressive.MeterSpec`` fields): the seed
    and the reseed are the one "Seed/Reseed" cell — N× the progressive wager — and the
    incrementation and reserve rates are exact fractions of each wager ("n/a" reserve: none, 0).
    ValueError for a non-progressive paytable."""
    t = paytable(table)
    if t.progressive is None:
        raise ValueError(f"{t.label} is not progressive: it has no meter (§ 617b.4(h)(1))")
    if isinstance(stake_cents, bool) or not isinstance(stake_cents, int) or stake_cents <= 0:
        raise ValueError(f"the progressive wager is a positive number of cents, not {stake_cents!r}")
    seed = t.progressive.seed_multiple * stake_cents
    return {"name": UP_METER, "seed_cents": seed, "reseed_cents": seed,
            "increment_rate": str(t.progressive.increment_rate), "reserve_rate": str(t.progressive.reserve_rate or 0)}


# --------------------------------------------------------------------------- the streak

class EndReason(StrEnum):
    """Why a streak ended (§ 617b.4(g)(2))."""

    NOT_GREATER = "less than or equal to the preceding number"
    """§ 617b.4(g)(2)(i); the number adds no box."""
    THIRTY_SIX = "36 spun"
    """§ 617b.4(g)(2)(ii); 36 adds its box (it is greater than the number before it)."""
    LONGEST = "longest streak reached"
    """§ 617b.4(g)(2)(iii)."""


@dataclass(frozen=True)
class StreakState:
    """The Roulette Up streak tracker (§ 617b.4(b), (f)–(g)) as an immutable value.

    ``numbers``: every number announced since the wagers closed, the starting number first and
    the number that ended the streak (if any) last; ``length``: the box the dolly is in (0 before
    the starting number). ``add`` returns the next state; a streak that ended takes no number.
    """

    wheel: Wheel
    longest: int
    numbers: tuple[Pocket, ...] = ()
    length: int = 0
    end_reason: EndReason | None = None

    @classmethod
    def start(cls, wheel: Wheel | str, table: str | RouletteUpPaytable) -> StreakState:
        """An empty tracker for ``table``'s longest streak, wagers open."""
        return cls(Wheel(wheel), paytable(table).longest)

    @property
    def ended(self) -> bool:
        return self.end_reason is not None

    @property
    def wagers_open(self) -> bool:
        """§ 617b.4(d): a Roulette Up wager may be placed only before the starting number is
        established."""
        return not self.numbers

    def add(self, number: Pocket | str) -> StreakState:
        """The tracker after ``number`` is announced (§ 617a.5(c))."""
        if self.ended:
            raise ValueError(f"the Roulette Up streak already ended ({self.end_reason}) at length {self.length}; "
                             f"settle it (§ 617b.4(h)) before tracking another")
        pocket = parse_pocket(number, self.wheel)
        numbers = (*self.numbers, pocket)
        if not self.numbers:  # § 617b.4(f): the starting number, box 1
            length, reason = 1, None
        elif streak_rank(pocket) > streak_rank(self.numbers[-1]):  # § 617b.4(g)(1)(i): next box
            length, reason = self.length + 1, None
        else:
            return StreakState(self.wheel, self.longest, numbers, self.length, EndReason.NOT_GREATER)
        if pocket == HIGHEST_NUMBER:
            # § 617b.4(g)(2)(ii). Decision: a starting number of 36 ends the streak at length 1 at
            # once (no later number could be greater, so the result is the same either way).
            reason = EndReason.THIRTY_SIX
        elif length >= self.longest:
            reason = EndReason.LONGEST
        return StreakState(self.wheel, self.longest, numbers, length, reason)


def track(wheel: Wheel | str, table: str | RouletteUpPaytable, numbers: Any) -> StreakState:
    """The tracker after ``numbers`` (stops reading at the end of the streak)."""
    state = StreakState.start(wheel, table)
    for n in numbers:
        if state.ended:
            break
        state = state.add(n)
    return state


# --------------------------------------------------------------------------- settlement

@dataclass(frozen=True)
class RouletteUpSettlement:
    """The settlement of one Roulette Up wager (§ 617b.4(h)).

    ``returned_cents``: everything handed to the player, stake included (0 on a loss; the stake
    on a push; stake + N·stake for "N to 1"; N·stake for "N for 1"; the meter for "100% of
    progressive meter")."""

    paytable: str
    length: int
    payout: Payout
    stake_cents: int
    returned_cents: int

    @property
    def win_cents(self) -> int:
        """The player's gain (negative: the stake lost)."""
        return self.returned_cents - self.stake_cents


def settle_streak(table: str | RouletteUpPaytable, streak: StreakState | int, stake_cents: int,
                  meter_cents: int | None = None) -> RouletteUpSettlement:
    """Settle a Roulette Up wager of ``stake_cents`` on an ended streak (or its length).

    "100% of progressive meter" pays ``meter_cents`` in total — like the "N for 1" rows beside it,
    the stake is not returned on top (decision; see docs/rules-roulette.md)."""
    t = paytable(table)
    if isinstance(streak, StreakState):
        if not streak.ended:
            raise ValueError("§ 617b.4(h): the wager is settled once the streak has ended; it has not")
        if streak.longest != t.longest:
            raise ValueError(f"the streak was tracked for a longest streak of {streak.longest}, {t.label} has {t.longest}")
        length = streak.length
    else:
        length = streak
    if isinstance(stake_cents, bool) or not isinstance(stake_cents, int) or stake_cents <= 0:
        raise ValueError(f"a stake is a positive number of cents, not {stake_cents!r}")
    payout = t.payout(length)
    if isinstance(payout, ToOne):
        returned = stake_cents + payout.profit_cents(stake_cents)
    elif isinstance(payout, ForOne):
        returned = math.floor(payout.ratio * stake_cents)
    elif isinstance(payout, Push):
        returned = stake_cents
    elif isinstance(payout, Loss):
        returned = 0
    else:
        if meter_cents is None:
            raise ValueError(f"{t.label} pays the progressive meter on a streak of {length}: give meter_cents")
        returned = meter_cents
    return RouletteUpSettlement(t.name, length, payout, stake_cents, returned)


# --------------------------------------------------------------------------- exact RTP

def streak_length_distribution(wheel: Wheel | str, longest: int) -> dict[int, Fraction]:
    """P(the streak ends at length k), k = 1..``longest``, exactly, on a fair ``wheel``.

    A Markov chain on the rank of the last number (``streak_rank``): from rank r < top, the next
    number is greater (1/N each of the N-1-r greater ranks) or not ((r+1)/N: the streak ends); a
    streak at the top rank (36) or at ``longest`` ends. Closed form (tested): P(length ≥ k) =
    C(N, k)/N^k for k ≤ ``longest`` — the first k numbers strictly increasing.
    """
    ranks = sorted(streak_rank(p) for p in pockets(wheel))
    n, top = len(ranks), ranks[-1]
    if isinstance(longest, bool) or not isinstance(longest, int) or longest < 1:
        raise ValueError(f"the longest streak is a positive int, not {longest!r}")
    dist = dict.fromkeys(range(1, longest + 1), Fraction(0))
    at = {r: Fraction(1, n) for r in ranks}  # P(streak reached length k with last rank r)
    for k in range(1, longest + 1):
        nxt = dict.fromkeys(ranks, Fraction(0))
        for r, p in at.items():
            if not p:
                continue
            if r == top or k == longest:
                dist[k] += p
                continue
            dist[k] += p * Fraction(sum(1 for s in ranks if s <= r), n)
            for s in ranks:
                if s > r:
                    nxt[s] += p / n
        at = nxt
    return dist


def payout_return(payout: Payout, seed_multiple: int | None = None) -> Fraction:
    """What ``payout`` returns per unit wagered, stake included (the meter at its seed)."""
    if isinstance(payout, ToOne):
        return 1 + payout.ratio
    if isinstance(payout, ForOne):
        return payout.ratio
    if isinstance(payout, Push):
        return Fraction(1)
    if isinstance(payout, Loss):
        return Fraction(0)
    if seed_multiple is None:
        raise ValueError("the progressive meter needs its seed")
    return Fraction(seed_multiple * payout.percent, 100)


@dataclass(frozen=True)
class RouletteUpRtp:
    """The exact RTP of one Roulette Up paytable on one wheel.

    ``rtp_exact``: expected return per unit wagered with the meter at its seed.
    ``rtp_long_run_exact`` (progressive only): ``rtp_exact`` + the increment rate — over many
    meter cycles every increment is paid out with the meter; the reserve rate is NOT added (it
    funds the fixed reseed, which ``rtp_exact`` already counts)."""

    wager: str
    wheel: Wheel
    rtp_exact: Fraction
    method: str = "exact"
    hit_probability: Fraction | None = None
    increment_rate: Fraction | None = None
    reserve_rate: Fraction | None = None
    rtp_long_run_exact: Fraction | None = None
    length_probabilities: Mapping[int, Fraction] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        def frac(x: Fraction) -> str:
            return f"{x.numerator}/{x.denominator}"

        out: dict[str, Any] = {"wager": self.wager, "rtp": float(self.rtp_exact), "rtp_exact": frac(self.rtp_exact),
                               "method": self.method, "wheel": str(self.wheel)}
        if self.rtp_long_run_exact is not None:
            assert self.increment_rate is not None and self.hit_probability is not None
            out |= {"rtp_long_run": float(self.rtp_long_run_exact), "rtp_long_run_exact": frac(self.rtp_long_run_exact),
                    "meter_hit_probability": frac(self.hit_probability),
                    "increment_rate": frac(self.increment_rate),
                    "reserve_rate": None if self.reserve_rate is None else frac(self.reserve_rate)}
        return out


def roulette_up_rtp(table: str | RouletteUpPaytable, wheel: Wheel | str) -> tuple[RouletteUpRtp, ...]:
    """Exact RTP of the Roulette Up wager under ``table`` on a fair ``wheel`` (one entry):
    Σ_k P(streak length k) · return(k), with ``streak_length_distribution`` capped at the
    paytable's longest streak."""
    t, wheel = paytable(table), Wheel(wheel)
    dist = streak_length_distribution(wheel, t.longest)
    terms = t.progressive
    seed = terms.seed_multiple if terms else None
    rtp = sum((p * payout_return(t.pays[k], seed) for k, p in dist.items()), Fraction(0))
    name = f"roulette-up {t.name}" if terms is None else f"roulette-up progressive {t.name}"
    if terms is None:
        return (RouletteUpRtp(name, wheel, rtp, length_probabilities=MappingProxyType(dist)),)
    hit = sum((p for k, p in dist.items() if isinstance(t.pays[k], ProgressiveMeter)), Fraction(0))
    return (RouletteUpRtp(name, wheel, rtp, hit_probability=hit, increment_rate=terms.increment_rate,
                          reserve_rate=terms.reserve_rate, rtp_long_run_exact=rtp + terms.increment_rate,
                          length_probabilities=MappingProxyType(dist)),)


def roulette_up_rtp_table() -> tuple[RouletteUpRtp, ...]:
    """``roulette_up_rtp`` for every paytable (A–E, 1–7) on both wheels."""
    return tuple(e for w in Wheel for name in PAYTABLES for e in roulette_up_rtp(name, w))
