"""Roulette ball wheel model (devices.roulette_wheel): rotor, ball on the rim, drop and scatter,
§§ 617b.4(a), 617b.5(c)."""

from __future__ import annotations

import json
import math

import numpy as np
import pydantic
import pytest
import simpy
from scipy.integrate import solve_ivp
from scipy.stats import chisquare

from devices.contracts import BallResult, RouletteWheel
from devices.roulette_wheel import (
    POCKET_ORDER,
    RouletteWheelParams,
    RouletteWheelSim,
    pocket_order,
    rim_flight,
    rim_speed,
    simulate_spins_batch,
)
from rules.roulette import DOUBLE_ZERO, Wheel, pockets

TWO_PI = 2 * math.pi


def _spins(params: RouletteWheelParams, n: int, seed: int = 0, gap_s: float = 20.0):
    env = simpy.Environment()
    events = []
    wheel = RouletteWheelSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    results, commands = [], []

    def croupier():
        for _ in range(n):
            commands.append(env.now)
            results.append((yield wheel.spin()))
            yield env.timeout(gap_s)

    env.process(croupier())
    env.run()
    return wheel, results, commands, events


@pytest.mark.parametrize("wheel, n", [("single-zero", 37), ("double-zero", 38)])
def test_pocket_order_is_the_real_wheel(wheel, n):
    order = pocket_order(wheel)
    assert len(order) == n == RouletteWheelParams(wheel=wheel).pockets
    assert sorted(order, key=str) == sorted(pockets(wheel), key=str)  # each number once
    assert order[0] == 0
    if wheel == "single-zero":
        assert order[:5] == (0, 32, 15, 19, 4) and order[-1] == 26
    else:
        assert order[:4] == (0, 28, 9, 26) and order[19] == DOUBLE_ZERO and order[-1] == 2
        # 00 sits opposite 0 on an American wheel
        assert order.index(DOUBLE_ZERO) == 19
    assert set(POCKET_ORDER) == set(Wheel)


def test_contract_telemetry_and_timing_monotone():
    p = RouletteWheelParams(wheel="double-zero")
    wheel, results, commands, events = _spins(p, 150)
    assert isinstance(wheel, RouletteWheel)
    assert events[0][1:] == ("roulette_wheel", "device_info",
                             {"model": p.model, "wheel": "double-zero", "pockets": list(pocket_order("double-zero"))})
    json.dumps([e[3] for e in events])
    launches = [e for e in events if e[2] == "ball_launch"]
    drops = [e for e in events if e[2] == "ball_drop"]
    stops = [e for e in events if e[2] == "ball_result"]
    assert len(launches) == len(drops) == len(stops) == 150
    prev_stop = -1.0
    for i, (c, r, la, dr, st) in enumerate(zip(commands, results, launches, drops, stops), start=1):
        assert isinstance(r, BallResult) and r.spin_id == i
        assert r.pocket == pocket_order("double-zero")[r.pocket_index]
        assert r.start_time_s == c > prev_stop
        assert r.start_time_s < r.launch_time_s < r.drop_time_s < r.stop_time_s
        # the launcher waits for the rotor at its drawn angle: under one rotor turn after the delay
        assert c + p.launch_delay_s - 1e-9 <= r.launch_time_s <= c + p.launch_delay_s + 1 / r.rotor_speed_rps + 1e-9
        assert (la[0], dr[0], st[0]) == (r.launch_time_s, r.drop_time_s, r.stop_time_s)
        assert la[3] == {"spin_id": i, "rotor_direction": r.rotor_direction, "launch_speed_rps": r.launch_speed_rps,
                         "device_time_s": r.launch_time_s}
        assert dr[3] == {"spin_id": i, "ball_revolutions": r.ball_revolutions, "device_time_s": r.drop_time_s}
        assert st[3]["pocket"] == r.pocket and st[3]["misspin"] is False
        assert r.rotor_direction == ("cw" if i % 2 else "ccw")  # alternating
        prev_stop = r.stop_time_s
    assert DOUBLE_ZERO in {r.pocket for r in results} or len({r.pocket for r in results}) > 30


def test_spin_while_ball_moving_is_refused():
    env = simpy.Environment()
    wheel = RouletteWheelSim(env, RouletteWheelParams(), np.random.default_rng(0), lambda *a: None)
    wheel.spin()
    with pytest.raises(RuntimeError, match="still moving"):
        wheel.spin()


@pytest.mark.parametrize("a, b", [(0.3, 0.01), (0.4, 0.0), (0.0, 0.02)])
def test_rim_flight_closed_form_matches_the_ode(a, b):
    w0, wc = TWO_PI * 2.0, TWO_PI * 0.9
    t_d, phi = rim_flight(w0, a, b, wc)
    sol = solve_ivp(lambda t, y: [y[1], -a - b * y[1] ** 2], (0, t_d), [0.0, w0], rtol=1e-10, atol=1e-10)
    assert sol.y[1, -1] == pytest.approx(wc, rel=1e-6)
    assert sol.y[0, -1] == pytest.approx(phi, rel=1e-6)
    assert rim_speed(t_d, w0, a, b) == pytest.approx(wc, rel=1e-9)
    assert rim_flight(wc * 0.9, a, b, wc) == (0.0, 0.0)


