"""The bonus-game replay and checks (§§ 690.5–690.8, ``hil/checks/bonus.py``) on hand-made rounds, each
deviation the replay can name put in a round of its own or beside the others it must not hide: every
problem the replay reports is pinned to its check, its event's seq and its words, every seat's final
multiplier and the words saying how the trace gives it, and every check's verdict, summary,
measurements (value, unit, limit) and findings — a golden picture per game — plus one round each
side of every edge the checks draw (the countdown's announced time, a selection's range, the clapper
spacing, the Rescue conditions, the statistics' thresholds).

The rounds are built with ``tests/hil/test_hil_bonus_checks.py``'s ``Round``: round ``n``'s events are
numbered from ``1000 * n`` in the order they are added, so each seq below is the event's place in
its round."""

from __future__ import annotations

import math

import pytest

from hil.checks import bonus as cb
from hil.checks.base import BenchView, CheckConfig, RoundView
from hil.trace import Event
from rules import bonus as rb
from rules.pachinko import DROP_ZONES, Lattice
from tests.hil.test_hil_bonus_checks import CTW_BASE, RULES, RULES_JSON, Round, bench

GAME_CHECKS = cb.BONUS_CHECKS[:14]
CTW_CHECKS = (cb.CrazyTimeWorldWheel, cb.CrazyTimeWorldCountdown, cb.CrazyTimeWorldDouble)


def replay(rv: RoundView, rules=RULES):
    """The replay and its problems as (check, seq, words)."""
    rep = cb.replay_bonus(rv, rules)
    return rep, [(p.check, p.ev.seq if p.ev is not None else None, p.message) for p in rep.problems]


def tallies(rep) -> dict[str, int]:
    return {k: getattr(rep, k) for k in ("flips", "rescue_eligible", "rescue_draws", "rescues", "drops",
                                         "double_landings", "spins", "picks", "auto_picks")}


def judge(rounds, checks, bench_view: BenchView | None = None, config: CheckConfig = CheckConfig(),
          total: int | None = None):
    """Each check's (verdict, summary, [(measurement, value, unit, limit)], [(round, seq, words)]); every
    finding is listed unless ``total`` says how many were counted."""
    out = {}
    for cls in checks:
        c = cls(config)
        c.setup(bench() if bench_view is None else bench_view)
        for rv in rounds:
            c.observe(rv)
        res = c.result()
        assert res.findings_total == (len(res.findings) if total is None else total)
        out[res.id] = (res.verdict, res.summary, [(m.name, m.value, m.unit, m.limit) for m in res.measurements],
                       [(f.round, f.seq, f.message) for f in res.findings])
    return out


# ------------------------------------------------------------------ § 690.8 Crazy Time World
def ctw_pick(r: Round, seat: int, choice, auto: bool = False, game: str = "crazy-time", dt: float = 1.0):
    return r.add("croupier", "player_pick", {"game": game, "seat": seat, "choice": choice, "auto": auto}, dt=dt)


def ctw_doubled(r: Round, seats, values):
    return r.add("croupier", "board_doubled", {"board_id": 1, "seats": list(seats), "values": list(values)})


def ctw_golden() -> RoundView:
    """Top Slot x2 on Crazy Time; seats 1 and 4 pick clapper 1, seat 2 clapper 2, seat 3 is given
    clapper 3 at random; clapper 1 lands on Double twice (the wheel doubled, then doubled again with
    the Double replaced by 50x), then on section 10."""
    r = Round("crazy-time", seats=(1, 2, 3, 4), top=("crazy-time", 2, True), n=1)
    r.board(CTW_BASE, 2)
    shown = rb.apply_top_slot(CTW_BASE, 2)
    d1 = rb.ctw_double(shown, second=False)
    d2 = rb.ctw_double(d1, second=True)
    # look-alikes of the croupier's and the board's records from other devices: none of them counts
    r.add("ctw_wheel", "countdown_start", {"game": "crazy-time", "duration_s": 99.0})
    r.add("ctw_wheel", "countdown_end", {"game": "crazy-time"})
    r.add("croupier", "board_draw", {"board_id": 1, "purpose": "auto_pick", "n": 5, "value": 2})
    r.countdown({1: 0, 2: 1, 4: 0}, auto={3: 2}, n=3)
    r.ctw_spin((0, 3, 6))
    ctw_doubled(r, (4, 1), d1)
    r.ctw_spin((0, 3, 6))
    ctw_doubled(r, (1, 4), d2)
    r.ctw_spin((10, 13, 16))
    r.add("board", "board_doubled", {"board_id": 1, "seats": [1], "values": list(d2)})
    return r.settle({1: d2[10], 2: shown[3], 3: shown[6], 4: d2[10]})


def ctw_selections() -> RoundView:
    """Every way a selection goes wrong (§ 690.8(c)), one after the other, and a countdown 2 s short."""
    r = Round("crazy-time", seats=(1, 2, 3, 4, 5), n=2)
    r.board(CTW_BASE)
    ctw_pick(r, 1, 0)  # before the countdown
    r.add("croupier", "countdown_start", {"game": "crazy-time", "duration_s": 12.0})
    ctw_pick(r, 2, 1, game="coin-flip")  # another game's, taken as seat 2's
    ctw_pick(r, 7, 1)  # no wager
    ctw_pick(r, 2, 2)  # seat 2 again
    ctw_pick(r, 3, 3)  # out of range, above
    ctw_pick(r, 3, -1)  # below
    ctw_pick(r, 3, 2, auto=True)  # automatic before the time elapsed, no draw
    r.draw("auto_pick", 4, 1)  # from 4 choices
    r.add("croupier", "countdown_end", {"game": "crazy-time"}, dt=3.0)  # 10 s after its start
    ctw_pick(r, 4, 0, auto=True, dt=0.1)  # the draw said 1
    r.draw("auto_pick", 3, 2)
    ctw_pick(r, 1, 2, auto=True, dt=0.1)  # seat 1 selected already (outside the countdown)
    # seat 5: no selection at all
    r.ctw_spin((5, 8, 11))
    return r.settle({1: CTW_BASE[5], 2: CTW_BASE[8], 3: CTW_BASE[11], 4: CTW_BASE[5]})


def ctw_order() -> RoundView:
    """The countdown ends before it starts, the wheel is started before it ends, a selection made
    outside it; clapper 1 lands on Double with no doubled wheel shown, then on Double again with the
    wrong wheel and the wrong seats, and is never spun again."""
    r = Round("crazy-time", seats=(1, 2), n=3)
    r.board(CTW_BASE)
    r.add("ctw_wheel", "ctw_start", {"spin_id": 0, "device_time_s": r.t})
    r.add("croupier", "countdown_end", {"game": "crazy-time"})
    r.add("croupier", "countdown_start", {"game": "crazy-time", "duration_s": 10.0})
    ctw_pick(r, 1, 0)
    ctw_pick(r, 2, 2)
    r.ctw_spin((0, 3, 6))
    once = rb.ctw_double(CTW_BASE, second=False)
    r.ctw_spin((0, 3, 6))
    twice = rb.ctw_double(once, second=True)
    wrong = list(twice)
    wrong[7] += 1
    ctw_doubled(r, (1, 2), wrong)
    return r.settle({1: 50, 2: CTW_BASE[6]})


def ctw_early_fifty() -> RoundView:
    """The first Double shows the wheel doubled AND the Double replaced by 50x; the respin lands on
    no Double but the croupier doubles the wheel again; then a third spin after everyone settled."""
    r = Round("crazy-time", seats=(1,), n=4)
    r.board(CTW_BASE)
    r.countdown({1: 1})
    r.ctw_spin((61, 0, 3))
    ctw_doubled(r, (1,), rb.ctw_double(CTW_BASE, second=True))
    r.ctw_spin((20, 23, 26))
    ctw_doubled(r, (1,), rb.ctw_double(CTW_BASE, second=False))
    r.ctw_spin((30, 33, 36))
    return r.settle({1: 2 * CTW_BASE[23]})


def ctw_short(n: int, *, seats=(1,), spins=(), void: bool = False, countdown: bool | str = True,
              result: bool = True, doubled: dict | None = None) -> RoundView:
    """A short Crazy Time World round: seat 1 picks clapper 1 (when the countdown runs), the wheel
    rests on ``spins``; ``doubled``: spin index -> the seats shown continuing on the wheel doubled
    once; ``void``: the croupier voids the game before its result."""
    r = Round("crazy-time", seats=seats, n=n)
    r.board(CTW_BASE)
    if countdown is True:
        r.countdown({s: 0 for s in seats})
    elif countdown:  # only its start or only its end on record, then a selection
        r.add("croupier", f"countdown_{countdown}", {"game": "crazy-time", "duration_s": 10.0})
        for s in seats:
            ctw_pick(r, s, 0)
    for i, sections in enumerate(spins):
        r.ctw_spin(sections)
        if doubled and i in doubled:
            ctw_doubled(r, doubled[i], rb.ctw_double(CTW_BASE, second=False))
    if void:
        r.add("croupier", "bonus_void", {"reason": "the wheel stopped answering"})
    if result:
        pay = CTW_BASE[spins[-1][0]] if spins and isinstance(spins[-1][0], int) else 0
        return r.settle(dict.fromkeys(seats, pay))
    r.add("croupier", "round_end", {"round": n, "void": void, "result": "crazy-time"})
    return RoundView.of(n, r.events)


def test_ctw_golden_every_seat_and_every_check():
    rep, problems = replay(ctw_golden())
    assert problems == [] and rep.undetermined is None and rep.outcome_check == "CTW-690.8e-double"
    assert rep.final == {1: 2000, 2: 60, 3: 150, 4: 2000}  # 250x x2 (Top Slot) x2 x2; 30x x2; 75x x2
    assert rep.why == {
        1: "seat 1's clapper 1 came to rest on section 10 showing 2000x on spin 3 (after 2 Double(s))",
        2: "seat 2's clapper 2 came to rest on section 3 showing 60x",
        3: "seat 3's clapper 3 came to rest on section 6 showing 150x",
        4: "seat 4's clapper 1 came to rest on section 10 showing 2000x on spin 3 (after 2 Double(s))"}
    assert tallies(rep) == {"flips": 0, "rescue_eligible": 0, "rescue_draws": 0, "rescues": 0, "drops": 0,
                            "double_landings": 2, "spins": 3, "picks": 3, "auto_picks": 1}
    assert judge([ctw_golden()], CTW_CHECKS) == {
        "CTW-690.8b-wheel": ("pass", "1 crazy-time game(s) complied with § 690.8(b), (b)(1)–(2), (b)(4)–(5), (f)",
                             [("games", 1, "games", None), ("games_with_top_slot_multiplier", 1, "games", None),
                              ("max_multiplier_shown", 800, "x",
                               "generated in [15, 400] x, then x the Top Slot multiplier"),
                              ("wheel_stops_checked", 3, "stops", None)], []),
        "CTW-690.8cd-countdown": ("pass", "1 crazy-time game(s) complied with § 690.8(c)–(d), (f)",
                                  [("games", 1, "games", None), ("selections_by_players", 3, "selections", None),
                                   ("selections_automatic", 1, "selections", None)], []),
        "CTW-690.8e-double": ("pass", "1 crazy-time game(s) complied with § 690.8(b)(5), (e), (e)(1)–(3)",
                              [("games", 1, "games", None), ("a_selected_clapper_on_Double", 1, "games", None)], []),
    }


CTW_SELECTIONS = [
    ("CTW-690.8cd-countdown", 2032, "§ 690.8(c): the countdown announced 12.0 s but ended after 9.100 s"),
    ("CTW-690.8cd-countdown", 2023,
     "§ 690.8(c): seat 1 selected at t=114.000 s, outside the countdown (t=114.100 to 123.200 s)"),
    ("CTW-690.8cd-countdown", 2025, "§ 690.8(c): a selection for the 'coin-flip' game during crazy-time"),
    ("CTW-690.8cd-countdown", 2026, "§ 690.8(c): seat 7 made a selection but has no accepted wager on crazy-time"),
    ("CTW-690.8cd-countdown", 2027,
     "§ 690.8(c): seat 2 was given a selection although it already had one (1); each player selects once"),
    ("CTW-690.8cd-countdown", 2028, "§ 690.8(c): seat 3 selected 3; the choices are 0..2"),
    ("CTW-690.8cd-countdown", 2029, "§ 690.8(c): seat 3 selected -1; the choices are 0..2"),
    ("CTW-690.8cd-countdown", 2030,
     "§ 690.8(c): seat 3 was selected for automatically before the time elapsed (countdown_end)"),
    ("CTW-690.8cd-countdown", 2030,
     "§ 690.8(c): seat 3's automatic selection 2 was not drawn at random by the board (no auto_pick draw before it)"),
    ("CTW-690.8cd-countdown", 2031, "§ 690.8(c): an automatic selection drawn from 4 choices; there are 3"),
    ("CTW-690.8cd-countdown", 2033,
     "§ 690.8(c): seat 4's automatic selection 0 differs from the board's random draw 1 (seq 2031)"),
    ("CTW-690.8cd-countdown", 2035,
     "§ 690.8(c): seat 1 was given an automatic selection although it already had one (0); each player selects once"),
    ("CTW-690.8cd-countdown", 2032,
     "§ 690.8(c): seat(s) [5] have no selection; one must be made automatically at random when the time elapses"),
]
CTW_ORDER = [
    ("CTW-690.8cd-countdown", 3021, "§ 690.8(c): the countdown ended before it commenced"),
    ("CTW-690.8cd-countdown", 3021, "§ 690.8(c): the countdown announced 10.0 s but ended after -0.100 s"),
    ("CTW-690.8cd-countdown", 3023,
     "§ 690.8(c): seat 1 selected at t=114.000 s, outside the countdown (t=113.000 to 112.900 s)"),
    ("CTW-690.8cd-countdown", 3024,
     "§ 690.8(c): seat 2 selected at t=115.000 s, outside the countdown (t=113.000 to 112.900 s)"),
    ("CTW-690.8cd-countdown", 3020,
     "§ 690.8(d): the wheel was started before the time for players to select a clapper had elapsed (countdown_end)"),
    ("CTW-690.8e-double", 3026,
     "§ 690.8(e)(1): clapper 1 came to rest on Double but the wheel was not shown with all multipliers doubled"),
    ("CTW-690.8e-double", 3029,
     "§ 690.8(e)(3): after clapper 1 came to rest on Double the wheel shows: section 7: expected 400x, shown 401x "
     "(expected all multipliers doubled a second time and the Double replaced by 50x)"),
    ("CTW-690.8e-double", 3029,
     "§ 690.8(e)(2): seats [1, 2] continue; only the players who selected clapper 1, which landed on Double, "
     "continue: [1]"),
    ("CTW-690.8e-double", 3028, "§ 690.8(e)(1): after the Double the wheel was not spun again"),
]
CTW_EARLY_FIFTY = [
    ("CTW-690.8e-double", 4024,
     "§ 690.8(e)(3): after clapper 2 came to rest on Double for the first time the wheel shows the Double replaced "
     "by 50x (section 0: expected Double, shown 50x); the Double is replaced by a 50x multiplier only when the "
     "clapper lands on it a second time — after the first, all multipliers are doubled and the Double stays "
     "(§ 690.8(e)(1))"),
    ("CTW-690.8e-double", 4027,
     "§ 690.8(e): the wheel was doubled although no selected clapper came to rest on Double"),
    ("CTW-690.8e-double", 4029,
     "§ 690.8(d)–(e): the wheel was spun again after every player's payout odds were settled"),
]


def test_ctw_every_selection_deviation_in_order():
    rep, problems = replay(ctw_selections())
    assert problems == CTW_SELECTIONS
    assert rep.final == {1: 50, 2: 150, 3: 300, 4: 50} and rep.undetermined == "no selection for seat(s) [5]"
    assert rep.why == {1: "seat 1's clapper 1 came to rest on section 5 showing 50x",
                       2: "seat 2's clapper 2 came to rest on section 8 showing 150x",
                       3: "seat 3's clapper 3 came to rest on section 11 showing 300x",
                       4: "seat 4's clapper 1 came to rest on section 5 showing 50x"}
    assert (rep.outcome_check, rep.picks, rep.auto_picks, rep.spins, rep.double_landings) == (
        "CTW-690.8cd-countdown", 2, 2, 1, 0)


def test_ctw_order_and_the_doubles_that_went_wrong():
    rep, problems = replay(ctw_order())
    assert problems == CTW_ORDER
    assert rep.final == {2: 75} and rep.why == {} and rep.undetermined == "no respin after the Double"
    assert (rep.outcome_check, rep.double_landings, rep.spins) == ("CTW-690.8cd-countdown", 2, 2)
    rep, problems = replay(ctw_early_fifty())
    assert problems == CTW_EARLY_FIFTY
    assert rep.final == {1: 500} and rep.undetermined is None and rep.outcome_check == "CTW-690.8e-double"
    assert rep.why == {1: "seat 1's clapper 2 came to rest on section 23 showing 500x on spin 2 (after 1 Double(s))"}
    assert (rep.double_landings, rep.spins, rep.picks) == (1, 3, 1)


