"""Checks of the poker tables: the Ultimate Texas Hold 'Em side wagers (§§ 653b.2–653b.5) and
Criss-Cross Poker's Ultimate Pairs wager (§ 674b.1), settled from the card reader's cards, and
Crazy 4 Poker wager placement (§ 657a.7), replayed through ``rules.crazy4``.

Each reads only the trace: round 0's croupier ``table`` record (the paytables, the Bad Beat
reading, the wagers offered), the card reader's ``card_read`` (positions ``seat-N``, ``dealer``,
``board-1``…``board-5``) and the croupier's records (``wager``, ``pay``/``collect``/``refund``;
Crazy 4: ``wager_accepted``/``wager_refused``, ``no_more_bets``, ``position_accepted``/
``position_refused``). The paytable is the table's, never the one a ``pay`` record names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar

from hil.checks.base import Check, Measurement, RoundView
from hil.checks.cards import cards_read
from hil.trace import Event
from rules import criss_cross
from rules.cards import Card
from rules.crazy4 import Action, Crazy4Offer, Crazy4Table, Crazy4Wager, Decision, PositionWagers, WagerRequest
from rules.uth import (BAD_BEAT_PAYTABLES, PLAY_THE_BOARD_PAYTABLES, TRIPS_PAYTABLES, ULTIMATE_PAIRS_PAYTABLES,
                       SideWagerSettlement, paytable_key, settle_bad_beat, settle_play_the_board, settle_trips,
                       settle_ultimate_pairs)

CROUPIER = "croupier"
BOARD = tuple(f"board-{i}" for i in range(1, 6))


# ------------------------------------------------------------------------------ side wagers
#: (paytable, the seat's cards, the round's cards by position, stake, the table record) -> settlement
Settle = Callable[[str, list[Card], dict[str, list[Card]], int, dict[str, Any]], SideWagerSettlement]


class PokerSideCheck(Check):
    """A side wager settled by the table's paytable from the cards read: paid its ``returned_cents``
    (stake included) when it wins, collected when it loses, each wager once; in a void round every
    wager refunded. Subclasses name the wager and how the regulation settles it."""

    wager: ClassVar[str]
    settle: ClassVar[Settle]
    #: the paytables the section lets the certificate holder select for the wager, and where it says so
    paytables: ClassVar[Mapping[str, Any]]
    selected_in: ClassVar[str]

    def __init__(self, config):
        super().__init__(config)
        self.settled = self.winners = self.refunded = 0
        self.paid_cents = 0
        self.table: dict[str, Any] = {}

    def setup(self, bench) -> None:
        super().setup(bench)
        self.table = bench.croupier.get("table") or {}
        # the paytable the table selected (its Rules Submission's choice, round 0's record) must be
        # one the section lets it select
        name = (self.table.get("side") or {}).get(self.wager)
        if name is not None and paytable_key(name) not in self.paytables:
            self.finding(0, None, f"the table offers {self.wager} with paytable {name!r}; {self.selected_in} lets the "
                         f"certificate holder select {', '.join(self.paytables)}")

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        wagers = {e.payload["wager_id"]: e.payload for e in rv.by_croupier("wager")
                  if e.payload["wager"] == self.wager}
        if not wagers:
            return
        done: dict[str, Event] = {}
        for e in rv.collects + rv.pays + rv.refunds:
            wid = e.payload["wager_id"]
            if wid in wagers:
                if wid in done:
                    self.finding(rv.n, e, f"{wid} ({self.wager}, seat {wagers[wid]['seat']}) settled twice")
                done[wid] = e
        if rv.end is None:
            return
        if not rv.settled:  # a void round: every wager refunded, never settled on partial data
            for wid, w in wagers.items():
                e = done.get(wid)
                if e is None or e.kind != "refund":
                    self.finding(rv.n, e or rv.end, f"{wid} ({self.wager}, seat {w['seat']}) in a void round: "
                                 f"{'never settled' if e is None else e.kind}, not refunded")
                else:
                    self.refunded += 1
            return
        paytable = (self.table.get("side") or {}).get(self.wager)
        hands = cards_read(rv)
        for wid, w in wagers.items():
            e = done.get(wid)
            if e is None:
                self.finding(rv.n, rv.end, f"{wid} ({self.wager}, seat {w['seat']}) never settled")
                continue
            if paytable is None:
                self.finding(rv.n, e, f"{wid}: the table does not offer {self.wager} (its side wagers: "
                             f"{sorted(self.table.get('side') or {})})")
                continue
            seat = hands.get(f"seat-{w['seat']}", [])
            try:
                s = type(self).settle(paytable, seat, hands, int(w["stake_cents"]), self.table)
            except ValueError as exc:
                self.finding(rv.n, e, f"{wid}: cannot be settled from the cards read: {exc}")
                continue
            self.settled += 1
            want = s.returned_cents
            got = int(e.payload.get("returned_cents", 0)) if e.kind == "pay" else 0
            if e.kind == "refund" or got != want:
                self.finding(rv.n, e, f"{wid}: {self.wager} Paytable {paytable}, seat {w['seat']} "
                             f"{' '.join(map(str, seat))}, {s.hand}: {s.row or 'no winning row'} returns {want} "
                             f"cents; {e.kind} {got}")
            self.winners += want > 0
            self.paid_cents += want

    def verdict(self):
        m = [Measurement("wagers_settled", self.settled, "wagers"), Measurement("winners", self.winners, "wagers"),
             Measurement("returned_cents", self.paid_cents, "cents"),
             Measurement("wagers_refunded_void", self.refunded, "wagers")]
        if self.failed:
            return "fail", f"{self._findings_total} {self.wager} wager(s) settled wrong", m
        if not self.settled:
            return "indeterminate", f"no {self.wager} wager settled in the trace", m
        return "pass", f"{self.settled} {self.wager} wagers settled by the paytable ({self.winners} winners)", m


def _board(hands: dict[str, list[Card]]) -> list[Card]:
    return [c for p in BOARD for c in hands.get(p, [])]


class UthTrips(PokerSideCheck):
    """§ 653b.2(a): the certificate holder may, "if specified in its Rules Submission form", offer
    "an alternate Trips wager paytable" — the table's Trips paytable (round 0's ``table`` record)
    must be (b)'s, or the finding is at round 0 (the paytables of § 653a.12(c) are not among the
    supplied texts: a table on one of them cannot be settled here, and says so). § 653b.2(b): "The
    additional Trips wager paytable option is as follows": Paytable E — royal flush 50 to 1,
    straight flush 40 to 1, four-of-a-kind 30 to 1, full house 7 to 1, flush 6 to 1, straight 5 to
    1, three-of-a-kind 3 to 1. The Trips wager is settled on the player's hand — the best five of
    the player's two cards and the five community cards (§ 653a.1 "Hand") — as read."""

    id = "UTH-653b.2-trips"
    section = "§ 653b.2(a)–(b)"
    title = "Trips (Paytable E) settled on the player's hand from the cards read"
    wager = "trips"
    paytables = TRIPS_PAYTABLES
    selected_in = "§ 653b.2(a)–(b) (§ 653a.12(c)'s paytables are not supplied)"

    @staticmethod
    def settle(paytable, seat, hands, stake, table):
        return settle_trips(paytable, seat, _board(hands), stake)


