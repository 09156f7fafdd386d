"""The Roulette X (§ 617b.5) and Roulette Up (§ 617b.4) checks of ``hil/checks/roulette.py``, the
branches and figures tests/hil/test_hil_roulette_checks_edges.py leaves unpinned (issue 16: the
narrow mutation run of that module left them surviving).

The same harness (tests/hil/trace_edits.py): one healthy double zero table (Roulette X Paytable B,
Roulette Up Progressive Paytable 3) simulated in process once, its rounds fed to a check as
recorded or with one piece of evidence changed, and each result pinned whole — verdict, summary,
every measurement (name, value, unit, limit), every finding's round, seq and words. The figures
quoted are worked out here from the regulation (Paytable B's 175 to 1, the straight odds of 30 and
35 to 1, Paytable 3's Seed/Reseed of 10,000 × the wager, its 18 % and 4 %) and the χ² formulas, or
counted off the seeded trace (a count the test does not recount is a literal of that trace: 725
straight wagers, 21 winners, 67 Roulette Up wagers, 12 refused), never read back from the check.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from scipy import stats

from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.roulette import (DistinctNumbers, IlluminationAfterWagers, LitUniformity, PaytableValues,
                                 PocketUniformity, ProgressiveMeter, StraightPayouts, StreakRules, UpLockout,
                                 UpSettlement, UpWagersOnDevice, UpWagerTiming, valid_ball, wheel_no_more_bets,
                                 without_replacement_chi2)
from hil.trace import Event
from tests.hil.trace_edits import Table, replace_event, simulated_table, with_payload

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "roulette" / "roulette_normal_play.yaml"
ROUNDS = 60


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Table:
    """(round 0's events, {round: its events}) of a healthy double zero Roulette X / Roulette Up table."""
    return simulated_table(SCENARIO, ROUNDS, tmp_path_factory.mktemp("roulette-x2"))


def judge(cls, table: Table, change=None, setup_change=None, config: CheckConfig | None = None):
    """``cls``'s result over the table's rounds (``trace_edits.judge`` with a ``CheckConfig`` of the test's)."""
    setup, rounds = table
    check = cls(config or CheckConfig())
    check.setup(BenchView.of(setup_change(list(setup)) if setup_change else list(setup)))
    for n, events in sorted(rounds.items()):
        check.observe(RoundView.of(n, change(n, list(events)) if change else list(events)))
    return check.result()


def measured(r) -> list[tuple]:
    return [(m.name, m.value, m.unit, m.bracket, m.limit) for m in r.measurements]


def found(r) -> list[tuple]:
    return [(f.round, f.seq, f.message) for f in r.findings]


def events_of(rounds, pred) -> list[tuple[int, Event]]:
    return [(n, e) for n, evs in sorted(rounds.items()) for e in evs if pred(e)]


def croupier(record, **payload):
    return lambda e: (e.device == "croupier" and e.kind == record
                      and all(e.payload.get(k) == v for k, v in payload.items()))


def device(kind):
    return lambda e: e.device != "croupier" and e.kind == kind


def in_round(n, change):
    return lambda m, evs: change(evs) if m == n else evs


def table_record(**changes):
    """A round-0 change of the croupier's ``table`` record."""
    def setup_change(events):
        return [with_payload(e, **changes) if e.device == "croupier" and e.kind == "table" else e for e in events]
    return setup_change


# --------------------------------------------------------------------------- § 617b.5(d) after wagers
def test_the_draw_margin_is_the_least_gap_after_the_close_and_the_last_wager(table):
    r = judge(IlluminationAfterWagers, table)
    gaps = []
    for n, evs in table[1].items():
        nmb = next(e for e in evs if croupier("no_more_bets")(e))
        ill = next(e for e in evs if device("illumination")(e))
        gaps.append(ill.payload["device_time_s"] - nmb.sim_time)  # every wager placed before the close
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)
    assert measured(r) == [("illuminations", ROUNDS, "illuminations", None, None),
                           ("min_draw_after_close", min(gaps), "s", None, ">= 0 s")]
    assert min(gaps) == pytest.approx(1.0)
    assert r.summary == f"all {ROUNDS} draws after \"no more bets\" and the last wager"
    # one draw later: the least gap stays the least (a check keeping the largest would move)
    n, ill = events_of(table[1], device("illumination"))[0]
    t = ill.payload["device_time_s"] + 0.5
    r = judge(IlluminationAfterWagers, table, replace_event(ill, with_payload(ill, device_time_s=t)))
    assert measured(r)[1][1] == min(gaps) and r.verdict == "pass"
    later = [g + (0.5 if i == 0 else 0.0) for i, g in enumerate(gaps)]
    assert min(later) == min(gaps) and max(later) > min(gaps)


def test_no_illumination_at_all_is_indeterminate_without_a_margin(table):
    r = judge(IlluminationAfterWagers, table, lambda n, evs: [e for e in evs if not device("illumination")(e)])
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "no illumination in the trace", 0)
    assert measured(r) == [("illuminations", 0, "illuminations", None, None)]


def test_a_pressed_wager_is_placed_when_the_device_stamped_its_press(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    pid = w.payload["press_id"]
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    # the croupier's own placed_s after the close: the device's stamp, before it, is what counts
    r = judge(IlluminationAfterWagers, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time + 5.0)))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    # the device stamped the press after the close: the wager is late, quoted at the stamp
    late = nmb.sim_time + 0.25
    r = judge(IlluminationAfterWagers, table, replace_event(press, with_payload(press, device_time_s=late)))
    assert r.verdict == "fail" and r.findings_total == 1
    assert found(r) == [(n, w.seq, f"wager {w.payload['wager_id']} placed at {late:.3f} s accepted after "
                                   f"\"no more bets\" ({nmb.sim_time:.3f} s)")]
    assert r.summary == "1 draw(s) or wager(s) out of order"
    # a wager whose press the round does not hold: its placed_s
    r = judge(IlluminationAfterWagers, table,
              replace_event(w, with_payload(w, press_id=10**6, placed_s=nmb.sim_time + 0.5)))
    assert [m for _, _, m in found(r)] == [
        f"wager {w.payload['wager_id']} placed at {nmb.sim_time + 0.5:.3f} s accepted after \"no more bets\" "
        f"({nmb.sim_time:.3f} s)"]


def test_a_wager_accepted_at_the_very_close_is_late(table):
    n, w = events_of(table[1], lambda e: croupier("wager", kind="straight")(e))[0]
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    r = judge(IlluminationAfterWagers, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time)))
    assert r.findings_total == 1 and found(r)[0][:2] == (n, w.seq)
    r = judge(IlluminationAfterWagers, table,
              replace_event(w, with_payload(w, placed_s=nmb.sim_time - 1e-6)))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_draw_before_a_wager_placed_after_the_close_is_a_second_finding(table):
    n, w = events_of(table[1], croupier("wager", kind="straight"))[0]
    ill = next(e for e in table[1][n] if device("illumination")(e))
    t = ill.payload["device_time_s"]
    r = judge(IlluminationAfterWagers, table, replace_event(w, with_payload(w, placed_s=t + 2.0)))
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    assert found(r) == [
        (n, w.seq, f"wager {w.payload['wager_id']} placed at {t + 2.0:.3f} s accepted after \"no more bets\" "
                   f"({nmb.sim_time:.3f} s)"),
        (n, ill.seq, f"numbers drawn at {t:.3f} s, before a wager placed at {t + 2.0:.3f} s")]
    assert r.verdict == "fail" and r.summary == "2 draw(s) or wager(s) out of order"
    # drawn at the same instant as the last wager: in order (not before it)
    r = judge(IlluminationAfterWagers, table, replace_event(w, with_payload(w, placed_s=t)))
    assert [m for _, _, m in found(r)] == [
        f"wager {w.payload['wager_id']} placed at {t:.3f} s accepted after \"no more bets\" ({nmb.sim_time:.3f} s)"]
    assert measured(r)[1][1] == 0.0


def test_a_draw_in_a_round_without_no_more_bets_fails_without_a_close_to_quote(table):
    n, ill = events_of(table[1], device("illumination"))[0]
    r = judge(IlluminationAfterWagers, table,
              in_round(n, lambda evs: [e for e in evs if not croupier("no_more_bets")(e)]))
    t = ill.payload["device_time_s"]
    assert found(r) == [(n, ill.seq, f"numbers drawn at {t:.3f} s, before \"no more bets\"")]
    assert r.verdict == "fail" and measured(r)[0] == ("illuminations", ROUNDS, "illuminations", None, None)


def test_a_draw_at_the_instant_of_the_close_is_not_before_it(table):
    n, ill = events_of(table[1], device("illumination"))[0]
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    r = judge(IlluminationAfterWagers, table, replace_event(ill, with_payload(ill, device_time_s=nmb.sim_time)))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[1] == ("min_draw_after_close", 0.0, "s", None, ">= 0 s")
    # a draw before the close counts no margin
    early = with_payload(ill, device_time_s=nmb.sim_time - 3.0)
    r = judge(IlluminationAfterWagers, table, replace_event(ill, early))
    assert r.findings_total == 1 and measured(r)[1][1] == pytest.approx(1.0)


# --------------------------------------------------------------------------- § 617b.5(c), (g) paytable
def _info(change):
    def setup_change(events):
        return [with_payload(e, **change(e)) if e.kind == "device_info" else e for e in events]
    return setup_change


def test_a_table_without_roulette_x_allows_no_lit_value_and_judges_no_ball(table):
    lit = events_of(table[1], device("illumination"))
    n, first = lit[0]
    _, ball = events_of(table[1], device("ball_result"))[0]
    r = judge(PaytableValues, table, replace_event(ball, with_payload(ball, pocket=38)),
              setup_change=table_record(roulette_x=None))
    values = sum(len(e.payload["numbers"]) for _, e in lit)
    assert r.verdict == "fail" and r.findings_total == values
    assert found(r)[0] == (n, first.seq, f"{first.payload['numbers'][0]} lit at {first.payload['multipliers'][0]} "
                                         "to 1: not a multiplier of the paytable ( to 1)")
    assert r.summary == f"{values} value(s) off the paytable"
    assert measured(r) == [("lit_values", values, "values", None, None)]


def test_paytable_b_on_a_single_zero_table_fails_in_round_0(table):
    r = judge(PaytableValues, table, setup_change=table_record(wheel="single-zero"))
    zero = [(f.round, f.seq, f.message) for f in r.findings if f.round == 0]
    assert zero[0] == (0, None, "§ 617b.5(g): Roulette X Paytable B is authorized on a double-zero wheel only, not "
                                 "on a single-zero wheel")
    pockets = next(e.payload["pockets"] for e in table[0] if e.kind == "device_info" and e.device == "ball_wheel")
    assert zero[1:] == [
        (0, None, "§ 617b.5(c): ball_wheel declares a double-zero wheel; the table is played on a single-zero wheel"),
        (0, None, f"§ 617b.5(c): ball_wheel declares the compartments {pockets}; a single-zero wheel has 37: "
                  + ", ".join(map(str, range(37)))),
        (0, None, "illuminator declares Paytable B on a double-zero wheel; the table is Paytable B, single-zero"),
    ]
    # no paytable: no value is one of its multipliers
    lit = sum(len(e.payload["numbers"]) for _, e in events_of(table[1], device("illumination")))
    balls_00 = sum(1 for _, e in events_of(table[1], device("ball_result")) if e.payload["pocket"] == "00")
    assert balls_00 == 1 and r.findings_total == 4 + lit + balls_00  # 00: no compartment of a single zero wheel


