"""The Crazy Time base game's checks (``hil.checks.crazy_time``: layout, "no more bets", three
revolutions, the clapper's selection, between sections, the Top Slot, settlement, betting areas,
limits, lock-out, section uniformity) on rounds built by hand, each judged by its check alone.

For each check a "golden picture" pins every measurement (value, unit, limit) and every finding
(round, event seq, words), and each threshold the check draws is crossed by one round on each side
of it (3 revolutions, index pulses floor(R) or floor(R) + 1, section 0..53, the Top Slot start
tolerance with the clocks' uncertainty, the minimum and maximum wager, the payout limit per round,
the lock-out budget with ``BUDGET_TOLERANCE_S``, the χ² test's minimum spins and per-direction
share). The rounds' times are chosen so that each comparison is decided by its own round."""

from __future__ import annotations

import math

from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.crazy_time import (BetweenSections, BettingAreas, Layout, Lockout, NoMoreBets, ResultEvidence,
                                   SectionUniformity, SettlementCheck, ThreeRevolutions, TopSlotCheck, WagerLimits,
                                   outcome_m)
from hil.runner import load_rules
from hil.trace import Event
from rules.crazy_time import WHEEL_SECTIONS, Spot, layout_deviations

RULES = load_rules().submission
RULES_JSON = RULES.model_dump(mode="json", by_alias=True)
LAYOUT = [str(s) for s in WHEEL_SECTIONS]
SPOT_LIST = "1, 2, 5, 10, coin-flip, cash-hunt, pachinko, crazy-time"
REELS = {"reel1": ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"],
         "reel2": [1, 2, 3, 4, 5, 7, 10, 15, 20]}


class R:
    """One round's events, numbered from ``100 * n`` so that a finding names its event."""

    def __init__(self, n: int, seq0: int | None = None) -> None:
        self.n, self.seq, self.events = n, 100 * n if seq0 is None else seq0, []
        self.u: dict[str, float] = {}

    def ev(self, device: str, kind: str, payload: dict | None = None, t: float = 0.0) -> Event:
        self.seq += 1
        e = Event(self.seq, self.n, t, 0, device, kind, {} if payload is None else payload)
        self.events.append(e)
        return e

    def press(self, pid: int, spot: str = "1", stake: int = 100, seat: int = 1, t: float = 10.0,
              accepted: bool = True, reason: str | None = None) -> Event:
        return self.ev("wagering", "press", {"press_id": pid, "seat": seat, "spot": spot, "stake_cents": stake,
                                             "accepted": accepted, "device_time_s": t, "reason": reason}, t)

    def nmb(self, t: float = 20.0) -> Event:
        return self.ev("croupier", "no_more_bets", {}, t)

    def spin(self, t: float = 30.0, *, spot: str = "1", idx: int = 0, revs: float = 4.5, pulses: int = 4,
             direction: str | None = "cw", on_peg: bool = False, top=("1", 1, False), top_off: float = 0.0,
             steps=(9, 9), outcome: str | None = "spin_valid", reason: str | None = None, start: bool = True,
             stop: bool = True, top_slot: bool = True, stop_payload: dict | None = None) -> dict[str, Event]:
        """One push: the croupier's command, the wheel's start, the Top Slot's start (``top_off`` s
        after the wheel's, on its own clock), index pulses, the Top Slot's and the wheel's stops and
        the croupier's outcome."""
        e = {"command": self.ev("croupier", "spin_command", {"attempt": 1}, t)}
        if start:
            e["start"] = self.ev("wheel", "spin_start", {"device_time_s": t + 0.5}, t + 0.5)
        if top_slot:
            e["top_start"] = self.ev("top_slot", "top_slot_start", {"device_time_s": t + 0.5 + top_off}, t + 0.5)
        for k in range(pulses):
            self.ev("wheel", "index_pulse", {"count": k + 1}, t + 1 + k)
        if top_slot:
            e["top_stop"] = self.ev("top_slot", "top_slot_stop", {
                "spot": top[0], "multiplier": top[1], "aligned": top[2], "reel1_steps": steps[0],
                "reel2_steps": steps[1]}, t + 5)
        if stop:
            pl = {"section_index": idx, "spot": spot, "on_peg": on_peg, "revolutions": revs}
            if direction is not None:
                pl["direction"] = direction
            e["stop"] = self.ev("wheel", "spin_stop", pl if stop_payload is None else stop_payload, t + 10)
        if outcome is not None:
            e["outcome"] = self.ev("croupier", outcome, {"attempt": 1, "reason": reason}, t + 10.5)
        return e

    def end(self, result: str | None = "1", void: bool = False, reason: str | None = None, t: float = 60.0) -> Event:
        return self.ev("croupier", "round_end", {"round": self.n, "void": void, "result": result, "reason": reason}, t)

    def view(self) -> RoundView:
        rv = RoundView.of(self.n, self.events)
        rv.clock_uncertainty_s = dict(self.u)
        return rv


def judge(cls, rounds, bench: BenchView | None = None, config: CheckConfig = CheckConfig()):
    """(result, {measurement: (value, unit, bracket, limit)}, [(round, seq, words)]) of ``cls`` over ``rounds``."""
    c = cls(config)
    c.setup(bench or BenchView())
    for r in rounds:
        c.observe(r.view() if isinstance(r, R) else r)
    res = c.result()
    assert res.rounds_examined == len(rounds)
    return (res, {m.name: (m.value, m.unit, m.bracket, m.limit) for m in res.measurements},
            [(f.round, f.seq, f.message) for f in res.findings])


def wheel_bench(sections=LAYOUT, diameter: float = 1.524, **more) -> BenchView:
    return BenchView(info={"wheel": {"sections": list(sections), "diameter_m": diameter}, **more})


# ------------------------------------------------------------------ § 690.1(a)–(b): the layout
def test_a_compliant_wheel_passes_with_its_two_measurements():
    res, m, f = judge(Layout, [R(1), R(2)], wheel_bench())
    assert (res.verdict, res.summary, f) == ("pass", "54 sections in the regulation's clockwise order; diameter >= 5 ft",
                                             [])
    assert m == {"diameter": (1.524, "m", None, ">= 1.524 m (5 ft)"), "sections": (54, "sections", None, "== 54")}


def test_each_deviation_of_the_layout_is_a_finding_of_round_0():
    sections = LAYOUT[:-1] + ["7"]
    res, m, f = judge(Layout, [R(1)], wheel_bench(sections, 1.5))
    want = layout_deviations(sections, 1.5)
    assert len(want) == 3 and f == [(0, None, w) for w in want]
    assert f[0][2] == f"§ 690.1(a): section 53 shows '7', which is no symbol of the wheel (expected one of {SPOT_LIST})"
    assert (res.verdict, res.summary) == ("fail", "3 deviation(s) from § 690.1(a)–(b)")
    assert m == {"diameter": (1.5, "m", None, ">= 1.524 m (5 ft)"), "sections": (54, "sections", None, "== 54")}


def test_a_wheel_without_a_declared_layout_is_indeterminate():
    res, m, f = judge(Layout, [R(1)], BenchView(info={"wheel": {}}))
    assert (res.verdict, res.summary, m, f) == (
        "indeterminate", "the wheel declared no layout (no device_info in round 0)", {}, [])


# ------------------------------------------------------------------ § 690.2(a): "no more bets"
def test_no_more_bets_golden_picture():
    r1 = R(1)
    r1.nmb(20.0)
    r1.spin(22.0)  # pushed (the wheel's start) at 22.5 s: 2.5 s after the announcement
    r1.spin(40.0, start=False)  # no start report: the command (40 s) is the push, 20 s after
    r2 = R(2)
    r2.nmb(20.0)
    r2.nmb(21.0)  # a second announcement: the first one counts
    r2.spin(20.75)  # 1.25 s: the shortest lead
    r3 = R(3)
    s3 = r3.spin(30.0)  # never announced
    r4 = R(4)
    s4 = r4.spin(29.75)  # the wheel's start at 30.25 s ...
    r4.nmb(31.125)  # ... before the announcement
    r5 = R(5)
    s5 = r5.spin(30.0, start=False)  # no start, no announcement: the command is named
    res, m, f = judge(NoMoreBets, [r1, r2, r3, r4, r5])
    assert f == [(3, s3["start"].seq, "wheel spun at t=30.500 s; 'no more bets' never announced"),
                 (4, s4["start"].seq, "wheel spun at t=30.250 s; 'no more bets' announced at t=31.125 s"),
                 (5, s5["command"].seq, "wheel spun at t=30.000 s; 'no more bets' never announced")]
    assert (res.verdict, res.summary) == ("fail", "3 spin(s) without a prior 'no more bets'")
    assert m == {"spins_checked": (6, "spins", None, None),
                 "min_announcement_lead": (1.25, "s", None, "> 0 s before the push")}
    res, m, f = judge(NoMoreBets, [r1, r2])
    assert (res.verdict, res.summary, f) == ("pass", "'no more bets' preceded every spin", [])
    assert m["spins_checked"][0] == 3 and m["min_announcement_lead"][0] == 1.25


def test_no_more_bets_at_the_push_s_own_time_but_recorded_before_it_is_prior():
    r = R(1)
    r.nmb(30.5)
    r.spin(30.0)  # the start at 30.5 s, recorded after the announcement
    res, m, f = judge(NoMoreBets, [r])
    assert (res.verdict, f, m["min_announcement_lead"][0]) == ("pass", [], 0.0)


def test_no_more_bets_without_spins_is_indeterminate():
    r = R(1)
    r.nmb()
    res, m, f = judge(NoMoreBets, [r])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no spins in the trace", [])
    assert m == {"spins_checked": (0, "spins", None, None),
                 "min_announcement_lead": (None, "s", None, "> 0 s before the push")}


# ------------------------------------------------------------------ § 690.2(b): three revolutions
def test_three_revolutions_golden_picture():
    r1 = R(1)
    r1.spin(revs=3.0, pulses=3)  # exactly 3, counted 3 times: valid
    r2 = R(2)
    s2 = r2.spin(revs=2.99, pulses=2, direction="ccw")  # short, and too few pulses
    r3 = R(3)
    s3 = r3.spin(revs=4.5, pulses=6)  # 6 pulses for 4.5 turns: 4 or 5
    r4 = R(4)
    r4.spin(revs=4.5, pulses=5)  # floor + 1: fine
    r5 = R(5)
    r5.spin(revs=2.0, pulses=2, outcome="spin_void", reason="under_three_revolutions")
    r5.spin(revs=2.5, pulses=2, outcome="spin_void", reason="under_three_revolutions")
    e5 = r5.end(None, void=True)
    r6 = R(6)
    r6.spin(revs=2.0, pulses=2, outcome="spin_void", reason="under_three_revolutions")
    r6.spin(revs=3.5, pulses=3, direction="ccw")
    r7 = R(7)  # void for another reason too: no finding
    r7.spin(revs=2.0, pulses=2, outcome="spin_void", reason="under_three_revolutions")
    r7.spin(revs=4.0, pulses=4, outcome="spin_void", reason="on_peg")
    r7.end(None, void=True)
    r8 = R(8)  # every push short but the round never ended: no finding yet
    r8.spin(revs=2.0, pulses=2, outcome="spin_void", reason="under_three_revolutions")
    r9 = R(9)
    s9 = r9.spin(revs=5.0, pulses=2, direction=None)  # too few pulses only (no second finding of disagreement)
    r10 = R(10)
    r10.spin(revs=4.0, stop=False)  # no rest report: CT-690.2c's
    r11 = R(11)
    r11.spin(revs=2.0, pulses=2, outcome=None)  # no outcome: neither short-voided nor settled
    r11.end(None)
    res, m, f = judge(ThreeRevolutions, [r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11])
    assert f == [
        (2, s2["stop"].seq, "settled a spin of 2.99 revolutions (< 3)"),
        (2, s2["stop"].seq, "index sensor counted 2 revolution(s) (< 3) for a settled spin reported as 2.99"),
        (3, s3["stop"].seq, "index pulses 6 disagree with reported revolutions 4.50 (expected 4 or 5)"),
        (5, e5.seq, "no valid spin within 2 attempts: every push completed fewer than 3 revolutions"),
        (9, s9["stop"].seq, "index sensor counted 2 revolution(s) (< 3) for a settled spin reported as 5.00"),
    ]
    assert (res.verdict, res.summary) == ("fail", "5 spin(s) without 3 verified revolutions")
    assert m == {"settled_spins": (6, "spins", None, None),  # rounds 1, 2, 3, 4, 6, 9
                 "min_revolutions": (2.99, "rev", None, ">= 3 rev"),
                 "mean_revolutions": (sum([3.0, 2.99, 4.5, 4.5, 3.5, 5.0]) / 6, "rev", None, None),
                 "short_spins_voided": (5, "spins", None, None),
                 "spins_cw": (3, "spins", None, None),
                 "spins_ccw": (2, "spins", None, None)}


