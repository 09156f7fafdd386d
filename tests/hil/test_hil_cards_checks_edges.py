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
#: § 633b.17(h) paytable 7: Seed/Reseed "N/A", 16 %, reserve 4 %; one player dealt three kings each round,
#: $1.30 a wager: 20.8 cents to the meter, 5.2 to the reserve (fractions of a cent carried over the reseed)
UNSEEDED = """schema: 1
name: t
game: blackjack
seed: 5
rounds: 3
cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', declared_suit: s, progressive_stake_cents: 130, side: {}}
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


# --------------------------------------------------------------------------- § 633b.17(c)(1), (e)
def test_a_healthy_table_s_chips_equal_the_accepted_wagers(normal):
    r = judge(ChipsEqualAccepted, normal)
    collected = len(croupier_records(normal[1], ("progressive_collect",)))
    assert collected == 111
    assert (r.verdict, r.findings_total, r.rounds_examined) == ("pass", 0, NORMAL_ROUNDS)
    assert measured(r) == {"wagers_accepted": collected, "chips_collected": collected}
    assert r.summary == f"{collected} progressive wagers: chips equal accepted wagers in every round"


def test_no_progressive_wager_is_indeterminate(normal):
    r = judge(ChipsEqualAccepted, (normal[0], {}))
    assert (r.verdict, r.summary, measured(r)) == (
        "indeterminate", "no progressive wager in the trace", {"wagers_accepted": 0, "chips_collected": 0})


def test_a_chip_not_collected_names_the_seats_and_the_first_collect_or_the_round_s_end(normal):
    by_round: dict[int, list[Event]] = {}
    for n, c in croupier_records(normal[1], ("progressive_collect",)):
        by_round.setdefault(n, []).append(c)
    n1, cs1 = next(iter(by_round.items()))
    r = judge(ChipsEqualAccepted, normal, lambda m, evs: [e for e in evs if e.kind != "progressive_collect"]
              if m == n1 else evs)
    assert r.verdict == "fail" and r.findings_total == 1
    assert found(r) == [(n1, end_of(normal[1], n1).seq, f"chips collected from seats []; the system accepted wagers "
                                                        f"from seats {sorted(c.payload['seat'] for c in cs1)}")]
    assert r.summary == "1 round(s) where chips and accepted wagers differ"
    n2, cs = next((n, cs) for n, cs in by_round.items() if len(cs) >= 3)
    seats = sorted(c.payload["seat"] for c in cs)
    r = judge(ChipsEqualAccepted, normal, drop(cs[0]))
    rest = sorted(c.payload["seat"] for c in cs[1:])
    assert found(r) == [(n2, cs[1].seq, f"chips collected from seats {rest}; the system accepted wagers from "
                                        f"seats {seats}")]
    assert measured(r) == {"wagers_accepted": 111, "chips_collected": 110}


def test_a_progressive_wager_without_an_accepted_press_fails(normal):
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="twenty-one-plus-three"))
    press = next(e for e in normal[1][n] if e.kind == "press" and e.payload["press_id"] == w.payload["press_id"])
    refused = with_payload(press, accepted=False, reason="locked_out")
    r = judge(ChipsEqualAccepted, normal, replace_event(press, refused))
    p = w.payload
    collect = next(e for e in normal[1][n] if e.kind == "progressive_collect")
    seats = sorted(c.payload["seat"] for c in normal[1][n] if c.kind == "progressive_collect")
    less = list(seats)
    less.remove(p["seat"])
    assert found(r) == [
        (n, w.seq, f"{p['wager_id']} (twenty-one-plus-three, seat {p['seat']}): a progressive wager taken without a "
                   f"press the wagering device at seat {p['seat']} accepted from a player before \"no more bets\""),
        (n, collect.seq, f"chips collected from seats {seats}; the system accepted wagers from seats {less}")]
    assert measured(r)["wagers_accepted"] == 110
    # the same wager moved to another seat: the press it had no longer counts for it
    r = judge(ChipsEqualAccepted, normal, replace_event(w, with_payload(w, seat=7)))
    assert [f[:2] for f in found(r)] == [(n, w.seq)]
    assert found(r)[0][2].startswith(f"{p['wager_id']} (twenty-one-plus-three, seat 7): a progressive wager taken")


def test_a_side_wager_is_not_a_progressive_wager_and_needs_no_press(normal):
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="kings-bounty"))
    extra = dataclasses.replace(w, seq=w.seq, payload={**w.payload, "wager_id": "x"})
    r = judge(ChipsEqualAccepted, normal, insert_after(w, extra))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_wager_at_a_position_without_a_wagering_device_fails(normal):
    seats = [w.payload["seat"] for _, w in croupier_records(normal[1], ("wager",))]
    assert max(seats) == 6
    r = judge(ChipsEqualAccepted, normal, setup_change=setup_info("progressive", seats=6))
    assert (r.verdict, r.findings_total) == ("pass", 0)  # 1..6: every position has its device
    r = judge(ChipsEqualAccepted, normal, setup_change=setup_info("progressive", seats=5))
    at6 = [(n, w) for n, w in croupier_records(normal[1], ("wager",)) if w.payload["seat"] == 6]
    assert r.findings_total == len(at6) == 37
    assert found(r)[0] == (at6[0][0], at6[0][1].seq, "a player wagers at betting position 6; the progressive system "
                                                     "has a wagering device at positions 1 to 5 only")
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="kings-bounty"))
    for seat in (0, 8):
        r = judge(ChipsEqualAccepted, normal, replace_event(w, with_payload(w, seat=seat)))
        assert found(r) == [(n, w.seq, f"a player wagers at betting position {seat}; the progressive system has a "
                                        "wagering device at positions 1 to 7 only")]
    r = judge(ChipsEqualAccepted, normal, replace_event(w, with_payload(w, seat="7")))
    assert r.findings_total == 0  # not a betting position's number: nothing to judge
    # a table without the progressive wager: no device to hold the positions to
    r = judge(ChipsEqualAccepted, normal, replace_event(w, with_payload(w, seat=8)),
              setup_change=setup_table(progressive=None))
    assert r.findings_total == 0


def test_a_refused_wager_at_a_position_without_a_device_fails_too(link):
    rejected = croupier_records(link[1], ("wager_rejected",))
    n, w = rejected[0]
    r = judge(ChipsEqualAccepted, link, replace_event(w, with_payload(w, seat=9)))
    assert found(r) == [(n, w.seq, "a player wagers at betting position 9; the progressive system has a wagering "
                                   "device at positions 1 to 7 only")]


def test_a_table_without_the_system_s_seats_judges_no_position(normal):
    def no_seats(evs):
        return [dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k != "seats"})
                if e.kind == "device_info" and e.device == "progressive" else e for e in evs]
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="kings-bounty"))
    r = judge(ChipsEqualAccepted, normal, replace_event(w, with_payload(w, seat=9)), setup_change=no_seats)
    assert (r.verdict, r.findings_total) == ("pass", 0)


# --------------------------------------------------------------------------- § 633b.17(f)(2)
def test_a_healthy_table_lights_every_winner_before_the_meter_payout(hits):
    r = judge(WinLight, hits)
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"meter_payouts": 8})
    assert r.summary == "all 8 meter payouts after the seat's win light"


def test_no_meter_payout_is_indeterminate(normal):
    r = judge(WinLight, normal)
    assert (r.verdict, r.summary, measured(r)) == ("indeterminate", "no meter payout in the trace", {"meter_payouts": 0})


@pytest.mark.parametrize("how", ["dropped", "off", "croupier's"])
def test_a_meter_payout_without_the_win_light_fails(hits, how):
    n, light = events(hits[1], "win_light", seat=1, on=True)[0]
    change = {"dropped": drop(light), "off": replace_event(light, with_payload(light, on=False)),
              "croupier's": replace_event(light, dataclasses.replace(light, device="croupier"))}[how]
    r = judge(WinLight, hits, change)
    pay = next(e for e in hits[1][n] if e.kind == "pay" and e.payload["seat"] == 1)
    assert found(r) == [(n, pay.seq, "seat 1 paid from the progressive meter without its win light on")]
    assert r.verdict == "fail" and r.summary == "1 meter payout(s) without the win light"
    assert measured(r) == {"meter_payouts": 8}


def test_a_light_put_out_before_the_payout_fails(hits):
    n, light = events(hits[1], "win_light", seat=1, on=True)[0]
    pay = next(e for e in hits[1][n] if e.kind == "pay" and e.payload["seat"] == 1)
    out = dataclasses.replace(light, seq=pay.seq, payload={**light.payload, "on": False})
    r = judge(WinLight, hits, insert_after(light, out))
    assert found(r) == [(n, pay.seq, "seat 1 paid from the progressive meter without its win light on")]


# --------------------------------------------------------------------------- the meters
def test_a_healthy_table_s_meter_is_its_seed_and_its_wagers_exactly(normal):
    r = judge(MeterAccounting, normal)
    incs = events(normal[1], "meter_increment")
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"increments": len(incs), "meter_hits": 0,
                           "meter_progressive_cents": float(incs[-1][1].payload["value_cents"]),
                           "reserve_progressive_cents": 0.0}
    assert incs[-1][1].payload["value_cents"] == 200_000 + 17 * len(incs)
    assert r.summary == f"{len(incs)} increments and 0 payout(s) exact"


def test_a_healthy_table_s_meter_hits_are_shared_and_reseeded_exactly(hits):
    r = judge(MeterAccounting, hits)
    last = events(hits[1], "meter_hit")[-1][1]
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"increments": 8, "meter_hits": 4, "meter_progressive_cents": float(last.payload["value_cents"]),
                           "reserve_progressive_cents": 0.0}
    assert last.payload["value_cents"] == 200_000
    assert r.summary == "8 increments and 4 payout(s) exact"


def test_no_accepted_progressive_wager_is_indeterminate(normal):
    r = judge(MeterAccounting, (normal[0], {}))
    assert (r.verdict, r.summary) == ("indeterminate", "no accepted progressive wager in the trace")
    assert measured(r) == {"increments": 0, "meter_hits": 0, "meter_progressive_cents": 200_000.0,
                           "reserve_progressive_cents": 0.0}


def test_a_table_without_the_progressive_wager_has_no_meter_to_judge(normal):
    r = judge(MeterAccounting, normal, setup_change=setup_table(progressive=None))
    assert (r.verdict, r.findings_total, measured(r)) == ("indeterminate", 0, {"increments": 0, "meter_hits": 0})


WHERE = "twenty-one-plus-three paytable 1, 6 decks, 100-cent wager"


@pytest.mark.parametrize(("key", "value", "want"), [
    ("seed_cents", 199_999, 200_000), ("seed_cents", None, 200_000), ("reseed_cents", 200_001, 200_000),
    ("reseed_cents", None, 200_000), ("increment_rate", "16/100", "17/100"), ("increment_rate", None, "17/100"),
    ("reserve_rate", "1/100", "0"), ("reserve_rate", None, "0"), ("reseed_from_reserve", True, False),
])
def test_a_meter_the_system_declares_unlike_the_regulation_s_row_fails_in_round_0(normal, key, value, want):
    [m] = meters_info(normal)
    r = judge(MeterAccounting, normal, setup_change=setup_info("progressive", meters=[{**m, key: value}]))
    assert found(r) == [(0, None, f"progressive meter: the system declares {key} {value}; the regulation's row for "
                                  f"{WHERE} is {want}")]
    assert r.verdict == "fail" and r.summary == "1 meter discrepancy(ies)"


def test_a_meter_declared_in_other_words_for_the_same_figures_passes(normal):
    [m] = meters_info(normal)
    same = {**m, "increment_rate": "0.17", "reserve_rate": 0, "seed_cents": "200000", "reseed_from_reserve": None}
    r = judge(MeterAccounting, normal, setup_change=setup_info("progressive", meters=[same]))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_meter_the_regulation_has_not_or_one_missing_fails_in_round_0(normal):
    [m] = meters_info(normal)
    r = judge(MeterAccounting, normal, setup_change=setup_info("progressive", meters=[m, {**m, "name": "zz"},
                                                                                        {**m, "name": "aa"}]))
    assert found(r) == [(0, None, f"the system declares a meter 'aa' the regulation's rows for {WHERE} have not"),
                        (0, None, f"the system declares a meter 'zz' the regulation's rows for {WHERE} have not")]
    r = judge(MeterAccounting, normal, setup_change=setup_info("progressive", meters=[{**m, "name": "zz"}]))
    assert found(r)[1] == (0, None, f"the system has no progressive meter (the regulation's rows for {WHERE}: "
                                    "['progressive'])")
    assert r.findings_total == 2


def test_a_table_naming_no_regulation_row_fails_in_round_0(normal):
    r = judge(MeterAccounting, (normal[0], {}), setup_change=setup_table(progressive_paytable="99"))
    assert r.verdict == "fail" and r.findings_total == 1
    assert found(r)[0][:2] == (0, None)
    assert r.findings[0].message.startswith("the table record names no regulation row for its meters: ")
    assert measured(r) == {"increments": 0, "meter_hits": 0}
    r = judge(MeterAccounting, (normal[0], {}), setup_change=lambda evs: [
        dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k != "decks"})
        if e.kind == "table" else e for e in evs])
    assert found(r) == [(0, None, "the table record names no regulation row for its meters: 'decks'")]


def test_a_meter_shown_a_cent_off_after_an_increment_fails_once_and_resynchronises(normal):
    n, inc = events(normal[1], "meter_increment")[-1]
    v = inc.payload["value_cents"]
    r = judge(MeterAccounting, normal, replace_event(inc, with_payload(inc, value_cents=v + 1)))
    assert found(r) == [(n, inc.seq, f"progressive meter shows {v + 1} after the increment; its seed, wagers and "
                                     f"payouts make it {v}")]
    assert measured(r)["meter_progressive_cents"] == float(v + 1)
    n, inc = events(normal[1], "meter_increment")[0]
    v = inc.payload["value_cents"]
    r = judge(MeterAccounting, normal, replace_event(inc, with_payload(inc, value_cents=v - 1)))
    nxt = events(normal[1], "meter_increment")[1]
    assert found(r) == [(n, inc.seq, f"progressive meter shows {v - 1} after the increment; its seed, wagers and "
                                     f"payouts make it {v}"),
                        (nxt[0], nxt[1].seq, f"progressive meter shows {v + 17} after the increment; its seed, wagers "
                                             f"and payouts make it {v + 16}")]


def test_an_increment_for_no_wager_fails_and_resynchronises(normal):
    n, inc = events(normal[1], "meter_increment")[0]
    pid = inc.payload["press_id"]
    r = judge(MeterAccounting, normal, replace_event(inc, with_payload(inc, press_id=999)))
    press = next(e for e in normal[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    assert found(r) == [
        (n, inc.seq, "progressive meter incremented for press 999, which is no player's wager accepted before \"no "
                     "more bets\" (a late press, the rig's probe, a press refused as not made by the rig, or no press)"),
        (n, press.seq, f"accepted wager (press {pid}) did not increment the progressive meter")]
    assert measured(r)["increments"] == 111


def test_an_increment_of_another_meter_is_not_this_table_s(normal):
    n, inc = events(normal[1], "meter_increment")[-1]
    other = with_payload(inc, meter="elsewhere", press_id=999, value_cents=5)
    r = judge(MeterAccounting, normal, insert_after(inc, other))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_wager_incremented_twice_or_never_fails(normal):
    n, inc = events(normal[1], "meter_increment")[-1]
    v, pid = inc.payload["value_cents"], inc.payload["press_id"]
    twice = with_payload(inc, value_cents=v + 17)
    r = judge(MeterAccounting, normal, insert_after(inc, twice))
    assert found(r) == [(n, inc.seq, f"progressive meter incremented twice for press {pid}")]
    assert measured(r)["meter_progressive_cents"] == float(v + 17)
    r = judge(MeterAccounting, normal, drop(inc))
    press = next(e for e in normal[1][n] if e.kind == "press" and e.payload["press_id"] == pid)
    assert found(r) == [(n, press.seq, f"accepted wager (press {pid}) did not increment the progressive meter")]
    assert measured(r)["increments"] == 111


def test_a_meter_read_wrong_fails_unless_the_link_is_down(hits):
    n, reading = events(hits[1], "meter_reading")[0]
    v = reading.payload["meters"]["progressive"]
    hit = next(e for e in hits[1][n] if e.kind == "meter_hit")
    r = judge(MeterAccounting, hits, replace_event(reading, with_payload(reading, meters={"progressive": v + 1})))
    assert found(r) == [
        (n, reading.seq, f"progressive meter shows {v + 1} when read; its seed, wagers and payouts make it {v}"),
        (n, hit.seq, f"progressive meter shows {v} when paid; its seed, wagers and payouts make it {v + 1}")]
    r = judge(MeterAccounting, hits, replace_event(reading, with_payload(reading, meters={"progressive": v + 1,
                                                                                            "other": 5},
                                                                          link_up=False)))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(MeterAccounting, hits, replace_event(reading, with_payload(reading, meters={"other": 5})))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def _hit(hits) -> tuple[int, Event]:
    return events(hits[1], "meter_hit")[0]


def test_a_meter_payout_shared_wrong_fails(hits):
    n, hit = _hit(hits)
    p = hit.payload
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, paid_cents=p["paid_cents"] + 1)))
    assert found(r) == [(n, hit.seq, f"progressive meter {p['jackpot_cents']}: 100 % shared by 2 is "
                                     f"{p['paid_cents']} each; paid {p['paid_cents'] + 1}")]
    assert p["paid_cents"] == p["jackpot_cents"] // 2
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, winners=0)))
    assert found(r)[0] == (n, hit.seq, f"progressive meter {p['jackpot_cents']}: 100 % shared by 0 is 0 each; "
                                       f"paid {p['paid_cents']}")
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, winners=3)))
    assert found(r)[0] == (n, hit.seq, f"progressive meter {p['jackpot_cents']}: 100 % shared by 3 is "
                                       f"{p['jackpot_cents'] // 3} each; paid {p['paid_cents']}")


def test_a_part_payout_takes_only_the_winners_shares(hits):
    n, hit = _hit(hits)
    p = hit.payload
    share = p["jackpot_cents"] * 10 // 100 // 2
    part = with_payload(hit, percent=10, paid_cents=share, value_cents=p["jackpot_cents"] - 2 * share)
    r = judge(MeterAccounting, hits, replace_event(hit, part))
    nxt = events(hits[1], "meter_increment")[2]
    assert found(r) == [(nxt[0], nxt[1].seq, f"progressive meter shows {nxt[1].payload['value_cents']} after the "
                                             f"increment; its seed, wagers and payouts make it "
                                             f"{p['jackpot_cents'] - 2 * share + 17}")]


def test_a_meter_reseeded_or_left_wrong_after_a_payout_fails(hits):
    n, hit = events(hits[1], "meter_hit")[-1]  # the last: a resynchronised meter meets no later report
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, reseed_cents=199_999)))
    assert found(r) == [(n, hit.seq, "progressive meter reseeded at 199999; the regulation's row makes it 200000 "
                                     "(the seed)")]
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, value_cents=200_001)))
    assert found(r) == [(n, hit.seq, "progressive meter shows 200001 after the payout; its seed, wagers and payouts "
                                     "make it 200000")]
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, reserve_cents=1)))
    assert found(r) == [(n, hit.seq, "progressive meter's reserve is 1 after the payout; 0 of the wagers less the "
                                     "reseeds funded make it 0")]
    assert measured(r)["reserve_progressive_cents"] == 1.0


def test_an_odd_jackpot_keeps_its_remainder_cent(envy):
    """1,000,045 shared by two: 500,022 each, the meter reseeded at 1,000,000 plus the cent left over."""
    r = judge(MeterAccounting, envy)
    (_, first), (n, hit) = events(envy[1], "meter_hit")
    assert (first.payload["jackpot_cents"], first.payload["value_cents"]) == (1_000_045, 1_000_001)
    assert (hit.payload["jackpot_cents"], hit.payload["value_cents"]) == (1_000_046, 1_000_000)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(MeterAccounting, envy, replace_event(hit, with_payload(hit, value_cents=1_000_001)))
    assert found(r) == [(n, hit.seq, "progressive meter shows 1000001 after the payout; its seed, wagers and payouts "
                                     "make it 1000000")]


def test_an_unseeded_meter_restarts_at_its_whole_reserve(unseeded):
    r = judge(MeterAccounting, unseeded)
    hs = events(unseeded[1], "meter_hit")
    assert [(h.payload["jackpot_cents"], h.payload["reseed_cents"], h.payload["value_cents"],
             h.payload["reserve_cents"]) for _, h in hs] == [(20, 5, 6, 0), (26, 5, 6, 0), (26, 5, 6, 0)]
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"increments": 3, "meter_hits": 3, "meter_progressive_cents": 6.0,
                           "reserve_progressive_cents": 0.0}
    n, hit = hs[-1]
    r = judge(MeterAccounting, unseeded, replace_event(hit, with_payload(hit, reseed_cents=4)))
    assert found(r) == [(n, hit.seq, "progressive meter reseeded at 4; the regulation's row makes it 5 "
                                     "(its reserve)")]
    r = judge(MeterAccounting, unseeded, replace_event(hit, with_payload(hit, reserve_cents=1)))
    assert found(r) == [(n, hit.seq, "progressive meter's reserve is 1 after the payout; 1/25 of the wagers less the "
                                     "reseeds funded make it 0")]


def test_a_seeded_meter_s_reserve_funds_its_reseed(hits, normal, monkeypatch):
    """A row with a reserve rate and a seed (as paytable 1 were with 1 %): the reserve takes 1 % of
    every wager and pays for the reseed as far as it goes."""
    from rules import blackjack_table

    real = blackjack_table.meter_specs
    monkeypatch.setattr(blackjack_table, "meter_specs",
                        lambda *a, **k: [{**row, "reserve_rate": "1/100"} for row in real(*a, **k)])
    [m] = meters_info(hits)
    declared = setup_info("progressive", meters=[{**m, "reserve_rate": "1/100"}])
    r = judge(MeterAccounting, normal, setup_change=declared)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)["reserve_progressive_cents"] == 111.0  # 1 cent of each of the 111 $1 wagers
    # the two wagers of a round put 2 cents in the reserve; the reseed at the seed takes them
    r = judge(MeterAccounting, hits, setup_change=declared)
    assert (r.verdict, r.findings_total, measured(r)["reserve_progressive_cents"]) == ("pass", 0, 0.0)
    n, hit = events(hits[1], "meter_hit")[-1]
    r = judge(MeterAccounting, hits, replace_event(hit, with_payload(hit, reserve_cents=2)), setup_change=declared)
    assert found(r) == [(n, hit.seq, "progressive meter's reserve is 2 after the payout; 1/100 of the wagers less the "
                                     "reseeds funded make it 0")]


# --------------------------------------------------------------------------- a restart
def _resumed(table: Table, n: int, value: Fraction, reserve: Fraction, name: str = "progressive") -> Event:
    first = table[1][n][0]
    state = {"meters": [{"name": name, "value_cents": int(value), "residue": str(value - int(value)),
                         "reserve_cents": int(reserve), "reserve_residue": str(reserve - int(reserve))}]}
    return dataclasses.replace(first, device="croupier", kind="resumed",
                               payload={"from_round": n - 1, "next_round": n, "state": state})


def _before(table: Table, n: int) -> int:
    return [e for m, e in events(table[1], "meter_increment") if m < n][-1].payload["value_cents"]


def test_a_restart_must_restore_the_meters_the_trace_left(normal):
    n = 10
    left = _before(normal, n)
    ok = _resumed(normal, n, Fraction(left), Fraction(0))
    put = lambda ev: (lambda m, evs: [ev] + evs if m == n else evs)  # noqa: E731
    r = judge(MeterAccounting, normal, put(ok))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(MeterAccounting, normal, put(_resumed(normal, n, Fraction(left) + Fraction(1, 2), Fraction(0))))
    assert found(r) == [(n, ok.seq, f"progressive meter restored at {left}.5000 (reserve 0.0000); the trace before "
                                    f"the restart leaves {left}.0000 (reserve 0.0000)")]
    r = judge(MeterAccounting, normal, put(_resumed(normal, n, Fraction(left), Fraction(3, 4))))
    assert found(r) == [(n, ok.seq, f"progressive meter restored at {left}.0000 (reserve 0.7500); the trace before "
                                    f"the restart leaves {left}.0000 (reserve 0.0000)")]
    # followed on: the next increments go on from what was restored (one finding, then in step)
    r = judge(MeterAccounting, normal, put(_resumed(normal, n, Fraction(left + 3), Fraction(0))))
    assert r.findings_total == 2 and found(r)[1][2].startswith("progressive meter shows ")
    r = judge(MeterAccounting, normal, put(_resumed(normal, n, Fraction(5), Fraction(0), name="elsewhere")))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    # another table's meter first in the state: skipped, the table's own still judged
    two = _resumed(normal, n, Fraction(left) + Fraction(1, 2), Fraction(0))
    other = _resumed(normal, n, Fraction(5), Fraction(0), name="elsewhere").payload["state"]["meters"]
    two = with_payload(two, state={"meters": other + two.payload["state"]["meters"]})
    r = judge(MeterAccounting, normal, put(two))
    assert found(r) == [(n, ok.seq, f"progressive meter restored at {left}.5000 (reserve 0.0000); the trace before "
                                    f"the restart leaves {left}.0000 (reserve 0.0000)")]
    bare = dataclasses.replace(ok, payload={"from_round": n - 1, "next_round": n})
    r = judge(MeterAccounting, normal, put(bare))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(MeterAccounting, normal, put(dataclasses.replace(ok, payload={"state": {"meters": None}})))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_linked_meter_restored_higher_is_growth_not_a_finding(linked):
    n = 10
    left = _before(linked, n)
    ev = _resumed(linked, n, Fraction(left - 5), Fraction(0))
    r = judge(MeterAccounting, linked, lambda m, evs: [ev] + evs if m == n else evs)
    assert r.verdict == "pass"


# --------------------------------------------------------------------------- a linked meter (§ 605a.8)
def test_a_linked_meter_may_grow_by_the_other_tables_never_shrink(linked):
    r = judge(MeterAccounting, linked)
    incs = events(linked[1], "meter_increment")
    own = 17 * len(incs)
    last = incs[-1][1].payload["value_cents"]
    m = measured(r)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert m["linked_tables_growth_cents"] == last - 200_000 - own
    assert m["linked_tables_growth_cents"] > 0
    assert m["meter_progressive_cents"] == float(last)
    n, inc = incs[-1]
    v = inc.payload["value_cents"]
    r = judge(MeterAccounting, linked, replace_event(inc, with_payload(inc, value_cents=v - 1)))
    assert found(r) == [(n, inc.seq, f"progressive meter shows {v - 1} after the increment; its seed, wagers and "
                                     f"payouts make it {v}")]
    r = judge(MeterAccounting, linked, replace_event(inc, with_payload(inc, value_cents=v + 4)))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r)["linked_tables_growth_cents"] == last - 200_000 - own + 4


# --------------------------------------------------------------------------- § 605a.8 the link
def _refused_while_down(link) -> list[tuple[int, Event]]:
    return events(link[1], "press", reason="link_lost")


def test_a_healthy_table_refuses_wagers_while_the_link_is_lost_and_restores_its_meters(link):
    r = judge(LinkLoss, link)
    refused = _refused_while_down(link)
    assert len(refused) == 313
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"link_losses": 1, "wagers_refused_link_lost": 313}
    assert r.summary == "1 link loss(es): 313 wagers refused, meters restored exactly"


def test_a_link_never_lost_is_indeterminate(normal):
    r = judge(LinkLoss, normal)
    assert (r.verdict, r.summary, measured(r)) == ("indeterminate", "the link to the controller was never lost",
                                                   {"link_losses": 0, "wagers_refused_link_lost": 0})


def test_a_wager_accepted_while_the_link_is_lost_fails(link):
    n, press = _refused_while_down(link)[0]
    r = judge(LinkLoss, link, replace_event(press, with_payload(press, accepted=True, reason=None)))
    p = press.payload
    assert found(r) == [(n, press.seq, f"progressive wager (press {p['press_id']}, seat {p['seat']}) accepted while "
                                       "the link to the controller was lost")]
    assert r.summary == "1 violation(s) around a lost link"
    assert measured(r)["wagers_refused_link_lost"] == 312
    r = judge(LinkLoss, link, replace_event(press, with_payload(press, reason="locked_out")))
    assert measured(r)["wagers_refused_link_lost"] == 312 and r.findings_total == 0


@pytest.mark.parametrize(("which", "delta", "fails"), [
    ("link", 1, True), ("link", -1, True), ("link", 0, False),
    ("linked", -1, True), ("linked", 0, False), ("linked", 1, False)])
def test_meters_restored_other_than_lost_fail(request, which, delta, fails):
    """Alone, the meters come back exactly as lost; linked, never less (the other tables' wagers)."""
    table = request.getfixturevalue(which)
    n, back = events(table[1], "link_restored")[0]
    before = _before(table, 24)
    got = before + delta
    r = judge(LinkLoss, table, replace_event(back, with_payload(back, meters={"progressive": got})))
    if fails:
        assert found(r) == [(n, back.seq, f"meters after the link came back {{'progressive': {got}}}; "
                                          f"before it was lost {{'progressive': {before}}}")]
    else:
        assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_meter_missing_when_the_link_comes_back_fails(link):
    n, back = events(link[1], "link_restored")[0]
    r = judge(LinkLoss, link, replace_event(back, with_payload(back, meters={})))
    assert found(r) == [(n, back.seq, f"meters after the link came back {{}}; before it was lost "
                                      f"{{'progressive': {_before(link, 24)}}}")]


def test_the_meters_shown_are_those_of_the_last_link_restored(link):
    """A second loss compares with what the first restoration showed, then the increments after it."""
    n, back = events(link[1], "link_restored")[0]
    lost = events(link[1], "link_lost")[0][1]
    later = [(m, e) for m, e in events(link[1], "meter_increment") if m > n]
    m2, inc = later[-1]
    again = dataclasses.replace(lost, seq=inc.seq)
    restored = dataclasses.replace(back, seq=inc.seq, payload={**back.payload, "meters": {"progressive": 7}})
    r = judge(LinkLoss, link, lambda m, evs: evs + [again, restored] if m == m2 else evs)
    assert found(r) == [(m2, inc.seq, f"meters after the link came back {{'progressive': 7}}; before it was lost "
                                      f"{{'progressive': {inc.payload['value_cents']}}}")]
    assert measured(r)["link_losses"] == 2


# --------------------------------------------------------------------------- side wagers settled
def test_a_healthy_table_settles_every_side_wager_by_its_paytable(normal):
    r = judge(SideSettlement, normal)
    wagers = croupier_records(normal[1], ("wager",))
    winners = [e for _, e in croupier_records(normal[1], ("pay",)) if e.payload["returned_cents"] > 0]
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"side_wagers_settled": len(wagers), "winners": len(winners)}
    assert r.summary == f"{len(wagers)} side wagers settled by their paytables ({len(winners)} winners)"


