"""Blackjack progressive and side wagers (58 Pa. Code §§ 633b.17–633b.21): paytables, hands,
settlement and exact RTP.

Pure: frozen dataclasses and functions, no I/O, no clocks, no randomness. Odds are exact
(``rules.odds``): "N for 1" is ``ForOne`` (stake included), "N to 1" is ``ToOne`` (stake returned
plus N × stake). Money is integer cents. The cards are ``rules.cards.Card``.

The wagers (CLI names in brackets) and the cards that decide them:

* 21+3 progressive, § 633b.17 (``twenty-one-plus-three``): the player's first two cards and the
  dealer's up card, as a three-card poker hand (§ 633a.6(e)(9) Three Card Poker wager); paytables
  1–11 of § 633b.17(g), seed/increment/reserve by paytable and number of decks (§ 633b.17(h)).
* Royal Match progressive, § 633b.18 (``royal-match``): the player's first two cards; for a
  Crown Treasure also the dealer's two cards (the hole card once exposed, § 633b.18(g)(4)).
* King's Bounty paytable B, § 633b.19 (``kings-bounty``): the player's first two cards; the
  dealer's Blackjack for the top row.
* Blazing 7's, § 633b.20 (``blazing-sevens``), and Blazing 7's multi-progressive, § 633b.21
  (``blazing-sevens-multi``): the player's first two cards and, for three 7's, the dealer's up
  card.

The paytables, transcribed row by row from the text, are in ``rules.bj_paytables`` (re-exported
here). Decisions where the text leaves room are documented in docs/rules-blackjack.md and at the
code that makes them.

RTP (``RTP_WAGERS``): exact ``Fraction``s by counting every deal from a shoe of N decks without
replacement (``rules.bj_deal``), each deal classified by the same hand function that settles a
round. Meter hands are valued at the seed (``rtp``); ``rtp_long_run`` adds the increment rates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from rules.bj_deal import DealCounts, count_deals
from rules.bj_paytables import (  # re-exported: the paytables as transcribed
    BLAZING_SEVENS_METER_ROWS, BLAZING_SEVENS_MULTI_ROWS, BLAZING_SEVENS_ROWS, ENVY_BONUS, KINGS_BOUNTY_ROWS,
    MAX_DECKS, PAYTABLES, PAYTABLES_OF, ROYAL_MATCH_ROWS, TWENTY_ONE_PLUS_THREE_DECKS,
    TWENTY_ONE_PLUS_THREE_METER_ROWS, TWENTY_ONE_PLUS_THREE_ROWS, BlazingSevensHand, KingsBountyHand, MeterPayout,
    MeterTerms, Payout, RoyalMatchHand, SidePaytable, TwentyOnePlusThreeHand, check_decks, parse_payout,
    payout_return, paytable,
)
from rules.cards import ACE, KING, QUEEN, SUITS, Card
from rules.odds import ForOne, ToOne
from rules.roulette_up import LOSS, Loss

__all__ = [
    # rules.bj_paytables, re-exported
    "BLAZING_SEVENS_METER_ROWS", "BLAZING_SEVENS_MULTI_ROWS", "BLAZING_SEVENS_ROWS", "ENVY_BONUS", "KINGS_BOUNTY_ROWS",
    "MAX_DECKS", "PAYTABLES", "PAYTABLES_OF", "ROYAL_MATCH_ROWS", "TWENTY_ONE_PLUS_THREE_DECKS",
    "TWENTY_ONE_PLUS_THREE_METER_ROWS", "TWENTY_ONE_PLUS_THREE_ROWS", "BlazingSevensHand", "KingsBountyHand",
    "MeterPayout", "MeterTerms", "Payout", "RoyalMatchHand", "SidePaytable", "TwentyOnePlusThreeHand", "check_decks",
    "parse_payout", "payout_return", "paytable",
    # hands
    "AwaitHoleCard", "blackjack_value", "blazing_sevens_hand", "is_blackjack", "is_royal_match", "is_straight",
    "is_two_card_straight_flush", "kings_bounty_hand", "royal_match_hand", "twenty_one_plus_three_hand",
    # settlement
    "SideSettlement", "settle_blazing_sevens", "settle_blazing_sevens_multi", "settle_kings_bounty",
    "settle_royal_match", "settle_twenty_one_plus_three",
    # exact RTP
    "HandRtp", "MeterRtp", "RTP_WAGERS", "SideWagerRtp", "blazing_sevens_multi_rtp", "blazing_sevens_rtp",
    "deal_counts", "hand_distribution", "kings_bounty_rtp", "royal_match_rtp", "side_wager_rtp_table",
    "twenty_one_plus_three_rtp",
]

RED_SUITS = frozenset({"d", "h"})
TEN_VALUE_RANKS = frozenset({10, 11, 12, 13})


# --------------------------------------------------------------------------- hands

@dataclass(frozen=True)
class AwaitHoleCard:
    """The wager cannot be settled until the dealer's hole card is exposed (``reason``,
    ``section``)."""

    wager: str
    section: str
    reason: str


def _player(cards: Sequence[Card]) -> tuple[Card, Card]:
    cards = tuple(cards)
    if len(cards) != 2 or not all(isinstance(c, Card) for c in cards):
        raise ValueError(f"the player's first two cards, not {cards!r}")
    return cards[0], cards[1]


def _card(card: Card, what: str) -> Card:
    if not isinstance(card, Card):
        raise ValueError(f"the {what} is a Card, not {card!r}")
    return card


def is_straight(ranks: Iterable[int]) -> bool:
    """Three cards of consecutive ranks (§ 633a.6(e)(9) Three Card Poker, by reference): the ace is
    high (Q-K-A) or low (A-2-3); K-A-2 does not wrap around."""
    r = sorted(ranks)
    if len(r) != 3 or len(set(r)) != 3:
        return False
    return r == [2, 3, ACE] or r[2] - r[0] == 2


def twenty_one_plus_three_hand(player: Sequence[Card], dealer_up: Card, table: SidePaytable,
                               declared_suit: str) -> TwentyOnePlusThreeHand:
    """§ 633b.17(g): the highest-ranking three-card hand of the player's first two cards and the
    dealer's up card. ``declared_suit``: the certificate holder's declared suit."""
    a, b = _player(player)
    cards = (a, b, _card(dealer_up, "dealer's up card"))
    if declared_suit not in SUITS:
        raise ValueError(f"the declared suit is one of {', '.join(SUITS)}, not {declared_suit!r}")
    ranks = [c.rank for c in cards]
    suited = a.suit == b.suit == dealer_up.suit
    H3 = TwentyOnePlusThreeHand
    if ranks[0] == ranks[1] == ranks[2]:
        if not suited:
            return H3.TRIPS
        if ranks[0] in table.premium_ranks:
            return H3.DECLARED_SUIT if a.suit == declared_suit else H3.SUITED_PREMIUM
        return H3.SUITED_TRIPS
    if is_straight(ranks):
        return H3.STRAIGHT_FLUSH if suited else H3.STRAIGHT
    # Decision: three cards of one suit with a pair (possible with several decks) are a flush.
    return H3.FLUSH if suited else H3.NOTHING


def is_royal_match(a: Card, b: Card) -> bool:
    """§ 633b.18(m): "A king and queen of the same suit"."""
    return a.suit == b.suit and {a.rank, b.rank} == {KING, QUEEN}


def is_two_card_straight_flush(a: Card, b: Card) -> bool:
    """§ 633b.18(m): "Two cards of the same suit in consecutive order"; decision: the ace is high
    (K-A) or low (A-2), as in the 21+3 straights."""
    return a.suit == b.suit and (abs(a.rank - b.rank) == 1 or {a.rank, b.rank} == {ACE, 2})


def royal_match_hand(player: Sequence[Card], dealer_up: Card,
                     dealer_hole: Card | None = None) -> RoyalMatchHand | AwaitHoleCard:
    """§ 633b.18(g): the player's Royal Match progressive hand. A Royal Match against a dealer's
    king or queen up card waits for the hole card (§ 633b.18(g)(4)); with the dealer's Royal Match
    it is a Crown Treasure. Otherwise the dealer's cards do not matter (§ 633b.18(g)(1)–(3))."""
    a, b = _player(player)
    up = _card(dealer_up, "dealer's up card")
    if is_royal_match(a, b):
        if up.rank not in (KING, QUEEN):
            return RoyalMatchHand.ROYAL_MATCH  # § 633b.18(g)(3)
        if dealer_hole is None:
            return AwaitHoleCard("royal-match", "§ 633b.18(g)(4)",
                                 "a Royal Match against the dealer's king or queen is settled after the hole card "
                                 "is exposed")
        hole = _card(dealer_hole, "dealer's hole card")
        return RoyalMatchHand.CROWN_TREASURE if is_royal_match(up, hole) else RoyalMatchHand.ROYAL_MATCH
    if is_two_card_straight_flush(a, b):
        return RoyalMatchHand.STRAIGHT_FLUSH  # § 633b.18(g)(2)
    return RoyalMatchHand.NOTHING  # § 633b.18(g)(1)


