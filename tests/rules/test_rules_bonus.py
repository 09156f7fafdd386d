"""rules.bonus: the bonus games' rules (§§ 690.5–690.8) as pure functions."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.bonus import (
    BOARDS, CASH_HUNT_CELLS, COIN_SIDES, CTW_SECTIONS, DOUBLE, DOUBLE_REPLACEMENT, PACHINKO_SPOTS, apply_top_slot,
    board_deviations, clapper_deviations, coin_value, ctw_double, pachinko_double, pachinko_rescue,
    pachinko_rescue_eligible, rescue_flip_eligible, rescue_flip_unmet,
)
from rules.crazy_time import Spot

# --------------------------------------------------------------------------- Top Slot on a board


def test_apply_top_slot_multiplies_every_multiplier_and_keeps_double():
    # § 690.6(g): 5x under a 7x Top Slot becomes 35x; § 690.7(f), § 690.8(f) likewise
    assert apply_top_slot((5, 10, 500), 7) == (35, 70, 3500)
    assert apply_top_slot((2, DOUBLE, 400), 3) == (6, DOUBLE, 1200)
    assert apply_top_slot([15, DOUBLE], 1) == (15, DOUBLE)


@pytest.mark.parametrize("m", [0, -2, True, 1.5])
def test_apply_top_slot_refuses_a_non_multiplier(m):
    with pytest.raises(ValueError):
        apply_top_slot((5,), m)


# --------------------------------------------------------------------------- board deviations

def board(game, value):
    return (value,) * BOARDS[game][0]


@pytest.mark.parametrize("game", list(BOARDS))
def test_boards_in_range_comply(game):
    cells, (low, high), may_double = BOARDS[game]
    values = [low, high] + [low] * (cells - 2)
    assert board_deviations(game, values) == []
    assert board_deviations(game, apply_top_slot(values, 20), 20) == []
    if may_double:
        values[-1] = DOUBLE
        assert board_deviations(game, apply_top_slot(values, 7), 7) == []


def test_cash_hunt_multiplier_above_500_is_cited():
    values = [5] * CASH_HUNT_CELLS
    values[17] = 1000
    assert board_deviations(Spot.CASH_HUNT, values) == [
        "§ 690.6(b)(1): cell 17 shows 1000x; multipliers range from 5x to 500x"]


def test_range_is_checked_before_the_top_slot():
    # § 690.6(b)(2): with a Top Slot the final odds may exceed 500x, but not the multiplier before it
    values = [35] * CASH_HUNT_CELLS
    values[3] = 3500  # 500x × 7
    assert board_deviations(Spot.CASH_HUNT, values, 7) == []
    values[4] = 7 * 501
    (msg,) = board_deviations(Spot.CASH_HUNT, values, 7)
    assert msg.startswith("§ 690.6(b)(1): cell 4 shows 3507x (501x times the Top Slot multiplier 7x)")
    values[4] = 36  # not 7 × anything
    (msg,) = board_deviations(Spot.CASH_HUNT, values, 7)
    assert msg.startswith("§ 690.6(g): cell 4 shows 36x") and "Top Slot multiplier 7x" in msg


def test_wrong_cell_counts_are_cited():
    assert board_deviations(Spot.COIN_FLIP, (2, 3, 4)) == [
        "§ 690.5(c): the board has 3 sides of the coin with a multiplier; expected 2"]
    assert board_deviations(Spot.CASH_HUNT, (5,) * 107)[0].startswith("§ 690.6(b): the board has 107")
    assert board_deviations(Spot.PACHINKO, (2,) * 15)[0].startswith("§ 690.7(b): the board has 15 landing spots")
    assert board_deviations(Spot.CRAZY_TIME, (15,) * 65)[0].startswith("§ 690.8(b): the board has 65 wheel sections")


def test_double_only_where_allowed_and_only_once():
    (msg,) = board_deviations(Spot.COIN_FLIP, (DOUBLE, 20))
    assert msg.startswith("§ 690.5(c)(1): red side shows Double")
    values = [5] * CASH_HUNT_CELLS
    values[9] = DOUBLE
    assert board_deviations(Spot.CASH_HUNT, values)[0].startswith("§ 690.6(b)(1): cell 9 shows Double")
    pachinko = [2] * PACHINKO_SPOTS
    pachinko[0] = pachinko[15] = DOUBLE
    (msg,) = board_deviations(Spot.PACHINKO, pachinko)
    assert msg.startswith("§ 690.7(c)(2)") and "2 show it (spot 1, spot 16)" in msg
    ctw = [15] * CTW_SECTIONS
    ctw[0] = ctw[63] = DOUBLE
    (msg,) = board_deviations(Spot.CRAZY_TIME, ctw)
    assert msg.startswith("§ 690.8(b)(2)") and "section 0, section 63" in msg


@pytest.mark.parametrize("game, bad, section", [
    (Spot.COIN_FLIP, 1, "§ 690.5(c)(1)"), (Spot.COIN_FLIP, 101, "§ 690.5(c)(1)"),
    (Spot.CASH_HUNT, 4, "§ 690.6(b)(1)"), (Spot.PACHINKO, 401, "§ 690.7(c)(1)"),
    (Spot.CRAZY_TIME, 14, "§ 690.8(b)(1)"), (Spot.CRAZY_TIME, 401, "§ 690.8(b)(1)"),
    (Spot.PACHINKO, -2, "§ 690.7(c)(1)"), (Spot.PACHINKO, 2.5, "§ 690.7(c)(1)"),
])
def test_every_game_cites_its_range(game, bad, section):
    cells, (low, _), _ = BOARDS[game]
    (msg,) = board_deviations(game, (bad,) + (low,) * (cells - 1))
    assert msg.startswith(section)


def test_board_deviations_refuses_a_number_spot():
    with pytest.raises(ValueError):
        board_deviations(Spot.FIVE, (5,))
    with pytest.raises(ValueError):
        board_deviations(Spot.CASH_HUNT, (5,) * CASH_HUNT_CELLS, 0)


# --------------------------------------------------------------------------- Coin Flip § 690.5

def test_coin_value_is_the_face_up_side():
    assert COIN_SIDES == ("red", "blue")
    assert coin_value((5, 20), "red") == 5 and coin_value((5, 20), "blue") == 20
    with pytest.raises(ValueError):
        coin_value((5, 20), "green")
    with pytest.raises(ValueError):
        coin_value((5, 20, 3), "red")


@pytest.mark.parametrize("values, face, eligible", [
    ((2, 20), "red", True),      # (1) small 2x, (2) big > 15x, (3) small face up
    ((20, 3), "blue", True),
    ((2, 100), "red", True),
    ((2, 20), "blue", False),    # (3) fails: the big side is up
    ((4, 20), "red", False),     # (1) fails: small is 4x
    ((2, 15), "red", False),     # (2) fails: 15x is not greater than 15x
    ((3, 16), "red", True),
    ((2, 2), "red", False),      # equal sides: no small multiplier distinct from the big one
    ((20, 20), "blue", False),
])
def test_rescue_flip_needs_all_three_conditions_of_690_5_f(values, face, eligible):
    assert rescue_flip_eligible(values, face) is eligible


def test_rescue_flip_is_judged_on_the_displayed_multipliers():
    # § 690.5(e): the Top Slot multiplies before the flip; 2x/20x under 2x shows 4x/40x: no rescue
    assert rescue_flip_eligible((2, 20), "red")
    assert not rescue_flip_eligible(apply_top_slot((2, 20), 2), "red")
    # 1x is no multiplier, but a displayed 3x beside a displayed 18x is eligible whatever made it
    assert rescue_flip_eligible(apply_top_slot((3, 18), 1), "red")


# --------------------------------------------------------------------------- Pachinko § 690.7

def spots(**cells):
    """A 16-spot board of 5x with ``s<n>=value`` overrides (1-based spot numbers)."""
    values = [5] * PACHINKO_SPOTS
    for key, v in cells.items():
        values[int(key[1:]) - 1] = v
    return tuple(values)


def test_pachinko_double_doubles_the_others_and_shows_50():
    before = spots(s1=2, s4=DOUBLE, s16=400)
    after = pachinko_double(before, 4)
    assert after[3] == DOUBLE_REPLACEMENT == 50  # § 690.7(e)(2)
    assert after[0] == 4 and after[15] == 800 and after[1] == 10  # § 690.7(e)(1)
    assert DOUBLE not in after


def test_pachinko_double_50_is_literal_under_a_top_slot():
    shown = apply_top_slot(spots(s8=DOUBLE), 7)
    assert pachinko_double(shown, 8)[7] == 50 and pachinko_double(shown, 8)[0] == 70


@pytest.mark.parametrize("landed", [0, 17, 3])
def test_pachinko_double_needs_the_puck_on_the_double(landed):
    with pytest.raises(ValueError):
        pachinko_double(spots(s8=DOUBLE), landed)


def test_pachinko_double_refuses_two_doubles():
    with pytest.raises(ValueError):
        pachinko_double(spots(s8=DOUBLE, s9=DOUBLE), 8)


@pytest.mark.parametrize("value, eligible", [(2, True), (3, True), (4, True), (5, False), (1, False),
                                             (DOUBLE, False), (50, False), (True, False)])
def test_rescue_drop_on_2_3_or_4(value, eligible):
    assert pachinko_rescue_eligible(value) is eligible


def test_rescue_raises_lower_multipliers_to_the_trigger_and_keeps_the_rest():
    before = spots(s1=2, s2=3, s3=4, s4=DOUBLE, s5=400)
    # § 690.7(g)(1)-(2): "all 2× or 3× shall be replaced with 4×"; "the 4× and any multipliers
    # greater than 4× will remain unchanged"; a Double is no multiplier
    assert pachinko_rescue(before, 4)[:5] == (4, 4, 4, DOUBLE, 400)
    assert pachinko_rescue(before, 3)[:5] == (3, 3, 4, DOUBLE, 400)
    assert pachinko_rescue(before, 2) == before
    with pytest.raises(ValueError):
        pachinko_rescue(before, 5)


# --------------------------------------------------------------------------- Crazy Time World § 690.8

def test_ctw_first_double_doubles_every_multiplier_and_keeps_the_double():
    wheel = (15, 400, DOUBLE) + (20,) * 61
    once = ctw_double(wheel, second=False)
    assert once[:3] == (30, 800, DOUBLE) and once[3] == 40


def test_ctw_second_double_is_times_four_and_50():
    wheel = (15, 400, DOUBLE) + (20,) * 61
    twice = ctw_double(ctw_double(wheel, second=False), second=True)
    assert twice[:3] == (60, 1600, 50)  # § 690.8(e)(3): doubled a second time; Double -> 50x
    assert DOUBLE not in twice


def test_ctw_double_needs_one_double():
    with pytest.raises(ValueError):
        ctw_double((15,) * 64, second=False)
    with pytest.raises(ValueError):
        ctw_double((DOUBLE, DOUBLE) + (15,) * 62, second=True)


@pytest.mark.parametrize("clappers", [(1, 4, 7), (0, 3, 61), (10, 30, 50), (63, 2, 5), (7, 1, 4)])
def test_clappers_with_two_sections_between_comply(clappers):
    # § 690.8(b)(4): "if the first clapper is on section 1, then the second clapper will be on
    # section 4, and the third clapper shall be on section 7"
    assert clapper_deviations(clappers) == []


def test_clappers_too_close():
    (msg,) = clapper_deviations((1, 3, 20))
    assert msg == ("§ 690.8(b)(4): the clappers on sections 1 and 3 have 1 section(s) between them; "
                   "at least 2 required")


def test_clapper_spacing_wraps_round_the_wheel():
    (msg,) = clapper_deviations((0, 20, 62))  # 62 -> 0 has only section 63 between them
    assert "sections 62 and 0 have 1 section(s)" in msg
    assert clapper_deviations((0, 20, 61)) == []
    assert clapper_deviations((0, 3, 6), sections=9) == []
    assert len(clapper_deviations((0, 3, 6), sections=8)) == 1


def test_clapper_count_range_and_duplicates():
    assert clapper_deviations((1, 4))[0] == "§ 690.8(b): the wheel has 3 clappers; found 2"
    assert any("clappers" in m for m in clapper_deviations((1, 4, 7, 10)))
    assert any("section 64" in m and "0..63" in m for m in clapper_deviations((1, 4, 64)))
    assert any("more than one clapper" in m for m in clapper_deviations((5, 5, 30)))
    assert any("section -1" in m for m in clapper_deviations((-1, 4, 30)))


@given(st.lists(st.integers(0, 63), min_size=3, max_size=3, unique=True))
def test_clapper_rule_is_the_cyclic_gap(clappers):
    c = sorted(clappers)
    gaps = [c[1] - c[0] - 1, c[2] - c[1] - 1, c[0] + 64 - c[2] - 1]
    assert (clapper_deviations(clappers) == []) == (min(gaps) >= 2)


@pytest.mark.parametrize("values, face, unmet", [
    ((2, 20), "red", ()),
    ((4, 20), "red", ("(f)(1): the small multiplier was 4x, not 2x or 3x",)),
    ((3, 15), "red", ("(f)(2): the big multiplier was 15x, not greater than 15x",)),
    ((2, 20), "blue", ("(f)(3): the coin landed with the big multiplier (20x) facing up, not the small one",)),
    ((5, 10), "blue", ("(f)(1): the small multiplier was 5x, not 2x or 3x",
                       "(f)(2): the big multiplier was 10x, not greater than 15x",
                       "(f)(3): the coin landed with the big multiplier (10x) facing up, not the small one")),
    ((3, 3), "red", ("(f)(1)–(3): both sides show 3x, so there is no small multiplier distinct from the big one",)),
])
def test_rescue_flip_unmet_names_each_condition_of_f1_to_f3_that_fails(values, face, unmet):
    assert rescue_flip_unmet(values, face) == unmet
    assert rescue_flip_eligible(values, face) is (not unmet)
