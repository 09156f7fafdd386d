"""Criss-Cross Poker Ultimate Pairs (§ 674b.1): the paytables as transcribed, settlement on the
player's two cards, the exact RTP (every two-card hand) and a quick Monte Carlo."""

from fractions import Fraction
from math import sqrt
from pathlib import Path

import numpy as np
import pytest

from rules import criss_cross
from rules.cards import deck
from rules.odds import ToOne
from rules.poker_side_rtp import RTP_WAGERS, criss_cross_ultimate_pairs_rtp, ultimate_pairs_rtp

BULLETIN = Path(__file__).resolve().parents[3] / "shared" / "regulations" / "pa-bulletin-54-1537-table-games-and-crazy-time.txt"


@pytest.mark.skipif(not BULLETIN.exists(), reason="regulation text not available")
def test_transcription_is_the_bulletins_rows():
    text = BULLETIN.read_text(encoding="utf-8")
    start = text.index("§ 674b.1. Ultimate Pairs wager.")
    section = text[start:text.index("CHAPTER 690.", start)]
    assert criss_cross.ULTIMATE_PAIRS_ROWS.strip() in section


def test_paytables():
    tables = criss_cross.ULTIMATE_PAIRS_PAYTABLES
    assert list(tables) == list("ABCDE")
    assert [len(t.rows) for t in tables.values()] == [7, 7, 8, 8, 7]
    assert tables["C"].payout("Ace of hearts and ace of diamonds") == ToOne(100)
    assert tables["D"].payout("Ace of hearts and ace of diamonds") == ToOne(50)
    assert [tables[n].payout("Ace/ace") for n in "ABCDE"] == [ToOne(k) for k in (30, 30, 30, 25, 25)]
    assert tables["A"].payout("Ace/queen or ace/jack") == ToOne(5)
    assert not any(t.uses_dealer_cards for t in tables.values())
    assert criss_cross.paytable("paytable b") is tables["B"]
    with pytest.raises(ValueError, match="A, B, C, D, E"):
        criss_cross.paytable("F")  # § 674b.1(f) has no paytable F (UTH's dealer ace/ace row)


def test_settlement_reads_the_players_two_cards():
    s = criss_cross.settle_ultimate_pairs("C", "Ad Ah", 200)
    assert s.row == "Ace of hearts and ace of diamonds" and s.returned_cents == 200 + 100 * 200
    assert s.wager == "Criss-Cross Ultimate Pairs" and s.paytable == "C"
    assert criss_cross.settle_ultimate_pairs("E", "Ad Ah", 100).returned_cents == 2600  # ace/ace on E
    assert criss_cross.settle_ultimate_pairs("B", "Kc Ac", 100).row == "Ace/king (suited)"
    assert criss_cross.settle_ultimate_pairs("A", "Ts Th", 100).returned_cents == 400
    s = criss_cross.settle_ultimate_pairs("A", "Ts 9h", 100)
    assert s.row is None and s.returned_cents == 0 and s.win_cents == -100
    with pytest.raises(ValueError, match="2 cards"):
        criss_cross.settle_ultimate_pairs("A", "Ts 9h 8c", 100)


def test_rtp_is_the_uth_paytables():
    """§ 674b.1(f) A–E are the same rows and odds as § 653b.5(f) A–E (without the dealer row)."""
    for name in "ABCDE":
        cc, up = criss_cross_ultimate_pairs_rtp(name), ultimate_pairs_rtp(name)
        assert cc.rtp_exact == up.rtp_exact and cc.total == 1326 and cc.wager == "criss-cross-ultimate-pairs"
    assert criss_cross_ultimate_pairs_rtp("B").rtp_exact == Fraction(211, 221)
    with pytest.raises(ValueError, match="one 52-card deck"):
        RTP_WAGERS["criss-cross-ultimate-pairs"]("A", 2)
    assert [e.paytable for e in RTP_WAGERS["criss-cross-ultimate-pairs"](None, 1)] == list("ABCDE")


def test_rtp_against_monte_carlo():
    rng = np.random.default_rng(674)
    d = deck()
    n = 20000
    for name in "AC":
        e = criss_cross_ultimate_pairs_rtp(name)
        t = criss_cross.paytable(name)
        total = 0
        for _ in range(n):
            i, j = rng.choice(52, size=2, replace=False)
            total += criss_cross.settle_ultimate_pairs(name, (d[i], d[j]), 1).returned_cents
        second = sum(k * (1 + t.payout(r).ratio) ** 2 for r, k in e.outcomes.items() if r != "loses")
        se = sqrt(float(Fraction(second, e.total) - e.rtp_exact ** 2) / n)
        assert abs(total / n - float(e.rtp_exact)) < 4 * se, name