def test_three_revolutions_pass_and_indeterminate():
    r1, r2 = R(1), R(2)
    r1.spin(revs=3.0, pulses=4)
    r2.spin(revs=3.25, pulses=3, direction="ccw")
    res, m, f = judge(ThreeRevolutions, [r1, r2])
    assert (res.verdict, res.summary, f) == ("pass", "2 settled spins, each >= 3 revolutions by index sensor", [])
    assert (m["min_revolutions"][0], m["mean_revolutions"][0], m["spins_cw"][0], m["spins_ccw"][0]) == (
        3.0, 3.125, 1, 1)
    res, m, f = judge(ThreeRevolutions, [R(1)])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no settled spins", [])
    assert m == {"settled_spins": (0, "spins", None, None), "min_revolutions": (None, "rev", None, ">= 3 rev"),
                 "mean_revolutions": (None, "rev", None, None), "short_spins_voided": (0, "spins", None, None),
                 "spins_cw": (0, "spins", None, None), "spins_ccw": (0, "spins", None, None)}


def test_a_spin_just_under_three_revolutions_is_short():
    r = R(1)
    s = r.spin(revs=2.999, pulses=3)
    res, _, f = judge(ThreeRevolutions, [r])
    assert f == [(1, s["stop"].seq, "settled a spin of 3.00 revolutions (< 3)")]


# ------------------------------------------------------------------ § 690.1(e), § 690.2(c): the result's evidence
def test_result_evidence_golden_picture():
    def settled(n, spot="1", idx=0, result=None, forced=None, **kw):
        r = R(n)
        s = r.spin(spot=spot, idx=idx, **kw)
        if forced is not None:
            s["forced"] = r.ev("croupier", "forced_result", forced, 41.0)
        s["end"] = r.end(spot if result is None else result)
        return r, s

    r1, _ = settled(1)
    r2, _ = settled(2, "crazy-time", 53)  # the last section
    r3, s3 = settled(3, "1", 54)  # past it
    r4, s4 = settled(4, "1", -1)
    r5, s5 = settled(5, "2", True)
    r6, s6 = settled(6, "2", "1")
    r7, s7 = settled(7, "2", 1, on_peg="yes", result="1")  # no selection: its result is not judged either
    r8, s8 = settled(8, "7", 2, result="1")
    r9, s9 = settled(9, "5", 1)  # section 1 is a 2
    r10, _ = settled(10, "1", 0, result="10", forced={"spot": "10", "wheel_spot": "1"})
    r11, s11 = settled(11, "1", 0, result="10", forced={"spot": "10", "wheel_spot": "2"})
    r12, s12 = settled(12, "1", 0, result="5", forced={"spot": "10", "wheel_spot": "1"})
    r13, s13 = settled(13, "1", 0, result="2")
    r14 = R(14)
    s14a = r14.spin(start=False, stop=False, outcome="spin_void")  # neither report: the void names the rest
    s14b = r14.spin(stop=False, outcome=None)  # no rest report, no outcome: the command is named
    r14.end(None, void=True)
    r15, _ = settled(15, "1", 0, result="2")
    r15.events[-1].payload["void"] = True  # not settled: the result is not judged
    r16 = R(16)
    r16.spin(spot="1", idx=0, outcome="spin_void")  # a void spin's rest: not judged
    r16.spin(spot="2", idx=1)
    r16.end("2")
    res, m, f = judge(ResultEvidence, [r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15, r16],
                      wheel_bench())
    assert f == [
        (3, s3["stop"].seq, "§ 690.1(e): the clapper selected section 54: no section of the wheel (sections 0..53); "
                            "the clapper must select a particular section"),
        (4, s4["stop"].seq, "§ 690.1(e): the clapper selected section -1: no section of the wheel (sections 0..53); "
                            "the clapper must select a particular section"),
        (5, s5["stop"].seq, "§ 690.1(e): the clapper selected section True: no section of the wheel (sections "
                            "0..53); the clapper must select a particular section"),
        (6, s6["stop"].seq, "§ 690.1(e): the clapper selected section '1': no section of the wheel (sections "
                            "0..53); the clapper must select a particular section"),
        (7, s7["stop"].seq, "§ 690.1(e): the rest report's on_peg is 'yes', neither resting in a section nor between "
                            "two"),
        (8, s8["stop"].seq, f"§ 690.1(e): the clapper selected section 2 showing '7', which is no symbol of the wheel "
                            f"(one of {SPOT_LIST})"),
        (9, s9["stop"].seq, "section 1 is '2' in the declared layout but the wheel reported '5'"),
        (11, s11["forced"].seq, "forced outcome '10' on a wheel that rested on '1' recorded as '2'; settled on '10'"),
        (12, s12["forced"].seq, "forced outcome '10' on a wheel that rested on '1' recorded as '1'; settled on '5'"),
        (13, s13["end"].seq, "settled on '2' but the clapper rested on '1'"),
        (14, s14a["command"].seq, "push without a spin_start report from the wheel"),
        (14, s14a["outcome"].seq, "spin without a rest report (spin_stop) from the wheel: no section the clapper "
                                  "selected is on record (§ 690.1(e))"),
        (14, s14b["command"].seq, "spin without a rest report (spin_stop) from the wheel: no section the clapper "
                                  "selected is on record (§ 690.1(e))"),
    ]
    assert (res.verdict, res.summary) == ("fail", "13 gap(s) in the result evidence")
    assert m == {"spins": (18, "spins", None, None), "rounds_forced_outcome": (3, "rounds", None, None)}


def test_result_evidence_without_a_declared_layout_uses_the_regulation_s_54_sections():
    r1, r2 = R(1), R(2)
    r1.spin(spot="5", idx=1)  # not the regulation's section 1: no declared layout to hold it to
    r1.end("5")
    s2 = r2.spin(spot="1", idx=54, stop_payload=None)
    r2.end("1")
    r3 = R(3)
    s3 = r3.spin(stop_payload=[1, 2])  # no mapping at all
    r3.end("1")
    res, m, f = judge(ResultEvidence, [r1, r2, r3])
    assert f == [(2, s2["stop"].seq, "§ 690.1(e): the clapper selected section 54: no section of the wheel (sections "
                                     "0..53); the clapper must select a particular section"),
                 (3, s3["stop"].seq, "§ 690.1(e): the clapper selected section None: no section of the wheel "
                                     "(sections 0..53); the clapper must select a particular section")]
    r = R(1)
    r.spin()
    r.end("1")
    res, m, f = judge(ResultEvidence, [r], wheel_bench(LAYOUT[:10]))  # a declared layout of 10 sections
    assert (res.verdict, res.summary, f) == ("pass", "every spin reported start and rest; results match the wheel", [])
    assert m == {"spins": (1, "spins", None, None), "rounds_forced_outcome": (0, "rounds", None, None)}
    r = R(1)
    s = r.spin(spot="1", idx=10)
    r.end("1")
    _, _, f = judge(ResultEvidence, [r], wheel_bench(LAYOUT[:10]))
    assert f == [(1, s["stop"].seq, "§ 690.1(e): the clapper selected section 10: no section of the wheel (sections "
                                    "0..9); the clapper must select a particular section")]
    res, m, f = judge(ResultEvidence, [R(1)])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no spins in the trace", [])
    assert m == {"spins": (0, "spins", None, None), "rounds_forced_outcome": (0, "rounds", None, None)}


def test_a_rest_report_on_a_peg_is_a_selection_of_no_section_but_no_gap():
    r = R(1)
    r.spin(spot="1", idx=0, on_peg=True, outcome="spin_void")
    r.spin(spot="1", idx=0)
    r.end("1")
    res, _, f = judge(ResultEvidence, [r], wheel_bench())
    assert (res.verdict, f) == ("pass", [])


# ------------------------------------------------------------------ § 690.2(d): between two sections
def test_between_sections_golden_picture():
    r1 = R(1)
    s1 = r1.spin(on_peg=True)  # settled
    r1.end("1")
    r2 = R(2)
    s2 = r2.spin(on_peg=True, outcome=None)  # never declared
    r3 = R(3)
    r3.spin(on_peg=True, outcome="spin_void")  # void, then respun
    r3.spin(on_peg=True, outcome="spin_void")  # and again
    r3.spin()
    r3.end("1")
    r4 = R(4)
    r4.spin(on_peg=True, outcome="spin_void")  # the last push, the round void: fine
    r4.end(None, void=True)
    r5 = R(5)
    r5.spin()
    s5 = r5.spin(on_peg=True, outcome="spin_void")  # the second push, last, the round not void
    r5.end("1")
    r6 = R(6)
    s6 = r6.spin(on_peg=True, outcome="spin_void")  # the round never ended
    r7 = R(7)
    r7.spin(stop=False, outcome="spin_void")  # no rest report
    r7.spin(on_peg=False)
    res, m, f = judge(BetweenSections, [r1, r2, r3, r4, r5, r6, r7])
    assert f == [(1, s1["outcome"].seq, "spin 1 rested between two sections and was settled"),
                 (2, s2["stop"].seq, "spin 1 rested between two sections; not declared void"),
                 (5, s5["outcome"].seq, "void spin 2 was not respun"),
                 (6, s6["outcome"].seq, "void spin 1 was not respun")]
    assert (res.verdict, res.summary) == ("fail", "4 between-sections spin(s) mishandled")
    assert m == {"spins": (11, "spins", None, None), "between_sections": (7, "spins", None, None),
                 "between_sections_rate": (7 / 11, "1", None, None), "respun": (2, "spins", None, None)}
    res, m, f = judge(BetweenSections, [r3, r4])
    assert (res.verdict, res.summary, f) == ("pass", "3 between-sections spin(s), each void and respun", [])
    assert m["between_sections_rate"][0] == 0.75
    res, m, f = judge(BetweenSections, [R(1)])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no spins in the trace", [])
    assert m == {"spins": (0, "spins", None, None), "between_sections": (0, "spins", None, None),
                 "between_sections_rate": (None, "1", None, None), "respun": (0, "spins", None, None)}


# ------------------------------------------------------------------ § 690.3: the Top Slot
TOL = 0.125  # a tolerance that binary floats hold exactly: the offsets below are exact too


def pay(r: R, wid: str, spot: str, odds, win: int, seat: int = 1, stake: int = 100, **more) -> Event:
    return r.ev("croupier", "pay", {"wager_id": wid, "seat": seat, "spot": spot, "stake_cents": stake,
                                    "odds": f"{odds} to 1", "odds_ratio": str(odds), "win_cents": win, **more}, 50.0)


def collect(r: R, wid: str, spot: str, stake: int = 100, seat: int = 1) -> Event:
    return r.ev("croupier", "collect", {"wager_id": wid, "seat": seat, "spot": spot, "stake_cents": stake}, 45.0)


def refund(r: R, wid: str, spot: str, stake: int = 100, seat: int = 1) -> Event:
    return r.ev("croupier", "refund", {"wager_id": wid, "seat": seat, "spot": spot, "stake_cents": stake}, 46.0)


def test_top_slot_reels_declared():
    bad = {"reel1": REELS["reel1"][:-1] + ["50"], "reel2": [1, 2, 3, 4, 5, 7, 10, 15, 50], "reel3": [],
           "reels_declared": True, "reel1_steps": 9, "spare_reel4": []}
    res, _, f = judge(TopSlotCheck, [], BenchView(info={"top_slot": bad}))
    assert [x[:2] for x in f] == [(0, None)] * 5
    assert [x[2] for x in f] == [
        "§ 690.3(b): the Top Slot declares reels ['reel1', 'reel2', 'reel3']; it consists of two reels (reel1, reel2)",
        f"§ 690.3(b)(1): the first reel lacks betting option(s) ['crazy-time']; it shall contain each of {SPOT_LIST}",
        "§ 690.3(b)(1): the first reel carries ['50'], which are no betting options",
        "§ 690.3(b)(2): the second reel lacks multiplier(s) [20]",
        "§ 690.3(b)(2): the second reel carries multiplier(s) [50]; its potential multipliers consist of 1, 2, 3, 4, 5, "
        "7, 10, 15, 20"]
    assert (res.verdict, res.summary) == ("fail", "5 Top Slot deviation(s)")
    _, _, f = judge(TopSlotCheck, [], BenchView(info={"top_slot": {"reel1": REELS["reel1"]}}))
    assert [x[2] for x in f] == [
        "§ 690.3(b): the Top Slot declares reels ['reel1']; it consists of two reels (reel1, reel2)",
        "§ 690.3(b)(2): the second reel lacks multiplier(s) [1, 2, 3, 4, 5, 7, 10, 15, 20]"]
    _, _, f = judge(TopSlotCheck, [], BenchView(info={"top_slot": {"reel2": None, "reel1": None}}))
    assert [x[2] for x in f] == [
        f"§ 690.3(b)(1): the first reel lacks betting option(s) {REELS['reel1']}; it shall contain each of {SPOT_LIST}",
        "§ 690.3(b)(2): the second reel lacks multiplier(s) [1, 2, 3, 4, 5, 7, 10, 15, 20]"]
    for info in ({**bad, "reels_declared": False}, None, dict(REELS)):
        res, m, f = judge(TopSlotCheck, [], BenchView(info={} if info is None else {"top_slot": info}))
        assert (res.verdict, res.summary, f) == ("indeterminate", "no Top Slot spins in the trace", [])
        assert m == {"start_offset_worst": (None, "s", None, "|offset| <= 0.1 s"),
                     "rounds_settled": (0, "rounds", None, None), "aligned_rate": (None, "1", None, None),
                     "start_offsets_undecided": (0, "spins", None, "0 (|offset| within the tolerance by more than the "
                                                                   "clocks' uncertainty)")}


