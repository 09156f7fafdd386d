"""Monte Carlo kernels of the card side wagers that ``croupier rtp`` knows (issue 15).

Blackjack (§§ 633b.17–633b.21): ``twenty-one-plus-three`` (paytables 1–11), ``royal-match`` (A),
``kings-bounty`` (B), ``blazing-sevens`` (A), ``blazing-sevens-multi`` (A, B); each hand dealt
from a fresh shoe of ``decks`` decks (default 6; ``croupier rtp`` shows 6 and 8). Ultimate Texas
Hold 'Em (ch. 653b) and Criss-Cross (§ 674b.1): ``uth-trips`` (E), ``uth-bad-beat`` (C, both
readings), ``play-the-board`` (A–C), ``ultimate-pairs`` (A–F), ``criss-cross-ultimate-pairs``
(A–E); one 52-card deck, fresh each hand.

Independent maths: the kernels deal and evaluate (``rules.mc.cards_deal``) and settle by the
regulation's paytable rows (``rules.bj_paytables.PAYTABLES``, ``rules.uth`` /
``rules.criss_cross`` paytables: the rows and their payouts as transcribed); they never call the
exact-RTP code's counting. ``exact`` calls the same ``RTP_WAGERS`` functions as ``croupier rtp``.

What a hand is, per wager (the cards the wager reads, as ``croupier rtp`` counts them):

* 21+3: the player's first two cards and the dealer's up card, a three-card poker hand: three
  identical cards (same rank and suit) are "three-of-a-kind (suited)" or, of a premium rank, "3
  aces/kings/queens (suited)" or "(certificate holder declared suit)" (declared suit: spades, as
  ``rtp``; by symmetry any suit gives the same RTP); then straight flush, three-of-a-kind,
  straight (ace high or low, no wrap), flush (three of one suit, a pair among them included).
* Royal Match: the player's two cards; a Royal Match (K and Q of one suit) with the dealer's Royal
  Match (up and hole card) is a Crown Treasure; a two-card straight flush: suited and
  consecutive, the ace high (K-A) or low (A-2).
* King's Bounty B: the player's two cards (Blackjack count: an ace and a 9 are 20), the dealer's
  Blackjack (up and hole card: an ace and a 10-value card) for the top row.
* Blazing 7's (and multi): the sevens among the player's two cards; three 7's with the dealer's
  up card, by their suits (all diamonds, one suit, one colour: diamonds/hearts red).
* Trips: the best five of the player's two cards and the board. Play the Board: the board.
  Bad Beat: the hand that loses (reading ``losing-hand``: either; ``player-loses``: the
  player's), three-of-a-kind or better; a tie loses the wager. Ultimate Pairs: the player's two
  cards (paytable F: and the dealer's two for "Ace/ace and dealer ace/ace").

A hand on several rows is paid at the row that pays most. A meter row pays the meter at its seed
(the "Seed"/"Seed/Reseed" cell: "2,000×" the wager, "$2000" valued at a $1 wager, "10,000× the
minimum wager"; "N/A": an empty meter, 0), which is the figure ``croupier rtp`` calls ``rtp``
(its ``rtp_long_run`` adds the increment rates that a meter-at-seed simulation does not see). One
player at the table: no shared meter, no Envy Bonus. Returns are whole stakes ("N to 1" returns
1 + N, "N for 1" N), so every tally has ``den`` 1.

Options (``options(rules, paytable, wheel, decks, base)``): ``paytable`` as ``croupier rtp
--paytable`` takes it; none: every paytable of a blackjack wager (their wager names differ). The
poker wagers' names do not name the paytable ("play-the-board" for A, B and C), so one run plays
one paytable: a wager with several paytables needs ``--paytable``. ``decks``: the blackjack
shoe (a paytable's allowed deck counts; default 6, ``rtp``'s first); the poker wagers 1 (or none).

A "hand" (the ``n`` of a kernel, unit "hands") is one deal settled for every paytable the options
select: for 21+3 one deal of three cards settles all eleven paytables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from rules.mc import McGame
from rules.mc.cards_deal import (
    ACE, CATEGORY_SHIFT, DIAMONDS, HEARTS, JACK, KING, PAIR, QUEEN, SEVEN, SPADES, TEN, deal, deal_one_deck,
    pair_rank_of_key, poker_key,
)
from rules.mc.tally import WagerTally, tally_values

#: "$2000" seeds are valued at this wager, as ``croupier rtp`` does (``wager_cents`` 100: $1)
WAGER_CENTS = 100
#: the certificate holder's declared suit for 21+3 (``croupier rtp``'s default)
DECLARED_SUIT = SPADES
BLACKJACK_DEFAULT_DECKS = 6

BLACKJACK_WAGERS = ("twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens", "blazing-sevens-multi")
POKER_WAGERS = ("uth-trips", "uth-bad-beat", "play-the-board", "ultimate-pairs", "criss-cross-ultimate-pairs")


# =========================================================================== payouts

def stakes_returned(payout: Any, seed_wagers: Fraction | None = None) -> int:
    """Stakes returned, stake included, by one paytable cell: "N to 1" 1 + N, "N for 1" N, a loss 0,
    "P% of a meter" P % of the meter at its seed (``seed_wagers``; None: an empty meter)."""
    from rules.bj_paytables import MeterPayout
    from rules.odds import ForOne, ToOne
    from rules.roulette_up import Loss

    if isinstance(payout, ToOne):
        r = 1 + Fraction(payout.ratio)
    elif isinstance(payout, ForOne):
        r = Fraction(payout.ratio)
    elif isinstance(payout, Loss) or payout is None:
        r = Fraction(0)
    elif isinstance(payout, MeterPayout):
        r = Fraction(payout.percent, 100) * (seed_wagers or 0)
    else:  # pragma: no cover - the paytables are parsed at import
        raise TypeError(f"unknown payout {payout!r}")
    if r.denominator != 1:
        raise ValueError(f"a return of {r} stakes is not whole")
    return int(r)


def _seed_wagers(terms: Any) -> Fraction | None:
    """A § 633b.17(h) / 633b.18(i) / 633b.21(g) seed in wagers: "2,000×" 2,000; "$2000" at a $1
    wager 2,000; "N/A" None (the meter starts empty)."""
    if terms.seed_wagers is not None:
        return Fraction(terms.seed_wagers)
    if terms.seed_cents is not None:
        return Fraction(terms.seed_cents, WAGER_CENTS)
    return None


def _tallies(counts: np.ndarray, returns: np.ndarray) -> WagerTally:
    return tally_values(returns, counts[:len(returns)], 1)


# =========================================================================== blackjack hands

def _straight3() -> np.ndarray:
    """rank mask -> three consecutive ranks (A-2-3 … Q-K-A; K-A-2 does not wrap)."""
    out = np.zeros(1 << 13, dtype=bool)
    for lo in range(11):
        out[0b111 << lo] = True
    out[(1 << ACE) | 0b11] = True  # A-2-3
    return out


STRAIGHT3 = _straight3()
TWO_CARD_RUNS = np.zeros(1 << 13, dtype=bool)
TWO_CARD_RUNS[[0b11 << lo for lo in range(12)] + [(1 << ACE) | 1]] = True  # 2-3 … K-A, and A-2

#: 21+3 classes: 0 nothing, 1 flush, 2 straight, 3 three-of-a-kind, 4 straight flush,
#: 8 + identity: three identical cards of that identity
T3_FLUSH, T3_STRAIGHT, T3_TRIPS, T3_STRAIGHT_FLUSH, T3_IDENTICAL = 1, 2, 3, 4, 8
T3_CLASSES = T3_IDENTICAL + 52


def classify_twenty_one_plus_three(ids: np.ndarray) -> np.ndarray:
    """21+3 class of each (player 1, player 2, dealer up) row of card identities."""
    a, b, c = (ids[:, i].astype(np.int32) for i in range(3))
    ra, rb, rc = a % 13, b % 13, c % 13
    sa, sb, sc = a // 13, b // 13, c // 13
    suited = (sa == sb) & (sb == sc)
    trips = (ra == rb) & (rb == rc)
    straight = STRAIGHT3[(1 << ra) | (1 << rb) | (1 << rc)]
    cls = np.where(suited, T3_FLUSH, 0)
    cls = np.where(straight, np.where(suited, T3_STRAIGHT_FLUSH, T3_STRAIGHT), cls)
    cls = np.where(trips, np.where(suited, T3_IDENTICAL + a, T3_TRIPS), cls)
    return cls


def _twenty_one_plus_three_returns(table: Any, decks: int) -> np.ndarray:
    from rules.bj_paytables import TwentyOnePlusThreeHand as H

    seed = _seed_wagers(table.meters(decks)["progressive"])
    ret = np.zeros(T3_CLASSES, dtype=np.int64)
    for cls, hand in ((T3_FLUSH, H.FLUSH), (T3_STRAIGHT, H.STRAIGHT), (T3_TRIPS, H.TRIPS),
                      (T3_STRAIGHT_FLUSH, H.STRAIGHT_FLUSH)):
        ret[cls] = stakes_returned(table.payout(hand), seed)
    for ident in range(52):
        rank, suit = ident % 13 + 2, ident // 13
        if rank in table.premium_ranks:
            hand = H.DECLARED_SUIT if suit == DECLARED_SUIT else H.SUITED_PREMIUM
        else:
            hand = H.SUITED_TRIPS
        ret[T3_IDENTICAL + ident] = stakes_returned(table.payout(hand), seed)
    return ret


QK = (1 << QUEEN) | (1 << KING)
#: Royal Match classes: 0 nothing, 1 two-card straight flush, 2 Royal Match, 3 Crown Treasure
RM_STRAIGHT_FLUSH, RM_ROYAL_MATCH, RM_CROWN_TREASURE = 1, 2, 3


def classify_royal_match(ids: np.ndarray) -> np.ndarray:
    """Royal Match class of each (player 1, player 2, dealer up, dealer hole) row."""
    a, b, u, h = (ids[:, i].astype(np.int32) for i in range(4))
    suited = (a // 13) == (b // 13)
    ranks = (1 << (a % 13)) | (1 << (b % 13))
    royal = suited & (ranks == QK)
    dealer_royal = ((u // 13) == (h // 13)) & (((1 << (u % 13)) | (1 << (h % 13))) == QK)
    cls = np.where(suited & TWO_CARD_RUNS[ranks], RM_STRAIGHT_FLUSH, 0)
    return np.where(royal, np.where(dealer_royal, RM_CROWN_TREASURE, RM_ROYAL_MATCH), cls)


def _royal_match_returns(table: Any, decks: int) -> np.ndarray:
    from rules.bj_paytables import RoyalMatchHand as H

    seed = _seed_wagers(table.meters(decks)["progressive"])
    ret = np.zeros(4, dtype=np.int64)
    for cls, hand in ((RM_STRAIGHT_FLUSH, H.STRAIGHT_FLUSH), (RM_ROYAL_MATCH, H.ROYAL_MATCH),
                      (RM_CROWN_TREASURE, H.CROWN_TREASURE)):
        ret[cls] = stakes_returned(table.payout(hand), seed)
    return ret


#: Blackjack count of a rank index: 2..10 their number, J Q K 10, an ace 11
BJ_VALUE = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11], dtype=np.int32)
KB_CLASSES = 8
KING_OF_SPADES = SPADES * 13 + KING


def classify_kings_bounty(ids: np.ndarray) -> np.ndarray:
    """King's Bounty class (0 nothing, 1..7 the rows of § 633b.19(d) from the top) of each
    (player 1, player 2, dealer up, dealer hole) row."""
    a, b, u, h = (ids[:, i].astype(np.int32) for i in range(4))
    ra, rb, ru, rh = a % 13, b % 13, u % 13, h % 13
    suited = (a // 13) == (b // 13)
    pair = ra == rb
    twenty = BJ_VALUE[ra] + BJ_VALUE[rb] == 20  # A-A counts 12 (one ace 1)
    ten_u, ten_h = (ru >= TEN) & (ru <= KING), (rh >= TEN) & (rh <= KING)
    dealer_blackjack = ((ru == ACE) & ten_h) | ((rh == ACE) & ten_u)
    kings = pair & (ra == KING)
    cls = np.where(twenty, 7, 0)
    cls = np.where(kings, 6, cls)
    cls = np.where(suited & twenty, 5, cls)
    cls = np.where(suited & pair & (ra >= TEN) & (ra <= QUEEN), 4, cls)
    cls = np.where(suited & kings, 3, cls)
    ks_pair = (a == KING_OF_SPADES) & (b == KING_OF_SPADES)
    return np.where(ks_pair, np.where(dealer_blackjack, 1, 2), cls)


def _kings_bounty_returns(table: Any, decks: int) -> np.ndarray:
    from rules.bj_paytables import KingsBountyHand as H

    table.meters(decks)  # the deck count is offered
    rows = (H.KING_OF_SPADES_PAIR_DEALER_BLACKJACK, H.KING_OF_SPADES_PAIR, H.SUITED_KINGS,
            H.SUITED_QUEENS_JACKS_TENS, H.SUITED_20, H.PAIR_OF_KINGS, H.ANY_20)
    return np.array([0] + [stakes_returned(table.payout(h)) for h in rows], dtype=np.int64)


B7_CLASSES = 7


def classify_blazing_sevens(ids: np.ndarray) -> np.ndarray:
    """Blazing 7's class of each (player 1, player 2, dealer up) row: 0 no 7, 1 one 7, 2 two 7's,
    3 three 7's, 4 same colour, 5 same suit, 6 all diamonds."""
    a, b, u = (ids[:, i].astype(np.int32) for i in range(3))
    sevens = (a % 13 == SEVEN).astype(np.int32) + (b % 13 == SEVEN)
    three = (sevens == 2) & (u % 13 == SEVEN)
    sa, sb, su = a // 13, b // 13, u // 13
    red = ((sa == DIAMONDS) | (sa == HEARTS)).astype(np.int32) + ((sb == DIAMONDS) | (sb == HEARTS)) \
        + ((su == DIAMONDS) | (su == HEARTS))
    same_colour = (red == 0) | (red == 3)
    same_suit = (sa == sb) & (sb == su)
    diamonds = same_suit & (sa == DIAMONDS)
    cls = np.where(three, np.where(diamonds, 6, np.where(same_suit, 5, np.where(same_colour, 4, 3))), sevens)
    return cls


