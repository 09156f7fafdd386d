"""rules.poker: the phevaluator wrapper checked against a small independent pure-Python ranker, and
the exact class counts (by rank multiset and suit pattern) against the published ones."""

from collections import Counter
from itertools import combinations
from math import comb

import numpy as np
import pytest

from rules.cards import Card, deck
from rules.poker import (
    HAND_VALUES, HandCategory, HandValue, as_cards, best_five, card_id, card_of_id, category, category_counts,
    category_of_rank, compare, evaluate, pair_rank_counts, rank5, rank7,
)

# --------------------------------------------------------------------------- an independent ranker


def _ref5(cards):
    """(category, tie-break ranks) of exactly five cards: plain poker rules, no tables."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    counts = Counter(ranks)
    by_count = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_high = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_high = distinct[0]
        elif distinct == [14, 5, 4, 3, 2]:
            straight_high = 5  # the wheel: the ace plays low
    if straight_high and flush:
        return (HandCategory.ROYAL_FLUSH if straight_high == 14 else HandCategory.STRAIGHT_FLUSH, (straight_high,))
    shape = [c for _, c in by_count]
    tie = tuple(r for r, _ in by_count)
    if shape[0] == 4:
        return HandCategory.FOUR_OF_A_KIND, tie
    if shape[:2] == [3, 2]:
        return HandCategory.FULL_HOUSE, tie
    if flush:
        return HandCategory.FLUSH, tuple(ranks)
    if straight_high:
        return HandCategory.STRAIGHT, (straight_high,)
    if shape[0] == 3:
        return HandCategory.THREE_OF_A_KIND, tie
    if shape[:2] == [2, 2]:
        return HandCategory.TWO_PAIR, tie
    if shape[0] == 2:
        return HandCategory.PAIR, tie
    return HandCategory.HIGH_CARD, tuple(ranks)


def _ref(cards):
    return max(_ref5(five) for five in combinations(cards, 5))


def _sign(x):
    return (x > 0) - (x < 0)


def _random_hands(rng, n, size):
    d = deck()
    return [tuple(d[i] for i in rng.choice(52, size=size, replace=False)) for _ in range(n)]


# --------------------------------------------------------------------------- the wrapper

def test_card_ids_are_phevaluators():
    assert card_id("2c") == 0 and card_id("2s") == 3 and card_id("As") == 51 and card_id(Card(10, "h")) == 34
    assert [card_of_id(card_id(c)) for c in deck()] == list(deck())
    with pytest.raises(ValueError):
        card_of_id(52)


def test_category_names_as_the_regulation_writes_them():
    assert [c.label for c in reversed(HandCategory)] == [
        "royal flush", "straight flush", "four of a kind", "full house", "flush", "straight", "three of a kind",
        "two pair", "pair", "high card"]
    assert HandCategory.parse("Four-of-a-kind") is HandCategory.FOUR_OF_A_KIND
    assert HandCategory.parse(" Three-of-a-kind") is HandCategory.THREE_OF_A_KIND
    assert HandCategory.parse("Royal flush") is HandCategory.ROYAL_FLUSH
    with pytest.raises(ValueError, match="no poker hand category"):
        HandCategory.parse("five of a kind")


def test_rank_boundaries():
    assert category_of_rank(1) is HandCategory.ROYAL_FLUSH and category_of_rank(2) is HandCategory.STRAIGHT_FLUSH
    assert category_of_rank(HAND_VALUES) is HandCategory.HIGH_CARD
    with pytest.raises(ValueError):
        category_of_rank(HAND_VALUES + 1)
    # the number of distinct hand values per category (the 7,462 equivalence classes)
    per = Counter(category_of_rank(r) for r in range(1, HAND_VALUES + 1))
    assert [per[c] for c in reversed(HandCategory)] == [1, 9, 156, 156, 1277, 10, 858, 858, 2860, 1277]


def test_hands_named_in_the_rules():
    assert category("As Ks Qs Js Ts") is HandCategory.ROYAL_FLUSH
    assert category("5d 4d 3d 2d Ad") is HandCategory.STRAIGHT_FLUSH  # the ace plays low
    assert category("Ad Kd Qd Jd 2c 3c 4c") is HandCategory.HIGH_CARD  # no wrap-around straight
    assert category("Qh Kh Ac 2d 3s") is HandCategory.HIGH_CARD
    assert category("7c 7d 7h 7s 2c") is HandCategory.FOUR_OF_A_KIND
    assert category("7c 7d 7h 2s 2c 2d 9h") is HandCategory.FULL_HOUSE  # two trips: a full house
    assert category("7c 7d 2s 2c 9d 9h Kh") is HandCategory.TWO_PAIR  # three pairs: the best two
    assert category("9h 8h 2h 3h Jh 9c 9d") is HandCategory.FLUSH  # a flush beats the trips
    assert evaluate("Ah Ad 7c 3d 4h").pair_rank == 14 and evaluate("Ah Kd 7c 3d 4h").pair_rank is None
    assert compare("5c 4d 3h 2s Ad", "6c 5d 4h 3s 2d") == -1  # the wheel is the lowest straight
    assert compare("As Kd Qh Jc 9s 2d 3d", "As Kc Qc Jd 9h 4c 5s") == 0  # same best five: a tie
    assert compare("Ac Ad Kc Kd 2h", "Ah As Kh Ks 3c") == -1  # the kicker
    assert best_five("As Ks Qs Js Ts 2c 3d") == as_cards("As Ks Qs Js Ts")
    five = best_five("7c 7d 7h 2s 2c 2d 9h")  # of the equal hands, the first in card order: 2s 2d
    assert [c.rank for c in five] == [7, 7, 7, 2, 2] and five == as_cards("7h 7d 7c 2s 2d")
    assert HandValue.of_rank(1).strength == HAND_VALUES and str(HandValue.of_rank(1)) == "royal flush"


def test_bad_hands_are_refused():
    with pytest.raises(ValueError, match="twice"):
        evaluate("As As Kd Qc Jh")
    with pytest.raises(ValueError, match="5 to 7"):
        evaluate("As Kd Qc Jh")
    with pytest.raises(ValueError, match="5 to 7"):
        evaluate(deck()[:8])


@pytest.mark.parametrize("size", [5, 6, 7])
def test_wrapper_agrees_with_an_independent_ranker(size):
    rng = np.random.default_rng(20240323 + size)
    hands = _random_hands(rng, 1500, size)
    refs = [_ref(h) for h in hands]
    values = [evaluate(h) for h in hands]
    for h, ref, v in zip(hands, refs, values, strict=True):
        assert v.category is ref[0], h
        if size == 7:  # the native bulk call agrees with the checked one
            assert HandValue.of_rank(rank7(*map(card_id, h))) == v
    for k in range(0, len(hands) - 1):  # the order of neighbours, both ways
        assert _sign((values[k] > values[k + 1]) - (values[k] < values[k + 1])) == _sign(
            (refs[k] > refs[k + 1]) - (refs[k] < refs[k + 1])), (hands[k], hands[k + 1])


def test_wrapper_agrees_on_ties_of_shared_boards():
    """Hold'em-style: two hole pairs on one board tie or not as the reference says."""
    rng = np.random.default_rng(7)
    d = deck()
    for _ in range(1500):
        idx = rng.choice(52, size=9, replace=False)
        board, p, q = [d[i] for i in idx[:5]], [d[i] for i in idx[5:7]], [d[i] for i in idx[7:]]
        ref = _sign((_ref(p + board) > _ref(q + board)) - (_ref(p + board) < _ref(q + board)))
        assert compare(p + board, q + board) == ref


