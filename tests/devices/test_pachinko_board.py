"""Pachinko wall model (devices.pachinko): a puck simulated peg by peg on rules.pachinko.Lattice,
§ 690.7(b), (d)."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pydantic
import pytest
import simpy
from scipy.stats import chisquare

from devices.contracts import PachinkoBoard, PuckLanding
from devices.pachinko import TILT_GAIN, PachinkoParams, PachinkoSim, fall_times_s
from rules.pachinko import DROP_ZONES, Lattice, spot_centre


def _drops(params: PachinkoParams, zones, seed: int = 0, gap_s: float = 1.0, until: float | None = None):
    env = simpy.Environment()
    events = []
    board = PachinkoSim(env, params, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    results, commands = [], []

    def croupier():
        for z in zones:
            commands.append(env.now)
            ev = board.drop(z)
            if params.puck_stuck_probability > 0:  # the croupier waits with its own timeout
                got = yield ev | env.timeout(10.0)
                results.append(got[ev] if ev in got else None)
            else:
                results.append((yield ev))
            yield env.timeout(gap_s)

    env.process(croupier())
    env.run(until=until)
    return board, results, commands, events


def _path_end(zone: int, path: str) -> int:
    u = spot_centre(zone)
    for c in path:
        nxt = Lattice.deflect(u, c == "R")
        assert (nxt > u) == (c == "R"), f"path letter {c} at u={u} is not the side the puck went"
        u = nxt
    return u


def test_contract_telemetry_paths_and_timing():
    p = PachinkoParams()
    board, results, commands, events = _drops(p, [4, 13, 8, 9] * 25)
    assert isinstance(board, PachinkoBoard)
    assert events[0][1:] == ("pachinko", "device_info", {"rows": 12, "spots": 16, "zones": list(range(4, 14))})
    json.dumps([e[3] for e in events])
    drops = [e for e in events if e[2] == "puck_drop"]
    landed = [e for e in events if e[2] == "puck_landed"]
    fall = sum(fall_times_s(p))
    for c, r, d_msg, l_msg in zip(commands, results, drops, landed):
        assert isinstance(r, PuckLanding) and 1 <= r.spot <= 16 and len(r.path) == 12 and set(r.path) <= {"L", "R"}
        assert Lattice.spot_of(_path_end(r.zone, r.path)) == r.spot  # the path leads to the spot
        assert r.start_time_s == pytest.approx(c + p.release_delay_s)
        assert d_msg[3] == {"drop_id": r.drop_id, "zone": r.zone, "device_time_s": r.start_time_s}
        assert r.stop_time_s - r.start_time_s == pytest.approx(fall + p.settle_time_s)
        assert l_msg[0] == r.stop_time_s and l_msg[3]["spot"] == r.spot
    assert [r.drop_id for r in results] == list(range(1, 101))


def test_fall_times_follow_the_restitution_physics():
    p = PachinkoParams()
    ts = fall_times_s(p)
    assert len(ts) == p.rows + 1
    assert ts[0] == pytest.approx(math.sqrt(2 * p.row_pitch_m / p.g_mps2))  # from rest
    v = 0.0
    for t in ts:  # v' = sqrt(v² + 2gh), then v <- e·v'
        v_next = math.sqrt(v * v + 2 * p.g_mps2 * p.row_pitch_m)
        assert t == pytest.approx((v_next - v) / p.g_mps2)
        v = p.restitution * v_next
    # speed tends to sqrt(2gh / (1 - e²)) at the hit: the per-row time settles
    assert ts[-1] == pytest.approx(ts[-2], rel=1e-3)


def test_timing_increases_with_rows():
    durations = []
    for rows in (4, 8, 12, 16):
        _, results, _, _ = _drops(PachinkoParams(rows=rows), [8])
        durations.append(results[0].stop_time_s - results[0].start_time_s)
        assert len(results[0].path) == rows
    assert durations == sorted(durations) and len(set(durations)) == 4


def test_healthy_landings_agree_with_the_exact_matrix():
    """χ² of 20k drops from zone 8 against rules.pachinko.Lattice's exact matrix."""
    n = 20_000
    board, results, _, _ = _drops(PachinkoParams(), [8] * n, seed=1, gap_s=0.0)
    exact = Lattice(12).landing_distribution(8)
    truth = board.ground_truth_matrix()[DROP_ZONES.index(8)]
    assert truth == pytest.approx([float(x) for x in exact])
    counts = Counter(r.spot for r in results)
    support = [k for k in range(16) if exact[k] > 0]
    expected = [n * float(exact[k]) for k in support]
    pooled_obs, pooled_exp, acc_o, acc_e = [], [], 0, 0.0  # pool cells with expectation < 5
    for k, e in zip(support, expected):
        acc_o += counts[k + 1]
        acc_e += e
        if acc_e >= 5:
            pooled_obs.append(acc_o)
            pooled_exp.append(acc_e)
            acc_o, acc_e = 0, 0.0
    pooled_obs[-1] += acc_o
    pooled_exp[-1] += acc_e
    assert sum(counts[k + 1] for k in range(16) if exact[k] == 0) == 0
    assert chisquare(pooled_obs, pooled_exp).pvalue > 0.001