def _blazing_returns(table: Any, decks: int) -> np.ndarray:
    from rules.bj_paytables import BlazingSevensHand as H
    from rules.bj_paytables import MeterPayout

    meters = table.meters(decks)
    rows = (H.ONE_SEVEN, H.TWO_SEVENS, H.THREE_SEVENS, H.THREE_SAME_COLOUR, H.THREE_SAME_SUIT, H.THREE_DIAMONDS)
    out = [0]
    for h in rows:
        p = table.payout(h)
        out.append(stakes_returned(p, _seed_wagers(meters[p.meter]) if isinstance(p, MeterPayout) else None))
    return np.array(out, dtype=np.int64)


#: wager -> (cards dealt: player 2 + up [+ hole], classifier, classes, returns(table, decks))
_BLACKJACK: Mapping[str, tuple[int, Callable[[np.ndarray], np.ndarray], int, Callable[[Any, int], np.ndarray]]] = {
    "twenty-one-plus-three": (3, classify_twenty_one_plus_three, T3_CLASSES, _twenty_one_plus_three_returns),
    "royal-match": (4, classify_royal_match, 4, _royal_match_returns),
    "kings-bounty": (4, classify_kings_bounty, KB_CLASSES, _kings_bounty_returns),
    "blazing-sevens": (3, classify_blazing_sevens, B7_CLASSES, _blazing_returns),
    "blazing-sevens-multi": (3, classify_blazing_sevens, B7_CLASSES, _blazing_returns),
}