def test_revolutions_consistent_with_speeds():
    p = RouletteWheelParams()
    wheel, results, _, _ = _spins(p, 100, seed=3)
    for r in results:
        on_rim_s = r.drop_time_s - r.launch_time_s
        t_d, phi = rim_flight(TWO_PI * r.launch_speed_rps, p.rim_deceleration_rad_s2, p.air_drag_per_rad,
                              TWO_PI * p.drop_speed_rps)
        assert r.ball_revolutions == pytest.approx(phi / TWO_PI) and on_rim_s == pytest.approx(t_d)
        # the mean speed on the rim lies between the drop speed and the launch speed
        assert p.drop_speed_rps < r.ball_revolutions / on_rim_s < r.launch_speed_rps
        assert r.ball_revolutions >= p.min_revolutions
    revs = np.array([r.ball_revolutions for r in results])
    assert 7.5 < revs.mean() < 10.0


def test_batch_is_the_sim():
    p = RouletteWheelParams()
    _, results, _, _ = _spins(p, 40, seed=11, gap_s=60.0)
    # the sim's commands are at stop + gap; the batch's every gap_s: compare the ball only (rotor differs)
    b = simulate_spins_batch(p, 40, np.random.default_rng(11))
    np.testing.assert_allclose(b.revolutions, [r.ball_revolutions for r in results])


@pytest.mark.parametrize("wheel", ["single-zero", "double-zero"])
def test_healthy_wheel_is_uniform(wheel):
    p = RouletteWheelParams(wheel=wheel)
    b = simulate_spins_batch(p, 20_000, np.random.default_rng(2024))
    counts = np.bincount(b.pocket_index, minlength=p.pockets)
    assert chisquare(counts).pvalue > 1e-3, counts
    assert not b.misspin.any()


def test_tilted_rotor_biases_the_wheel():
    p = RouletteWheelParams(tilt=0.3, tilt_pocket_index=10)
    b = simulate_spins_batch(p, 20_000, np.random.default_rng(2024))
    counts = np.bincount(b.pocket_index, minlength=p.pockets)
    assert chisquare(counts).pvalue < 1e-9
    # the low side catches the ball: the most frequent pockets lie around position 10
    top = np.argsort(counts)[-5:]
    assert all(min(abs(int(t) - 10), 37 - abs(int(t) - 10)) <= 6 for t in top), top


def test_weak_launch_is_a_misspin():
    p = RouletteWheelParams(ball_speed_scale=0.5)
    wheel, results, _, events = _spins(p, 50)
    assert all(r.misspin and r.ball_revolutions < p.min_revolutions for r in results)
    assert all(e[3]["misspin"] for e in events if e[2] == "ball_result")
    # slower than the drop speed: the ball falls at once
    p = RouletteWheelParams(ball_speed_scale=0.3)
    _, results, _, _ = _spins(p, 10)
    assert all(r.misspin and r.ball_revolutions == 0 and r.drop_time_s == r.launch_time_s for r in results)


def test_launch_failure_leaves_the_ball_in_its_pocket():
    p = RouletteWheelParams(launch_failure_probability=0.5)
    wheel, results, _, events = _spins(p, 200)
    failed = [r for r in results if r.launch_time_s is None]
    assert 60 < len(failed) < 140
    by_id = {r.spin_id: r for r in results}
    for r in failed:
        assert r.misspin and r.drop_time_s is None and r.ball_revolutions == 0 and r.launch_speed_rps == 0
        assert 0 <= r.stop_time_s - r.start_time_s - p.launch_delay_s <= 1 / r.rotor_speed_rps + 1e-9
        if r.spin_id > 1:
            assert r.pocket_index == by_id[r.spin_id - 1].pocket_index
    launched = {e[3]["spin_id"] for e in events if e[2] == "ball_launch"}
    assert launched == {r.spin_id for r in results if r.launch_time_s is not None}
    assert not any(r.misspin for r in results if r.launch_time_s is not None)


def test_params_validate():
    adapter = pydantic.TypeAdapter(RouletteWheelParams)
    assert adapter.validate_python({"wheel": "double-zero", "tilt": 0.2}).pockets == 38
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"wheels": "double-zero"})
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"wheel": "triple-zero"})
    for bad in ({"tilt": 1.5}, {"launch_failure_probability": -0.1}, {"ball_speed_scale": 0},
                {"rim_deceleration_rad_s2": 0, "air_drag_per_rad": 0}, {"tilt_pocket_index": 37},
                {"bounce_mean_pockets": 0.1, "tilt": 0.5}):
        with pytest.raises(ValueError):
            RouletteWheelParams(**bad)


def test_the_outcome_does_not_depend_on_when_the_command_arrives():
    """A rig over a link commands a few ms later or earlier than the simulation: the same draws
    give the same pockets (the launch waits for the rotor at its drawn angle), only the times move."""
    def pockets_at(jitter_s: float) -> list:
        env = simpy.Environment()
        wheel = RouletteWheelSim(env, RouletteWheelParams(wheel="double-zero"), np.random.default_rng(42), lambda *a: None)
        out, jit = [], np.random.default_rng(1)

        def run():
            for _ in range(40):
                yield env.timeout(25.0 + float(jit.uniform(-jitter_s, jitter_s)))
                r = yield wheel.spin()
                out.append(r.pocket)
        env.process(run())
        env.run()
        return out

    assert pockets_at(0.0) == pockets_at(0.2) == pockets_at(1.0)