class UthBadBeat(PokerSideCheck):
    """§ 653b.3(a): the certificate holder may, "if specified in its Rules Submission form", offer
    "an alternate paytable" for the Bad Beat bonus wager — the table's Bad Beat paytable (round 0's
    ``table`` record) must be (b)'s, or the finding is at round 0 (§ 653a.12(g)'s paytables are not
    supplied). § 653b.3(b): "The additional Bad Beat bonus wager paytable option is as follows": Paytable C —
    straight flush 2,500 to 1, four-of-a-kind 500 to 1, full house 50 to 1, flush 30 to 1, straight
    20 to 1, three-of-a-kind 9 to 1. Settled on the losing hand of the player's and the dealer's
    (each the best five of its two cards and the board), by the table's Bad Beat reading (the
    two-way "losing hand", or the player's hand only; docs/rules-poker-side-wagers.md); a tie loses."""

    id = "UTH-653b.3-bad-beat"
    section = "§ 653b.3(a)–(b)"
    title = "Bad Beat (Paytable C) settled on the losing hand, by the table's reading"
    wager = "bad-beat"
    paytables = BAD_BEAT_PAYTABLES
    selected_in = "§ 653b.3(a)–(b) (§ 653a.12(g)'s paytables are not supplied)"

    @staticmethod
    def settle(paytable, seat, hands, stake, table):
        return settle_bad_beat(paytable, seat, hands.get("dealer", []), _board(hands), stake,
                               reading=table.get("bad_beat_reading", "losing-hand"))


