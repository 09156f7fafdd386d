"""The croupier for a Roulette table: Roulette X rounds (§ 617b.5) and Roulette Up streaks
across rounds (§ 617b.4), with the streak tracker kept durable and, on a progressive paytable,
the meter on the progressive table game system (the ``roulette_wagering`` device, § 617b.4(c)).

One round::

    round_start → betting_open: players place straight wagers on the layout (chips: recorded as
      the croupier sees them) and — while the streak tracker is empty (§ 617b.4(d)) — Roulette Up
      wagers through the wagering device (§ 617b.4(c)(1))
    → no_more_bets + the wagering device's lock-out (§ 617b.4(c)(2); the rig's probe presses
      straddle the command as at a Crazy Time table); chips placed after it are refused
    → the croupier's acceptance of each Roulette Up press: a wager, or a recorded rejection
      (``TableCroupier._player_presses``: a press inside the lock-out latency or the rig's probe, a
      duplicate of an actuation, a real player's press "not made by the rig" unless the scenario
      settles them; the streak already started, § 617b.4(d); no Roulette wager by that player,
      § 617b.4(a) — a real player's settled press is held to both like any other)
    → Roulette X: the random number generator is initiated (§ 617b.5(d)), numbers lit
    → spin: a misspin (reported by the wheel) or no result in time is void and respun, up to
      ``respin_limit`` times; past that the round is void and its wagers refunded
    → the number is announced; straight wagers settled (collect, then pay: the lit payout on a
      lit number, § 617b.5(e), else the paytable's straight odds, § 617b.5(f))
    → on a progressive paytable the round's Roulette Up wagers are confirmed to the system
      (``confirm_wagers``: only they increment its meter; a void round confirms none)
    → the Roulette Up streak tracker takes the number (§ 617b.4(f)–(g)); a streak that ended is
      settled (§ 617b.4(h)); "100% of progressive meter" is paid by the system
      (``pay_meter(meter, 100, winners)``: it splits the meter and reseeds it)
    → round_end; the trace committed with the table's ``state()`` (the streak's numbers and
      wagers; a simulated system's meters) in the same transaction.

A wheel that runs its own game cycle (``autonomous``: a live automatic wheel; the serial wheel in
follow mode, or the simulated one with ``cycle = "autonomous"``) is followed, not commanded
(``_follow_round``): the round begins with the wheel's next game (its place-bets state), the
wheel's own "no more bets" (its state-4 line, ``bets_closed``) makes the croupier announce "no
more bets" and lock the wagering device out at once, and the game's number settles the round. A
game that ends void (power-off, the wheel idle mid-game, a voiding warning) voids the spin the
moment it is reported; the wheel's next game is the respin, the round's wagers standing. A wheel
that powered off is waited for once, at most ``croupier.power_up_timeout_s`` (``wheel_power_wait``);
past that the round is void and later rounds are void at once while it stays off.

With an actuator in the bench (``devices.actuator``, docs/wire/actuator.md) every press — the
players' Roulette Up presses and the lock-out probe — is an actuation of the wagering device's seat
buttons, its stake the button's (on a progressive paytable it must equal the table's progressive
wager: BenchError otherwise), and every press-log entry is attributed (the rig's, a duplicate, a
real player's). On a followed wheel the probe is actuated when the lock-out command is sent, at
the wheel's line, by the rig's clock. Without one the wagering device's injection presses.

The controller decides from what the devices report; it never writes a verdict. The checks
(``hil.checks.roulette``) re-derive everything from the trace. ``CroupierFaults`` make it wrong
on purpose.

Decisions (docs/rules-roulette.md): a streak starts only after at least one Roulette Up wager
was accepted; all of a streak's wagers are therefore placed in the round of its starting number.
"100% of progressive meter" won by several wagers of one streak is split equally by the system
(whole cents; the remainder stays on the reseeded meter). The meter is reseeded at the seed; the
reserve (§ 617b.4(h)(2)'s reserve rate) accumulates apart and funds the reseeds. A table without a
progressive paytable presses on a plain wagering device (no meter).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import simpy

from devices.contracts import BallResult, Illumination, MeterPayout, PressAnswer
from devices.roulette_wheel import GameVoid, WheelGame
from hil.bench import Devices
from hil.controller import TableCroupier
from hil.scenario import Scenario, Table
from hil.trace import TraceWriter
from rules.odds import ToOne
from rules.roulette import Wheel, parse_pocket, pockets, streak_rank
from rules.roulette_up import (UP_METER, EndReason, ProgressiveMeter, StreakState, meter_spec,
                               paytable as up_paytable, settle_streak)
from rules.roulette_x import LitNumbers, RouletteXSubmission, paytable_for, straight_odds

#: the spot names on the wagering device
UP_SPOT = "roulette-up"
#: § 617a.4's straight odds, for a table that does not offer Roulette X
STANDARD_STRAIGHT = ToOne(35)


def pocket_json(p: int | str) -> int | str:
    return p if isinstance(p, str) else int(p)


def table_rules(rules: RouletteXSubmission, table: Table) -> RouletteXSubmission:
    """The Rules Submission with the paytable the scenario's table selects (if it selects one)."""
    if table.roulette_x_paytable is None or table.roulette_x_paytable == rules.paytable:
        return rules
    rules.par_for(table.roulette_x_paytable)  # the PAR must be there (RouletteXError otherwise)
    return rules.model_copy(update={"paytable": table.roulette_x_paytable})


