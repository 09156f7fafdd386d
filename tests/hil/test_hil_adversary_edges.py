"""The late-bet adversary's check at a table with a wagering device (``LateBets._presses``), judged
on hand-made rounds that put an attempt on each side of every edge the check draws: "no more bets"
with and without the clock's uncertainty, the device's lock-out command stamp (found within its
uncertainty, a stale one ignored), the lock edge (budget or first locked-out refusal, to the
nanosecond), the lock-out acknowledgement, and what the croupier and the meter did with each press.
Every measurement of the check is pinned, and every finding to its round, event and words.

The times are chosen so that each comparison is decided by its own attempt; the uncertainties of
the clock map (0.3 ms) and of the wager decision (0.5 ms) differ, so that one used for the other
shows."""

from __future__ import annotations

import pytest

from hil.checks.adversary import TIME_RESOLUTION_S, CrazyTimeLateBets, RouletteLateBets, UthLateBets
from hil.checks.base import CheckConfig, RoundView
from hil.trace import Event

NMB = 15.0
BUDGET = 0.010
U = 0.0003  # the wagering device's clock-map uncertainty
UW = 0.0005  # the uncertainty its wagers are decided with


class Round:
    """One round's events, numbered from ``seq0`` (so that findings name their event)."""

    def __init__(self, n: int, seq0: int, nmb: float | None = NMB) -> None:
        self.n, self.seq, self.events = n, seq0, []
        if nmb is not None:
            self.ev("croupier", "no_more_bets", {}, nmb)

    def ev(self, device: str, kind: str, payload: dict, t: float) -> Event:
        self.seq += 1
        e = Event(self.seq, self.n, t, 0, device, kind, payload)
        self.events.append(e)
        return e

    def command(self, t: float, ack: float | None = None) -> None:
        self.ev("wagering", "lockout_command", {"device_time_s": t, **({"command_hi_s": ack} if ack else {})}, t)

    def attempt(self, pid: int, t: float | None, accepted: bool = True, reason: str | None = None, *,
                croupier: str | None = None, meter: bool = False, answer: dict | None = None) -> Event | None:
        """An adversary attempt answered with press ``pid``; the device's report of it at ``t`` (None:
        never reported); ``croupier`` "wager" or a rejection reason; ``meter``: an increment for it."""
        a = f"{self.n}-{pid}"
        self.ev("adversary", "adversary_attempt", {"attempt": a, "via": "injection", "seat": 6, "spot": "1"}, t or NMB)
        self.ev("adversary", "adversary_answer", answer or {"attempt": a, "press_id": pid}, t or NMB)
        if t is None:
            return None
        press = self.ev("wagering", "press", {"press_id": pid, "seat": 6, "spot": "1", "stake_cents": 100,
                                              "accepted": accepted, "device_time_s": t, "reason": reason}, t)
        if croupier == "wager":
            self.ev("croupier", "wager", {"wager_id": f"W{pid}", "press_id": pid, "seat": 6}, t + 1)
        elif croupier is not None:
            self.ev("croupier", "wager_rejected", {"press_id": pid, "reason": croupier, "kind": "press"}, t + 1)
        if meter:
            self.ev("progressive", "meter_increment", {"press_id": pid, "cents": 18}, t + 1)
        return press

    def view(self, u: dict[str, float], uw: dict[str, float] | None) -> RoundView:
        rv = RoundView.of(self.n, self.events)
        rv.clock_uncertainty_s, rv.wager_clock_uncertainty_s = u, uw
        return rv


def judge(rounds: list[tuple[Round, dict, dict | None]], check=CrazyTimeLateBets):
    c = check(CheckConfig(lockout_budget_s=BUDGET))
    for r, u, uw in rounds:
        c.observe(r.view(u, uw))
    res = c.result()
    return res, {m.name: m.value for m in res.measurements}, [(f.round, f.seq, f.message) for f in res.findings]


def _ms(x: float) -> float:
    return round(x * 1e3, 6)