@cache
def _blackjack_table(wager: str, name: str, decks: int) -> tuple[str, np.ndarray]:
    """(wager name as ``croupier rtp`` gives it, returns per class)."""
    from rules.bj_paytables import paytable

    t = paytable(wager, name)
    return f"{wager} {t.name}", _BLACKJACK[wager][3](t, decks)


def _blackjack_kernel(wager: str) -> Callable[[np.random.Generator, int, Mapping[str, Any]], dict[str, WagerTally]]:
    k, classify, classes, _ = _BLACKJACK[wager]

    def kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
        decks = int(options["decks"])
        counts = np.bincount(classify(deal(rng, n, k, decks)), minlength=classes)
        out = {}
        for name in options["paytables"]:
            label, returns = _blackjack_table(wager, name, decks)
            out[label] = _tallies(counts, returns)
        return out

    kernel.__name__ = kernel.__qualname__ = f"{wager.replace('-', '_')}_kernel"
    kernel.__doc__ = f"``n`` {wager} hands, each from a fresh shoe of ``options['decks']`` decks, settled " \
                     f"under every paytable of ``options['paytables']``."
    return kernel


def _no_rules_wheel(game: str, rules: Path | None, wheel: str | None, base: bool) -> None:
    given = [o for o, v in (("--rules", rules), ("--wheel", wheel), ("--base", base)) if v]
    if given:
        raise ValueError(f"{game} takes --paytable and --decks only, not {' and '.join(given)}")


