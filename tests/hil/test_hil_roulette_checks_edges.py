"""The Roulette X (§ 617b.5) and Roulette Up (§ 617b.4(f)–(h)) checks on a real trace with one
piece of evidence changed at a time (issue 16: the mutation run found their branches for a faulty
selection, an off-paytable value, a mis-settled straight wager, an early draw, a tracker against
the rules and a Roulette Up wager settled wrong reached by no fast test, only by the slow fault
scenarios).

One healthy double zero table (Paytable B) is simulated in process once; each test feeds the
checks its rounds as recorded, or with one event's payload or time changed, and pins the exact
verdict, the number of findings, the round and seq each names and the figure each quotes — so a
check that lost a branch, miscounted, or blamed the wrong event fails here in seconds.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pytest

from hil.checks.roulette import (DistinctNumbers, IlluminationAfterWagers, PaytableValues, ProgressiveMeter,
                                 StraightPayouts, StreakRules,
                                 UpSettlement, UpWagerTiming)
from hil.trace import Event
from tests.hil.trace_edits import Table, croupier_records, judge, replace_event, simulated_table, with_payload

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "roulette" / "roulette_normal_play.yaml"
ROUNDS = 60


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Table:
    """(round 0's events, {round: its events}) of a healthy double zero Roulette X table."""
    return simulated_table(SCENARIO, ROUNDS, tmp_path_factory.mktemp("roulette-x"))




def first(rounds: dict[int, list[Event]], pred) -> tuple[int, Event]:
    """(round, event) of the first event ``pred`` holds for, in round order."""
    return next((n, e) for n, evs in sorted(rounds.items()) for e in evs if pred(e))


def illumination(e: Event) -> bool:
    return e.device == "illuminator" and e.kind == "illumination"



# --------------------------------------------------------------------------- § 617b.5(d) 2-5 distinct
def test_a_healthy_table_lights_two_to_five_distinct_numbers_each_round(table):
    r = judge(DistinctNumbers, table)
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)
    m = {x.name: x.value for x in r.measurements}
    assert m["illuminations"] == ROUNDS
    assert sum(v for k, v in m.items() if k.startswith("lit_")) == ROUNDS
    assert set(k for k in m if k.startswith("lit_")) <= {"lit_2", "lit_3", "lit_4", "lit_5"}
    assert r.summary == f"all {ROUNDS} selections: 2–5 distinct numbers of the wheel"


@pytest.mark.parametrize(("numbers", "multipliers", "messages"), [
    ([7, 7, 9], [50, 50, 100], ["numbers lit twice: 7 (lit: [7, 7, 9])"]),
    ([7], [50], ["1 numbers lit (2 to 5)"]),
    ([1, 2, 3, 4, 5, 6], [50] * 6, ["6 numbers lit (2 to 5)"]),
    ([7, 37, 9], [50, 50, 100], ["37 is not a number of the double-zero wheel"]),
    ([7, 9], [50], ["not one payout per lit number"]),
    (["00", 0, "00"], [50, 50, 50], ["numbers lit twice: 00 (lit: ['00', 0, '00'])"]),
    ([3, 3, 3, 3, 3, 3], [50] * 6, ["numbers lit twice: 3 (lit: [3, 3, 3, 3, 3, 3])", "6 numbers lit (2 to 5)"]),
])
def test_a_faulty_selection_fails_naming_the_round_and_the_event(table, numbers, multipliers, messages):
    n, ev = first(table[1], illumination)
    r = judge(DistinctNumbers, table, replace_event(ev, with_payload(ev, numbers=numbers, multipliers=multipliers)))
    assert r.verdict == "fail" and r.findings_total == len(messages)
    assert [(f.round, f.seq, f.message) for f in r.findings] == [(n, ev.seq, m) for m in messages]
    assert r.summary == f"{len(messages)} faulty selection(s)"
    sizes = {x.name: x.value for x in r.measurements}
    assert sizes[f"lit_{len(numbers)}"] >= 1 and sizes["illuminations"] == ROUNDS


