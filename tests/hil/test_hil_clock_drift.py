"""The device-clock estimator (``hil.clock.ClockEstimator``, docs/wire/clock.md): synthetic round
trips with a known offset, drift and jitter are recovered within the uncertainty the estimator
states; a drift beyond the bench's maximum is flagged; a clock at another time scale is refused."""

from __future__ import annotations

import numpy as np
import pytest

from hil.clock import ClockEstimator, ClockRateMismatch, ClockSample, check_rate, rate_bracket


def _round_trips(rng, t0: float, t1: float, period_s: float, offset_s: float, drift_ppm: float,
                 rtt_min_s: float = 120e-6, jitter_s: float = 300e-6):
    """Round trips every ``period_s``: the device reads its clock somewhere inside each one (a
    request's way out and the answer's way back each take a random share of the jitter)."""
    d = drift_ppm * 1e-6
    for tx in np.arange(t0, t1, period_s):
        up, down = rtt_min_s / 2 + rng.exponential(jitter_s / 2), rtt_min_s / 2 + rng.exponential(jitter_s / 2)
        read = tx + up
        device = read + offset_s + d * read
        rx = read + down
        yield ClockSample((tx + rx) / 2, (rx - tx) / 2, device), read, device


def _true_sim(device_s: float, offset_s: float, drift_ppm: float) -> float:
    return (device_s - offset_s) / (1 + drift_ppm * 1e-6)


@pytest.mark.parametrize("drift_ppm", [0.0, 2000.0, -350.0, 40.0])
def test_offset_and_drift_recovered_within_the_stated_uncertainty(drift_ppm):
    rng = np.random.default_rng(7)
    offset = 12.345
    est = ClockEstimator(max_drift_ppm=5000)
    trips = list(_round_trips(rng, 0.0, 40.0, 0.01, offset, drift_ppm))
    est.start([s for s, _, _ in trips[:16]])
    worst = 0.0
    maps = kept = 0
    cur = est.map
    for s, read, device in trips[16:]:
        m = est.add(s)
        if m is None:
            continue
        maps += 1
        # the adapters keep the map in use while it agrees with the refit (its bound then widens)
        keep = cur.kept_against(m)
        kept += keep is not None
        for used in (m, keep or m):
            # every device time read within the window and just past it maps to within the bound
            for _, r, dev in trips[::97]:
                if used.valid_from_s <= r <= min(used.valid_to_s, s.mid_s + 0.5):
                    err = abs(used.to_sim(round(dev * 1e9)) - r)
                    worst = max(worst, err / used.uncertainty_s)
                    assert err <= used.uncertainty_s + 2e-9, (used, r, err)
        cur = keep or m
    assert maps > 50 and kept > 0
    assert worst > 0.01  # the bound is not vacuous-by-construction
    m = est.map
    assert m.fitted
    assert abs(m.fitted_drift_ppm - drift_ppm) <= m.drift_uncertainty_ppm
    # a drift not resolved from 0 is not applied (intervals are not rescaled by noise)
    assert m.drift_ppm == (m.fitted_drift_ppm if abs(m.fitted_drift_ppm) > m.drift_uncertainty_ppm else 0.0)
    assert m.drift_uncertainty_ppm < 100  # a 20 s window pins the drift to tens of ppm
    assert m.uncertainty_s < 1e-3
    assert not est.beyond_max()


def test_connect_map_is_offset_only_with_the_maximum_drift_as_its_uncertainty():
    rng = np.random.default_rng(1)
    est = ClockEstimator(max_drift_ppm=500)
    trips = list(_round_trips(rng, 5.0, 5.004, 0.00025, 3.0, 300.0))
    m = est.start([s for s, _, _ in trips])
    assert not m.fitted and m.drift_ppm == 0 and m.drift_uncertainty_ppm == 500
    # covers the next second of extrapolation at the maximum drift (2 buckets)
    assert m.uncertainty_s >= 500e-6 * 1.0
    for _, r, dev in trips:
        assert abs(m.to_sim(round(dev * 1e9)) - r) <= m.uncertainty_s


def test_drift_beyond_the_maximum_is_flagged_and_within_it_is_not():
    rng = np.random.default_rng(3)
    for drift, flagged in ((2000.0, True), (300.0, False)):
        est = ClockEstimator(max_drift_ppm=500)
        trips = list(_round_trips(rng, 0.0, 10.0, 0.01, -2.0, drift))
        est.start([s for s, _, _ in trips[:16]])
        for s, _, _ in trips[16:]:
            est.add(s)
        assert est.beyond_max() is flagged, (drift, est.map)


def test_a_round_trip_with_a_stamp_from_another_request_is_ignored():
    est = ClockEstimator()
    est.start([ClockSample(1.0, 1e-4, 2.0)])
    assert est.add(ClockSample(1.0, -1e-4, 2.0)) is None
    assert est.samples == 1


def test_another_time_scale_is_refused_and_a_drifting_clock_is_not():
    rng = np.random.default_rng(5)
    fast = [ClockSample(s.mid_s, s.half_s, 20 * s.device_s) for s, _, _ in _round_trips(rng, 1.0, 1.004, 0.00025, 0, 0)]
    lo, hi = rate_bracket(fast)
    assert lo <= 20 <= hi
    with pytest.raises(ClockRateMismatch, match="time-scale mismatch"):
        check_rate(fast, "wheel at tcp://x", 1.0)
    slow = [ClockSample(s.mid_s, s.half_s, s.device_s / 20) for s, _, _ in _round_trips(rng, 1.0, 1.004, 0.00025, 0, 0)]
    with pytest.raises(ClockRateMismatch):
        check_rate(slow, "wheel", 20.0)
    check_rate([s for s, _, _ in _round_trips(rng, 1.0, 1.004, 0.00025, 5.0, 2000.0)], "wheel", 1.0)


def test_max_drift_must_be_positive():
    with pytest.raises(ValueError, match="max_clock_drift_ppm"):
        ClockEstimator(0)