def test_top_slot_golden_picture():
    r1 = R(1)
    r1.spin(top_off=TOL, top=("5", 7, True))  # exactly the tolerance: concurrent
    pay(r1, "1-1", "5", 35, 3500)
    pay(r1, "1-2", "2", 2, 200)  # not the aligned option: no multiplier
    pay(r1, "1-3", "coin-flip", 99, 9900)  # a bonus game's odds: the bonus checks'
    r1.end("5")
    r2 = R(2)
    s2 = r2.spin(top_off=-0.1875, top=("5", 7, False))  # past it with no uncertainty
    p2 = pay(r2, "2-1", "5", 35, 3500)  # not aligned: 5 to 1
    r2.end("5")
    r3 = R(3)
    r3.u = {"top_slot": 0.03125, "wheel": 0.03125}
    r3.spin(top_off=0.1875, top=("5", 7, True))  # 0.1875 - 0.0625 = the tolerance: undecided
    pay(r3, "3-2", "cash-hunt", 3, 300)  # skipped, and the pays after it judged
    p3 = pay(r3, "3-1", "5", 5, 500)  # aligned on 5 ×7: 35 to 1
    r3.end("5")
    r4 = R(4)
    r4.u = {"top_slot": 0.03125}
    s4 = r4.spin(top_off=0.1875)  # 0.15625 > the tolerance: a deviation
    r4.end("1")
    r5 = R(5)
    s5a = r5.spin(top=("7", 6, False), outcome="spin_void")  # off both reels
    s5b = r5.spin(top=("7", 5, False), steps=(0, 0), outcome="spin_void")  # off reel 1 (no stuck-reel finding)
    s5c = r5.spin(top=("5", 6, False), outcome="spin_void")  # off reel 2
    s5d = r5.spin(top=("2", 3, True), steps=(0, 9), outcome="spin_void")
    s5e = r5.spin(top=("2", 3, True), steps=(9, -1), outcome="spin_void")
    s5f = r5.spin(top=("2", 3, True), steps=(1, 1), outcome="spin_void")  # one step each: moved
    s5g = r5.spin(top_slot=False, outcome="spin_void")
    s5h = r5.spin(start=False, top_off=5.0, top=("2", 1, False))  # no wheel start: no offset judged
    del s5h["top_stop"].payload["reel1_steps"]  # a reel without steps did not move
    s5i = r5.spin(outcome="spin_void")
    r5.events.remove(s5i["top_stop"])  # started, never stopped
    s5j = r5.spin(outcome="spin_void")
    r5.events.remove(s5j["top_start"])  # stopped, never started
    pay(r5, "5-1", "2", 2, 200)
    r5.end("2")
    r6 = R(6)
    r6.spin(top=("10", 2, True))
    r6.end(None, void=True)  # not settled: no alignment counted, no pays judged
    pay(r6, "6-1", "10", 1, 100)
    r7 = R(7)
    r7.spin(top_slot=False)  # settled without a Top Slot stop
    r7.end("1")
    r8 = R(8)
    r8.u = {"top_slot": 0.0625}
    r8.spin(top_off=-0.1875, top=("10", 2, True))  # undecided, the largest |offset| of them
    pay(r8, "8-1", "10", 20, 2000)
    r8.end("10")
    res, m, f = judge(TopSlotCheck, [r1, r2, r3, r4, r5, r6, r7, r8], config=CheckConfig(top_slot_start_tolerance_s=TOL))
    assert f == [
        (2, s2["top_start"].seq, "Top Slot started -187.5 ms from the wheel (tolerance ±125.0 ms)"),
        (2, p2.seq, "wager 2-1 on 5 paid at 35 to 1; expected 5 to 1 (§ 690.3(c)(2): reels not aligned (5 ×7), so no "
                    "Top Slot multiplier)"),
        (3, p3.seq, "wager 3-1 on 5 paid at 5 to 1; expected 35 to 1 (§ 690.3(c)(1): reels aligned on 5 ×7)"),
        (4, s4["top_start"].seq, "Top Slot started +187.5 ms from the wheel (tolerance ±125.0 ms; the clocks' "
                                 "uncertainty ±31.2 ms)"),
        (5, s5a["top_stop"].seq, "Top Slot showed '7' × 6: not on its reels (§ 690.3(b)(1)–(2))"),
        (5, s5b["top_stop"].seq, "Top Slot showed '7' × 5: not on its reels (§ 690.3(b)(1))"),
        (5, s5c["top_stop"].seq, "Top Slot showed '5' × 6: not on its reels (§ 690.3(b)(2))"),
        (5, s5d["top_stop"].seq, "reel(s) [1] did not move during the spin"),
        (5, s5e["top_stop"].seq, "reel(s) [2] did not move during the spin"),
        (5, s5g["command"].seq, "Top Slot not spun (no start/stop report) with this spin"),
        (5, s5h["top_stop"].seq, "reel(s) [1] did not move during the spin"),
        (5, s5i["command"].seq, "Top Slot not spun (no start/stop report) with this spin"),
        (5, s5j["command"].seq, "Top Slot not spun (no start/stop report) with this spin"),
        (7, r7.events[0].seq, "Top Slot not spun (no start/stop report) with this spin"),
    ]
    assert s5f  # moved: no finding
    assert (res.verdict, res.summary) == ("fail", "14 Top Slot deviation(s)")
    assert m == {"start_offset_worst": (-0.1875, "s", None, "|offset| <= 0.125 s"),
                 "rounds_settled": (6, "rounds", None, None),  # 1, 2, 3, 4, 5, 8 (not 6: void; not 7: no stop)
                 "aligned_rate": (3 / 6, "1", None, None),  # 1, 3, 8
                 "start_offsets_undecided": (2, "spins", None, "0 (|offset| within the tolerance by more than the "
                                                                "clocks' uncertainty)")}


def test_top_slot_undecided_and_pass_summaries():
    r1, r2, r3 = R(1), R(2), R(3)
    r1.u = {"wheel": 0.0625}
    r1.spin(top_off=0.125 + 0.0625)  # at the tolerance by its uncertainty: undecided
    r1.end("1")
    r2.u = {"top_slot": 0.09375}
    r2.spin(top_off=-0.0625)  # within it by less than its uncertainty
    r2.end("1")
    r3.spin(top_off=0.0)
    r3.end("1")
    res, m, f = judge(TopSlotCheck, [r1, r2, r3], config=CheckConfig(top_slot_start_tolerance_s=TOL))
    assert (res.verdict, f) == ("indeterminate", [])
    assert res.summary == ("2 spin(s) whose Top Slot start is within the clocks' uncertainty of the ±125.0 ms "
                           "tolerance (round 1: +187.5 ± 62.5 ms): not provably concurrent")
    assert (m["start_offset_worst"][0], m["rounds_settled"][0], m["aligned_rate"][0]) == (0.1875, 3, 0.0)
    res, m, f = judge(TopSlotCheck, [r3], config=CheckConfig(top_slot_start_tolerance_s=TOL))
    assert (res.verdict, res.summary, f) == ("pass", "Top Slot spun with every push, concurrently, applied only when "
                                                     "aligned", [])
    assert m["start_offset_worst"][0] == 0.0


def test_outcome_m_applies_the_shown_multiplier_only_to_the_aligned_option():
    assert outcome_m({"multiplier": "7", "aligned": True, "spot": "5"}, Spot.FIVE) == 7
    assert outcome_m({"multiplier": 7, "aligned": True, "spot": "5"}, Spot.TWO) == 1
    assert outcome_m({"multiplier": 7, "aligned": False, "spot": "5"}, Spot.FIVE) == 1
    assert outcome_m({"multiplier": 7, "spot": "5"}, Spot.FIVE) == 1


# ------------------------------------------------------------------ § 690.1(g)(2): the betting areas
def test_betting_areas_golden_picture():
    r1 = R(1)
    r1.press(1, "1")
    r1.press(2, "1")
    r1.press(3, "coin-flip")
    p4 = r1.press(4, "7")  # accepted on no betting area
    for k, why in enumerate(("betting_closed", "locked_out", "invalid_seat", "invalid_stake"), 5):
        r1.press(k, "2", accepted=False, reason=why)  # refusals that say nothing about the area
    p9 = r1.press(9, "pachinko", seat=3, accepted=False, reason="no_betting_area")
    r1.press(10, "7", accepted=False, reason="no_betting_area")  # no area of the layout anyway
    p12 = r1.press(12, "pachinko", seat=5, accepted=False, reason="no_betting_area")
    r2 = R(2)
    r2.ev("wagering", "press", None, 1.0)  # a press report with no payload at all
    r2.ev("wagering", "press", ["garbled"], 1.0)
    p11 = r2.press(11, "2", seat=4, accepted=False, reason=None)
    res, m, f = judge(BettingAreas, [r1, r2])
    assert f == [
        (1, p4.seq, f"§ 690.1(g)(2): the wagering device accepted press 4 on '7', which is no betting area of the "
                    f"layout ({SPOT_LIST})"),
        (1, p9.seq, f"§ 690.1(g)(2): seat 3's press on the pachinko betting area was refused ('no_betting_area'); the "
                    f"layout has a betting area for each of {SPOT_LIST}"),
        (1, p12.seq, f"§ 690.1(g)(2): seat 5's press on the pachinko betting area was refused ('no_betting_area'); the "
                     f"layout has a betting area for each of {SPOT_LIST}"),
        (2, p11.seq, f"§ 690.1(g)(2): seat 4's press on the 2 betting area was refused (None); the layout has a "
                     f"betting area for each of {SPOT_LIST}"),
    ]
    assert (res.verdict, res.summary) == ("fail", "4 deviation(s) from § 690.1(g)(2); presses refused for the betting "
                                                  "area: pachinko (2), 2 (1)")
    want = {f"presses_accepted_{s}": (0, "presses", None, None) for s in SPOT_LIST.split(", ")}
    want.update({"presses_accepted_1": (2, "presses", None, None), "presses_accepted_coin-flip": (1, "presses", None, None),
                 "presses_refused_for_the_area": (3, "presses", None, "== 0")})
    assert m == want and list(m) == list(want)


def test_betting_areas_pass_and_other_summaries():
    r = R(1)
    r.press(1, "1")
    r.press(2, "1")
    r.press(3, "crazy-time")
    res, m, f = judge(BettingAreas, [r])
    assert (res.verdict, f) == ("pass", [])
    assert res.summary == ("3 presses accepted, every one on a betting area; no press on 2, 5, 10, coin-flip, cash-hunt, "
                           "pachinko in this trace")
    r = R(1)
    for k, s in enumerate(SPOT_LIST.split(", ")):
        r.press(k, s)
    res, m, f = judge(BettingAreas, [r])
    assert res.summary == "8 presses accepted, every one on a betting area; each of the eight areas took wagers"
    r = R(1)
    r.press(1, "7")
    res, m, f = judge(BettingAreas, [r])
    assert (res.verdict, res.summary) == ("fail", "1 deviation(s) from § 690.1(g)(2); presses refused for the betting "
                                                  "area: see the findings")
    assert m["presses_refused_for_the_area"][0] == 0
    r = R(1)
    r.press(1, "2", accepted=False, reason="locked_out")
    res, m, f = judge(BettingAreas, [r])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no accepted press in the trace", [])


# ------------------------------------------------------------------ § 690.1(g)(4): the limits
def rules_bench(**limits) -> BenchView:
    rules = {**RULES_JSON, "limits": {**RULES_JSON["limits"], **limits}}
    return BenchView(rules=rules)