def test_no_side_wager_settled_is_indeterminate(normal):
    r = judge(SideSettlement, (normal[0], {}))
    assert (r.verdict, r.summary, measured(r)) == ("indeterminate", "no side wager settled in the trace",
                                                   {"side_wagers_settled": 0, "winners": 0})


def _deal(rounds, n) -> tuple[dict[str, list[Card]], Card, Card]:
    hands = cards_read(RoundView.of(n, rounds[n]))
    return hands, hands["dealer-up"][0], hands["dealer-hole"][0]


def test_a_side_wager_paid_wrong_or_refunded_fails_quoting_the_cards_and_the_hand(normal):
    n, pay = croupier_records(normal[1], ("pay",))[0]
    p = pay.payload
    hands, up, hole = _deal(normal[1], n)
    cards = [str(c) for c in hands[f"seat-{p['seat']}"]]
    got = p["returned_cents"]
    r = judge(SideSettlement, normal, replace_event(pay, with_payload(pay, returned_cents=got + 1)))
    assert found(r) == [(n, pay.seq, f"{p['wager_id']}: {p['wager']} {cards} against {up} {hole}: {p['hand']} returns "
                                     f"{got}; pay {got + 1}")]
    assert r.summary == "1 side wager(s) settled wrong"
    r = judge(SideSettlement, normal, replace_event(pay, dataclasses.replace(pay, kind="refund")))
    assert found(r) == [(n, pay.seq, f"{p['wager_id']}: {p['wager']} {cards} against {up} {hole}: {p['hand']} returns "
                                     f"{got}; refund 0")]
    assert measured(r)["winners"] == len([e for _, e in croupier_records(normal[1], ("pay",))])
    r = judge(SideSettlement, normal, replace_event(pay, dataclasses.replace(pay, kind="collect")))
    assert found(r)[0][2].endswith(f"returns {got}; collect 0")


