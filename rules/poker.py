"""Poker hands: the best five-card hand of five to seven cards, its category and comparison.

Pure: no I/O, no randomness. The hand is ranked by ``phevaluator`` (the PH Evaluator, Apache-2.0,
a perfect-hash C evaluator: 5, 6 and 7 cards, ~150 ns a hand through its native call). It returns
a rank 1..7462 over the 7,462 distinct five-card hand values, 1 the strongest (a royal flush);
this module turns it round into ``HandValue.strength`` (higher beats lower, equal ties) and a
``HandCategory`` named as the regulations name them ("royal flush" … "high card").

The categories are the usual high-hand ranking of a 52-card deck without wild cards (the tables of
§§ 653b.2–653b.4 list them in that order); an ace plays high or low in a straight (A-2-3-4-5, the
lowest straight), never in the middle of one; suits never break a tie.

``category_counts(n)`` / ``pair_rank_counts(n)`` count the C(52, n) hands of n = 5, 6 or 7 cards
by category *without* the evaluator — by rank multiset and suit pattern — an independent
derivation for the exact RTP and for checking the evaluator wrapper.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from itertools import combinations
from math import comb, prod

from phevaluator.evaluator import evaluate_cards as _ph_evaluate_cards

from rules.cards import RANKS, SUITS, Card

try:  # the native calls behind phevaluator.evaluate_{5,7}cards, without their per-card conversion
    from phevaluator._pheval import evaluate_5cards as _ph_rank5  # type: ignore[import-not-found]
    from phevaluator._pheval import evaluate_7cards as _ph_rank7  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - another phevaluator layout: the public (slower) calls
    from phevaluator.evaluator import evaluate_5cards as _ph_rank5
    from phevaluator.evaluator import evaluate_7cards as _ph_rank7

#: How many distinct five-card hand values there are (phevaluator's ranks 1..7462).
HAND_VALUES = 7462


class HandCategory(IntEnum):
    """A five-card poker hand's category, higher beats lower. ``label``: the regulations' words."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")

    def __str__(self) -> str:
        return self.label

    @classmethod
    def parse(cls, text: str) -> HandCategory:
        """"Royal flush", "Four-of-a-kind", "three of a kind", "pair" …; ValueError otherwise."""
        key = " ".join(str(text).strip().lower().replace("-", " ").split())
        for c in cls:
            if c.label == key:
                return c
        raise ValueError(f"no poker hand category {text!r} (one of: {', '.join(c.label for c in reversed(cls))})")


#: phevaluator rank -> category: the worst (largest) rank of each category, strongest first.
_WORST_RANK = (
    (1, HandCategory.ROYAL_FLUSH), (10, HandCategory.STRAIGHT_FLUSH), (166, HandCategory.FOUR_OF_A_KIND),
    (322, HandCategory.FULL_HOUSE), (1599, HandCategory.FLUSH), (1609, HandCategory.STRAIGHT),
    (2467, HandCategory.THREE_OF_A_KIND), (3325, HandCategory.TWO_PAIR), (6185, HandCategory.PAIR),
    (HAND_VALUES, HandCategory.HIGH_CARD),
)
#: Pair hands are ranked aces first, then kings …, 220 hand values each (C(12, 3) kicker sets).
_FIRST_PAIR_RANK, _PAIR_VALUES = 3326, 220


def category_of_rank(rank: int) -> HandCategory:
    """The category of phevaluator's rank ``rank`` (1 strongest … 7462)."""
    for worst, cat in _WORST_RANK:
        if rank <= worst:
            return cat
    raise ValueError(f"no hand has rank {rank!r} (1..{HAND_VALUES})")


def pair_rank_of_rank(rank: int) -> int:
    """The rank (2–14) of the pair of a PAIR hand given phevaluator's rank."""
    if category_of_rank(rank) is not HandCategory.PAIR:
        raise ValueError(f"rank {rank} is not a one-pair hand")
    return 14 - (rank - _FIRST_PAIR_RANK) // _PAIR_VALUES


