"""The Roulette croupier: streaks across rounds, the durable state (``state()``/``restore()``), the
Roulette Up meter on the progressive table game system, and the roulette checks on traces whose
numbers are scripted (a wheel that lands where told)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import simpy

from devices.contracts import BallResult
from devices.illuminator import IlluminatorParams, IlluminatorSim
from devices.roulette_wheel import pocket_order
from devices.progressive import MeterSpec, ProgressiveParams, ProgressiveTableSim
from devices.wagering import WageringParams, WageringSim
from hil.bench import Devices
from hil.checks import CheckConfig, run_checks
from hil.config import ConfigError
from hil.roulette import RouletteController, RouletteStateError
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


def scenario(wheel="single-zero", up="C", croupier=None, croupier_faults=None, **players):
    pl = {"count": 4, "wagers_per_player": [1, 2], "roulette_up_probability": 1.0,
          "roulette_up_late_probability": 0.0, "late_press_probability": 0.0, **players}
    text = (f"schema: 1\nname: t\ngame: roulette\nseed: 7\nrounds: 1\n"
            f"table: {{wheel: {wheel}, roulette_up: {up}}}\nplayers: {json.dumps(pl)}\n"
            f"croupier: {json.dumps(croupier or {})}\nfaults: {json.dumps({'croupier': croupier_faults or {}})}\n")
    return parse_scenario(text, "t.yaml").scenario


def wagering(env, sc, telemetry, rng, **knobs):
    """The ``roulette_wagering`` role as the bench builds it: the progressive table game system with
    the paytable row's meter (``Table.wagering_meters``; ``knobs["meters"]`` overrides it, a
    misconfigured system) for a progressive paytable, else the plain wagering device."""
    meters = knobs.pop("meters", None) or sc.table.wagering_meters()
    if meters is None:
        return WageringSim(env, WageringParams(), rng, telemetry, name="roulette_wagering")
    params = ProgressiveParams(meters=tuple(MeterSpec(**m) for m in meters), **knobs)
    return ProgressiveTableSim(env, params, rng, telemetry, name="roulette_wagering")


def play(tmp: Path, sc, numbers: list, rounds: int, state: dict | None = None, name="trace", **knobs):
    """Run ``rounds`` rounds on the scripted wheel (going on from ``state`` when given); the trace
    path and the controller. ``knobs``: the progressive system's parameters."""
    path = tmp / f"{name}.sqlite"
    env = simpy.Environment()
    writer = TraceWriter(path, {"game": "roulette", "scenario": sc.name})
    writer.clock = env
    rng = np.random.default_rng(11)
    devices = Devices(None, None, None)  # type: ignore[arg-type]
    devices.ball_wheel = ScriptedWheel(env, writer.record, sc.table.wheel, numbers)
    devices.illuminator = IlluminatorSim(env, IlluminatorParams(wheel=sc.table.wheel), RX, None, rng, writer.record)
    devices.roulette_wagering = wagering(env, sc, writer.record, rng, **knobs)
    ctl = RouletteController(env, devices, writer, sc, RX, rng)
    writer.record("croupier", "table", ctl.describe())
    if state is not None:
        ctl.restore(state)
    env.run(until=ctl.run(rounds))
    writer.close()
    return path, ctl


def events(path: Path, kind: str, device: str = "croupier") -> list[dict]:
    with TraceReader(path) as r:
        return [e.payload for e in r.events() if e.kind == kind and e.device == device]


def results(path: Path) -> dict:
    return {c.id: c for c in run_checks(path, CheckConfig(chi2_min_spins=100_000))}


def verdicts(path: Path) -> dict[str, str]:
    return {k: c.verdict for k, c in results(path).items()}


def findings(path: Path, check: str) -> list[str]:
    return [f.message for f in results(path)[check].findings]


