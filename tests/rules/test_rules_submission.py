"""Rules Submission (§ 601a.2): parsing, and errors that name source, line and field."""

from fractions import Fraction
from pathlib import Path

import pytest

import rules.submission
from rules.bonus import CASH_HUNT_RANGE, COIN_FLIP_RANGE, CTW_RANGE, PACHINKO_RANGE
from rules.crazy_time import SPOTS, Spot
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmissionError, parse_rules_submission

# Read by path: under pytest, ``importlib.resources.files("rules")`` may resolve to tests/rules.
DEFAULT = (Path(rules.submission.__file__).parent / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


def line_starting(needle: str) -> str:
    """The one line of the reference file that starts with ``needle``, newline included."""
    (line,) = [line for line in DEFAULT.splitlines(keepends=True) if line.startswith(needle)]
    return line


ALIGN = line_starting("align_probability").rstrip("\n")


def test_default_submission_parses():
    sub = parse_rules_submission(DEFAULT, "default.toml")
    assert sub.schema_version == 1 and sub.game == "crazy-time"
    # calibrated by us to third-party published figures, and says it is not official
    assert "calibrated" in DEFAULT and "third-party published" in DEFAULT and "NOT the commercial game's" in DEFAULT
    assert set(sub.top_slot.reel1_weights) == set(SPOTS)
    # align_probability = sum of the reel-1 weights / 100000, so a·p1(s) = weight(s) / 100000
    assert sub.top_slot.align_probability == Fraction(sum(sub.top_slot.reel1_weights.values()), 100000)
    assert sub.limits.min_wager_cents <= sub.limits.max_wager_cents
    assert sub.limits.max_payout_per_round_cents == 50000000


def test_reference_bonus_boards_are_plausible():
    sub = parse_rules_submission(DEFAULT)
    for par, (low, high) in [(sub.coin_flip, COIN_FLIP_RANGE), (sub.cash_hunt, CASH_HUNT_RANGE),
                             (sub.pachinko, PACHINKO_RANGE), (sub.crazy_time_world, CTW_RANGE)]:
        assert sum(par.multiplier_weights.values()) == 10000
        assert min(par.multiplier_weights) == low and max(par.multiplier_weights) == high
        assert par.probability(low) == max(map(par.probability, par.multiplier_weights))  # mostly small
    assert 0 < sub.coin_flip.rescue_probability < 1 and 0 < sub.pachinko.rescue_probability < 1
    assert 0 < sub.pachinko.double_probability < 1 and 0 < sub.crazy_time_world.double_probability < 1
    assert sub.pachinko.rows == 12
    # a Rescue Flip needs a small 2x/3x and a big side > 15x: both must be drawable
    assert {2, 3} <= set(sub.coin_flip.multiplier_weights) and max(sub.coin_flip.multiplier_weights) > 15


def test_models_are_frozen():
    sub = parse_rules_submission(DEFAULT)
    with pytest.raises(ValueError):
        sub.name = "x"


def test_top_slot_probabilities():
    par = parse_rules_submission(DEFAULT).top_slot
    assert sum(par.reel1_probability(s) for s in SPOTS) == 1
    assert par.reel2_probability(1) == Fraction(30, 100)
    # 1 - a·p1 + a·p1·E[m2] with a·p1 = weight / 100000, E[m2] = 33/10
    assert par.expected_multiplier(Spot.TEN) == 1 + Fraction(par.reel1_weights[Spot.TEN], 100000) * Fraction(23, 10)


@pytest.mark.parametrize("value, exact", [('"1/4"', Fraction(1, 4)), ("0.1", Fraction(1, 10)), ("1", 1), ("0", 0)])
def test_align_probability_is_exact(value, exact):
    text = DEFAULT.replace(ALIGN, f"align_probability = {value}")
    assert parse_rules_submission(text).top_slot.align_probability == exact


def test_schema_version_may_be_given_by_name():
    sub = parse_rules_submission(DEFAULT)
    data = sub.model_dump()
    assert type(sub).model_validate(data) == sub


def error(text: str) -> RulesSubmissionError:
    with pytest.raises(RulesSubmissionError) as info:
        parse_rules_submission(text, "bench/rules.toml")
    return info.value


def test_bad_weight_names_field_and_line():
    assert DEFAULT.count('"7" = 5\n') == 1
    e = error(DEFAULT.replace('"7" = 5', '"7" = 0'))
    assert (e.source, e.field, e.line) == ("bench/rules.toml", "top_slot.reel2_weights.7", line_of(DEFAULT, '"7" = 5'))
    assert str(e) == f"bench/rules.toml:{e.line}: top_slot.reel2_weights.7: {e.message}"
    assert "greater than 0" in e.message


def test_missing_reel2_key_cites_690_3_b_2():
    e = error(DEFAULT.replace('"7" = 5\n', ""))
    assert e.field == "top_slot.reel2_weights"
    assert e.line == line_of(DEFAULT, "[top_slot.reel2_weights]")
    assert "§ 690.3(b)(2)" in e.message and "missing 7" in e.message


def test_missing_reel1_betting_option():
    e = error(DEFAULT.replace(line_starting("pachinko = "), ""))
    assert e.field == "top_slot.reel1_weights" and "pachinko" in e.message


def test_unknown_key():
    e = error(DEFAULT.replace("min_wager_cents = 10", "min_wager_cents = 10\nmax_bet = 5"))
    assert e.field == "limits.max_bet" and e.line == line_of(DEFAULT, "min_wager_cents") + 1
    assert e.message.startswith("unknown field 'max_bet'")  # and the fields the table knows


def test_schema_2_is_refused():
    e = error(DEFAULT.replace("schema = 1", "schema = 2"))
    assert (e.field, e.line) == ("schema", line_of(DEFAULT, "schema = 1"))


def test_toml_syntax_error_has_its_line():
    e = error(DEFAULT.replace('game = "crazy-time"', "game = crazy-time"))
    assert e.line == line_of(DEFAULT, "game =") and e.field == "" and e.message.startswith("TOML syntax: ")


@pytest.mark.parametrize("old, new, field", [
    (ALIGN, 'align_probability = "4/3"', "top_slot.align_probability"),
    (ALIGN, "align_probability = true", "top_slot.align_probability"),
    (line_starting("coin-flip = "), "coin-flip = 1.5\n", "top_slot.reel1_weights.coin-flip"),
    ('"1" = 30', '"x" = 30', "top_slot.reel2_weights.x"),
    ('rescue_probability = "1/2"', 'rescue_probability = "3/2"', "coin_flip.rescue_probability"),
    ('"100" = 191', '"200" = 191', "coin_flip.multiplier_weights"),
    ("min_wager_cents = 10", "min_wager_cents = 1000000", "limits"),
    ('game = "crazy-time"', 'game = "roulette"', "game"),
])
def test_invalid_values(old, new, field):
    assert DEFAULT.count(old) == 1
    assert error(DEFAULT.replace(old, new)).field == field


def test_missing_table_has_no_line():
    e = error(DEFAULT[:DEFAULT.index("[limits]")])
    assert e.field == "limits" and e.line is None and str(e).startswith("bench/rules.toml: limits: ")