def blackjack_value(cards: Iterable[Card]) -> int:
    """The Blackjack count of ``cards``: 2–10 their number, J Q K 10, an ace 11 unless that busts."""
    total, aces = 0, 0
    for c in cards:
        if c.rank == ACE:
            total, aces = total + 11, aces + 1
        else:
            total += min(c.rank, 10)
    while total > 21 and aces:
        total, aces = total - 10, aces - 1
    return total


def is_blackjack(a: Card, b: Card) -> bool:
    """An ace and a 10-value card."""
    return {a.rank == ACE, b.rank == ACE} == {True, False} and (a.rank in TEN_VALUE_RANKS or b.rank in TEN_VALUE_RANKS)


def kings_bounty_hand(player: Sequence[Card], dealer_up: Card,
                      dealer_hole: Card | None = None) -> KingsBountyHand | AwaitHoleCard:
    """§ 633b.19(d) paytable B: the player's first two cards; for a king of spades pair, whether
    the dealer has Blackjack (awaited while the up card is an ace or a 10-value card and the hole
    card is not exposed). "20": the Blackjack count of the two cards (an ace and a 9 count 20)."""
    a, b = _player(player)
    up = _card(dealer_up, "dealer's up card")
    K = KingsBountyHand
    if a == b == Card(KING, "s"):
        if up.rank != ACE and up.rank not in TEN_VALUE_RANKS:
            return K.KING_OF_SPADES_PAIR
        if dealer_hole is None:
            return AwaitHoleCard("kings-bounty", "§ 633b.19(d)",
                                 "a king of spades pair against a dealer's ace or 10-value card waits for the dealer's "
                                 "hole card (dealer Blackjack)")
        hole = _card(dealer_hole, "dealer's hole card")
        return K.KING_OF_SPADES_PAIR_DEALER_BLACKJACK if is_blackjack(up, hole) else K.KING_OF_SPADES_PAIR
    suited = a.suit == b.suit
    if suited and a.rank == b.rank == KING:
        return K.SUITED_KINGS
    if suited and a.rank == b.rank and a.rank in (QUEEN, 11, 10):
        return K.SUITED_QUEENS_JACKS_TENS
    twenty = blackjack_value((a, b)) == 20
    if suited and twenty:
        return K.SUITED_20
    if a.rank == b.rank == KING:
        return K.PAIR_OF_KINGS
    return K.ANY_20 if twenty else K.NOTHING


