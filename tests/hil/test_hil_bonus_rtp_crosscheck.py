"""Cross-check (slow): bonus games played by the croupier through the device models — the RNG
multiplier board, the physical coin flip, the peg-by-peg Pachinko lattice, the Crazy Time World
wheel — agree with the exact expected odds of ``rules.rtp`` within a 99 % confidence interval.

Each game is played N times with the Top Slot multiplier drawn as the Rules Submission's Top Slot
applies it to that bonus spot; the mean final multiplier is compared with
Σ_m P(m) · ``bonus_expected_odds(spot, sub, m)``. A negative control (a biased board generator)
shows that the comparison can fail.
"""

from __future__ import annotations

import importlib.resources
import math
import random
from fractions import Fraction

import numpy as np
import pytest
import simpy

from devices.coin_flipper import CoinFlipperParams, CoinFlipperSim
from devices.ctw_wheel import CtwWheelParams, CtwWheelSim
from devices.multiplier_board import MultiplierBoardParams, MultiplierBoardSim
from devices.pachinko import PachinkoParams, PachinkoSim
from hil.bench import Devices
from hil.bonus import BonusCroupier
from hil.scenario import Scenario
from rules.crazy_time import TOP_SLOT_REEL2, Spot
from rules.rtp import bonus_expected_odds
from rules.submission import DEFAULT_RULES_RESOURCE, parse_rules_submission

Z99 = 2.5758  # two-sided 99 %


def _rules():
    text = importlib.resources.files("rules").joinpath(DEFAULT_RULES_RESOURCE).read_text(encoding="utf-8")
    return parse_rules_submission(text, DEFAULT_RULES_RESOURCE)


def _multiplier_distribution(sub, spot: Spot) -> dict[int, Fraction]:
    """P(Top Slot multiplier applied to ``spot`` = m) (§ 690.3(c))."""
    par = sub.top_slot
    hit = par.align_probability * par.reel1_probability(spot)
    dist = {m: hit * par.reel2_probability(m) for m in TOP_SLOT_REEL2}
    dist[1] = dist.get(1, Fraction(0)) + 1 - hit
    return dist


def _exact_mean(sub, spot: Spot) -> float:
    return float(sum(p * bonus_expected_odds(spot, sub, m) for m, p in _multiplier_distribution(sub, spot).items()))


def _play(sub, spot: Spot, games: int, seed: int, board_params: MultiplierBoardParams | None = None) -> np.ndarray:
    env = simpy.Environment()
    ss = np.random.SeedSequence(seed).spawn(6)
    rngs = [np.random.Generator(np.random.PCG64(s)) for s in ss]
    sink = lambda *_a: None  # noqa: E731 — the trace is not under test here
    devices = Devices(
        wheel=None, top_slot=None, wagering=None,  # type: ignore[arg-type]
        board=MultiplierBoardSim(env, board_params or MultiplierBoardParams(), sub, rngs[0], sink),
        coin_flipper=CoinFlipperSim(env, CoinFlipperParams(), rngs[1], sink),
        pachinko=PachinkoSim(env, PachinkoParams(rows=sub.pachinko.rows), rngs[2], sink),
        ctw_wheel=CtwWheelSim(env, CtwWheelParams(), rngs[3], sink),
    )
    sc = Scenario.model_validate({"schema": 1, "name": "crosscheck", "game": "crazy-time", "seed": seed, "rounds": 1})
    croupier = BonusCroupier(env, devices, lambda *_a: None, sc, random.Random(seed))
    mdist = _multiplier_distribution(sub, spot)
    ms, ps = list(mdist), np.array([float(p) for p in mdist.values()])
    draw = rngs[5].choice(len(ms), size=games, p=ps / ps.sum())
    out = np.empty(games)

    def run():
        for i in range(games):
            values = yield from croupier.play(spot, ms[draw[i]], [1])
            assert values is not None, "a healthy bonus game must not be void"
            out[i] = values[1]

    env.run(until=env.process(run()))
    return out


def _within_ci(values: np.ndarray, exact: float) -> tuple[bool, float, float]:
    mean, se = float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))
    return abs(mean - exact) <= Z99 * se, mean, se


@pytest.mark.slow
@pytest.mark.parametrize("spot, games", [(Spot.COIN_FLIP, 100_000), (Spot.CASH_HUNT, 50_000),
                                         (Spot.PACHINKO, 100_000), (Spot.CRAZY_TIME, 50_000)])
def test_bonus_games_through_the_devices_agree_with_exact_rtp(spot, games):
    sub = _rules()
    exact = _exact_mean(sub, spot)
    values = _play(sub, spot, games, seed=20261129 + games + len(spot))
    ok, mean, se = _within_ci(values, exact)
    print(f"{spot}: simulated mean odds {mean:.4f} ± {se:.4f} (n={games}), exact {exact:.4f}")
    assert ok, f"{spot}: simulated mean odds {mean:.4f} ± {se:.4f} (1 se, n={games}) vs exact {exact:.4f}"


@pytest.mark.slow
def test_crosscheck_fails_for_a_biased_board_generator():
    sub = _rules()
    exact = _exact_mean(sub, Spot.CASH_HUNT)
    values = _play(sub, Spot.CASH_HUNT, 5_000, seed=7, board_params=MultiplierBoardParams(biased_probability=1.0))
    ok, mean, se = _within_ci(values, exact)
    assert not ok, f"a board drawing uniformly over the support should miss the exact mean: {mean} ± {se} vs {exact}"
