"""One entry point per Blackjack side wager for a table and its checks (``rules.blackjack_side``):
the hand, the meter it wins (if any), and its settlement, from the cards the reader read.

The table deals every card before settling, so the dealer's hole card is always known here
(``AwaitHoleCard`` of § 633b.18(g)(4) and § 633b.19(d) never stops a settlement at the rig).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.bj_paytables import MeterPayout, paytable
from rules.blackjack_side import (SideSettlement, blazing_sevens_hand, kings_bounty_hand, royal_match_hand,
                                  settle_blazing_sevens, settle_blazing_sevens_multi, settle_kings_bounty,
                                  settle_royal_match, settle_twenty_one_plus_three, twenty_one_plus_three_hand)
from rules.bj_paytables import RoyalMatchHand
from rules.cards import Card

#: the progressive wagers (through the progressive table game system), and their spot on its wagering device
PROGRESSIVE_SPOTS: Mapping[str, str] = {"twenty-one-plus-three": "21+3-progressive",
                                        "royal-match": "royal-match-progressive",
                                        "blazing-sevens-multi": "blazing-7s-multi-progressive"}
#: the side wagers placed as chips only
CHIP_WAGERS = ("kings-bounty", "blazing-sevens")
SIDE_WAGERS = tuple(PROGRESSIVE_SPOTS) + CHIP_WAGERS


def hand(wager: str, table: str, player: Sequence[Card], up: Card, hole: Card, declared_suit: str = "s") -> Any:
    """The wager's hand (the paytable row's enum member)."""
    if wager == "twenty-one-plus-three":
        return twenty_one_plus_three_hand(player, up, paytable(wager, table), declared_suit)
    if wager == "royal-match":
        return royal_match_hand(player, up, hole)
    if wager == "kings-bounty":
        return kings_bounty_hand(player, up, hole)
    if wager in ("blazing-sevens", "blazing-sevens-multi"):
        return blazing_sevens_hand(player, up)
    raise ValueError(f"no Blackjack side wager {wager!r} (known: {', '.join(SIDE_WAGERS)})")


def meter_won(wager: str, table: str, player: Sequence[Card], up: Card, hole: Card,
              declared_suit: str = "s") -> MeterPayout | None:
    """The meter payout the hand wins (None: a fixed-odds row or a loss)."""
    payout = paytable(wager, table).payout(hand(wager, table, player, up, hole, declared_suit))
    return payout if isinstance(payout, MeterPayout) else None


def is_crown_treasure(player: Sequence[Card], up: Card, hole: Card) -> bool:
    return royal_match_hand(player, up, hole) is RoyalMatchHand.CROWN_TREASURE


def settle(wager: str, table: str, player: Sequence[Card], up: Card, hole: Card, *, stake_cents: int,
           declared_suit: str = "s", meters_cents: Mapping[str, int] | None = None, meter_winners: int = 1,
           other_crown_treasures: int = 0) -> SideSettlement:
    """Settle one side wager: ``meters_cents`` the meters shown when paid, ``meter_winners`` the
    players sharing the meter won (this one included), ``other_crown_treasures`` (Royal Match
    Envy Bonuses, § 633b.18(k))."""
    meter = (meters_cents or {}).get("progressive")
    if wager == "twenty-one-plus-three":
        return settle_twenty_one_plus_three(player, up, paytable_name=table, declared_suit=declared_suit,
                                            stake_cents=stake_cents, meter_cents=meter, meter_winners=meter_winners)
    if wager == "royal-match":
        s = settle_royal_match(player, up, hole, stake_cents=stake_cents, meter_cents=meter,
                               meter_winners=meter_winners, other_crown_treasures=other_crown_treasures)
    elif wager == "kings-bounty":
        s = settle_kings_bounty(player, up, hole, stake_cents=stake_cents, paytable_name=table)
    elif wager == "blazing-sevens":
        s = settle_blazing_sevens(player, up, stake_cents=stake_cents, paytable_name=table)
    elif wager == "blazing-sevens-multi":
        s = settle_blazing_sevens_multi(player, up, paytable_name=table, stake_cents=stake_cents,
                                        meters_cents=meters_cents, meter_winners=meter_winners)
    else:
        raise ValueError(f"no Blackjack side wager {wager!r} (known: {', '.join(SIDE_WAGERS)})")
    assert isinstance(s, SideSettlement), "the hole card is known at settlement"
    return s


def meter_specs(wager: str, table: str, decks: int, stake_cents: int) -> list[dict[str, Any]]:
    """The progressive table game system's meters for ``wager``'s paytable at ``decks`` decks, on
    a progressive wager of ``stake_cents`` (``devices.progressive.MeterSpec`` fields), from the
    regulation's rows (§ 633b.17(h), § 633b.18(i), § 633b.21(g)): the seed "N× the wager" or "$N",
    reseeded at the seed; a "N/A" Seed/Reseed has none: the meter starts at 0 and, once paid,
    restarts at what its reserve holds (``reseed_from_reserve``; docs/rules-blackjack.md). The
    incrementation and reserve rates as exact fractions (no reserve rate printed: 0)."""
    out = []
    for name, terms in paytable(wager, table).meters(decks).items():
        seed = terms.seed_in_wagers(stake_cents)
        m: dict[str, Any] = {"name": name, "seed_cents": 0 if seed is None else int(seed * stake_cents),
                             "increment_rate": str(terms.increment_rate), "reserve_rate": str(terms.reserve_rate or 0)}
        if seed is None:
            m["reseed_from_reserve"] = True
        out.append(m)
    return out
