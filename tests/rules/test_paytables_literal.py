"""Every paytable cell of the regulation, transcribed BY HAND into this file, and the exact RTP of
every wager pinned as a literal fraction (issue 16, "Literal expected tables in tests/").

Why a second transcription: the rules modules parse their own transcription of the regulation,
and the tests that compared it with the regulation text read ``../shared/regulations``, which is
outside the repo and skipped when absent; the Monte Carlo kernels read the same paytables they
are checked against. A payout changed in the code (Roulette Up Paytable B's 6-streak 25 to 1 →
35 to 1, the planted bug of issue 16) passed every test that always runs. Here nothing is read
from outside the repo and nothing expected is generated from the code under test:

* ``EXPECTED_*``: the cells of §§ 617b.4(h), 617b.5(g), 633b.17(g)–(h), 633b.18(i), (k),
  633b.19(d), 633b.20(e), 633b.21(f)–(g), 653b.2(b), 653b.3(b), 653b.4(f), 653b.5(f), 674b.1(f),
  690.1(a)–(b), 690.3(b) and 690.4(a), typed from Pa.B. 54-1537 (and 58 Pa. Code § 617b.4) as
  ("to", N) for "N to 1", ("for", N) for "N for 1", LOSS, PUSH, METER / ("meter", name), NA.
  The comparison goes both ways: a cell changed, a row or a paytable missing, or one the
  regulation does not have, each fails.
* ``RTP_*``: the exact RTP of every wager as ``croupier rtp`` reports it, as literal fractions.
  Where the maths is small enough it is re-derived here by an independent method (Roulette Up by
  the closed form P(length ≥ k) = C(N, k)/N^k; the Ultimate Pairs wagers by enumerating the 1,326
  two-card hands; Blazing 7's by enumerating three cards from the shoe; Trips and Play the Board
  from the published 7- and 5-card hand counts; 21+3 by enumerating every three-card multiset of
  the shoe; Royal Match and King's Bounty by counting two-card hands by hand; the long-run RTPs
  from this file's meter rates), so those pins are checked twice. The others (Bad Beat, Roulette
  X) are regression pins of the exact engine's value: a changed paytable cell or a changed hand
  count moves them.

The ``test_*_catches_*`` tests feed the comparisons a broken table and assert the mismatch is
reported, so that none of the comparisons can pass vacuously.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace
from fractions import Fraction
from math import comb
from types import MappingProxyType

import pytest

from rules import bj_paytables, criss_cross, crazy_time, roulette_up, roulette_x, uth
from rules.bj_paytables import MeterPayout
from rules.odds import ForOne, ToOne
from rules.roulette import Wheel

LOSS, PUSH, METER, NA = "loss", "push", "meter", "n/a"
#: one 52-card deck as (rank, suit), 14 = ace
_DECK = [(r, s) for r in range(2, 15) for s in "shdc"]


def T(n: int) -> tuple[str, int]:
    """"n to 1"."""
    return ("to", n)


def F(n: int) -> tuple[str, int]:
    """"n for 1"."""
    return ("for", n)


def M(meter: str) -> tuple[str, str]:
    """"100% of <meter>" (blackjack side wagers name their meter)."""
    return ("meter", meter)


def cell(payout: object) -> object:
    """A code payout object as this file's literal notation."""
    if isinstance(payout, ToOne):
        assert payout.ratio.denominator == 1
        return T(int(payout.ratio))
    if isinstance(payout, ForOne):
        assert payout.ratio.denominator == 1
        return F(int(payout.ratio))
    if isinstance(payout, roulette_up.Loss | bj_paytables.Loss):
        return LOSS
    if isinstance(payout, roulette_up.Push):
        return PUSH
    if isinstance(payout, roulette_up.ProgressiveMeter):
        assert payout.percent == 100
        return METER
    if isinstance(payout, MeterPayout):
        assert payout.percent == 100
        return M(payout.meter)
    raise AssertionError(f"unknown payout {payout!r}")


def diff(where: str, expected: dict, actual: dict) -> list[str]:
    """Every key missing, extra or different between two mappings."""
    out = [f"{where}: {k!r} missing (regulation: {expected[k]!r})" for k in expected if k not in actual]
    out += [f"{where}: {k!r} = {actual[k]!r} is not in the regulation" for k in actual if k not in expected]
    out += [f"{where}: {k!r} is {actual[k]!r}, regulation {expected[k]!r}"
            for k in expected if k in actual and expected[k] != actual[k]]
    return out


# =========================================================================== Roulette Up § 617b.4(h)

#: § 617b.4(h)(1): streak length -> payout, Paytables A–E.
EXPECTED_ROULETTE_UP = {
    "A": {8: T(400), 7: T(150), 6: T(100), 5: T(30), 4: T(10), 3: T(2), 2: LOSS, 1: LOSS},
    "B": {8: T(400), 7: T(100), 6: T(25), 5: T(10), 4: T(4), 3: T(2), 2: PUSH, 1: LOSS},
    "C": {8: T(275), 7: T(150), 6: T(25), 5: T(15), 4: T(10), 3: T(3), 2: LOSS, 1: LOSS},
    "D": {8: T(800), 7: T(400), 6: T(100), 5: T(30), 4: T(20), 3: LOSS, 2: LOSS, 1: LOSS},
    "E": {8: T(250), 7: T(125), 6: T(50), 5: T(15), 4: T(5), 3: T(1), 2: PUSH, 1: LOSS},
}
#: § 617b.4(h)(2): Progressive Paytables 1–7: streak length -> payout ("n/a": no such streak),
#: and the first row's Seed/Reseed (× the progressive wager), Incrementation, Reserve Rate.
EXPECTED_ROULETTE_UP_PROGRESSIVE = {
    "1": ({9: METER, 8: F(3000), 7: F(1500), 6: F(250), 5: F(25), 4: LOSS, 3: LOSS, 2: LOSS, 1: LOSS},
          10_000, Fraction(20, 100), Fraction(4, 100)),
    "2": ({9: METER, 8: F(5000), 7: F(2000), 6: F(200), 5: F(20), 4: LOSS, 3: LOSS, 2: LOSS, 1: LOSS},
          10_000, Fraction(20, 100), Fraction(4, 100)),
    "3": ({9: METER, 8: F(1000), 7: F(500), 6: F(100), 5: F(20), 4: F(10), 3: LOSS, 2: LOSS, 1: LOSS},
          10_000, Fraction(18, 100), Fraction(4, 100)),
    "4": ({9: NA, 8: METER, 7: F(250), 6: F(50), 5: F(20), 4: F(4), 3: F(2), 2: LOSS, 1: LOSS},
          3_000, Fraction(18, 100), Fraction(5, 100)),
    "5": ({9: NA, 8: METER, 7: F(350), 6: F(75), 5: F(15), 4: F(4), 3: F(2), 2: LOSS, 1: LOSS},
          3_000, Fraction(18, 100), Fraction(5, 100)),
    "6": ({9: NA, 8: METER, 7: F(500), 6: F(100), 5: F(20), 4: F(10), 3: LOSS, 2: LOSS, 1: LOSS},
          3_000, Fraction(18, 100), Fraction(5, 100)),
    "7": ({9: NA, 8: METER, 7: F(450), 6: F(100), 5: F(20), 4: F(10), 3: LOSS, 2: LOSS, 1: LOSS},
          3_000, Fraction(19, 100), None),
}