def test_a_restarted_rig_resumes_the_same_streak_and_settles_it(tmp_path):
    sc = scenario()
    first, ctl = play(tmp_path, sc, [5, 10], 2, name="first")
    wagers = [w for w in events(first, "wager") if w["kind"] == "up"]
    assert wagers and all(w["wager_id"].startswith("1-") for w in wagers)
    state = json.loads(json.dumps(ctl.state()))  # JSON-able: committed with the round's trace
    assert state["numbers"] == [5, 10] and len(state["wagers"]) == len(wagers) and "meters" not in state
    assert [w["press_id"] for w in state["wagers"]] == [w["press_id"] for w in wagers]
    # the rig restarts: a new process, the same streak
    second, ctl2 = play(tmp_path, sc, [20, 3], 2, state, "second")
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
    assert ctl2.state()["numbers"] == [] and ctl2.state()["streaks_settled"] == 1


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


def test_the_progressive_system_holds_the_meter_pays_the_hit_split_and_reseeds(tmp_path):
    """P1 (§ 617b.4(h)(2)): seed = reseed = 10,000 × the $1 progressive wager, 20 % incrementation,
    4 % reserve. 1..9 is a streak of 9: "100% of progressive meter", paid by the system."""
    sc = scenario(up="P1")
    path, ctl = play(tmp_path, sc, list(range(1, 10)) + [1], 10)
    dev = ctl.wagering
    info = events(path, "device_info", "roulette_wagering")[0]
    seed = 10_000 * 100
    (declared,) = info["meters"]
    assert {k: declared[k] for k in ("name", "seed_cents", "reseed_cents", "increment_rate", "reserve_rate")} == {
        "name": "progressive", "seed_cents": seed, "reseed_cents": seed, "increment_rate": "1/5", "reserve_rate": "1/25"}
    assert not declared.get("reseed_from_reserve", False)  # the row's Seed/Reseed is a fixed amount
    every = [w for w in events(path, "wager") if w["kind"] == "up"]
    incs = events(path, "meter_increment", "roulette_wagering")
    assert sorted(i["press_id"] for i in incs) == sorted(w["press_id"] for w in every)
    ups = [w for w in every if w["wager_id"].startswith("1-")]  # the streak's wagers (round 10's start the next)
    assert len(ups) >= 2
    hits = events(path, "meter_hit", "roulette_wagering")
    assert len(hits) == 1 and hits[0]["winners"] == len(ups) and hits[0]["percent"] == 100
    stakes = sum(w["stake_cents"] for w in ups)
    meter = seed + Fraction(stakes, 5)  # 20 % of each wager, the fractions of a cent carried
    share, rest = divmod(int(meter), len(ups))
    assert hits[0]["jackpot_cents"] == int(meter) and hits[0]["paid_cents"] == share
    assert hits[0]["value_cents"] == seed + rest and hits[0]["reseed_cents"] == seed
    assert hits[0]["reserve_cents"] == 0  # 4 % of the wagers funded part of the reseed
    settled = events(path, "up_settle")
    assert {s["returned_cents"] for s in settled} == {share} and all(s["meter_share_cents"] == share for s in settled)
    later = sum(w["stake_cents"] for w in every if not w["wager_id"].startswith("1-"))
    assert dev.controller.exact("progressive") == seed + rest + (meter - int(meter)) + Fraction(later, 5)
    assert "meter_cents" not in ctl.state() and ctl.state()["meters"][0]["value_cents"] == int(dev.controller.exact("progressive"))
    v = verdicts(path)
    assert v["RU-617b.4h2-meter"] == v["RU-617b.4h-settlement"] == v["RU-617b.4g-streak"] == "pass"
    assert v["RU-617b.4c1-device-accepted"] == "pass"