def test_a_pay_without_its_figures_returns_nothing(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    p = c.payload
    bare = dataclasses.replace(c, kind="pay", payload={k: v for k, v in p.items() if k not in ("returned_cents",
                                                                                                  "envy_bonus_cents")})
    r = judge(SideSettlement, normal, replace_event(c, bare))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(SideSettlement, normal, replace_event(c, dataclasses.replace(c, kind="refund")))
    hands, up, hole = _deal(normal[1], n)
    assert found(r)[0][:2] == (n, c.seq) and found(r)[0][2].endswith("returns 0; refund 0")


def test_an_envy_bonus_short_fails(envy):
    n, pay = croupier_records(envy[1], ("pay",))[0]
    p = pay.payload
    assert (p["returned_cents"], p["envy_bonus_cents"]) == (1100, 100_000)
    r = judge(SideSettlement, envy, replace_event(pay, with_payload(pay, envy_bonus_cents=50_000)))
    assert found(r) == [(n, pay.seq, f"{p['wager_id']}: royal-match ['2c', '3c'] against Ks Qs: Two-card straight "
                                     "flush returns 101100; pay 51100")]
    r = judge(SideSettlement, envy)
    assert (r.verdict, measured(r)) == ("pass", {"side_wagers_settled": 6, "winners": 6})


def test_a_side_wager_settled_twice_or_never_fails(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    wid = c.payload["wager_id"]
    r = judge(SideSettlement, normal, insert_after(c, c))
    assert found(r) == [(n, c.seq, f"wager {wid} settled twice")]
    r = judge(SideSettlement, normal, drop(c))
    w = next(e for e in normal[1][n] if e.kind == "wager" and e.payload["wager_id"] == wid).payload
    assert found(r) == [(n, end_of(normal[1], n).seq, f"{wid} ({w['wager']}, seat {w['seat']}) never settled")]


def test_side_wagers_settled_without_the_dealer_s_cards_fail(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    for position in ("dealer-up", "dealer-hole"):
        card = next(e for e in normal[1][n] if e.kind == "card_read" and e.payload["position"] == position)
        r = judge(SideSettlement, normal, drop(card))
        assert found(r) == [(n, end_of(normal[1], n).seq, "side wagers settled without the dealer's cards read")]
    # a void round is not judged by the cards
    card = next(e for e in normal[1][n] if e.kind == "card_read" and e.payload["position"] == "dealer-up")
    end = end_of(normal[1], n)
    r = judge(SideSettlement, normal, chain(drop(card), replace_event(end, with_payload(end, void=True))))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_seat_dealt_three_cards_cannot_be_settled(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    seat = c.payload["seat"]
    card = next(e for e in normal[1][n] if e.kind == "card_read" and e.payload["position"] == f"seat-{seat}")
    r = judge(SideSettlement, normal, insert_after(card, card))
    mine = [w for w in normal[1][n] if w.kind == "wager" and w.payload["seat"] == seat]
    settle_of = {e.payload["wager_id"]: e for e in normal[1][n] if e.kind in ("pay", "collect")}
    assert found(r) == [(n, settle_of[w.payload["wager_id"]].seq,
                         f"{w.payload['wager_id']}: seat {seat} was dealt 3 cards (2 read expected)") for w in mine]


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


@pytest.mark.parametrize(("side", "progressive", "message"), [
    ({"kings-bounty": "C"}, None, "the table offers kings-bounty with paytable 'C'; § 633b.19(a) lets the certificate "
                                  "holder select A, B"),
    ({"kings-bounty": " "}, None, "the table offers kings-bounty without naming its paytable (§ 633b.19(a); "
                                  "§ 633b.19(b): the selected paytable is specified in the Rules Submission)"),
    ({"kings-bounty": None}, None, "the table offers kings-bounty without naming its paytable (§ 633b.19(a); "
                                   "§ 633b.19(b): the selected paytable is specified in the Rules Submission)"),
    ({"lucky-ladies": "A"}, None, "the table offers lucky-ladies with paytable 'A'; §§ 633b.17–633b.21 lets the "
                                  "certificate holder select none"),
    ({}, "12", "the table offers twenty-one-plus-three with paytable '12'; § 633b.17(g) lets the certificate holder "
               "select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"),
    ({"kings-bounty": "paytable b", "blazing-sevens": "P1"}, None, "the table offers blazing-sevens with paytable "
                                                                   "'P1'; § 633b.20(e) lets the certificate holder "
                                                                   "select A"),
])
def test_a_paytable_its_section_does_not_let_the_table_select_fails_in_round_0(normal, side, progressive, message):
    change = setup_table(side=side, **({"progressive_paytable": progressive} if progressive else {}))
    r = judge(SideSettlement, (normal[0], {}), setup_change=change)
    assert found(r) == [(0, None, message)]


def test_the_paytable_names_a_table_may_use(normal):
    assert [paytable_key(x) for x in ("Paytable 7", "P7", "p11", " 7 ", "b", "paytable  a", "PB", "Pay 7")] == [
        "7", "7", "11", "7", "B", "A", "PB", "PAY 7"]
    r = judge(SideSettlement, (normal[0], {}), setup_change=setup_table(side={"kings-bounty": "Paytable B"},
                                                                          progressive_paytable="P1"))
    assert r.findings_total == 0


# --------------------------------------------------------------------------- the settlement shared
def test_expected_settlements_are_none_without_the_dealer_s_cards_and_computed_once(hits):
    n = 1
    evs = [e for e in hits[1][n] if not (e.kind == "card_read" and e.payload["position"] == "dealer-up")]
    rv = RoundView.of(n, evs)
    t = BenchView.of(hits[0]).croupier["table"]
    assert expected_settlements(rv, t) is None and rv.derived["bj_settlements"] is None
    rv = RoundView.of(n, hits[1][n])
    out = expected_settlements(rv, t)
    assert rv.derived["bj_settlements"] is out and expected_settlements(rv, t) is out
    assert sorted(out) == ["1-1", "1-2"]
    w, s, why = out["1-1"]
    assert (w["seat"], s.total_returned_cents, s.meter, s.meter_share, why) == (
        1, 100_017, "progressive", Fraction(1, 2), None)
    assert s.paid_from_table_inventory is False and s.floorperson_verification is True


def test_the_cards_read_are_the_shoe_s_not_the_croupier_s(hits):
    evs = hits[1][1]
    card = next(e for e in evs if e.kind == "card_read")
    echo = dataclasses.replace(card, device="croupier", payload={**card.payload, "card": "2c"})
    hands = cards_read(RoundView.of(1, evs + [echo]))
    assert {k: [str(c) for c in v] for k, v in hands.items()} == {
        "seat-1": ["Ks", "Ks"], "seat-2": ["Ks", "Ks"], "dealer-up": ["Ks"], "dealer-hole": ["2h"]}


# --------------------------------------------------------------------------- § 633b.17(f)(3)
def test_a_healthy_table_has_a_floorperson_validate_each_progressive_payout(normal):
    r = judge(FloorpersonValidation, normal)
    v = croupier_records(normal[1], ("floorperson_validation",))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"payouts_needing_validation": len(v), "validated_before_paid": len(v)} and len(v) == 11
    assert r.summary == "all 11 payouts that need it validated by a floorperson before they were paid"


def test_no_payout_needing_validation_is_indeterminate(normal):
    r = judge(FloorpersonValidation, (normal[0], {}))
    assert (r.verdict, r.summary) == ("indeterminate", "no payout in the trace that needs a floorperson's validation")
    # the side wagers' payouts need none
    pays = {e.payload["wager_id"] for _, e in croupier_records(normal[1], ("pay",), wager="kings-bounty")}
    assert pays
    r = judge(FloorpersonValidation, normal, lambda m, evs: [e for e in evs if e.kind != "floorperson_validation"
                                                             or e.payload["wager_id"] in pays])
    assert r.findings_total == 11


@pytest.mark.parametrize(("table", "clause"), [("normal", "§ 633b.17(f)(3)"), ("envy", "§ 633b.18(h)(3)")])
def test_a_progressive_payout_without_a_floorperson_s_validation_fails(request, table, clause):
    t = request.getfixturevalue(table)
    n, v = croupier_records(t[1], ("floorperson_validation",))[0]
    pay = next(e for e in t[1][n] if e.kind == "pay" and e.payload["wager_id"] == v.payload["wager_id"])
    p = pay.payload
    r = judge(FloorpersonValidation, t, drop(v))
    want = (n, pay.seq, f"{p['wager_id']} ({p['wager']}, seat {p['seat']}: {p['hand']}, returns "
                        f"{p['returned_cents'] + p['envy_bonus_cents']} on {p['stake_cents']}) paid without a "
                        f"floorperson's validation recorded before it ({clause})")
    assert found(r) == [want]
    assert r.summary == "1 progressive payout(s) paid without a floorperson's validation"
    total = len(croupier_records(t[1], ("floorperson_validation",)))
    assert measured(r) == {"payouts_needing_validation": total, "validated_before_paid": total - 1}
    late = dataclasses.replace(v, seq=pay.seq)
    r = judge(FloorpersonValidation, t, chain(drop(v), insert_after(pay, late)))
    assert found(r) == [want]
    r = judge(FloorpersonValidation, t, chain(drop(v), insert_after(pay, dataclasses.replace(late, seq=v.seq))))
    assert found(r) == [want]  # recorded after the pay: too late, whatever its seq
    shown = dataclasses.replace(v, device="shoe", seq=v.seq)
    r = judge(FloorpersonValidation, t, replace_event(v, shown))
    assert found(r) == [want]  # the croupier's record, not a device's


def test_an_unknown_wager_s_payout_uses_the_check_s_section(normal):
    n, v = croupier_records(normal[1], ("floorperson_validation",))[0]
    pay = next(e for e in normal[1][n] if e.kind == "pay" and e.payload["wager_id"] == v.payload["wager_id"])
    assert FloorpersonValidation.CLAUSE.get("lucky-ladies", FloorpersonValidation.section) == FloorpersonValidation.section
    r = judge(FloorpersonValidation, normal, chain(drop(v), replace_event(pay, with_payload(pay, wager=None))))
    assert found(r)[0][2].endswith(f"paid without a floorperson's validation recorded before it "
                                   f"({FloorpersonValidation.section})")
    assert f"({pay.payload['wager_id']} (None, seat" in f"({found(r)[0][2]}"


# --------------------------------------------------------------------------- § 633b.17(f)(4)
def test_a_healthy_table_pays_jackpot_shares_through_the_system(hits):
    r = judge(TableInventory, hits)
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"jackpot_payouts": 8})
    assert r.summary == "all 8 jackpot shares paid by the progressive system, not from the table inventory"


def test_no_jackpot_share_is_indeterminate(normal):
    r = judge(TableInventory, normal)
    assert (r.verdict, r.summary, measured(r)) == (
        "indeterminate", "no payout that is a share of a jackpot in the trace", {"jackpot_payouts": 0})


@pytest.mark.parametrize("recorded", [True, None, 0, "no"])
def test_a_jackpot_share_paid_from_the_table_inventory_fails(hits, recorded):
    n, pay = croupier_records(hits[1], ("pay",))[0]
    p = pay.payload
    r = judge(TableInventory, hits, replace_event(pay, with_payload(pay, paid_from_table_inventory=recorded)))
    assert found(r) == [(n, pay.seq, f"{p['wager_id']} (twenty-one-plus-three, seat {p['seat']}: {p['hand']}, 1/2 of "
                                     f"the progressive meter, {p['returned_cents']} cents) paid from the table "
                                     f"inventory container (recorded {recorded!r}); a share of the jackpot may not be")]
    assert r.summary == "1 jackpot share(s) paid from the table inventory"


def test_a_jackpot_share_the_system_did_not_pay_fails(hits):
    n, pay = croupier_records(hits[1], ("pay",))[0]
    p = pay.payload
    hit = next(e for e in hits[1][n] if e.kind == "meter_hit")
    # the system reports paying another meter: the share (settled at the meter shown) has no payout of its own
    r = judge(TableInventory, hits, insert_after(hit, dataclasses.replace(hit, device="croupier",
                                                                          payload={**hit.payload, "meter": "x"})))
    assert r.findings_total == 0
    shown = {"progressive": hit.payload["jackpot_cents"]}
    orig = RoundView.by_devices

    def hide(self, kind):
        got = orig(self, kind)
        if kind == "meter_hit" and self.derived.get("bj_settlements") is not None:
            return []
        return got

    mp = pytest.MonkeyPatch()
    mp.setattr(RoundView, "by_devices", hide)
    try:
        r = judge(TableInventory, hits)
    finally:
        mp.undo()
    assert shown
    assert found(r)[0] == (n, pay.seq, f"{p['wager_id']} (twenty-one-plus-three, seat {p['seat']}: {p['hand']}, 1/2 of "
                                       f"the progressive meter, {p['returned_cents']} cents) recorded paid other than "
                                       "from the table inventory, but the progressive system reported no payout of "
                                       "the progressive meter this round")
    assert r.findings_total == 8


# --------------------------------------------------------------------------- § 633b.18(g)
def test_a_healthy_royal_match_table_settles_counterclockwise(no_wait, envy):
    r = judge(SettleCounterclockwise, no_wait)
    assert [e.payload["seat"] for _, e in croupier_records(no_wait[1], ("pay", "collect")) if _ == 1] == [4, 3, 2, 1]
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"rounds_judged": 2})
    assert r.summary == "2 rounds settled counterclockwise after the second cards"
    # seats 1 and 2 hold K Q against a king up: they await the hole card and may follow seat 3
    assert [e.payload["seat"] for n, e in croupier_records(envy[1], ("pay", "collect")) if n == 1] == [3, 2, 1]
    r = judge(SettleCounterclockwise, envy)
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"rounds_judged": 2})


