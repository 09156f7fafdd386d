"""The vendor wheel's physics keeps the wire contract's pass rules spin after spin
(docs/wire/modbus-money-wheel.md "Pass rules"), and behaves like a real clapper wheel."""

from __future__ import annotations

import math

import numpy as np

from tests.peers.vendor_ct.wheel import SECTIONS, WheelPhysics, simulate


def _spins(n: int, phys: WheelPhysics = WheelPhysics(), seed: int = 3):
    rng = np.random.default_rng(seed)
    angle, on_peg, out = float(rng.uniform(0, 2 * math.pi)), False, []
    for i in range(n):
        v = max(phys.push_speed_min_rps, float(rng.normal(phys.push_speed_mean_rps, phys.push_speed_sd_rps)))
        s = simulate(phys, i + 1, "cw" if i % 2 == 0 else "ccw", 0.0, angle, 2 * math.pi * v, on_peg)
        angle, on_peg = s.end_angle_rad, s.on_peg
        out.append(s)
    return out


def test_each_spin_keeps_the_pass_rules():
    spins = _spins(400)
    for s in spins:
        r = s.revolutions
        assert r >= 3, r                                                   # a healthy push: a valid spin
        assert len(s.pulse_times_s) in (math.floor(r), math.floor(r) + 1)  # index pulses
        assert abs(len(s.peg_times_s) - r * len(SECTIONS)) <= 1            # pegs within 1 of R × 54
        assert np.all(np.diff(s.peg_times_s) > 0) and s.start_s < s.peg_times_s[0] < s.rest_s
        assert 0 <= s.section_index < len(SECTIONS)
    revs = np.array([s.revolutions for s in spins])
    assert 6.5 < revs.mean() < 10.0                                        # ≈ 8 turns, ≈ 18 s
    # the speed decays: each peg takes longer than the one before
    gaps = np.diff(spins[0].peg_times_s)
    assert gaps[-1] > 5 * gaps[0]


def test_a_worn_clapper_rests_on_pegs_more_often():
    healthy = sum(s.on_peg for s in _spins(300))
    worn = sum(s.on_peg for s in _spins(300, WheelPhysics(on_peg_band_j=1.2)))
    assert healthy <= 6 and worn >= 120, (healthy, worn)