class UthPlayTheBoard(PokerSideCheck):
    """§ 653b.4(e)–(f): "The Play the Board wager shall win and be paid according to subsection (f)
    if the five community cards form a hand comprised of a pair of tens or better" — at the odds of
    the certificate holder's paytable A, B or C; the player's cards play no part."""

    id = "UTH-653b.4e-play-the-board"
    section = "§ 653b.4(e)–(f)"
    title = "Play the Board settled on the five community cards (a pair of tens or better)"
    wager = "play-the-board"
    paytables = PLAY_THE_BOARD_PAYTABLES
    selected_in = "§ 653b.4(f)"

    @staticmethod
    def settle(paytable, seat, hands, stake, table):
        return settle_play_the_board(paytable, _board(hands), stake)


class UthUltimatePairs(PokerSideCheck):
    """§ 653b.5(e)–(f): "The Ultimate Pairs wager shall win and be paid in accordance with
    subsection (f) if the player's two individual cards, or if Paytable F is selected the player's
    two individual cards combined with the dealer's two cards, form a hand comprised of a
    designated winning combination under the certificate holder selected paytable" (A–F)."""

    id = "UTH-653b.5e-ultimate-pairs"
    section = "§ 653b.5(e)–(f)"
    title = "Ultimate Pairs settled on the player's two cards (Paytable F: and the dealer's)"
    wager = "ultimate-pairs"
    paytables = ULTIMATE_PAIRS_PAYTABLES
    selected_in = "§ 653b.5(f)"

    @staticmethod
    def settle(paytable, seat, hands, stake, table):
        return settle_ultimate_pairs(paytable, seat, stake, dealer=hands.get("dealer") or None)


class CrissCrossUltimatePairs(PokerSideCheck):
    """§ 674b.1(e)–(f): "The Ultimate Pairs wager shall win and be paid according to subsection (f)
    if the player's two individual cards form a hand comprised of a designated winning combination
    under the certificate holder selected paytable" (A–E): the player's two initial cards only."""

    id = "CC-674b.1e-ultimate-pairs"
    section = "§ 674b.1(e)–(f)"
    title = "Criss-Cross Ultimate Pairs settled on the player's two initial cards"
    wager = "ultimate-pairs"
    paytables = criss_cross.ULTIMATE_PAIRS_PAYTABLES
    selected_in = "§ 674b.1(f)"

    @staticmethod
    def settle(paytable, seat, hands, stake, table):
        return criss_cross.settle_ultimate_pairs(paytable, seat, stake)


class SettledBeforeCardsRemoved(Check):
    """§ 653b.4(d), § 653b.5(d) (and § 674b.1(d) in the same words): "The dealer shall continue to
    deal the round to completion ... [The optional] wagers shall be settled as part of the
    settlement of optional wagers prior to the removal of cards". Every such wager of a round must
    be settled (``pay``/``collect``) once the round's deal is complete — no card read after its
    settlement began, and every card the deal needs read before it (``complete``) — and before the
    croupier removes the cards (``cards_removed``), which it must record in a settled round."""

    wagers: ClassVar[tuple[str, ...]]

    def __init__(self, config):
        super().__init__(config)
        self.judged = 0

    @staticmethod
    def complete(seats: list[int]) -> dict[str, int]:
        """position -> the cards the complete deal gives it."""
        raise NotImplementedError

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not rv.settled:
            return
        wagers = {e.payload["wager_id"]: e.payload for e in rv.by_croupier("wager")
                  if e.payload["wager"] in self.wagers}
        settles = sorted((e for e in rv.collects + rv.pays if e.payload["wager_id"] in wagers), key=lambda e: e.seq)
        if not settles:
            return
        self.judged += len(settles)
        first = settles[0].seq
        count: Counter = Counter()
        for e in rv.by_devices("card_read"):
            if e.seq < first:
                count[e.payload["position"]] += 1
            else:
                self.finding(rv.n, e, f"card {e.payload['card']} read for {e.payload['position']} after the optional "
                             "wagers' settlement began: the round is dealt to completion first")
        need = self.complete(sorted({w["seat"] for w in wagers.values()}))
        short = [f"{pos} ({count[pos]} of {k})" for pos, k in need.items() if count[pos] < k]
        if short:
            self.finding(rv.n, settles[0], f"{settles[0].payload['wager_id']} settled before the deal was complete: "
                         f"{', '.join(short)} cards read")
        removed = rv.by_croupier("cards_removed")
        if not removed:
            self.finding(rv.n, rv.end or settles[-1], "the round was settled without the removal of the cards recorded")
            return
        for e in settles:
            if e.seq > removed[0].seq:
                p = e.payload
                self.finding(rv.n, e, f"{p['wager_id']} ({p['wager']}, seat {p['seat']}) settled after the cards were "
                             "removed; optional wagers are settled prior to the removal of cards")

    def verdict(self):
        m = [Measurement("wagers_judged", self.judged, "wagers")]
        if self.failed:
            return "fail", f"{self._findings_total} finding(s): optional wagers settled out of their place", m
        if not self.judged:
            return "indeterminate", f"no {' or '.join(self.wagers)} wager settled in the trace", m
        return "pass", f"{self.judged} optional wagers settled after the complete deal, before the cards were removed", m


