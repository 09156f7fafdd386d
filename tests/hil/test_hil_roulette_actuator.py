"""The Roulette table pressed through the rig's actuator (docs/wire/actuator.md): every Roulette Up
press — the players' and the lock-out probe's, on the commanded and on the followed wheel — is an
actuation on the wagering device's seat buttons, every press-log entry is attributed (the rig's, a
duplicate, or foreign: a real player's), a foreign press is refused or settled as the scenario says
(held to § 617b.4(a) and (d) like any other) and is never confirmed to the meter unless it is a
wager; the Roulette Up checks judge on the attribution they re-derive from the trace."""

from __future__ import annotations

from pathlib import Path

import pytest

import hil.controller
from devices.actuator import Attribution
from hil.applicability import BenchRefused
from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader

BASE = """schema: 1
name: t
game: roulette
seed: %(seed)d
rounds: %(rounds)d
table: {wheel: single-zero, roulette_x_paytable: A, roulette_up: P3, progressive_stake_cents: 100}
players: {count: 6, wagers_per_player: [1, 3], late_press_probability: 0.3, roulette_up_probability: 0.7%(players)s}
croupier: {betting_window_s: 6.0, spin_delay_s: 0.5, between_rounds_s: 0.0}
bench:
  actuator: {pulse_s: 0.05, contact_delay_s: 0.002, contact_jitter_s: 0.0001}
  roulette_wagering: {%(wagering)s}
%(wheel)s
lockout: {budget_s: 0.010, probe: {presses: 8, step_s: 0.0005}}
checks: {chi2_min_spins: 100000}
%(extra)s"""

FOLLOW = "  ball_wheel: {cycle: autonomous, launch_delay_s: 6.0}"
FOREIGN = 'foreign_press_rate_hz: 0.5, foreign_spots: ["roulette-up"]'
UP_CHECKS = ("RU-617b.4d-wager-timing", "RU-617b.4h2-meter", "RU-617b.4c1-device-accepted", "RU-617b.4h-settlement",
             "RX-617b.5d-after-wagers")


def text(rounds=12, players="", wagering="", wheel="", extra="", seed=7):
    return BASE % {"rounds": rounds, "players": players, "wagering": wagering, "wheel": wheel, "extra": extra,
                   "seed": seed}


def run(tmp: Path, **kw):
    result = run_scenario(parse_scenario(text(**kw), "t.yaml"), load_bench(), load_rules(), tmp)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    return result, events


def of(events, kind, device=None):
    return [e.payload for e in events if e.kind == kind and (device is None or e.device == device)]


def verdicts(result) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in result["checks"]}


@pytest.mark.parametrize("wheel", ["", FOLLOW], ids=["commanded", "followed"])
def test_every_roulette_up_press_is_an_actuation_and_every_wager_the_rig_s(tmp_path, wheel):
    result, events = run(tmp_path, wheel=wheel)
    acts = of(events, "actuation", "actuator")
    presses = of(events, "press", "roulette_wagering")
    assert acts and presses
    probes = of(events, "lockout_probe", "croupier")
    assert len(probes) == 12 and all(p["via"] == "actuator" for p in probes)
    # the progressive system's 5 wired buttons a seat: 4 search presses and the sentinel, a button each
    assert all(p["presses_capped_to"] == 4 and len(p["offsets_s"]) == 5 for p in probes)
    assert {p["stake_cents"] for p in presses} == {100}  # the button's stake, the system's
    attributed = of(events, "press_attributed", "croupier")
    assert {a["by"] for a in attributed} == {"rig"} and len(attributed) == len(presses)
    by_press = {a["press_id"]: a for a in attributed}
    ups = [w for w in of(events, "wager", "croupier") if w["kind"] == "up"]
    assert ups and all(by_press[w["press_id"]]["purpose"] == "player" for w in ups)
    increments = {i["press_id"] for i in of(events, "meter_increment", "roulette_wagering")}
    assert increments == {w["press_id"] for w in ups}  # the meter grows from the wagers, nothing else
    # the probe's actuations close after the lock-out command (on the followed wheel: sent at its line)
    locks = [e for e in events if e.kind == "lockout_command"]
    probe_acts = [e for e in events if e.kind == "actuation" and e.payload["purpose"] == "probe"]
    assert len(probe_acts) == 5 * 12
    for a in probe_acts:
        lock = next(x for x in locks if x.round == a.round)
        assert a.payload["closed_hi_s"] >= lock.payload["device_time_s"]
    v = verdicts(result)
    assert all(v[c] == "pass" for c in (*UP_CHECKS, "RU-617b.4c2-lockout")), v
    if wheel:
        lockout = next(c for c in result["checks"] if c["id"] == "RU-617b.4c2-lockout")
        assert "timed from the wheel's own" in lockout["summary"]
    assert result["expectation_met"]


