"""rules.rtp's exact bonus-game expectations, checked three ways: by hand for small cases, by
brute-force enumeration of whole boards (Pachinko on small boards), and by Monte Carlo games
played with the rule functions of rules.bonus (a few 10^5 games, within 4 standard errors)."""

import math
import random
from fractions import Fraction
from itertools import accumulate, product
from pathlib import Path

import numpy as np
import pytest

import rules.submission
from rules import bonus as rb
from rules.crazy_time import SPOTS, Spot
from rules.pachinko import DROP_ZONES, Lattice
from rules.rtp import (
    bonus_expected_odds, cash_hunt_expected_odds, coin_flip_expected_odds, crazy_time_world_expected_odds,
    pachinko_expected_odds,
)
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

DEFAULT = parse_rules_submission(
    (Path(rules.submission.__file__).parent / DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8"))
F = Fraction


def dist_of(weights):
    total = sum(weights.values())
    return {w: F(n, total) for w, n in weights.items()}


# --------------------------------------------------------------------------- by hand

def test_coin_flip_by_hand():
    # sides 2x or 20x, each 1/2; Rescue always activated when eligible.
    # (2,2): 2; (20,20): 20; (2,20) either way round: small up -> rescue -> fair (11), big up -> 20
    d = {2: F(1, 2), 20: F(1, 2)}
    assert coin_flip_expected_odds(d, 1, F(1)) == F(1, 4) * 2 + F(1, 4) * 20 + F(1, 2) * (F(11, 2) + 10)
    assert coin_flip_expected_odds(d, 1, F(0)) == 11  # no rescue: the mean side
    # under 2x the sides show 4x/40x: (f)(1) fails, no rescue; 50 is not involved
    assert coin_flip_expected_odds(d, 2, F(1)) == 22


def test_cash_hunt_is_m_times_the_mean():
    assert cash_hunt_expected_odds({5: F(1, 2), 500: F(1, 2)}, 7) == 7 * F(505, 2)
    assert bonus_expected_odds(Spot.CASH_HUNT, DEFAULT, 3) == 3 * DEFAULT.cash_hunt.mean()


def test_crazy_time_world_formula():
    d, m, ev = F(1, 2), 3, F(40)
    hit = F(1, 64)
    expected = (1 - d * hit) * m * ev + d * hit * ((1 - hit) * 2 * m * ev + hit * ((1 - hit) * 4 * m * ev + hit * 50))
    assert crazy_time_world_expected_odds({40: F(1)}, m, d) == expected
    assert crazy_time_world_expected_odds({40: F(1)}, m, F(0)) == 120
    # a Double on every wheel: one spin in 64 hits it (x2), one in 64² twice (x4, or 50x)
    assert crazy_time_world_expected_odds({15: F(1)}, 1, F(1)) == (
        F(63, 64) * 15 + F(63, 64**2) * 30 + F(63, 64**3) * 60 + F(50, 64**3))


def test_pachinko_without_double_or_rescue_is_the_mean():
    landing = Lattice(12).landing_probabilities()
    d = {2: F(1, 4), 10: F(3, 4)}
    assert pachinko_expected_odds(d, 5, F(0), F(1), landing) == 5 * F(2 + 30, 4)  # 10x and 50x: no trigger
    assert pachinko_expected_odds(d, 1, F(0), F(0), landing) == F(32, 4)


def test_bonus_expected_odds_refuses_number_spots_and_bad_multipliers():
    with pytest.raises(ValueError):
        bonus_expected_odds(Spot.FIVE, DEFAULT, 1)
    with pytest.raises(ValueError):
        bonus_expected_odds(Spot.PACHINKO, DEFAULT, 0)


def test_more_top_slot_never_pays_less_on_the_reference():
    for spot in SPOTS[4:]:
        odds = [bonus_expected_odds(spot, DEFAULT, m) for m in (1, 2, 3, 4, 5, 7, 10, 15, 20)]
        assert odds == sorted(odds), spot


# --------------------------------------------------------------------------- brute force (Pachinko)

def pachinko_game_value(board, landing, rescue, rescued=False):
    """E[final odds] of a game from ``board`` (exact recursion over every landing, with the rule
    functions of rules.bonus)."""
    total = F(0)
    for k, q in enumerate(landing):
        v = board[k]
        if v == rb.DOUBLE:
            total += q * pachinko_game_value(rb.pachinko_double(board, k + 1), landing, rescue, rescued)
        elif not rescued and rb.pachinko_rescue_eligible(v):
            total += q * ((1 - rescue) * v
                          + rescue * pachinko_game_value(rb.pachinko_rescue(board, v), landing, rescue, True))
        else:
            total += q * v
    return total


def pachinko_brute_force(dist, m, double, rescue, landing):
    """Enumerate every board of len(landing) cells: values independently from ``dist`` × m, and
    with ``double`` one cell (uniform) showing Double."""
    n = len(landing)
    total = F(0)
    for cells in product(dist.items(), repeat=n):
        p = math.prod(pc for _, pc in cells)
        board = tuple(m * w for w, _ in cells)
        total += (1 - double) * p * pachinko_game_value(board, landing, rescue)
        for d in range(n):  # the Double's cell; the value drawn there is not shown
            shown = tuple(rb.DOUBLE if i == d else v for i, v in enumerate(board))
            total += double * F(1, n) * p * pachinko_game_value(shown, landing, rescue)
    return total


@pytest.mark.parametrize("landing", [
    (F(1, 3), F(1, 3), F(1, 3)),
    (F(1, 2), F(1, 4), F(1, 4)),
    (F(1, 10), F(6, 10), F(2, 10), F(1, 10)),
])
@pytest.mark.parametrize("m, double, rescue", [(1, F(1), F(1)), (1, F(1, 2), F(2, 3)), (2, F(3, 4), F(1, 2)),
                                               (1, F(0), F(1, 3))])
def test_pachinko_exact_equals_brute_force_on_small_boards(landing, m, double, rescue):
    # few cells make landing on the same cell again (after a Double, after a Rescue) frequent
    dist = {2: F(2, 5), 3: F(1, 5), 4: F(1, 10), 30: F(3, 10)}
    assert pachinko_expected_odds(dist, m, double, rescue, landing) == pachinko_brute_force(
        dist, m, double, rescue, landing)


def pachinko_game_value_read(board, landing, rescue, reading, m, literal=frozenset(), rescued=False):
    """``pachinko_game_value`` under a Rescue ``reading`` and Top Slot ×``m``, as the croupier
    (hil/bonus.py) plays it: the trigger judged by ``rules.bonus.pachinko_rescue_eligible``, the board
    raised by ``pachinko_rescue``, the Double's literal 50x tracked."""
    total = F(0)
    for k, q in enumerate(landing):
        v = board[k]
        if v == rb.DOUBLE:
            total += q * pachinko_game_value_read(rb.pachinko_double(board, k + 1), landing, rescue, reading, m,
                                                  literal | {k}, rescued)
        elif not rescued and rb.pachinko_rescue_eligible(v, reading, m, k in literal):
            raised = rb.pachinko_rescue(board, v, reading, m, literal)
            total += q * ((1 - rescue) * v
                          + rescue * pachinko_game_value_read(raised, landing, rescue, reading, m, literal, True))
        else:
            total += q * v
    return total


THREE, FOUR = (F(1, 3), F(1, 3), F(1, 3)), (F(1, 10), F(6, 10), F(2, 10), F(1, 10))


@pytest.mark.parametrize("landing, m, double, rescue", [
    (THREE, 2, F(3, 4), F(1, 2)), (THREE, 3, F(1), F(1)), (THREE, 15, F(1, 2), F(1, 3)), (THREE, 20, F(1), F(1)),
    (FOUR, 20, F(1), F(2, 3)),
])
@pytest.mark.parametrize("reading", ["displayed", "before-top-slot"])
def test_pachinko_exact_equals_brute_force_under_either_reading(landing, m, double, rescue, reading):
    """Both Rescue readings; under x15 and x20 a doubled 2x shows 60x / 80x yet triggers before the
    Top Slot (a 4x), and the literal 50x of the Double, never below a 4x, stays 50x."""
    dist = {2: F(2, 5), 3: F(1, 5), 4: F(1, 10), 30: F(3, 10)}
    n = len(landing)
    brute = F(0)
    for cells in product(dist.items(), repeat=n):
        p = math.prod(pc for _, pc in cells)
        board = tuple(m * w for w, _ in cells)
        brute += (1 - double) * p * pachinko_game_value_read(board, landing, rescue, reading, m)
        for d in range(n):
            shown = tuple(rb.DOUBLE if i == d else v for i, v in enumerate(board))
            brute += double * F(1, n) * p * pachinko_game_value_read(shown, landing, rescue, reading, m)
    assert pachinko_expected_odds(dist, m, double, rescue, landing, reading) == brute


def test_coin_flip_exact_under_the_before_top_slot_reading():
    """x2 Top Slot, sides 2x and 20x: shown 4x / 40x. Displayed: no Rescue Flip; before the Top Slot
    the small side (2x) and the big (20x) qualify (§ 690.5(f)(1)–(3)) and a Rescue Flip follows."""
    d = {2: F(1, 2), 20: F(1, 2)}
    assert coin_flip_expected_odds(d, 2, F(1), "displayed") == 22
    # (2,2), (20,20): no distinct small side; (2,20) and (20,2): the 2x up half the time -> the mean 22
    assert coin_flip_expected_odds(d, 2, F(1), "before-top-slot") == (
        F(1, 4) * 4 + F(1, 4) * 40 + F(1, 2) * (F(1, 2) * 22 + F(1, 2) * 40))


# --------------------------------------------------------------------------- Monte Carlo

def mean_and_se(xs):
    xs = np.asarray(xs, dtype=float)
    return xs.mean(), xs.std(ddof=1) / math.sqrt(len(xs))


def assert_within_4_se(exact, xs, what):
    mean, se = mean_and_se(xs)
    assert abs(mean - float(exact)) <= 4 * se, (
        f"{what}: Monte Carlo {mean:.4f} ± {se:.4f} (n={len(xs)}), exact {float(exact):.4f}, "
        f"{(mean - float(exact)) / se:+.2f} SE")


class Draw:
    """Cells drawn from weights with a seeded stdlib RNG."""

    def __init__(self, weights, seed):
        self.values = list(weights)
        self.cum = list(accumulate(float(w) for w in weights.values()))
        self.rng = random.Random(seed)

    def cells(self, n, m):
        return [m * v for v in self.rng.choices(self.values, cum_weights=self.cum, k=n)]


def play_coin_flip(draw, m, rescue):
    rng = draw.rng
    values = tuple(draw.cells(2, m))  # § 690.5(c), (e): drawn, then the Top Slot before the flip
    face = rng.choice(rb.COIN_SIDES)
    if rb.rescue_flip_eligible(values, face) and rng.random() < rescue:
        face = rng.choice(rb.COIN_SIDES)  # § 690.5(g): the Rescue Flip is final
    return rb.coin_value(values, face)


def play_pachinko(draw, m, double, rescue, zones):
    rng = draw.rng
    values = draw.cells(rb.PACHINKO_SPOTS, m)
    if rng.random() < double:
        values[rng.randrange(rb.PACHINKO_SPOTS)] = rb.DOUBLE
    board, rescued = tuple(values), False
    while True:
        zone = rng.randrange(len(DROP_ZONES))  # § 690.7(d): a randomly selected drop zone
        spot = rng.choices(range(1, rb.PACHINKO_SPOTS + 1), cum_weights=zones[zone])[0]
        v = board[spot - 1]
        if v == rb.DOUBLE:
            board = rb.pachinko_double(board, spot)
        elif not rescued and rb.pachinko_rescue_eligible(v) and rng.random() < rescue:
            board, rescued = rb.pachinko_rescue(board, v), True
        else:
            return v


def play_crazy_time_world(draw, m, double):
    rng = draw.rng
    values = draw.cells(rb.CTW_SECTIONS, m)
    if rng.random() < double:
        values[rng.randrange(rb.CTW_SECTIONS)] = rb.DOUBLE
    board, doubles = tuple(values), 0
    clapper = rng.randrange(rb.CTW_CLAPPERS)
    offsets = (0, 21, 42)  # the clappers, with 20 sections between each
    while True:
        stop = rng.randrange(rb.CTW_SECTIONS)
        v = board[(stop + offsets[clapper]) % rb.CTW_SECTIONS]
        if v != rb.DOUBLE:
            return v
        doubles += 1
        board = rb.ctw_double(board, second=doubles == 2)


def zone_cum(rows):
    return [list(accumulate(float(p) for p in row)) for row in Lattice(rows).zone_matrix()]


@pytest.mark.parametrize("m", [1, 2])
def test_coin_flip_monte_carlo_reference(m):
    par = DEFAULT.coin_flip
    draw = Draw(par.multiplier_weights, seed=11 + m)
    xs = [play_coin_flip(draw, m, float(par.rescue_probability)) for _ in range(200_000)]
    assert_within_4_se(bonus_expected_odds(Spot.COIN_FLIP, DEFAULT, m), xs, f"coin flip m={m}")


def test_coin_flip_monte_carlo_rescue_heavy():
    weights = {2: 4, 3: 3, 16: 2, 50: 1}
    draw = Draw(weights, seed=5)
    xs = [play_coin_flip(draw, 1, 0.9) for _ in range(200_000)]
    assert_within_4_se(coin_flip_expected_odds(dist_of(weights), 1, F(9, 10)), xs, "coin flip, rescue heavy")


@pytest.mark.parametrize("m", [1, 7])
def test_cash_hunt_monte_carlo(m):
    par = DEFAULT.cash_hunt
    rng = np.random.default_rng(20 + m)
    values = np.array(list(par.multiplier_weights), dtype=np.int32)
    p = np.array(list(par.multiplier_weights.values()), dtype=float)
    n = 200_000
    boards = m * rng.choice(values, p=p / p.sum(), size=(n, rb.CASH_HUNT_CELLS))  # § 690.6(g): before shuffling
    covered = rng.permuted(boards, axis=1)  # § 690.6(c): covered and shuffled
    picks = rng.integers(rb.CASH_HUNT_CELLS, size=n)  # the player's (or random) symbol
    xs = covered[np.arange(n), picks]
    assert_within_4_se(bonus_expected_odds(Spot.CASH_HUNT, DEFAULT, m), xs, f"cash hunt m={m}")


@pytest.mark.slow
@pytest.mark.parametrize("m", [1, 2])
def test_pachinko_monte_carlo_reference(m):
    par = DEFAULT.pachinko
    draw = Draw(par.multiplier_weights, seed=30 + m)
    zones = zone_cum(par.rows)
    xs = [play_pachinko(draw, m, float(par.double_probability), float(par.rescue_probability), zones)
          for _ in range(300_000)]
    assert_within_4_se(bonus_expected_odds(Spot.PACHINKO, DEFAULT, m), xs, f"pachinko m={m}")


@pytest.mark.slow
@pytest.mark.parametrize("rows, m, double, rescue", [(12, 1, F(1), F(1)), (2, 1, F(3, 4), F(3, 4)),
                                                     (2, 2, F(1), F(1))])
def test_pachinko_monte_carlo_double_and_rescue_heavy(rows, m, double, rescue):
    # many 2x/3x/4x and a Double on most boards: Double then Rescue, Rescue then Double, and
    # landing again on the same spot (few landing spots reachable with 2 rows) are all frequent
    weights = {2: 5, 3: 2, 4: 2, 100: 1}
    draw = Draw(weights, seed=40 + rows + m)
    zones = zone_cum(rows)
    xs = [play_pachinko(draw, m, float(double), float(rescue), zones)
          for _ in range(300_000)]
    exact = pachinko_expected_odds(dist_of(weights), m, double, rescue, Lattice(rows).landing_probabilities())
    assert_within_4_se(exact, xs, f"pachinko rows={rows} m={m} double={double} rescue={rescue}")


@pytest.mark.slow
@pytest.mark.parametrize("m", [1, 3])
def test_crazy_time_world_monte_carlo_reference(m):
    par = DEFAULT.crazy_time_world
    draw = Draw(par.multiplier_weights, seed=50 + m)
    xs = [play_crazy_time_world(draw, m, float(par.double_probability)) for _ in range(200_000)]
    assert_within_4_se(bonus_expected_odds(Spot.CRAZY_TIME, DEFAULT, m), xs, f"crazy time world m={m}")


@pytest.mark.slow
def test_crazy_time_world_monte_carlo_small_wheel_of_doubles():
    # a Double on every wheel and a small spread: the double and second-double paths dominate the error
    weights = {15: 1}
    draw = Draw(weights, seed=60)
    xs = [play_crazy_time_world(draw, 1, 1.0) for _ in range(200_000)]
    assert_within_4_se(crazy_time_world_expected_odds(dist_of(weights), 1, F(1)), xs, "crazy time world, doubles")