def test_the_order_is_judged_at_a_royal_match_table_only(normal, no_wait):
    r = judge(SettleCounterclockwise, normal)
    assert (r.verdict, r.summary, measured(r)) == (
        "indeterminate", "the table does not offer the Royal Match progressive wager", {"rounds_judged": 0})
    r = judge(SettleCounterclockwise, (no_wait[0], {}))
    assert (r.verdict, r.summary) == ("indeterminate", "no optional wager settled in the trace")
    r = judge(SettleCounterclockwise, no_wait, lambda n, evs: [e for e in evs if e.kind not in ("pay", "collect")])
    assert (r.verdict, measured(r)) == ("indeterminate", {"rounds_judged": 0})


def _settles(table, n) -> list[Event]:
    return [e for m, e in croupier_records(table[1], ("pay", "collect")) if m == n]


def test_a_settlement_going_back_up_fails_once_per_step(no_wait):
    n = 1
    s = _settles(no_wait, n)  # seats 4 3 2 1
    seqs = [e.seq for e in s]
    # settled 3 4 2 1: seat 4 after seat 3
    swapped = {s[0].seq: dataclasses.replace(s[1], seq=seqs[0]), s[1].seq: dataclasses.replace(s[0], seq=seqs[1])}
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: [swapped.get(e.seq, e) if m == n else e for e in evs])
    p = s[0].payload
    assert found(r) == [(n, seqs[1], f"{p['wager_id']} (royal-match, seat 4) settled after seat 3: the settlement goes "
                                     "counterclockwise from the player farthest to the dealer's right (the highest "
                                     "seat) down")]
    assert r.summary == "1 finding(s) against the settlement order"
    # clockwise 1 2 3 4: three steps back, each judged against the last seat in order (1)
    order = {e.seq: dataclasses.replace(x, seq=e.seq) for e, x in zip(s, reversed(s))}
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: [order.get(e.seq, e) if m == n else e for e in evs])
    assert [(f[1], f[2].split(": ")[0]) for f in found(r)] == [
        (seqs[1], f"{s[2].payload['wager_id']} (royal-match, seat 2) settled after seat 1"),
        (seqs[2], f"{s[1].payload['wager_id']} (royal-match, seat 3) settled after seat 1"),
        (seqs[3], f"{s[0].payload['wager_id']} (royal-match, seat 4) settled after seat 1")]


