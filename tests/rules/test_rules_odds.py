"""rules.odds: "N to 1" and "N for 1" are exact and distinct (STYLE.md § 5)."""

from fractions import Fraction

import pytest

from rules.odds import ForOne, ToOne


def test_to_one_pays_ratio_times_stake_on_top_of_the_stake():
    assert ToOne(35).exact_profit(100) == 3500
    assert ToOne(35).profit_cents(100) == 3500
    assert str(ToOne(35)) == "35 to 1"


def test_for_one_includes_the_stake():
    assert ForOne(201).exact_profit(100) == 20000
    assert ForOne(201).profit_cents(100) == 20000
    assert str(ForOne(201)) == "201 for 1"


def test_to_one_and_for_one_are_different_types():
    assert ToOne(5) != ForOne(5)
    assert type(ToOne(5) * 2) is ToOne and type(ForOne(5) * 2) is ForOne


def test_fractional_odds_print_as_a_fraction_and_round_down_to_the_cent():
    odds = ToOne(Fraction(5, 2))
    assert str(odds) == "5/2 to 1"
    assert odds.exact_profit(3) == Fraction(15, 2)
    assert odds.profit_cents(3) == 7


def test_multiplying_odds_by_a_top_slot_multiplier():
    assert ToOne(5) * 7 == ToOne(35) == 7 * ToOne(5)  # § 690.4(c)
    assert ToOne(2) * Fraction(1, 2) == ToOne(1)


@pytest.mark.parametrize("bad", [1.5, True, "2"])
def test_odds_refuse_inexact_ratios(bad):
    with pytest.raises(TypeError):
        ToOne(bad)
    with pytest.raises(TypeError):
        ToOne(2) * bad


def test_odds_refuse_ratios_that_pay_less_than_nothing():
    with pytest.raises(ValueError):
        ToOne(-1)
    with pytest.raises(ValueError):
        ForOne(Fraction(1, 2))