#: (wager, wheel) -> (rtp with the meter at its seed, long-run rtp = + the increment rate).
RTP_ROULETTE_UP = {
    ("A", "single-zero"): ("89181401010/94931877133", None),
    ("B", "single-zero"): ("87954203550/94931877133", None),
    ("C", "single-zero"): ("86927817120/94931877133", None),
    ("D", "single-zero"): ("85747571175/94931877133", None),
    ("E", "single-zero"): ("84007433982/94931877133", None),
    ("1", "single-zero"): ("1825692290125/3512479453921", "12640940904546/17562397269605"),
    ("2", "single-zero"): ("1832776883300/3512479453921", "12676363870421/17562397269605"),
    ("3", "single-zero"): ("1915132219140/3512479453921", "127368926042289/175623972696050"),
    ("4", "single-zero"): ("52872224238/94931877133", "3497998106097/4746593856650"),
    ("5", "single-zero"): ("53136833913/94931877133", "3511228589847/4746593856650"),
    ("6", "single-zero"): ("53029403220/94931877133", "3505857055197/4746593856650"),
    ("7", "single-zero"): ("52566802620/94931877133", "7060385927527/9493187713300"),
    ("A", "double-zero"): ("3373933689/3575486956", None),
    ("B", "double-zero"): ("53119252057/57207791296", None),
    ("C", "double-zero"): ("52562472357/57207791296", None),
    ("D", "double-zero"): ("25987553655/28603895648", None),
    ("E", "double-zero"): ("6345073205/7150973912", None),
    ("1", "double-zero"): ("572088787625/1086948034624", "3947391972749/5434740173120"),
    ("2", "double-zero"): ("143737020025/271737008656", "990422108781/1358685043280"),
    ("3", "double-zero"): ("149273142435/271737008656", "4954645099827/6793425216400"),
    ("4", "double-zero"): ("8011041495/14301947824", "264634802583/357548695600"),
    ("5", "double-zero"): ("16107328215/28603895648", "531400735791/715097391200"),
    ("6", "double-zero"): ("8051214615/14301947824", "265639130583/357548695600"),
    ("7", "double-zero"): ("15960762705/28603895648", "534887571953/715097391200"),
}


def roulette_up_mismatches(tables) -> list[str]:
    """Every way ``tables`` (name -> RouletteUpPaytable) differs from § 617b.4(h)."""
    expected_names = set(EXPECTED_ROULETTE_UP) | set(EXPECTED_ROULETTE_UP_PROGRESSIVE)
    out = [f"paytable {n!r}: not in § 617b.4(h)" for n in set(tables) - expected_names]
    out += [f"paytable {n!r}: missing" for n in expected_names - set(tables)]
    for name, pays in EXPECTED_ROULETTE_UP.items():
        if (t := tables.get(name)) is not None:
            out += diff(f"Paytable {name}", pays, {k: cell(p) for k, p in t.pays.items()})
            if t.progressive is not None:
                out.append(f"Paytable {name} has progressive terms; § 617b.4(h)(1) gives none")
    for name, (pays, seed, increment, reserve) in EXPECTED_ROULETTE_UP_PROGRESSIVE.items():
        if (t := tables.get(name)) is None:
            continue
        out += diff(f"Progressive Paytable {name}", {k: c for k, c in pays.items() if c != NA},
                    {k: cell(p) for k, p in t.pays.items()})
        longest = max(k for k, c in pays.items() if c != NA)
        if t.longest != longest:
            out.append(f"Progressive Paytable {name}: longest streak {t.longest}, regulation {longest}")
        terms = t.progressive
        got = None if terms is None else (terms.seed_multiple, terms.increment_rate, terms.reserve_rate)
        if got != (seed, increment, reserve):
            out.append(f"Progressive Paytable {name}: seed/increment/reserve {got}, regulation {(seed, increment, reserve)}")
    return out


def test_roulette_up_every_cell_seed_increment_and_reserve_is_the_regulations():
    assert roulette_up_mismatches(roulette_up.PAYTABLES) == []
    assert [roulette_up.paytable(n).longest for n in "ABCDE"] == [8] * 5
    assert [roulette_up.paytable(f"P{n}").longest for n in range(1, 8)] == [9, 9, 9, 8, 8, 8, 8]


def test_roulette_up_comparison_catches_a_changed_cell_and_terms():
    """The planted bug of issue 16 (Paytable B 25 to 1 → 35 to 1 on a 6-streak), a changed
    increment, a dropped reserve and a missing paytable are each reported."""
    tables = dict(roulette_up.PAYTABLES)
    b = tables["B"]
    tables["B"] = replace(b, pays=MappingProxyType({**b.pays, 6: ToOne(35)}))
    assert roulette_up_mismatches(tables) == ["Paytable B: 6 is ('to', 35), regulation ('to', 25)"]
    p3 = tables["3"]
    tables = dict(roulette_up.PAYTABLES)
    tables["3"] = replace(p3, progressive=replace(p3.progressive, increment_rate=Fraction(20, 100)))
    tables["7"] = replace(tables["7"], progressive=replace(tables["7"].progressive, reserve_rate=Fraction(0)))
    del tables["E"]
    found = roulette_up_mismatches(tables)
    assert len(found) == 3 and any("Progressive Paytable 3" in f for f in found)
    assert any("Progressive Paytable 7" in f for f in found) and "paytable 'E': missing" in found


def test_roulette_up_meter_spec_is_seed_times_the_wager():
    """§ 617b.4(h)(2) "Seed/Reseed 10,000× / 3,000× the progressive wager", at a 125 ¢ wager."""
    assert roulette_up.meter_spec("P1", 125) == {"name": "progressive", "seed_cents": 1_250_000,
                                                 "reseed_cents": 1_250_000, "increment_rate": "1/5",
                                                 "reserve_rate": "1/25"}
    assert roulette_up.meter_spec("P7", 125) == {"name": "progressive", "seed_cents": 375_000,
                                                 "reseed_cents": 375_000, "increment_rate": "19/100",
                                                 "reserve_rate": "0"}


def _independent_roulette_up_rtp(name: str, wheel: str) -> Fraction:
    """Σ_k P(length = k)·return(k) by the closed form P(length ≥ k) = C(N, k)/N^k (the first k
    numbers strictly increasing in § 617b.4(g)(1) order; 36 ends it because nothing is greater),
    capped at the paytable's longest streak, from THIS file's cells."""
    n = 37 if wheel == "single-zero" else 38
    if name in EXPECTED_ROULETTE_UP:
        pays, seed = EXPECTED_ROULETTE_UP[name], None
    else:
        pays, seed = EXPECTED_ROULETTE_UP_PROGRESSIVE[name][:2]
    longest = max(k for k, c in pays.items() if c != NA)
    at_least = {k: Fraction(comb(n, k), n ** k) for k in range(1, longest + 2)}
    at_least[longest + 1] = Fraction(0)
    value = {LOSS: Fraction(0), PUSH: Fraction(1), METER: Fraction(seed or 0)}
    total = Fraction(0)
    for k in range(1, longest + 1):
        c = pays[k]
        ret = value[c] if c in value else (c[1] + 1 if c[0] == "to" else Fraction(c[1]))
        total += (at_least[k] - at_least[k + 1]) * ret
    return total


