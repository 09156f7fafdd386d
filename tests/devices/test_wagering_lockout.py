"""Wagering device with the dealer's lock-out (devices.wagering)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import simpy

from devices.contracts import PressAnswer, WageringDevice
from devices.wagering import WageringParams, WageringSim


def _bench(params=WageringParams(), seed=0):
    env = simpy.Environment()
    events = []
    dev = WageringSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    return env, dev, events


def _press_at(env, dev, t, seat=1, answers=None):
    def proc():
        yield env.timeout(t - env.now)
        answers.append((yield dev.press(seat, "5", 100)))
    env.process(proc())


def test_presses_around_the_lockout_edge_match_the_ground_truth():
    env, dev, events = _bench()
    assert isinstance(dev, WageringDevice)
    dev.open_betting()
    env.run(until=1.0)
    dev.lock_out()
    edge = dev.lockout_effective_time_s
    assert edge is not None and 1.0 < edge < 1.02
    answers = []
    offsets = [-3e-3, -1e-4, -1e-6, 0.0, 1e-6, 1e-4, 3e-3]
    for off in offsets:
        _press_at(env, dev, edge + off, answers=answers)
    env.run()
    assert [a.accepted for a in answers] == [off < 0 for off in offsets]
    for a in answers:
        assert isinstance(a, PressAnswer)
        assert a.answer_time_s == pytest.approx(a.device_time_s + 0.002)
        assert a.reason == (None if a.accepted else "locked_out")
    kinds = [e[2] for e in events]
    assert kinds[:3] == ["device_info", "betting_open", "lockout_command"]
    assert events[2][3] == {"device_time_s": 1.0}
    press_msgs = [e for e in events if e[2] == "press"]
    assert [m[3]["press_id"] for m in press_msgs] == sorted(m[3]["press_id"] for m in press_msgs)
    assert all(m[0] == m[3]["answer_time_s"] for m in press_msgs)
    json.dumps([e[3] for e in events])


def test_latency_distribution_and_reopen():
    env, dev, _ = _bench(WageringParams(lockout_latency_mean_s=0.030, lockout_latency_jitter_s=0.003), seed=3)
    lat = []
    for _ in range(2000):
        dev.open_betting()
        assert dev.lockout_effective_time_s is None
        dev.lock_out()
        lat.append(dev.lockout_effective_time_s - env.now)
    lat = np.array(lat)
    assert lat.min() > 0
    assert abs(lat.mean() - 0.030) < 0.0005 and abs(lat.std() - 0.003) < 0.0005


def test_lockout_ignored_accepts_late_presses():
    env, dev, _ = _bench(WageringParams(lockout_ignored=True))
    dev.open_betting()
    dev.lock_out()
    assert dev.lockout_effective_time_s is None
    answers = []
    _press_at(env, dev, 0.5, answers=answers)
    env.run()
    assert answers[0].accepted


def test_invalid_seat_and_betting_never_opened():
    env, dev, _ = _bench()
    answers = []
    _press_at(env, dev, 0.1, seat=2, answers=answers)
    env.run()
    assert answers[-1].reason == "betting_closed" and not answers[-1].accepted
    dev.open_betting()
    for seat in (0, 8, -1):
        _press_at(env, dev, env.now + 0.1, seat=seat, answers=answers)
        env.run()
        assert answers[-1].reason == "invalid_seat"
    _press_at(env, dev, env.now + 0.1, seat=7, answers=answers)
    env.run()
    assert answers[-1].accepted and answers[-1].reason is None