def test_ctw_checks_report_the_problems_they_own_round_by_round():
    rounds = [ctw_golden(), ctw_selections(), ctw_order(), ctw_early_fifty()]
    v = judge(rounds, CTW_CHECKS)
    countdown = [(int(seq) // 1000, seq, words) for check, seq, words in CTW_SELECTIONS + CTW_ORDER
                 if check == "CTW-690.8cd-countdown"]
    double = [(int(seq) // 1000, seq, words) for check, seq, words in CTW_ORDER + CTW_EARLY_FIFTY
              if check == "CTW-690.8e-double"]
    assert v == {
        "CTW-690.8b-wheel": ("pass", "4 crazy-time game(s) complied with § 690.8(b), (b)(1)–(2), (b)(4)–(5), (f)",
                             [("games", 4, "games", None), ("games_with_top_slot_multiplier", 1, "games", None),
                              ("max_multiplier_shown", 800, "x",
                               "generated in [15, 400] x, then x the Top Slot multiplier"),
                              ("wheel_stops_checked", 9, "stops", None)], []),
        "CTW-690.8cd-countdown": ("fail", "18 deviation(s) from § 690.8(c)–(d), (f)",
                                  [("games", 4, "games", None), ("selections_by_players", 8, "selections", None),
                                   ("selections_automatic", 3, "selections", None)], countdown),
        "CTW-690.8e-double": ("fail", "7 deviation(s) from § 690.8(b)(5), (e), (e)(1)–(3)",
                              [("games", 4, "games", None), ("a_selected_clapper_on_Double", 3, "games", None)],
                              double),
    }
    assert len(countdown) == 18 and len(double) == 7


@pytest.mark.parametrize("kw, problems, undetermined, final", [
    ({}, [("CTW-690.8cd-countdown", 9022, "§ 690.8(d): the wheel never came to rest")], "no wheel spin", {}),
    ({"result": False}, [("CTW-690.8cd-countdown", 9016, "§ 690.8(d): the wheel never came to rest"),
                         ("CTW-690.8cd-countdown", 9022,
                          "§ 690.4(b): no crazy-time bonus_result on record for a settled round")],
     "no wheel spin", {}),
    ({"void": True}, [], "no wheel spin", {}),
    ({"countdown": False, "void": True, "spins": [(0, 3, 6)]},
     [("CTW-690.8cd-countdown", 9019, "§ 690.8(d): the wheel was started before the time for players to select a "
                                      "clapper had elapsed (countdown_end)")], "no selection for seat(s) [1]", {}),
    ({"countdown": False, "spins": [(5, 8, 11)]},
     [("CTW-690.8cd-countdown", 9016, "§ 690.8(c): no countdown timer on record (countdown_start / countdown_end)"),
      ("CTW-690.8cd-countdown", 9016, "§ 690.8(c): seat(s) [1] have no selection; one must be made automatically at "
                                      "random when the time elapses"),
      ("CTW-690.8cd-countdown", 9019, "§ 690.8(d): the wheel was started before the time for players to select a "
                                      "clapper had elapsed (countdown_end)")], "no selection for seat(s) [1]", {}),
    ({"seats": (), "spins": [(5, 8, 11), (9, 12, 15), (1, 4, 7)]},
     [("CTW-690.8cd-countdown", 9023, "§ 690.8(d)–(e): the wheel was spun again after every player's payout odds "
                                      "were settled"),
      ("CTW-690.8cd-countdown", 9025, "§ 690.8(d)–(e): the wheel was spun again after every player's payout odds "
                                      "were settled")], None, {}),
    ({"spins": [(5, 8, 64)]}, [("CTW-690.8b-wheel", 9023, "§ 690.8(b): the wheel reported sections [5, 8, 64] under "
                                                        "its 3 clappers (sections 0..63)")],
     "wheel sections malformed", {}),
    ({"countdown": "start", "spins": [(5, 8, 11)]}, [
        ("CTW-690.8cd-countdown", 9016, "§ 690.8(c): no countdown timer on record (countdown_start / countdown_end)"),
        ("CTW-690.8cd-countdown", 9020, "§ 690.8(c): seat 1 selected at t=113.700 s, outside the countdown"),
        ("CTW-690.8cd-countdown", 9021, "§ 690.8(d): the wheel was started before the time for players to select a "
                                        "clapper had elapsed (countdown_end)")], None, {1: 50}),
    ({"countdown": "end", "spins": [(5, 8, 11)]}, [
        ("CTW-690.8cd-countdown", 9016, "§ 690.8(c): no countdown timer on record (countdown_start / countdown_end)"),
        ("CTW-690.8cd-countdown", 9020, "§ 690.8(c): seat 1 selected at t=113.700 s, outside the countdown")],
     None, {1: 50}),
    ({"spins": [("x", 8, 11)]}, [("CTW-690.8b-wheel", 9023, "ctw_stop sections[0] is 'x', not a whole number")],
     "wheel sections malformed", {}),
    ({"spins": [(5, 8)]}, [("CTW-690.8b-wheel", 9023, "§ 690.8(b): the wheel reported sections [5, 8] under its 3 "
                                                    "clappers (sections 0..63)")], "wheel sections malformed", {}),
    ({"void": True, "spins": [(0, 3, 6)]}, [], "no respin after the Double", {}),
    ({"void": True, "spins": [(0, 3, 6), (5, 8, 11)], "doubled": {0: [1]}},
     [("CTW-690.8e-double", 9028, "seat 1: the croupier's crazy-time result is 50x; the trace gives 100x: seat 1's "
                                  "clapper 1 came to rest on section 5 showing 100x on spin 2 (after 1 Double(s))"),
      ("CTW-690.8e-double", 9029, "wager 9-1 of seat 1 paid at 50 to 1; the crazy-time game gives 100 to 1: seat 1's "
                                  "clapper 1 came to rest on section 5 showing 100x on spin 2 (after 1 Double(s))")],
     None, {1: 100}),
    ({"spins": [(0, 3, 6)], "doubled": {0: [1]}},
     [("CTW-690.8e-double", 9023, "§ 690.8(e)(1): after the Double the wheel was not spun again")],
     "no respin after the Double", {}),
])
def test_ctw_short_rounds(kw, problems, undetermined, final):
    rep, got = replay(ctw_short(9, **kw))
    assert (got, rep.undetermined, rep.final) == (problems, undetermined, final)


def test_ctw_countdown_announced_time_to_the_microsecond():
    def ran(duration):
        r = Round("crazy-time", seats=(1,), n=9)
        r.board(CTW_BASE)
        r.t = 256.0
        r.add("croupier", "countdown_start", {"game": "crazy-time", "duration_s": duration}, dt=0)
        ctw_pick(r, 1, 1)
        r.add("croupier", "countdown_end", {"game": "crazy-time"}, dt=9.0)  # 10.0 s, exactly
        r.ctw_spin((5, 8, 11))
        return replay(r.settle({1: CTW_BASE[8]}))[1]
    assert ran(10.0) == ran(10.000001) == ran("10.5") == []  # to 1 µs; a duration that is no number: not judged
    assert ran(10.0000015) == [("CTW-690.8cd-countdown", 9021,
                                "§ 690.8(c): the countdown announced 10.0000015 s but ended after 10.000 s")]
    assert ran(11) == [("CTW-690.8cd-countdown", 9021,
                        "§ 690.8(c): the countdown announced 11 s but ended after 10.000 s")]


def test_ctw_selection_range_each_side():
    def pick(choice):
        r = Round("crazy-time", seats=(1,), n=9)
        r.board(CTW_BASE)
        r.countdown({1: choice})
        r.ctw_spin((5, 8, 11))
        rep, problems = replay(r.settle({1: {0: CTW_BASE[5], 2: CTW_BASE[11]}.get(choice, 0)}))
        return rep.final, problems
    assert pick(0) == ({1: CTW_BASE[5]}, [])
    assert pick(2) == ({1: CTW_BASE[11]}, [])
    assert pick(3)[1][0] == ("CTW-690.8cd-countdown", 9020, "§ 690.8(c): seat 1 selected 3; the choices are 0..2")
    assert pick(-1)[1][0] == ("CTW-690.8cd-countdown", 9020, "§ 690.8(c): seat 1 selected -1; the choices are 0..2")
    assert pick(True)[1] == [("CTW-690.8cd-countdown", None, "malformed crazy-time bonus record: ValueError: "
                                                             "player_pick choice is True, not a whole number")]


CTW_WHEEL_MEASURED = [("games", 1, "games", None), ("games_with_top_slot_multiplier", 0, "games", None),
                      ("max_multiplier_shown", 400, "x", "generated in [15, 400] x, then x the Top Slot multiplier"),
                      ("wheel_stops_checked", 3, "stops", None)]
SPACING_0 = ("§ 690.8(b)(4): the clappers on sections {} and {} have 0 section(s) between them; at least 2 required")
BAD_STOP = (5, 5025, "§ 690.8(b): the wheel reported sections [1, 2, 99] under its 3 clappers (sections 0..63)")


@pytest.mark.parametrize("info, findings", [
    (None, [BAD_STOP, (5, 5029, "clappers at rest on sections [5, 6, 7]: " + SPACING_0.format(5, 6)),
            (5, 5029, "clappers at rest on sections [5, 6, 7]: " + SPACING_0.format(6, 7))]),
    ({"clappers": "x"}, [(0, None, "§ 690.8(b): the wheel's declaration is malformed: ctw_wheel clappers is 'x', "
                                   "not a list"),
                         BAD_STOP, (5, 5029, "clappers at rest on sections [5, 6, 7]: " + SPACING_0.format(5, 6)),
                         (5, 5029, "clappers at rest on sections [5, 6, 7]: " + SPACING_0.format(6, 7))]),
    ({"clappers": [0, 3, 6], "sections": 60}, [
        (0, None, "§ 690.8(b): the wheel declares 60 sections; it must have 64"), BAD_STOP,
        (5, 5029, "§ 690.8(b)(4): the clappers rest on sections [5, 6, 7] (offsets [0, 1, 2] from clapper 1); the "
                  "declared clappers [0, 3, 6] are at offsets [0, 3, 6]")]),
    ({"clappers": [0, 3, 6], "sections": 8}, [
        (0, None, "§ 690.8(b): the wheel declares 8 sections; it must have 64"),
        (0, None, "declared clappers [0, 3, 6]: § 690.8(b)(4): the clappers on sections 6 and 0 have 1 "
                   "section(s) between them; at least 2 required"), BAD_STOP,
        (5, 5029, "§ 690.8(b)(4): the clappers rest on sections [5, 6, 7] (offsets [0, 1, 2] from clapper 1); the "
                  "declared clappers [0, 3, 6] are at offsets [0, 3, 6]")]),
    ({"clappers": [0, 3, 6], "sections": True}, [
        (0, None, "§ 690.8(b): the wheel's declaration is malformed: ctw_wheel sections is True, not a whole number"),
        BAD_STOP,
        (5, 5029, "§ 690.8(b)(4): the clappers rest on sections [5, 6, 7] (offsets [0, 1, 2] from clapper 1); the "
                  "declared clappers [0, 3, 6] are at offsets [0, 3, 6]")]),
    ({"clappers": [0, 3, 6, 9]}, [(0, None, "declared clappers [0, 3, 6, 9]: § 690.8(b): the wheel has 3 clappers; "
                                            "found 4"), BAD_STOP]),  # no offsets to compare
    ({"clappers": [62, 1, 4]}, [  # across the wrap: offsets 0, 3, 6, as (60, 63, 2) rests
        BAD_STOP, (5, 5029, "§ 690.8(b)(4): the clappers rest on sections [5, 6, 7] (offsets [0, 1, 2] from clapper "
                            "1); the declared clappers [62, 1, 4] are at offsets [0, 3, 6]")]),
    ({"clappers": [0, 1, 2]}, [
        (0, None, "declared clappers [0, 1, 2]: " + SPACING_0.format(0, 1)),
        (0, None, "declared clappers [0, 1, 2]: " + SPACING_0.format(1, 2)), BAD_STOP,
        (5, 5023, "§ 690.8(b)(4): the clappers rest on sections [5, 8, 11] (offsets [0, 3, 6] from clapper 1); the "
                  "declared clappers [0, 1, 2] are at offsets [0, 1, 2]"),
        (5, 5027, "§ 690.8(b)(4): the clappers rest on sections [60, 63, 2] (offsets [0, 3, 6] from clapper 1); the "
                  "declared clappers [0, 1, 2] are at offsets [0, 1, 2]")]),
])
def test_ctw_wheel_declaration_and_every_rest(info, findings):
    rv = ctw_short(5, spins=[(5, 8, 11), (1, 2, 99), (60, 63, 2), (5, 6, 7)])  # the replay stops at the 2nd
    v = judge([rv], [cb.CrazyTimeWorldWheel], BenchView(info={} if info is None else {"ctw_wheel": info},
                                                         rules=RULES_JSON))
    assert v["CTW-690.8b-wheel"] == (
        "fail", f"{len(findings)} deviation(s) from § 690.8(b), (b)(1)–(2), (b)(4)–(5), (f)", CTW_WHEEL_MEASURED,
        findings)


def ctw_one(n: int, *, late_multiplier: bool = False, doubled_values=None, seat=1) -> RoundView:
    """Seat 1 picks clapper 1; Top Slot x2 on Crazy Time; the board multiplied after the countdown
    commenced (``late_multiplier``); clapper 1 lands on Double, the croupier shows ``doubled_values``,
    the respin rests on section 5."""
    r = Round("crazy-time", seats=(1,), top=("crazy-time", 2, True), n=n)
    shown = rb.apply_top_slot(CTW_BASE, 2)
    if late_multiplier:
        r.add("board", "board_generated", {"board_id": 1, "game": "crazy-time", "values": list(CTW_BASE),
                                           "multiplier": 1, "device_time_s": r.t}, dt=1.0)
        r.add("croupier", "countdown_start", {"game": "crazy-time", "duration_s": 10.0})
        r.add("board", "board_multiplied", {"board_id": 1, "game": "crazy-time", "values": list(shown),
                                            "multiplier": 2, "device_time_s": r.t})
        ctw_pick(r, seat, 0)
        r.add("croupier", "countdown_end", {"game": "crazy-time"}, dt=10.0)
        r.ctw_spin((5, 8, 11))
        return r.settle({1: shown[5]})
    r.board(CTW_BASE, 2)
    r.countdown({seat: 0})
    r.ctw_spin((0, 3, 6))
    ctw_doubled(r, (1,), doubled_values)
    r.ctw_spin((5, 8, 11))
    return r.settle({1: 2 * shown[5]})


def test_ctw_the_top_slot_multiplier_applied_after_the_countdown_commenced():
    rep, problems = replay(ctw_one(6, late_multiplier=True))
    assert problems == [("CTW-690.8cd-countdown", 6019, "§ 690.8(f): the Top Slot multiplier was applied (board "
                                                        "shown ×2, seq 6019) after the countdown timer commenced "
                                                        "(seq 6018); it must be applied prior to it")]
    assert rep.final == {1: 100}


def test_ctw_a_first_double_shown_wrong_and_malformed_records():
    once = list(rb.ctw_double(rb.apply_top_slot(CTW_BASE, 2), second=False))
    wrong = once[:]
    wrong[1:4] = [40, 50, 60]  # sections 1..3 not doubled (20, 25, 30 x2 Top Slot), the others right
    rep, problems = replay(ctw_one(7, doubled_values=wrong))
    assert problems == [("CTW-690.8e-double", 7024, "§ 690.8(e)(1): after clapper 1 came to rest on Double the wheel "
                                                    "shows: section 1: expected 80x, shown 40x; section 2: expected "
                                                    "100x, shown 50x; section 3: expected 120x, shown 60x (expected "
                                                    "all multipliers doubled)")]
    assert rep.final == {1: 200}
    wrong[4:6] = [80, 100]
    assert replay(ctw_one(7, doubled_values=wrong))[1][0][2].startswith(
        "§ 690.8(e)(1): after clapper 1 came to rest on Double the wheel shows: section 1: expected 80x, shown 40x; "
        "section 2: expected 100x, shown 50x; section 3: expected 120x, shown 60x (and 2 more cells) (expected")
    rep, problems = replay(ctw_one(7, doubled_values="x"))
    assert problems == [("CTW-690.8cd-countdown", None, "malformed crazy-time bonus record: ValueError: board_doubled "
                                                        "values[0] is 'x', not a whole number")]
    assert rep.undetermined == "malformed bonus record"
    rep, problems = replay(ctw_one(7, doubled_values=once, seat="x"))
    assert problems == [("CTW-690.8cd-countdown", None, "malformed crazy-time bonus record: ValueError: player_pick "
                                                        "seat is 'x', not a whole number")]


# ------------------------------------------------------------------ § 690.7 Pachinko
PA_BASE = (10, 2, 3, 4, 5, 0, 20, 3, 400, 15, 4, 25, 50, 2, 7, 100)  # spot 6 (index 5): Double
PA_CHECKS = (cb.PachinkoMultipliers, cb.PachinkoDropZone, cb.PachinkoDouble, cb.PachinkoRescue, cb.PachinkoOrder)


def pachinko(n: int, steps, *, pay=0, top=("1", 1, False), base=PA_BASE, result: bool = True,
             late_multiplier: bool = False) -> RoundView:
    """Steps: ("drop", zone, spot[, drawn]) a drawn zone, the drop and its landing; ("zone", value[, n])
    a drop-zone draw alone; ("puck", zone) a drop alone; ("land", zone, spot) a landing alone;
    ("doubled", values[, device]); ("rescue", 0|1); ("rescued", values); ("void",); ("raw", device, kind,
    payload). ``late_multiplier``: the board shown multiplied only after the first step."""
    r = Round("pachinko", top=top, n=n)
    m = top[1] if top[2] and top[0] == "pachinko" else 1
    if late_multiplier:
        r.add("board", "board_generated", {"board_id": 1, "game": "pachinko", "values": list(base), "multiplier": 1,
                                           "device_time_s": r.t}, dt=1.0)
    else:
        r.board(base, m)
    for k, step in enumerate(steps):
        kind, args = step[0], step[1:]
        if kind == "drop":
            r.drop(*args)
        elif kind == "zone":
            r.draw("drop_zone", args[1] if len(args) > 1 else 10, args[0])
        elif kind == "puck":
            r.add("pachinko", "puck_drop", {"drop_id": 1, "zone": args[0], "device_time_s": r.t})
        elif kind == "land":
            r.add("pachinko", "puck_landed", {"drop_id": 1, "zone": args[0], "spot": args[1]}, dt=1.0)
        elif kind == "doubled":
            r.add(args[1] if len(args) > 1 else "croupier", "board_doubled",
                  {"board_id": 1, "spot": 6, "values": list(args[0])})
        elif kind == "rescue":
            r.draw("rescue", 2, args[0])
        elif kind == "rescued":
            r.add("croupier", "board_rescued", {"board_id": 1, "spot": 0, "trigger": 0, "values": list(args[0])})
        elif kind == "void":
            r.add("croupier", "bonus_void", {"reason": "the puck lodged"})
        elif kind == "raw":
            r.add(*args)
        if late_multiplier and k == 0:
            r.add("board", "board_multiplied", {"board_id": 1, "game": "pachinko", "multiplier": m,
                                                "values": list(rb.apply_top_slot(base, m)), "device_time_s": r.t})
    if not result:
        r.add("croupier", "round_end", {"round": n, "void": False, "result": "pachinko"})
        return RoundView.of(n, r.events)
    return r.settle(dict.fromkeys(r.seats, pay))


PA_DOUBLED = rb.pachinko_double(PA_BASE, 6)  # every other spot doubled, spot 6 shows 50x
PA_RESCUED = rb.pachinko_rescue(PA_DOUBLED, 4)  # after a Rescue Drop on 4x (spot 2, 2x doubled)


def pa_golden() -> RoundView:
    return pachinko(1, [("drop", 8, 6), ("doubled", PA_DOUBLED), ("doubled", PA_BASE, "pachinko"),
                        ("drop", 5, 2), ("rescue", 1), ("rescued", PA_RESCUED), ("drop", 9, 3),
                        ("raw", "croupier", "board_draw", {"purpose": "rescue", "n": 2, "value": 1})],
                    pay=PA_RESCUED[2])


def pa_scan() -> RoundView:
    """Records out of place: a doubled board and a rescue draw before any drop, a landing without a
    drop, a zone drawn twice (the second from the wrong range), a drop outside the area whose landing
    names another zone, then a drop after the final landing without a draw."""
    return pachinko(2, [("doubled", PA_DOUBLED), ("rescue", 1), ("land", 7, 7), ("zone", 3), ("zone", 3, 16),
                        ("puck", 3), ("land", 4, 1), ("puck", 7), ("land", 7, 9)], pay=10)


def pa_double_unshown() -> RoundView:
    """On Double with no doubled board shown, a rescue draw and a rescued board after it, the next drop
    from another zone than drawn, then one more drop after the final landing."""
    return pachinko(3, [("drop", 8, 6), ("rescue", 1), ("rescued", PA_BASE), ("drop", 5, 7, 6), ("drop", 6, 1)],
                    pay=40)


def pa_double_wrong() -> RoundView:
    """On Double the board shown wrong (spot 6 kept Double, spots 1-4 not doubled); the next drop
    without a draw lands on 4x (spot 2): no rescue draw; then a doubled board and a rescued one."""
    wrong = list(PA_BASE[:4]) + list(PA_DOUBLED[4:])
    wrong[5] = 0
    return pachinko(4, [("drop", 8, 6), ("doubled", wrong), ("puck", 5), ("land", 5, 2), ("doubled", PA_DOUBLED),
                        ("rescued", PA_RESCUED)], pay=4)


def pa_rescue_twice() -> RoundView:
    """On 2x (spot 2): two rescue draws, the board never shown updated, no drop after it."""
    return pachinko(5, [("drop", 4, 2), ("rescue", 1), ("rescue", 1)], pay=2)


def pa_rescue_then_more() -> RoundView:
    """A Rescue Drop on 2x (spot 14); the drop after it, from another zone than drawn, lands on spot 2
    (2x, the trigger: kept); a rescue draw on it, not activated (but there shall be none), and one more
    drop after the final landing."""
    rescued = rb.pachinko_rescue(PA_BASE, 2)
    return pachinko(6, [("drop", 7, 14), ("rescue", 1), ("rescued", rescued), ("drop", 9, 2, 10), ("rescue", 0),
                        ("drop", 9, 9)], pay=2)


def pa_denied() -> RoundView:
    """A Rescue Drop activated on 10x (spot 1): not permitted, the landing stands; a board rescued for
    it, and another drop."""
    return pachinko(7, [("drop", 4, 1), ("rescue", 1), ("rescued", PA_BASE), ("drop", 5, 9)], pay=10)


PA_SCAN = [
    ("PA-690.7e-double", 2020, "§ 690.7: board_doubled before any puck was dropped"),
    ("PA-690.7g-rescue", 2021, "§ 690.7: board_draw before any puck was dropped"),
    ("PA-690.7d-drop-zone", 2022, "§ 690.7(d): a landing reported without a puck drop"),
    ("PA-690.7d-drop-zone", 2023, "§ 690.7(d): the drop zone drawn is 3 (of 10); the location is selected at "
                                  "random above landing spots 4 through 13"),
    ("PA-690.7d-drop-zone", 2024, "§ 690.7(d): a drop zone was drawn twice for one drop"),
    ("PA-690.7d-drop-zone", 2024, "§ 690.7(d): the drop zone drawn is 3 (of 16); the location is selected at "
                                  "random above landing spots 4 through 13"),
    ("PA-690.7d-drop-zone", 2025, "§ 690.7(d): the puck was dropped above landing spot 3, outside the area above "
                                  "landing spots 4 through 13 (the center half of the board)"),
    ("PA-690.7d-drop-zone", 2026, "§ 690.7(d): the landing reports zone 4; the puck was dropped from zone 3"),
    ("PA-690.7d-drop-zone", 2027, "§ 690.7(d): the puck was dropped from zone 7 without a randomly selected drop "
                                  "zone (no drop_zone draw by the board for this drop)"),
    ("PA-690.7d-drop-zone", 2027, "§ 690.7: the puck was dropped again after it came to rest on 10x, which "
                                  "constituted the winning payout odds"),
]

PA_DOUBLE_UNSHOWN = [
    ("PA-690.7e-double", 3022, "§ 690.7(e)(1)–(2): the puck came to rest on Double (spot 6) but the board was not "
                               "shown doubled with the Double replaced by 50x"),
    ("PA-690.7g-rescue", 3023, "§ 690.7(g): board_draw after a landing on Double; a Rescue Drop is activated only "
                               "on 2x, 3x or 4x"),
    ("PA-690.7g-rescue", 3024, "§ 690.7(g): board_rescued after a landing on Double; a Rescue Drop is activated "
                               "only on 2x, 3x or 4x"),
    ("PA-690.7e-double", 3026, "§ 690.7(e)(3): the puck was dropped from zone 5; the randomly selected drop zone "
                               "was 6 (seq 3025)"),
    ("PA-690.7e-double", 3029, "§ 690.7: the puck was dropped again after it came to rest on 40x, which "
                               "constituted the winning payout odds"),
]

PA_DOUBLE_WRONG = [
    ("PA-690.7e-double", 4023, "§ 690.7(e)(1)–(2): after the Double on spot 6 the board shows [10x, 2x, 3x, 4x, "
                               "10x, Double, 40x, 6x, 800x, 30x, 8x, 50x, 100x, 4x, 14x, 200x]: spot 1: expected "
                               "20x, shown 10x; spot 2: expected 4x, shown 2x; spot 3: expected 6x, shown 3x (and 2 "
                               "more cells) (all other multipliers doubled, the Double replaced with 50x)"),
    ("PA-690.7e-double", 4024, "§ 690.7(e)(3): the puck was dropped from zone 5 without a randomly selected drop "
                               "zone (no drop_zone draw by the board for this drop)"),
    ("PA-690.7e-double", 4026, "§ 690.7(e): the board was doubled although the puck came to rest on 4x (spot 2), "
                               "not on Double"),
    ("PA-690.7g-rescue", 4025, "§ 690.7(g): the puck came to rest on 4x (spot 2) with no Rescue Drop yet, but no "
                               "Rescue Drop draw was made (the Rules Submission activates one with probability 1/3)"),
    ("PA-690.7g-rescue", 4027, "§ 690.7(g): the board was updated for a Rescue Drop without a draw"),
]

PA_RESCUE_TWICE = [
    ("PA-690.7g-rescue", 5024, "§ 690.7(g): two Rescue Drop draws after one landing"),
    ("PA-690.7g-rescue", 5023, "§ 690.7(g)(1)–(2): a Rescue Drop on 2x was activated but the board was not shown "
                               "updated"),
    ("PA-690.7g-rescue", 5023, "§ 690.7(g)(3)–(4): a Rescue Drop was activated but no puck was dropped again"),
]

PA_RESCUE_THEN_MORE = [
    ("PA-690.7g-rescue", 6026, "§ 690.7(g)(3): the puck was dropped from zone 9; the randomly selected drop zone "
                               "was 10 (seq 6025)"),
    ("PA-690.7g-rescue", 6028, "§ 690.7(g): a Rescue Drop was drawn after the puck came to rest on 2x (spot 2); a "
                               'Rescue Drop had already been activated — § 690.7(g)(4): "No additional Rescue Drops '
                               'shall follow"'),
    ("PA-690.7g-rescue", 6030, "§ 690.7: the puck was dropped again after it came to rest on 2x, which "
                               "constituted the winning payout odds; no additional Rescue Drops shall follow (§ "
                               "690.7(g)(4))"),
]

PA_DENIED = [
    ("PA-690.7g-rescue", 7023, "§ 690.7(g): a Rescue Drop was drawn after the puck came to rest on 10x (spot 1); "
                               "a Rescue Drop is activated only when the puck comes to rest on a 2x, 3x or 4x "
                               "multiplier (judged on the values as displayed (rescue_reading 'displayed'))"),
    ("PA-690.7g-rescue", 7024, "§ 690.7(g): the board was updated for a Rescue Drop that was not (permitted to "
                               "be) activated"),
    ("PA-690.7g-rescue", 7026, "§ 690.7: the puck was dropped again after it came to rest on 10x, which "
                               "constituted the winning payout odds; no Rescue Drop is permitted on 10x (§ "
                               "690.7(g))"),
]



def test_pa_golden_every_check():
    rep, problems = replay(pa_golden())
    assert problems == [] and rep.undetermined is None and rep.outcome_check == "PA-690.7g-rescue"
    assert rep.final == {1: 6, 2: 6}  # spot 3: 3x, doubled; not lower than the 4x trigger, kept
    assert rep.why == dict.fromkeys((1, 2), "the puck came to rest on spot 3, showing 6x after a Rescue Drop")
    assert tallies(rep) == {"flips": 0, "rescue_eligible": 1, "rescue_draws": 1, "rescues": 1, "drops": 3,
                            "double_landings": 1, "spins": 0, "picks": 0, "auto_picks": 0}
    assert judge([pa_golden()], PA_CHECKS) == {
        "PA-690.7c-multipliers": ("pass", "1 pachinko game(s) complied with § 690.7(b)–(c), (c)(1)–(3), (f)",
                                  [("games", 1, "games", None), ("games_with_top_slot_multiplier", 0, "games", None),
                                   ("max_multiplier_shown", 400, "x",
                                    "generated in [2, 400] x, then x the Top Slot multiplier")], []),
        "PA-690.7d-drop-zone": ("pass", "1 pachinko game(s) complied with § 690.7(d)",
                                [("games", 1, "games", None), ("drops", 3, "drops", "zone in 4..13, as drawn")], []),
        "PA-690.7e-double": ("pass", "1 pachinko game(s) complied with § 690.7(e), (e)(1)–(4)",
                             [("games", 1, "games", None), ("a_landing_on_Double", 1, "games", None)], []),
        "PA-690.7g-rescue": ("pass", "1 pachinko game(s) complied with § 690.7(g), (g)(1)–(4)",
                             [("games", 1, "games", None), ("a_landing_on_2x,_3x_or_4x", 1, "games", None),
                              ("rescue_drops", 1, "drops", None)], []),
        "PA-690.7f-order": ("pass", "1 pachinko game(s) complied with § 690.7(c), (f)", [("games", 1, "games", None)],
                            []),
    }


def test_pa_every_deviation_pinned():
    for build, problems, final, why, outcome in [
            (pa_scan, PA_SCAN, 10, "the puck came to rest on spot 1, showing 10x", "PA-690.7d-drop-zone"),
            (pa_double_unshown, PA_DOUBLE_UNSHOWN, 40, "the puck came to rest on spot 7, showing 40x after the Double",
             "PA-690.7e-double"),
            (pa_double_wrong, PA_DOUBLE_WRONG, 4, "the puck came to rest on spot 2, showing 4x after the Double",
             "PA-690.7e-double"),
            (pa_rescue_then_more, PA_RESCUE_THEN_MORE, 2,
             "the puck came to rest on spot 2, showing 2x after a Rescue Drop", "PA-690.7g-rescue"),
            (pa_denied, PA_DENIED, 10, "the puck came to rest on spot 1, showing 10x", "PA-690.7g-rescue")]:
        rep, got = replay(build())
        assert (got, rep.final, rep.why, rep.outcome_check, rep.undetermined) == (
            problems, {1: final, 2: final}, {1: why, 2: why}, outcome, None), build.__name__
    rep, got = replay(pa_rescue_twice())
    assert (got, rep.final, rep.undetermined) == (PA_RESCUE_TWICE, {}, "no Rescue Drop")
    assert [tallies(replay(b())[0]) for b in (pa_scan, pa_double_wrong, pa_rescue_then_more, pa_denied)] == [
        {"flips": 0, "rescue_eligible": 0, "rescue_draws": 0, "rescues": 0, "drops": 2, "double_landings": 0,
         "spins": 0, "picks": 0, "auto_picks": 0},
        {"flips": 0, "rescue_eligible": 1, "rescue_draws": 0, "rescues": 0, "drops": 2, "double_landings": 1,
         "spins": 0, "picks": 0, "auto_picks": 0},
        {"flips": 0, "rescue_eligible": 1, "rescue_draws": 2, "rescues": 1, "drops": 3, "double_landings": 0,
         "spins": 0, "picks": 0, "auto_picks": 0},
        {"flips": 0, "rescue_eligible": 0, "rescue_draws": 1, "rescues": 0, "drops": 2, "double_landings": 0,
         "spins": 0, "picks": 0, "auto_picks": 0}]


def test_pa_checks_report_the_problems_they_own_round_by_round():
    rounds = [pa_golden(), pa_scan(), pa_double_unshown(), pa_double_wrong(), pa_rescue_twice(), pa_rescue_then_more(),
              pa_denied()]
    every = PA_SCAN + PA_DOUBLE_UNSHOWN + PA_DOUBLE_WRONG + PA_RESCUE_TWICE + PA_RESCUE_THEN_MORE + PA_DENIED

    def of(check):
        return [(seq // 1000, seq, words) for c, seq, words in every if c == check]
    assert judge(rounds, PA_CHECKS) == {
        "PA-690.7c-multipliers": ("pass", "7 pachinko game(s) complied with § 690.7(b)–(c), (c)(1)–(3), (f)",
                                  [("games", 7, "games", None), ("games_with_top_slot_multiplier", 0, "games", None),
                                   ("max_multiplier_shown", 400, "x",
                                    "generated in [2, 400] x, then x the Top Slot multiplier")], []),
        "PA-690.7d-drop-zone": ("fail", "8 deviation(s) from § 690.7(d)",
                                [("games", 7, "games", None), ("drops", 16, "drops", "zone in 4..13, as drawn")],
                                of("PA-690.7d-drop-zone")),
        "PA-690.7e-double": ("fail", "7 deviation(s) from § 690.7(e), (e)(1)–(4)",
                             [("games", 7, "games", None), ("a_landing_on_Double", 3, "games", None)],
                             of("PA-690.7e-double")),
        "PA-690.7g-rescue": ("fail", "14 deviation(s) from § 690.7(g), (g)(1)–(4)",
                             [("games", 7, "games", None), ("a_landing_on_2x,_3x_or_4x", 5, "games", None),
                              ("rescue_drops", 3, "drops", None)], of("PA-690.7g-rescue")),
        "PA-690.7f-order": ("pass", "7 pachinko game(s) complied with § 690.7(c), (f)", [("games", 7, "games", None)],
                            []),
    }


NO_RESCUE = RULES.model_copy(update={"pachinko": RULES.pachinko.model_copy(
    update={"rescue_probability": 0, "double_probability": 0})})
BEFORE_TOP_SLOT = RULES.model_copy(update={"rescue_reading": "before-top-slot"})
PA_X2 = ("pachinko", 2, True)
PA_X2_RESCUED = rb.pachinko_rescue(rb.apply_top_slot(PA_BASE, 2), 8, "before-top-slot", 2)
# under a Top Slot x25 judged before it, a 50x is a 2x — but not the literal 50x that replaced the Double
PA_X25 = ("pachinko", 25, True)
BTS25_DOUBLED = rb.pachinko_double(rb.apply_top_slot(PA_BASE, 25), 6)
BTS25_RESCUED = rb.pachinko_rescue(BTS25_DOUBLED, 100, "before-top-slot", 25, literal={5})  # = BTS25_DOUBLED
PA_SHORT = [
    ("never lands",
     lambda: pachinko(9, [("zone", 5), ("puck", 5)]),
     RULES, [
        ("PA-690.7d-drop-zone", 9021, "§ 690.7(d): the puck never came to rest in a landing spot"),
     ],
     'puck did not land', {},
     None),
    ("never lands, void",
     lambda: pachinko(9, [("zone", 5), ("puck", 5), ("void",)]),
     RULES, [],
     'puck did not land', {},
     None),
    ("spot 17",
     lambda: pachinko(9, [("drop", 13, 17)]),
     RULES, [
        ("PA-690.7d-drop-zone", 9022, "§ 690.7(b): landing spot 17; the board has spots 1..16"),
     ],
     'landing spot off the board', {},
     None),
    ("spot 0",
     lambda: pachinko(9, [("drop", 4, 0)]),
     RULES, [
        ("PA-690.7d-drop-zone", 9022, "§ 690.7(b): landing spot 0; the board has spots 1..16"),
     ],
     'landing spot off the board', {},
     None),
    ("spot 16 from zone 13",
     lambda: pachinko(9, [("drop", 13, 16)], pay=100),
     RULES, [],
     None, {1: 100, 2: 100},
     "the puck came to rest on spot 16, showing 100x"),
    ("zone 14",
     lambda: pachinko(9, [("drop", 14, 16)], pay=100),
     RULES, [
        ("PA-690.7d-drop-zone", 9020, "§ 690.7(d): the drop zone drawn is 14 (of 10); the location is selected at "
                                      "random above landing spots 4 through 13"),
        ("PA-690.7d-drop-zone", 9021, "§ 690.7(d): the puck was dropped above landing spot 14, outside the area "
                                      "above landing spots 4 through 13 (the center half of the board)"),
     ],
     None, {1: 100, 2: 100},
     "the puck came to rest on spot 16, showing 100x"),
    ("Double last",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", PA_DOUBLED)]),
     RULES, [
        ("PA-690.7e-double", 9022, "§ 690.7(e)(3)–(4): after the Double no puck was dropped from a randomly "
                                   "selected drop zone"),
     ],
     'no drop after the Double', {},
     None),
    ("Double last, void",
     lambda: pachinko(9, [("drop", 8, 6), ("void",)]),
     RULES, [],
     'no drop after the Double', {},
     None),
    ("no drop",
     lambda: pachinko(9, []),
     RULES, [
        ("PA-690.7d-drop-zone", 9020, "§ 690.7(d): the puck was never dropped"),
     ],
     'no final landing', {},
     None),
    ("no drop, no result",
     lambda: pachinko(9, [], result=False),
     RULES, [
        ("PA-690.7d-drop-zone", 9017, "§ 690.7(d): the puck was never dropped"),
        ("PA-690.7d-drop-zone", 9020, "§ 690.4(b): no pachinko bonus_result on record for a settled round"),
     ],
     'no final landing', {},
     None),
    ("no drop, void",
     lambda: pachinko(9, [("void",)]),
     RULES, [],
     'no final landing', {},
     None),
    ("Rescue last, void",
     lambda: pachinko(9, [("drop", 4, 2), ("rescue", 1), ("rescued", PA_BASE), ("void",)]),
     RULES, [],
     'no Rescue Drop', {},
     None),
    ("probabilities 0",
     lambda: pachinko(9, [("drop", 4, 2), ("rescue", 1), ("rescued", PA_BASE), ("drop", 5, 7)], pay=20),
     NO_RESCUE, [
        ("PA-690.7c-multipliers", 9018, "§ 690.7(c): the board shows Double but the Rules Submission's "
                                        "pachinko.double_probability is 0"),
        ("PA-690.7g-rescue", 9023, "§ 690.7(g): a Rescue Drop was activated but the Rules Submission's "
                                   "pachinko.rescue_probability is 0"),
     ],
     None, {1: 20, 2: 20},
     "the puck came to rest on spot 7, showing 20x after a Rescue Drop"),
    ("probabilities 0, no draw",
     lambda: pachinko(9, [("drop", 4, 3)], pay=3),
     NO_RESCUE, [
        ("PA-690.7c-multipliers", 9018, "§ 690.7(c): the board shows Double but the Rules Submission's "
                                        "pachinko.double_probability is 0"),
     ],
     None, {1: 3, 2: 3},
     "the puck came to rest on spot 3, showing 3x"),
    ("no rules, no draw",
     lambda: pachinko(9, [("drop", 4, 3)], pay=3),
     None, [],
     None, {1: 3, 2: 3},
     "the puck came to rest on spot 3, showing 3x"),
    ("5x, no draw",
     lambda: pachinko(9, [("drop", 4, 5)], pay=5),
     RULES, [],
     None, {1: 5, 2: 5},
     "the puck came to rest on spot 5, showing 5x"),
    ("4x, no draw",
     lambda: pachinko(9, [("drop", 4, 4)], pay=4),
     RULES, [
        ("PA-690.7g-rescue", 9022, "§ 690.7(g): the puck came to rest on 4x (spot 4) with no Rescue Drop yet, but "
                                   "no Rescue Drop draw was made (the Rules Submission activates one with "
                                   "probability 1/3)"),
     ],
     None, {1: 4, 2: 4},
     "the puck came to rest on spot 4, showing 4x"),
    ("before-top-slot x2: 10x",
     lambda: pachinko(9, [("drop", 4, 5)], pay=10, top=PA_X2),
     BEFORE_TOP_SLOT, [],
     None, {1: 10, 2: 10},
     "the puck came to rest on spot 5, showing 10x"),
    ("before-top-slot x2: 8x is 4x",
     lambda: pachinko(9, [("drop", 4, 4), ("rescue", 1), ("rescued", PA_X2_RESCUED), ("drop", 5, 1)], pay=20,
                      top=PA_X2),
     BEFORE_TOP_SLOT, [],
     None, {1: 20, 2: 20},
     "the puck came to rest on spot 1, showing 20x after a Rescue Drop"),
    ("before-top-slot x2: a draw on 10x",
     lambda: pachinko(9, [("drop", 4, 5), ("rescue", 1)], pay=10, top=PA_X2),
     BEFORE_TOP_SLOT, [
        ("PA-690.7g-rescue", 9023, "§ 690.7(g): a Rescue Drop was drawn after the puck came to rest on 10x (spot "
                                   "5); a Rescue Drop is activated only when the puck comes to rest on a 2x, 3x or "
                                   "4x multiplier (judged on the multipliers before the Top Slot's x2 "
                                   "(rescue_reading 'before-top-slot'))"),
     ],
     None, {1: 10, 2: 10},
     "the puck came to rest on spot 5, showing 10x"),
    ("displayed x2: 2x shows 4x",
     lambda: pachinko(9, [("drop", 4, 2)], pay=4, top=PA_X2),
     RULES, [
        ("PA-690.7g-rescue", 9022, "§ 690.7(g): the puck came to rest on 4x (spot 2) with no Rescue Drop yet, but "
                                   "no Rescue Drop draw was made (the Rules Submission activates one with "
                                   "probability 1/3)"),
     ],
     None, {1: 4, 2: 4},
     "the puck came to rest on spot 2, showing 4x"),
    ("the board multiplied after the first drop",
     lambda: pachinko(9, [("drop", 4, 1)], pay=20, top=PA_X2, late_multiplier=True),
     RULES, [
        ("PA-690.7f-order", 9022, "§ 690.7(f): the Top Slot multiplier was applied (board shown ×2, seq 9022) "
                                  "after the puck was dropped (puck_drop) (seq 9020); it must be applied prior to "
                                  "it"),
     ],
     None, {1: 20, 2: 20},
     "the puck came to rest on spot 1, showing 20x"),
    ("after the Double a drop from zone 2 without a draw",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", PA_DOUBLED), ("puck", 2), ("land", 2, 1)], pay=20),
     RULES, [
        ("PA-690.7d-drop-zone", 9024, "§ 690.7(d): the puck was dropped above landing spot 2, outside the area "
                                      "above landing spots 4 through 13 (the center half of the board)"),
        ("PA-690.7d-drop-zone", 9024, "§ 690.7(d): the puck was dropped from zone 2 without a randomly selected "
                                      "drop zone (no drop_zone draw by the board for this drop)"),
     ],
     None, {1: 20, 2: 20},
     "the puck came to rest on spot 1, showing 20x after the Double"),
    ("two drops after the final landing, without draws",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", PA_DOUBLED), ("drop", 5, 1), ("puck", 6), ("land", 6, 9),
                          ("puck", 7), ("land", 7, 9)], pay=20),
     RULES, [
        ("PA-690.7d-drop-zone", 9027, "§ 690.7(d): the puck was dropped from zone 6 without a randomly selected "
                                      "drop zone (no drop_zone draw by the board for this drop)"),
        ("PA-690.7e-double", 9027, "§ 690.7: the puck was dropped again after it came to rest on 20x, which "
                                   "constituted the winning payout odds"),
        ("PA-690.7d-drop-zone", 9029, "§ 690.7(d): the puck was dropped from zone 7 without a randomly selected "
                                      "drop zone (no drop_zone draw by the board for this drop)"),
        ("PA-690.7e-double", 9029, "§ 690.7: the puck was dropped again after it came to rest on 20x, which "
                                   "constituted the winning payout odds"),
     ],
     None, {1: 20, 2: 20},
     "the puck came to rest on spot 1, showing 20x after the Double"),
    ("a landing spot 'x'",
     lambda: pachinko(9, [("drop", 4, "x")]),
     RULES, [
        ("PA-690.7d-drop-zone", None, "malformed pachinko bonus record: ValueError: landing spot is 'x', not a "
                                      "whole number"),
     ],
     'malformed bonus record', {},
     None),
    ("a doubled board 'x'",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", "x"), ("drop", 5, 1)]),
     RULES, [
        ("PA-690.7d-drop-zone", None, "malformed pachinko bonus record: ValueError: board_doubled values[0] is "
                                      "'x', not a whole number"),
     ],
     'malformed bonus record', {},
     None),
    ("a rescued board 'x'",
     lambda: pachinko(9, [("drop", 4, 2), ("rescue", 1), ("rescued", "x"), ("drop", 5, 1)]),
     RULES, [
        ("PA-690.7d-drop-zone", None, "malformed pachinko bonus record: ValueError: board_rescued values[0] is "
                                      "'x', not a whole number"),
     ],
     'malformed bonus record', {},
     None),
    ("a rescue draw 'x'",
     lambda: pachinko(9, [("drop", 4, 2), ("rescue", "x")]),
     RULES, [
        ("PA-690.7d-drop-zone", None, "malformed pachinko bonus record: ValueError: rescue draw value is 'x', not "
                                      "a whole number"),
     ],
     'malformed bonus record', {},
     None),
    ("x25 before the Top Slot: the 50x of the Double is 50x",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", BTS25_DOUBLED), ("drop", 5, 6)], pay=50, top=PA_X25),
     BEFORE_TOP_SLOT, [],
     None, {1: 50, 2: 50},
     "the puck came to rest on spot 6, showing 50x after the Double"),
    ("x25 before the Top Slot: a Rescue Drop keeps the 50x",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", BTS25_DOUBLED), ("drop", 5, 2), ("rescue", 1),
                          ("rescued", BTS25_RESCUED), ("drop", 6, 6)], pay=50, top=PA_X25),
     BEFORE_TOP_SLOT, [],
     None, {1: 50, 2: 50},
     "the puck came to rest on spot 6, showing 50x after a Rescue Drop"),
]