def test_roulette_up_rtp_is_pinned_and_rederived():
    got = {(e.wager.split()[-1], str(e.wheel)): e for e in roulette_up.roulette_up_rtp_table()}
    assert set(got) == set(RTP_ROULETTE_UP)
    for key, (rtp, long_run) in RTP_ROULETTE_UP.items():
        assert got[key].rtp_exact == Fraction(rtp), key
        assert got[key].rtp_long_run_exact == (None if long_run is None else Fraction(long_run)), key
        assert Fraction(rtp) == _independent_roulette_up_rtp(*key), key
        if long_run is not None:
            assert Fraction(long_run) == Fraction(rtp) + EXPECTED_ROULETTE_UP_PROGRESSIVE[key[0]][2], key


def test_roulette_up_independent_rtp_moves_with_the_planted_cell():
    """The independent derivation is sensitive to the cell: B with 35 to 1 on 6 is another number."""
    saved = EXPECTED_ROULETTE_UP["B"][6]
    try:
        EXPECTED_ROULETTE_UP["B"][6] = T(35)
        assert _independent_roulette_up_rtp("B", "single-zero") != Fraction(RTP_ROULETTE_UP[("B", "single-zero")][0])
    finally:
        EXPECTED_ROULETTE_UP["B"][6] = saved


# =========================================================================== Roulette X § 617b.5(g)

EXPECTED_ROULETTE_X = {
    "A": ({"single-zero", "double-zero"}, T(28), (T(50), T(100), T(250), T(500))),
    "B": ({"double-zero"}, T(30), (T(50), T(100), T(175), T(250))),
}
#: the straight wager under the packaged reference Rules Submission (rules/data/roulette_x_reference.toml;
#: Paytable B: the same submission with ``paytable = "B"``)
RTP_ROULETTE_X = {"straight (Paytable A, single-zero)": "26311/27380",
                  "straight (Paytable A, double-zero)": "26891/28880",
                  "straight (Paytable B, double-zero)": "55121/57760"}


def roulette_x_mismatches(tables) -> list[str]:
    got = {n: ({str(w) for w in t.wheels}, cell(t.straight), tuple(cell(m) for m in t.multipliers))
           for n, t in tables.items()}
    return diff("§ 617b.5(g)", EXPECTED_ROULETTE_X, got)


def test_roulette_x_paytables_are_the_regulations():
    assert roulette_x_mismatches(roulette_x.PAYTABLES) == []
    broken = dict(roulette_x.PAYTABLES)
    broken["B"] = replace(broken["B"], multipliers=(ToOne(50), ToOne(100), ToOne(250), ToOne(250)))
    assert len(roulette_x_mismatches(broken)) == 1


def test_roulette_x_rtp_is_pinned():
    from rules.roulette_x import ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission, roulette_x_rtp
    from importlib import resources
    text = resources.files("rules").joinpath(ROULETTE_X_REFERENCE_RESOURCE).read_text(encoding="utf-8")
    sub = parse_roulette_x_submission(text, ROULETTE_X_REFERENCE_RESOURCE)
    got = {e.wager: e.rtp_exact for w in ("single-zero", "double-zero") for e in roulette_x_rtp(sub, w)}
    sub_b = parse_roulette_x_submission(text.replace('paytable = "A"', 'paytable = "B"'), ROULETTE_X_REFERENCE_RESOURCE)
    got |= {e.wager: e.rtp_exact for e in roulette_x_rtp(sub_b, "double-zero")}
    assert got == {k: Fraction(v) for k, v in RTP_ROULETTE_X.items()}


# =========================================================================== blackjack side wagers § 633b

#: § 633b.17(g), rows in order: declared-suit premium trips, suited premium trips, suited trips,
#: straight flush, trips, straight, flush; and the premium ranks (14 = ace, 13 = king, 12 = queen).
_H21 = ("DECLARED_SUIT", "SUITED_PREMIUM", "SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS", "STRAIGHT", "FLUSH")
_P = M("progressive")
EXPECTED_21_PLUS_3 = {
    "1": ((_P, _P, F(125), F(25), F(20), F(7), F(3)), {14, 13}),
    "4": ((_P, _P, F(150), F(40), F(20), F(7), F(3)), {14, 13}),
    "7": ((_P, F(2000), F(150), F(40), F(20), F(5), F(3)), {14, 13}),
    "10": ((_P, F(3000), F(200), F(30), F(20), F(10), LOSS), {14, 13}),
    "2": ((_P, _P, F(125), F(25), F(20), F(6), F(2)), {14, 13, 12}),
    "5": ((_P, _P, F(150), F(40), F(20), F(7), F(2)), {14, 13, 12}),
    "8": ((_P, F(2000), F(125), F(40), F(20), F(6), F(2)), {14, 13, 12}),
    "3": ((_P, _P, F(125), F(25), F(20), F(7), F(3)), {14}),
    "6": ((_P, _P, F(150), F(40), F(20), F(7), F(3)), {14}),
    "9": ((_P, F(2000), F(150), F(40), F(20), F(5), F(3)), {14}),
    "11": ((_P, F(3000), F(200), F(30), F(20), F(10), LOSS), {14}),
}
#: § 633b.17(h): paytable -> {decks: (seed × the wager, seed in cents, increment, reserve)};
#: "4 or more" is 4..8 (§ 633b.17(b): three to eight decks). "$2000" = 200,000 ¢; "N/A": no seed.
_SEVENTEEN, _ZERO = Fraction(17, 100), Fraction(0)
_FOUR_UP = range(4, 9)
EXPECTED_21_PLUS_3_METERS = {
    "1": {3: (2000, None, Fraction(20, 100), _ZERO), **{d: (2000, None, _SEVENTEEN, _ZERO) for d in _FOUR_UP}},
    "2": {3: (3000, None, Fraction(24, 100), _ZERO), **{d: (2000, None, _SEVENTEEN, _ZERO) for d in _FOUR_UP}},
    "3": {3: (None, None, _SEVENTEEN, Fraction(4, 100)), **{d: (None, 200_000, _SEVENTEEN, _ZERO) for d in _FOUR_UP}},
    "4": {d: (None, 200_000, _SEVENTEEN, _ZERO) for d in _FOUR_UP},
    "5": {d: (None, 200_000, _SEVENTEEN, _ZERO) for d in _FOUR_UP},
    "6": {d: (None, 200_000, _SEVENTEEN, _ZERO) for d in _FOUR_UP},
    "7": {d: (None, None, Fraction(16, 100), Fraction(4, 100)) for d in _FOUR_UP},
    "8": {d: (None, None, Fraction(15, 100), Fraction(5, 100)) for d in _FOUR_UP},
    "9": {d: (None, None, Fraction(16, 100), Fraction(4, 100)) for d in _FOUR_UP},
    "10": {d: (None, None, Fraction(17, 100), Fraction(4, 100)) for d in _FOUR_UP},
    "11": {d: (None, None, Fraction(18, 100), Fraction(4, 100)) for d in _FOUR_UP},
}
#: § 633b.18(i), (k): Crown Treasure, Royal Match, two-card straight flush; seed 10,000× the
#: minimum wager, increment 15 %; the Envy Bonus 500 to 1.
EXPECTED_ROYAL_MATCH = {"A": {"CROWN_TREASURE": _P, "ROYAL_MATCH": T(60), "STRAIGHT_FLUSH": T(10)}}
EXPECTED_ROYAL_MATCH_METER = (10_000, None, Fraction(15, 100), None)
#: § 633b.19(d): Paytable B.
EXPECTED_KINGS_BOUNTY = {"B": {"KING_OF_SPADES_PAIR_DEALER_BLACKJACK": T(1000), "KING_OF_SPADES_PAIR": T(100),
                               "SUITED_KINGS": T(30), "SUITED_QUEENS_JACKS_TENS": T(20), "SUITED_20": T(10),
                               "PAIR_OF_KINGS": T(8), "ANY_20": T(6)}}
