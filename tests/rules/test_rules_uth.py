"""Ultimate Texas Hold 'Em side wagers (§§ 653b.2–653b.5): the paytables as transcribed, settlement
edge cases from the text, the exact counts and RTP (rules.poker_side_rtp), checked against
published counts, independent derivations and Monte Carlo."""

import os
from fractions import Fraction
from math import comb, sqrt
from pathlib import Path

import numpy as np
import pytest
from test_paytables_literal import RTP_POKER_SIDE

from rules import uth
from rules.cards import deck
from rules.odds import ToOne
from rules.poker import category_counts, pair_rank_counts
from rules.poker_side_rtp import (
    PAYTABLES_OF, RTP_WAGERS, UTH_DEALS, SideWagerRtp, bad_beat_rtp, counts_from_toml, counts_to_toml,
    derive_uth_counts, play_the_board_rtp, rtp_table, trips_rtp, ultimate_pairs_rtp, uth_counts,
    uth_counts_provenance,
)
from rules.uth import (
    BAD_BEAT_PAYTABLES, PLAY_THE_BOARD_PAYTABLES, TRIPS_PAYTABLES, ULTIMATE_PAIRS_PAYTABLES, BadBeatReading,
    parse_table_rows, settle_bad_beat, settle_play_the_board, settle_trips, settle_ultimate_pairs,
)

BULLETIN = Path(__file__).resolve().parents[3] / "shared" / "regulations" / "pa-bulletin-54-1537-table-games-and-crazy-time.txt"
LOSING, PLAYER = BadBeatReading.LOSING_HAND, BadBeatReading.PLAYER_LOSES


def _section(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i:text.index(end, i)]


# --------------------------------------------------------------------------- paytables

@pytest.mark.skipif(not BULLETIN.exists(), reason="regulation text not available")
@pytest.mark.parametrize("rows, start, end", [
    (uth.TRIPS_ROWS, "§ 653b.2. Trips", "§ 653b.3."),
    (uth.BAD_BEAT_ROWS, "§ 653b.3. Bad Beat", "§ 653b.4."),
    (uth.PLAY_THE_BOARD_ROWS, "§ 653b.4. Play the Board", "§ 653b.5."),
    (uth.ULTIMATE_PAIRS_ROWS, "§ 653b.5. Ultimate Pairs", "CHAPTER 674b"),
])
def test_transcription_is_the_bulletins_rows(rows, start, end):
    section = _section(BULLETIN.read_text(encoding="utf-8"), start, end)
    assert rows.strip() in section


def test_paytable_spot_checks():
    assert list(TRIPS_PAYTABLES) == ["E"] and list(BAD_BEAT_PAYTABLES) == ["C"]
    assert list(PLAY_THE_BOARD_PAYTABLES) == ["A", "B", "C"] and list(ULTIMATE_PAIRS_PAYTABLES) == list("ABCDEF")
    e = TRIPS_PAYTABLES["E"]
    assert e.payout("Royal flush") == ToOne(50) and e.payout("Full house") == ToOne(7)
    assert e.payout("Three-of-a-kind") == ToOne(3) and len(e.rows) == 7
    c = BAD_BEAT_PAYTABLES["C"]
    assert c.payout("Straight flush") == ToOne(2500) and c.payout("Three-of-a-kind") == ToOne(9) and len(c.rows) == 6
    ptb = PLAY_THE_BOARD_PAYTABLES
    assert [ptb[n].payout("Straight") for n in "ABC"] == [ToOne(25), ToOne(25), ToOne(20)]
    assert [ptb[n].payout("Three-of-a-kind") for n in "ABC"] == [ToOne(7), ToOne(6), ToOne(6)]
    assert all(ptb[n].payout("Royal flush") == ToOne(1000) and ptb[n].payout("Pair—10s or better") == ToOne(1)
               for n in "ABC")
    up = ULTIMATE_PAIRS_PAYTABLES
    assert up["F"].payout("Ace/ace and dealer ace/ace") == ToOne(1000) and up["F"].uses_dealer_cards
    assert not any(up[n].uses_dealer_cards for n in "ABCDE")
    assert up["C"].payout("Ace of hearts and ace of diamonds") == ToOne(100)
    assert up["D"].payout("Ace of hearts and ace of diamonds") == ToOne(50)
    # "n/a" rows are not on the paytable
    assert [len(up[n].rows) for n in "ABCDEF"] == [7, 7, 8, 8, 7, 8]
    with pytest.raises(ValueError, match="no row"):
        up["A"].payout("Ace of hearts and ace of diamonds")
    assert [up[n].payout("Ace/queen or ace/jack") for n in "ABCDEF"] == [ToOne(k) for k in (5, 10, 10, 10, 10, 5)]


