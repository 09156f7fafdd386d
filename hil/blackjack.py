"""The croupier for the side wagers of a Blackjack table (§§ 633b.17–633b.21): the progressive
wager through the progressive table game system (§ 605a.7) and the chip side wagers, settled from
the card reader's cards. The Blackjack hand itself is not played (the side wagers are settled on
the player's first two cards and the dealer's up and hole cards).

One round::

    (the cut card came out: shuffle) → round_start → betting_open: players press their seat's
      progressive wager button and place its chips, and place chip side wagers
    → no_more_bets + the lock-out (§ 633b.17(e), (c)(2); the rig's probe presses around it)
    → the dealer verifies the progressive chips against the wagers the system accepted and
      collects them (§ 633b.17(e): ``progressive_verify``, ``progressive_collect``)
    → deal: each seat's first card, the dealer's up card, each seat's second card, the hole card
      (the reader reports each: ``shoe/card_read``)
    → settlement from the cards as read (``rules.blackjack_table``), counterclockwise from the
      player farthest to the dealer's right (the highest seat: seat 1 is dealt first, § 633b.18(g)),
      a share of a jackpot paid by the system, not from the table inventory (§ 633b.17(f)(4)):
      per meter, its winners' win lights on (§ 633b.17(f)(2)), the meter read and paid, shared by
      its winners, reseeded; Envy Bonuses (§ 633b.18(k)); a floorperson validates each
      progressive payout the regulation names before it is paid (``floorperson_validation``:
      §§ 633b.17(f)(3), 633b.18(h)(3) every win; § 633b.21(e)(2) odds above 200 for 1); chip
      wagers collected or paid → round_end (lights off).

``CroupierFaults`` make it wrong on purpose (``progressive_chips_mismatch``, ``skip_win_light``,
``no_meter_split``, ``payout_error_cents``, ``settle_late_presses``, ``skip_floorperson_validation``,
``skip_envy_bonus``, ``jackpot_from_table_inventory``, ``settle_clockwise``).

Durable state (``state()``, committed with each round): the meters of a simulated progressive
system exactly (``ProgressiveController.snapshot``: whole cents, the fractions of a cent carried,
reserves) and the simulated shoe's id. ``restore()`` puts the meters back (a real system keeps its
own: nothing is done to it) and numbers the next shoe after the last one; the shoe's position is
not restored — the resumed table shuffles a fresh shoe (the interrupted one is never revealed, its
reads stay unverified), which avoids committing a shoe's order to the trace before it is dealt.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

import numpy as np
import simpy

from devices.contracts import MeterPayout, MeterReading
from devices.contracts import PressAnswer
from hil.bench import Devices
from hil.controller import TableCroupier
from hil.scenario import CardTable, Scenario
from hil.trace import TraceWriter
from rules.blackjack_table import PROGRESSIVE_SPOTS, is_crown_treasure, meter_specs, meter_won, settle
from rules.cards import Card

#: the clause that names the floorperson's validation of each progressive wager's payout
FLOORPERSON_CLAUSE = {"twenty-one-plus-three": "§ 633b.17(f)(3)", "royal-match": "§ 633b.18(h)(3)",
                      "blazing-sevens-multi": "§ 633b.21(e)(2)"}


class BlackjackController(TableCroupier):
    def __init__(self, env: simpy.Environment, devices: Devices, trace: TraceWriter, scenario: Scenario,
                 rng: np.random.Generator) -> None:
        assert devices.progressive is not None and devices.shoe is not None
        super().__init__(env, devices.progressive, trace, scenario, rng, actuator=devices.actuator)
        self.dev = devices
        self.table: CardTable = scenario.cards or CardTable()
        self.spot = PROGRESSIVE_SPOTS.get(self.table.progressive or "", "progressive")
        self.stats = {"rounds": 0, "shuffles": 0, "progressive_wagers": 0, "meter_hits": 0, "void_rounds": 0}
        if self.actuator is not None and self.table.progressive:
            self._refuse_other_button_stakes(self.table.progressive_stake_cents,
                                             f"{self.table.progressive} progressive wager (cards.progressive_stake_cents)")

    # ------------------------------------------------------------------ durable state
    def _controller(self):
        from devices.progressive import ProgressiveController

        c = getattr(self.wagering, "controller", None)
        return c if self.table.progressive and isinstance(c, ProgressiveController) else None

    def state(self) -> dict[str, Any]:
        """The meters of a simulated progressive system (``dataclasses.asdict`` of each
        ``MeterState``) and the simulated shoe's id; JSON-able. A real device's: ``{}`` entries."""
        from devices.card_shoe import CardShoeSim

        out: dict[str, Any] = {"schema": 1}
        if (c := self._controller()) is not None:
            out["meters"] = [asdict(m) for m in c.snapshot()]
        if isinstance(self.dev.shoe, CardShoeSim):
            out["shoe_id"] = self.dev.shoe.shoe_id
        return out

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from ``state()``: a simulated system's meters exactly (a real one keeps its own),
        the next shoe numbered after the last one (a fresh shoe is shuffled). ValueError for a
        state of another schema or other meters."""
        from devices.card_shoe import CardShoeSim
        from devices.progressive import MeterState

        if state.get("schema") != 1:
            raise ValueError(f"Blackjack table state schema {state.get('schema')!r} (this rig reads 1)")
        if (c := self._controller()) is not None and state.get("meters") is not None:
            c.restore([MeterState(**m) for m in state["meters"]])  # ValueError: other meters
        if isinstance(self.dev.shoe, CardShoeSim) and state.get("shoe_id") is not None:
            self.dev.shoe.shoe_id = int(state["shoe_id"])

    def describe(self) -> dict:
        """Round 0's ``table`` record, with the meters the paytable prescribes (§ 633b.17(h) ...)."""
        t = self.table
        meters = meter_specs(t.progressive, t.progressive_paytable, t.decks, t.progressive_stake_cents) \
            if t.progressive else []
        return {"decks": t.decks, "declared_suit": t.declared_suit, "progressive": t.progressive,
                "progressive_paytable": t.progressive_paytable, "progressive_stake_cents": t.progressive_stake_cents,
                "progressive_spot": self.spot, "side": dict(t.side), "meters": meters}

    def _round(self, n: int):
        env, cr, shoe = self.env, self.sc.croupier, self.dev.shoe
        self.trace.round = n
        self._new_round_presses()
        self.chips = []
        if shoe.needs_shuffle:
            self._say("shuffle")
            yield shoe.shuffle()
            self.stats["shuffles"] += 1
        self._say("round_start", {"round": n})
        self.wagering.open_betting()
        self._say("betting_open", {"window_s": cr.betting_window_s})
        t_lock = env.now + cr.betting_window_s
        self._schedule_players(cr.betting_window_s)
        self._schedule_lockout_presses(t_lock, self.spot, [self.spot] if self.table.progressive else [])
        yield env.timeout(cr.betting_window_s)
        self._say("no_more_bets")  # § 633b.17(e)
        self.wagering.lock_out()
        if self.dev.lockout_counter is not None:
            self.dev.lockout_counter.measure()
        yield env.timeout(cr.spin_delay_s)  # late presses and chips arrive meanwhile
        yield from self._actuations_answered()
        self._update_search()
        self.stats["rounds"] += 1
        wagers = self._accept(n, t_lock)
        if self.table.progressive:  # the meters grow only from the confirmed players' wagers
            confirm = [a for a in self.answers if a.accepted] if self.faults.settle_late_presses \
                else [self._press_of[w["wager_id"]] for w in wagers if w["wager_id"] in self._press_of]
            if self.faults.confirm_foreign_presses:  # a wrong dealer: the real players' refused presses too
                foreign = set(self._attribute().foreign)
                confirm += [a for a in self.answers if a.press_id in foreign and a.accepted and a not in confirm]
            yield from self._confirm_presses(confirm)
        seats = sorted({w["seat"] for w in wagers})
        if not seats:
            self._say("round_end", {"round": n, "void": False, "wagers": 0})
            return
        if shoe.remaining < 2 * len(seats) + 2:  # never deal past the shoe: shuffle first
            self._say("shuffle")
            yield shoe.shuffle()
            self.stats["shuffles"] += 1
        hands = yield from self._deal(seats)
        if hands is None:
            self._void(n, wagers, "card_reader")
            return
        yield from self._settle(n, wagers, hands)

    # ------------------------------------------------------------------ wagers
    def _schedule_players(self, window_s: float) -> None:
        pl, t, rnd, now = self.sc.players, self.table, self.prng, self.env.now
        lo, hi = t.side_stake_cents[0] // 100, t.side_stake_cents[1] // 100
        for seat in range(1, pl.count + 1):
            if t.progressive and rnd.random() < pl.progressive_probability:
                at = now + rnd.uniform(0, window_s)
                # with an actuator the press wagers the button's stake (the system's, checked equal to
                # the table's progressive wager at build); a seat whose button is not wired cannot press
                if self.actuator is None or self.actuator.wired(seat, self.spot):
                    self._press_at(at, seat, self.spot, t.progressive_stake_cents)
                    self._chip_at(at, seat, t.progressive, t.progressive_stake_cents)
            for wager in t.side:
                if rnd.random() < pl.side_probability:
                    self._chip_at(now + rnd.uniform(0, window_s), seat, wager, 100 * rnd.randint(max(lo, 1), max(hi, 1)))

    def _accept(self, n: int, t_close: float) -> list[dict]:
        """§ 633b.17(e): the dealer verifies the progressive chips against the wagers the system
        accepted, collects them; chip side wagers placed before "no more bets" are accepted.

        The progressive wagers are the presses ``TableCroupier._player_presses`` lets through (the
        one rule: accepted before "no more bets", never the rig's probe, a press inside the lock-out
        latency or a duplicate; a press the rig did not make refused "not made by the rig" unless the
        scenario settles them). Each of the rig's players' chips pairs with its seat's press; a real
        player's press (``players.foreign_presses: settle``) is a wager of its own, at the stake the
        system recorded (``by`` foreign) — the chips are that player's, not the rig's to place."""
        t = self.table
        presses = [a for a in self.answers if a.accepted and a.spot == self.spot] if self.faults.settle_late_presses \
            else self._player_presses(t_close, [self.spot])
        foreign = set() if self.faults.settle_late_presses else set(self._attribute().foreign)
        rig: dict[int, list[PressAnswer]] = defaultdict(list)  # seat -> the rig's players' presses, in order
        theirs: list[PressAnswer] = []
        for a in presses:
            (theirs if a.press_id in foreign else rig[a.seat]).append(a)
        accepted = len(presses)
        self._press_of: dict[str, PressAnswer] = {}
        wagers: list[dict] = []
        progressive_chips = 0
        for i, (at, seat, wager, stake) in enumerate(sorted(self.chips), 1):
            press = None
            if wager == t.progressive:
                press = rig[seat].pop(0) if rig[seat] else None
                if press is None and not self.faults.progressive_chips_mismatch:
                    self._say("wager_rejected", {"seat": seat, "wager": wager, "stake_cents": stake,
                                                 "reason": "the system did not accept the wager"})
                    continue
                progressive_chips += 1
            elif at >= t_close:
                self._say("wager_rejected", {"seat": seat, "wager": wager, "stake_cents": stake,
                                             "reason": "placed after no more bets"})
                continue
            w = {"wager_id": f"{n}-{i}", "seat": seat, "wager": wager, "stake_cents": stake, "placed_s": at}
            if press is not None:
                w["press_id"] = press.press_id
                self._press_of[w["wager_id"]] = press
            wagers.append(w)
            self._say("wager", w)
        for a in theirs:  # a real player's press, settled as the scenario allows
            if not t.progressive:
                self._reject(a, "the table offers no progressive wager")
                continue
            w = {"wager_id": f"{n}-p{a.press_id}", "seat": a.seat, "wager": t.progressive,
                 "stake_cents": a.stake_cents, "placed_s": a.device_time_s, "press_id": a.press_id, "by": "foreign"}
            self._press_of[w["wager_id"]] = a
            wagers.append(w)
            self._say("wager", w)
            self.stats["foreign_wagers_settled"] = self.stats.get("foreign_wagers_settled", 0) + 1
        if t.progressive:
            self._say("progressive_verify", {"chips": progressive_chips, "accepted": accepted,
                                             "foreign_wagers": len(theirs)})
            for w in wagers:
                if w["wager"] == t.progressive:
                    self.stats["progressive_wagers"] += 1
                    self._say("progressive_collect", {"wager_id": w["wager_id"], "seat": w["seat"],
                                                      "stake_cents": w["stake_cents"]})
        return wagers

    # ------------------------------------------------------------------ deal
    def _deal(self, seats: list[int]):
        """Each seat's first card, the dealer's up card, each seat's second card, the hole card."""
        order = [f"seat-{s}" for s in seats] + ["dealer-up"] + [f"seat-{s}" for s in seats] + ["dealer-hole"]
        return (yield from self._deal_from(self.dev.shoe, order))

    # ------------------------------------------------------------------ settlement
    def _settle(self, n: int, wagers: list[dict], hands: dict[str, list[Card]]):
        t = self.table
        up, hole = hands["dealer-up"][0], hands["dealer-hole"][0]
        suit = t.declared_suit

        def paytable_of(wager: str) -> str:
            return t.progressive_paytable if wager == t.progressive else t.side[wager]

        # the meters won, and by whom (§ 633b.18(j), § 633b.21(e)(3): shared equally)
        winners: dict[str, list[dict]] = defaultdict(list)
        percent: dict[str, int] = {}  # meter -> the share of it the hand wins
        for w in wagers:
            if w["wager"] == t.progressive:
                mp = meter_won(w["wager"], paytable_of(w["wager"]), hands[f"seat-{w['seat']}"], up, hole, suit)
                if mp is not None:
                    winners[mp.meter].append(w)
                    percent[mp.meter] = mp.percent
        meters: dict[str, int] = {}
        if winners:
            lights = [self.wagering.light_win(w["seat"], True) for ws in winners.values() for w in ws
                      if not self.faults.skip_win_light]  # § 633b.17(f)(2): verified before paying
            if lights:
                yield self.env.all_of(lights) | self.env.timeout(self.sc.croupier.bonus_timeout_s)
            ev = self.wagering.meters()
            yield ev | self.env.timeout(self.sc.croupier.bonus_timeout_s)
            if not ev.processed:
                self._void(n, wagers, "no_meter_reading")
                return
            reading: MeterReading = ev.value
            meters = dict(reading.meters)
            self._say("meters_read", {"meters": meters})
        crowns = sum(1 for w in wagers if w["wager"] == "royal-match"
                     and is_crown_treasure(hands[f"seat-{w['seat']}"], up, hole))
        collected = paid = 0
        # § 633b.18(g): from the player farthest to the dealer's right (the last seat dealt) on
        # counterclockwise; each player's wagers in the order placed
        order = sorted(wagers, key=lambda w: w["seat"], reverse=not self.faults.settle_clockwise)
        for w in order:
            cards = hands[f"seat-{w['seat']}"]
            k = next((len(ws) for ws in winners.values() if w in ws), 1)
            if self.faults.no_meter_split:
                k = 1
            own_crown = w["wager"] == "royal-match" and is_crown_treasure(cards, up, hole)
            s = settle(w["wager"], paytable_of(w["wager"]), cards, up, hole, stake_cents=w["stake_cents"],
                       declared_suit=suit, meters_cents=meters, meter_winners=k,
                       other_crown_treasures=(crowns - own_crown if w["wager"] == "royal-match"
                                              and not self.faults.skip_envy_bonus else 0))
            payload = {"wager_id": w["wager_id"], "seat": w["seat"], "wager": w["wager"],
                       "cards": [str(c) for c in cards], "hand": s.hand, "payout": str(s.payout),
                       "stake_cents": w["stake_cents"], "returned_cents": s.returned_cents,
                       "envy_bonus_cents": s.envy_bonus_cents, "meter": s.meter, "meter_winners": k if s.meter else None,
                       "paid_from_table_inventory": s.paid_from_table_inventory
                       or (s.meter is not None and self.faults.jackpot_from_table_inventory),
                       "floorperson_verification": s.floorperson_verification}
            if s.total_returned_cents == 0:
                collected += w["stake_cents"]
                self._say("collect", payload)
            else:
                payload["returned_cents"] += self.faults.payout_error_cents
                paid += payload["returned_cents"] + s.envy_bonus_cents
                if s.floorperson_verification and not self.faults.skip_floorperson_validation:
                    # the payout validated by a floorperson or above before it is paid
                    self._say("floorperson_validation", {
                        "wager_id": w["wager_id"], "seat": w["seat"], "wager": w["wager"], "hand": s.hand,
                        "returned_cents": payload["returned_cents"], "stake_cents": w["stake_cents"],
                        "citation": FLOORPERSON_CLAUSE.get(w["wager"])})
                self._say("pay", payload)
        for meter, ws in winners.items():
            ev = self.wagering.pay_meter(meter, percent[meter], len(ws))
            yield ev | self.env.timeout(self.sc.croupier.bonus_timeout_s)
            if ev.processed:
                payout: MeterPayout = ev.value
                self.stats["meter_hits"] += 1
                self._say("meter_paid", {"meter": meter, "winners": len(ws), "paid_cents": payout.paid_cents,
                                         "value_cents": payout.value_cents})
        for ws in winners.values():
            for w in ws:
                self.wagering.light_win(w["seat"], False)
        self._say("round_end", {"round": n, "void": False, "wagers": len(wagers), "collected_cents": collected,
                                "paid_cents": paid, "dealer": [str(up), str(hole)]})


