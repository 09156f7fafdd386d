"""The croupiers of the poker tables: the Ultimate Texas Hold 'Em side wagers (§§ 653b.2–653b.5),
Criss-Cross Poker's Ultimate Pairs wager (§ 674b.1), both settled from the card reader's cards, and
Crazy 4 Poker wager placement (§ 657a.7). Same pattern as ``hil.blackjack``: on
``hil.controller.TableCroupier``, every step recorded, the checks (``hil.checks.poker``) re-derive
everything from the trace.

UTH and Criss-Cross, one round::

    shuffle (one 52-card deck, shuffled before every round) → round_start → betting_open: players
      place chips on the side wagers the table offers (each recorded with its time)
    → no_more_bets → the chips placed before it accepted (``wager``, with the table's paytable)
    → deal; the reader reports every card (``shoe/card_read``):
        UTH: each seat's first card, the dealer's first, each seat's second, the dealer's second,
          then the five community cards ``board-1``…``board-5`` (flop, turn, river);
        Criss-Cross: each seat's first card, then each seat's second — the player's two initial
          cards, all the Ultimate Pairs wager reads (§ 674b.1(e)); the rest of the deal is not
          dealt
    → settlement from the cards as read (``rules.uth``, ``rules.criss_cross``): each wager paid
      (``pay``: ``returned_cents``, the stake included) or collected; then the cards are removed
      (``cards_removed``: the optional wagers are settled "prior to the removal of cards",
      § 653b.4(d), § 653b.5(d), § 674b.1(d)) → round_end.
      A card not read within ``croupier.bonus_timeout_s``, or a deal that one deck cannot make (a
      card read twice): the round is void and every wager refunded.

The base games (Ante, Blind, Play; Criss-Cross's Across and Down bets) are not played: a folding
player's side wagers "remain on the table until settled" (§ 653b.4(c), § 653b.5(c), § 674b.1(c)),
so their settlement reads the cards alone and no player's decision is needed.

Crazy 4, one round (no device, no card: the placement rules only)::

    round_start → betting_open: each player asks, at its position, to place the Ante, the Super
      Bonus, and optionally Queens Up, the progressive chip and the Five Card Hand Bonus; a few
      players make a request the rules refuse (``players.misplay_probability``)
    → each request decided on arrival by ``rules.crazy4.Crazy4Table.request``
      (``wager_accepted`` / ``wager_refused``, with the reason and the subsection cited)
    → no_more_bets: every position judged (``position_accepted`` / ``position_refused``,
      § 657a.7(d)(1))
    → the Play Wagers of the positions that stand, late requests (refused, § 657a.7(c))
    → round_end with the wagers standing. Settlement (§ 657a.12) is out of scope.

``CroupierFaults`` make it wrong on purpose: ``payout_error_cents``, ``uth_bad_beat_other_reading``,
``uth_board_pays_any_pair``, ``uth_pairs_use_dealer_cards``, ``ultimate_pairs_paytable``,
``remove_cards_before_settling``, ``accept_late_chips`` (chips placed after "no more bets" taken);
``crazy4_accept_cash_and_unseated``, ``crazy4_accept_after_no_more_bets``,
``crazy4_accept_unequal_super_bonus``, ``crazy4_accept_second_position``. The Crazy 4 faults are a
dealer who sees the request wrongly (cash as chips, a bystander as seated, the Super Bonus as the
Ante's amount, each position as another player, betting as still open); the decision is still
``rules.crazy4``'s.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np
import simpy

from hil.adversary import crazy4_spots
from hil.bench import Devices
from hil.controller import TableCroupier
from hil.scenario import PokerTable, Scenario
from hil.trace import TraceWriter
from rules import criss_cross
from rules.cards import Card
from rules.crazy4 import Action, BonusTarget, Crazy4Offer, Crazy4Table, Crazy4Wager, Instrument, WagerRequest
from rules.poker import HandCategory, evaluate
from rules.uth import (PLAY_THE_BOARD_PAYTABLES, BadBeatReading, SideWagerSettlement, pick_paytable,
                       settle_bad_beat, settle_play_the_board, settle_row, settle_trips, settle_ultimate_pairs)

BOARD = tuple(f"board-{i}" for i in range(1, 6))  # flop (1–3), turn (4), river (5)


def seat_position(seat: int) -> str:
    return f"seat-{seat}"


class PokerSideCroupier(TableCroupier):
    """UTH and Criss-Cross: chips on the side wagers, the deal through the shoe, settlement from the
    cards read. Subclasses give the deal's order and each wager's settlement."""

    game: ClassVar[str]

    def __init__(self, env: simpy.Environment, devices: Devices, trace: TraceWriter, scenario: Scenario,
                 rng: np.random.Generator) -> None:
        assert devices.shoe is not None and scenario.poker is not None
        super().__init__(env, None, trace, scenario, rng)
        self.dev = devices
        self.table: PokerTable = scenario.poker
        self.stats = {"rounds": 0, "shuffles": 0, "wagers": 0, "winners": 0, "void_rounds": 0}

    def describe(self) -> dict:
        """Round 0's ``table`` record: the side wagers offered and their paytables."""
        return {"game": self.game, "decks": 1, "side": dict(self.table.side or {}),
                "side_stake_cents": list(self.table.side_stake_cents)}

    def deal_order(self, seats: list[int]) -> list[str]:
        raise NotImplementedError

    def settlement(self, w: dict, hands: dict[str, list[Card]]) -> SideWagerSettlement:
        raise NotImplementedError

    def shown(self, hands: dict[str, list[Card]]) -> dict:
        """What round_end shows of the table's cards (beyond the seats')."""
        return {}

    # ------------------------------------------------------------------ one round
    def _round(self, n: int):
        env, cr, shoe = self.env, self.sc.croupier, self.dev.shoe
        self.trace.round = n
        self.chips = []
        self._say("shuffle")  # one deck, shuffled before every round
        ready = shoe.shuffle()
        yield ready | env.timeout(cr.bonus_timeout_s)
        if not ready.processed:
            self._void(n, [], "shoe_not_ready")
            return
        self.stats["shuffles"] += 1
        self._say("round_start", {"round": n})
        self._say("betting_open", {"window_s": cr.betting_window_s})
        t_close = env.now + cr.betting_window_s
        self._schedule_players(cr.betting_window_s)
        self._schedule_adversary(t_close, list(self.table.side or {}), "chips")
        yield env.timeout(cr.betting_window_s)
        self._say("no_more_bets")
        yield env.timeout(cr.spin_delay_s)  # chips still arriving are rejected
        self.stats["rounds"] += 1
        wagers = self._accept(n, t_close)
        seats = sorted({w["seat"] for w in wagers})
        if not seats:
            self._say("round_end", {"round": n, "void": False, "wagers": 0})
            return
        hands = yield from self._deal_from(shoe, self.deal_order(seats))
        if hands is None:
            self._void(n, wagers, "card_reader")
            return
        dealt = [c for cs in hands.values() for c in cs]
        if len(set(dealt)) != len(dealt):  # a card read twice: not one deck's deal
            self._void(n, wagers, "card_read_twice")
            return
        self._settle(n, wagers, hands)

    def _schedule_players(self, window_s: float) -> None:
        pl, t, rnd, now = self.sc.players, self.table, self.prng, self.env.now
        lo, hi = t.side_stake_cents[0] // 100, t.side_stake_cents[1] // 100
        for seat in range(1, pl.count + 1):
            for wager in t.side or {}:
                if rnd.random() < pl.side_probability:
                    self._chip_at(now + rnd.uniform(0, window_s), seat, wager, 100 * rnd.randint(max(lo, 1), max(hi, 1)))

    def _accept(self, n: int, t_close: float) -> list[dict]:
        """The chips placed before "no more bets" are the round's wagers; later ones are rejected."""
        wagers: list[dict] = []
        for i, (at, seat, wager, stake) in enumerate(sorted(self.chips), 1):
            if at >= t_close and not self.faults.accept_late_chips:
                self._say("wager_rejected", {"seat": seat, "wager": wager, "stake_cents": stake,
                                             "reason": "placed after no more bets", "placed_s": at})
                continue
            w = {"wager_id": f"{n}-{i}", "seat": seat, "wager": wager, "paytable": (self.table.side or {})[wager],
                 "stake_cents": stake, "placed_s": at}
            wagers.append(w)
            self._say("wager", w)
        self.stats["wagers"] += len(wagers)
        return wagers

    def _settle(self, n: int, wagers: list[dict], hands: dict[str, list[Card]]) -> None:
        """§ 653b.4(d), § 653b.5(d), § 674b.1(d): the optional wagers settled from the cards, once the
        round is dealt, "prior to the removal of cards" (then ``cards_removed``)."""
        collected = paid = 0
        if self.faults.remove_cards_before_settling:
            self._say("cards_removed", {"round": n})
        for w in wagers:
            s = self.settlement(w, hands)
            payload = {"wager_id": w["wager_id"], "seat": w["seat"], "wager": w["wager"], "paytable": s.paytable,
                       "cards": [str(c) for c in hands[seat_position(w["seat"])]], "hand": s.hand, "row": s.row,
                       "payout": None if s.payout is None else str(s.payout), "stake_cents": w["stake_cents"],
                       "returned_cents": s.returned_cents}
            if s.returned_cents == 0:
                collected += w["stake_cents"]
                self._say("collect", payload)
            else:
                payload["returned_cents"] += self.faults.payout_error_cents
                paid += payload["returned_cents"]
                self.stats["winners"] += 1
                self._say("pay", payload)
        if not self.faults.remove_cards_before_settling:
            self._say("cards_removed", {"round": n})  # the dealer clears the layout
        self._say("round_end", {"round": n, "void": False, "wagers": len(wagers), "collected_cents": collected,
                                "paid_cents": paid, **self.shown(hands)})


