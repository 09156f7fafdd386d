"""A Roulette table on a black-box progressive table game system over Modbus (a vendor map without
the injection feature), in another process, its Roulette Up seat buttons pressed through the stub's
Modbus DO module (``croupier stub progressive-system --actuator-modbus``, docs/wire/actuator.md):
``croupier run`` presses every Roulette Up wager and the lock-out probe as actuations, attributes
every press-log entry to the rig, confirms only the wagers to the system's Roulette Up meter and
settles every round — the scenario MET."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hil.wire
from firmware_stubs.launch import launch
from hil.cli import app
from hil.trace import TraceReader
from rules.roulette_up import meter_spec

runner = CliRunner()


def _map_text_without_injection() -> str:
    """The shipped progressive-system map less its injection and armed-probe points."""
    text = (Path(hil.wire.__file__).parent / "maps" / "progressive_system.toml").read_text(encoding="utf-8")
    head, *blocks = text.split("[[points]]")
    kept = [b for b in blocks if not re.search(r'^name = "(press_inject_|probe_)', b, re.M)]
    assert len(kept) < len(blocks)
    return "[[points]]".join([head, *kept])


def test_a_roulette_run_on_the_black_box_system_and_its_do_module_settles_every_round(tmp_path):
    (tmp_path / "vendor.toml").write_text(_map_text_without_injection(), encoding="utf-8")
    sc = tmp_path / "ru.yaml"
    sc.write_text("schema: 1\nname: ru\ngame: roulette\nseed: 5\nrounds: 2\n"
                  "table: {wheel: single-zero, roulette_x_paytable: A, roulette_up: P3, progressive_stake_cents: 100}\n"
                  "players: {count: 4, wagers_per_player: [1, 2], roulette_up_probability: 1.0, "
                  "late_press_probability: 0.0}\n"
                  "croupier: {betting_window_s: 2.0, spin_delay_s: 2.0, between_rounds_s: 0.5}\n"
                  # timed from the wheel's own line, the budget holds the rig's reaction too: at 20x a
                  # loaded machine's few ms of wall time are tens of ms of table time (12.5 ms wall here)
                  "lockout: {budget_s: 0.25, probe: {presses: 4, step_s: 0.01}}\n"
                  "checks: {chi2_min_spins: 100000}\n")
    meters = json.dumps([meter_spec("P3", 100)])
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                "--time-scale", "10", "--param", f"meters={meters}") as stub:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "black-box"\ntime_scale = 10\n[devices.roulette_wagering]\n'
                         f'kind = "modbus"\nurl = "{stub.url}"\nregister_map = "vendor.toml"\n'
                         f'[devices.actuator]\nkind = "modbus"\nurl = "{stub.actuator}"\npulse_s = 0.03\n')
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(out)])
    assert res.exit_code == 0, res.output
    [s] = json.loads((out / "report.json").read_text())["scenarios"]
    assert s["expectation_met"] and s["error"] is None, s
    assert s["stats"]["rounds"] == 2 and not s["stats"]["void_rounds"] and not s["stats"].get("foreign_presses")
    with TraceReader(out / "traces" / "ru.sqlite") as r:
        events = [e for e in r.events() if e.round >= 1]
    players = [e.payload for e in events if e.kind == "actuation" and e.payload["purpose"] == "player"]
    probes = [e.payload for e in events if e.kind == "lockout_probe"]
    assert len(probes) == 2 and all(p["via"] == "actuator" for p in probes)
    by_act = {e.payload["actuation_id"]: e.payload["press_id"] for e in events
              if e.kind == "press_attributed" and e.payload["by"] == "rig"}
    ups = {e.payload["press_id"] for e in events if e.kind == "wager" and e.payload.get("kind") == "up"}
    refused = {e.payload["press_id"] for e in events if e.kind == "wager_rejected" and e.payload.get("press_id")}
    lost = {e.payload["actuation_id"] for e in events if e.kind == "actuation_lost"}
    assert players and ups
    for a in players:  # each player's press a wager — or, on a loaded machine, refused or lost, on record
        aid = a["actuation_id"]
        assert aid in lost or by_act[aid] in ups | refused
    increments = {e.payload["press_id"] for e in events if e.kind == "meter_increment"}
    assert increments == ups  # the system's meter grows from the confirmed wagers only
    v = {c["id"]: c["verdict"] for c in s["checks"]}
    for check in ("RU-617b.4d-wager-timing", "RU-617b.4h2-meter", "RU-617b.4c1-device-accepted", "EVIDENCE-link"):
        assert v[check] == "pass", (check, v)
    lock = next(c for c in s["checks"] if c["id"] == "RU-617b.4c2-lockout")
    assert lock["verdict"] == "pass" or (lock["verdict"] == "indeterminate" and "straddles" in lock["summary"])


@pytest.mark.slow
def test_the_followed_live_wheel_with_the_black_box_system_and_its_do_module(tmp_path):
    """The live-wheel stub (its own game cycle, on a pty) followed, and the black-box system pressed
    through its DO module: the probe is actuated when the lock-out command goes out at the wheel's own
    "no more bets", every press attributed to the rig, the meter fed by the confirmed wagers only."""
    (tmp_path / "vendor.toml").write_text(_map_text_without_injection(), encoding="utf-8")
    sc = tmp_path / "ru.yaml"
    sc.write_text("schema: 1\nname: ru\ngame: roulette\nseed: 5\nrounds: 2\n"
                  "table: {wheel: single-zero, roulette_x_paytable: A, roulette_up: P3, progressive_stake_cents: 100}\n"
                  "players: {count: 4, wagers_per_player: [1, 2], roulette_up_probability: 1.0, "
                  "late_press_probability: 0.0}\n"
                  "croupier: {betting_window_s: 8.0, spin_delay_s: 0.5, between_rounds_s: 0.0}\n"
                  # timed from the wheel's own line, the budget holds the rig's reaction too: at 20x a
                  # loaded machine's few ms of wall time are tens of ms of table time (12.5 ms wall here)
                  "lockout: {budget_s: 0.25, probe: {presses: 4, step_s: 0.01}}\n"
                  "checks: {chi2_min_spins: 100000}\n")
    meters = json.dumps([meter_spec("P3", 100)])
    with launch("roulette-wheel", "--pty", "--time-scale", "20") as wheel, \
            launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                   "--time-scale", "20", "--param", f"meters={meters}") as stub:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "black-box"\ntime_scale = 20\n'
                         f'[devices.ball_wheel]\nkind = "serial"\nurl = "{wheel.url}"\ntimeout_s = 0.5\n'
                         f'[devices.roulette_wagering]\nkind = "modbus"\nurl = "{stub.url}"\n'
                         f'register_map = "vendor.toml"\n'
                         f'[devices.actuator]\nkind = "modbus"\nurl = "{stub.actuator}"\npulse_s = 0.03\n')
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(out)])
    assert res.exit_code == 0, res.output
    [s] = json.loads((out / "report.json").read_text())["scenarios"]
    assert s["expectation_met"] and s["error"] is None, s
    assert s["stats"]["rounds"] == 2 and not s["stats"]["void_rounds"] and not s["stats"].get("foreign_presses")
    with TraceReader(out / "traces" / "ru.sqlite") as r:
        events = [e for e in r.events() if e.round >= 1]
    nmb = [e for e in events if e.kind == "no_more_bets" and e.device == "croupier"]
    assert len(nmb) == 2 and all(e.payload["source"] == "wheel" for e in nmb)
    locks = {e.round: e for e in events if e.kind == "lockout_command"}
    probes = [e for e in events if e.kind == "actuation" and e.payload["purpose"] == "probe"]
    assert probes and all(e.payload["closed_hi_s"] >= locks[e.round].payload["command_lo_s"] for e in probes)
    ups = {e.payload["press_id"] for e in events if e.kind == "wager" and e.payload.get("kind") == "up"}
    increments = {e.payload["press_id"] for e in events if e.kind == "meter_increment"}
    assert ups and increments == ups
    assert {e.payload["by"] for e in events if e.kind == "press_attributed"} == {"rig"}
    v = {c["id"]: c["verdict"] for c in s["checks"]}
    for check in ("RU-617b.4d-wager-timing", "RU-617b.4h2-meter", "RU-617b.4c1-device-accepted"):
        assert v[check] == "pass", (check, v)
    assert v["RU-617b.4c2-lockout"] in ("pass", "indeterminate")