@pytest.mark.parametrize("name, build, rules, problems, undetermined, final, why", PA_SHORT,
                         ids=[c[0] for c in PA_SHORT])
def test_pa_short_rounds(name, build, rules, problems, undetermined, final, why):
    rep, got = replay(build(), rules)
    assert (got, rep.undetermined, rep.final, rep.why.get(1)) == (problems, undetermined, final, why)


@pytest.mark.parametrize("cells, para, words", [
    ({1: 2}, "(g)(1)", "[10x, 2x, 3x, 4x, 5x, Double, 20x, 3x, 400x, 15x, 4x, 25x, 50x, 3x, 7x, 100x]: spot 2: "
                       "expected 3x, shown 2x (a multiplier lower than the triggering 3x shall be updated to be equal "
                       "to it)"),
    ({0: 11}, "(g)(2)", "[11x, 3x, 3x, 4x, 5x, Double, 20x, 3x, 400x, 15x, 4x, 25x, 50x, 3x, 7x, 100x]: spot 1: "
                        "expected 10x, shown 11x (a multiplier equal to or greater than the triggering 3x shall remain "
                        "the same)"),
    ({0: 11, 1: 2}, "(g)(1)–(2)", "[11x, 2x, 3x, 4x, 5x, Double, 20x, 3x, 400x, 15x, 4x, 25x, 50x, 3x, 7x, 100x]: "
                                  "spot 1: expected 10x, shown 11x; spot 2: expected 3x, shown 2x (multipliers lower "
                                  "than 3x raised to 3x, the others unchanged)"),
    ({15: None}, "(g)(1)–(2)", "[10x, 3x, 3x, 4x, 5x, Double, 20x, 3x, 400x, 15x, 4x, 25x, 50x, 3x, 7x]: 15 cells "
                               "shown, 16 expected (multipliers lower than 3x raised to 3x, the others unchanged)"),
])
def test_pa_a_rescued_board_shown_wrong_names_its_paragraph(cells, para, words):
    shown = list(rb.pachinko_rescue(PA_BASE, 3))  # spots 2 and 14 (2x) raised to 3x
    for i, v in cells.items():
        shown[i] = v
    rv = pachinko(9, [("drop", 4, 3), ("rescue", 1), ("rescued", [v for v in shown if v is not None]),
                      ("drop", 5, 7)], pay=20)
    rep, problems = replay(rv)
    assert problems == [("PA-690.7g-rescue", 9024,
                         f"§ 690.7{para}: after the Rescue Drop on 3x the board shows {words}")]
    assert rep.final == {1: 20, 2: 20}


