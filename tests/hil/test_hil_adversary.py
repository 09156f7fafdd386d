"""The late-bet adversary (hil.adversary) and its checks (hil.checks.adversary).

Quick: the adversary's attempts at a Crazy Time table tie to the device's own press reports and
the figures add up; its draws never move the players' or the devices'; the check judges the
device's reports, never the adversary's copy of an answer (a press accepted after the device's
first locked-out refusal or past the budget fails it, a late press taken as a wager fails it, an
attempt the device never reported is no evidence); bad ``adversary`` sections are refused at load.
Slow: >= 10^4 attempts per table in simulation, the per-table figures printed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hil.adversary import Adversary
from hil.bench import load_bench
from hil.checks.adversary import CrazyTimeLateBets, UthLateBets
from hil.checks.base import CheckConfig, RoundView
from hil.config import ConfigError
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import Event, TraceReader

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: each table's bundled adversary scenario
TABLES = {"crazy-time": "crazy_time", "roulette": "roulette", "blackjack": "blackjack", "uth": "uth",
          "criss-cross": "criss_cross", "crazy-4": "crazy4"}
CHECK_ID = {"crazy-time": "CT-690.2a-late-bets", "roulette": "RU-617b.4c2-late-bets",
            "blackjack": "BJ-633b.17c2-late-bets", "uth": "UTH-653b.4c-late-bets",
            "criss-cross": "CC-674b.1c-late-bets", "crazy-4": "C4-657a.7c-late-bets"}


def _doc(game: str) -> dict:
    return yaml.safe_load((SCENARIOS / TABLES[game] / "adversary_late_bets.yaml").read_text(encoding="utf-8"))


def _run(doc: dict, tmp_path: Path, name: str = "s.yaml") -> dict:
    text = yaml.safe_dump(doc, sort_keys=False)
    loaded = parse_scenario(text, str(tmp_path / name))
    out = tmp_path / name.replace(".yaml", "")
    result = run_scenario(loaded, load_bench(), load_rules(), out)
    assert result["error"] is None, result["error"]
    result["trace_path"] = out / result["trace"]
    return result


def _figures(result: dict, check_id: str) -> tuple[str, dict]:
    c = next(c for c in result["checks"] if c["id"] == check_id)
    return c["verdict"], {m["name"]: m["value"] for m in c["measurements"]}


def _events(trace: Path) -> list[Event]:
    with TraceReader(trace) as r:
        return [e for _n, evs in r.rounds() for e in evs]


# ------------------------------------------------------------------ quick: on the simulated table
def test_crazy_time_attempts_tie_to_the_device_reports_and_the_figures_add_up(tmp_path):
    doc = {**_doc("crazy-time"), "rounds": 6}
    result = _run(doc, tmp_path)
    verdict, f = _figures(result, "CT-690.2a-late-bets")
    assert verdict == "pass"
    events = _events(result["trace_path"])
    attempts = [e for e in events if e.device == "adversary" and e.kind == "adversary_attempt"]
    answers = {e.payload["attempt"]: e.payload for e in events if e.device == "adversary" and e.kind == "adversary_answer"}
    presses = {e.payload["press_id"]: e.payload for e in events if e.kind == "press" and e.device == "wagering"}
    assert len(attempts) == 6 * doc["adversary"]["attempts_per_round"] == f["attempts"]
    assert all(a.payload["via"] == "injection" and a.payload["seat"] == 6 for a in attempts)
    # every attempt reached the device: its answer is one of the device's own press reports, at the seat
    for a in attempts:
        p = presses[answers[a.payload["attempt"]]["press_id"]]
        assert (p["seat"], p["spot"]) == (a.payload["seat"], a.payload["spot"])
        assert p["device_time_s"] == pytest.approx(a.payload["intended_s"], abs=1e-9)  # pressed when aimed
    assert f["attempts_answered"] == f["attempts"] and f["attempts_unregistered"] == 0
    assert f["accepted_before_no_more_bets"] + f["refused"] + f["accepted_after_no_more_bets"] == f["attempts"]
    assert f["accepted_after_lock_edge"] == 0 and f["became_wagers"] == 0
    # the window spans the ~5 ms lock-out: some presses fall inside it, accepted by the device, refused by
    # the croupier as late; the widest window is inside the budget
    assert f["accepted_inside_latency"] == f["accepted_after_no_more_bets"] > 0
    assert f["croupier refused: placed after no more bets"] == f["accepted_after_no_more_bets"]
    assert 0 < f["widest_window"] <= 0.010
    # the on-time ones are wagers like any player's
    wagered = {e.payload["press_id"] for e in events if e.device == "croupier" and e.kind == "wager"}
    mine = {answers[a.payload["attempt"]]["press_id"] for a in attempts}
    assert len(wagered & mine) == f["accepted_before_no_more_bets"] > 0


def test_the_adversary_never_moves_the_players_or_the_devices_draws(tmp_path):
    base = {**_doc("crazy-time"), "rounds": 4}
    without = {k: v for k, v in base.items() if k != "adversary"}
    a, b = _run(base, tmp_path, "with.yaml"), _run(without, tmp_path, "without.yaml")

    def play(trace: Path) -> tuple[list, list]:
        evs = _events(trace)
        mine = {e.payload.get("press_id") for e in evs if e.device == "adversary" and e.kind == "adversary_answer"}
        presses = [(e.round, e.payload["seat"], e.payload["spot"], e.payload["stake_cents"], e.payload["device_time_s"])
                   for e in evs if e.kind == "press" and e.payload["press_id"] not in mine]
        spins = [(e.round, e.payload["spot"]) for e in evs if e.kind == "spin_stop"]
        return presses, spins

    assert play(a["trace_path"]) == play(b["trace_path"])
    assert not [c for c in b["checks"] if c["id"] == "CT-690.2a-late-bets" and c["verdict"] != "indeterminate"]


def test_with_max_in_flight_a_press_waits_for_an_answer_and_past_the_window_is_not_sent(tmp_path):
    doc = {**_doc("crazy-time"), "rounds": 3}
    doc["adversary"] = {**doc["adversary"], "attempts_per_round": 60, "max_in_flight": 1}
    result = _run(doc, tmp_path)
    verdict, f = _figures(result, "CT-690.2a-late-bets")
    events = _events(result["trace_path"])
    sent = [e.payload for e in events if e.kind == "adversary_attempt"]
    unsent = [e.payload for e in events if e.kind == "adversary_unsent"]
    assert verdict == "pass" and len(sent) + len(unsent) == 3 * 60 and unsent
    assert (f["attempts"], f["attempts_unsent"], f["attempts_unregistered"]) == (len(sent), len(unsent), 0)
    # one at a time: each press sent once the one before was answered (2 ms later), never before its instant
    assert all(p["sent_s"] >= p["intended_s"] - 1e-12 for p in sent)
    assert any(p["sent_s"] > p["intended_s"] + 1e-6 for p in sent)
    by_round: dict[int, list[float]] = {}
    for p in sent:
        by_round.setdefault(int(p["attempt"].split("-")[0]), []).append(p["sent_s"])
    assert all(min(b - a for a, b in zip(ts, ts[1:])) >= 0.002 - 1e-9 for ts in map(sorted, by_round.values()))


def test_offsets_are_seeded_per_round_and_span_the_window():
    sc = parse_scenario(yaml.safe_dump(_doc("crazy-time")), "x.yaml").scenario
    adv = Adversary(sc.adversary, sc)
    one, again, other = adv.offsets(3), adv.offsets(3), adv.offsets(4)
    assert one == again and one != other
    before, after = sc.adversary.window_s
    assert all(-before <= o <= after for o in one) and min(one) < 0 < max(one)


# ------------------------------------------------------------------ quick: the check on hand-made evidence
def _ev(seq: int, device: str, kind: str, payload: dict, t: float = 0.0) -> Event:
    return Event(seq, 1, t, 0, device, kind, payload)


def _round(presses: list[tuple[int, float, bool, str | None]], wagers: tuple[int, ...] = ()) -> list[Event]:
    """A round: no more bets and the lock-out at 15 s, one adversary attempt per press (id, stamp,
    accepted, reason), the croupier's wager records for ``wagers``."""
    evs = [_ev(1, "croupier", "no_more_bets", {}, 15.0),
           _ev(2, "wagering", "lockout_command", {"device_time_s": 15.0}, 15.0)]
    seq = 3
    for pid, t, ok, reason in presses:
        evs.append(_ev(seq, "adversary", "adversary_attempt", {"attempt": f"1-{pid}", "via": "injection", "seat": 6,
                                                                "spot": "1", "intended_s": t, "sent_s": t}, t))
        evs.append(_ev(seq + 1, "adversary", "adversary_answer", {"attempt": f"1-{pid}", "press_id": pid}, t))
        evs.append(_ev(seq + 2, "wagering", "press", {"press_id": pid, "seat": 6, "spot": "1", "stake_cents": 100,
                                                      "accepted": ok, "device_time_s": t, "answer_time_s": t + 0.002,
                                                      "reason": reason}, t + 0.002))
        seq += 3
    for pid in wagers:
        evs.append(_ev(seq, "croupier", "wager", {"wager_id": f"1-{pid}", "press_id": pid, "seat": 6}, 16.0))
        seq += 1
    return evs