@pytest.mark.parametrize("policy", ["refuse", "settle"])
def test_a_real_player_s_presses_are_attributed_and_refused_or_settled(tmp_path, policy):
    result, events = run(tmp_path, rounds=16, players=f", foreign_presses: {policy}", wagering=FOREIGN, wheel=FOLLOW)
    foreign = {a["press_id"]: a for a in of(events, "press_attributed", "croupier") if a["by"] == "foreign"}
    assert foreign and all(a["detail"] == "not made by the rig" for a in foreign.values())
    accepted = {p["press_id"] for p in of(events, "press", "roulette_wagering") if p["accepted"]} & set(foreign)
    assert accepted
    rejected = {r["press_id"]: r["reason"] for r in of(events, "wager_rejected", "croupier") if r.get("press_id")}
    taken = {w["press_id"]: w for w in of(events, "wager", "croupier") if w.get("by") == "foreign"}
    increments = {i["press_id"] for i in of(events, "meter_increment", "roulette_wagering")}
    rules = ("the Roulette Up streak has started (§ 617b.4(d))", "no Roulette wager by this player (§ 617b.4(a))",
             "placed after no more bets")
    for pid in accepted:  # each accepted foreign press: a wager, or a rejection on record with its reason
        if policy == "refuse":
            assert pid not in taken and pid not in increments
            assert rejected[pid] in ("not made by the rig", "placed after no more bets")
        else:
            assert pid in taken or rejected[pid] in rules
            assert (pid in increments) == (pid in taken)
            if pid in taken:
                assert taken[pid]["stake_cents"] == 100
    if policy == "settle":
        assert taken and any(rejected.get(pid, "").endswith("(§ 617b.4(d))") for pid in accepted)
        straights = {(e.round, e.payload["seat"]) for e in events
                     if e.kind == "wager" and e.device == "croupier" and e.payload["kind"] == "straight"}
        wagers = [e for e in events if e.kind == "wager" and e.payload.get("by") == "foreign"]
        assert all((w.round, w.payload["seat"]) in straights for w in wagers)  # § 617b.4(a): a Roulette player's
    v = verdicts(result)
    assert all(v[c] == "pass" for c in UP_CHECKS), v


@pytest.mark.parametrize("fault, failing", [
    ("ignore_foreign_presses", {"RU-617b.4d-wager-timing", "RU-617b.4h2-meter"}),  # dropped, no record
    ("confirm_foreign_presses", {"RU-617b.4h2-meter"}),  # refused, yet confirmed to the meter
])
def test_the_up_checks_fail_a_dropped_or_a_confirmed_foreign_press(tmp_path, fault, failing):
    result, _ = run(tmp_path, wagering=FOREIGN, extra=f"faults:\n  croupier: {{{fault}: true}}\n")
    v = verdicts(result)
    assert {k for k, x in v.items() if x == "fail"} == failing


def test_the_checks_re_derive_the_attribution_and_never_take_the_croupier_s(tmp_path, monkeypatch):
    """A croupier whose attribution is wrong — the rig's own Roulette Up press taken for a real
    player's and refused "not made by the rig" — is caught: the checks match the trace's actuations
    to the press log themselves, find that press the rig's, and hold it owed."""
    real = hil.controller.attribute

    def wrong(actuations, entries, u, window):
        att = real(actuations, entries, u, window)
        players = {a.actuation_id for a in actuations if a.purpose == "player"}
        pid = next((p for p, aid in sorted(att.matched.items()) if aid in players), None)
        if pid is None:
            return att
        matched = {p: a for p, a in att.matched.items() if p != pid}
        return Attribution(matched, dict(att.duplicates), sorted([*att.foreign, pid]), list(att.lost))

    monkeypatch.setattr(hil.controller, "attribute", wrong)
    result, events = run(tmp_path, rounds=4)
    assert [r for r in of(events, "wager_rejected", "croupier") if r.get("reason") == "not made by the rig"]
    v = verdicts(result)
    assert v["RU-617b.4d-wager-timing"] == v["RU-617b.4h2-meter"] == "fail"
    findings = [f["message"] for c in result["checks"] if c["id"] == "RU-617b.4d-wager-timing" for f in c["findings"]]
    assert any("refused as not made by the rig, but it is the rig's actuation" in m for m in findings)


