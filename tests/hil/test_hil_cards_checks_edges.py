"""The Blackjack progressive and side-wager checks (§§ 633b.17–633b.21, hil/checks/cards.py) on real
traces with one piece of evidence changed at a time (issue 16: the mutation run left most of their
branches — a chip collected without its press, a light not lit, a meter shown a cent off, a
payout, reseed or reserve wrong, a lost link, a wager settled twice or never, a floorperson's
validation missing, a jackpot paid from the table inventory, the settlement going clockwise, a
shoe misread — reached only by the slow fault scenarios, their messages by no test).

A few healthy tables are simulated in process once each (six-deck 21+3 with King's Bounty and
Blazing 7's; a stacked shoe hitting the 21+3 meter every round; the Royal Match Envy shoe; a lost
link, alone and linked; the unseeded 21+3 paytable 7; a Royal Match table whose hands never await
the hole card); each test feeds a check their rounds as recorded, or with one event changed, and
pins the exact verdict, the number of findings, the round and seq each names and the figures and
words each quotes.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.cards import (ChipsEqualAccepted, FloorpersonValidation, LinkLoss, MeterAccounting,
                              SettleCounterclockwise, ShoeIntegrity, SideSettlement, TableInventory, WinLight,
                              awaits_hole_card, cards_read, expected_settlements, paytable_key)
from hil.trace import Event
from rules.cards import Card
from tests.hil.trace_edits import Table, croupier_records, judge, replace_event, simulated_table, with_payload

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "blackjack"
NORMAL_ROUNDS = 30

#: a Royal Match table of four players whose hands never await the hole card (seats 1-4: 2h 6d,
#: 5d 9c, 8c Ts, 9s 4h; the dealer 3h up, 7d in the hole): one counterclockwise pass, 4 3 2 1
NO_WAIT = """schema: 1
name: t
game: blackjack
seed: 5
rounds: 2
cards: {decks: 6, progressive: royal-match, progressive_paytable: A, side: {}}
players: {count: 4, progressive_probability: 1.0, side_probability: 0.0, late_press_probability: 0.0}
bench:
  shoe: {stacked: "2h 5d 8c 9s 3h 6d 9c Ts 4h 7d", penetration: 0.01}
"""
#: § 633b.17(h) paytable 7: Seed/Reseed "N/A", 16 %, reserve 4 %; one player dealt three kings each round
UNSEEDED = """schema: 1
name: t
game: blackjack
seed: 5
rounds: 3
cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', declared_suit: s, progressive_stake_cents: 125, side: {}}
players: {count: 1, progressive_probability: 1.0, side_probability: 0.0, late_press_probability: 0.0}
bench:
  shoe: {stacked: "Ks Ks Ks 2h", penetration: 0.01}