# ------------------------------------------------------------------ § 690.5 Coin Flip
CF_CHECKS = (cb.CoinFlipMultipliers, cb.CoinFlipOrder, cb.CoinFlipRescue)


def coin(n: int, steps, *, base=(2, 20), top=("1", 1, False), pay=0, result: bool = True) -> RoundView:
    """Steps: ("flip", face), ("rescue", value) the board's rescue draw, ("void",)."""
    r = Round("coin-flip", top=top, n=n)
    r.board(base, top[1] if top[2] and top[0] == "coin-flip" else 1)
    for step in steps:
        if step[0] == "flip":
            r.flip(step[1])
        elif step[0] == "rescue":
            r.draw("rescue", 2, step[1])
        elif step[0] == "void":
            r.add("croupier", "bonus_void", {"reason": "the flipper jammed"})
        else:  # a look-alike: ("croupier", kind, payload)
            r.add(*step)
    if not result:
        r.add("croupier", "round_end", {"round": n, "void": False, "result": "coin-flip"})
        return RoundView.of(n, r.events)
    return r.settle(dict.fromkeys(r.seats, pay))


def cf_golden() -> RoundView:
    """Red 2x / blue 20x; red up: (f)(1)-(3) hold, the Rescue Flip is drawn and lands blue up."""
    return coin(1, [("croupier", "board_draw", {"purpose": "rescue", "n": 2, "value": 1}), ("flip", "red"),
                    ("board", "board_draw", {"board_id": 1, "purpose": "shuffle", "n": 2, "value": 1}),
                    ("rescue", 1), ("flip", "blue")], pay=20)


def cf_unpermitted() -> RoundView:
    """Red 4x / blue 20x: a rescue draw before the flip, one after it (activated although (f)(1) does not
    hold), a second flip and a third."""
    return coin(2, [("rescue", 1), ("flip", "red"), ("rescue", 1), ("flip", "blue"), ("flip", "blue")], base=(4, 20),
                pay=4)


def cf_not_activated() -> RoundView:
    """A draw that does not activate the Rescue Flip, and the coin flipped again."""
    return coin(3, [("flip", "red"), ("rescue", 0), ("flip", "blue")], pay=2)


def cf_no_draw() -> RoundView:
    """(f)(1)-(3) held, no draw, the coin flipped again."""
    return coin(4, [("flip", "red"), ("flip", "blue")], pay=2)


CF_UNPERMITTED = [
    ("CF-690.5fg-rescue", 2020, "§ 690.5(f): a Rescue Flip was drawn before the initial flip came to rest"),
    ("CF-690.5fg-rescue", 2023, "§ 690.5(f)–(g): 2 Rescue Flip draws in one game; a Rescue Flip may follow the "
                                "initial flip once"),
    ("CF-690.5fg-rescue", 2020, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold (red 4x "
                                "/ blue 20x, red face up; judged on the values as displayed (rescue_reading "
                                "'displayed')): § 690.5(f)(1): the small multiplier was 4x, not 2x or 3x"),
    ("CF-690.5fg-rescue", 2027, "§ 690.5(g): 3 flips in one game; the Rescue Flip is the final outcome"),
]

CF_NOT_ACTIVATED = [
    ("CF-690.5fg-rescue", 3024, "§ 690.5(d), (g): the coin was flipped again although no Rescue Flip was "
                                "activated"),
]

CF_NO_DRAW = [
    ("CF-690.5fg-rescue", 4021, "§ 690.5(f): (f)(1)–(3) held (red 2x / blue 20x, red face up; judged on the "
                                "values as displayed (rescue_reading 'displayed')) but no Rescue Flip draw was made "
                                "(the Rules Submission activates one with probability 1/2)"),
    ("CF-690.5fg-rescue", 4023, "§ 690.5(d), (g): the coin was flipped again without a Rescue Flip draw"),
]


CF_WHY = "the initial flip landed red up: 2x (red 2x / blue 20x, red face up)"


def test_cf_golden_and_every_deviation():
    rep, problems = replay(cf_golden())
    assert problems == [] and rep.undetermined is None and rep.outcome_check == "CF-690.5fg-rescue"
    assert rep.final == {1: 20, 2: 20}
    assert rep.why[1] == rep.why[2] == ("the initial flip landed red up; the Rescue Flip landed blue up (final, "
                                        "§ 690.5(g)): 20x (red 2x / blue 20x, red face up)")
    assert tallies(rep) == {"flips": 2, "rescue_eligible": 1, "rescue_draws": 1, "rescues": 1, "drops": 0,
                            "double_landings": 0, "spins": 0, "picks": 0, "auto_picks": 0}
    rep, problems = replay(cf_unpermitted())
    assert problems == CF_UNPERMITTED and rep.final == {1: 4, 2: 4}
    assert rep.why[1] == ("the initial flip landed red up (§ 690.5(d)); the second flip (landed blue up) was no "
                          "permitted Rescue Flip: 4x (red 4x / blue 20x, red face up)")
    assert (rep.flips, rep.rescue_eligible, rep.rescue_draws, rep.rescues) == (3, 0, 1, 0)
    rep, problems = replay(cf_not_activated())
    assert (problems, rep.final, rep.why[1]) == (CF_NOT_ACTIVATED, {1: 2, 2: 2}, CF_WHY)
    assert (rep.flips, rep.rescue_eligible, rep.rescue_draws, rep.rescues) == (2, 1, 1, 0)
    rep, problems = replay(cf_no_draw())
    assert (problems, rep.final, rep.why[1]) == (CF_NO_DRAW, {1: 2, 2: 2}, CF_WHY)
    assert (rep.flips, rep.rescue_eligible, rep.rescue_draws, rep.rescues) == (2, 1, 0, 0)


def test_cf_checks_report_the_problems_they_own_round_by_round():
    every = CF_UNPERMITTED + CF_NOT_ACTIVATED + CF_NO_DRAW
    assert judge([cf_golden(), cf_unpermitted(), cf_not_activated(), cf_no_draw()], CF_CHECKS) == {
        "CF-690.5c-multipliers": ("pass", "4 coin-flip game(s) complied with § 690.5(c), (c)(1)–(2), (e)",
                                  [("games", 4, "games", None), ("games_with_top_slot_multiplier", 0, "games", None),
                                   ("max_multiplier_shown", 20, "x",
                                    "generated in [2, 100] x, then x the Top Slot multiplier")], []),
        "CF-690.5e-order": ("pass", "4 coin-flip game(s) complied with § 690.5(c), (e)", [("games", 4, "games", None)],
                            []),
        "CF-690.5fg-rescue": ("fail", "7 deviation(s) from § 690.5(d), (f), (f)(1)–(3), (g)",
                              [("games", 4, "games", None), ("flips_meeting_f1_f3", 3, "flips", None),
                               ("rescue_flips", 1, "flips", "only after a flip meeting (f)(1)–(3)")],
                              [(seq // 1000, seq, words) for _, seq, words in every]),
    }


NO_RESCUE_CF = RULES.model_copy(update={"coin_flip": RULES.coin_flip.model_copy(update={"rescue_probability": 0})})
BTS = BEFORE_TOP_SLOT
CF_X2 = ("coin-flip", 2, True)
CF_SHORT = [
    ("activated, probability 0",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], pay=20),
     NO_RESCUE_CF, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was activated but the Rules Submission's "
                                    "coin_flip.rescue_probability is 0"),
     ],
     None, {1: 20, 2: 20},
     "the initial flip landed red up; the Rescue Flip landed blue up (final, § 690.5(g)): 20x (red 2x / blue 20x, "
     "red face up)"),
    ("probability 0, no draw",
     lambda: coin(9, [("flip", "red")], pay=2),
     NO_RESCUE_CF, [],
     None, {1: 2, 2: 2},
     "the initial flip landed red up: 2x (red 2x / blue 20x, red face up)"),
    ("no rules, no draw",
     lambda: coin(9, [("flip", "red")], pay=2),
     None, [],
     None, {1: 2, 2: 2},
     "the initial flip landed red up: 2x (red 2x / blue 20x, red face up)"),
    ("activated, never flipped again",
     lambda: coin(9, [("flip", "red"), ("rescue", 1)], pay=2),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(g): a Rescue Flip was activated but the coin was not flipped again"),
     ],
     'Rescue Flip not flipped', {},
     None),
    ("activated, never flipped again, void",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("void",)]),
     RULES, [],
     'Rescue Flip not flipped', {},
     None),
    ("no flip",
     lambda: coin(9, []),
     RULES, [
        ("CF-690.5fg-rescue", 9020, "§ 690.5(d): no flip of the coin came to rest: the winning payout odds have "
                                    "no evidence"),
     ],
     'no coin flip', {},
     None),
    ("no flip, no result",
     lambda: coin(9, [], result=False),
     RULES, [
        ("CF-690.5fg-rescue", 9017, "§ 690.5(d): no flip of the coin came to rest: the winning payout odds have "
                                    "no evidence"),
        ("CF-690.5fg-rescue", 9020, "§ 690.4(b): no coin-flip bonus_result on record for a settled round"),
     ],
     'no coin flip', {},
     None),
    ("no flip, void",
     lambda: coin(9, [("void",)]),
     RULES, [],
     'no coin flip', {},
     None),
    ("a green face",
     lambda: coin(9, [("flip", "green")]),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: § 690.5(b): the coin flipper "
                                    "reported face 'green'; the sides are red and blue"),
     ],
     'malformed bonus record', {},
     None),
    ("a rescue draw of 'x'",
     lambda: coin(9, [("flip", "red"), ("rescue", "x")]),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: rescue draw value is 'x', not "
                                    "a whole number"),
     ],
     'malformed bonus record', {},
     None),
    ("3x / 15x",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], base=(3, 15), pay=3),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 3x / blue 15x, red face up; judged on the values as displayed "
                                    "(rescue_reading 'displayed')): § 690.5(f)(2): the big multiplier was 15x, not "
                                    "greater than 15x"),
     ],
     None, {1: 3, 2: 3},
     "the initial flip landed red up (§ 690.5(d)); the second flip (landed blue up) was no permitted Rescue Flip: "
     "3x (red 3x / blue 15x, red face up)"),
    ("3x / 16x",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], base=(3, 16), pay=16),
     RULES, [],
     None, {1: 16, 2: 16},
     "the initial flip landed red up; the Rescue Flip landed blue up (final, § 690.5(g)): 16x (red 3x / blue 16x, "
     "red face up)"),
    ("the big side up",
     lambda: coin(9, [("flip", "blue"), ("rescue", 1), ("flip", "red")], base=(3, 16), pay=16),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 3x / blue 16x, blue face up; judged on the values as displayed "
                                    "(rescue_reading 'displayed')): § 690.5(f)(3): the coin landed with the big "
                                    "multiplier (16x) facing up, not the small one"),
     ],
     None, {1: 16, 2: 16},
     "the initial flip landed blue up (§ 690.5(d)); the second flip (landed red up) was no permitted Rescue Flip: "
     "16x (red 3x / blue 16x, blue face up)"),
    ("both sides 5x",
     lambda: coin(9, [("flip", "blue"), ("rescue", 0)], base=(5, 5), pay=5),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 5x / blue 5x, blue face up; judged on the values as displayed "
                                    "(rescue_reading 'displayed')): § 690.5(f)(1)–(3): both sides show 5x, so there "
                                    "is no small multiplier distinct from the big one"),
     ],
     None, {1: 5, 2: 5},
     "the initial flip landed blue up: 5x (red 5x / blue 5x, blue face up)"),
    ("x2 displayed: 4x / 40x",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], top=CF_X2, pay=4),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 4x / blue 40x, red face up; judged on the values as displayed "
                                    "(rescue_reading 'displayed')): § 690.5(f)(1): the small multiplier was 4x, not "
                                    "2x or 3x"),
     ],
     None, {1: 4, 2: 4},
     "the initial flip landed red up (§ 690.5(d)); the second flip (landed blue up) was no permitted Rescue Flip: "
     "4x (red 4x / blue 40x, red face up)"),
    ("x2 before the Top Slot: 2x / 20x",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], top=CF_X2, pay=40),
     BTS, [],
     None, {1: 40, 2: 40},
     "the initial flip landed red up; the Rescue Flip landed blue up (final, § 690.5(g)): 40x (red 4x / blue 40x, "
     "red face up)"),
    ("x2 before the Top Slot, no draw",
     lambda: coin(9, [("flip", "red")], top=CF_X2, pay=4),
     BTS, [
        ("CF-690.5fg-rescue", 9021, "§ 690.5(f): (f)(1)–(3) held (red 4x / blue 40x, red face up; judged on the "
                                    "multipliers before the Top Slot's x2 (rescue_reading 'before-top-slot')) but "
                                    "no Rescue Flip draw was made (the Rules Submission activates one with "
                                    "probability 1/2)"),
     ],
     None, {1: 4, 2: 4},
     "the initial flip landed red up: 4x (red 4x / blue 40x, red face up)"),
]


