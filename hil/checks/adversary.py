"""The late-bet adversary's checks, one per table, each citing its game's "no more bets" clause.

The scenario's ``adversary`` (``hil.adversary``) makes wager attempts at random offsets around
"no more bets" at one seat. This check judges them from the trace alone:

* at a table with a wagering device, from the **device's own reports**: each attempt is tied to the
  device's ``press`` report (by the press id its injection answered with, or by the actuation the
  trace's attribution matches the press to); the press's stamp is judged against the device's
  **lock edge** — its own ``lockout_command`` stamp plus the scenario's budget, or the first press
  it refused as ``locked_out`` after the command if that came earlier. A press the device accepted
  after its lock edge is a finding. A press accepted after "no more bets" but before the edge (inside
  the lock-out latency the device is allowed) is counted and measured: the widest window is the
  time from the rig's acknowledgement of the lock-out (the command write's answer,
  ``command_hi_s``; in simulation the device's command stamp) to the latest press the device still
  accepted. None of the presses the device accepted at or after "no more bets" may become a wager
  (the croupier's ``wager`` record with its press id) or a meter increment (the device's
  ``meter_increment`` for it): each is a finding.
* at a card table without a wagering device, from the rig's record of each chip it placed on the
  layout (UTH, Criss-Cross) or request it made (Crazy 4): any placed at or after the croupier's "no
  more bets" that the croupier took as a wager is a finding. There is no device latency: "no more
  bets" is the edge.

What the croupier did with each attempt is reported (a wager, refused with its reason, or nothing
recorded). Indeterminate when the trace holds no adversary attempt.
"""

from __future__ import annotations

from collections import Counter
from hil.checks.base import Check, Measurement, RoundView
from hil.trace import Event

TIME_RESOLUTION_S = 1e-9
ADVERSARY = "adversary"


def _t(ev: Event) -> float:
    return float(ev.payload.get("device_time_s", ev.sim_time))