class UthSettledBeforeCardsRemoved(SettledBeforeCardsRemoved):
    __doc__ = SettledBeforeCardsRemoved.__doc__ + """ At Ultimate Texas Hold 'Em the Play the Board and
    Ultimate Pairs wagers; the complete deal is each seat's two cards, the dealer's two and the five
    community cards."""

    id = "UTH-653b.4d-before-cards-removed"
    section = "§ 653b.4(d), § 653b.5(d)"
    title = "Play the Board and Ultimate Pairs settled after the deal, before the cards are removed"
    wagers = ("play-the-board", "ultimate-pairs")

    @staticmethod
    def complete(seats: list[int]) -> dict[str, int]:
        return {**{f"seat-{s}": 2 for s in seats}, "dealer": 2, **{b: 1 for b in BOARD}}


class CrissCrossSettledBeforeCardsRemoved(SettledBeforeCardsRemoved):
    __doc__ = SettledBeforeCardsRemoved.__doc__ + """ At Criss-Cross the Ultimate Pairs wager; the rig
    deals each seat's two initial cards only (the base game is not played: docs/traceability.md)."""

    id = "CC-674b.1d-before-cards-removed"
    section = "§ 674b.1(d)"
    title = "Ultimate Pairs settled after the deal, before the cards are removed"
    wagers = ("ultimate-pairs",)

    @staticmethod
    def complete(seats: list[int]) -> dict[str, int]:
        return {f"seat-{s}": 2 for s in seats}


# ------------------------------------------------------------------------------ Crazy 4 placement
_GROUPS = {"a": "ab", "b": "ab", "c": "c", "d": "d", "e": "e"}


def group_of(citation: str | None, fallback: str) -> str:
    """Which check a decision belongs to: the first subsection of § 657a.7 it cites."""
    m = re.search(r"657a\.7\(([a-e])\)", citation or "")
    return _GROUPS[m[1]] if m else fallback


@dataclass
class Crazy4Replay:
    """One round's requests replayed through ``rules.crazy4``: where the croupier's decisions
    differ from the rules' (grouped by subsection), and the refusals both agree on."""

    findings: list[tuple[str, Event | None, str]] = field(default_factory=list)
    refusals: Counter = field(default_factory=Counter)
    requests: int = 0
    #: each ``player_left`` with the rules' decision (None: nothing at stake) — § 657a.7(b)
    leaves: list[tuple[Event, Decision | None]] = field(default_factory=list)
    #: the table as the rules leave it at the end of the round
    table: Crazy4Table | None = None


def request_of(p: dict[str, Any]) -> WagerRequest:
    return WagerRequest(p["player"], int(p["position"]), p["wager"], int(p["amount_cents"]), p["instrument"],
                        bool(p["seated"]), p["action"], p.get("target"))