def _blackjack_options(wager: str) -> Callable[..., dict]:
    def options(rules: Path | None = None, paytable: str | None = None, wheel: str | None = None,
                decks: int | None = None, base: bool = False) -> dict:
        from rules.bj_paytables import PAYTABLES_OF, check_decks
        from rules.bj_paytables import paytable as pick

        _no_rules_wheel(wager, rules, wheel, base)
        d = BLACKJACK_DEFAULT_DECKS if decks is None else decks
        names = [pick(wager, paytable).name] if paytable else list(PAYTABLES_OF[wager])
        for name in names:
            check_decks(pick(wager, name), d)
        return {"paytables": names, "decks": d}

    return options


def _blackjack_exact(wager: str) -> Callable[[Mapping[str, Any]], dict[str, Fraction]]:
    def exact(options: Mapping[str, Any]) -> dict[str, Fraction]:
        from rules.blackjack_side import RTP_WAGERS

        fn = RTP_WAGERS[wager]
        return {e.to_json()["wager"]: e.rtp_exact for p in options["paytables"] for e in fn(p, options["decks"])}

    return exact


# =========================================================================== poker hands

#: Category paytables' classes: 0 high card, 2..9 two pair .. royal flush (``cards_deal``'s
#: category numbers), 10 + r a one-pair hand with a pair of rank index r; 23: no hand (Bad Beat:
#: no losing hand)
PAIR_BASE, NO_HAND, CATEGORY_CLASSES = 10, 23, 24
_CATEGORY_ROWS: Mapping[str, tuple[int, ...]] = {
    "Royal flush": (9,),
    "Straight flush": (8, 9),  # a royal flush is a straight flush too: paid at the higher row
    "Four-of-a-kind": (7,),
    "Full house": (6,),
    "Flush": (5,),
    "Straight": (4,),
    "Three-of-a-kind": (3,),
    "Two pair": (2,),
    "Pair—10s or better": tuple(PAIR_BASE + r for r in range(TEN, ACE + 1)),
}