def test_a_generator_declaring_no_wheel_fails_in_round_0(table):
    def no_wheel(e):
        return {"wheel": None} if e.device == "illuminator" else {}
    r = judge(PaytableValues, table, setup_change=_info(no_wheel))
    assert found(r) == [(0, None, "illuminator declares Paytable B on a None wheel; the table is Paytable B, "
                                  "double-zero")]
    assert (r.verdict, r.summary) == ("fail", "1 value(s) off the paytable")


@pytest.mark.parametrize(("pockets", "quoted"), [
    (["zero", 1], "['zero', 1]"),
    (None, "None"),
])
def test_a_ball_wheel_with_unreadable_compartments_fails_617b5c(table, pockets, quoted):
    r = judge(PaytableValues, table, setup_change=_info(
        lambda e: {"pockets": pockets} if e.device == "ball_wheel" else {}))
    assert r.findings_total == 1
    assert r.findings[0].message == (f"§ 617b.5(c): ball_wheel declares the compartments {quoted}; a double-zero "
                                     "wheel has 38: 0, 00, " + ", ".join(map(str, range(1, 37))))


def test_a_ball_wheel_with_the_compartments_in_its_own_order_passes(table):
    r = judge(PaytableValues, table, setup_change=_info(
        lambda e: {"pockets": list(reversed(e.payload["pockets"]))} if e.device == "ball_wheel" else {}))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_ball_without_a_pocket_fails_617b5c(table):
    n, ball = events_of(table[1], device("ball_result"))[0]
    r = judge(PaytableValues, table, replace_event(ball, dataclasses.replace(
        ball, payload={k: v for k, v in ball.payload.items() if k != "pocket"})))
    assert found(r) == [(n, ball.seq, "§ 617b.5(c): the ball came to rest in None, no compartment of the "
                                      "double-zero wheel")]


def test_no_illumination_is_no_pass_of_the_paytable(table):
    r = judge(PaytableValues, table, lambda n, evs: [e for e in evs if not device("illumination")(e)])
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "no illumination in the trace", 0)
    assert measured(r) == [("lit_values", 0, "values", None, None)]


# --------------------------------------------------------------------------- § 617b.5(e)-(f) straights
def _round_with_two_winners(table):
    n = next(n for n, evs in sorted(table[1].items()) if sum(1 for e in evs if croupier("pay")(e)) == 2)
    pays = [e for e in table[1][n] if croupier("pay")(e)]
    ill = next(e for e in table[1][n] if device("illumination")(e))
    return n, pays, ill


def test_a_winner_on_a_lit_number_is_owed_the_lit_payout_617b5e(table):
    n, pays, ill = _round_with_two_winners(table)
    number = pays[0].payload["number"]
    lit = with_payload(ill, numbers=[number, 9 if number != 9 else 10], multipliers=[175, 50])
    r = judge(StraightPayouts, table, replace_event(ill, lit))
    # Paytable B: 175 to 1 lit, 30 to 1 the straight odds the croupier paid
    assert found(r) == [(n, p.seq, f"{p.payload['wager_id']}: {p.payload['stake_cents']} on {number} won at 175 to 1 "
                                   f"= {175 * p.payload['stake_cents']}; paid {30 * p.payload['stake_cents']} "
                                   "(30 to 1)") for p in pays]
    assert r.summary == "2 straight wager(s) settled wrong"
    m = {x.name: x.value for x in r.measurements}
    assert (m["lit_winners"], m["winners"]) == (2, 21)
    # paid at the lit payout: right, and counted as lit winners
    right = {p.seq: with_payload(p, win_cents=175 * p.payload["stake_cents"], odds="175 to 1") for p in pays}
    r = judge(StraightPayouts, table, lambda m, evs: [lit if e.seq == ill.seq else right.get(e.seq, e) for e in evs]
              if m == n else evs)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == [("straight_wagers", 725, "wagers", None, None), ("winners", 21, "wagers", None, None),
                           ("lit_winners", 2, "wagers", None, None)]
    assert r.summary == "725 straight wagers settled right (2 lit winners)"


def test_the_last_illumination_of_the_round_is_the_one_honoured(table):
    n, pays, ill = _round_with_two_winners(table)
    number = pays[0].payload["number"]
    other = 9 if number != 9 else 10
    lit = with_payload(ill, numbers=[number, other], multipliers=[175, 50])
    unlit = with_payload(ill, numbers=[other, 11 if number != 11 else 12], multipliers=[50, 50])
    r = judge(StraightPayouts, table, in_round(n, lambda evs: [x for e in evs
                                                            for x in ([lit, unlit] if e.seq == ill.seq else [e])]))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(StraightPayouts, table, in_round(n, lambda evs: [x for e in evs
                                                            for x in ([unlit, lit] if e.seq == ill.seq else [e])]))
    assert r.findings_total == 2


def test_an_illumination_617b5_does_not_allow_is_not_honoured(table):
    n, pays, ill = _round_with_two_winners(table)
    number = pays[0].payload["number"]
    one = with_payload(ill, numbers=[number], multipliers=[175])  # one number lit: not 2 to 5
    r = judge(StraightPayouts, table, replace_event(ill, one))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert {x.name: x.value for x in r.measurements}["lit_winners"] == 0


def test_a_table_without_roulette_x_pays_straights_at_its_own_odds(table):
    r = judge(StraightPayouts, table, setup_change=table_record(roulette_x=None, straight_odds_without_x=30))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[2] == ("lit_winners", 0, "wagers", None, None)

    def drop_odds(events):
        out = []
        for e in events:
            if e.device == "croupier" and e.kind == "table":
                e = dataclasses.replace(e, payload={k: v for k, v in e.payload.items()
                                                    if k not in ("straight_odds_without_x",)} | {"roulette_x": None})
            out.append(e)
        return out
    r = judge(StraightPayouts, table, setup_change=drop_odds)
    _, p = events_of(table[1], croupier("pay"))[0]
    s = p.payload["stake_cents"]
    assert r.findings_total == 21 and r.findings[0].message == (
        f"{p.payload['wager_id']}: {s} on {p.payload['number']} won at 35 to 1 = {35 * s}; paid {30 * s} (30 to 1)")


def test_a_straight_refunded_in_a_played_round_fails(table):
    n, p = events_of(table[1], croupier("pay"))[0]
    _, c = events_of(table[1], croupier("collect", kind="straight"))[0]
    r = judge(StraightPayouts, table, replace_event(p, dataclasses.replace(p, kind="refund")))
    s = p.payload["stake_cents"]
    assert found(r) == [(n, p.seq, f"{p.payload['wager_id']}: {s} on {p.payload['number']} won at 30 to 1 = "
                                   f"{30 * s}; refunded")]
    r = judge(StraightPayouts, table, replace_event(c, dataclasses.replace(c, kind="refund")))
    assert len(found(r)) == 1 and found(r)[0][2].endswith(" but was refunded")


def test_a_void_round_owes_no_settlement(table):
    n, p = events_of(table[1], croupier("pay"))[0]

    def void(evs):
        return [with_payload(e, void=True) if croupier("round_end")(e) else e for e in evs if e.seq != p.seq]
    r = judge(StraightPayouts, table, in_round(n, void))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert {x.name: x.value for x in r.measurements}["winners"] == 19  # the void round's two are not counted
    # and a round with no end record is no played round either
    r = judge(StraightPayouts, table,
              in_round(n, lambda evs: [e for e in evs if not croupier("round_end")(e) and e.seq != p.seq]))
    assert (r.verdict, r.findings_total) == ("pass", 0)


# --------------------------------------------------------------------------- § 617b.4(f)-(g) the streak
def _streak(evs):
    return next((e for e in evs if croupier("streak")(e)), None)


def _going_on(table):
    """(round, its streak record, its ball) of the first round whose streak goes on from a streak going on."""
    rounds = table[1]
    for n in sorted(rounds)[1:]:
        before, now = _streak(rounds.get(n - 1, [])), _streak(rounds[n])
        if before is not None and now is not None and not before.payload["ended"] and not now.payload["ended"]:
            return n, before, now, next(e for e in rounds[n] if device("ball_result")(e))
    raise AssertionError("no streak going on twice")


def test_a_36_the_tracker_did_not_end_on_fails_617b4g2ii(table):
    n, before, now, ball = _going_on(table)
    r = judge(StreakRules, table, replace_event(ball, with_payload(ball, pocket=36)))
    L = before.payload["length"]
    assert found(r) == [(n, now.seq, f"after 36: tracker at box {now.payload['length']}, going on; "
                                     f"§ 617b.4(g)(2)(ii): box {L + 1}, ended (36 spun)")]
    assert r.summary == "1 tracker step(s) against § 617b.4(g)"


def test_a_tracker_ended_on_a_greater_number_fails_617b4g1(table):
    n, before, now, ball = _going_on(table)
    L = now.payload["length"]
    r = judge(StreakRules, table, replace_event(now, with_payload(now, ended=True, end_reason=None)))
    assert found(r)[0] == (n, now.seq, f"after {ball.payload['pocket']}: tracker at box {L}, ended; "
                                       f"§ 617b.4(f)–(g)(1): box {L}, going on")


def test_a_tracker_ended_as_the_longest_or_past_it_fails_617b4g2iii(table):
    n, before, now, ball = _going_on(table)
    L = now.payload["length"]
    r = judge(StreakRules, table, replace_event(now, with_payload(now, ended=True, end_reason="LONGEST")))
    assert found(r)[0] == (n, now.seq, f"after {ball.payload['pocket']}: tracker at box {L}, ended; "
                                       "§ 617b.4(g)(2)(iii), the longest Roulette Up streak of Progressive Paytable 3 "
                                       f"is 9: box {L}, going on")
    r = judge(StreakRules, table, replace_event(now, with_payload(now, length=10)))
    assert found(r)[0] == (n, now.seq, f"after {ball.payload['pocket']}: tracker at box 10, going on; "
                                       "§ 617b.4(g)(2)(iii), the longest Roulette Up streak of Progressive Paytable 3 "
                                       f"is 9: box {L}, going on")
    # ended at the longest box for a number not greater: the box and the end are what it got wrong
    r = judge(StreakRules, table, replace_event(now, with_payload(now, length=9, ended=True, end_reason="NOT_GREATER")))
    assert found(r)[0] == (n, now.seq, f"after {ball.payload['pocket']}: tracker at box 9, ended; "
                                       f"§ 617b.4(f)–(g)(1): box {L}, going on")
    # one box past the right one, still within the longest: the clause of the rule it broke
    r = judge(StreakRules, table, replace_event(now, with_payload(now, length=L + 1)))
    assert found(r)[0][2].endswith(f"§ 617b.4(f)–(g)(1): box {L}, going on")


def test_a_table_without_roulette_up_tracks_nothing(table):
    r = judge(StreakRules, table, setup_change=table_record(roulette_up=None))
    assert (r.verdict, r.summary, r.findings_total, r.rounds_examined) == (
        "indeterminate", "no Roulette Up streak in the trace", 0, ROUNDS)
    assert measured(r) == [("numbers_tracked", 0, "numbers", None, None), ("streaks_ended", 0, "streaks", None, None)]


