"""The poker tables' croupiers (hil/poker_tables.py) and checks (hil/checks/poker.py): stacked
shoes deal known hands that settle as the paytables say; Crazy 4 refusals are recorded with their
subsection and replay through rules.crazy4; a silent shoe voids the round and refunds every wager;
the scenario schema refuses what a poker table cannot be."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import simpy

from devices.card_shoe import CardShoeParams, CardShoeSim
from hil.bench import Devices, load_bench
from hil.checks import CheckConfig, run_checks
from hil.checks.adversary import ADVERSARY_CHECKS
from hil.checks.base import RoundView
from hil.checks.poker import replay_crazy4
from hil.config import ConfigError
from hil.poker_tables import Crazy4Controller, UthController
from hil.runner import load_rules, simulate
from hil.scenario import parse_scenario
from hil.trace import Event, TraceReader, TraceWriter
from rules.crazy4 import Crazy4Offer, Crazy4Wager, Instrument, WagerRequest

HEAD = "schema: 1\nname: t\nseed: 7\n"


def _scenario(body: str):
    return parse_scenario(HEAD + body, "test.yaml")


EVIDENCE = "EVIDENCE-link"
#: the late-bet adversary's checks (hil.checks.adversary): indeterminate in a scenario without one
LATE_BETS = frozenset(c.id for checks in ADVERSARY_CHECKS.values() for c in checks)


def _run(tmp_path: Path, body: str) -> tuple[list[Event], dict, dict[str, str]]:
    """Simulate the scenario; (its events, the croupier's stats, verdict per check)."""
    loaded = _scenario(body)
    trace = tmp_path / "t.sqlite"
    stats, _ = simulate(loaded, load_bench(), load_rules(), trace, loaded.scenario.seed)
    with TraceReader(trace) as r:
        events = list(r.events())
    # the table's own checks (EVIDENCE-link, the run's evidence of every table, is judged on its own:
    # void rounds a broken shoe forces fail it, as they should)
    verdicts = {c.id: c.verdict for c in run_checks(trace, CheckConfig()) if c.id != EVIDENCE and c.id not in LATE_BETS}
    return events, stats, verdicts


def _kinds(events: list[Event], *kinds: str) -> list[Event]:
    return [e for e in events if e.device == "croupier" and e.kind in kinds]


def _settled(events: list[Event]) -> dict[tuple[int, str], list[int]]:
    """(seat, wager) -> the cents returned in each round (0: collected)."""
    out: dict[tuple[int, str], list[int]] = {}
    for e in _kinds(events, "pay", "collect"):
        got = e.payload["returned_cents"] if e.kind == "pay" else 0
        out.setdefault((e.payload["seat"], e.payload["wager"]), []).append(got)
    return out


UTH = """game: uth
rounds: 3
poker: {side: {trips: E, bad-beat: C, play-the-board: A, ultimate-pairs: F}, side_stake_cents: [1000, 1000]
        READING}
players: {count: COUNT, side_probability: 1.0}
bench: {shoe: {stacked: 'STACK'}}
"""


def _uth(stack: str, count: int, reading: str = "") -> str:
    return (UTH.replace("STACK", stack).replace("COUNT", str(count))
            .replace("READING", f", bad_beat_reading: {reading}" if reading else ""))


# ------------------------------------------------------------------------------ UTH


def test_uth_four_nines_lose_to_a_royal_flush_a_bad_beat_of_500_to_1(tmp_path):
    # seat 1: 9h 9s; seat 2: Ad Kd; dealer: Jh Th; board: 9d 9c Qh Kh Ah (deal order: seats, dealer, seats, dealer)
    events, stats, verdicts = _run(tmp_path, _uth("9h Ad Jh 9s Kd Th 9d 9c Qh Kh Ah", 2))
    s = _settled(events)
    assert s[(1, "bad-beat")] == [1000 + 500 * 1000] * 3  # § 653b.3(b): Four-of-a-kind 500 to 1
    assert s[(1, "trips")] == [1000 + 30 * 1000] * 3  # § 653b.2(b): Four-of-a-kind 30 to 1
    assert s[(1, "ultimate-pairs")] == [1000 + 3 * 1000] * 3  # F: Pair—10s or less 3 to 1
    assert s[(2, "ultimate-pairs")] == [1000 + 25 * 1000] * 3  # F: Ace/king (suited) 25 to 1
    assert s[(2, "bad-beat")] == [0] * 3  # two pair: no row
    assert s[(1, "play-the-board")] == [0] * 3  # the board's pair of nines is below tens (§ 653b.4(e))
    end = _kinds(events, "round_end")[0].payload
    assert end["dealer"] == ["Jh", "Th"] and end["board"] == ["9d", "9c", "Qh", "Kh", "Ah"]
    assert stats["shuffles"] == stats["rounds"] == 3  # one deck, shuffled before every round
    assert set(verdicts.values()) == {"pass"}


def test_uth_player_and_dealer_aces_pay_1000_to_1_on_paytable_f_and_the_board_straight_flush(tmp_path):
    events, _, verdicts = _run(tmp_path, _uth("Ah Kc As Ad Kh Ac 8d 9d Td Jd Qd", 2))
    s = _settled(events)
    assert s[(1, "ultimate-pairs")] == [1000 + 1000 * 1000] * 3  # Ace/ace and dealer ace/ace
    assert s[(2, "ultimate-pairs")] == [1000 + 10 * 1000] * 3  # King/king, … on F: 10 to 1
    assert s[(1, "play-the-board")] == [1000 + 200 * 1000] * 3  # straight flush on the board
    assert s[(1, "trips")] == s[(2, "trips")] == [1000 + 40 * 1000] * 3
    assert s[(1, "bad-beat")] == [0] * 3  # every hand plays the board: a tie loses
    assert set(verdicts.values()) == {"pass"}


@pytest.mark.parametrize("reading, returned", [("losing-hand", 1000 + 500 * 1000), ("player-loses", 0)])
def test_uth_dealer_quads_losing_to_the_players_straight_flush_pays_only_the_two_way_bad_beat(
        tmp_path, reading, returned):
    # seat 1: 5h 6h; dealer: 9s 9c; board 7h 8h 9h 9d 2c: the player's straight flush beats the dealer's quads
    events, _, verdicts = _run(tmp_path, _uth("5h 9s 6h 9c 7h 8h 9h 9d 2c", 1, reading))
    s = _settled(events)
    assert s[(1, "bad-beat")] == [returned] * 3
    assert s[(1, "trips")] == [1000 + 40 * 1000] * 3
    assert set(verdicts.values()) == {"pass"}


def test_uth_payout_error_fails_the_check_of_the_wager_paid(tmp_path):
    body = _uth("9h Ad Jh 9s Kd Th 9d 9c Qh Kh Ah", 2) + "faults: {croupier: {payout_error_cents: 1}}\n"
    _, _, verdicts = _run(tmp_path, body)
    # every wager with a winner fails; Play the Board never wins on this board
    assert verdicts == {"UTH-653b.2-trips": "fail", "UTH-653b.3-bad-beat": "fail",
                        "UTH-653b.4e-play-the-board": "pass", "UTH-653b.5e-ultimate-pairs": "fail",
                        "UTH-653b.4d-before-cards-removed": "pass"}


class SilentShoe:
    """A shoe that shuffles but whose reader never reports a dealt card."""

    def __init__(self, shoe: CardShoeSim) -> None:
        self.shoe = shoe

    def shuffle(self):
        return self.shoe.shuffle()

    def deal(self, position: str):
        return self.shoe.env.event()  # never triggered


def test_a_silent_shoe_voids_the_round_and_refunds_every_wager(tmp_path):
    sc = _scenario("game: uth\nrounds: 2\nplayers: {count: 3, side_probability: 1.0}\n"
                   "croupier: {bonus_timeout_s: 50.0}\n").scenario  # the timeout > the 45 s shuffle
    env = simpy.Environment()
    with TraceWriter(tmp_path / "t.sqlite", {"game": "uth"}) as w:
        w.clock = env
        shoe = CardShoeSim(env, CardShoeParams(decks=1), np.random.default_rng(1), w.record)
        ctl = UthController(env, Devices(None, None, None, shoe=SilentShoe(shoe)), w, sc, np.random.default_rng(2))
        w.record("croupier", "table", ctl.describe())
        env.run(until=ctl.run(2))
    with TraceReader(tmp_path / "t.sqlite") as r:
        events = list(r.events())
    wagers = {e.payload["wager_id"] for e in _kinds(events, "wager")}
    refunds = {e.payload["wager_id"] for e in _kinds(events, "refund")}
    ends = [e.payload for e in _kinds(events, "round_end")]
    assert len(wagers) == 2 * 3 * 4 and refunds == wagers
    assert not _kinds(events, "pay", "collect")
    assert [(e["void"], e["reason"]) for e in ends] == [(True, "card_reader")] * 2
    assert ctl.stats["void_rounds"] == 2
    results = {c.id: c for c in run_checks(tmp_path / "t.sqlite", CheckConfig()) if c.id != EVIDENCE
               and c.id not in LATE_BETS}
    assert {c.verdict for c in results.values()} == {"indeterminate"}  # nothing settled, nothing wrong
    refunded = {c.id: next(m.value for m in c.measurements if m.name == "wagers_refunded_void") for c in results.values()
                if c.id != "UTH-653b.4d-before-cards-removed"}
    assert sum(refunded.values()) == len(wagers)


def test_a_misreading_shoe_voids_rounds_whose_cards_one_deck_cannot_make(tmp_path):
    body = "game: uth\nrounds: 40\nplayers: {count: 6, side_probability: 0.5}\nfaults: {shoe: {misread_probability: 0.3}}\n"
    events, stats, verdicts = _run(tmp_path, body)
    reasons = [e.payload.get("reason") for e in _kinds(events, "round_end") if e.payload["void"]]
    assert reasons and set(reasons) == {"card_read_twice"}
    # the other rounds are settled on the cards as read: the checks (reading the same cards) agree
    assert "fail" not in verdicts.values()
    assert stats["void_rounds"] == len(reasons)


# ------------------------------------------------------------------------------ Criss-Cross


@pytest.mark.parametrize("paytable, red_aces", [("C", 1000 + 100 * 1000), ("A", 1000 + 30 * 1000)])
def test_criss_cross_red_aces_by_the_tables_paytable(tmp_path, paytable, red_aces):
    body = (f"game: criss-cross\nrounds: 3\npoker: {{side: {{ultimate-pairs: {paytable}}}, side_stake_cents: [1000, 1000]}}\n"
            "players: {count: 2, side_probability: 1.0}\nbench: {shoe: {stacked: 'Ah As Ad Ks'}}\n")
    events, _, verdicts = _run(tmp_path, body)
    s = _settled(events)
    assert s[(1, "ultimate-pairs")] == [red_aces] * 3
    assert s[(2, "ultimate-pairs")] == [1000 + (25 if paytable == "A" else 20) * 1000] * 3  # Ace/king (suited)
    dealt = {e.payload["position"] for e in events if e.kind == "card_read"}
    assert dealt == {"seat-1", "seat-2"}  # only what the wager reads is dealt
    assert verdicts == {"CC-674b.1e-ultimate-pairs": "pass", "CC-674b.1d-before-cards-removed": "pass"}


def test_criss_cross_wrong_paytable_fails_its_check(tmp_path):
    body = ("game: criss-cross\nrounds: 3\npoker: {side: {ultimate-pairs: A}}\n"
            "players: {count: 2, side_probability: 1.0}\nbench: {shoe: {stacked: 'Ah As Ad Ks'}}\n"
            "faults: {croupier: {ultimate_pairs_paytable: B}}\n")
    _, _, verdicts = _run(tmp_path, body)
    # suited A/K: 25 to 1 on A, 20 on B; settled at its place all the same
    assert verdicts == {"CC-674b.1e-ultimate-pairs": "fail", "CC-674b.1d-before-cards-removed": "pass"}


# ------------------------------------------------------------------------------ Crazy 4


def _crazy4(tmp_path: Path, faults: str = ""):
    sc = _scenario("game: crazy-4\nrounds: 1\nplayers: {count: 2}\n"
                   "poker: {four_card_progressive: true, five_card_progressive: false}\n" + faults).scenario
    env = simpy.Environment()
    w = TraceWriter(tmp_path / "c4.sqlite", {"game": "crazy-4"})
    w.clock = env
    ctl = Crazy4Controller(env, Devices(None, None, None), w, sc, np.random.default_rng(3))
    w.record("croupier", "table", ctl.describe())
    w.round = 1
    return ctl, w


def _decided(w: TraceWriter, tmp_path: Path) -> list[Event]:
    w.close()
    with TraceReader(tmp_path / "c4.sqlite") as r:
        return [e for e in r.events() if e.round == 1]


def test_crazy4_croupier_records_each_refusal_with_its_subsection(tmp_path):
    ctl, w = _crazy4(tmp_path)
    A, SB, QU, PLAY = Crazy4Wager.ANTE, Crazy4Wager.SUPER_BONUS, Crazy4Wager.QUEENS_UP, Crazy4Wager.PLAY
    for req in [WagerRequest("P1", 1, QU, 500),  # before the Ante and Super Bonus: (d)(2)
                WagerRequest("P1", 1, A, 500), WagerRequest("P1", 1, SB, 700),
                WagerRequest("P1", 1, Crazy4Wager.FOUR_CARD_PROGRESSIVE, 100),  # unequal: (d)(3)
                WagerRequest("P1", 1, A, 500, Instrument.VERBAL_WITH_CASH),  # (a)
                WagerRequest("B", 3, A, 500, seated=False),  # (b)
                WagerRequest("P2", 2, A, 500), WagerRequest("P2", 2, SB, 500),
                WagerRequest("P2", 3, A, 500),  # a second position: (e)
                WagerRequest("P2", 2, PLAY, 500)]:  # before "no more bets": (d)(1)
        ctl._decide(req)
    ctl._no_more_bets()  # P1's unequal Ante and Super Bonus: the position is refused (d)(1)
    ctl._decide(WagerRequest("P2", 2, QU, 500))  # after "no more bets": (c)
    ctl._decide(WagerRequest("P2", 2, PLAY, 1500))
    events = _decided(w, tmp_path)
    refused = [(e.payload["player"], e.payload["wager"], e.payload["citation"]) for e in events
               if e.kind == "wager_refused"]
    assert refused == [("P1", "Queens Up Wager", "§ 657a.7(d)(2); § 657a.7(d)(1)"),
                       ("P1", "Four-Card Progressive Payout Wager", "§ 657a.7(d)(3); § 657a.7(d)(1)"),
                       ("P1", "Ante Wager", "§ 657a.7(a)"),
                       ("B", "Ante Wager", "§ 657a.7(b)"),
                       ("P2", "Ante Wager", "§ 657a.7(e)"),
                       ("P2", "Play Wager", "§ 657a.7(d)(1)"),
                       ("P2", "Queens Up Wager", "§ 657a.7(c)")]
    positions = [(e.kind, e.payload["position"], e.payload["citation"]) for e in events if e.kind.startswith("position_")]
    assert positions == [("position_refused", 1, "§ 657a.7(d)(1)"), ("position_accepted", 2, "§ 657a.7(d)(1)")]
    plays = [e for e in events if e.kind == "wager_accepted" and e.payload["wager"] == "Play Wager"]
    assert len(plays) == 1 and plays[0].payload["amount_cents"] == 1500
    # the replay through rules.crazy4 agrees with every decision
    replay = replay_crazy4(RoundView.of(1, events), Crazy4Offer(four_card_progressive=True))
    assert not replay.findings and replay.requests == 12
    assert dict(replay.refusals) == {"ab": 2, "c": 1, "d": 4, "e": 1}


@pytest.mark.parametrize("fault, request_, group", [
    ("crazy4_accept_after_no_more_bets", WagerRequest("P1", 1, Crazy4Wager.QUEENS_UP, 500), "c"),
    ("crazy4_accept_second_position", WagerRequest("P1", 2, Crazy4Wager.ANTE, 500), "e"),
    ("crazy4_accept_cash_and_unseated", WagerRequest("P9", 2, Crazy4Wager.ANTE, 500, seated=False), "ab"),
])
def test_crazy4_faulty_croupier_is_caught_by_the_subsections_check_only(tmp_path, fault, request_, group):
    ctl, w = _crazy4(tmp_path, f"faults: {{croupier: {{{fault}: true}}}}\n")
    ctl._decide(WagerRequest("P1", 1, Crazy4Wager.ANTE, 500))
    ctl._decide(WagerRequest("P1", 1, Crazy4Wager.SUPER_BONUS, 500))
    if group == "c":
        ctl._no_more_bets()
    ctl._decide(request_)
    events = _decided(w, tmp_path)
    assert events[-1].kind == "wager_accepted"  # the faulty croupier took it
    replay = replay_crazy4(RoundView.of(1, events), Crazy4Offer(four_card_progressive=True))
    assert [g for g, _, _ in replay.findings] == [group]


def test_crazy4_unequal_super_bonus_fault_keeps_the_position_and_its_wagers(tmp_path):
    ctl, w = _crazy4(tmp_path, "faults: {croupier: {crazy4_accept_unequal_super_bonus: true}}\n")
    for req in [WagerRequest("P1", 1, Crazy4Wager.ANTE, 500), WagerRequest("P1", 1, Crazy4Wager.SUPER_BONUS, 900),
                WagerRequest("P1", 1, Crazy4Wager.QUEENS_UP, 500)]:
        ctl._decide(req)
    ctl._no_more_bets()
    ctl._decide(WagerRequest("P1", 1, Crazy4Wager.PLAY, 500))
    events = _decided(w, tmp_path)
    assert [e.kind for e in events] == ["wager_accepted"] * 3 + ["no_more_bets", "position_accepted", "wager_accepted"]
    assert events[1].payload["amount_cents"] == 900  # recorded as placed, not as the dealer saw it
    replay = replay_crazy4(RoundView.of(1, events), Crazy4Offer(four_card_progressive=True))
    # Queens Up, the position at "no more bets", the Play Wager: one finding each, all § 657a.7(d)
    assert [g for g, _, _ in replay.findings] == ["d", "d", "d"]


def test_crazy4_every_refusal_in_a_run_cites_a_subsection_of_657a7(tmp_path):
    body = ("game: crazy-4\nrounds: 20\nplayers: {count: 6, misplay_probability: 1.0}\n"
            "poker: {five_card_progressive: false}\n")
    events, stats, verdicts = _run(tmp_path, body)
    refused = _kinds(events, "wager_refused", "position_refused")
    cited = {m for e in refused for m in re.findall(r"657a\.7\(([a-e])\)", e.payload["citation"])}
    assert cited == {"a", "b", "c", "d", "e"}
    assert stats["refused"] == len(_kinds(events, "wager_refused"))
    assert set(verdicts.values()) == {"pass"}
    assert not [e for e in events if e.device != "croupier"]  # no device at a Crazy 4 table


# ------------------------------------------------------------------------------ the schema


@pytest.mark.parametrize("body, message", [
    ("game: uth\nrounds: 1\nbench: {shoe: {decks: 2}}\n", "one 52-card deck"),
    ("game: uth\nrounds: 1\nlockout: {probe: {presses: 8}}\n", "no wagering device"),
    ("game: uth\nrounds: 1\npoker: {side: {trips: A}}\n", "no poker.side: trips paytable 'A'"),
    ("game: criss-cross\nrounds: 1\npoker: {side: {trips: E}}\n", "not a side wager of criss-cross"),
    ("game: criss-cross\nrounds: 1\npoker: {side: {ultimate-pairs: F}}\n", "paytable 'F'"),
    ("game: criss-cross\nrounds: 1\npoker: {bad_beat_reading: player-loses}\n", "bad_beat_reading not a field"),
    ("game: crazy-4\nrounds: 1\npoker: {side: {trips: E}}\n", "side not a field of a crazy-4 table"),
    ("game: crazy-4\nrounds: 1\nbench: {shoe: {decks: 1}}\n", "not device roles of crazy-4"),
    ("game: blackjack\nrounds: 1\npoker: {}\n", "'poker' is for game"),
    ("game: uth\nrounds: 1\nplayers: {count: 30}\n", "one deck holds 52"),
    ("game: criss-cross\nrounds: 1\nfaults: {croupier: {ultimate_pairs_paytable: F}}\n", "A–E"),
])
def test_scenario_refuses_what_a_poker_table_cannot_be(body, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        _scenario(body)


def test_scenario_poker_defaults_per_game():
    uth = _scenario("game: uth\nrounds: 1\n").scenario
    assert uth.poker.side == {"trips": "E", "bad-beat": "C", "play-the-board": "A", "ultimate-pairs": "F"}
    assert uth.poker.bad_beat_reading == "losing-hand" and uth.lockout.probe is None
    assert uth.device_overrides() == {"shoe": {"decks": 1}}
    cc = _scenario("game: criss-cross\nrounds: 1\npoker: {side: {ultimate-pairs: paytable c}}\n").scenario
    assert cc.poker.side == {"ultimate-pairs": "C"}
    assert _scenario("game: crazy-4\nrounds: 1\n").scenario.roles == ()


def test_crazy4_a_player_who_leaves_mid_round_loses_the_wagers_and_may_not_wager_again(tmp_path):
    """§ 657a.7(b): P1 leaves once the cards are out (after "no more bets"): the wagers at
    position 1 are abandoned, treated as losing, and P1's Play Wager is refused; the replay
    through rules.crazy4 agrees."""
    ctl, w = _crazy4(tmp_path)
    A, SB, PLAY = Crazy4Wager.ANTE, Crazy4Wager.SUPER_BONUS, Crazy4Wager.PLAY
    for req in [WagerRequest("P1", 1, A, 500), WagerRequest("P1", 1, SB, 500),
                WagerRequest("P2", 2, A, 700), WagerRequest("P2", 2, SB, 700)]:
        ctl._decide(req)
    ctl.layout = ctl.layout.announce_no_more_bets()[1]
    ctl._say("no_more_bets")
    for n in (1, 2):
        ctl._say("position_accepted", {"position": n, "player": f"P{n}", "reason": "", "citation": "§ 657a.7(d)(1)",
                                       "wagers": {}})
    ctl._leave(1)
    ctl._decide(WagerRequest("P1", 1, PLAY, 500))
    ctl._decide(WagerRequest("P2", 2, PLAY, 700))
    events = _decided(w, tmp_path)
    [abandoned] = [e.payload for e in events if e.kind == "wagers_abandoned"]
    assert abandoned["position"] == 1 and abandoned["treated_as"] == "losing" and abandoned["citation"] == "§ 657a.7(b)"
    assert abandoned["wagers"] == {"Ante Wager": 500, "Super Bonus Wager": 500}
    refused = [e.payload for e in events if e.kind == "wager_refused"]
    assert [(r["player"], r["wager"], r["citation"]) for r in refused] == [("P1", "Play Wager", "§ 657a.7(b)")]
    assert 1 not in ctl.layout.positions and 1 in ctl.layout.abandoned and 2 in ctl.layout.positions
    replay = replay_crazy4(RoundView.of(1, events), Crazy4Offer(four_card_progressive=True))
    assert not replay.findings and replay.refusals["left"] == 1
    assert [d.position for _e, d in replay.leaves] == [1]


# ------------------------------------------------------------------------------ settled before the cards are removed


@pytest.mark.parametrize("game, body, check", [
    ("uth", "poker: {side: {play-the-board: A, ultimate-pairs: F}}\n", "UTH-653b.4d-before-cards-removed"),
    ("criss-cross", "", "CC-674b.1d-before-cards-removed"),
])
@pytest.mark.parametrize("fault", [False, True])
def test_optional_wagers_are_settled_after_the_deal_and_before_the_cards_are_removed(tmp_path, game, body, check, fault):
    """§ 653b.4(d), § 653b.5(d), § 674b.1(d): the croupier settles, then removes the cards
    (``cards_removed``); one who clears the layout first fails that check and no other."""
    text = (f"game: {game}\nrounds: 6\n{body}players: {{count: 4, side_probability: 1.0}}\n"
            + ("faults: {croupier: {remove_cards_before_settling: true}}\n" if fault else ""))
    events, _, verdicts = _run(tmp_path, text)
    for n in {e.round for e in _kinds(events, "round_end")}:
        rnd = [e for e in events if e.round == n]
        settles = [e.seq for e in rnd if e.device == "croupier" and e.kind in ("pay", "collect")]
        removed = [e.seq for e in rnd if e.device == "croupier" and e.kind == "cards_removed"]
        reads = [e.seq for e in rnd if e.kind == "card_read"]
        assert len(removed) == 1 and max(reads) < min(settles)
        assert (removed[0] < min(settles)) if fault else (removed[0] > max(settles))
    assert verdicts[check] == ("fail" if fault else "pass")
    assert [c for c, v in verdicts.items() if v == "fail"] == ([check] if fault else [])


def test_a_poker_side_wager_check_judges_the_table_s_paytable_against_its_section():
    """§ 653b.2(a)–(b), § 653b.3(a)–(b): the alternate paytable the table selected must be the
    section's (round 0's table record); (f) likewise for the others."""
    from hil.checks.base import BenchView
    from hil.checks.poker import CrissCrossUltimatePairs, UthBadBeat, UthTrips, UthUltimatePairs

    def found(cls, side):
        check = cls(CheckConfig())
        check.setup(BenchView.of([Event(1, 0, 0.0, 0, "croupier", "table", {"side": side})]))
        return [f.message for f in check._findings]

    assert found(UthTrips, {"trips": "E"}) == found(UthBadBeat, {"bad-beat": "Paytable C"}) == []
    assert "§ 653b.2(a)–(b)" in found(UthTrips, {"trips": "A"})[0]
    assert "§ 653b.3(a)–(b)" in found(UthBadBeat, {"bad-beat": "A"})[0]
    assert found(UthUltimatePairs, {"ultimate-pairs": "F"}) == []
    assert "§ 674b.1(f)" in found(CrissCrossUltimatePairs, {"ultimate-pairs": "F"})[0]
    assert found(UthTrips, {"play-the-board": "A"}) == []  # Trips not offered: nothing to judge