def test_more_specific_rows_never_pay_less():
    """A hand on two rows is paid at the higher; on every paytable that is the more specific row."""
    pairs = [("Ace/ace and dealer ace/ace", "Ace/ace"), ("Ace of hearts and ace of diamonds", "Ace/ace"),
             ("Ace/king (suited)", "Ace/king"),
             ("Ace/queen (suited) or player ace/jack (suited)", "Ace/queen or ace/jack")]
    for t in ULTIMATE_PAIRS_PAYTABLES.values():
        rows = dict(t.rows)
        for specific, general in pairs:
            if specific in rows:
                assert rows[specific].ratio >= rows[general].ratio, (t.name, specific)


def test_bad_tables_fail_to_parse():
    with pytest.raises(ValueError, match="cells"):
        parse_table_rows("| Hand | Paytable A |\n|---|\n| Flush | 3 to 1 | 4 to 1 |")
    with pytest.raises(ValueError, match="payout cell"):
        parse_table_rows("| Hand | Paytable A |\n| Flush | 3 for 1 |")
    with pytest.raises(ValueError, match="no poker hand category"):
        uth._category_tables("x", "§", "| Hand | Paytable A |\n| Five aces | 3 to 1 |")


# --------------------------------------------------------------------------- settlement

def test_trips_plays_the_board_and_pays_to_one():
    s = settle_trips("E", "2c 3d", "As Ks Qs Js Ts", 500)  # the player's hand is the board's royal
    assert s.row == "Royal flush" and s.payout == ToOne(50) and s.returned_cents == 500 + 50 * 500
    assert s.stake_returned and s.win_cents == 25000 and "royal flush" in s.hand
    s = settle_trips("e", "7c 7d", "7h 2s 9d Kc 4h", 500)
    assert s.row == "Three-of-a-kind" and s.returned_cents == 2000
    s = settle_trips("Paytable E", "7c 7d", "9h 2s 9d Kc 4h", 500)  # two pair: no row
    assert s.row is None and s.returned_cents == 0 and not s.stake_returned and s.win_cents == -500
    assert settle_trips("E", "Ah 2h", "3h 4h 5h 9c 9d", 100).row == "Straight flush"  # the wheel


def test_play_the_board_pair_of_tens_or_better():
    assert settle_play_the_board("A", "Tc Td 2h 5s 8c", 100).returned_cents == 200  # § 653b.4(e)
    s = settle_play_the_board("A", "9c 9d 2h 5s 8c", 100)
    assert s.row is None and s.returned_cents == 0 and "pair of 9s" in s.hand
    assert settle_play_the_board("C", "As Ad Kh 5s 8c", 100).row == "Pair—10s or better"
    assert [settle_play_the_board(n, "5c 6d 7h 8s 9c", 100).returned_cents for n in "ABC"] == [2600, 2600, 2100]
    assert settle_play_the_board("B", "5c 5d 7h 7s 9c", 100).returned_cents == 400
    assert settle_play_the_board("A", "As Ks Qs Js Ts", 1).returned_cents == 1001
    with pytest.raises(ValueError, match="5 community cards"):
        settle_play_the_board("A", "As Ks Qs Js", 1)