class UthController(PokerSideCroupier):
    """Ultimate Texas Hold 'Em: Trips (§ 653b.2), Bad Beat (§ 653b.3), Play the Board (§ 653b.4),
    Ultimate Pairs (§ 653b.5)."""

    game = "uth"

    def describe(self) -> dict:
        return {**super().describe(), "bad_beat_reading": self.table.bad_beat_reading}

    def deal_order(self, seats: list[int]) -> list[str]:
        first = [seat_position(s) for s in seats]
        return first + ["dealer"] + first + ["dealer"] + list(BOARD)

    def shown(self, hands: dict[str, list[Card]]) -> dict:
        return {"dealer": [str(c) for c in hands["dealer"]], "board": [str(c) for p in BOARD for c in hands[p]]}

    def settlement(self, w: dict, hands: dict[str, list[Card]]) -> SideWagerSettlement:
        f, name, stake = self.faults, (self.table.side or {})[w["wager"]], w["stake_cents"]
        player, dealer = hands[seat_position(w["seat"])], hands["dealer"]
        board = [c for p in BOARD for c in hands[p]]
        if w["wager"] == "trips":
            return settle_trips(name, player, board, stake)
        if w["wager"] == "bad-beat":
            reading = BadBeatReading(self.table.bad_beat_reading)
            if f.uth_bad_beat_other_reading:
                reading = next(r for r in BadBeatReading if r is not reading)
            return settle_bad_beat(name, player, dealer, board, stake, reading=reading)
        if w["wager"] == "play-the-board":
            s = settle_play_the_board(name, board, stake)
            if f.uth_board_pays_any_pair and s.row is None and evaluate(board).category is HandCategory.PAIR:
                table = pick_paytable(PLAY_THE_BOARD_PAYTABLES, name, "Play the Board", "§ 653b.4(f)")
                s = settle_row(table, "Pair—10s or better", s.hand, stake)
            return s
        if w["wager"] == "ultimate-pairs":
            if f.uth_pairs_use_dealer_cards:
                player, dealer = dealer, player
            return settle_ultimate_pairs(f.ultimate_pairs_paytable or name, player, stake, dealer=dealer)
        raise ValueError(f"not a UTH side wager: {w['wager']}")