def blazing_sevens_hand(player: Sequence[Card], dealer_up: Card) -> BlazingSevensHand:
    """§§ 633b.20(b), (d), 633b.21(b), (d): a 7 among the player's first two cards wins; three 7's
    need the dealer's up card too. Colours: diamonds and hearts red, clubs and spades black."""
    a, b = _player(player)
    up = _card(dealer_up, "dealer's up card")
    sevens = (a.rank == 7) + (b.rank == 7)
    B7 = BlazingSevensHand
    if sevens == 2 and up.rank == 7:
        suits = {a.suit, b.suit, up.suit}
        if suits == {"d"}:
            return B7.THREE_DIAMONDS
        if len(suits) == 1:
            return B7.THREE_SAME_SUIT
        if suits <= RED_SUITS or not suits & RED_SUITS:
            return B7.THREE_SAME_COLOUR
        return B7.THREE_SEVENS
    return (B7.NOTHING, B7.ONE_SEVEN, B7.TWO_SEVENS)[sevens]


# --------------------------------------------------------------------------- settlement

@dataclass(frozen=True)
class SideSettlement:
    """The settlement of one side wager.

    ``hand``: the paytable row as printed (or "no winning hand"); ``returned_cents``: everything
    handed to the player for the hand, stake included (0 on a loss; stake + N·stake for "N to 1";
    N·stake for "N for 1"; the player's share of the meter for a meter payout, no stake on top);
    ``meter``/``meter_share``: the meter paid and the share of it (1/k for k winners);
    ``paid_from_table_inventory``: False for a meter payout that may not be paid from the table
    inventory container (the cards stay on the table until documented);
    ``floorperson_verification``: the payout must be validated by a floorperson or above;
    ``envy_bonus_cents``: Royal Match Envy Bonuses for other players' Crown Treasures (not
    included in ``returned_cents``)."""

    wager: str
    paytable: str
    section: str
    hand: str
    payout: Payout
    stake_cents: int
    returned_cents: int
    meter: str | None = None
    meter_share: Fraction | None = None
    paid_from_table_inventory: bool = True
    floorperson_verification: bool = False
    envy_bonus_cents: int = 0

    @property
    def total_returned_cents(self) -> int:
        return self.returned_cents + self.envy_bonus_cents

    @property
    def win_cents(self) -> int:
        """The player's gain on this wager, Envy Bonuses included (negative: the stake lost)."""
        return self.total_returned_cents - self.stake_cents