def test_no_illumination_is_no_pass(table):
    r = judge(DistinctNumbers, table, lambda n, evs: [e for e in evs if not illumination(e)])
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "no illumination in the trace", 0)
    assert {x.name: x.value for x in r.measurements} == {"illuminations": 0}


# --------------------------------------------------------------------------- § 617b.5(c), (g) paytable
def test_a_healthy_table_lights_only_paytable_b_values(table):
    r = judge(PaytableValues, table)
    lit = sum(len(e.payload["numbers"]) for evs in table[1].values() for e in evs if illumination(e))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert {x.name: x.value for x in r.measurements} == {"lit_values": lit}
    assert r.summary == f"all {lit} lit payouts from the paytable"


def test_a_value_off_the_paytable_fails_once_per_value(table):
    n, ev = first(table[1], illumination)
    numbers = ev.payload["numbers"]
    bad = [500] + list(ev.payload["multipliers"][1:])  # 500 to 1 is Paytable A's, not B's
    r = judge(PaytableValues, table, replace_event(ev, with_payload(ev, multipliers=bad)))
    assert r.verdict == "fail" and r.findings_total == 1
    assert [(f.round, f.seq, f.message) for f in r.findings] == [
        (n, ev.seq, f"{numbers[0]} lit at 500 to 1: not a multiplier of the paytable (50, 100, 175, 250 to 1)")]
    assert r.summary == "1 value(s) off the paytable"
    two = [500, 35] + list(ev.payload["multipliers"][2:])
    assert judge(PaytableValues, table, replace_event(ev, with_payload(ev, multipliers=two))).findings_total == 2


def test_a_ball_outside_the_wheel_fails_617b5c(table):
    n, ball = first(table[1], lambda e: e.device == "ball_wheel" and e.kind == "ball_result")
    r = judge(PaytableValues, table, replace_event(ball, with_payload(ball, pocket=38)))
    assert r.verdict == "fail" and r.findings_total == 1
    assert [(f.round, f.seq) for f in r.findings] == [(n, ball.seq)]
    assert r.findings[0].message == "§ 617b.5(c): the ball came to rest in 38, no compartment of the double-zero wheel"


def _declared(change_info):
    def setup_change(events):
        return [with_payload(e, **change_info(e)) if e.kind == "device_info" else e for e in events]
    return setup_change


def test_a_generator_declaring_another_paytable_fails_in_round_0(table):
    r = judge(PaytableValues, table, setup_change=_declared(
        lambda e: {"paytable": "A"} if e.device == "illuminator" else {}))
    assert r.verdict == "fail" and r.findings_total == 1
    f = r.findings[0]
    assert (f.round, f.seq) == (0, None)
    assert f.message == "illuminator declares Paytable A on a double-zero wheel; the table is Paytable B, double-zero"


@pytest.mark.parametrize(("info", "message"), [
    ({"wheel": "single-zero"}, "§ 617b.5(c): ball_wheel declares a single-zero wheel; the table is played on a "
                               "double-zero wheel"),
    ({"wheel": "triple-zero"}, "§ 617b.5(c): ball_wheel declares a 'triple-zero' wheel; Roulette X is played on a "
                               "single zero or a double zero roulette wheel"),
])
def test_a_ball_wheel_declaring_another_wheel_fails_617b5c(table, info, message):
    r = judge(PaytableValues, table, setup_change=_declared(lambda e: info if e.device == "ball_wheel" else {}))
    assert r.verdict == "fail" and r.findings_total == 1
    assert (r.findings[0].round, r.findings[0].message) == (0, message)