def test_a_streak_resumed_where_the_trace_did_not_leave_it_fails(table):
    n, before, now, ball = _going_on(table)
    resumed = dataclasses.replace(now, kind="streak_resumed", payload={"numbers": [1, 2]})
    # before the round's events: the tracker the trace left is the previous record's numbers
    r = judge(StreakRules, table, in_round(n, lambda evs: [resumed] + evs))
    want = [str(x) for x in before.payload["numbers"]]
    assert found(r)[0] == (n, now.seq, f"the streak resumed at ['1', '2']; the trace before the restart leaves it at "
                                       f"{want}")
    # resumed where the trace left it: nothing to say
    same = dataclasses.replace(resumed, payload={"numbers": before.payload["numbers"]})
    r = judge(StreakRules, table, in_round(n, lambda evs: [same] + evs))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    # the resumed numbers are the ones followed: the round's number is tracked from them
    r = judge(StreakRules, table, in_round(n, lambda evs: [resumed] + evs))
    assert (ball.payload["pocket"], now.payload["length"]) == (33, 2)  # 1, 2, 33: box 3
    assert found(r)[1] == (n, now.seq, "after 33: tracker at box 2, going on; § 617b.4(f)–(g)(1): box 3, going on")
    assert r.findings_total == 2
    # a restart record without numbers: the streak resumed empty
    empty = dataclasses.replace(resumed, payload={})
    r = judge(StreakRules, table, in_round(n, lambda evs: [empty] + evs))
    assert found(r) == [(n, now.seq, f"the streak resumed at []; the trace before the restart leaves it at {want}"),
                        (n, now.seq, "streak moved without a Roulette Up streak in play and a valid spin")]


def test_a_streak_that_reached_the_longest_box_the_tracker_did_not_end_fails_617b4g2iii(table):
    n0 = min(table[1])
    first = _streak(table[1][n0])

    def resumed_setup(events):
        rec = dataclasses.replace(events[-1], device="croupier", kind="streak_resumed",
                                  payload={"numbers": list(range(1, 9))})  # boxes 1 to 8
        return events + [rec]
    r = judge(StreakRules, table, setup_change=resumed_setup)
    assert found(r)[0] == (n0, first.seq, "after 25: tracker at box 1, going on; § 617b.4(g)(2)(iii), the longest "
                                          "Roulette Up streak of Progressive Paytable 3 is 9: box 9, ended (longest "
                                          "streak reached)")


def test_a_trace_begun_from_a_saved_streak_tracks_from_it(table):
    n0 = min(table[1])
    first = _streak(table[1][n0])

    def resumed_setup(events):
        rec = dataclasses.replace(events[-1], device="croupier", kind="streak_resumed", payload={"numbers": [35]})
        return events + [rec]
    r = judge(StreakRules, table, setup_change=resumed_setup)
    ball = next(e for e in table[1][n0] if device("ball_result")(e))
    assert ball.payload["pocket"] == 25 and first.payload == {"numbers": [25], "length": 1, "ended": False,
                                                              "end_reason": None}
    assert r.verdict == "fail" and found(r)[0] == (
        n0, first.seq, "after 25: tracker at box 1, going on; § 617b.4(g)(2)(i): box 1, ended (less than or equal to "
                       "the preceding number)")


# --------------------------------------------------------------------------- § 617b.4(h)(2) the meter hit
SEED = 10_000 * 100  # Progressive Paytable 3: Seed/Reseed 10,000 × the 100-cent progressive wager


def _hit_round(table):
    """(round, its ended streak record, its up_settle records, the meter before the round's end) of the
    first round a streak ended in whose meter does not split evenly among its wagers (a remainder to
    keep), with increments after it."""
    incs = events_of(table[1], device("meter_increment"))
    for n, evs in sorted(table[1].items()):
        s, settles = _streak(evs), [e for e in evs if croupier("up_settle")(e)]
        meter = [e.payload["value_cents"] for m, e in incs if m <= n]
        if s is not None and s.payload["ended"] and len(settles) >= 2 and meter and meter[-1] % len(settles) \
                and sum(1 for m, _ in incs if m > n) >= 5:
            return n, s, settles, meter[-1]
    raise AssertionError("no round to hit the meter in")


def _meter_hit(table, **changes):
    """The round change of a streak won at 9 ("100% of progressive meter") and paid by the system as
    Paytable 3 says, with ``changes`` to the hit's payload; later increments shown from the reseed.
    Returns (round, change, the hit event, winners, jackpot, share, remainder)."""
    n, streak, settles, jackpot = _hit_round(table)
    winners = len(settles)
    share, rest = divmod(jackpot, winners)
    shift = jackpot - SEED - rest  # the meter after the hit is the reseed plus the remainder
    template = next(e for e in table[1][n] if e.device == "roulette_wagering")
    payload = {"meter": "progressive", "jackpot_cents": jackpot, "winners": winners, "percent": 100,
               "paid_cents": share, "remainder_cents": rest, "reseed_cents": SEED, "value_cents": SEED + rest,
               "reserve_cents": 0} | changes
    hit = dataclasses.replace(template, seq=10**7, kind="meter_hit", payload=payload)
    won = with_payload(streak, length=9, end_reason="LONGEST", numbers=list(range(1, 10)))

    def change(m, evs):
        if m == n:
            out = [won if e.seq == streak.seq else e for e in evs]
            return out + [hit]
        if m > n:
            return [with_payload(e, value_cents=e.payload["value_cents"] - shift) if device("meter_increment")(e) else e
                    for e in evs]
        return evs
    return n, change, hit, winners, jackpot, share, rest, streak, settles


def test_a_meter_hit_paid_as_paytable_3_says_passes(table):
    n, change, hit, winners, jackpot, share, rest, streak, settles = _meter_hit(table)
    incs = events_of(table[1], device("meter_increment"))
    r = judge(ProgressiveMeter, table, change)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    after = sum(1 for m, _ in incs if m > n)
    before = sum(1 for m, _ in incs if m <= n)
    assert measured(r) == [("increments", 67, "wagers", None, None), ("meter_hits", 1, "hits", None, None),
                           ("meter_end_cents", float(SEED + rest + 18 * after), "cents", None, None),
                           ("reserve_end_cents", float(4 * after), "cents", None, None)]
    assert before + after == 67 and jackpot == SEED + 18 * before
    assert r.summary == "67 increments and 1 hit(s) exact, on Progressive Paytable 3's row"


@pytest.mark.parametrize(("field", "bad", "words"), [
    ("percent", 50, "the system paid 50 % of the meter; Progressive Paytable 3 pays \"100% of progressive meter\""),
    ("reseed_cents", 5, "the meter reseeded at 5; the row's Seed/Reseed is 1000000"),
])
def test_a_meter_hit_off_the_row_fails(table, field, bad, words):
    n, change, hit, *_ = _meter_hit(table, **{field: bad})
    r = judge(ProgressiveMeter, table, change)
    assert found(r) == [(n, hit.seq, words)]
    assert r.summary == "1 meter error(s)"


def test_a_meter_split_wrong_fails(table):
    n, change, hit, winners, jackpot, share, rest, *_ = _meter_hit(table, paid_cents=None)
    n, change, hit, *_ = _meter_hit(table, paid_cents=share + 1)
    r = judge(ProgressiveMeter, table, change)
    assert found(r) == [(n, hit.seq, f"the meter {jackpot} split {winners} ways is {share} each (remainder {rest}); "
                                     f"the system paid {share + 1} each (remainder {rest})")]
    n, change, hit, *_ = _meter_hit(table, remainder_cents=rest + 1)
    r = judge(ProgressiveMeter, table, change)
    assert found(r) == [(n, hit.seq, f"the meter {jackpot} split {winners} ways is {share} each (remainder {rest}); "
                                     f"the system paid {share} each (remainder {rest + 1})")]


def test_a_meter_hit_showing_the_wrong_jackpot_value_or_reserve_fails(table):
    n, change, hit, winners, jackpot, share, rest, *_ = _meter_hit(table)
    n, change, hit, *_ = _meter_hit(table, jackpot_cents=jackpot + 7)
    r = judge(ProgressiveMeter, table, change)
    assert found(r)[0] == (n, hit.seq, f"the meter shows {jackpot + 7} when paid; its seed, wagers and payouts make it "
                                       f"{jackpot}")
    n, change, hit, *_ = _meter_hit(table, value_cents=SEED + rest + 1)
    r = judge(ProgressiveMeter, table, change)
    assert found(r)[0] == (n, hit.seq, f"the meter shows {SEED + rest + 1} after the payout (reseed + remainder); "
                                       f"its seed, wagers and payouts make it {SEED + rest}")
    n, change, hit, *_ = _meter_hit(table, reserve_cents=3)
    r = judge(ProgressiveMeter, table, change)
    assert found(r) == [(n, hit.seq, "the reserve is 3 after funding the reseed; 1/25 of the wagers less the reseeds "
                                     "funded make it 0")]
    assert measured(r)[3][1] == 3.0 + 4 * sum(1 for m, _ in events_of(table[1], device("meter_increment")) if m > n)


def test_a_meter_shared_by_the_wrong_number_of_winners_fails(table):
    n, change, hit, winners, jackpot, share, rest, streak, settles = _meter_hit(table)
    s2, r2 = divmod(jackpot, winners + 1)
    n, change, hit, *_ = _meter_hit(table, winners=winners + 1, paid_cents=s2, remainder_cents=r2,
                                    value_cents=SEED + r2)
    r = judge(ProgressiveMeter, table,
              lambda m, evs: [with_payload(e, value_cents=e.payload["value_cents"] - rest + r2)
                              if m > n and device("meter_increment")(e) else e for e in change(m, evs)])
    assert found(r) == [(n, hit.seq, f"the meter shared by {winners + 1}; the streak has {winners} Roulette Up wagers, "
                                     "each a winner")]


def test_a_winner_paid_a_meter_share_other_than_the_systems_fails(table):
    n, change, hit, winners, jackpot, share, rest, streak, settles = _meter_hit(table)
    shares = {settles[0].seq: with_payload(settles[0], meter_share_cents=share),
              settles[1].seq: with_payload(settles[1], meter_share_cents=share - 1)}
    r = judge(ProgressiveMeter, table, lambda m, evs: [shares.get(e.seq, e) for e in change(m, evs)])
    assert found(r) == [(n, settles[1].seq, f"{settles[1].payload['wager_id']} paid a meter share of {share - 1}; the "
                                            f"system paid {share} each")]


def test_a_streak_won_at_the_meter_row_that_the_system_did_not_pay_fails(table):
    n, change, hit, winners, jackpot, share, rest, streak, settles = _meter_hit(table)
    r = judge(ProgressiveMeter, table, lambda m, evs: [e for e in change(m, evs) if e.seq != hit.seq])
    mine = [f for f in found(r) if f[0] == n]
    assert mine == [(n, streak.seq, "the streak of 9 won \"100% of progressive meter\" but the system paid no meter "
                                    "(no meter_hit)")]


def test_a_meter_paid_whole_to_one_winner_is_no_split_error(table):
    n, change, hit, winners, jackpot, *_ = _meter_hit(table)
    n, change, hit, *_ = _meter_hit(table, winners=1, paid_cents=jackpot, remainder_cents=0, value_cents=SEED)
    r = judge(ProgressiveMeter, table, change)
    assert [f for f in found(r) if f[0] == n] == [
        (n, hit.seq, f"the meter shared by 1; the streak has {winners} Roulette Up wagers, each a winner")]