def _stake(stake_cents: int) -> int:
    if isinstance(stake_cents, bool) or not isinstance(stake_cents, int) or stake_cents <= 0:
        raise ValueError(f"a stake is a positive number of cents, not {stake_cents!r}")
    return stake_cents


def _winners(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"meter_winners counts the players winning the meter, this one included: "
                         f"an int >= 1, not {n!r}")
    return n


def _settle(table: SidePaytable, hand: StrEnum, stake_cents: int, meters_cents: Mapping[str, int] | None,
            meter_winners: int) -> SideSettlement:
    stake = _stake(stake_cents)
    payout = table.payout(hand)
    common = dict(wager=table.wager, paytable=table.name, section=table.section, hand=table.label(hand),
                  payout=payout, stake_cents=stake)
    if isinstance(payout, Loss):
        return SideSettlement(**common, returned_cents=0)
    if isinstance(payout, ToOne | ForOne):
        returned = stake + payout.profit_cents(stake)
        return SideSettlement(**common, returned_cents=returned,
                              floorperson_verification=table.needs_floorperson(returned, stake))
    k = _winners(meter_winners)
    if not meters_cents or payout.meter not in meters_cents:
        raise ValueError(f"{table.wager} paytable {table.name}: {table.label(hand)} pays {payout}; "
                         f"give the amount on the {payout.meter} meter")
    amount = meters_cents[payout.meter]
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"the {payout.meter} meter holds a whole number of cents >= 0, not {amount!r}")
    share = Fraction(payout.percent, 100) / k
    # Shared equally (§§ 633b.18(j), 633b.21(e)(3); for 21+3 a decision): whole cents, the
    # remainder stays on the meter.
    returned = math.floor(share * amount)
    return SideSettlement(**common, returned_cents=returned, meter=payout.meter, meter_share=share,
                          paid_from_table_inventory=share < table.not_from_inventory_share,
                          floorperson_verification=table.needs_floorperson(returned, stake))