def _adopt(table: Crazy4Table, req: WagerRequest) -> Crazy4Table:
    """The croupier's acceptance taken over after a finding, so one wrong decision is one finding
    and the replay goes on from the table the croupier has."""
    pos = table.positions.get(req.position, PositionWagers(req.player))
    amounts = dict(pos.amounts)
    amounts[req.wager] = amounts.get(req.wager, 0) + (req.amount_cents if req.action is Action.PLACE
                                                      else -req.amount_cents)
    if amounts[req.wager] <= 0:
        del amounts[req.wager]
    target = req.target if req.wager is Crazy4Wager.FIVE_CARD_HAND_BONUS and req.target else pos.bonus_target
    positions = dict(table.positions)
    if amounts:
        positions[req.position] = PositionWagers(pos.player, MappingProxyType(amounts), target)
    else:
        positions.pop(req.position, None)
    return replace(table, positions=MappingProxyType(positions))


def _what(req: WagerRequest) -> str:
    how = "" if req.instrument.value == "value chips" else f" ({req.instrument})"
    who = req.player + ("" if req.seated else ", not seated")
    return f"{who}: {req.action} {req.wager} of {req.amount_cents} cents at position {req.position}{how}"


def replay_crazy4(rv: RoundView, offer: Crazy4Offer) -> Crazy4Replay:
    """Replay the round's ``wager_accepted``/``wager_refused`` records and "no more bets" through
    ``rules.crazy4.Crazy4Table``, in trace order (shared by the Crazy 4 checks: ``rv.derived``)."""
    if "crazy4" in rv.derived:
        return rv.derived["crazy4"]
    out = Crazy4Replay()
    table = Crazy4Table(offer)
    before: Crazy4Table | None = None
    pending: dict[int, Decision] = {}
    for e in rv.events:
        if e.device != CROUPIER:
            continue
        if e.kind == "player_left":  # § 657a.7(b): the rules' table without the player
            d, table = table.leave(e.payload["player"])
            out.leaves.append((e, d))
        elif e.kind in ("wager_accepted", "wager_refused"):
            p, said = e.payload, e.kind == "wager_accepted"
            req = request_of(p)
            group = "left" if req.player in table.left else None  # a player who left: § 657a.7(b), remain seated
            d, after = table.request(req)
            out.requests += 1
            rid = p.get("request_id", "?")
            if d.accepted and said:
                table = after
            elif not d.accepted and not said:
                g = group or group_of(d.citation, "d")
                out.refusals[g] += 1
                if p.get("citation") != d.citation:
                    out.findings.append((g, e, f"{rid} {_what(req)}: refused citing {p.get('citation')}; "
                                               f"the rules refuse it under {d.citation}: {d.reason}"))
            elif said:
                out.findings.append((group or group_of(d.citation, "d"), e,
                                     f"{rid} {_what(req)}: accepted; {d.citation}: {d.reason}"))
                table = _adopt(table, req)
            else:
                g = group_of(p.get("citation"), "c" if table.no_more_bets else "d")
                out.findings.append((g, e, f"{rid} {_what(req)}: refused ({p.get('citation')}: {p.get('reason')}); "
                                           "the rules accept it"))
        elif e.kind == "no_more_bets":
            if table.no_more_bets:
                out.findings.append(("c", e, "\"no more bets\" announced twice in the round"))
                continue
            before = table
            decisions, table = table.announce_no_more_bets()
            pending = {d.position: d for d in decisions}
        elif e.kind in ("position_accepted", "position_refused"):
            pos, said = int(e.payload["position"]), e.kind == "position_accepted"
            d = pending.pop(pos, None)
            if d is None or before is None:
                out.findings.append(("d", e, f"position {pos} judged at \"no more bets\" but holds no wagers "
                                             "(or judged twice)"))
                continue
            if d.accepted == said:
                out.refusals["d"] += not said
                continue
            out.findings.append(("d", e, f"position {pos} {'kept' if said else 'refused'} at \"no more bets\"; "
                                         f"{d.citation}: {d.reason}"))
            positions = dict(table.positions)
            if said:
                positions[pos] = before.positions[pos]
            else:
                positions.pop(pos, None)
            table = replace(table, positions=MappingProxyType(positions))
    for pos, d in sorted(pending.items()):
        out.findings.append(("d", rv.end, f"position {pos} not judged at \"no more bets\" ({d.citation}: "
                                          f"{'stands' if d.accepted else 'refused'})"))
    out.table = table
    rv.derived["crazy4"] = out
    return out


