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

import pytest

from hil.checks import bonus as cb
from hil.checks.base import BenchView, CheckConfig, RoundView
from rules import bonus as rb
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


def judge(rounds, checks, bench_view: BenchView | None = None, config: CheckConfig = CheckConfig()):
    """Each check's (verdict, summary, [(measurement, value, unit, limit)], [(round, seq, words)])."""
    out = {}
    for cls in checks:
        c = cls(config)
        c.setup(bench() if bench_view is None else bench_view)
        for rv in rounds:
            c.observe(rv)
        res = c.result()
        assert res.findings_total == len(res.findings)
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
                          "§ 690.4(b): no crazy-time bonus_result on record for a settled round")], "no wheel spin", {}),
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
    ({"seats": (), "spins": [(5, 8, 11), (9, 12, 15)]},
     [("CTW-690.8cd-countdown", 9023, "§ 690.8(d)–(e): the wheel was spun again after every player's payout odds "
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
        (0, None, "§ 690.8(b): the wheel declares 8 sections; it must have 64"), (0, None, "declared clappers [0, 3, 6]: § 690.8(b)(4): the clappers on sections 6 and 0 have 1 "
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
    assert problems == [("CTW-690.8cd-countdown", 6019, "§ 690.8(f): the Top Slot multiplier was applied (board shown "
                                                        "×2, seq 6019) after the countdown timer commenced (seq 6018); "
                                                        "it must be applied prior to it")]
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
