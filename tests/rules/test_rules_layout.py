"""§ 690.1(a)–(b): the wheel's counts, order, diameter; § 690.3(b) and § 690.4(a) tables."""

from collections import Counter

import pytest

from rules.crazy_time import (
    BASE_ODDS, BONUS_SPOTS, MIN_DIAMETER_M, SECTION_COUNTS, SPOTS, TOP_SLOT_REEL1, TOP_SLOT_REEL2,
    WHEEL_SECTIONS, Spot, layout_deviations,
)
from rules.odds import ToOne

WHEEL = [str(s) for s in WHEEL_SECTIONS]


def test_section_counts_of_690_1_a():
    assert len(WHEEL_SECTIONS) == 54
    assert dict(Counter(WHEEL_SECTIONS)) == {
        "1": 21, "2": 13, "5": 7, "10": 4, "coin-flip": 4, "cash-hunt": 2, "pachinko": 2, "crazy-time": 1,
    }
    assert Counter(WHEEL_SECTIONS) == SECTION_COUNTS


def test_order_of_690_1_b_spot_checks():
    assert WHEEL[:6] == ["1", "2", "5", "1", "2", "pachinko"]
    assert WHEEL[15:18] == ["10", "2", "cash-hunt"]
    assert WHEEL[-7:] == ["coin-flip", "2", "1", "10", "2", "1", "crazy-time"]
    assert [i for i, s in enumerate(WHEEL) if s == "coin-flip"] == [11, 23, 35, 47]


def test_betting_options_and_reels_of_690_3_b():
    assert [str(s) for s in SPOTS] == ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]
    assert TOP_SLOT_REEL1 == SPOTS
    assert TOP_SLOT_REEL2 == (1, 2, 3, 4, 5, 7, 10, 15, 20)


def test_paytable_of_690_4_a():
    assert {str(s): str(o) for s, o in BASE_ODDS.items()} == {
        "1": "1 to 1", "2": "2 to 1", "5": "5 to 1", "10": "10 to 1",
        "coin-flip": "2 to 1", "cash-hunt": "5 to 1", "pachinko": "2 to 1", "crazy-time": "15 to 1",
    }
    assert all(type(o) is ToOne for o in BASE_ODDS.values())
    assert BONUS_SPOTS == {Spot.COIN_FLIP, Spot.CASH_HUNT, Spot.PACHINKO, Spot.CRAZY_TIME}


@pytest.mark.parametrize("k", range(54))
def test_every_rotation_complies(k):
    assert layout_deviations(WHEEL[k:] + WHEEL[:k], 1.524) == []


def test_swapped_pair_is_an_order_deviation_at_the_first_differing_section():
    wheel = WHEEL[7:] + WHEEL[:7]
    wheel[10], wheel[11] = wheel[11], wheel[10]
    (msg,) = layout_deviations(wheel, 2.0)
    assert msg.startswith("§ 690.1(b)")
    assert "regulation's section 7" in msg and "2 of 54 differ" in msg and "your section 10" in msg


def test_counter_clockwise_wheel_is_flagged():
    (msg,) = layout_deviations(WHEEL[::-1], 2.0)
    assert "counter-clockwise" in msg


def test_wrong_count_names_each_spot():
    wheel = WHEEL.copy()
    wheel[0] = "2"
    deviations = layout_deviations(wheel, 2.0)
    assert "§ 690.1(a): 20 sections show 1; expected 21" in deviations
    assert "§ 690.1(a): 14 sections show 2; expected 13" in deviations
    assert any("your section 0: expected 1, found 2" in d for d in deviations)


def test_unknown_symbol_and_short_wheel():
    deviations = layout_deviations(WHEEL[:-1] + ["jackpot"], 2.0)
    assert any("section 53 shows 'jackpot'" in d for d in deviations)
    assert any("0 sections show crazy-time; expected 1" in d for d in deviations)
    assert any("found 53" in d for d in layout_deviations(WHEEL[:53], 2.0))


@pytest.mark.parametrize("diameter_m", [1.5, 1.5239, 0.0, float("nan")])
def test_small_diameter_is_flagged(diameter_m):
    (msg,) = layout_deviations(WHEEL, diameter_m)
    assert "5 feet" in msg and "1.524 m" in msg


def test_five_feet_exactly():
    assert MIN_DIAMETER_M * 100 / 254 * 100 / 12 == 5  # metres -> inches -> feet
    assert layout_deviations(WHEEL, float(MIN_DIAMETER_M)) == []