# ------------------------------------------------------------------ the whole picture, pinned
def golden():
    """Round 1: every kind of attempt around a command at 15.002 s (acknowledged at 15.0025 s, edge
    15.012 s). Round 2: no command of this round (a stale one at 14.5 s, no uncertainty declared),
    a press matched through the actuator's record, one accepted late (unjudged). Round 3: the command
    stamped 0.5 ms before "no more bets", found within its 0.6 ms uncertainty. Round 4: no "no more
    bets" at all."""
    marks = {}
    r1 = Round(1, 100)
    r1.command(15.002, ack=15.0025)
    r1.attempt(1, 14.990, croupier="wager")  # on time
    r1.attempt(2, 14.995, croupier="wager")  # on time
    marks["straddle"] = r1.attempt(3, 14.9998, croupier="wager")  # inside UW of nmb: straddling, the croupier's call
    r1.attempt(4, 15.001, croupier="late")  # after nmb, before the command: refused by the croupier
    r1.attempt(5, 15.0012, croupier="late")  # again (counters must count, not be set)
    r1.ev("wagering", "press", {"press_id": 40, "seat": 2, "spot": "2", "stake_cents": 100, "accepted": False,
                                "device_time_s": 15.003, "reason": "over_limit"}, 15.003)  # no locked-out refusal
    r1.attempt(6, 15.005)  # inside the latency, after the ack (2.5 ms)
    marks["meter"] = r1.attempt(7, 15.008, meter=True)  # inside, after the ack (5.5 ms): a meter increment
    r1.attempt(8, 15.0115)  # inside (t - U < edge), after the ack: the widest window, 9.0 ms
    marks["late_wager"] = r1.attempt(9, 15.013, croupier="wager")  # after the edge, and a wager
    r1.attempt(10, 15.014, False, "locked_out")  # refused: the first locked-out refusal, after the edge
    r1.attempt(11, 15.016, False, "locked_out")
    r1.attempt(12, None)  # never reported by the device: unregistered
    r2 = Round(2, 200)
    r2.command(14.5)  # the last round's, never this one's
    r2.ev("actuator", "actuation", {"actuation_id": 5, "seat": 6, "spot": "1", "coil": 6, "purpose": "player",
                                    "closed_lo_s": 14.979, "closed_hi_s": 14.981, "ok": True}, 14.981)
    r2.attempt(21, 14.982, answer={"attempt": "2-21", "actuation_id": 5})  # matched through the actuator
    marks["unjudged"] = r2.attempt(22, 15.004)  # accepted after nmb, no command: unjudged
    r2.attempt(23, 15.006, False, "locked_out")
    r3 = Round(3, 300)
    r3.command(14.9995)  # 0.5 ms early, 0.6 ms uncertain: this round's command
    r3.attempt(31, 15.0001)  # after nmb, after the command: inside the latency (and within UW: straddling)
    r4 = Round(4, 400, nmb=None)
    r4.attempt(41, 15.0)  # no "no more bets": on time by definition
    r5 = Round(5, 500)  # round 1 again in part: each counter counts past one, the widest window is kept
    r5.command(15.002, ack=15.0025)
    r5.attempt(51, None)  # unregistered, first: the attempts after it are judged all the same
    r5.attempt(52, 14.9997, croupier="wager")  # straddling, the croupier's call
    marks["late_wager_2"] = r5.attempt(53, 15.0125, croupier="wager")  # past the edge by 0.2 ms more than U
    r5.attempt(54, 15.004)  # after the ack by 1.5 ms: the widest (10.5 ms, round 1) stays
    r6 = Round(6, 600)  # a command sooner after "no more bets" than round 1's: the longest (2 ms) stays
    r6.command(15.001)
    r6.attempt(61, 14.99)
    rounds = [(r1, {"wagering": U}, {"wagering": UW}), (r2, {}, None),
              (r3, {"wagering": 0.0006}, {"wagering": 0.0006}), (r4, {"wagering": U}, None),
              (r5, {"wagering": U}, {"wagering": UW}), (r6, {"wagering": U}, None)]
    return rounds, marks