def test_bad_beat_losing_hand_and_readings():
    board = "9h Th Jh 9c 2d"
    # the player's four of a kind loses to the dealer's straight flush: paid on both readings
    for reading in BadBeatReading:
        s = settle_bad_beat("C", "9s 9d", "Qh Kh", board, 100, reading=reading)
        assert s.row == "Four-of-a-kind" and s.returned_cents == 100 + 500 * 100 and "player's hand" in s.hand
    # the dealer's full house loses to the player's four of a kind: only the losing-hand reading pays
    s = settle_bad_beat("C", "9s 9d", "Jc Js", board, 100, reading=LOSING)
    assert s.row == "Full house" and s.returned_cents == 5100 and "dealer's hand" in s.hand
    assert settle_bad_beat("C", "9s 9d", "Jc Js", board, 100, reading=PLAYER).row is None
    # the player's three of a kind loses: 9 to 1; the player's two pair loses: nothing
    assert settle_bad_beat("C", "9s Ac", "Jc Js", board, 100, reading=PLAYER).returned_cents == 1000
    assert settle_bad_beat("C", "2s Ac", "Jc Js", board, 100, reading=LOSING).row is None  # loses with two pair
    # the dealer's three of a kind loses to the player's flush: the losing-hand reading pays 9 to 1
    s = settle_bad_beat("C", "Qh 3h", "9s 4c", board, 100, reading=LOSING)
    assert s.row == "Three-of-a-kind" and s.returned_cents == 1000 and "dealer's hand" in s.hand
    assert settle_bad_beat("C", "Qh 3h", "9s 4c", board, 100, reading=PLAYER).row is None
    # three queens lose to a royal flush (which can never lose itself)
    assert settle_bad_beat("C", "Qs Qc", "Ah Kh", "Qh Jh Th 9c 3d", 100, reading=PLAYER).returned_cents == 1000
    # a tie loses: both play the board's straight flush
    s = settle_bad_beat("C", "2c 3c", "4d 5d", "9h Th Jh Qh Kh", 100, reading=LOSING)
    assert s.row is None and s.returned_cents == 0 and "tie" in s.hand
    with pytest.raises(TypeError):
        settle_bad_beat("C", "2c 3c", "4d 5d", board, 100)  # the reading must be chosen
    with pytest.raises(ValueError, match="twice"):
        settle_bad_beat("C", "9h 3c", "4d 5d", board, 100, reading=LOSING)


def test_ultimate_pairs_rows():
    assert settle_ultimate_pairs("C", "Ah Ad", 100).row == "Ace of hearts and ace of diamonds"
    assert settle_ultimate_pairs("C", "Ah Ad", 100).returned_cents == 10100
    assert settle_ultimate_pairs("A", "Ah Ad", 100).row == "Ace/ace"  # n/a on A: the hand is ace/ace
    assert settle_ultimate_pairs("A", "Ah Kh", 100).returned_cents == 2600
    assert settle_ultimate_pairs("A", "Ah Kc", 100).returned_cents == 1600
    assert settle_ultimate_pairs("A", "Qs As", 100).row == "Ace/queen (suited) or player ace/jack (suited)"
    assert settle_ultimate_pairs("A", "Jd Ac", 100).returned_cents == 600
    assert settle_ultimate_pairs("B", "Jd Jc", 100).row == "King/king, queen/queen or jack/jack"
    assert settle_ultimate_pairs("B", "Td Tc", 100).row == "Pair—10s or less"
    assert settle_ultimate_pairs("B", "2d 2c", 100).returned_cents == 600
    for hand in ("9d 8c", "Ad Tc", "Kd Qd", "As 2s"):
        s = settle_ultimate_pairs("B", hand, 100)
        assert s.row is None and s.returned_cents == 0
    # F: the dealer's two cards too (§ 653b.5(e))
    assert settle_ultimate_pairs("F", "Ah Ad", 100, dealer="Ac As").returned_cents == 100100
    assert settle_ultimate_pairs("F", "Ah Ad", 100, dealer="Kc As").row == "Ace/ace"
    assert settle_ultimate_pairs("A", "Ah Ad", 100, dealer="Ac As").row == "Ace/ace"  # A reads the player's only
    with pytest.raises(ValueError, match="dealer's two cards"):
        settle_ultimate_pairs("F", "Ah Ad", 100)
    with pytest.raises(ValueError, match="twice"):
        settle_ultimate_pairs("F", "Ah Ad", 100, dealer="Ah As")
    with pytest.raises(ValueError, match="A, B, C, D, E, F"):
        settle_ultimate_pairs("G", "Ah Ad", 100)
    with pytest.raises(ValueError, match="positive number of cents"):
        settle_ultimate_pairs("A", "Ah Ad", 0)