class LateBets(Check):
    """The late-bet adversary (base: each table's subclass cites its clause)."""

    def __init__(self, config):
        super().__init__(config)
        self.attempts = self.answered = self.lost = self.refused = self.unsent = 0
        self.layout = False  # a card table's attempts (chips, requests): no device, "no more bets" is the edge
        self.late = 0  # attempts registered at or after "no more bets", whatever the answer
        self.on_time = self.after_nmb = self.after_edge = self.inside_latency = self.after_ack = 0
        self.became_wagers = self.meter_increments = 0
        self.widest_window_s: float | None = None  # from the rig's lock-out acknowledgement
        self.latest_accepted_offset_s: float | None = None  # from "no more bets"
        self.rounds_without_command = 0  # rounds with attempts but no lock-out command of the device's
        self.unjudged = 0  # accepted after "no more bets" in such a round: no lock edge to judge them by
        self.before_command = 0  # accepted after "no more bets" but before the device received the lock-out
        self.straddling = 0  # accepted within the device clock's uncertainty of "no more bets"
        self.command_delay_s: float | None = None  # the longest from "no more bets" to the device's lock-out stamp
        self.decisions: Counter[str] = Counter()  # what the croupier did with the late accepted attempts
        self.refusals: Counter[str] = Counter()  # the device's reasons

    # ------------------------------------------------------------------ per round
    def observe(self, rv: RoundView) -> None:
        attempts = [e for e in rv.events if e.device == ADVERSARY and e.kind == "adversary_attempt"]
        self.unsent += sum(1 for e in rv.events if e.device == ADVERSARY and e.kind == "adversary_unsent")
        if not attempts:
            return
        self.rounds += 1
        self.attempts += len(attempts)
        answers = {e.payload["attempt"]: e for e in rv.events if e.device == ADVERSARY and e.kind == "adversary_answer"}
        via = {str(a.payload.get("via")) for a in attempts}
        if via & {"chips", "request"}:
            self.layout = True
            self._layout(rv, attempts, answers)
        else:
            self._presses(rv, attempts, answers)

    def _presses(self, rv: RoundView, attempts: list[Event], answers: dict[str, Event]) -> None:
        budget = self.config.lockout_budget_s
        nmb = rv.no_more_bets.sim_time if rv.no_more_bets is not None else None
        presses = {p.payload["press_id"]: p for p in rv.presses}
        by_actuation = {aid: pid for pid, aid in rv.attribution.matched.items()} if rv.actuations else {}
        # this round's lock-out command: the device's stamp at or after "no more bets" (a command a slow link
        # delivered after the round it belongs to ended is no edge of this one)
        cmd = None
        if nmb is not None:
            cmd = next((e for e in rv.by_devices("lockout_command")
                        if _t(e) + rv.clock_uncertainty_s.get(e.device, 0.0) + TIME_RESOLUTION_S >= nmb), None)
        if cmd is None:
            self.rounds_without_command += 1
        t_cmd = _t(cmd) if cmd is not None else None
        ack = float(cmd.payload.get("command_hi_s", t_cmd)) if cmd is not None else None
        # the device's lock edge: its command stamp plus the budget, or its first refusal as locked out
        first_refusal = None if t_cmd is None else min(
            (_t(p) for p in rv.presses if not p.payload["accepted"] and p.payload.get("reason") == "locked_out"
             and _t(p) >= t_cmd), default=None)
        edge = None if t_cmd is None else t_cmd + budget
        if first_refusal is not None and edge is not None:
            edge = min(edge, first_refusal)
        wager_of = {e.payload.get("press_id"): e for e in rv.by_croupier("wager") if e.payload.get("press_id") is not None}
        refused_by_croupier = {e.payload.get("press_id"): e for e in rv.by_croupier("wager_rejected")
                               if e.payload.get("press_id") is not None}
        increments = Counter(e.payload.get("press_id") for e in rv.by_devices("meter_increment"))
        if cmd is not None and nmb is not None:  # how long after "no more bets" the device had the lock-out
            d = t_cmd - nmb
            self.command_delay_s = d if self.command_delay_s is None else max(self.command_delay_s, d)
        for a in attempts:
            ans = answers.get(a.payload["attempt"])
            pid = None
            if ans is not None:
                pid = ans.payload.get("press_id")
                if pid is None and ans.payload.get("actuation_id") is not None:
                    pid = by_actuation.get(ans.payload["actuation_id"])
            p = presses.get(pid) if pid is not None else None
            if p is None:  # no answer, or no device report of it: the device never registered the attempt
                self.lost += 1
                continue
            self.answered += 1
            # wager membership ("not provably before no more bets"): the uncertainty the croupier decided
            # with (RoundView.wager_uncertainty_s); the device's lock-out timing: the round's largest
            uw = rv.wager_uncertainty_s.get(p.device, 0.0)
            if nmb is not None and _t(p) + uw >= nmb:
                self.late += 1
            if not p.payload["accepted"]:
                self.refused += 1
                self.refusals[str(p.payload.get("reason"))] += 1
                continue
            u = rv.clock_uncertainty_s.get(p.device, 0.0)
            t = _t(p)
            if nmb is None or t + uw < nmb:
                self.on_time += 1
                continue
            self.after_nmb += 1
            off = t - nmb
            self.latest_accepted_offset_s = off if self.latest_accepted_offset_s is None else max(
                self.latest_accepted_offset_s, off)
            if edge is None:
                self.unjudged += 1  # accepted after "no more bets" in a round without the device's command
            elif t - u > edge + TIME_RESOLUTION_S:
                self.after_edge += 1
                why = (f"{(t - first_refusal) * 1e3:.3f} ms after the device's first refusal as locked out"
                       if first_refusal is not None and t > first_refusal else
                       f"{(t - t_cmd) * 1e3:.3f} ms after the device received the lock-out command (budget "
                       f"{budget * 1e3:.3f} ms)")
                self.finding(rv.n, p, f"attempt {a.payload['attempt']}: press {pid} accepted by the device {why}")
            elif t < t_cmd:
                self.before_command += 1  # after "no more bets", before the device had the lock-out command
            else:
                self.inside_latency += 1
            late = t - uw >= nmb  # provably at or after "no more bets"; within the clock's uncertainty: not provably
            if not late:
                self.straddling += 1
            if ack is not None and t - u > ack:
                self.after_ack += 1
                w = t - ack
                self.widest_window_s = w if self.widest_window_s is None else max(self.widest_window_s, w)
            if pid in wager_of and not late:  # the croupier's clock map told it "before": its decision to take
                self.decisions["wager (within the clock's uncertainty)"] += 1
            elif pid in wager_of:
                self.became_wagers += 1
                self.decisions["wager"] += 1
                self.finding(rv.n, wager_of[pid], f"attempt {a.payload['attempt']}: press {pid}, accepted by the "
                             f"device {off * 1e3:.3f} ms after \"no more bets\", became {wager_of[pid].payload.get('wager_id')}")
            elif pid in refused_by_croupier:
                self.decisions[f"refused: {refused_by_croupier[pid].payload.get('reason')}"] += 1
            else:
                self.decisions["no record"] += 1
            if increments.get(pid):
                self.meter_increments += 1
                self.finding(rv.n, p, f"attempt {a.payload['attempt']}: press {pid}, accepted "
                             f"{off * 1e3:.3f} ms after \"no more bets\", incremented a progressive meter")

    def _layout(self, rv: RoundView, attempts: list[Event], answers: dict[str, Event]) -> None:
        nmb = rv.no_more_bets.sim_time if rv.no_more_bets is not None else None
        placed = {}  # (seat, wager, placed_s) -> the croupier's record
        for kind in ("wager", "wager_rejected"):
            for e in rv.by_croupier(kind):
                q = e.payload
                if q.get("placed_s") is not None:
                    placed[(q.get("seat"), q.get("wager"), float(q["placed_s"]))] = e
        requests = {e.payload.get("request_id"): e for e in rv.events if e.device == "croupier"
                    and e.kind in ("wager_accepted", "wager_refused")}
        for a in attempts:
            q = a.payload
            t = float(q.get("placed_s", q["sent_s"]))
            if q.get("via") == "request":
                ans = answers.get(q["attempt"])
                rec = requests.get(ans.payload.get("request_id")) if ans is not None else None
                taken = rec is not None and rec.kind == "wager_accepted"
            else:
                rec = placed.get((q["seat"], q["spot"], t))
                taken = rec is not None and rec.kind == "wager"
            if rec is None:
                self.lost += 1
                continue
            self.answered += 1
            late = nmb is None or t >= nmb
            self.late += late
            if not taken:
                self.refused += 1
                if late:
                    self.decisions[f"refused: {rec.payload.get('reason')}"] += 1
                continue
            if not late:
                self.on_time += 1
                continue
            self.after_nmb += 1
            self.became_wagers += 1
            self.decisions["wager"] += 1
            off = t - nmb if nmb is not None else 0.0
            self.latest_accepted_offset_s = off if self.latest_accepted_offset_s is None else max(
                self.latest_accepted_offset_s, off)
            self.finding(rv.n, rec, f"attempt {q['attempt']}: {q['spot']} placed {off * 1e3:.3f} ms after \"no more "
                         f"bets\" (or with none announced) was taken as a wager")

    # ------------------------------------------------------------------ verdict
    def verdict(self):
        m = [Measurement("attempts", self.attempts, "attempts"),
             Measurement("attempts_answered", self.answered, "attempts"),
             Measurement("attempts_unregistered", self.lost, "attempts"),
             Measurement("attempts_unsent", self.unsent, "attempts"),
             Measurement("accepted_before_no_more_bets", self.on_time, "attempts"),
             Measurement("refused", self.refused, "attempts"),
             Measurement("attempts_after_no_more_bets", self.late, "attempts"),
             Measurement("accepted_after_no_more_bets", self.after_nmb, "attempts"),
             Measurement("accepted_after_lock_edge", self.after_edge, "attempts", limit="== 0"),
             Measurement("accepted_before_device_lockout_command", self.before_command, "attempts"),
             Measurement("accepted_inside_latency", self.inside_latency, "attempts"),
             Measurement("accepted_after_lockout_ack", self.after_ack, "attempts"),
             Measurement("widest_window", self.widest_window_s, "s"),
             Measurement("latest_accepted_after_no_more_bets", self.latest_accepted_offset_s, "s"),
             Measurement("accepted_within_clock_uncertainty_of_no_more_bets", self.straddling, "attempts"),
             Measurement("lockout_command_after_no_more_bets_max", self.command_delay_s, "s"),
             Measurement("rounds_without_lockout_command", self.rounds_without_command, "rounds"),
             Measurement("accepted_unjudged", self.unjudged, "attempts", limit="== 0"),
             Measurement("became_wagers", self.became_wagers, "attempts", limit="== 0"),
             Measurement("meter_increments", self.meter_increments, "attempts", limit="== 0")]
        m += [Measurement(f"croupier {k}", v, "attempts") for k, v in sorted(self.decisions.items())]
        m += [Measurement(f"device refused: {k}", v, "attempts") for k, v in sorted(self.refusals.items())]
        if self.failed:
            return "fail", (f"{self._findings_total} finding(s) in {self.attempts} adversary attempts: "
                            f"{self.after_edge} accepted after the device's lock edge, {self.became_wagers} late "
                            f"attempt(s) taken as wagers, {self.meter_increments} meter increment(s)"), m
        if not self.attempts:
            return "indeterminate", "no late-bet adversary in this trace (scenario section adversary)", m
        if not self.answered:
            return "indeterminate", f"none of the {self.attempts} adversary attempts was registered", m
        if self.unjudged:
            return "indeterminate", (f"{self.unjudged} adversary press(es) accepted after \"no more bets\" in "
                                     f"{self.rounds_without_command} round(s) without the device's lock-out command: "
                                     "no lock edge to judge them by"), m
        if self.layout:
            return "pass", (f"{self.attempts} adversary attempts in {self.rounds} rounds: {self.late} placed at or after "
                            f"\"no more bets\", every one refused; none taken as a wager"), m
        win = "" if self.widest_window_s is None else \
            f", the latest {self.widest_window_s * 1e3:.3f} ms after the rig had the lock-out acknowledged"
        return "pass", (f"{self.attempts} adversary attempts in {self.rounds} rounds: {self.late} registered at or after "
                        f"\"no more bets\", {self.after_nmb} of them accepted by the device ({self.inside_latency} inside the "
                        f"lock-out latency){win}; none accepted after the lock edge, none a wager"), m