def settle_twenty_one_plus_three(player: Sequence[Card], dealer_up: Card, *, paytable_name: str, declared_suit: str,
                                 stake_cents: int, meter_cents: int | None = None,
                                 meter_winners: int = 1) -> SideSettlement:
    """Settle a 21+3 progressive wager (§ 633b.17(f)–(g)).

    ``meter_cents``: the progressive meter (needed for a meter hand); ``meter_winners``: players
    winning the meter in this round, this one included (decision: shared equally, as §§ 633b.18(j)
    and 633b.21(e)(3) direct; § 633b.17 is silent). A meter payout is "a percentage of the
    jackpot amount": not paid from the table inventory (§ 633b.17(f)(4)). Every win is validated
    by a floorperson (§ 633b.17(f)(3): "progressive payout" is any payout of the wager, since
    (f)(4) speaks of one "that is a percentage of the jackpot amount" among them)."""
    t = paytable("twenty-one-plus-three", paytable_name)
    hand = twenty_one_plus_three_hand(player, dealer_up, t, declared_suit)
    return _settle(t, hand, stake_cents, None if meter_cents is None else {"progressive": meter_cents}, meter_winners)


def settle_royal_match(player: Sequence[Card], dealer_up: Card, dealer_hole: Card | None = None, *,
                       stake_cents: int, meter_cents: int | None = None, meter_winners: int = 1,
                       other_crown_treasures: int = 0) -> SideSettlement | AwaitHoleCard:
    """Settle a Royal Match progressive wager (§ 633b.18(g)–(k)), or ``AwaitHoleCard``.

    ``meter_winners``: Crown Treasures sharing the meter in this round, this one included
    (§ 633b.18(j)); ``other_crown_treasures``: other players at the table who won with a Crown
    Treasure — each pays this wager an Envy Bonus of 500 to 1 (§ 633b.18(h)(5), (k)), whatever
    its own hand. Decision: the Envy Bonus is 500 × the stake, the stake itself being settled by
    the player's own hand (it is not returned a second time). Every win is validated by a
    floorperson (§ 633b.18(h)(3)); the Crown Treasure is not paid from the table inventory
    (§ 633b.18(h)(4))."""
    others = other_crown_treasures
    if isinstance(others, bool) or not isinstance(others, int) or others < 0:
        raise ValueError(f"other_crown_treasures is an int >= 0, not {others!r}")
    if others:
        # A Crown Treasure needs the dealer's Royal Match, known only once the hole card is exposed.
        if dealer_hole is None or not is_royal_match(_card(dealer_up, "dealer's up card"),
                                                     _card(dealer_hole, "dealer's hole card")):
            raise ValueError("§ 633b.18(m): another player's Crown Treasure needs the dealer's Royal Match "
                             f"(up card {dealer_up}, hole card {dealer_hole})")
    hand = royal_match_hand(player, dealer_up, dealer_hole)
    if isinstance(hand, AwaitHoleCard):
        return hand
    if hand is RoyalMatchHand.CROWN_TREASURE and _winners(meter_winners) < 1 + others:
        raise ValueError(f"{others} other Crown Treasure(s) share the meter with this one "
                         f"(§ 633b.18(j)): meter_winners must be at least {1 + others}, "
                         f"not {meter_winners}")
    t = paytable("royal-match", "A")
    s = _settle(t, hand, stake_cents, None if meter_cents is None else {"progressive": meter_cents}, meter_winners)
    if not others:
        return s
    envy = others * ENVY_BONUS.profit_cents(s.stake_cents)
    return replace(s, envy_bonus_cents=envy)


def settle_kings_bounty(player: Sequence[Card], dealer_up: Card, dealer_hole: Card | None = None, *,
                        stake_cents: int, paytable_name: str = "B") -> SideSettlement | AwaitHoleCard:
    """Settle a King's Bounty wager on paytable B (§ 633b.19(d)), or ``AwaitHoleCard`` for a king
    of spades pair while the dealer may hold Blackjack."""
    t = paytable("kings-bounty", paytable_name)
    hand = kings_bounty_hand(player, dealer_up, dealer_hole)
    if isinstance(hand, AwaitHoleCard):
        return hand
    return _settle(t, hand, stake_cents, None, 1)