def test_a_ball_wheel_missing_a_compartment_fails_617b5c(table):
    def drop_00(e):
        return {"pockets": [p for p in e.payload["pockets"] if p != "00"]} if e.device == "ball_wheel" else {}
    r = judge(PaytableValues, table, setup_change=_declared(drop_00))
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].round == 0
    assert r.findings[0].message.startswith("§ 617b.5(c): ball_wheel declares the compartments [")
    assert r.findings[0].message.endswith("a double-zero wheel has 38: 0, 00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
                                          "14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, "
                                          "33, 34, 35, 36")


# --------------------------------------------------------------------------- § 617b.5(e)-(f) straights
def _settles(rounds):
    return croupier_records(rounds, ("collect", "pay"), kind="straight")


def test_a_healthy_table_settles_every_straight_wager(table):
    r = judge(StraightPayouts, table)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    m = {x.name: x.value for x in r.measurements}
    wagers = [e for evs in table[1].values() for e in evs
              if e.device == "croupier" and e.kind == "wager" and e.payload["kind"] == "straight"]
    pays = [e for _, e in _settles(table[1]) if e.kind == "pay"]
    lit = [e for e in pays if e.payload["odds"] != "30 to 1"]  # Paytable B's straight odds: 30 to 1
    assert m == {"straight_wagers": len(wagers), "winners": len(pays), "lit_winners": len(lit)} and pays
    assert r.summary == f"{len(wagers)} straight wagers settled right ({len(lit)} lit winners)"


def test_no_winner_is_no_pass(table):
    def collect_all(n, evs):
        return [e for e in evs if not (e.kind in ("pay", "spin_valid") or e.kind == "round_end")]
    r = judge(StraightPayouts, table, collect_all)
    assert (r.verdict, r.summary) == ("indeterminate", "no winning straight wager in the trace")


def test_a_losing_straight_paid_fails(table):
    n, c = next((n, e) for n, e in _settles(table[1]) if e.kind == "collect")
    paid = dataclasses.replace(c, kind="pay", payload={**c.payload, "win_cents": 100, "odds": "1 to 1"})
    r = judge(StraightPayouts, table, replace_event(c, paid))
    assert r.verdict == "fail" and r.findings_total == 1
    f = r.findings[0]
    assert (f.round, f.seq) == (n, c.seq)
    assert re.fullmatch(rf"{c.payload['wager_id']} on {c.payload['number']} lost \(\S+ spun\) but was payed", f.message)


def test_a_winner_paid_the_wrong_amount_or_collected_fails(table):
    n, p = next((n, e) for n, e in _settles(table[1]) if e.kind == "pay")
    want = int(p.payload["win_cents"])
    r = judge(StraightPayouts, table, replace_event(p, with_payload(p, win_cents=want + 1)))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, p.seq)
    assert f"= {want}; paid {want + 1}" in r.findings[0].message
    collected = dataclasses.replace(p, kind="collect")
    r = judge(StraightPayouts, table, replace_event(p, collected))
    assert r.verdict == "fail" and r.findings_total == 1 and r.findings[0].message.endswith(f"= {want}; collected")


def test_a_straight_settled_twice_or_never_or_unaccepted_fails(table):
    n, c = _settles(table[1])[0]
    r = judge(StraightPayouts, table, lambda m, evs: evs + [c] if m == n else evs)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == f"wager {c.payload['wager_id']} settled twice"
    r = judge(StraightPayouts, table, lambda m, evs: [e for e in evs if e.seq != c.seq])
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == f"wager {c.payload['wager_id']} never settled"
    stray = with_payload(c, wager_id="x-1")
    r = judge(StraightPayouts, table, lambda m, evs: evs + [stray] if m == n else evs)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == "x-1 settled but never accepted"


def test_a_round_settled_without_a_valid_spin_fails(table):
    n, _ = _settles(table[1])[0]
    r = judge(StraightPayouts, table,
              lambda m, evs: [e for e in evs if not (m == n and e.kind == "spin_valid")])
    assert r.verdict == "fail" and r.findings_total == 1
    assert (r.findings[0].round, r.findings[0].message) == (n, "round settled without a valid spin reported by the wheel")


