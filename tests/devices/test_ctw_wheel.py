"""Crazy Time World virtual wheel model (devices.ctw_wheel), § 690.8(b)–(d)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pydantic
import pytest
import simpy
from scipy.stats import chisquare

from devices.contracts import CrazyTimeWorldWheel, CtwStop
from devices.ctw_wheel import BIAS_REGION, CtwWheelParams, CtwWheelSim


def _spins(params: CtwWheelParams, n: int, seed: int = 0, gap_s: float = 2.0):
    env = simpy.Environment()
    events = []
    wheel = CtwWheelSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    initial = wheel.offset
    stops, commands = [], []

    def presenter():
        for _ in range(n):
            commands.append(env.now)
            stops.append((yield wheel.spin()))
            yield env.timeout(gap_s)

    env.process(presenter())
    env.run()
    return wheel, initial, stops, commands, events


def _offset(stop: CtwStop, clappers) -> int:
    return (stop.sections[0] - clappers[0]) % 64


def test_contract_telemetry_turns_and_sections():
    p = CtwWheelParams()
    wheel, initial, stops, commands, events = _spins(p, 300)
    assert isinstance(wheel, CrazyTimeWorldWheel)
    assert events[0][1:] == ("ctw_wheel", "device_info", {"sections": 64, "clappers": [0, 3, 6]})
    json.dumps([e[3] for e in events])
    starts = [e for e in events if e[2] == "ctw_start"]
    ends = [e for e in events if e[2] == "ctw_stop"]
    prev = initial
    for c, s, st, en in zip(commands, stops, starts, ends):
        assert isinstance(s, CtwStop) and s.start_time_s == c
        assert st[3] == {"spin_id": s.spin_id, "device_time_s": c}
        assert en[0] == s.stop_time_s and en[3]["sections"] == s.sections
        off = _offset(s, p.clappers)
        assert s.sections == tuple((k + off) % 64 for k in p.clappers)  # consistent with the clappers
        # whole turns plus the way from the previous rest offset
        assert s.turns == pytest.approx(p.whole_turns + ((off - prev) % 64) / 64)
        duration = s.stop_time_s - s.start_time_s
        assert duration >= p.min_spin_duration_s
        omega0 = wheel.initial_speed_rps(s)
        assert omega0 * duration / 2 == pytest.approx(s.turns)  # constant deceleration to rest
        prev = off
    durations = [s.stop_time_s - s.start_time_s for s in stops]
    assert abs(np.mean(durations) - p.spin_duration_mean_s) < 0.15
    assert [s.spin_id for s in stops] == list(range(1, 301))


def test_stop_is_uniform():
    _, _, stops, _, _ = _spins(CtwWheelParams(), 12_800, seed=1, gap_s=0.0)
    counts = Counter(s.sections[0] for s in stops)
    assert chisquare([counts[i] for i in range(64)]).pvalue > 0.001


def test_stop_bias_is_detectable():
    _, _, stops, _, _ = _spins(CtwWheelParams(stop_bias=0.2), 6400, seed=2, gap_s=0.0)
    counts = Counter(_offset(s, (0, 3, 6)) for s in stops)
    assert chisquare([counts[i] for i in range(64)]).pvalue < 1e-9
    in_region = sum(counts[i] for i in range(BIAS_REGION)) / len(stops)
    expected = 0.2 + 0.8 * BIAS_REGION / 64
    assert abs(in_region - expected) < 0.02


def test_misplaced_clappers_are_reported_as_configured():
    p = CtwWheelParams(clappers=(0, 1, 2))
    _, _, stops, _, events = _spins(p, 50, seed=3)
    assert events[0][3]["clappers"] == [0, 1, 2]
    for s in stops:
        a, b, c = s.sections
        assert (b - a) % 64 == 1 and (c - b) % 64 == 1  # no section between neighbours (§ 690.8(b)(4))


def test_default_clappers_have_two_sections_between():
    """§ 690.8(b)(4)'s example: clappers on sections 1, 4 and 7."""
    k = CtwWheelParams().clappers
    assert [(k[1] - k[0]) - 1, (k[2] - k[1]) - 1] == [2, 2]


def test_params_are_validated():
    for bad in (dict(clappers=(0, 3)), dict(clappers=(0, 3, 64)), dict(stop_bias=1.5), dict(whole_turns=0),
                dict(spin_duration_mean_s=0), dict(min_spin_duration_s=0)):
        with pytest.raises(ValueError):
            CtwWheelParams(**bad)


def test_params_load_from_bench_data():
    """The bench validates params with pydantic: plain data in, unknown keys refused."""
    adapter = pydantic.TypeAdapter(CtwWheelParams)
    loaded = adapter.validate_python({"clappers": [0, 1, 2], "stop_bias": 0.1})
    assert loaded == CtwWheelParams(clappers=(0, 1, 2), stop_bias=0.1)
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"no_such_knob": 1})