class Crazy4Check(Check):
    """The croupier's decisions on the placement requests of one subsection of § 657a.7, each
    replayed through ``rules.crazy4`` from the trace."""

    group: ClassVar[str]
    words: ClassVar[str]

    def __init__(self, config):
        super().__init__(config)
        self.offer = Crazy4Offer()
        self.requests = self.refused = 0

    def setup(self, bench) -> None:
        super().setup(bench)
        offer = (bench.croupier.get("table") or {}).get("offer") or {}
        self.offer = Crazy4Offer(**{k: bool(v) for k, v in offer.items()})

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        r = replay_crazy4(rv, self.offer)
        self.requests += r.requests
        self.refused += r.refusals[self.group]
        for g, e, msg in r.findings:
            if g == self.group:
                self.finding(rv.n, e, msg)

    def verdict(self):
        m = [Measurement("requests_replayed", self.requests, "requests"),
             Measurement("refused_agreed", self.refused, "requests")]
        if self.failed:
            return "fail", f"{self._findings_total} decision(s) against {self.section}", m
        if not self.refused:
            return "indeterminate", f"no request in the trace tested {self.section} ({self.words})", m
        return "pass", (f"{self.requests} requests replayed: the croupier decided as the rules do; "
                        f"{self.refused} refused under {self.section}"), m


class Crazy4InstrumentsSeated(Crazy4Check):
    """§ 657a.7(a)–(b): "Wagers at Crazy 4 Poker shall be made by placing value chips, plaques or
    other Board-approved wagering instruments on the appropriate areas of the table layout. Verbal
    wagers accompanied by cash may not be accepted." "Only players who are seated at a Crazy 4
    Poker table may wager at the game." Every decision the croupier recorded is replayed through
    ``rules.crazy4``; this check owns those the rules decide under (a) or (b)."""

    id = "C4-657a.7ab-instruments-seated"
    section = "§ 657a.7(a)–(b)"
    title = "No verbal wager with cash; only seated players wager"
    group = "ab"
    words = "a verbal wager with cash, a player not seated"


class Crazy4NoMoreBets(Crazy4Check):
    """§ 657a.7(c): "All wagers, except the Play Wager, shall be placed prior to the dealer
    announcing 'no more bets' ... Except as provided in § 657a.11(b) ..., a wager may not be made,
    increased or withdrawn after the dealer has announced 'no more bets.'" After the croupier's
    ``no_more_bets`` nothing but the Play Wager, made once, may be accepted."""

    id = "C4-657a.7c-no-more-bets"
    section = "§ 657a.7(c)"
    title = "After \"no more bets\" nothing but the Play Wager"
    group = "c"
    words = "a wager made, increased or withdrawn after \"no more bets\""


class Crazy4AnteSuperBonus(Crazy4Check):
    """§ 657a.7(d): "The following wagers may be placed in the game of Crazy 4 Poker" — the five of
    (d)(1)–(5), each judged here, so (d) itself. § 657a.7(d)(1)–(5): "A player shall compete against the dealer's four-card Poker hand by
    placing both an Ante Wager and a Super Bonus Wager in equal amounts, then a Play Wager"; Queens
    Up "in addition to the Ante and Super Bonus Wagers"; the progressive and Five Card Hand Bonus
    wagers "after placing the Ante and Super Bonus Wagers", if the Rules Submission offers them. No
    optional wager and no Play Wager without an equal Ante and Super Bonus; at "no more bets" a
    position whose Ante and Super Bonus are not equal is refused."""

    id = "C4-657a.7d-ante-super-bonus"
    section = "§ 657a.7(d), (d)(1)–(5)"
    title = "Ante and Super Bonus equal before Queens Up, progressive, bonus or Play wagers"
    group = "d"
    words = "an optional or Play wager without an equal Ante and Super Bonus"


class Crazy4OnePosition(Crazy4Check):
    """§ 657a.7(e): "A player may not wager on more than one player position at a Crazy 4 Poker
    table." (Decision, rules.crazy4: a position holding another player's wagers is refused too.)"""

    id = "C4-657a.7e-one-position"
    section = "§ 657a.7(e)"
    title = "One player position per player"
    group = "e"
    words = "a player wagering on a second position"


