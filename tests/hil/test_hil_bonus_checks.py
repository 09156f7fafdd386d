"""The bonus-game replay and checks (§§ 690.5–690.8) on synthetic traces and short simulated runs:
each check passes on a compliant game, fails on the deviation it exists for, is indeterminate
without a relevant game, and a malformed record is a finding, never a crash."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from hil.bench import load_bench
from hil.checks import CHECK_IDS, GAME_CHECKS, run_checks
from hil.checks import bonus as cb
from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.checks.crazy_time import SettlementCheck
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import Event, TraceReader, TraceWriter
from rules import bonus as rb
from rules.pachinko import DROP_ZONES, Lattice

RULES = load_rules().submission
RULES_JSON = RULES.model_dump(mode="json", by_alias=True)
CLAPPERS = [0, 3, 6]


def bench(clappers=CLAPPERS, rows=RULES.pachinko.rows) -> BenchView:
    return BenchView(info={"ctw_wheel": {"sections": 64, "clappers": list(clappers)},
                           "pachinko": {"rows": rows, "spots": 16, "zones": list(DROP_ZONES)}},
                     rules=RULES_JSON)


class Round:
    """A synthetic round of a trace: a valid spin on ``game`` (or a forced one), wagers on it."""

    def __init__(self, game: str, seats=(1, 2), top=("coin-flip", 1, False), n: int = 1, forced: str | None = None,
                 stake_cents: int = 1000):
        self.n, self.game, self.seats, self.stake = n, game, tuple(seats), stake_cents
        self.events: list[Event] = []
        self._seq = itertools.count(1000 * n)
        self.t = 100.0
        self.add("croupier", "round_start", {"round": n})
        for i, seat in enumerate(self.seats):
            self.add("wagering", "press", {"press_id": i + 1, "seat": seat, "spot": game, "stake_cents": stake_cents,
                                           "accepted": True, "device_time_s": self.t})
        self.add("wagering", "press", {"press_id": 99, "seat": 9, "spot": "1", "stake_cents": 500, "accepted": True,
                                       "device_time_s": self.t})
        self.add("croupier", "no_more_bets")
        self.add("croupier", "spin_command", {"attempt": 1, "direction": "cw"})
        self.add("wheel", "spin_start", {"spin_id": 1, "direction": "cw", "device_time_s": self.t})
        self.add("top_slot", "top_slot_start", {"spin_id": 1, "device_time_s": self.t})
        for count in range(1, 6):
            self.add("wheel", "index_pulse", {"spin_id": 1, "count": count, "device_time_s": self.t})
        self.add("top_slot", "top_slot_stop", {"spin_id": 1, "spot": top[0], "multiplier": top[1], "aligned": top[2],
                                               "reel1_steps": 9, "reel2_steps": 9, "start_time_s": self.t,
                                               "stop_time_s": self.t + 5}, dt=5)
        wheel_spot = forced and "1" or game
        self.add("wheel", "spin_stop", {"spin_id": 1, "section_index": 0, "spot": wheel_spot, "on_peg": False,
                                        "revolutions": 5.0, "direction": "cw", "duration_s": 10.0, "pegs_passed": 270,
                                        "start_time_s": self.t - 5, "stop_time_s": self.t + 5}, dt=5)
        self.add("croupier", "spin_valid", {"attempt": 1, "section_index": 0, "spot": wheel_spot, "revolutions": 5.0})
        if forced:
            self.add("croupier", "forced_result", {"spot": game, "wheel_spot": wheel_spot})
        # § 690.2(f): the losing wager collected before the bonus game is played
        self.add("croupier", "collect", {"wager_id": f"{self.n}-99", "seat": 9, "spot": "1", "stake_cents": 500})
        self.add("croupier", "bonus_start", {"game": game, "seats": list(self.seats), "top_slot_multiplier": 1})

    def add(self, device: str, kind: str, payload: dict | None = None, dt: float = 0.1) -> Event:
        self.t += dt
        ev = Event(next(self._seq), self.n, self.t, 0, device, kind, payload or {})
        self.events.append(ev)
        return ev

    def board(self, values, multiplier: int = 1, board_id: int = 1, drawn_at: float | None = None) -> None:
        t = self.t if drawn_at is None else drawn_at
        self.add("board", "board_generated", {"board_id": board_id, "game": self.game, "values": list(values),
                                              "multiplier": 1, "device_time_s": t}, dt=1.0)
        shown = rb.apply_top_slot(values, multiplier)
        self.add("board", "board_multiplied", {"board_id": board_id, "game": self.game, "values": list(shown),
                                               "multiplier": multiplier, "device_time_s": self.t + 0.5})

    def draw(self, purpose: str, n: int, value) -> None:
        self.add("board", "board_draw", {"board_id": 1, "purpose": purpose, "n": n, "value": value,
                                         "device_time_s": self.t})

    def flip(self, face: str, start_face: str = "red") -> None:
        self.add("coin_flipper", "coin_flip_start", {"flip_id": 1, "device_time_s": self.t})
        self.add("coin_flipper", "coin_flip_stop", {"flip_id": 1, "face": face, "start_face": start_face,
                                                    "half_turns": 30, "launch_speed_mps": 3.0, "spin_rate_rps": 25.0,
                                                    "start_time_s": self.t, "stop_time_s": self.t + 1}, dt=1.0)

    def drop(self, zone: int, spot: int, drawn: int | None = None) -> None:
        self.draw("drop_zone", 10, zone if drawn is None else drawn)
        self.add("pachinko", "puck_drop", {"drop_id": 1, "zone": zone, "device_time_s": self.t})
        self.add("pachinko", "puck_landed", {"drop_id": 1, "zone": zone, "spot": spot, "path": "LR" * 6,
                                             "start_time_s": self.t, "stop_time_s": self.t + 1}, dt=1.0)

    def countdown(self, picks: dict[int, int], auto: dict[int, int] = {}, n: int = 3, late_pick: bool = False):
        self.add("croupier", "countdown_start", {"game": self.game, "duration_s": 10.0})
        for seat, choice in picks.items():
            self.add("croupier", "player_pick", {"game": self.game, "seat": seat, "choice": choice, "auto": False},
                     dt=1)
        self.add("croupier", "countdown_end", {"game": self.game}, dt=10.0)
        for seat, choice in auto.items():
            self.draw("auto_pick", n, choice)
            self.add("croupier", "player_pick", {"game": self.game, "seat": seat, "choice": choice, "auto": True})

    def ctw_spin(self, sections) -> None:
        self.add("ctw_wheel", "ctw_start", {"spin_id": 1, "device_time_s": self.t})
        self.add("ctw_wheel", "ctw_stop", {"spin_id": 1, "sections": list(sections), "turns": 3.5,
                                           "start_time_s": self.t, "stop_time_s": self.t + 8}, dt=8)

    def settle(self, values: dict[int, int]) -> RoundView:
        """The croupier's bonus_result, then the payments at ``values`` odds (the loser was collected
        before the game)."""
        self.add("croupier", "bonus_result", {"game": self.game, "values": {str(s): v for s, v in values.items()}})
        for i, seat in enumerate(self.seats):
            v = values.get(seat, 0)
            self.add("croupier", "pay", {"wager_id": f"{self.n}-{i + 1}", "seat": seat, "spot": self.game,
                                         "stake_cents": self.stake, "odds": f"{v} to 1", "odds_ratio": str(v),
                                         "win_cents": self.stake * v, "capped": False})
        self.add("croupier", "round_end", {"round": self.n, "void": False, "result": self.game})
        return RoundView.of(self.n, self.events)


def verdicts(rounds, bench_view=None, config=CheckConfig(), checks=GAME_CHECKS["crazy-time"]) -> dict[str, object]:
    out = {}
    for cls in checks:
        c = cls(config)
        c.setup(bench_view or bench())
        for rv in rounds:
            c.observe(rv)
        out[c.id] = c.result()
    return out


def failing(rounds, **kw) -> set[str]:
    return {cid for cid, r in verdicts(rounds, **kw).items() if r.verdict == "fail"}


# --------------------------------------------------------------------------- § 690.5 Coin Flip
def coin_round(base=(4, 20), top=("coin-flip", 3, True), faces=("blue",), rescue=None, pay=None, **kw):
    r = Round("coin-flip", top=top, **kw)
    m = top[1] if top[2] and top[0] == "coin-flip" else 1
    r.board(base, m)
    r.flip(faces[0])
    if rescue is not None:
        r.draw("rescue", 2, rescue)
    for face in faces[1:]:
        r.flip(face)
    shown = rb.apply_top_slot(base, m)
    face = faces[-1] if rescue == 1 else faces[0]
    value = rb.coin_value(shown, face) if pay is None else pay
    return r.settle(dict.fromkeys(r.seats, value))


def test_coin_flip_replay_multiplies_by_the_top_slot_and_everything_passes():
    rv = coin_round()
    rep = cb.replay_bonus(rv, RULES)
    assert rep.final == {1: 60, 2: 60} and rep.problems == []
    v = verdicts([rv])
    for cid in ("CF-690.5c-multipliers", "CF-690.5e-order", "CF-690.5fg-rescue", "CT-690.2e-settlement"):
        assert v[cid].verdict == "pass", (cid, v[cid].summary, v[cid].findings)


def test_rescue_flip_is_the_final_outcome():
    rv = coin_round(base=(2, 20), top=("1", 1, False), faces=("red", "blue"), rescue=1)
    assert cb.replay_bonus(rv, RULES).final == {1: 20, 2: 20}
    assert not failing([rv])
    # the croupier pays the initial flip instead of the Rescue Flip
    rv = coin_round(base=(2, 20), top=("1", 1, False), faces=("red", "blue"), rescue=1, pay=2)
    assert failing([rv]) == {"CF-690.5fg-rescue", "CT-690.2e-settlement"}


def test_rescue_draw_without_f1_f3_fails_and_the_first_flip_stands():
    rv = coin_round(base=(3, 10), top=("1", 1, False), faces=("red", "blue"), rescue=1, pay=10)
    rep = cb.replay_bonus(rv, RULES)
    assert rep.final == {1: 3, 2: 3}
    assert [p.check for p in rep.problems].count("CF-690.5fg-rescue") >= 2  # the draw, the payment
    assert failing([rv]) == {"CF-690.5fg-rescue", "CT-690.2e-settlement"}


def test_second_flip_without_activation_fails():
    rv = coin_round(base=(2, 20), top=("1", 1, False), faces=("red", "blue"), rescue=0)
    assert failing([rv]) == {"CF-690.5fg-rescue"}


def test_top_slot_ignored_on_the_board_fails_the_multipliers_and_settlement():
    r = Round("coin-flip", top=("coin-flip", 3, True))
    r.board((4, 20), 1)  # shown ×1 although the Top Slot aligned on Coin Flip ×3
    r.flip("blue")
    rv = r.settle({1: 20, 2: 20})
    assert failing([rv]) == {"CF-690.5c-multipliers", "CT-690.2e-settlement"}


def test_late_top_slot_and_early_board_fail_the_order_check():
    r = Round("coin-flip", top=("coin-flip", 2, True))
    r.add("board", "board_generated", {"board_id": 1, "game": "coin-flip", "values": [4, 20], "multiplier": 1,
                                       "device_time_s": r.t})
    r.flip("blue")
    r.add("board", "board_multiplied", {"board_id": 1, "game": "coin-flip", "values": [8, 40], "multiplier": 2,
                                        "device_time_s": r.t})
    assert failing([r.settle({1: 40, 2: 40})]) == {"CF-690.5e-order"}
    r = Round("coin-flip")
    r.board((4, 20), 1, drawn_at=1.0)  # drawn long before the wheel came to rest
    r.flip("red")
    assert failing([r.settle({1: 4, 2: 4})]) == {"CF-690.5e-order"}


def test_coin_flip_out_of_range_and_no_board():
    rv = coin_round(base=(1000, 20), top=("1", 1, False), faces=("red",))
    assert failing([rv]) == {"CF-690.5c-multipliers", "BONUS-board-values-chi2"}
    r = Round("coin-flip")
    rv = r.settle({1: 2, 2: 2})  # § 690.4(a) odds paid, no game played
    assert failing([rv]) == {"CF-690.5c-multipliers", "CT-690.2e-settlement"}


def test_forced_result_is_the_result():
    rv = coin_round(forced="coin-flip")
    rep = cb.replay_bonus(rv, RULES)
    assert rep is not None and rep.final == {1: 60, 2: 60}
    assert "CT-690.2e-settlement" not in failing([rv])


# --------------------------------------------------------------------------- § 690.6 Cash Hunt
PERM = tuple(reversed(range(108)))
CH_VALUES = sorted(RULES.cash_hunt.multiplier_weights)
CH_BASE = tuple(CH_VALUES[i % len(CH_VALUES)] for i in range(108))


def cash_round(picks={1: 3, 2: 7}, auto={}, seats=(1, 2), values=None, perm=PERM, shuffle_first=True):
    r = Round("cash-hunt", seats=seats)
    r.board(CH_BASE)
    if shuffle_first:
        r.draw("shuffle", 108, list(perm))
    r.countdown(picks, auto, n=108)
    if not shuffle_first:
        r.draw("shuffle", 108, list(perm))
    chosen = {**picks, **auto}
    want = {s: CH_BASE[perm[c]] for s, c in chosen.items()}
    return r.settle(want if values is None else values)


def test_cash_hunt_each_player_gets_the_multiplier_under_their_symbol():
    rv = cash_round(picks={1: 3}, auto={2: 7})
    assert cb.replay_bonus(rv, RULES).final == {1: CH_BASE[104], 2: CH_BASE[100]}
    assert not failing([rv])


def test_cash_hunt_shared_pick_fails_per_player():
    rv = cash_round(values={1: CH_BASE[104], 2: CH_BASE[104]})
    assert failing([rv]) == {"CH-690.6f-per-player", "CT-690.2e-settlement"}


def test_cash_hunt_order_and_selection_rules():
    assert failing([cash_round(shuffle_first=False)]) == {"CH-690.6cd-order"}
    # an automatic selection for a seat that had selected
    assert "CH-690.6cd-order" in failing([cash_round(picks={1: 3}, auto={1: 5, 2: 7})])
    rv = cash_round(picks={1: 3}, auto={})  # seat 2 never gets a symbol
    assert failing([rv]) == {"CH-690.6cd-order", "CT-690.2e-settlement"}


# --------------------------------------------------------------------------- § 690.7 Pachinko
PA_BASE = (10, 2, 3, 4, 5, 0, 20, 3, 400, 15, 4, 25, 50, 2, 7, 100)


def pachinko_round(steps, pay=None, top=("1", 1, False), base=PA_BASE):
    """``steps``: ("drop", zone, spot[, drawn]) / ("doubled", values) / ("rescue", 0|1) / ("rescued", values)."""
    r = Round("pachinko", top=top)
    m = top[1] if top[2] and top[0] == "pachinko" else 1
    r.board(base, m)
    for step in steps:
        if step[0] == "drop":
            r.drop(*step[1:])
        elif step[0] == "doubled":
            r.add("croupier", "board_doubled", {"board_id": 1, "spot": 6, "values": list(step[1])})
        elif step[0] == "rescue":
            r.draw("rescue", 2, step[1])
        elif step[0] == "rescued":
            r.add("croupier", "board_rescued", {"board_id": 1, "spot": 0, "trigger": 0, "values": list(step[1])})
    return r.settle(dict.fromkeys(r.seats, pay))


def test_pachinko_double_then_rescue_then_final_landing():
    doubled = rb.pachinko_double(PA_BASE, 6)  # spot 4 (4x) becomes 8x, spot 2 (2x) becomes 4x
    rescued = rb.pachinko_rescue(doubled, 4)
    rv = pachinko_round([("drop", 8, 6), ("doubled", doubled), ("drop", 5, 2), ("rescue", 1), ("rescued", rescued),
                         ("drop", 9, 3)], pay=rescued[2])
    rep = cb.replay_bonus(rv, RULES)
    assert rep.problems == [] and rep.final == {1: rescued[2], 2: rescued[2]}
    v = verdicts([rv])
    for cid in ("PA-690.7c-multipliers", "PA-690.7d-drop-zone", "PA-690.7e-double", "PA-690.7g-rescue",
                "PA-690.7f-order", "CT-690.2e-settlement"):
        assert v[cid].verdict == "pass", (cid, v[cid].findings)


def test_pachinko_deviations_fail_their_checks():
    # dropped from outside 4..13, and from a zone other than the one drawn
    assert failing([pachinko_round([("drop", 1, 1, 7)], pay=10)]) == {"PA-690.7d-drop-zone"}
    assert failing([pachinko_round([("drop", 7, 1, 8)], pay=10)]) == {"PA-690.7d-drop-zone"}
    # Double not doubling the others
    undoubled = tuple(50 if v == 0 else v for v in PA_BASE)
    rv = pachinko_round([("drop", 8, 6), ("doubled", undoubled), ("drop", 4, 1)], pay=10)
    assert failing([rv]) == {"PA-690.7e-double", "CT-690.2e-settlement"}
    # a Rescue Drop on 10x, and the croupier pays the drop after it
    rv = pachinko_round([("drop", 4, 1), ("rescue", 1), ("rescued", PA_BASE), ("drop", 4, 7)], pay=20)
    assert failing([rv]) == {"PA-690.7g-rescue", "CT-690.2e-settlement"}
    # eligible (2x) landing and the Rules Submission's rescue probability > 0, but no draw at all
    assert failing([pachinko_round([("drop", 4, 2)], pay=2)]) == {"PA-690.7g-rescue"}
    # a drop after the final landing
    rv = pachinko_round([("drop", 4, 1), ("drop", 5, 7)], pay=20)
    assert failing([rv]) == {"PA-690.7d-drop-zone", "CT-690.2e-settlement"}


def test_pachinko_rows_declared_differently_fails_multipliers():
    rv = pachinko_round([("drop", 4, 1)], pay=10)
    assert failing([rv], bench_view=bench(rows=RULES.pachinko.rows + 2)) == {"PA-690.7c-multipliers"}


def test_pachinko_late_top_slot_fails_order():
    r = Round("pachinko", top=("pachinko", 2, True))
    r.add("board", "board_generated", {"board_id": 1, "game": "pachinko", "values": list(PA_BASE), "multiplier": 1,
                                       "device_time_s": r.t})
    r.drop(4, 1)
    r.add("board", "board_multiplied", {"board_id": 1, "game": "pachinko", "multiplier": 2,
                                        "values": list(rb.apply_top_slot(PA_BASE, 2)), "device_time_s": r.t})
    assert failing([r.settle({1: 20, 2: 20})]) == {"PA-690.7f-order"}


# --------------------------------------------------------------------------- § 690.8 Crazy Time World
CTW_VALUES = sorted(RULES.crazy_time_world.multiplier_weights)
CTW_BASE = tuple([0] + [CTW_VALUES[i % len(CTW_VALUES)] for i in range(1, 64)])


def ctw_round(picks, spins, doubled=(), pay=None, seats=(1, 2, 3), top=("1", 1, False), late=False):
    r = Round("crazy-time", seats=seats, top=top)
    m = top[1] if top[2] and top[0] == "crazy-time" else 1
    if late:
        r.add("board", "board_generated", {"board_id": 1, "game": "crazy-time", "values": list(CTW_BASE),
                                           "multiplier": 1, "device_time_s": r.t})
    else:
        r.board(CTW_BASE, m)
    r.countdown(picks)
    if late:
        r.add("board", "board_multiplied", {"board_id": 1, "game": "crazy-time", "multiplier": m,
                                            "values": list(rb.apply_top_slot(CTW_BASE, m)), "device_time_s": r.t})
    for i, sections in enumerate(spins):
        r.ctw_spin(sections)
        if i < len(doubled):
            r.add("croupier", "board_doubled", dict(board_id=1, **doubled[i]))
    return r.settle(pay)


def test_ctw_double_only_that_clappers_players_continue():
    shown = CTW_BASE
    once = rb.ctw_double(shown, second=False)
    # clapper 1 on section 0 (Double); seat 1 picked it; seats 2, 3 picked clappers 2, 3
    spins = [(0, 3, 6), (10, 13, 16)]
    want = {1: once[10], 2: shown[3], 3: shown[6]}
    rv = ctw_round({1: 0, 2: 1, 3: 2}, spins, doubled=[{"clapper": 1, "second": False, "seats": [1],
                                                        "values": list(once)}], pay=want)
    rep = cb.replay_bonus(rv, RULES)
    assert rep.problems == [] and rep.final == want
    v = verdicts([rv])
    for cid in ("CTW-690.8b-wheel", "CTW-690.8cd-countdown", "CTW-690.8e-double", "CT-690.2e-settlement"):
        assert v[cid].verdict == "pass", (cid, v[cid].findings)
    # every player takes the respin's result
    bad = {1: once[10], 2: once[13], 3: once[16]}
    rv = ctw_round({1: 0, 2: 1, 3: 2}, spins, doubled=[{"clapper": 1, "second": False, "seats": [1, 2, 3],
                                                       "values": list(once)}], pay=bad)
    assert failing([rv]) == {"CTW-690.8e-double", "CT-690.2e-settlement"}


def test_ctw_second_double_replaces_it_with_50():
    once = rb.ctw_double(CTW_BASE, second=False)
    twice = rb.ctw_double(once, second=True)
    spins = [(0, 3, 6), (0, 3, 6), (20, 23, 26)]
    rv = ctw_round({1: 0}, spins, seats=(1,), pay={1: twice[20]},
                   doubled=[{"clapper": 1, "second": False, "seats": [1], "values": list(once)},
                            {"clapper": 1, "second": True, "seats": [1], "values": list(twice)}])
    assert cb.replay_bonus(rv, RULES).final == {1: 4 * CTW_BASE[20]}
    assert not failing([rv])


def test_ctw_clappers_and_countdown_deviations():
    rv = ctw_round({1: 0}, [(5, 8, 11)], seats=(1,), pay={1: CTW_BASE[5]})
    assert failing([rv], bench_view=bench(clappers=[0, 1, 2])) == {"CTW-690.8b-wheel"}
    rv = ctw_round({1: 0}, [(5, 6, 7)], seats=(1,), pay={1: CTW_BASE[5]})  # spacing differs from the declared
    assert failing([rv]) == {"CTW-690.8b-wheel"}
    rv = ctw_round({1: 0}, [(5, 8, 11)], seats=(1,), pay={1: 2 * CTW_BASE[5]}, top=("crazy-time", 2, True), late=True)
    assert failing([rv]) == {"CTW-690.8cd-countdown"}


# --------------------------------------------------------------------------- malformed records
def test_malformed_bonus_record_is_a_finding_not_a_crash(tmp_path: Path):
    r = Round("cash-hunt")
    r.board(CH_BASE)
    r.draw("shuffle", 108, list(PERM))
    r.countdown({1: "seven", 2: 7}, n=108)  # a choice that is no number
    rv_events = r.settle({1: 5, 2: 5}).events
    r2 = Round("pachinko", n=2)
    r2.board(PA_BASE)
    r2.draw("drop_zone", 10, 4)
    r2.add("pachinko", "puck_drop", {"drop_id": 1, "zone": 4, "device_time_s": r2.t})
    r2.add("pachinko", "puck_landed", {"drop_id": 1, "zone": 4, "spot": 99})  # off the board
    r2_events = r2.settle({1: 5, 2: 5}).events
    path = tmp_path / "t.sqlite"
    w = TraceWriter(path, {})
    w.record("croupier", "rules", RULES_JSON)
    for n, events in ((1, rv_events), (2, r2_events)):
        w.round = n
        for e in events:
            w.clock = SimpleNamespace(now=e.sim_time)  # each event keeps its time
            w.record(e.device, e.kind, e.payload)
    w.close()
    results = {c.id: c for c in run_checks(path, CheckConfig())}
    ch = results["CH-690.6f-per-player"]
    assert ch.verdict == "fail" and "malformed cash-hunt bonus record" in ch.findings[0].message
    assert results["PA-690.7d-drop-zone"].verdict == "fail"
    assert results["CT-690.2e-settlement"].verdict == "fail"


# --------------------------------------------------------------------------- statistics
def test_merge_sparse_keeps_totals_and_reaches_five():
    obs, exp = cb.merge_sparse([0, 1, 9, 30, 2, 0], [0.5, 1.0, 10.0, 30.0, 2.0, 0.5])
    assert sum(obs) == 42 and sum(exp) == 44 and min(exp) >= 5


def landings(counts: dict[int, Counter]) -> Round:
    r = Round("1")
    for zone, c in counts.items():
        for spot, k in c.items():
            for _ in range(k):
                r.add("pachinko", "puck_landed", {"drop_id": 1, "zone": zone, "spot": spot})
    return RoundView.of(1, r.events)


def _lattice_counts(per_zone: int, shift: int = 0) -> dict[int, Counter]:
    m = Lattice(RULES.pachinko.rows).zone_matrix()
    out = {}
    for i, z in enumerate(DROP_ZONES):
        c = Counter()
        for k in range(16):
            c[min(16, k + 1 + shift)] += round(per_zone * float(m[i][k]))
        out[z] = c
    return out


def test_landings_chi2_pass_fail_indeterminate():
    check = cb.PachinkoLandings
    cfg = CheckConfig(chi2_min_spins=500)
    assert verdicts([landings(_lattice_counts(200))], config=cfg, checks=[check])[check.id].verdict == "pass"
    assert verdicts([landings(_lattice_counts(200, shift=1))], config=cfg, checks=[check])[check.id].verdict == "fail"
    assert verdicts([landings(_lattice_counts(20))], config=cfg, checks=[check])[check.id].verdict == "indeterminate"
    # a landing the lattice cannot produce fails whatever the sample: zone 4 cannot reach spot 16 in 12 rows
    assert verdicts([landings({4: Counter({16: 1})})], config=cfg, checks=[check])[check.id].verdict == "fail"


def test_board_values_chi2_and_coin_fairness():
    r = Round("1")
    weights = RULES.cash_hunt.multiplier_weights
    total = sum(weights.values())
    fair = [v for v, w in weights.items() for _ in range(round(20_000 * w / total))]
    r.add("board", "board_generated", {"board_id": 1, "game": "cash-hunt", "values": fair})
    cfg = CheckConfig(chi2_min_spins=1000)
    bv = cb.BoardValues
    assert verdicts([RoundView.of(1, r.events)], config=cfg, checks=[bv])[bv.id].verdict == "pass"
    r.add("board", "board_generated", {"board_id": 2, "game": "cash-hunt", "values": [500] * 500})
    assert verdicts([RoundView.of(1, r.events)], config=cfg, checks=[bv])[bv.id].verdict == "fail"
    cf = cb.CoinFairness
    r = Round("1")
    for i in range(1200):
        face, other = ("red", "blue") if i % 2 else ("blue", "red")
        r.add("coin_flipper", "coin_flip_stop", {"face": face, "start_face": face if (i // 2) % 2 else other})
    assert verdicts([RoundView.of(1, r.events)], config=cfg, checks=[cf])[cf.id].verdict == "pass"
    r = Round("1")
    for i in range(1200):
        face = "red" if i % 2 else "blue"
        r.add("coin_flipper", "coin_flip_stop", {"face": face, "start_face": face if i % 3 else "red"})
    assert verdicts([RoundView.of(1, r.events)], config=cfg, checks=[cf])[cf.id].verdict == "fail"


def test_board_values_double_share():
    """§ 690.7(c)(2): "Double" may be displayed in one slot — as often as the Rules Submission says."""
    bv, cfg = cb.BoardValues, CheckConfig(chi2_min_spins=10**9)  # the cell χ² out of the way
    d = RULES.pachinko.double_probability

    def boards(with_double: int, total: int) -> RoundView:
        r = Round("1")
        for i in range(total):
            values = [2] * 16
            if i < with_double:
                values[i % 16] = rb.DOUBLE
            r.add("board", "board_generated", {"board_id": i, "game": "pachinko", "values": values})
        return RoundView.of(1, r.events)

    n = 400
    ok = verdicts([boards(round(n * d), n)], config=cfg, checks=[bv])[bv.id]
    assert ok.verdict == "pass", ok.summary
    assert verdicts([boards(n // 20, n)], config=cfg, checks=[bv])[bv.id].verdict == "fail"
    assert verdicts([boards(5, 50)], config=cfg, checks=[bv])[bv.id].verdict == "indeterminate"


# --------------------------------------------------------------------------- short simulated runs
TEXT = """\
schema: 1
name: sim-{game}
game: crazy-time
seed: {seed}
rounds: {rounds}
croupier: {{force_result: {game}}}
players: {{count: 7, wagers_per_player: [1, 3], pick_probability: 0.7}}
"""


@pytest.mark.parametrize("game", ["coin-flip", "cash-hunt", "pachinko", "crazy-time"])
def test_replay_agrees_with_a_healthy_croupier(game, tmp_path):
    """On the healthy bench the replay re-derives exactly what the croupier recorded, round by round."""
    sc = parse_scenario(TEXT.format(game=game, seed=77, rounds=60), f"{game}.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None and result["expectation_met"], [
        (c["id"], c["findings"][:2]) for c in result["checks"] if c["verdict"] == "fail"]
    compared = 0
    with TraceReader(tmp_path / result["trace"]) as reader:
        for n, events in reader.rounds():
            if n == 0:
                continue
            rv = RoundView.of(n, events)
            rep = cb.replay_bonus(rv, RULES)
            if rep is None or rep.result is None:
                continue
            assert rep.problems == [], (n, rep.problems)
            assert {int(k): v for k, v in rep.result.payload["values"].items()} == rep.final
            compared += 1
    assert compared >= 50


def test_no_bonus_round_leaves_the_bonus_checks_indeterminate(tmp_path):
    sc = parse_scenario(TEXT.format(game='"5"', seed=3, rounds=10).replace('sim-"5"', "sim-five"), "five.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    bonus_ids = {c.id for c in cb.BONUS_CHECKS}
    assert {c["id"]: c["verdict"] for c in result["checks"] if c["id"] in bonus_ids} == dict.fromkeys(
        bonus_ids, "indeterminate")


def test_every_bonus_check_is_registered_and_cites_its_section():
    for c in cb.BONUS_CHECKS:
        assert c.id in CHECK_IDS and c.section.startswith("§") and '"' in (c.__doc__ or "")
    assert SettlementCheck in GAME_CHECKS["crazy-time"]


def test_a_bonus_device_that_stops_answering_voids_the_round_and_refunds(tmp_path):
    """A puck that lodges in the pegs never lands: the croupier waits ``bonus_timeout_s``, records
    ``bonus_void`` and goes on — no crash, nothing settled on partial data. § 690.2(f): the losing
    wagers were collected before the game and stay collected; only the wagers on Pachinko, whose
    odds the game was to set, are void and refunded. The rounds whose puck landed are played and
    settled as usual."""
    text = TEXT.format(game="pachinko", seed=5, rounds=12) + (
        "faults: {pachinko: {puck_stuck_probability: 0.4}}\n"
        "checks: {max_void_round_ratio: 1.0}\n")  # the void rounds are the device's story (EVIDENCE-link)
    text = text.replace("croupier: {force_result: pachinko}", "croupier: {force_result: pachinko, bonus_timeout_s: 30}")
    result = run_scenario(parse_scenario(text, "stuck.yaml"), load_bench(), load_rules(), tmp_path)
    assert result["error"] is None
    stats = result["stats"]
    assert stats["rounds"] == 12 and stats["bonus_void"] > 0 and stats["bonus_pachinko"] > 0, stats
    assert stats["bonus_void"] + stats["bonus_pachinko"] == 12 and stats["void_rounds"] == stats["bonus_void"]
    settlement = next(c for c in result["checks"] if c["id"] == "CT-690.2e-settlement")
    assert settlement["verdict"] == "pass", settlement["findings"][:3]
    voids = 0
    with TraceReader(tmp_path / result["trace"]) as reader:
        for n, events in reader.rounds():
            if n == 0:
                continue
            kinds = [e.kind for e in events if e.device == "croupier"]
            if "bonus_void" not in kinds:
                continue
            voids += 1
            void = next(e for e in events if e.kind == "bonus_void")
            assert "Pachinko board" in void.payload["reason"] and "30" in void.payload["reason"]
            assert not {"pay", "bonus_result"} & set(kinds)
            wagers = {e.payload["wager_id"]: e.payload for e in events if e.kind == "wager"}
            collects = [e for e in events if e.kind == "collect"]
            refunds = [e for e in events if e.kind == "refund"]
            start = next(e for e in events if e.kind == "bonus_start")
            assert all(c.seq < start.seq for c in collects)  # collected first
            assert {c.payload["wager_id"] for c in collects} == {w for w, p in wagers.items() if p["spot"] != "pachinko"}
            assert {r.payload["wager_id"] for r in refunds} == {w for w, p in wagers.items() if p["spot"] == "pachinko"}
            end = next(e for e in events if e.kind == "round_end")
            assert end.payload == {"round": n, "void": True, "reason": "bonus_void", "result": "pachinko",
                                   "wagers": len(wagers),
                                   "collected_cents": sum(c.payload["stake_cents"] for c in collects),
                                   "refunded_cents": sum(r.payload["stake_cents"] for r in refunds)}
            # the croupier waited the timeout from its drop command (right after the zone draw)
            zone = [e for e in events if e.kind == "board_draw" and e.payload["purpose"] == "drop_zone"][-1]
            assert void.sim_time - zone.sim_time >= 30 - 1e-6
    assert voids == stats["bonus_void"]
    # the device's failure is the void rounds' story, not a regulation finding: the croupier did right
    assert not {c["id"] for c in result["checks"] if c["verdict"] == "fail"}


def test_ctw_stops_uniformity():
    """§ 690.8(a), (d): a virtual wheel stops on each section equally often."""
    st = cb.CrazyTimeWorldStops

    def stops(sections) -> RoundView:
        r = Round("1")
        for s in sections:
            r.add("ctw_wheel", "ctw_stop", {"spin_id": 1, "sections": [s, (s + 3) % 64, (s + 6) % 64]})
        return RoundView.of(1, r.events)

    assert verdicts([stops(list(range(64)) * 8)], checks=[st])[st.id].verdict == "pass"
    assert verdicts([stops(list(range(64)) * 6 + [0] * 100)], checks=[st])[st.id].verdict == "fail"
    assert verdicts([stops(list(range(64)))], checks=[st])[st.id].verdict == "indeterminate"