# --------------------------------------------------------------------------- § 617b.5(d) after wagers
def test_a_healthy_table_draws_after_no_more_bets_and_every_wager(table):
    r = judge(IlluminationAfterWagers, table)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    m = {x.name: x.value for x in r.measurements}
    assert m["illuminations"] == ROUNDS and m["min_draw_after_close"] >= 0


def test_a_draw_before_no_more_bets_fails(table):
    n, ev = first(table[1], illumination)
    nmb = next(e for e in table[1][n] if e.device == "croupier" and e.kind == "no_more_bets")
    early = dataclasses.replace(ev, sim_time=nmb.sim_time - 1.0,
                                payload={**ev.payload, "device_time_s": nmb.sim_time - 1.0})
    r = judge(IlluminationAfterWagers, table, replace_event(ev, early))
    assert r.verdict == "fail" and r.findings_total == 1
    assert (r.findings[0].round, r.findings[0].seq) == (n, ev.seq)
    assert r.findings[0].message == (f"numbers drawn at {nmb.sim_time - 1.0:.3f} s, before \"no more bets\" "
                                     f"({nmb.sim_time:.3f} s)")
    assert r.summary == "1 draw(s) or wager(s) out of order"


def test_a_wager_placed_after_no_more_bets_fails(table):
    n, w = first(table[1], lambda e: e.device == "croupier" and e.kind == "wager" and e.payload.get("press_id") is None)
    nmb = next(e for e in table[1][n] if e.device == "croupier" and e.kind == "no_more_bets")
    late = with_payload(w, placed_s=nmb.sim_time + 0.25)
    r = judge(IlluminationAfterWagers, table, replace_event(w, late))
    assert r.verdict == "fail"
    messages = [f.message for f in r.findings if f.round == n]
    assert messages[0] == (f"wager {w.payload['wager_id']} placed at {nmb.sim_time + 0.25:.3f} s accepted after "
                           f"\"no more bets\" ({nmb.sim_time:.3f} s)")
    ill = next(e for e in table[1][n] if illumination(e))
    if ill.payload["device_time_s"] < nmb.sim_time + 0.25:  # drawn before that wager: a second finding
        assert len(messages) == 2 and "before a wager placed at" in messages[1]
    assert r.findings_total == len(messages)


# --------------------------------------------------------------------------- § 617b.4(f)-(h) Roulette Up
def _streaks(rounds):
    return croupier_records(rounds, ("streak",))


def _up_settles(rounds):
    return croupier_records(rounds, ("up_settle",))


def test_a_healthy_table_tracks_every_streak_by_the_rules(table):
    r = judge(StreakRules, table)
    streaks = _streaks(table[1])
    ended = sum(1 for _, e in streaks if e.payload["ended"])
    assert (r.verdict, r.findings_total) == ("pass", 0) and ended >= 3
    assert {x.name: x.value for x in r.measurements} == {"numbers_tracked": len(streaks), "streaks_ended": ended}
    assert r.summary == f"{len(streaks)} numbers tracked, {ended} streaks ended by the rules"


def test_a_tracker_that_goes_on_past_a_lower_number_fails_617b4g2i(table):
    n, s = next((n, e) for n, e in _streaks(table[1]) if e.payload["ended"] and e.payload["end_reason"] == "NOT_GREATER")
    on = with_payload(s, ended=False, end_reason=None)
    r = judge(StreakRules, table, replace_event(s, on))
    assert r.verdict == "fail" and r.findings_total >= 1
    f = r.findings[0]
    assert (f.round, f.seq) == (n, s.seq)
    assert f.message == (f"after {s.payload['numbers'][-1]}: tracker at box {s.payload['length']}, going on; "
                         f"§ 617b.4(g)(2)(i): box {s.payload['length']}, ended (less than or equal to the preceding "
                         "number)")