def test_a_settlement_before_the_second_cards_or_a_card_after_it_fails(no_wait):
    n = 1
    s = _settles(no_wait, n)
    reads = [e for e in no_wait[1][n] if e.kind == "card_read"]
    # the seat-1 second card read after the settlement began
    second = [e for e in reads if e.payload["position"] == "seat-1"][1]
    late = dataclasses.replace(second, seq=s[0].seq + 1)
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: [e for e in evs if e.seq != second.seq] + [late]
              if m == n else evs)
    assert found(r) == [(n, late.seq, f"card {second.payload['card']} read for seat-1 after the settlement of the "
                                      "optional wagers began (they are settled before any further card)"),
                        (n, s[0].seq, "optional wagers settled before the second card was dealt to seat-1")]
    hole = next(e for e in reads if e.payload["position"] == "dealer-hole")
    up = next(e for e in reads if e.payload["position"] == "dealer-up")
    r = judge(SettleCounterclockwise, no_wait, chain(drop(hole), drop(up)))
    assert found(r) == [(n, s[0].seq, "optional wagers settled before the second card was dealt to dealer-up, "
                                      "dealer-hole")]
    first_seat2 = next(e for e in reads if e.payload["position"] == "seat-2")
    r = judge(SettleCounterclockwise, no_wait, drop(first_seat2))
    assert found(r) == [(n, s[0].seq, "optional wagers settled before the second card was dealt to seat-2")]


def test_a_settle_of_no_wager_of_the_round_is_not_judged(no_wait):
    n = 1
    s = _settles(no_wait, n)
    stray = with_payload(s[-1], wager_id="elsewhere", seat=7)
    r = judge(SettleCounterclockwise, no_wait, insert_after(s[-1], dataclasses.replace(stray, seq=s[-1].seq)))
    assert (r.verdict, r.findings_total) == ("pass", 0)


def test_a_hand_awaiting_the_hole_card_may_be_settled_after(envy):
    n = 1
    s = _settles(envy, n)  # seats 3 2 1; 2 and 1 await the hole card
    assert [e.payload["seat"] for e in s] == [3, 2, 1]
    order = {e.seq: dataclasses.replace(x, seq=e.seq) for e, x in zip(s, reversed(s))}
    r = judge(SettleCounterclockwise, envy, lambda m, evs: [order.get(e.seq, e) if m == n else e for e in evs])
    assert (r.verdict, r.findings_total) == ("pass", 0)  # 1 2 3: only seat 3 is held to the order
    # without its first cards read the hand is not known to await anything: 1 then 2 steps back up
    reads = [e for e in envy[1][n] if e.kind == "card_read" and e.payload["position"] == "seat-2"]
    r = judge(SettleCounterclockwise, envy, chain(lambda m, evs: [order.get(e.seq, e) if m == n else e for e in evs],
                                                  drop(reads[1])))
    assert found(r) == [
        (n, s[0].seq, "optional wagers settled before the second card was dealt to seat-2"),
        (n, s[2].seq, f"{s[0].payload['wager_id']} (royal-match, seat 3) settled after seat 2: the settlement goes "
                      "counterclockwise from the player farthest to the dealer's right (the highest seat) down")]


def test_awaits_hole_card():
    c = [Card.parse(x) for x in ("Kh", "Qh", "Ks", "2c", "3c", "As")]
    assert awaits_hole_card("royal-match", [c[0], c[1]], c[2]) is True
    assert awaits_hole_card("royal-match", [c[3], c[4]], c[2]) is False
    assert awaits_hole_card("twenty-one-plus-three", [c[0], c[1]], c[2]) is False
    assert awaits_hole_card("kings-bounty", [c[2], c[2]], c[5]) is True
    assert awaits_hole_card("kings-bounty", [c[3], c[4]], c[5]) is False


# --------------------------------------------------------------------------- § 633b.17(b) the shoe
def test_a_healthy_table_s_shoes_hold_their_decks_and_are_read_as_dealt(normal):
    r = judge(ShoeIntegrity, normal)
    reads = events(normal[1], "card_read")
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"shoes": 2, "cards_read": len(reads), "cards_verified": 240} and len(reads) == 360
    assert r.summary == "2 shoes of 312 cards; 240 reads match the revealed orders"