def test_a_second_meter_hit_is_counted_and_judged_on_the_reseeded_meter(table):
    n, change, hit, winners, jackpot, share, rest, *_ = _meter_hit(table)
    again = dataclasses.replace(hit, seq=hit.seq + 1)
    r = judge(ProgressiveMeter, table, lambda m, evs: change(m, evs) + ([again] if m == n else []))
    assert found(r) == [(n, again.seq, f"the meter shows {jackpot} when paid; its seed, wagers and payouts make it "
                                       f"{SEED + rest}")]
    assert measured(r)[1] == ("meter_hits", 2, "hits", None, None)


def test_a_meter_hit_with_no_winner_keeps_the_jackpot_as_the_remainder(table):
    n, change, hit, winners, jackpot, share, rest, *_ = _meter_hit(table)
    n, change, hit, *_ = _meter_hit(table, winners=0, paid_cents=0, remainder_cents=jackpot)
    r = judge(ProgressiveMeter, table, change)
    msgs = [f[2] for f in found(r) if f[0] == n]
    assert msgs[0] == f"the meter shows {SEED + rest} after the payout (reseed + remainder); its seed, wagers and " \
                      f"payouts make it {SEED + jackpot}"
    assert msgs[1] == f"the meter shared by 0; the streak has {winners} Roulette Up wagers, each a winner"


def _up(**changes):
    """A round-0 change of the table's Roulette Up terms."""
    def setup_change(events):
        out = []
        for e in events:
            if e.device == "croupier" and e.kind == "table":
                up = None if changes.get("none") else {**e.payload["roulette_up"], **changes}
                e = with_payload(e, roulette_up=up)
            out.append(e)
        return out
    return setup_change


@pytest.mark.parametrize(("setup_change", "verdict", "summary", "zero"), [
    (_up(none=True), "indeterminate", "no progressive paytable at this table", []),
    (_up(paytable="A"), "indeterminate", "no progressive paytable at this table", []),
    (_up(paytable="Z"), "fail", "1 meter error(s)",
     ["no Roulette Up paytable 'Z': § 617b.4(h) has A–E and progressive 1–7"]),
    (_up(progressive=None), "fail", "1 meter error(s)",
     ["Progressive Paytable 3 is progressive but the table declares no progressive wager"]),
    (_up(progressive={"stake_cents": "100"}), "fail", "1 meter error(s)",
     ["Progressive Paytable 3 is progressive but the table declares no progressive wager"]),
])
def test_a_table_without_a_progressive_meter_to_follow(table, setup_change, verdict, summary, zero):
    r = judge(ProgressiveMeter, table, setup_change=setup_change)
    assert (r.verdict, r.summary) == (verdict, summary)
    assert found(r) == [(0, None, z) for z in zero]
    assert measured(r) == [("increments", 0, "wagers", None, None), ("meter_hits", 0, "hits", None, None)]


def test_the_meter_declared_by_another_system_device_is_judged(table):
    def rename(events):
        return [dataclasses.replace(e, device="progressive_system") if e.device == "roulette_wagering"
                and e.kind == "device_info" else e for e in events]
    r = judge(ProgressiveMeter, table, setup_change=rename)
    assert (r.verdict, r.findings_total) == ("pass", 0)


@pytest.mark.parametrize(("meters", "words"), [
    ([], "no meter"),
    ([{"name": "other"}, {"name": "spare"}], "meters other, spare"),
])
def test_a_system_declaring_no_roulette_up_meter_fails_617b4c(table, meters, words):
    def setup_change(events):
        return [with_payload(e, meters=meters) if e.device == "roulette_wagering" and e.kind == "device_info" else e
                for e in events]
    r = judge(ProgressiveMeter, table, setup_change=setup_change)
    assert [f for f in found(r) if f[0] == 0] == [(0, None, "Progressive Paytable 3 needs a progressive table game "
                                                            "system with its meter (§ 617b.4(c)); the wagering device "
                                                            f"declares {words}")]


def test_a_meter_declaring_no_seed_fails_with_the_rows_figure(table):
    def setup_change(events):
        out = []
        for e in events:
            if e.device == "roulette_wagering" and e.kind == "device_info":
                e = with_payload(e, meters=[{k: v for k, v in m.items() if k != "seed_cents"}
                                            for m in e.payload["meters"]])
            out.append(e)
        return out
    r = judge(ProgressiveMeter, table, setup_change=setup_change)
    assert found(r) == [(0, None, "the system's meter declares seed_cents None; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) on a 100-cent progressive wager is 1000000")]
    r = judge(ProgressiveMeter, table, setup_change=_meter_rates(increment_rate="0.18", reserve_rate="0.04"))
    assert (r.verdict, r.findings_total) == ("pass", 0)  # 0.18 is 9/50: the same rate written otherwise


def _meter_rates(**changes):
    def setup_change(events):
        return [with_payload(e, meters=[{**m, **changes} for m in e.payload["meters"]])
                if e.device == "roulette_wagering" and e.kind == "device_info" else e for e in events]
    return setup_change


def _resumed_setup(**meter):
    def setup_change(events):
        rec = dataclasses.replace(events[-1], device="croupier", kind="streak_resumed",
                                  payload={"numbers": [], "meters": [meter]})
        return events + [rec]
    return setup_change


def test_a_trace_begun_from_a_saved_meter_follows_its_residue_and_reserve(table):
    incs = len(events_of(table[1], device("meter_increment")))
    r = judge(ProgressiveMeter, table, setup_change=_resumed_setup(
        name="progressive", value_cents=SEED, residue="1/2", reserve_cents=100, reserve_residue="1/4"))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[2:] == [("meter_end_cents", SEED + 18 * incs + 0.5, "cents", None, None),
                               ("reserve_end_cents", 100.25 + 4 * incs, "cents", None, None)]
    # another meter's saved state is not this one's
    r = judge(ProgressiveMeter, table, setup_change=_resumed_setup(
        name="other", value_cents=5, residue="1/2", reserve_cents=100, reserve_residue="1/4"))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[2:] == [("meter_end_cents", float(SEED + 18 * incs), "cents", None, None),
                               ("reserve_end_cents", float(4 * incs), "cents", None, None)]


def test_a_meter_restored_mid_trace_off_the_trace_fails_and_is_followed(table):
    incs = events_of(table[1], device("meter_increment"))
    n2, nxt = next((m, e) for m, e in incs if m > incs[0][0])
    inc = [e for m, e in incs if m < n2][-1]
    value = inc.payload["value_cents"]
    restored = dataclasses.replace(inc, device="croupier", kind="streak_resumed", seq=10**7, payload={
        "numbers": [], "meters": [{"name": "progressive", "value_cents": value + 3, "residue": "1/2",
                                   "reserve_cents": 0, "reserve_residue": "0"}]})
    r = judge(ProgressiveMeter, table, in_round(n2, lambda evs: [restored] + evs))
    assert found(r)[0] == (n2, restored.seq, f"the meter restored at {value + 3} + 1/2; the trace before the restart "
                                             f"leaves it at {float(value):.4f}")
    # followed from the restored figure: the next increment, shown from the old one, is off
    assert found(r)[1] == (n2, nxt.seq, f"press {nxt.payload['press_id']}: the meter went 18 up to {value + 18}; "
                                        f"9/50 × 100 on {value + 3.5:.4f} makes {value + 21} (+18)")
    assert r.findings_total == 2
    same = dataclasses.replace(restored, payload={"numbers": [], "meters": [
        {"name": "progressive", "value_cents": value, "residue": "0", "reserve_cents": 4, "reserve_residue": "0"}]})
    r = judge(ProgressiveMeter, table, in_round(n2, lambda evs: [same] + evs))
    assert (r.verdict, r.findings_total) == ("pass", 0)


# --------------------------------------------------------------------------- the χ² tests
POCKETS_00 = ["0", "00"] + [str(i) for i in range(1, 37)]


def _lit_stats(selections: list[list]) -> tuple[float, float, float]:
    """(corrected X², uncorrected χ², p) of lit selections, worked out here: Var = Σ k/38 (1 − k/38)."""
    counts = {p: 0 for p in POCKETS_00}
    var = 0.0
    for sel in selections:
        keys = {str(x) for x in sel}
        for k in keys:
            counts[k] += 1
        var += len(keys) / 38 * (1 - len(keys) / 38)
    e = sum(counts.values()) / 38
    ss = sum((o - e) ** 2 for o in counts.values())
    x2 = 37 / 38 * ss / var
    return x2, ss / e, float(stats.chi2.sf(x2, 37))


def test_the_lit_numbers_chi2_is_the_without_replacement_statistic(table):
    sels = [e.payload["numbers"] for _, e in events_of(table[1], device("illumination"))]
    x2, naive, p = _lit_stats(sels)
    r = judge(LitUniformity, table, config=CheckConfig(chi2_min_spins=242))  # 242 // 4 = 60 selections: enough
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)
    assert [m[:3] for m in measured(r)] == [("selections", 60, "selections"),
                                            ("chi2_corrected", pytest.approx(x2, rel=1e-12), "1"),
                                            ("chi2_uncorrected", pytest.approx(naive, rel=1e-12), "1"),
                                            ("p_value", pytest.approx(p, rel=1e-9), "1"), ("dof", 37, "1")]
    assert [m[4] for m in measured(r)] == [">= 60", None, None, ">= 0.01", None]
    assert r.summary == f"uniform at α = 0.01: p = {p:.3g} over 60 selections"
    # (N − 1)/N · Σ (O − E)² / var on three categories: 2/3 · (1 + 1 + 0) / 0.5
    assert without_replacement_chi2([3, 1, 2], 0.5) == pytest.approx(8 / 3, rel=1e-15)
    r = judge(LitUniformity, table, config=CheckConfig(chi2_min_spins=244))  # 61 selections wanted
    assert (r.verdict, r.summary) == ("indeterminate", "60 selections: too few for the χ² test")
    assert measured(r) == [("selections", 60, "selections", None, ">= 61")]
    r = judge(LitUniformity, table)
    assert (r.verdict, r.summary) == ("indeterminate", "60 selections: too few for the χ² test")
    assert measured(r) == [("selections", 60, "selections", None, ">= 250")]


def test_a_generator_lighting_the_same_numbers_fails_the_lit_chi2(table):
    def same(n, evs):
        return [with_payload(e, numbers=[9, 7, 9], multipliers=[50, 50, 50]) if device("illumination")(e) else e
                for e in evs]
    x2, naive, p = _lit_stats([[9, 7]] * 60)
    r = judge(LitUniformity, table, same, config=CheckConfig(chi2_min_spins=40))
    assert r.verdict == "fail" and r.summary == f"lit numbers not uniform: p = {p:.3g}"
    assert found(r) == [(0, None, f"X² = {x2:.1f} on 37 dof, p = {p:.3g} < 0.01; most lit: 7 (60 times, expected "
                                  f"{120 / 38:.1f})")]
    assert measured(r)[1][1] == pytest.approx(x2, rel=1e-12) and measured(r)[2][1] == pytest.approx(naive, rel=1e-12)


def test_every_number_lit_every_time_tells_nothing(table):
    r = judge(LitUniformity, table, lambda n, evs: [with_payload(e, numbers=POCKETS_00) if device("illumination")(e)
                                                    else e for e in evs], config=CheckConfig(chi2_min_spins=40))
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "60 selections: too few for the χ² test", 0)


