"""Follow mode against the live-wheel stub (``croupier stub roulette-wheel``: its own game cycle,
the wheel's "no more bets", space padding, bare and ``*P`` lines, a rotor at 130–180 rpm reversing
between games) in its own process on a pty, time-compressed: the adapter hands over the games the
seeded autonomous model plays, a power cycle voids the cut game and replays it under its number,
and the croupier runs the bundled follow-mode scenarios on it — the healthy one passes, the slow
lock-out (timed from the wheel's announcement) fails the lock-out check."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import simpy
import yaml
from typer.testing import CliRunner

from devices.roulette_wheel import GameVoid, RouletteWheelSim
from firmware_stubs.launch import launch
from firmware_stubs.slingshot import stub_params
from hil.adapters.serial_roulette_wheel import SlingshotRouletteWheel
from hil.adapters.stub_control import request
from hil.cli import app
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop

SCALE = 40
SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "roulette"
SEED = {"entropy": 20261201, "spawn_key": [3]}
runner = CliRunner()


def model_games(params: dict, n: int) -> list:
    """What the seeded autonomous ``RouletteWheelSim`` plays: its first ``n`` results."""
    env = simpy.Environment()
    ss = np.random.SeedSequence(SEED["entropy"], spawn_key=tuple(SEED["spawn_key"]))
    sim = RouletteWheelSim(env, stub_params(params), np.random.Generator(np.random.PCG64(ss)), lambda *_a: None)
    out: list = []

    def go():
        while len(out) < n:
            g = yield sim.next_game()
            out.append((yield g.result))

    env.run(env.process(go()))
    return out


def follow(url: str, io: IoLoop, n: int, events: list) -> list[tuple]:
    """``n`` games through the adapter in follow mode: (WheelGame, bets closed at, result). A
    game the reconfigured stub cut (it restarts: state 6 mid-game, ``wheel_idle``) is not counted."""
    env = WallClockEnvironment(time_scale=SCALE)
    wheel = SlingshotRouletteWheel(env, io, url, lambda _d, k, p: events.append((k, p)), "ball_wheel", 0.5)
    assert wheel.autonomous
    try:
        def go():
            got = []
            while len(got) < n:
                ev = wheel.next_game()
                yield ev | env.timeout(200.0)
                assert ev.triggered, "no game began"
                g = ev.value
                yield g.result | env.timeout(200.0)
                assert g.result.triggered, "the game never ended"
                if isinstance(g.result.value, GameVoid) and g.result.value.reason == "wheel_idle":
                    continue
                got.append((g, g.bets_closed.value if g.bets_closed.triggered else None, g.result.value))
            return got

        return env.run(env.process(go()))
    finally:
        wheel.close()


def test_the_adapter_follows_the_games_the_seeded_model_plays():
    want = model_games({}, 3)
    events: list = []
    with launch("roulette-wheel", "--pty", "--time-scale", str(SCALE), "--control", "tcp://127.0.0.1:0") as st, \
            IoLoop() as io:
        assert request(st.control, {"op": "configure", "params": {}, "seed": SEED})["ok"]
        got = follow(st.url, io, 3, events)
    # the first game may have begun before the rig listened: it is never handed over
    first = got[0][0].spin_id
    results = [r for _g, _t, r in got]
    assert [r.spin_id for r in results] == [first, first + 1, first + 2]
    assert [r.pocket for r in results] == [w.pocket for w in want[first - 1:first + 2]]
    assert [r.rotor_direction for r in results] == [w.rotor_direction for w in want[first - 1:first + 2]]
    for g, t_closed, r in got:
        assert g.start_time_s < r.launch_time_s < t_closed < r.stop_time_s  # 2, 3, the wheel's "no more bets", 5
        assert 120 <= r.rotor_speed_rps * 60 <= 190  # states 3–5 of its own game
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]


def test_a_power_cycle_voids_the_cut_game_and_the_wheel_replays_it_under_its_number():
    events: list = []
    with launch("roulette-wheel", "--pty", "--time-scale", str(SCALE), "--control", "tcp://127.0.0.1:0") as st, \
            IoLoop() as io:
        params = {"power_off_game": 2, "power_off_state": 3, "power_off_s": 6.0}
        assert request(st.control, {"op": "configure", "params": params, "seed": SEED})["ok"]
        got = follow(st.url, io, 3, events)
    by_spin = [(g.spin_id, g.after_power_up, type(r).__name__) for g, _t, r in got]
    cut = next(i for i, (_s, _a, kind) in enumerate(by_spin) if kind == "GameVoid")
    spin = by_spin[cut][0]
    assert got[cut][2].reason == "power_off"
    assert by_spin[cut + 1] == (spin, True, "BallResult")  # the same game again, after power-up
    off = next(p for k, p in events if k == "wheel_power" and p["what"] == "off")
    void = next(p for k, p in events if k == "game_void" and p["reason"] == "power_off")
    assert 0 <= void["device_time_s"] - off["device_time_s"] <= 1.0  # void within 1 s of the *P 0 (rig time)
    assert [p["what"] for k, p in events if k == "wheel_power"][-4:] == ["off", "ok", "on", "ok"]
    assert "wire_fault" not in [k for k, _ in events], [p for k, p in events if k == "wire_fault"]


def test_a_warning_on_the_rim_voids_that_game_and_a_sensor_fault_is_a_wire_fault():
    events: list = []
    with launch("roulette-wheel", "--pty", "--time-scale", str(SCALE), "--control", "tcp://127.0.0.1:0") as st, \
            IoLoop() as io:
        params = {"warning_game": 2, "warning_bits": 1 | 4, "warning_state": 3}
        assert request(st.control, {"op": "configure", "params": params, "seed": SEED})["ok"]
        got = follow(st.url, io, 2, events)
    voids = [r for _g, _t, r in got if isinstance(r, GameVoid)]
    assert [v.reason for v in voids] == ["ball_removed"]  # bit 1 first (then 4: the game is already void)
    assert [p["bit"] for k, p in events if k == "wheel_warning"] == [1, 4]
    assert [p["kind"] for k, p in events if k == "wire_fault"] == ["sensor_fault"]  # bit 4: a fault of the wheel


def _compressed(src: Path, dst: Path) -> Path:
    """The bundled scenario for a run 20x time-compressed: the rig's own reaction to the wheel's
    line (a fraction of a wall millisecond, a few on a loaded machine) counts 20x in the rig's
    time, so the lock-out budget is 250 ms instead of 10 (12.5 ms of wall time) and the slow
    device's latency 600 ms instead of 30."""
    sc = yaml.safe_load(src.read_text(encoding="utf-8"))
    sc.setdefault("lockout", {})["budget_s"] = 0.250
    if "roulette_wagering" in (sc.get("faults") or {}):
        sc["faults"]["roulette_wagering"]["lockout_latency_mean_s"] = 0.600
    dst.write_text(yaml.safe_dump(sc), encoding="utf-8")
    return dst