#: § 633b.20(e): Paytable A.
EXPECTED_BLAZING_SEVENS = {"A": {"THREE_DIAMONDS": T(5000), "THREE_SAME_SUIT": T(2000), "THREE_SAME_COLOUR": T(1000),
                                 "THREE_SEVENS": T(500), "TWO_SEVENS": T(40), "ONE_SEVEN": T(2)}}
#: § 633b.21(f): Paytables A and B; § 633b.21(g): the meters' seed (× the minimum wager) and
#: incrementation.
EXPECTED_BLAZING_SEVENS_MULTI = {
    "A": {"THREE_DIAMONDS": M("mega"), "THREE_SAME_SUIT": M("major"), "THREE_SAME_COLOUR": M("minor"),
          "THREE_SEVENS": T(400), "TWO_SEVENS": T(30), "ONE_SEVEN": T(2)},
    "B": {"THREE_DIAMONDS": M("mega"), "THREE_SAME_SUIT": M("major"), "THREE_SAME_COLOUR": M("minor"),
          "THREE_SEVENS": T(200), "TWO_SEVENS": T(25), "ONE_SEVEN": T(3)},
}
EXPECTED_BLAZING_METERS = {"mega": (2000, None, Fraction(14, 100), None), "major": (1000, None, Fraction(6, 100), None),
                           "minor": (500, None, Fraction(4, 100), None)}

#: (wager, paytable, decks) -> rtp with every meter at its seed (an unseeded meter empty; a "$2000"
#: seed at a 100 ¢ wager), as ``croupier rtp`` reports it.
RTP_BLACKJACK_SIDE = {
    ("twenty-one-plus-three", "1", 6): "395246/626665", ("twenty-one-plus-three", "1", 8): "18589/28635",
    ("twenty-one-plus-three", "2", 6): "357944/626665", ("twenty-one-plus-three", "2", 8): "73786/124085",
    ("twenty-one-plus-three", "3", 6): "376496/626665", ("twenty-one-plus-three", "3", 8): "228532/372255",
    ("twenty-one-plus-three", "4", 6): "417436/626665", ("twenty-one-plus-three", "4", 8): "85034/124085",
    ("twenty-one-plus-three", "5", 6): "1284/2015", ("twenty-one-plus-three", "5", 8): "246148/372255",
    ("twenty-one-plus-three", "6", 6): "398936/626665", ("twenty-one-plus-three", "6", 8): "242152/372255",
    ("twenty-one-plus-three", "7", 6): "368556/626665", ("twenty-one-plus-three", "7", 8): "225062/372255",
    ("twenty-one-plus-three", "8", 6): "362384/626665", ("twenty-one-plus-three", "8", 8): "5702/9545",
    ("twenty-one-plus-three", "9", 6): "27312/48205", ("twenty-one-plus-three", "9", 8): "215612/372255",
    ("twenty-one-plus-three", "10", 6): "72692/125333", ("twenty-one-plus-three", "10", 8): "14908/24817",
    ("twenty-one-plus-three", "11", 6): "68592/125333", ("twenty-one-plus-three", "11", 8): "41854/74451",
    ("royal-match", "A", 6): "42262488/64546495", ("royal-match", "A", 8): "100773664/153741315",
    ("kings-bounty", "B", 6): "24512603/25818598", ("kings-bounty", "B", 8): "14000933/14642030",
    ("blazing-sevens", "A", 6): "115077/125333", ("blazing-sevens", "A", 8): "69545/74451",
    ("blazing-sevens-multi", "A", 6): "96982/125333", ("blazing-sevens-multi", "A", 8): "58270/74451",
    ("blazing-sevens-multi", "B", 6): "103606/125333", ("blazing-sevens-multi", "B", 8): "103474/124085",
}
#: the long-run rtp (progressive wagers): + every meter's increment, and for an unseeded ("N/A")
#: meter its reserve too (the reserve becomes the next meter's start).
RTP_BLACKJACK_SIDE_LONG_RUN = {
    ("twenty-one-plus-three", "1", 6): "10035581/12533300", ("twenty-one-plus-three", "1", 8): "469139/572700",
    ("twenty-one-plus-three", "2", 6): "9289541/12533300", ("twenty-one-plus-three", "2", 8): "1897609/2481700",
    ("twenty-one-plus-three", "3", 6): "9660581/12533300", ("twenty-one-plus-three", "3", 8): "5836307/7445100",
    ("twenty-one-plus-three", "4", 6): "10479381/12533300", ("twenty-one-plus-three", "4", 8): "2122569/2481700",
    ("twenty-one-plus-three", "5", 6): "32531/40300", ("twenty-one-plus-three", "5", 8): "6188627/7445100",
    ("twenty-one-plus-three", "6", 6): "10109381/12533300", ("twenty-one-plus-three", "6", 8): "6108707/7445100",
    ("twenty-one-plus-three", "7", 6): "493889/626665", ("twenty-one-plus-three", "7", 8): "299513/372255",
    ("twenty-one-plus-three", "8", 6): "487717/626665", ("twenty-one-plus-three", "8", 8): "7611/9545",
    ("twenty-one-plus-three", "9", 6): "36953/48205", ("twenty-one-plus-three", "9", 8): "290063/372255",
    ("twenty-one-plus-three", "10", 6): "9901193/12533300", ("twenty-one-plus-three", "10", 8): "2011957/2481700",
    ("twenty-one-plus-three", "11", 6): "4808263/6266650", ("twenty-one-plus-three", "11", 8): "2911661/3722550",
    ("royal-match", "A", 6): "207777849/258185980", ("royal-match", "A", 8): "99067889/122993052",
    ("blazing-sevens-multi", "A", 6): "3176548/3133325", ("blazing-sevens-multi", "A", 8): "1903456/1861275",
    ("blazing-sevens-multi", "B", 6): "3342148/3133325", ("blazing-sevens-multi", "B", 8): "666272/620425",
}
#: Royal Match: what each other player's wager adds through the 500 to 1 Envy Bonus (§ 633b.18(k)).
RTP_ROYAL_MATCH_ENVY = {6: "53200/12909299", 8: "385600/92244789"}


def _terms(t: bj_paytables.MeterTerms) -> tuple:
    return (t.seed_wagers, t.seed_cents, t.increment_rate, t.reserve_rate)