# --------------------------------------------------------------------------- cards

def card_id(card: Card | str) -> int:
    """phevaluator's card number: (rank - 2)·4 + suit (c 0, d 1, h 2, s 3)."""
    c = card if isinstance(card, Card) else Card.parse(card)
    return (c.rank - 2) * 4 + SUITS.index(c.suit)


def card_of_id(n: int) -> Card:
    """The ``Card`` of phevaluator's card number ``n`` (0..51)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < 52:
        raise ValueError(f"no card number {n!r} (0..51)")
    return Card(n // 4 + 2, SUITS[n % 4])


def as_cards(cards: Iterable[Card | str] | str) -> tuple[Card, ...]:
    """Cards from ``Card`` values, card strings, or one string "As Kd 7h"; distinct (one deck)."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    out = tuple(c if isinstance(c, Card) else Card.parse(c) for c in items)
    if len(set(out)) != len(out):
        dup = sorted({str(c) for c in out if out.count(c) > 1})
        raise ValueError(f"a card appears twice ({', '.join(dup)}): these games use one 52-card deck")
    return out


# --------------------------------------------------------------------------- hand values

@dataclass(frozen=True, order=True)
class HandValue:
    """The value of the best five-card hand: ``strength`` 1..7462, higher beats lower, equal ties."""

    strength: int

    @classmethod
    def of_rank(cls, rank: int) -> HandValue:
        return cls(HAND_VALUES + 1 - rank)

    @property
    def rank(self) -> int:
        """phevaluator's rank: 1 (royal flush) … 7462 (7-5-4-3-2 unsuited)."""
        return HAND_VALUES + 1 - self.strength

    @property
    def category(self) -> HandCategory:
        return category_of_rank(self.rank)

    @property
    def pair_rank(self) -> int | None:
        """The rank of the pair of a one-pair hand (2–14); None for any other category."""
        return pair_rank_of_rank(self.rank) if self.category is HandCategory.PAIR else None

    def __str__(self) -> str:
        return self.category.label


def evaluate(cards: Iterable[Card | str] | str) -> HandValue:
    """The value of the best five-card hand that can be formed from 5, 6 or 7 distinct cards."""
    cs = as_cards(cards)
    if not 5 <= len(cs) <= 7:
        raise ValueError(f"a poker hand is the best five of 5 to 7 cards, not of {len(cs)}")
    return HandValue.of_rank(_ph_evaluate_cards(*(card_id(c) for c in cs)))


def category(cards: Iterable[Card | str] | str) -> HandCategory:
    """The category of the best five-card hand of ``cards`` (5–7 cards)."""
    return evaluate(cards).category


def compare(a: Iterable[Card | str] | str, b: Iterable[Card | str] | str) -> int:
    """1 if hand ``a`` beats hand ``b``, -1 if it loses to it, 0 if they tie (best five of each)."""
    va, vb = evaluate(a), evaluate(b)
    return (va > vb) - (va < vb)


def best_five(cards: Iterable[Card | str] | str) -> tuple[Card, ...]:
    """The best five of 5–7 cards, highest rank first (of equal hands, the first in card order)."""
    cs = tuple(sorted(as_cards(cards), reverse=True))
    if not 5 <= len(cs) <= 7:
        raise ValueError(f"a poker hand is the best five of 5 to 7 cards, not of {len(cs)}")
    return min(combinations(cs, 5), key=lambda five: _ph_evaluate_cards(*(card_id(c) for c in five)))


#: phevaluator's rank of 7 (``rank7``) / 5 (``rank5``) distinct card numbers (``card_id``), for
#: bulk enumeration: the library's native calls, no checks (~150 ns a hand).
rank7 = _ph_rank7
rank5 = _ph_rank5


# --------------------------------------------------------------------------- exact class counts

