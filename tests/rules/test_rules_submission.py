"""Rules Submission (§ 601a.2): parsing, and errors that name source, line and field."""

from fractions import Fraction
from importlib.resources import files

import pytest

from rules.crazy_time import SPOTS, Spot
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmissionError, parse_rules_submission

DEFAULT = (files("rules") / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


def test_default_submission_parses():
    sub = parse_rules_submission(DEFAULT, "default.toml")
    assert sub.schema_version == 1 and sub.game == "crazy-time"
    assert "illustrative" in DEFAULT.lower() and "not calibrated" in DEFAULT
    assert set(sub.top_slot.reel1_weights) == set(SPOTS)
    assert sub.top_slot.align_probability == Fraction(1, 3)
    assert sub.limits.min_wager_cents <= sub.limits.max_wager_cents


def test_models_are_frozen():
    sub = parse_rules_submission(DEFAULT)
    with pytest.raises(ValueError):
        sub.name = "x"


def test_top_slot_probabilities():
    par = parse_rules_submission(DEFAULT).top_slot
    assert sum(par.reel1_probability(s) for s in SPOTS) == 1
    assert par.reel2_probability(1) == Fraction(30, 100)
    # 1 - a·p1 + a·p1·E[m2] with a = 1/3, p1 = 1/8, E[m2] = 33/10
    assert par.expected_multiplier(Spot.TEN) == 1 + Fraction(1, 24) * Fraction(23, 10)


@pytest.mark.parametrize("value, exact", [('"1/4"', Fraction(1, 4)), ("0.1", Fraction(1, 10)), ("1", 1), ("0", 0)])
def test_align_probability_is_exact(value, exact):
    text = DEFAULT.replace('align_probability = "1/3"', f"align_probability = {value}")
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
    e = error(DEFAULT.replace("pachinko = 1\n", ""))
    assert e.field == "top_slot.reel1_weights" and "pachinko" in e.message


def test_unknown_key():
    e = error(DEFAULT.replace("min_wager_cents = 10", "min_wager_cents = 10\nmax_bet = 5"))
    assert e.field == "limits.max_bet" and e.line == line_of(DEFAULT, "min_wager_cents") + 1
    assert e.message == "unknown key"


def test_schema_2_is_refused():
    e = error(DEFAULT.replace("schema = 1", "schema = 2"))
    assert (e.field, e.line) == ("schema", line_of(DEFAULT, "schema = 1"))


def test_toml_syntax_error_has_its_line():
    e = error(DEFAULT.replace('game = "crazy-time"', "game = crazy-time"))
    assert e.line == line_of(DEFAULT, "game =") and "TOML" in e.field


@pytest.mark.parametrize("old, new, field", [
    ('align_probability = "1/3"', 'align_probability = "4/3"', "top_slot.align_probability"),
    ('align_probability = "1/3"', "align_probability = true", "top_slot.align_probability"),
    ("coin-flip = 1", "coin-flip = 1.5", "top_slot.reel1_weights.coin-flip"),
    ('"1" = 30', '"x" = 30', "top_slot.reel2_weights.x"),
    ("min_wager_cents = 10", "min_wager_cents = 1000000", "limits"),
    ('game = "crazy-time"', 'game = "roulette"', "game"),
])
def test_invalid_values(old, new, field):
    assert old in DEFAULT
    assert error(DEFAULT.replace(old, new)).field == field


def test_missing_table_has_no_line():
    e = error(DEFAULT[:DEFAULT.index("[limits]")])
    assert e.field == "limits" and e.line is None and str(e).startswith("bench/rules.toml:?: limits: ")
