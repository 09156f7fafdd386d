"""The card side wagers' Monte Carlo kernels (rules.mc.cards, issue 15).

* Agreement: every wager, paytable and deck count of ``croupier rtp`` (the blackjack wagers at 6
  and 8 decks, the poker wagers at one deck) against the exact RTP within the MC's 99.9 %
  confidence interval, at a fixed seed (deterministic).
* The evaluators pinned by exact combinatorial counts, independently of the paytables and of the
  exact-RTP code: 21+3 three-card classes over every 3-card subset of 1-, 2- and 3-deck shoes,
  two-card classes (Royal Match, King's Bounty, Ultimate Pairs), ordered Blazing 7's deals,
  every 5-card poker hand (categories, one-pair ranks, the 7,462 distinct values in
  phevaluator's order), 7-card hands equal to their best five-card subset, and the 7-card
  category frequencies.
* The deal: a draw without replacement from a fresh shoe per hand.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
from scipy import stats

from rules.blackjack_side import DEFAULT_DECKS as BJ_DECKS
from rules.blackjack_side import PAYTABLES_OF as BJ_PAYTABLES
from rules.mc import GAMES
from rules.mc import cards as mc
from rules.mc import cards_deal as cd
from rules.poker_side_rtp import DEFAULT_DECKS as POKER_DECKS
from rules.poker_side_rtp import PAYTABLES_OF as POKER_PAYTABLES

#: hands per agreement run (the rare jackpot rows are pinned by test_blackjack_hand_frequencies)
HANDS = 1 << 19
#: hands per hand-frequency run: the rarest row (three 7's all diamonds, ~4e-6) expected ~8 times
FREQUENCY_HANDS = 1 << 21
SEED = 20261202
CONFIDENCE = 0.999


def combos(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n), as rows in lexicographic order (vectorised)."""
    rows = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = rows[:, -1]
        reps = n - 1 - last
        base = np.repeat(rows, reps, axis=0)
        start = np.repeat(last + 1, reps)
        offsets = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        rows = np.column_stack([base, start + offsets])
    return rows


def test_combos_helper() -> None:
    assert [tuple(r) for r in combos(6, 3).tolist()] == list(combinations(range(6), 3))


# --------------------------------------------------------------------------- agreement

def _runs() -> list[tuple[str, str | None, int | None]]:
    out: list[tuple[str, str | None, int | None]] = [(g, None, d) for g in BJ_PAYTABLES for d in BJ_DECKS]
    assert POKER_DECKS == (1,)
    out += [(g, p, None) for g, tables in POKER_PAYTABLES.items() for p in tables]
    return out


def test_every_rtp_card_wager_has_a_kernel() -> None:
    from hil.cli import _card_wagers

    assert set(_card_wagers()) == set(mc.GAMES) == set(BJ_PAYTABLES) | set(POKER_PAYTABLES)
    for name in mc.GAMES:
        assert GAMES[name] is mc.GAMES[name] and GAMES[name].unit == "hands"


@pytest.mark.parametrize(("game", "paytable", "decks"), _runs(),
                         ids=[f"{g}-{p or ''}{d or ''}" for g, p, d in _runs()])
def test_mc_agrees_with_exact_rtp(game: str, paytable: str | None, decks: int | None) -> None:
    spec = GAMES[game]
    options = spec.options(rules=None, paytable=paytable, wheel=None, decks=decks, base=False)
    exact = spec.exact(options)
    # the wager names croupier rtp gives for the same options: the join is by name
    from hil.cli import _card_rtp_doc, _card_wagers

    doc = _card_rtp_doc(game, _card_wagers()[game], paytable, decks, None, None)
    assert sorted(exact) == sorted(w["wager"] for w in doc["wagers"])
    hands = HANDS
    got = spec.kernel(np.random.default_rng(SEED), hands, options)
    assert sorted(got) == sorted(exact)
    for wager, t in got.items():
        assert t.n == hands and t.den == 1 and 0 < t.hits < t.n
        lo, hi = t.ci(CONFIDENCE)
        assert lo <= float(exact[wager]) <= hi, (f"{wager} at {options}: MC {t.rtp:.5f} CI [{lo:.5f}, {hi:.5f}] "
                                                 f"misses the exact {float(exact[wager]):.5f}")
        # a meaningful interval: narrower than half the RTP (the widest, Royal Match's, is
        # dominated by the Crown Treasure's 10,000 stakes at a probability of ~8e-6)
        assert hi - lo < float(exact[wager]) / 2