@pytest.mark.parametrize("name, build, rules, problems, undetermined, final, why", CF_SHORT,
                         ids=[c[0] for c in CF_SHORT])
def test_cf_short_rounds(name, build, rules, problems, undetermined, final, why):
    rep, got = replay(build(), rules)
    assert (got, rep.undetermined, rep.final, rep.why.get(1)) == (problems, undetermined, final, why)


# ------------------------------------------------------------------ § 690.6 Cash Hunt
CH_CHECKS = (cb.CashHuntMultipliers, cb.CashHuntOrder, cb.CashHuntPerPlayer)
CH_BASE = tuple((5, 7, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 500)[i % 13] for i in range(108))
REVERSED = list(reversed(range(108)))  # symbol s covers cell 107 - s


def cash(n: int, *, seats=(1, 2, 3), picks=None, auto=None, perm=REVERSED, shuffles=1, shuffle_first=True,
         top=("1", 1, False), late_multiplier: bool = False, void: bool = False, pay=None,
         duration: float = 10.0, lookalike: bool = False) -> RoundView:
    r = Round("cash-hunt", seats=seats, top=top, n=n)
    m = top[1] if top[2] and top[0] == "cash-hunt" else 1
    shown = rb.apply_top_slot(CH_BASE, m)
    if late_multiplier:
        r.add("board", "board_generated", {"board_id": 1, "game": "cash-hunt", "values": list(CH_BASE),
                                           "multiplier": 1, "device_time_s": r.t}, dt=1.0)
    else:
        r.board(CH_BASE, m)
    if not shuffle_first:
        r.add("croupier", "countdown_start", {"game": "cash-hunt", "duration_s": 10.0})
    if lookalike:  # the croupier's record of a shuffle is no shuffle: the board's is
        r.add("croupier", "board_draw", {"purpose": "shuffle", "n": 108, "value": list(range(108))})
    for _ in range(shuffles):
        r.draw("shuffle", 108, perm)
    if late_multiplier:
        r.add("board", "board_multiplied", {"board_id": 1, "game": "cash-hunt", "values": list(shown),
                                            "multiplier": m, "device_time_s": r.t})
    picks = {1: 3, 2: 107} if picks is None else picks
    auto = {3: 0} if auto is None else auto
    if shuffle_first:
        r.countdown(picks, auto, n=108)
        if duration != 10.0:
            next(e for e in r.events if e.kind == "countdown_start").payload["duration_s"] = duration
    else:
        for seat, choice in picks.items():
            ctw_pick(r, seat, choice, game="cash-hunt")
        r.add("croupier", "countdown_end", {"game": "cash-hunt"}, dt=10.0)
    if void:
        r.add("croupier", "bonus_void", {"reason": "the board stopped answering"})
    chosen = {**picks, **auto}
    want = {s: shown[perm[c]] for s, c in chosen.items()
            if isinstance(perm, list) and isinstance(c, int) and 0 <= c < len(perm) and perm[c] < 108}
    return r.settle(want if pay is None else pay)


def test_ch_golden_every_seat_and_every_check():
    rep, problems = replay(cash(1, top=("cash-hunt", 2, True), lookalike=True))
    assert problems == [] and rep.undetermined is None and rep.outcome_check == "CH-690.6f-per-player"
    assert rep.final == {1: 10, 2: 10, 3: 30}  # cells 104, 0, 107: 5x, 5x, 15x, times 2
    assert rep.why == {1: "seat 1 selected symbol 3, which covers cell 104 showing 10x (§ 690.6(e)–(f))",
                       2: "seat 2 selected symbol 107, which covers cell 0 showing 10x (§ 690.6(e)–(f))",
                       3: "seat 3 selected symbol 0, which covers cell 107 showing 30x (§ 690.6(e)–(f))"}
    assert (rep.picks, rep.auto_picks) == (2, 1)
    assert judge([cash(1, top=("cash-hunt", 2, True), lookalike=True), cash(2)], CH_CHECKS) == {
        "CH-690.6b-multipliers": ("pass", "2 cash-hunt game(s) complied with § 690.6(b), (b)(1)–(2), (g)",
                                  [("games", 2, "games", None), ("games_with_top_slot_multiplier", 1, "games", None),
                                   ("max_multiplier_shown", 1000, "x",
                                    "generated in [5, 500] x, then x the Top Slot multiplier")], []),
        "CH-690.6cd-order": ("pass", "2 cash-hunt game(s) complied with § 690.6(c)–(d), (g)",
                             [("games", 2, "games", None), ("selections_by_players", 4, "selections", None),
                              ("selections_automatic", 2, "selections", None)], []),
        "CH-690.6f-per-player": ("pass", "2 cash-hunt game(s) complied with § 690.6(e)–(f)",
                                 [("games", 2, "games", None), ("seat_results_verified", 6, "seats", None)], []),
    }


CH_SHORT = [
    ("countdown before the shuffle, shuffled twice",
     lambda: cash(9, shuffle_first=False, shuffles=2),
     RULES, [
        ("CH-690.6cd-order", 9023, "§ 690.6(c): the board was shuffled 2 times"),
        ("CH-690.6cd-order", 9021, "§ 690.6(d): the countdown commenced before the multipliers were shuffled "
                                   "(shuffle seq 9022); it must follow the shuffling"),
        ("CH-690.6cd-order", 9026, "§ 690.6(d): seat(s) [3] have no selection; one must be made automatically at "
                                   "random when the time elapses"),
     ],
     'no selection for seat(s) [3]', {1: 5, 2: 5},
     "seat 1 selected symbol 3, which covers cell 104 showing 5x (§ 690.6(e)–(f))"),
    ("no shuffle",
     lambda: cash(9, shuffles=0),
     RULES, [
        ("CH-690.6cd-order", 9018, "§ 690.6(c): the multipliers were never covered by symbols and shuffled"),
     ],
     'no shuffle', {},
     None),
    ("no shuffle, void",
     lambda: cash(9, shuffles=0, void=True),
     RULES, [],
     'no shuffle', {},
     None),
    ("no permutation",
     lambda: cash(9, perm=list(range(107)) + [0]),
     RULES, [
        ("CH-690.6cd-order", 9021, "§ 690.6(c): the shuffle is not a permutation of the 108 multipliers"),
     ],
     'shuffle not a permutation', {},
     None),
    ("a permutation of 107",
     lambda: cash(9, perm=list(range(107))),
     RULES, [
        ("CH-690.6cd-order", 9021, "§ 690.6(c): the shuffle is not a permutation of the 108 multipliers"),
     ],
     'shuffle not a permutation', {},
     None),
    ("a permutation that is no list",
     lambda: cash(9, perm="x"),
     RULES, [
        ("CH-690.6f-per-player", None, "malformed cash-hunt bonus record: ValueError: shuffle permutation is 'x', "
                                       "not a list"),
     ],
     'malformed bonus record', {},
     None),
    ("symbols 0 and 107; 108 none",
     lambda: cash(9, picks={1: 0, 2: 107, 3: 108}, auto={}),
     RULES, [
        ("CH-690.6cd-order", 9025, "§ 690.6(d): seat 3 selected 108; the choices are 0..107"),
        ("CH-690.6cd-order", 9026, "§ 690.6(d): seat(s) [3] have no selection; one must be made automatically at "
                                   "random when the time elapses"),
     ],
     'no selection for seat(s) [3]', {1: 15, 2: 5},
     "seat 1 selected symbol 0, which covers cell 107 showing 15x (§ 690.6(e)–(f))"),
    ("multiplied after the shuffle",
     lambda: cash(9, top=("cash-hunt", 2, True), late_multiplier=True),
     RULES, [
        ("CH-690.6cd-order", 9021, "§ 690.6(g): the Top Slot multiplier was applied (board shown ×2, seq 9021) "
                                   "after the multipliers were covered and shuffled (seq 9020); it must be applied "
                                   "prior to it"),
     ],
     None, {1: 10, 2: 10, 3: 30},
     "seat 1 selected symbol 3, which covers cell 104 showing 10x (§ 690.6(e)–(f))"),
    ("the same symbol paid to all",
     lambda: cash(9, pay={1: CH_BASE[104], 2: CH_BASE[104], 3: CH_BASE[104]}),
     RULES, [
        ("CH-690.6f-per-player", 9028, "seat 3: the croupier's cash-hunt result is 5x; the trace gives 15x: seat "
                                       "3 selected symbol 0, which covers cell 107 showing 15x (§ 690.6(e)–(f))"),
        ("CH-690.6f-per-player", 9031, "wager 9-3 of seat 3 paid at 5 to 1; the cash-hunt game gives 15 to 1: "
                                       "seat 3 selected symbol 0, which covers cell 107 showing 15x (§ "
                                       "690.6(e)–(f))"),
     ],
     None, {1: 5, 2: 5, 3: 15},
     "seat 1 selected symbol 3, which covers cell 104 showing 5x (§ 690.6(e)–(f))"),
]


@pytest.mark.parametrize("name, build, rules, problems, undetermined, final, why", CH_SHORT,
                         ids=[c[0] for c in CH_SHORT])
def test_ch_short_rounds(name, build, rules, problems, undetermined, final, why):
    rep, got = replay(build(), rules)
    assert (got, rep.undetermined, rep.final, rep.why.get(1)) == (problems, undetermined, final, why)


# ------------------------------------------------------------------ the replay's frame: start, Top Slot, board, records
def framed(n: int, *, top=("coin-flip", 3, True), base=(4, 20), start=None, gens=None, mult=(), flips=("blue",),
           pay=None, result=None, end: str = "settle", drop=(), early: float | None = None, extra=()) -> RoundView:
    """A Coin Flip round whose frame is edited: ``start`` updates bonus_start's payload; ``gens`` the
    board_generated payloads' updates (one board each; [] none); ``mult`` the board_multiplied
    payload's update (None: no such record); ``drop`` event kinds removed; ``early`` the board drawn
    that long before the wheel came to rest; ``result`` the bonus_result's values; ``extra`` events
    (device, kind, payload) added before the flips; ``end`` "settle", "void" or "none"."""
    r = Round("coin-flip", top=top, n=n)
    if start is not None:
        r.events[-1].payload.update(start)
    m = top[1] if top[2] and top[0] == "coin-flip" and type(top[1]) is int and top[1] >= 1 else 1
    stop = next(e for e in r.events if e.kind == "spin_stop").payload["stop_time_s"]
    for g in ({},) if gens is None else gens:
        r.add("board", "board_generated", {"board_id": 1, "game": "coin-flip", "values": list(base), "multiplier": 1,
                                           "device_time_s": stop - early if early is not None else r.t, **g}, dt=1.0)
    if mult is not None:
        r.add("board", "board_multiplied", {"board_id": 1, "game": "coin-flip", "multiplier": m,
                                            "values": list(rb.apply_top_slot(base, m)), "device_time_s": r.t,
                                            **dict(mult)})
    for e in extra:
        r.add(*e)
    for face in flips:
        r.flip(face)
    shown = rb.apply_top_slot(base, m)
    value = rb.coin_value(shown, flips[0]) if pay is None else pay
    if end == "settle":
        r.add("croupier", "bonus_result", {"game": "coin-flip", "values": result if result is not None else
                                           {str(s): value for s in r.seats}})
        for i, seat in enumerate(r.seats):
            r.add("croupier", "pay", {"wager_id": f"{n}-{i + 1}", "seat": seat, "spot": "coin-flip",
                                      "stake_cents": 1000, "odds": f"{value} to 1", "odds_ratio": str(value),
                                      "win_cents": 1000 * value, "capped": False})
        r.add("croupier", "pay", {"wager_id": f"{n}-99", "seat": 1, "spot": "1", "odds_ratio": "1"})  # another spot
    if end != "none":
        r.add("croupier", "round_end", {"round": n, "void": end == "void", "result": "coin-flip"})
    return RoundView.of(n, [e for e in r.events if e.kind not in drop])


def test_a_payment_neither_board_gives_is_the_outcome_check_s_when_the_board_was_shown_wrong():
    """The board shown x1 under a Top Slot x3 (the multipliers check's finding), and the croupier pays 7x,
    which neither the regulation's board (60x) nor the board as displayed (20x) gives: the outcome's
    check reports it, as when the board was right (the replay of the regulation's board must keep the
    outcome's check; Coin Flip and Cash Hunt do not set it while playing)."""
    rep, problems = replay(framed(9, mult={"multiplier": 1, "values": [4, 20]}, pay=7))
    why = "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"
    assert problems[1:] == [
        ("CF-690.5fg-rescue", 9022, f"seat 1: the croupier's coin-flip result is 7x; the trace gives 60x: {why}"),
        ("CF-690.5fg-rescue", 9022, f"seat 2: the croupier's coin-flip result is 7x; the trace gives 60x: {why}"),
        ("CF-690.5fg-rescue", 9023, f"wager 9-1 of seat 1 paid at 7 to 1; the coin-flip game gives 60 to 1: {why}"),
        ("CF-690.5fg-rescue", 9024, f"wager 9-2 of seat 2 paid at 7 to 1; the coin-flip game gives 60 to 1: {why}"),
    ]
    assert rep.outcome_check == "CF-690.5fg-rescue" and rep.displayed_final == {1: 20, 2: 20}
    v = judge([framed(9, mult={"multiplier": 1, "values": [4, 20]}, pay=7)], [cb.CoinFlipRescue])
    assert v["CF-690.5fg-rescue"][0] == "fail" and [f[2] for f in v["CF-690.5fg-rescue"][3]] == [
        p[2] for p in problems[1:]]
    r = cash(9, top=("cash-hunt", 2, True), pay={1: 7, 2: 7, 3: 7})  # Cash Hunt likewise
    r.events[[e.kind for e in r.events].index("board_multiplied")].payload.update(
        multiplier=1, values=list(CH_BASE))
    rep, problems = replay(RoundView.of(9, r.events))
    assert rep.outcome_check == "CH-690.6f-per-player"
    assert [p[0] for p in problems] == ["CH-690.6b-multipliers"] + ["CH-690.6f-per-player"] * 6


def _displayed_board_paid(shown: str) -> list[tuple[int | str, ...]]:
    """The findings of a Coin Flip board shown ×``shown`` under a Top Slot ×3 (red 4x / blue 20x generated,
    blue face up) whose croupier paid both seats 20x: the board as displayed, not multiplied (§ 690.5(e))."""
    return [
        ("CF-690.5c-multipliers", 9019, f"§ 690.5(e): the board was shown ×{shown}; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): red side: expected 12x, shown 4x; blue side: expected 60x, "
                                        "shown 20x"),
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
    ]