def test_no_shoe_or_none_replaced_is_indeterminate(normal):
    r = judge(ShoeIntegrity, (normal[0], {}))
    assert (r.verdict, r.summary) == ("indeterminate", "no shoe in the trace")
    r = judge(ShoeIntegrity, normal, lambda n, evs: [e for e in evs if e.kind != "shoe_revealed"])
    assert (r.verdict, r.summary, measured(r)["cards_verified"]) == (
        "indeterminate", "2 shoe(s), none replaced yet: no read verified against its order", 0)


def test_a_shoe_of_the_wrong_size_or_order_committed_twice_fails(normal):
    (n1, s1), (n2, s2) = events(normal[1], "shoe_shuffled")
    r = judge(ShoeIntegrity, normal, replace_event(s1, with_payload(s1, cards=311)))
    assert found(r) == [(n1, s1.seq, "shoe 1 holds 311 cards; 6 decks are 312")]
    assert r.summary == "1 shoe or reader fault(s)"
    r = judge(ShoeIntegrity, normal, replace_event(s1, with_payload(s1, cards=311)),
              setup_change=lambda evs: [e for e in evs if e.device != "shoe"])
    assert r.findings_total == 0  # no decks declared: nothing to count against
    r = judge(ShoeIntegrity, normal, replace_event(s2, with_payload(s2, sha256=s1.payload["sha256"])))
    assert found(r)[0] == (n2, s2.seq, "shoe 2 has the same order as shoe 1: not shuffled")


def test_a_revealed_order_unlike_its_commitment_or_the_reads_fails(normal):
    n, rev = events(normal[1], "shoe_revealed")[0]
    order = list(rev.payload["order"])
    reads = [(m, e) for m, e in events(normal[1], "card_read") if e.payload["shoe_id"] == rev.payload["shoe_id"]]
    m0, r0 = next((m, e) for m, e in reads if e.payload["index"] == 0)
    other = next(c for c in order if c != order[0])
    r = judge(ShoeIntegrity, normal, replace_event(rev, with_payload(rev, order=[other] + order[1:])))
    assert found(r) == [(n, rev.seq, f"shoe {rev.payload['shoe_id']}'s revealed order does not match its commitment"),
                        (m0, r0.seq, f"the reader reported {order[0]} for card 0 of shoe {rev.payload['shoe_id']} "
                                     f"({r0.payload['position']}); the shoe held {other}")]
    # a misread: the reader reported another card than the shoe held
    r = judge(ShoeIntegrity, normal, replace_event(r0, with_payload(r0, card=other)))
    assert found(r) == [(m0, r0.seq, f"the reader reported {other} for card 0 of shoe {rev.payload['shoe_id']} "
                                     f"({r0.payload['position']}); the shoe held {order[0]}")]
    # a read past the shoe's last card
    for index in (len(order), len(order) + 1):
        r = judge(ShoeIntegrity, normal, replace_event(r0, with_payload(r0, index=index)))
        assert found(r) == [(m0, r0.seq, f"the reader reported {order[0]} for card {index} of shoe "
                                         f"{rev.payload['shoe_id']} ({r0.payload['position']}); the shoe held no card")]
    r = judge(ShoeIntegrity, normal, replace_event(r0, with_payload(r0, index=len(order) - 1)))
    assert [f[:2] for f in found(r)] == ([(m0, r0.seq)] if order[-1] != order[0] else [])


def test_a_shoe_revealed_without_its_commitment_checks_the_reads_only(normal):
    n, rev = events(normal[1], "shoe_revealed")[0]
    shuffled = events(normal[1], "shoe_shuffled")[0][1]
    r = judge(ShoeIntegrity, normal, drop(shuffled))
    assert (r.findings_total, measured(r)["cards_verified"]) == (0, 240)
    r = judge(ShoeIntegrity, normal, chain(drop(shuffled), replace_event(rev, with_payload(rev, order=[]))))
    assert r.findings_total == 240 and found(r)[0][2].endswith("the shoe held no card")


# --------------------------------------------------------------------------- what each check measures
def test_every_check_s_measurements_carry_their_units(normal, hits, link):
    units = {
        ChipsEqualAccepted: (normal, {"wagers_accepted": "wagers", "chips_collected": "wagers"}),
        WinLight: (hits, {"meter_payouts": "payouts"}),
        MeterAccounting: (hits, {"increments": "wagers", "meter_hits": "hits", "meter_progressive_cents": "cents",
                                 "reserve_progressive_cents": "cents"}),
        LinkLoss: (link, {"link_losses": "losses", "wagers_refused_link_lost": "wagers"}),
        SideSettlement: (normal, {"side_wagers_settled": "wagers", "winners": "wagers"}),
        FloorpersonValidation: (normal, {"payouts_needing_validation": "payouts", "validated_before_paid": "payouts"}),
        TableInventory: (hits, {"jackpot_payouts": "payouts"}),
        SettleCounterclockwise: (normal, {"rounds_judged": "rounds"}),
        ShoeIntegrity: (normal, {"shoes": "shoes", "cards_read": "cards", "cards_verified": "cards"}),
    }
    for cls, (table, want) in units.items():
        r = judge(cls, table)
        assert {m.name: m.unit for m in r.measurements} == want, cls.__name__
        assert r.rounds_examined == len(table[1]), cls.__name__


def test_a_linked_meter_measures_the_other_tables_growth_in_cents(linked):
    r = judge(MeterAccounting, linked)
    assert {m.name: m.unit for m in r.measurements}["linked_tables_growth_cents"] == "cents"


def test_a_table_record_without_its_declared_suit_is_read_as_spades(hits):
    """§ 633b.17(g): three kings of the certificate holder's declared suit; a table record that names
    none is read as spades (the rig's default), and the three kings of spades settle as before."""
    def without_suit(evs):
        return [dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k != "declared_suit"})
                if e.kind == "table" else e for e in evs]
    r = judge(SideSettlement, hits, setup_change=without_suit)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"side_wagers_settled": 8, "winners": 8}


def test_a_wager_whose_seat_was_dealt_no_card_cannot_be_settled(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    seat = c.payload["seat"]
    r = judge(SideSettlement, normal, lambda m, evs: [e for e in evs if not (
        m == n and e.kind == "card_read" and e.payload["position"] == f"seat-{seat}")])
    mine = [w for w in normal[1][n] if w.kind == "wager" and w.payload["seat"] == seat]
    settle_of = {e.payload["wager_id"]: e for e in normal[1][n] if e.kind in ("pay", "collect")}
    assert found(r) == [(n, settle_of[w.payload["wager_id"]].seq,
                         f"{w.payload['wager_id']}: seat {seat} was dealt 0 cards (2 read expected)") for w in mine]


def test_a_row_whose_reseed_differs_from_its_seed_reseeds_at_the_reseed(hits, monkeypatch):
    """The regulation's rows give one Seed/Reseed figure; a row with its own reseed (as the system may
    declare one) is held to it."""
    from rules import blackjack_table

    real = blackjack_table.meter_specs
    monkeypatch.setattr(blackjack_table, "meter_specs",
                        lambda *a, **k: [{**row, "reseed_cents": 150_000} for row in real(*a, **k)])
    [m] = meters_info(hits)
    r = judge(MeterAccounting, hits, setup_change=setup_info("progressive", meters=[{**m, "reseed_cents": 150_000}]))
    n, hit = events(hits[1], "meter_hit")[0]
    assert found(r)[0] == (n, hit.seq, "progressive meter reseeded at 200000; the regulation's row makes it 150000 "
                                       "(the seed)")


def test_each_of_a_multi_progressive_s_meters_is_held_to_its_row(tmp_path):
    text = (SCENARIOS / "blackjack_blazing_multi.yaml").read_text(encoding="utf-8")
    path = tmp_path / "b.yaml"
    path.write_text(text, encoding="utf-8")
    setup, _rounds = simulated_table(path, 1, tmp_path)
    meters = next(e.payload["meters"] for e in setup if e.kind == "device_info" and e.device == "progressive")
    assert [x["name"] for x in meters] == ["mega", "major", "minor"]
    changed = [{**meters[1], "seed_cents": 1}, meters[2]]  # mega missing, major's seed wrong
    r = judge(MeterAccounting, (setup, {}), setup_change=setup_info("progressive", meters=changed))
    where = "blazing-sevens-multi paytable A, 8 decks, 500-cent wager"
    assert found(r) == [(0, None, f"the system has no mega meter (the regulation's rows for {where}: "
                                  "['major', 'mega', 'minor'])"),
                        (0, None, f"major meter: the system declares seed_cents 1; the regulation's row for {where} "
                                  "is 500000")]


def test_the_declared_suit_decides_between_the_meter_and_2000_for_1(unseeded):
    """§ 633b.17(g) paytable 7: three kings of the declared suit win the meter, of another suit 2,000
    for 1: the same K♠ K♠ K♠ at a table declaring hearts is owed $2,600 on $1.30, not the meter."""
    assert (judge(SideSettlement, unseeded).verdict, judge(SideSettlement, unseeded).findings_total) == ("pass", 0)
    r = judge(SideSettlement, unseeded, setup_change=setup_table(declared_suit="h"))
    pays = croupier_records(unseeded[1], ("pay",))
    assert r.findings_total == len(pays) == 3
    n, pay = pays[0]
    assert found(r)[0][:2] == (n, pay.seq)
    assert found(r)[0][2].endswith(f"returns 260000; pay {pay.payload['returned_cents']}")


# --------------------------------------------------------------------------- the whole module's mutants (issue 16, run 2)
def spaced(round_n: int):
    """Round ``round_n``'s seqs times ten, leaving room for an event between two of them."""
    return lambda n, evs: [dataclasses.replace(e, seq=e.seq * 10) for e in evs] if n == round_n else evs


def judge_as_run(cls, table: Table, change=None, setup_change=None):
    """As ``judge``, the set-up through the runner's own ``_setup``: a set-up that raises on a
    malformed declaration is a finding in round 0, and the check goes on with what it had set."""
    from hil.checks import _setup

    setup, rounds = table
    check = cls(CheckConfig())
    _setup([check], BenchView.of(setup_change(list(setup)) if setup_change else setup))
    for n, evs in sorted(rounds.items()):
        check.observe(RoundView.of(n, change(n, list(evs)) if change else evs))
    return check.result()


def test_a_round_of_one_optional_wager_is_judged_by_its_one_settlement(no_wait):
    """Seat 4's wager alone: the settlement begins (and ends) with its collect."""
    n = 1
    s = _settles(no_wait, n)  # seats 4 3 2 1
    others = {e.payload["wager_id"] for e in s[1:]}
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: [
        e for e in evs if not (m == n and e.kind in ("wager", "collect", "pay") and e.payload["wager_id"] in others)])
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"rounds_judged": 2})