def test_every_measurement_of_the_whole_picture():
    rounds, _ = golden()
    res, m, _ = judge(rounds)
    assert res.verdict == "fail" and res.rounds_examined == 6 and res.findings_total == 5
    assert {k: (_ms(v) if isinstance(v, float) else v) for k, v in m.items()} == {
        "attempts": 22,  # 12 + 3 + 1 + 1 + 4 + 1 (round 2's through the actuator among its 3)
        "attempts_answered": 20,
        "attempts_unregistered": 2,  # 12, 51
        "attempts_unsent": 0,
        "accepted_before_no_more_bets": 5,  # 1, 2, 21, 41, 61
        "refused": 3,  # 10, 11, 23
        "attempts_after_no_more_bets": 15,  # 3..11 (9), 22, 23, 31, 52, 53, 54
        "accepted_after_no_more_bets": 12,  # 3, 4, 5, 6, 7, 8, 9, 22, 31, 52, 53, 54
        "accepted_after_lock_edge": 2,  # 9, 53
        "accepted_before_device_lockout_command": 4,  # 3, 4, 5, 52
        "accepted_inside_latency": 5,  # 6, 7, 8, 31, 54
        "accepted_after_lockout_ack": 6,  # 6, 7, 8, 9, 53, 54
        "widest_window": 10.5,  # press 9, 15.013 - 15.0025
        "latest_accepted_after_no_more_bets": 13.0,  # press 9
        "accepted_within_clock_uncertainty_of_no_more_bets": 3,  # 3, 52 (UW 0.5 ms), 31 (0.6 ms)
        "lockout_command_after_no_more_bets_max": 2.0,
        "rounds_without_lockout_command": 2,  # rounds 2 and 4
        "accepted_unjudged": 1,  # 22
        "became_wagers": 2,  # 9, 53
        "meter_increments": 1,  # 7
        "croupier wager": 2,
        "croupier wager (within the clock's uncertainty)": 2,  # 3, 52
        "croupier refused: late": 2,
        "croupier no record": 6,  # 6, 7, 8, 22, 31, 54
        "device refused: locked_out": 3,
    }
    units = {x.name: (x.unit, x.limit) for x in res.measurements}
    judged = {"accepted_after_lock_edge", "accepted_unjudged", "became_wagers", "meter_increments"}
    seconds = {"widest_window", "latest_accepted_after_no_more_bets", "lockout_command_after_no_more_bets_max"}
    assert units == {k: ("s" if k in seconds else "rounds" if k == "rounds_without_lockout_command" else "attempts",
                         "== 0" if k in judged else None) for k in m}


def test_every_finding_of_the_whole_picture():
    rounds, marks = golden()
    res, _, findings = judge(rounds)

    def wager(r, pid):
        return next(e for e in r.events if e.kind == "wager" and e.payload["press_id"] == pid)
    assert findings == [
        (1, marks["meter"].seq, 'attempt 1-7: press 7, accepted 8.000 ms after "no more bets", incremented a '
                                "progressive meter"),
        (1, marks["late_wager"].seq, "attempt 1-9: press 9 accepted by the device 11.000 ms after the device "
                                     "received the lock-out command (budget 10.000 ms)"),
        (1, wager(rounds[0][0], 9).seq, 'attempt 1-9: press 9, accepted by the device 13.000 ms after "no more bets", '
                                        "became W9"),
        (5, marks["late_wager_2"].seq, "attempt 5-53: press 53 accepted by the device 10.500 ms after the device "
                                       "received the lock-out command (budget 10.000 ms)"),
        (5, wager(rounds[4][0], 53).seq, 'attempt 5-53: press 53, accepted by the device 12.500 ms after "no more '
                                         'bets", became W53'),
    ]
    assert res.summary == ("5 finding(s) in 22 adversary attempts: 2 accepted after the device's lock edge, 2 late "
                           "attempt(s) taken as wagers, 1 meter increment(s)")


def test_an_answer_naming_its_press_is_taken_at_its_word_over_an_unmatched_actuation():
    r = Round(1, 0)
    r.command(15.002)
    r.ev("actuator", "actuation", {"actuation_id": 5, "seat": 3, "spot": "1", "coil": 3, "purpose": "player",
                                   "closed_lo_s": 14.0, "closed_hi_s": 14.001, "ok": True}, 14.001)
    r.attempt(1, 14.99, answer={"attempt": "1-1", "press_id": 1, "actuation_id": 5})
    _, m, _ = judge([(r, {}, None)])
    assert (m["attempts_answered"], m["attempts_unregistered"], m["accepted_before_no_more_bets"]) == (1, 0, 1)