def _hand_enums(wager: str) -> list:
    from rules.bj_paytables import BlazingSevensHand as B7
    from rules.bj_paytables import KingsBountyHand as KB
    from rules.bj_paytables import RoyalMatchHand as RM
    from rules.bj_paytables import TwentyOnePlusThreeHand as T3

    if wager == "royal-match":
        return [RM.NOTHING, RM.STRAIGHT_FLUSH, RM.ROYAL_MATCH, RM.CROWN_TREASURE]
    if wager == "kings-bounty":
        return [KB.NOTHING, KB.KING_OF_SPADES_PAIR_DEALER_BLACKJACK, KB.KING_OF_SPADES_PAIR, KB.SUITED_KINGS,
                KB.SUITED_QUEENS_JACKS_TENS, KB.SUITED_20, KB.PAIR_OF_KINGS, KB.ANY_20]
    if wager == "blazing-sevens":
        return [B7.NOTHING, B7.ONE_SEVEN, B7.TWO_SEVENS, B7.THREE_SEVENS, B7.THREE_SAME_COLOUR, B7.THREE_SAME_SUIT,
                B7.THREE_DIAMONDS]
    # 21+3 with the premium ranks of paytable 1 (aces, kings), spades declared
    out = [T3.NOTHING, T3.FLUSH, T3.STRAIGHT, T3.TRIPS, T3.STRAIGHT_FLUSH, None, None, None]
    for ident in range(52):
        premium = ident % 13 in (cd.ACE, cd.KING)
        out.append(T3.SUITED_TRIPS if not premium else T3.DECLARED_SUIT if ident // 13 == cd.SPADES
                   else T3.SUITED_PREMIUM)
    return out


@pytest.mark.parametrize("decks", BJ_DECKS)
@pytest.mark.parametrize("wager", ["twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens"])
def test_blackjack_hand_frequencies(wager: str, decks: int) -> None:
    """Every paytable row's frequency in the kernel's deal (a fresh shoe per hand) against its
    exact probability (``croupier rtp``'s ``hands``): the jackpot rows, too rare for the RTP's
    interval to see (a Crown Treasure is 8 % of Royal Match's RTP at a probability of 8e-6), are
    each seen and within 4 standard deviations."""
    from rules.blackjack_side import hand_distribution

    cards, classify, classes, _ = mc._BLACKJACK[wager]
    counts = np.bincount(classify(cd.deal(np.random.default_rng(SEED + decks), FREQUENCY_HANDS, cards, decks)),
                         minlength=classes)
    seen: dict = {}
    for hand, k in zip(_hand_enums(wager), counts.tolist(), strict=True):
        if hand is None:
            assert k == 0
            continue
        seen[hand] = seen.get(hand, 0) + k
    exact = hand_distribution(wager, decks, premium_ranks=(14, 13), declared_suit="s")
    assert set(exact) <= set(seen)
    for hand, k in seen.items():
        expect = FREQUENCY_HANDS * float(exact.get(hand, Fraction(0)))
        assert expect > 8, (hand, expect)
        assert k > 0 and abs(k - expect) < 4 * np.sqrt(expect), (wager, decks, str(hand), k, expect)


def test_kernel_is_deterministic_given_the_generator() -> None:
    spec = GAMES["uth-bad-beat"]
    options = spec.options(paytable="C")
    a = spec.kernel(np.random.default_rng(7), 5000, options)
    b = spec.kernel(np.random.default_rng(7), 5000, options)
    c = spec.kernel(np.random.default_rng(8), 5000, options)
    assert a == b and a != c


# --------------------------------------------------------------------------- options

