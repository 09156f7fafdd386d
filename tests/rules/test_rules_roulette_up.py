"""Roulette Up (§ 617b.4): the wheel order, the paytables as transcribed, the streak tracker, the
settlement and the exact RTP (checked by closed form and by a quick Monte Carlo)."""

import re
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
from test_paytables_literal import RTP_ROULETTE_UP

from rules.odds import ForOne, ToOne
from rules.roulette import DOUBLE_ZERO, POCKETS, RED_NUMBERS, Wheel, colour, parse_pocket, pockets, streak_rank
from rules.roulette_up import (
    LOSS, METER, NON_PROGRESSIVE_ROWS, PAYTABLES, PROGRESSIVE_ROWS, PUSH, EndReason, StreakState, paytable,
    roulette_up_rtp, roulette_up_rtp_table, settle_streak, streak_length_distribution, track,
)

BULLETIN = Path(__file__).resolve().parents[3] / "shared" / "regulations" / "pa-bulletin-54-1537-table-games-and-crazy-time.txt"


# --------------------------------------------------------------------------- the wheel

def test_wheels_and_order():
    assert len(pockets(Wheel.SINGLE_ZERO)) == 37 and len(pockets(Wheel.DOUBLE_ZERO)) == 38
    assert DOUBLE_ZERO not in pockets("single-zero") and pockets("double-zero")[:3] == (0, "00", 1)
    assert len(RED_NUMBERS) == 18 and colour(0) == colour("00") == "green" and colour(1) == "red" and colour(2) == "black"
    # § 617b.4(g)(1)(ii): "00 shall be deemed to be greater than 0, but less than 1"
    assert streak_rank(0) < streak_rank("00") < streak_rank(1) < streak_rank(36)
    for wheel, ps in POCKETS.items():
        assert [streak_rank(p) for p in ps] == sorted(streak_rank(p) for p in ps), wheel


def test_parse_pocket():
    assert parse_pocket("00", "double-zero") == "00" and parse_pocket("0", "double-zero") == 0
    assert parse_pocket("17", "single-zero") == 17 and parse_pocket(36, "single-zero") == 36
    for bad, wheel in [("00", "single-zero"), (37, "double-zero"), (-1, "double-zero"), ("07", "single-zero"),
                       (True, "single-zero"), ("x", "double-zero")]:
        with pytest.raises(ValueError, match="no number"):
            parse_pocket(bad, wheel)


# --------------------------------------------------------------------------- paytables

def test_paytable_transcription_counts():
    assert sorted(PAYTABLES) == ["1", "2", "3", "4", "5", "6", "7", "A", "B", "C", "D", "E"]
    non = [PAYTABLES[n] for n in "ABCDE"]
    prog = [PAYTABLES[n] for n in "1234567"]
    assert all(t.progressive is None and t.longest == 8 and len(t.pays) == 8 for t in non)
    assert [t.longest for t in prog] == [9, 9, 9, 8, 8, 8, 8]
    assert sum(len(t.pays) for t in non) == 40 and sum(len(t.pays) for t in prog) == 3 * 9 + 4 * 8
    # every payout type counted, table by table
    def kinds(t):
        return (sum(isinstance(p, ToOne) for p in t.pays.values()), sum(isinstance(p, ForOne) for p in t.pays.values()),
                sum(p == PUSH for p in t.pays.values()), sum(p == LOSS for p in t.pays.values()),
                sum(p == METER for p in t.pays.values()))
    assert [kinds(t) for t in non] == [(6, 0, 0, 2, 0), (6, 0, 1, 1, 0), (6, 0, 0, 2, 0), (5, 0, 0, 3, 0), (6, 0, 1, 1, 0)]
    assert [kinds(t) for t in prog] == [(0, 4, 0, 4, 1), (0, 4, 0, 4, 1), (0, 5, 0, 3, 1), (0, 5, 0, 2, 1),
                                        (0, 5, 0, 2, 1), (0, 4, 0, 3, 1), (0, 4, 0, 3, 1)]


def test_paytable_values_spot_checks():
    assert paytable("A").pays[8] == ToOne(400) and paytable("D").pays[8] == ToOne(800)
    assert paytable("B").pays[2] == PUSH and paytable("E").pays[2] == PUSH and paytable("E").pays[3] == ToOne(1)
    assert paytable("D").pays[3] == LOSS and paytable("C").pays[3] == ToOne(3)
    p1, p4, p7 = paytable("1"), paytable("P4"), paytable("7")
    assert p1.pays[9] == METER and p1.pays[8] == ForOne(3000) and p1.pays[5] == ForOne(25) and p1.pays[4] == LOSS
    assert p4.pays[8] == METER and p4.pays[3] == ForOne(2) and 9 not in p4.pays
    assert p1.progressive.seed_multiple == 10000 and p1.progressive.increment_rate == Fraction(20, 100)
    assert p1.progressive.reserve_rate == Fraction(4, 100)
    assert paytable("3").progressive.increment_rate == Fraction(18, 100) and paytable("3").pays[4] == ForOne(10)
    assert p4.progressive.seed_multiple == 3000 and p4.progressive.reserve_rate == Fraction(5, 100)
    assert p7.progressive.increment_rate == Fraction(19, 100) and p7.progressive.reserve_rate is None
    with pytest.raises(ValueError, match="A–E and progressive 1–7"):
        paytable("F")