FRAMED = [
    ("no bonus game, settled",
     lambda: framed(9, drop=("bonus_start",)),
     [
        ("CF-690.5c-multipliers", 9026, "§ 690.4(b), § 690.5(c): the round was settled on coin-flip but no bonus "
                                        "game was played (no bonus_start): its payout odds were never established"),
     ],
     'no bonus game played', {}, 3, 1, None),
    ("no bonus game, void",
     lambda: framed(9, drop=("bonus_start",), end="void"),
     [],
     'no bonus game played', {}, 3, 1, None),
    ("another game started for other seats",
     lambda: framed(9, start={"game": "pachinko", "seats": [2, 1, 5]}),
     [
        ("CF-690.5fg-rescue", 9017, "§ 690.4(b): the round was settled on coin-flip but the croupier started the "
                                    "'pachinko' bonus game"),
        ("CF-690.5fg-rescue", 9017, "§ 690.2(f): the bonus game was played for seats [2, 1, 5]; the seats with an "
                                    "accepted wager on coin-flip are [1, 2]"),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("no Top Slot report",
     lambda: framed(9, drop=("top_slot_stop",)),
     [
        ("CF-690.5c-multipliers", 9017, "§ 690.5(e): no Top Slot report for the spin that triggered the game: the "
                                        "multiplier to apply is unknown"),
     ],
     'no Top Slot report', {}, None, 1, None),
    ("no board",
     lambda: framed(9, gens=[], mult=None),
     [
        ("CF-690.5c-multipliers", 9020, "§ 690.4(b), § 690.5(c): no board of multipliers was generated: the "
                                        "coin-flip bonus game was not played"),
     ],
     'no board generated', {}, 3, 1, None),
    ("no board, no result",
     lambda: framed(9, gens=[], mult=None, end="none"),
     [
        ("CF-690.5c-multipliers", 9017, "§ 690.4(b), § 690.5(c): no board of multipliers was generated: the "
                                        "coin-flip bonus game was not played"),
     ],
     'no board generated', {}, 3, 1, None),
    ("no board, void",
     lambda: framed(9, gens=[], mult=None, extra=[("croupier", "bonus_void", {})]),
     [],
     'no board generated', {}, 3, 1, None),
    ("two boards, the first for another game",
     lambda: framed(9, gens=[{"game": "cash-hunt"}, {"board_id": 2}]),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(c): 2 boards generated in one coin-flip game"),
        ("CF-690.5c-multipliers", 9018, "§ 690.5(c): a 'cash-hunt' board was generated for the coin-flip game"),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("1x and 101x",
     lambda: framed(9, base=(1, 101), pay=303),
     [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(c)(1): red side shows 1x; multipliers range from 2x to 100x"),
        ("CF-690.5c-multipliers", 9018, "§ 690.5(c)(1): blue side shows 101x; multipliers range from 2x to 100x"),
     ],
     None, {1: 303, 2: 303}, 3, 3, None),
    ("three cells",
     lambda: framed(9, base=(4, 20, 30), mult=None, pay=4),
     [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(c): the board has 3 sides of the coin with a multiplier; "
                                        "expected 2"),
     ],
     'board of the wrong size', {}, 3, 1, None),
    ("drawn 2 ns before the rest",
     lambda: framed(9, early=2e-9),
     [
        ("CF-690.5e-order", 9018, "§ 690.5(c): the board's multipliers were drawn at t=111.300 s, 0.000 s before "
                                  "the wheel came to rest on coin-flip (t=111.300 s): they must be generated when "
                                  "the bonus game begins, after it was triggered"),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("drawn 1 ns before the rest",
     lambda: framed(9, early=1e-9),
     [],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("drawn at the rest",
     lambda: framed(9, early=0.0),
     [],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("shown x1, the displayed board paid",
     lambda: framed(9, mult={"multiplier": 1, "values": [4, 20]}, pay=20),
     _displayed_board_paid("1"),
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("shown x1, neither board paid",
     lambda: framed(9, mult={"multiplier": 1, "values": [4, 20]}, pay=7),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×1; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): red side: expected 12x, shown 4x; blue side: expected 60x, "
                                        "shown 20x"),
        ("CF-690.5fg-rescue", 9022, "seat 1: the croupier's coin-flip result is 7x; the trace gives 60x: the "
                                    "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"),
        ("CF-690.5fg-rescue", 9022, "seat 2: the croupier's coin-flip result is 7x; the trace gives 60x: the "
                                    "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"),
        ("CF-690.5fg-rescue", 9023, "wager 9-1 of seat 1 paid at 7 to 1; the coin-flip game gives 60 to 1: the "
                                    "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"),
        ("CF-690.5fg-rescue", 9024, "wager 9-2 of seat 2 paid at 7 to 1; the coin-flip game gives 60 to 1: the "
                                    "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"),
     ],
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("shown x2 with the right values",
     lambda: framed(9, mult={"multiplier": 2}),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×2; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): "),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("shown x3 with wrong values",
     lambda: framed(9, mult={"values": [12, 61]}, pay=61),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×3; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): blue side: expected 60x, shown 61x"),
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 61x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 61x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 61x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 61x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 61 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "61x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 61 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "61x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
     ],
     None, {1: 60, 2: 60}, 3, 3, {1: 61, 2: 61}),
    ("shown with three values",
     lambda: framed(9, mult={"values": [12, 60, 5]}),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×3; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): 3 cells shown, 2 expected"),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("shown with multiplier True",
     lambda: framed(9, mult={"multiplier": True, "values": [4, 20]}, pay=20),
     _displayed_board_paid("True"),
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("shown with multiplier 0",
     lambda: framed(9, mult={"multiplier": 0, "values": [4, 20]}, pay=20),
     _displayed_board_paid("0"),
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("shown x2",
     lambda: framed(9, mult={"multiplier": 2, "values": [8, 40]}, pay=40),
     [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×2; expected ×3 (Top Slot aligned on "
                                        "coin-flip ×3): red side: expected 12x, shown 8x; blue side: expected 60x, "
                                        "shown 40x"),
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 40x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 40x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 40x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 40x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 40 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "40x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 40 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "40x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
     ],
     None, {1: 60, 2: 60}, 3, 2, {1: 40, 2: 40}),
    ("never multiplied",
     lambda: framed(9, mult=None, pay=20),
     [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(e): the Top Slot multiplier ×3 was never applied to the board "
                                        "(Top Slot aligned on coin-flip ×3)"),
        ("CF-690.5c-multipliers", 9021, "seat 1: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9021, "seat 2: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "wager 9-1 of seat 1 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-2 of seat 2 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
     ],
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("never multiplied, void",
     lambda: framed(9, mult=None, pay=20, extra=[("croupier", "bonus_void", {})]),
     [
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
     ],
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("another board multiplied",
     lambda: framed(9, mult={"board_id": 2}, pay=20),
     [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(e): the Top Slot multiplier ×3 was never applied to the board "
                                        "(Top Slot aligned on coin-flip ×3)"),
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 20x; the trace gives 60x: the "
                                        "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — 20x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 20 to 1; the coin-flip game gives 60 to 1: "
                                        "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up) — "
                                        "20x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×3 (§ 690.5(e))"),
     ],
     None, {1: 60, 2: 60}, 3, 1, {1: 20, 2: 20}),
    ("Top Slot on another game",
     lambda: framed(9, top=("cash-hunt", 3, True), mult={"multiplier": 1, "values": [4, 20]}),
     [],
     None, {1: 20, 2: 20}, 1, 1, None),
    ("Top Slot not aligned",
     lambda: framed(9, top=("coin-flip", 3, False), mult={"multiplier": 1, "values": [4, 20]}),
     [],
     None, {1: 20, 2: 20}, 1, 1, None),
    ("Top Slot multiplier True",
     lambda: framed(9, top=("coin-flip", True, True), mult={"multiplier": 1, "values": [4, 20]}),
     [],
     None, {1: 20, 2: 20}, 1, 1, None),
    ("Top Slot multiplier 0",
     lambda: framed(9, top=("coin-flip", 0, True), mult={"multiplier": 1, "values": [4, 20]}),
     [],
     None, {1: 20, 2: 20}, 1, 1, None),
    ("a result for seat 7",
     lambda: framed(9, result={"1": 60, "2": 60, "7": 60}),
     [
        ("CF-690.5fg-rescue", 9022, "§ 690.2(f): a coin-flip result for seat 7, which has no accepted wager on "
                                    "coin-flip"),
     ],
     None, {1: 60, 2: 60}, 3, 3, None),
    ("a result that is no mapping",
     lambda: framed(9, result=[60, 60]),
     [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: bonus_result values is [60, "
                                    "60], not a mapping of seat to multiplier"),
     ],
     'malformed bonus record', {1: 60, 2: 60}, 3, 3, None),
]


@pytest.mark.parametrize("name, build, problems, undetermined, final, top_slot, displayed_multiplier, displayed_final",
                         FRAMED, ids=[c[0] for c in FRAMED])
def test_the_frame_of_the_game(name, build, problems, undetermined, final, top_slot, displayed_multiplier,
                               displayed_final):
    rep, got = replay(build())
    assert (got, rep.undetermined, rep.final, rep.top_slot_multiplier, rep.displayed_multiplier,
            rep.displayed_final) == (problems, undetermined, final, top_slot, displayed_multiplier, displayed_final)


def test_the_frame_of_an_untouched_game():
    rep, problems = replay(framed(1))
    assert (problems, rep.final, rep.top_slot_multiplier, rep.displayed_multiplier, rep.displayed_final) == (
        [], {1: 60, 2: 60}, 3, 3, None)
    assert rep.displayed == rep.shown == (12, 60) and rep.base == (4, 20)


# ------------------------------------------------------------------ the statistics
def events_round(events, n: int = 1) -> RoundView:
    r = Round("1", n=n)
    for device, kind, payload in events:
        r.add(device, kind, payload)
    return RoundView.of(n, r.events)


def one_check(rounds, check, bench_view=None, total=None, **config):
    return judge(rounds, [check], bench_view, CheckConfig(**config), total)[check.id]


def test_merge_sparse_and_pearson_exactly():
    assert cb.merge_sparse([1, 2, 3, 4], [2.0, 3.0, 1.0, 4.0]) == ([3.0, 7.0], [5.0, 5.0])  # 5 expected: a cell
    assert cb.merge_sparse([1, 2], [1.0, 1.0]) == ([3.0], [2.0])  # never 5: one cell of everything
    assert cb.merge_sparse([0, 0, 7], [5.0, 0.0, 0.0]) == ([7.0], [5.0])  # a remainder joins the last cell
    assert cb.merge_sparse([3], [0.0]) == ([3.0], [0.0]) and cb.merge_sparse([], []) == ([], [])
    assert cb.merge_sparse([5, 0], [5.0, 0.5]) == ([5.0], [5.5])  # a remainder expected, none seen
    assert cb.merge_sparse([5, 1], [5.0, 0.0]) == ([6.0], [5.0])  # one seen, none expected
    assert cb.merge_sparse([1, 1, 1], [2.0, 2.0, 2.0], min_expected=2.0) == ([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    assert cb.pearson([5.0], [5.0]) == (0.0, 0)
    assert cb.pearson([3.0, 7.0], [5.0, 5.0]) == (1.6, 1)
    assert cb.pearson([1.0, 2.0, 6.0], [2.0, 4.0, 3.0]) == (0.5 + 1.0 + 3.0, 2)


def ctw_stop(sections):
    return ("ctw_wheel", "ctw_stop", {"sections": sections})


UNIFORM = [ctw_stop([k % 64, 3, 6]) for k in range(320)]  # 5 on each section
LUMPY = ([ctw_stop([k, 0, 0]) for k in range(20) for _ in range(8)] + [ctw_stop([k, 0, 0]) for k in range(20, 40)
                                                                        for _ in range(2)]
         + [ctw_stop([k, 0, 0]) for k in range(40, 64) for _ in range(5)])  # 20 sections at 8, 20 at 2


def test_ctw_stops_from_320_and_the_stops_left_out():
    bad = [ctw_stop("x"), ctw_stop([]), ctw_stop(["1"]), ctw_stop([64]), ctw_stop([-1]), ("ctw_wheel", "ctw_stop", "x")]
    assert one_check([events_round(UNIFORM + bad)], cb.CrazyTimeWorldStops) == (
        "pass", "320 stops consistent with a uniform virtual wheel: p = 1",
        [("stops", 320, "stops", ">= 320 stops"), ("stops_excluded", 5, "stops", None), ("chi2", 0.0, "1", None),
         ("dof", 63, "1", None), ("p_value", 1.0, "1", ">= 0.01")], [])
    assert one_check([events_round(UNIFORM[:319] + [ctw_stop([63, 2, 5])])], cb.CrazyTimeWorldStops)[0] == "pass"
    assert one_check([events_round(UNIFORM[:319])], cb.CrazyTimeWorldStops) == (
        "indeterminate", "319 Crazy Time World stops: too few for the χ² test (need 320)",
        [("stops", 319, "stops", ">= 320 stops"), ("stops_excluded", 0, "stops", None)], [])


def test_ctw_stops_judged_at_alpha():
    verdict, summary, m, findings = one_check([events_round(LUMPY[:160]), events_round(LUMPY[160:], 2)],
                                              cb.CrazyTimeWorldStops)
    assert (verdict, summary, m[:4]) == ("pass", "320 stops consistent with a uniform virtual wheel: p = 0.205", [
        ("stops", 320, "stops", ">= 320 stops"), ("stops_excluded", 0, "stops", None),
        ("chi2", 71.99999999999994, "1", None), ("dof", 63, "1", None)])  # 40 sections each 3 off 5: 40 * 9 / 5
    assert m[4] == ("p_value", pytest.approx(0.20461175810026055, rel=1e-9), "1", ">= 0.01") and findings == []
    verdict, summary, m, findings = one_check([events_round(LUMPY)], cb.CrazyTimeWorldStops, chi2_alpha=0.5)
    assert (verdict, summary, m[4][3]) == ("fail", "the virtual wheel's stops are not uniform (p = 0.205)", ">= 0.5")
    assert findings == [(0, None, "χ² = 72.0 on 63 dof, p = 0.205 < 0.5: the wheel does not stop uniformly "
                                  "(section 0 under clapper 1 8 times of 320, expected 5.0)")]
    verdict, summary, m, findings = one_check([events_round([ctw_stop([5, 8, 11])] * 300 + UNIFORM[:20])],
                                              cb.CrazyTimeWorldStops)
    assert (verdict, summary, findings) == ("fail", "the virtual wheel's stops are not uniform (p = 0)", [
        (0, None, "χ² = 17804.0 on 63 dof, p = 0 < 0.01: the wheel does not stop uniformly (section 5 under clapper "
                  "1 301 times of 320, expected 5.0)")])


def flip(face, start=None):
    return ("coin_flipper", "coin_flip_stop", {"face": face, **({"start_face": start} if start else {})})


def test_coin_fairness_counts_and_both_tests():
    flips = ([flip("red", "red")] * 6 + [flip("blue", "red")] * 4 + [flip("red")] * 2
             + [flip("green", "red"), ("coin_flipper", "coin_flip_stop", "x"), flip("blue", "green")])
    rates = [("flips", 13, "flips", ">= 13 flips"), ("red_rate", 8 / 13, "1", "1/2"),
             ("start_face_rate", 0.6, "1", "1/2")]
    assert one_check([events_round(flips)], cb.CoinFairness, chi2_min_spins=13) == (
        "pass", "13 flips consistent with a fair coin: smallest p = 0.581",
        rates + [("p_value_red", 0.5810546875, "1", ">= 0.005 (α = 0.01 / 2)"),
                 ("p_value_start_face", 0.75390625, "1", ">= 0.005 (α = 0.01 / 2)")], [])
    assert one_check([events_round(flips)], cb.CoinFairness, chi2_min_spins=14) == (
        "indeterminate", "13 flips: too few for the binomial tests (need 14)",
        [("flips", 13, "flips", ">= 14 flips")] + rates[1:], [])
    assert one_check([events_round([])], cb.CoinFairness) == (
        "indeterminate", "0 flips: too few for the binomial tests (need 1000)",
        [("flips", 0, "flips", ">= 1000 flips"), ("red_rate", None, "1", "1/2"), ("start_face_rate", None, "1", "1/2")],
        [])
    # 10 red of 12: p = 0.0386, above 0.01 / 2
    assert one_check([events_round([flip("red")] * 10 + [flip("blue", "blue")] * 2)], cb.CoinFairness,
                     chi2_min_spins=12)[:2] == ("pass", "12 flips consistent with a fair coin: smallest p = 0.0386")


def test_coin_fairness_fails_each_test_in_its_own_words():
    verdict, summary, m, findings = one_check([events_round([flip("red", "blue")] * 30 + [flip("blue", "red")] * 30)],
                                              cb.CoinFairness, chi2_min_spins=60)
    assert (verdict, summary) == ("fail", "the coin is not fair: smallest p = 1.73e-18")
    assert m == [("flips", 60, "flips", ">= 60 flips"), ("red_rate", 0.5, "1", "1/2"),
                 ("start_face_rate", 0.0, "1", "1/2"), ("p_value_red", 1.0, "1", ">= 0.005 (α = 0.01 / 2)"),
                 ("p_value_start_face", 2 * 0.5 ** 60, "1", ">= 0.005 (α = 0.01 / 2)")]
    assert findings == [(0, None, "the face up at launch also up at rest in 0 of 60 flips (0.000); p = 1.73e-18 < "
                                  "0.005 against a fair 1/2")]
    verdict, summary, m, findings = one_check([events_round([flip("red")] * 10)], cb.CoinFairness, chi2_min_spins=10)
    assert (verdict, summary, m[3:]) == ("fail", "the coin is not fair: smallest p = 0.00195", [
        ("p_value_red", 2 * 0.5 ** 10, "1", ">= 0.01 (α = 0.01 / 1)")])
    assert findings == [(0, None, "red face up in 10 of 10 flips (1.000); p = 0.00195 < 0.01 against a fair 1/2")]


def landed(zone, spot):
    return ("pachinko", "puck_landed", {"zone": zone, "spot": spot})


def lattice_landings(per_zone: int, shift: int = 0):
    """Landings per drop zone in the proportions of the 12-row lattice, shifted ``shift`` spots right."""
    m = Lattice(12).zone_matrix()
    return [landed(z, min(16, k + 1 + shift)) for i, z in enumerate(DROP_ZONES) for k in range(16)
            for _ in range(round(per_zone * float(m[i][k])))]


def test_pachinko_landings_rows_declared_or_not():
    rv = events_round([landed(4, 5)])
    counted = [("landings", 1, "landings", ">= 1000 landings"), ("landings_excluded", 0, "landings", None)]
    assert one_check([rv], cb.PachinkoLandings, BenchView(info={}, rules=None)) == (
        "indeterminate", "no declared peg rows (no Rules Submission, no Pachinko device_info)", counted, [])
    assert one_check([rv], cb.PachinkoLandings, BenchView(info={"pachinko": {"rows": "x"}}, rules=None)) == (
        "fail", "the declared peg lattice is unusable", counted,
        [(0, None, "§ 690.7(b): the declared lattice is unusable: invalid literal for int() with base 10: 'x'")])
    # the device's rows when no Rules Submission: 12 rows cannot take zone 4 to spot 16
    rv = events_round([landed(4, 5), landed(4, 16), landed(4, 16), landed(3, 5), landed(4, "1"), landed(4, 0),
                       landed(4, 17), ("pachinko", "puck_landed", "x"), landed(13, 16)])
    assert one_check([rv], cb.PachinkoLandings, BenchView(info={"pachinko": {"rows": 12}}, rules=None)) == (
        "fail", "landings the declared lattice cannot produce",
        [("landings", 4, "landings", ">= 1000 landings"), ("landings_excluded", 4, "landings", None)],
        [(0, None, "§ 690.7(b), (d): 2 puck(s) dropped from zone 4 came to rest in spot 16, which a 12-row lattice "
                   "cannot reach from there")])


def test_pachinko_landings_too_few():
    rv = events_round([landed(4, 5)])
    assert one_check([rv], cb.PachinkoLandings, chi2_min_spins=2) == (
        "indeterminate", "1 landings: too few for the χ² test (need 2)",
        [("landings", 1, "landings", ">= 2 landings"), ("landings_excluded", 0, "landings", None)], [])
    assert one_check([rv], cb.PachinkoLandings, chi2_min_spins=1) == (
        "indeterminate", "too few landings per zone for a χ² test",
        [("landings", 1, "landings", ">= 1 landings"), ("landings_excluded", 0, "landings", None)], [])


def test_pachinko_landings_pass_and_fail_per_zone_and_pooled():
    verdict, summary, m, findings = one_check([events_round(lattice_landings(40))], cb.PachinkoLandings,
                                              chi2_min_spins=408)
    assert (verdict, summary, findings) == (
        "pass", "408 landings consistent with the 12-row lattice: smallest p = 1", [])
    assert m == [("landings", 408, "landings", ">= 408 landings"), ("landings_excluded", 0, "landings", None),
                 ("chi2_per_zone", pytest.approx(0.21246993796544206, rel=1e-12), "1", None),
                 ("dof_per_zone", 40, "1", None), ("p_value_per_zone", 1.0, "1", ">= 0.005 (α = 0.01 / 2)"),
                 ("chi2_pooled", pytest.approx(0.06028414815111202, rel=1e-12), "1", None),
                 ("dof_pooled", 13, "1", None),
                 ("p_value_pooled", pytest.approx(0.9999999999999322, rel=1e-12), "1", ">= 0.005 (α = 0.01 / 2)")]
    verdict, summary, m, findings = one_check([events_round(lattice_landings(40, shift=1))], cb.PachinkoLandings,
                                              chi2_min_spins=100)
    assert (verdict, summary) == ("fail", "landings deviate from the declared lattice (smallest p = 6.24e-11)")
    assert m[2:] == [("chi2_per_zone", pytest.approx(126.64238453582962, rel=1e-12), "1", None),
                     ("dof_per_zone", 40, "1", None),
                     ("p_value_per_zone", pytest.approx(6.241546933552362e-11, rel=1e-9), "1",
                      ">= 0.005 (α = 0.01 / 2)"),
                     ("chi2_pooled", pytest.approx(45.62735696419743, rel=1e-12), "1", None),
                     ("dof_pooled", 13, "1", None),
                     ("p_value_pooled", pytest.approx(1.6438734333508793e-05, rel=1e-9), "1",
                      ">= 0.005 (α = 0.01 / 2)")]
    assert findings == [
        (0, None, "per_zone: χ² = 126.6 on 40 dof, p = 6.24e-11 < 0.005: the landings do not follow the 12-row "
                  "lattice (mean landing spot 9.49, expected 8.50)"),
        (0, None, "pooled: χ² = 45.6 on 13 dof, p = 1.64e-05 < 0.005: the landings do not follow the 12-row lattice "
                  "(mean landing spot 9.49, expected 8.50)")]


def generated(game, values, device="board"):
    return (device, "board_generated", {"board_id": 1, "game": game, "values": values})


def cells(counts: dict[str, int], need: int = 1000):
    return [(f"cells_{g}", counts.get(g, 0), "cells", f">= {need} cells to test")
            for g in ("coin-flip", "cash-hunt", "pachinko", "crazy-time")]


CH_WEIGHTS = RULES.cash_hunt.multiplier_weights
CH_FAIR = [v for v, k in CH_WEIGHTS.items() for _ in range(round(2000 * k / sum(CH_WEIGHTS.values())))]  # 1999
PA_HALF_DOUBLE = ([generated("pachinko", [2] * 15 + [rb.DOUBLE]) for _ in range(50)]
                  + [generated("pachinko", [2] * 16) for _ in range(50)])


def test_board_values_undeclared_and_what_is_not_a_board():
    junk = [("board", "board_generated", "x"), generated("x", [5]), generated("1", [5]), generated("cash-hunt", "x"),
            generated("cash-hunt", [6], "croupier")]
    rv = events_round(junk + [generated("cash-hunt", [rb.DOUBLE, 5, 6, 7]), generated("coin-flip", [6]),
                              generated("cash-hunt", [6])])  # one finding, at the first board showing 6
    assert one_check([rv], cb.BoardValues, total=2) == (
        "fail", "2 cell(s) with a multiplier the Rules Submission does not declare",
        cells({"coin-flip": 1, "cash-hunt": 2}) + [("cells_undeclared", 2, "cells", "== 0")],
        [(1, 1023, "a cash-hunt board shows 6, a multiplier the Rules Submission's cash_hunt.multiplier_weights do not "
                   "declare (5, 7, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 500)")])
    rv = events_round(junk + [generated("cash-hunt", [5, 7])])
    assert one_check([rv], cb.BoardValues, BenchView(info={}, rules=None)) == (
        "indeterminate", "no Rules Submission on record: no declared weights",
        cells({"cash-hunt": 2}) + [("cells_undeclared", 0, "cells", "== 0")], [])
    assert one_check([rv], cb.BoardValues) == (
        "indeterminate", "no game with 1000 generated cells: too few for the χ² test",
        cells({"cash-hunt": 2}) + [("cells_undeclared", 0, "cells", "== 0")], [])


def test_board_values_chi2_per_game():
    verdict, summary, m, findings = one_check([events_round([generated("cash-hunt", CH_FAIR)])], cb.BoardValues,
                                              chi2_min_spins=1999)
    assert (verdict, summary, findings) == (
        "pass", "1 game(s) consistent with the declared weights, 0 with the declared Double share: smallest p = 1", [])
    assert m == cells({"cash-hunt": 1999}, 1999) + [
        ("cells_undeclared", 0, "cells", "== 0"), ("chi2_cash-hunt", pytest.approx(0.07121005995421709, rel=1e-12),
                                                   "1", None),
        ("dof_cash-hunt", 14, "1", None),
        ("p_value_cash-hunt", pytest.approx(0.999999999999986, rel=1e-12), "1", ">= 0.01 (α = 0.01 / 1)")]
    verdict, summary, m, findings = one_check([events_round([generated("cash-hunt", CH_FAIR + [500] * 40)])],
                                              cb.BoardValues, chi2_min_spins=1999)
    assert (verdict, summary) == ("fail", "1 deviation(s) from the declared multiplier weights")
    assert m[5:] == [("chi2_cash-hunt", pytest.approx(284.1407992401124, rel=1e-12), "1", None),
                     ("dof_cash-hunt", 14, "1", None),
                     ("p_value_cash-hunt", pytest.approx(2.3762922759563223e-52, rel=1e-9), "1",
                      ">= 0.01 (α = 0.01 / 1)")]
    assert findings == [(0, None, "cash-hunt: χ² = 284.1 on 14 dof, p = 2.38e-52 < 0.01; largest deviation at 500x: "
                                  "45 of 2039 cells, expected 5.5")]


def test_board_values_double_share_from_100_boards():
    undeclared = ("cells_undeclared", 0, "cells", "== 0")
    big = 10**9  # the cells' χ² out of the way
    assert one_check([events_round(PA_HALF_DOUBLE)], cb.BoardValues, chi2_min_spins=big) == (
        "pass", "0 game(s) consistent with the declared weights, 1 with the declared Double share: smallest p = 1",
        cells({"pachinko": 1550}, big) + [undeclared, ("double_share_pachinko", 0.5, "1", "declared 1/2 (0.5)"),
                                          ("p_value_double_pachinko", 1.0, "1", ">= 0.01")], [])
    assert one_check([events_round(PA_HALF_DOUBLE[:99])], cb.BoardValues, chi2_min_spins=big) == (
        "indeterminate", f"no game with {big} generated cells: too few for the χ² test",
        cells({"pachinko": 1534}, big) + [undeclared], [])
    thirty = PA_HALF_DOUBLE[:30] + PA_HALF_DOUBLE[50:] + PA_HALF_DOUBLE[50:70]
    verdict, summary, m, findings = one_check([events_round(thirty)], cb.BoardValues, chi2_min_spins=big)
    assert (verdict, summary) == ("fail", "1 deviation(s) from the declared multiplier weights")
    assert m[5:] == [("double_share_pachinko", 0.3, "1", "declared 1/2 (0.5)"),
                     ("p_value_double_pachinko", pytest.approx(7.85013964559367e-05, rel=1e-9), "1", ">= 0.01")]
    assert findings == [(0, None, "pachinko: 30 of 100 boards showed a Double (0.300); the Rules Submission declares "
                                  "1/2 (0.500); binomial p = 7.85e-05 < 0.01")]
    # both tests: Bonferroni over the two, and the χ²'s limit says so
    verdict, summary, m, findings = one_check([events_round([generated("cash-hunt", CH_FAIR)] + PA_HALF_DOUBLE)],
                                              cb.BoardValues, chi2_min_spins=1999)
    assert (verdict, summary) == (
        "pass", "1 game(s) consistent with the declared weights, 1 with the declared Double share: smallest p = 1")
    assert [(x[0], x[3]) for x in m[5:]] == [
        ("double_share_pachinko", "declared 1/2 (0.5)"), ("p_value_double_pachinko", ">= 0.005"),
        ("chi2_cash-hunt", None), ("dof_cash-hunt", None), ("p_value_cash-hunt", ">= 0.005 (α = 0.01 / 2)")]


def test_every_game_check_without_a_game_and_the_rows_declared():
    games = ("games", 0, "games", None)

    def board(lo, hi):
        return [games, ("games_with_top_slot_multiplier", 0, "games", None),
                ("max_multiplier_shown", None, "x", f"generated in [{lo}, {hi}] x, then x the Top Slot multiplier")]
    selections = [games, ("selections_by_players", 0, "selections", None),
                  ("selections_automatic", 0, "selections", None)]
    assert judge([events_round([])], GAME_CHECKS) == {
        "CF-690.5c-multipliers": ("indeterminate", "no coin-flip game in the trace", board(2, 100), []),
        "CF-690.5e-order": ("indeterminate", "no coin-flip game in the trace", [games], []),
        "CF-690.5fg-rescue": ("indeterminate", "no coin-flip game in the trace", [
            games, ("flips_meeting_f1_f3", 0, "flips", None),
            ("rescue_flips", 0, "flips", "only after a flip meeting (f)(1)–(3)")], []),
        "CH-690.6b-multipliers": ("indeterminate", "no cash-hunt game in the trace", board(5, 500), []),
        "CH-690.6cd-order": ("indeterminate", "no cash-hunt game in the trace", selections, []),
        "CH-690.6f-per-player": ("indeterminate", "no cash-hunt game in the trace",
                                 [games, ("seat_results_verified", 0, "seats", None)], []),
        "PA-690.7c-multipliers": ("indeterminate", "no pachinko game in the trace", board(2, 400), []),
        "PA-690.7d-drop-zone": ("indeterminate", "no pachinko game in the trace",
                                [games, ("drops", 0, "drops", "zone in 4..13, as drawn")], []),
        "PA-690.7e-double": ("indeterminate", "no pachinko game with a landing on Double in the trace",
                             [games, ("a_landing_on_Double", 0, "games", None)], []),
        "PA-690.7g-rescue": ("indeterminate", "no pachinko game with a landing on 2x, 3x or 4x in the trace",
                             [games, ("a_landing_on_2x,_3x_or_4x", 0, "games", None),
                              ("rescue_drops", 0, "drops", None)], []),
        "PA-690.7f-order": ("indeterminate", "no pachinko game in the trace", [games], []),
        "CTW-690.8b-wheel": ("indeterminate", "no crazy-time game in the trace",
                             board(15, 400) + [("wheel_stops_checked", 0, "stops", None)], []),
        "CTW-690.8cd-countdown": ("indeterminate", "no crazy-time game in the trace", selections, []),
        "CTW-690.8e-double": ("indeterminate", "no crazy-time game with a selected clapper on Double in the trace",
                              [games, ("a_selected_clapper_on_Double", 0, "games", None)], []),
    }
    measured = [("games", 0, "games", None), ("games_with_top_slot_multiplier", 0, "games", None),
                ("max_multiplier_shown", None, "x", "generated in [2, 400] x, then x the Top Slot multiplier")]
    assert judge([], [cb.PachinkoMultipliers], bench(rows=14))["PA-690.7c-multipliers"] == (
        "fail", "1 deviation(s) from § 690.7(b)–(c), (c)(1)–(3), (f)", measured,
        [(0, None, "§ 690.7(b): the Pachinko board declares 14 peg rows; the Rules Submission's pachinko.rows is 12")])
    for view in (BenchView(info={"pachinko": {"rows": 14}}, rules=None), BenchView(info={}, rules=RULES_JSON)):
        assert judge([], [cb.PachinkoMultipliers], view)["PA-690.7c-multipliers"] == (
            "indeterminate", "no pachinko game in the trace", measured, [])


def edited(rv: RoundView, kind: str, payload, which: int = 0) -> RoundView:
    """The round with the ``which``-th event of ``kind`` given ``payload`` (a dict updates it; a key set to
    ``...`` is removed)."""
    events, k = [], 0
    for e in rv.events:
        if e.kind == kind:
            if k == which:
                e = Event(e.seq, e.round, e.sim_time, e.wall_ns, e.device, e.kind,
                          {k: v for k, v in {**e.payload, **payload}.items() if v is not ...}
                          if isinstance(payload, dict) else payload)
            k += 1
        events.append(e)
    return RoundView.of(rv.n, events)


def forced_on(spot) -> RoundView:
    """A Coin Flip game played after the lab forced ``spot`` on a wheel that rested on 1."""
    rv = framed(9)
    events = list(rv.events)
    i = next(k for k, e in enumerate(events) if e.kind == "spin_valid")
    events.insert(i + 1, Event(9900, 9, events[i].sim_time, 0, "croupier", "forced_result", {"spot": spot}))
    events = [Event(e.seq, e.round, e.sim_time, e.wall_ns, e.device, e.kind, {**e.payload, "spot": "1"})
              if e.kind in ("spin_stop", "spin_valid") else e for e in events]
    return RoundView.of(9, events)


def coin_late(n: int, shown_multiplier: int) -> RoundView:
    """No Top Slot on the game; the board shown x``shown_multiplier`` only after the coin was flipped."""
    r = Round("coin-flip", n=n)
    r.add("board", "board_generated", {"board_id": 1, "game": "coin-flip", "values": [4, 20], "multiplier": 1,
                                       "device_time_s": r.t}, dt=1.0)
    r.flip("blue")
    r.add("board", "board_multiplied", {"board_id": 1, "game": "coin-flip", "multiplier": shown_multiplier,
                                        "values": [4 * shown_multiplier, 20 * shown_multiplier], "device_time_s": r.t})
    return r.settle({1: 20, 2: 20})


BTS = BEFORE_TOP_SLOT
W4 = [v + (j < 4) for j, v in enumerate(PA_DOUBLED)]  # spots 1-4 one more than doubled
MISC = [
    ("a board drawn at a time that is no number",
     lambda: edited(framed(9), "board_generated", {"device_time_s": "x"}),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: board_generated device_time_s "
                                    "is 'x', not a time"),
     ],
     'malformed bonus record', {}),
    ("a board drawn without a device time: its trace time, after the rest",
     lambda: edited(framed(9, early=0.0), "board_generated", {"device_time_s": ...}),
     RULES, [],
     None, {1: 60, 2: 60}),
    ("the wheel's rest without a time of its own: its trace time",
     lambda: edited(framed(9, early=2.0), "spin_stop", {"stop_time_s": ...}),
     RULES, [
        ("CF-690.5e-order", 9018, "§ 690.5(c): the board's multipliers were drawn at t=109.300 s, 2.000 s before "
                                  "the wheel came to rest on coin-flip (t=111.300 s): they must be generated when "
                                  "the bonus game begins, after it was triggered"),
     ],
     None, {1: 60, 2: 60}),
    ("a coin flip whose payload is no object",
     lambda: edited(framed(9), "coin_flip_stop", "x"),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: TypeError: coin_flip_stop payload is str, "
                                    "not an object"),
     ],
     'malformed bonus record', {}),
    ("a bonus_start whose payload is no object",
     lambda: edited(framed(9), "bonus_start", "x"),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: TypeError: bonus_start payload is str, not "
                                    "an object"),
     ],
     'malformed bonus record', {}),
    ("the wheel's rest without its own time",
     lambda: edited(framed(9, early=0.0), "spin_stop", {"stop_time_s": None}),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: spin_stop stop_time_s is None, "
                                    "not a time"),
     ],
     'malformed bonus record', {}),
    ("seat 1's wager refused for the table's limits",
     lambda: framed(9, extra=[("croupier", "wager_rejected", {"wager_id": "9-1", "kind": "limits"}),
                              ("croupier", "wager_rejected", {"wager_id": "9-2", "kind": "late"}),
                              ("croupier", "wager_rejected", "x")]),
     RULES, [
        ("CF-690.5fg-rescue", 9017, "§ 690.2(f): the bonus game was played for seats [1, 2]; the seats with an "
                                    "accepted wager on coin-flip are [2]"),
        ("CF-690.5fg-rescue", 9025, "§ 690.2(f): a coin-flip result for seat 1, which has no accepted wager on "
                                    "coin-flip"),
     ],
     None, {2: 60}),
    ("a press whose seat is no number",
     lambda: edited(framed(9), "press", {"seat": "2"}, 1),
     RULES, [
        ("CF-690.5fg-rescue", 9017, "§ 690.2(f): the bonus game was played for seats [1, 2]; the seats with an "
                                    "accepted wager on coin-flip are [1]"),
        ("CF-690.5fg-rescue", 9022, "§ 690.2(f): a coin-flip result for seat 2, which has no accepted wager on "
                                    "coin-flip"),
     ],
     None, {1: 60}),
    ("a Top Slot report whose payload is no object",
     lambda: edited(framed(9), "top_slot_stop", "x"),
     RULES, [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×3; expected ×1 (no Top Slot multiplier "
                                        "on this game): red side: expected 4x, shown 12x; blue side: expected 20x, "
                                        "shown 60x"),
        ("CF-690.5c-multipliers", 9022, "seat 1: the croupier's coin-flip result is 60x; the trace gives 20x: the "
                                        "initial flip landed blue up: 20x (red 4x / blue 20x, blue face up) — 60x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×1 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9022, "seat 2: the croupier's coin-flip result is 60x; the trace gives 20x: the "
                                        "initial flip landed blue up: 20x (red 4x / blue 20x, blue face up) — 60x "
                                        "is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×1 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9023, "wager 9-1 of seat 1 paid at 60 to 1; the coin-flip game gives 20 to 1: "
                                        "the initial flip landed blue up: 20x (red 4x / blue 20x, blue face up) — "
                                        "60x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×1 (§ 690.5(e))"),
        ("CF-690.5c-multipliers", 9024, "wager 9-2 of seat 2 paid at 60 to 1; the coin-flip game gives 20 to 1: "
                                        "the initial flip landed blue up: 20x (red 4x / blue 20x, blue face up) — "
                                        "60x is what the board as displayed gives; it was not multiplied by the Top "
                                        "Slot's ×1 (§ 690.5(e))"),
     ],
     None, {1: 20, 2: 20}),
    ("a forced result on no spot",
     lambda: forced_on("x"),
     RULES, None, None, None),
    ("a forced result on coin-flip",
     lambda: forced_on("coin-flip"),
     RULES, [],
     None, {1: 60, 2: 60}),
    ("the spin's outcome without the wheel's report",
     lambda: RoundView.of(9, [e for e in framed(9).events if e.kind != "spin_stop"]),
     RULES, [],
     None, {1: 60, 2: 60}),
    ("no valid spin",
     lambda: RoundView.of(9, [e for e in framed(9).events if e.kind != "spin_valid"]),
     RULES, None, None, None),
    ("before the Top Slot, no Top Slot: judged as displayed",
     lambda: coin(9, [("flip", "red"), ("rescue", 1)], base=(4, 20), pay=4),
     BTS, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 4x / blue 20x, red face up; judged on the values as displayed "
                                    "(rescue_reading 'before-top-slot')): § 690.5(f)(1): the small multiplier was "
                                    "4x, not 2x or 3x"),
        ("CF-690.5fg-rescue", 9022, "§ 690.5(g): a Rescue Flip was activated but the coin was not flipped again"),
     ],
     'Rescue Flip not flipped', {}),
    ("the board multiplied x1 after the flip: nothing to apply",
     lambda: coin_late(9, 1),
     RULES, [],
     None, {1: 20, 2: 20}),
    ("the board shown x2 after the flip under no Top Slot",
     lambda: coin_late(9, 2),
     RULES, [
        ("CF-690.5c-multipliers", 9021, "§ 690.5(e): the board was shown ×2; expected ×1 (no Top Slot multiplier "
                                        "on this game): red side: expected 4x, shown 8x; blue side: expected 20x, "
                                        "shown 40x"),
        ("CF-690.5e-order", 9021, "§ 690.5(e): the Top Slot multiplier was applied (board shown ×2, seq 9021) "
                                  "after the coin was flipped (coin_flip_start) (seq 9019); it must be applied "
                                  "prior to it"),
     ],
     None, {1: 20, 2: 20}),
    ("a first reason kept",
     lambda: ctw_short(9, countdown=False, spins=[(5, 8)]),
     RULES, [
        ("CTW-690.8cd-countdown", 9016, "§ 690.8(c): no countdown timer on record (countdown_start / "
                                        "countdown_end)"),
        ("CTW-690.8cd-countdown", 9016, "§ 690.8(c): seat(s) [1] have no selection; one must be made "
                                        "automatically at random when the time elapses"),
        ("CTW-690.8cd-countdown", 9019, "§ 690.8(d): the wheel was started before the time for players to select "
                                        "a clapper had elapsed (countdown_end)"),
        ("CTW-690.8b-wheel", 9020, "§ 690.8(b): the wheel reported sections [5, 8] under its 3 clappers (sections "
                                   "0..63)"),
     ],
     'no selection for seat(s) [1]', {}),
    ("a doubled Pachinko board of 17 spots",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", PA_DOUBLED + (3,)), ("drop", 5, 1)], pay=20),
     RULES, [
        ("PA-690.7e-double", 9023, "§ 690.7(e)(1)–(2): after the Double on spot 6 the board shows [20x, 4x, 6x, "
                                   "8x, 10x, 50x, 40x, 6x, 800x, 30x, 8x, 50x, 100x, 4x, 14x, 200x, … (17 cells)]: "
                                   "17 cells shown, 16 expected (all other multipliers doubled, the Double replaced "
                                   "with 50x)"),
     ],
     None, {1: 20, 2: 20}),
    ("a board numbered before the spin that triggered the game",
     lambda: reseq(framed(9), "board_generated", 9010),
     RULES, [
        ("CF-690.5e-order", 9010, "§ 690.5(c): the board was generated (seq 9010) before the spin that triggered "
                                  "the game was validated (seq 9015)"),
     ],
     None, {1: 60, 2: 60}),
    ("a bonus game started for no seats",
     lambda: framed(9, start={"seats": None}),
     RULES, [
        ("CF-690.5fg-rescue", 9017, "§ 690.2(f): the bonus game was played for seats None; the seats with an "
                                    "accepted wager on coin-flip are [1, 2]"),
     ],
     None, {1: 60, 2: 60}),
    ("a game played to its end, the round not ended",
     lambda: unended(),
     RULES, [],
     None, {1: 60, 2: 60}),
    ("a void game without its result",
     lambda: pachinko(9, [("drop", 4, 1), ("void",)], result=False),
     RULES, [],
     None, {1: 10, 2: 10}),
    ("a second flip before the Rescue Flip was drawn",
     lambda: coin(9, [("flip", "red"), ("flip", "blue"), ("rescue", 1)], pay=2),
     RULES, [
        ("CF-690.5fg-rescue", 9024, "§ 690.5(g): a Rescue Flip was activated but the coin was not flipped again"),
     ],
     'Rescue Flip not flipped', {}),
    ("a result missing seat 2",  # (its missing value is written "Nonex")
     lambda: framed(9, result={"1": 60}),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "seat 2: the croupier's coin-flip result is Nonex; the trace gives 60x: the "
                                    "initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"),
     ],
     None, {1: 60, 2: 60}),
    ("a clapper on section -1",
     lambda: ctw_short(9, spins=[(-1, 3, 6)]),
     RULES, [
        ("CTW-690.8b-wheel", 9023, "§ 690.8(b): the wheel reported sections [-1, 3, 6] under its 3 clappers "
                                   "(sections 0..63)"),
     ],
     'wheel sections malformed', {}),
    ("a Cash Hunt countdown 1 s short",
     lambda: cash(9, duration=13.0),
     RULES, [
        ("CH-690.6cd-order", 9025, "§ 690.6(d): the countdown announced 13.0 s but ended after 12.000 s"),
     ],
     None, {1: 5, 2: 5, 3: 15}),
    ("red 4x / blue 10x: two conditions unmet",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], base=(4, 10), pay=4),
     RULES, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 4x / blue 10x, red face up; judged on the values as displayed "
                                    "(rescue_reading 'displayed')): § 690.5(f)(1): the small multiplier was 4x, not "
                                    "2x or 3x; § 690.5(f)(2): the big multiplier was 10x, not greater than 15x"),
     ],
     None, {1: 4, 2: 4}),
    ("x2 before the Top Slot: 8x / 40x is 4x / 20x",
     lambda: coin(9, [("flip", "red"), ("rescue", 1), ("flip", "blue")], base=(4, 20), top=CF_X2, pay=8),
     BTS, [
        ("CF-690.5fg-rescue", 9022, "§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                                    "(red 8x / blue 40x, red face up; judged on the multipliers before the Top "
                                    "Slot's x2 (rescue_reading 'before-top-slot')): § 690.5(f)(1): the small "
                                    "multiplier was 4x, not 2x or 3x"),
     ],
     None, {1: 8, 2: 8}),
    ("a doubled Pachinko board of 2 spots",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", (20, 4)), ("drop", 5, 1)], pay=20),
     RULES, [
        ("PA-690.7e-double", 9023, "§ 690.7(e)(1)–(2): after the Double on spot 6 the board shows [20x, 4x]: 2 "
                                   "cells shown, 16 expected (all other multipliers doubled, the Double replaced "
                                   "with 50x)"),
     ],
     None, {1: 20, 2: 20}),
    ("a doubled Pachinko board 4 spots wrong",
     lambda: pachinko(9, [("drop", 8, 6), ("doubled", W4), ("drop", 5, 1)], pay=20),
     RULES, [
        ("PA-690.7e-double", 9023, "§ 690.7(e)(1)–(2): after the Double on spot 6 the board shows [21x, 5x, 7x, "
                                   "9x, 10x, 50x, 40x, 6x, 800x, 30x, 8x, 50x, 100x, 4x, 14x, 200x]: spot 1: "
                                   "expected 20x, shown 21x; spot 2: expected 4x, shown 5x; spot 3: expected 6x, "
                                   "shown 7x (and 1 more cells) (all other multipliers doubled, the Double replaced "
                                   "with 50x)"),
     ],
     None, {1: 20, 2: 20}),
    ("a generated board that is no list",
     lambda: framed(9, gens=[{"values": "x"}]),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: board_generated values is 'x', "
                                    "not a list"),
     ],
     'malformed bonus record', {}),
    ("a Coin Flip board showing Double",
     lambda: framed(9, base=(0, 20), mult=None, top=("1", 1, False), pay=20),
     RULES, [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(c)(1): red side shows Double; multipliers range from 2x to 100x "
                                        "and this game has no Double"),
     ],
     None, {1: 20, 2: 20}),
    ("shown x1 under a Top Slot x2",
     lambda: framed(9, top=("coin-flip", 2, True), mult={"multiplier": 1, "values": [4, 20]}, pay=40),
     RULES, [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×1; expected ×2 (Top Slot aligned on "
                                        "coin-flip ×2): red side: expected 8x, shown 4x; blue side: expected 40x, "
                                        "shown 20x"),
     ],
     None, {1: 40, 2: 40}),
    ("no Top Slot, never multiplied",
     lambda: framed(9, top=("1", 1, False), mult=None, pay=20),
     RULES, [],
     None, {1: 20, 2: 20}),
    ("a Top Slot x2, never multiplied",
     lambda: framed(9, top=("coin-flip", 2, True), mult=None, pay=40),
     RULES, [
        ("CF-690.5c-multipliers", 9018, "§ 690.5(e): the Top Slot multiplier ×2 was never applied to the board "
                                        "(Top Slot aligned on coin-flip ×2)"),
     ],
     None, {1: 40, 2: 40}),
    ("a multiplied board that is no list",
     lambda: framed(9, mult={"values": "x"}),
     RULES, [
        ("CF-690.5fg-rescue", None, "malformed coin-flip bonus record: ValueError: board_multiplied values is "
                                    "'x', not a list"),
     ],
     'malformed bonus record', {}),
    ("before the Top Slot: the regulation's x2 board has a Rescue Flip, as the board shown x1",
     lambda: coin_shown_x1(),
     BTS, [
        ("CF-690.5c-multipliers", 9019, "§ 690.5(e): the board was shown ×1; expected ×2 (Top Slot aligned on "
                                        "coin-flip ×2): red side: expected 4x, shown 2x; blue side: expected 40x, "
                                        "shown 20x"),
     ],
     None, {1: 40, 2: 40}),
    ("wager ids without a dash, and with two",
     lambda: framed(9, extra=[("croupier", "wager_rejected", {"wager_id": "x", "kind": "limits"}),
                              ("croupier", "wager_rejected", {"wager_id": "z-9-1", "kind": "limits"})]),
     RULES, [
        ("CF-690.5fg-rescue", 9017, "§ 690.2(f): the bonus game was played for seats [1, 2]; the seats with an "
                                    "accepted wager on coin-flip are [2]"),
        ("CF-690.5fg-rescue", 9024, "§ 690.2(f): a coin-flip result for seat 1, which has no accepted wager on "
                                    "coin-flip"),
     ],
     None, {2: 60}),
]


