"""The Blackjack side-wager croupier: stacked shoes (a lab's test mode) deal known hands, so the
meter split and reseed, the Envy Bonus and the win lights are checked to the cent; a silent shoe
voids the round and refunds every wager."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader

BASE = """schema: 1
name: t
game: blackjack
seed: 5
rounds: %(rounds)d
cards: %(cards)s
players: {count: %(players)d, progressive_probability: 1.0, side_probability: 0.0, late_press_probability: 0.0}
bench:
  shoe: {stacked: "%(stacked)s", penetration: 0.01}
"""


def run(tmp: Path, cards: str, stacked: str, players: int, rounds: int = 3):
    sc = parse_scenario(BASE % {"cards": cards, "stacked": stacked, "players": players, "rounds": rounds}, "t.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    return result, events


def of(events, kind, device=None):
    return [e.payload for e in events if e.kind == kind and (device is None or e.device == device)]


def test_two_players_share_the_21_3_meter_it_is_reseeded_and_the_lights_are_lit_first(tmp_path):
    result, events = run(tmp_path, "{decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', "
                                   "declared_suit: s, side: {}}", "Ks Ks Ks Ks Ks 2h", 2, rounds=1)
    hit = of(events, "meter_hit", "progressive")[0]
    # seed $2,000 (§ 633b.17(h), Paytable 1) + 17 % of the two $1 wagers (never the rig's probe presses)
    incs = of(events, "meter_increment", "progressive")
    jackpot = incs[-1]["value_cents"]
    assert hit["jackpot_cents"] == jackpot and hit["winners"] == 2
    assert hit["paid_cents"] == jackpot // 2 and hit["value_cents"] == 200_000 + jackpot % 2
    pays = of(events, "pay", "croupier")
    assert sorted(p["seat"] for p in pays) == [1, 2]
    assert all(p["returned_cents"] == jackpot // 2 and p["meter_winners"] == 2 for p in pays)
    assert all(not p["paid_from_table_inventory"] for p in pays)  # § 633b.17(f)(4)
    kinds = [(e.kind, e.payload.get("seat"), e.payload.get("on")) for e in events
             if e.kind in ("win_light", "pay")]
    assert set(kinds[:2]) == {("win_light", 1, True), ("win_light", 2, True)}  # both lit before any pay
    assert [k[0] for k in kinds[2:4]] == ["pay", "pay"]
    verdicts = {c["id"]: c["verdict"] for c in result["checks"]}
    assert verdicts["BJ-633b.17f2-win-light"] == verdicts["BJ-meter-accounting"] == "pass"
    assert verdicts["BJ-side-settlement"] == "pass"


def test_crown_treasures_share_the_meter_and_every_other_royal_match_wager_gets_envy(tmp_path):
    result, events = run(tmp_path, "{decks: 6, progressive: royal-match, progressive_paytable: A, side: {}}",
                         "Kh Kd 2c Ks Qh Qd 3c Qs", 3, rounds=1)
    pays = {p["seat"]: p for p in of(events, "pay", "croupier")}
    assert pays[1]["hand"] == pays[2]["hand"] == "Crown Treasure"
    assert pays[1]["envy_bonus_cents"] == pays[2]["envy_bonus_cents"] == 500 * 100  # one other Crown Treasure
    assert pays[3]["envy_bonus_cents"] == 2 * 500 * 100 and pays[3]["returned_cents"] == 11 * 100  # 10 to 1
    assert {c["id"]: c["verdict"] for c in result["checks"]}["BJ-side-settlement"] == "pass"


def test_a_silent_card_reader_voids_the_round_and_refunds(tmp_path, monkeypatch):
    from devices.card_shoe import CardShoeSim

    real = CardShoeSim.deal

    def deal(self, position):
        ev = real(self, position)
        return self.env.event() if position == "dealer-hole" else ev  # the hole card is never read

    monkeypatch.setattr(CardShoeSim, "deal", deal)
    sc = parse_scenario("schema: 1\nname: t\ngame: blackjack\nseed: 5\nrounds: 2\n"
                        "croupier: {bonus_timeout_s: 5.0}\n", "t.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None and result["stats"]["void_rounds"] == 2
    with TraceReader(tmp_path / result["trace"]) as r:
        events = list(r.events())
    wagers = {e.payload["wager_id"] for e in events if e.kind == "wager"}
    assert wagers and wagers == {e.payload["wager_id"] for e in events if e.kind == "refund"}
    assert all(e.payload["void"] for e in events if e.kind == "round_end")


@pytest.mark.parametrize("text, where", [
    ("cards: {decks: 3, progressive: twenty-one-plus-three, progressive_paytable: '4'}", "4 to 8 decks"),
    ("cards: {progressive_paytable: '12'}", "cards"),
    ("table: {wheel: single-zero}", "table"),
    ("faults: {ball_wheel: {tilt: 0.2}}", "not device roles of blackjack"),
])
def test_bad_blackjack_scenarios_are_refused(text, where):
    from hil.config import ConfigError

    with pytest.raises(ConfigError, match=where):
        parse_scenario(f"schema: 1\nname: t\ngame: blackjack\nseed: 1\nrounds: 1\n{text}\n", "t.yaml")


def test_a_linked_meter_grows_by_the_other_tables_and_the_check_allows_growth_only(tmp_path):
    text = ("schema: 1\nname: t\ngame: blackjack\nseed: 9\nrounds: 20\n"
            "cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '4', linked_tables: 3}\n")
    result = run_scenario(parse_scenario(text, "t.yaml"), load_bench(), load_rules(), tmp_path / "a")
    meter = next(c for c in result["checks"] if c["id"] == "BJ-meter-accounting")
    growth = next(m["value"] for m in meter["measurements"] if m["name"] == "linked_tables_growth_cents")
    assert meter["verdict"] == "pass" and growth > 0  # the other two tables' wagers
    lost = run_scenario(parse_scenario(text.replace("rounds: 20", "rounds: 40") +
                                       "faults: {progressive: {power_loss_at_s: 400.0}}\n", "t.yaml"),
                        load_bench(), load_rules(), tmp_path / "b")
    assert {c["id"]: c["verdict"] for c in lost["checks"]}["BJ-meter-accounting"] == "fail"


def test_an_unseeded_21_3_meter_restarts_at_its_reserve(tmp_path):
    """§ 633b.17(h), paytable 7: Seed/Reseed "N/A", 16 %, reserve 4 %. The meter starts at 0 and,
    once paid, restarts at the whole reserve (its fraction of a cent too); the meter check
    derives all of it from the regulation's row and agrees with the system's payouts."""
    result, events = run(tmp_path, "{decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', "
                                   "declared_suit: s, progressive_stake_cents: 125, side: {}}", "Ks Ks Ks 2h", 1,
                         rounds=2)
    hits = of(events, "meter_hit", "progressive")
    assert len(hits) == 2
    # round 1: 0 + 16 % of $1.25 = 20 cents; the reserve 4 % = 5 cents restarts the meter
    assert (hits[0]["jackpot_cents"], hits[0]["reseed_cents"], hits[0]["value_cents"], hits[0]["reserve_cents"]) == (
        20, 5, 5, 0)
    assert (hits[1]["jackpot_cents"], hits[1]["reseed_cents"], hits[1]["value_cents"]) == (25, 5, 5)
    verdicts = {c["id"]: c["verdict"] for c in result["checks"]}
    assert verdicts["BJ-meter-accounting"] == "pass" and verdicts["BJ-side-settlement"] == "pass"


def _table(tmp_path, text: str, name: str, state: dict | None = None, seed: int = 1):
    """A Blackjack table on the simulated bench, outside the runner: (trace path, controller)."""
    import numpy as np
    import simpy

    from hil.bench import GAME_ROLES, build_devices
    from hil.blackjack import BlackjackController
    from hil.trace import TraceWriter

    sc = parse_scenario(text, "t.yaml").scenario
    env = simpy.Environment()
    path = tmp_path / f"{name}.sqlite"
    writer = TraceWriter(path, {"game": "blackjack", "scenario": sc.name})
    writer.clock = env
    built = build_devices(env, load_bench(), sc.device_overrides(), load_rules().submission,
                          np.random.SeedSequence(seed), writer.record, roles=GAME_ROLES["blackjack"])
    ctl = BlackjackController(env, built.devices, writer, sc, np.random.default_rng(seed))
    writer.record("croupier", "table", ctl.describe())
    if state is not None:
        ctl.restore(state)
    env.run(until=ctl.run(sc.rounds))
    writer.close()
    return path, ctl


def test_the_table_state_restores_the_meters_exactly_and_numbers_the_next_shoe(tmp_path):
    """state() after N rounds (JSON, as committed with the round's trace); a new controller on a
    new simulated bench restored from it goes on with the same meters, fractions of a cent and
    reserves included, and its first shoe is numbered after the last one."""
    import json
    from fractions import Fraction

    text = ("schema: 1\nname: t\ngame: blackjack\nseed: 4\nrounds: %d\n"
            "cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', progressive_stake_cents: 130}\n"
            "players: {count: 5, progressive_probability: 0.8}\n")
    _first, ctl = _table(tmp_path, text % 6, "first")
    state = json.loads(json.dumps(ctl.state()))
    [m] = state["meters"]
    exact = ctl.wagering.controller.exact("progressive")
    assert m["value_cents"] + Fraction(m["residue"]) == exact and Fraction(m["residue"]) != 0  # 16 % of $1.30: 20.8
    assert m["reserve_cents"] + Fraction(m["reserve_residue"]) == ctl.wagering.controller.reserve("progressive")
    assert state["shoe_id"] == ctl.dev.shoe.shoe_id >= 1
    second, ctl2 = _table(tmp_path, text % 4, "second", state, seed=2)
    with TraceReader(second) as r:
        ev = list(r.events())
    incs = [e.payload for e in ev if e.kind == "meter_increment"]
    stakes = {e.payload["press_id"]: e.payload["stake_cents"] for e in ev if e.kind == "press"}
    assert incs and not [e for e in ev if e.kind == "meter_hit"]
    grown = sum(Fraction(16, 100) * stakes[i["press_id"]] for i in incs)
    assert ctl2.wagering.controller.exact("progressive") == exact + grown  # the residue carried on
    assert incs[0]["value_cents"] == int(exact + Fraction(16, 100) * stakes[incs[0]["press_id"]])
    shuffled = [e.payload["shoe_id"] for e in ev if e.kind == "shoe_shuffled"]
    assert shuffled[0] == state["shoe_id"] + 1
    with pytest.raises(ValueError, match="schema"):
        ctl2.restore({"schema": 99})


@pytest.mark.parametrize("tamper, verdict", [(None, "pass"), ("residue", "fail")])
def test_the_meter_check_follows_a_resumed_table_and_catches_meters_restored_wrong(tmp_path, tamper, verdict):
    """A restart (the runner's ``resumed`` record with the committed state) in the trace: the meter
    check compares the restored meters with the ones the trace left — to the fraction of a cent —
    and goes on from them."""
    import json

    import numpy as np
    import simpy

    from hil.bench import GAME_ROLES, build_devices
    from hil.blackjack import BlackjackController
    from hil.checks import CheckConfig, run_checks
    from hil.trace import TraceWriter

    text = ("schema: 1\nname: t\ngame: blackjack\nseed: 4\nrounds: 4\n"
            "cards: {decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '7', progressive_stake_cents: 130}\n"
            "players: {count: 5, progressive_probability: 0.8}\n")
    sc = parse_scenario(text, "t.yaml").scenario
    path = tmp_path / "resumed.sqlite"
    writer = TraceWriter(path, {"game": "blackjack", "scenario": sc.name})
    state = None
    for part, (first, last) in enumerate([(1, 2), (3, 4)]):
        env = simpy.Environment()
        writer.clock = env
        built = build_devices(env, load_bench(), sc.device_overrides(), load_rules().submission,
                              np.random.SeedSequence([4, part]), writer.record, roles=GAME_ROLES["blackjack"])
        ctl = BlackjackController(env, built.devices, writer, sc, np.random.default_rng(part))
        if state is None:
            writer.record("croupier", "table", ctl.describe())
        else:
            writer.round = first
            if tamper == "residue":
                state["meters"][0]["residue"] = "0"  # the fraction of a cent lost in the restart
            writer.record("croupier", "resumed", {"from_round": first - 1, "next_round": first, "state": state})
            ctl.restore(state)
        env.run(until=ctl.run(last, first))
        state = json.loads(json.dumps(ctl.state()))
    writer.close()
    assert state["meters"][0]["residue"] != "0"
    meter = next(c for c in run_checks(path, CheckConfig()) if c.id == "BJ-meter-accounting")
    assert meter.verdict == verdict
    if verdict == "fail":
        assert any("restored at" in f.message for f in meter.findings)


def run_with(tmp: Path, cards: str, stacked: str, players: int, faults: str = "", rounds: int = 2):
    text = BASE % {"cards": cards, "stacked": stacked, "players": players, "rounds": rounds}
    sc = parse_scenario(text + (f"faults: {{croupier: {{{faults}}}}}\n" if faults else ""), "t.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp)
    assert result["error"] is None, result["error"]
    with TraceReader(tmp / result["trace"]) as r:
        events = [e for e in r.events() if e.round >= 1]
    return {c["id"]: c for c in result["checks"]}, events


# seats 1–4 dealt 2h 5d 8c 9s, the dealer's up card 3h, then 6d 9c Ts 4h and the hole card 7d: no hand
# waits for the hole card, so every optional wager is settled in the one counterclockwise pass
NO_WAIT = "2h 5d 8c 9s 3h 6d 9c Ts 4h 7d"
ROYAL_MATCH = "{decks: 6, progressive: royal-match, progressive_paytable: A, side: {}}"


@pytest.mark.parametrize("faults, order, verdict", [("", [4, 3, 2, 1], "pass"),
                                                    ("settle_clockwise: true", [1, 2, 3, 4], "fail")])
def test_optional_wagers_are_settled_counterclockwise_from_the_dealers_right(tmp_path, faults, order, verdict):
    """§ 633b.18(g): seat 1 is dealt first (the player farthest to the dealer's left), so the
    settlement starts at the highest seat and goes down; a dealer going clockwise fails."""
    checks, events = run_with(tmp_path, ROYAL_MATCH, NO_WAIT, 4, faults, rounds=1)
    settled = [e.payload["seat"] for e in events if e.device == "croupier" and e.kind in ("pay", "collect")]
    assert settled == order
    reads = [e.seq for e in events if e.kind == "card_read"]
    first = min(e.seq for e in events if e.device == "croupier" and e.kind in ("pay", "collect"))
    assert len(reads) == 10 and max(reads) < first  # after each position's second card, before any other
    c = checks["BJ-633b.18g-counterclockwise"]
    assert c["verdict"] == verdict
    if verdict == "fail":
        assert len(c["findings"]) == 3 and "counterclockwise" in c["findings"][0]["message"]
    assert {k: v["verdict"] for k, v in checks.items() if v["verdict"] == "fail"} == \
        ({} if verdict == "pass" else {"BJ-633b.18g-counterclockwise": "fail"})


def test_the_settlement_order_is_judged_only_at_a_royal_match_table(tmp_path):
    checks, _ = run_with(tmp_path, "{decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', "
                         "side: {}}", NO_WAIT, 4, "settle_clockwise: true", rounds=1)
    assert checks["BJ-633b.18g-counterclockwise"]["verdict"] == "indeterminate"


@pytest.mark.parametrize("faults, verdict", [("", "pass"), ("jackpot_from_table_inventory: true", "fail")])
def test_a_share_of_the_jackpot_is_not_paid_from_the_table_inventory(tmp_path, faults, verdict):
    """§ 633b.17(f)(4): both winners' shares of the 21+3 meter are paid by the progressive system;
    the faulty dealer pays them out of the table inventory container."""
    checks, events = run_with(tmp_path, "{decks: 6, progressive: twenty-one-plus-three, progressive_paytable: '1', "
                              "declared_suit: s, side: {}}", "Ks Ks Ks Ks Ks 2h", 2, faults, rounds=1)
    pays = [e.payload for e in events if e.device == "croupier" and e.kind == "pay"]
    assert [p["meter"] for p in pays] == ["progressive"] * 2
    assert all(p["paid_from_table_inventory"] is (verdict == "fail") for p in pays)
    c = checks["BJ-633b.17f4-table-inventory"]
    assert c["verdict"] == verdict
    assert [v for v in checks.values() if v["verdict"] == "fail"] == ([] if verdict == "pass" else [c])
    if verdict == "fail":
        assert "may not be" in c["findings"][0]["message"]


def _bench(table: dict):
    from hil.checks.base import BenchView
    from hil.trace import Event

    return BenchView.of([Event(1, 0, 0.0, 0, "croupier", "table", table)])


@pytest.mark.parametrize("side, progressive, message", [
    ({"kings-bounty": "B"}, ("royal-match", "A"), None),
    ({"kings-bounty": "A"}, ("blazing-sevens-multi", "B"), None),  # A: § 633a.13(h)'s, lawful (not supplied)
    ({"kings-bounty": "C"}, None, "§ 633b.19(a) lets the certificate holder select A, B"),
    ({"kings-bounty": ""}, None, "without naming its paytable"),
    ({}, ("twenty-one-plus-three", "12"), "§ 633b.17(g)"),
    ({"blazing-sevens": "B"}, None, "§ 633b.20(e)"),
])
def test_the_table_s_paytables_must_be_ones_their_sections_let_it_select(side, progressive, message):
    """§ 633b.19(a)–(b) (and each section's paytable clause): judged on round 0's table record."""
    from hil.checks import CheckConfig
    from hil.checks.cards import SideSettlement

    table = {"side": side, "progressive": progressive and progressive[0],
             "progressive_paytable": progressive and progressive[1]}
    check = SideSettlement(CheckConfig())
    check.setup(_bench(table))
    found = [f.message for f in check._findings]
    assert (found == []) if message is None else (len(found) == 1 and message in found[0])


def test_a_progressive_wager_the_seat_s_device_did_not_accept_fails_633b17c1(tmp_path):
    """§ 633b.17(c)(1): a dealer who takes progressive wagers for chips alone — here while the link is
    lost and the system refuses every press — fails the chips check on those wagers themselves."""
    text = ("schema: 1\nname: t\ngame: blackjack\nseed: 612\nrounds: 40\n"
            "faults:\n  progressive: {link_loss_at_s: 600.0, link_loss_duration_s: 600.0}\n"
            "  croupier: {progressive_chips_mismatch: true}\n")
    result = run_scenario(parse_scenario(text, "t.yaml"), load_bench(), load_rules(), tmp_path)
    c = next(c for c in result["checks"] if c["id"] == "BJ-633b.17e-chips-accepted")
    assert c["verdict"] == "fail"
    assert any("taken without a press the wagering device at seat" in f["message"] for f in c["findings"])


def test_a_wager_at_a_betting_position_without_a_wagering_device_fails_633b17c1():
    """§ 633b.17(c)(1): "a wagering device at each betting position" — a player wagering at a
    position past the ones the progressive system declares a device at is a finding."""
    from hil.checks import CheckConfig
    from hil.checks.base import BenchView, RoundView
    from hil.checks.cards import ChipsEqualAccepted
    from hil.trace import Event

    table = {"progressive": "twenty-one-plus-three", "progressive_spot": "21+3-progressive", "side": {}}
    bench = BenchView.of([Event(1, 0, 0.0, 0, "progressive", "device_info", {"seats": 5, "meters": []}),
                          Event(2, 0, 0.0, 0, "croupier", "table", table)])
    check = ChipsEqualAccepted(CheckConfig())
    check.setup(bench)
    side = {"seat": 6, "wager": "kings-bounty", "stake_cents": 500, "reason": "placed after no more bets"}
    check.observe(RoundView.of(1, [Event(3, 1, 1.0, 0, "croupier", "no_more_bets", {}),
                                   Event(4, 1, 2.0, 0, "croupier", "wager_rejected", side),
                                   Event(5, 1, 3.0, 0, "croupier", "round_end", {"round": 1, "void": False})]))
    assert [f.message for f in check._findings] == [
        "a player wagers at betting position 6; the progressive system has a wagering device at positions 1 to 5 only"]