def run_linked_tables(env: simpy.Environment, primary: object, count: int, scenario: Scenario,
                      rng: np.random.Generator) -> list:
    """A linked progressive (§ 605a.8): ``count`` other tables on ``primary``'s controller, each
    with its own players wagering on the shared meters round after round (the primary table's
    pace). Only for a simulated system (a stub's controller is in another process): returns []
    otherwise. Their own reports are not this table's evidence and are not recorded."""
    from devices.progressive import ProgressiveTableSim

    if count < 1 or not isinstance(primary, ProgressiveTableSim):
        return []
    cr, pl, t = scenario.croupier, scenario.players, scenario.cards or CardTable()
    spot = PROGRESSIVE_SPOTS.get(t.progressive or "", "progressive")
    import dataclasses

    healthy = dataclasses.replace(primary.params, lockout_ignored=False, lost_increment_probability=0.0,
                                  power_loss_at_s=None, link_loss_at_s=None, link_loss_duration_s=None,
                                  link_loss_keeps_wagering=False)  # the faults under test are this table's
    tables = [ProgressiveTableSim(env, healthy, np.random.Generator(np.random.PCG64(rng.integers(2**63))),
                                  lambda *_a: None, name=f"{primary.name}-linked-{i}", controller=primary.controller)
              for i in range(1, count + 1)]

    def play(table):
        period = cr.betting_window_s + cr.spin_delay_s + cr.between_rounds_s + 8.0  # ≈ a round with its deal
        while True:
            table.open_betting()
            pressed: list = []
            for seat in range(1, pl.count + 1):
                if rng.random() < pl.progressive_probability:
                    env.timeout(float(rng.uniform(0, cr.betting_window_s))).callbacks.append(
                        lambda _e, seat=seat: pressed.append(table.press(seat, spot, t.progressive_stake_cents)))
            yield env.timeout(cr.betting_window_s)
            table.lock_out()
            table.confirm_wagers([e.value.press_id for e in pressed if e.value.accepted])
            yield env.timeout(period - cr.betting_window_s)

    for table in tables:
        env.process(play(table))
    return tables
