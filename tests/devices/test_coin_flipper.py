"""Coin flipper model (devices.coin_flipper): a physical flip (Keller / Diaconis–Holmes–Montgomery),
§ 690.5(b), (d)."""

from __future__ import annotations

import json
import math

import numpy as np
import pydantic
import pytest
import simpy
from scipy.stats import binomtest

from devices.coin_flipper import CoinFlipperParams, CoinFlipperSim, coin_flight, same_face_probability
from devices.contracts import CoinFlipper, CoinFlipResult
from rules.bonus import COIN_SIDES


def _flips(params: CoinFlipperParams, n: int, seed: int = 0, gap_s: float = 5.0):
    env = simpy.Environment()
    events = []
    flipper = CoinFlipperSim(env, params, np.random.default_rng(seed),
                             lambda d, k, p: events.append((env.now, d, k, p)))
    results, commands = [], []

    def croupier():
        for _ in range(n):
            commands.append(env.now)
            results.append((yield flipper.flip()))
            yield env.timeout(gap_s)

    env.process(croupier())
    env.run()
    return flipper, results, commands, events


def test_contract_telemetry_timing_and_half_turn_parity():
    p = CoinFlipperParams()
    flipper, results, commands, events = _flips(p, 200)
    assert isinstance(flipper, CoinFlipper)
    assert events[0][1:] == ("coin_flipper", "device_info", {"sides": ["red", "blue"]})
    json.dumps([e[3] for e in events])
    starts = [e for e in events if e[2] == "coin_flip_start"]
    stops = [e for e in events if e[2] == "coin_flip_stop"]
    assert len(starts) == len(stops) == 200
    prev_face = None
    for c, r, s_msg, e_msg in zip(commands, results, starts, stops):
        assert isinstance(r, CoinFlipResult) and r.face in COIN_SIDES and r.start_face in COIN_SIDES
        assert r.start_time_s == pytest.approx(c + p.launch_delay_s) and s_msg[0] == r.start_time_s
        assert s_msg[3] == {"flip_id": r.flip_id, "device_time_s": r.start_time_s}
        assert e_msg[0] == r.stop_time_s and e_msg[3]["face"] == r.face
        # stop - start = flight 2v/g + settle
        flight = 2 * r.launch_speed_mps / p.g_mps2
        assert r.stop_time_s - r.start_time_s == pytest.approx(flight + p.settle_time_s)
        # the face changed exactly when the coin made an odd number of half turns
        assert (r.face == r.start_face) == (r.half_turns % 2 == 0)
        # pure Keller flip: the half revolution nearest the landing attitude
        assert abs(r.half_turns - 2 * r.spin_rate_rps * flight) <= 0.5 + 1e-9
        assert r.launch_speed_mps > 0 and r.spin_rate_rps > 0
        if prev_face is not None:  # the coin rests where it landed
            assert r.start_face == prev_face
        prev_face = r.face
    assert [r.flip_id for r in results] == list(range(1, 201))


def test_initial_face_from_params_or_rng():
    for face in COIN_SIDES:
        _, results, _, _ = _flips(CoinFlipperParams(initial_face=face), 1)
        assert results[0].start_face == face
    drawn = {_flips(CoinFlipperParams(), 1, seed=s)[1][0].start_face for s in range(20)}
    assert drawn == set(COIN_SIDES)


def test_closed_form_flight_matches_the_precession_formula():
    """cos θ(T) = cos²ψ + sin²ψ·cos(2πωT): face kept iff > 0; zero crossings counted by brute force."""
    rng = np.random.default_rng(3)
    for psi in (90.0, 75.0, 60.0, 50.0, 40.0):
        c2, s2 = math.cos(math.radians(psi)) ** 2, math.sin(math.radians(psi)) ** 2
        for v, w in zip(rng.uniform(1, 4, 200), rng.uniform(5, 40, 200)):
            f = coin_flight(float(v), float(w), psi)
            t = np.linspace(0, f.flight_s, 20001)
            cos_theta = c2 + s2 * np.cos(2 * np.pi * w * t)
            if abs(cos_theta[-1]) < 1e-6:
                continue
            assert f.same_face == (cos_theta[-1] > 0)
            crossings = int(np.count_nonzero(np.diff(np.sign(cos_theta)) != 0))
            assert f.half_turns == crossings
            assert f.flight_s == pytest.approx(2 * v / 9.80665)


def test_dhm_same_face_probability():
    assert same_face_probability(90.0) == pytest.approx(0.5)
    assert same_face_probability(60.0) == pytest.approx(0.5 + math.asin(1 / 3) / math.pi)
    assert same_face_probability(45.0) == 1.0 and same_face_probability(30.0) == 1.0


def test_healthy_coin_is_fair():
    _, results, _, _ = _flips(CoinFlipperParams(), 20_000, seed=11, gap_s=0.0)
    n = len(results)
    red = sum(r.face == "red" for r in results)
    same = sum(r.face == r.start_face for r in results)
    assert binomtest(red, n, 0.5).pvalue > 0.001, f"red {red}/{n}"
    assert binomtest(same, n, 0.5).pvalue > 0.001, f"same as start {same}/{n}"


def test_precession_biases_toward_the_start_face():
    """ψ = 60°: DHM P(same) = 1/2 + asin(1/3)/π ≈ 0.608."""
    _, results, _, _ = _flips(CoinFlipperParams(precession_deg=60.0), 20_000, seed=5, gap_s=0.0)
    n = len(results)
    same = sum(r.face == r.start_face for r in results) / n
    expected = same_face_probability(60.0)
    assert abs(same - expected) < 4 * math.sqrt(expected * (1 - expected) / n), (same, expected)
    assert binomtest(round(same * n), n, 0.5).pvalue < 1e-6  # the bias is visible
    assert all((r.face == r.start_face) == (r.half_turns % 2 == 0) for r in results)


def test_no_turn_over_below_45_degrees():
    _, results, _, _ = _flips(CoinFlipperParams(precession_deg=40.0), 200, seed=6, gap_s=0.0)
    assert all(r.face == r.start_face and r.half_turns == 0 for r in results)


def test_settle_bias_favours_red():
    b = 0.3
    _, results, _, _ = _flips(CoinFlipperParams(settle_bias_red=b), 6000, seed=7, gap_s=0.0)
    n = len(results)
    red = sum(r.face == "red" for r in results) / n
    assert abs(red - (0.5 + b / 2)) < 4 * math.sqrt(0.25 / n)
    assert all((r.face == r.start_face) == (r.half_turns % 2 == 0) for r in results)


def test_params_are_validated():
    for bad in (dict(precession_deg=91), dict(settle_bias_red=1.5), dict(initial_face="green"),
                dict(launch_speed_mean_mps=0), dict(spin_rate_sd_rps=-1), dict(settle_time_s=-0.1)):
        with pytest.raises(ValueError):
            CoinFlipperParams(**bad)


def test_params_load_from_bench_data():
    """The bench validates params with pydantic: plain data in, unknown keys refused."""
    adapter = pydantic.TypeAdapter(CoinFlipperParams)
    loaded = adapter.validate_python({"precession_deg": 60, "settle_bias_red": 0.1})
    assert loaded == CoinFlipperParams(**{"precession_deg": 60, "settle_bias_red": 0.1})
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"no_such_knob": 1})