def _judge(events: list[Event], check=CrazyTimeLateBets) -> tuple[str, dict, list]:
    c = check(CheckConfig(lockout_budget_s=0.010))
    c.observe(RoundView.of(1, events))
    r = c.result()
    return r.verdict, {m.name: m.value for m in r.measurements}, [f.message for f in r.findings]


def test_a_press_inside_the_latency_passes_and_is_measured():
    verdict, m, _ = _judge(_round([(1, 14.99, True, None), (2, 15.004, True, None), (3, 15.006, False, "locked_out")]))
    assert verdict == "pass"
    assert (m["accepted_inside_latency"], m["accepted_after_lock_edge"]) == (1, 0)
    assert m["widest_window"] == pytest.approx(0.004)


def test_a_press_accepted_after_the_device_s_first_locked_out_refusal_fails():
    verdict, m, findings = _judge(_round([(1, 15.003, False, "locked_out"), (2, 15.004, True, None)]))
    assert verdict == "fail" and m["accepted_after_lock_edge"] == 1
    assert "first refusal as locked out" in findings[0]


def test_a_press_accepted_past_the_budget_fails_with_no_refusal_at_all():
    verdict, m, findings = _judge(_round([(1, 15.012, True, None)]))
    assert verdict == "fail" and m["accepted_after_lock_edge"] == 1 and "budget 10.000 ms" in findings[0]