def blackjack_mismatches(paytables) -> list[str]:
    """Every way ``paytables`` (wager -> name -> SidePaytable) differs from § 633b.17–§ 633b.21."""
    out = []
    expected_wagers = {"twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens", "blazing-sevens-multi"}
    out += diff("wagers", dict.fromkeys(expected_wagers, True), dict.fromkeys(paytables, True))
    t21 = paytables.get("twenty-one-plus-three", {})
    out += diff("§ 633b.17(g) paytables", dict.fromkeys(EXPECTED_21_PLUS_3, True), dict.fromkeys(t21, True))
    for name, (cells, premium) in EXPECTED_21_PLUS_3.items():
        if (t := t21.get(name)) is None:
            continue
        out += diff(f"21+3 Paytable {name}", dict(zip(_H21, cells, strict=True)),
                    {h.name: cell(p) for h, p in t.pays.items()})
        if set(t.premium_ranks) != premium:
            out.append(f"21+3 Paytable {name}: premium ranks {sorted(t.premium_ranks)}, regulation {sorted(premium)}")
        out += diff(f"§ 633b.17(h) Paytable {name}", EXPECTED_21_PLUS_3_METERS[name],
                    {d: _terms(m["progressive"]) for d, m in t.terms.items()})
    for wager, expected, meters in (
            ("royal-match", EXPECTED_ROYAL_MATCH, {"progressive": EXPECTED_ROYAL_MATCH_METER}),
            ("kings-bounty", EXPECTED_KINGS_BOUNTY, {}),
            ("blazing-sevens", EXPECTED_BLAZING_SEVENS, {}),
            ("blazing-sevens-multi", EXPECTED_BLAZING_SEVENS_MULTI, EXPECTED_BLAZING_METERS)):
        tables = paytables.get(wager, {})
        out += diff(f"{wager} paytables", dict.fromkeys(expected, True), dict.fromkeys(tables, True))
        for name, cells in expected.items():
            if (t := tables.get(name)) is None:
                continue
            out += diff(f"{wager} Paytable {name}", cells, {h.name: cell(p) for h, p in t.pays.items()})
            for d in range(1, 9):
                out += diff(f"{wager} Paytable {name} meters ({d} decks)", meters,
                            {m: _terms(v) for m, v in t.terms.get(d, {}).items()})
    return out


def test_blackjack_side_wager_cells_and_meters_are_the_regulations():
    assert blackjack_mismatches(bj_paytables.PAYTABLES) == []
    assert cell(bj_paytables.ENVY_BONUS) == T(500)
    multi = bj_paytables.paytable("blazing-sevens-multi", "A")
    # § 633b.21(e)(2): "odds greater than 200 for 1"; (e)(3): "10% or more of the jackpot amount"
    assert multi.floorperson_above == 200 and multi.not_from_inventory_share == Fraction(1, 10)


def test_blackjack_comparison_catches_changed_cells_and_meters():
    tables = {w: dict(t) for w, t in bj_paytables.PAYTABLES.items()}
    p7 = tables["twenty-one-plus-three"]["7"]
    pays = dict(p7.pays)
    pays[bj_paytables.TwentyOnePlusThreeHand.STRAIGHT] = ForOne(6)
    tables["twenty-one-plus-three"]["7"] = replace(p7, pays=MappingProxyType(pays))
    b = tables["blazing-sevens-multi"]["B"]
    terms = {d: {**m, "minor": replace(m["minor"], increment_rate=Fraction(5, 100))} for d, m in b.terms.items()}
    tables["blazing-sevens-multi"]["B"] = replace(b, terms=MappingProxyType(terms))
    del tables["kings-bounty"]["B"]
    found = blackjack_mismatches(tables)
    assert "21+3 Paytable 7: 'STRAIGHT' is ('for', 6), regulation ('for', 5)" in found
    assert "kings-bounty paytables: 'B' missing (regulation: True)" in found
    assert sum("blazing-sevens-multi Paytable B meters" in f for f in found) == 8 and len(found) == 10


@pytest.fixture(scope="module")
def blackjack_rtp():
    from rules.blackjack_side import side_wager_rtp_table
    return {(e.wager, e.paytable, e.decks): e for e in side_wager_rtp_table((6, 8))}


def test_blackjack_side_wager_rtp_is_pinned(blackjack_rtp):
    assert {k: str(e.rtp_exact) for k, e in blackjack_rtp.items()} == RTP_BLACKJACK_SIDE
    long_run = {k: str(e.rtp_long_run_exact) for k, e in blackjack_rtp.items() if e.rtp_long_run_exact is not None}
    assert long_run == RTP_BLACKJACK_SIDE_LONG_RUN
    envy = {k[2]: e.envy_per_other_player for k, e in blackjack_rtp.items() if k[0] == "royal-match"}
    assert envy == {d: Fraction(v) for d, v in RTP_ROYAL_MATCH_ENVY.items()}


def test_blackjack_long_run_rtp_is_the_seed_rtp_plus_this_files_meter_rates():
    """§ 633b.17(h), § 633b.18(i), § 633b.21(g) from this file: a seeded meter adds its increment
    rate; an unseeded one ("N/A") its increment and its reserve rate."""
    def added(terms) -> Fraction:
        seed_wagers, seed_cents, increment, reserve = terms
        return increment + (0 if seed_wagers or seed_cents else reserve or 0)

    for (wager, name, decks), long_run in RTP_BLACKJACK_SIDE_LONG_RUN.items():
        if wager == "twenty-one-plus-three":
            rates = added(EXPECTED_21_PLUS_3_METERS[name][decks])
        elif wager == "royal-match":
            rates = added(EXPECTED_ROYAL_MATCH_METER)
        else:
            rates = sum((added(t) for t in EXPECTED_BLAZING_METERS.values()), Fraction(0))
        assert Fraction(long_run) == Fraction(RTP_BLACKJACK_SIDE[(wager, name, decks)]) + rates, (wager, name, decks)


def _three_card_hand(cards, premium: set[int], declared: str) -> str:
    """The highest § 633b.17(g) row three cards make (Three Card Poker's hands, § 633a.6(e)(9):
    the ace high in Q-K-A or low in A-2-3, no K-A-2)."""
    ranks = sorted(r for r, _ in cards)
    suits = {s for _, s in cards}
    trips = len(set(ranks)) == 1
    straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
    if trips and len(suits) == 1 and ranks[0] in premium:
        return "DECLARED_SUIT" if suits == {declared} else "SUITED_PREMIUM"
    if trips and len(suits) == 1:
        return "SUITED_TRIPS"
    if straight and len(suits) == 1:
        return "STRAIGHT_FLUSH"
    if trips:
        return "TRIPS"
    if straight:
        return "STRAIGHT"
    return "FLUSH" if len(suits) == 1 else "NOTHING"


@functools.cache
def _three_card_counts(decks: int, premium: frozenset[int], declared: str) -> dict[str, int]:
    """Ways per § 633b.17(g) row for the player's two cards and the dealer's up card: every
    multiset of three cards from the shoe, Π C(decks, copies) ways each."""
    counts: dict[str, int] = {}
    for combo in itertools.combinations_with_replacement(range(52), 3):
        ways = 1
        for t in set(combo):
            ways *= comb(decks, combo.count(t))
        if ways:
            hand = _three_card_hand([_DECK[t] for t in combo], premium, declared)
            counts[hand] = counts.get(hand, 0) + ways
    assert sum(counts.values()) == comb(52 * decks, 3)
    return counts


