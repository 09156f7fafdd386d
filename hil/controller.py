"""The croupier for Crazy Time: the round state machine (§§ 690.2–690.4).

One round::

    round_start → betting_open (window T; players press their seat buttons)
    → no_more_bets (§ 690.2(a)) + the wagering device's lock-out command
      (the rig's probe presses straddle the command to measure the lock-out latency)
    → spin_command: wheel push ∥ Top Slot spin, same instant (§ 690.3(c))
    → spin validation: on a peg ⇒ void (§ 690.2(d)); < 3 revolutions ⇒ void (§ 690.2(b));
      no result reported in time ⇒ void; a void spin is respun, up to ``respin_limit`` times,
      each attempt recorded; past the limit the round is void and every wager refunded
    → wagers outside the Rules Submission's minimum / maximum wager refused (§ 690.1(g)(4))
    → settlement through ``rules.crazy_time.settle``: losing wagers collected first, then
      winners paid (§ 690.2(e)), odds per § 690.4 with the Top Slot multiplier (§ 690.3); on a
      bonus game symbol the losing wagers are collected, THEN the bonus game is played and its
      winners paid (§ 690.2(f)); a bonus game that cannot finish voids only its own wagers
      (refunded), the losers staying collected
    → round_end, trace committed.

The controller decides from what the devices report; it never writes a verdict. The checks
(``hil.checks``) re-derive everything from the trace. Dealer-procedure faults
(``CroupierFaults``) make this croupier wrong on purpose, to prove that the checks catch it.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import simpy

from devices.actuator import Attribution, Entry, attribute
from devices.contracts import Actuation, Actuator, PressAnswer, SpinStop, TopSlotStop, WageringDevice
from hil.bench import BenchError, Devices
from hil.adversary import Adversary
from hil.bonus import BonusCroupier
from hil.lockout import BoundarySearch
from hil.scenario import CroupierFaults, Scenario
from hil.trace import TraceWriter
from rules.crazy_time import BONUS_SPOTS, SPOTS, TOP_SLOT_REEL2, Spot, TopSlotOutcome, Wager, settle
from rules.cards import Card
from rules.odds import ToOne
from rules.submission import RulesSubmission

CROUPIER = "croupier"
SPOT_IDS = tuple(s.value for s in SPOTS)
MIN_REVOLUTIONS = 3  # § 690.2(b)
#: how long (wall seconds on a real bench) the croupier waits past an actuation's closing for the
#: device's answer to reach the press log it reads (a poll round trip on a loaded machine), before it
#: takes the round's wagers with that press lost; it stops waiting as soon as every actuation matched
ANSWER_WAIT_WALL_S = 0.5
#: the step of that wait (simulated seconds)
ANSWER_WAIT_STEP_S = 0.01


class TableCroupier:
    """What every table's croupier shares: the trace, the players' and the rig's seat presses on a
    wagering device with the dealer's lock-out, and the lock-out probing around "no more bets";
    for a card table also the players' chips (recorded with their times), the deal through the
    card shoe and the void round. A table without a wagering device (the poker tables) passes
    ``wagering=None`` and never presses."""

    def __init__(self, env: simpy.Environment, wagering: WageringDevice | None, trace: TraceWriter,
                 scenario: Scenario, rng: np.random.Generator, actuator: Actuator | None = None) -> None:
        self.env, self.wagering, self.trace, self.sc, self.rng = env, wagering, trace, scenario, rng
        self.faults: CroupierFaults = scenario.croupier_faults
        # The players' many small draws come from a stdlib generator seeded from ``rng``
        # (numpy's per-call overhead dominates for single draws); still one seed for the run.
        self.prng = random.Random(int(rng.integers(2**63)))
        #: this round's press log: every press the device answered, whoever pressed (``watch``)
        self.answers: list[PressAnswer] = []
        pr = scenario.lockout.probe
        self.search = BoundarySearch.for_budget(scenario.lockout.budget_s, pr.step_s, pr.presses) if pr else None
        self.probe_answers: list[tuple[float, bool]] = []
        #: this round's presses made by the rig as the lock-out probe: never wagers
        self.probe_press_ids: set[int] = set()
        #: this round's presses the rig injected for its players (the injection feature)
        self.rig_press_ids: set[int] = set()
        #: the rig's actuator (docs/wire/actuator.md): with one, every press is an actuation
        self.actuator = actuator
        self.actuations: list[Actuation] = []
        self._attribution: Attribution | None = None
        self._t_lock = 0.0
        self.chips: list[tuple[float, int, str, int]] = []  # a card table's: (time, seat, wager, stake)
        self.stats: dict[str, int] = {}
        #: the late-bet adversary (``hil.adversary``), when the scenario has one
        self.adversary = Adversary(scenario.adversary, scenario) if scenario.adversary is not None else None
        if wagering is not None:
            watch = getattr(wagering, "watch", None)
            if watch is not None:
                watch(self.answers_append)
            if actuator is None and not getattr(wagering, "injection", True):
                raise BenchError(f"{wagering.name}: the device has no press injection and the bench no actuator "
                                 "to press its buttons: add [devices.actuator] (docs/wire/actuator.md)")
            if actuator is not None and pr is not None and not self._buttons(pr.seat):
                raise BenchError(f"devices.actuator: the lock-out probe presses seat {pr.seat}, and none of its "
                                 "buttons is wired (buttons table)")
            if actuator is not None and pr is not None and len(self._buttons(pr.seat)) < pr.presses + 1:
                # each probe press of a round on a button of its own (a button's presses are two pulses
                # apart, far wider than the steps near the boundary): as many as the seat has wired
                # buttons, the sentinel at the budget included (a seat of one button: the sentinel only)
                n = len(self._buttons(pr.seat)) - 1
                self.search = BoundarySearch.for_budget(scenario.lockout.budget_s, pr.step_s, n) if n else None
                self.probe_presses_capped = n

    def answers_append(self, answer: PressAnswer) -> None:
        """The device's press log, as it answers: every press, whoever pressed."""
        self.answers.append(answer)

    def _say(self, kind: str, payload: dict | None = None) -> None:
        self.trace.record(CROUPIER, kind, payload)

    # ------------------------------------------------------------------ rounds
    def run(self, rounds: int, first: int = 1) -> simpy.Process:
        """Rounds ``first``..``rounds`` (a resumed run starts after the last committed round)."""
        return self.env.process(self._run(rounds, first))

    def _run(self, rounds: int, first: int = 1):
        between = self.sc.croupier.between_rounds_s
        self._before_rounds()
        for n in range(first, rounds + 1):
            yield from self._round(n)
            self._after_round()
            # durable once per round, the table's state in the same transaction as the round's events
            self.trace.commit(state=self.state(), round_end=True)
            if between:
                yield self.env.timeout(between)

    def _before_rounds(self) -> None:
        """Before the first round (a table's set-up records)."""

    def _after_round(self) -> None:
        """After each round, before its trace commit."""

    # ------------------------------------------------------------------ durable state
    def state(self) -> dict | None:
        """The table's durable state after the last round (a JSON-able dict: streak tracker, meters
        and reserves a simulated device holds, ...), or None for a table without state. The runner
        commits it in the same SQLite transaction as the round's trace events
        (``TraceWriter.commit(state=...)``), so a kill -9 at any instant leaves state equal to the
        last committed round."""
        return None

    def restore(self, state: dict) -> None:
        """Go on from a ``state()`` read back from the trace (``croupier run --resume``): the
        streak, and the meters of a simulated device (a real device keeps its own)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no state to resume")

    def _round(self, n: int):
        raise NotImplementedError

    # ------------------------------------------------------------------ a card table's chips, deal and void
    def _chip_at(self, at: float, seat: int, wager: str, stake: int) -> None:
        """A player's chips on the layout at absolute time ``at``, recorded in ``self.chips``
        (time, seat, wager, stake) for the croupier to accept or reject at "no more bets"."""
        ev = self.env.timeout(max(0.0, at - self.env.now))
        ev.callbacks.append(lambda _e: self.chips.append((self.env.now, seat, wager, stake)))

    def _deal_from(self, shoe, order: Sequence[str]):
        """Deal one card from ``shoe`` to each position of ``order``, in order; the card reader
        reports each. Returns position -> cards as read, or None when a card is not read within
        ``croupier.bonus_timeout_s`` or is not a card (the round cannot be settled)."""
        events = [shoe.deal(pos) for pos in order]
        yield self.env.all_of(events) | self.env.timeout(self.sc.croupier.bonus_timeout_s)
        if not all(e.processed for e in events):
            return None
        hands: dict[str, list[Card]] = defaultdict(list)
        try:
            for e in events:
                hands[e.value.position].append(Card.parse(e.value.card))
        except ValueError:
            return None
        return hands

    def _void(self, n: int, wagers: list[dict], reason: str) -> None:
        """The round cannot be settled (a card the reader could not read, a silent device): every
        wager (``wager_id``, ``seat``, ``wager``, ``stake_cents``) is refunded. Counts
        ``stats["void_rounds"]``."""
        self.stats["void_rounds"] += 1
        for w in wagers:
            self._say("refund", {k: w[k] for k in ("wager_id", "seat", "wager", "stake_cents")})
        self._say("round_end", {"round": n, "void": True, "reason": reason, "wagers": len(wagers)})

    def _refuse_other_button_stakes(self, want_cents: int, wager: str) -> None:
        """Pressed through an actuator, a progressive wager's stake is the seat button's, set on the
        system (docs/wire/actuator.md, "The physical button and its stake"), and the meter's rows are
        the table's progressive wager's, a fixed amount (§ 633b.17(h); § 617b.4(h)(2): the seed is N×
        that wager): a system whose seated players' buttons wager another amount than ``want_cents``
        cannot run this table (BenchError, exit 2). ``wager`` names the table's wager and its field."""
        stakes = getattr(getattr(self.wagering, "params", None), "button_stake_cents", None)
        stakes = [stakes] if isinstance(stakes, int) else \
            list((getattr(self.wagering, "button_stakes", None) or {}).get("button_stake_cents") or [])
        seats = range(1, self.sc.players.count + 1)
        other = sorted({s for i, s in enumerate(stakes, 1) if s != want_cents and (len(stakes) == 1 or i in seats)})
        if other:
            raise BenchError(f"devices.{self.wagering.name}: its seat buttons wager {other} cents; the table's "
                             f"{wager} is {want_cents} cents: set the system's button stake "
                             "(docs/devices/progressive-system.md)")

    # ------------------------------------------------------------------ presses
    def _buttons(self, seat: int, spots: Sequence[str] | None = None) -> list[str]:
        """The spots of ``seat`` the rig can press (with an actuator: the wired buttons)."""
        if self.actuator is None:
            return list(spots or ())
        wiring = getattr(self.actuator, "wiring", None)
        wired = wiring.seat_buttons(seat) if wiring is not None else list(spots or ())
        return [s for s in wired if spots is None or s in spots]

    def _press_at(self, at: float, seat: int, spot: str, stake_cents: int, purpose: str = "player") -> None:
        """A seat press at absolute time ``at``: one timeout whose callback presses (no process
        per press — a round holds dozens). With an actuator the button is actuated (its stake is the
        device's button stake, never ``stake_cents``); an unwired button is not pressed. Without
        one the device's injection feature presses it."""
        ev = self.env.timeout(max(0.0, at - self.env.now))
        if self.actuator is not None:
            if not self.actuator.wired(seat, spot):
                return
            self._actuations_due += 1
            ev.callbacks.append(lambda _e: self.actuator.press(seat, spot, purpose).callbacks.append(self._actuated))
        else:
            ev.callbacks.append(lambda _e: self.wagering.press(seat, spot, stake_cents).callbacks.append(self._injected))

    def _actuated(self, ev: simpy.Event) -> None:
        self._actuations_due -= 1
        if ev.ok:
            self.actuations.append(ev.value)

    #: actuator presses scheduled (``_press_at``) whose actuation has not been reported yet
    _actuations_due = 0

    def _actuations_answered(self):
        """With an actuator: wait until every press scheduled so far has been actuated and each
        actuation's entry is in the press log the device reported — or, for one still unmatched, until
        its answer could have come (its closing's bracket, the clock map's uncertainty, the match
        window, then ``ANSWER_WAIT_WALL_S`` of wall time on a real bench, the device's answer delay on
        a simulated one) — so the attribution, taken once, sees the round's whole log. A press the
        device answered after the croupier took the wagers would be called lost (``actuation_lost``,
        which fails ``EVIDENCE-link``) though it was only late to be read: the lock-out search's
        probe presses reach past the budget (a followed wheel's by hundreds of milliseconds). Waits
        at most ``croupier.bonus_timeout_s``."""
        if self.actuator is None:
            return
        scale = getattr(self.env, "time_scale", None)
        wp = getattr(self.wagering, "params", None)
        allowance = ANSWER_WAIT_WALL_S * scale if scale else float(getattr(wp, "answer_delay_s", 0.0) or 0.0)
        window = self.actuator.match_window_s
        give_up = self.env.now + self.sc.croupier.bonus_timeout_s
        while True:
            deadline = give_up
            if not self._actuations_due:
                u = self._clock_uncertainty_s()
                entries = [Entry(a.press_id, a.seat, a.spot, a.device_time_s) for a in self.answers]
                if not attribute(self.actuations, entries, u, window).lost:
                    return
                last = max(a.closed_hi_s for a in self.actuations if a.ok)
                deadline = min(give_up, last + u + window + allowance)
            if self.env.now >= deadline:
                return
            yield self.env.timeout(min(ANSWER_WAIT_STEP_S, deadline - self.env.now))

    def _injected(self, ev: simpy.Event) -> None:
        if ev.ok:
            self.rig_press_ids.add(ev.value.press_id)

    def _schedule_lockout_presses(self, t_lock: float, probe_spot: str, late_spots: Sequence[str],
                                  probe: bool = True) -> None:
        """The rig's lock-out probe: presses where the boundary search says (random phase per round)
        and a sentinel press at the budget — so every round shows whether the device had locked out
        within its budget, whatever the window found. With an actuator they are actuations at
        ``t_lock`` + offset, by the rig's clock, each on another wired button of the probe seat (a
        button's presses cannot be closer than its pulse); without one, the device's armed probe.
        And, sometimes, a player's late press (on one of ``late_spots``) just after "no more bets".
        ``probe`` False: the late press only (a croupier that learns the lock-out instant only when it
        comes — a followed wheel's — presses its actuator probe at that instant, a call of its own)."""
        pr, pl, rng = self.sc.lockout.probe, self.sc.players, self.rng
        self._t_lock = t_lock
        if pr is not None and probe:
            phase = float(rng.random())
            offsets = sorted((self.search.offsets(phase) if self.search is not None else [])
                             + [self.sc.lockout.budget_s])
            probe = {"offsets_s": [round(o, 9) for o in offsets], "seat": pr.seat,
                     "via": "injection" if self.actuator is None else "actuator"}
            if getattr(self, "probe_presses_capped", None) is not None:  # fewer wired buttons than presses
                probe["presses_capped_to"] = self.probe_presses_capped
            self._say("lockout_probe", probe)
            if self.actuator is not None:
                # aimed so the closing's bracket ends at the offset: the declared contact delay and spread
                # ahead (a sentinel that closes past the budget could only straddle it)
                p = getattr(self.actuator, "params", None)
                lead = float(getattr(p, "contact_delay_s", 0.0)) + float(getattr(p, "contact_jitter_s", 0.0))
                buttons = self._buttons(pr.seat)
                for i, off in enumerate(offsets):
                    self._press_at(t_lock + off - lead, pr.seat, buttons[i % len(buttons)], pr.stake_cents,
                                   purpose="probe")
            else:
                armed = self.wagering.arm_probe(pr.seat, probe_spot, pr.stake_cents, offsets)
                for off, ev in zip(offsets, armed):
                    ev.callbacks.append(lambda e, off=off: self._probe_answered(off, e))
        if pl.count and late_spots and rng.random() < pl.late_press_probability:
            late = t_lock + float(rng.uniform(0, pl.late_press_window_s))
            seat = int(rng.integers(1, pl.count + 1))
            spot = late_spots[int(rng.integers(len(late_spots)))]
            self._press_at(late, seat, spot, 100 * int(rng.integers(1, 11)))
        if late_spots and self.adversary is not None:  # once a round (a followed wheel's second call has none)
            spots = self._buttons(self.adversary.seat, late_spots) if self.actuator is not None else late_spots
            self._schedule_adversary(t_lock, spots, "press")

    def _schedule_adversary(self, t_no_more_bets: float, spots: Sequence[str], via: str) -> None:
        """The late-bet adversary's attempts of this round around ``t_no_more_bets`` (``hil.adversary``):
        presses of a wagering device (``via`` "press"), chips on a card table's layout ("chips") or
        Crazy 4 requests ("request"). Nothing without an ``adversary`` section."""
        if self.adversary is not None:
            self.adversary.schedule(self, t_no_more_bets, spots, via)

    def _probe_answered(self, offset_s: float, ev: simpy.Event) -> None:
        if ev.ok:
            self.probe_press_ids.add(ev.value.press_id)
        self.probe_answers.append((offset_s, ev.ok and ev.value.accepted))

    def _new_round_presses(self) -> None:
        self.answers.clear()
        self.probe_answers, self.probe_press_ids, self.rig_press_ids = [], set(), set()
        self.actuations, self._attribution = [], None

    def _clock_uncertainty_s(self) -> float:
        clock = getattr(self.wagering, "clock", None)  # a real device's clock map: its uncertainty
        return float(getattr(clock, "uncertainty_s", 0.0) or 0.0)

    def _decision_uncertainty_s(self) -> float:
        """The clock uncertainty this round's wagers are decided with (docs/wire/clock.md, "The
        uncertainty a wager is decided with"): the wagering device's adapter records its clock map
        (``clock_estimate``, reason ``decision``) and the croupier takes the largest uncertainty the
        trace declares for the device from the round's start up to that record
        (``TraceWriter.clock_declarations``) — the value the checks judge the round's wagers with
        (``RoundView.wager_presses``), never less than the map in force at that record (read once, by
        the record: no second read the I/O thread could change in between). A simulated device: 0."""
        record = getattr(self.wagering, "clock_decision", None)
        declarations = getattr(self.trace, "clock_declarations", None)
        if record is None or declarations is None:
            return self._clock_uncertainty_s()
        record()  # the map it records is the one in force now: its uncertainty is part of the value
        return declarations.decided.get(getattr(self.wagering, "name", ""), self._clock_uncertainty_s())

    def _attribute(self) -> Attribution:
        """Who made each press of this round's log (docs/wire/actuator.md, "Matching a log entry to
        its actuation"), recorded once: ``press_attributed`` for each press the rig did not make (by
        ``foreign``, "not made by the rig"; or a ``duplicate`` of an actuation) and for each actuation's
        press (by ``rig``), ``actuation_lost`` for an actuation the device never registered. Without an
        actuator the rig's presses are the ones its injection answered."""
        if self._attribution is not None:
            return self._attribution
        if self.actuator is None:
            mine = self.rig_press_ids | self.probe_press_ids
            att = Attribution(foreign=[a.press_id for a in self.answers if a.press_id not in mine])
        else:
            entries = [Entry(a.press_id, a.seat, a.spot, a.device_time_s) for a in self.answers]
            att = attribute(self.actuations, entries, self._clock_uncertainty_s(), self.actuator.match_window_s)
            by_id = {a.actuation_id: a for a in self.actuations}
            answers = {a.press_id: a for a in self.answers}
            for pid, aid in sorted(att.matched.items()):
                act = by_id[aid]
                if act.purpose == "probe":
                    self.probe_press_ids.add(pid)
                    off = (act.closed_lo_s + act.closed_hi_s) / 2 - self._t_lock
                    self.probe_answers.append((off, answers[pid].accepted))
                else:
                    self.rig_press_ids.add(pid)
                self._say("press_attributed", {"press_id": pid, "by": "rig", "actuation_id": aid,
                                               "purpose": act.purpose})
            for pid, aid in sorted(att.duplicates.items()):
                self._say("press_attributed", {"press_id": pid, "by": "duplicate", "actuation_id": aid,
                                               "detail": f"a second press registered for actuation {aid}"})
            for aid in att.lost:
                act = by_id[aid]
                self._say("actuation_lost", {"actuation_id": aid, "seat": act.seat, "spot": act.spot,
                                             "purpose": act.purpose, "coil": act.coil})
            self._check_contact_delay(att, by_id, answers)
            self.stats["actuations_lost"] = self.stats.get("actuations_lost", 0) + len(att.lost)
            self.stats["duplicate_presses"] = self.stats.get("duplicate_presses", 0) + len(att.duplicates)
        answers = {a.press_id: a for a in self.answers}
        for pid in att.foreign:
            a = answers[pid]
            self._say("press_attributed", {"press_id": pid, "by": "foreign", "seat": a.seat, "spot": a.spot,
                                           "device_time_s": a.device_time_s, "accepted": a.accepted,
                                           "reason": a.reason, "detail": "not made by the rig"})
        if att.foreign:
            self.stats["foreign_presses"] = self.stats.get("foreign_presses", 0) + len(att.foreign)
        self._attribution = att
        return att

    def _check_contact_delay(self, att: Attribution, by_id: dict, answers: dict) -> None:
        """The device stamps each press at its contact's closing, on the clock it is mapped with
        (docs/wire/actuator.md, "Timing and its uncertainty"): an entry matched to an actuation but
        stamped outside that actuation's closing bracket by more than the clock map's uncertainty
        means the bench's ``contact_delay_s`` is not the contact's real delay. One ``wire_fault``
        (kind ``contact_delay``) per round, from the actuator, naming the delay measured; the
        lock-out check then judges on the device's stamps and never passes (CT-lockout)."""
        u = self._clock_uncertainty_s() + 1e-9
        past = []
        for pid, aid in att.matched.items():
            act, t = by_id[aid], answers[pid].device_time_s
            if not act.closed_lo_s - u <= t <= act.closed_hi_s + u:  # how late (early) against the estimate
                past.append(t - (act.closed_lo_s + act.closed_hi_s) / 2)
        if not past:
            return
        past.sort()
        med = past[len(past) // 2]
        declared = float(getattr(getattr(self.actuator, "params", None), "contact_delay_s", 0.0))
        self.trace.record(getattr(self.actuator, "name", "actuator"), "wire_fault", {
            "kind": "contact_delay", "measured_delay_s": round(declared + med, 9), "declared_delay_s": declared,
            "presses": len(past),
            "detail": (f"{len(past)} of {len(att.matched)} press-log entries stamped outside their actuation's "
                       f"closing bracket, {med * 1e3:+.3f} ms from its middle (median; {past[0] * 1e3:+.3f} to "
                       f"{past[-1] * 1e3:+.3f}): "
                       f"the contacts close about {(declared + med) * 1e3:.3f} ms after the output is set, the bench "
                       f"declares contact_delay_s = {declared * 1e3:.3f} ms (docs/wire/actuator.md)")})

    def _player_presses(self, t_no_more_bets: float, spots: Sequence[str] | None = None) -> list[PressAnswer]:
        """The one path from an accepted press to a wager, for every table (§ 690.2(a),
        § 617b.4(c)(2), § 633b.17(c)(2)): a press is a player's wager only if the device accepted it
        *before* the croupier's "no more bets" instant ``t_no_more_bets`` (device time, mapped into
        the rig's time by the adapter: before it by more than the clock map's uncertainty, so a
        press only possibly before it is refused) and it is not the rig's lock-out probe (its
        presses are measurements, never wagers). A press the device accepted at or after the
        instant — even inside its allowed lock-out latency — is refused here and recorded
        (``wager_rejected`` with its ``press_id`` and ``latency_s`` after "no more bets"); it is
        never collected, paid or confirmed to a progressive system. A press the rig did not make
        (``_attribute``: a real player at the table) is refused, reason "not made by the rig", unless
        the scenario's ``players.foreign_presses`` is ``settle``; a duplicate of an actuation is
        refused. So every accepted press of the log is a wager or has a recorded rejection. Returns
        the on-time player presses (on ``spots`` when given), in device-time order."""
        out: list[PressAnswer] = []
        u = self._decision_uncertainty_s()
        att = self._attribute()
        foreign = set(att.foreign)
        settle_foreign = self.sc.players.foreign_presses == "settle"
        for a in sorted(self.answers, key=lambda a: (a.device_time_s, a.press_id)):
            if not a.accepted or a.press_id in self.probe_press_ids:
                continue
            if spots is not None and a.spot not in spots:
                continue
            if a.device_time_s + u >= t_no_more_bets:  # not provably before "no more bets"
                self._reject(a, "placed after no more bets", latency_s=round(a.device_time_s - t_no_more_bets, 9),
                             clock_uncertainty_s=u)
                self.stats["late_presses_refused"] = self.stats.get("late_presses_refused", 0) + 1
                continue
            if a.press_id in att.duplicates:
                self._reject(a, f"duplicate of actuation {att.duplicates[a.press_id]}")
                continue
            if a.press_id in foreign and not settle_foreign:
                if not self.faults.ignore_foreign_presses:  # the fault: dropped without a record
                    self._reject(a, "not made by the rig")
                continue
            out.append(a)
        return out

    def _reject(self, a: PressAnswer, reason: str, **extra) -> None:
        self._say("wager_rejected", {"kind": "press", "seat": a.seat, "press_id": a.press_id, "spot": a.spot,
                                     "stake_cents": a.stake_cents, **extra, "reason": reason})

    def _confirm_presses(self, presses: Sequence[PressAnswer]):
        """A progressive system increments its meters only for the wagers the dealer confirms
        (``ProgressiveSystem.confirm_wagers``): the on-time player presses, never the probe's or a
        late press. Waits for the device's answer (at most ``croupier.bonus_timeout_s``)."""
        confirm = getattr(self.wagering, "confirm_wagers", None)
        if confirm is None:
            return None
        ev = confirm([a.press_id for a in presses])
        yield ev | self.env.timeout(self.sc.croupier.bonus_timeout_s)
        return ev.value if ev.processed else None

    def _update_search(self) -> None:
        self._attribute()  # the actuator's probe answers come from the attribution
        if self.search is not None and self.probe_answers:
            self.search.update(self.probe_answers)


class CrazyTimeController(TableCroupier):
    def __init__(
        self,
        env: simpy.Environment,
        devices: Devices,
        trace: TraceWriter,
        scenario: Scenario,
        rules: RulesSubmission,
        rng: np.random.Generator,
    ) -> None:
        super().__init__(env, devices.wagering, trace, scenario, rng, actuator=devices.actuator)
        self.dev, self.rules = devices, rules
        self.spin_count = 0
        self.t_no_more_bets = 0.0
        self.stats = {"rounds": 0, "spins": 0, "void_spins": 0, "void_rounds": 0}
        self.bonus = BonusCroupier(env, devices, self._say, scenario, self.prng, rules)

    # ------------------------------------------------------------------ one round
    def _round(self, n: int):
        env, cr = self.env, self.sc.croupier
        self.trace.round = n
        self._new_round_presses()
        self._say("round_start", {"round": n})
        self.dev.wagering.open_betting()
        self._say("betting_open", {"window_s": cr.betting_window_s})
        # Every press of the round is scheduled now, at its absolute time: the players' during
        # the window, the rig's probes and a late press around the lock-out command.
        t_lock = env.now + cr.betting_window_s + (cr.spin_delay_s if self.faults.announce_after_spin else 0.0)
        self._schedule_players(cr.betting_window_s)
        self._schedule_lockout_presses(t_lock, SPOT_IDS[0], SPOT_IDS)
        yield env.timeout(cr.betting_window_s)

        if self.faults.announce_after_spin:
            result = yield from self._spin_until_valid(n, announce_after=True)
        else:
            self._no_more_bets()
            yield env.timeout(cr.spin_delay_s)
            result = yield from self._spin_until_valid(n, announce_after=False)

        yield from self._actuations_answered()
        self._update_search()
        wagers = self._wagers(n)
        self.stats["rounds"] += 1
        if result is None:
            self._void(n, wagers, "respin_limit")
            return
        stop, top = result
        spot = Spot(stop.spot)
        if cr.force_result is not None:  # the lab's forced-outcome test mode (recorded)
            spot = Spot(cr.force_result)
            self._say("forced_result", {"spot": str(spot), "wheel_spot": stop.spot})
        f = self.faults
        aligned = (top.aligned or f.top_slot_unaligned_applied) and not f.ignore_top_slot  # § 690.3(c)(1)–(2)
        outcome = TopSlotOutcome(Spot(top.spot), top.multiplier, aligned)
        if spot not in BONUS_SPOTS:  # § 690.2(e): collect the losing wagers, then pay the winners
            self._settle(n, wagers, stop, top, spot, outcome, None)
            return
        # § 690.2(f): "the dealer shall first collect all losing wagers. The dealer shall then proceed to
        # play the winning bonus game to determine the payout odds and pay off all winning wagers."
        seats = sorted({w.seat for w in wagers if w.spot == spot})
        if f.bonus_before_collect:  # a wrong croupier: the game first, everything settled (or refunded) after it
            values = yield from self.bonus.play(spot, outcome.multiplier_for(spot), seats)
            if values is None:
                self._void(n, wagers, "bonus_void")
                return
            self._settle(n, wagers, stop, top, spot, outcome, {seat: ToOne(v) for seat, v in values.items()})
            return
        losers = [w for w in wagers if w.spot != spot]
        winners = [w for w in wagers if w.spot == spot]
        collected = self._collect_losers(settle(losers, spot, outcome).collections)
        values = yield from self.bonus.play(spot, outcome.multiplier_for(spot), seats)  # § 690.4(b)
        if values is None:  # the game cannot finish: its wagers, not yet settled, are void and refunded
            self._bonus_void(n, wagers, winners, spot, collected)
            return
        self._settle(n, winners, stop, top, spot, outcome, {seat: ToOne(v) for seat, v in values.items()},
                     collected=collected, wagers_total=len(wagers))

    def _within_limits(self, wagers: list[Wager]) -> list[Wager]:
        """§ 690.1(g)(4): a wager below the minimum or above the maximum wager of the Rules
        Submission (``Limits.wager_deviation``) is refused (``wager_rejected``, kind ``limits``) and
        never settled; the rest are returned. ``faults.croupier.accept_outside_limits`` keeps them."""
        if self.faults.accept_outside_limits:
            return wagers
        out = []
        for w in wagers:
            why = self.rules.limits.wager_deviation(w.stake_cents)
            if why is None:
                out.append(w)
                continue
            self._say("wager_rejected", {"kind": "limits", "wager_id": w.wager_id, "seat": w.seat, "spot": str(w.spot),
                                         "stake_cents": w.stake_cents, "reason": why})
            self.stats["wagers_refused_limits"] = self.stats.get("wagers_refused_limits", 0) + 1
        return out

    def _wagers(self, n: int) -> list[Wager]:
        """This round's wagers: the players' presses accepted before "no more bets"
        (``TableCroupier._player_presses``) and within the table's limits (``_within_limits``), each
        recorded (``wager``, with its ``press_id``).
        ``faults.croupier.settle_late_presses`` (a wrong croupier) also takes the late ones and the
        probe's."""
        if self.faults.settle_late_presses:
            presses = [a for a in self.answers if a.accepted]
        else:
            presses = self._player_presses(self.t_no_more_bets)
        by_id = {f"{n}-{a.press_id}": a for a in presses}
        wagers = self._within_limits([Wager(wid, a.seat, a.spot, a.stake_cents) for wid, a in by_id.items()])
        for w in wagers:  # recorded once accepted: on time, by a player, within the table's limits
            a = by_id[w.wager_id]
            self._say("wager", {"wager_id": w.wager_id, "seat": a.seat, "spot": a.spot, "press_id": a.press_id,
                                "stake_cents": a.stake_cents, "placed_s": a.device_time_s})
        return wagers

    def _void(self, n: int, wagers: list[Wager], reason: str) -> None:
        """A round that cannot be settled: every accepted wager refunded, never partial data."""
        self.stats["void_rounds"] += 1
        for w in wagers:
            self._say("refund", {"wager_id": w.wager_id, "seat": w.seat, "spot": str(w.spot),
                                 "stake_cents": w.stake_cents})
        self._say("round_end", {"round": n, "void": True, "reason": reason, "wagers": len(wagers)})

    def _no_more_bets(self) -> None:
        self.t_no_more_bets = self.env.now
        self._say("no_more_bets")  # § 690.2(a)
        self.dev.wagering.lock_out()
        if self.dev.lockout_counter is not None:  # an independent edge-to-edge figure
            self.dev.lockout_counter.measure()

    # ------------------------------------------------------------------ presses
    def _schedule_players(self, window_s: float) -> None:
        pl, rnd, now = self.sc.players, self.prng, self.env.now
        lo_wagers, hi_wagers = pl.wagers_per_player
        lo_stake, hi_stake = pl.stake_cents[0] // 100, pl.stake_cents[1] // 100
        for seat in range(1, pl.count + 1):
            spots = SPOT_IDS if self.actuator is None else self._buttons(seat, SPOT_IDS)  # the wired buttons
            if not spots:
                continue
            for _ in range(rnd.randint(lo_wagers, hi_wagers)):
                self._press_at(now + rnd.uniform(0, window_s), seat, rnd.choice(spots),
                               100 * rnd.randint(lo_stake, hi_stake))

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
                if stop.spot not in SPOT_IDS:
                    reason = "invalid_wheel_result"  # a section the layout does not know
                elif top.spot not in SPOT_IDS or top.multiplier not in TOP_SLOT_REEL2:
                    reason = "invalid_top_slot_result"  # a symbol not on the reels (§ 690.3(b))
                elif stop.on_peg and not self.faults.settle_between_sections:
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
    def _collect_losers(self, collections) -> int:
        """Record the collection of each losing wager; the cents collected."""
        for c in collections:
            self._say("collect", {"wager_id": c.wager_id, "seat": c.seat, "spot": str(c.spot),
                                  "stake_cents": c.stake_cents})
        return sum(c.stake_cents for c in collections)

    def _bonus_void(self, n: int, wagers: list[Wager], winners: list[Wager], result: Spot, collected: int) -> None:
        """A bonus game that could not finish (``bonus_void``): the losing wagers were collected before
        it (§ 690.2(f)) and stay collected; the wagers on the bonus game, whose odds it was to set, are
        void and refunded. The round is recorded void (``reason`` bonus_void) with what was collected."""
        self.stats["void_rounds"] += 1
        for w in winners:
            self._say("refund", {"wager_id": w.wager_id, "seat": w.seat, "spot": str(w.spot),
                                 "stake_cents": w.stake_cents})
        self._say("round_end", {"round": n, "void": True, "reason": "bonus_void", "result": str(result),
                                "wagers": len(wagers), "collected_cents": collected,
                                "refunded_cents": sum(w.stake_cents for w in winners)})

    def _settle(self, n: int, wagers: list[Wager], stop: SpinStop, top: TopSlotStop, result: Spot,
                outcome: TopSlotOutcome, bonus_odds: dict[int, ToOne] | None, collected: int | None = None,
                wagers_total: int | None = None) -> None:
        """Settle ``wagers`` on ``result``: collect the losers, then pay the winners (§ 690.2(e)–(f)).
        After a bonus game the losers were collected before it (``collected``: their cents) and
        ``wagers`` are its winners only."""
        f = self.faults
        cap = None if f.ignore_payout_limit else self.rules.limits.max_payout_per_round_cents  # § 690.1(g)(4)
        s = settle(wagers, result, outcome, cap, bonus_odds=bonus_odds)
        payments = [("pay", {"wager_id": p.wager_id, "seat": p.seat, "spot": str(p.spot),
                             "stake_cents": p.stake_cents, "odds": str(p.odds),
                             "odds_ratio": str(p.odds.ratio), "win_cents": p.win_cents + f.payout_error_cents,
                             "capped": p.capped}) for p in s.payments]
        if f.pay_before_collect:
            for kind, payload in payments:
                self._say(kind, payload)
        collected = (collected or 0) + self._collect_losers(s.collections)
        if not f.pay_before_collect:
            for kind, payload in payments:  # § 690.2(e)-(f): collect losers first, then pay winners
                self._say(kind, payload)
        self._say("round_end", {
            "round": n, "void": False, "result": str(result), "section_index": stop.section_index,
            "top_slot": {"spot": top.spot, "multiplier": top.multiplier, "aligned": top.aligned},
            "wagers": len(wagers) if wagers_total is None else wagers_total,
            "collected_cents": collected,
            "paid_cents": sum(p["win_cents"] for _, p in payments),
        })


def bench_record(trace: TraceWriter, params: dict) -> None:
    """Round 0: the bench's effective device parameters (each device records its own info)."""
    trace.round = 0
    trace.record(CROUPIER, "bench", {"params": params})