def test_a_seat_s_two_optional_wagers_settled_one_after_the_other_keep_the_order(no_wait):
    """A player's Royal Match and King's Bounty at seat 3, settled together: no step back up."""
    n = 1
    s = _settles(no_wait, n)  # 1-4 seat 4, 1-1 seat 3, 1-3 seat 2, 1-2 seat 1
    w13 = next(e for e in no_wait[1][n] if e.kind == "wager" and e.payload["wager_id"] == "1-3")
    moved = chain(replace_event(w13, with_payload(w13, seat=3, wager="kings-bounty")),
                  replace_event(s[2], with_payload(s[2], seat=3, wager="kings-bounty")))
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: moved(m, evs) if m == n else evs)
    assert [(e.payload["wager_id"], e.payload["seat"]) for e in s] == [("1-4", 4), ("1-1", 3), ("1-3", 2), ("1-2", 1)]
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"rounds_judged": 2})


def test_a_seat_no_card_was_read_for_is_short_of_its_second_card(no_wait):
    n = 1
    s = _settles(no_wait, n)
    r = judge(SettleCounterclockwise, no_wait, lambda m, evs: [
        e for e in evs if not (m == n and e.kind == "card_read" and e.payload["position"] == "seat-1")])
    assert found(r) == [(n, s[0].seq, "optional wagers settled before the second card was dealt to seat-1")]
    assert (r.verdict, measured(r)) == ("fail", {"rounds_judged": 2})


def test_only_a_hand_s_first_two_cards_await_the_hole_card(envy):
    """Seat 1's K Q against a king up awaits the hole card whatever card is read for it after: the
    order 1 2 3 holds seat 3 only; the card read after the settlement began is the one finding."""
    n = 1
    s = _settles(envy, n)  # seats 3 2 1
    order = {e.seq * 10: dataclasses.replace(x, seq=e.seq * 10) for e, x in zip(s, reversed(s))}
    card = next(e for e in envy[1][n] if e.kind == "card_read" and e.payload["position"] == "seat-1")
    third = dataclasses.replace(card, seq=s[-1].seq * 10 + 1, payload={**card.payload, "card": "5c", "index": 99})
    end = end_of(envy[1], n)
    r = judge(SettleCounterclockwise, envy, chain(spaced(n), lambda m, evs: [
        x for e in evs for x in ((third, e) if m == n and e.seq == end.seq * 10 else
                                 (order.get(e.seq, e) if m == n else e,))]))
    assert found(r) == [(n, third.seq, "card 5c read for seat-1 after the settlement of the optional wagers began "
                                       "(they are settled before any further card)")]
    assert (r.verdict, r.summary) == ("fail", "1 finding(s) against the settlement order")


def test_a_check_whose_set_up_broke_judges_no_order_it_cannot_know(normal, no_wait):
    """A progressive system declaring a meter without its name: the set-up raises (a finding in round 0,
    the runner's ``_setup``) before the table's wager is read — no round is judged by the order."""
    bad = setup_info("progressive", meters=[{"seed_cents": 1}])
    r = judge_as_run(SettleCounterclockwise, no_wait, setup_change=bad)
    assert (r.verdict, r.findings_total, measured(r)) == ("fail", 1, {"rounds_judged": 0})
    assert found(r) == [(0, None, "malformed evidence in the set-up: KeyError: 'name'")]
    assert r.summary == "1 finding(s) against the settlement order"


def test_a_shoe_whose_decks_are_no_number_counts_no_cards_against_them(normal):
    r = judge_as_run(ShoeIntegrity, normal, setup_change=setup_info("shoe", decks="six"))
    assert found(r) == [(0, None, "malformed evidence in the set-up: ValueError: invalid literal for int() with "
                                  "base 10: 'six'")]
    assert (r.verdict, r.summary) == ("fail", "1 shoe or reader fault(s)")
    assert measured(r) == {"shoes": 2, "cards_read": 360, "cards_verified": 240}


def test_the_shoe_s_decks_are_the_device_s_declaring_decks_and_penetration(normal):
    """Another device declaring decks (not a shoe: no penetration), first: the shoe's 6 decks still count."""
    first = next(e for e in normal[0] if e.kind == "device_info")
    other = dataclasses.replace(first, device="reader", payload={"decks": 8})
    r = judge(ShoeIntegrity, normal, setup_change=lambda evs: [other] + evs)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert r.summary == "2 shoes of 312 cards; 240 reads match the revealed orders"
    n1, s1 = events(normal[1], "shoe_shuffled")[0]
    r = judge(ShoeIntegrity, normal, replace_event(s1, with_payload(s1, cards=416)),
              setup_change=lambda evs: [other] + evs)
    assert found(r) == [(n1, s1.seq, "shoe 1 holds 416 cards; 6 decks are 312")]
    assert (r.verdict, r.summary) == ("fail", "1 shoe or reader fault(s)")


def test_a_shoe_revealed_that_no_card_was_read_from_verifies_nothing(normal):
    n, rev = events(normal[1], "shoe_revealed")[0]
    r = judge(ShoeIntegrity, normal, replace_event(rev, with_payload(rev, shoe_id=9)))
    assert (r.verdict, r.findings_total) == ("indeterminate", 0)
    assert measured(r) == {"shoes": 2, "cards_read": 360, "cards_verified": 0}


def test_a_link_restored_that_was_never_lost_has_nothing_to_compare(link):
    n, lost = events(link[1], "link_lost")[0]
    r = judge(LinkLoss, link, drop(lost))
    assert (r.verdict, r.findings_total) == ("indeterminate", 0)
    assert measured(r) == {"link_losses": 0, "wagers_refused_link_lost": 0}


FOREIGN = "blackjack_actuator_foreign_presses_refused.yaml"


@pytest.fixture(scope="module")
def foreign(tmp_path_factory) -> Table:
    """Through the simulated actuator, real players pressing the 21+3 buttons: each of their presses
    attributed and refused "not made by the rig" (rounds 2-5: 3, 1, 4 and 1 of them)."""
    return simulated_table(SCENARIOS / FOREIGN, 5, tmp_path_factory.mktemp("foreign"))


def judge_with(cls, table: Table, config: CheckConfig, change=None):
    setup, rounds = table
    check = cls(config)
    check.setup(BenchView.of(setup))
    for n, evs in sorted(rounds.items()):
        check.observe(RoundView.of(n, change(n, list(evs)) if change else evs))
    return check.result()


def test_real_players_presses_refused_are_excused_only_where_the_scenario_refuses_them(foreign):
    refused = croupier_records(foreign[1], ("wager_rejected",))
    assert [(n, e.payload["press_id"]) for n, e in refused] == [
        (2, 8), (2, 9), (2, 11), (3, 21), (4, 27), (4, 28), (4, 31), (4, 32), (5, 39)]
    assert {e.payload["reason"] for _, e in refused} == {"not made by the rig"}
    collected = croupier_records(foreign[1], ("progressive_collect",))
    r = judge(ChipsEqualAccepted, foreign)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    assert measured(r) == {"wagers_accepted": len(collected), "chips_collected": len(collected)}
    # a scenario that settles real players' presses: each refusal is a finding, and the press stays owed
    r = judge_with(ChipsEqualAccepted, foreign, CheckConfig(foreign_presses="settle"))
    want = []
    for n in (2, 3, 4, 5):
        mine = [e for m, e in refused if m == n]
        want += [(n, e.seq, f"press {e.payload['press_id']} refused as not made by the rig, but the scenario settles "
                            "real players' presses (players.foreign_presses: settle)") for e in mine]
        cs = [e for m, e in collected if m == n]
        seats = sorted(e.payload["seat"] for e in cs)
        owed = sorted(seats + [e.payload["seat"] for e in mine])
        want.append((n, cs[0].seq, f"chips collected from seats {seats}; the system accepted wagers from seats {owed}"))
    assert found(r) == want
    assert (r.verdict, r.findings_total) == ("fail", 13)
    assert measured(r) == {"wagers_accepted": len(collected) + 9, "chips_collected": len(collected)}


def test_a_refusal_as_a_duplicate_no_actuation_doubles_is_a_finding_and_the_press_stays_owed(foreign):
    n, rej = croupier_records(foreign[1], ("wager_rejected",))[3]  # round 3: press 21, seat 6
    r = judge(ChipsEqualAccepted, foreign, replace_event(rej, with_payload(rej, reason="duplicate of actuation 3")))
    cs = [e for m, e in croupier_records(foreign[1], ("progressive_collect",)) if m == n]
    seats = sorted(e.payload["seat"] for e in cs)
    assert found(r) == [(n, rej.seq, "press 21 refused as a duplicate, but no actuation of the trace doubles it"),
                        (n, cs[0].seq, f"chips collected from seats {seats}; the system accepted wagers from seats "
                                       f"{sorted(seats + [6])}")]


def test_a_press_of_another_spot_is_not_a_progressive_wager(normal):
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="twenty-one-plus-three"))
    press = next(e for e in normal[1][n] if e.kind == "press" and e.payload["press_id"] == w.payload["press_id"])
    assert press.payload["spot"] == "21+3-progressive"
    r = judge(ChipsEqualAccepted, normal, replace_event(press, with_payload(press, spot="kings-bounty")))
    p = w.payload
    assert [f[:2] for f in found(r)][0] == (n, w.seq)
    assert found(r)[0][2] == (f"{p['wager_id']} (twenty-one-plus-three, seat {p['seat']}): a progressive wager taken "
                              f"without a press the wagering device at seat {p['seat']} accepted from a player before "
                              "\"no more bets\"")
    assert (r.findings_total, measured(r)["wagers_accepted"]) == (2, 110)


def _second_wager(table: Table, n: int, w: Event, with_press: bool):
    """Round ``n`` (seqs spaced) with a second progressive wager at ``w``'s seat, collected, and (or not) its press."""
    press = next(e for e in table[1][n] if e.kind == "press" and e.payload["press_id"] == w.payload["press_id"])
    collect = next(e for e in table[1][n]
                   if e.kind == "progressive_collect" and e.payload["wager_id"] == w.payload["wager_id"])
    extra = [dataclasses.replace(w, seq=w.seq * 10 + 1, payload={**w.payload, "wager_id": "x", "press_id": 999}),
             dataclasses.replace(collect, seq=collect.seq * 10 + 1, payload={**collect.payload, "wager_id": "x"})]
    if with_press:
        extra.append(dataclasses.replace(press, seq=press.seq * 10 + 1, payload={**press.payload, "press_id": 999}))
    after = {e.seq - 1: e for e in extra}
    return chain(spaced(n), lambda m, evs: [x for e in evs for x in ((e, after[e.seq]) if m == n and e.seq in after
                                                                        else (e,))])