def test_a_tracker_at_the_wrong_box_or_with_two_records_fails(table):
    n, s = next((n, e) for n, e in _streaks(table[1]) if not e.payload["ended"])
    r = judge(StreakRules, table, replace_event(s, with_payload(s, length=s.payload["length"] + 1)))
    assert r.verdict == "fail" and (r.findings[0].round, r.findings[0].seq) == (n, s.seq)
    assert f"tracker at box {s.payload['length'] + 1}, going on" in r.findings[0].message
    r = judge(StreakRules, table, lambda m, evs: evs + [s] if m == n else evs)
    assert r.verdict == "fail" and r.findings[0].round == n
    assert r.findings[0].message == "2 streak records for one number (1 expected)"


def test_a_streak_moved_on_a_void_round_fails(table):
    n, s = _streaks(table[1])[0]
    r = judge(StreakRules, table, lambda m, evs: [e for e in evs if not (m == n and e.kind == "spin_valid")])
    assert r.verdict == "fail" and r.findings_total >= 1
    assert (r.findings[0].round, r.findings[0].seq, r.findings[0].message) == (
        n, s.seq, "streak moved without a Roulette Up streak in play and a valid spin")


def test_a_healthy_table_settles_every_roulette_up_wager_by_the_paytable(table):
    r = judge(UpSettlement, table)
    settles = _up_settles(table[1])
    assert (r.verdict, r.findings_total) == ("pass", 0) and settles
    m = {x.name: x.value for x in r.measurements}
    assert m["up_wagers_settled"] == len(settles)
    assert sum(v for k, v in m.items() if k.startswith("settled_")) == len(settles)


def test_a_roulette_up_wager_settled_wrong_twice_early_or_never_fails(table):
    settles = _up_settles(table[1])
    n, s = settles[0]
    got = int(s.payload["returned_cents"])
    r = judge(UpSettlement, table, replace_event(s, with_payload(s, returned_cents=got + 1)))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, s.seq)
    assert r.findings[0].message.endswith(f"returns {got}; {got + 1} returned at length {s.payload['length']}")
    assert r.summary == "1 Roulette Up settlement(s) wrong"
    r = judge(UpSettlement, table, replace_event(s, with_payload(s, length=s.payload["length"] + 1)))
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message.endswith(f"{got} returned at length {s.payload['length'] + 1}")
    r = judge(UpSettlement, table, lambda m, evs: evs + [s] if m == n else evs)
    assert r.verdict == "fail" and r.findings_total == 1 and r.findings[0].message == f"{s.payload['wager_id']} settled twice"
    r = judge(UpSettlement, table, lambda m, evs: [e for e in evs if e.seq != s.seq])
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == f"{s.payload['wager_id']} never settled when its streak ended"
    stray = with_payload(s, wager_id="x-u1")
    r = judge(UpSettlement, table, lambda m, evs: evs + [stray] if m == n else evs)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == "x-u1 settled but not a wager of this streak"
    # settled in a round whose streak goes on
    m_on = next(m for m, e in _streaks(table[1]) if not e.payload["ended"] and m != n)
    r = judge(UpSettlement, table, lambda m, evs: evs + [s] if m == m_on else evs)
    assert r.verdict == "fail"
    assert any(f.round == m_on and f.message == f"{s.payload['wager_id']} settled while its streak goes on"
               for f in r.findings)


def _up_wagers(rounds):
    return croupier_records(rounds, ("wager",), kind="up")


def _up_refusals(rounds):
    return croupier_records(rounds, ("wager_rejected",), kind="up")


