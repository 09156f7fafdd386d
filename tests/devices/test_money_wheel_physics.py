"""Money wheel physics (devices.money_wheel): deceleration, energy, revolutions, clapper, bias."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import simpy
from scipy.stats import chisquare

from devices.contracts import MoneyWheel, SpinStop
from devices.money_wheel import (
    MoneyWheelParams,
    MoneyWheelSim,
    simulate_spin,
    simulate_spins_batch,
    spin_trajectory,
)
from rules.crazy_time import WHEEL_SECTIONS

L = len(WHEEL_SECTIONS)
W0 = 2 * math.pi * 0.92  # default mean push, rad/s


@pytest.mark.parametrize("direction", ["cw", "ccw"])
@pytest.mark.parametrize("start", [0.0, 1.0, 2 * math.pi / L * 7, 5.5])
def test_speed_strictly_decreases_peg_to_peg_on_a_balanced_wheel(direction, start):
    tr = spin_trajectory(MoneyWheelParams(), L, start, W0, direction)
    w = tr.peg_arrival_speeds_rad_s
    assert len(w) > 300
    assert np.all(np.diff(w) < 0)
    assert np.all(np.diff(tr.peg_arrival_times_s) > 0)
    assert w[0] < W0


@pytest.mark.parametrize("params", [
    MoneyWheelParams(),
    MoneyWheelParams(imbalance_kg_m=0.5, imbalance_angle_deg=75.0),
    MoneyWheelParams(clapper_wear=30.0),
    MoneyWheelParams(bearing_friction_torque_n_m=12.0),  # many friction stops between pegs
])
def test_energy_bookkeeping_closes(params):
    rng = np.random.default_rng(5)
    kinds = set()
    for i in range(400):
        ph = simulate_spin(params, L, rng.uniform(0, 2 * math.pi), rng.uniform(2.0, 8.0), ("cw", "ccw")[i % 2])
        total = ph.friction_work_j + ph.peg_losses_j + ph.potential_change_j + ph.residual_j
        assert total == pytest.approx(ph.e0_j, rel=1e-9, abs=0)
        assert ph.e0_j == pytest.approx(0.5 * params.inertia_kg_m2 * ph.omega0_rad_s**2)
        assert ph.peg_losses_j == pytest.approx(ph.pegs_passed * params.peg_loss_j)
        kinds.add(ph.rest)
        if ph.rest == "friction":
            assert ph.residual_j == 0.0
        else:
            assert 0 <= ph.residual_j <= params.clapper_barrier_j + params.on_peg_band_effective_j / 2
    assert {"rock_back", "friction"} <= kinds


def test_outcome_is_consistent_with_the_stopping_rule():
    p = MoneyWheelParams()
    band = p.on_peg_band_effective_j
    for start in np.linspace(0, 2 * math.pi, 40, endpoint=False):
        tr = spin_trajectory(p, L, float(start), W0 * 0.97, "ccw")
        e = tr.peg_arrival_energies_j
        ph = tr.physics
        if ph.rest == "friction":  # every peg met was cleared, the wheel stopped before the next
            assert np.all(e >= p.clapper_barrier_j + band / 2)
        else:  # all but the last cleared
            assert np.all(e[:-1] >= p.clapper_barrier_j + band / 2)
            assert e[-1] < p.clapper_barrier_j + band / 2
            assert ph.on_peg == (e[-1] >= p.clapper_barrier_j - band / 2)
        assert ph.pegs_passed == (len(e) if ph.rest == "friction" else len(e) - 1)


def test_direction_sets_the_order_sections_pass_the_clapper():
    d = 2 * math.pi / L
    start = 10.5 * d  # middle of section 10
    cw = spin_trajectory(MoneyWheelParams(), L, start, W0, "cw")
    ccw = spin_trajectory(MoneyWheelParams(), L, start, W0, "ccw")
    assert list(cw.peg_indices[:3]) == [10, 9, 8]  # clockwise: section indices decrease
    assert list(ccw.peg_indices[:3]) == [11, 12, 13]
    for tr in (cw, ccw):
        assert tr.physics.revolutions > 5
        assert 0 <= tr.physics.final_angle_rad < 2 * math.pi
        # the section reported is the one under the clapper at rest
        if not tr.physics.on_peg:
            assert int(tr.physics.final_angle_rad // d) == tr.physics.section_index


def test_index_pulses_once_per_turn_of_the_index_mark():
    for direction in ("cw", "ccw"):
        ph = simulate_spin(MoneyWheelParams(), L, 3.0, W0, direction)
        n = len(ph.pulse_times_s)
        assert math.floor(ph.revolutions) <= n <= math.floor(ph.revolutions) + 1
        gaps = np.diff(ph.pulse_times_s)
        assert np.all(gaps > 0) and np.all(np.diff(gaps) > 0)  # slowing down: turns take longer
        assert ph.pulse_times_s[-1] < ph.duration_s


def test_revolutions_and_duration_of_a_normal_spin():
    b = simulate_spins_batch(MoneyWheelParams(), 20_000, np.random.default_rng(1))
    assert 6.5 < b.revolutions.mean() < 7.7
    assert 0.9 < b.revolutions.std() < 1.6
    assert np.mean((b.revolutions > 4) & (b.revolutions < 11)) > 0.99
    rng = np.random.default_rng(2)
    durations = [simulate_spin(MoneyWheelParams(), L, rng.uniform(0, 6), 2 * math.pi * rng.normal(0.92, 0.08),
                               "cw").duration_s for _ in range(500)]
    assert 12 < np.mean(durations) < 19
    assert min(durations) > 8 and max(durations) < 25


def test_weak_push_gives_fewer_than_three_revolutions():
    b = simulate_spins_batch(MoneyWheelParams(push_scale=0.35), 20_000, np.random.default_rng(3))
    assert np.mean(b.revolutions < 3) > 0.999


def test_on_peg_rests_are_rare_and_more_frequent_with_a_worn_clapper():
    healthy = simulate_spins_batch(MoneyWheelParams(), 50_000, np.random.default_rng(4))
    worn = simulate_spins_batch(MoneyWheelParams(clapper_wear=10.0), 50_000, np.random.default_rng(4))
    assert 0.002 < healthy.on_peg.mean() < 0.01
    assert 0.03 < worn.on_peg.mean() < 0.08
    assert worn.on_peg.mean() > 5 * healthy.on_peg.mean()


def test_batch_follows_simulate_spin():
    """The batch is the same physics: replaying its pushes through simulate_spin agrees."""
    p = MoneyWheelParams(imbalance_kg_m=0.5, imbalance_angle_deg=30.0)
    b = simulate_spins_batch(p, 200, np.random.default_rng(9), start_angle_rad=1.25, direction="alternate")
    rng = np.random.default_rng(9)
    pushes = 2 * math.pi * (rng.normal(p.push_speed_mean_rps, p.push_speed_sd_rps, 200) * p.push_scale)
    angle = 1.25
    for i in range(200):
        ph = simulate_spin(p, L, angle, float(pushes[i]), ("cw", "ccw")[i % 2])
        assert (ph.section_index, ph.on_peg) == (b.section_index[i], b.on_peg[i])
        assert ph.revolutions == pytest.approx(b.revolutions[i], rel=1e-12)
        angle = ph.final_angle_rad


def _run_spins(params, n, seed=0, directions=("cw", "ccw")):
    env = simpy.Environment()
    events = []
    wheel = MoneyWheelSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    stops, angles = [], []

    def croupier():
        for i in range(n):
            angles.append(wheel.angle_rad)
            ev = wheel.spin(directions[i % len(directions)])
            yield ev | env.timeout(60)
            stops.append(ev.value if ev.processed else None)
            angles.append(wheel.angle_rad)

    env.process(croupier())
    env.run()
    return wheel, stops, events, angles


def test_sim_implements_the_contract_and_emits_its_telemetry():
    wheel, stops, events, _ = _run_spins(MoneyWheelParams(), 4)
    assert isinstance(wheel, MoneyWheel)
    kinds = [e[2] for e in events]
    assert kinds[0] == "device_info" and kinds.count("device_info") == 1
    assert events[0][3]["sections"] == [str(s) for s in WHEEL_SECTIONS] or \
        tuple(events[0][3]["sections"]) == tuple(str(s) for s in WHEEL_SECTIONS)
    assert [s.spin_id for s in stops] == [1, 2, 3, 4]
    for stop in stops:
        assert isinstance(stop, SpinStop)
        assert stop.spot == str(WHEEL_SECTIONS[stop.section_index])
        assert stop.stop_time_s == pytest.approx(stop.start_time_s + stop.duration_s)
        mine = [e for e in events if e[3].get("spin_id") == stop.spin_id]
        assert mine[0][2] == "spin_start" and mine[0][0] == stop.start_time_s
        assert mine[-1][2] == "spin_stop" and mine[-1][0] == stop.stop_time_s
        pulses = [e for e in mine if e[2] == "index_pulse"]
        assert [p[3]["count"] for p in pulses] == list(range(1, len(pulses) + 1))
        assert math.floor(stop.revolutions) <= len(pulses) <= math.floor(stop.revolutions) + 1
        assert all(stop.start_time_s < p[0] < stop.stop_time_s for p in pulses)
    json.dumps([e[3] for e in events])  # JSON-able payloads


def test_start_angle_carries_over_between_spins():
    wheel, stops, events, angles = _run_spins(MoneyWheelParams(initial_angle_rad=2.0), 5)
    assert angles[0] == 2.0
    for i in range(1, 5):
        assert angles[2 * i] == angles[2 * i - 1]  # next spin starts where the last stopped
    assert wheel.last_physics.final_angle_rad == angles[-1]


def test_stuck_index_sensor_sends_no_pulses_and_dropout_loses_messages():
    _, stops, events, _ = _run_spins(MoneyWheelParams(index_sensor_stuck=True), 3)
    assert not [e for e in events if e[2] == "index_pulse"] and all(stops)
    _, stops, events, _ = _run_spins(MoneyWheelParams(telemetry_dropout=0.3), 40, seed=3)
    n_stop_msgs = len([e for e in events if e[2] == "spin_stop"])
    assert 0 < stops.count(None) == 40 - n_stop_msgs  # an event is triggered iff its stop message was sent
    assert len([e for e in events if e[2] == "spin_start"]) < 40


def test_misbuilt_layout_and_small_diameter_are_declared():
    layout = tuple(str(s) for s in WHEEL_SECTIONS[::-1])
    env = simpy.Environment()
    seen = []
    w = MoneyWheelSim(env, MoneyWheelParams(layout=layout, diameter_m=1.2), np.random.default_rng(0),
                      lambda *a: seen.append(a))
    assert w.info().sections == layout and w.info().diameter_m == 1.2 and w.info().pegs == 54
    assert seen[0][2]["sections"] == layout


def test_spin_while_turning_is_refused():
    env = simpy.Environment()
    w = MoneyWheelSim(env, MoneyWheelParams(), np.random.default_rng(0), lambda *a: None)
    w.spin("cw")
    with pytest.raises(RuntimeError):
        w.spin("ccw")
    with pytest.raises(ValueError):
        MoneyWheelSim(env, MoneyWheelParams(), np.random.default_rng(0), lambda *a: None).spin("up")


def test_seed_reproduces_everything():
    a = _run_spins(MoneyWheelParams(telemetry_dropout=0.1), 10, seed=11)[2]
    b = _run_spins(MoneyWheelParams(telemetry_dropout=0.1), 10, seed=11)[2]
    assert a == b


def _chi2_p(sections):
    return chisquare(np.bincount(sections, minlength=L)).pvalue


@pytest.mark.slow
def test_balanced_wheel_sections_are_uniform_over_1e5_spins():
    b = simulate_spins_batch(MoneyWheelParams(), 100_000, np.random.default_rng(2024))
    assert _chi2_p(b.section_index) > 0.01


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["cw", "ccw"])
def test_balanced_wheel_is_uniform_in_each_direction(direction):
    b = simulate_spins_batch(MoneyWheelParams(), 100_000, np.random.default_rng(7), direction=direction)
    assert _chi2_p(b.section_index) > 0.01


@pytest.mark.slow
def test_imbalanced_wheel_fails_chi2_in_each_direction():
    """0.5 kg·m: the bias is direction-dependent (gravity adds to the braking on the uphill side
    of the motion), so it shows in each direction; pooled over alternating directions it cancels
    to first order — the chi-square check must split by direction."""
    p = MoneyWheelParams(imbalance_kg_m=0.5, imbalance_angle_deg=0.0)
    for direction in ("cw", "ccw"):
        b = simulate_spins_batch(p, 20_000, np.random.default_rng(27), direction=direction)
        assert _chi2_p(b.section_index) < 1e-20
    b = simulate_spins_batch(p, 20_000, np.random.default_rng(27), direction="alternate")
    for mask in (b.direction_cw, ~b.direction_cw):
        assert _chi2_p(b.section_index[mask]) < 1e-20