def test_wager_limits_golden_picture():
    r1 = R(1)
    r1.press(1, "1", stake=10)  # the minimum
    r1.press(2, "2", stake=250000)  # the maximum
    r1.press(3, "1", stake=9)
    r1.press(4, "1", stake=250001)
    r1.press(5, "1", stake=100)
    r1.nmb(20.0)
    r1.press(6, "5", stake=5, t=21.0)  # after "no more bets": no wager; its settlement's own stake is read
    rej = {k: r1.ev("croupier", "wager_rejected", {"wager_id": f"1-{k}", "kind": "limits", "stake_cents": 1,
                                                   "reason": "limits"}, 22.0) for k in (3, 4, 5)}
    r1.ev("croupier", "wager_rejected", {"wager_id": "1-1", "kind": "press", "press_id": 1, "reason": "x"}, 22.0)
    r1.ev("croupier", "wager_rejected", ["garbled"], 22.0)
    rej7 = r1.ev("croupier", "wager_rejected", {"wager_id": "1-7", "kind": "limits", "stake_cents": 300000}, 22.0)
    rej8 = r1.ev("croupier", "wager_rejected", {"wager_id": "1-8", "kind": "limits", "stake_cents": 200}, 22.0)
    c1 = collect(r1, "1-1", "1", stake=999999)  # the device's stake (10) is judged, never the croupier's
    pay(r1, "1-2", "2", 2, 500000, seat=2, stake=1)
    c1b = collect(r1, "1-1", "1", stake=999999)  # the same wager again: counted once
    c6 = collect(r1, "1-6", "5", stake=5, seat=2)
    f9 = refund(r1, "1-9", "1", stake=250001, seat=3)
    r2 = R(2)
    big = [pay(r2, "2-1", "1", 1, 30_000_000, seat=2), pay(r2, "2-2", "2", 2, 20_000_001, seat=2, capped=True),
           pay(r2, "2-3", "5", 5, 50_000_000, seat=3, capped=True), pay(r2, "2-4", "5", 5, 60_000_000, seat=1)]
    res, m, f = judge(WagerLimits, [r1, r2], BenchView(rules=RULES_JSON))
    assert f == [
        (1, rej[5].seq, "wager 1-5 of 100 cents refused as outside the limits; the Rules Submission admits 10–250000 "
                        "cents"),
        (1, rej8.seq, "wager 1-8 of 200 cents refused as outside the limits; the Rules Submission admits 10–250000 "
                      "cents"),
        (1, c6.seq, "wager 1-6 (5, seat 2) was settled (collect): § 690.1(g)(4): a wager of 5 cents is below the "
                    "minimum wager of 10 cents; the croupier must refuse it"),
        (1, f9.seq, "wager 1-9 (1, seat 3) was settled (refund): § 690.1(g)(4): a wager of 250001 cents is above the "
                    "maximum wager of 250000 cents; the croupier must refuse it"),
        (2, big[3].seq, "seat 1 was paid 60000000 cents of wins in this round; the maximum payout limit per round is "
                        "50000000 cents"),
        (2, big[0].seq, "seat 2 was paid 50000001 cents of wins in this round; the maximum payout limit per round is "
                        "50000000 cents"),
    ]
    assert rej7 and c1 and c1b
    assert (res.verdict, res.summary) == ("fail", "6 deviation(s) from the table's limits")
    assert m == {"wagers_checked": (8, "wagers", None, "10–250000 cents"),  # 1-1, 1-2, 1-6, 1-9, 2-1..2-4
                 "wagers_refused_outside_limits": (5, "wagers", None, None),
                 "payments_capped": (2, "payments", None, None),
                 "max_seat_win_per_round": (60_000_000, "cents", None, "<= 50000000 cents")}


def test_wager_limits_pass_without_a_cap_and_without_rules():
    r = R(1)
    r.press(1, "1", stake=10)
    r.nmb()
    pay(r, "1-1", "1", 1, 90_000_000, seat=1)
    pay(r, "1-2", "1", 1, 7, seat=2)
    res, m, f = judge(WagerLimits, [r], rules_bench(max_payout_per_round_cents=None))
    assert (res.verdict, f) == ("pass", [])
    assert res.summary == ("2 wagers within 10–250000 cents, 0 outside them refused; no seat paid past the payout limit "
                           "(0 payment(s) capped)")
    assert m["max_seat_win_per_round"] == (90_000_000, "cents", None, None)
    r2 = R(2)
    pay(r2, "2-1", "1", 1, 5, seat=1)
    res, m, f = judge(WagerLimits, [r, r2], rules_bench(max_payout_per_round_cents=None))
    assert m["max_seat_win_per_round"][0] == 90_000_000  # the largest of the rounds, not the last
    res, m, f = judge(WagerLimits, [R(1)], BenchView(rules=RULES_JSON))
    assert (res.verdict, res.summary, f) == ("indeterminate", "no settled wagers", [])
    assert m["max_seat_win_per_round"] == (0, "cents", None, "<= 50000000 cents")
    r = R(1)
    r.ev("croupier", "wager_rejected", {"wager_id": "1-1", "kind": "limits", "stake_cents": 5}, 22.0)
    res, m, f = judge(WagerLimits, [r], BenchView(rules=RULES_JSON))
    assert (res.verdict, res.summary) == ("pass", "0 wagers within 10–250000 cents, 1 outside them refused; no seat "
                                                  "paid past the payout limit (0 payment(s) capped)")
    r = R(1)
    pay(r, "1-1", "1", 1, 60_000_000)
    res, m, f = judge(WagerLimits, [r])
    assert (res.verdict, res.summary, f) == ("indeterminate", "no Rules Submission on record: no limits to judge by", [])
    assert m == {"wagers_checked": (0, "wagers", None, None), "wagers_refused_outside_limits": (0, "wagers", None, None),
                 "payments_capped": (0, "payments", None, None), "max_seat_win_per_round": (0, "cents", None, None)}


# ------------------------------------------------------------------ § 690.1(a): the sections' χ² test
def chi_rounds(cw: list[int], ccw: list[int], other: list[int] = ()) -> list[R]:
    out = []
    for direction, sections in (("cw", cw), ("ccw", ccw), (None, other)):
        for idx in sections:
            r = R(len(out) + 1)
            r.spin(idx=idx, spot=LAYOUT[idx], direction=direction)
            out.append(r)
    return out


def test_section_uniformity_per_direction_with_its_own_bonferroni_level():
    rounds = chi_rounds([0] * 10, [0] * 4 + [1] * 5)  # cw: 10 of 2 sections' 5 × 2; ccw 9: too few for its own
    res, m, f = judge(SectionUniformity, rounds, wheel_bench(LAYOUT[:2]), CheckConfig(chi2_min_spins=19))
    p_cw = math.erfc(math.sqrt(10 / 2))
    assert f == [(0, None, f"cw: χ² = 10.0 on 1 dof, p = {p_cw:.3g} < 0.005; most frequent section 0 (10 of 10, "
                           "expected 5.0)")]
    assert (res.verdict, res.summary) == ("fail", f"sections not uniform: smallest p = {p_cw:.3g} < 0.005")
    assert list(m) == ["spins", "chi2_pooled", "p_value_pooled", "chi2_cw", "p_value_cw", "dof"]
    assert m["spins"] == (19, "spins", None, ">= 19 spins")
    assert m["chi2_pooled"][0] == 81 / 19 and m["chi2_cw"] == (10.0, "1", None, None)
    assert m["p_value_pooled"][1:] == m["p_value_cw"][1:] == ("1", None, ">= 0.005 (α = 0.01 / 2)")
    assert abs(m["p_value_cw"][0] - p_cw) < 1e-12 and abs(m["p_value_pooled"][0] - math.erfc(math.sqrt(81 / 38))) < 1e-12
    assert m["dof"] == (1, "1", None, None)


def test_section_uniformity_at_its_thresholds():
    rounds = chi_rounds([0] * 6 + [1] * 4, [0] * 5 + [1] * 5, [1])
    res, m, f = judge(SectionUniformity, rounds, wheel_bench(LAYOUT[:2]), CheckConfig(chi2_min_spins=21))
    assert (res.verdict, f) == ("pass", [])
    assert list(m) == ["spins", "chi2_pooled", "p_value_pooled", "chi2_cw", "p_value_cw", "chi2_ccw", "p_value_ccw",
                       "dof"]  # "?" (1 spin) too few for its own test
    assert (m["chi2_pooled"][0], m["chi2_cw"][0], m["chi2_ccw"][0]) == (1 / 21, 0.4, 0.0)
    assert m["p_value_ccw"] == (1.0, "1", None, ">= 0.003333 (α = 0.01 / 3)")
    assert res.summary == f"uniform at α = 0.01 (3 tests): smallest p = {m['p_value_cw'][0]:.3g}"  # not the last
    res, m, f = judge(SectionUniformity, rounds, wheel_bench(LAYOUT[:2]), CheckConfig(chi2_min_spins=22))
    assert (res.verdict, res.summary, f) == ("indeterminate", "21 spins: too few for the χ² test", [])
    assert m == {"spins": (21, "spins", None, ">= 22 spins")}


def test_section_uniformity_counts_only_settled_rest_reports_on_the_54_sections():
    rounds = chi_rounds([0, 1, 2], [])
    r = R(9)
    r.spin(idx=5, outcome="spin_void")
    r.spin(idx=6, stop=False)
    r.ev("wheel", "spin_stop", {"section_index": "7", "spot": "1", "direction": "cw"}, 1.0)  # its index as text
    r10 = R(10)
    r10.spin(idx=8, stop=False)  # settled without a rest report: not counted
    r11 = R(11)
    r11.spin(idx=9, outcome=None)  # no valid spin: not counted
    res, m, f = judge(SectionUniformity, rounds + [r, r10, r11], config=CheckConfig(chi2_min_spins=4))
    assert (res.verdict, m["spins"][0], m["dof"][0]) == ("pass", 4, 53)
    # sections 0, 1, 2 and 7 once each of 54: (4 (1 - 4/54)² + 50 (4/54)²) / (4/54) = 50
    assert round(m["chi2_pooled"][0], 9) == 50.0 and list(m) == ["spins", "chi2_pooled", "p_value_pooled", "dof"]


# ------------------------------------------------------------------ § 690.2(e)–(f), § 690.4: settlement (numbers)
SECTION = {"1": 0, "2": 1, "5": 2, "10": 15, "pachinko": 5, "coin-flip": 11}


def base_round(n: int, presses, result: str, top=("1", 1, False), **spin) -> R:
    """Presses (pid, spot, stake, seat) before "no more bets", then one valid spin on ``result``."""
    r = R(n)
    for pid, spot, stake, seat in presses:
        r.press(pid, spot, stake, seat)
    r.nmb(20.0)
    r.spin(spot=result, idx=SECTION[result], top=top, **spin)
    return r


def test_settlement_golden_picture_of_number_results():
    r1 = base_round(1, [(1, "5", 100, 1), (2, "1", 200, 2), (3, "2", 300, 3)], "5", ("5", 7, True))
    collect(r1, "1-2", "1", 200, 2)
    collect(r1, "1-3", "2", 300, 3)
    pay(r1, "1-1", "5", 35, 3500)  # § 690.4(c): 5 to 1 × 7
    r1.end("5")
    r2 = base_round(2, [(1, "1", 100, 1), (2, "2", 100, 2)], "1", ("5", 7, False))
    p2 = pay(r2, "2-1", "1", 1, 100)  # paid before the loser was collected
    collect(r2, "2-2", "2", 100, 2)
    r2.end("1")
    r3 = base_round(3, [(1, "5", 100, 1)], "5", ("5", 7, True))
    p3 = pay(r3, "3-1", "5", 5, 500)  # the Top Slot's ×7 left out
    r3.end("5")
    r4 = base_round(4, [(1, "1", 100, 1), (2, "10", 100, 2)], "10", ("1", 2, True))
    p4 = pay(r4, "4-1", "1", 2, 200)  # a loser paid (and never collected)
    pay(r4, "4-2", "10", 10, 1000, seat=2)
    e4 = r4.end("10")
    r5 = base_round(5, [(1, "2", 100, 1), (2, "1", 100, 2)], "2", ("2", 1, True))  # aligned, ×1: no multiplier
    c5 = collect(r5, "5-2", "1", 150, 2)  # the stake collected is not the one wagered
    p5 = pay(r5, "5-1", "2", 2, 250)
    r5.end("2")
    r6 = base_round(6, [(1, "1", 100, 1)], "2")
    r6.press(2, "1", 100, 2, t=21.0)  # after "no more bets": no wager
    c6 = collect(r6, "6-2", "1", 100, 2)
    e6 = r6.end("2")
    r7 = base_round(7, [], "1", top_slot=False)
    e7 = r7.end("1")
    r8 = base_round(8, [(1, "1", 100, 1), (2, "1", 100, 2), (3, "1", 100, 3), (4, "1", 100, 4), (5, "1", 5, 5)], "2")
    r8.press(6, "1", 100, 6, accepted=False, reason="betting_closed")
    r8.press(7, "1", 100, 7, t=21.0)
    for pid, why in ((7, "not made by the rig"), (2, "not made by the rig"), (3, "duplicate of actuation 4"),
                     (4, "a whim")):
        r8.ev("croupier", "wager_rejected", {"kind": "press", "press_id": pid, "reason": why}, 22.0)
    r8.ev("croupier", "wager_rejected", {"kind": "press", "press_id": 1, "reason": ""}, 22.0)  # no reason: no refusal
    r8.ev("croupier", "wager_rejected", {"kind": "limits", "wager_id": "8-5", "stake_cents": 5}, 22.0)
    r8.ev("croupier", "wager_rejected", {"kind": "limits", "wager_id": "8-9", "stake_cents": 5}, 22.0)  # no press of it
    c8 = collect(r8, "8-1", "1", 100, 1)
    e8 = r8.end("2")
    r9 = base_round(9, [(1, "1", 100, 1)], "2", outcome="spin_void")
    refund(r9, "9-1", "1")
    r9.end(None, void=True, reason="no_valid_spin")  # void: refunded, nothing else judged
    r10 = base_round(10, [(1, "1", 100, 1)], "2")  # never ended: nothing owed yet
    res, m, f = judge(SettlementCheck, [r1, r2, r3, r4, r5, r6, r7, r8, r9, r10], BenchView(rules=RULES_JSON))
    assert f == [
        (2, p2.seq, "a winning wager was paid before all losing wagers were collected"),
        (3, p3.seq, "wager 3-1: paid 500 cents at 5 to 1; § 690.1(c)(1), § 690.4(c): the § 690.4(a) odds times the Top "
                    "Slot's ×7 on 5 35 to 1 gives 3500 cents"),
        (4, e4.seq, "collections [] differ from the losing wagers ['4-1']"),
        (4, p4.seq, "wager 4-1: paid 200 cents at 2 to 1; § 690.4(a) odds (no Top Slot multiplier on this betting option) "
                    "it is no winning wager"),
        (4, e4.seq, "the set of paid wagers differs from the winning wagers"),
        (5, c5.seq, "collections ['5-2'] differ from the losing wagers ['5-2']"),
        (5, p5.seq, "wager 5-1: paid 250 cents at 2 to 1; § 690.4(a) odds (no Top Slot multiplier on this betting option) "
                    "2 to 1 gives 200 cents"),
        (6, None, 'wager 6-2 settled but it is no press the wagering device accepted from a player before "no more bets" '
                  "(§ 690.2(a))"),
        (6, e6.seq, "accepted wager(s) ['6-1'] never settled"),
        (6, c6.seq, "collections ['6-2'] differ from the losing wagers ['6-1']"),
        (7, e7.seq, "settled without a valid spin, Top Slot result or Rules Submission on record"),
        (8, e8.seq, "accepted wager(s) ['8-4'] never settled"),
        (8, c8.seq, "collections ['8-1'] differ from the losing wagers ['8-1', '8-4']"),
    ]
    assert (res.verdict, res.summary) == ("fail", "13 settlement deviation(s)")
    assert m == {"rounds_settled": (8, "rounds", None, None), "bonus_rounds_settled": (0, "rounds", None, None),
                 "bonus_void_rounds": (0, "rounds", None, None),
                 "wagers_settled": (13, "wagers", None, None),  # 3 + 2 + 1 + 2 + 2 + 1 + 0 + 2 (8-1, 8-4)
                 "collected": (1100, "cents", None, None),  # the losers' stakes as wagered: 500 + 100 + 100 + 100 + 100 + 200
                 "paid": (3500 + 100 + 500 + 1200 + 250, "cents", None, None)}  # as the croupier paid them


