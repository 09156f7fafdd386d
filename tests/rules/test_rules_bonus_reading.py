"""The Rescue reading (§ 690.5(f), § 690.7(g)): the Rescue conditions judged on the displayed values
(the default) or on the multipliers before the Top Slot multiplier, as the Rules Submission's
``rescue_reading`` declares; one rule (``rules.bonus.rescue_value``) for the croupier and the checks."""

from __future__ import annotations

from fractions import Fraction
from importlib.resources import files

import pytest

from rules.bonus import (DOUBLE, PACHINKO_SPOTS, RESCUE_READINGS, apply_top_slot, pachinko_double, pachinko_rescue,
                         pachinko_rescue_eligible, rescue_flip_eligible, rescue_value)
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmissionError, parse_rules_submission

ALTERNATE_RESOURCE = "data/crazy_time_rescue_before_top_slot.toml"


def spots(**cells):
    values = [5] * PACHINKO_SPOTS
    for key, v in cells.items():
        values[int(key[1:]) - 1] = v
    return tuple(values)


def test_rescue_value_under_each_reading():
    assert rescue_value(40, "displayed", 2) == 40
    assert rescue_value(40, "before-top-slot", 2) == 20
    assert rescue_value(50, "before-top-slot", 20, literal=True) == 50  # the Double's 50x: never multiplied
    assert rescue_value(45, "before-top-slot", 2) == Fraction(45, 2)  # no whole multiplier: never a trigger
    assert rescue_value(DOUBLE, "before-top-slot", 3) == 0
    with pytest.raises(ValueError):
        rescue_value(4, "generated", 2)


def test_rescue_flip_readings_differ_only_under_a_top_slot_multiplier():
    shown = apply_top_slot((2, 20), 2)  # 4x / 40x on the coin
    assert not rescue_flip_eligible(shown, "red", "displayed", 2)  # (f)(1): 4x is not 2x or 3x
    assert rescue_flip_eligible(shown, "red", "before-top-slot", 2)  # the multipliers are 2x and 20x
    assert not rescue_flip_eligible(shown, "blue", "before-top-slot", 2)  # (f)(3): the big side is up
    # (f)(2) on the multipliers: 3x / 15x under 2x shows 6x / 30x — 15x is not greater than 15x
    assert not rescue_flip_eligible(apply_top_slot((3, 15), 2), "red", "before-top-slot", 2)
    # and the other way round: 2x / 8x under 3x shows 6x / 24x, yet 8x is not greater than 15x
    assert not rescue_flip_eligible(apply_top_slot((2, 8), 3), "red", "before-top-slot", 3)
    for reading in RESCUE_READINGS:  # without a Top Slot multiplier the readings agree
        assert rescue_flip_eligible((2, 20), "red", reading, 1)
        assert not rescue_flip_eligible((4, 20), "red", reading, 1)


def test_rescue_drop_readings():
    assert pachinko_rescue_eligible(4, "displayed", 2) and pachinko_rescue_eligible(4, "before-top-slot", 2)
    assert not pachinko_rescue_eligible(8, "displayed", 2) and pachinko_rescue_eligible(8, "before-top-slot", 2)
    assert pachinko_rescue_eligible(3, "displayed", 3) and not pachinko_rescue_eligible(3, "before-top-slot", 3)
    assert not pachinko_rescue_eligible(50, "before-top-slot", 20, literal=True)


def test_rescue_drop_raises_the_same_cells_except_the_literal_50():
    # § 690.7(g)(1)-(2) under x20: a 4x multiplier shows 80x; the Double's 50x is 50x, not 2.5x
    shown = apply_top_slot(spots(s1=2, s2=3, s3=DOUBLE, s4=10), 20)  # 40, 60, Double, 200, 100...
    doubled = pachinko_double(shown, 3)  # 80, 120, 50, 400, 200...
    assert doubled[:4] == (80, 120, 50, 400)
    # a Rescue Drop on the 80x (a 2x doubled: 4x before the Top Slot)
    after = pachinko_rescue(doubled, 80, "before-top-slot", 20, literal={2})
    assert after[:4] == (80, 120, 50, 400)  # the 50x stays: it is a 50x multiplier, not below 4x
    assert pachinko_rescue(doubled, 80, "before-top-slot", 20)[2] == 80  # (taken for 2.5x it would be raised)
    # a Rescue Drop on 2x × 20 = 40 (before a Double): the lower multipliers raised to it, the rest kept
    plain = apply_top_slot(spots(s1=2, s2=3, s3=4, s4=DOUBLE), 20)
    assert pachinko_rescue(plain, 80, "before-top-slot", 20)[:4] == (80, 80, 80, DOUBLE)
    with pytest.raises(ValueError):
        pachinko_rescue(plain, 80, "displayed", 20)  # 80x is no trigger as displayed


def test_the_submission_declares_the_reading():
    text = files("rules").joinpath(DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")
    sub = parse_rules_submission(text, "reference")
    assert sub.rescue_reading == "displayed"
    other = parse_rules_submission(files("rules").joinpath(ALTERNATE_RESOURCE).read_text(encoding="utf-8"), "alt")
    assert other.rescue_reading == "before-top-slot"
    # the same table otherwise: limits and PAR
    assert other.model_dump(exclude={"rescue_reading", "name", "notes"}) == sub.model_dump(
        exclude={"rescue_reading", "name", "notes"})
    # a submission without the field takes the default; an unknown reading is refused at load
    assert parse_rules_submission(text.replace('rescue_reading = "displayed"\n', ""), "x").rescue_reading == "displayed"
    with pytest.raises(RulesSubmissionError, match="rescue_reading"):
        parse_rules_submission(text.replace('rescue_reading = "displayed"', 'rescue_reading = "generated"'), "x")