@pytest.mark.slow
def test_the_croupier_runs_the_follow_scenarios_on_the_live_stub(tmp_path: Path):
    files = [_compressed(SUITE / name, tmp_path / name) for name in ("roulette_follow_autonomous_wheel.yaml",
                                                                      "fault_roulette_follow_slow_lockout.yaml")]
    out = tmp_path / "out"
    with launch("roulette-wheel", "--pty", "--time-scale", "20", "--control", "tcp://127.0.0.1:0") as st:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "live-wheel-stub"\ntime_scale = 20\n[devices.ball_wheel]\n'
                         f'kind = "serial"\nurl = "{st.url}"\ncontrol = "{st.control}"\ntimeout_s = 0.5\n',
                         encoding="utf-8")
        res = runner.invoke(app, ["run", *map(str, files), "--bench", str(bench), "--out", str(out),
                                  "--max-rounds", "3"])
    assert res.exit_code in (0, 1, 3), res.output
    report = {s["name"]: s for s in json.loads((out / "report.json").read_text())["scenarios"]}
    healthy, slow = report["roulette-follow-autonomous-wheel"], report["fault-roulette-follow-slow-lockout"]
    for s in (healthy, slow):
        assert s["error"] is None and s["stats"]["rounds"] == 3 and s["stats"]["void_rounds"] == 0, s["stats"]
    verdicts = {c["id"]: c for c in healthy["checks"]}
    assert not [i for i, c in verdicts.items() if c["verdict"] == "fail"], verdicts
    assert verdicts["RU-617b.4c2-lockout"]["verdict"] == "pass"
    assert "timed from the wheel" in verdicts["RU-617b.4c2-lockout"]["summary"]
    assert {c["id"]: c["verdict"] for c in slow["checks"]}["RU-617b.4c2-lockout"] == "fail"
    got = runner.invoke(app, ["outcomes", str(out), "--json"])
    assert got.exit_code == 0, got.output
    rows = [r for r in json.loads(got.stdout)["outcomes"] if r["round"] is not None]
    assert len(rows) == 6 and all(r["status"] == "settled" and 120 <= r["rotor_rpm"] <= 190 for r in rows)