def test_a_seat_s_two_progressive_wagers_need_two_presses(normal):
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="twenty-one-plus-three"))
    r = judge(ChipsEqualAccepted, normal, _second_wager(normal, n, w, with_press=True))
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"wagers_accepted": 112, "chips_collected": 112})
    r = judge(ChipsEqualAccepted, normal, _second_wager(normal, n, w, with_press=False))
    seat = w.payload["seat"]
    seats = sorted(c.payload["seat"] for c in normal[1][n] if c.kind == "progressive_collect")
    first = next(c for c in normal[1][n] if c.kind == "progressive_collect")
    assert found(r) == [
        (n, w.seq * 10 + 1, f"x (twenty-one-plus-three, seat {seat}): a progressive wager taken without a press the "
                            f"wagering device at seat {seat} accepted from a player before \"no more bets\""),
        (n, first.seq * 10, f"chips collected from seats {sorted(seats + [seat])}; the system accepted wagers from "
                            f"seats {seats}")]
    assert (r.verdict, r.findings_total, r.summary) == ("fail", 2, "1 round(s) where chips and accepted wagers differ")


def _stray_pay(table: Table, n: int):
    """Round ``n`` (seqs spaced) with a pay of no wager of the round before its first pay."""
    pay = next(e for e in table[1][n] if e.kind == "pay")
    stray = dataclasses.replace(pay, seq=pay.seq * 10 - 1, payload={**pay.payload, "wager_id": "elsewhere"})
    return chain(spaced(n), lambda m, evs: [x for e in evs for x in ((stray, e) if m == n and e.seq == pay.seq * 10
                                                                        else (e,))])


def test_a_pay_of_no_wager_of_the_round_needs_no_validation_nor_a_meter(normal, hits):
    n, v = croupier_records(normal[1], ("floorperson_validation",))[0]
    r = judge(FloorpersonValidation, normal, _stray_pay(normal, n))
    assert (r.verdict, r.findings_total, measured(r)) == (
        "pass", 0, {"payouts_needing_validation": 11, "validated_before_paid": 11})
    r = judge(TableInventory, hits, _stray_pay(hits, 1))
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"jackpot_payouts": 8})


def test_the_failing_verdicts_of_the_link_the_floorperson_and_the_table_inventory(link, normal, hits):
    n, press = _refused_while_down(link)[0]
    r = judge(LinkLoss, link, replace_event(press, with_payload(press, accepted=True, reason=None)))
    assert (r.verdict, r.findings_total) == ("fail", 1)
    n, v = croupier_records(normal[1], ("floorperson_validation",))[0]
    r = judge(FloorpersonValidation, normal, drop(v))
    assert (r.verdict, r.findings_total) == ("fail", 1)
    n, pay = croupier_records(hits[1], ("pay",))[0]
    r = judge(TableInventory, hits, replace_event(pay, with_payload(pay, paid_from_table_inventory=True)))
    assert (r.verdict, r.findings_total) == ("fail", 1)


def test_the_meters_excuse_real_players_presses_only_where_the_scenario_refuses_them(foreign):
    refused = croupier_records(foreign[1], ("wager_rejected",))
    incs = events(foreign[1], "meter_increment")
    r = judge(MeterAccounting, foreign)
    assert (r.verdict, r.findings_total, measured(r)["increments"]) == ("pass", 0, len(incs))
    # settled by the scenario: each refusal is a finding, and each such press a wager the meter never took
    r = judge_with(MeterAccounting, foreign, CheckConfig(foreign_presses="settle"))
    want = []
    for n in (2, 3, 4, 5):
        mine = [e for m, e in refused if m == n]
        want += [(n, e.seq, f"press {e.payload['press_id']} refused as not made by the rig, but the scenario settles "
                            "real players' presses (players.foreign_presses: settle)") for e in mine]
        pids = {e.payload["press_id"] for e in mine}
        presses = [e for e in foreign[1][n] if e.kind == "press" and e.payload["press_id"] in pids]
        want += [(n, p.seq, f"accepted wager (press {p.payload['press_id']}) did not increment the progressive meter")
                 for p in presses]
    assert found(r) == want
    assert (r.verdict, r.findings_total, measured(r)["increments"]) == ("fail", 18, len(incs) + 9)


def test_an_increment_of_another_meter_first_leaves_the_round_s_own_judged(normal):
    n, inc = events(normal[1], "meter_increment")[0]
    other = dataclasses.replace(inc, seq=inc.seq * 10 - 1, payload={**inc.payload, "meter": "elsewhere",
                                                                      "press_id": 999, "value_cents": 5})
    r = judge(MeterAccounting, normal, chain(spaced(n), lambda m, evs: [
        x for e in evs for x in ((other, e) if m == n and e.seq == inc.seq * 10 else (e,))]))
    assert (r.verdict, r.findings_total) == ("pass", 0)
    # the round's own increment after it, a cent off, is still judged
    wrong = with_payload(inc, value_cents=inc.payload["value_cents"] + 1)
    r = judge(MeterAccounting, normal, chain(replace_event(inc, wrong), spaced(n), lambda m, evs: [
        x for e in evs for x in ((other, e) if m == n and e.seq == inc.seq * 10 else (e,))]))
    v = inc.payload["value_cents"]
    assert found(r)[0] == (n, inc.seq * 10, f"progressive meter shows {v + 1} after the increment; its seed, "
                                            f"wagers and payouts make it {v}")


def test_a_meter_reading_that_does_not_say_the_link_is_up_is_judged(hits):
    n, reading = events(hits[1], "meter_reading")[0]
    v = reading.payload["meters"]["progressive"]
    bare = dataclasses.replace(reading, payload={k: x for k, x in reading.payload.items() if k != "link_up"}
                               | {"meters": {"progressive": v + 1}})
    r = judge(MeterAccounting, hits, replace_event(reading, bare))
    assert found(r)[0] == (n, reading.seq, f"progressive meter shows {v + 1} when read; its seed, wagers and payouts "
                                           f"make it {v}")
    assert (r.verdict, r.findings_total) == ("fail", 2)


def test_the_system_is_the_device_declaring_both_meters_and_seats(normal):
    """Another device declaring seats only (no meters), first: the progressive system's 7 positions and meter hold."""
    first = next(e for e in normal[0] if e.kind == "device_info")
    other = dataclasses.replace(first, device="reader", payload={"seats": 5})
    r = judge(ChipsEqualAccepted, normal, setup_change=lambda evs: [other] + evs)
    assert (r.verdict, r.findings_total) == ("pass", 0)
    r = judge(MeterAccounting, normal, setup_change=lambda evs: [other] + evs)
    assert (r.verdict, r.findings_total) == ("pass", 0)


#: § 633b.17(g) paytable 7 at a table declaring hearts: two players each dealt three kings of hearts
#: share the meter (suited but not the declared suit would be 2,000 for 1)
HEARTS = """schema: 1
name: t
game: blackjack
seed: 5
rounds: 2
cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', declared_suit: h, side: {}}
players: {count: 2, progressive_probability: 1.0, side_probability: 0.0, late_press_probability: 0.0}
bench:
  shoe: {stacked: "Kh Kh Kh Kh Kh 2c", penetration: 0.01}
"""


def test_the_meter_s_winners_are_counted_in_the_declared_suit(tmp_path_factory):
    hearts = _custom(tmp_path_factory, HEARTS, 2, "hearts")
    r = judge(SideSettlement, hearts)
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"side_wagers_settled": 4, "winners": 4})
    t = BenchView.of(hearts[0]).croupier["table"]
    out = expected_settlements(RoundView.of(1, hearts[1][1]), t)
    assert [(s.meter, s.meter_share, s.total_returned_cents) for _w, s, _why in out.values()] == [
        ("progressive", Fraction(1, 2), 16), ("progressive", Fraction(1, 2), 16)]


def test_a_seat_that_cannot_be_settled_does_not_stop_the_others_sharing_the_meter(hits):
    """Seat 1 dealt one card: it is no winner, and seat 2 alone wins the whole meter (paid half: a finding)."""
    n = 1
    second = [e for e in hits[1][n] if e.kind == "card_read" and e.payload["position"] == "seat-1"][1]
    r = judge(SideSettlement, hits, lambda m, evs: drop(second)(m, evs) if m == n else evs)
    pays = {e.payload["wager_id"]: e for e in hits[1][n] if e.kind == "pay"}
    jackpot = next(e for e in hits[1][n] if e.kind == "meter_hit").payload["jackpot_cents"]
    p2 = pays["1-2"].payload
    assert p2["seat"] == 2
    assert found(r) == [(n, pays["1-1"].seq, "1-1: seat 1 was dealt 1 cards (2 read expected)"),
                        (n, pays["1-2"].seq, f"1-2: twenty-one-plus-three ['Ks', 'Ks'] against Ks 2h: {p2['hand']} "
                                             f"returns {jackpot}; pay {p2['returned_cents']}")]
    assert (r.verdict, r.summary) == ("fail", "2 side wager(s) settled wrong")


def test_a_wager_never_settled_leaves_the_round_s_others_judged(normal):
    n, c = croupier_records(normal[1], ("collect",))[0]
    total = len(croupier_records(normal[1], ("wager",)))
    r = judge(SideSettlement, normal, drop(c))
    assert (r.verdict, r.findings_total, measured(r)["side_wagers_settled"]) == ("fail", 1, total - 1)


def test_a_one_cent_meter_share_is_a_winner(unseeded):
    """An unseeded meter paid at 1 cent: its one winner is returned 1 cent, and counts as a winner."""
    n = 1
    hit = next(e for e in unseeded[1][n] if e.kind == "meter_hit")
    pay = next(e for e in unseeded[1][n] if e.kind == "pay")
    r = judge(SideSettlement, unseeded, chain(replace_event(hit, with_payload(hit, jackpot_cents=1)),
                                              replace_event(pay, with_payload(pay, returned_cents=1))))
    assert (r.verdict, r.findings_total, measured(r)) == ("pass", 0, {"side_wagers_settled": 3, "winners": 3})


def test_the_summary_counts_the_rounds_where_chips_and_accepted_wagers_differ(normal):
    """Two findings in one round are one round (the summary counted findings as rounds)."""
    n, w = next((n, w) for n, w in croupier_records(normal[1], ("wager",), wager="twenty-one-plus-three"))
    press = next(e for e in normal[1][n] if e.kind == "press" and e.payload["press_id"] == w.payload["press_id"])
    r = judge(ChipsEqualAccepted, normal, replace_event(press, with_payload(press, accepted=False, reason="locked_out")))
    assert (r.findings_total, r.summary) == (2, "1 round(s) where chips and accepted wagers differ")
    later = [(m, c) for m, c in croupier_records(normal[1], ("progressive_collect",)) if m > n][0]
    r = judge(ChipsEqualAccepted, normal, chain(replace_event(press, with_payload(press, accepted=False,
                                                                                  reason="locked_out")),
                                                drop(later[1])))
    assert (r.findings_total, r.summary) == (3, "2 round(s) where chips and accepted wagers differ")
    assert [f[0] for f in found(r)] == [n, n, later[0]]