def test_settlement_pass_and_indeterminate():
    r1 = base_round(1, [(1, "5", 100, 1), (2, "1", 200, 2)], "5", ("5", 7, True))
    collect(r1, "1-2", "1", 200, 2)
    pay(r1, "1-1", "5", 35, 3500)
    r1.end("5")
    res, m, f = judge(SettlementCheck, [r1], BenchView(rules=RULES_JSON))
    assert (res.verdict, f) == ("pass", [])
    assert res.summary == ("every round collected losers first and paid § 690.4 odds (bonus results: losers collected "
                           "before the game, the replayed final multipliers paid, 0 round(s); 0 void bonus game(s): only "
                           "its wagers refunded)")
    assert m == {"rounds_settled": (1, "rounds", None, None), "bonus_rounds_settled": (0, "rounds", None, None),
                 "bonus_void_rounds": (0, "rounds", None, None), "wagers_settled": (2, "wagers", None, None),
                 "collected": (200, "cents", None, None), "paid": (3500, "cents", None, None)}
    res, m, f = judge(SettlementCheck, [r1])  # no Rules Submission
    assert f == [(1, r1.events[-1].seq, "settled without a valid spin, Top Slot result or Rules Submission on record")]
    r = base_round(1, [], "1", outcome="spin_void")
    r.end(None, void=True)
    res, m, f = judge(SettlementCheck, [r], BenchView(rules=RULES_JSON))
    assert (res.verdict, res.summary, f) == ("indeterminate", "no settled rounds", [])


def test_settlement_holds_the_croupier_s_excuses_to_the_actuator_s_record():
    r = R(1)
    r.ev("actuator", "actuation", {"actuation_id": 5, "seat": 1, "spot": "1", "coil": 1, "purpose": "player",
                                   "closed_lo_s": 9.998, "closed_hi_s": 10.0, "ok": True}, 10.0)
    for pid, seat, t in ((1, 1, 10.0), (2, 1, 10.001), (3, 2, 10.0), (4, 2, 10.0)):
        r.press(pid, "1", 100, seat, t=t)
    for pid, why in ((4, "not made by the rig"), (1, "not made by the rig"), (3, "duplicate of actuation 5"),
                     (2, "duplicate of actuation 5")):
        r.ev("croupier", "wager_rejected", {"kind": "press", "press_id": pid, "reason": why}, 11.0)
    rej = {e.payload["press_id"]: e for e in r.events if e.kind == "wager_rejected"}
    r.nmb(20.0)
    r.spin(spot="2", idx=1)
    collect(r, "1-1", "1")
    collect(r, "1-3", "1", seat=2)
    r.end("2")
    res, m, f = judge(SettlementCheck, [r], BenchView(rules=RULES_JSON))
    assert f == [(1, rej[1].seq, "press 1 refused as not made by the rig, but it is the rig's actuation 5"),
                 (1, rej[3].seq, "press 3 refused as a duplicate, but no actuation of the trace doubles it")]
    assert (m["wagers_settled"][0], m["collected"][0]) == (2, 200)
    res, m, f = judge(SettlementCheck, [r], BenchView(rules=RULES_JSON), CheckConfig(foreign_presses="settle"))
    assert f[0] == (1, rej[4].seq, "press 4 refused as not made by the rig, but the scenario settles real players' "
                                   "presses (players.foreign_presses: settle)")
    assert f[1:3] == [(1, rej[1].seq, "press 1 refused as not made by the rig, but it is the rig's actuation 5"),
                      (1, rej[3].seq, "press 3 refused as a duplicate, but no actuation of the trace doubles it")]
    assert f[3:] == [(1, r.events[-1].seq, "accepted wager(s) ['1-4'] never settled"),
                     (1, r.events[-3].seq, "collections ['1-1', '1-3'] differ from the losing wagers ['1-1', '1-3', "
                                           "'1-4']")]
    assert len(f) == 5


# ------------------------------------------------------------------ § 690.1(d), § 690.2(f), § 690.4(b): bonus results
def bonus_base(n: int, game: str, start: str | None = None, top=("1", 1, False)) -> R:
    """A round settled on ``game``: seat 1's wager on it, seat 2's on 1 collected, then ``start``'s bonus_start."""
    r = base_round(n, [(1, game, 1000, 1), (2, "1", 500, 2)], game, top)
    collect(r, f"{n}-2", "1", 500, 2)
    if start is not None:
        r.ev("croupier", "bonus_start", {"game": start}, 47.0)
    return r


def test_a_bonus_symbol_triggers_its_own_game_and_a_number_none():
    r1 = base_round(1, [(1, "1", 100, 1)], "1")
    s1 = r1.ev("croupier", "bonus_start", {"game": "pachinko"}, 47.0)
    pay(r1, "1-1", "1", 1, 100)
    r1.end("1")
    r2 = bonus_base(2, "coin-flip")
    pay(r2, "2-1", "coin-flip", 7, 7000)  # odds no game established: not judged again, not "differing"
    p2 = pay(r2, "2-2", "1", 1, 500, seat=2)  # the loser paid too: judged after the unknown one
    e2 = r2.end("coin-flip")
    r3 = bonus_base(3, "coin-flip", "cash-hunt")
    s3 = r3.events[-1]
    e3 = r3.end("coin-flip")
    r4 = bonus_base(4, "coin-flip", "coin-flip")
    s4 = r4.events[-1]
    e4 = r4.end("coin-flip")
    res, m, f = judge(SettlementCheck, [r1, r2, r3, r4], BenchView(rules=RULES_JSON))
    assert f == [
        (1, s1.seq, "§ 690.1(d): a 'pachinko' bonus game was played on a round settled on 1; only the sections "
                    "containing bonus game symbols trigger a bonus game"),
        (2, e2.seq, "§ 690.1(d): the round was settled on coin-flip, a bonus game symbol, but no bonus game followed "
                    "(no bonus_start); the section triggers a subsequent bonus game"),
        (2, e2.seq, "§ 690.4(b): the coin-flip bonus game on record does not establish the payout odds of wager(s) "
                    "['2-1'] (no bonus game played); they cannot have been paid per §§ 690.5–690.8"),
        (2, p2.seq, "wager 2-2: paid 500 cents at 1 to 1; § 690.1(c)(2), § 690.4(b): the odds its bonus game "
                    "established, the replayed final multiplier it is no winning wager"),
        (2, e2.seq, "the set of paid wagers differs from the winning wagers"),
        (3, e3.seq, "accepted wager(s) ['3-1'] never settled"),
        (3, s3.seq, "§ 690.1(d): the round was settled on coin-flip but the 'cash-hunt' bonus game was played"),
        (3, e3.seq, "§ 690.4(b): the coin-flip bonus game on record does not establish the payout odds of wager(s) "
                    "['3-1'] (no board generated); they cannot have been paid per §§ 690.5–690.8"),
        (4, e4.seq, "accepted wager(s) ['4-1'] never settled"),
        (4, s4.seq, "§ 690.1(d): the round was settled on coin-flip, a bonus game symbol, but no bonus game followed: "
                    "it was announced (bonus_start) and never played (no board of multipliers generated); the section "
                    "triggers a subsequent bonus game"),
        (4, e4.seq, "§ 690.4(b): the coin-flip bonus game on record does not establish the payout odds of wager(s) "
                    "['4-1'] (no board generated); they cannot have been paid per §§ 690.5–690.8"),
    ]
    assert m == {"rounds_settled": (4, "rounds", None, None), "bonus_rounds_settled": (3, "rounds", None, None),
                 "bonus_void_rounds": (0, "rounds", None, None), "wagers_settled": (7, "wagers", None, None),
                 "collected": (1500, "cents", None, None), "paid": (7600, "cents", None, None)}


def test_a_bonus_game_s_winners_are_paid_its_replayed_odds_and_only_after_it():
    from tests.hil.test_hil_bonus_checks import Round as BonusRound, coin_round
    good = coin_round()  # seats 1 and 2 win 60 to 1 (4/20 board ×3, blue)
    short = coin_round(n=2, pay=20)  # paid the unmultiplied board
    r = BonusRound("coin-flip", n=3)
    early_collect = next(e for e in r.events if e.kind == "collect")
    r.events.remove(early_collect)
    early_pay = Event(early_collect.seq, 3, early_collect.sim_time, 0, "croupier", "pay",
                      {"wager_id": "3-1", "seat": 1, "spot": "coin-flip", "stake_cents": 1000, "odds": "20 to 1",
                       "odds_ratio": "20", "win_cents": 20000})
    r.events.insert(r.events.index(next(e for e in r.events if e.kind == "bonus_start")), early_pay)
    r.board((4, 20), 1)
    r.flip("blue")
    late = r.add("croupier", "collect", {"wager_id": "3-99", "seat": 9, "spot": "1", "stake_cents": 500})
    order = r.settle({1: 20, 2: 20})
    start = next(e for e in order.events if e.kind == "bonus_start")
    res, m, f = judge(SettlementCheck, [good, short, order], BenchView(rules=RULES_JSON))
    pays = {e.payload["wager_id"]: e.seq for rv in (short, order) for e in rv.events if e.kind == "pay"}
    assert f == [
        (2, pays["2-1"], "wager 2-1: paid 20000 cents at 20 to 1; § 690.1(c)(2), § 690.4(b): the odds its bonus game "
                         "established, the replayed final multiplier 60 to 1 gives 60000 cents"),
        (2, pays["2-2"], "wager 2-2: paid 20000 cents at 20 to 1; § 690.1(c)(2), § 690.4(b): the odds its bonus game "
                         "established, the replayed final multiplier 60 to 1 gives 60000 cents"),
        (3, early_pay.seq, "a winning wager was paid before all losing wagers were collected"),
        (3, late.seq, f"§ 690.2(f): 1 losing wager(s) (first 3-99) collected after the coin-flip bonus game started "
                      f"(bonus_start, seq {start.seq}); the dealer shall first collect all losing wagers, then play the "
                      "bonus game"),
        (3, early_pay.seq, "§ 690.2(f): wager 3-1 paid before the coin-flip bonus game that determines its payout odds "
                           "was played"),
    ]
    assert m == {"rounds_settled": (3, "rounds", None, None), "bonus_rounds_settled": (3, "rounds", None, None),
                 "bonus_void_rounds": (0, "rounds", None, None), "wagers_settled": (9, "wagers", None, None),
                 "collected": (1500, "cents", None, None), "paid": (120000 + 40000 + 60000, "cents", None, None)}


