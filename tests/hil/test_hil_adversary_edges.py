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

from hil.checks.adversary import TIME_RESOLUTION_S, CrazyTimeLateBets, RouletteLateBets
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
    rounds = [(r1, {"wagering": U}, {"wagering": UW}), (r2, {}, None),
              (r3, {"wagering": 0.0006}, {"wagering": 0.0006}), (r4, {"wagering": U}, None)]
    return rounds, marks


def test_every_measurement_of_the_whole_picture():
    rounds, _ = golden()
    res, m, _ = judge(rounds)
    assert res.verdict == "fail" and res.rounds_examined == 4 and res.findings_total == 3
    assert {k: (_ms(v) if isinstance(v, float) else v) for k, v in m.items()} == {
        "attempts": 17,  # 12 + 3 + 1 + 1 (round 2's through the actuator among its 3)
        "attempts_answered": 16,
        "attempts_unregistered": 1,
        "attempts_unsent": 0,
        "accepted_before_no_more_bets": 4,  # 1, 2, 21, 41
        "refused": 3,  # 10, 11, 23
        "attempts_after_no_more_bets": 12,  # 3..11 (9), 22, 23, 31
        "accepted_after_no_more_bets": 9,  # 3, 4, 5, 6, 7, 8, 9, 22, 31
        "accepted_after_lock_edge": 1,  # 9
        "accepted_before_device_lockout_command": 3,  # 3, 4, 5
        "accepted_inside_latency": 4,  # 6, 7, 8, 31
        "accepted_after_lockout_ack": 4,  # 6, 7, 8, 9
        "widest_window": 10.5,  # press 9, 15.013 - 15.0025
        "latest_accepted_after_no_more_bets": 13.0,  # press 9
        "accepted_within_clock_uncertainty_of_no_more_bets": 2,  # 3 (UW 0.5 ms), 31 (0.6 ms)
        "lockout_command_after_no_more_bets_max": 2.0,
        "rounds_without_lockout_command": 2,  # rounds 2 and 4
        "accepted_unjudged": 1,  # 22
        "became_wagers": 1,  # 9
        "meter_increments": 1,  # 7
        "croupier wager": 1,
        "croupier wager (within the clock's uncertainty)": 1,
        "croupier refused: late": 2,
        "croupier no record": 5,  # 6, 7, 8, 22, 31
        "device refused: locked_out": 3,
    }


def test_every_finding_of_the_whole_picture():
    rounds, marks = golden()
    res, _, findings = judge(rounds)
    wager9 = next(e for e in rounds[0][0].events if e.kind == "wager" and e.payload["press_id"] == 9)
    assert findings == [
        (1, marks["meter"].seq, 'attempt 1-7: press 7, accepted 8.000 ms after "no more bets", incremented a '
                                "progressive meter"),
        (1, marks["late_wager"].seq, "attempt 1-9: press 9 accepted by the device 11.000 ms after the device "
                                     "received the lock-out command (budget 10.000 ms)"),
        (1, wager9.seq, 'attempt 1-9: press 9, accepted by the device 13.000 ms after "no more bets", became W9'),
    ]
    assert res.summary == ("3 finding(s) in 17 adversary attempts: 1 accepted after the device's lock edge, 1 late "
                           "attempt(s) taken as wagers, 1 meter increment(s)")


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