class Crazy4RemainSeated(Check):
    """§ 657a.7(b): "Once a player has placed a wager and received cards, that player shall remain
    seated until the completion of the round of play. If a player leaves the table during a round of
    play, any wagers made by the player may be considered abandoned and may be treated as losing
    wagers." The table declares that it does both (``table.abandoned_wagers`` = "losing"). For
    every player the croupier reports leaving once the cards are out, replayed through
    ``rules.crazy4`` (``Crazy4Table.leave``): the wagers at the player's position must be recorded
    abandoned (``wagers_abandoned``, exactly those wagers) and collected as losing — in the round's
    end among ``abandoned``, not among the positions still in play — and no wager of that player may
    be accepted for the rest of the round."""

    id = "C4-657a.7b-remain-seated"
    section = "§ 657a.7(b)"
    title = "A player who leaves mid-round: wagers abandoned as losing, no further wager"

    def __init__(self, config):
        super().__init__(config)
        self.offer = Crazy4Offer()
        self.left = self.abandoned = 0
        self.policy: str | None = None

    def setup(self, bench) -> None:
        super().setup(bench)
        table = bench.croupier.get("table") or {}
        self.offer = Crazy4Offer(**{k: bool(v) for k, v in (table.get("offer") or {}).items()})
        self.policy = table.get("abandoned_wagers")

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        r = replay_crazy4(rv, self.offer)
        for g, e, msg in r.findings:
            if g == "left":
                self.finding(rv.n, e, msg)
        if not r.leaves:
            return
        recorded = {int(e.payload["position"]): e for e in rv.by_croupier("wagers_abandoned")}
        end = rv.by_croupier("round_end")
        at_end = end[-1].payload if end else {}
        for e, d in r.leaves:
            self.left += 1
            if d is None:
                continue  # left before the cards (or with nothing at stake): nothing abandoned
            self.abandoned += 1
            n = d.position
            assert r.table is not None and n is not None
            want = {str(w): a for w, a in r.table.abandoned[n].amounts.items()}
            who = e.payload["player"]
            if self.policy != "losing":
                self.finding(rv.n, e, f"{who} left at position {n}; the table declares no treatment of abandoned "
                             f"wagers ({self.policy!r}) — § 657a.7(b) lets them be treated as losing")
            rec = recorded.get(n)
            if rec is None or rec.payload.get("wagers") != want or rec.payload.get("treated_as") != "losing":
                got = None if rec is None else rec.payload.get("wagers")
                self.finding(rv.n, rec or e, f"{who} left the table during the round at position {n}: its wagers "
                             f"{want} are abandoned and treated as losing (§ 657a.7(b)); the croupier recorded "
                             f"{'nothing' if rec is None else got}")
            if str(n) in (at_end.get("positions") or {}):
                self.finding(rv.n, end[-1] if end else e, f"position {n} of {who}, who left during the round, "
                             f"is still in play at the end of the round ({at_end['positions'][str(n)]})")
            elif (at_end.get("abandoned") or {}).get(str(n), {}).get("wagers") != want:
                self.finding(rv.n, end[-1] if end else e, f"position {n}'s abandoned wagers {want} are not "
                             "collected as losing at the end of the round")

    def verdict(self):
        m = [Measurement("players_left", self.left, "players"), Measurement("positions_abandoned", self.abandoned,
                                                                           "positions")]
        if self.failed:
            return "fail", f"{self._findings_total} finding(s) against § 657a.7(b) (a player who left)", m
        if not self.abandoned:
            return "indeterminate", "no player left the table with wagers during a round", m
        return "pass", f"{self.abandoned} position(s) of players who left mid-round collected as losing", m


UTH_CHECKS: tuple[type[Check], ...] = (UthTrips, UthBadBeat, UthPlayTheBoard, UthUltimatePairs,
                                       UthSettledBeforeCardsRemoved)
CRISS_CROSS_CHECKS: tuple[type[Check], ...] = (CrissCrossUltimatePairs, CrissCrossSettledBeforeCardsRemoved)
CRAZY4_CHECKS: tuple[type[Check], ...] = (Crazy4InstrumentsSeated, Crazy4NoMoreBets, Crazy4AnteSuperBonus,
                                          Crazy4OnePosition, Crazy4RemainSeated)
