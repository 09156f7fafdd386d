"""The Ultimate Texas Hold 'Em side wager checks (§§ 653b.2–653b.5) on a real trace with one piece of
evidence changed at a time (issue 16: the mutation run left the side wagers' settlement branches and
the "settled before the cards are removed" rule reached by no fast test, only by the slow fault
scenarios).

One healthy table (Trips E, Bad Beat C, Play the Board A, Ultimate Pairs F) is simulated in process
once; each test feeds a check its rounds as recorded, or with one event changed, and pins the exact
verdict, the number of findings, the round and seq each names and the figures each quotes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hil.checks.poker import UthBadBeat, UthPlayTheBoard, UthSettledBeforeCardsRemoved, UthTrips, UthUltimatePairs
from hil.trace import Event
from tests.hil.trace_edits import Table, croupier_records, judge, replace_event, simulated_table, with_payload

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "uth" / "uth_normal_play.yaml"
ROUNDS = 40
SIDE = {UthTrips: "trips", UthBadBeat: "bad-beat", UthPlayTheBoard: "play-the-board",
        UthUltimatePairs: "ultimate-pairs"}


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Table:
    """(round 0's events, {round: its events}) of a healthy Ultimate Texas Hold 'Em table."""
    return simulated_table(SCENARIO, ROUNDS, tmp_path_factory.mktemp("uth"))





def settles(rounds, wager: str, kind: str | None = None) -> list[tuple[int, Event]]:
    return croupier_records(rounds, (kind,) if kind else ("pay", "collect"), wager=wager)


def measured(r) -> dict:
    return {m.name: m.value for m in r.measurements}


# --------------------------------------------------------------------------- the side wagers
@pytest.mark.parametrize("cls", list(SIDE))
def test_a_healthy_table_settles_every_side_wager_by_its_paytable(table, cls):
    wager = SIDE[cls]
    r = judge(cls, table)
    all_, pays = settles(table[1], wager), settles(table[1], wager, "pay")
    assert (r.verdict, r.findings_total) == ("pass", 0) and all_
    returned = sum(int(e.payload["returned_cents"]) for _, e in pays)
    winners = sum(1 for _, e in pays if int(e.payload["returned_cents"]) > 0)
    assert measured(r) == {"wagers_settled": len(all_), "winners": winners, "returned_cents": returned,
                           "wagers_refunded_void": 0}
    assert r.summary == f"{len(all_)} {wager} wagers settled by the paytable ({winners} winners)"


@pytest.mark.parametrize("cls", list(SIDE))
def test_a_side_wager_paid_wrong_or_a_winner_collected_fails(table, cls):
    wager = SIDE[cls]
    pays = settles(table[1], wager, "pay")
    if not pays:
        pytest.skip(f"no {wager} winner in {ROUNDS} rounds")
    n, p = pays[0]
    got = int(p.payload["returned_cents"])
    r = judge(cls, table, replace_event(p, with_payload(p, returned_cents=got + 1)))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, p.seq)
    assert r.findings[0].message.startswith(f"{p.payload['wager_id']}: {wager} Paytable ")
    assert r.findings[0].message.endswith(f" returns {got} cents; pay {got + 1}")
    assert r.summary == f"1 {wager} wager(s) settled wrong"
    r = judge(cls, table, replace_event(p, dataclasses.replace(p, kind="collect")))
    assert r.verdict == "fail" and r.findings_total == 1 and r.findings[0].message.endswith(
        f" returns {got} cents; collect 0")


@pytest.mark.parametrize("cls", list(SIDE))
def test_a_loser_paid_fails(table, cls):
    wager = SIDE[cls]
    n, c = settles(table[1], wager, "collect")[0]
    paid = dataclasses.replace(c, kind="pay", payload={**c.payload, "returned_cents": 2 * int(c.payload["stake_cents"])})
    r = judge(cls, table, replace_event(c, paid))
    assert r.verdict == "fail" and r.findings_total == 1 and (r.findings[0].round, r.findings[0].seq) == (n, c.seq)
    assert r.findings[0].message.endswith(f" returns 0 cents; pay {2 * int(c.payload['stake_cents'])}")


def test_a_side_wager_settled_twice_never_or_refunded_in_a_played_round_fails(table):
    n, c = settles(table[1], "trips")[0]
    wid, seat = c.payload["wager_id"], c.payload["seat"]
    r = judge(UthTrips, table, lambda m, evs: evs + [c] if m == n else evs)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == f"{wid} (trips, seat {seat}) settled twice"
    r = judge(UthTrips, table, lambda m, evs: [e for e in evs if e.seq != c.seq])
    end = next(e for e in table[1][n] if e.kind == "round_end")
    assert r.verdict == "fail" and r.findings_total == 1
    assert (r.findings[0].round, r.findings[0].seq, r.findings[0].message) == (
        n, end.seq, f"{wid} (trips, seat {seat}) never settled")
    refund = dataclasses.replace(c, kind="refund")
    r = judge(UthTrips, table, replace_event(c, refund))
    assert r.verdict == "fail" and r.findings_total == 1 and r.findings[0].message.endswith("; refund 0")


def test_a_void_round_refunds_every_side_wager_or_fails(table):
    n, c = settles(table[1], "trips")[0]
    wagers = [e for e in table[1][n] if e.kind == "wager" and e.payload["wager"] == "trips"]

    def void(m, evs):
        if m != n:
            return evs
        out = []
        for e in evs:
            if e.kind in ("pay", "collect") and e.payload.get("wager") == "trips":
                e = dataclasses.replace(e, kind="refund")
            elif e.kind == "round_end":
                e = with_payload(e, void=True)
            out.append(e)
        return out

    r = judge(UthTrips, table, void)
    assert r.findings_total == 0 and measured(r)["wagers_refunded_void"] == len(wagers)

    def void_one_collected(m, evs):
        return [dataclasses.replace(e, kind="collect") if e.seq == c.seq else e for e in void(m, evs)]

    r = judge(UthTrips, table, void_one_collected)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == (f"{c.payload['wager_id']} (trips, seat {c.payload['seat']}) in a void round: "
                                     "collect, not refunded")


def _side_declared(**side):
    def change(events):
        return [with_payload(e, side={**e.payload["side"], **side}) if e.kind == "table" else e for e in events]
    return change


def test_a_paytable_the_section_does_not_offer_fails_in_round_0(table):
    r = judge(UthTrips, table, setup_change=_side_declared(trips="Z"))
    zero = [f for f in r.findings if f.round == 0]
    assert r.verdict == "fail" and len(zero) == 1
    assert zero[0].message.startswith("the table offers trips with paytable 'Z'; ")


def test_a_side_wager_the_table_does_not_offer_fails(table):
    def drop(events):
        return [with_payload(e, side={k: v for k, v in e.payload["side"].items() if k != "trips"})
                if e.kind == "table" else e for e in events]
    r = judge(UthTrips, table, setup_change=drop)
    n, c = settles(table[1], "trips")[0]
    assert r.verdict == "fail" and (r.findings[0].round, r.findings[0].seq) == (n, c.seq)
    assert r.findings[0].message == (f"{c.payload['wager_id']}: the table does not offer trips (its side wagers: "
                                     "['bad-beat', 'play-the-board', 'ultimate-pairs'])")


# --------------------------------------------------------------------------- § 653b.4(d), § 653b.5(d)
def test_a_healthy_table_settles_the_optional_wagers_after_the_deal_before_the_cards_go(table):
    r = judge(UthSettledBeforeCardsRemoved, table)
    judged = len(settles(table[1], "play-the-board")) + len(settles(table[1], "ultimate-pairs"))
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"wagers_judged": judged})
    assert r.summary == f"{judged} optional wagers settled after the complete deal, before the cards were removed"


def _round_with_optional(table) -> int:
    return next(n for n, _ in settles(table[1], "ultimate-pairs"))


def test_the_cards_removed_before_an_optional_wager_is_settled_fails(table):
    n = _round_with_optional(table)
    evs = table[1][n]
    removed = next(e for e in evs if e.kind == "cards_removed")
    first = min(e.seq for e in evs if e.kind in ("pay", "collect"))
    early = dataclasses.replace(removed, seq=first - 1)  # recorded before the settlements
    late = [e for e in evs if e.kind in ("pay", "collect") and e.payload["wager"] in ("play-the-board", "ultimate-pairs")]

    def move(m, events):
        if m != n:
            return events
        return sorted([early if e.seq == removed.seq else e for e in events], key=lambda e: e.seq)

    r = judge(UthSettledBeforeCardsRemoved, table, move)
    assert r.verdict == "fail" and r.findings_total == len(late)
    p = late[0].payload
    assert (r.findings[0].round, r.findings[0].message) == (
        n, f"{p['wager_id']} ({p['wager']}, seat {p['seat']}) settled after the cards were removed; optional wagers "
           "are settled prior to the removal of cards")
    r = judge(UthSettledBeforeCardsRemoved, table, lambda m, events: [e for e in events
                                                                     if not (m == n and e.kind == "cards_removed")])
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message == "the round was settled without the removal of the cards recorded"


def test_a_card_read_after_the_settlement_began_or_a_short_deal_fails(table):
    n = _round_with_optional(table)
    evs = table[1][n]
    board5 = next(e for e in evs if e.kind == "card_read" and e.payload["position"] == "board-5")
    last_settle = max(e.seq for e in evs if e.kind in ("pay", "collect"))
    moved = dataclasses.replace(board5, seq=last_settle + 0.5)  # read after the settlements
    r = judge(UthSettledBeforeCardsRemoved, table,
              lambda m, events: sorted([moved if e.seq == board5.seq else e for e in events], key=lambda e: e.seq)
              if m == n else events)
    msgs = [f.message for f in r.findings]
    assert r.verdict == "fail" and r.findings_total == 2
    assert msgs[0] == (f"card {board5.payload['card']} read for board-5 after the optional wagers' settlement "
                       "began: the round is dealt to completion first")
    assert msgs[1].endswith("settled before the deal was complete: board-5 (0 of 1) cards read")
    r = judge(UthSettledBeforeCardsRemoved, table,
              lambda m, events: [e for e in events if e.seq != board5.seq] if m == n else events)
    assert r.verdict == "fail" and r.findings_total == 1
    assert r.findings[0].message.endswith("board-5 (0 of 1) cards read")
