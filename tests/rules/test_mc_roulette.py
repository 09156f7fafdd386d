"""Roulette Up and Roulette X Monte Carlo kernels (issue 15): the streak as § 617b.4(f)–(g) words
it, the lit numbers of § 617b.5, and agreement with ``croupier rtp``'s exact RTP for EVERY wager
within the 99.9 % CI at a fixed seed."""

from __future__ import annotations

import numpy as np
import pytest

from hil.mc import run_mc
from rules.mc import GAMES
from rules.mc.roulette import play_streaks, roulette_x_spins
from rules.roulette_up import PAYTABLES


class _Scripted:
    """A generator that deals scripted numbers, in order (to pin the kernels' rule-reading)."""

    def __init__(self, *draws):
        self.draws = [np.asarray(d) for d in draws]

    def integers(self, low, high, size=None, dtype=np.int64):
        got = self.draws.pop(0)
        assert got.shape == np.shape(np.empty(size)), (got.shape, size)
        assert ((low <= got) & (got < high)).all()
        return got.astype(dtype)


def test_a_streak_grows_on_greater_numbers_and_ends_as_617b4_g2_says():
    # ranks on a single-zero wheel are the numbers; 36 is rank 36
    rng = _Scripted([5, 36, 10, 0],  # the starting numbers: 36 ends its streak at box 1
                    [7, 3, 1],       # 5→7 box 2; 10→3 ends (less); 0→1 box 2
                    [36, 1],         # 7→36 box 3 and ends (36 spun); 1→1 ends (equal)
                    )
    reached, spins = play_streaks(rng, 4, 37, 8)
    assert reached.tolist() == [4, 4, 2, 1, 0, 0, 0, 0, 0]
    assert spins == 4 + 3 + 2
    assert not rng.draws  # no spin dealt after the last streak ended


def test_double_zero_ranks_and_the_longest_streak_cap():
    # double zero wheel: rank 0 is 0, rank 1 is 00, rank n+1 is n; 0 → 00 → 1 continues (§ 617b.4(g)(1)(ii))
    rng = _Scripted([0], [1], [2])
    reached, spins = play_streaks(rng, 1, 38, 3)
    assert reached.tolist() == [1, 1, 1, 1] and spins == 3  # ends at the longest streak: no 4th spin


def test_roulette_up_settles_each_paytable_from_the_same_streaks():
    game = GAMES["roulette-up"]
    out = game.kernel(np.random.default_rng(3), 50_000, game.options(wheel="double"))
    assert set(out) == set(game.exact(game.options(wheel="double")))
    a, b = out["roulette-up A"], out["roulette-up B"]
    assert a.n == b.n == 50_000
    # A and B differ only where B pushes a streak of 2: B's hits are A's plus those pushes
    assert b.hits > a.hits


@pytest.mark.parametrize("wheel", ["single", "double"])
def test_every_roulette_up_wager_agrees_with_exact_rtp(wheel):
    game = GAMES["roulette-up"]
    options = game.options(wheel=wheel)
    res = run_mc("roulette-up", 4_000_000, 20261202, options, confidence=0.999)
    names = [w.wager for w in res.wagers]
    assert len(names) == len(PAYTABLES) == 12  # A–E and progressive 1–7
    for w in res.wagers:
        assert w.exact is not None and w.exact_in_ci, (wheel, w.to_json())
        assert w.tally.standard_error < 0.02  # the interval means something


@pytest.mark.parametrize("paytable, wheel", [("A", "single"), ("A", "double"), ("B", "double")])
def test_every_roulette_x_wager_agrees_with_exact_rtp(paytable, wheel):
    game = GAMES["roulette-x"]
    options = game.options(paytable=paytable, wheel=wheel)
    res = run_mc("roulette-x", 1_000_000, 617, options, confidence=0.999)
    (w,) = res.wagers
    assert w.wager == f"straight (Paytable {paytable}, {wheel}-zero)"
    assert w.exact_in_ci, w.to_json()
    assert w.tally.standard_error < 0.012
    assert w.tally.hit_frequency == pytest.approx(1 / (37 if wheel == "single" else 38), rel=0.03)


def test_roulette_x_pays_a_lit_number_its_multiplier_and_any_other_the_straight_odds():
    counts, mults = ((2, 1), (5, 1)), ((50, 1), (500, 1))
    rng = _Scripted(
        [0, 1, 0],                                    # k: 2, 5, 2 numbers lit
        [[4, 9, 1, 2, 3], [7, 8, 9, 10, 11], [4, 9, 1, 2, 3]],  # the lit numbers (first k lit)
        [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]],    # their payouts: 500, 50, …
        [4, 11, 2],                                   # the ball
        [4, 11, 2],                                   # the player's straight wager: each wins
    )
    returns = roulette_x_spins(rng, 3, 37, 28, counts, mults)
    # 4 lit at 500 to 1; 11 is the 5th lit number at 500 to 1; 2 is drawn but not lit (k = 2): 28 to 1
    assert returns.tolist() == [501, 501, 29]


def test_options_refuse_what_the_regulation_does_not_allow():
    with pytest.raises(ValueError, match="double-zero wheel only"):
        GAMES["roulette-x"].options(paytable="B", wheel="single")
    with pytest.raises(ValueError, match="Paytables A and B"):
        GAMES["roulette-x"].options(paytable="C")
    with pytest.raises(ValueError, match="no Rules Submission"):
        GAMES["roulette-up"].options(rules="x.toml")
    with pytest.raises(ValueError, match="no Roulette Up paytable"):
        GAMES["roulette-up"].options(paytable="P9")
    with pytest.raises(ValueError, match="--wheel"):
        GAMES["roulette-up"].options(wheel="triple")
    assert GAMES["roulette-x"].options()["wheels"] == ["single-zero", "double-zero"]
    assert GAMES["roulette-x"].options(paytable="B")["wheels"] == ["double-zero"]


@pytest.mark.parametrize("name, returns", [
    ("A", (0, 0, 3, 11, 31, 101, 151, 401)),  # "N to 1" returns 1 + N stakes
    ("B", (0, 1, 3, 5, 11, 26, 101, 401)),  # a push returns the stake
    ("D", (0, 0, 0, 21, 31, 101, 401, 801)),
    ("1", (0, 0, 0, 0, 25, 250, 1_500, 3_000, 10_000)),  # "N for 1" returns N; the meter at its seed
    ("4", (0, 0, 2, 4, 20, 50, 250, 3_000)),  # longest streak 8: the meter at 3,000× the wager
])
def test_each_box_returns_what_617b4_h_pays(name, returns):
    from rules.mc.roulette import _up_table

    _, longest, got = _up_table(name)
    assert got == returns and longest == len(returns)


@pytest.mark.parametrize("wheel_size", [37, 38])
def test_streaks_reach_each_box_as_often_as_k_increasing_numbers_in_a_row(wheel_size):
    # P(a streak reaches box k) = P(the first k numbers strictly increase) = C(N, k) / N^k
    from math import comb, sqrt

    n = 2_000_000
    reached, spins = play_streaks(np.random.Generator(np.random.PCG64(15)), n, wheel_size, 9)
    for k in range(2, 7):  # deep boxes are too rare to count here; their rows are pinned above
        p = comb(wheel_size, k) / wheel_size ** k
        assert abs(reached[k] - n * p) < 5 * sqrt(n * p * (1 - p)), (k, reached[k], n * p)
    # every streak takes its boxes' spins plus the spin that ended it, unless 36 or the cap did
    assert reached[1:].sum() <= spins <= reached[1:].sum() + n