@pytest.mark.parametrize("name, build, rules, problems, undetermined, final", MISC, ids=[c[0] for c in MISC])
def test_records_out_of_the_ordinary(name, build, rules, problems, undetermined, final):
    rep = cb.replay_bonus(build(), rules)
    if problems is None:
        assert rep is None  # not settled on a bonus game: nothing to replay
        return
    assert ([(p.check, p.ev.seq if p.ev is not None else None, p.message) for p in rep.problems], rep.undetermined,
            rep.final) == (problems, undetermined, final)


def reseq(rv: RoundView, kind: str, seq: int) -> RoundView:
    """The round with its first ``kind`` event renumbered ``seq`` (where it stands in the round unchanged)."""
    k = next(i for i, e in enumerate(rv.events) if e.kind == kind)
    e = rv.events[k]
    return RoundView.of(rv.n, rv.events[:k] + [Event(seq, e.round, e.sim_time, e.wall_ns, e.device, e.kind, e.payload)]
                        + rv.events[k + 1:])


def unended() -> RoundView:
    """A Coin Flip game played and paid, and no round_end on record: not settled."""
    rv = framed(9)
    return RoundView.of(9, [e for e in rv.events if e.kind != "round_end" and e.kind != "bonus_result"])


def test_the_multipliers_checks_count_the_top_slot_games_and_the_largest_multiplier_shown():
    rounds = [framed(1, drop=("top_slot_stop",)), framed(2, top=("coin-flip", 2, True)), framed(3, top=("1", 5, True)),
              pa_golden(), ctw_golden()]
    v = judge(rounds, [cb.CoinFlipMultipliers, cb.PachinkoMultipliers, cb.CrazyTimeWorldWheel])
    assert v["CF-690.5c-multipliers"][:3] == (
        "fail", "1 deviation(s) from § 690.5(c), (c)(1)–(2), (e)",
        [("games", 3, "games", None), ("games_with_top_slot_multiplier", 1, "games", None),
         ("max_multiplier_shown", 40, "x", "generated in [2, 100] x, then x the Top Slot multiplier")])
    assert v["PA-690.7c-multipliers"][2][:3] == [("games", 1, "games", None),
                                                 ("games_with_top_slot_multiplier", 0, "games", None),
                                                 ("max_multiplier_shown", 400, "x",
                                                  "generated in [2, 400] x, then x the Top Slot multiplier")]
    assert v["CTW-690.8b-wheel"][2][0] == ("games", 1, "games", None)