def test_walls_keep_zone_4_paths_on_the_board():
    _, results, _, _ = _drops(PachinkoParams(rows=16), [4] * 2000, seed=2, gap_s=0.0)
    for r in results:
        u = spot_centre(4)
        for c in r.path:
            u = Lattice.deflect(u, c == "R")
            assert 1 <= u <= 31  # between the walls at u = 0 and u = 32
        assert 1 <= r.spot <= 16
    assert min(r.spot for r in results) == 1  # the left wall is reached and turns the puck back


def test_tilt_shifts_landings_right():
    n = 3000
    _, healthy, _, _ = _drops(PachinkoParams(), [8] * n, seed=3, gap_s=0.0)
    tilted_board, tilted, _, _ = _drops(PachinkoParams(tilt_deg=3.0), [8] * n, seed=3, gap_s=0.0)
    mean_h = np.mean([r.spot for r in healthy])
    mean_t = np.mean([r.spot for r in tilted])
    p = 0.5 + TILT_GAIN * math.sin(math.radians(3.0))
    assert tilted_board.peg_p_right(0, 1) == pytest.approx(p)
    truth_mean = sum((k + 1) * q for k, q in enumerate(tilted_board.ground_truth_matrix()[DROP_ZONES.index(8)]))
    assert mean_t - mean_h > 1.0
    assert mean_t == pytest.approx(truth_mean, abs=0.1)


def test_peg_wear_and_clamping():
    board = PachinkoSim(simpy.Environment(), PachinkoParams(peg_wear=0.2, tilt_deg=10.0), np.random.default_rng(0),
                        lambda *a: None)
    assert board.peg_p_right(0, 15) == pytest.approx(min(1.0, 0.5 + TILT_GAIN * math.sin(math.radians(10))))
    assert board.peg_p_right(1, 18) == 1.0  # clamped
    worn = PachinkoSim(simpy.Environment(), PachinkoParams(peg_wear=0.3), np.random.default_rng(0), lambda *a: None)
    assert worn.peg_p_right(0, 15) == 0.5 and worn.peg_p_right(0, 17) == pytest.approx(0.8)
    for row in worn.ground_truth_matrix():
        assert sum(row) == pytest.approx(1.0)


def test_puck_stuck_never_lands():
    _, results, _, events = _drops(PachinkoParams(puck_stuck_probability=1.0), [8, 9], until=100.0)
    assert results == [None, None]
    assert len([e for e in events if e[2] == "puck_drop"]) == 2
    assert not [e for e in events if e[2] == "puck_landed"]


def test_zone_outside_4_to_13_is_still_dropped():
    _, results, _, _ = _drops(PachinkoParams(), [1, 16, 2])
    assert [r.zone for r in results] == [1, 16, 2]
    for r in results:
        assert Lattice.spot_of(_path_end(r.zone, r.path)) == r.spot
    board = PachinkoSim(simpy.Environment(), PachinkoParams(), np.random.default_rng(0), lambda *a: None)
    for bad in (0, 17, "8", 8.0):
        with pytest.raises(ValueError):
            board.drop(bad)


def test_params_are_validated():
    for bad in (dict(rows=11), dict(rows=0), dict(restitution=1.0), dict(row_pitch_m=0), dict(peg_wear=0.6),
                dict(puck_stuck_probability=2), dict(tilt_deg=100)):
        with pytest.raises(ValueError):
            PachinkoParams(**bad)


def test_params_load_from_bench_data():
    """The bench validates params with pydantic: plain data in, unknown keys refused."""
    adapter = pydantic.TypeAdapter(PachinkoParams)
    assert adapter.validate_python({"rows": 14, "tilt_deg": 1}) == PachinkoParams(**{"rows": 14, "tilt_deg": 1})
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"no_such_knob": 1})
