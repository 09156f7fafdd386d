"""Roulette X (§ 617b.5): paytables, lit numbers, straight settlement, the Rules Submission (PAR)
and the exact RTP (checked by a quick Monte Carlo of the lit set)."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_paytables_literal import RTP_ROULETTE_X

import rules.roulette_x
from rules.odds import ToOne
from rules.roulette import Wheel, pockets
from rules.roulette_x import (
    PAYTABLES, ROULETTE_X_REFERENCE_RESOURCE, LitNumbers, RouletteXError, draw_lit, parse_roulette_x_submission,
    paytable_for, roulette_x_rtp, settle_straight,
)
from rules.submission import RulesSubmissionError

REFERENCE = (Path(rules.roulette_x.__file__).parent / ROULETTE_X_REFERENCE_RESOURCE).read_text(encoding="utf-8")


def test_paytables_as_written():
    a, b = PAYTABLES["A"], PAYTABLES["B"]
    assert a.straight == ToOne(28) and a.multipliers == (ToOne(50), ToOne(100), ToOne(250), ToOne(500))
    assert b.straight == ToOne(30) and b.multipliers == (ToOne(50), ToOne(100), ToOne(175), ToOne(250))
    assert a.wheels == {Wheel.SINGLE_ZERO, Wheel.DOUBLE_ZERO} and b.wheels == {Wheel.DOUBLE_ZERO}


def test_paytable_b_refused_on_single_zero():
    assert paytable_for("B", "double-zero").name == "B" and paytable_for("A", "single-zero").name == "A"
    with pytest.raises(RouletteXError, match=r"§ 617b\.5\(g\).*Paytable B.*double-zero wheel only.*single-zero"):
        paytable_for("B", "single-zero")
    sub = parse_roulette_x_submission(REFERENCE.replace('paytable = "A"', 'paytable = "B"'))
    with pytest.raises(RouletteXError, match="single-zero"):
        roulette_x_rtp(sub, "single-zero")
    with pytest.raises(RouletteXError, match="no Roulette X paytable"):
        paytable_for("C", "double-zero")


def test_lit_numbers_two_to_five_distinct():
    ok = LitNumbers.of({0: 50, "00": 500, 17: 100}, "A", "double-zero")
    assert ok.payouts == {0: ToOne(50), "00": ToOne(500), 17: ToOne(100)}
    with pytest.raises(RouletteXError, match="distinct.*17"):
        LitNumbers.of([(17, 50), ("17", 100), (3, 50)], "A", "double-zero")
    with pytest.raises(RouletteXError, match="distinct"):
        LitNumbers.of([("00", 50), ("00", 100)], "A", "double-zero")
    with pytest.raises(RouletteXError, match="between 2 and 5.*1 selected"):
        LitNumbers.of({5: 50}, "A", "single-zero")
    with pytest.raises(RouletteXError, match="6 selected"):
        LitNumbers.of({n: 50 for n in range(1, 7)}, "A", "single-zero")
    with pytest.raises(RouletteXError, match="multipliers are 50 to 1, 100 to 1, 175 to 1, 250 to 1"):
        LitNumbers.of({1: 500, 2: 50}, "B", "double-zero")
    with pytest.raises(ValueError, match="no number"):
        LitNumbers.of({"00": 50, 2: 50}, "A", "single-zero")
    # 0 and 00 are numbers on the layout: they can be lit (decision, docs/rules-roulette.md)
    assert LitNumbers.of({0: 50, "00": 50}, "B", "double-zero")


def test_straight_settlement_lit_vs_straight_odds():
    lit = LitNumbers.of({7: 250, 20: 50}, "A", "single-zero")
    s = settle_straight(7, 7, lit, 100)  # § 617b.5(e)
    assert s.lit and s.odds == ToOne(250) and s.returned_cents == 100 + 25000
    s = settle_straight(8, 8, lit, 100)  # § 617b.5(f)
    assert not s.lit and s.odds == ToOne(28) and s.returned_cents == 100 + 2800
    s = settle_straight(7, 20, lit, 100)  # lit but lost
    assert s.odds is None and s.returned_cents == 0 and s.win_cents == -100
    lit_b = LitNumbers.of({"00": 175, 1: 250}, "B", "double-zero")
    assert settle_straight("00", "00", lit_b, 10).returned_cents == 10 + 1750
    assert settle_straight(0, 0, lit_b, 10).returned_cents == 10 + 300


def test_reference_submission_parses_and_says_illustrative():
    sub = parse_roulette_x_submission(REFERENCE, "ref.toml")
    assert sub.schema_version == 1 and sub.game == "roulette-x" and sub.paytable == "A"
    assert "ILLUSTRATIVE, NOT OFFICIAL" in REFERENCE
    assert set(sub.par.A.lit_count_weights) <= {2, 3, 4, 5}
    assert set(sub.par.B.multiplier_weights) == {50, 100, 175, 250}


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


@pytest.mark.parametrize(("old", "new", "field", "message"), [
    ('"5" = 10\n', '"6" = 10\n', "par.A.lit_count_weights", "between 2 and 5"),
    ('"500" = 5\n', '"400" = 5\n', "par.A.multiplier_weights", "missing 500; not allowed 400"),
    ('"175" = 12\n', '"175" = 0\n', "par.B.multiplier_weights.175", "greater than 0"),
    ('game = "roulette-x"', 'game = "crazy-time"', "game", "roulette-x"),
    ('schema = 1', 'schema = 2', "schema", "1"),
])
def test_bad_submission_names_file_line_field(old, new, field, message):
    assert old in REFERENCE
    bad = REFERENCE.replace(old, new, 1)
    with pytest.raises(RulesSubmissionError) as e:
        parse_roulette_x_submission(bad, "bad.toml")
    assert e.value.source == "bad.toml" and e.value.field == field and message in e.value.message
    assert e.value.line is not None and str(e.value).startswith(f"bad.toml:{e.value.line}: {field}: ")
    assert bad.splitlines()[e.value.line - 1].strip().split(" ")[0].strip('["]').split(".")[0] in field


def test_selected_paytable_needs_par():
    text = REFERENCE[:REFERENCE.index("[par.A.lit_count_weights]")] + REFERENCE[REFERENCE.index("[par.B.lit_count_weights]"):]
    with pytest.raises(RulesSubmissionError, match="Paytable A has no PAR"):
        parse_roulette_x_submission(text, "x.toml")


def test_draw_lit_is_valid():
    sub = parse_roulette_x_submission(REFERENCE)
    rng = np.random.default_rng(5)
    for _ in range(200):
        lit = draw_lit(rng, sub, "double-zero")
        assert 2 <= len(lit.payouts) <= 5 and set(lit.payouts.values()) <= set(PAYTABLES["A"].multipliers)


@pytest.mark.parametrize(("table", "wheel"), [("A", "single-zero"), ("A", "double-zero"), ("B", "double-zero")])
def test_exact_rtp_formula_pinned_and_monte_carlo(table, wheel):
    sub = parse_roulette_x_submission(REFERENCE.replace('paytable = "A"', f'paytable = "{table}"'))
    (entry,) = roulette_x_rtp(sub, wheel)
    j = entry.to_json()
    assert j["method"] == "exact" and Fraction(j["rtp_exact"]) == entry.rtp_exact
    assert entry.rtp_exact == Fraction(RTP_ROULETTE_X[entry.wager])  # pinned in test_paytables_literal, not a range
    par, t, n = sub.par_for(), PAYTABLES[table], len(pockets(wheel))
    p_lit = par.expected_lit() / n
    e_m = sum(m * par.multiplier_probability(m) for m in par.multiplier_weights)
    assert entry.rtp_exact == Fraction(1, n) * (p_lit * (1 + e_m) + (1 - p_lit) * (1 + t.straight.ratio))
    # Monte Carlo: an explicit uniform k-set of the pockets (random keys, the k smallest lit)
    trials, rng, w = 300_000, np.random.default_rng(6175), n - 1
    counts, cw = zip(*par.lit_count_weights.items(), strict=True)
    mults, mw = zip(*par.multiplier_weights.items(), strict=True)
    k = rng.choice(counts, size=trials, p=np.array(cw) / sum(cw))
    keys = rng.random((trials, n))
    lit = (keys < keys[:, [w]]).sum(axis=1) < k
    m = rng.choice(mults, size=trials, p=np.array(mw) / sum(mw))
    win = rng.integers(0, n, size=trials) == w
    returns = win * (1 + np.where(lit, m, int(t.straight.ratio)))
    mean, se = returns.mean(), returns.std(ddof=1) / np.sqrt(trials)
    assert abs(mean - float(entry.rtp_exact)) < 4 * se, (mean, se, float(entry.rtp_exact))