def _balls(table):
    return [next(e for e in evs if device("ball_result")(e)).payload["pocket"] for _, evs in sorted(table[1].items())]


def test_the_pocket_chi2_is_pearsons_over_the_wheels_compartments(table):
    balls = [str(b) for b in _balls(table)]
    counts = [balls.count(p) for p in POCKETS_00]
    chi2 = sum((o - 60 / 38) ** 2 for o in counts) / (60 / 38)
    p = float(stats.chi2.sf(chi2, 37))
    r = judge(PocketUniformity, table, config=CheckConfig(chi2_min_spins=60))
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)
    assert measured(r) == [("spins", 60, "spins", None, ">= 60 spins"),
                           ("chi2", pytest.approx(chi2, rel=1e-12), "1", None, None),
                           ("p_value", pytest.approx(p, rel=1e-9), "1", None, ">= 0.01"), ("dof", 37, "1", None, None)]
    assert r.summary == f"uniform at α = 0.01: p = {p:.3g} over 60 spins"
    r = judge(PocketUniformity, table, config=CheckConfig(chi2_min_spins=61))
    assert (r.verdict, r.summary) == ("indeterminate", "60 spins: too few for the χ² test")
    assert measured(r) == [("spins", 60, "spins", None, ">= 61 spins")]


def test_a_wheel_always_on_one_number_fails_the_pocket_chi2(table):
    chi2 = ((60 - 60 / 38) ** 2 + 37 * (60 / 38) ** 2) / (60 / 38)
    p = float(stats.chi2.sf(chi2, 37))
    r = judge(PocketUniformity, table, lambda n, evs: [with_payload(e, pocket=7) if device("ball_result")(e) else e
                                                       for e in evs], config=CheckConfig(chi2_min_spins=60))
    assert found(r) == [(0, None, f"χ² = {chi2:.1f} on 37 dof, p = {p:.3g} < 0.01; most frequent 7 (60 of 60, "
                                  "expected 1.6)")]
    assert r.summary == f"numbers not uniform: p = {p:.3g}"


def test_a_spin_on_no_compartment_of_the_wheel_fails_the_pocket_check(table):
    n, ball = events_of(table[1], device("ball_result"))[0]
    r = judge(PocketUniformity, table, replace_event(ball, with_payload(ball, pocket=37)),
              config=CheckConfig(chi2_min_spins=60))
    assert r.verdict == "fail" and found(r)[0] == (0, None, "1 spins on numbers not on the double-zero wheel")
    assert r.findings_total == 1 and measured(r)[0][1] == 60


def test_the_valid_ball_is_the_wheels_last_report_before_the_croupier_validated_the_spin(table):
    n, ball = events_of(table[1], device("ball_result"))[0]
    evs = table[1][n]
    assert valid_ball(RoundView.of(n, evs)) is ball
    mine = dataclasses.replace(ball, device="croupier", seq=10**7)  # the croupier's own record is no wheel report
    later = dataclasses.replace(ball, seq=10**7 + 1, payload={**ball.payload, "pocket": 7})
    i = evs.index(ball)
    assert valid_ball(RoundView.of(n, evs[:i + 1] + [mine] + evs[i + 1:])) is ball
    valid = next(e for e in evs if croupier("spin_valid")(e))
    j = evs.index(valid)
    assert valid_ball(RoundView.of(n, evs[:j + 1] + [later] + evs[j + 1:])) is ball  # after the validation
    assert valid_ball(RoundView.of(n, evs[:i] + [later] + evs[i:])) is ball  # the last one before it
    assert valid_ball(RoundView.of(n, [e for e in evs if e.seq != valid.seq])) is None


# --------------------------------------------------------------------------- § 617b.4(c)(1) device-accepted
def test_a_healthy_table_takes_every_roulette_up_wager_on_a_press(table):
    ups = events_of(table[1], croupier("wager", kind="up"))
    r = judge(UpWagersOnDevice, table)
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)
    assert measured(r) == [("up_wagers", len(ups), "wagers", None, None)]
    assert r.summary == f"all {len(ups)} Roulette Up wagers are presses the device accepted in time"


@pytest.mark.parametrize("up", [_up(none=True), _up(paytable="A"), _up(paytable="Z")])
def test_device_acceptance_is_not_judged_without_a_progressive_roulette_up(table, up):
    r = judge(UpWagersOnDevice, table, setup_change=up)
    assert (r.verdict, r.summary, r.findings_total) == (
        "indeterminate", "no progressive Roulette Up paytable at this table (§ 617b.4(c))", 0)
    assert measured(r) == [("up_wagers", 0, "wagers", None, None)]


def test_no_roulette_up_wager_is_no_pass_of_device_acceptance(table):
    r = judge(UpWagersOnDevice, table, lambda n, evs: [e for e in evs if not croupier("wager", kind="up")(e)])
    assert (r.verdict, r.summary) == ("indeterminate", "no Roulette Up wager in the trace")


def test_a_roulette_up_wager_on_no_press_a_press_not_accepted_or_one_press_twice_fails_617b4c1(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    p, wid, pid, seat = w.payload, w.payload["wager_id"], w.payload["press_id"], w.payload["seat"]
    nopress = dataclasses.replace(w, payload={k: v for k, v in p.items() if k != "press_id"})
    r = judge(UpWagersOnDevice, table, replace_event(w, nopress))
    assert found(r) == [(n, w.seq, f"Roulette Up wager {wid} (seat {seat}) taken on no press")]
    assert (r.verdict, r.summary) == ("fail", "1 Roulette Up wager(s) without a press the device accepted")
    r = judge(UpWagersOnDevice, table, replace_event(w, with_payload(w, press_id=10**6)))
    assert found(r) == [(n, w.seq, f"Roulette Up wager {wid} (seat {seat}) taken on press {10**6}, which the device "
                                   "did not accept from a player before \"no more bets\"")]
    twice = dataclasses.replace(w, seq=10**7, payload={**p, "wager_id": "x-u2"})
    r = judge(UpWagersOnDevice, table,
              in_round(n, lambda evs: [x for e in evs for x in ([e, twice] if e.seq == w.seq else [e])]))
    assert found(r) == [(n, twice.seq, f"press {pid} taken as two Roulette Up wagers")]
    assert measured(r) == [("up_wagers", 68, "wagers", None, None)]


def test_a_press_of_another_spot_is_no_roulette_up_press(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    pid = w.payload["press_id"]
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    r = judge(UpWagersOnDevice, table, replace_event(press, with_payload(press, spot="straight")))
    assert found(r) == [(n, w.seq, f"Roulette Up wager {w.payload['wager_id']} (seat {w.payload['seat']}) taken on "
                                   f"press {pid}, which the device did not accept from a player before \"no more "
                                   "bets\"")]


def test_every_roulette_up_wager_of_a_round_is_judged_after_one_without_a_press(table):
    n = next(n for n, evs in sorted(table[1].items()) if sum(1 for e in evs if croupier("wager", kind="up")(e)) >= 2)
    w1, w2 = [e for e in table[1][n] if croupier("wager", kind="up")(e)][:2]
    nopress = dataclasses.replace(w1, payload={k: v for k, v in w1.payload.items() if k != "press_id"})
    bad = {w1.seq: nopress, w2.seq: with_payload(w2, press_id=None)}
    r = judge(UpWagersOnDevice, table, in_round(n, lambda evs: [bad.get(e.seq, e) for e in evs]))
    assert found(r) == [(n, w1.seq, f"Roulette Up wager {w1.payload['wager_id']} (seat {w1.payload['seat']}) taken on "
                                    "no press"),
                        (n, w2.seq, f"Roulette Up wager {w2.payload['wager_id']} (seat {w2.payload['seat']}) taken on "
                                    "no press")]


@pytest.mark.parametrize(("change", "seat", "stake"), [({"seat": 99}, 99, None), ({"stake_cents": 500}, None, 500)])
def test_a_roulette_up_wager_off_its_press_fails_617b4c1(table, change, seat, stake):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    p = w.payload
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == p["press_id"])
    r = judge(UpWagersOnDevice, table, replace_event(w, with_payload(w, **change)))
    assert found(r) == [(n, w.seq, f"Roulette Up wager {p['wager_id']}: seat {seat or p['seat']}, "
                                   f"{stake or p['stake_cents']} cents; the device accepted press {p['press_id']} from "
                                   f"seat {press.payload['seat']} for {press.payload['stake_cents']} cents")]


# --------------------------------------------------------------------------- § 617b.4(a), (d) timing
def test_roulette_up_timing_is_not_judged_without_roulette_up(table):
    r = judge(UpWagerTiming, table, setup_change=_up(none=True))
    assert (r.verdict, r.summary, r.findings_total, r.rounds_examined) == (
        "indeterminate", "no Roulette Up wager in the trace", 0, ROUNDS)
    assert measured(r) == [("up_wagers_accepted", 0, "wagers", None, None),
                           ("up_wagers_refused", 0, "wagers", None, None),
                           ("up_presses_owed", 0, "presses", None, None)]


def test_a_roulette_up_wager_a_moment_before_the_close_is_in_time(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    r = judge(UpWagerTiming, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time - 1e-6)))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(UpWagerTiming, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time, seat=99)))
    assert r.summary == ("2 Roulette Up wager(s) accepted out of time or press(es) refused or dropped against "
                         "§ 617b.4(a), (d)")
    assert [f[2] for f in found(r)] == [
        f"Roulette Up wager {w.payload['wager_id']} by seat 99, who placed no Roulette wager",
        f"Roulette Up wager {w.payload['wager_id']} placed after \"no more bets\""]


def test_the_refusals_counted_are_the_roulette_up_ones(table):
    refused = events_of(table[1], croupier("wager_rejected", kind="up"))
    n, ref = refused[0]
    other = dataclasses.replace(ref, seq=10**7, payload={**ref.payload, "kind": "straight", "press_id": None})
    r = judge(UpWagerTiming, table, in_round(n, lambda evs: evs + [other]))
    assert measured(r)[1] == ("up_wagers_refused", len(refused), "wagers", None, None)


# --------------------------------------------------------------------------- § 617b.4(h) settlement
def test_a_healthy_table_settles_by_paytable_3_pinned(table):
    settles = events_of(table[1], croupier("up_settle"))
    by = {}
    for _, s in settles:
        by[s.payload["payout"]] = by.get(s.payload["payout"], 0) + 1
    r = judge(UpSettlement, table)
    assert by == {"Loss": 65, "10 for 1": 2}
    assert measured(r) == [("up_wagers_settled", 67, "wagers", None, None),
                           ("settled_10_for_1", 2, "wagers", None, None),
                           ("settled_Loss", 65, "wagers", None, None)]
    assert r.summary == "67 Roulette Up wagers settled by Progressive Paytable 3"


def test_roulette_up_settlement_is_not_judged_without_roulette_up(table):
    r = judge(UpSettlement, table, setup_change=_up(none=True))
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "no Roulette Up wager settled in the trace", 0)
    assert measured(r) == [("up_wagers_settled", 0, "wagers", None, None)]