def test_a_single_cell_of_cells_tested_has_no_degree_of_freedom():
    assert one_check([events_round([generated("cash-hunt", [5])])], cb.BoardValues, chi2_min_spins=1) == (
        "pass", "1 game(s) consistent with the declared weights, 0 with the declared Double share: smallest p = 1",
        cells({"cash-hunt": 1}, 1) + [("cells_undeclared", 0, "cells", "== 0"), ("chi2_cash-hunt", 0.0, "1", None),
                                      ("dof_cash-hunt", 0, "1", None),
                                      ("p_value_cash-hunt", 1.0, "1", ">= 0.01 (α = 0.01 / 1)")], [])


def test_every_check_counts_the_rounds_it_examined():
    for cls in cb.BONUS_CHECKS:
        c = cls(CheckConfig())
        c.setup(bench())
        for n in (1, 2, 3):
            c.observe(events_round([], n))
        assert c.result().rounds_examined == 3, cls.__name__


def test_a_p_value_at_the_level_passes_and_one_float_above_it_fails():
    """Each statistic is judged p < level: the level itself passes."""
    stops = [events_round(LUMPY)]
    p = one_check(stops, cb.CrazyTimeWorldStops)[2][4][1]
    assert one_check(stops, cb.CrazyTimeWorldStops, chi2_alpha=p)[0] == "pass"
    assert one_check(stops, cb.CrazyTimeWorldStops, chi2_alpha=math.nextafter(p, 1))[0] == "fail"
    flips = [events_round([flip("red")] * 10)]  # one test: the level is alpha
    p = 2 * 0.5 ** 10
    assert one_check(flips, cb.CoinFairness, chi2_min_spins=10, chi2_alpha=p)[0] == "pass"
    assert one_check(flips, cb.CoinFairness, chi2_min_spins=10, chi2_alpha=math.nextafter(p, 1))[0] == "fail"
    thirty = [events_round(PA_HALF_DOUBLE[:30] + PA_HALF_DOUBLE[50:] + PA_HALF_DOUBLE[50:70])]
    p = one_check(thirty, cb.BoardValues, chi2_min_spins=10**9)[2][6][1]
    assert one_check(thirty, cb.BoardValues, chi2_min_spins=10**9, chi2_alpha=p)[0] == "pass"
    assert one_check(thirty, cb.BoardValues, chi2_min_spins=10**9, chi2_alpha=math.nextafter(p, 1))[0] == "fail"
    board = [events_round([generated("cash-hunt", CH_FAIR + [500] * 3)])]
    p = one_check(board, cb.BoardValues, chi2_min_spins=1999)[2][7][1]
    assert one_check(board, cb.BoardValues, chi2_min_spins=1999, chi2_alpha=p)[0] == "pass"
    assert one_check(board, cb.BoardValues, chi2_min_spins=1999, chi2_alpha=math.nextafter(p, 1))[0] == "fail"
    landings = [events_round(lattice_landings(40, shift=1))]
    m = one_check(landings, cb.PachinkoLandings, chi2_min_spins=100)[2]
    p = 2 * max(m[4][1], m[7][1])  # the larger of the two p-values at the level alpha / 2
    assert len(one_check(landings, cb.PachinkoLandings, chi2_min_spins=100, chi2_alpha=p)[3]) == 1
    assert len(one_check(landings, cb.PachinkoLandings, chi2_min_spins=100,
                         chi2_alpha=math.nextafter(p, 1))[3]) == 2


def test_the_double_share_is_judged_against_the_declared_probability():
    """1/4 declared: 25 Doubles in 100 boards is no deviation (1/2 would be: p = 5.6e-07)."""
    rules = {**RULES_JSON, "pachinko": {**RULES_JSON["pachinko"], "double_probability": "1/4"}}
    quarter = [events_round(PA_HALF_DOUBLE[:25] + PA_HALF_DOUBLE[50:] + PA_HALF_DOUBLE[50:75])]
    verdict, summary, m, findings = one_check(quarter, cb.BoardValues, BenchView(info={}, rules=rules),
                                              chi2_min_spins=10**9)
    assert (verdict, findings) == ("pass", [])
    assert m[5:] == [("double_share_pachinko", 0.25, "1", "declared 1/4 (0.25)"),
                     ("p_value_double_pachinko", 1.0, "1", ">= 0.01")]


def test_pachinko_landings_one_degree_of_freedom_from_one_zone_and_the_rules_rows_first():
    m = Lattice(12).zone_matrix()[DROP_ZONES.index(8)]
    zone8 = [landed(8, k + 1) for k in range(16) for _ in range(round(20 * float(m[k])))]  # 19: two merged cells
    verdict, summary, measured, findings = one_check([events_round(zone8)], cb.PachinkoLandings, chi2_min_spins=1)
    assert (verdict, summary, findings) == (
        "pass", "19 landings consistent with the 12-row lattice: smallest p = 0.867", [])
    assert measured == [("landings", 19, "landings", ">= 1 landings"), ("landings_excluded", 0, "landings", None),
                        ("chi2_per_zone", pytest.approx(0.02825948479262746, rel=1e-12), "1", None),
                        ("dof_per_zone", 1, "1", None),
                        ("p_value_per_zone", pytest.approx(0.8665002225074754, rel=1e-9), "1",
                         ">= 0.005 (α = 0.01 / 2)"),
                        ("chi2_pooled", pytest.approx(0.02825948479262746, rel=1e-12), "1", None),
                        ("dof_pooled", 1, "1", None),
                        ("p_value_pooled", pytest.approx(0.8665002225074754, rel=1e-9), "1",
                         ">= 0.005 (α = 0.01 / 2)")]
    # the Rules Submission's 12 rows over the board's declared 14
    assert one_check([events_round([landed(4, 16)])], cb.PachinkoLandings, bench(rows=14), chi2_min_spins=1)[3] == [
        (0, None, "§ 690.7(b), (d): 1 puck(s) dropped from zone 4 came to rest in spot 16, which a 12-row lattice "
                  "cannot reach from there")]


def test_board_values_the_largest_deviation_named():
    no500 = [v for v in CH_FAIR if v != 500]  # 500x missing (5.4 expected); 30x 5 over (5.2 off)
    verdict, summary, m, findings = one_check([events_round([generated("cash-hunt", no500 + [30] * 5)])],
                                              cb.BoardValues, chi2_min_spins=1000, chi2_alpha=0.999)
    assert m[5:] == [("chi2_cash-hunt", pytest.approx(5.720478684268648, rel=1e-12), "1", None),
                     ("dof_cash-hunt", 14, "1", None),
                     ("p_value_cash-hunt", pytest.approx(0.9730524746112438, rel=1e-9), "1",
                      ">= 0.999 (α = 0.999 / 1)")]
    assert findings == [(0, None, "cash-hunt: χ² = 5.7 on 14 dof, p = 0.973 < 0.999; largest deviation at 500x: 0 "
                                  "of 1999 cells, expected 5.4")]
    assert one_check([events_round([generated("cash-hunt", CH_FAIR + [5] * 300)])], cb.BoardValues,
                     chi2_min_spins=1000)[3] == [
        (0, None, "cash-hunt: χ² = 172.4 on 14 dof, p = 2.21e-29 < 0.01; largest deviation at 5x: 672 of 2299 cells, "
                  "expected 427.2")]


def test_a_seat_paid_wrong_in_a_game_left_undetermined_has_no_words_for_how():
    """Clapper 1 lands on Double and is never spun again: seat 2's clapper 3 (75x) is final, but the
    words of how are written only when the game ends — the finding says so with nothing after "75x: "."""
    r = Round("crazy-time", seats=(1, 2), n=9)
    r.board(CTW_BASE)
    r.countdown({1: 0, 2: 2})
    r.ctw_spin((0, 3, 6))
    ctw_doubled(r, (1,), rb.ctw_double(CTW_BASE, second=False))
    rep, problems = replay(r.settle({1: 0, 2: 80}))
    assert rep.final == {2: 75} and rep.why == {} and rep.undetermined == "no respin after the Double"
    assert problems[1:] == [
        ("CTW-690.8cd-countdown", 9027, "seat 2: the croupier's crazy-time result is 80x; the trace gives 75x: "),
        ("CTW-690.8cd-countdown", 9029, "wager 9-2 of seat 2 paid at 80 to 1; the crazy-time game gives 75 to 1: ")]


def test_payments_of_other_spots_and_malformed_ones_are_passed_over():
    rv = framed(9, pay=7, extra=[("croupier", "pay", "x"), ("croupier", "pay", {"seat": 1, "spot": "1",
                                                                                "odds_ratio": "1"})])
    rep, problems = replay(rv)
    why = "the initial flip landed blue up: 60x (red 12x / blue 60x, blue face up)"
    assert [p for p in problems if p[2].startswith("wager")] == [
        ("CF-690.5fg-rescue", 9025, f"wager 9-1 of seat 1 paid at 7 to 1; the coin-flip game gives 60 to 1: {why}"),
        ("CF-690.5fg-rescue", 9026, f"wager 9-2 of seat 2 paid at 7 to 1; the coin-flip game gives 60 to 1: {why}")]


def coin_shown_x1() -> RoundView:
    """Red 2x / blue 20x under a Top Slot x2 shown x1; red up, a Rescue Flip, blue up."""
    r = Round("coin-flip", top=("coin-flip", 2, True), n=9)
    r.add("board", "board_generated", {"board_id": 1, "game": "coin-flip", "values": [2, 20], "multiplier": 1,
                                       "device_time_s": r.t}, dt=1.0)
    r.add("board", "board_multiplied", {"board_id": 1, "game": "coin-flip", "values": [2, 20], "multiplier": 1,
                                        "device_time_s": r.t})
    r.flip("red")
    r.draw("rescue", 2, 1)
    r.flip("blue")
    return r.settle({1: 40, 2: 40})


def test_a_board_never_multiplied_is_displayed_as_generated():
    rep, _ = replay(framed(9, top=("coin-flip", 2, True), mult=None, pay=40))
    assert (rep.displayed, rep.displayed_multiplier, rep.shown, rep.displayed_final) == (
        (4, 20), 1, (8, 40), {1: 20, 2: 20})
    rep, _ = replay(coin_shown_x1(), BEFORE_TOP_SLOT)  # each board played with its own multiplier
    assert (rep.final, rep.displayed_final, rep.displayed_multiplier) == ({1: 40, 2: 40}, {1: 20, 2: 20}, 1)


def test_the_regulation_s_board_undetermined_where_only_it_breaks():
    """A wheel generated with two Doubles (sections 0 and 1: § 690.8(b)(2)'s finding) but shown with one:
    the clapper on the Double doubles the wheel as displayed, but the regulation's wheel, with two
    Doubles, cannot be doubled — its final multipliers are undetermined, and say why."""
    base = (rb.DOUBLE, rb.DOUBLE) + CTW_BASE[2:]
    r = Round("crazy-time", seats=(1,), n=9)
    r.add("board", "board_generated", {"board_id": 1, "game": "crazy-time", "values": list(base), "multiplier": 1,
                                       "device_time_s": r.t}, dt=1.0)
    r.add("board", "board_multiplied", {"board_id": 1, "game": "crazy-time", "multiplier": 1,
                                        "values": [rb.DOUBLE, 20] + list(CTW_BASE[2:]), "device_time_s": r.t})
    r.countdown({1: 0})
    r.ctw_spin((0, 3, 6))
    ctw_doubled(r, (1,), rb.ctw_double((rb.DOUBLE, 20) + CTW_BASE[2:], second=False))
    r.ctw_spin((5, 8, 11))
    rep, problems = replay(r.settle({1: 100}))
    assert (rep.undetermined, rep.final, rep.displayed_final) == ("malformed bonus record (ValueError)", {}, {1: 100})
    assert problems == [
        ("CTW-690.8b-wheel", 9017, '§ 690.8(b)(2): "Double" may be displayed in one wheel section only; 2 show it '
                                   "(section 0, section 1)"),
        ("CTW-690.8b-wheel", 9018, "§ 690.8(f): the board was shown ×1; expected ×1 (no Top Slot multiplier on this "
                                   "game): section 1: expected Double, shown 20x")]
