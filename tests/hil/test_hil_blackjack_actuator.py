"""The Blackjack table pressed through the rig's actuator (docs/wire/actuator.md): every progressive
press is an actuation on the progressive system's seat buttons, every press-log entry is attributed
(the rig's, a duplicate, or foreign: a real player's), a foreign press is refused or settled as the
scenario says and is never confirmed to the meters unless it is a wager; the wager checks judge on the
attribution they re-derive from the trace, never on the croupier's."""

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
game: blackjack
seed: %(seed)d
rounds: %(rounds)d
cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', side: {kings-bounty: B}}
players: {count: 4, progressive_probability: 0.8, side_probability: 0.3, late_press_probability: 0.3%(players)s}
croupier: {betting_window_s: 6.0, between_rounds_s: 2.0}
bench:
  actuator: {pulse_s: 0.05, contact_delay_s: 0.002, contact_jitter_s: 0.0001}
  progressive: {%(progressive)s}
%(extra)s"""


def run(tmp: Path, rounds: int = 12, players: str = "", progressive: str = "", extra: str = "", seed: int = 7):
    text = BASE % {"rounds": rounds, "players": players, "progressive": progressive, "extra": extra, "seed": seed}
    sc = parse_scenario(text, "t.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    return result, events


def of(events, kind, device=None):
    return [e.payload for e in events if e.kind == kind and (device is None or e.device == device)]


def verdicts(result) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in result["checks"]}


FOREIGN = 'foreign_press_rate_hz: 0.5, foreign_spots: ["21+3-progressive"]'
#: a player holding a button the moment the relay closes it masks the rig's press (the contacts are
#: wired OR: no edge, an ``actuation_lost``), as the bundled foreign-press scenarios tolerate
HELD = "checks: {max_actuations_lost: 5}\n"


def test_every_progressive_press_is_an_actuation_and_every_wager_is_the_rig_s(tmp_path):
    result, events = run(tmp_path)
    acts = of(events, "actuation", "actuator")
    presses = of(events, "press", "progressive")
    assert acts and presses
    probes = of(events, "lockout_probe", "croupier")
    assert probes and all(p["via"] == "actuator" for p in probes)
    # a seat of the 5 wired buttons: 4 search presses and the sentinel, one button each
    assert all(p["presses_capped_to"] == 4 and len(p["offsets_s"]) == 5 for p in probes)
    assert {p["stake_cents"] for p in presses} == {100}  # the button's stake, the system's
    attributed = of(events, "press_attributed", "croupier")
    assert attributed and {a["by"] for a in attributed} == {"rig"}
    assert len(attributed) == len(presses)  # every log entry attributed, each to one actuation
    by_press = {a["press_id"]: a for a in attributed}
    wagers = [w for w in of(events, "wager", "croupier") if w["wager"] == "twenty-one-plus-three"]
    assert wagers and all(by_press[w["press_id"]]["purpose"] == "player" for w in wagers)
    increments = {i["press_id"] for i in of(events, "meter_increment", "progressive")}
    assert increments == {w["press_id"] for w in wagers}  # the meters grow from the wagers, nothing else
    v = verdicts(result)
    assert v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == v["BJ-633b.17c2-lockout"] == "pass"
    assert result["expectation_met"]


@pytest.mark.parametrize("policy", ["refuse", "settle"])
def test_a_real_player_s_presses_are_attributed_and_refused_or_settled(tmp_path, policy):
    result, events = run(tmp_path, players=f", foreign_presses: {policy}", progressive=FOREIGN, extra=HELD)
    foreign = {a["press_id"]: a for a in of(events, "press_attributed", "croupier") if a["by"] == "foreign"}
    assert foreign and all(a["detail"] == "not made by the rig" for a in foreign.values())
    accepted = {p["press_id"] for p in of(events, "press", "progressive") if p["accepted"]} & set(foreign)
    assert accepted
    rejected = {r["press_id"]: r["reason"] for r in of(events, "wager_rejected", "croupier") if r.get("press_id")}
    taken = {w["press_id"]: w for w in of(events, "wager", "croupier") if w.get("by") == "foreign"}
    increments = {i["press_id"] for i in of(events, "meter_increment", "progressive")}
    for pid in accepted:  # each accepted foreign press: a settled wager, or a rejection on record
        if policy == "refuse":
            assert pid not in taken and pid not in increments
            assert rejected[pid] in ("not made by the rig", "placed after no more bets")
        else:
            assert pid in taken or rejected[pid] == "placed after no more bets"
            if pid in taken:
                assert pid in increments and taken[pid]["stake_cents"] == 100
    if policy == "settle":
        settled = {e["wager_id"] for k in ("collect", "pay", "refund") for e in of(events, k, "croupier")}
        assert taken and {w["wager_id"] for w in taken.values()} <= settled
    v = verdicts(result)
    assert v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == v["BJ-side-settlement"] == "pass"


@pytest.mark.parametrize("fault, failing", [
    ("ignore_foreign_presses", {"BJ-633b.17e-chips-accepted", "BJ-meter-accounting"}),  # dropped, no record
    ("confirm_foreign_presses", {"BJ-meter-accounting"}),  # refused, yet confirmed to the meters
])
def test_the_wager_checks_fail_a_dropped_or_a_confirmed_foreign_press(tmp_path, fault, failing):
    result, _ = run(tmp_path, progressive=FOREIGN, extra=f"faults:\n  croupier: {{{fault}: true}}\n" + HELD)
    v = verdicts(result)
    assert {k for k, x in v.items() if x == "fail"} == failing


def test_the_checks_re_derive_the_attribution_and_never_take_the_croupier_s(tmp_path, monkeypatch):
    """A croupier whose attribution is wrong — the rig's own press taken for a real player's and
    refused "not made by the rig" — is caught: the checks match the trace's actuations to the press
    log themselves, find that press the rig's, and hold it owed (a wager never collected nor metered)."""
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
    refused = [r for r in of(events, "wager_rejected", "croupier") if r.get("reason") == "not made by the rig"]
    assert refused  # the croupier refused its own players' presses
    v = verdicts(result)
    assert v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == "fail"
    findings = [f["message"] for c in result["checks"] if c["id"] == "BJ-meter-accounting" for f in c["findings"]]
    assert any("refused as not made by the rig, but it is the rig's actuation" in m for m in findings)