@pytest.mark.skipif(not BULLETIN.exists(), reason="regulation text not available")
def test_transcription_matches_the_bulletin_row_by_row():
    text = BULLETIN.read_text(encoding="utf-8")
    section = text[text.index("§ 617b.4. Roulette Up."):text.index("§ 617b.5. Roulette X.")]
    rows = [line for line in section.splitlines() if re.match(r"\| \d \|", line)]
    assert rows[:8] == NON_PROGRESSIVE_ROWS.strip().splitlines()
    expected = [line for name in "1234567" for line in PROGRESSIVE_ROWS[name].strip().splitlines()]
    assert rows[8:] == expected


# --------------------------------------------------------------------------- the streak

def test_starting_number_is_box_one_and_wagers_close():
    s = StreakState.start("double-zero", "A")
    assert s.wagers_open and s.length == 0 and not s.ended
    s = s.add(5)  # § 617b.4(f)
    assert s.length == 1 and not s.wagers_open and not s.ended  # § 617b.4(d)


def test_greater_moves_to_next_box_equal_ends():
    s = track("single-zero", "A", [3, 7, 20, 20, 35])
    assert s.length == 3 and s.ended and s.end_reason is EndReason.NOT_GREATER and s.numbers == (3, 7, 20, 20)
    s = track("single-zero", "A", [10, 4])
    assert s.length == 1 and s.end_reason is EndReason.NOT_GREATER
    with pytest.raises(ValueError, match="already ended"):
        s.add(30)


def test_36_counts_and_ends():
    s = track("double-zero", "A", [30, 36])
    assert s.length == 2 and s.end_reason is EndReason.THIRTY_SIX
    s = track("double-zero", "A", [36])
    assert s.length == 1 and s.end_reason is EndReason.THIRTY_SIX


def test_double_zero_order():
    s = track("double-zero", "A", [0, "00", 1, 2, 0])
    assert s.length == 4 and s.end_reason is EndReason.NOT_GREATER
    assert track("double-zero", "A", ["00", 0]).length == 1
    assert track("double-zero", "A", ["00", "00"]).length == 1
    with pytest.raises(ValueError, match="no number"):
        StreakState.start("single-zero", "A").add("00")


def test_longest_streak_of_the_paytable_ends_it():
    s = track("single-zero", "A", range(1, 20))
    assert s.length == 8 and s.end_reason is EndReason.LONGEST and s.numbers == tuple(range(1, 9))
    s = track("single-zero", "1", range(1, 20))
    assert s.length == 9 and s.end_reason is EndReason.LONGEST
    s = track("single-zero", "4", range(1, 20))  # length 9 is "n/a" on progressive 4–7
    assert s.length == 8 and s.end_reason is EndReason.LONGEST


# --------------------------------------------------------------------------- settlement

def test_settlement():
    assert settle_streak("A", track("single-zero", "A", range(1, 20)), 100).returned_cents == 100 + 40000
    assert settle_streak("B", 2, 100).returned_cents == 100  # push
    assert settle_streak("A", 2, 100).returned_cents == 0 and settle_streak("A", 2, 100).win_cents == -100
    assert settle_streak("E", 3, 100).returned_cents == 200  # 1 to 1
    assert settle_streak("1", 5, 100).returned_cents == 2500  # 25 for 1: stake included
    assert settle_streak("1", 9, 100, meter_cents=1234567).returned_cents == 1234567
    with pytest.raises(ValueError, match="meter_cents"):
        settle_streak("4", 8, 100)
    with pytest.raises(ValueError, match="has not"):
        settle_streak("A", StreakState.start("single-zero", "A").add(3), 100)
    with pytest.raises(ValueError, match="no streak of length 9"):
        settle_streak("A", 9, 100)


# --------------------------------------------------------------------------- exact RTP

@pytest.mark.parametrize("wheel", list(Wheel))
@pytest.mark.parametrize("longest", [1, 2, 8, 9, 37, 40])
def test_length_distribution_sums_to_one_and_matches_closed_form(wheel, longest):
    dist = streak_length_distribution(wheel, longest)
    assert sum(dist.values()) == 1 and all(isinstance(p, Fraction) for p in dist.values())
    n = len(pockets(wheel))
    for k in dist:  # P(length ≥ k) = C(N, k)/N^k: the first k numbers strictly increasing
        assert sum(p for j, p in dist.items() if j >= k) == Fraction(comb(n, k), n**k)