def test_a_roulette_up_settlement_quotes_the_paytable_row(table):
    n, s = next((n, s) for n, s in events_of(table[1], croupier("up_settle")) if s.payload["payout"] == "10 for 1")
    stake = s.payload["stake_cents"]
    r = judge(UpSettlement, table, replace_event(s, with_payload(s, returned_cents=0)))
    # Paytable 3, a streak of 4: 10 for 1 — ten times the wager, the wager included
    assert found(r) == [(n, s.seq, f"{s.payload['wager_id']}: {stake} on a streak of 4 (10 for 1) returns "
                                   f"{10 * stake}; 0 returned at length 4")]


def test_a_roulette_up_wager_with_no_stake_cannot_be_settled(table):
    n, s = events_of(table[1], croupier("up_settle"))[0]
    wid = s.payload["wager_id"]
    r = judge(UpSettlement, table, lambda m, evs: [with_payload(e, stake_cents=0) if croupier("wager", kind="up")(e)
                                                    and e.payload["wager_id"] == wid else e for e in evs])
    assert found(r) == [(n, s.seq, f"{wid}: a stake is a positive number of cents, not 0")]
    assert measured(r)[0][1] == 66


def test_a_void_rounds_roulette_up_wager_is_no_wager_of_the_streak(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    r = judge(UpSettlement, table, in_round(n, lambda evs: [with_payload(e, void=True) if croupier("round_end")(e)
                                                            else e for e in evs]))
    settled_in, s = next((m, s) for m, s in events_of(table[1], croupier("up_settle"))
                         if s.payload["wager_id"] == w.payload["wager_id"])
    assert (settled_in, s.seq, f"{w.payload['wager_id']} settled but not a wager of this streak") in found(r)


# --------------------------------------------------------------------------- § 617b.4(c)(2) from the wheel
def test_the_wheels_no_more_bets_is_its_last_bets_closed_before_the_croupiers(table):
    n = min(table[1])
    evs = table[1][n]
    nmb = next(e for e in evs if croupier("no_more_bets")(e))
    i = evs.index(nmb)
    template = evs[i - 1]
    a = dataclasses.replace(template, seq=10**7, device="ball_wheel", kind="bets_closed", payload={})
    b = dataclasses.replace(a, seq=10**7 + 1)
    mine = dataclasses.replace(a, seq=10**7 + 2, device="croupier")
    after = dataclasses.replace(a, seq=10**7 + 3)
    assert wheel_no_more_bets(RoundView.of(n, evs)) is None
    assert wheel_no_more_bets(RoundView.of(n, evs[:i] + [a, b, mine] + evs[i:] + [after])) is b
    assert wheel_no_more_bets(RoundView.of(n, evs[:i] + [a] + [e for e in evs[i:] if e.seq != nmb.seq])) is None


FOLLOW = SCENARIO.with_name("roulette_follow_autonomous_wheel.yaml")
_LATE = r"wager recognised \d+\.\d{6} ms after the %s: at or past the budget \(1\.000 ms\)"


@pytest.fixture(scope="module")
def follow(tmp_path_factory) -> Table:
    """A single zero table whose automatic wheel announces "no more bets" itself (8 rounds)."""
    return simulated_table(FOLLOW, 8, tmp_path_factory.mktemp("roulette-follow"))


def test_a_lockout_timed_from_the_wheels_announcement_says_so(follow):
    timed = sum(1 for n, evs in follow[1].items()
                if wheel_no_more_bets(RoundView.of(n, evs)) is not None
                and any(e.kind == "lockout_command" for e in evs))
    assert timed == 8
    r = judge(UpLockout, follow)
    assert r.verdict == "pass" and re.fullmatch(r"lock-out took effect within the 10\.000 ms budget in all 8 rounds; "
                                                r"worst latency in \[\d\.\d{3}, \d\.\d{3}\] ms \(timed from the "
                                                r"wheel's own \"no more bets\" in 8 rounds\)", r.summary)
    assert measured(r)[-1] == ("rounds_timed_from_wheel", 8, "rounds", None, None)
    # the wheel announcing 2 ms before the rig commanded the lock-out: 2 ms more latency, from the wheel
    worst = next(m for m in r.measurements if m.name == "lockout_latency_max")

    def earlier(m, evs):
        return [dataclasses.replace(e, sim_time=e.sim_time - 0.002,
                                    payload={**e.payload, "device_time_s": e.payload["device_time_s"] - 0.002})
                if e.kind == "bets_closed" else e for e in evs]
    r2 = judge(UpLockout, follow, earlier)
    worst2 = next(m for m in r2.measurements if m.name == "lockout_latency_max")
    assert r2.verdict == "pass" and worst2.value == pytest.approx(worst.value + 0.002, abs=1e-9)
    assert worst2.bracket == pytest.approx((worst.bracket[0] + 0.002, worst.bracket[1] + 0.002), abs=1e-9)
    r = judge(UpLockout, follow, config=CheckConfig(lockout_budget_s=0.001))
    assert r.verdict == "fail" and r.findings_total > 0
    assert all(re.fullmatch(_LATE % "wheel's \"no more bets\"", m) for _, _, m in found(r))
    accepted = {(n, e.seq) for n, evs in follow[1].items() for e in evs if e.kind == "press" and e.payload["accepted"]}
    assert {f[:2] for f in found(r)} <= accepted  # each at the press recognised late
    # a round the wheel announced nothing in, or the rig commanded no lock-out in, is timed from the command
    n1 = min(follow[1])

    def unannounced(m, evs):
        return [e for e in evs if not (m == n1 and e.kind == "bets_closed")]
    r = judge(UpLockout, follow, unannounced, config=CheckConfig(lockout_budget_s=0.001))
    assert measured(r)[-1] == ("rounds_timed_from_wheel", 7, "rounds", None, None)
    assert r.summary.endswith(" (timed from the wheel's own \"no more bets\" in 7 rounds)")
    mine = [m for n, _, m in found(r) if n == n1]
    assert mine and all(re.fullmatch(_LATE % "lock-out command", m) for m in mine)
    assert all(re.fullmatch(_LATE % "wheel's \"no more bets\"", m) for n, _, m in found(r) if n != n1)
    r = judge(UpLockout, follow, lambda m, evs: [e for e in evs if not (m == n1 and e.kind == "lockout_command")])
    assert measured(r)[-1] == ("rounds_timed_from_wheel", 7, "rounds", None, None)


def test_a_lockout_timed_from_the_command_says_nothing_of_the_wheel(table):
    r = judge(UpLockout, table)
    assert r.verdict == "pass" and "wheel" not in r.summary
    assert "rounds_timed_from_wheel" not in [m[0] for m in measured(r)]
    r = judge(UpLockout, table, config=CheckConfig(lockout_budget_s=0.001))
    assert r.findings_total > 0 and all(re.fullmatch(_LATE % "lock-out command", m) for _, _, m in found(r))


# --------------------------------------------------------------------------- a real player's press
def _refused_as_foreign(table):
    """(round, the croupier's § 617b.4(d) refusal of a Roulette Up press, that refusal as "not made by the rig")."""
    n, ref = next((n, e) for n, e in events_of(table[1], croupier("wager_rejected", kind="up"))
                  if "617b.4(d)" in e.payload["reason"])
    foreign = with_payload(ref, kind="press", reason="not made by the rig")
    return n, ref, foreign


def test_a_real_players_press_refused_is_owed_nothing_unless_the_scenario_settles_them(table):
    n, ref, foreign = _refused_as_foreign(table)
    pid = ref.payload["press_id"]
    r = judge(UpWagerTiming, table, replace_event(ref, foreign))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == [("up_wagers_accepted", 67, "wagers", None, None),
                           ("up_wagers_refused", 11, "wagers", None, None),
                           ("up_presses_owed", 78, "presses", None, None)]
    why = (f"press {pid} refused as not made by the rig, but the scenario settles real players' presses "
           "(players.foreign_presses: settle)")
    settle = CheckConfig(foreign_presses="settle")
    r = judge(UpWagerTiming, table, replace_event(ref, foreign), config=settle)
    assert found(r) == [(n, ref.seq, why)]
    assert measured(r)[2] == ("up_presses_owed", 79, "presses", None, None)
    r = judge(ProgressiveMeter, table, replace_event(ref, foreign), config=settle)
    assert found(r) == [(n, ref.seq, why)]
    r = judge(ProgressiveMeter, table, replace_event(ref, foreign))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_an_owed_press_neither_taken_nor_refused_lacks_its_meter_increment(table):
    n, ref, _ = _refused_as_foreign(table)
    pid, seat = ref.payload["press_id"], ref.payload["seat"]
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    r = judge(ProgressiveMeter, table, lambda m, evs: [e for e in evs if e.seq != ref.seq])
    assert found(r) == [(n, press.seq, f"press {pid} (seat {seat}), accepted before \"no more bets\", is neither a "
                                       "Roulette Up wager nor refused: the meter lacks its increment")]
    # in a void round nothing is owed to the meter
    r = judge(ProgressiveMeter, table, lambda m, evs: [with_payload(e, void=True) if m == n and croupier("round_end")(e)
                                                        else e for e in evs if e.seq != ref.seq])
    assert not [f for f in found(r) if f[1] == press.seq]


# --------------------------------------------------------------------------- rounds with nothing to order
def test_a_round_without_wagers_or_presses_draws_in_order(table):
    n, ill = events_of(table[1], device("illumination"))[0]
    r = judge(IlluminationAfterWagers, table,
              in_round(n, lambda evs: [e for e in evs if e.kind not in ("wager", "press", "wager_rejected")]))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_the_selection_sizes_are_counted_per_illumination(table):
    sizes: dict[int, int] = {}
    for _, e in events_of(table[1], device("illumination")):
        sizes[len(e.payload["numbers"])] = sizes.get(len(e.payload["numbers"]), 0) + 1
    r = judge(DistinctNumbers, table)
    assert measured(r) == [("illuminations", ROUNDS, "illuminations", None, None)] + [
        (f"lit_{k}", v, "illuminations", None, None) for k, v in sorted(sizes.items())]
    assert sorted(sizes) == [2, 3, 4, 5]


# --------------------------------------------------------------------------- more of the meter
def test_a_progressive_table_with_no_roulette_up_wager_is_no_pass_of_the_meter(table):
    def no_up(n, evs):
        return [e for e in evs if not (e.kind in ("press", "meter_increment", "press_void")
                                       or croupier("wager", kind="up")(e) or croupier("wager_rejected", kind="up")(e))]
    r = judge(ProgressiveMeter, table, no_up)
    assert (r.verdict, r.summary, r.findings_total) == ("indeterminate", "no progressive wager in the trace", 0)
    assert measured(r) == [("increments", 0, "wagers", None, None), ("meter_hits", 0, "hits", None, None),
                           ("meter_end_cents", float(SEED), "cents", None, None),
                           ("reserve_end_cents", 0.0, "cents", None, None)]


def test_a_bench_where_no_device_declares_meters_fails_617b4c(table):
    def setup_change(events):
        return [dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k != "meters"})
                if e.device == "roulette_wagering" and e.kind == "device_info" else e for e in events]
    r = judge(ProgressiveMeter, table, setup_change=setup_change)
    assert [f for f in found(r) if f[0] == 0] == [(0, None, "Progressive Paytable 3 needs a progressive table game "
                                                            "system with its meter (§ 617b.4(c)); the wagering device "
                                                            "declares no meter")]