def _twenty_one_plus_three_rtp(name: str, decks: int, declared: str = "s", wager_cents: int = 100) -> Fraction:
    """From THIS file's cells; the meter at its § 633b.17(h) seed ("$2000" at ``wager_cents``;
    "N/A": empty)."""
    cells, premium = EXPECTED_21_PLUS_3[name]
    seed_wagers, seed_cents, _, _ = EXPECTED_21_PLUS_3_METERS[name][decks]
    seed = Fraction(seed_wagers) if seed_wagers else Fraction(seed_cents or 0, wager_cents)
    pays = dict(zip(_H21, cells, strict=True))
    total = Fraction(0)
    for hand, ways in _three_card_counts(decks, frozenset(premium), declared).items():
        c = pays.get(hand, LOSS)
        if c != LOSS:
            total += ways * (seed if c[0] == "meter" else Fraction(c[1]))
    return total / comb(52 * decks, 3)


def test_twenty_one_plus_three_rtp_rederived_by_enumerating_three_cards():
    for (wager, name, decks), rtp in RTP_BLACKJACK_SIDE.items():
        if wager == "twenty-one-plus-three":
            assert _twenty_one_plus_three_rtp(name, decks) == Fraction(rtp), (name, decks)


def _value(c, seed: int = 0) -> Fraction:
    return Fraction(seed) if c[0] == "meter" else Fraction(c[1] + (1 if c[0] == "to" else 0))


def test_royal_match_and_kings_bounty_rtp_rederived_by_counting_two_card_hands():
    """Counted by hand over the unordered two-card hands of a shoe of N = 52·d cards, from THIS
    file's cells. Royal Match (§ 633b.18(m)): K-Q suited 4d² hands, a Crown Treasure when the
    dealer's two cards are a Royal Match too ((d-1)² + 3d² of C(N-2, 2) given the player's); a
    two-card straight flush 12 rank pairs per suit (A-2 … K-A, K-Q being the Royal Match), 48d²;
    the Envy Bonus 500 × P(Crown Treasure). King's Bounty B (§ 633b.19(d)): K♠ pair C(d, 2) (a
    dealer Blackjack 4d(16d-2) of C(N-2, 2)), other suited kings 3C(d, 2), suited Q/J/10 pairs
    12C(d, 2), other suited 20s 28d² (6 ten-value rank pairs and A-9, per suit), unsuited kings
    6d², other unsuited 20s 102d² (96d² ten-value pairs of two suits less the 6d² kings, and 12d²
    A-9)."""
    rm, (seed, *_) = EXPECTED_ROYAL_MATCH["A"], EXPECTED_ROYAL_MATCH_METER
    kb = EXPECTED_KINGS_BOUNTY["B"]
    for d in (6, 8):
        n, c = 52 * d, comb(d, 2)
        crown = Fraction((d - 1) ** 2 + 3 * d * d, comb(n - 2, 2))
        royal = (4 * d * d * (crown * _value(rm["CROWN_TREASURE"], seed) + (1 - crown) * _value(rm["ROYAL_MATCH"]))
                 + 48 * d * d * _value(rm["STRAIGHT_FLUSH"])) / comb(n, 2)
        assert royal == Fraction(RTP_BLACKJACK_SIDE[("royal-match", "A", d)]), d
        assert 500 * crown * 4 * d * d / comb(n, 2) == Fraction(RTP_ROYAL_MATCH_ENVY[d]) and cell(bj_paytables.ENVY_BONUS) == T(500)
        bj = Fraction(4 * d * (16 * d - 2), comb(n - 2, 2))
        kings = (c * (bj * _value(kb["KING_OF_SPADES_PAIR_DEALER_BLACKJACK"]) + (1 - bj) * _value(kb["KING_OF_SPADES_PAIR"]))
                 + 3 * c * _value(kb["SUITED_KINGS"]) + 12 * c * _value(kb["SUITED_QUEENS_JACKS_TENS"])
                 + 28 * d * d * _value(kb["SUITED_20"]) + 6 * d * d * _value(kb["PAIR_OF_KINGS"])
                 + 102 * d * d * _value(kb["ANY_20"])) / comb(n, 2)
        assert kings == Fraction(RTP_BLACKJACK_SIDE[("kings-bounty", "B", d)]), d


def _blazing_rtp(cells: dict, decks: int) -> Fraction:
    """The Blazing 7's wagers by enumerating the player's two cards and the dealer's up card from a
    shoe of ``decks`` decks (ordered draws without replacement), from THIS file's cells; a meter
    at its § 633b.21(g) seed."""
    classes = {("7", s): decks for s in "shdc"} | {("x", ""): 48 * decks}
    total, ret = 0, Fraction(0)
    for draw in itertools.product(classes, repeat=3):
        left, ways = dict(classes), 1
        for c in draw:
            ways *= left[c]
            left[c] -= 1
        if not ways:
            continue
        total += ways
        sevens = [c for c in draw[:2] if c[0] == "7"]
        if not sevens:
            continue
        if len(sevens) == 1:
            hand = "ONE_SEVEN"
        elif draw[2][0] != "7":
            hand = "TWO_SEVENS"
        else:
            suits = {c[1] for c in draw}
            if suits == {"d"}:
                hand = "THREE_DIAMONDS"
            elif len(suits) == 1:
                hand = "THREE_SAME_SUIT"
            elif suits <= {"d", "h"} or suits <= {"s", "c"}:
                hand = "THREE_SAME_COLOUR"
            else:
                hand = "THREE_SEVENS"
        c = cells[hand]
        value = Fraction(EXPECTED_BLAZING_METERS[c[1]][0]) if c[0] == "meter" else Fraction(c[1] + 1)
        ret += ways * value
    return ret / total


def test_blazing_sevens_rtp_rederived_by_enumeration():
    for decks in (6, 8):
        assert _blazing_rtp(EXPECTED_BLAZING_SEVENS["A"], decks) == Fraction(RTP_BLACKJACK_SIDE[("blazing-sevens", "A", decks)])
        for name in "AB":
            assert (_blazing_rtp(EXPECTED_BLAZING_SEVENS_MULTI[name], decks)
                    == Fraction(RTP_BLACKJACK_SIDE[("blazing-sevens-multi", name, decks)]))


# =========================================================================== poker side wagers § 653b, § 674b

EXPECTED_TRIPS = {"E": [("Royal flush", T(50)), ("Straight flush", T(40)), ("Four-of-a-kind", T(30)),
                        ("Full house", T(7)), ("Flush", T(6)), ("Straight", T(5)), ("Three-of-a-kind", T(3))]}
EXPECTED_BAD_BEAT = {"C": [("Straight flush", T(2500)), ("Four-of-a-kind", T(500)), ("Full house", T(50)),
                           ("Flush", T(30)), ("Straight", T(20)), ("Three-of-a-kind", T(9))]}


def _ptb(straight: int, trips: int) -> list:
    return [("Royal flush", T(1000)), ("Straight flush", T(200)), ("Four-of-a-kind", T(100)), ("Full house", T(50)),
            ("Flush", T(40)), ("Straight", T(straight)), ("Three-of-a-kind", T(trips)), ("Two pair", T(3)),
            ("Pair—10s or better", T(1))]


EXPECTED_PLAY_THE_BOARD = {"A": _ptb(25, 7), "B": _ptb(25, 6), "C": _ptb(20, 6)}

_UP_ROWS = ("Ace/ace and dealer ace/ace", "Ace of hearts and ace of diamonds", "Ace/ace", "Ace/king (suited)",
            "Ace/queen (suited) or player ace/jack (suited)", "Ace/king", "King/king, queen/queen or jack/jack",
            "Ace/queen or ace/jack", "Pair—10s or less")