def test_the_meter_is_restored_exactly_with_the_streak(tmp_path):
    sc = scenario(up="P1", stake_cents=[100, 100])
    first, ctl = play(tmp_path, sc, [3, 7], 2, name="first")
    state = json.loads(json.dumps(ctl.state()))
    snap = state["meters"][0]
    ups = [w for w in events(first, "wager") if w["kind"] == "up"]
    assert Fraction(snap["value_cents"]) + Fraction(snap["residue"]) == 1_000_000 + Fraction(20 * len(ups))
    assert Fraction(snap["reserve_cents"]) + Fraction(snap["reserve_residue"]) == 4 * len(ups)
    second, ctl2 = play(tmp_path, sc, [9, 2], 2, state, "second")
    # the second system started from the restored meter, exactly, and grew by its own wagers only
    ups2 = [w for w in events(second, "wager") if w["kind"] == "up"]
    assert ctl2.wagering.controller.exact("progressive") == \
        Fraction(snap["value_cents"]) + Fraction(snap["residue"]) + 20 * len(ups2)
    resumed = events(second, "streak_resumed")[0]
    assert resumed["meters"] == state["meters"] and resumed["numbers"] == [3, 7]
    v = verdicts(second)
    assert v["RU-617b.4h2-meter"] in ("pass", "indeterminate") and v["RU-617b.4h-settlement"] == "pass"
    assert not findings(second, "RU-617b.4h2-meter")


def test_a_misconfigured_meter_fails_the_meter_check_against_the_regulation_row(tmp_path):
    sc = scenario(up="P1")
    wrong = [{"name": "progressive", "seed_cents": 1_000_000, "reseed_cents": 10, "increment_rate": "18%",
              "reserve_rate": "5%"}]
    path, _ = play(tmp_path, sc, list(range(1, 10)) + [1], 10, meters=wrong)
    got = findings(path, "RU-617b.4h2-meter")
    assert any("increment_rate 9/50" in f and "1/5" in f for f in got)
    assert any("reserve_rate 1/20" in f for f in got)
    assert any("reseed_cents 10" in f for f in got) and any("reseeded at 10" in f for f in got)
    # the reserve at the hit: 5 % of the wagers less a 10-cent reseed, where the row's make it 0
    assert any("the reserve is" in f and "make it 0" in f for f in got)
    assert verdicts(path)["RU-617b.4h2-meter"] == "fail"


@pytest.mark.parametrize("knobs, words", [
    ({"lost_increment_probability": 1.0}, "did not increment"),
    ({"power_loss_at_s": 30.0}, "the meter went"),  # back to its seed: the next increment is off
])
def test_a_system_that_loses_increments_or_its_meter_fails_the_meter_check(tmp_path, knobs, words):
    sc = scenario(up="P1")
    path, _ = play(tmp_path, sc, [1, 2, 3, 2, 5, 6, 1], 7, **knobs)
    got = findings(path, "RU-617b.4h2-meter")
    assert got and any(words in f for f in got), got


def test_one_winner_paid_the_whole_meter_fails_the_split(tmp_path):
    sc = scenario(up="P1", croupier_faults={"no_meter_split": True})
    path, _ = play(tmp_path, sc, list(range(1, 10)) + [1], 10)
    assert events(path, "meter_hit", "roulette_wagering")[0]["winners"] == 1
    assert any("the streak has" in f for f in findings(path, "RU-617b.4h2-meter"))


def test_an_up_wager_without_a_press_fails_617b4c1(tmp_path):
    sc = scenario(up="P1", croupier_faults={"up_wager_without_press": True}, roulette_up_probability=0.3)
    path, _ = play(tmp_path, sc, [4, 9, 2], 3)
    bad = [w for w in events(path, "wager") if w["kind"] == "up" and w["press_id"] is None]
    assert bad
    v = verdicts(path)
    assert v["RU-617b.4c1-device-accepted"] == "fail"
    assert v["RU-617b.4h2-meter"] == v["RU-617b.4h-settlement"] == "pass"  # a wager with no press feeds no meter


@pytest.mark.parametrize("longest, numbers, clause", [
    (3, [1, 2, 3, 4, 1], "§ 617b.4(g)(2)(iii)"),  # ends early, "longest" at 3 on Paytable C (8)
    (12, list(range(1, 11)) + [1], "§ 617b.4(g)(2)(iii)"),  # goes on past the longest streak (9 on P1)
])
def test_a_tracker_with_the_wrong_longest_streak_fails_617b4g2iii(tmp_path, longest, numbers, clause):
    up = "C" if longest < 8 else "P1"
    sc = scenario(up=up, croupier_faults={"up_longest_streak": longest})
    path, _ = play(tmp_path, sc, numbers, len(numbers))
    got = findings(path, "RU-617b.4g-streak")
    assert got and all(clause in f for f in got), got


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