def test_options_select_paytables_and_decks_as_rtp_does() -> None:
    g = GAMES["twenty-one-plus-three"]
    assert g.options() == {"paytables": [str(i) for i in range(1, 12)], "decks": 6}
    assert g.options(paytable="P7", decks=8) == {"paytables": ["7"], "decks": 8}
    assert g.options(paytable="2", decks=3) == {"paytables": ["2"], "decks": 3}
    assert GAMES["ultimate-pairs"].options(paytable="f") == {"paytable": "F", "decks": 1}
    assert GAMES["uth-trips"].options() == {"paytable": "E", "decks": 1}


@pytest.mark.parametrize(("game", "kwargs", "words"), [
    ("twenty-one-plus-three", {"paytable": "4", "decks": 3}, "4 to 8 decks"),
    ("twenty-one-plus-three", {"decks": 3}, "not 3"),
    ("twenty-one-plus-three", {"paytable": "12"}, "no twenty-one-plus-three paytable"),
    ("kings-bounty", {"paytable": "A"}, "§ 633a.13(h)"),
    ("royal-match", {"decks": 9}, "8 decks at most"),
    ("royal-match", {"wheel": "single"}, "--paytable and --decks only"),
    ("play-the-board", {}, "give --paytable (A, B, C)"),
    ("play-the-board", {"paytable": "D"}, "no Play the Board paytable"),
    ("uth-trips", {"decks": 6}, "one 52-card deck"),
    ("criss-cross-ultimate-pairs", {"paytable": "F"}, "has A, B, C, D, E"),
])
def test_bad_options_are_refused_with_the_reason(game: str, kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        GAMES[game].options(**kwargs)
    assert words in str(info.value)


# --------------------------------------------------------------------------- the deal

def test_one_deck_deal_is_without_replacement_and_uniform() -> None:
    ids, bits = cd.deal_one_deck(np.random.default_rng(1), 100_000, 9)
    assert ids.shape == (100_000, 9) and ids.max() < 52
    srt = np.sort(ids, axis=1)
    assert (np.diff(srt, axis=1) > 0).all()  # no card twice in a hand
    assert (cd.BIT[ids] == np.stack(bits, axis=1)).all()
    assert (np.bitwise_count(mc._masks(bits)) == 9).all()
    # every position uniform over the 52 cards
    for j in range(9):
        counts = np.bincount(ids[:, j], minlength=52)
        assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("decks", [6, 8])
def test_shoe_deal_is_without_replacement(decks: int) -> None:
    """Two cards of one identity: (d - 1)/(52 d - 1) without replacement (1/52 with)."""
    n = 400_000
    ids = cd.deal(np.random.default_rng(decks), n, 4, decks)
    assert ids.max() < 52
    same = int((ids[:, 0] == ids[:, 1]).sum())
    p = (decks - 1) / (52 * decks - 1)
    half = 3.29 * np.sqrt(n * p * (1 - p))
    assert abs(same - n * p) < half, (same, n * p)
    assert abs(same - n / 52) > half  # the test can tell the two apart
    assert stats.chisquare(np.bincount(ids[:, 3], minlength=52)).pvalue > 1e-4


# --------------------------------------------------------------------------- blackjack evaluators

def _shoe_subsets(decks: int, k: int) -> np.ndarray:
    return (combos(52 * decks, k) % 52).astype(np.uint8)


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_twenty_one_plus_three_classes_exhaustive(decks: int) -> None:
    """Every 3-card subset of the shoe against the combinatorial counts (1 deck: the Three Card
    Poker counts 48 straight flushes, 52 trips, 720 straights, 1,096 flushes of 22,100)."""
    d = decks
    cls = mc.classify_twenty_one_plus_three(_shoe_subsets(d, 3))
    counts = np.bincount(cls, minlength=mc.T3_CLASSES)
    identical = comb(d, 3)
    expected = {
        mc.T3_STRAIGHT_FLUSH: 12 * 4 * d ** 3,
        mc.T3_TRIPS: 13 * (comb(4 * d, 3) - 4 * identical),
        mc.T3_STRAIGHT: 12 * ((4 * d) ** 3 - 4 * d ** 3),
        mc.T3_FLUSH: 4 * (comb(13 * d, 3) - 12 * d ** 3 - 13 * identical),
    }
    for cls_, want in expected.items():
        assert counts[cls_] == want, (cls_, counts[cls_], want)
    assert (counts[mc.T3_IDENTICAL:] == identical).all()
    assert counts.sum() == comb(52 * d, 3)
    if d == 1:
        assert [expected[c] for c in (4, 3, 2, 1)] == [48, 52, 720, 1096]


def _with_dealer(player: np.ndarray, up: int, hole: int) -> np.ndarray:
    n = len(player)
    return np.column_stack([player, np.full(n, up, np.uint8), np.full(n, hole, np.uint8)])


@pytest.mark.parametrize("decks", [1, 2])
def test_royal_match_and_kings_bounty_two_card_classes(decks: int) -> None:
    d = decks
    two = 0  # the two of clubs: neither a king/queen nor a Blackjack card
    pairs = _shoe_subsets(d, 2)
    rm = np.bincount(mc.classify_royal_match(_with_dealer(pairs, two, two + 1)), minlength=4)
    assert rm[mc.RM_ROYAL_MATCH] == 4 * d * d and rm[mc.RM_STRAIGHT_FLUSH] == 48 * d * d and rm[3] == 0
    kb = np.bincount(mc.classify_kings_bounty(_with_dealer(pairs, two, two + 1)), minlength=8)
    c2 = comb(d, 2)
    kings = comb(4 * d, 2) - 4 * c2  # two kings of different suits
    expected = [0, 0, c2, 3 * c2, 12 * c2, 4 * (comb(4 * d, 2) - 4 * c2 + d * d), kings,
                comb(16 * d, 2) - 4 * comb(4 * d, 2) - kings + (16 - 4) * d * d]
    assert kb[1:].tolist() == expected[1:]
    # the dealer's Blackjack (ace up, king in the hole; or the reverse) lifts the king of spades pair
    ks = np.full((1, 2), mc.KING_OF_SPADES, np.uint8)
    ace, king = 12, 11
    assert mc.classify_kings_bounty(_with_dealer(ks, ace, king)).tolist() == [1]
    assert mc.classify_kings_bounty(_with_dealer(ks, king, ace)).tolist() == [1]
    assert mc.classify_kings_bounty(_with_dealer(ks, king, king)).tolist() == [2]
    # the dealer's Royal Match (any suit) makes a player's Royal Match a Crown Treasure
    qh, kh, qs, ks_ = 2 * 13 + 10, 2 * 13 + 11, 3 * 13 + 10, 3 * 13 + 11
    assert mc.classify_royal_match(np.array([[qh, kh, ks_, qs], [qh, kh, ks_, qh], [qh, kh, 0, 1]],
                                            np.uint8)).tolist() == [3, 2, 2]


def test_blazing_sevens_ordered_deals_two_decks() -> None:
    d, size = 2, 104
    a, b, c = np.meshgrid(np.arange(size), np.arange(size), np.arange(size), indexing="ij")
    keep = (a != b) & (b != c) & (a != c)
    ids = (np.column_stack([a[keep], b[keep], c[keep]]) % 52).astype(np.uint8)
    counts = np.bincount(mc.classify_blazing_sevens(ids), minlength=7)
    n, s = size, 4 * d
    same_suit = d * (d - 1) * (d - 2)
    colour = 2 * ((2 * d) * (2 * d - 1) * (2 * d - 2) - 2 * same_suit)
    three = s * (s - 1) * (s - 2)
    assert counts.tolist() == [(n - s) * (n - s - 1) * (n - 2), 2 * s * (n - s) * (n - 2), s * (s - 1) * (n - s),
                               three - colour - 4 * same_suit, colour, 3 * same_suit, same_suit]


def test_ultimate_pairs_classes_exhaustive() -> None:
    """The C(52, 2) = 1,326 two-card hands by § 653b.5(f)'s rows."""
    counts = np.bincount(mc.classify_pairs(_shoe_subsets(1, 2)), minlength=mc.UP_CLASSES)
    # nothing, pair 2-10, AQ/AJ off, KK/QQ/JJ, AK off, AQs/AJs, AKs, AA, A♥A♦
    assert counts.tolist() == [1200, 54, 24, 18, 12, 8, 4, 5, 1, 0, 0]
    aces = np.array([[12, 13 + 12]], np.uint8)  # A♣ A♦ ; the dealer A♥ A♠
    red = np.array([[13 + 12, 26 + 12]], np.uint8)
    dealer = np.array([[26 + 12, 39 + 12]], np.uint8)
    assert mc.classify_pairs(aces, dealer).tolist() == [9]
    assert mc.classify_pairs(red, np.array([[12, 39 + 12]], np.uint8)).tolist() == [10]


def test_pairs_rows_paid_at_the_highest_row() -> None:
    from rules import uth

    ret = mc._pairs_returns(uth.ULTIMATE_PAIRS_PAYTABLES["C"])
    assert ret[8] == 101 and ret[7] == 31  # A♥ A♦ 100 to 1 on C; other aces 30 to 1
    ret = mc._pairs_returns(uth.ULTIMATE_PAIRS_PAYTABLES["F"])
    assert ret[9] == ret[10] == 1001 and ret[8] == ret[7] == 31  # F has no A♥ A♦ row
    assert mc._pairs_returns(uth.ULTIMATE_PAIRS_PAYTABLES["B"])[5] == 21  # AQs: 20 to 1 beats AQ 10 to 1


# --------------------------------------------------------------------------- poker evaluator

#: C(52, 5) five-card hands by category, high card first (the standard counts)
FIVE_CARD = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]
#: distinct hand values per category (7,462 in all)
FIVE_CARD_VALUES = [1277, 2860, 858, 858, 10, 1277, 156, 156, 9, 1]
#: C(52, 6) six-card hands by the category of their best five
SIX_CARD = [6612900, 9730740, 2532816, 732160, 361620, 205792, 165984, 14664, 1656, 188]
#: C(52, 7) seven-card hands by the category of their best five
SEVEN_CARD = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 37260, 4324]


