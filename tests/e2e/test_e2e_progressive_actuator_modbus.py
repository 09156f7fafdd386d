"""A black-box progressive table game system over Modbus (a vendor map without the injection
feature), in another process, with the stub's Modbus DO module wired across its seat buttons
(``croupier stub progressive-system --actuator-modbus``, docs/wire/actuator.md):

* every actuation is one press-log entry with the system's button stake, the lock-out boundary
  bracketed by the rig's clock holds the stub's latency, and the dealer's confirmation of the rig's
  players' wagers — only those — increments the meters;
* the same system on a bench without an actuator: ``croupier run`` gives one clear error and exit 2
  (the croupier cannot press a device that has no injection), never a traceback per scenario.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hil.wire
from devices.actuator import PROGRESSIVE_SPOTS, ActuatorParams, Entry, Wiring, attribute
from firmware_stubs.launch import launch
from hil.adapters.actuator_modbus import ModbusActuator
from hil.adapters.modbus_progressive import ModbusProgressiveSystem
from hil.cli import app
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import parse_register_map

LATENCY_S = 0.04  # the stub's lock-out latency: wide against a loaded machine's write round trips
SPOT = "21+3-progressive"
runner = CliRunner()


def _map_text_without_injection() -> str:
    """The shipped progressive-system map less its injection and armed-probe points."""
    text = (Path(hil.wire.__file__).parent / "maps" / "progressive_system.toml").read_text(encoding="utf-8")
    head, *blocks = text.split("[[points]]")
    kept = [b for b in blocks if not re.search(r'^name = "(press_inject_|probe_)', b, re.M)]
    assert len(kept) < len(blocks)
    return "[[points]]".join([head, *kept])


@dataclass(frozen=True)
class Relay:
    url: str
    unit: int = 1
    timeout_s: float = 0.5


def test_the_system_s_buttons_pressed_through_its_do_module_feed_the_meters_only_when_confirmed():
    rmap = parse_register_map(_map_text_without_injection(), "vendor-without-injection.toml", "progressive-system")
    assert "injection" not in rmap.features
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                "--param", f"lockout_latency_mean_s={LATENCY_S}", "--param", "lockout_latency_jitter_s=0",
                "--param", "button_stake_cents=100") as stub, IoLoop() as io:
        assert stub.actuator is not None
        env = WallClockEnvironment()
        events: list[tuple[str, str, dict]] = []
        sink = lambda d, k, p: events.append((d, k, p))  # noqa: E731
        dev = ModbusProgressiveSystem(env, io, stub.url, 1, rmap, sink, "progressive", 0.5, 0.002)
        params = ActuatorParams(pulse_s=0.03)
        relay = ModbusActuator(env, io, Relay(stub.actuator), params, Wiring.of(PROGRESSIVE_SPOTS, 7, None), sink)
        presses, players, probes = [], [], []
        dev.watch(presses.append)
        confirmed = []
        try:
            assert not dev.injection
            with pytest.raises(ValueError, match="actuator"):
                dev.press(1, SPOT, 100)

            def round_():
                dev.open_betting()
                yield env.timeout(0.05)
                for seat in (1, 2, 3):  # the players' progressive wagers
                    players.append(relay.press(seat, SPOT))
                yield env.timeout(0.1)
                dev.lock_out()
                t_lock = env.now
                for i, off in enumerate([0.0, 0.02, 0.06, 0.09, 0.12]):  # the probe, one button each
                    yield env.timeout(max(0.0, t_lock + off - env.now))
                    probes.append(relay.press(7, PROGRESSIVE_SPOTS[i], "probe"))
                yield env.timeout(0.3)
                mine = {a.value.actuation_id for a in players}
                att = attribute([a.value for a in players + probes],
                                [Entry(p.press_id, p.seat, p.spot, p.device_time_s) for p in presses],
                                dev.clock.uncertainty_s, params.match_window_s)
                ids = [pid for pid, aid in att.matched.items() if aid in mine]
                ev = dev.confirm_wagers(ids)
                yield ev | env.timeout(2.0)
                confirmed.append((att, ids, ev.value if ev.processed else None))

            env.run(env.process(round_()))
        finally:
            relay.close()
            dev.close()
    acts = players + probes
    assert all(a.triggered and a.value.ok for a in acts)
    assert not [p for d, k, p in events if k == "wire_fault"]
    assert {p.stake_cents for p in presses} == {100}  # the system's button stake, never the rig's
    [(att, ids, done)] = confirmed
    assert len(att.matched) == len(acts) and not att.lost and not att.foreign and not att.duplicates
    by_press = {p.press_id: p for p in presses}
    assert len(ids) == 3 and all(by_press[i].accepted and by_press[i].spot == SPOT for i in ids)
    assert done is not None and sorted(done) == sorted(ids)  # the confirmed wagers incremented
    incremented = {p["press_id"] for _, k, p in events if k == "meter_increment"}
    assert incremented == set(ids)  # the probe's presses never reach a meter
    cmd = next(p for _, k, p in events if k == "lockout_command")
    by_act = {a.value.actuation_id: a.value for a in acts}
    verdicts = []
    for pid, aid in att.matched.items():
        a, p = by_act[aid], by_press[pid]
        if a.purpose != "probe":
            continue
        lo, hi = a.closed_lo_s - cmd["command_hi_s"], a.closed_hi_s - cmd["command_lo_s"]
        if p.accepted:  # accepted => the latency is past the offset's lower end
            assert lo < LATENCY_S
        else:  # locked out => the latency is within the offset's upper end
            assert p.reason == "locked_out" and hi >= LATENCY_S - 1e-6
        verdicts.append(p.accepted)
    assert True in verdicts and False in verdicts


def test_a_system_without_injection_on_a_bench_without_an_actuator_is_one_error_exit_2(tmp_path):
    (tmp_path / "vendor.toml").write_text(_map_text_without_injection(), encoding="utf-8")
    scenarios = []
    for name in ("bj-1", "bj-2"):  # two scenarios: still one error, the run stopped at the first
        scenarios.append(tmp_path / f"{name}.yaml")
        scenarios[-1].write_text(f"schema: 1\nname: {name}\ngame: blackjack\nseed: 3\nrounds: 1\n"
                                 "cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', "
                                 "side: {}}\n")
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--time-scale", "20") as stub:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "black-box"\ntime_scale = 20\n[devices.progressive]\nkind = "modbus"\n'
                         f'url = "{stub.url}"\nregister_map = "vendor.toml"\n')
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", *map(str, scenarios), "--bench", str(bench), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "Traceback" not in res.output and text.count("error:") == 1
    assert "progressive: the device has no press injection and the bench no actuator" in text
    assert "[devices.actuator]" in text


def test_a_blackjack_run_on_the_black_box_system_and_its_do_module_settles_every_round(tmp_path):
    """``croupier run`` with the progressive system as a lab has it — a vendor map without injection,
    configured with the regulation's 21+3 row, no control endpoint — and the relay module across its
    buttons: every press an actuation attributed to the rig, every round settled, the scenario MET."""
    import json

    from hil.trace import TraceReader
    from rules.blackjack_table import meter_specs

    (tmp_path / "vendor.toml").write_text(_map_text_without_injection(), encoding="utf-8")
    sc = tmp_path / "bj.yaml"
    sc.write_text("schema: 1\nname: bj\ngame: blackjack\nseed: 3\nrounds: 3\n"
                  "cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', side: {}}\n"
                  "players: {count: 4, progressive_probability: 1.0, late_press_probability: 0.0}\n"
                  "croupier: {betting_window_s: 2.0, spin_delay_s: 2.0, between_rounds_s: 0.5}\n"
                  "lockout: {budget_s: 0.05, probe: {presses: 4, step_s: 0.002}}\n")
    meters = json.dumps(meter_specs("twenty-one-plus-three", "1", 6, 100))
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                "--time-scale", "10", "--param", f"meters={meters}") as stub:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "black-box"\ntime_scale = 10\n[devices.progressive]\nkind = "modbus"\n'
                         f'url = "{stub.url}"\nregister_map = "vendor.toml"\n'
                         f'[devices.actuator]\nkind = "modbus"\nurl = "{stub.actuator}"\npulse_s = 0.03\n')
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(out)])
    assert res.exit_code == 0, res.output
    [s] = json.loads((out / "report.json").read_text())["scenarios"]
    assert s["expectation_met"] and s["error"] is None
    assert s["stats"]["rounds"] == 3 and not s["stats"]["void_rounds"] and not s["stats"].get("foreign_presses")
    with TraceReader(out / "traces" / "bj.sqlite") as r:
        events = [e for e in r.events() if e.round >= 1]
    players = [e.payload for e in events if e.kind == "actuation" and e.payload["purpose"] == "player"]
    by_act = {e.payload["actuation_id"]: e.payload["press_id"] for e in events
              if e.kind == "press_attributed" and e.payload["by"] == "rig"}
    wagers = {e.payload["press_id"] for e in events if e.kind == "wager" and "press_id" in e.payload}
    late = {e.payload["press_id"] for e in events if e.kind == "wager_rejected"
            and e.payload.get("reason") == "placed after no more bets"}
    lost = {e.payload["actuation_id"] for e in events if e.kind == "actuation_lost"}
    # the device's own refusals: a relay pulse a loaded machine delayed past the system's lock-out is
    # in its press log as not accepted (a fresh machine once had press 22 so), never a wager
    refused = {e.payload["press_id"]: e.payload["reason"] for e in events
               if e.device == "progressive" and e.kind == "press" and not e.payload["accepted"]}
    assert len(players) == 12 and wagers
    for a in players:  # each player's press a wager — or, on a loaded machine, refused as late or lost, on record
        aid = a["actuation_id"]
        assert aid in lost or by_act[aid] in wagers | late or refused.get(by_act[aid]) in ("locked_out", "betting_closed")
    assert not wagers & set(refused)
    assert s["stats"]["progressive_wagers"] == len(wagers)
    v = {c["id"]: c["verdict"] for c in s["checks"]}
    assert v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == v["EVIDENCE-link"] == "pass"
    lock = next(c for c in s["checks"] if c["id"] == "BJ-633b.17c2-lockout")
    # at time scale 10 a loopback Modbus round trip (~1 ms) is ~10 ms of the table's time: the closings'
    # brackets are that wide, and a round whose bracket straddles the budget is indeterminate, never a pass
    m = {x["name"]: x for x in lock["measurements"]}
    assert m["actuation_uncertainty_max"]["value"] > 0
    assert lock["verdict"] == "pass" or (lock["verdict"] == "indeterminate" and "straddles" in lock["summary"])
