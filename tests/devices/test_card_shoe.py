"""The card shoe: composition, seeded shuffles, the cut card, the reader's timing and its faults."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import simpy
from scipy.stats import chisquare

from devices.card_shoe import CardShoeParams, CardShoeSim, commitment
from rules.cards import Card, shoe


def run_shoe(params: CardShoeParams, seed: int, deals: int):
    env, events = simpy.Environment(), []
    s = CardShoeSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((k, p)))
    got = []

    def go():
        yield s.shuffle()
        for i in range(deals):
            if s.needs_shuffle:
                yield s.shuffle()
            got.append((yield s.deal(f"player-{i % 7 + 1}")))
    env.process(go())
    env.run()
    return s, got, events


def test_a_shoe_holds_each_card_decks_times_and_deals_in_its_committed_order():
    s, got, events = run_shoe(CardShoeParams(decks=6, penetration=1.0), 3, 312)
    assert Counter(Card.parse(r.card) for r in got) == Counter(shoe(6))
    shuffled = [p for k, p in events if k == "shoe_shuffled"][0]
    assert shuffled["sha256"] == commitment(tuple(Card.parse(r.card) for r in got)) and shuffled["cards"] == 312
    assert [r.index for r in got] == list(range(312))
    times = [r.device_time_s for r in got]
    assert times == sorted(times) and times[1] - times[0] == pytest.approx(1.2)


def test_the_cut_card_reshuffles_and_the_old_order_is_revealed():
    s, got, events = run_shoe(CardShoeParams(decks=1, penetration=0.5), 4, 60)
    assert [k for k, _ in events].count("shoe_shuffled") == 3
    revealed = [p for k, p in events if k == "shoe_revealed"]
    assert revealed[0]["dealt"] == 26 and len(revealed[0]["order"]) == 52
    assert [r.card for r in got[:26]] == revealed[0]["order"][:26]


def test_same_seed_same_shoe_and_the_shuffle_is_uniform():
    a = [r.card for r in run_shoe(CardShoeParams(decks=1, penetration=1.0), 9, 52)[1]]
    b = [r.card for r in run_shoe(CardShoeParams(decks=1, penetration=1.0), 9, 52)[1]]
    assert a == b
    # where the ace of spades lands over 5,200 one-deck shuffles: uniform over 52 positions
    rng = np.random.default_rng(1)
    env = simpy.Environment()
    s = CardShoeSim(env, CardShoeParams(decks=1, shuffle_s=0), rng, lambda *a: None)
    pos = Counter()
    for _ in range(5200):
        s.shuffle()
        pos[s.order.index(Card.parse("As"))] += 1
    assert chisquare([pos[i] for i in range(52)]).pvalue > 1e-3


def test_faults_misread_extra_card_and_skipped_shuffle():
    s, got, _ = run_shoe(CardShoeParams(decks=1, penetration=1.0, misread_probability=0.5), 5, 52)
    misread = sum(r.card != str(c) for r, c in zip(got, s.dealt))
    assert 10 < misread < 42
    s, got, _ = run_shoe(CardShoeParams(decks=1, penetration=1.0, extra_card="As"), 5, 53)
    assert Counter(r.card for r in got)["As"] == 2
    s, got, events = run_shoe(CardShoeParams(decks=1, penetration=1.0, shuffle_skip_probability=1.0), 5, 104)
    assert [r.card for r in got[:52]] == [r.card for r in got[52:]]


@pytest.mark.parametrize("bad", [{"decks": 0}, {"decks": 9}, {"penetration": 0}, {"misread_probability": 2},
                                 {"extra_card": "Zz"}])
def test_bad_params_are_refused(bad):
    with pytest.raises(ValueError):
        CardShoeParams(**bad)


def test_a_dealt_out_shoe_refuses_to_deal():
    env = simpy.Environment()
    s = CardShoeSim(env, CardShoeParams(decks=1, shuffle_s=0, deal_s=0), np.random.default_rng(0), lambda *a: None)
    s.shuffle()
    for _ in range(52):
        s.deal("p")
    with pytest.raises(RuntimeError, match="no card left"):
        s.deal("p")


def test_a_stacked_shoe_deals_the_stacked_cards_first_and_holds_the_same_cards():
    s, got, _ = run_shoe(CardShoeParams(decks=1, penetration=1.0, stacked="Ks Qs 2h"), 2, 52)
    assert [r.card for r in got[:3]] == ["Ks", "Qs", "2h"]
    assert Counter(Card.parse(r.card) for r in got) == Counter(shoe(1))
    with pytest.raises(ValueError, match="too few"):
        CardShoeParams(decks=1, stacked="Ks Ks")