class CrissCrossController(PokerSideCroupier):
    """Criss-Cross Poker's Ultimate Pairs wager (§ 674b.1): only the player's two initial cards are
    dealt — the dealer's cards and the cross of community cards are read by no wager here."""

    game = "criss-cross"

    def deal_order(self, seats: list[int]) -> list[str]:
        first = [seat_position(s) for s in seats]
        return first + first

    def settlement(self, w: dict, hands: dict[str, list[Card]]) -> SideWagerSettlement:
        name = self.faults.ultimate_pairs_paytable or (self.table.side or {})[w["wager"]]
        return criss_cross.settle_ultimate_pairs(name, hands[seat_position(w["seat"])], w["stake_cents"])


# ---------------------------------------------------------------------------------------- Crazy 4

#: The players' time to make the Play Wager once the cards are out (the deal itself is not played).
PLAY_DECISION_S = 5.0
#: Requests the rules refuse that a player may make, and the player who leaves the table once the
#: cards are out (§ 657a.7(b)) (one per misplaying player and round).
MISPLAYS = ("verbal-cash", "bystander", "second-position", "unequal-super-bonus", "optional-first", "early-play",
            "not-offered", "withdraw-ante", "late-wager", "late-withdraw", "second-play", "leave-mid-round")
_OPTIONAL = (Crazy4Wager.FOUR_CARD_PROGRESSIVE, Crazy4Wager.FIVE_CARD_PROGRESSIVE, Crazy4Wager.FIVE_CARD_HAND_BONUS)