def test_a_wrong_617b_4a_refusal_of_a_real_player_is_a_finding(tmp_path, monkeypatch):
    """A refusal on record is held to what the trace shows: a press refused as by a player without a
    Roulette wager, at a seat that placed one this round, is a finding (the press stays owed)."""
    import hil.roulette

    real = hil.roulette.RouletteController._accept

    def accept(self, n, t_close):  # a wrong croupier: a round's first Roulette Up wager refused under § 617b.4(a)
        said, first = self._say, []

        def say(kind, payload=None):
            if kind == "wager" and payload.get("kind") == "up" and not first:
                first.append(payload["wager_id"])
                return said("wager_rejected", {"kind": "up", "seat": payload["seat"], "press_id": payload["press_id"],
                                               "stake_cents": payload["stake_cents"],
                                               "reason": "no Roulette wager by this player (§ 617b.4(a))"})
            return said(kind, payload)

        self._say = say
        try:
            straights, ups = real(self, n, t_close)
        finally:
            del self._say
        return straights, [w for w in ups if w.wager_id not in first]

    monkeypatch.setattr(hil.roulette.RouletteController, "_accept", accept)
    result, _ = run(tmp_path, rounds=4)
    timing = next(c for c in result["checks"] if c["id"] == "RU-617b.4d-wager-timing")
    assert timing["verdict"] == "fail"
    assert any("placed one this round" in f["message"] for f in timing["findings"])


def test_a_system_whose_buttons_wager_another_stake_than_the_table_is_refused(tmp_path):
    """The stake of a button press is the system's; the meter's row is the table's progressive
    wager's: a mismatch is refused before any round (exit 2 in ``croupier run``), never settled."""
    sc = parse_scenario(text(rounds=1, wagering="button_stake_cents: 500"), "t.yaml")
    with pytest.raises(BenchRefused) as exc:
        run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert exc.value.kind == "mismatch"
    assert "seat buttons wager [500] cents" in str(exc.value) and "progressive_stake_cents" in str(exc.value)


def test_a_real_player_s_press_refused_where_the_scenario_settles_them_is_a_finding(tmp_path, monkeypatch):
    """The checks know the scenario's policy (``CheckConfig.foreign_presses``, recorded in the trace):
    where real players' presses are to be settled, a refusal "not made by the rig" excuses nothing."""
    import dataclasses

    import hil.runner

    real = hil.runner.check_config
    monkeypatch.setattr(hil.runner, "check_config", lambda sc: dataclasses.replace(real(sc), foreign_presses="settle"))
    result, events = run(tmp_path, wagering=FOREIGN)  # the croupier refuses them (the default)
    assert [r for r in of(events, "wager_rejected", "croupier") if r.get("reason") == "not made by the rig"]
    v = verdicts(result)
    assert v["RU-617b.4d-wager-timing"] == v["RU-617b.4h2-meter"] == "fail"
    timing = next(c for c in result["checks"] if c["id"] == "RU-617b.4d-wager-timing")
    assert all("the scenario settles real players' presses" in f["message"] for f in timing["findings"])


def test_a_table_wired_with_the_roulette_up_buttons_only_is_probed_by_the_sentinel_alone(tmp_path):
    """A Roulette table's system has one Roulette Up button per seat: the bench's ``buttons`` table
    wires those only; the players press them, the probe seat's single button takes the sentinel at
    the budget each round, and no other button of the system is ever pressed."""
    buttons = ", ".join(f'"{seat}:roulette-up": {seat - 1}' for seat in (1, 2, 3, 4, 5, 6, 7))
    t = text(rounds=5).replace("contact_jitter_s: 0.0001}", f"contact_jitter_s: 0.0001, buttons: {{{buttons}}}}}")
    result = run_scenario(parse_scenario(t, "t.yaml"), load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp_path / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    probes = of(events, "lockout_probe", "croupier")
    assert len(probes) == 5 and all(p["presses_capped_to"] == 0 and p["offsets_s"] == [0.01] for p in probes)
    acts = of(events, "actuation", "actuator")
    assert {a["spot"] for a in acts} == {"roulette-up"} and {a["coil"] for a in acts} <= set(range(7))
    assert [w for w in of(events, "wager", "croupier") if w["kind"] == "up"]
    v = verdicts(result)
    assert all(v[c] == "pass" for c in UP_CHECKS), v
