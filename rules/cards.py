"""Playing cards, decks and shoes as values (pure: no I/O, no randomness of its own).

A ``Card`` is a rank 2–14 (11 J, 12 Q, 13 K, 14 A) and a suit "c", "d", "h", "s"; written and read
as two characters, "As", "Td", "7h" (the rank letters A K Q J T, digits 2–9). A shoe of ``decks``
52-card decks holds each card ``decks`` times (§ 633b.17(b): 3 to 8 decks). Shuffling is the
card shoe device's (it draws from its own seeded generator); the rules only count.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

RANKS = tuple(range(2, 15))
SUITS = ("c", "d", "h", "s")
RANK_CHARS = {10: "T", 11: "J", 12: "Q", 13: "K", 14: "A", **{r: str(r) for r in range(2, 10)}}
CHAR_RANKS = {c: r for r, c in RANK_CHARS.items()}
ACE, KING, QUEEN, JACK = 14, 13, 12, 11


@dataclass(frozen=True, order=True, slots=True)
class Card:
    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANK_CHARS or self.suit not in SUITS:
            raise ValueError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    def __str__(self) -> str:
        return RANK_CHARS[self.rank] + self.suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """"As", "Td", "7h" (also "10d"); ValueError for anything else."""
        t = str(text).strip()
        rank, suit = t[:-1], t[-1:].lower()
        r = 10 if rank == "10" else CHAR_RANKS.get(rank.upper())
        if r is None or suit not in SUITS:
            raise ValueError(f"not a card: {text!r} (rank A K Q J T 9..2, suit c d h s)")
        return cls(r, suit)


def cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards from "As Kd 7h" or an iterable of card strings."""
    items = text.split() if isinstance(text, str) else text
    return tuple(Card.parse(c) for c in items)


def deck() -> tuple[Card, ...]:
    """One 52-card deck, in a fixed order (suits c d h s, ranks 2..A)."""
    return tuple(Card(r, s) for s in SUITS for r in RANKS)


def shoe(decks: int) -> tuple[Card, ...]:
    """``decks`` decks, unshuffled."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ValueError(f"a shoe has a positive whole number of decks, not {decks!r}")
    return deck() * decks


def shoe_counts(decks: int) -> Counter[Card]:
    """How many of each card a ``decks``-deck shoe holds."""
    return Counter(shoe(decks))