def _pairs(*cells) -> list:
    """Rows of § 653b.5(f) / § 674b.1(f) in order; "n/a" rows dropped (they pay nothing)."""
    rows = _UP_ROWS if len(cells) == 9 else _UP_ROWS[1:]
    return [(r, c) for r, c in zip(rows, cells, strict=True) if c != NA]


#: § 653b.5(f): Ultimate Texas Hold 'Em Ultimate Pairs A–F.
EXPECTED_ULTIMATE_PAIRS = {
    "A": _pairs(NA, NA, T(30), T(25), T(20), T(15), T(10), T(5), T(3)),
    "B": _pairs(NA, NA, T(30), T(20), T(20), T(10), T(5), T(10), T(5)),
    "C": _pairs(NA, T(100), T(30), T(20), T(20), T(10), T(4), T(10), T(4)),
    "D": _pairs(NA, T(50), T(25), T(20), T(20), T(10), T(5), T(10), T(5)),
    "E": _pairs(NA, NA, T(25), T(20), T(20), T(10), T(5), T(10), T(5)),
    "F": _pairs(T(1000), NA, T(30), T(25), T(20), T(15), T(10), T(5), T(3)),
}
#: § 674b.1(f): Criss-Cross Poker Ultimate Pairs A–E (no dealer row).
EXPECTED_CRISS_CROSS_PAIRS = {
    "A": _pairs(NA, T(30), T(25), T(20), T(15), T(10), T(5), T(3)),
    "B": _pairs(NA, T(30), T(20), T(20), T(10), T(5), T(10), T(5)),
    "C": _pairs(T(100), T(30), T(20), T(20), T(10), T(4), T(10), T(4)),
    "D": _pairs(T(50), T(25), T(20), T(20), T(10), T(5), T(10), T(5)),
    "E": _pairs(NA, T(25), T(20), T(20), T(10), T(5), T(10), T(5)),
}

RTP_POKER_SIDE = {
    ("uth-trips", "E"): "2457001/2572780",
    ("uth-bad-beat (losing hand, player's or dealer's)", "C"): "3450297989/4138959825",
    ("uth-bad-beat (player's hand loses)", "C"): "3450297989/8277919650",
    ("play-the-board", "A"): "41969/43316", ("play-the-board", "B"): "205269/216580",
    ("play-the-board", "C"): "2209/2380",
    ("ultimate-pairs", "A"): "604/663", ("ultimate-pairs", "B"): "211/221", ("ultimate-pairs", "C"): "632/663",
    ("ultimate-pairs", "D"): "97/102", ("ultimate-pairs", "E"): "206/221", ("ultimate-pairs", "F"): "148562/162435",
    ("criss-cross-ultimate-pairs", "A"): "604/663", ("criss-cross-ultimate-pairs", "B"): "211/221",
    ("criss-cross-ultimate-pairs", "C"): "632/663", ("criss-cross-ultimate-pairs", "D"): "97/102",
    ("criss-cross-ultimate-pairs", "E"): "206/221",
}


def poker_mismatches(groups) -> list[str]:
    """Every way the poker paytables (title -> name -> PokerPaytable) differ from § 653b / § 674b."""
    out = []
    for title, expected in (("Trips", EXPECTED_TRIPS), ("Bad Beat", EXPECTED_BAD_BEAT),
                            ("Play the Board", EXPECTED_PLAY_THE_BOARD), ("Ultimate Pairs", EXPECTED_ULTIMATE_PAIRS),
                            ("Criss-Cross Ultimate Pairs", EXPECTED_CRISS_CROSS_PAIRS)):
        tables = groups[title]
        out += diff(f"{title} paytables", dict.fromkeys(expected, True), dict.fromkeys(tables, True))
        for name, rows in expected.items():
            if name in tables:
                got = [(r, cell(p)) for r, p in tables[name].rows]
                if got != rows:
                    out.append(f"{title} Paytable {name}: rows {got}, regulation {rows}")
    return out


def _poker_groups() -> dict:
    return {"Trips": dict(uth.TRIPS_PAYTABLES), "Bad Beat": dict(uth.BAD_BEAT_PAYTABLES),
            "Play the Board": dict(uth.PLAY_THE_BOARD_PAYTABLES), "Ultimate Pairs": dict(uth.ULTIMATE_PAIRS_PAYTABLES),
            "Criss-Cross Ultimate Pairs": dict(criss_cross.ULTIMATE_PAIRS_PAYTABLES)}


def test_poker_side_wager_cells_are_the_regulations():
    assert poker_mismatches(_poker_groups()) == []
    assert uth.ULTIMATE_PAIRS_PAYTABLES["F"].uses_dealer_cards
    assert not any(t.uses_dealer_cards for n, t in uth.ULTIMATE_PAIRS_PAYTABLES.items() if n != "F")


def test_poker_comparison_catches_a_changed_cell_and_a_missing_row():
    groups = _poker_groups()
    c = groups["Play the Board"]["C"]
    groups["Play the Board"]["C"] = replace(c, rows=tuple((r, ToOne(25) if r == "Straight" else p) for r, p in c.rows))
    d = groups["Criss-Cross Ultimate Pairs"]["D"]
    groups["Criss-Cross Ultimate Pairs"]["D"] = replace(d, rows=d.rows[1:])
    found = poker_mismatches(groups)
    assert len(found) == 2 and found[0].startswith("Play the Board Paytable C") and "Criss-Cross" in found[1]


@pytest.fixture(scope="module")
def poker_rtp():
    from rules.poker_side_rtp import rtp_table
    return {(e.wager, e.paytable): e for e in rtp_table()}


def test_poker_side_wager_rtp_is_pinned(poker_rtp):
    assert {k: str(e.rtp_exact) for k, e in poker_rtp.items()} == RTP_POKER_SIDE


def _return(c) -> Fraction:
    return Fraction(c[1] + 1)