def test_a_command_without_its_stamp_is_read_at_its_trace_time():
    r = Round(1, 0)
    r.ev("wagering", "lockout_command", {}, 15.002)
    r.attempt(1, 15.013)
    res, m, findings = judge([(r, {}, None)])
    assert (res.verdict, m["rounds_without_lockout_command"], m["accepted_after_lock_edge"]) == ("fail", 0, 1)
    assert findings[0][2].endswith("11.000 ms after the device received the lock-out command (budget 10.000 ms)")


# ------------------------------------------------------------------ each edge, one attempt each side
def one(pid_t: list[tuple], *, command: float | None = 15.002, ack: float | None = None, u: float = 0.0,
        uw: float | None = None, check=CrazyTimeLateBets):
    r = Round(1, 0)
    if command is not None:
        r.command(command, ack)
    for spec in pid_t:
        r.attempt(*spec[:4], **(spec[4] if len(spec) > 4 else {}))
    return judge([(r, {"wagering": u}, None if uw is None else {"wagering": uw})], check)


def test_a_press_stamped_exactly_at_no_more_bets_is_late_and_after_it():
    res, m, _ = one([(1, NMB)])
    assert (m["attempts_after_no_more_bets"], m["accepted_before_no_more_bets"], m["accepted_after_no_more_bets"],
            m["accepted_within_clock_uncertainty_of_no_more_bets"], m["latest_accepted_after_no_more_bets"]) == \
        (1, 0, 1, 0, 0.0)
    assert res.verdict == "pass"


def test_a_press_just_inside_the_wager_uncertainty_before_no_more_bets_is_not_provably_on_time():
    _, m, _ = one([(1, NMB - 0.0004, True, None, {"croupier": "wager"})], uw=UW)
    assert (m["attempts_after_no_more_bets"], m["accepted_before_no_more_bets"],
            m["accepted_within_clock_uncertainty_of_no_more_bets"], m["became_wagers"]) == (1, 0, 1, 0)
    assert m["croupier wager (within the clock's uncertainty)"] == 1
    _, m, _ = one([(1, NMB - 0.0006, True, None, {"croupier": "wager"})], uw=UW)  # outside it: on time
    assert (m["attempts_after_no_more_bets"], m["accepted_before_no_more_bets"]) == (0, 1)


def test_a_press_one_uncertainty_after_no_more_bets_is_provably_late():
    res, m, findings = one([(1, NMB + UW, True, None, {"croupier": "wager"})], uw=UW)
    assert (m["accepted_within_clock_uncertainty_of_no_more_bets"], m["became_wagers"]) == (0, 1)
    assert res.verdict == "fail" and "became W1" in findings[0][2]


def test_the_lock_edge_is_the_budget_to_the_nanosecond():
    edge = 15.002 + BUDGET
    _, m, _ = one([(1, edge)])
    assert (m["accepted_after_lock_edge"], m["accepted_inside_latency"]) == (0, 1)
    _, m, _ = one([(1, edge + TIME_RESOLUTION_S)])
    assert (m["accepted_after_lock_edge"], m["accepted_inside_latency"]) == (0, 1)
    res, m, findings = one([(1, edge + 2 * TIME_RESOLUTION_S)])
    assert (m["accepted_after_lock_edge"], m["accepted_inside_latency"], res.verdict) == (1, 0, "fail")
    assert findings[0][2].endswith("10.000 ms after the device received the lock-out command (budget 10.000 ms)")


def test_the_clock_uncertainty_is_given_to_the_device_at_the_edge():
    edge = 15.002 + BUDGET
    _, m, _ = one([(1, edge + 0.0002)], u=U)  # within U past the edge: not provably after it
    assert (m["accepted_after_lock_edge"], m["accepted_inside_latency"]) == (0, 1)
    _, m, _ = one([(1, edge + 0.0004)], u=U)
    assert m["accepted_after_lock_edge"] == 1


