"""Exact counting of the first cards of a Blackjack round dealt from a shoe of N decks.

Pure: no I/O, no randomness. The blackjack side wagers (``rules.blackjack_side``) are decided by
the player's first two cards, the dealer's up card and, for a few hands, the dealer's hole card.
Those cards are drawn from one shoe *without replacement*. This module counts them exactly,
grouping equal hands instead of enumerating the C(52N, 3) (or C(52N, 4)) card subsets.

The counting. A shoe of N decks holds each of the 52 card identities (rank and suit) N times. An
ordered draw of k cards whose identities are t1..tk has the probability

    Π_t N·(N-1)···(N-m_t+1) / (52N)·(52N-1)···(52N-k+1),

where m_t is how often identity t occurs among the k cards: the numerator depends only on the
multiplicity *partition* (e.g. (2, 1): a pair of identical cards and one other), not on which
identities. So a hand function is evaluated once for every sequence of identities (the player's
pair unordered with a factor 2, × 52 up cards, × 52 hole cards only where the hand needs it), the
results are tallied by (hand, partition), and the distribution for any N follows by a weighted
sum — the classification does not depend on N. ``DealCounts.distribution`` checks that the
probabilities add up to exactly 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Generic, TypeVar

from rules.cards import Card, deck

H = TypeVar("H", bound=Hashable)

#: The 52 card identities, in ``rules.cards.deck`` order.
IDENTITIES: tuple[Card, ...] = deck()

#: A hand function: (player's first two cards, dealer's up card, dealer's hole card or None) ->
#: the hand, or None when the hand cannot be decided without the hole card.
HandOf = Callable[[tuple[Card, Card], Card, "Card | None"], "H | None"]


def falling(n: int, k: int) -> int:
    """n·(n-1)···(n-k+1) (0 when k > n ≥ 0)."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def partition(indices: tuple[int, ...]) -> tuple[int, ...]:
    """The multiplicities of the identities in ``indices``, largest first: (3,), (2, 1), (1, 1, 1)…"""
    return tuple(sorted(Counter(indices).values(), reverse=True))


def sequence_weight(part: tuple[int, ...], decks: int) -> int:
    """How many ordered draws of physical cards from a ``decks``-deck shoe realise one sequence of
    identities with multiplicity partition ``part``."""
    out = 1
    for m in part:
        out *= falling(decks, m)
    return out


@dataclass(frozen=True)
class DealCounts(Generic[H]):
    """(hand, multiplicity partition) -> number of identity sequences, for every way the cards can
    fall. The sequences have 3 cards (player 2 + up card) or, where the hand needed the hole card,
    4."""

    counts: Mapping[tuple[H, tuple[int, ...]], int]

    def distribution(self, decks: int) -> dict[H, Fraction]:
        """P(hand) for a shoe of ``decks`` decks, exactly (hands of probability 0 left out)."""
        if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
            raise ValueError(f"a shoe has a positive whole number of decks, not {decks!r}")
        cards = 52 * decks
        out: dict[H, Fraction] = {}
        for (hand, part), n in self.counts.items():
            w = sequence_weight(part, decks)
            if w:
                out[hand] = out.get(hand, Fraction(0)) + Fraction(n * w, falling(cards, sum(part)))
        assert sum(out.values()) == 1, f"the deal probabilities add up to {sum(out.values())}, not 1"
        return out


def count_deals(hand_of: HandOf) -> DealCounts:
    """Tally ``hand_of`` over every sequence of identities (player's two cards, up card, and the
    hole card where ``hand_of`` returned None without it)."""
    counts: Counter[tuple[Hashable, tuple[int, ...]]] = Counter()
    ids = IDENTITIES
    n = len(ids)
    for i in range(n):
        for j in range(i, n):
            f = 1 if i == j else 2  # the player's two cards in either order
            player = (ids[i], ids[j])
            for u in range(n):
                hand = hand_of(player, ids[u], None)
                if hand is not None:
                    counts[hand, partition((i, j, u))] += f
                    continue
                for v in range(n):
                    hand = hand_of(player, ids[u], ids[v])
                    if hand is None:
                        raise ValueError(f"the hand of {player[0]} {player[1]} / {ids[u]} {ids[v]} is still undecided")
                    counts[hand, partition((i, j, u, v))] += f
    return DealCounts(MappingProxyType(dict(counts)))
