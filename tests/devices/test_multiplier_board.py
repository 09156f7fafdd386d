"""RNG multiplier board model (devices.multiplier_board) against the Rules Submission's
distributions, §§ 690.5–690.8."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pydantic
import pytest
import simpy
from scipy.stats import binomtest, chisquare

from devices.contracts import BoardDraw, BoardShown, MultiplierBoard
from devices.multiplier_board import GAMES, MultiplierBoardParams, MultiplierBoardSim
from rules.bonus import DOUBLE
from rules.pachinko import DROP_ZONES
import rules.submission
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

# Not importlib.resources.files("rules"): under pytest, tests/ is on sys.path and tests/rules (no
# __init__.py) can shadow the package as a namespace package; the module's own file cannot.
_RULES_PATH = Path(rules.submission.__file__).parent / DEFAULT_RULES_RESOURCE
RULES = parse_rules_submission(_RULES_PATH.read_text("utf-8"), str(_RULES_PATH))
PARS = {"coin-flip": RULES.coin_flip, "cash-hunt": RULES.cash_hunt, "pachinko": RULES.pachinko,
        "crazy-time": RULES.crazy_time_world}
CELLS = {"coin-flip": 2, "cash-hunt": 108, "pachinko": 16, "crazy-time": 64}


def _board(params: MultiplierBoardParams | None = None, seed: int = 0):
    env = simpy.Environment()
    events = []
    board = MultiplierBoardSim(env, params or MultiplierBoardParams(), RULES, np.random.default_rng(seed),
                               lambda d, k, p: events.append((env.now, d, k, p)))
    return env, board, events


def _run(env, gen):
    """Run the croupier generator ``gen`` to completion; return its value."""
    proc = env.process(gen)
    env.run()
    return proc.value


def _generate_many(env, board, game, n, gap_s=0.0):
    def croupier():
        out = []
        for _ in range(n):
            out.append((yield board.generate(game)))
            if gap_s:
                yield env.timeout(gap_s)
        return out
    return _run(env, croupier())


def _chi2_cells(values, par):
    """χ² of the cell values against the exact probabilities of ``par.multiplier_weights``."""
    counts = Counter(values)
    outside = set(counts) - set(par.multiplier_weights)
    assert not outside, f"values outside the support: {outside}"
    support = sorted(par.multiplier_weights)
    n = len(values)
    expected = [n * float(par.probability(m)) for m in support]
    return chisquare([counts[m] for m in support], expected).pvalue


def test_contract_telemetry_and_timing():
    p = MultiplierBoardParams()
    env, board, events = _board(p)
    assert isinstance(board, MultiplierBoard)
    assert events[0][1:] == ("board", "device_info", {"games": list(GAMES), "cells": CELLS})

    def croupier():
        out = {}
        for game in GAMES:
            t = env.now
            shown = yield board.generate(game)
            assert env.now == pytest.approx(t + p.generate_s)
            assert shown.device_time_s == t  # drawn when commanded (after the bonus was triggered)
            out[game] = shown
        t = env.now
        mult = yield board.apply_multiplier(out["pachinko"].board_id, 7)
        assert env.now == pytest.approx(t + p.apply_s) and mult.device_time_s == env.now
        t = env.now
        sh = yield board.shuffle(out["cash-hunt"].board_id)
        assert env.now == pytest.approx(t + p.shuffle_s)
        dz = yield board.draw(out["pachinko"].board_id, "drop_zone", 10)
        pick = yield board.draw(out["cash-hunt"].board_id, "auto_pick", 108)
        rescue = yield board.rescue(out["coin-flip"].board_id)
        return out, mult, sh, dz, pick, rescue

    out, mult, sh, dz, pick, rescue = _run(env, croupier())
    json.dumps([e[3] for e in events])
    for game, shown in out.items():
        assert isinstance(shown, BoardShown) and shown.game == game and shown.multiplier == 1
        assert len(shown.values) == CELLS[game]
    assert [s.board_id for s in out.values()] == [1, 2, 3, 4]
    gen = [e for e in events if e[2] == "board_generated"]
    assert [e[3]["board_id"] for e in gen] == [1, 2, 3, 4]
    assert gen[0][3] == {"board_id": 1, "game": "coin-flip", "values": out["coin-flip"].values, "multiplier": 1,
                         "device_time_s": 0.0}
    assert [e[2] for e in events[-5:]] == ["board_multiplied"] + ["board_draw"] * 4
    assert mult.multiplier == 7 and mult.board_id == out["pachinko"].board_id
    assert isinstance(sh, BoardDraw) and sh.purpose == "shuffle" and sh.n == 108
    assert sorted(sh.value) == list(range(108))
    assert dz.purpose == "drop_zone" and dz.n == 10 and dz.value in DROP_ZONES
    assert pick.purpose == "auto_pick" and 0 <= pick.value < 108
    assert rescue.purpose == "rescue" and rescue.n == 2 and rescue.value in (0, 1)


def test_apply_multiplier_is_exact_and_keeps_double():
    env, board, _ = _board(seed=3)

    def croupier():
        while True:  # a Pachinko board showing Double
            shown = yield board.generate("pachinko")
            if DOUBLE in shown.values:
                break
        once = yield board.apply_multiplier(shown.board_id, 7)
        twice = yield board.apply_multiplier(shown.board_id, 2)
        return shown, once, twice

    shown, once, twice = _run(env, croupier())
    assert once.values == tuple(0 if v == DOUBLE else 7 * v for v in shown.values)
    assert twice.values == tuple(0 if v == DOUBLE else 14 * v for v in shown.values)
    assert (once.multiplier, twice.multiplier) == (7, 14)
    with pytest.raises(ValueError):
        board.apply_multiplier(shown.board_id, 0)
    with pytest.raises(ValueError):
        board.apply_multiplier(999, 2)


@pytest.mark.parametrize("game", GAMES)
def test_values_follow_the_declared_distribution(game):
    env, board, _ = _board(seed=20 + GAMES.index(game))
    n_boards = {"coin-flip": 5000, "cash-hunt": 100, "pachinko": 700, "crazy-time": 170}[game]
    boards = _generate_many(env, board, game, n_boards)
    values = [v for b in boards for v in b.values if v != DOUBLE]
    assert _chi2_cells(values, PARS[game]) > 0.001


@pytest.mark.parametrize("game", ["pachinko", "crazy-time"])
def test_double_frequency_and_never_more_than_one(game):
    env, board, _ = _board(seed=8)
    n = 2000
    boards = _generate_many(env, board, game, n)
    doubles = [b.values.count(DOUBLE) for b in boards]
    assert max(doubles) == 1
    p = PARS[game].double_probability
    assert binomtest(sum(doubles), n, float(p)).pvalue > 0.001
    cells = Counter(b.values.index(DOUBLE) for b in boards if DOUBLE in b.values)  # the cell is uniform
    assert chisquare([cells[i] for i in range(CELLS[game])]).pvalue > 0.001


def test_no_double_on_coin_flip_or_cash_hunt():
    env, board, _ = _board(seed=9)
    for game in ("coin-flip", "cash-hunt"):
        assert all(DOUBLE not in b.values for b in _generate_many(env, board, game, 200))


def test_shuffle_is_a_uniform_permutation():
    env, board, _ = _board(seed=10)

    def croupier():
        shown = yield board.generate("cash-hunt")
        out = []
        for _ in range(2000):
            out.append((yield board.shuffle(shown.board_id)))
        return out

    draws = _run(env, croupier())
    assert all(sorted(d.value) == list(range(108)) for d in draws)
    first = Counter(d.value[0] for d in draws)  # where symbol 0 goes: uniform over the 108 cells
    assert chisquare([first[i] for i in range(108)]).pvalue > 0.001


def test_draws_in_range_and_uniform():
    env, board, _ = _board(seed=11)

    def croupier():
        shown = yield board.generate("pachinko")
        zones, picks = [], []
        for _ in range(3000):
            zones.append((yield board.draw(shown.board_id, "drop_zone", 10)).value)
            picks.append((yield board.draw(shown.board_id, "auto_pick", 3)).value)
        return zones, picks

    zones, picks = _run(env, croupier())
    assert set(zones) == set(DROP_ZONES)
    assert chisquare([zones.count(z) for z in DROP_ZONES]).pvalue > 0.001
    assert set(picks) == {0, 1, 2} and chisquare([picks.count(i) for i in range(3)]).pvalue > 0.001
    with pytest.raises(ValueError):
        board.draw(1, "drop_zone", 9)
    with pytest.raises(ValueError):
        board.draw(1, "auto_pick", 0)


@pytest.mark.parametrize("game", ["coin-flip", "pachinko"])
def test_rescue_probability(game):
    env, board, _ = _board(seed=12)

    def croupier():
        shown = yield board.generate(game)
        values = []
        for _ in range(4000):
            values.append((yield board.rescue(shown.board_id)).value)
        return values

    values = _run(env, croupier())
    p = PARS[game].rescue_probability
    assert set(values) <= {0, 1}
    assert binomtest(sum(values), len(values), float(p)).pvalue > 0.001


def test_rescue_only_for_coin_flip_and_pachinko():
    env, board, _ = _board()
    b = _generate_many(env, board, "cash-hunt", 1)[0]
    with pytest.raises(ValueError):
        board.rescue(b.board_id)
    with pytest.raises(ValueError):
        board.generate("roulette")


def test_fault_early_generation_reports_a_draw_before_the_command():
    p = MultiplierBoardParams(early_generation=True)
    env, board, events = _board(p, seed=13)

    def croupier():
        yield env.timeout(100.0)  # the bonus is triggered long after power-up
        out = []
        for _ in range(3):
            t = env.now
            shown = yield board.generate("crazy-time")
            out.append((t, shown))
            yield env.timeout(50.0)
        return out

    out = _run(env, croupier())
    assert out[0][1].device_time_s == 0.0  # drawn at construction
    for (t, shown), (_t_prev, prev) in zip(out[1:], out[:-1]):
        assert shown.device_time_s < t  # drawn as soon as the previous board was shown
        assert shown.device_time_s == pytest.approx(_t_prev + p.generate_s)
    assert all(shown.device_time_s < t for t, shown in out)
    gen = [e for e in events if e[2] == "board_generated"]
    assert all(e[3]["device_time_s"] < e[0] - p.generate_s for e in gen)


def test_fault_out_of_range_value_appears():
    p = MultiplierBoardParams(out_of_range_game="cash-hunt", out_of_range_value=1000, out_of_range_probability=0.5)
    env, board, _ = _board(p, seed=14)
    boards = _generate_many(env, board, "cash-hunt", 400)
    faulty = [b for b in boards if 1000 in b.values]
    assert all(b.values.count(1000) == 1 for b in faulty)
    assert binomtest(len(faulty), 400, 0.5).pvalue > 0.001
    other = _generate_many(env, board, "pachinko", 200)  # other games untouched
    assert all(1000 not in b.values for b in other)


def test_fault_biased_generator_fails_the_chi2():
    env, board, _ = _board(MultiplierBoardParams(biased_probability=0.3), seed=15)
    boards = _generate_many(env, board, "cash-hunt", 100)
    values = [v for b in boards for v in b.values]
    assert _chi2_cells(values, RULES.cash_hunt) < 1e-6
    # and it is what it says: a mixture with the uniform over the support
    support = sorted(RULES.cash_hunt.multiplier_weights)
    mix = {m: 0.7 * float(RULES.cash_hunt.probability(m)) + 0.3 / len(support) for m in support}
    counts = Counter(values)
    assert chisquare([counts[m] for m in support], [len(values) * mix[m] for m in support]).pvalue > 0.001


def test_exact_integer_draws_with_degenerate_probabilities():
    """A probability of 1 always fires and 0 never does: the draws are exact, not floats."""
    rules = RULES.model_copy(update={
        "pachinko": RULES.pachinko.model_copy(update={"double_probability": Fraction(1),
                                                      "rescue_probability": Fraction(0)}),
        "crazy_time_world": RULES.crazy_time_world.model_copy(update={"double_probability": Fraction(0)}),
    })
    env = simpy.Environment()
    board = MultiplierBoardSim(env, MultiplierBoardParams(), rules, np.random.default_rng(0), lambda *a: None)
    pach = _generate_many(env, board, "pachinko", 300)
    ctw = _generate_many(env, board, "crazy-time", 300)
    assert all(b.values.count(DOUBLE) == 1 for b in pach)
    assert all(DOUBLE not in b.values for b in ctw)

    def croupier():
        values = []
        for _ in range(300):
            values.append((yield board.rescue(pach[0].board_id)).value)
        return values

    assert _run(env, croupier()) == [0] * 300


def test_params_are_validated():
    for bad in (dict(out_of_range_game="roulette"), dict(out_of_range_probability=1.5), dict(biased_probability=-0.1),
                dict(generate_s=-1)):
        with pytest.raises(ValueError):
            MultiplierBoardParams(**bad)


def test_params_load_from_bench_data():
    """The bench validates params with pydantic: plain data in, unknown keys refused."""
    adapter = pydantic.TypeAdapter(MultiplierBoardParams)
    loaded = adapter.validate_python({"early_generation": True, "out_of_range_game": "pachinko"})
    assert loaded == MultiplierBoardParams(**{"early_generation": True, "out_of_range_game": "pachinko"})
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"no_such_knob": 1})