def test_a_void_bonus_game_refunds_only_its_own_wagers():
    r1 = base_round(1, [(1, "pachinko", 1000, 1), (2, "1", 500, 2), (3, "2", 300, 3), (4, "pachinko", 200, 4),
                        (5, "5", 100, 5)], "pachinko")
    c1 = collect(r1, "1-2", "1", 500, 2)
    collect(r1, "1-4", "pachinko", 200, 4)  # a wager on the void game collected
    r1.ev("croupier", "bonus_start", {"game": "pachinko"}, 47.0)
    refund(r1, "1-1", "pachinko", 1000, 1)
    f3 = refund(r1, "1-3", "2", 300, 3)  # a loser refunded
    p1 = pay(r1, "1-1", "pachinko", 2, 2000)
    e1 = r1.end(None, void=True, reason="bonus_void")  # 1-5 neither collected nor refunded
    r2 = base_round(2, [(1, "1", 100, 1)], "1")
    refund(r2, "2-1", "1")
    e2 = r2.end(None, void=True, reason="bonus_void")  # voided for a bonus game on a number
    r3 = base_round(3, [(1, "1", 100, 1)], "1", outcome="spin_void")
    refund(r3, "3-1", "1")
    e3 = r3.end(None, void=True, reason="bonus_void")  # no valid spin at all
    r4 = base_round(4, [(1, "coin-flip", 100, 1), (2, "1", 100, 2)], "coin-flip")
    c4 = r4.ev("croupier", "bonus_start", {"game": "coin-flip"}, 44.0)
    late = collect(r4, "4-2", "1", 100, 2)  # collected after the game started
    refund(r4, "4-1", "coin-flip")
    r4.end(None, void=True, reason="bonus_void")
    r5 = bonus_base(5, "coin-flip", "coin-flip")
    r5.events.pop()  # no bonus_start: nothing to order by
    refund(r5, "5-1", "coin-flip", 1000)
    r5.end(None, void=True, reason="bonus_void")
    res, m, f = judge(SettlementCheck, [r1, r2, r3, r4, r5], BenchView(rules=RULES_JSON))
    assert f == [
        (1, e1.seq, "accepted wager(s) ['1-5'] never settled"),
        (1, p1.seq, "wager 1-1 paid in a round whose pachinko bonus game was void"),
        (1, f3.seq, "§ 690.2(f): losing wager 1-3 (on 2) refunded when the pachinko bonus game was void; the dealer "
                    "collects all losing wagers first, and the bonus game's void voids only the wagers on it"),
        (1, e1.seq, "§ 690.2(f): losing wager(s) ['1-5'] neither collected nor refunded"),
        (1, c1.seq, "wager(s) ['1-4'] on pachinko collected; the void bonus game's wagers are refunded"),
        (2, e2.seq, "a round voided for its bonus game, but it was not settled on a bonus game symbol (result "
                    "<Spot.ONE: '1'>)"),
        (3, e3.seq, "a round voided for its bonus game, but it was not settled on a bonus game symbol (result None)"),
        (4, late.seq, f"§ 690.2(f): 1 losing wager(s) (first 4-2) collected after the coin-flip bonus game started "
                      f"(bonus_start, seq {c4.seq}); the dealer shall first collect all losing wagers, then play the "
                      "bonus game"),
    ]
    assert (res.verdict, res.summary) == ("fail", "8 settlement deviation(s)")
    assert m == {"rounds_settled": (0, "rounds", None, None), "bonus_rounds_settled": (0, "rounds", None, None),
                 "bonus_void_rounds": (5, "rounds", None, None), "wagers_settled": (0, "wagers", None, None),
                 "collected": (0, "cents", None, None), "paid": (0, "cents", None, None)}
    res, m, f = judge(SettlementCheck, [r5], BenchView(rules=RULES_JSON))
    assert (res.verdict, f) == ("pass", [])
    assert res.summary == ("every round collected losers first and paid § 690.4 odds (bonus results: losers collected "
                           "before the game, the replayed final multipliers paid, 0 round(s); 1 void bonus game(s): only "
                           "its wagers refunded)")


# ------------------------------------------------------------------ § 690.2(a): the lock-out
B = 0.0078125  # a budget (2^-7 s) that binary floats hold exactly, as every offset below (multiples of 2^-10 s)
K = 0.0009765625  # 2^-10 s
CMD = 64.0
RES = 1e-9  # TIME_RESOLUTION_S: the device's one clock


def lock_round(n: int, presses, *, cmd: float | None | str = "base", cmd_device: str = "wagering",
               cmd_extra: dict | None = None, u: dict | None = None, base: float = CMD) -> R:
    """A lock-out command at ``cmd`` (the device's stamp; default ``base``) and presses (offset s from
    ``base``, accepted, reason, device)."""
    r = R(n)
    cmd = base if cmd == "base" else cmd
    if cmd is not None:
        r.ev(cmd_device, "lockout_command", {"device_time_s": cmd, **(cmd_extra or {})}, cmd)
    for k, (off, ok, *more) in enumerate(presses, 1):
        reason = more[0] if more else (None if ok else "locked_out")
        dev = more[1] if len(more) > 1 else "wagering"
        t = base + off
        r.ev(dev, "press", {"press_id": k, "seat": 7, "spot": "1", "stake_cents": 100, "accepted": ok,
                            "device_time_s": t, "reason": reason}, t)
    r.u = dict(u or {})
    return r


def interval(r: R, x: float, unc: float | None = None) -> Event:
    return r.ev("lockout_counter", "lockout_interval", {"interval_s": x, **({} if unc is None else {"uncertainty_s": unc})},
                1.0)


def test_lockout_golden_picture_on_the_device_s_own_stamps():
    r1 = lock_round(1, [(-K, True), (4 * K, True), (6 * K, True), (7 * K, False, "over_limit"), (7 * K, False),
                        (10 * K, False)])
    r2 = lock_round(2, [(4 * K, True), (B, True), (B + K, False)])  # accepted at the budget: a violation
    r3 = lock_round(3, [(B - K / 1024, True), (B, False)])  # accepted 1 µs before it, locked out at it: within
    r4 = lock_round(4, [(2 * K, False), (3 * K, True), (4 * K, False)])  # accepted after a refusal
    r5 = lock_round(5, [(K, True)])  # never refused: not bracketed
    r6 = lock_round(6, [(K, True)], cmd=None)  # no command: nothing judged
    r7 = lock_round(7, [(-K, True)])  # every press before the command
    res, m, f = judge(Lockout, [r1, r2, r3, r4, r5, r6, r7], config=CheckConfig(lockout_budget_s=B))
    p = {r.n: [e for e in r.events if e.kind == "press"] for r in (r2, r4)}
    assert f == [(2, p[2][1].seq, "wager recognised 7.812499 ms after the lock-out command: at or past the budget "
                                  "(7.812 ms)"),
                 (4, p[4][1].seq, "a press was accepted after an earlier press had been locked out")]
    lows = [6 * K - RES, B - RES, B - K / 1024 - RES, 3 * K - RES]
    highs = [7 * K + RES, B + K + RES, B + RES, 4 * K + RES]
    assert m == {
        "rounds_bracketed": (4, "rounds", None, None),
        "presses_locked_out": (6, "presses", None, None),  # 7K and 10K, B + K, B, 2K and 4K
        "lockout_latency_max": ((max(lows) + max(highs)) / 2, "s", (B - RES, B + K + RES), f"<= {B} s"),
        "lockout_latency_median": (sorted((a + b) / 2 for a, b in zip(lows, highs))[1:3] and
                                   sum(sorted((a + b) / 2 for a, b in zip(lows, highs))[1:3]) / 2, "s",
                                   ((lows[0] + lows[2]) / 2, (highs[0] + highs[2]) / 2), None),
        "bracket_width_max": (max(b - a for a, b in zip(lows, highs)), "s", None, None),  # K + 2 RES, as rounded
    }
    assert (res.verdict, res.summary) == ("fail", "2 lock-out violation(s)")