def test_a_healthy_table_takes_roulette_up_wagers_only_before_the_starting_number(table):
    r = judge(UpWagerTiming, table)
    accepted, refused = _up_wagers(table[1]), _up_refusals(table[1])
    assert (r.verdict, r.findings_total) == ("pass", 0) and accepted and refused
    m = {x.name: x.value for x in r.measurements}
    assert m["up_wagers_accepted"] == len(accepted) and m["up_wagers_refused"] == len(refused)
    assert m["up_presses_owed"] >= len([w for _, w in accepted if w.payload.get("press_id") is not None])
    assert r.summary == (f"{len(accepted)} accepted before their starting number; {len(refused)} refused; "
                         f"all {m['up_presses_owed']} presses owed a wager or a refusal answered")


def test_a_roulette_up_wager_by_a_seat_without_a_roulette_wager_or_after_no_more_bets_fails(table):
    n, w = _up_wagers(table[1])[0]
    nmb = next(e for e in table[1][n] if e.device == "croupier" and e.kind == "no_more_bets")
    r = judge(UpWagerTiming, table, replace_event(w, with_payload(w, seat=99)))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, w.seq)
    assert r.findings[0].message == (f"Roulette Up wager {w.payload['wager_id']} by seat 99, who placed no Roulette "
                                     "wager")
    r = judge(UpWagerTiming, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time)))
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == f"Roulette Up wager {w.payload['wager_id']} placed after \"no more bets\""


def test_a_roulette_up_wager_taken_while_the_streak_runs_fails_617b4d(table):
    n_run = next(m for m, e in _streaks(table[1]) if not e.payload["ended"])
    numbers = next(e for e in table[1][n_run] if e.kind == "streak").payload["numbers"]
    _, w = _up_wagers(table[1])[0]
    late = dataclasses.replace(w, payload={**w.payload, "wager_id": "late-u1"})
    r = judge(UpWagerTiming, table, lambda m, evs: evs + [late] if m == n_run + 1 else evs)
    hits = [f for f in r.findings if f.message.startswith("Roulette Up wager late-u1 accepted with the streak at")]
    assert r.verdict == "fail" and len(hits) == 1 and hits[0].round == n_run + 1
    assert hits[0].message == (f"Roulette Up wager late-u1 accepted with the streak at {numbers} (starting number "
                               "already established)")


def test_a_roulette_up_press_refused_for_a_reason_the_trace_does_not_bear_out_fails(table):
    n, ref = next((n, e) for n, e in _up_refusals(table[1]) if "617b.4(d)" in e.payload["reason"])
    pid = ref.payload["press_id"]
    r = judge(UpWagerTiming, table, replace_event(ref, with_payload(ref, reason="the table was busy")))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, ref.seq)
    assert r.findings[0].message == (f"press {pid} refused (the table was busy): not a reason § 617b.4(a), (d) "
                                     "gives")
    r = judge(UpWagerTiming, table, lambda m, evs: [e for e in evs if e.seq != ref.seq])
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message.startswith(f"Roulette Up press {pid} (seat ") and r.findings[0].message.endswith(
        "accepted by the device before \"no more bets\" is neither a wager nor refused on record (dropped)")
    # refused as by a player without a Roulette wager, though the seat placed one
    seat = ref.payload["seat"]
    straight = [e for e in table[1][n] if e.kind == "wager" and e.payload["kind"] == "straight"]
    a = with_payload(ref, reason="no Roulette wager this round (§ 617b.4(a))")
    r = judge(UpWagerTiming, table, replace_event(ref, a))
    if any(e.payload["seat"] == seat for e in straight):
        assert r.verdict == "fail" and r.findings[0].message == (
            f"press {pid} refused as by a player without a Roulette wager (§ 617b.4(a)); seat {seat} placed one "
            "this round")
    else:
        assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_refusal_as_after_the_starting_number_with_no_streak_fails(table):
    n_end = next(m for m, e in _streaks(table[1]) if e.payload["ended"])
    n_next = n_end + 1  # the tracker is empty in the round after a streak ended
    presses = [e for e in table[1][n_next] if e.kind == "press" and e.payload.get("spot") == "roulette-up"
               and e.payload.get("accepted")]
    taken = {w.payload.get("press_id"): w for w in table[1][n_next] if w.kind == "wager" and w.payload["kind"] == "up"}
    pid = next(p.payload["press_id"] for p in presses if p.payload["press_id"] in taken)
    w = taken[pid]
    ref = dataclasses.replace(w, kind="wager_rejected", payload={
        "kind": "up", "seat": w.payload["seat"], "press_id": pid, "stake_cents": w.payload["stake_cents"],
        "reason": "the Roulette Up streak has started (§ 617b.4(d))"})
    r = judge(UpWagerTiming, table, replace_event(w, ref))
    msgs = [f.message for f in r.findings if f.round == n_next]
    assert r.verdict == "fail" and (f"press {pid} refused as after the starting number (§ 617b.4(d)); the streak "
                                    "tracker was empty") in msgs


