"""§ 690.2(e)–(f), § 690.3(c), § 690.4: Top Slot, winning odds and settlement."""

from collections import Counter
from dataclasses import fields
from fractions import Fraction

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
    assert winning_odds(Spot.FIVE, TopSlotOutcome(Spot.FIVE, 7, True)) == ToOne(35)
    # bonus odds are ignored for a number result
    assert winning_odds(Spot.FIVE, NO_TOP_SLOT, ToOne(99)) == ToOne(5)


def test_bonus_result_is_paid_at_the_bonus_games_final_odds():
    # § 690.4(c): a 10x Coin Flip under a 7x Top Slot is 70 to 1; the board already carries the 7x
    # (§ 690.5(e)), so the final odds are passed in and not multiplied again.
    top = TopSlotOutcome(Spot.COIN_FLIP, 7, True)
    assert winning_odds(Spot.COIN_FLIP, top, ToOne(70)) == ToOne(70)
    with pytest.raises(ValueError, match=r"§ 690\.4\(b\)"):
        winning_odds(Spot.CRAZY_TIME, NO_TOP_SLOT)
    with pytest.raises(TypeError):
        winning_odds(Spot.CRAZY_TIME, NO_TOP_SLOT, 15)


def test_losers_are_collected_first_then_winners_paid():
    wagers = [Wager("a", 1, Spot.FIVE, 100), Wager("b", 2, Spot.ONE, 500), Wager("c", 1, Spot.TWO, 300),
              Wager("d", 3, Spot.FIVE, 250)]
    s = settle(wagers, Spot.FIVE, TopSlotOutcome(Spot.FIVE, 7, True))
    assert [type(step) for step in s.steps()] == [Collection, Collection, Payment, Payment]
    assert [step.wager_id for step in s.steps()] == ["b", "c", "a", "d"]
    assert [(p.win_cents, p.odds, p.capped) for p in s.payments] == [
        (3500, ToOne(35), False), (8750, ToOne(35), False)]
    assert s.collections[0] == Collection("b", 2, Spot.ONE, 500)


def test_payment_rounds_down_to_the_cent():
    # Only fractional odds can leave a fraction of a cent; the rules pay whole cents down.
    assert ToOne(15).profit_cents(7) == 105
    (p,) = settle([Wager("a", 1, Spot.CRAZY_TIME, 7)], Spot.CRAZY_TIME, NO_TOP_SLOT,
                  bonus_odds={1: ToOne(Fraction(301, 2))}).payments
    assert p.win_cents == 1053 and p.odds == ToOne(Fraction(301, 2))  # 7 × 150.5 = 1053.5


def test_payment_has_no_provisional_flag():
    assert "provisional" not in {f.name for f in fields(Payment)}


def test_bonus_result_pays_each_seat_its_own_odds():
    # § 690.6(f): "Each eligible player's payout shall be based upon their individual selection".
    wagers = [Wager("a", 1, Spot.CASH_HUNT, 100), Wager("b", 2, Spot.CASH_HUNT, 200), Wager("c", 1, Spot.ONE, 50),
              Wager("d", 1, Spot.CASH_HUNT, 10)]
    top = TopSlotOutcome(Spot.CASH_HUNT, 2, True)
    s = settle(wagers, Spot.CASH_HUNT, top, bonus_odds={1: ToOne(20), 2: ToOne(1000), 3: ToOne(7)})
    assert [(p.wager_id, p.odds, p.win_cents) for p in s.payments] == [
        ("a", ToOne(20), 2000), ("b", ToOne(1000), 200000), ("d", ToOne(20), 200)]
    assert [c.wager_id for c in s.collections] == ["c"]


def test_bonus_result_respects_the_per_seat_cap():
    wagers = [Wager("a", 1, Spot.PACHINKO, 1000), Wager("b", 2, Spot.PACHINKO, 1000),
              Wager("c", 1, Spot.PACHINKO, 1000)]
    s = settle(wagers, Spot.PACHINKO, NO_TOP_SLOT, max_payout_per_round_cents=50000,
               bonus_odds={1: ToOne(40), 2: ToOne(400)})
    assert [(p.wager_id, p.win_cents, p.capped) for p in s.payments] == [
        ("a", 40000, False), ("b", 50000, True), ("c", 10000, True)]


def test_bonus_result_without_a_winning_seats_odds_is_refused():
    wagers = [Wager("a", 1, Spot.COIN_FLIP, 100), Wager("b", 2, Spot.COIN_FLIP, 100), Wager("c", 3, Spot.ONE, 100)]
    with pytest.raises(ValueError, match="seat\\(s\\) 2"):
        settle(wagers, Spot.COIN_FLIP, NO_TOP_SLOT, bonus_odds={1: ToOne(5)})
    with pytest.raises(ValueError, match="seat\\(s\\) 1, 2"):
        settle(wagers, Spot.COIN_FLIP, NO_TOP_SLOT)
    # a seat that only lost needs no odds; no winner, no odds needed
    assert settle(wagers, Spot.COIN_FLIP, NO_TOP_SLOT, bonus_odds={1: ToOne(5), 2: ToOne(3)}).collections[0].seat == 3
    assert settle(wagers[2:], Spot.COIN_FLIP, NO_TOP_SLOT).payments == ()


def test_number_result_ignores_bonus_odds():
    wagers = [Wager("a", 1, Spot.TEN, 100)]
    top = TopSlotOutcome(Spot.TEN, 5, True)
    assert settle(wagers, Spot.TEN, top, bonus_odds={1: ToOne(999)}) == settle(wagers, Spot.TEN, top)
    assert settle(wagers, Spot.TEN, top).payments[0].odds == ToOne(50)


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


bonus_odds_st = st.dictionaries(st.integers(1, 4), st.builds(ToOne, st.fractions(0, 5000, max_denominator=4)),
                                min_size=4)


@given(wagers_st, st.sampled_from(SPOTS), top_slot_st, st.none() | st.integers(0, 10**8), bonus_odds_st)
def test_settlement_accounts_for_every_wager_and_respects_the_cap(wagers, result, top_slot, cap, bonus_odds):
    s = settle(wagers, result, top_slot, cap, bonus_odds)
    assert sorted(step.wager_id for step in s.steps()) == sorted(w.wager_id for w in wagers)
    assert all(c.spot != result for c in s.collections) and all(p.spot == result for p in s.payments)
    uncapped = settle(wagers, result, top_slot, bonus_odds=bonus_odds)
    assert [p.win_cents for p in uncapped.payments] == [
        winning_odds(result, top_slot, bonus_odds[p.seat]).profit_cents(p.stake_cents) for p in uncapped.payments]
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