def _category_returns(table: Any) -> np.ndarray:
    """Stakes returned per class under a § 653b.2–4 paytable (the highest-paying row of a class)."""
    ret = np.zeros(CATEGORY_CLASSES, dtype=np.int64)
    for label, payout in table.rows:
        if label not in _CATEGORY_ROWS:
            raise ValueError(f"{table.label}: no hand class for the row {label!r}")
        for cls in _CATEGORY_ROWS[label]:
            ret[cls] = max(ret[cls], stakes_returned(payout))
    return ret


def classes_of_keys(keys: np.ndarray) -> np.ndarray:
    """Category paytable class of each poker key (one-pair hands split by the pair's rank)."""
    cat = keys >> CATEGORY_SHIFT
    return np.where(cat == PAIR, PAIR_BASE + pair_rank_of_key(keys), cat)


def _masks(bits: list[np.ndarray]) -> np.ndarray:
    out = bits[0]
    for b in bits[1:]:
        out = out | b
    return out


#: Ultimate Pairs classes (§ 653b.5(f), § 674b.1(f)): 0 nothing, 1 pair 2s–10s, 2 A-Q/A-J
#: offsuit, 3 K-K/Q-Q/J-J, 4 A-K offsuit, 5 A-Q/A-J suited, 6 A-K suited, 7 A-A (not A♥ A♦),
#: 8 A♥ A♦, 9 A-A (not A♥ A♦) and the dealer's A-A, 10 A♥ A♦ and the dealer's A-A
UP_CLASSES = 11
_PAIRS_ROWS: Mapping[str, tuple[int, ...]] = {
    "Pair—10s or less": (1,),
    "Ace/queen or ace/jack": (2, 5),
    "King/king, queen/queen or jack/jack": (3,),
    "Ace/king": (4, 6),
    "Ace/queen (suited) or player ace/jack (suited)": (5,),
    "Ace/king (suited)": (6,),
    "Ace/ace": (7, 8, 9, 10),
    "Ace of hearts and ace of diamonds": (8, 10),
    "Ace/ace and dealer ace/ace": (9, 10),
}