def settle_blazing_sevens(player: Sequence[Card], dealer_up: Card, *, stake_cents: int,
                          paytable_name: str = "A") -> SideSettlement:
    """Settle a Blazing 7's wager (§ 633b.20(d)–(e))."""
    t = paytable("blazing-sevens", paytable_name)
    return _settle(t, blazing_sevens_hand(player, dealer_up), stake_cents, None, 1)


def settle_blazing_sevens_multi(player: Sequence[Card], dealer_up: Card, *, paytable_name: str, stake_cents: int,
                                meters_cents: Mapping[str, int] | None = None,
                                meter_winners: int = 1) -> SideSettlement:
    """Settle a Blazing 7's multi-progressive wager (§ 633b.21(d)–(f)).

    ``meters_cents``: the amounts on the "mega", "major" and "minor" meters (the one won is
    needed); ``meter_winners``: players at the table winning that meter in this round, this one
    included; they share it equally (§ 633b.21(e)(3)). A payout of 10% or more of a meter is not
    paid from the table inventory (§ 633b.21(e)(3)); one at odds greater than 200 for 1 is
    verified by a floorperson (§ 633b.21(e)(2): 400 to 1 and 200 to 1 are 401 and 201 for 1)."""
    t = paytable("blazing-sevens-multi", paytable_name)
    return _settle(t, blazing_sevens_hand(player, dealer_up), stake_cents, meters_cents, meter_winners)


# --------------------------------------------------------------------------- exact RTP

def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class MeterRtp:
    """One meter's share of an RTP: its seed (in wagers; None: no seed), P(hit) per wager, rates."""

    meter: str
    seed_wagers: Fraction | None
    hit_probability: Fraction
    increment_rate: Fraction
    reserve_rate: Fraction | None
    long_run_rate: Fraction

    def to_json(self) -> dict[str, Any]:
        return {"meter": self.meter, "seed_wagers": None if self.seed_wagers is None else _frac(self.seed_wagers),
                "hit_probability": _frac(self.hit_probability), "increment_rate": _frac(self.increment_rate),
                "reserve_rate": None if self.reserve_rate is None else _frac(self.reserve_rate),
                "long_run_rate": _frac(self.long_run_rate)}


@dataclass(frozen=True)
class HandRtp:
    """One paytable row: its probability and what it returns per unit wagered."""

    hand: str
    payout: str
    probability: Fraction
    returns: Fraction

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.hand, "payout": self.payout, "probability": _frac(self.probability),
                "return": _frac(self.returns)}