# --------------------------------------------------------------------------- exact counts

#: Published two-way Bad Beat frequencies (losing hand, all 2,781,381,002,400 ordered deals).
PUBLISHED_TWO_WAY = {"royal flush": 0, "straight flush": 10300592, "four of a kind": 471040512,
                     "full house": 8435225376, "flush": 19434208592, "straight": 18271076976,
                     "three of a kind": 64049759448, "two pair": 399099149640, "pair": 1366512556968,
                     "high card": 791967420480}
PUBLISHED_TIES = 113130263816


def test_cached_counts_totals_and_published_values():
    c = uth_counts()
    assert c.deals == UTH_DEALS == 2781381002400
    assert {k.label: 2 * v for k, v in c.player_loses.items()} == PUBLISHED_TWO_WAY
    assert c.ties == PUBLISHED_TIES and 2 * sum(c.player_loses.values()) + c.ties == UTH_DEALS
    assert sum(c.seven_card.values()) == comb(52, 7) and sum(c.board.values()) == comb(52, 5)
    prov = uth_counts_provenance()
    assert prov["evaluator"].startswith("phevaluator") and "derive_uth_counts" in prov["derived_by"]


def test_cached_counts_equal_the_combinatorial_derivation():
    """The cache's seven-card and board counts (evaluator enumeration) against rank multiset x suit
    pattern counting (no evaluator), ~1 s."""
    c = uth_counts()
    assert dict(c.seven_card) == category_counts(7)
    assert dict(c.board) == category_counts(5) and dict(c.board_pair_rank) == pair_rank_counts(5)


def test_cache_round_trips():
    c = uth_counts()
    again, prov = counts_from_toml(counts_to_toml(c, {"method": 'a "quoted" word'}))
    assert again == c and prov == {"method": 'a "quoted" word'}


@pytest.mark.slow
@pytest.mark.derivation
@pytest.mark.skipif(os.environ.get("CROUPIER_DERIVE") != "1",
                    reason="the whole enumeration (1–2 min): CROUPIER_DERIVE=1 make test")
def test_derivation_reproduces_the_cache():
    """The whole enumeration again (~1–2 min): every cached number."""
    assert derive_uth_counts() == uth_counts()


# --------------------------------------------------------------------------- exact RTP

def _from_counts(pays: dict[str, int], counts: dict[str, int], total: int) -> Fraction:
    return sum((Fraction(counts[h] * (1 + n), total) for h, n in pays.items()), Fraction(0))


def test_trips_rtp():
    counts7 = {"royal flush": 4324, "straight flush": 37260, "four of a kind": 224848, "full house": 3473184,
               "flush": 4047644, "straight": 6180020, "three of a kind": 6461620}
    pays = {"royal flush": 50, "straight flush": 40, "four of a kind": 30, "full house": 7, "flush": 6,
            "straight": 5, "three of a kind": 3}
    e = trips_rtp("E")
    assert e.rtp_exact == _from_counts(pays, counts7, comb(52, 7)) == Fraction(2457001, 2572780)
    assert e.to_json() == {"wager": "uth-trips", "rtp": float(e.rtp_exact), "rtp_exact": "2457001/2572780",
                           "method": "exact", "paytable": "E"}