def test_the_first_locked_out_refusal_draws_the_edge_and_no_other_refusal_does():
    # a refusal for another reason is no edge: the press 3 ms after the command is inside the latency
    res, m, _ = one([(1, 15.003, False, "over_limit"), (2, 15.005)])
    assert (res.verdict, m["accepted_inside_latency"], m["device refused: over_limit"]) == ("pass", 1, 1)
    # a locked-out refusal stamped exactly at the command is the edge: a press 1 ms later is past it
    res, m, findings = one([(1, 15.002, False, "locked_out"), (2, 15.003)])
    assert (res.verdict, m["accepted_after_lock_edge"]) == ("fail", 1)
    assert findings[0][2] == ("attempt 1-2: press 2 accepted by the device 1.000 ms after the device's first "
                              "refusal as locked out")
    # a locked-out refusal before the command is no edge of it
    res, m, _ = one([(1, 15.001, False, "locked_out"), (2, 15.003)])
    assert (res.verdict, m["accepted_after_lock_edge"], m["accepted_inside_latency"]) == ("pass", 0, 1)


def test_a_press_after_the_budget_and_at_a_later_refusal_is_judged_by_the_budget():
    res, _, findings = one([(1, 15.013, False, "locked_out"), (2, 15.013)])
    assert res.verdict == "fail"
    assert findings[0][2].endswith("11.000 ms after the device received the lock-out command (budget 10.000 ms)")


def test_a_press_at_the_command_stamp_is_inside_the_latency():
    _, m, _ = one([(1, 15.002), (2, 15.0019)])
    assert (m["accepted_inside_latency"], m["accepted_before_device_lockout_command"]) == (1, 1)


def test_the_acknowledgement_window_counts_only_presses_provably_after_it():
    _, m, _ = one([(1, 15.003), (2, 15.0031), (3, 15.006)], ack=15.003, u=0.0002)
    assert m["accepted_after_lockout_ack"] == 1 and _ms(m["widest_window"]) == 3.0  # 15.0031: within U of it
    _, m, _ = one([(1, 15.004)], ack=None)  # no acknowledgement: the command stamp is the rig's
    assert m["accepted_after_lockout_ack"] == 1 and _ms(m["widest_window"]) == 2.0


@pytest.mark.parametrize("stamp, found", [(NMB - 0.0006, True), (NMB - 0.0008, False)])
def test_this_round_s_command_is_found_within_its_uncertainty_of_no_more_bets(stamp, found):
    _, m, _ = one([(1, 15.005)], command=stamp, u=0.0007)
    assert m["rounds_without_lockout_command"] == (0 if found else 1)
    assert m["accepted_unjudged"] == (0 if found else 1)


def test_a_command_one_resolution_before_no_more_bets_is_this_round_s():
    stamp = NMB - TIME_RESOLUTION_S
    assert stamp + 0.0 + TIME_RESOLUTION_S >= NMB  # the comparison the check makes, exactly
    res, m, _ = one([(1, 15.005)], command=stamp)
    assert (m["rounds_without_lockout_command"], m["accepted_unjudged"], m["accepted_inside_latency"]) == (0, 0, 1)
    assert _ms(m["lockout_command_after_no_more_bets_max"]) == -0.000001 and res.verdict == "pass"


def test_a_round_without_its_command_leaves_late_presses_unjudged_and_says_so():
    res, m, findings = one([(1, 15.004), (2, 15.005)], command=14.5)
    assert res.verdict == "indeterminate" and findings == []
    assert res.summary == ('2 adversary press(es) accepted after "no more bets" in 1 round(s) without the '
                           "device's lock-out command: no lock edge to judge them by")
    assert m["lockout_command_after_no_more_bets_max"] is None


def test_the_pass_summary_names_the_figures():
    res, m, _ = one([(1, 14.99), (2, 15.004), (3, 15.013, False, "locked_out")], ack=15.0025)
    assert res.verdict == "pass"
    assert res.summary == ('3 adversary attempts in 1 rounds: 2 registered at or after "no more bets", 1 of them '
                           "accepted by the device (1 inside the lock-out latency), the latest 1.500 ms after the rig "
                           "had the lock-out acknowledged; none accepted after the lock edge, none a wager")