@dataclass(frozen=True)
class SideWagerRtp:
    """The exact RTP of one side-wager paytable at one deck count.

    ``rtp_exact``: expected return per unit wagered, one player at the table, meters at their seed
    (an unseeded meter empty), no Envy Bonus. ``rtp_long_run_exact`` (progressive only):
    ``rtp_exact`` + Σ ``MeterRtp.long_run_rate`` over the meters that can be hit with this many
    decks. ``envy_per_other_player`` (Royal Match): what each other player making the wager adds
    (500 × P(Crown Treasure): linear in expectation, whatever the correlation of the hands)."""

    wager: str
    paytable: str
    decks: int
    rtp_exact: Fraction
    hands: tuple[HandRtp, ...]
    method: str = "exact"
    meters: tuple[MeterRtp, ...] = ()
    envy_per_other_player: Fraction | None = None
    wager_cents: int | None = None

    @property
    def progressive(self) -> bool:
        return bool(self.meters)

    @property
    def hit_probability(self) -> Fraction | None:
        return sum((m.hit_probability for m in self.meters), Fraction(0)) if self.meters else None

    @property
    def increment_rate(self) -> Fraction | None:
        return sum((m.increment_rate for m in self.meters), Fraction(0)) if self.meters else None

    @property
    def reserve_rate(self) -> Fraction | None:
        if not self.meters or all(m.reserve_rate is None for m in self.meters):
            return None
        return sum((m.reserve_rate or Fraction(0) for m in self.meters), Fraction(0))

    @property
    def rtp_long_run_exact(self) -> Fraction | None:
        if not self.meters:
            return None
        return self.rtp_exact + sum((m.long_run_rate for m in self.meters if m.hit_probability), Fraction(0))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"wager": f"{self.wager} {self.paytable}", "rtp": float(self.rtp_exact),
                               "rtp_exact": _frac(self.rtp_exact), "method": self.method, "decks": self.decks,
                               "paytable": self.paytable}
        if self.meters:
            assert self.rtp_long_run_exact is not None and self.hit_probability is not None
            rr = self.reserve_rate
            out |= {"rtp_long_run": float(self.rtp_long_run_exact),
                    "rtp_long_run_exact": _frac(self.rtp_long_run_exact),
                    "meter_hit_probability": _frac(self.hit_probability),
                    "increment_rate": _frac(self.increment_rate),  # type: ignore[arg-type]
                    "reserve_rate": None if rr is None else _frac(rr),
                    "meters": [m.to_json() for m in self.meters]}
        if self.envy_per_other_player is not None:
            out["envy_per_other_player"] = float(self.envy_per_other_player)
            out["envy_per_other_player_exact"] = _frac(self.envy_per_other_player)
        if self.wager_cents is not None:
            out["wager_cents"] = self.wager_cents
        out["hands"] = [h.to_json() for h in self.hands]
        return out


def _engine(hand_of: Callable[..., Any]) -> Callable[..., Any]:
    """A hand function for ``rules.bj_deal``: None where the hole card is awaited."""
    def f(player: tuple[Card, Card], up: Card, hole: Card | None) -> Any:
        h = hand_of(player, up, hole)
        return None if isinstance(h, AwaitHoleCard) else h
    return f


@lru_cache(maxsize=None)
def deal_counts(wager: str, premium_ranks: frozenset[int] = frozenset(), declared_suit: str = "s") -> DealCounts:
    """The (hand, multiplicity partition) tallies of ``wager``'s hand function over every deal
    (``rules.bj_deal.count_deals``), independent of the deck count; cached."""
    if wager == "twenty-one-plus-three":
        probe = SidePaytable(wager, "?", "§ 633b.17(g)", {}, {}, {}, premium_ranks)
        return count_deals(lambda p, u, h: twenty_one_plus_three_hand(p, u, probe, declared_suit))
    if wager == "royal-match":
        return count_deals(_engine(royal_match_hand))
    if wager == "kings-bounty":
        return count_deals(_engine(kings_bounty_hand))
    if wager in ("blazing-sevens", "blazing-sevens-multi"):
        return count_deals(lambda p, u, h: blazing_sevens_hand(p, u))
    raise ValueError(f"no blackjack side wager {wager!r}")


def hand_distribution(wager: str, decks: int, *, premium_ranks: Iterable[int] = (),
                      declared_suit: str = "s") -> dict[StrEnum, Fraction]:
    """P(hand) for ``wager``'s hands with a shoe of ``decks`` decks, exactly (every deck count
    ≥ 1; the paytables restrict it)."""
    counts = deal_counts("blazing-sevens" if wager == "blazing-sevens-multi" else wager,
                         frozenset(premium_ranks), declared_suit)
    return counts.distribution(decks)