class CrazyTimeLateBets(LateBets):
    """§ 690.2(a): "Prior to the spinning of the Crazy Time wheel, the dealer shall announce 'no more
    bets.'" The late-bet adversary's presses at random offsets around it, judged on the wagering
    device's own reports: none accepted after the device's lock edge (its lock-out command stamp
    plus the scenario's budget, or its first refusal as locked out), none accepted at or after "no
    more bets" taken as a wager."""

    id = "CT-690.2a-late-bets"
    section = "§ 690.2(a)"
    title = "Late-bet adversary: no press after the lock edge, no late press a wager"


class RouletteLateBets(LateBets):
    """§ 617b.4(c)(2): the progressive table game system includes "a mechanism, such as a lock-out
    button, that prevents the recognition of any progressive wager that a player attempts to place
    after the dealer has announced 'no more bets.'" The late-bet adversary's Roulette Up presses
    around it, judged on the system's own reports: none accepted after its lock edge, none accepted at
    or after "no more bets" taken as a wager or counted into the meter."""

    id = "RU-617b.4c2-late-bets"
    section = "§ 617b.4(c)(2)"
    title = "Late-bet adversary: no Roulette Up press after the lock edge, none late a wager"


class BlackjackLateBets(LateBets):
    """§ 633b.17(c)(2), § 633b.18(d)(2), § 633b.21(a)(2): "a mechanism, such as a lock-out button, that
    prevents the recognition of any progressive wager that a player attempts to place after the dealer
    has announced 'no more bets.'" The late-bet adversary's progressive presses (with their chips)
    around it, judged on the system's own reports: none accepted after its lock edge, none accepted
    at or after "no more bets" taken as a wager or counted into a meter."""

    id = "BJ-633b.17c2-late-bets"
    section = "§ 633b.17(c)(2), § 633b.18(d)(2), § 633b.21(a)(2)"
    title = "Late-bet adversary: no progressive press after the lock edge, none late a wager"