def test_a_meter_restarting_from_its_reserve_fails_with_the_rows_reseed(table):
    r = judge(ProgressiveMeter, table, setup_change=_meter_rates(reseed_from_reserve=True))
    assert found(r) == [(0, None, "the system's meter restarts from its reserve; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) reseeds it at a fixed 1000000 cents")]


def test_reports_of_another_meter_and_the_croupiers_own_records_move_nothing(table):
    n, inc = events_of(table[1], device("meter_increment"))[0]
    other_inc = dataclasses.replace(inc, seq=10**7, payload={**inc.payload, "meter": "other", "value_cents": 5})
    other_read = dataclasses.replace(inc, seq=10**7 + 1, kind="meter_reading", payload={"meters": {"other": 5}})
    other_hit = dataclasses.replace(inc, seq=10**7 + 2, kind="meter_hit", payload={"meter": "other"})
    mine = dataclasses.replace(inc, seq=10**7 + 3, device="croupier")
    unlinked = dataclasses.replace(inc, seq=10**7 + 4, kind="meter_reading", payload={"meters": {"progressive": 5}})
    r = judge(ProgressiveMeter, table, in_round(n, lambda evs: evs + [other_inc, other_read, other_hit, mine]))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[:2] == [("increments", 67, "wagers", None, None), ("meter_hits", 0, "hits", None, None)]
    # a reading without its link state is read as linked
    r = judge(ProgressiveMeter, table, in_round(n, lambda evs: evs + [unlinked]))
    assert [f[:2] for f in found(r)][0] == (n, unlinked.seq)


# --------------------------------------------------------------------------- more of the streak
def test_a_round_in_play_without_its_streak_record_fails(table):
    n, before, now, ball = _going_on(table)
    end = next(e for e in table[1][n] if croupier("round_end")(e))
    r = judge(StreakRules, table, lambda m, evs: [e for e in evs if e.seq != now.seq])
    assert found(r)[0] == (n, end.seq, "0 streak records for one number (1 expected)")


def test_a_tracker_holding_other_numbers_at_the_right_box_fails(table):
    n, before, now, ball = _going_on(table)
    numbers = list(now.payload["numbers"])
    wrong = [*numbers[:-1], "00" if numbers[-1] != "00" else 0]
    r = judge(StreakRules, table, replace_event(now, with_payload(now, numbers=wrong)))
    L = now.payload["length"]
    assert found(r)[0] == (n, now.seq, f"after {ball.payload['pocket']}: tracker at box {L}, going on; "
                                       f"§ 617b.4(f)–(g)(1): box {L}, going on")


# --------------------------------------------------------------------------- more of the timing
def test_a_refusal_as_by_a_player_without_a_roulette_wager_is_held_to_the_presss_seat(table):
    n, ref = next((n, e) for n, e in events_of(table[1], croupier("wager_rejected", kind="up")))
    pid = ref.payload["press_id"]
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    seats = sorted({e.payload["seat"] for e in table[1][n] if croupier("wager", kind="straight")(e)})
    a = with_payload(ref, reason="no Roulette wager this round (§ 617b.4(a))")

    def refused_from(seat):
        moved = with_payload(press, seat=seat)
        return in_round(n, lambda evs: [a if e.seq == ref.seq else moved if e.seq == press.seq else e for e in evs])
    r = judge(UpWagerTiming, table, refused_from(seats[0]))
    assert found(r) == [(n, ref.seq, f"press {pid} refused as by a player without a Roulette wager (§ 617b.4(a)); "
                                     f"seat {seats[0]} placed one this round")]
    r = judge(UpWagerTiming, table, refused_from(99))
    assert (r.verdict, r.findings_total) == ("pass", 0)


# --------------------------------------------------------------------------- more of the settlement
def test_a_streak_won_at_the_meter_row_settles_each_wager_its_meter_share(table):
    n, _streak_rec, settles, _meter = _hit_round(table)
    streak = _streak(table[1][n])
    won = with_payload(streak, length=9, end_reason="LONGEST", numbers=list(range(1, 10)))
    share = 333_375
    paid = {s.seq: with_payload(s, length=9, payout="100% of progressive meter", meter_share_cents=share,
                                returned_cents=share) for s in settles}
    r = judge(UpSettlement, table, in_round(n, lambda evs: [won if e.seq == streak.seq else paid.get(e.seq, e)
                                                            for e in evs]))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert ("settled_100%_of_progressive_meter", len(settles), "wagers", None, None) in measured(r)
    short = {**paid, settles[0].seq: with_payload(paid[settles[0].seq], returned_cents=share - 1)}
    r = judge(UpSettlement, table, in_round(n, lambda evs: [won if e.seq == streak.seq else short.get(e.seq, e)
                                                            for e in evs]))
    s0 = settles[0].payload
    assert found(r) == [(n, settles[0].seq, f"{s0['wager_id']}: {s0['stake_cents']} on a streak of 9 (100% of "
                                            f"progressive meter) returns {share}; {share - 1} returned at length 9")]


def test_a_trace_begun_from_a_saved_streak_owes_its_wagers_a_settlement(table):
    def resumed_setup(events):
        rec = dataclasses.replace(events[-1], device="croupier", kind="streak_resumed", payload={
            "numbers": [], "wagers": [{"wager_id": "old-u1", "kind": "up", "seat": 1, "stake_cents": 100}]})
        return events + [rec]
    n, first_end = next((n, e) for n, e in events_of(table[1], croupier("streak")) if e.payload["ended"])
    r = judge(UpSettlement, table, setup_change=resumed_setup)
    assert found(r) == [(n, first_end.seq, "old-u1 never settled when its streak ended")]


def test_a_table_record_without_its_wheel_is_a_single_zero_table(table):
    def no_wheel(events):
        return [dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k != "wheel"})
                if e.device == "croupier" and e.kind == "table" else e for e in events]
    r = judge(PaytableValues, table, setup_change=no_wheel)
    assert found(r)[0] == (0, None, "§ 617b.5(g): Roulette X Paytable B is authorized on a double-zero wheel only, "
                                    "not on a single-zero wheel")


def test_devices_that_are_neither_the_generator_nor_the_ball_wheel_declare_nothing_judged(table):
    def extra(events):
        t = next(e for e in events if e.kind == "device_info")
        return events + [dataclasses.replace(t, seq=10**7, device="rx_display", payload={"paytable": "A"}),
                         dataclasses.replace(t, seq=10**7 + 1, device="rx_board", payload={"multipliers": [500]}),
                         dataclasses.replace(t, seq=10**7 + 2, device="wheel_display",
                                             payload={"wheel": "single-zero"}),
                         dataclasses.replace(t, seq=10**7 + 3, device="pocket_board", payload={"pockets": [1]})]
    r = judge(PaytableValues, table, setup_change=extra)
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, ROUNDS)


def test_every_draw_of_a_round_before_the_close_is_a_finding(table):
    n, ill = events_of(table[1], device("illumination"))[0]
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    a = with_payload(ill, device_time_s=nmb.sim_time - 2.0)
    b = dataclasses.replace(a, seq=10**7, payload={**a.payload, "device_time_s": nmb.sim_time - 1.0})
    r = judge(IlluminationAfterWagers, table, in_round(n, lambda evs: [x for e in evs
                                                                       for x in ([a, b] if e.seq == ill.seq else [e])]))
    assert found(r) == [(n, ill.seq, f"numbers drawn at {nmb.sim_time - 2.0:.3f} s, before \"no more bets\" "
                                     f"({nmb.sim_time:.3f} s)"),
                        (n, b.seq, f"numbers drawn at {nmb.sim_time - 1.0:.3f} s, before \"no more bets\" "
                                   f"({nmb.sim_time:.3f} s)")]
    assert measured(r)[0] == ("illuminations", ROUNDS + 1, "illuminations", None, None)


def test_a_meter_paid_on_a_streak_length_the_paytable_lacks_is_paid_for_no_streak(table):
    n, change, hit, winners, jackpot, share, rest, streak, settles = _meter_hit(table)
    r = judge(ProgressiveMeter, table, lambda m, evs: [with_payload(e, length=12) if e.seq == streak.seq else e
                                                       for e in change(m, evs)])
    assert found(r) == [(n, hit.seq, "the system paid the meter; no streak won \"100% of progressive meter\"")]


def test_a_void_rounds_increments_are_for_no_wager(table):
    incs = events_of(table[1], device("meter_increment"))
    n = incs[0][0]
    mine = [e for m, e in incs if m == n]
    r = judge(ProgressiveMeter, table, in_round(n, lambda evs: [with_payload(e, void=True) if croupier("round_end")(e)
                                                                else e for e in evs]))
    assert found(r) == [(n, e.seq, f"the meter incremented for press {e.payload['press_id']}, which is no Roulette Up "
                                   "wager of a played round (a late press, the rig's probe, a refused press or a void "
                                   "round)") for e in mine]
    assert measured(r)[0] == ("increments", 67 - len(mine), "wagers", None, None)


def test_a_streak_moved_in_a_round_declared_void_fails(table):
    n, before, now, ball = _going_on(table)
    r = judge(StreakRules, table, in_round(n, lambda evs: [with_payload(e, void=True) if croupier("round_end")(e) else e
                                                           for e in evs]))
    assert found(r)[0] == (n, now.seq, "streak moved without a Roulette Up streak in play and a valid spin")


def test_a_round_without_roulette_up_wagers_starts_no_streak(table):
    n_end = next(m for m, e in events_of(table[1], croupier("streak")) if e.payload["ended"])
    n = n_end + 1  # the tracker is empty: only this round's Roulette Up wagers would start a streak
    assert any(croupier("wager", kind="straight")(e) for e in table[1][n])
    r = judge(StreakRules, table, in_round(n, lambda evs: [e for e in evs if not (croupier("wager", kind="up")(e)
                                                                                  or croupier("streak")(e))]))
    assert [f for f in found(r) if f[0] == n] == []


def test_two_numbers_lit_twice_are_both_named(table):
    n, ev = events_of(table[1], device("illumination"))[0]
    r = judge(DistinctNumbers, table, replace_event(ev, with_payload(ev, numbers=[9, 7, 9, 7], multipliers=[50] * 4)))
    assert found(r) == [(n, ev.seq, "numbers lit twice: 7, 9 (lit: [9, 7, 9, 7])")]


def test_the_wagers_placed_in_the_round_a_streak_ends_share_the_meter(table):
    # a round whose Roulette Up wagers start a streak, its record made to end it at 9: its own wagers win
    incs = events_of(table[1], device("meter_increment"))
    n = next(n for n, evs in sorted(table[1].items())
             if sum(1 for e in evs if croupier("wager", kind="up")(e)) >= 2 and sum(1 for m, _ in incs if m > n) >= 5)
    winners = sum(1 for e in table[1][n] if croupier("wager", kind="up")(e))
    jackpot = [e.payload["value_cents"] for m, e in incs if m <= n][-1]
    share, rest = divmod(jackpot, winners)
    streak = _streak(table[1][n])
    template = next(e for e in table[1][n] if e.device == "roulette_wagering")
    hit = dataclasses.replace(template, seq=10**7, kind="meter_hit", payload={
        "meter": "progressive", "jackpot_cents": jackpot, "winners": winners, "percent": 100, "paid_cents": share,
        "remainder_cents": rest, "reseed_cents": SEED, "value_cents": SEED + rest, "reserve_cents": 0})
    won = with_payload(streak, length=9, ended=True, end_reason="LONGEST", numbers=list(range(1, 10)))

    def change(m, evs):
        if m == n:
            return [won if e.seq == streak.seq else e for e in evs] + [hit]
        return [with_payload(e, value_cents=e.payload["value_cents"] - (jackpot - SEED - rest))
                if m > n and device("meter_increment")(e) else e for e in evs]
    r = judge(ProgressiveMeter, table, change)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)[1] == ("meter_hits", 1, "hits", None, None)