def test_lockout_pass_and_its_indeterminate_summaries():
    ok = lock_round(1, [(4 * K, True), (5 * K, False)])
    res, m, f = judge(Lockout, [ok], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("pass", [])
    assert res.summary == "lock-out took effect within the 7.812 ms budget in all 1 rounds; worst latency in [3.906, 4.883] ms"
    # the bracket ends past the budget with no violation: not a pass
    late = lock_round(1, [(4 * K, True), (B + K, False)])
    res, m, f = judge(Lockout, [late], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("indeterminate", [])
    assert res.summary == ("1 round(s) whose latency bracket straddles the 7.812 ms budget: no presses close to it "
                           "(enable lockout.probe, or refine its step)")
    res, m, f = judge(Lockout, [lock_round(1, [(K, True)])], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, res.summary) == ("indeterminate", "no presses after a lock-out command: latency not measured")
    assert m == {"rounds_bracketed": (0, "rounds", None, None), "presses_locked_out": (0, "presses", None, None)}
    # just at the budget by the tolerance: within
    edge = lock_round(1, [(4 * K, True), (B, False)])
    res, m, f = judge(Lockout, [edge], config=CheckConfig(lockout_budget_s=B))
    assert res.verdict == "pass" and m["lockout_latency_max"][2] == (4 * K - RES, B + RES)


def test_lockout_with_two_clocks_brackets_each_press_by_both_uncertainties():
    u = {"console": 0.0005, "wagering": 0.00025}  # the command stamped by the dealer's console
    e = RES + 0.00075
    straddle = lock_round(1, [(B - 2 * K, True), (B + K / 4, False)], cmd_device="console", u=u)
    over = lock_round(2, [(B + 2 * K, True), (B + 3 * K, False)], cmd_device="console", u=u)
    res, m, f = judge(Lockout, [straddle], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("indeterminate", [])
    assert m["lockout_latency_max"][2] == (B - 2 * K - e, B + K / 4 + e)
    assert m["bracket_width_max"][0] == 2 * K + K / 4 + 2 * e
    res, m, f = judge(Lockout, [straddle, over], config=CheckConfig(lockout_budget_s=B))
    press = next(x for x in over.events if x.kind == "press")
    assert f == [(2, press.seq, f"wager recognised {(B + 2 * K - e) * 1e3:.6f} ms after the lock-out command (its closing "
                                "bracketed to ±0.750 ms): at or past the budget (7.812 ms)")]
    assert (res.verdict, res.summary) == ("fail", "1 lock-out violation(s)")


def test_lockout_counter_readings_each_side_of_the_budget():
    r = lock_round(1, [(4 * K, True), (5 * K, False)])
    over = interval(r, B + 3 * RES)  # past the budget by more than its tolerance
    interval(r, B + RES)  # within the tolerance: at the budget
    interval(r, B - K, K / 2)
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert f == [(1, over.seq, f"the lock-out counter timed {(B + 3 * RES) * 1e3:.6f} ± 0.000000 ms from the button to "
                               "the lock-out indicator (budget 7.812 ms)")]
    assert m["lockout_latency_counter_max"] == (B + 3 * RES, "s", (B + 3 * RES, B + 3 * RES), f"<= {B} s")
    assert m["lockout_latency_counter_median"] == (B + RES, "s", None, None)
    assert m["counter_uncertainty_max"] == (K / 2, "s", None, None)
    r = lock_round(1, [(4 * K, True), (5 * K, False)])
    interval(r, B - K / 2, K)  # 0.5 K under, ± K: straddles
    interval(r, B - 2 * K, K)  # within by more than its uncertainty
    worst = interval(r, B - K, K / 4)
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("indeterminate", [])
    assert res.summary == ("1 lock-out counter reading(s) within their uncertainty of the 7.812 ms budget (the bracket "
                           "straddles it): not provably within it")
    assert m["lockout_latency_counter_max"] == (B - K / 2, "s", (B - 1.5 * K, B + K / 2), f"<= {B} s")
    assert worst and m["lockout_latency_counter_median"][0] == B - K
    r = lock_round(1, [(4 * K, True), (5 * K, False)])
    interval(r, B - K)  # no uncertainty declared: 0
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, m["counter_uncertainty_max"][0]) == ("pass", 0.0)


# ------------------------------------------------------------------ the lock-out probe pressed by the rig's actuator
UW = 2 ** -13  # the wagering device's clock-map uncertainty
W = 2 ** -11  # the command write's round trip: ± W about the command's stamp
C = 2 ** -12  # each actuation's closing bracket: ± C about its middle


def act_round(n: int, presses, *, cmd_lo: float | None = -W, cmd_hi: float | None = W, base: float = CMD,
              u: float | None = UW, unc: bool = True) -> R:
    """The command (stamp ``base``, its write's round trip [base + cmd_lo, base + cmd_hi]; None: not
    recorded) and presses the actuator made: (closing's middle offset, the device's stamp offset, accepted),
    all from ``base``; ``u`` the wagering device's clock uncertainty (None: undeclared); ``unc``: each
    actuation declares its closing's uncertainty."""
    r = R(n)
    trip = {} if cmd_lo is None else {"command_lo_s": base + cmd_lo, "command_hi_s": base + cmd_hi}
    r.ev("wagering", "lockout_command", {"device_time_s": base, **trip}, base)
    for k, (mid, stamp, ok) in enumerate(presses, 1):
        r.ev("actuator", "actuation", {"actuation_id": 50 + k, "seat": 7, "spot": "1", "coil": 7, "purpose": "probe",
                                       "closed_lo_s": base + mid - C, "closed_hi_s": base + mid + C, "ok": True,
                                       **({"uncertainty_s": C / k} if unc else {})}, base + mid)
        r.ev("wagering", "press", {"press_id": k, "seat": 7, "spot": "1", "stake_cents": 100, "accepted": ok,
                                   "device_time_s": base + stamp, "reason": None if ok else "locked_out"}, base + stamp)
    r.u = {} if u is None else {"wagering": u}
    return r


def test_the_actuator_s_brackets_verify_the_device_s_stamps():
    r = act_round(1, [(4 * K, 4 * K, True), (6 * K, 6 * K + C, False)])  # the second at its bracket's edge
    res, m, f = judge(Lockout, [r], BenchView(info={"actuator": {"contact_delay_s": 0.002}}), CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("pass", [])
    assert m["presses_verified"] == (2, "presses", None, None)
    assert m["actuation_uncertainty_max"] == (C, "s", None, None)
    assert m["lockout_latency_max"][2] == (4 * K - RES, 6 * K + C + RES)
    assert "rounds_unverified" not in m and "contact_late_median" not in m


def test_a_stamp_outside_the_actuator_s_bracket_leaves_the_round_unverified():
    late = act_round(1, [(4 * K, 4 * K + 2 * K, True), (6 * K, 8 * K, False)])  # the contacts close 2 K late
    early = act_round(2, [(4 * K, 4 * K - K, True), (6 * K, 6 * K, False)])
    # an early stamp is matched to its actuation only where the attribution's window is the wider: another
    # device's press (long before the command, judged by nobody) with a larger clock uncertainty
    early.ev("spare", "press", {"press_id": 9, "seat": 8, "spot": "2", "stake_cents": 100, "accepted": True,
                                "device_time_s": CMD - 1.0}, CMD - 1.0)
    early.u["spare"] = 4 * K
    bench = BenchView(info={"actuator": {"contact_delay_s": 0.002}})
    res, m, f = judge(Lockout, [late, early], bench, CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("indeterminate", [])
    assert m["contact_late_median"] == (2 * K, "s", (-K, 2 * K), None)  # -K, 2K, 2K
    assert m["presses_outside_bracket"] == (3, "presses", None, None)
    assert m["rounds_unverified"] == (2, "rounds", None, None)
    assert m["presses_verified"] == (1, "presses", None, None)
    assert res.summary == (
        "2 round(s) not verified by the rig: 3 press stamp(s) of the device lie after the rig's bracket of their "
        "actuation (median 1.953 ms from its middle, -0.977 to 1.953 ms): the bench's contact_delay_s (2.000 ms) is "
        "wrong — the contacts close about 3.953 ms after the output is set (declare it, or the device's clock is not "
        "the one it stamps its presses with); by the device's own stamps the worst latency is in [5.859, 7.813] ms — "
        "not a pass on the device's word alone")
    res, m, f = judge(Lockout, [early], BenchView(), CheckConfig(lockout_budget_s=B))
    assert res.summary.startswith("1 round(s) not verified by the rig: 1 press stamp(s) of the device lie before the "
                                  "rig's bracket of their actuation (median 0.977 ms from its middle, -0.977 to -0.977 "
                                  "ms): the bench's contact_delay_s (0.000 ms) is wrong — the contacts close about "
                                  "-0.977 ms after")


def test_a_command_stamp_outside_its_write_s_round_trip_leaves_the_round_unverified():
    before = act_round(1, [(4 * K, 4 * K, True), (6 * K, 6 * K, False)], cmd_lo=2 * K, cmd_hi=3 * K)
    after = act_round(2, [(4 * K, 4 * K, True), (6 * K, 6 * K, False)], cmd_lo=-3 * K, cmd_hi=-K)
    res, m, f = judge(Lockout, [before, after], BenchView(), CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("indeterminate", [])
    assert m["command_stamp_past_bracket_max"] == (-(2 * K - UW), "s", None, None)  # the larger of -1.83 and +0.85 ms
    assert m["rounds_unverified"] == (2, "rounds", None, None)
    assert "presses_verified" not in m and "contact_late_median" not in m
    assert res.summary == (
        "2 round(s) not verified by the rig: the device's lock-out command stamp lies -1.831 ms outside the command "
        "write's round trip in 2 round(s); by the device's own stamps the worst latency is in [3.906, 5.859] ms — not a "
        "pass on the device's word alone")
    res, m, f = judge(Lockout, [after], BenchView(), CheckConfig(lockout_budget_s=B))
    assert m["command_stamp_past_bracket_max"][0] == K - UW


def test_section_uniformity_names_each_direction_s_test_in_the_order_first_seen():
    rounds = chi_rounds([], [0] * 5 + [1] * 5, [0] * 5 + [1] * 5)
    rounds = rounds[10:] + rounds[:10]  # the rounds without a direction first
    _, m, _ = judge(SectionUniformity, rounds, wheel_bench(LAYOUT[:2]), CheckConfig(chi2_min_spins=20))
    assert list(m) == ["spins", "chi2_pooled", "p_value_pooled", "chi2_ccw", "p_value_ccw", "chi2_?", "p_value_?", "dof"]


def test_a_p_value_at_the_level_is_no_deviation():
    rounds = chi_rounds([0] * 3 + [1] * 3, [0] * 2 + [1] * 2)  # χ² = 0: p = 1 = α
    res, m, f = judge(SectionUniformity, rounds, wheel_bench(LAYOUT[:2]), CheckConfig(chi2_min_spins=10, chi2_alpha=1.0))
    assert (res.verdict, f, m["p_value_pooled"][0]) == ("pass", [], 1.0)
    assert res.summary == "uniform at α = 1.0 (1 tests): smallest p = 1"


def test_a_lockout_command_without_its_stamp_is_read_at_its_trace_time():
    r = lock_round(1, [(4 * K, True), (B, True), (B + K, False)], cmd=None)
    r.ev("wagering", "lockout_command", {}, CMD)
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert [x[2] for x in f] == ["wager recognised 7.812499 ms after the lock-out command: at or past the budget "
                                 "(7.812 ms)"]


def test_settlement_caps_at_the_rules_payout_limit_and_names_the_multiplier_it_expected():
    capped = rules_bench(max_payout_per_round_cents=1000)
    r1 = base_round(1, [(1, "5", 100, 1)], "5", ("5", 7, True))
    pay(r1, "1-1", "5", 35, 1000, capped=True)  # 3500 capped at the table's 1000
    r1.end("5")
    r2 = base_round(2, [(1, "1", 100, 1)], "1", ("1", 2, True))
    p2 = pay(r2, "2-1", "1", 1, 100)  # the Top Slot's ×2 left out
    r2.end("1")
    res, m, f = judge(SettlementCheck, [r1, r2], capped)
    assert f == [(2, p2.seq, "wager 2-1: paid 100 cents at 1 to 1; § 690.1(c)(1), § 690.4(c): the § 690.4(a) odds times "
                             "the Top Slot's ×2 on 1 2 to 1 gives 200 cents")]
    assert m["paid"][0] == 1100


def test_settlement_names_at_most_five_wagers_a_finding():
    r1 = base_round(1, [(k, "1", 100, k) for k in range(1, 8)], "1")
    e1 = r1.end("1")  # none of the seven settled
    r2 = base_round(2, [(k, "coin-flip", 100, k) for k in range(1, 8)], "coin-flip")
    r2.ev("croupier", "bonus_start", {"game": "coin-flip"}, 47.0)
    e2 = r2.end("coin-flip")
    _, _, f = judge(SettlementCheck, [r1, r2], BenchView(rules=RULES_JSON))
    assert (1, e1.seq, "accepted wager(s) ['1-1', '1-2', '1-3', '1-4', '1-5'] never settled") in f
    assert (2, e2.seq, "§ 690.4(b): the coin-flip bonus game on record does not establish the payout odds of wager(s) "
                       "['2-1', '2-2', '2-3', '2-4', '2-5'] (no board generated); they cannot have been paid per "
                       "§§ 690.5–690.8") in f


# ------------------------------------------------------------------ the lock-out's every edge
TOLB = 2 * RES  # BUDGET_TOLERANCE_S


def lockout(rounds, budget: float = B, bench: BenchView | None = None) -> Lockout:
    c = Lockout(CheckConfig(lockout_budget_s=budget))
    c.setup(bench or BenchView())
    for r in rounds:
        c.observe(r.view())
    return c


def test_a_round_s_bracket_against_the_budget():
    c = Lockout(CheckConfig(lockout_budget_s=B))
    assert c.bracket_state(B - TOLB, B + K) == "over"  # at the budget by its tolerance: accepted there is over
    assert c.bracket_state(B - TOLB - K / 1024, B + TOLB) == "within"  # locked out at it (by its tolerance)
    assert c.bracket_state(B - TOLB - K / 1024, B + TOLB + K / 1024) == "straddle"
    assert c.bracket_state(B - TOLB + K / 1024, B + K) == "over"


def test_the_counter_at_the_budget_s_tolerance_exactly():
    r = lock_round(1, [(4 * K, True), (5 * K, False)])
    interval(r, B + TOLB)  # at the budget by its tolerance: within
    interval(r, B, TOLB)  # up to the budget by its tolerance: within
    interval(r, B, 0.0)
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, f) == ("pass", [])
    assert list(m) == ["rounds_bracketed", "presses_locked_out", "lockout_latency_max", "lockout_latency_median",
                       "bracket_width_max", "lockout_latency_counter_max", "lockout_latency_counter_median",
                       "counter_uncertainty_max"]
    assert m["lockout_latency_counter_max"] == (B + TOLB, "s", (B + TOLB, B + TOLB), f"<= {B} s")
    r = lock_round(1, [(4 * K, True), (5 * K, False)])
    over = interval(r, B + K / 2, K / 8)
    interval(r, B - K / 4, K / 2)  # two readings straddling the budget
    interval(r, B, K)
    res, m, f = judge(Lockout, [r], config=CheckConfig(lockout_budget_s=B))
    assert f == [(1, over.seq, "the lock-out counter timed 8.300781 ± 0.122070 ms from the button to the lock-out "
                               "indicator (budget 7.812 ms)")]
    c = lockout([r])
    assert (c.counter_straddle, c.counter, c.counter_u) == (2, [B + K / 2, B - K / 4, B], [K / 8, K / 2, K])


def test_only_refusals_bracket_the_latency_from_the_command():
    r1 = lock_round(1, [(K, False), (2 * K, False)])
    r2 = lock_round(2, [(4 * K, True), (5 * K, False)])
    c = lockout([r1, r2])
    assert c.brackets == {1: (0.0, K + RES), 2: (4 * K - RES, 5 * K + RES)}
    assert (c.lower, c.upper, c.straddle, c.rejected_late) == ([0.0, 4 * K - RES], [K + RES, 5 * K + RES], 0, 3)
    res = c.result()
    assert res.verdict == "pass" and res.summary.endswith("worst latency in [3.906, 4.883] ms")


def test_a_refusal_ending_where_the_last_acceptance_begins_brackets_nothing():
    a = 3 * K
    r = (a - RES) - RES
    assert (r - 0.0) + RES == (a - 0.0) - RES  # the refusal's upper end is the acceptance's lower end, exactly
    rnd = lock_round(1, [(r, False), (a, True), (4 * K, False)], base=0.0)
    c = lockout([rnd])
    assert (c.brackets, c.failed) == ({1: (a - RES, 4 * K + RES)}, False)


def test_a_press_accepted_at_the_budget_less_its_tolerance_is_a_violation():
    a = (B - TOLB) + RES
    assert a - RES == B - TOLB  # the comparison the check makes, exactly
    rnd = lock_round(1, [(a, True), (B + K, False)], base=0.0)
    res, _, f = judge(Lockout, [rnd], config=CheckConfig(lockout_budget_s=B))
    assert (res.verdict, [x[2] for x in f]) == ("fail", ["wager recognised 7.812498 ms after the lock-out command: at "
                                                         "or past the budget (7.812 ms)"])
    rnd = lock_round(1, [(a - math.ulp(a), True), (B + K, False)], base=0.0)
    c = lockout([rnd])
    assert (c.failed, c.straddle) == (False, 1)


def test_the_closing_s_bracket_is_named_only_when_wider_than_four_resolutions():
    # a zero budget: every accepted press is over it; a press at the command's stamp is bracketed [0, e]
    for u, words in ((3e-9, ""), (3.5e-9, " (its closing bracketed to ±0.000 ms)")):
        rnd = lock_round(1, [(0.0, True, None, "spare"), (K, False)], base=0.0, u={"spare": u})
        _, _, f = judge(Lockout, [rnd], config=CheckConfig(lockout_budget_s=0.0))
        assert [x[2] for x in f] == [f"wager recognised 0.000000 ms after the lock-out command{words}: at or past the "
                                     "budget (0.000 ms)"]


def test_a_straddling_round_counts_each_time():
    rounds = [lock_round(n, [(B - K, True), (B + K, False)], cmd_device="console", u={"console": K}) for n in (1, 2)]
    res, m, f = judge(Lockout, rounds, config=CheckConfig(lockout_budget_s=B))
    assert res.summary.startswith("2 round(s) whose latency bracket straddles")


def test_two_clocks_each_undeclared_uncertainty_is_none():
    r1 = lock_round(1, [(4 * K, True), (5 * K, False)], cmd_device="console", u={"console": C})  # presses' undeclared
    r2 = lock_round(2, [(4 * K, True), (5 * K, False)], cmd_device="console", u={"wagering": C})  # command's undeclared
    c = lockout([r1, r2])
    assert c.brackets == {1: (4 * K - (RES + C), 5 * K + (RES + C)), 2: (4 * K - (RES + C), 5 * K + (RES + C))}


def test_a_press_before_the_command_within_its_uncertainty_is_after_it():
    r1 = lock_round(1, [(-K / 8, False, "locked_out", "spare")], base=0.0, u={"spare": K / 4})  # d + e > 0
    r2 = lock_round(2, [(-RES, False)], base=0.0)  # d + e = 0 exactly
    r3 = lock_round(3, [(-2 * RES, False)], base=0.0)  # d + e < 0: before it
    c = lockout([r1, r2, r3])
    assert (c.rejected_late, c.brackets) == (2, {1: (0.0, -K / 8 + (RES + K / 4))})


def test_the_press_named_for_an_acceptance_after_a_refusal_is_the_last_by_its_lower_end():
    # press 2 (another device: a wide bracket) begins before press 3 and ends after it
    rnd = lock_round(1, [(2 * K, False), (3 * K, True, None, "spare"), (3 * K + K / 2, True)], u={"spare": K})
    res, _, f = judge(Lockout, [rnd], config=CheckConfig(lockout_budget_s=B))
    press3 = [e for e in rnd.events if e.kind == "press"][2]
    assert f == [(1, press3.seq, "a press was accepted after an earlier press had been locked out")]


def spare(r: R) -> R:
    """Another device's press long before the command (judged by nobody) with a larger clock uncertainty:
    the attribution's window widens with it, so that a stamp early of its actuation's bracket is matched."""
    r.ev("spare", "press", {"press_id": 99, "seat": 8, "spot": "2", "stake_cents": 100, "accepted": True,
                            "device_time_s": r.events[0].sim_time - 1.0}, r.events[0].sim_time - 1.0)
    r.u["spare"] = 4 * K
    return r


def test_an_actuation_without_its_uncertainty_declared_adds_none():
    c = lockout([act_round(1, [(4 * K, 4 * K, True), (6 * K, 6 * K, False)], unc=False)])
    assert (c.actuation_u, c.verified_presses) == (0.0, 2)
    assert "actuation_uncertainty_max" not in {x.name for x in c.result().measurements}


def test_only_a_press_before_the_command_by_both_accounts_is_left_out():
    both = act_round(1, [(-8 * K, -8 * K, True), (4 * K, 4 * K, True), (6 * K, 6 * K, False)])
    closing_after = act_round(2, [(-C, -C, True)])  # stamped before the command, its contacts closed as it was sent
    stamp_after = act_round(3, [(-W - 2 * C, 0.0, True)])  # closed before the write began, stamped at the command
    c = lockout([both, closing_after, stamp_after])
    assert (c.verified_presses, c.brackets) == (3, {1: (4 * K - RES, 6 * K + RES)})
    assert (c.stamp_excess, c.unverified) == ([(3, 1, W + 2 * C)], {3})
    edge_sum = act_round(4, [(-W - 2 * C, -RES, True)], base=0.0)  # d + e = 0 exactly: after the command
    edge_closing = act_round(5, [(-W - C, -W - C, True)], base=0.0)  # closed up to the write's start exactly
    c = lockout([edge_sum, edge_closing])
    assert (c.verified_presses, [x[:2] for x in c.stamp_excess], c.unverified) == (1, [(4, 1)], {4})


def test_a_stamp_at_its_actuation_s_bracket_widened_by_the_clock_is_verified():
    high = act_round(1, [(4 * K, 4 * K + C + UW, True), (6 * K, 6 * K - C - UW, False)])
    c = lockout([high])
    assert (c.verified_presses, c.unverified) == (2, set())
    late = act_round(2, [(4 * K, 4 * K + C + 2 * UW, True)])  # past it, its difference still inside the rig's
    early = spare(act_round(3, [(4 * K, 4 * K - C - 2 * UW, True)]))
    undeclared = act_round(4, [(4 * K, 4 * K + C + 2 * RES, True)], u=None)  # no clock uncertainty: 1 ns of it
    c = lockout([late, early, undeclared])
    assert (c.verified_presses, c.unverified) == (0, {2, 3, 4})
    assert [(n, pid, round(x / RES)) for n, pid, x in c.stamp_excess] == [
        (2, 1, round((C + 2 * UW) / RES)), (3, 1, -round((C + 2 * UW) / RES)), (4, 1, round((C + 2 * RES) / RES))]


def test_stamps_each_inside_their_brackets_whose_difference_is_not():
    # the command stamped at its write's start less the clock's uncertainty, the press at its closing's end plus it
    late = act_round(1, [(4 * K, 4 * K + C + UW, True)], cmd_lo=UW, cmd_hi=W)
    # the command stamped at the write's end plus the uncertainty, the press at its closing's start less it
    early = act_round(2, [(4 * K, 4 * K - C - UW, True)], cmd_lo=-W, cmd_hi=-UW)
    c = lockout([late, early])
    assert (c.command_excess, c.verified_presses, c.unverified) == ([], 0, {1, 2})
    assert c.stamp_excess == [(1, 1, C + UW), (2, 1, -(C + UW))]


def test_the_command_stamp_at_its_write_s_edges():
    at_hi = act_round(1, [(4 * K, 4 * K, True), (6 * K, 6 * K, False)], cmd_lo=-W, cmd_hi=0.0)
    at_lo = act_round(2, [(4 * K, 4 * K, True), (6 * K, 6 * K, False)], cmd_lo=0.0, cmd_hi=W)
    c = lockout([at_hi, at_lo])
    assert (c.command_excess, c.unverified, c.verified_presses) == ([], set(), 4)
    one_ns = act_round(3, [(4 * K, 4 * K, True)], cmd_lo=-W, cmd_hi=-RES, base=0.0, u=None)  # 1 ns past: within
    two_ns = act_round(4, [(4 * K, 4 * K, True)], cmd_lo=-W, cmd_hi=-2 * RES, base=0.0, u=None)
    c = lockout([one_ns, two_ns])
    assert (c.command_excess, c.unverified) == ([(4, 2 * RES)], {4})


def test_without_the_write_s_round_trip_the_command_is_its_stamp_within_the_clock():
    # each press stamped at its closing's edge: the rig's bracket is the closing less the command's stamp ± UW
    r = act_round(1, [(4 * K, 4 * K + C, True), (6 * K, 6 * K - C, False)], cmd_lo=None)
    c = lockout([r])
    assert (c.verified_presses, c.unverified, c.brackets) == (2, set(), {1: (4 * K + C - RES, 6 * K - C + RES)})


def test_the_unverified_summary_s_parts():
    late = act_round(1, [(4 * K, 5 * K, True), (6 * K, 6 * K, False)])
    early = spare(act_round(2, [(4 * K, 3 * K, True), (6 * K, 6 * K, False)]))
    res, m, _ = judge(Lockout, [late, early], config=CheckConfig(lockout_budget_s=B))
    assert m["contact_late_median"][0] == 0.0
    assert res.summary.startswith("2 round(s) not verified by the rig: 2 press stamp(s) of the device lie before the "
                                  "rig's bracket of their actuation (median 0.000 ms from its middle, -0.977 to 0.977 ms)")
    both = act_round(3, [(4 * K, 5 * K, True)], cmd_lo=2 * K, cmd_hi=3 * K)  # no refusal: nothing bracketed
    res, m, _ = judge(Lockout, [both], config=CheckConfig(lockout_budget_s=B))
    assert res.summary == (
        "1 round(s) not verified by the rig: 1 press stamp(s) of the device lie after the rig's bracket of their "
        "actuation (median 0.977 ms from its middle, 0.977 to 0.977 ms): the bench's contact_delay_s (0.000 ms) is "
        "wrong — the contacts close about 0.977 ms after the output is set (declare it, or the device's clock is not "
        "the one it stamps its presses with); the device's lock-out command stamp lies -1.831 ms outside the command "
        "write's round trip in 1 round(s) — not a pass on the device's word alone")


def test_a_void_bonus_game_names_at_most_five_wagers_a_finding():
    presses = [(k, "1", 100, k) for k in range(1, 8)] + [(k, "pachinko", 100, k) for k in range(8, 15)]
    r = base_round(1, presses, "pachinko")
    c = [collect(r, f"1-{k}", "pachinko", 100, k) for k in range(8, 15)]  # the void game's wagers collected
    e = r.end(None, void=True, reason="bonus_void")  # its losers neither collected nor refunded
    _, _, f = judge(SettlementCheck, [r], BenchView(rules=RULES_JSON))
    assert f == [(1, e.seq, "accepted wager(s) ['1-1', '1-2', '1-3', '1-4', '1-5'] never settled"),
                 (1, e.seq, "§ 690.2(f): losing wager(s) ['1-1', '1-2', '1-3', '1-4', '1-5'] neither collected nor "
                            "refunded"),
                 (1, c[0].seq, "wager(s) ['1-10', '1-11', '1-12', '1-13', '1-14'] on pachinko collected; the void bonus "
                               "game's wagers are refunded")]


def test_a_bonus_game_is_replayed_under_the_rules_submission_on_record():
    """Paid under the Rescue reading "before-top-slot" (rules/data/crazy_time_rescue_before_top_slot.toml):
    a 2/20 board ×3 (6/60 displayed) lands red; the small multiplier before the Top Slot is 2×, so the
    Rescue Flip may be activated, and its blue pays 60 to 1 — under the default reading (displayed: 6×)
    it could not, and 6 to 1 stands."""
    from pathlib import Path

    from tests.hil.test_hil_bonus_checks import coin_round
    alternate = load_rules(Path(__file__).resolve().parents[2] / "rules" / "data" /
                           "crazy_time_rescue_before_top_slot.toml").submission.model_dump(mode="json", by_alias=True)
    rescued = coin_round(base=(2, 20), top=("coin-flip", 3, True), faces=("red", "blue"), rescue=1, pay=60)
    res, m, f = judge(SettlementCheck, [rescued], BenchView(rules=alternate))
    assert (res.verdict, f, m["paid"][0]) == ("pass", [], 120000)
    other = coin_round(base=(2, 20), top=("coin-flip", 3, True), faces=("red", "blue"), rescue=1, pay=60, n=2)
    start = next(e for e in other.events if e.kind == "bonus_start")
    start.payload["game"] = "cash-hunt"  # announced as another game: the settlement's own replay decides
    _, _, f = judge(SettlementCheck, [other], BenchView(rules=alternate))
    assert f == [(2, start.seq, "§ 690.1(d): the round was settled on coin-flip but the 'cash-hunt' bonus game was "
                                "played")]


def test_a_zero_budget_s_bracket_ending_past_it_without_a_violation_is_no_pass():
    # only refusals: the latency is in (0, first refusal]; with a zero budget that bracket is "over" it,
    # and no press was accepted there: neither a violation nor a pass
    res, m, f = judge(Lockout, [lock_round(1, [(K, False)], base=0.0)], config=CheckConfig(lockout_budget_s=0.0))
    assert (res.verdict, f) == ("indeterminate", [])
    assert res.summary == ("a latency bracket ends at 0.976563 ms, past the 0.000 ms budget, without a violation "
                           "found: not a pass")
    res, m, f = judge(Lockout, [lock_round(1, [(RES, False)], base=0.0)], config=CheckConfig(lockout_budget_s=0.0))
    assert (res.verdict, m["lockout_latency_max"][2]) == ("pass", (0.0, 2 * RES))  # ends at the tolerance: within


def test_how_far_a_stamp_lies_outside_is_never_taken_for_none_where_the_sums_cancel():
    """Times about the clock's 0 where a sum of a stamp and a bracket's end is exactly 0: the stamp is
    outside by the difference, never inside. Each round: one press, unverified."""
    x = UW
    # past its closing's end: the stamp as far after 0 as that end (widened by 1 ns) lies before it
    hi_b = (-2 * K + C) + (0.0 + RES)
    after_end = act_round(1, [(-2 * K, -hi_b, True)], cmd_lo=-8 * K, cmd_hi=0.0, base=0.0, u=None)
    # before its closing's start: the mirror (the attribution's window widened by another device's press)
    lo_b = (2 * K - C) - (0.0 + RES)
    before_start = spare(act_round(2, [(2 * K, -lo_b, True)], cmd_lo=0.0, cmd_hi=8 * K, base=0.0, u=None))
    # inside its closing (a wide clock), the difference past the rig's bracket by as much as that ends before 0
    past_rig = act_round(3, [(-x - C, x, True)], cmd_lo=0.0, cmd_hi=W, base=0.0, u=4 * K)
    # the mirror: before the rig's bracket by as much as that begins after 0
    before_rig = act_round(4, [(x + C, -x, True)], cmd_lo=-W, cmd_hi=0.0, base=0.0, u=4 * K)
    c = lockout([after_end, before_start, past_rig, before_rig])
    assert (c.verified_presses, c.unverified) == (0, {1, 2, 3, 4})
    assert c.stamp_excess == [(1, 1, -hi_b - (-2 * K)), (2, 1, -lo_b - 2 * K), (3, 1, 2 * x + C), (4, 1, -2 * x - C)]


def test_a_device_offset_touching_the_rig_s_bracket_at_one_point_is_verified():
    t = (2 * K + C) + RES  # the stamp 1 ns after its closing's end: the bracket widened by 1 ns ends there
    assert (t - 0.0) - RES == 2 * K + C  # the device's offset less 1 ns is the rig's upper end, exactly
    r = act_round(1, [(2 * K, t, True)], cmd_lo=0.0, cmd_hi=W, base=0.0, u=None)
    c = lockout([r])
    assert (c.verified_presses, c.unverified, c.stamp_excess) == (1, set(), [])


def test_presses_without_the_device_s_stamps_are_read_at_their_trace_times():
    r = R(1)
    r.ev("wagering", "lockout_command", {}, CMD)
    for k, (off, ok) in enumerate(((4 * K, True), (5 * K, False)), 1):
        r.ev("wagering", "press", {"press_id": k, "accepted": ok, "reason": None if ok else "locked_out"}, CMD + off)
    c = lockout([r])
    assert c.brackets == {1: (4 * K - RES, 5 * K + RES)}
