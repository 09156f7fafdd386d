"""Checks of a Blackjack table's side wagers and its progressive table game system (§§ 633b.17–
633b.21, § 605a.7 as they use it). Each reads only the trace: the progressive system's reports
(``press``, ``lockout_command``, ``meter_increment``, ``meter_reading``, ``meter_hit``,
``win_light``, ``link_lost``/``link_restored``, ``power_loss``), the card reader's ``card_read``,
and the croupier's records (``wager``, ``progressive_collect``, ``pay``/``collect``/``refund``).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

from hil.checks.base import Check, Measurement, RoundView
from hil.checks.crazy_time import Lockout
from hil.trace import Event
from rules.blackjack_table import is_crown_treasure, meter_won, settle
from rules.cards import Card

CROUPIER = "croupier"


def cards_read(rv: RoundView) -> dict[str, list[Card]]:
    """Position -> the cards the reader reported for it this round, in order."""
    hands: dict[str, list[Card]] = defaultdict(list)
    for e in rv.events:
        if e.device != CROUPIER and e.kind == "card_read":
            hands[e.payload["position"]].append(Card.parse(e.payload["card"]))
    return hands


class CardCheck(Check):
    """A check that knows the table (round 0's ``table``) and the progressive system's meters."""

    def setup(self, bench) -> None:
        super().setup(bench)
        self.table: dict[str, Any] = bench.croupier.get("table") or {}
        info = next((i for i in bench.info.values() if "meters" in i and "seats" in i), {})
        self.meter_info: dict[str, dict] = {m["name"]: m for m in info.get("meters", [])}
        self.system_linked = bool(info.get("linked"))
        #: the betting positions the progressive system declares a wagering device at (1..seats)
        self.system_seats: int | None = int(info["seats"]) if "seats" in info else None


class ProgressiveLockout(Lockout):
    """§ 633b.17(c)(2), § 633b.18(d)(2), § 633b.21(a)(2): the progressive table game system includes "a
    mechanism, such as a lock-out button, that prevents the recognition of any progressive wager
    that a player attempts to place after the dealer has announced 'no more bets'" (for Blazing 7's
    multi-progressive, once dealing begins) — no wager recognised once the lock-out took effect,
    within the scenario's latency budget; bracketed by the rig's probe presses."""

    id = "BJ-633b.17c2-lockout"
    section = "§ 633b.17(c)(2), § 633b.18(d)(2), § 633b.21(a)(2)"
    title = "No progressive wager recognised after the lock-out; latency within budget"


class ChipsEqualAccepted(CardCheck):
    """§ 633b.17(c)(1), § 633b.18(d)(1), § 633b.21(a)(1): the progressive table game system includes
    "a wagering device at each betting position that acknowledges or accepts the placement of the
    progressive wager" — every betting position a player wagers at (any wager) must be one the
    system declares a wagering device at (``device_info`` ``seats``), and a progressive wager is
    placed only through the device at its position: every progressive ``wager`` the croupier takes
    must have a press that the device at that seat reported accepted, from a player (not the rig's
    probe), before "no more bets" (``RoundView.wager_presses``), each press one wager (which press
    feeds the meters is BJ-meter-accounting's). Only a recorded refusal the trace bears out excuses
    such a press (``RoundView.press_excuses``, as CT-690.2e-settlement): a real player's press refused
    "not made by the rig" that the re-derived attribution does not match to one of the rig's
    actuations, or a duplicate of an actuation; a press silently dropped is a finding. § 633b.17(e), § 633b.18(f) (the same words): "the
    dealer shall collect the wagers and ... verify that the number of value chips wagered equals the
    number of progressive wagers accepted by the progressive table game system". The progressive
    wagers the croupier collected must be exactly the players' wagers the system accepted before
    "no more bets" (its ``press`` reports), seat for seat."""

    id = "BJ-633b.17e-chips-accepted"
    section = "§ 633b.17(c)(1), (e), § 633b.18(d)(1), (f), § 633b.21(a)(1)"
    title = "Each progressive wager accepted by its seat's wagering device; chips collected equal them"

    def __init__(self, config):
        super().__init__(config)
        self.accepted = self.collected = 0
        #: the rounds with a finding (round 0: the set-up's), which the summary counts
        self.rounds_differing: set[int] = set()

    def finding(self, rnd: int, ev: Event | None, message: str) -> None:
        super().finding(rnd, ev, message)
        self.rounds_differing.add(rnd)

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        # the players' wagers the system accepted before "no more bets" (RoundView.wager_presses: the
        # one rule; never the rig's probe, a press inside the lock-out latency is the lock-out check's),
        # less a real player's press refused "not made by the rig" or a duplicate of an actuation, each
        # held to the attribution re-derived from the trace (RoundView.press_excuses)
        settle = self.config.foreign_presses == "settle"
        by_id = rv.owed_wager_presses((self.table.get("progressive_spot"),), settle)
        for ev, why in rv.press_excuses(settle)[1]:
            self.finding(rv.n, ev, why)
        presses = list(by_id.values())
        seats_accepted = sorted(p.payload["seat"] for p in presses)
        collected = rv.by_croupier("progressive_collect")
        seats_collected = sorted(c.payload["seat"] for c in collected)
        self.accepted += len(presses)
        self.collected += len(collected)
        # (c)(1): "a wagering device at each betting position" — every position a player wagers at
        # (any wager, accepted or refused) must be one the system declares a device at
        if self.table.get("progressive") and self.system_seats is not None:
            for w in rv.by_croupier("wager") + rv.by_croupier("wager_rejected"):
                seat = w.payload.get("seat")
                if isinstance(seat, int) and not 1 <= seat <= self.system_seats:
                    self.finding(rv.n, w, f"a player wagers at betting position {seat}; the progressive system has "
                                 f"a wagering device at positions 1 to {self.system_seats} only")
        # each progressive wager the croupier takes needs a press its seat's device accepted in time
        # (one each): the wager is placed through the wagering device at its betting position
        left = Counter(seats_accepted)
        for w in rv.by_croupier("wager"):
            p = w.payload
            if not self.table.get("progressive") or p["wager"] != self.table["progressive"]:
                continue
            if left[p["seat"]] > 0:
                left[p["seat"]] -= 1
                continue
            self.finding(rv.n, w, f"{p['wager_id']} ({p['wager']}, seat {p['seat']}): a progressive wager taken "
                         f"without a press the wagering device at seat {p['seat']} accepted from a player before "
                         "\"no more bets\"")
        if seats_accepted != seats_collected:
            self.finding(rv.n, collected[0] if collected else rv.end,
                         f"chips collected from seats {seats_collected}; the system accepted wagers from "
                         f"seats {seats_accepted}")

    def verdict(self):
        m = [Measurement("wagers_accepted", self.accepted, "wagers"), Measurement("chips_collected", self.collected, "wagers")]
        if self.failed:
            return "fail", f"{len(self.rounds_differing)} round(s) where chips and accepted wagers differ", m
        if not self.accepted:
            return "indeterminate", "no progressive wager in the trace", m
        return "pass", f"{self.collected} progressive wagers: chips equal accepted wagers in every round", m


class WinLight(CardCheck):
    """§ 633b.17(f)(2), § 633b.18(h)(2): before paying a progressive payout the dealer shall
    "verify that the appropriate light on the progressive table game system has been illuminated".
    Every meter payout must follow the system's report that the winning seat's light is on."""

    id = "BJ-633b.17f2-win-light"
    section = "§ 633b.17(f)(2), § 633b.18(h)(2)"
    title = "The winning seat's light lit before a meter payout"

    def __init__(self, config):
        super().__init__(config)
        self.meter_payouts = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        lit: set[int] = set()
        for e in rv.events:
            if e.kind == "win_light" and e.device != CROUPIER:
                (lit.add if e.payload["on"] else lit.discard)(e.payload["seat"])
            elif e.device == CROUPIER and e.kind == "pay" and e.payload.get("meter"):
                self.meter_payouts += 1
                if e.payload["seat"] not in lit:
                    self.finding(rv.n, e, f"seat {e.payload['seat']} paid from the {e.payload['meter']} meter "
                                 "without its win light on")

    def verdict(self):
        m = [Measurement("meter_payouts", self.meter_payouts, "payouts")]
        if self.failed:
            return "fail", f"{self._findings_total} meter payout(s) without the win light", m
        if not self.meter_payouts:
            return "indeterminate", "no meter payout in the trace", m
        return "pass", f"all {self.meter_payouts} meter payouts after the seat's win light", m


class MeterAccounting(CardCheck):
    """§ 633b.17(h), § 633b.18(i), § 633b.21(g), § 605a.7: the system's meters are the regulation's
    rows for the wager, paytable and decks the table declares (seed/reseed, incrementation and
    reserve rates: ``rules.blackjack_table.meter_specs``, not the croupier's own record); each meter
    starts at its seed, takes its row's incrementation rate of every player's wager (exactly: the
    fractions of a cent are carried) and nothing else, changes otherwise only when it is paid — the
    winners' share of it — and is then reseeded: at the row's seed, the reserve funding it as far as
    it goes, or, for a "N/A" Seed/Reseed, at the whole reserve. The reserve takes the row's reserve
    rate of every wager; each payout's reported reserve must be it. Re-computed from the system's
    own reports: a lost increment, an increment for a press that is no wager, a meter reset by a
    power loss or a wrong reseed shows as a meter that is not what its wagers and hits make it. A
    linked meter (§ 605a.8) also grows by the other tables' wagers: it may be more, never less. A
    resumed run (``resumed``) must go on with the meters the trace left. A player's wager excludes a
    press the croupier refused as not made by the rig (a real player's, where the scenario does not
    settle them) or as a duplicate, each held to the attribution re-derived from the trace
    (``RoundView.press_excuses``): an increment for such a press is an increment for no wager."""

    id = "BJ-meter-accounting"
    section = "§ 633b.17(h), § 633b.18(i), § 633b.21(g)"
    title = "Meters: the regulation's rows, exact increments per wager, reserve, payout and reseed"

    def __init__(self, config):
        super().__init__(config)
        self.increments = self.hits = 0
        self.meter: dict[str, Fraction] = {}
        self.reserve: dict[str, Fraction] = {}
        self.rows: dict[str, dict[str, Any]] = {}

    def setup(self, bench) -> None:
        from rules.blackjack_table import meter_specs

        super().setup(bench)
        t = self.table
        self.linked = self.system_linked
        self.linked_growth = 0
        if not t.get("progressive"):
            return
        try:  # the regulation's rows for what the table declares (§ 633b.17(h), § 633b.18(i), § 633b.21(g))
            rows = meter_specs(t["progressive"], t["progressive_paytable"], int(t["decks"]),
                               int(t["progressive_stake_cents"]))
        except (KeyError, ValueError) as exc:
            self.finding(0, None, f"the table record names no regulation row for its meters: {exc}")
            return
        self.rows = {r["name"]: {**r, "reseed_cents": r.get("reseed_cents", r["seed_cents"]),
                                 "reseed_from_reserve": bool(r.get("reseed_from_reserve", False))} for r in rows}
        self.meter = {name: Fraction(r["seed_cents"]) for name, r in self.rows.items()}
        self.reserve = {name: Fraction(0) for name in self.rows}
        where = (f"{t['progressive']} paytable {t['progressive_paytable']}, {t['decks']} decks, "
                 f"{t['progressive_stake_cents']}-cent wager")
        for extra in sorted(set(self.meter_info) - set(self.rows)):
            self.finding(0, None, f"the system declares a meter {extra!r} the regulation's rows for {where} have not")
        for name, want in self.rows.items():
            got = self.meter_info.get(name)
            if got is None:
                self.finding(0, None, f"the system has no {name} meter (the regulation's rows for {where}: "
                             f"{sorted(self.rows)})")
                continue
            for key in ("seed_cents", "reseed_cents", "increment_rate", "reserve_rate", "reseed_from_reserve"):
                have, value = got.get(key), want[key]
                if "rate" in key:
                    same = have is not None and Fraction(str(have)) == Fraction(str(value))
                elif key == "reseed_from_reserve":
                    same = bool(have) == value
                else:
                    same = have is not None and int(have) == int(value)
                if not same:
                    self.finding(0, None, f"{name} meter: the system declares {key} {have}; the regulation's row "
                                 f"for {where} is {value}")

    def _expect_shown(self, rv: RoundView, ev: Event, name: str, shown: int, what: str) -> None:
        want = math.floor(self.meter[name])
        if self.linked and shown > want:
            # a linked meter (§ 605a.8) also grows by the other tables' wagers: never shrinks but by a payout
            self.linked_growth += shown - want
            self.meter[name] += shown - want
            return
        if shown != want:
            self.finding(rv.n, ev, f"{name} meter shows {shown} {what}; its seed, wagers and payouts make it {want}")
            self.meter[name] = Fraction(shown)  # resynchronise: one finding per discrepancy

    def _resumed(self, rv: RoundView, e: Event) -> None:
        """A restart (``resumed``): the restored meters must be the ones the trace left; followed on."""
        for m in ((e.payload.get("state") or {}).get("meters") or []):
            name = m["name"]
            if name not in self.meter:
                continue
            value = int(m["value_cents"]) + Fraction(m["residue"])
            reserve = int(m["reserve_cents"]) + Fraction(m["reserve_residue"])
            if (value, reserve) != (self.meter[name], self.reserve[name]) and not self.linked:
                self.finding(rv.n, e, f"{name} meter restored at {float(value):.4f} (reserve {float(reserve):.4f}); "
                             f"the trace before the restart leaves {float(self.meter[name]):.4f} "
                             f"(reserve {float(self.reserve[name]):.4f})")
            self.meter[name], self.reserve[name] = value, reserve

    def _hit(self, rv: RoundView, e: Event) -> None:
        p = e.payload
        name = p["meter"]
        row = self.rows[name]
        self.hits += 1
        self._expect_shown(rv, e, name, int(p["jackpot_cents"]), "when paid")
        jackpot = math.floor(self.meter[name])
        winners = int(p["winners"])
        share = math.floor(Fraction(int(p["percent"]), 100) * jackpot / winners) if winners > 0 else 0
        if int(p["paid_cents"]) != share:
            self.finding(rv.n, e, f"{name} meter {jackpot}: {p['percent']} % shared by {p['winners']} is "
                         f"{share} each; paid {p['paid_cents']}")
        if int(p["percent"]) == 100:
            rest = jackpot - share * winners
            if row["reseed_from_reserve"]:  # "N/A": the whole reserve restarts the meter
                funded, reseed = self.reserve[name], math.floor(self.reserve[name])
                self.reserve[name] = Fraction(0)
            else:  # the row's seed, the reserve funding it as far as it goes
                reseed = int(row["reseed_cents"])
                funded = Fraction(reseed)
                self.reserve[name] -= min(self.reserve[name], funded)
            if int(p["reseed_cents"]) != reseed:
                self.finding(rv.n, e, f"{name} meter reseeded at {p['reseed_cents']}; the regulation's row makes it "
                             f"{reseed} ({'its reserve' if row['reseed_from_reserve'] else 'the seed'})")
            self.meter[name] = funded + rest + (self.meter[name] - jackpot)
        else:
            self.meter[name] -= share * winners
        self._expect_shown(rv, e, name, int(p["value_cents"]), "after the payout")
        if not self.linked and int(p["reserve_cents"]) != math.floor(self.reserve[name]):
            self.finding(rv.n, e, f"{name} meter's reserve is {p['reserve_cents']} after the payout; "
                         f"{row['reserve_rate']} of the wagers less the reseeds funded make it "
                         f"{math.floor(self.reserve[name])}")
            self.reserve[name] = Fraction(int(p["reserve_cents"]))

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not self.meter:
            return
        # the meters grow only from the players' wagers: presses the system accepted before "no more
        # bets", never the rig's probe nor a press inside the lock-out latency (RoundView.wager_presses),
        # nor a press the croupier refused as a real player's or a duplicate where the trace bears it
        # out (RoundView.owed_wager_presses: an increment for one is an increment for no wager)
        settle = self.config.foreign_presses == "settle"
        wagers = rv.owed_wager_presses(settle_foreign=settle)
        for ev, why in rv.press_excuses(settle)[1]:
            self.finding(rv.n, ev, why)
        incremented: dict[int, set[str]] = defaultdict(set)
        for e in rv.events:
            if e.device == CROUPIER:
                if e.kind == "resumed":
                    self._resumed(rv, e)
                continue
            if e.kind == "meter_increment":
                pid, name = e.payload["press_id"], e.payload["meter"]
                press = wagers.get(pid)
                if name not in self.rows:
                    continue
                if press is None:
                    self.finding(rv.n, e, f"{name} meter incremented for press {pid}, which is no player's wager "
                                 "accepted before \"no more bets\" (a late press, the rig's probe, a press refused "
                                 "as not made by the rig, or no press)")
                    self.meter[name] = Fraction(int(e.payload["value_cents"]))  # resynchronise
                    continue
                if name in incremented[pid]:
                    self.finding(rv.n, e, f"{name} meter incremented twice for press {pid}")
                incremented[pid].add(name)
                stake = int(press.payload["stake_cents"])
                self.meter[name] += Fraction(self.rows[name]["increment_rate"]) * stake
                self.reserve[name] += Fraction(self.rows[name]["reserve_rate"]) * stake
                self._expect_shown(rv, e, name, int(e.payload["value_cents"]), "after the increment")
            elif e.kind == "meter_reading":
                for name, shown in e.payload["meters"].items():
                    if name in self.meter and e.payload.get("link_up", True):
                        self._expect_shown(rv, e, name, int(shown), "when read")
            elif e.kind == "meter_hit" and e.payload["meter"] in self.rows:
                self._hit(rv, e)
            elif e.kind == "power_loss":  # the device's own report: what it lost is the meters' findings
                pass
        for pid, press in wagers.items():
            self.increments += 1
            for name in self.rows:
                if name not in incremented[pid]:
                    self.finding(rv.n, press, f"accepted wager (press {pid}) did not increment the {name} meter")

    def verdict(self):
        m = [Measurement("increments", self.increments, "wagers"), Measurement("meter_hits", self.hits, "hits")]
        m += [Measurement(f"meter_{k}_cents", float(v), "cents") for k, v in self.meter.items()]
        m += [Measurement(f"reserve_{k}_cents", float(v), "cents") for k, v in self.reserve.items()]
        if self.linked:
            m.append(Measurement("linked_tables_growth_cents", self.linked_growth, "cents"))
        if self.failed:
            return "fail", f"{self._findings_total} meter discrepancy(ies)", m
        if not self.increments:
            return "indeterminate", "no accepted progressive wager in the trace", m
        return "pass", f"{self.increments} increments and {self.hits} payout(s) exact", m


class LinkLoss(CardCheck):
    """§ 605a.8 (linked progressive table games, as § 633b.17(c) and § 633b.18(d) invoke it — the
    parents' own text: the table's progressive table game system, linked under § 605a.8; their
    sub-clauses are the wagering device's and the lock-out's checks): a table
    that has lost its link to the progressive controller must not accept progressive wagers it
    cannot meter, and once the link is restored its meters must be the controller's exactly — the
    values it lost the link with (a linked meter: those plus what the other tables added)."""

    id = "BJ-605a8-link"
    section = "§ 633b.17(c), § 633b.18(d), § 605a.8"
    title = "No progressive wager while the link is lost; meters restored exactly"

    def __init__(self, config):
        super().__init__(config)
        self.losses = self.refused = 0
        self.down = False
        self.before: dict[str, int] = {}
        self.shown: dict[str, int] = {}

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        for e in rv.events:
            if e.device == CROUPIER:
                continue
            if e.kind == "meter_increment" and not self.down:
                self.shown[e.payload["meter"]] = int(e.payload["value_cents"])
            elif e.kind == "link_lost":
                self.losses += 1
                self.down, self.before = True, dict(self.shown)
            elif e.kind == "link_restored":
                self.down = False
                got = {k: int(v) for k, v in e.payload["meters"].items()}
                # a linked meter may have grown by the other tables' wagers meanwhile, never shrunk
                if any(got.get(k) is None or (got[k] < v if self.system_linked else got[k] != v)
                       for k, v in self.before.items()):
                    self.finding(rv.n, e, f"meters after the link came back {got}; before it was lost {self.before}")
                self.shown.update(got)
            elif e.kind == "press" and self.down:
                if e.payload["accepted"]:
                    self.finding(rv.n, e, f"progressive wager (press {e.payload['press_id']}, seat "
                                 f"{e.payload['seat']}) accepted while the link to the controller was lost")
                elif e.payload.get("reason") == "link_lost":
                    self.refused += 1

    def verdict(self):
        m = [Measurement("link_losses", self.losses, "losses"), Measurement("wagers_refused_link_lost", self.refused, "wagers")]
        if self.failed:
            return "fail", f"{self._findings_total} violation(s) around a lost link", m
        if not self.losses:
            return "indeterminate", "the link to the controller was never lost", m
        return "pass", f"{self.losses} link loss(es): {self.refused} wagers refused, meters restored exactly", m


def expected_settlements(rv: RoundView, t: dict[str, Any]) -> dict[str, tuple[dict, Any, str | None]] | None:
    """The round's side wagers as the regulation settles them from the cards the reader read:
    wager id -> (the croupier's ``wager`` record, ``rules.blackjack_side.SideSettlement`` or None,
    why it cannot be settled or None). None when the dealer's cards were not read. Meter payouts
    at the meter the system showed when it paid, shared by the round's winners of that meter;
    Envy Bonuses for every other player's Crown Treasure. Shared by the checks (``rv.derived``)."""
    if "bj_settlements" in rv.derived:
        return rv.derived["bj_settlements"]
    wagers = {e.payload["wager_id"]: e.payload for e in rv.by_croupier("wager")}
    hands = cards_read(rv)
    if not hands.get("dealer-up") or not hands.get("dealer-hole"):
        rv.derived["bj_settlements"] = None
        return None
    up, hole = hands["dealer-up"][0], hands["dealer-hole"][0]
    suit = t.get("declared_suit", "s")

    def paytable_of(wager: str) -> str:
        return t["progressive_paytable"] if wager == t.get("progressive") else t["side"][wager]

    def won(wager: str, cards: list[Card]):
        """The meter payout the hand wins; None for a paytable the rules have not (its settlement says why)."""
        try:
            return meter_won(wager, paytable_of(wager), cards, up, hole, suit)
        except ValueError:
            return None

    meters = {e.payload["meter"]: int(e.payload["jackpot_cents"]) for e in rv.by_devices("meter_hit")}
    winners: dict[str, int] = defaultdict(int)
    crowns = 0
    for w in wagers.values():
        cards = hands.get(f"seat-{w['seat']}", [])
        if len(cards) != 2:
            continue
        if w["wager"] == t.get("progressive") and (mp := won(w["wager"], cards)) is not None:
            winners[mp.meter] += 1
        crowns += w["wager"] == "royal-match" and is_crown_treasure(cards, up, hole)
    out: dict[str, tuple[dict, Any, str | None]] = {}
    for wid, w in wagers.items():
        cards = hands.get(f"seat-{w['seat']}", [])
        if len(cards) != 2:
            out[wid] = (w, None, f"seat {w['seat']} was dealt {len(cards)} cards (2 read expected)")
            continue
        mp = won(w["wager"], cards)
        k = winners[mp.meter] if mp is not None else 1
        own = w["wager"] == "royal-match" and is_crown_treasure(cards, up, hole)
        try:
            s = settle(w["wager"], paytable_of(w["wager"]), cards, up, hole, stake_cents=int(w["stake_cents"]),
                       declared_suit=suit, meters_cents=meters, meter_winners=k,
                       other_crown_treasures=crowns - own if w["wager"] == "royal-match" else 0)
        except ValueError as exc:
            out[wid] = (w, None, f"cannot be settled from the trace: {exc}")
            continue
        out[wid] = (w, s, None)
    rv.derived["bj_settlements"] = out
    return out


#: the paytables each section lets the certificate holder select, and the clause that says so
SELECTABLE_PAYTABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "twenty-one-plus-three": ("§ 633b.17(g)", tuple(str(i) for i in range(1, 12))),
    "royal-match": ("§ 633b.18(i)", ("A",)),
    "kings-bounty": ("§ 633b.19(a)", ("A", "B")),  # A: § 633a.13(h)'s, not among the supplied texts
    "blazing-sevens": ("§ 633b.20(e)", ("A",)),
    "blazing-sevens-multi": ("§ 633b.21(f)", ("A", "B")),
}


def paytable_key(name: object) -> str:
    """"Paytable 7", "P7", "7" -> "7"; "b" -> "B" (as ``rules.bj_paytables.paytable`` reads them)."""
    return re.sub(r"^(paytable\s*|p(?=\d))", "", str(name).strip(), flags=re.IGNORECASE).upper()


class SideSettlement(CardCheck):
    """Every side wager is settled by its paytable on the cards the reader read — the player's
    first two cards and the dealer's up (and, where the text needs it, hole) card. The table's
    paytables (round 0's ``table`` record: the selection its Rules Submission makes) must each be
    one its section lets the certificate holder select — King's Bounty paytable A or B
    (§ 633b.19(a)), named (§ 633b.19(b)); 21+3 one of 1–11, Royal Match A, Blazing 7's A, the
    multi-progressive A or B — or the finding is at round 0 (King's Bounty paytable A is
    § 633a.13(h)'s, not supplied: its wagers cannot be settled here and say so). Who "has won a
    progressive payout", which the dealer's duties of § 633b.17(f), § 633b.18(h) and § 633b.21(e)
    follow, is decided here from the cards, and the winning hand verified (§ 633b.17(f)(1),
    § 633b.18(h)(1), § 633b.21(e)(1)); the other duties are BJ-633b.17f2-win-light,
    BJ-633b.17f3-floorperson and BJ-633b.17f4-table-inventory. 21+3 at § 633b.17(g)'s odds; Royal
    Match won on a two-card straight flush, a Royal Match or a Crown Treasure (§ 633b.18(b),
    (b)(1)–(3)), lost otherwise and paid at (i)'s odds ((g)(1)–(4)); King's Bounty paytable B
    (§ 633b.19(d)); Blazing 7's "shall win if either of the player's initial two cards is a seven"
    (§ 633b.20(b)), settled "as follows" — lost without a seven, won with one, two or three
    (§ 633b.20(d), (d)(1)–(3)) at (e)'s odds, the multi-progressive likewise (§ 633b.21(b), (d),
    (d)(1)–(3), (f)); meter payouts shared equally by the round's winners of that meter, as the
    system showed it when paid (§ 633b.18(j), § 633b.21(e)(3) — its sharing); Royal Match Envy
    Bonuses of 500 to 1 to every player with a Royal Match progressive wager for every other
    player's Crown Treasure (§ 633b.18(h)(5), (k))."""

    id = "BJ-side-settlement"
    section = ("§ 633b.17(f), (f)(1), (g), § 633b.18(b), (b)(1)–(3), (g)(1)–(4), (h), (h)(1), (h)(5), (i)–(k), "
               "§ 633b.19(a)–(b), (d), § 633b.20(b), (d), (d)(1)–(3), (e), § 633b.21(b), (d), (d)(1)–(3), (e), "
               "(e)(1), (e)(3), (f)")
    title = "Side wagers settled by their paytables from the cards read; the table's paytables selectable"

    def setup(self, bench) -> None:
        super().setup(bench)
        t = self.table
        offered = dict(t.get("side") or {})
        if t.get("progressive"):
            offered[t["progressive"]] = t.get("progressive_paytable")
        for wager, name in offered.items():
            clause, allowed = SELECTABLE_PAYTABLES.get(wager, ("§§ 633b.17–633b.21", ()))
            if name is None or not str(name).strip():
                self.finding(0, None, f"the table offers {wager} without naming its paytable ({clause}; "
                             "§ 633b.19(b): the selected paytable is specified in the Rules Submission)")
            elif paytable_key(name) not in allowed:
                self.finding(0, None, f"the table offers {wager} with paytable {name!r}; {clause} lets the "
                             f"certificate holder select {', '.join(allowed) or 'none'}")

    def __init__(self, config):
        super().__init__(config)
        self.settled = self.winners = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        wagers = {e.payload["wager_id"]: e.payload for e in rv.by_croupier("wager")}
        done: dict[str, Event] = {}
        for e in rv.collects + rv.pays + rv.refunds:
            wid = e.payload["wager_id"]
            if wid in done:
                self.finding(rv.n, e, f"wager {wid} settled twice")
            done[wid] = e
        if not wagers or not rv.settled:
            return
        expected = expected_settlements(rv, self.table)
        if expected is None:
            self.finding(rv.n, rv.end, "side wagers settled without the dealer's cards read")
            return
        hands = cards_read(rv)
        up, hole = hands["dealer-up"][0], hands["dealer-hole"][0]
        for wid, (w, s, why) in expected.items():
            e = done.get(wid)
            if e is None:
                self.finding(rv.n, rv.end, f"{wid} ({w['wager']}, seat {w['seat']}) never settled")
                continue
            if s is None:
                self.finding(rv.n, e, f"{wid}: {why}")
                continue
            cards = hands.get(f"seat-{w['seat']}", [])
            self.settled += 1
            want = s.total_returned_cents
            got = int(e.payload.get("returned_cents", 0)) + int(e.payload.get("envy_bonus_cents", 0)) \
                if e.kind == "pay" else 0
            if e.kind == "refund" or got != want:
                self.finding(rv.n, e, f"{wid}: {w['wager']} {[str(c) for c in cards]} against {up} {hole}: "
                             f"{s.hand} returns {want}; {e.kind} {got}")
            self.winners += want > 0

    def verdict(self):
        m = [Measurement("side_wagers_settled", self.settled, "wagers"), Measurement("winners", self.winners, "wagers")]
        if self.failed:
            return "fail", f"{self._findings_total} side wager(s) settled wrong", m
        if not self.settled:
            return "indeterminate", "no side wager settled in the trace", m
        return "pass", f"{self.settled} side wagers settled by their paytables ({self.winners} winners)", m


class FloorpersonValidation(CardCheck):
    """§ 633b.17(f)(3), § 633b.18(h)(3): if a player has won a 21+3 (Royal Match) progressive
    payout the dealer shall "have a floorperson or above validate the progressive payout in
    accordance with the certificate holder's approved internal control procedures" — every win of
    the progressive wager (docs/rules-blackjack.md); § 633b.21(e)(2): "have a floorperson or above
    verify any Blazing 7's multi-progressive payout with odds greater than 200 for 1". Which
    payouts need it comes from the regulation's settlement of the cards read
    (``floorperson_verification``), not from the croupier; each must be paid only after the
    croupier recorded the floorperson's validation of that wager (``floorperson_validation``)."""

    id = "BJ-633b.17f3-floorperson"
    section = "§ 633b.17(f)(3), § 633b.18(h)(3), § 633b.21(e)(2)"
    title = "A floorperson validated each progressive payout the regulation names before it was paid"

    CLAUSE = {"twenty-one-plus-three": "§ 633b.17(f)(3)", "royal-match": "§ 633b.18(h)(3)",
              "blazing-sevens-multi": "§ 633b.21(e)(2)"}

    def __init__(self, config):
        super().__init__(config)
        self.needed = self.validated = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not rv.pays:
            return
        expected = expected_settlements(rv, self.table) or {}
        validated: set[str] = set()
        for e in rv.events:
            if e.device != CROUPIER:
                continue
            if e.kind == "floorperson_validation":
                validated.add(e.payload["wager_id"])
            elif e.kind == "pay":
                wid = e.payload["wager_id"]
                _w, s, _why = expected.get(wid, (None, None, None))
                if s is None or not s.floorperson_verification:
                    continue
                self.needed += 1
                if wid in validated:
                    self.validated += 1
                    continue
                wager = e.payload.get("wager")
                self.finding(rv.n, e, f"{wid} ({wager}, seat {e.payload['seat']}: {s.hand}, returns "
                             f"{s.total_returned_cents} on {e.payload.get('stake_cents')}) paid without a floorperson's "
                             f"validation recorded before it ({self.CLAUSE.get(wager, self.section)})")

    def verdict(self):
        m = [Measurement("payouts_needing_validation", self.needed, "payouts"),
             Measurement("validated_before_paid", self.validated, "payouts")]
        if self.failed:
            return "fail", f"{self._findings_total} progressive payout(s) paid without a floorperson's validation", m
        if not self.needed:
            return "indeterminate", "no payout in the trace that needs a floorperson's validation", m
        return "pass", f"all {self.needed} payouts that need it validated by a floorperson before they were paid", m


class TableInventory(CardCheck):
    """§ 633b.17(f)(4), § 633b.18(h)(4): "If a player has won a progressive payout that is a
    percentage of the jackpot amount on the progressive meter, the progressive payout may not be
    paid from the table inventory container"; § 633b.21(e)(3): likewise for "a progressive payout
    that is 10% or more of the jackpot amount". Which payouts those are comes from the regulation's
    settlement of the cards read (``expected_settlements``: 21+3 and Royal Match, any share of a
    meter; Blazing 7's multi-progressive, a share of 1/10 or more), not from the croupier; each
    must be recorded paid other than from the table inventory (``pay`` → ``paid_from_table_inventory``
    false) and be paid by the progressive table game system: the system must report paying that
    meter (``meter_hit``) in the round. (That the player's cards stay on the table until the
    documentation is complete is not in the trace: docs/traceability.md.)"""

    id = "BJ-633b.17f4-table-inventory"
    section = "§ 633b.17(f)(4), § 633b.18(h)(4), § 633b.21(e)(3)"
    title = "A share of a jackpot is not paid from the table inventory container"

    def __init__(self, config):
        super().__init__(config)
        self.jackpot_payouts = 0

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not rv.pays:
            return
        expected = expected_settlements(rv, self.table) or {}
        hit = {e.payload["meter"] for e in rv.by_devices("meter_hit")}
        for e in rv.pays:
            _w, s, _why = expected.get(e.payload["wager_id"], (None, None, None))
            if s is None or s.paid_from_table_inventory:
                continue
            self.jackpot_payouts += 1
            p = e.payload
            what = (f"{p['wager_id']} ({p.get('wager')}, seat {p['seat']}: {s.hand}, {s.meter_share} of the "
                    f"{s.meter} meter, {s.total_returned_cents} cents)")
            if p.get("paid_from_table_inventory") is not False:
                self.finding(rv.n, e, f"{what} paid from the table inventory container "
                             f"(recorded {p.get('paid_from_table_inventory')!r}); a share of the jackpot may not be")
            elif s.meter not in hit:
                self.finding(rv.n, e, f"{what} recorded paid other than from the table inventory, but the "
                             f"progressive system reported no payout of the {s.meter} meter this round")

    def verdict(self):
        m = [Measurement("jackpot_payouts", self.jackpot_payouts, "payouts")]
        if self.failed:
            return "fail", f"{self._findings_total} jackpot share(s) paid from the table inventory", m
        if not self.jackpot_payouts:
            return "indeterminate", "no payout that is a share of a jackpot in the trace", m
        return "pass", (f"all {self.jackpot_payouts} jackpot shares paid by the progressive system, not from the "
                        "table inventory"), m


def awaits_hole_card(wager: str, player: list[Card], up: Card) -> bool:
    """The wager's hand is known only once the dealer's hole card is exposed (§ 633b.18(g)(4): a
    Royal Match against a king or queen up; the rig's King's Bounty reading for K♠ K♠)."""
    from rules.blackjack_side import AwaitHoleCard, kings_bounty_hand, royal_match_hand

    if wager == "royal-match":
        return isinstance(royal_match_hand(player, up, None), AwaitHoleCard)
    if wager == "kings-bounty":
        return isinstance(kings_bounty_hand(player, up, None), AwaitHoleCard)
    return False


class SettleCounterclockwise(CardCheck):
    """§ 633b.18(g): at a table offering the Royal Match progressive wager, "Immediately after the
    second card is dealt to each player and the dealer, but prior to any additional cards being
    dealt ..., the dealer shall, starting with the player farthest to the dealer's right and
    continuing around the table in a counterclockwise direction, settle the player's optional
    wagers by collecting all losing wagers and paying all winning wagers." The rig deals seat 1
    first, the player farthest to the dealer's left, and on clockwise (docs/rules-blackjack.md), so
    the settlement goes from the highest seat down. Every optional wager's ``collect``/``pay``
    must come after each position's second card was read and before any further card, and the
    seats settled must never go back up — except a wager whose hand awaits the hole card ((g)(4):
    a Royal Match against a king or queen up; King's Bounty's K♠ K♠ against an ace or ten), which
    may follow. (The card reader device of § 633a.2 is not modelled: docs/traceability.md.)"""

    id = "BJ-633b.18g-counterclockwise"
    section = "§ 633b.18(g)"
    title = "Optional wagers settled after the second cards, counterclockwise from the dealer's right"

    def __init__(self, config):
        super().__init__(config)
        self.rounds_judged = 0
        self.applies = False

    def setup(self, bench) -> None:
        super().setup(bench)
        self.applies = self.table.get("progressive") == "royal-match"

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        if not self.applies or not rv.settled:
            return
        wagers = {e.payload["wager_id"]: e.payload for e in rv.by_croupier("wager")}
        settles = sorted((e for e in rv.collects + rv.pays if e.payload["wager_id"] in wagers), key=lambda e: e.seq)
        if not settles:
            return
        self.rounds_judged += 1
        first = settles[0].seq
        reads = rv.by_devices("card_read")
        count: dict[str, int] = defaultdict(int)
        for e in reads:
            if e.seq < first:
                count[e.payload["position"]] += 1
            else:
                self.finding(rv.n, e, f"card {e.payload['card']} read for {e.payload['position']} after the "
                             "settlement of the optional wagers began (they are settled before any further card)")
        positions = [f"seat-{s}" for s in sorted({w["seat"] for w in wagers.values()})]
        short = [p for p in positions if count[p] < 2] + \
            [p for p in ("dealer-up", "dealer-hole") if count[p] < 1]
        if short:
            self.finding(rv.n, settles[0], f"optional wagers settled before the second card was dealt to "
                         f"{', '.join(short)}")
        hands = cards_read(rv)
        up = (hands.get("dealer-up") or [None])[0]
        last: int | None = None
        for e in settles:
            p = e.payload
            cards = hands.get(f"seat-{p['seat']}", [])
            if up is not None and len(cards) >= 2 and awaits_hole_card(p.get("wager", ""), cards[:2], up):
                continue
            if last is not None and p["seat"] > last:
                self.finding(rv.n, e, f"{p['wager_id']} ({p.get('wager')}, seat {p['seat']}) settled after seat "
                             f"{last}: the settlement goes counterclockwise from the player farthest to the "
                             "dealer's right (the highest seat) down")
                continue  # one finding per step back
            last = p["seat"]

    def verdict(self):
        m = [Measurement("rounds_judged", self.rounds_judged, "rounds")]
        if self.failed:
            return "fail", f"{self._findings_total} finding(s) against the settlement order", m
        if not self.applies:
            return "indeterminate", "the table does not offer the Royal Match progressive wager", m
        if not self.rounds_judged:
            return "indeterminate", "no optional wager settled in the trace", m
        return "pass", f"{self.rounds_judged} rounds settled counterclockwise after the second cards", m


class ShoeIntegrity(Check):
    """§ 633b.17(b): the game uses "between three and eight decks of cards comprised of 52 cards per
    deck" — and every settlement rests on the cards the reader reports. Each shoe must hold exactly
    its decks' cards (the number published at the shuffle), be freshly shuffled (no shoe's order
    committed twice), and, when it is replaced and its order revealed, match its commitment
    (SHA-256) and every card the reader reported from it, position by position."""

    id = "SHOE-633b.17b-integrity"
    section = "§ 633b.17(b)"
    title = "Each shoe: its decks' cards, freshly shuffled, read as dealt"

    def __init__(self, config):
        super().__init__(config)
        self.shoes = self.cards_read = self.verified = 0
        self.decks = 0
        self.commitments: dict[str, int] = {}  # sha256 -> shoe id
        self.reads: dict[int, list[tuple[int, int, Event]]] = defaultdict(list)  # shoe -> (round, index, event)
        self.sha: dict[int, str] = {}

    def setup(self, bench) -> None:
        super().setup(bench)
        info = next((i for i in bench.info.values() if "decks" in i and "penetration" in i), {})
        self.decks = int(info.get("decks", 0))

    def observe(self, rv: RoundView) -> None:
        import hashlib

        self.rounds += 1
        for e in rv.events:
            if e.device == CROUPIER:
                continue
            p = e.payload
            if e.kind == "shoe_shuffled":
                self.shoes += 1
                if self.decks and int(p["cards"]) != 52 * self.decks:
                    self.finding(rv.n, e, f"shoe {p['shoe_id']} holds {p['cards']} cards; {self.decks} decks are "
                                 f"{52 * self.decks}")
                if p["sha256"] in self.commitments:
                    self.finding(rv.n, e, f"shoe {p['shoe_id']} has the same order as shoe "
                                 f"{self.commitments[p['sha256']]}: not shuffled")
                self.commitments[p["sha256"]] = p["shoe_id"]
                self.sha[int(p["shoe_id"])] = p["sha256"]
            elif e.kind == "card_read":
                self.cards_read += 1
                self.reads[int(p["shoe_id"])].append((rv.n, int(p["index"]), e))
            elif e.kind == "shoe_revealed":
                shoe_id, order = int(p["shoe_id"]), list(p["order"])
                digest = hashlib.sha256(" ".join(order).encode()).hexdigest()
                if shoe_id in self.sha and digest != self.sha[shoe_id]:
                    self.finding(rv.n, e, f"shoe {shoe_id}'s revealed order does not match its commitment")
                for n, index, read in self.reads.pop(shoe_id, []):
                    self.verified += 1
                    if index >= len(order) or order[index] != read.payload["card"]:
                        real = order[index] if index < len(order) else "no card"
                        self.finding(n, read, f"the reader reported {read.payload['card']} for card {index} of shoe "
                                     f"{shoe_id} ({read.payload['position']}); the shoe held {real}")

    def verdict(self):
        m = [Measurement("shoes", self.shoes, "shoes"), Measurement("cards_read", self.cards_read, "cards"),
             Measurement("cards_verified", self.verified, "cards")]
        if self.failed:
            return "fail", f"{self._findings_total} shoe or reader fault(s)", m
        if not self.shoes:
            return "indeterminate", "no shoe in the trace", m
        if not self.verified:
            return "indeterminate", f"{self.shoes} shoe(s), none replaced yet: no read verified against its order", m
        return "pass", f"{self.shoes} shoes of {52 * self.decks} cards; {self.verified} reads match the revealed orders", m


BLACKJACK_CHECKS: tuple[type[Check], ...] = (
    ProgressiveLockout, ChipsEqualAccepted, WinLight, MeterAccounting, LinkLoss, SideSettlement,
    FloorpersonValidation, TableInventory, SettleCounterclockwise, ShoeIntegrity,
)