def test_play_the_board_rtp():
    counts5 = {"royal flush": 4, "straight flush": 36, "four of a kind": 624, "full house": 3744, "flush": 5108,
               "straight": 10200, "three of a kind": 54912, "two pair": 123552, "tens or better": 5 * 84480}
    for name, straight, trips in (("A", 25, 7), ("B", 25, 6), ("C", 20, 6)):
        pays = {"royal flush": 1000, "straight flush": 200, "four of a kind": 100, "full house": 50, "flush": 40,
                "straight": straight, "three of a kind": trips, "two pair": 3, "tens or better": 1}
        assert play_the_board_rtp(name).rtp_exact == _from_counts(pays, counts5, comb(52, 5))
    assert play_the_board_rtp("C").rtp_exact == Fraction(2209, 2380)


def test_bad_beat_rtp_both_readings():
    pays = {"straight flush": 2500, "four of a kind": 500, "full house": 50, "flush": 30, "straight": 20,
            "three of a kind": 9}
    two_way = _from_counts(pays, PUBLISHED_TWO_WAY, UTH_DEALS)
    assert bad_beat_rtp("C", LOSING).rtp_exact == two_way == Fraction(3450297989, 4138959825)
    assert bad_beat_rtp("C", PLAYER).rtp_exact == two_way / 2
    e = bad_beat_rtp("C", "losing-hand")
    assert e.outcomes["Straight flush"] == 10300592 and sum(e.outcomes.values()) == UTH_DEALS


def test_ultimate_pairs_rtp_by_hand():
    # two-card hands of 1,326: AA 6 (red aces 1), AKs 4, AQs+AJs 8, AKo 12, KK/QQ/JJ 18, AQo+AJo 24, 22–TT 54
    n = {"AA": 6, "AKs": 4, "AQJs": 8, "AKo": 12, "KQJ": 18, "AQJo": 24, "low": 54}
    def rtp(aa, aks, aqjs, ako, kqj, aqjo, low, red=None):
        aces = (5 * (1 + aa) + 1 + red) if red else n["AA"] * (1 + aa)  # red aces: their own row, or ace/ace
        ret = aces + n["AKs"] * (1 + aks) + n["AQJs"] * (1 + aqjs) + n["AKo"] * (1 + ako) + n["KQJ"] * (1 + kqj) \
            + n["AQJo"] * (1 + aqjo) + n["low"] * (1 + low)
        return Fraction(ret, 1326)
    expect = {"A": rtp(30, 25, 20, 15, 10, 5, 3), "B": rtp(30, 20, 20, 10, 5, 10, 5),
              "C": rtp(30, 20, 20, 10, 4, 10, 4, red=100), "D": rtp(25, 20, 20, 10, 5, 10, 5, red=50),
              "E": rtp(25, 20, 20, 10, 5, 10, 5)}
    for name, value in expect.items():
        assert ultimate_pairs_rtp(name).rtp_exact == value, name
    # F is A's rows plus "Ace/ace and dealer ace/ace": P = 6/1326 · 1/1225, paid 1,000 instead of 30
    assert ultimate_pairs_rtp("F").rtp_exact == expect["A"] + Fraction(6, 1326) * Fraction(1, 1225) * (1000 - 30)
    assert ultimate_pairs_rtp("F").total == 1326 * 1225