# --------------------------------------------------------------------------- § 617b.4(c), (h)(2) the meter
def _of_kind(rounds, kind):
    return [(n, e) for n, evs in sorted(rounds.items()) for e in evs if e.device != "croupier" and e.kind == kind]


def test_a_healthy_table_increments_the_meter_exactly(table):
    r = judge(ProgressiveMeter, table)
    incs = _of_kind(table[1], "meter_increment")
    assert (r.verdict, r.findings_total) == ("pass", 0) and len(incs) >= 5
    m = {x.name: x.value for x in r.measurements}
    assert m["increments"] == len(incs) and m["meter_hits"] == 0
    assert math.floor(m["meter_end_cents"]) == incs[-1][1].payload["value_cents"]
    # § 617b.4(h)(2) Progressive Paytable 3 on a 100-cent progressive wager: seed 10,000 × the wager,
    # incrementation 18 % (18 cents a wager), reserve rate 4 % (4 cents)
    assert m["meter_end_cents"] == 1_000_000 + 18 * len(incs) and m["reserve_end_cents"] == 4 * len(incs)
    assert r.summary.startswith(f"{len(incs)} increments and 0 hit(s) exact, on ")


def test_an_increment_wrong_twice_missing_or_for_no_wager_fails(table):
    incs = _of_kind(table[1], "meter_increment")
    n, inc = incs[0]
    pid, amount, value = inc.payload["press_id"], inc.payload["amount_cents"], inc.payload["value_cents"]
    r = judge(ProgressiveMeter, table, replace_event(inc, with_payload(inc, amount_cents=amount + 1)))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, inc.seq)
    assert r.findings[0].message.startswith(f"press {pid}: the meter went {amount + 1} up to {value}; ")
    assert r.findings[0].message.endswith(f"makes {value} (+{amount})")
    # a value one cent high: that increment, and the next (back on the system's true meter) — each once
    n2, nxt = incs[1]
    r = judge(ProgressiveMeter, table, replace_event(inc, with_payload(inc, value_cents=value + 1)))
    assert r.verdict == "fail" and r.findings_total == 2
    assert [(f.round, f.seq) for f in r.findings] == [(n, inc.seq), (n2, nxt.seq)]
    assert r.findings[0].message.startswith(f"press {pid}: the meter went {amount} up to {value + 1}; ")
    r = judge(ProgressiveMeter, table, lambda m, evs: evs + [inc] if m == n else evs)
    assert r.verdict == "fail" and f"the meter incremented twice for press {pid}" in [f.message for f in r.findings]
    r = judge(ProgressiveMeter, table, lambda m, evs: [e for e in evs if e.seq != inc.seq])
    w = next(e for e in table[1][n] if e.kind == "wager" and e.payload.get("press_id") == pid)
    assert r.verdict == "fail" and (n, w.seq, f"Roulette Up wager {w.payload['wager_id']} (press {pid}) did not "
                                    "increment the meter") in [(f.round, f.seq, f.message) for f in r.findings]
    stray = with_payload(inc, press_id=10**6)
    r = judge(ProgressiveMeter, table, lambda m, evs: evs + [stray] if m == n else evs)
    assert r.verdict == "fail" and r.findings[0].message == (
        f"the meter incremented for press {10**6}, which is no Roulette Up wager of a played round (a late press, "
        "the rig's probe, a refused press or a void round)")


