"""The bonus games over Modbus TCP, end to end: ``croupier run`` with the four bonus devices (the
multiplier board, the coin flipper, the Pachinko board, the Crazy Time World wheel) on their firmware
stubs in their own processes — each configured per scenario through its control endpoint with the
bench's seed sequence for its role — plays the forced-outcome scenarios exactly as the all-sim bench:
the same boards, flips, landings, spins and picks in the trace, and the same verdict for every check.

The scenarios are written here, small (3 rounds, short timers) and time-compressed (the stubs and
the bench agree on ``time_scale``). The base game's devices stay SimPy models: what is under test is
the bonus devices' wire path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.trace import TraceReader

SCALE = 20
ROUNDS = 3
ROLES = {"board": "multiplier-board", "coin_flipper": "coin-flipper", "pachinko": "pachinko-board",
         "ctw_wheel": "crazy-time-world-wheel"}
GAMES = {"coin-flip": "coin_flipper", "cash-hunt": None, "pachinko": "pachinko", "crazy-time": "ctw_wheel"}
#: the croupier's part of a bonus game (hil.bonus) — compared too: the picks, the doublings, the result
CROUPIER = {"bonus_start", "bonus_result", "bonus_void", "player_pick", "countdown_start", "countdown_end",
            "board_doubled", "board_rescued"}
#: device times differ between a stub and a model (different clocks); everything else must not
TIMES = {"device_time_s", "start_time_s", "stop_time_s", "from_rest_report"}
#: device faults for the "faulty" run: every bonus device's knobs go through its control endpoint
FAULTS = {"board": {"early_generation": True, "biased_probability": 0.3},
          "coin_flipper": {"precession_deg": 60.0},
          "pachinko": {"tilt_deg": 3.0},
          "ctw_wheel": {"clappers": [0, 1, 2], "stop_bias": 0.5}}

runner = CliRunner()


def _scenarios(tmp_path: Path, faulty: bool) -> list[str]:
    files = []
    for i, game in enumerate(GAMES):
        role = GAMES[game]
        faults = {"board": FAULTS["board"], **({role: FAULTS[role]} if role else {})} if faulty else {}
        lines = ["schema: 1", f"name: bonus-modbus-{game}", "game: crazy-time", f"seed: {7100 + i}",
                 f"rounds: {ROUNDS}",
                 f"croupier: {{force_result: {game}, betting_window_s: 2, between_rounds_s: 0.5, "
                 "cash_hunt_countdown_s: 3, ctw_countdown_s: 3}",
                 "players: {count: 6, wagers_per_player: [2, 4], pick_probability: 0.7}"]
        if faults:
            lines.append(f"faults: {json.dumps(faults)}")
        path = tmp_path / f"bonus_modbus_{game}.yaml"
        path.write_text("\n".join(lines) + "\n")
        files.append(str(path))
    return files


def _bench(tmp_path: Path, urls: dict[str, tuple[str, str]]) -> Path:
    lines = ['schema = 1', 'name = "bonus-stubs"', f"time_scale = {SCALE}",
             "[devices.wheel]", 'kind = "sim"', "[devices.top_slot]", 'kind = "sim"',
             "[devices.wagering]", 'kind = "sim"', "[devices.wagering.params]", "seats = 7"]
    for role, (url, control) in urls.items():
        lines += [f"[devices.{role}]", 'kind = "modbus"', f'url = "{url}"', f'control = "{control}"',
                  "timeout_s = 0.5", "poll_period_s = 0.002"]
    path = tmp_path / "bench-bonus-modbus.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def _bonus_events(trace: Path) -> list[tuple[int, str, str, dict]]:
    """The bonus devices' telemetry and the croupier's bonus steps, device times left out."""
    with TraceReader(trace) as reader:
        return [(e.round, e.device, e.kind, {k: v for k, v in e.payload.items() if k not in TIMES})
                for e in reader.events()
                if (e.device in ROLES and e.kind not in ("device_info", "clock_estimate"))  # the rig's own records
                or (e.device == "croupier" and e.kind in CROUPIER)]


@pytest.mark.slow
@pytest.mark.parametrize("faulty", [False, True], ids=["healthy", "faulty"])
def test_forced_bonus_games_on_modbus_stubs_play_as_in_simulation(stub_control, tmp_path, faulty):
    files = _scenarios(tmp_path, faulty)
    sim = runner.invoke(app, ["run", *files, "--out", str(tmp_path / "sim"), "--jobs", "1"])
    assert sim.exit_code in (0, 1, 3), sim.output
    with stub_control(ROLES, "modbus", SCALE) as urls:
        real = runner.invoke(app, ["run", *files, "--bench", str(_bench(tmp_path, urls)),
                                   "--out", str(tmp_path / "real")])
    assert real.exit_code in (0, 1, 3), real.output
    want, got = _report(tmp_path / "sim"), _report(tmp_path / "real")
    assert all(s["error"] is None for s in got["scenarios"])
    verdicts = {s["name"]: {c["id"]: c["verdict"] for c in s["checks"]} for s in want["scenarios"]}
    assert {s["name"]: {c["id"]: c["verdict"] for c in s["checks"]} for s in got["scenarios"]} == verdicts
    # the faults reached the stubs through their control endpoints, and the checks saw them there
    failing = {name: sorted(c for c, v in checks.items() if v == "fail") for name, checks in verdicts.items()}
    assert all(failing.values()) if faulty else not any(failing.values()), failing
    for s in want["scenarios"]:
        sim_trace, real_trace = tmp_path / "sim" / s["trace"], tmp_path / "real" / s["trace"]
        expected, seen = _bonus_events(sim_trace), _bonus_events(real_trace)
        assert seen == expected, f"{s['name']}: first difference at " + str(
            next(((a, b) for a, b in zip(expected, seen) if a != b), (len(expected), len(seen))))
        kinds = {k for _, _, k, _ in seen}
        assert {"bonus_result", "board_generated", "board_multiplied"} <= kinds, kinds
        assert "bonus_void" not in kinds
        with TraceReader(real_trace) as reader:
            events = list(reader.events())
        assert not [e for e in events if e.kind == "wire_fault"], "the wire was clean"
        info = {e.device: e.payload for e in events if e.kind == "device_info" and e.device in ROLES}
        assert set(info) == set(ROLES) and all(p["url"].startswith("tcp://127.0.0.1:") for p in info.values())
    for s in got["scenarios"]:  # every round played its bonus game to the end
        game = s["name"].removeprefix("bonus-modbus-").replace("-", "_")
        assert s["stats"][f"bonus_{game}"] == ROUNDS and s["stats"]["bonus_void"] == 0, s["stats"]