@pytest.fixture(scope="module")
def five_card_hands() -> tuple[np.ndarray, np.ndarray]:
    ids = combos(52, 5)
    return ids, cd.poker_key(cd.card_masks(ids))


def test_five_card_categories_exhaustive(five_card_hands: tuple[np.ndarray, np.ndarray]) -> None:
    ids, keys = five_card_hands
    assert len(ids) == comb(52, 5) and sum(FIVE_CARD) == comb(52, 5) and sum(FIVE_CARD_VALUES) == 7462
    cat = cd.category_of_key(keys)
    assert np.bincount(cat, minlength=10).tolist() == FIVE_CARD
    distinct = np.unique(keys)
    assert np.bincount(cd.category_of_key(distinct), minlength=10).tolist() == FIVE_CARD_VALUES
    # one-pair hands by the rank of the pair: 84,480 each
    pair_ranks = np.bincount(mc.classes_of_keys(keys[cat == cd.PAIR]) - mc.PAIR_BASE, minlength=13)
    assert pair_ranks.tolist() == [FIVE_CARD[1] // 13] * 13


def test_five_card_values_in_phevaluators_order(five_card_hands: tuple[np.ndarray, np.ndarray]) -> None:
    """Ordered by the key, one representative of each of the 7,462 values has phevaluator's rank
    7462 .. 1 (its order, 1 the best); and hands of one key have one phevaluator rank."""
    from rules.poker import rank5

    ids, keys = five_card_hands
    ph_id = (ids % 13) * 4 + ids // 13  # phevaluator's card number: (rank - 2)·4 + suit
    distinct, first = np.unique(keys, return_index=True)
    ranks = [rank5(*map(int, ph_id[i])) for i in first]
    assert ranks == list(range(7462, 0, -1))
    sample = np.random.default_rng(5).choice(len(ids), 20_000, replace=False)
    rank_of_key = dict(zip(distinct.tolist(), ranks))
    assert all(rank5(*map(int, ph_id[i])) == rank_of_key[int(keys[i])] for i in sample)


@pytest.mark.slow
def test_six_card_categories_exhaustive() -> None:
    """All C(52, 6) = 20,358,520 six-card hands by the category of their best five (~3 s)."""
    assert sum(SIX_CARD) == comb(52, 6)
    fives = combos(51, 5)
    counts = np.zeros(10, dtype=np.int64)
    for first in range(52 - 6 + 1):
        rest = fives[fives[:, -1] < 51 - first] + first + 1  # five cards above the first
        masks = cd.BIT[first] | cd.card_masks(rest)
        counts += np.bincount(cd.category_of_key(cd.poker_key(masks)), minlength=10)
    assert counts.tolist() == SIX_CARD


def test_seven_card_key_is_its_best_five() -> None:
    ids, bits = cd.deal_one_deck(np.random.default_rng(11), 60_000, 7)
    key7 = cd.poker_key(mc._masks(bits))
    best = np.max([cd.poker_key(cd.card_masks(ids[:, list(five)])) for five in combinations(range(7), 5)], axis=0)
    assert (key7 == best).all()


def test_seven_card_category_frequencies() -> None:
    assert sum(SEVEN_CARD) == comb(52, 7)
    _, bits = cd.deal_one_deck(np.random.default_rng(SEED), HANDS, 7)
    counts = np.bincount(cd.category_of_key(cd.poker_key(mc._masks(bits))), minlength=10)
    expected = np.array(SEVEN_CARD, dtype=float) * HANDS / comb(52, 7)
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    # each category within its own 99.9 % binomial interval too
    p = np.array(SEVEN_CARD) / comb(52, 7)
    assert (np.abs(counts - expected) < 3.29 * np.sqrt(HANDS * p * (1 - p)) + 1).all()


def test_bad_beat_reads_the_losing_hand() -> None:
    """Board 5♠ 6♠ 7♠ K♦ K♣: the player's 8♠ 9♠ straight flush beats the dealer's K♥ K♠ four of a
    kind: the losing hand is the dealer's quads (losing-hand), and the player did not lose."""
    def mask(cards: list[int]) -> np.ndarray:
        return cd.card_masks(np.array([cards], np.uint8))

    s = 39  # spades
    board = mask([s + 3, s + 4, s + 5, 13 + 11, 11])
    losing, player = mc.bad_beat_classes(board, mask([s + 6, s + 7]), mask([26 + 11, s + 11]))
    assert losing.tolist() == [cd.QUADS] and player.tolist() == [mc.NO_HAND]
    losing, player = mc.bad_beat_classes(board, mask([26 + 11, s + 11]), mask([s + 6, s + 7]))
    assert losing.tolist() == player.tolist() == [cd.QUADS]
    tie = mc.bad_beat_classes(board, mask([0, 1]), mask([13, 14]))  # both play the board's kings
    assert tie[0].tolist() == tie[1].tolist() == [mc.NO_HAND]


def test_meter_rows_pay_the_seed() -> None:
    """21+3 paytable 1 pays the meter at 2,000× the wager; 3–6 "$2000" at a $1 wager; 7–11 "N/A":
    an empty meter (0), and their suited premium trips 2,000 / 3,000 for 1."""
    from rules.bj_paytables import PAYTABLES

    t = PAYTABLES["twenty-one-plus-three"]
    ace_spades, ace_hearts = 3 * 13 + 12, 2 * 13 + 12
    for name, declared, suited in (("1", 2000, 2000), ("4", 2000, 2000), ("7", 0, 2000), ("10", 0, 3000)):
        ret = mc._twenty_one_plus_three_returns(t[name], 6)
        assert ret[mc.T3_IDENTICAL + ace_spades] == declared and ret[mc.T3_IDENTICAL + ace_hearts] == suited
    assert mc.stakes_returned(None) == 0 and mc.stakes_returned(t["1"].payout(list(t["1"].pays)[3])) == 25
    assert Fraction(mc._royal_match_returns(PAYTABLES["royal-match"]["A"], 6)[3]) == 10_000
