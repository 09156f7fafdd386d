"""Top Slot model (devices.top_slot) against the Rules Submission's PAR (§ 690.3)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
import simpy

from devices.contracts import TopSlot, TopSlotStop
from devices.top_slot import TopSlotParams, TopSlotSim
from rules.crazy_time import SPOTS, TOP_SLOT_REEL1, TOP_SLOT_REEL2, Spot
from rules.submission import TopSlotPar

PAR = TopSlotPar(
    align_probability=Fraction(1, 3),
    reel1_weights={s: w for s, w in zip(SPOTS, (8, 6, 4, 3, 3, 2, 2, 1))},
    reel2_weights={m: w for m, w in zip(TOP_SLOT_REEL2, (30, 25, 15, 10, 8, 5, 4, 2, 1))},
)


def _run(params: TopSlotParams, n: int, seed: int = 0, gap_s: float = 20.0):
    env = simpy.Environment()
    events = []
    slot = TopSlotSim(env, params, PAR, np.random.default_rng(seed), lambda d, k, p: events.append((env.now, d, k, p)))
    stops, commands = [], []

    def croupier():
        for _ in range(n):
            commands.append(env.now)
            stops.append((yield slot.spin()))
            yield env.timeout(gap_s - (env.now - commands[-1]))

    env.process(croupier())
    env.run()
    return slot, stops, commands, events


def test_contract_telemetry_and_travel_consistency():
    p = TopSlotParams()
    slot, stops, commands, events = _run(p, 50)
    assert isinstance(slot, TopSlot)
    assert events[0][2] == "device_info"
    assert events[0][3] == {"reel1": [str(s) for s in TOP_SLOT_REEL1], "reel2": list(TOP_SLOT_REEL2)}
    json.dumps([e[3] for e in events])
    prev = None
    for c, stop in zip(commands, stops):
        assert isinstance(stop, TopSlotStop)
        assert stop.start_time_s == c  # starts with the command (concurrently with the wheel)
        start_msg = [e for e in events if e[2] == "top_slot_start" and e[3]["spin_id"] == stop.spin_id]
        stop_msg = [e for e in events if e[2] == "top_slot_stop" and e[3]["spin_id"] == stop.spin_id]
        assert start_msg[0][0] == c and stop_msg[0][0] == stop.stop_time_s
        # travel consistent with the step rate and the spin time (reel 2 stops last)
        duration = stop.stop_time_s - stop.start_time_s
        half_steps = round(duration * p.step_rate_sps * 2)  # reel 2 travels whole half-symbol steps
        assert duration == pytest.approx(half_steps / (2 * p.step_rate_sps))
        assert half_steps // 2 == stop.reel2_steps
        assert stop.reel1_steps >= int(p.min_spin_duration_s * p.step_rate_sps)
        assert stop.reel2_steps > stop.reel1_steps
        assert 3.0 < duration < 9.0  # stops well before the wheel
        if prev is not None:  # the reel lands where its travel takes it
            i1 = TOP_SLOT_REEL1.index(Spot(prev.spot))
            assert TOP_SLOT_REEL1[(i1 + stop.reel1_steps) % 8] == stop.spot
        prev = stop
    assert [s.spin_id for s in stops] == list(range(1, 51))


def test_alignment_and_reel_frequencies_follow_the_par():
    _, stops, _, _ = _run(TopSlotParams(), 6000, seed=1)
    n = len(stops)
    aligned = sum(s.aligned for s in stops) / n
    assert abs(aligned - 1 / 3) < 0.025
    c1 = Counter(s.spot for s in stops)
    for spot in SPOTS:
        p = float(PAR.reel1_probability(spot))
        assert abs(c1[str(spot)] / n - p) < 4 * (p * (1 - p) / n) ** 0.5 + 1e-3
    c2 = Counter(s.multiplier for s in stops)
    for m in TOP_SLOT_REEL2:
        p = float(PAR.reel2_probability(m))
        assert abs(c2[m] / n - p) < 4 * (p * (1 - p) / n) ** 0.5 + 1e-3


def test_late_start_delays_the_reels():
    _, stops, commands, events = _run(TopSlotParams(late_start_s=1.5), 5)
    for c, s in zip(commands, stops):
        assert s.start_time_s == pytest.approx(c + 1.5)
    assert [e[0] for e in events if e[2] == "top_slot_start"] == [pytest.approx(c + 1.5) for c in commands]


@pytest.mark.parametrize("reel", [1, 2])
def test_stuck_reel_does_not_move_and_keeps_its_symbol(reel):
    _, stops, _, _ = _run(TopSlotParams(stuck_reel=reel), 200, seed=4)
    steps = [s.reel1_steps if reel == 1 else s.reel2_steps for s in stops]
    shown = {s.spot if reel == 1 else s.multiplier for s in stops}
    other = [s.reel2_steps if reel == 1 else s.reel1_steps for s in stops]
    assert steps == [0] * 200 and len(shown) == 1
    assert min(other) > 0
    if reel == 2:  # alignment frozen too: a stuck multiplier reel never changes it
        assert len({s.aligned for s in stops}) == 1


def test_params_are_validated():
    with pytest.raises(ValueError):
        TopSlotParams(stuck_reel=3)
    with pytest.raises(ValueError):
        TopSlotParams(step_rate_sps=0)
