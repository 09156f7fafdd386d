"""Blackjack side wagers (58 Pa. Code §§ 633b.17–633b.21): the paytables as the text prints them.

Pure data and parsing, no rules logic (that is ``rules.blackjack_side``). Each paytable is
transcribed below as the regulation's rows (Pa.B. 54-1537 text; the "|---|" table rules left out)
and parsed at import into ``SidePaytable``s, so that a reviewer can compare them with the text row
by row (a test compares them line by line with the Bulletin file). The hands of each wager are
``StrEnum``s, highest first, in the order of the printed rows.

Payouts: "N for 1" is ``ForOne`` (stake included), "N to 1" is ``ToOne`` (stake returned plus
N × stake), "loss" is ``Loss``, "100% of progressive meter" / "100% of meter" / "100% of mega" …
is ``MeterPayout``. Meters: ``MeterTerms`` (seed, increment rate, reserve rate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from rules.cards import ACE, KING, QUEEN
from rules.odds import ForOne, ToOne
from rules.roulette_up import LOSS, Loss

#: The deck counts a blackjack shoe may hold here: § 633b.17(b) bounds the 21+3 shoe at 3 to 8
#: decks; §§ 633b.18–633b.21 set no bound, and we allow 1 to 8 (the card shoe device's range).
MAX_DECKS = 8
TWENTY_ONE_PLUS_THREE_DECKS = range(3, MAX_DECKS + 1)


# --------------------------------------------------------------------------- payouts

@dataclass(frozen=True)
class MeterPayout:
    """"100% of progressive meter" / "100% of meter" / "100% of mega" …: ``percent`` of the
    amount on ``meter``, paid in total (the stake is not returned on top; decision, as for
    Roulette Up: docs/rules-roulette.md)."""

    meter: str = "progressive"
    percent: int = 100

    def __str__(self) -> str:
        return f"{self.percent}% of {self.meter} meter"


Payout = ToOne | ForOne | MeterPayout | Loss

_METER_WORDS = {"progressive meter": "progressive", "meter": "progressive", "mega": "mega", "major": "major",
                "minor": "minor"}


def parse_payout(cell: str) -> Payout:
    """One paytable cell as printed: "125 for 1", "60 to 1", "loss", "100% of progressive meter",
    "100% of meter", "100% of mega", "100% mega" …"""
    cell = cell.strip()
    if m := re.fullmatch(r"([\d,]+) (to|for) 1", cell):
        n = int(m[1].replace(",", ""))
        return ToOne(n) if m[2] == "to" else ForOne(n)
    if cell.lower() == "loss":
        return LOSS
    if m := re.fullmatch(r"(\d+)% (?:of )?(progressive meter|meter|mega|major|minor)", cell):
        return MeterPayout(_METER_WORDS[m[2]], int(m[1]))
    raise ValueError(f"not a paytable cell: {cell!r}")


def payout_return(payout: Payout, seed_wagers: Fraction | None = None) -> Fraction:
    """What ``payout`` returns per unit wagered, stake included; a meter at ``seed_wagers``
    (the seed in wagers; None: no seed, the meter taken as empty)."""
    if isinstance(payout, ToOne):
        return 1 + payout.ratio
    if isinstance(payout, ForOne):
        return payout.ratio
    if isinstance(payout, Loss):
        return Fraction(0)
    return Fraction(payout.percent, 100) * (seed_wagers or 0)


# --------------------------------------------------------------------------- meters

@dataclass(frozen=True)
class MeterTerms:
    """The seed/reseed, increment rate and reserve rate of one progressive meter.

    ``seed_wagers``: the seed as a multiple of the wager ("2,000×", "10,000× the minimum wager");
    ``seed_cents``: a seed printed as money ("$2000", § 633b.17(h)); both None for "N/A" (no seed:
    the meter starts from what the reserve holds; decision, docs/rules-blackjack.md).
    ``increment_rate``/``reserve_rate``: the fraction of each wager added to the meter/reserve
    (``reserve_rate`` None where the text gives none)."""

    meter: str
    seed_wagers: int | None
    seed_cents: int | None
    increment_rate: Fraction
    reserve_rate: Fraction | None

    @property
    def seeded(self) -> bool:
        return self.seed_wagers is not None or self.seed_cents is not None

    def seed_in_wagers(self, wager_cents: int) -> Fraction | None:
        """The seed in units of a wager of ``wager_cents`` (None: no seed)."""
        if self.seed_wagers is not None:
            return Fraction(self.seed_wagers)
        if self.seed_cents is not None:
            return Fraction(self.seed_cents, wager_cents)
        return None

    def long_run_rate(self) -> Fraction:
        """The share of each wager that the meter pays back over many cycles: the increment; for
        an unseeded meter also the reserve (it becomes the next meter's start). A seeded meter's
        reserve funds the fixed reseed, which the seed-valued RTP already counts."""
        return self.increment_rate + (0 if self.seeded else (self.reserve_rate or 0))


def _percent(cell: str) -> Fraction:
    cell = cell.strip()
    return Fraction(0) if cell == "0" else Fraction(int(cell.removesuffix("%")), 100)


def _seed(cell: str) -> tuple[int | None, int | None]:
    """(seed_wagers, seed_cents) of "2,000×", "10,000× the minimum wager", "$2000", "N/A"."""
    cell = cell.strip()
    if cell == "N/A":
        return None, None
    if m := re.fullmatch(r"\$([\d,]+)", cell):
        return None, int(m[1].replace(",", "")) * 100
    if m := re.fullmatch(r"([\d,]+)×(?: the minimum wager)?", cell):
        return int(m[1].replace(",", "")), None
    raise ValueError(f"not a seed: {cell!r}")


# --------------------------------------------------------------------------- paytables

H = TypeVar("H", bound=StrEnum)


@dataclass(frozen=True)
class SidePaytable(Generic[H]):
    """One paytable of one wager.

    ``pays``: the printed rows in order (highest first), hand -> payout; ``labels``: hand -> the
    row as printed; ``terms``: decks -> meter -> ``MeterTerms`` for every deck count the paytable
    may be offered with (empty mappings for a non-progressive paytable); ``premium_ranks``: 21+3
    only, the ranks of the "3 aces or 3 kings" rows; ``not_from_inventory_share``: a meter payout
    whose share of the meter is at least this is not paid from the table inventory (0: any
    percentage of the meter, §§ 633b.17(f)(4), 633b.18(h)(4); 1/10: § 633b.21(e)(3));
    ``floorperson_above``: a win returning more than this many stakes is validated by a floorperson
    or above — 200 for § 633b.21(e)(2)'s "odds greater than 200 for 1"; 0 (every win) for
    §§ 633b.17(f)(3), 633b.18(h)(3), whose "progressive payout" is any payout of the progressive
    wager; None: the text requires none."""

    wager: str
    name: str
    section: str
    pays: Mapping[H, Payout]
    labels: Mapping[H, str]
    terms: Mapping[int, Mapping[str, MeterTerms]]
    premium_ranks: frozenset[int] = frozenset()
    not_from_inventory_share: Fraction = Fraction(0)
    floorperson_above: int | None = None

    def needs_floorperson(self, returned_cents: int, stake_cents: int) -> bool:
        t = self.floorperson_above
        return t is not None and (t == 0 or returned_cents > t * stake_cents)

    @property
    def decks(self) -> tuple[int, ...]:
        return tuple(self.terms)

    @property
    def progressive(self) -> bool:
        return any(isinstance(p, MeterPayout) for p in self.pays.values())

    def meters(self, decks: int) -> Mapping[str, MeterTerms]:
        return self.terms[check_decks(self, decks)]

    def payout(self, hand: H) -> Payout:
        return self.pays.get(hand, LOSS)

    def label(self, hand: H) -> str:
        return self.labels.get(hand, "no winning hand")


def _rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.strip().splitlines()]


def check_decks(table: SidePaytable, decks: int) -> int:
    """``decks`` if ``table`` may be offered with that many decks; ValueError otherwise."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks not in table.terms:
        allowed = table.decks
        why = ("§ 633b.17(b), (h)" if table.wager == "twenty-one-plus-three"
               else f"{table.section.split('(')[0]} sets no number; {MAX_DECKS} decks at most here")
        raise ValueError(f"{table.wager} paytable {table.name} is offered with {allowed[0]} to {allowed[-1]} decks "
                         f"({why}), not {decks!r}")
    return decks


# ---- 21+3 progressive, § 633b.17

class TwentyOnePlusThreeHand(StrEnum):
    """The three-card hands of § 633b.17(g), highest first. "Premium": the ranks of the paytable's
    first two rows (aces and kings; aces, kings and queens; or aces)."""

    DECLARED_SUIT = "premium three of a kind, all of the declared suit"
    SUITED_PREMIUM = "premium three of a kind, suited"
    SUITED_TRIPS = "three-of-a-kind (suited)"
    STRAIGHT_FLUSH = "straight flush"
    TRIPS = "three-of-a-kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    NOTHING = "no winning hand"


#: § 633b.17(g), transcribed row by row: the three tables (paytables 1/4/7/10, 2/5/8, 3/6/9/11).
TWENTY_ONE_PLUS_THREE_ROWS = (
    """
| Hand | Paytable 1 | Paytable 4 | Paytable 7 | Paytable 10 |
| 3 aces or 3 kings (certificate holder declared suit) | 100% of progressive meter | 100% of progressive meter | 100% of progressive meter | 100% of progressive meter |
| 3 aces or 3 kings (suited) | 100% of progressive meter | 100% of progressive meter | 2,000 for 1 | 3,000 for 1 |
| Three-of-a-kind (suited) | 125 for 1 | 150 for 1 | 150 for 1 | 200 for 1 |
| Straight flush | 25 for 1 | 40 for 1 | 40 for 1 | 30 for 1 |
| Three-of-a-kind | 20 for 1 | 20 for 1 | 20 for 1 | 20 for 1 |
| Straight | 7 for 1 | 7 for 1 | 5 for 1 | 10 for 1 |
| Flush | 3 for 1 | 3 for 1 | 3 for 1 | loss |
""",
    """
| Hand | Paytable 2 | Paytable 5 | Paytable 8 |
| 3 aces, 3 kings or 3 queens (certificate holder declared suit) | 100% of progressive meter | 100% of progressive meter | 100% of progressive meter |
| 3 aces, 3 kings or 3 queens (suited) | 100% of progressive meter | 100% of progressive meter | 2,000 for 1 |
| Three-of-a-kind (suited) | 125 for 1 | 150 for 1 | 125 for 1 |
| Straight flush | 25 for 1 | 40 for 1 | 40 for 1 |
| Three-of-a-kind | 20 for 1 | 20 for 1 | 20 for 1 |
| Straight | 6 for 1 | 7 for 1 | 6 for 1 |
| Flush | 2 for 1 | 2 for 1 | 2 for 1 |
""",
    """
| Hand | Paytable 3 | Paytable 6 | Paytable 9 | Paytable 11 |
| 3 aces (certificate holder declared suit) | 100% of progressive meter | 100% of progressive meter | 100% of progressive meter | 100% of progressive meter |
| 3 aces (suited) | 100% of progressive meter | 100% of progressive meter | 2,000 for 1 | 3,000 for 1 |
| Three-of-a-kind (suited) | 125 for 1 | 150 for 1 | 150 for 1 | 200 for 1 |
| Straight flush | 25 for 1 | 40 for 1 | 40 for 1 | 30 for 1 |
| Three-of-a-kind | 20 for 1 | 20 for 1 | 20 for 1 | 20 for 1 |
| Straight | 7 for 1 | 7 for 1 | 5 for 1 | 10 for 1 |
| Flush | 3 for 1 | 3 for 1 | 3 for 1 | loss |
""",
)

#: § 633b.17(h), transcribed row by row.
TWENTY_ONE_PLUS_THREE_METER_ROWS = """
| Paytable | Number of Decks | Seed/Reseed (represented compared to 21+3 wager) | Increment Rate | Reserve Rate |
| Paytable 1 | 3 | 2,000× | 20% | 0 |
| Paytable 1 | 4 or more | 2,000× | 17% | 0 |
| Paytable 2 | 3 | 3,000× | 24% | 0 |
| Paytable 2 | 4 or more | 2,000× | 17% | 0 |
| Paytable 3 | 3 | N/A | 17% | 4% |
| Paytable 3 | 4 or more | $2000 | 17% | 0 |
| Paytable 4 | 4 or more | $2000 | 17% | 0 |
| Paytable 5 | 4 or more | $2000 | 17% | 0 |
| Paytable 6 | 4 or more | $2000 | 17% | 0 |
| Paytable 7 | 4 or more | N/A | 16% | 4% |
| Paytable 8 | 4 or more | N/A | 15% | 5% |
| Paytable 9 | 4 or more | N/A | 16% | 4% |
| Paytable 10 | 4 or more | N/A | 17% | 4% |
| Paytable 11 | 4 or more | N/A | 18% | 4% |
"""

_TWENTY_ONE_PLUS_THREE_LABELS = {
    "Three-of-a-kind (suited)": TwentyOnePlusThreeHand.SUITED_TRIPS,
    "Straight flush": TwentyOnePlusThreeHand.STRAIGHT_FLUSH,
    "Three-of-a-kind": TwentyOnePlusThreeHand.TRIPS,
    "Straight": TwentyOnePlusThreeHand.STRAIGHT,
    "Flush": TwentyOnePlusThreeHand.FLUSH,
}
_PREMIUM_WORDS = {"aces": ACE, "kings": KING, "queens": QUEEN}


def _premium(label: str) -> frozenset[int]:
    return frozenset(_PREMIUM_WORDS[w] for w in re.findall(r"3 (aces|kings|queens)", label))


def _deck_counts(cell: str) -> range:
    """"3" or "4 or more" (up to eight decks, § 633b.17(b))."""
    if m := re.fullmatch(r"(\d+) or more", cell):
        return range(int(m[1]), MAX_DECKS + 1)
    return range(int(cell), int(cell) + 1)


def _twenty_one_plus_three() -> dict[str, SidePaytable[TwentyOnePlusThreeHand]]:
    terms: dict[str, dict[int, Mapping[str, MeterTerms]]] = {}
    for name, decks, seed, increment, reserve in _rows(TWENTY_ONE_PLUS_THREE_METER_ROWS)[1:]:
        key = name.removeprefix("Paytable ")
        t = MeterTerms("progressive", *_seed(seed), _percent(increment), _percent(reserve))
        for d in _deck_counts(decks):
            assert d in TWENTY_ONE_PLUS_THREE_DECKS and d not in terms.get(key, {}), (name, d)
            terms.setdefault(key, {})[d] = MappingProxyType({"progressive": t})
    out: dict[str, SidePaytable[TwentyOnePlusThreeHand]] = {}
    for block in TWENTY_ONE_PLUS_THREE_ROWS:
        header, declared, suited, *rest = _rows(block)
        names = [h.removeprefix("Paytable ") for h in header[1:]]
        premium = _premium(declared[0])
        assert premium and premium == _premium(suited[0]), block
        assert "(certificate holder declared suit)" in declared[0] and "(suited)" in suited[0]
        rows = [(TwentyOnePlusThreeHand.DECLARED_SUIT, declared), (TwentyOnePlusThreeHand.SUITED_PREMIUM, suited),
                *((_TWENTY_ONE_PLUS_THREE_LABELS[r[0]], r) for r in rest)]
        for i, name in enumerate(names):
            out[name] = SidePaytable(
                "twenty-one-plus-three", name, "§ 633b.17(g)",
                MappingProxyType({hand: parse_payout(r[1 + i]) for hand, r in rows}),
                MappingProxyType({hand: r[0] for hand, r in rows}),
                MappingProxyType(dict(sorted(terms[name].items()))), premium, floorperson_above=0)
    assert sorted(out, key=int) == sorted(terms, key=int) == [str(n) for n in range(1, 12)]
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


# ---- Royal Match progressive, § 633b.18

class RoyalMatchHand(StrEnum):
    """§ 633b.18(b), (m), highest first."""

    CROWN_TREASURE = "Crown Treasure"
    ROYAL_MATCH = "Royal Match"
    STRAIGHT_FLUSH = "Two-card straight flush"
    NOTHING = "no winning hand"


#: § 633b.18(i), transcribed row by row.
ROYAL_MATCH_ROWS = """
| Hand | Paytable A |
| Crown Treasure | 100% of meter |
| Royal Match | 60 to 1 |
| Two-card straight flush | 10 to 1 |
| Seed amount | 10,000× the minimum wager |
| Increment rate | 15% |
"""
#: § 633b.18(k): "an Envy Bonus shall be paid to all other players who have made a Royal Match
#: progressive wager at a payout of 500 to 1".
ENVY_BONUS = parse_payout("500 to 1")


def _royal_match() -> dict[str, SidePaytable[RoyalMatchHand]]:
    header, *rows = _rows(ROYAL_MATCH_ROWS)
    cells = {r[0]: r[1] for r in rows}
    hands = [RoyalMatchHand(r[0]) for r in rows[:3]]
    seed_wagers, seed_cents = _seed(cells["Seed amount"])
    meter = MeterTerms("progressive", seed_wagers, seed_cents, _percent(cells["Increment rate"]), None)
    return {header[1].removeprefix("Paytable "): SidePaytable(
        "royal-match", "A", "§ 633b.18(i)",
        MappingProxyType({h: parse_payout(cells[h.value]) for h in hands}),
        MappingProxyType({h: h.value for h in hands}),
        MappingProxyType({d: MappingProxyType({"progressive": meter}) for d in range(1, MAX_DECKS + 1)}),
        floorperson_above=0)}


# ---- King's Bounty paytable B, § 633b.19

class KingsBountyHand(StrEnum):
    """§ 633b.19(d), highest first (the player's first two cards; the dealer's Blackjack)."""

    KING_OF_SPADES_PAIR_DEALER_BLACKJACK = "King of spades pair and dealer Blackjack"
    KING_OF_SPADES_PAIR = "King of spades pair"
    SUITED_KINGS = "Suited kings pair"
    SUITED_QUEENS_JACKS_TENS = "Suited queens, jacks or 10s pair"
    SUITED_20 = "Suited 20"
    PAIR_OF_KINGS = "Pair of kings"
    ANY_20 = "Any 20"
    NOTHING = "no winning hand"


#: § 633b.19(d), transcribed row by row. (Paytable A is § 633a.13(h)'s, not among the supplied
#: texts.)
KINGS_BOUNTY_ROWS = """
| Hand | Paytable B |
| King of spades pair and dealer Blackjack | 1,000 to 1 |
| King of spades pair | 100 to 1 |
| Suited kings pair | 30 to 1 |
| Suited queens, jacks or 10s pair | 20 to 1 |
| Suited 20 | 10 to 1 |
| Pair of kings | 8 to 1 |
| Any 20 | 6 to 1 |
"""


def _kings_bounty() -> dict[str, SidePaytable[KingsBountyHand]]:
    header, *rows = _rows(KINGS_BOUNTY_ROWS)
    hands = [KingsBountyHand(r[0]) for r in rows]
    return {header[1].removeprefix("Paytable "): SidePaytable(
        "kings-bounty", "B", "§ 633b.19(d)",
        MappingProxyType({h: parse_payout(r[1]) for h, r in zip(hands, rows, strict=True)}),
        MappingProxyType({h: h.value for h in hands}),
        MappingProxyType({d: MappingProxyType({}) for d in range(1, MAX_DECKS + 1)}))}


# ---- Blazing 7's, § 633b.20, and Blazing 7's multi-progressive, § 633b.21

class BlazingSevensHand(StrEnum):
    """§§ 633b.20(e), 633b.21(f), highest first. Three 7's: the player's first two cards and the
    dealer's up card."""

    THREE_DIAMONDS = "three 7's, all diamonds"
    THREE_SAME_SUIT = "three 7's, same suit"
    THREE_SAME_COLOUR = "three 7's, same color"
    THREE_SEVENS = "three 7's"
    TWO_SEVENS = "two 7's"
    ONE_SEVEN = "one 7"
    NOTHING = "no winning hand"


#: § 633b.20(e), transcribed row by row.
BLAZING_SEVENS_ROWS = """
| Hand | Paytable A |
| Three 7's—all diamonds | 5,000 to 1 |
| Three 7's—same suit | 2,000 to 1 |
| Three 7's—same color | 1,000 to 1 |
| Three 7's | 500 to 1 |
| Player first two cards (two 7's) | 40 to 1 |
| Either of player's first two cards (one 7) | 2 to 1 |
"""

#: § 633b.21(f), transcribed row by row.
BLAZING_SEVENS_MULTI_ROWS = """
| Hand | Paytable A | Paytable B |
| Three 7's—diamonds | 100% of mega | 100% mega |
| Three 7's—same suit | 100% of major | 100% major |
| Three 7's—same color | 100% minor | 100% minor |
| Three 7's | 400 to 1 | 200 to 1 |
| Player's first two cards (two 7's) | 30 to 1 | 25 to 1 |
| Either of player's first two cards (one 7) | 2 to 1 | 3 to 1 |
"""

#: § 633b.21(g), transcribed row by row.
BLAZING_SEVENS_METER_ROWS = """
| Hand | Seed | Incrementation |
| Mega | 2,000× the minimum wager | 14% |
| Major | 1,000× the minimum wager | 6% |
| Minor | 500× the minimum wager | 4% |
"""

_BLAZING_LABELS = {
    "Three 7's—all diamonds": BlazingSevensHand.THREE_DIAMONDS,
    "Three 7's—diamonds": BlazingSevensHand.THREE_DIAMONDS,
    "Three 7's—same suit": BlazingSevensHand.THREE_SAME_SUIT,
    "Three 7's—same color": BlazingSevensHand.THREE_SAME_COLOUR,
    "Three 7's": BlazingSevensHand.THREE_SEVENS,
    "Player first two cards (two 7's)": BlazingSevensHand.TWO_SEVENS,
    "Player's first two cards (two 7's)": BlazingSevensHand.TWO_SEVENS,
    "Either of player's first two cards (one 7)": BlazingSevensHand.ONE_SEVEN,
}


def _blazing(text: str, wager: str, section: str, meters: Mapping[str, MeterTerms] | None,
             **kw: Any) -> dict[str, SidePaytable[BlazingSevensHand]]:
    header, *rows = _rows(text)
    out = {}
    for i, col in enumerate(header[1:]):
        name = col.removeprefix("Paytable ")
        pays = {_BLAZING_LABELS[r[0]]: parse_payout(r[1 + i]) for r in rows}
        assert list(pays) == list(BlazingSevensHand)[:-1], text
        assert all(p.meter in (meters or {}) for p in pays.values() if isinstance(p, MeterPayout)), text
        out[name] = SidePaytable(
            wager, name, section, MappingProxyType(pays), MappingProxyType({_BLAZING_LABELS[r[0]]: r[0] for r in rows}),
            MappingProxyType({d: MappingProxyType(dict(meters or {})) for d in range(1, MAX_DECKS + 1)}), **kw)
    return out


def _blazing_meters() -> dict[str, MeterTerms]:
    out = {}
    for name, seed, increment in _rows(BLAZING_SEVENS_METER_ROWS)[1:]:
        out[name.lower()] = MeterTerms(name.lower(), *_seed(seed), _percent(increment), None)
    return out


#: Every transcribed paytable: wager (CLI name) -> paytable name -> ``SidePaytable``.
PAYTABLES: Mapping[str, Mapping[str, SidePaytable]] = MappingProxyType({
    "twenty-one-plus-three": MappingProxyType(_twenty_one_plus_three()),
    "royal-match": MappingProxyType(_royal_match()),
    "kings-bounty": MappingProxyType(_kings_bounty()),
    "blazing-sevens": MappingProxyType(_blazing(BLAZING_SEVENS_ROWS, "blazing-sevens", "§ 633b.20(e)", None)),
    "blazing-sevens-multi": MappingProxyType(_blazing(
        BLAZING_SEVENS_MULTI_ROWS, "blazing-sevens-multi", "§ 633b.21(f)", _blazing_meters(),
        not_from_inventory_share=Fraction(1, 10), floorperson_above=200)),
})

#: Valid paytable names per wager (CLI names).
PAYTABLES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType({w: tuple(t) for w, t in PAYTABLES.items()})


def paytable(wager: str, name: str | SidePaytable) -> SidePaytable:
    """The paytable ``name`` of ``wager`` ("1".."11", "P1", "Paytable 1"; "A", "B"); ValueError
    naming the valid ones otherwise."""
    if isinstance(name, SidePaytable):
        if name.wager != wager:
            raise ValueError(f"a {name.wager} paytable is not a {wager} paytable")
        return name
    if wager not in PAYTABLES:
        raise ValueError(f"no blackjack side wager {wager!r} (known: {', '.join(PAYTABLES)})")
    key = re.sub(r"^(paytable\s*|p(?=\d))", "", str(name).strip(), flags=re.IGNORECASE).upper()
    tables = PAYTABLES[wager]
    if key not in tables:
        extra = (" (paytable A is § 633a.13(h)'s, which is not among the supplied texts)"
                 if wager == "kings-bounty" and key == "A" else "")
        raise ValueError(f"no {wager} paytable {name!r}: {tables[next(iter(tables))].section.split('(')[0].strip()} "
                         f"has {', '.join(tables)}{extra}")
    return tables[key]