def test_the_roulette_meter_is_judged_as_the_wheel_s_presses_are():
    res, m, findings = one([(1, 15.004, True, None, {"meter": True}), (2, 15.005, True, None, {"meter": True})],
                           check=RouletteLateBets)
    assert (res.verdict, m["meter_increments"], len(findings)) == ("fail", 2, 2)
    assert res.id == "RU-617b.4c2-late-bets"


# ------------------------------------------------------------------ a card table: the layout's chips and requests
def layout_round(n: int, seq0: int, chips: list[tuple], nmb: float | None = NMB) -> Round:
    """Chips (``via`` chips: seat 6, spot, placed at ``t``, the croupier's record "wager" / a rejection
    reason / None) and Crazy 4 requests (``via`` request: the croupier's ``wager_accepted`` /
    ``wager_refused`` of the request the answer names, or no answer)."""
    r = Round(n, seq0, nmb)
    for k, (via, spot, t, record) in enumerate(chips, 1):
        a = f"{n}-{k}"
        if via == "chips":
            r.ev("adversary", "adversary_attempt", {"attempt": a, "via": "chips", "seat": 6, "spot": spot,
                                                    "sent_s": t - 0.0005, "placed_s": t}, t)  # placed: the time
            if record == "wager":
                r.ev("croupier", "wager", {"seat": 6, "wager": spot, "placed_s": t}, t + 1)
            elif record is not None:
                r.ev("croupier", "wager_rejected", {"seat": 6, "wager": spot, "placed_s": t, "reason": record}, t + 1)
        else:
            r.ev("adversary", "adversary_attempt", {"attempt": a, "via": "request", "seat": 6, "spot": spot,
                                                    "sent_s": t}, t)
            if record is None:
                continue
            rid = f"{n}-r{k}"
            r.ev("croupier", "wager_accepted" if record == "wager" else "wager_refused",
                 {"request_id": rid, "reason": None if record == "wager" else record}, t)
            r.ev("adversary", "adversary_answer", {"attempt": a, "request_id": rid}, t)
    return r


def test_every_measurement_and_finding_of_a_card_table():
    r1 = layout_round(1, 100, [
        ("chips", "trips", 14.99, "wager"), ("chips", "trips", 14.995, "wager"),  # on time
        ("chips", "trips", 14.999, None),  # no record of it: unregistered, early in the round
        ("chips", "trips", 14.998, "late"),  # refused before nmb: refused, no decision counted
        ("chips", "trips", NMB, "late"), ("chips", "trips", 15.002, "late"),  # at and after nmb: refused late
        ("chips", "pairs", 15.001, "wager"), ("chips", "trips", 15.003, "wager"),  # after nmb and taken
        ("chips", "pairs", 15.004, None)])
    r2 = layout_round(2, 200, [
        ("request", "ante", 14.99, "wager"), ("request", "super_bonus", 15.0005, "wager"),
        ("request", "ante", 15.001, "not_open"), ("request", "ante", 15.002, None)])
    r3 = layout_round(3, 300, [("chips", "trips", 15.0, "wager")], nmb=None)  # no "no more bets": all late
    res, m, findings = judge([(r1, {}, None), (r2, {}, None), (r3, {}, None)], UthLateBets)
    assert res.verdict == "fail" and res.findings_total == 4 and res.rounds_examined == 3
    assert {k: (_ms(v) if isinstance(v, float) else v) for k, v in m.items()} == {
        "attempts": 14, "attempts_answered": 11, "attempts_unregistered": 3, "attempts_unsent": 0,
        "accepted_before_no_more_bets": 3, "refused": 4, "attempts_after_no_more_bets": 7,
        "accepted_after_no_more_bets": 4, "accepted_after_lock_edge": 0,
        "accepted_before_device_lockout_command": 0, "accepted_inside_latency": 0, "accepted_after_lockout_ack": 0,
        "widest_window": None, "latest_accepted_after_no_more_bets": 3.0,
        "accepted_within_clock_uncertainty_of_no_more_bets": 0, "lockout_command_after_no_more_bets_max": None,
        "rounds_without_lockout_command": 0, "accepted_unjudged": 0, "became_wagers": 4, "meter_increments": 0,
        "croupier refused: late": 2, "croupier refused: not_open": 1, "croupier wager": 4}
    wagers = {(e.payload.get("wager"), e.payload.get("placed_s")): e.seq for e in r1.events if e.kind == "wager"}
    accepted = [e.seq for e in r2.events if e.kind == "wager_accepted"]
    r3_wager = next(e.seq for e in r3.events if e.kind == "wager")
    assert findings == [
        (1, wagers[("pairs", 15.001)], 'attempt 1-7: pairs placed 1.000 ms after "no more bets" (or with none '
                                       "announced) was taken as a wager"),
        (1, wagers[("trips", 15.003)], 'attempt 1-8: trips placed 3.000 ms after "no more bets" (or with none '
                                       "announced) was taken as a wager"),
        (2, accepted[1], 'attempt 2-2: super_bonus placed 0.500 ms after "no more bets" (or with none announced) '
                         "was taken as a wager"),
        (3, r3_wager, 'attempt 3-1: trips placed 0.000 ms after "no more bets" (or with none announced) was taken '
                      "as a wager"),
    ]