def classify_pairs(ids: np.ndarray, dealer: np.ndarray | None = None) -> np.ndarray:
    """Ultimate Pairs class of each row of the player's two card identities (``dealer``: the
    dealer's two, for paytable F)."""
    a, b = ids[:, 0].astype(np.int32), ids[:, 1].astype(np.int32)
    ra, rb, sa, sb = a % 13, b % 13, a // 13, b // 13
    suited, pair = sa == sb, ra == rb
    hi, lo = np.maximum(ra, rb), np.minimum(ra, rb)
    ace_x = (hi == ACE) & ~pair
    ak, aqj = ace_x & (lo == KING), ace_x & ((lo == QUEEN) | (lo == JACK))
    aces = pair & (ra == ACE)
    red_aces = aces & (((sa == HEARTS) & (sb == DIAMONDS)) | ((sa == DIAMONDS) & (sb == HEARTS)))
    cls = np.where(pair & (ra <= TEN), 1, 0)
    cls = np.where(aqj, np.where(suited, 5, 2), cls)
    cls = np.where(pair & (ra >= JACK) & (ra <= KING), 3, cls)
    cls = np.where(ak, np.where(suited, 6, 4), cls)
    cls = np.where(aces, np.where(red_aces, 8, 7), cls)
    if dealer is not None:
        dealer_aces = (dealer[:, 0] % 13 == ACE) & (dealer[:, 1] % 13 == ACE)
        cls = np.where(dealer_aces & (cls >= 7), cls + 2, cls)
    return cls


def _pairs_returns(table: Any) -> np.ndarray:
    ret = np.zeros(UP_CLASSES, dtype=np.int64)
    for label, payout in table.rows:
        if label not in _PAIRS_ROWS:
            raise ValueError(f"{table.label}: no hand class for the row {label!r}")
        for cls in _PAIRS_ROWS[label]:
            ret[cls] = max(ret[cls], stakes_returned(payout))
    return ret


def _poker_table(wager: str, name: str) -> Any:
    from rules import criss_cross, uth

    if wager == "criss-cross-ultimate-pairs":
        return criss_cross.paytable(name)
    tables, what, section = {
        "uth-trips": (uth.TRIPS_PAYTABLES, "Trips", "§ 653b.2(b)"),
        "uth-bad-beat": (uth.BAD_BEAT_PAYTABLES, "Bad Beat", "§ 653b.3(b)"),
        "play-the-board": (uth.PLAY_THE_BOARD_PAYTABLES, "Play the Board", "§ 653b.4(f)"),
        "ultimate-pairs": (uth.ULTIMATE_PAIRS_PAYTABLES, "Ultimate Pairs", "§ 653b.5(f)"),
    }[wager]
    return uth.pick_paytable(tables, name, what, section)


def _poker_paytables(wager: str) -> tuple[str, ...]:
    from rules import criss_cross, uth

    return tuple({"uth-trips": uth.TRIPS_PAYTABLES, "uth-bad-beat": uth.BAD_BEAT_PAYTABLES,
                  "play-the-board": uth.PLAY_THE_BOARD_PAYTABLES, "ultimate-pairs": uth.ULTIMATE_PAIRS_PAYTABLES,
                  "criss-cross-ultimate-pairs": criss_cross.ULTIMATE_PAIRS_PAYTABLES}[wager])


def uth_trips_kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """§ 653b.2: ``n`` deals of the player's two cards and the board; the best five of seven."""
    _, bits = deal_one_deck(rng, n, 7)
    counts = np.bincount(classes_of_keys(poker_key(_masks(bits))), minlength=CATEGORY_CLASSES)
    return {"uth-trips": _tallies(counts, _category_returns(_poker_table("uth-trips", options["paytable"])))}


def play_the_board_kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """§ 653b.4(e): ``n`` boards of five community cards."""
    _, bits = deal_one_deck(rng, n, 5)
    counts = np.bincount(classes_of_keys(poker_key(_masks(bits))), minlength=CATEGORY_CLASSES)
    return {"play-the-board": _tallies(counts, _category_returns(_poker_table("play-the-board", options["paytable"])))}