def test_an_unreadable_or_foreign_table_state_is_refused(tmp_path):
    with pytest.raises(RouletteStateError, match="unreadable"):
        play(tmp_path, scenario(), [5], 1, {"schema": 2, "numbers": [], "bogus": 1})
    with pytest.raises(RouletteStateError, match="double-zero"):
        play(tmp_path, scenario(), [5], 1, {"schema": 2, "wheel": "double-zero", "paytable": "C"}, "b")
    with pytest.raises(RouletteStateError, match="schema 1"):
        play(tmp_path, scenario(), [5], 1, {"schema": 1, "wheel": "single-zero", "paytable": "C"}, "c")


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


def test_a_void_round_confirms_no_roulette_up_wager_to_the_meter(tmp_path):
    """Refunded Roulette Up wagers never feed the meter: the system drops their presses."""
    sc = scenario(up="P1")
    path, ctl = play(tmp_path, sc, ["misspin"] * 4 + [5, 9, 2], 3)
    assert events(path, "round_end")[0]["void"]
    refunded = {r["wager_id"] for r in events(path, "refund") if r["kind"] == "up"}
    assert refunded
    void = {v["press_id"] for v in events(path, "press_void", "roulette_wagering")}
    ups1 = [w for w in events(path, "wager") if w["kind"] == "up" and w["wager_id"] in refunded]
    assert {w["press_id"] for w in ups1} <= void
    incremented = {i["press_id"] for i in events(path, "meter_increment", "roulette_wagering")}
    assert not incremented & {w["press_id"] for w in ups1}
    assert not findings(path, "RU-617b.4h2-meter") and verdicts(path)["RU-617b.4h2-meter"] == "pass"


def test_a_system_without_the_roulette_up_meter_pays_nothing_and_fails(tmp_path):
    sc = scenario(up="P1")
    other = [{"name": "mega", "seed_cents": 1_000_000, "increment_rate": "20%", "reserve_rate": "4%"}]
    path, _ = play(tmp_path, sc, list(range(1, 10)) + [1], 10, meters=other)
    assert events(path, "device_refused") and all(s["returned_cents"] == 0 for s in events(path, "up_settle")
                                                  if s.get("meter_unpaid"))
    v = verdicts(path)
    assert v["RU-617b.4h2-meter"] == v["RU-617b.4h-settlement"] == "fail"
    assert any("declares meters mega" in f for f in findings(path, "RU-617b.4h2-meter"))


# --------------------------------------------------------------------------- follow an autonomous wheel
def play_follow(tmp: Path, sc, rounds: int, power: list[tuple[float, str]] = (), name="follow"):
    """``rounds`` rounds followed on the simulated autonomous wheel; ``power``: (time, "off"|"on")."""
    from devices.roulette_wheel import RouletteWheelParams, RouletteWheelSim

    path = tmp / f"{name}.sqlite"
    env = simpy.Environment()
    writer = TraceWriter(path, {"game": "roulette", "scenario": sc.name})
    writer.clock = env
    rng = np.random.default_rng(11)
    devices = Devices(None, None, None)  # type: ignore[arg-type]
    wheel = RouletteWheelSim(env, RouletteWheelParams(cycle="autonomous", launch_delay_s=10.0), rng, writer.record,
                             name="ball_wheel")
    devices.ball_wheel = wheel
    devices.illuminator = IlluminatorSim(env, IlluminatorParams(wheel=sc.table.wheel), RX, None, rng, writer.record)
    devices.roulette_wagering = wagering(env, sc, writer.record, rng)
    for t, what in power:
        env.timeout(t).callbacks.append(lambda _e, what=what: getattr(wheel, f"power_{what}")())
    ctl = RouletteController(env, devices, writer, sc, RX, rng)
    assert ctl.follow
    writer.record("croupier", "table", ctl.describe())
    env.run(until=ctl.run(rounds))
    writer.close()
    return path