def request_payload(req: WagerRequest) -> dict:
    """A request as the trace records it (``rules.crazy4.WagerRequest``'s fields, as text)."""
    return {"player": req.player, "position": req.position, "wager": str(req.wager), "amount_cents": req.amount_cents,
            "instrument": str(req.instrument), "seated": req.seated, "action": str(req.action),
            "target": None if req.target is None else str(req.target)}


class Crazy4Controller(TableCroupier):
    """Crazy 4 Poker wager placement (§ 657a.7). Player ``P<seat>`` wagers at position ``<seat>``;
    the position after the last seat is an empty one (a second position, a bystander's try)."""

    def __init__(self, env: simpy.Environment, devices: Devices, trace: TraceWriter, scenario: Scenario,
                 rng: np.random.Generator) -> None:
        assert scenario.poker is not None
        super().__init__(env, None, trace, scenario, rng)
        self.dev = devices
        t = self.table = scenario.poker
        self.offer = Crazy4Offer(four_card_progressive=t.four_card_progressive,
                                 five_card_progressive=t.five_card_progressive,
                                 five_card_hand_bonus=t.five_card_hand_bonus)
        self.layout = Crazy4Table(self.offer)
        self.requests = 0
        self.second_plays: set[int] = set()
        self.leaving: set[int] = set()  # seats whose player leaves once the cards are out (§ 657a.7(b))
        self.stats = {"rounds": 0, "requests": 0, "accepted": 0, "refused": 0, "positions_refused": 0,
                      "play_wagers": 0, "void_rounds": 0, "players_left": 0}

    def describe(self) -> dict:
        """Round 0's ``table`` record: the optional wagers the Rules Submission offers (§ 657a.7(d)(3)–(5))."""
        t = self.table
        return {"game": "crazy-4", "offer": {"four_card_progressive": t.four_card_progressive,
                                             "five_card_progressive": t.five_card_progressive,
                                             "five_card_hand_bonus": t.five_card_hand_bonus},
                "ante_stake_cents": list(t.ante_stake_cents), "progressive_stake_cents": t.progressive_stake_cents,
                "positions": self.sc.players.count + 1,
                # § 657a.7(b): the wagers of a player who leaves during the round "may be considered
                # abandoned and may be treated as losing wagers" — this table does both
                "abandoned_wagers": "losing"}

    # ------------------------------------------------------------------ one round
    def _round(self, n: int):
        env, cr = self.env, self.sc.croupier
        self.trace.round = n
        self.layout, self.requests, self.second_plays, self.leaving = Crazy4Table(self.offer), 0, set(), set()
        self._say("round_start", {"round": n})
        self._say("betting_open", {"window_s": cr.betting_window_s})
        self._schedule_players(cr.betting_window_s)
        self._schedule_adversary(env.now + cr.betting_window_s, crazy4_spots(), "request")
        yield env.timeout(cr.betting_window_s)
        self._no_more_bets()
        # the late requests and the Play Wagers (a second one 0.5 s after the first) arrive meanwhile
        yield env.timeout(cr.spin_delay_s + PLAY_DECISION_S + self.sc.players.late_press_window_s + 1.0)
        self.stats["rounds"] += 1
        positions = {str(k): {"player": p.player, "wagers": {str(w): a for w, a in p.amounts.items()}}
                     for k, p in sorted(self.layout.positions.items())}
        abandoned = {str(k): {"player": p.player, "wagers": {str(w): a for w, a in p.amounts.items()}}
                     for k, p in sorted(self.layout.abandoned.items())}  # collected as losing wagers
        self._say("round_end", {"round": n, "void": False, "requests": self.requests, "positions": positions,
                                "abandoned": abandoned})

    def _no_more_bets(self) -> None:
        """§ 657a.7(c): "no more bets"; every position judged (§ 657a.7(d)(1)); the Play Wagers of
        the positions that stand follow the (unplayed) deal."""
        self._say("no_more_bets")
        before = self.layout
        decisions, self.layout = self.layout.announce_no_more_bets()
        for d in decisions:
            pos = before.positions[d.position]
            self.stats["positions_refused"] += not d.accepted
            self._say("position_accepted" if d.accepted else "position_refused",
                      {"position": d.position, "player": pos.player, "reason": d.reason, "citation": d.citation,
                       "wagers": {str(w): a for w, a in pos.amounts.items()}})
        pl, rnd, now, cr = self.sc.players, self.prng, self.env.now, self.sc.croupier
        for seat in sorted(self.leaving):  # after the cards, before the Play Wagers
            self._leave_at(now + rnd.uniform(0, cr.spin_delay_s), seat)
        for seat in range(1, pl.count + 1):
            pos = self.layout.positions.get(seat)
            if pos is None or seat in self.leaving or rnd.random() >= pl.play_probability:
                continue
            ante = pos.amount(Crazy4Wager.ANTE)  # the amount is § 657a.11(b)'s (not supplied): 1× or 3× the Ante
            req = WagerRequest(f"P{seat}", seat, Crazy4Wager.PLAY, ante * (3 if rnd.random() < 0.2 else 1))
            at = now + cr.spin_delay_s + rnd.uniform(0, PLAY_DECISION_S)
            self._request_at(at, req)
            if seat in self.second_plays:
                self._request_at(at + 0.5, req)

    # ------------------------------------------------------------------ the players
    def _schedule_players(self, window_s: float) -> None:
        pl, t, rnd, now = self.sc.players, self.table, self.prng, self.env.now
        lo, hi = max(t.ante_stake_cents[0] // 100, 1), max(t.ante_stake_cents[1] // 100, 1)
        empty = pl.count + 1
        t_close = now + window_s
        for seat in range(1, pl.count + 1):
            me = f"P{seat}"
            ante = 100 * rnd.randint(lo, hi)
            reqs = [WagerRequest(me, seat, Crazy4Wager.ANTE, ante), WagerRequest(me, seat, Crazy4Wager.SUPER_BONUS, ante)]
            if rnd.random() < pl.side_probability:
                reqs.append(WagerRequest(me, seat, Crazy4Wager.QUEENS_UP, 100 * rnd.randint(lo, hi)))
            for w in _OPTIONAL:
                if self.offer.offers(w) and rnd.random() < pl.side_probability:
                    reqs.append(self._optional(me, seat, w))
            late: list[WagerRequest] = []
            if rnd.random() < pl.misplay_probability:
                reqs, late = self._misplay(rnd.choice(MISPLAYS), me, seat, ante, empty, reqs)
            for at, req in zip(sorted(rnd.uniform(0, window_s) for _ in reqs), reqs):
                self._request_at(now + at, req)
            for req in late:  # after "no more bets", before the Play Wagers
                self._request_at(t_close + 0.001 + rnd.uniform(0, pl.late_press_window_s), req)

    def _optional(self, me: str, seat: int, w: Crazy4Wager) -> WagerRequest:
        t = self.table
        if w is Crazy4Wager.FIVE_CARD_HAND_BONUS:  # on the player's electronic wagering device (§ 657a.7(d)(5))
            return WagerRequest(me, seat, w, 100 * self.prng.randint(1, 5), Instrument.ELECTRONIC_WAGERING_DEVICE,
                                target=self.prng.choice(list(BonusTarget)))
        return WagerRequest(me, seat, w, t.progressive_stake_cents)  # one value chip on the progressive device

    def _misplay(self, kind: str, me: str, seat: int, ante: int, empty: int,
                 reqs: list[WagerRequest]) -> tuple[list[WagerRequest], list[WagerRequest]]:
        """The player's requests (in time order) and late ones, with one request the rules refuse."""
        qu = WagerRequest(me, seat, Crazy4Wager.QUEENS_UP, ante)
        if kind == "verbal-cash":  # § 657a.7(a)
            return reqs + [replace(qu, instrument=Instrument.VERBAL_WITH_CASH)], []
        if kind == "bystander":  # § 657a.7(b): someone not seated tries the empty position
            return reqs + [WagerRequest(f"B{seat}", empty, Crazy4Wager.ANTE, ante, seated=False)], []
        if kind == "second-position":  # § 657a.7(e)
            return reqs + [WagerRequest(me, empty, Crazy4Wager.ANTE, ante)], []
        if kind == "unequal-super-bonus":  # § 657a.7(d)(1): then Queens Up, and the position at "no more bets"
            sb = replace(reqs[1], amount_cents=ante + 100 * self.prng.randint(1, 5))
            return [reqs[0], sb, qu] + reqs[2:], []
        if kind == "optional-first":  # § 657a.7(d)(2): Queens Up before the Ante and Super Bonus
            return [qu] + reqs, []
        if kind == "early-play":  # § 657a.7(d)(1): the Play Wager before the cards
            return reqs + [WagerRequest(me, seat, Crazy4Wager.PLAY, ante)], []
        if kind == "not-offered":  # § 657a.7(d)(3)–(5): a wager not offered, or a second progressive chip
            missing = [w for w in _OPTIONAL if not self.offer.offers(w)]
            if missing:
                return reqs + [self._optional(me, seat, missing[0])], []
            chip = self._optional(me, seat, Crazy4Wager.FOUR_CARD_PROGRESSIVE)
            return reqs + [chip] * (1 if chip in reqs else 2), []
        if kind == "withdraw-ante":  # § 657a.7(d)(2): not while the Queens Up placed with it stands
            return reqs + [qu, replace(reqs[0], action=Action.WITHDRAW)], []
        if kind == "late-wager":  # § 657a.7(c)
            return reqs, [qu]
        if kind == "late-withdraw":  # § 657a.7(c)
            return reqs, [replace(reqs[0], action=Action.WITHDRAW)]
        if kind == "second-play":  # § 657a.7(c): the Play Wager is made once
            self.second_plays.add(seat)
            return reqs, []
        if kind == "leave-mid-round":  # § 657a.7(b): leaves the table once the cards are out
            self.leaving.add(seat)
            return reqs, []
        raise ValueError(f"unknown misplay {kind!r}")

    # ------------------------------------------------------------------ the croupier's decisions
    def _request_at(self, at: float, req: WagerRequest) -> None:
        ev = self.env.timeout(max(0.0, at - self.env.now))
        ev.callbacks.append(lambda _e: self._decide(req))

    def _leave_at(self, at: float, seat: int) -> None:
        ev = self.env.timeout(max(0.0, at - self.env.now))
        ev.callbacks.append(lambda _e: self._leave(seat))

    def _leave(self, seat: int) -> None:
        """§ 657a.7(b): player ``P<seat>`` leaves the table during the round (having received cards):
        the wagers at their position are abandoned and treated as losing (``wagers_abandoned``); they
        may not wager again this round. ``faults.croupier.crazy4_keep_abandoned_wagers`` keeps them
        in play."""
        me = f"P{seat}"
        self.stats["players_left"] += 1
        self._say("player_left", {"player": me, "position": seat, "after_no_more_bets": self.layout.no_more_bets})
        if self.faults.crazy4_keep_abandoned_wagers:
            return
        pos = self.layout.positions.get(seat)
        d, self.layout = self.layout.leave(me if pos is None else pos.player)  # the player as this croupier knows it
        if d is not None:
            pos = self.layout.abandoned[d.position]
            self._say("wagers_abandoned", {"player": me, "position": d.position, "treated_as": "losing",
                                           "wagers": {str(w): a for w, a in pos.amounts.items()},
                                           "reason": d.reason, "citation": d.citation})

    def _as_seen(self, req: WagerRequest) -> WagerRequest:
        """The request as this dealer sees it (a healthy dealer: as it is)."""
        f, seen = self.faults, req
        if f.crazy4_accept_cash_and_unseated:
            seen = replace(seen, seated=True, instrument=Instrument.VALUE_CHIPS
                           if seen.instrument is Instrument.VERBAL_WITH_CASH else seen.instrument)
        if f.crazy4_accept_second_position:
            seen = replace(seen, player=f"{req.player}@{req.position}")
        if (f.crazy4_accept_unequal_super_bonus and req.wager is Crazy4Wager.SUPER_BONUS
                and req.action is Action.PLACE and (pos := self.layout.positions.get(req.position)) is not None):
            short = pos.amount(Crazy4Wager.ANTE) - pos.amount(Crazy4Wager.SUPER_BONUS)
            if short > 0:
                seen = replace(seen, amount_cents=short)
        return seen

    def _decide(self, req: WagerRequest) -> None:
        """Accept or refuse the request by ``rules.crazy4`` (§ 657a.7) and record the decision."""
        table = self.layout
        as_if_open = (self.faults.crazy4_accept_after_no_more_bets and table.no_more_bets
                      and req.wager is not Crazy4Wager.PLAY)
        if as_if_open:
            table = replace(table, no_more_bets=False)
        d, after = table.request(self._as_seen(req))
        self.layout = replace(after, no_more_bets=True) if as_if_open else after
        self.requests += 1
        self.stats["requests"] += 1
        self.stats["accepted" if d.accepted else "refused"] += 1
        self.stats["play_wagers"] += d.accepted and req.wager is Crazy4Wager.PLAY
        self._say("wager_accepted" if d.accepted else "wager_refused",
                  {"request_id": f"{self.trace.round}-{self.requests}", **request_payload(req),
                   "reason": d.reason, "citation": d.citation})


#: game -> its croupier (``hil.runner.simulate``)
POKER_CONTROLLERS: dict[str, type] = {"uth": UthController, "criss-cross": CrissCrossController,
                                      "crazy-4": Crazy4Controller}