def test_a_meter_read_off_its_wagers_fails_once(table):
    n, inc = _of_kind(table[1], "meter_increment")[0]
    reading = dataclasses.replace(inc, kind="meter_reading", payload={"meters": {"progressive": 7}, "link_up": True})
    r = judge(ProgressiveMeter, table, lambda m, evs: evs + [reading] if m == n else evs)
    # the reading, then the next increment (the system's true meter, not the 7 it showed): each once
    assert r.verdict == "fail" and r.findings_total == 2
    at_end = [e.payload["value_cents"] for e in table[1][n] if e.kind == "meter_increment"][-1]  # read after them
    assert (r.findings[0].round, r.findings[0].message) == (n, f"the meter shows 7 when read; its seed, wagers and "
                                                            f"payouts make it {at_end}")
    assert r.findings[1].message.endswith(" on 7.0000 makes 25 (+18)")
    unlinked = dataclasses.replace(reading, payload={**reading.payload, "link_up": False})
    assert judge(ProgressiveMeter, table, lambda m, evs: evs + [unlinked] if m == n else evs).verdict == "pass"


def test_a_meter_paid_with_no_streak_due_fails(table):
    n, inc = _of_kind(table[1], "meter_increment")[0]
    hit = dataclasses.replace(inc, kind="meter_hit", payload={
        "meter": "progressive", "jackpot_cents": inc.payload["value_cents"], "winners": 1, "percent": 100,
        "paid_cents": inc.payload["value_cents"], "remainder_cents": 0, "reseed_cents": 1000000,
        "value_cents": 1000000, "reserve_cents": 0})
    r = judge(ProgressiveMeter, table, lambda m, evs: evs + [hit] if m == n else evs)
    assert r.verdict == "fail"
    assert (n, "the system paid the meter; no streak won \"100% of progressive meter\"") in [
        (f.round, f.message) for f in r.findings]


def _meter_declared(**changes):
    def setup_change(events):
        out = []
        for e in events:
            if e.device == "roulette_wagering" and e.kind == "device_info":
                meters = [{**m, **changes} for m in e.payload["meters"]]
                e = with_payload(e, meters=meters)
            out.append(e)
        return out
    return setup_change


@pytest.mark.parametrize(("changes", "message"), [
    ({"seed_cents": 999999}, "the system's meter declares seed_cents 999999; "),
    ({"reseed_cents": 5}, "the system's meter declares reseed_cents 5; "),
    ({"increment_rate": "0.17"}, "the system's meter declares increment_rate 0.17; "),
    ({"reserve_rate": "0.03"}, "the system's meter declares reserve_rate 0.03; "),
    ({"reseed_from_reserve": True}, "the system's meter restarts from its reserve; "),
])
def test_a_system_meter_off_the_regulations_row_fails_in_round_0(table, changes, message):
    r = judge(ProgressiveMeter, table, setup_change=_meter_declared(**changes))
    zero = [f for f in r.findings if f.round == 0]
    assert r.verdict == "fail" and len(zero) == 1 and zero[0].message.startswith(message)
    assert "(§ 617b.4(h)(2))" in zero[0].message


def test_a_system_without_the_meter_fails_617b4c(table):
    r = judge(ProgressiveMeter, table, setup_change=_meter_declared(name="other"))
    zero = [f for f in r.findings if f.round == 0]
    assert r.verdict == "fail" and len(zero) == 1
    assert zero[0].message.endswith("needs a progressive table game system with its meter (§ 617b.4(c)); the "
                                    "wagering device declares meters other")