def all_events(path: Path):
    with TraceReader(path) as r:
        return list(r.events())


def test_the_croupier_follows_the_wheels_cycle_and_closes_bets_on_its_announcement(tmp_path):
    sc = scenario(croupier={"betting_window_s": 8.0, "between_rounds_s": 0.0})
    path = play_follow(tmp_path, sc, 4)
    evs = all_events(path)
    closed = [e for e in evs if e.device == "ball_wheel" and e.kind == "bets_closed"]
    nmb = [e for e in evs if e.device == "croupier" and e.kind == "no_more_bets"]
    locks = [e for e in evs if e.kind == "lockout_command"]
    assert len(nmb) == 4 and all(n.payload["source"] == "wheel" for n in nmb)
    by_time = {c.payload["device_time_s"]: c for c in closed}
    for n, lock in zip(nmb, locks):
        assert n.payload["wheel_time_s"] in by_time and n.sim_time == n.payload["wheel_time_s"]  # at once
        assert lock.sim_time == n.sim_time  # the wagering device locked out on the wheel's line
    ends = [e.payload for e in evs if e.device == "croupier" and e.kind == "round_end"]
    assert [e["void"] for e in ends] == [False] * 4
    assert not [c for c, v in verdicts(path).items() if v == "fail"]
    assert "timed from the wheel" in results(path)["RU-617b.4c2-lockout"].summary


def test_a_power_off_voids_the_spin_at_once_and_the_replayed_game_settles_the_round(tmp_path):
    sc = scenario(croupier={"betting_window_s": 8.0, "between_rounds_s": 0.0, "power_up_timeout_s": 30.0})
    path = play_follow(tmp_path, sc, 3, power=[(40.0, "off"), (55.0, "on")])
    evs = all_events(path)
    off = next(e for e in evs if e.kind == "wheel_power" and e.payload["what"] == "off")
    (hold,) = [e for e in evs if e.device == "croupier" and e.kind == "round_hold"]
    assert hold.payload["reason"] == "power_off" and hold.sim_time - off.sim_time <= 1.0  # held at once
    (void,) = [e for e in evs if e.device == "croupier" and e.kind == "spin_void"]
    assert void.payload["reason"] == "power_off" and void.seq > hold.seq  # then judged void, whatever it was doing
    (wait,) = [e.payload for e in evs if e.device == "croupier" and e.kind == "wheel_power_wait"]
    assert wait["powered_up"] and wait["waited_s"] == pytest.approx(55.0 - void.sim_time)
    spins = [e.payload for e in evs if e.device == "croupier" and e.kind == "spin_command"]
    cut = next(s for s in spins if s["wheel_game"] == void.payload["wheel_game"] and s["attempt"] == 2)
    assert cut["after_power_up"]  # the wheel replays the cut game under its number: the round's respin
    ends = [e.payload for e in evs if e.device == "croupier" and e.kind == "round_end"]
    assert [e["void"] for e in ends] == [False, False, False]


def test_a_wheel_that_stays_off_is_waited_for_once_then_rounds_are_void_at_once(tmp_path):
    sc = scenario(croupier={"betting_window_s": 8.0, "between_rounds_s": 0.0, "power_up_timeout_s": 20.0})
    path = play_follow(tmp_path, sc, 4, power=[(40.0, "off")])
    evs = all_events(path)
    waits = [e for e in evs if e.device == "croupier" and e.kind == "wheel_power_wait"]
    assert len(waits) == 1 and waits[0].payload["powered_up"] is False and waits[0].payload["waited_s"] == 20.0
    ends = [e for e in evs if e.device == "croupier" and e.kind == "round_end"]
    assert [e.payload["void"] for e in ends] == [False, True, True, True]
    assert {e.payload["reason"] for e in ends[1:]} == {"wheel_power_off"}
    assert ends[-1].sim_time == ends[1].sim_time  # no second wait: later rounds void at once
    refunds = [e for e in evs if e.device == "croupier" and e.kind == "refund" and e.round == 2]
    assert refunds, "the cut round's wagers are refunded"