def bad_beat_classes(board: np.ndarray, player: np.ndarray, dealer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(losing-hand class, player-loses class) of each deal from the poker masks of the board and
    of the player's and dealer's two cards: the category of the hand that loses (``NO_HAND``: a
    tie, or under ``player-loses`` the player's hand does not lose)."""
    kp, kd = poker_key(board | player), poker_key(board | dealer)
    cp, cd = kp >> CATEGORY_SHIFT, kd >> CATEGORY_SHIFT
    player_loses = np.where(kp < kd, cp, NO_HAND)
    losing = np.where(kd < kp, cd, player_loses)
    return losing, player_loses


def uth_bad_beat_kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
    """§ 653b.3: ``n`` deals of the board (5), the player's two and the dealer's two cards,
    settled under both readings of whose losing hand the wager reads."""
    from rules.poker_side_rtp import BAD_BEAT_WAGER_NAMES
    from rules.uth import BadBeatReading

    _, bits = deal_one_deck(rng, n, 9)
    losing, player = bad_beat_classes(_masks(bits[:5]), bits[5] | bits[6], bits[7] | bits[8])
    ret = _category_returns(_poker_table("uth-bad-beat", options["paytable"]))
    return {BAD_BEAT_WAGER_NAMES[BadBeatReading.LOSING_HAND]:
            _tallies(np.bincount(losing, minlength=CATEGORY_CLASSES), ret),
            BAD_BEAT_WAGER_NAMES[BadBeatReading.PLAYER_LOSES]:
            _tallies(np.bincount(player, minlength=CATEGORY_CLASSES), ret)}


def _pairs_kernel(wager: str) -> Callable[[np.random.Generator, int, Mapping[str, Any]], dict[str, WagerTally]]:
    def kernel(rng: np.random.Generator, n: int, options: Mapping[str, Any]) -> dict[str, WagerTally]:
        table = _poker_table(wager, options["paytable"])
        with_dealer = table.uses_dealer_cards
        ids, _ = deal_one_deck(rng, n, 4 if with_dealer else 2)
        cls = classify_pairs(ids[:, :2], ids[:, 2:] if with_dealer else None)
        return {wager: _tallies(np.bincount(cls, minlength=UP_CLASSES), _pairs_returns(table))}

    kernel.__name__ = kernel.__qualname__ = f"{wager.replace('-', '_')}_kernel"
    kernel.__doc__ = f"``n`` {wager} hands: the player's two cards (a paytable reading the dealer's: and his two)."
    return kernel


def _poker_options(wager: str) -> Callable[..., dict]:
    def options(rules: Path | None = None, paytable: str | None = None, wheel: str | None = None,
                decks: int | None = None, base: bool = False) -> dict:
        _no_rules_wheel(wager, rules, wheel, base)
        if decks is not None and (isinstance(decks, bool) or decks != 1):
            raise ValueError(f"{wager} is dealt from one 52-card deck: --decks 1 or none, not {decks!r}")
        names = _poker_paytables(wager)
        if paytable is None:
            if len(names) > 1:
                raise ValueError(f"{wager}: croupier rtp names the wager of every paytable {wager!r}, so a Monte "
                                 f"Carlo run plays one: give --paytable ({', '.join(names)})")
            paytable = names[0]
        return {"paytable": _poker_table(wager, paytable).name, "decks": 1}

    return options


def _poker_exact(wager: str) -> Callable[[Mapping[str, Any]], dict[str, Fraction]]:
    def exact(options: Mapping[str, Any]) -> dict[str, Fraction]:
        from rules.poker_side_rtp import RTP_WAGERS

        return {e.to_json()["wager"]: e.rtp_exact for e in RTP_WAGERS[wager](options["paytable"], 1)}

    return exact


_POKER_KERNELS = {
    "uth-trips": uth_trips_kernel,
    "uth-bad-beat": uth_bad_beat_kernel,
    "play-the-board": play_the_board_kernel,
    "ultimate-pairs": _pairs_kernel("ultimate-pairs"),
    "criss-cross-ultimate-pairs": _pairs_kernel("criss-cross-ultimate-pairs"),
}

#: The card side wagers' games, by ``croupier rtp`` game name.
GAMES: Mapping[str, McGame] = {
    **{w: McGame(w, "hands", _blackjack_kernel(w), _blackjack_options(w), _blackjack_exact(w))
       for w in BLACKJACK_WAGERS},
    **{w: McGame(w, "hands", _POKER_KERNELS[w], _poker_options(w), _poker_exact(w)) for w in POKER_WAGERS},
}