_STRAIGHTS = tuple(frozenset(range(lo, lo + 5)) for lo in range(10, 1, -1)) + (frozenset({14, 2, 3, 4, 5}),)
_ROYAL = frozenset(range(10, 15))


def _has_straight(ranks: frozenset[int] | set[int]) -> bool:
    return any(s <= ranks for s in _STRAIGHTS)


def _rank_vectors(n: int, ranks: tuple[int, ...] = RANKS) -> Iterator[dict[int, int]]:
    """Every multiset of ``n`` ranks with at most 4 of a rank, as rank -> count (count > 0)."""
    if not ranks:
        if n == 0:
            yield {}
        return
    first, rest = ranks[0], ranks[1:]
    for k in range(min(4, n) + 1):
        for tail in _rank_vectors(n - k, rest):
            yield ({first: k} | tail) if k else tail


def _multiset_category(v: dict[int, int]) -> HandCategory:
    """The category of a hand with no flush, from its rank multiset."""
    counts = sorted(v.values(), reverse=True)
    if counts[0] == 4:
        return HandCategory.FOUR_OF_A_KIND
    if counts[0] == 3 and counts[1] >= 2:
        return HandCategory.FULL_HOUSE
    if _has_straight(set(v)):
        return HandCategory.STRAIGHT
    if counts[0] == 3:
        return HandCategory.THREE_OF_A_KIND
    if counts[0] == 2 and counts[1] == 2:
        return HandCategory.TWO_PAIR
    if counts[0] == 2:
        return HandCategory.PAIR
    return HandCategory.HIGH_CARD


@cache
def _class_counts(n: int) -> tuple[tuple[HandCategory, int | None, int], ...]:
    """(category, pair rank for a one-pair hand else None, number of hands) over all C(52, n)."""
    if n not in (5, 6, 7):
        raise ValueError(f"class counts are for hands of 5, 6 or 7 cards, not {n!r}")
    out: Counter[tuple[HandCategory, int | None]] = Counter()
    for v in _rank_vectors(n):
        total = prod(comb(4, k) for k in v.values())
        flushes = 0
        # A flush: k >= 5 of the n cards in one suit, the ranks S of those cards. The other n - k
        # <= 2 cards cannot make four of a kind or a full house, so the hand is a straight flush
        # (royal with T-A) if S holds a straight, else a flush.
        for k in range(5, len(v) + 1):
            for s in combinations(sorted(v), k):
                ways = 4 * prod(comb(3, m - (r in s)) for r, m in v.items())
                if not ways:
                    continue
                ss = frozenset(s)
                cat = (HandCategory.ROYAL_FLUSH if _ROYAL <= ss else
                       HandCategory.STRAIGHT_FLUSH if _has_straight(ss) else HandCategory.FLUSH)
                out[cat, None] += ways
                flushes += ways
        cat = _multiset_category(v)
        pair = next(r for r, m in v.items() if m == 2) if cat is HandCategory.PAIR else None
        out[cat, pair] += total - flushes
    assert sum(out.values()) == comb(52, n)
    return tuple((c, p, k) for (c, p), k in sorted(out.items(), key=lambda x: (-x[0][0], -(x[0][1] or 0))))


def category_counts(n: int) -> dict[HandCategory, int]:
    """How many of the C(52, n) hands of n = 5, 6 or 7 cards fall in each category (best five),
    exactly, strongest first. Counted by rank multiset and suit pattern, without the evaluator."""
    out = dict.fromkeys(reversed(HandCategory), 0)
    for cat, _, k in _class_counts(n):
        out[cat] += k
    return out


def pair_rank_counts(n: int) -> dict[int, int]:
    """How many of the C(52, n) hands are one pair (best five), by the rank of the pair (14 = aces)."""
    out = dict.fromkeys(reversed(RANKS), 0)
    for cat, pair, k in _class_counts(n):
        if cat is HandCategory.PAIR:
            assert pair is not None
            out[pair] += k
    return out