"""


def _custom(tmp_path_factory, text: str, rounds: int, name: str) -> Table:
    where = tmp_path_factory.mktemp(name)
    path = where / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return simulated_table(path, rounds, where)


@pytest.fixture(scope="module")
def normal(tmp_path_factory) -> Table:
    """Six decks, 21+3 progressive (paytable 1) through the system, King's Bounty B and Blazing 7's A."""
    return simulated_table(SCENARIOS / "blackjack_normal_play.yaml", NORMAL_ROUNDS, tmp_path_factory.mktemp("bj"))


@pytest.fixture(scope="module")
def hits(tmp_path_factory) -> Table:
    """Two players dealt three kings of spades every round: the 21+3 meter hit, shared and reseeded."""
    return simulated_table(SCENARIOS / "blackjack_meter_hits.yaml", 4, tmp_path_factory.mktemp("hits"))


@pytest.fixture(scope="module")
def envy(tmp_path_factory) -> Table:
    """Royal Match: two Crown Treasures share the meter, an Envy Bonus each, the third player two."""
    return simulated_table(SCENARIOS / "blackjack_royal_match_envy.yaml", 2, tmp_path_factory.mktemp("envy"))


@pytest.fixture(scope="module")
def link(tmp_path_factory) -> Table:
    """The link to the controller lost in round 23 and restored in round 48."""
    return simulated_table(SCENARIOS / "blackjack_link_loss.yaml", 50, tmp_path_factory.mktemp("link"))


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> Table:
    """As ``link``, the meter linked with three other tables (§ 605a.8)."""
    return simulated_table(SCENARIOS / "blackjack_linked_tables.yaml", 50, tmp_path_factory.mktemp("linked"))


@pytest.fixture(scope="module")
def no_wait(tmp_path_factory) -> Table:
    return _custom(tmp_path_factory, NO_WAIT, 2, "no-wait")


@pytest.fixture(scope="module")
def unseeded(tmp_path_factory) -> Table:
    return _custom(tmp_path_factory, UNSEEDED, 3, "unseeded")


# --------------------------------------------------------------------------- helpers
def events(rounds: dict[int, list[Event]], kind: str, device: str | None = None, **payload) -> list[tuple[int, Event]]:
    """(round, event) of ``kind`` (from ``device``, or any but the croupier's) whose payload has ``payload``'s values."""
    return [(n, e) for n, evs in sorted(rounds.items()) for e in evs
            if e.kind == kind and (e.device == device if device else e.device != "croupier")
            and all(e.payload.get(k) == v for k, v in payload.items())]


def measured(r) -> dict:
    return {m.name: m.value for m in r.measurements}


def found(r) -> list[tuple[int, int | None, str]]:
    return [(f.round, f.seq, f.message) for f in r.findings]


def end_of(rounds, n: int) -> Event:
    return next(e for e in rounds[n] if e.kind == "round_end")


def drop(target: Event):
    return lambda n, evs: [e for e in evs if e.seq != target.seq]


def insert_after(target: Event, new: Event):
    return lambda n, evs: [x for e in evs for x in ((e, new) if e.seq == target.seq else (e,))]


def setup_info(device: str, **changes):
    """A round-0 change of ``device``'s ``device_info``."""
    return lambda evs: [with_payload(e, **changes) if e.kind == "device_info" and e.device == device else e
                        for e in evs]


def setup_table(**changes):
    return lambda evs: [with_payload(e, **changes) if e.kind == "table" else e for e in evs]


def meters_info(table: Table) -> list[dict]:
    return next(e.payload["meters"] for e in table[0] if e.kind == "device_info" and e.device == "progressive")


def chain(*changes):
    def change(n, evs):
        for c in changes:
            evs = c(n, evs)
        return evs
    return change


# --------------------------------------------------------------------------- side wagers settled
def _settles_in_wager_order(table: Table, wager: str) -> list[tuple[int, Event]]:
    """(round, settlement) of ``wager``'s wagers, in the order the croupier took them."""
    by_id = {e.payload["wager_id"]: e for _, e in croupier_records(table[1], ("pay", "collect"), wager=wager)}
    return [(n, by_id[w.payload["wager_id"]]) for n, w in croupier_records(table[1], ("wager",), wager=wager)]


KB_A = ("no kings-bounty paytable 'A': § 633b.19 has B (paytable A is § 633a.13(h)'s, which is not among the "
        "supplied texts)")


def test_a_king_s_bounty_wager_on_paytable_a_cannot_be_settled_here_and_says_so(normal):
    """§ 633b.19(a) lets the table select King's Bounty paytable A, § 633a.13(h)'s, which is not among
    the supplied texts: each such wager is a finding of the side-wager check naming why — not an
    exception that loses the round's other wagers, nor a failure of the floorperson's or the table
    inventory's checks, which have nothing to say about it."""
    change = setup_table(side={"kings-bounty": "A", "blazing-sevens": "A"})
    kb = _settles_in_wager_order(normal, "kings-bounty")
    r = judge(SideSettlement, normal, setup_change=change)
    assert r.findings_total == len(kb) == 72
    assert found(r) == [(n, e.seq, f"{e.payload['wager_id']}: cannot be settled from the trace: {KB_A}")
                        for n, e in kb][:len(r.findings)]
    wagers = croupier_records(normal[1], ("wager",))
    assert measured(r)["side_wagers_settled"] == len(wagers) - len(kb)
    r = judge(FloorpersonValidation, normal, setup_change=change)
    assert (r.verdict, r.findings_total, measured(r)) == (
        "pass", 0, {"payouts_needing_validation": 11, "validated_before_paid": 11})
    r = judge(TableInventory, normal, setup_change=change)
    assert (r.verdict, r.findings_total) == ("indeterminate", 0)


def test_a_progressive_paytable_the_section_has_not_cannot_settle_its_wagers(normal):
    change = setup_table(progressive_paytable="12")
    prog = _settles_in_wager_order(normal, "twenty-one-plus-three")
    r = judge(SideSettlement, normal, setup_change=change)
    why = ("no twenty-one-plus-three paytable '12': § 633b.17 has 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11")
    assert found(r)[0] == (0, None, "the table offers twenty-one-plus-three with paytable '12'; § 633b.17(g) lets the "
                                    "certificate holder select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11")
    assert found(r)[1:] == [(n, e.seq, f"{e.payload['wager_id']}: cannot be settled from the trace: {why}")
                            for n, e in prog][:len(r.findings) - 1]
    assert r.findings_total == 1 + len(prog)
    r = judge(FloorpersonValidation, normal, setup_change=change)
    assert (r.verdict, r.findings_total) == ("indeterminate", 0)
