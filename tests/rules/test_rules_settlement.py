"""§ 690.2(e)–(f), § 690.3(c), § 690.4: Top Slot, winning odds and settlement."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.crazy_time import (
    SPOTS, TOP_SLOT_REEL2, Collection, Payment, Spot, TopSlotOutcome, Wager, settle, winning_odds,
)
from rules.odds import ToOne

NO_TOP_SLOT = TopSlotOutcome(Spot.ONE, 1, aligned=False)


def test_top_slot_multiplier_applies_only_when_aligned_on_that_option():
    top = TopSlotOutcome(Spot.FIVE, 7, aligned=True)
    assert top.multiplier_for(Spot.FIVE) == 7  # § 690.3(c)(1)
    assert top.multiplier_for(Spot.TEN) == 1
    assert TopSlotOutcome(Spot.FIVE, 7, aligned=False).multiplier_for(Spot.FIVE) == 1  # § 690.3(c)(2)


@pytest.mark.parametrize("spot, multiplier", [("7", 2), (Spot.ONE, 6), (Spot.ONE, 50), (Spot.ONE, True)])
def test_top_slot_shows_only_its_reels(spot, multiplier):
    with pytest.raises(ValueError):
        TopSlotOutcome(spot, multiplier, aligned=True)


def test_690_4_c_seven_times_on_5_pays_35_to_1():
    assert winning_odds(Spot.FIVE, TopSlotOutcome(Spot.FIVE, 7, True)) == (ToOne(35), False)


def test_bonus_result_is_provisional_base_odds_times_top_slot():
    # § 690.4(c)'s Coin Flip example (10× bonus, 7× Top Slot -> 70 to 1) needs the bonus game;
    # until then Coin Flip settles at its § 690.4(a) 2 to 1, times 7, provisionally.
    assert winning_odds(Spot.COIN_FLIP, TopSlotOutcome(Spot.COIN_FLIP, 7, True)) == (ToOne(14), True)
    assert winning_odds(Spot.CRAZY_TIME, NO_TOP_SLOT) == (ToOne(15), True)


def test_losers_are_collected_first_then_winners_paid():
    wagers = [Wager("a", 1, Spot.FIVE, 100), Wager("b", 2, Spot.ONE, 500), Wager("c", 1, Spot.TWO, 300),
              Wager("d", 3, Spot.FIVE, 250)]
    s = settle(wagers, Spot.FIVE, TopSlotOutcome(Spot.FIVE, 7, True))
    assert [type(step) for step in s.steps()] == [Collection, Collection, Payment, Payment]
    assert [step.wager_id for step in s.steps()] == ["b", "c", "a", "d"]
    assert [(p.win_cents, p.odds, p.capped, p.provisional) for p in s.payments] == [
        (3500, ToOne(35), False, False), (8750, ToOne(35), False, False)]
    assert s.collections[0] == Collection("b", 2, Spot.ONE, 500)


def test_payment_rounds_down_to_the_cent():
    # Only fractional odds can leave a fraction of a cent; the rules pay whole cents down.
    assert ToOne(15).profit_cents(7) == 105
    (p,) = settle([Wager("a", 1, Spot.CRAZY_TIME, 7)], Spot.CRAZY_TIME, NO_TOP_SLOT).payments
    assert p.win_cents == 105 and p.provisional


def test_payout_cap_per_seat_per_round_in_wager_order():
    wagers = [Wager("a", 1, Spot.TEN, 1000), Wager("b", 2, Spot.TEN, 1000), Wager("c", 1, Spot.TEN, 500),
              Wager("d", 1, Spot.TEN, 100)]
    s = settle(wagers, Spot.TEN, TopSlotOutcome(Spot.TEN, 2, True), max_payout_per_round_cents=25000)
    assert [(p.wager_id, p.win_cents, p.capped) for p in s.payments] == [
        ("a", 20000, False), ("b", 20000, False), ("c", 5000, True), ("d", 0, True)]


def test_bad_wagers_are_rejected():
    for args in [("", 1, Spot.ONE, 100), ("a", 1, "7", 100), ("a", 1, Spot.ONE, 0), ("a", 1, Spot.ONE, 1.5),
                 ("a", 1, Spot.ONE, True), ("a", "1", Spot.ONE, 100)]:
        with pytest.raises(ValueError):
            Wager(*args)
    assert Wager("a", 1, "coin-flip", 100).spot is Spot.COIN_FLIP
    with pytest.raises(ValueError, match="duplicate wager_id"):
        settle([Wager("a", 1, Spot.ONE, 100), Wager("a", 2, Spot.TWO, 100)], Spot.ONE, NO_TOP_SLOT)
    with pytest.raises(ValueError):
        settle([], "7", NO_TOP_SLOT)


wagers_st = st.lists(
    st.builds(lambda seat, spot, stake: (seat, spot, stake),
              st.integers(1, 4), st.sampled_from(SPOTS), st.integers(1, 10**7)),
    max_size=20,
).map(lambda ws: [Wager(f"w{i}", seat, spot, stake) for i, (seat, spot, stake) in enumerate(ws)])
top_slot_st = st.builds(TopSlotOutcome, st.sampled_from(SPOTS), st.sampled_from(TOP_SLOT_REEL2), st.booleans())


@given(wagers_st, st.sampled_from(SPOTS), top_slot_st, st.none() | st.integers(0, 10**8))
def test_settlement_accounts_for_every_wager_and_respects_the_cap(wagers, result, top_slot, cap):
    s = settle(wagers, result, top_slot, cap)
    assert sorted(step.wager_id for step in s.steps()) == sorted(w.wager_id for w in wagers)
    assert all(c.spot != result for c in s.collections) and all(p.spot == result for p in s.payments)
    odds, _ = winning_odds(result, top_slot)
    uncapped = settle(wagers, result, top_slot)
    assert [p.win_cents for p in uncapped.payments] == [odds.profit_cents(p.stake_cents) for p in uncapped.payments]
    paid = Counter()
    for p, full in zip(s.payments, uncapped.payments, strict=True):
        assert p.capped == (p.win_cents < full.win_cents)
        paid[p.seat] += p.win_cents
    if cap is None:
        assert s == uncapped
    else:
        assert all(total <= cap for total in paid.values())
        # the cap only binds: a seat is paid in full or up to the cap
        full_paid = Counter()
        for p in uncapped.payments:
            full_paid[p.seat] += p.win_cents
        assert all(paid[seat] == min(full_paid[seat], cap) for seat in full_paid)