def test_trips_and_play_the_board_rtp_rederived_from_published_hand_counts():
    """Trips reads the best five of the player's seven cards; Play the Board the five community
    cards. The counts are the standard ones (C(52, 7) = 133,784,560 seven-card and C(52, 5) =
    2,598,960 five-card hands); a pair of tens or better is 5 of the 13 ranks of one pair."""
    seven = {"Royal flush": 4_324, "Straight flush": 37_260, "Four-of-a-kind": 224_848, "Full house": 3_473_184,
             "Flush": 4_047_644, "Straight": 6_180_020, "Three-of-a-kind": 6_461_620}
    rtp = sum((_return(c) * seven[r] for r, c in EXPECTED_TRIPS["E"]), Fraction(0)) / comb(52, 7)
    assert rtp == Fraction(RTP_POKER_SIDE[("uth-trips", "E")])
    five = {"Royal flush": 4, "Straight flush": 36, "Four-of-a-kind": 624, "Full house": 3_744, "Flush": 5_108,
            "Straight": 10_200, "Three-of-a-kind": 54_912, "Two pair": 123_552, "Pair—10s or better": 1_098_240 * 5 // 13}
    for name, rows in EXPECTED_PLAY_THE_BOARD.items():
        rtp = sum((_return(c) * five[r] for r, c in rows), Fraction(0)) / comb(52, 5)
        assert rtp == Fraction(RTP_POKER_SIDE[("play-the-board", name)]), name


def _pairs_row_matches(row: str, a, b) -> bool:
    ranks, suited = {a[0], b[0]}, a[1] == b[1]
    pair = a[0] == b[0]
    return {
        "Ace of hearts and ace of diamonds": {a, b} == {(14, "h"), (14, "d")},
        "Ace/ace": pair and a[0] == 14,
        "Ace/king (suited)": ranks == {14, 13} and suited,
        "Ace/queen (suited) or player ace/jack (suited)": ranks in ({14, 12}, {14, 11}) and suited,
        "Ace/king": ranks == {14, 13},
        "King/king, queen/queen or jack/jack": pair and a[0] in (11, 12, 13),
        "Ace/queen or ace/jack": ranks in ({14, 12}, {14, 11}),
        "Pair—10s or less": pair and a[0] <= 10,
    }[row]


def _pairs_rtp(rows: list) -> Fraction:
    """Over the 1,326 two-card hands of one deck, each paid at the best row it makes; the "dealer
    ace/ace" row (F) pays when the dealer's two cards (from the other 50) are the last two aces."""
    total = Fraction(0)
    hands = list(itertools.combinations(_DECK, 2))
    dealer_aa = Fraction(1, comb(50, 2))
    for a, b in hands:
        paying = [_return(c) for r, c in rows if r != _UP_ROWS[0] and _pairs_row_matches(r, a, b)]
        best = max(paying, default=Fraction(0))
        if a[0] == b[0] == 14 and rows[0][0] == _UP_ROWS[0]:
            best = dealer_aa * max(best, _return(rows[0][1])) + (1 - dealer_aa) * best
        total += best
    return total / len(hands)


def test_ultimate_pairs_rtp_rederived_by_enumerating_two_cards():
    for name, rows in EXPECTED_ULTIMATE_PAIRS.items():
        assert _pairs_rtp(rows) == Fraction(RTP_POKER_SIDE[("ultimate-pairs", name)]), name
    for name, rows in EXPECTED_CRISS_CROSS_PAIRS.items():
        assert _pairs_rtp(rows) == Fraction(RTP_POKER_SIDE[("criss-cross-ultimate-pairs", name)]), name


# =========================================================================== Crazy Time § 690

#: § 690.4(a).
EXPECTED_CRAZY_TIME_ODDS = {"1": T(1), "2": T(2), "5": T(5), "10": T(10), "coin-flip": T(2), "cash-hunt": T(5),
                            "pachinko": T(2), "crazy-time": T(15)}
#: § 690.1(b), clockwise ("CF" Coin Flip, "CH" Cash Hunt, "PA" Pachinko, "CT" Crazy Time World).
EXPECTED_WHEEL = ("1 2 5 1 2 PA 1 5 1 2 1 CF 1 2 1 10 2 CH 1 2 1 5 1 CF 1 5 2 10 1 PA 1 2 5 1 2 CF "
                  "1 10 1 5 1 CH 1 2 5 1 2 CF 2 1 10 2 1 CT").split()
#: § 690.1(a).
EXPECTED_SECTION_COUNTS = {"1": 21, "2": 13, "5": 7, "10": 4, "CF": 4, "CH": 2, "PA": 2, "CT": 1}
_SYMBOL = {"coin-flip": "CF", "cash-hunt": "CH", "pachinko": "PA", "crazy-time": "CT"}


def test_crazy_time_paytable_wheel_and_top_slot_are_the_regulations():
    assert {str(s): cell(o) for s, o in crazy_time.BASE_ODDS.items()} == EXPECTED_CRAZY_TIME_ODDS
    wheel = [_SYMBOL.get(str(s), str(s)) for s in crazy_time.WHEEL_SECTIONS]
    assert wheel == EXPECTED_WHEEL
    assert {_SYMBOL.get(str(s), str(s)): n for s, n in crazy_time.SECTION_COUNTS.items()} == EXPECTED_SECTION_COUNTS
    assert sum(EXPECTED_SECTION_COUNTS.values()) == len(EXPECTED_WHEEL) == 54
    assert {w: EXPECTED_WHEEL.count(w) for w in EXPECTED_SECTION_COUNTS} == EXPECTED_SECTION_COUNTS
    # § 690.3(b): reel 1 the eight betting options, reel 2 the multipliers
    assert [str(s) for s in crazy_time.TOP_SLOT_REEL1] == list(EXPECTED_CRAZY_TIME_ODDS)
    assert crazy_time.TOP_SLOT_REEL2 == (1, 2, 3, 4, 5, 7, 10, 15, 20)
    assert crazy_time.BONUS_SPOTS == {crazy_time.Spot(s) for s in _SYMBOL}
    # § 690.4(c)'s example: 7× on the 5 pays 35 to 1
    top = crazy_time.TopSlotOutcome(crazy_time.Spot.FIVE, 7, True)
    assert cell(crazy_time.winning_odds(crazy_time.Spot.FIVE, top)) == T(35)


#: the number wagers' exact RTP under the packaged reference Rules Submission
#: (rules/data/crazy_time_reference.toml), as ``croupier rtp crazy-time`` reports it
RTP_CRAZY_TIME_NUMBERS = {"1": "960799/1000000", "2": "1439243/1500000", "5": "2586059/2700000", "10": "430783/450000"}
#: that submission's Top Slot (§ 690.3): P(the reels align), reel 1 and reel 2 weights
REFERENCE_TOP_SLOT = (Fraction(86398, 100000),
                      {"1": 20462, "2": 21426, "5": 12076, "10": 8363, "coin-flip": 6987, "cash-hunt": 6035,
                       "pachinko": 6045, "crazy-time": 5004},
                      {1: 30, 2: 25, 3: 15, 4: 10, 5: 8, 7: 5, 10: 4, 15: 2, 20: 1})


def test_crazy_time_number_wagers_rtp_pinned_and_rederived():
    """A number wager s wins on its sections (§ 690.1(a) counts of 54) at its § 690.4(a) odds times
    the Top Slot multiplier applied to s (§ 690.4(c)): m when the reels align on s, else 1. So
    RTP(s) = n_s/54 · (1 + odds_s · (1 + P(align)·P(reel 1 = s)·(E[reel 2] − 1))), from THIS
    file's cells and the submission's Top Slot as transcribed above."""
    from importlib import resources

    from rules.rtp import crazy_time_rtp
    from rules.submission import parse_rules_submission
    text = resources.files("rules").joinpath("data/crazy_time_reference.toml").read_text(encoding="utf-8")
    sub = parse_rules_submission(text)
    align, reel1, reel2 = REFERENCE_TOP_SLOT
    assert sub.top_slot.align_probability == align
    assert {str(k): v for k, v in sub.top_slot.reel1_weights.items()} == reel1
    assert {int(k): v for k, v in sub.top_slot.reel2_weights.items()} == reel2
    got = {w.wager: w.rtp_exact for w in crazy_time_rtp(sub)}
    e_m = Fraction(sum(m * w for m, w in reel2.items()), sum(reel2.values()))
    for s, rtp in RTP_CRAZY_TIME_NUMBERS.items():
        assert got[s] == Fraction(rtp), s
        odds = EXPECTED_CRAZY_TIME_ODDS[s][1]
        applied = 1 + align * Fraction(reel1[s], sum(reel1.values())) * (e_m - 1)
        assert Fraction(EXPECTED_SECTION_COUNTS[s], 54) * (1 + odds * applied) == Fraction(rtp), s
