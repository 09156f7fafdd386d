"""rules.rtp: exact RTP derived through settle, checked against the closed forms, and the
reference Rules Submission's acceptance figures."""

from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules.submission
from rules.crazy_time import BASE_ODDS, BONUS_SPOTS, SPOTS, TOP_SLOT_REEL2, WHEEL_SECTIONS, Spot
from rules.rtp import bonus_expected_odds, crazy_time_rtp
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

# Read by path: under pytest, ``importlib.resources.files("rules")`` may resolve to tests/rules.
REFERENCE_TEXT = (Path(rules.submission.__file__).parent / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")
DEFAULT = parse_rules_submission(REFERENCE_TEXT)
NUMBERS = [s for s in SPOTS if s not in BONUS_SPOTS]

#: Third-party published per-wager RTP of the commercial game; our PAR is calibrated to them.
TARGETS = {"1": "0.9608", "2": "0.9595", "5": "0.9578", "10": "0.9573", "coin-flip": "0.9570",
           "cash-hunt": "0.9527", "pachinko": "0.9433", "crazy-time": "0.9441"}


_EXPECTED: dict = {}


def expected_odds(spot, sub, m):
    """``bonus_expected_odds``, cached: the tests below vary only the Top Slot of DEFAULT."""
    assert sub.model_copy(update={"top_slot": DEFAULT.top_slot}) == DEFAULT
    if (spot, m) not in _EXPECTED:
        _EXPECTED[spot, m] = bonus_expected_odds(spot, sub, m)
    return _EXPECTED[spot, m]


def closed_form(sub):
    """Number s: (count/54)·(1 + odds·E[M]); bonus s: (count/54)·Σ_m P(m)·(1 + E[odds | m])."""
    counts, par = Counter(WHEEL_SECTIONS), sub.top_slot
    out = []
    for s in SPOTS:
        if s not in BONUS_SPOTS:
            out.append(Fraction(counts[s], 54) * (1 + BASE_ODDS[s].ratio * par.expected_multiplier(s)))
            continue
        x = par.align_probability * par.reel1_probability(s)
        p = {m: x * par.reel2_probability(m) for m in TOP_SLOT_REEL2}
        p[1] += 1 - x
        out.append(Fraction(counts[s], 54) * sum(pm * (1 + expected_odds(s, sub, m)) for m, pm in p.items()))
    return out


def with_par(align, reel1, reel2):
    top = DEFAULT.top_slot.model_copy(update={
        "align_probability": align, "reel1_weights": dict(zip(SPOTS, reel1)),
        "reel2_weights": dict(zip(DEFAULT.top_slot.reel2_weights, reel2)),
    })
    return DEFAULT.model_copy(update={"top_slot": top})


def test_reference_rtp_is_exact_and_matches_the_closed_form():
    rtps = crazy_time_rtp(DEFAULT)
    assert [r.wager for r in rtps] == ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]
    assert all(r.method == "exact" and isinstance(r.rtp_exact, Fraction) for r in rtps)
    assert [r.rtp_exact for r in rtps] == closed_form(DEFAULT)


@pytest.mark.parametrize("wager", list(TARGETS))
def test_reference_rtp_is_within_two_thousandths_of_a_point_of_the_target(wager):
    (rtp,) = [r for r in crazy_time_rtp(DEFAULT) if r.wager == wager]
    assert rtp.method == "exact"
    assert abs(rtp.rtp_exact - Fraction(TARGETS[wager])) <= Fraction(2, 10000), (
        f"{wager}: RTP {float(rtp.rtp_exact):.6%}, target {float(Fraction(TARGETS[wager])):.2%}")


def test_without_top_slot_number_rtp_is_the_paytable():
    rtps = crazy_time_rtp(with_par(Fraction(0), [1] * 8, [1] * 9))
    assert rtps[0].rtp_exact == Fraction(21 * 2, 54)  # 1 to 1 on 21 of 54 sections
    assert rtps[3].rtp_exact == Fraction(4 * 11, 54)  # 10 to 1 on 4 of 54
    # a bonus spot: P(section)·(1 + E[odds | no multiplier])
    assert rtps[-1].rtp_exact == Fraction(1, 54) * (1 + bonus_expected_odds(Spot.CRAZY_TIME, DEFAULT, 1))


def test_to_json_has_no_provisional_key():
    assert crazy_time_rtp(with_par(Fraction(0), [1] * 8, [1] * 9))[0].to_json() == {
        "wager": "1", "rtp": 7 / 9, "rtp_exact": "7/9", "method": "exact"}
    for r in crazy_time_rtp(DEFAULT):
        doc = r.to_json()
        assert set(doc) == {"wager", "rtp", "rtp_exact", "method"}
        p, q = map(int, doc["rtp_exact"].split("/"))
        assert Fraction(p, q) == r.rtp_exact and abs(p / q - doc["rtp"]) < 1e-12


weights = st.integers(1, 50)


@settings(max_examples=20, deadline=None)
@given(st.fractions(0, 1, max_denominator=1000), st.fractions(0, 1, max_denominator=1000),
       st.lists(weights, min_size=8, max_size=8), st.lists(weights, min_size=9, max_size=9))
def test_rtp_is_closed_form_and_monotone_in_align_probability(a, b, reel1, reel2):
    low, high = (with_par(p, reel1, reel2) for p in sorted((a, b)))
    rtp_low, rtp_high = ([r.rtp_exact for r in crazy_time_rtp(sub)] for sub in (low, high))
    assert rtp_low == closed_form(low) and rtp_high == closed_form(high)
    # every bonus game pays at least as much under a larger Top Slot multiplier, so more alignment
    # never lowers a wager's RTP
    assert all(x <= y for x, y in zip(rtp_low, rtp_high, strict=True))