def _rtp(table: SidePaytable, decks: int, *, declared_suit: str = "s", wager_cents: int = 100,
         envy: bool = False) -> SideWagerRtp:
    check_decks(table, decks)
    dist = hand_distribution(table.wager, decks, premium_ranks=table.premium_ranks, declared_suit=declared_suit)
    meters = table.meters(decks)
    seeds = {m: t.seed_in_wagers(_stake(wager_cents)) for m, t in meters.items()}
    hands, rtp = [], Fraction(0)
    for hand, payout in table.pays.items():
        p = dist.get(hand, Fraction(0))
        r = payout_return(payout, seeds[payout.meter] if isinstance(payout, MeterPayout) else None)
        hands.append(HandRtp(table.labels[hand], str(payout), p, r))
        rtp += p * r
    lost = 1 - sum((h.probability for h in hands), Fraction(0))
    hands.append(HandRtp("no winning hand", str(LOSS), lost, Fraction(0)))
    meter_rtps = tuple(
        MeterRtp(m, seeds[m], sum((dist.get(h, Fraction(0)) for h, p in table.pays.items()
                                   if isinstance(p, MeterPayout) and p.meter == m), Fraction(0)),
                 t.increment_rate, t.reserve_rate, t.long_run_rate())
        for m, t in meters.items())
    envy_each = None
    if envy:
        envy_each = ENVY_BONUS.ratio * dist.get(RoyalMatchHand.CROWN_TREASURE, Fraction(0))
    uses_cents = any(t.seed_cents is not None for t in meters.values())
    return SideWagerRtp(table.wager, table.name, decks, rtp, tuple(hands), meters=meter_rtps,
                        envy_per_other_player=envy_each, wager_cents=wager_cents if uses_cents else None)


def twenty_one_plus_three_rtp(paytable_name: str, decks: int, *, declared_suit: str = "s",
                              wager_cents: int = 100) -> tuple[SideWagerRtp, ...]:
    """Exact RTP of the 21+3 progressive wager (one entry). ``wager_cents``: the wager at which a
    seed printed in dollars ("$2000") is valued (default $1: 2,000 wagers). The declared suit does
    not change the RTP (the suits are symmetric)."""
    return (_rtp(paytable("twenty-one-plus-three", paytable_name), decks, declared_suit=declared_suit,
                 wager_cents=wager_cents),)


def royal_match_rtp(paytable_name: str, decks: int) -> tuple[SideWagerRtp, ...]:
    """Exact RTP of the Royal Match progressive wager for a wager of the minimum (the seed is
    "10,000× the minimum wager"), one player at the table; the Envy Bonus per other player is
    given separately (``envy_per_other_player``)."""
    return (_rtp(paytable("royal-match", paytable_name), decks, envy=True),)


def kings_bounty_rtp(paytable_name: str, decks: int) -> tuple[SideWagerRtp, ...]:
    """Exact RTP of the King's Bounty wager on paytable B."""
    return (_rtp(paytable("kings-bounty", paytable_name), decks),)


def blazing_sevens_rtp(paytable_name: str, decks: int) -> tuple[SideWagerRtp, ...]:
    """Exact RTP of the Blazing 7's wager."""
    return (_rtp(paytable("blazing-sevens", paytable_name), decks),)


def blazing_sevens_multi_rtp(paytable_name: str, decks: int) -> tuple[SideWagerRtp, ...]:
    """Exact RTP of the Blazing 7's multi-progressive wager for a wager of the minimum (seeds are
    multiples of the minimum wager), one player at the table."""
    return (_rtp(paytable("blazing-sevens-multi", paytable_name), decks),)


#: The CLI's entry point: wager name -> (paytable name as typed, decks) -> RTP entries.
#: the deck counts ``croupier rtp`` shows by default (the shoes the issue's acceptance names)
DEFAULT_DECKS = (6, 8)

RTP_WAGERS: Mapping[str, Callable[[str, int], tuple[SideWagerRtp, ...]]] = MappingProxyType({
    "twenty-one-plus-three": twenty_one_plus_three_rtp,
    "royal-match": royal_match_rtp,
    "kings-bounty": kings_bounty_rtp,
    "blazing-sevens": blazing_sevens_rtp,
    "blazing-sevens-multi": blazing_sevens_multi_rtp,
})
assert set(RTP_WAGERS) == set(PAYTABLES)


def side_wager_rtp_table(decks: Iterable[int] = (6, 8)) -> tuple[SideWagerRtp, ...]:
    """Every paytable of every wager at each of ``decks``."""
    return tuple(e for w, f in RTP_WAGERS.items() for name in PAYTABLES_OF[w] for d in decks for e in f(name, d))
