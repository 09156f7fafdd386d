"""Criss-Cross Poker Ultimate Pairs wager (58 Pa. Code § 674b.1, Pa.B. 54-1537): paytables A–E
and settlement.

Pure. § 674b.1(e): the wager wins "if the player's two individual cards form a hand comprised of
a designated winning combination under the certificate holder selected paytable" — the player's
two initial cards only; no row reads the dealer's cards (there is no "Ace/ace and dealer ace/ace"
row, unlike Ultimate Texas Hold 'Em's paytable F). The rows are the same hands as § 653b.5(f), so
their meaning is shared with ``rules.uth.PAIRS_ROWS``; a hand on two rows is paid at the one that
pays most. A player who folds (places no Across Bet) keeps the wager on the table until it is
settled (§ 674b.1(c)): settlement reads the cards only. Odds "N to 1" (``ToOne``); cents.
"""

from __future__ import annotations

from rules.uth import PairsPaytable, SideWagerSettlement, pairs_tables, pick_paytable, settle_pairs

#: § 674b.1(f), verbatim: the two tables (A–C, D–E).
ULTIMATE_PAIRS_ROWS = """
| Player's Initial Two Cards | Paytable A | Paytable B | Paytable C |
|---|
| Ace of hearts and ace of diamonds | n/a | n/a | 100 to 1 |
| Ace/ace | 30 to 1 | 30 to 1 | 30 to 1 |
| Ace/king (suited) | 25 to 1 | 20 to 1 | 20 to 1 |
| Ace/queen (suited) or player ace/jack (suited) | 20 to 1 | 20 to 1 | 20 to 1 |
| Ace/king | 15 to 1 | 10 to 1 | 10 to 1 |
| King/king, queen/queen or jack/jack | 10 to 1 | 5 to 1 | 4 to 1 |
| Ace/queen or ace/jack | 5 to 1 | 10 to 1 | 10 to 1 |
| Pair—10s or less | 3 to 1 | 5 to 1 | 4 to 1 |
| Player's Initial Two Cards | Paytable D | Paytable E |
|---|
| Ace of hearts and ace of diamonds | 50 to 1 | n/a |
| Ace/ace | 25 to 1 | 25 to 1 |
| Ace/king (suited) | 20 to 1 | 20 to 1 |
| Ace/queen (suited) or player ace/jack (suited) | 20 to 1 | 20 to 1 |
| Ace/king | 10 to 1 | 10 to 1 |
| King/king, queen/queen or jack/jack | 5 to 1 | 5 to 1 |
| Ace/queen or ace/jack | 10 to 1 | 10 to 1 |
| Pair—10s or less | 5 to 1 | 5 to 1 |
"""

SECTION = "§ 674b.1(f)"
WAGER = "Criss-Cross Ultimate Pairs"

ULTIMATE_PAIRS_PAYTABLES = pairs_tables(WAGER, SECTION, ULTIMATE_PAIRS_ROWS)
assert not any(t.uses_dealer_cards for t in ULTIMATE_PAIRS_PAYTABLES.values())


def paytable(name: str) -> PairsPaytable:
    """A § 674b.1(f) paytable, "A"–"E"."""
    t = pick_paytable(ULTIMATE_PAIRS_PAYTABLES, name, WAGER, SECTION)
    assert isinstance(t, PairsPaytable)
    return t


def settle_ultimate_pairs(paytable_name: str, player: object, stake_cents: int) -> SideWagerSettlement:
    """§ 674b.1(e): the Ultimate Pairs wager on the player's two initial cards."""
    return settle_pairs(paytable(paytable_name), player, stake_cents)