# --------------------------------------------------------------------------- exact class counts

PUBLISHED_5 = {"royal flush": 4, "straight flush": 36, "four of a kind": 624, "full house": 3744, "flush": 5108,
               "straight": 10200, "three of a kind": 54912, "two pair": 123552, "pair": 1098240,
               "high card": 1302540}
PUBLISHED_6 = {"royal flush": 188, "straight flush": 1656, "four of a kind": 14664, "full house": 165984,
               "flush": 205792, "straight": 361620, "three of a kind": 732160, "two pair": 2532816,
               "pair": 9730740, "high card": 6612900}
PUBLISHED_7 = {"royal flush": 4324, "straight flush": 37260, "four of a kind": 224848, "full house": 3473184,
               "flush": 4047644, "straight": 6180020, "three of a kind": 6461620, "two pair": 31433400,
               "pair": 58627800, "high card": 23294460}


@pytest.mark.parametrize("n, published", [(5, PUBLISHED_5), (6, PUBLISHED_6), (7, PUBLISHED_7)])
def test_class_counts_equal_the_published_ones(n, published):
    counts = category_counts(n)
    assert {c.label: k for c, k in counts.items()} == published
    assert sum(counts.values()) == comb(52, n)
    assert list(counts) == list(reversed(HandCategory))


def test_pair_rank_counts():
    assert pair_rank_counts(5) == dict.fromkeys(range(14, 1, -1), 1098240 // 13)
    assert sum(pair_rank_counts(7).values()) == PUBLISHED_7["pair"]
    with pytest.raises(ValueError):
        category_counts(4)


def test_every_five_card_hand_by_the_evaluator():
    """All 2,598,960 five-card hands through the library's native call: the combinatorial counts."""
    per = Counter(rank5(*c) for c in combinations(range(52), 5))
    assert len(per) == HAND_VALUES
    by_cat = Counter()
    for r, k in per.items():
        by_cat[category_of_rank(r)] += k
    assert {c.label: by_cat[c] for c in HandCategory} == PUBLISHED_5


def test_every_five_card_rank_and_a_sample_of_hands_rank_as_the_reference_does():
    """The evaluator's 7,462 hand values against the reference ranker: the first hand of each value
    in deck order (so every value and their order is judged) and a seeded sample of 100,000 of the
    2,598,960 hands (the soak tier judges them all): one reference value per evaluator rank, and
    the same order."""
    d = deck()
    first: dict[int, tuple] = {}
    sample = set(np.random.default_rng(5).choice(comb(52, 5), size=100_000, replace=False).tolist())
    key_of_rank: dict[int, tuple] = {}
    for i, five in enumerate(combinations(d, 5)):
        r = rank5(*(card_id(c) for c in five))
        if r not in first or i in sample:
            first.setdefault(r, five)
            ref = _ref5(five)
            assert key_of_rank.setdefault(r, ref) == ref, five
    assert len(key_of_rank) == HAND_VALUES
    ordered = [key_of_rank[r] for r in sorted(key_of_rank)]
    assert ordered == sorted(ordered, reverse=True) and len(set(ordered)) == HAND_VALUES


@pytest.mark.slow
@pytest.mark.soak
def test_every_five_card_hand_ranks_as_the_reference_does():
    """The evaluator's 7,462 hand values against the reference ranker on all 2,598,960 hands: one
    reference value per evaluator rank, and the same order."""
    d = deck()
    key_of_rank: dict[int, tuple] = {}
    for five in combinations(d, 5):
        r = rank5(*(card_id(c) for c in five))
        ref = _ref5(five)
        assert key_of_rank.setdefault(r, ref) == ref, five
    ordered = [key_of_rank[r] for r in sorted(key_of_rank)]
    assert ordered == sorted(ordered, reverse=True) and len(set(ordered)) == HAND_VALUES
