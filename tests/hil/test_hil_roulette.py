"""The Roulette croupier: streaks across rounds, the durable tracker, the progressive meter, and
the roulette checks on traces whose numbers are scripted (a wheel that lands where told)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import simpy

from devices.contracts import BallResult
from devices.illuminator import IlluminatorParams, IlluminatorSim
from devices.roulette_wheel import pocket_order
from devices.wagering import WageringParams, WageringSim
from hil.bench import Devices
from hil.checks import CheckConfig, run_checks
from hil.config import ConfigError
from hil.roulette import RouletteController, StreakStore, StreakStoreError
from hil.runner import load_roulette_x_rules
from hil.scenario import parse_scenario
from hil.trace import TraceReader, TraceWriter

RX = load_roulette_x_rules().submission


class ScriptedWheel:
    """A RouletteWheel that lands on the scripted numbers in turn (``"misspin"``: a misspin)."""

    name = "ball_wheel"

    def __init__(self, env, telemetry, wheel: str, numbers: list) -> None:
        self.env, self.telemetry, self.numbers = env, telemetry, list(numbers)
        self.order = pocket_order(wheel)
        self.spins = 0
        telemetry(self.name, "device_info", {"model": "scripted", "wheel": wheel, "pockets": list(self.order)})

    def spin(self):
        self.spins += 1
        n = self.numbers.pop(0)
        if n == "silent":  # the wheel does not answer this spin
            return self.env.event()
        misspin = n == "misspin"
        pocket = self.order[0] if misspin else n
        start = self.env.now
        done = self.env.event()

        def stop(_e):
            r = BallResult(spin_id=self.spins, pocket=pocket, pocket_index=self.order.index(pocket),
                           ball_revolutions=1.0 if misspin else 8.0, rotor_direction="cw", misspin=misspin,
                           launch_speed_rps=2.0, rotor_speed_rps=0.5, start_time_s=start, launch_time_s=start + 0.5,
                           drop_time_s=start + 6.0, stop_time_s=self.env.now)
            self.telemetry(self.name, "ball_result", dict(vars(r)))
            done.succeed(r)

        self.env.timeout(8.0).callbacks.append(stop)
        return done


def scenario(wheel="single-zero", up="C", croupier=None, **players):
    pl = {"count": 4, "wagers_per_player": [1, 2], "roulette_up_probability": 1.0,
          "roulette_up_late_probability": 0.0, "late_press_probability": 0.0, **players}
    text = (f"schema: 1\nname: t\ngame: roulette\nseed: 7\nrounds: 1\n"
            f"table: {{wheel: {wheel}, roulette_up: {up}}}\nplayers: {json.dumps(pl)}\n"
            f"croupier: {json.dumps(croupier or {})}\n")
    return parse_scenario(text, "t.yaml").scenario


def play(tmp: Path, sc, numbers: list, rounds: int, store: StreakStore | None, name="trace"):
    """Run ``rounds`` rounds on the scripted wheel; the trace path and the controller."""
    path = tmp / f"{name}.sqlite"
    env = simpy.Environment()
    writer = TraceWriter(path, {"game": "roulette", "scenario": sc.name})
    writer.clock = env
    rng = np.random.default_rng(11)
    devices = Devices(None, None, None)  # type: ignore[arg-type]
    devices.ball_wheel = ScriptedWheel(env, writer.record, sc.table.wheel, numbers)
    devices.illuminator = IlluminatorSim(env, IlluminatorParams(wheel=sc.table.wheel), RX, None, rng, writer.record)
    devices.roulette_wagering = WageringSim(env, WageringParams(), rng, writer.record, name="roulette_wagering")
    ctl = RouletteController(env, devices, writer, sc, RX, rng, store)
    writer.record("croupier", "table", ctl.describe())
    env.run(until=ctl.run(rounds))
    writer.close()
    return path, ctl


def events(path: Path, kind: str) -> list[dict]:
    with TraceReader(path) as r:
        return [e.payload for e in r.events() if e.kind == kind and e.device == "croupier"]


def verdicts(path: Path) -> dict[str, str]:
    return {c.id: c.verdict for c in run_checks(path, CheckConfig(chi2_min_spins=100_000))}


def test_a_restarted_rig_resumes_the_same_streak_and_settles_it(tmp_path):
    store = StreakStore(tmp_path / "state" / "t.streak.json")
    sc = scenario()
    first, ctl = play(tmp_path, sc, [5, 10], 2, store, "first")
    wagers = [w for w in events(first, "wager") if w["kind"] == "up"]
    assert wagers and all(w["wager_id"].startswith("1-") for w in wagers)
    saved = json.loads(store.path.read_text())
    assert saved["numbers"] == [5, 10] and len(saved["wagers"]) == len(wagers)
    # the rig restarts: a new process, a new trace, the same tracker
    second, _ = play(tmp_path, sc, [20, 3], 2, store, "second")
    resumed = events(second, "streak_resumed")
    assert resumed and resumed[0]["numbers"] == [5, 10]
    streaks = events(second, "streak")
    assert streaks[0] == {"numbers": [5, 10, 20], "length": 3, "ended": False, "end_reason": None}
    assert streaks[1]["ended"] and streaks[1]["length"] == 3 and streaks[1]["end_reason"] == "NOT_GREATER"
    settled = events(second, "up_settle")
    assert sorted(s["wager_id"] for s in settled) == sorted(w["wager_id"] for w in wagers)
    # Paytable C: a streak of 3 pays 3 to 1 (stake + 3 × stake returned)
    by_id = {w["wager_id"]: w for w in wagers}
    assert all(s["returned_cents"] == 4 * by_id[s["wager_id"]]["stake_cents"] for s in settled)
    v = verdicts(second)
    assert {k: v[k] for k in ("RU-617b.4g-streak", "RU-617b.4h-settlement")} == dict.fromkeys(
        ("RU-617b.4g-streak", "RU-617b.4h-settlement"), "pass")
    assert json.loads(store.path.read_text())["numbers"] == []


def test_no_new_roulette_up_wagers_while_a_streak_runs(tmp_path):
    sc = scenario(roulette_up_late_probability=1.0)
    path, _ = play(tmp_path, sc, [5, 10, 20, 3], 4, None)
    ups = [w for w in events(path, "wager") if w["kind"] == "up"]
    assert {w["wager_id"].split("-")[0] for w in ups} == {"1"}
    refused = [r for r in events(path, "wager_rejected") if r["kind"] == "up"]
    assert refused and all("617b.4(d)" in r["reason"] for r in refused)
    assert verdicts(path)["RU-617b.4d-wager-timing"] == "pass"


def test_double_zero_order_and_36_end_the_streak(tmp_path):
    sc = scenario(wheel="double-zero", up="A")
    path, _ = play(tmp_path, sc, [0, "00", 1, 36, 2], 5, None)
    streaks = events(path, "streak")
    assert [s["length"] for s in streaks[:4]] == [1, 2, 3, 4]
    assert streaks[3]["ended"] and streaks[3]["end_reason"] == "THIRTY_SIX"
    assert streaks[4]["numbers"] == [2]  # a new streak: the next round's wagers, its starting number
    assert events(path, "up_settle")[0]["payout"] == "10 to 1"  # Paytable A, a streak of 4
    v = verdicts(path)
    assert v["RU-617b.4g-streak"] == v["RU-617b.4h-settlement"] == "pass"


def test_progressive_meter_hit_is_split_and_reseeded(tmp_path):
    sc = scenario(up="P1")
    path, ctl = play(tmp_path, sc, list(range(1, 10)) + [1], 9, None)
    hits = events(path, "meter_hit")
    ups = [w for w in events(path, "wager") if w["kind"] == "up"]
    assert len(hits) == 1 and hits[0]["winners"] == len(ups) >= 2
    seed = 10_000 * 100
    meter = seed + sum(w["stake_cents"] for w in ups) * 20 // 100  # 20 % incrementation
    share, rest = divmod(meter, len(ups))
    settled = events(path, "up_settle")
    assert {s["returned_cents"] for s in settled} == {share} and all(s["meter_share_cents"] == share for s in settled)
    assert hits[0]["meter_cents"] == seed + rest == ctl.rec.meter_cents
    v = verdicts(path)
    assert v["RU-617b.4h2-meter"] == v["RU-617b.4h-settlement"] == v["RU-617b.4g-streak"] == "pass"


def test_a_round_past_the_respin_limit_is_void_and_the_streak_goes_on(tmp_path):
    sc = scenario()
    path, _ = play(tmp_path, sc, [5] + ["misspin"] * 4 + [9, 2], 3, None)
    ends = events(path, "round_end")
    assert [e["void"] for e in ends] == [False, True, False]
    assert ends[1]["reason"] == "respin_limit"
    assert {r["kind"] for r in events(path, "refund")} == {"straight"}
    assert events(path, "streak")[-1]["numbers"] == [5, 9]
    assert verdicts(path)["RU-617b.4g-streak"] == "pass"


def test_a_wheel_that_stops_answering_voids_the_round_and_refunds(tmp_path):
    sc = scenario(croupier={"spin_timeout_s": 30.0, "respin_limit": 1})
    path, ctl = play(tmp_path, sc, ["silent", "silent", 7], 2, None)
    voids = [e for e in events(path, "spin_void")]
    assert [v["reason"] for v in voids] == ["no_wheel_result", "no_wheel_result"]
    ends = events(path, "round_end")
    assert ends[0]["void"] and ends[0]["reason"] == "respin_limit" and not ends[1]["void"]
    refunds = events(path, "refund")
    wagers = [w for w in events(path, "wager") if w["wager_id"].startswith("1-")]
    assert sorted(r["wager_id"] for r in refunds) == sorted(w["wager_id"] for w in wagers)
    assert events(path, "streak")[0]["numbers"] == [7]  # round 2's wagers start the streak
    assert ctl.stats["void_rounds"] == 1


def test_an_unreadable_or_foreign_tracker_state_is_refused(tmp_path):
    store = StreakStore(tmp_path / "s.json")
    store.path.write_text("{not json")
    with pytest.raises(StreakStoreError, match="unreadable"):
        play(tmp_path, scenario(), [5], 1, store)
    store.path.write_text(json.dumps({"schema": 1, "wheel": "double-zero", "paytable": "C"}))
    with pytest.raises(StreakStoreError, match="double-zero"):
        play(tmp_path, scenario(), [5], 1, store, "b")


@pytest.mark.parametrize("text, where", [
    ("table: {wheel: single-zero, roulette_x_paytable: B}", "Paytable B"),
    ("table: {roulette_up: P9}", "table.roulette_up"),
    ("faults: {wheel: {tilt: 0.5}}", "not device roles of roulette"),
    ("expect: {fail: [CT-lockout]}", "not checks of roulette"),
    ("bench: {ball_wheel: {wheel: double-zero}}", "differs from the table"),
])
def test_bad_roulette_scenarios_are_refused_with_the_field(text, where):
    base = "schema: 1\nname: t\ngame: roulette\nseed: 1\nrounds: 1\n"
    with pytest.raises(ConfigError, match=where):
        parse_scenario(base + text + "\n", "t.yaml")


def test_a_crazy_time_scenario_has_no_table():
    with pytest.raises(ConfigError, match="table"):
        parse_scenario("schema: 1\nname: t\ngame: crazy-time\nseed: 1\nrounds: 1\ntable: {}\n", "t.yaml")


def test_the_without_replacement_correction_makes_the_statistic_chi2():
    """Fair selections of 2–5 distinct numbers of 38: the corrected statistic averages N − 1 = 37
    (a χ²(37) variable); Pearson's multinomial statistic would average 37·(1 − 3.2/38) ≈ 34."""
    from hil.checks.roulette import without_replacement_chi2

    rng = np.random.default_rng(5)
    n, reps, sel = 38, 1500, 150
    corrected, naive = [], []
    for _ in range(reps):
        counts = np.zeros(n, int)
        var = 0.0
        for k in rng.integers(2, 6, size=sel):
            counts[rng.choice(n, size=k, replace=False)] += 1
            var += k / n * (1 - k / n)
        corrected.append(without_replacement_chi2(list(counts), var))
        e = counts.sum() / n
        naive.append(float(((counts - e) ** 2).sum() / e))
    se = np.sqrt(2 * 37 / reps)
    assert abs(np.mean(corrected) - 37) < 4 * se
    assert np.mean(naive) < 37 - 8 * se