# --------------------------------------------------------------------------- durable state
@dataclass
class UpWager:
    wager_id: str
    seat: int
    stake_cents: int
    press_id: int | None = None  # the wagering device's press (§ 617b.4(c)(1)); None only for a faulty croupier


@dataclass
class StreakRecord:
    """What the streak tracker must remember across a restart of the rig: the streak (its numbers
    and wagers). The meter is the progressive table game system's, never the croupier's."""

    schema: int = 2
    wheel: str = "single-zero"
    paytable: str | None = None
    numbers: list[int | str] = field(default_factory=list)
    wagers: list[UpWager] = field(default_factory=list)
    streaks_settled: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StreakRecord:
        data = dict(data)
        data["wagers"] = [UpWager(**w) for w in data.get("wagers", [])]
        return cls(**data)


class RouletteStateError(ValueError):
    """A state to resume from that is not this table's (another wheel or paytable, another schema)."""


# --------------------------------------------------------------------------- the croupier
class RouletteController(TableCroupier):
    def __init__(self, env: simpy.Environment, devices: Devices, trace: TraceWriter, scenario: Scenario,
                 rules: RouletteXSubmission, rng: np.random.Generator, store: object = None) -> None:
        # ``store``: ignored (the streak tracker's file is gone; the state is committed with the trace)
        assert devices.roulette_wagering is not None and devices.ball_wheel is not None
        super().__init__(env, devices.roulette_wagering, trace, scenario, rng, actuator=devices.actuator)
        self.dev = devices
        self.table: Table = scenario.table or Table()
        self.wheel = Wheel(self.table.wheel)
        self.pockets = pockets(self.wheel)
        self.rx = paytable_for(table_rules(rules, self.table).paytable, self.wheel) if self.table.roulette_x else None
        self.up = up_paytable(self.table.roulette_up) if self.table.roulette_up else None
        self.stats = {"rounds": 0, "spins": 0, "void_spins": 0, "void_rounds": 0, "streaks": 0, "meter_hits": 0}
        self.chips: list[tuple[float, int, int | str, int]] = []  # (time, seat, number, stake) this round
        self.rec = StreakRecord(wheel=str(self.wheel), paytable=self.up.name if self.up else None)
        self.resumed = False
        self._press_of: dict[str, PressAnswer] = {}  # this round's Roulette Up wager -> its press
        #: a progressive paytable: the Roulette Up wagers feed the system's meter (§ 617b.4(c), (h)(2))
        self.progressive = self.up is not None and self.up.progressive is not None
        longest = self.faults.up_longest_streak
        self.longest = longest if longest is not None else (self.up.longest if self.up else 0)
        self.streak = self._rebuild_streak()
        #: follow the wheel's own game cycle (an automatic wheel that announces "no more bets" itself)
        self.follow = bool(getattr(devices.ball_wheel, "autonomous", False))
        self._power_waited = False  # waited out power_up_timeout_s once: later rounds void at once
        if self.actuator is not None and self.progressive:
            # (a plain wagering device's button stake is the Roulette Up wager's, whatever it is)
            self._refuse_other_button_stakes(self.table.progressive_stake_cents,
                                             "Roulette Up progressive wager (table.progressive_stake_cents)")

    # ------------------------------------------------------------------ durable state
    def state(self) -> dict[str, Any]:
        """The streak (numbers, wagers, streaks settled) and, for a simulated progressive system,
        its meters exactly (``ProgressiveController.snapshot``: whole cents and fractions carried,
        reserves) — committed with the round's trace."""
        out = self.rec.to_json()
        controller = getattr(self.wagering, "controller", None)
        if self.progressive and controller is not None:
            out["meters"] = [asdict(m) for m in controller.snapshot()]
        return out

    def restore(self, state: dict[str, Any]) -> None:
        """Go on with the streak of ``state()``; a simulated system's meters restored exactly (a
        real system keeps its own). Recorded (``streak_resumed``) before the first round.
        RouletteStateError for a state of another wheel, paytable or schema."""
        state = dict(state)
        meters = state.pop("meters", None)
        try:
            rec = StreakRecord.from_json(state)
        except (TypeError, ValueError) as exc:
            raise RouletteStateError(f"unreadable Roulette table state: {exc}") from None
        if rec.schema != StreakRecord.schema:
            raise RouletteStateError(f"Roulette table state schema {rec.schema} (this rig reads {StreakRecord.schema})")
        if (rec.wheel, rec.paytable) != (self.rec.wheel, self.rec.paytable):
            raise RouletteStateError(f"the saved streak is for a {rec.wheel} wheel, paytable {rec.paytable}; "
                                     f"this table is {self.rec.wheel}, {self.rec.paytable}")
        controller = getattr(self.wagering, "controller", None)
        if meters is not None and self.progressive and controller is not None:
            from devices.progressive import MeterState

            controller.restore([MeterState(**m) for m in meters])
        self.rec, self.resumed = rec, True
        self.streak = self._rebuild_streak()

    # ------------------------------------------------------------------ set-up record
    @property
    def _seed_cents(self) -> int:
        assert self.up is not None
        return int(meter_spec(self.up, self.table.progressive_stake_cents)["seed_cents"])

    def describe(self) -> dict[str, Any]:
        """Round 0's ``table`` record: what the checks judge this table against."""
        rx = None if self.rx is None else {"paytable": self.rx.name, "straight_odds": int(self.rx.straight.ratio),
                                           "multipliers": [int(m.ratio) for m in self.rx.multipliers]}
        up = None
        if self.up is not None:
            up = {"paytable": self.up.name, "label": self.up.label, "longest": self.up.longest,
                  "pays": {str(k): str(v) for k, v in self.up.pays.items()}, "progressive": None}
            if (terms := self.up.progressive) is not None:
                up["progressive"] = {
                    "seed_multiple": terms.seed_multiple, "stake_cents": self.table.progressive_stake_cents,
                    "seed_cents": self._seed_cents, "meter": UP_METER, "increment_rate": str(terms.increment_rate),
                    "reserve_rate": None if terms.reserve_rate is None else str(terms.reserve_rate)}
        return {"wheel": str(self.wheel), "pockets": [pocket_json(p) for p in self.pockets],
                "straight_odds_without_x": int(STANDARD_STRAIGHT.ratio), "roulette_x": rx, "roulette_up": up}

    def _rebuild_streak(self) -> StreakState | None:
        if self.up is None:
            return None
        state = replace(StreakState.start(self.wheel, self.up), longest=self.longest)
        for n in self.rec.numbers:
            state = state.add(n)
        return state

    # ------------------------------------------------------------------ run
    def _before_rounds(self) -> None:
        if self.resumed:
            st = self.state()
            self._say("streak_resumed", {"numbers": [pocket_json(p) for p in self.rec.numbers],
                                         "wagers": [asdict(w) for w in self.rec.wagers],
                                         "streaks_settled": self.rec.streaks_settled,
                                         **({"meters": st["meters"]} if "meters" in st else {})})
        self.trace.commit()

    @property
    def up_open(self) -> bool:
        """§ 617b.4(d): Roulette Up wagers only before the starting number is established."""
        return self.up is not None and not self.rec.numbers

    # ------------------------------------------------------------------ one round
    def _round(self, n: int):
        if self.follow:
            yield from self._follow_round(n)
            return
        env, cr = self.env, self.sc.croupier
        self.trace.round = n
        self._new_round_presses()
        self.chips = []
        self._say("round_start", {"round": n})
        self.wagering.open_betting()
        self._say("betting_open", {"window_s": cr.betting_window_s, "roulette_up_open": self.up_open})
        t_lock = env.now + cr.betting_window_s
        self._schedule_players(cr.betting_window_s)
        self._schedule_lockout_presses(t_lock, UP_SPOT, [UP_SPOT] if self.up else [])
        lit: Illumination | None = None
        if self.rx is not None and self.faults.illuminate_before_no_more_bets:
            yield env.timeout(cr.betting_window_s / 2)
            lit = yield from self._illuminate()
            yield env.timeout(max(0.0, t_lock - env.now))
        else:
            yield env.timeout(cr.betting_window_s)
        self._say("no_more_bets")  # § 617a.5 / § 617b.4(c)(2)
        self.wagering.lock_out()
        if self.dev.lockout_counter is not None:
            self.dev.lockout_counter.measure()
        yield env.timeout(cr.spin_delay_s)  # late chips and presses arrive meanwhile
        yield from self._presses_landed(t_lock)
        self._update_search()
        straights, ups = self._accept(n, env.now - cr.spin_delay_s)
        self.stats["rounds"] += 1
        if self.rx is not None and lit is None:
            lit = yield from self._illuminate()  # § 617b.5(d): after all wagers are placed
            if lit is None:
                yield from self._confirm([])
                self._void(n, straights + ups, "no_illumination")
                return
        ball, why = yield from self._spin_until_valid()
        yield from self._settle_round(n, ball, why, straights, ups, lit)

    def _presses_landed(self, t_lock: float):
        """With an actuator: wait (if ``spin_delay_s`` has not) until every probe actuation after the
        lock-out command at ``t_lock`` has closed its contact and the device's answer can be in the
        press log — the sentinel at the budget, the contact delay and spread, the match window and the
        device's answer/poll delay — so the attribution (taken once) sees the round's whole log."""
        if self.actuator is None:
            return
        p = getattr(self.actuator, "params", None)
        lead = float(getattr(p, "contact_delay_s", 0.0)) + float(getattr(p, "contact_jitter_s", 0.0))
        wp = getattr(self.wagering, "params", None)
        answer = float(getattr(wp, "answer_delay_s", 0.0) or 0.0) \
            + float(getattr(self.wagering, "poll_period_s", 0.0) or 0.0)
        until = t_lock + self.sc.lockout.budget_s + 2 * lead + self.actuator.match_window_s + answer + 0.05
        if self.env.now < until:
            yield self.env.timeout(until - self.env.now)
        yield from self._actuations_answered()  # the search's probe presses past the budget too

    def _settle_round(self, n: int, ball: BallResult | None, why: str, straights: list, ups: list[UpWager],
                      lit: Illumination | None):
        """Settle the round on ``ball`` (None: void, ``why``)."""
        if ball is None:
            yield from self._confirm([])  # refunded: no Roulette Up wager feeds the meter
            self._void(n, straights + ups, why)
            return
        number = ball.pocket
        self._say("number", {"pocket": pocket_json(number), "pocket_index": ball.pocket_index})  # § 617a.5(c)
        collected, paid = self._settle_straights(straights, number, lit)
        yield from self._confirm(ups)  # the progressive system increments its meter for these only
        self.rec.wagers.extend(ups)  # the Roulette Up wagers join the streak this number starts (§ 617b.4(f))
        up_collected, up_paid, length = yield from self._track(n, number)
        self._say("round_end", {"round": n, "void": False, "pocket": pocket_json(number),
                                "wagers": len(straights) + len(ups), "collected_cents": collected + up_collected,
                                "paid_cents": paid + up_paid, "streak_length": length})

    # ------------------------------------------------------------------ wagers
    def _schedule_players(self, window_s: float) -> None:
        """Straight wagers as chips on the layout (recorded when placed; the croupier refuses chips
        placed after "no more bets"), and Roulette Up presses on the wagering device."""
        pl, tb, rnd, now = self.sc.players, self.table, self.prng, self.env.now
        lo_w, hi_w = pl.wagers_per_player
        lo_s, hi_s = tb.straight_stake_cents[0] // 100, tb.straight_stake_cents[1] // 100
        for seat in range(1, pl.count + 1):
            k = rnd.randint(lo_w, hi_w)
            times = sorted(now + rnd.uniform(0, window_s) for _ in range(k))
            for t in times:
                self._chip_at(t, seat, rnd.choice(self.pockets), 100 * rnd.randint(max(lo_s, 1), max(hi_s, 1)))
            if self.up is None:
                continue
            p = pl.roulette_up_probability if self.up_open else pl.roulette_up_late_probability
            if k and rnd.random() < p:
                self._press_at(times[0] + rnd.uniform(0, now + window_s - times[0]), seat, UP_SPOT,
                               self._up_stake(rnd))
        if pl.count and self.rng.random() < pl.late_press_probability:  # a chip after "no more bets"
            late = now + window_s + float(self.rng.uniform(0, pl.late_press_window_s))
            self._chip_at(late, int(self.rng.integers(1, pl.count + 1)),
                          self.pockets[int(self.rng.integers(len(self.pockets)))], 100)

    def _up_stake(self, rnd) -> int:
        if self.up is not None and self.up.progressive is not None:
            return self.table.progressive_stake_cents  # the progressive wager is a fixed amount
        lo, hi = self.table.straight_stake_cents
        return 100 * rnd.randint(max(lo // 100, 1), max(hi // 100, 1))

    def _chip_at(self, at: float, seat: int, number: int | str, stake: int) -> None:
        ev = self.env.timeout(max(0.0, at - self.env.now))
        ev.callbacks.append(lambda _e: self.chips.append((self.env.now, seat, number, stake)))

    def _accept(self, n: int, t_close: float) -> tuple[list, list[UpWager]]:
        """The croupier's acceptance of what was placed this round (in time order) before its "no
        more bets" instant ``t_close``.

        The Roulette Up presses are those ``TableCroupier._player_presses`` lets through (the one
        rule: accepted before "no more bets", never the rig's probe, a press inside the lock-out
        latency or a duplicate of an actuation; a press the rig did not make — a real player's —
        refused "not made by the rig" unless the scenario settles them, ``players.foreign_presses``);
        an accepted press of another button than the Roulette Up one is refused (the table offers no
        wager on it). Each press left is held to § 617b.4(a) and (d), a real player's exactly as the
        rig's players': a wager only while the streak tracker is empty, and only by a seat with a
        Roulette wager (straight chips) in the round — the seat is the player's position, and the rig
        sees a real player's Roulette wager only as chips at a seat (docs/rules-roulette.md, "Real
        players' presses"). A real player's wager is recorded ``by`` foreign, at the stake the
        device recorded for the press (the button's)."""
        straights: list[tuple[str, int, int | str, int]] = []
        seats_with_roulette_wager: set[int] = set()
        for i, (t, seat, number, stake) in enumerate(sorted(self.chips, key=lambda c: c[0]), 1):
            if t >= t_close:
                self._say("wager_rejected", {"kind": "straight", "seat": seat, "number": pocket_json(number),
                                             "stake_cents": stake, "placed_s": t,
                                             "reason": "placed after no more bets"})
                continue
            wid = f"{n}-s{i}"
            straights.append((wid, seat, number, stake))
            seats_with_roulette_wager.add(seat)
            self._say("wager", {"wager_id": wid, "kind": "straight", "seat": seat, "number": pocket_json(number),
                                "stake_cents": stake, "placed_s": t})
        ups: list[UpWager] = []
        self._press_of: dict[str, PressAnswer] = {}
        if self.faults.settle_late_presses:
            presses, foreign = [a for a in self.answers if a.accepted and a.spot == UP_SPOT], set()
        else:  # late, probe and duplicate presses (and unsettled real players') refused there
            presses, foreign = self._player_presses(t_close), set(self._attribute().foreign)
        for a in presses:
            if a.spot != UP_SPOT:  # e.g. a real player on another button of the progressive system
                self._reject(a, f"not a wager of this table (its Roulette Up button is {UP_SPOT!r})")
                continue
            theirs = a.press_id in foreign
            reason = None
            if self.up is None:
                reason = "the table offers no Roulette Up wager"
            elif not self.up_open and not self.faults.up_accept_mid_streak:
                reason = "the Roulette Up streak has started (§ 617b.4(d))"
            elif a.seat not in seats_with_roulette_wager:
                reason = "no Roulette wager by this player (§ 617b.4(a))"
            if reason is not None:
                self._say("wager_rejected", {"kind": "up", "seat": a.seat, "press_id": a.press_id,
                                             "stake_cents": a.stake_cents, "reason": reason,
                                             **({"by": "foreign"} if theirs else {})})
                continue
            w = UpWager(f"{n}-u{a.press_id}", a.seat, a.stake_cents, a.press_id)
            ups.append(w)
            self._press_of[w.wager_id] = a
            self._say("wager", {"wager_id": w.wager_id, "kind": "up", "seat": w.seat, "press_id": a.press_id,
                                "stake_cents": w.stake_cents, "placed_s": a.device_time_s,
                                **({"by": "foreign"} if theirs else {})})
            if theirs:
                self.stats["foreign_wagers_settled"] = self.stats.get("foreign_wagers_settled", 0) + 1
        if self.faults.up_wager_without_press and self.up_open:
            # a wrong croupier: a Roulette player's Roulette Up wager taken with no press the device accepted
            pressed = {w.seat for w in ups}
            for seat in sorted(seats_with_roulette_wager - pressed)[:1]:
                w = UpWager(f"{n}-u-seat{seat}", seat, self._up_stake(self.prng))
                ups.append(w)
                self._say("wager", {"wager_id": w.wager_id, "kind": "up", "seat": seat, "press_id": None,
                                    "stake_cents": w.stake_cents, "placed_s": t_close - 1.0})
        return straights, ups

    def _confirm(self, ups: list[UpWager]):
        """§ 617b.4(c), (h)(2): on a progressive paytable the dealer confirms the round's Roulette
        Up wagers to the system (``TableCroupier._confirm_presses``) — their presses, and only
        they, increment its meter; every other press of the round is dropped by the system. A
        void round confirms none. ``faults.croupier.up_meter_no_increment``: never confirms."""
        if not self.progressive:
            return
        presses = [] if self.faults.up_meter_no_increment else \
            [self._press_of[w.wager_id] for w in ups if w.wager_id in self._press_of]
        if self.faults.confirm_foreign_presses:  # a wrong dealer: the real players' refused presses too
            foreign = set(self._attribute().foreign)
            presses += [a for a in self.answers if a.press_id in foreign and a.accepted and a not in presses]
        done = yield from self._confirm_presses(presses)
        if done is None:
            self._say("device_timeout", {"device": self.wagering.name, "request": "confirm_wagers"})
        self._say("wagers_confirmed", {"press_ids": [a.press_id for a in presses],
                                       "incremented": None if done is None else sorted(done)})

    # ------------------------------------------------------------------ devices
    def _illuminate(self):
        self._say("illuminate_command")
        ev = self.dev.illuminator.illuminate()
        yield ev | self.env.timeout(self.sc.croupier.bonus_timeout_s)
        if not ev.processed:
            self._say("device_timeout", {"device": "illuminator"})
            return None
        return ev.value

    def _spin_until_valid(self):
        """Commanded: spin, a void spin respun up to ``respin_limit`` times. Returns (the valid
        ``BallResult``, "") or (None, why the round is void)."""
        cr = self.sc.croupier
        for attempt in range(1, cr.respin_limit + 2):
            if not (yield from self._wait_power()):  # a wheel powered off: no spin timeout per attempt
                return None, "wheel_power_off"
            self.stats["spins"] += 1
            self._say("spin_command", {"attempt": attempt})
            ev = self.dev.ball_wheel.spin()
            yield ev | self.env.timeout(cr.spin_timeout_s)
            value = ev.value if ev.processed else None
            ball, reason = self._judge(value)
            if reason is None:
                self._say("spin_valid", {"attempt": attempt, "pocket": pocket_json(ball.pocket),
                                         "ball_revolutions": ball.ball_revolutions})
                return ball, ""
            respin = attempt <= cr.respin_limit
            self.stats["void_spins"] += 1
            self._say("spin_void", {"attempt": attempt, "reason": reason, "respin": respin})
        return None, "respin_limit"

    def _judge(self, value: BallResult | GameVoid | None) -> tuple[BallResult | None, str | None]:
        """The wheel's answer for a spin: (the ball, None) when valid, else (None, why void)."""
        if value is None:
            return None, "no_wheel_result"
        if isinstance(value, GameVoid):
            return None, value.reason
        try:
            parse_pocket(value.pocket, self.wheel)
        except ValueError:
            return None, "invalid_pocket"
        if value.misspin:
            return None, "misspin"
        return value, None

    def _wait_power(self):
        """A wheel that is powered off: wait for it once, at most ``croupier.power_up_timeout_s``
        (recorded ``wheel_power_wait``); True when it is powered. While it stays off after that
        wait, False at once (no second wait)."""
        wheel = self.dev.ball_wheel
        if getattr(wheel, "powered", True):
            self._power_waited = False
            return True
        if self._power_waited:
            return False
        t0, limit = self.env.now, self.sc.croupier.power_up_timeout_s
        ev = wheel.power_up()
        yield ev | self.env.timeout(limit)
        self._power_waited = not ev.processed
        self._say("wheel_power_wait", {"waited_s": round(self.env.now - t0, 6), "limit_s": limit,
                                       "powered_up": ev.processed})
        return ev.processed

    # ------------------------------------------------------------------ follow an autonomous wheel
    def _next_game(self):
        """The wheel's next game (None: none began within ``spin_timeout_s``, or the wheel is
        powered off and did not come back within ``power_up_timeout_s``)."""
        if not (yield from self._wait_power()):
            return None
        ev = self.dev.ball_wheel.next_game()
        yield ev | self.env.timeout(self.sc.croupier.spin_timeout_s)
        return ev.value if ev.processed else None

    def _follow_round(self, n: int):
        """One round on a wheel that runs its own cycle (see the module's docstring)."""
        env, cr = self.env, self.sc.croupier
        self.trace.round = n
        self._new_round_presses()
        self.chips = []
        game: WheelGame | None = yield from self._next_game()
        self._say("round_start", {"round": n, "follow": True, "wheel_game": None if game is None else game.spin_id})
        if game is not None:
            self._hold_on_void(game)
        if game is None:
            self.stats["rounds"] += 1
            self._void(n, [], "wheel_power_off" if not getattr(self.dev.ball_wheel, "powered", True)
                       else "no_wheel_game")
            return
        self.wagering.open_betting()
        self._say("betting_open", {"window_s": cr.betting_window_s, "roulette_up_open": self.up_open,
                                   "wheel_game": game.spin_id})
        self._schedule_players(cr.betting_window_s)  # the expected window: later chips are refused
        # the probe is armed now (it presses after the lock-out command, whenever the wheel closes
        # bets: nothing is sent between the wheel's line and the lock-out); a player's late press
        # around the expected close
        # (an actuator's probe is pressed by the rig's clock at offsets after the lock-out command, so
        # it is pressed when the command is sent: the instant the wheel's line arrives)
        self._schedule_lockout_presses(env.now + cr.betting_window_s, UP_SPOT, [UP_SPOT] if self.up else [],
                                       probe=self.actuator is None)
        yield game.bets_closed | game.result | env.timeout(cr.spin_timeout_s)
        t_wheel = game.bets_closed.value if game.bets_closed.processed else None
        if self.faults.follow_lockout_delay_s:  # a wrong croupier: slow to follow the wheel's announcement
            yield env.timeout(self.faults.follow_lockout_delay_s)
        self._say("no_more_bets", {"source": "wheel" if t_wheel is not None else "croupier",
                                   "wheel_game": game.spin_id, "wheel_time_s": t_wheel})
        self.wagering.lock_out()
        if self.dev.lockout_counter is not None:
            self.dev.lockout_counter.measure()
        t_close = env.now
        if self.actuator is not None:  # the probe's actuations, at offsets after the command just sent
            self._schedule_lockout_presses(t_close, UP_SPOT, [])
        if not game.result.processed:  # late presses arrive meanwhile; a game void already is judged at once
            yield game.result | env.timeout(cr.spin_delay_s)
        yield from self._presses_landed(t_close)
        self._update_search()
        straights, ups = self._accept(n, t_close)
        self.stats["rounds"] += 1
        lit: Illumination | None = None
        if self.rx is not None:
            lit = yield from self._illuminate()  # § 617b.5(d): after all wagers are placed
            if lit is None:
                yield from self._confirm([])
                self._void(n, straights + ups, "no_illumination")
                return
        ball, why = yield from self._follow_spins(game)
        yield from self._settle_round(n, ball, why, straights, ups, lit)

    def _hold_on_void(self, game: WheelGame) -> None:
        """The moment the wheel reports the round's game void (power-off, idle mid-game, a voiding
        warning), whatever step the round is at: the round is held (``round_hold`` with the
        reason) — no number of that game will settle it; the spin is judged void in turn."""
        def hold(ev: simpy.Event) -> None:
            if isinstance(ev.value, GameVoid):
                self._say("round_hold", {"reason": ev.value.reason, "wheel_game": ev.value.spin_id,
                                         "wheel_time_s": ev.value.device_time_s})
        game.result.callbacks.append(hold)

    def _follow_spins(self, game: WheelGame):
        """The round's game and, after a void one, the wheel's next games as respins (up to
        ``respin_limit``): (the valid ``BallResult``, "") or (None, why the round is void)."""
        cr = self.sc.croupier
        for attempt in range(1, cr.respin_limit + 2):
            self.stats["spins"] += 1
            self._say("spin_command", {"attempt": attempt, "followed": True, "wheel_game": game.spin_id,
                                       "after_power_up": game.after_power_up})
            yield game.result | self.env.timeout(cr.spin_timeout_s)
            ball, reason = self._judge(game.result.value if game.result.processed else None)
            if reason is None:
                self._say("spin_valid", {"attempt": attempt, "pocket": pocket_json(ball.pocket),
                                         "ball_revolutions": ball.ball_revolutions, "wheel_game": game.spin_id})
                return ball, ""
            respin = attempt <= cr.respin_limit
            self.stats["void_spins"] += 1
            self._say("spin_void", {"attempt": attempt, "reason": reason, "respin": respin,
                                    "wheel_game": game.spin_id})
            if not respin:
                break
            nxt = yield from self._next_game()
            if nxt is not None:
                self._hold_on_void(nxt)
            if nxt is None:
                return None, "wheel_power_off" if not getattr(self.dev.ball_wheel, "powered", True) else "no_wheel_game"
            game = nxt
        return None, "respin_limit"

    # ------------------------------------------------------------------ settlement
    def _settle_straights(self, straights, number, illumination: Illumination | None) -> tuple[int, int]:
        """§ 617b.5(e)–(f): collect the losing straight wagers, then pay the winners."""
        lit = None
        if illumination is not None and self.rx is not None:
            try:
                lit = LitNumbers.of(zip(illumination.numbers, illumination.multipliers), self.rx, self.wheel)
            except ValueError as exc:  # an illumination the paytable does not allow: pay straight odds
                self._say("illumination_refused", {"reason": str(exc)})
        collected = paid = 0
        winners = []
        for wid, seat, num, stake in straights:
            if num != number:
                collected += stake
                self._say("collect", {"wager_id": wid, "kind": "straight", "seat": seat, "number": pocket_json(num),
                                      "stake_cents": stake})
            else:
                winners.append((wid, seat, num, stake))
        for wid, seat, num, stake in winners:
            if self.rx is None:
                odds, is_lit = STANDARD_STRAIGHT, False
            else:
                odds = straight_odds(num, number, lit) if lit is not None else self.rx.straight
                is_lit = lit is not None and odds != self.rx.straight
                if is_lit and self.faults.straight_odds_on_lit:
                    odds = self.rx.straight
            win = odds.profit_cents(stake) + self.faults.payout_error_cents
            paid += win
            self._say("pay", {"wager_id": wid, "kind": "straight", "seat": seat, "number": pocket_json(num),
                              "stake_cents": stake, "odds": str(odds), "lit": is_lit, "win_cents": win})
        return collected, paid

    def _track(self, n: int, number):
        """§ 617b.4(f)–(h): the tracker takes the number; an ended streak is settled. Returns
        (collected, paid, streak length or None)."""
        if self.up is None or (not self.rec.numbers and not self.rec.wagers):
            return 0, 0, None
        state = self.streak
        assert state is not None
        nxt = state.add(number)
        f = self.faults
        if (f.up_continue_on_equal and nxt.end_reason is EndReason.NOT_GREATER
                and streak_rank(number) == streak_rank(state.numbers[-1])):
            length = state.length + 1
            nxt = replace(nxt, length=length, end_reason=EndReason.LONGEST if length >= nxt.longest else None)
        elif f.up_continue_after_36 and nxt.end_reason is EndReason.THIRTY_SIX and nxt.length < nxt.longest:
            nxt = replace(nxt, end_reason=None)
        self.streak = nxt
        self.rec.numbers.append(number)
        self._say("streak", {"numbers": [pocket_json(p) for p in nxt.numbers], "length": nxt.length,
                             "ended": nxt.ended, "end_reason": None if nxt.end_reason is None else nxt.end_reason.name})
        if not nxt.ended:
            return 0, 0, nxt.length
        collected, paid = yield from self._settle_up(nxt)
        self.stats["streaks"] += 1
        self.rec.numbers, self.rec.wagers = [], []
        self.rec.streaks_settled += 1
        self.streak = self._rebuild_streak()
        return collected, paid, nxt.length

    def _settle_up(self, streak: StreakState):
        """§ 617b.4(h): every wager of the streak settled by the paytable. "100% of progressive
        meter" is the system's to pay: ``pay_meter(meter, 100, winners)`` splits the meter equally
        among the streak's wagers (whole cents; the remainder stays) and reseeds it; each winner is
        paid the share the system reports (``meter_hit``)."""
        assert self.up is not None
        length = min(streak.length, self.up.longest)  # a faulty tracker past the paytable: its last row
        payout = self.up.payout(length)
        hit = isinstance(payout, ProgressiveMeter)
        wagers = self.rec.wagers
        share: int | None = None
        if hit and wagers:
            share = yield from self._pay_meter(len(wagers))
        collected = paid = 0
        for w in wagers:
            if hit and share is None:  # the system did not pay: nothing handed over, the wager stands unpaid
                self._say("up_settle", {"wager_id": w.wager_id, "seat": w.seat, "stake_cents": w.stake_cents,
                                        "length": streak.length, "payout": str(payout), "returned_cents": 0,
                                        "meter_unpaid": True})
                continue
            s = settle_streak(self.up, length, w.stake_cents, meter_cents=share if hit else None)
            returned = s.returned_cents
            if self.faults.up_push_collected and str(s.payout) == "Push":
                returned = 0
            if returned < w.stake_cents:
                collected += w.stake_cents - returned
            paid += max(0, returned - w.stake_cents)
            self._say("up_settle", {"wager_id": w.wager_id, "seat": w.seat, "stake_cents": w.stake_cents,
                                    "length": streak.length, "payout": str(payout), "returned_cents": returned,
                                    **({"meter_share_cents": share, "meter_winners": len(wagers)} if hit else {})})
        return collected, paid

    def _pay_meter(self, winners: int):
        """The system pays its meter (100 %, shared by ``winners``); the share each is paid, or None
        when the system did not answer within ``croupier.bonus_timeout_s``."""
        self.stats["meter_hits"] += 1
        # faults.croupier.no_meter_split: the system asked to pay one winner, each paid the whole meter
        try:
            ev = self.wagering.pay_meter(UP_METER, 100, 1 if self.faults.no_meter_split else winners)
        except ValueError as exc:  # a system without the Roulette Up meter (misconfigured): nothing paid
            self._say("device_refused", {"device": self.wagering.name, "request": "pay_meter", "reason": str(exc)})
            return None
        yield ev | self.env.timeout(self.sc.croupier.bonus_timeout_s)
        if not ev.processed:
            self._say("device_timeout", {"device": self.wagering.name, "request": "pay_meter"})
            return None
        paid: MeterPayout = ev.value
        return int(paid.paid_cents)

    def _void(self, n: int, wagers: list, reason: str) -> None:
        """A round that cannot be settled: this round's wagers refunded; a running streak goes on."""
        self.stats["void_rounds"] += 1
        for w in wagers:
            if isinstance(w, UpWager):
                self._say("refund", {"wager_id": w.wager_id, "kind": "up", "seat": w.seat,
                                     "stake_cents": w.stake_cents})
            else:
                wid, seat, num, stake = w
                self._say("refund", {"wager_id": wid, "kind": "straight", "seat": seat, "number": pocket_json(num),
                                     "stake_cents": stake})
        self._say("round_end", {"round": n, "void": True, "reason": reason, "wagers": len(wagers)})