def test_a_system_whose_buttons_wager_another_stake_than_the_table_is_refused(tmp_path):
    """The stake of a button press is the system's; the meters' rows are the table's progressive
    wager's: a mismatch is refused before any round (exit 2 in ``croupier run``), never settled."""
    sc = parse_scenario(BASE % {"rounds": 1, "players": "", "progressive": "button_stake_cents: 500",
                                "extra": "", "seed": 1}, "t.yaml")
    with pytest.raises(BenchRefused) as exc:
        run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert exc.value.kind == "mismatch"
    assert "seat buttons wager [500] cents" in str(exc.value) and "progressive_stake_cents" in str(exc.value)


def test_a_table_wired_one_button_per_seat_is_probed_by_the_sentinel_alone(tmp_path):
    """A real Blackjack system has one progressive button per seat: the bench's ``buttons`` table
    wires those only; the probe seat's single button takes the sentinel at the budget each round."""
    buttons = ", ".join(f'"{seat}:21+3-progressive": {seat - 1}' for seat in (1, 2, 3, 4, 7))
    text = (BASE % {"rounds": 6, "players": "", "progressive": "", "extra": "", "seed": 9}).replace(
        "contact_jitter_s: 0.0001}", f"contact_jitter_s: 0.0001, buttons: {{{buttons}}}}}")
    result = run_scenario(parse_scenario(text, "t.yaml"), load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp_path / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    probes = of(events, "lockout_probe", "croupier")
    assert probes and all(p["presses_capped_to"] == 0 and p["offsets_s"] == [0.01] for p in probes)
    acts = of(events, "actuation", "actuator")
    assert {a["coil"] for a in acts} <= {0, 1, 2, 3, 6} and {a["spot"] for a in acts} == {"21+3-progressive"}
    v = verdicts(result)
    assert v["BJ-633b.17c2-lockout"] == v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == "pass"


def test_a_real_player_s_press_refused_where_the_scenario_settles_them_is_a_finding(tmp_path, monkeypatch):
    """The checks know the scenario's policy (``CheckConfig.foreign_presses``, recorded in the trace):
    where real players' presses are to be settled, a refusal "not made by the rig" excuses nothing."""
    import dataclasses

    import hil.runner

    real = hil.runner.check_config
    monkeypatch.setattr(hil.runner, "check_config",
                        lambda sc: dataclasses.replace(real(sc), foreign_presses="settle"))
    result, events = run(tmp_path, progressive=FOREIGN, extra=HELD)  # the croupier refuses them (the default)
    assert [r for r in of(events, "wager_rejected", "croupier") if r.get("reason") == "not made by the rig"]
    v = verdicts(result)
    assert v["BJ-633b.17e-chips-accepted"] == v["BJ-meter-accounting"] == "fail"
    findings = [f["message"] for c in result["checks"] if c["id"] == "BJ-633b.17e-chips-accepted" for f in c["findings"]]
    assert any("the scenario settles real players' presses" in m for m in findings)