def test_every_rtp_pinned_and_json():
    """Each of the 24 RTPs is the literal fraction pinned in test_paytables_literal (a range such
    as 0 < rtp < 1.2 could not fail)."""
    entries = roulette_up_rtp_table()
    assert len(entries) == 24
    for e in entries:
        j = e.to_json()
        assert {"wager", "rtp", "rtp_exact", "method"} <= set(j) and j["method"] == "exact"
        rtp, long_run = RTP_ROULETTE_UP[(e.wager.split()[-1], str(e.wheel))]
        assert e.rtp_exact == Fraction(rtp), j
        assert Fraction(j["rtp_exact"]) == e.rtp_exact
        if e.rtp_long_run_exact is not None:
            assert e.rtp_long_run_exact == Fraction(long_run), j
            assert e.rtp_long_run_exact == e.rtp_exact + e.increment_rate


def _monte_carlo(name, wheel, trials, seed):
    t = paytable(name)
    ranks = np.array([streak_rank(p) for p in pockets(wheel)])
    rng = np.random.default_rng(seed)
    r = ranks[rng.integers(0, len(ranks), size=(trials, t.longest))]
    up = np.cumprod(r[:, 1:] > r[:, :-1], axis=1)  # leading increases (36 can never be exceeded)
    lengths = 1 + up.sum(axis=1)
    seed_multiple = t.progressive.seed_multiple if t.progressive else 0
    value = {k: float(settle_streak(t, k, 100, meter_cents=100 * seed_multiple).returned_cents) / 100 for k in t.pays}
    returns = np.vectorize(value.get)(lengths)
    # the vectorized lengths agree with the tracker on a sample
    for row, k in zip(r[:300], lengths[:300], strict=True):
        ps = pockets(wheel)
        numbers = [ps[int(np.flatnonzero(ranks == x)[0])] for x in row]
        assert track(wheel, t, numbers).length == k
    return returns.mean(), returns.std(ddof=1) / np.sqrt(trials)


@pytest.mark.parametrize(("name", "wheel"), [("A", "double-zero"), ("E", "single-zero"), ("4", "double-zero")])
def test_exact_rtp_matches_monte_carlo(name, wheel):
    (entry,) = roulette_up_rtp(name, wheel)
    mean, se = _monte_carlo(name, wheel, 400_000, seed=617_4)
    assert abs(mean - float(entry.rtp_exact)) < 4 * se, (mean, se, float(entry.rtp_exact))


# --------------------------------------------------------------------------- the progressive system's meter

CODE = Path(__file__).resolve().parents[3] / "shared" / "regulations" / "58-pa-code-617b4-roulette-up.txt"


@pytest.mark.parametrize("name, seed_multiple, increment, reserve", [
    ("P1", 10_000, "1/5", "1/25"), ("P2", 10_000, "1/5", "1/25"), ("P3", 10_000, "9/50", "1/25"),
    ("P4", 3_000, "9/50", "1/20"), ("P5", 3_000, "9/50", "1/20"), ("P6", 3_000, "9/50", "1/20"),
    ("P7", 3_000, "19/100", "0"),  # reserve rate "n/a"
])
def test_the_meter_of_each_progressive_row(name, seed_multiple, increment, reserve):
    """§ 617b.4(h)(2): "Seed/Reseed | N* the progressive wager | Incrementation | Reserve Rate" —
    one cell for the seed and the reseed."""
    from rules.roulette_up import UP_METER, meter_spec

    m = meter_spec(name, 500)
    assert m == {"name": UP_METER, "seed_cents": seed_multiple * 500, "reseed_cents": seed_multiple * 500,
                 "increment_rate": increment, "reserve_rate": reserve}
    if CODE.exists():  # the Code text's row for this paytable
        text = " ".join(CODE.read_text(encoding="utf-8").split())
        block = text.split(f"Progressive Paytable {name[1]} |")[1]
        seed, inc, res = re.search(r"\| ([\d,]+)\* the progressive wager \| ([\d]+%|n/a) \| ([\d]+%|n/a) \|",
                                   block).groups()
        assert int(seed.replace(",", "")) == seed_multiple
        assert Fraction(int(inc[:-1]), 100) == Fraction(increment)
        assert (Fraction(0) if res == "n/a" else Fraction(int(res[:-1]), 100)) == Fraction(reserve)


def test_a_non_progressive_paytable_has_no_meter():
    from rules.roulette_up import meter_spec

    with pytest.raises(ValueError, match="not progressive"):
        meter_spec("C", 100)
    with pytest.raises(ValueError, match="positive"):
        meter_spec("P1", 0)