class UthLateBets(LateBets):
    """§ 653b.4(c), § 653b.5(c): "After placing the Ultimate Texas Hold 'Em wagers ... and any optional
    wagers including the Play the Board [Ultimate Pairs] wager, the dealer shall deal the cards": the
    optional wagers are placed before the deal, which "no more bets" starts. The late-bet adversary's
    chips on the side wagers' areas around it: none placed at or after "no more bets" taken as a
    wager."""

    id = "UTH-653b.4c-late-bets"
    section = "§ 653b.4(c), § 653b.5(c)"
    title = "Late-bet adversary: no side wager chip placed after \"no more bets\" taken"


class CrissCrossLateBets(LateBets):
    """§ 674b.1(c): "After placing the Criss-Cross Poker wagers ... and any optional wagers, including
    the Ultimate Pairs wager, the dealer shall deal the cards": the wager is placed before the deal,
    which "no more bets" starts. The late-bet adversary's Ultimate Pairs chips around it: none placed
    at or after "no more bets" taken as a wager."""

    id = "CC-674b.1c-late-bets"
    section = "§ 674b.1(c)"
    title = "Late-bet adversary: no Ultimate Pairs chip placed after \"no more bets\" taken"


class Crazy4LateBets(LateBets):
    """§ 657a.7(c): "All wagers, except the Play Wager, shall be placed prior to the dealer announcing
    'no more bets' ... a wager may not be made, increased or withdrawn after the dealer has announced
    'no more bets.'" The late-bet adversary's Ante and Super Bonus requests around it: none made at or
    after "no more bets" accepted."""

    id = "C4-657a.7c-late-bets"
    section = "§ 657a.7(c)"
    title = "Late-bet adversary: no wager request after \"no more bets\" accepted"


#: game -> its late-bet adversary check
ADVERSARY_CHECKS: dict[str, tuple[type[Check], ...]] = {
    "crazy-time": (CrazyTimeLateBets,), "roulette": (RouletteLateBets,), "blackjack": (BlackjackLateBets,),
    "uth": (UthLateBets,), "criss-cross": (CrissCrossLateBets,), "crazy-4": (Crazy4LateBets,),
}