def test_a_card_table_that_refuses_every_late_chip_passes_with_its_own_words():
    r = layout_round(1, 0, [("chips", "trips", 14.99, "wager"), ("chips", "trips", NMB, "late"),
                            ("request", "ante", 15.001, "not_open")])
    res, m, findings = judge([(r, {}, None)], UthLateBets)
    assert (res.verdict, findings, m["attempts_after_no_more_bets"], m["refused"]) == ("pass", [], 2, 2)
    assert res.summary == ('3 adversary attempts in 1 rounds: 2 placed at or after "no more bets", every one '
                           "refused; none taken as a wager")


def test_a_chip_is_matched_to_its_record_by_seat_spot_and_time():
    r = layout_round(1, 0, [("chips", "trips", 15.001, None)])
    r.ev("croupier", "wager", {"seat": 6, "wager": "pairs", "placed_s": 15.001}, 16.0)  # another spot
    r.ev("croupier", "wager", {"seat": 5, "wager": "trips", "placed_s": 15.001}, 16.0)  # another seat
    r.ev("croupier", "wager", {"seat": 6, "wager": "trips", "placed_s": 15.0011}, 16.0)  # another chip
    r.ev("croupier", "wager", {"seat": 6, "wager": "trips"}, 16.0)  # no time: no chip of the adversary's
    res, m, _ = judge([(r, {}, None)], UthLateBets)
    assert (res.verdict, m["attempts_unregistered"], m["became_wagers"]) == ("indeterminate", 1, 0)


def test_the_summaries_without_a_window_or_without_an_adversary():
    res, _, _ = one([(1, 14.99), (2, 15.001)])
    assert res.verdict == "pass"
    assert res.summary == ('2 adversary attempts in 1 rounds: 1 registered at or after "no more bets", 1 of them '
                           "accepted by the device (0 inside the lock-out latency); none accepted after the lock edge, "
                           "none a wager")
    res, m, _ = judge([(Round(1, 0), {}, None)])
    assert (res.verdict, res.summary, m["attempts"]) == (
        "indeterminate", "no late-bet adversary in this trace (scenario section adversary)", 0)


def test_a_request_the_adversary_reports_lost_is_unregistered_whatever_else_the_croupier_recorded():
    r = layout_round(1, 0, [("request", "ante", 15.001, None)])
    r.ev("adversary", "adversary_answer", {"attempt": "1-1", "lost": "the table did not answer"}, 15.001)
    r.ev("croupier", "round_end", {"round": 1}, 16.0)  # a record of the croupier's with no request id
    res, m, _ = judge([(r, {}, None)], UthLateBets)
    assert (res.verdict, m["attempts_unregistered"], m["refused"], m["attempts_answered"]) == ("indeterminate", 1, 0, 0)
