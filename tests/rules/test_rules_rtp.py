"""rules.rtp: exact RTP derived through settle, checked against the closed form."""

from collections import Counter
from fractions import Fraction
from importlib.resources import files

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.crazy_time import BASE_ODDS, BONUS_SPOTS, SPOTS, WHEEL_SECTIONS
from rules.rtp import crazy_time_rtp
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

DEFAULT = parse_rules_submission((files("rules") / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8"))


def closed_form(sub):
    counts = Counter(WHEEL_SECTIONS)
    return [Fraction(counts[s], 54) * (1 + BASE_ODDS[s].ratio * sub.top_slot.expected_multiplier(s)) for s in SPOTS]


def with_par(align, reel1, reel2):
    top = DEFAULT.top_slot.model_copy(update={
        "align_probability": align, "reel1_weights": dict(zip(SPOTS, reel1)),
        "reel2_weights": dict(zip(DEFAULT.top_slot.reel2_weights, reel2)),
    })
    return DEFAULT.model_copy(update={"top_slot": top})


def test_default_rtp_matches_closed_form():
    rtps = crazy_time_rtp(DEFAULT)
    assert [r.wager for r in rtps] == ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]
    assert [r.rtp_exact for r in rtps] == closed_form(DEFAULT)
    assert all(r.method == "exact" and r.provisional == (r.wager in BONUS_SPOTS) for r in rtps)


def test_without_top_slot_rtp_is_the_paytable():
    rtps = crazy_time_rtp(with_par(Fraction(0), [1] * 8, [1] * 9))
    assert rtps[0].rtp_exact == Fraction(21 * 2, 54)  # 1 to 1 on 21 of 54 sections
    assert rtps[-1].rtp_exact == Fraction(16, 54)  # 15 to 1 on 1 of 54


def test_to_json():
    assert crazy_time_rtp(DEFAULT)[3].to_json() == {
        "wager": "10", "rtp": 287 / 324, "rtp_exact": "287/324", "method": "exact", "provisional": False}
    assert crazy_time_rtp(with_par(Fraction(0), [1] * 8, [1] * 9))[0].to_json()["rtp_exact"] == "7/9"


weights = st.integers(1, 50)


@settings(max_examples=30, deadline=None)
@given(st.fractions(0, 1, max_denominator=1000), st.fractions(0, 1, max_denominator=1000),
       st.lists(weights, min_size=8, max_size=8), st.lists(weights, min_size=9, max_size=9))
def test_rtp_is_closed_form_and_monotone_in_align_probability(a, b, reel1, reel2):
    low, high = (with_par(p, reel1, reel2) for p in sorted((a, b)))
    rtp_low, rtp_high = ([r.rtp_exact for r in crazy_time_rtp(sub)] for sub in (low, high))
    assert rtp_low == closed_form(low) and rtp_high == closed_form(high)
    assert all(x <= y for x, y in zip(rtp_low, rtp_high, strict=True))