def test_the_meter_of_the_roulette_wagering_device_is_the_one_judged(table):
    def two_systems(events):
        other = dataclasses.replace(next(e for e in events if e.kind == "device_info"), seq=0, device="bj_system",
                                    payload={"meters": [{"name": "other"}]})
        return [other] + events
    r = judge(ProgressiveMeter, table, setup_change=two_systems)
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_the_wagers_placed_in_the_round_a_streak_ends_are_settled_in_it(table):
    n = next(n for n, evs in sorted(table[1].items()) if sum(1 for e in evs if croupier("wager", kind="up")(e)) >= 2)
    placed = [e for e in table[1][n] if croupier("wager", kind="up")(e)]
    streak = _streak(table[1][n])
    assert streak.payload["length"] == 1  # the starting number: box 1
    ended = with_payload(streak, ended=True, end_reason="NOT_GREATER")
    # Progressive Paytable 3, a streak of 1: Loss
    settles = [dataclasses.replace(streak, seq=10**7 + i, kind="up_settle", payload={
        "wager_id": w.payload["wager_id"], "seat": w.payload["seat"], "stake_cents": w.payload["stake_cents"],
        "length": 1, "payout": "Loss", "returned_cents": 0}) for i, w in enumerate(placed)]
    r = judge(UpSettlement, table, in_round(n, lambda evs: [ended if e.seq == streak.seq else e for e in evs]
                                            + settles))
    mine = [f for f in found(r) if f[0] == n]
    assert mine == [] and r.rounds_examined == ROUNDS


def test_each_settlement_finding_names_its_record(table):
    settles = events_of(table[1], croupier("up_settle"))
    n, s = settles[0]
    twice = dataclasses.replace(s, seq=10**7)
    r = judge(UpSettlement, table, in_round(n, lambda evs: evs + [twice]))
    assert found(r) == [(n, twice.seq, f"{s.payload['wager_id']} settled twice")]
    m_on, on = next((m, e) for m, e in events_of(table[1], croupier("streak")) if not e.payload["ended"] and m != n)
    early = dataclasses.replace(s, seq=10**7 + 1)
    r = judge(UpSettlement, table, in_round(m_on, lambda evs: evs + [early]))
    assert found(r)[0] == (m_on, early.seq, f"{s.payload['wager_id']} settled while its streak goes on")
    # a settlement of no wager of the streak before the round's others: they are judged still
    stray = dataclasses.replace(s, seq=10**7 + 2, payload={**s.payload, "wager_id": "x-u1"})
    r = judge(UpSettlement, table, in_round(n, lambda evs: [stray] + evs))
    assert found(r) == [(n, stray.seq, "x-u1 settled but not a wager of this streak")]


def test_each_timing_finding_names_its_round_and_record(table):
    n, w = events_of(table[1], croupier("wager", kind="up"))[0]
    nmb = next(e for e in table[1][n] if croupier("no_more_bets")(e))
    r = judge(UpWagerTiming, table, replace_event(w, with_payload(w, placed_s=nmb.sim_time)))
    assert found(r) == [(n, w.seq, f"Roulette Up wager {w.payload['wager_id']} placed after \"no more bets\"")]
    # two presses dropped in one round: each its finding, at its press
    n2 = next(n for n, evs in sorted(table[1].items()) if sum(1 for e in evs if croupier("wager", kind="up")(e)) >= 2)
    ups = [e for e in table[1][n2] if croupier("wager", kind="up")(e)][:2]
    presses = [next(e for e in table[1][n2] if e.kind == "press" and e.payload["press_id"] == u.payload["press_id"])
               for u in ups]
    r = judge(UpWagerTiming, table, in_round(n2, lambda evs: [e for e in evs if e not in ups]))
    assert found(r) == [(n2, p.seq, f"Roulette Up press {p.payload['press_id']} (seat {p.payload['seat']}) accepted "
                                    "by the device before \"no more bets\" is neither a wager nor refused on record "
                                    "(dropped)") for p in presses]
    # a wager taken while the streak runs, at its record
    n_run = next(m for m, e in events_of(table[1], croupier("streak")) if not e.payload["ended"])
    late = dataclasses.replace(w, seq=10**7, payload={**w.payload, "wager_id": "late-u1"})
    r = judge(UpWagerTiming, table, in_round(n_run + 1, lambda evs: evs + [late]))
    assert [f[:2] for f in found(r) if f[2].startswith("Roulette Up wager late-u1 accepted")] == [(n_run + 1, late.seq)]


def test_a_refusal_as_after_the_starting_number_with_no_streak_names_its_record(table):
    n_end = next(m for m, e in events_of(table[1], croupier("streak")) if e.payload["ended"])
    n = n_end + 1
    w = next(e for e in table[1][n] if croupier("wager", kind="up")(e))
    pid = w.payload["press_id"]
    ref = dataclasses.replace(w, kind="wager_rejected", payload={
        "kind": "up", "seat": w.payload["seat"], "press_id": pid, "stake_cents": w.payload["stake_cents"],
        "reason": "the Roulette Up streak has started (§ 617b.4(d))"})
    r = judge(UpWagerTiming, table, replace_event(w, ref))
    assert (n, w.seq, f"press {pid} refused as after the starting number (§ 617b.4(d)); the streak tracker was "
                      "empty") in found(r)


def test_an_increment_twice_names_the_second(table):
    n, inc = events_of(table[1], device("meter_increment"))[0]
    again = dataclasses.replace(inc, seq=10**7)
    r = judge(ProgressiveMeter, table, in_round(n, lambda evs: evs + [again]))
    assert found(r)[0] == (n, again.seq, f"the meter incremented twice for press {inc.payload['press_id']}")
    assert r.rounds_examined == ROUNDS


def test_a_meter_declaring_a_fraction_of_a_cent_off_the_rows_seed_fails(table):
    # the Seed/Reseed is 10,000 × the 100-cent wager: exactly 1,000,000 cents, not 1,000,000.5 truncated
    r = judge(ProgressiveMeter, table, setup_change=_meter_rates(seed_cents=1000000.5, reseed_cents="1000000.5"))
    assert found(r) == [(0, None, f"the system's meter declares {key} 1000000.5; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) on a 100-cent progressive wager is 1000000")
                        for key in ("seed_cents", "reseed_cents")]
    r = judge(ProgressiveMeter, table, setup_change=_meter_rates(seed_cents="1000000", reseed_cents=1e6))
    assert (r.verdict, r.findings_total) == ("pass", 0)  # the same figure written otherwise
    # a figure that is no number is no row's: a finding, not a check that breaks off
    r = judge(ProgressiveMeter, table, setup_change=_meter_rates(seed_cents="ten", reseed_cents="1/0",
                                                                 reserve_rate=True))
    assert found(r) == [(0, None, "the system's meter declares seed_cents ten; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) on a 100-cent progressive wager is 1000000"),
                        (0, None, "the system's meter declares reseed_cents 1/0; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) on a 100-cent progressive wager is 1000000"),
                        (0, None, "the system's meter declares reserve_rate True; Progressive Paytable 3's row "
                                  "(§ 617b.4(h)(2)) on a 100-cent progressive wager is 1/25")]


# --------------------------------------------------------------------------- each straight finding's record
def test_each_straight_finding_names_its_round_and_record(table):
    rounds = table[1]
    n, c = events_of(rounds, croupier("collect", kind="straight"))[0]
    r = judge(StraightPayouts, table, in_round(n, lambda evs: evs + [dataclasses.replace(c, seq=10**7)]))
    assert found(r) == [(n, 10**7, f"wager {c.payload['wager_id']} settled twice")]
    assert r.rounds_examined == ROUNDS
    stray = dataclasses.replace(c, seq=10**7, payload={**c.payload, "wager_id": "x-1"})
    r = judge(StraightPayouts, table, in_round(n, lambda evs: evs + [stray]))
    assert found(r) == [(n, stray.seq, "x-1 settled but never accepted")]
    w = next(e for e in rounds[n] if croupier("wager")(e) and e.payload["wager_id"] == c.payload["wager_id"])
    end = next(e for e in rounds[n] if croupier("round_end")(e))
    r = judge(StraightPayouts, table, in_round(n, lambda evs: [e for e in evs if e.seq != c.seq]))
    assert found(r) == [(n, w.seq, f"wager {c.payload['wager_id']} never settled")]
    r = judge(StraightPayouts, table, in_round(n, lambda evs: [e for e in evs if not croupier("spin_valid")(e)]))
    assert found(r) == [(n, end.seq, "round settled without a valid spin reported by the wheel")]


def test_every_straight_of_a_round_is_judged_after_one_never_settled(table):
    n, p = events_of(table[1], croupier("pay"))[0]
    c = next(e for e in table[1][n] if croupier("collect", kind="straight")(e) and e.seq < p.seq)
    s = p.payload["stake_cents"]
    r = judge(StraightPayouts, table, in_round(n, lambda evs: [with_payload(e, win_cents=1) if e.seq == p.seq else e
                                                               for e in evs if e.seq != c.seq]))
    assert [m for _, _, m in found(r)] == [
        f"wager {c.payload['wager_id']} never settled",
        f"{p.payload['wager_id']}: {s} on {p.payload['number']} won at 30 to 1 = {30 * s}; paid 1 (30 to 1)"]


def test_a_validated_spin_with_no_ball_reported_before_it_has_no_valid_ball(table):
    n, ball = events_of(table[1], device("ball_result"))[0]
    assert valid_ball(RoundView.of(n, [e for e in table[1][n] if e.seq != ball.seq])) is None


# --------------------------------------------------------------------------- what a Roulette Up press is
def test_only_roulette_up_presses_wagers_and_refusals_answer_a_roulette_up_press(table):
    n, ref = next((n, e) for n, e in events_of(table[1], croupier("wager_rejected", kind="up"))
                  if "617b.4(d)" in e.payload["reason"])
    pid = ref.payload["press_id"]
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    dropped = [(n, press.seq, f"Roulette Up press {pid} (seat {press.payload['seat']}) accepted by the device before "
                              "\"no more bets\" is neither a wager nor refused on record (dropped)")]
    # a refusal of another kind is no answer to a Roulette Up press
    r = judge(UpWagerTiming, table, replace_event(ref, with_payload(ref, kind="straight")))
    assert found(r) == dropped
    # nor is a wager of another kind on that press
    straight = dataclasses.replace(ref, kind="wager", payload={
        "wager_id": "x-s1", "kind": "straight", "seat": press.payload["seat"], "number": 7, "press_id": pid,
        "stake_cents": 100, "placed_s": press.payload["device_time_s"]})
    r = judge(UpWagerTiming, table, replace_event(ref, straight))
    assert found(r) == dropped
    # a press of another spot is owed no Roulette Up answer
    other = with_payload(press, spot="straight")
    r = judge(UpWagerTiming, table, lambda m, evs: [other if e.seq == press.seq else e for e in evs
                                                    if e.seq != ref.seq])
    assert (r.verdict, r.findings_total) == ("pass", 0)