def test_a_late_press_taken_as_a_wager_fails():
    verdict, m, findings = _judge(_round([(1, 14.99, True, None), (2, 15.004, True, None)], wagers=(1, 2)))
    assert verdict == "fail" and m["became_wagers"] == 1 and "became 1-2" in findings[0]


def test_the_adversary_s_own_copy_of_an_answer_is_no_evidence():
    """An attempt whose answer names a press the device never reported is unregistered: with no
    registered attempt the check has nothing to judge — never a pass on the adversary's word."""
    evs = [e for e in _round([(1, 15.004, True, None)]) if e.kind != "press"]
    verdict, m, _ = _judge(evs)
    assert verdict == "indeterminate" and m["attempts_unregistered"] == 1


def test_a_chip_placed_after_no_more_bets_and_taken_fails_at_a_card_table():
    evs = [_ev(1, "croupier", "no_more_bets", {}, 15.0)]
    for k, (t, kind) in enumerate(((14.99, "wager"), (15.002, "wager"), (15.004, "wager_rejected")), 1):
        evs.append(_ev(2 * k, "adversary", "adversary_attempt", {"attempt": f"1-{k}", "via": "chips", "seat": 6,
                                                                  "spot": "trips", "sent_s": t, "placed_s": t}, t))
        evs.append(_ev(2 * k + 1, "croupier", kind, {"seat": 6, "wager": "trips", "placed_s": t, "reason": "late"}, 16.0))
    verdict, m, findings = _judge(evs, UthLateBets)
    assert verdict == "fail" and m["became_wagers"] == 1 and m["accepted_before_no_more_bets"] == 1
    assert m["attempts_after_no_more_bets"] == 2 and "2.000 ms after" in findings[0]


# ------------------------------------------------------------------ quick: the scenario section
@pytest.mark.parametrize("adversary, words", [
    ({"seat": 7, "players": 7}, "lock-out probe's seat"),
    ({"seat": 9}, "not a player's seat"),
    ({"window_s": [0.01, 1.5]}, "croupier.spin_delay_s"),
    ({"window_s": [-0.01, 0.02]}, "window_s"),
    ({"window_s": [0.0, 0.0]}, "not both 0"),
    ({"window_s": [20.0, 0.01]}, "before betting opens"),
    ({"attempts": 3}, "attempts"),
])
def test_a_bad_adversary_section_is_refused_at_load(adversary, words):
    adversary = dict(adversary)
    doc = {**_doc("roulette"), "players": {"count": adversary.pop("players", 6)}, "adversary": adversary}
    with pytest.raises(ConfigError) as exc:
        parse_scenario(yaml.safe_dump(doc), "bad.yaml")
    assert words in str(exc.value)


# ------------------------------------------------------------------ slow: >= 10^4 attempts per table
ATTEMPTS_PER_ROUND = 500
ROUNDS = 20


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.parametrize("game", list(TABLES))
def test_ten_thousand_attempts_per_table_in_simulation(game, tmp_path):
    doc = _doc(game)
    doc.update(rounds=ROUNDS)
    doc["adversary"] = {**doc["adversary"], "attempts_per_round": ATTEMPTS_PER_ROUND}
    result = _run(doc, tmp_path)
    assert result["expectation_met"], [c["id"] for c in result["checks"] if c["verdict"] == "fail"]
    verdict, f = _figures(result, CHECK_ID[game])
    window = f["widest_window"]
    print(f"\nadversary sim {game}: attempts {f['attempts']}, at or after no more bets "
          f"{f['attempts_after_no_more_bets']}, accepted after lock edge {f['accepted_after_lock_edge']}, "
          f"accepted inside latency {f['accepted_inside_latency']}, widest window "
          f"{'-' if window is None else f'{window * 1e3:.3f}'} ms, became wagers {f['became_wagers']}")
    assert verdict == "pass" and f["attempts"] >= 10_000 and f["attempts_unregistered"] == 0
    assert f["accepted_after_lock_edge"] == 0 and f["became_wagers"] == 0 and f["meter_increments"] == 0
    if game in ("crazy-time", "roulette", "blackjack"):  # a device's lock-out latency: presses inside it
        assert f["accepted_inside_latency"] > 0 and 0 < window <= 0.010
