"""The croupier for Crazy Time: the round state machine (§§ 690.2–690.4).

One round::

    round_start → betting_open (window T; players press their seat buttons)
    → no_more_bets (§ 690.2(a)) + the wagering device's lock-out command
      (the rig's probe presses straddle the command to measure the lock-out latency)
    → spin_command: wheel push ∥ Top Slot spin, same instant (§ 690.3(c))
    → spin validation: on a peg ⇒ void (§ 690.2(d)); < 3 revolutions ⇒ void (§ 690.2(b));
      no result reported in time ⇒ void; a void spin is respun, up to ``respin_limit`` times,
      each attempt recorded; past the limit the round is void and every wager refunded
    → settlement through ``rules.crazy_time.settle``: losing wagers collected first, then
      winners paid (§ 690.2(e)–(f)), odds per § 690.4 with the Top Slot multiplier (§ 690.3)
    → round_end, trace committed.

The controller decides from what the devices report; it never writes a verdict. The checks
(``hil.checks``) re-derive everything from the trace. Dealer-procedure faults
(``CroupierFaults``) make this croupier wrong on purpose, to prove that the checks catch it.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import simpy

from devices.contracts import PressAnswer, SpinStop, TopSlotStop
from hil.bench import Devices
from hil.lockout import BoundarySearch
from hil.scenario import CroupierFaults, Scenario
from hil.trace import TraceWriter
from rules.crazy_time import SPOTS, Spot, TopSlotOutcome, Wager, settle
from rules.submission import RulesSubmission

CROUPIER = "croupier"
SPOT_IDS = tuple(s.value for s in SPOTS)
MIN_REVOLUTIONS = 3  # § 690.2(b)


class CrazyTimeController:
    def __init__(
        self,
        env: simpy.Environment,
        devices: Devices,
        trace: TraceWriter,
        scenario: Scenario,
        rules: RulesSubmission,
        rng: np.random.Generator,
    ) -> None:
        self.env, self.dev, self.trace, self.sc, self.rules, self.rng = env, devices, trace, scenario, rules, rng
        self.faults: CroupierFaults = scenario.croupier_faults
        self.spin_count = 0
        self.answers: list[PressAnswer] = []
        self.stats = {"rounds": 0, "spins": 0, "void_spins": 0, "void_rounds": 0}
        pr = scenario.lockout.probe
        self.search = BoundarySearch.for_budget(scenario.lockout.budget_s, pr.step_s, pr.presses) if pr else None
        self.probe_answers: list[tuple[float, bool]] = []

    def _say(self, kind: str, payload: dict | None = None) -> None:
        self.trace.record(CROUPIER, kind, payload)

    # ------------------------------------------------------------------ run
    def run(self, rounds: int) -> simpy.Process:
        return self.env.process(self._run(rounds))

    def _run(self, rounds: int):
        between = self.sc.croupier.between_rounds_s
        for n in range(1, rounds + 1):
            yield from self._round(n)
            self.trace.commit()  # durable at least once per round
            if between:
                yield self.env.timeout(between)

    # ------------------------------------------------------------------ one round
    def _round(self, n: int):
        env, sc, cr = self.env, self.sc, self.sc.croupier
        self.trace.round = n
        self.answers = []
        self.probe_answers = []
        self._say("round_start", {"round": n})
        self.dev.wagering.open_betting()
        self._say("betting_open", {"window_s": cr.betting_window_s})
        env.process(self._players(cr.betting_window_s))
        yield env.timeout(cr.betting_window_s)

        if self.faults.announce_after_spin:
            result = yield from self._spin_until_valid(n, announce_after=True)
        else:
            self._no_more_bets()
            yield env.timeout(cr.spin_delay_s)
            result = yield from self._spin_until_valid(n, announce_after=False)

        if self.search is not None and self.probe_answers:
            self.search.update(self.probe_answers)
        accepted = [a for a in self.answers if a.accepted]
        wagers = [Wager(f"{n}-{a.press_id}", a.seat, a.spot, a.stake_cents) for a in accepted]
        self.stats["rounds"] += 1
        if result is None:
            self.stats["void_rounds"] += 1
            for w in wagers:
                self._say("refund", {"wager_id": w.wager_id, "seat": w.seat, "spot": str(w.spot),
                                     "stake_cents": w.stake_cents})
            self._say("round_end", {"round": n, "void": True, "reason": "respin_limit",
                                    "wagers": len(wagers)})
            return
        stop, top = result
        self._settle(n, wagers, stop, top)

    def _no_more_bets(self) -> None:
        self._say("no_more_bets")  # § 690.2(a)
        self.dev.wagering.lock_out()
        if self.sc.lockout.probe is not None:
            self.env.process(self._probe_lockout())
        env, pl = self.env, self.sc.players
        if pl.count and self.rng.random() < pl.late_press_probability:
            env.process(self._late_press(float(self.rng.uniform(0, pl.late_press_window_s))))

    # ------------------------------------------------------------------ presses
    def _press(self, seat: int, spot: str, stake_cents: int) -> None:
        self.dev.wagering.press(seat, spot, stake_cents).callbacks.append(self._collect)

    def _collect(self, ev: simpy.Event) -> None:
        if ev.ok:
            self.answers.append(ev.value)

    def _players(self, window_s: float):
        pl, rng = self.sc.players, self.rng
        if not pl.count:
            return
        counts = rng.integers(pl.wagers_per_player[0], pl.wagers_per_player[1] + 1, size=pl.count)
        total = int(counts.sum())
        seats = np.repeat(np.arange(1, pl.count + 1), counts)
        times = rng.uniform(0, window_s, size=total)
        spots = rng.integers(0, len(SPOTS), size=total)
        stakes = rng.integers(pl.stake_cents[0] // 100, pl.stake_cents[1] // 100 + 1, size=total) * 100
        order = np.argsort(times)
        t0 = self.env.now
        for t, seat, spot, stake in zip(times[order].tolist(), seats[order].tolist(),
                                        spots[order].tolist(), stakes[order].tolist()):
            delay = t0 + t - self.env.now
            if delay > 0:
                yield self.env.timeout(delay)
            self._press(seat, SPOT_IDS[spot], stake)

    def _late_press(self, delay_s: float):
        yield self.env.timeout(delay_s)
        seat = int(self.rng.integers(1, self.sc.players.count + 1))
        self._press(seat, SPOT_IDS[int(self.rng.integers(len(SPOTS)))], 100 * int(self.rng.integers(1, 11)))

    def _probe_lockout(self):
        """Presses around the command where the boundary search says (random phase per round)."""
        pr = self.sc.lockout.probe
        # The search window, plus a sentinel press at the budget: whatever the window found,
        # every round then shows whether the device had locked out within its budget.
        offsets = sorted(self.search.offsets(float(self.rng.random())) + [self.sc.lockout.budget_s])
        t_cmd = self.env.now
        self._say("lockout_probe", {"offsets_s": [round(o, 9) for o in offsets], "seat": pr.seat})
        for off in offsets:
            delay = t_cmd + off - self.env.now
            if delay > 0:
                yield self.env.timeout(delay)
            ev = self.dev.wagering.press(pr.seat, Spot.ONE.value, pr.stake_cents)
            ev.callbacks.append(self._collect)
            ev.callbacks.append(lambda e, off=off: self.probe_answers.append((off, e.ok and e.value.accepted)))

    # ------------------------------------------------------------------ spins
    def _direction(self) -> str:
        mode = self.sc.croupier.direction
        if mode == "alternate":
            return "cw" if self.spin_count % 2 == 0 else "ccw"
        if mode == "random":
            return "cw" if self.rng.random() < 0.5 else "ccw"
        return mode

    def _spin_until_valid(self, n: int, announce_after: bool):
        env, cr = self.env, self.sc.croupier
        for attempt in range(1, cr.respin_limit + 2):
            direction = self._direction()
            self.spin_count += 1
            self.stats["spins"] += 1
            self._say("spin_command", {"attempt": attempt, "direction": direction})
            wheel_ev = self.dev.wheel.spin(direction)
            top_ev = self.dev.top_slot.spin()  # § 690.3(c): commences concurrently with the wheel
            if announce_after and attempt == 1:
                yield env.timeout(cr.spin_delay_s)
                self._no_more_bets()
            timeout = max(cr.spin_timeout_s, cr.top_slot_timeout_s)
            yield env.all_of([wheel_ev, top_ev]) | env.timeout(timeout)
            reason = None
            if not wheel_ev.processed:
                reason = "no_wheel_result"
            elif not top_ev.processed:
                reason = "no_top_slot_result"
            else:
                stop: SpinStop = wheel_ev.value
                top: TopSlotStop = top_ev.value
                if stop.on_peg and not self.faults.settle_between_sections:
                    reason = "between_sections"  # § 690.2(d)
                elif stop.revolutions < MIN_REVOLUTIONS and not self.faults.skip_revolution_check:
                    reason = "under_three_revolutions"  # § 690.2(b)
            if reason is None:
                self._say("spin_valid", {"attempt": attempt, "section_index": stop.section_index,
                                         "spot": stop.spot, "revolutions": stop.revolutions})
                return stop, top
            self.stats["void_spins"] += 1
            self._say("spin_void", {"attempt": attempt, "reason": reason,
                                    "respin": attempt <= cr.respin_limit})
        return None

    # ------------------------------------------------------------------ settlement
    def _settle(self, n: int, wagers: list[Wager], stop: SpinStop, top: TopSlotStop) -> None:
        f = self.faults
        outcome = TopSlotOutcome(Spot(top.spot), top.multiplier, top.aligned and not f.ignore_top_slot)
        result = Spot(stop.spot)
        s = settle(wagers, result, outcome, self.rules.limits.max_payout_per_round_cents)
        collections = [("collect", {"wager_id": c.wager_id, "seat": c.seat, "spot": str(c.spot),
                                    "stake_cents": c.stake_cents}) for c in s.collections]
        payments = [("pay", {"wager_id": p.wager_id, "seat": p.seat, "spot": str(p.spot),
                             "stake_cents": p.stake_cents, "odds": str(p.odds),
                             "odds_ratio": str(p.odds.ratio), "win_cents": p.win_cents + f.payout_error_cents,
                             "capped": p.capped, "provisional": p.provisional}) for p in s.payments]
        steps = payments + collections if f.pay_before_collect else collections + payments
        for kind, payload in steps:  # § 690.2(e)-(f): collect losers first, then pay winners
            self._say(kind, payload)
        self._say("round_end", {
            "round": n, "void": False, "result": str(result), "section_index": stop.section_index,
            "top_slot": {"spot": top.spot, "multiplier": top.multiplier, "aligned": top.aligned},
            "wagers": len(wagers),
            "collected_cents": sum(c.stake_cents for c in s.collections),
            "paid_cents": sum(p["win_cents"] for _, p in payments),
            "provisional": any(p.provisional for p in s.payments),
        })


def bench_record(trace: TraceWriter, params: dict) -> None:
    """Round 0: the bench's effective device parameters (each device records its own info)."""
    trace.round = 0
    trace.record(CROUPIER, "bench", {"params": params})