def test_cli_entry_point():
    assert set(RTP_WAGERS) == set(PAYTABLES_OF) == {
        "uth-trips", "uth-bad-beat", "play-the-board", "ultimate-pairs", "criss-cross-ultimate-pairs"}
    assert PAYTABLES_OF["uth-trips"] == ("E",) and PAYTABLES_OF["ultimate-pairs"] == tuple("ABCDEF")
    (e,) = RTP_WAGERS["play-the-board"]("b", 1)
    assert isinstance(e, SideWagerRtp) and e.paytable == "B"
    assert set(e.to_json()) == {"wager", "rtp", "rtp_exact", "method", "paytable"}
    assert [x.paytable for x in RTP_WAGERS["ultimate-pairs"](None, None)] == list("ABCDEF")
    bb = RTP_WAGERS["uth-bad-beat"]("C", None)
    assert len(bb) == 2 and bb[0].rtp_exact == 2 * bb[1].rtp_exact and bb[0].wager != bb[1].wager
    with pytest.raises(ValueError, match="one 52-card deck"):
        RTP_WAGERS["uth-trips"]("E", 6)
    with pytest.raises(ValueError, match="one 52-card deck"):
        RTP_WAGERS["uth-trips"]("E", True)
    with pytest.raises(ValueError, match="no paytable 'A'.*E"):
        RTP_WAGERS["uth-trips"]("A", None)
    assert len(rtp_table()) == 1 + 2 + 3 + 6 + 5
    assert {(x.wager, x.paytable): str(x.rtp_exact) for x in rtp_table()} == RTP_POKER_SIDE  # pinned, not a range
    assert all(x.method == "exact" for x in rtp_table())


# --------------------------------------------------------------------------- Monte Carlo

def _variance(e: SideWagerRtp, table) -> float:
    second = sum(k * (1 + table.payout(r).ratio) ** 2 for r, k in e.outcomes.items() if r != "loses")
    return float(Fraction(second, e.total) - e.rtp_exact ** 2)


def _monte_carlo(n: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    d = deck()
    sums = dict.fromkeys(["trips", "ptb", "bb-losing", "bb-player", "up-f"], 0)
    for _ in range(n):
        idx = rng.choice(52, size=9, replace=False)
        player, dealer, board = [d[i] for i in idx[:2]], [d[i] for i in idx[2:4]], [d[i] for i in idx[4:]]
        sums["trips"] += settle_trips("E", player, board, 100).returned_cents
        sums["ptb"] += settle_play_the_board("A", board, 100).returned_cents
        sums["bb-losing"] += settle_bad_beat("C", player, dealer, board, 100, reading=LOSING).returned_cents
        sums["bb-player"] += settle_bad_beat("C", player, dealer, board, 100, reading=PLAYER).returned_cents
        sums["up-f"] += settle_ultimate_pairs("F", player, 100, dealer=dealer).returned_cents
    return {k: v / (100 * n) for k, v in sums.items()}


def _assert_within(mc: dict[str, float], n: int) -> None:
    exact = {"trips": (trips_rtp("E"), TRIPS_PAYTABLES["E"]),
             "ptb": (play_the_board_rtp("A"), PLAY_THE_BOARD_PAYTABLES["A"]),
             "bb-losing": (bad_beat_rtp("C", LOSING), BAD_BEAT_PAYTABLES["C"]),
             "bb-player": (bad_beat_rtp("C", PLAYER), BAD_BEAT_PAYTABLES["C"]),
             "up-f": (ultimate_pairs_rtp("F"), ULTIMATE_PAIRS_PAYTABLES["F"])}
    for k, (e, t) in exact.items():
        se = sqrt(_variance(e, t) / n)
        assert abs(mc[k] - float(e.rtp_exact)) < 4 * se, (k, mc[k], float(e.rtp_exact), se)


def test_rtp_against_monte_carlo_quick():
    _assert_within(_monte_carlo(6000, 1), 6000)


@pytest.mark.slow
@pytest.mark.soak  # ten times the quick one's hands, same 4-sigma bound: the soak tier
def test_rtp_against_monte_carlo_long():
    _assert_within(_monte_carlo(60000, 2), 60000)
