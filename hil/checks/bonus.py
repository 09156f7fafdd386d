"""Bonus-game checks (58 Pa. Code §§ 690.5–690.8). Each reads only the trace.

``replay_bonus`` re-derives a round's bonus game from the trace alone — the wheel's rest (or the
lab's ``forced_result``), the Top Slot's own report, the accepted wagers, the multiplier board's
draws, the coin, the puck, the Crazy Time World wheel and the players' selections — through the
pure rules of ``rules.bonus``. It never takes the croupier's ``bonus_result``, its ``board_doubled``
/ ``board_rescued`` claims or its payments as evidence: it derives each eligible seat's FINAL
multiplier itself, and compares the croupier's records with it. What it finds wrong is a
``Problem`` naming the check that owns it (and the section violated); each check below reports its
own problems, and ``SettlementCheck`` (``hil.checks.crazy_time``) pays the replayed multipliers.

The displayed board is the generated board times the Top Slot multiplier the Top Slot itself
reported (reels aligned on the game: its multiplier, else 1) — not what the croupier passed to the
board: a croupier that ignores the Top Slot shows the wrong board, and is caught here.

The statistical checks at the end (landings, board values, coin) read the devices' reports
directly and judge them by a p-value at ``config.chi2_alpha``; they are indeterminate below
``config.chi2_min_spins`` observations (puck landings, board cells of a game, coin flips).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from scipy import stats

from hil.checks.base import BenchView, Check, Measurement, RoundView
from hil.trace import Event
from rules import bonus as rb
from rules.crazy_time import BONUS_SPOTS, Spot
from rules.pachinko import DROP_ZONES, LANDING_SPOTS, Lattice
from rules.submission import RulesSubmission

#: timestamps closer than this are simultaneous (float rounding of offsets added to clocks)
TIME_RESOLUTION_S = 1e-9
#: Pearson's χ² wants every (merged) cell to expect at least this many observations
MIN_EXPECTED = 5.0
#: boards of a game before the share showing a Double is tested
MIN_DOUBLE_BOARDS = 100
#: Crazy Time World stops before their uniformity is tested: 5 expected in each of the 64 sections
MIN_CTW_STOPS = 5 * 64

BOARD = "board"
CROUPIER = "croupier"

# The checks' ids: a Problem names the one that reports it.
CF_MULT, CF_ORDER, CF_RESCUE = "CF-690.5c-multipliers", "CF-690.5e-order", "CF-690.5fg-rescue"
CH_MULT, CH_ORDER, CH_PLAYER = "CH-690.6b-multipliers", "CH-690.6cd-order", "CH-690.6f-per-player"
PA_MULT, PA_ZONE, PA_DOUBLE, PA_RESCUE, PA_ORDER = (
    "PA-690.7c-multipliers", "PA-690.7d-drop-zone", "PA-690.7e-double", "PA-690.7g-rescue", "PA-690.7f-order")
CTW_WHEEL, CTW_COUNTDOWN, CTW_DOUBLE = "CTW-690.8b-wheel", "CTW-690.8cd-countdown", "CTW-690.8e-double"


@dataclass(frozen=True)
class _GameRefs:
    """Per game: the checks that own its board and its order, and the sections they cite."""

    mult: str  # the check of the board's multipliers
    order: str  # the check of the order of play
    outcome: str  # the check of the outcome when no Double / Rescue decided it
    generate: str  # the section that has the board generated at the start of the game
    top_slot: str  # the section that has the Top Slot multiplier applied before play
    par: str  # the Rules Submission's field of the game's PAR


GAMES: dict[Spot, _GameRefs] = {
    Spot.COIN_FLIP: _GameRefs(CF_MULT, CF_ORDER, CF_RESCUE, "§ 690.5(c)", "§ 690.5(e)", "coin_flip"),
    Spot.CASH_HUNT: _GameRefs(CH_MULT, CH_ORDER, CH_PLAYER, "§ 690.6(c)", "§ 690.6(g)", "cash_hunt"),
    Spot.PACHINKO: _GameRefs(PA_MULT, PA_ORDER, PA_ZONE, "§ 690.7(c)", "§ 690.7(f)", "pachinko"),
    Spot.CRAZY_TIME: _GameRefs(CTW_WHEEL, CTW_COUNTDOWN, CTW_COUNTDOWN, "§ 690.8(b)(3), (c)", "§ 690.8(f)",
                               "crazy_time_world"),
}


# --------------------------------------------------------------------------- the replay
@dataclass(frozen=True)
class Problem:
    """A deviation the replay found: ``check`` (an id) reports it; ``message`` cites the section."""

    check: str
    ev: Event | None
    message: str


@dataclass
class BonusReplay:
    """One round's bonus game as the trace shows it, and what the regulation makes of it."""

    game: Spot
    seats: tuple[int, ...]  # eligible seats: an accepted wager on the game (§ 690.2(f))
    top_slot_multiplier: int | None  # from the Top Slot's own report; None: no report
    trigger: Event | None = None  # the croupier's spin_valid of the spin that triggered the game
    trigger_time_s: float | None = None  # when the wheel came to rest (its own clock)
    start: Event | None = None  # bonus_start
    generated: Event | None = None  # board_generated
    multiplied: Event | None = None  # board_multiplied
    base: tuple[int, ...] | None = None  # as generated
    shown: tuple[int, ...] | None = None  # base × the Top Slot multiplier (the regulation's board)
    displayed: tuple[int, ...] | None = None  # the board as the multiplier board showed it before play
    displayed_multiplier: int = 1  # the Top Slot multiplier ``displayed`` carries (the Rescue reading divides by it)
    displayed_final: dict[int, int] | None = None  # the final multipliers on ``displayed``, when it differs
    final: dict[int, int] = field(default_factory=dict)  # seat -> final multiplier, re-derived
    why: dict[int, str] = field(default_factory=dict)  # seat -> how the trace gives ``final[seat]``
    undetermined: str | None = None  # why some eligible seat has no final multiplier
    result: Event | None = None  # the croupier's bonus_result (compared, never trusted)
    void: Event | None = None  # bonus_void: the round was refunded
    outcome_check: str = ""  # the check that owns the comparison of ``final`` with the records
    problems: list[Problem] = field(default_factory=list)
    # tallies for the checks' measurements and relevance
    flips: int = 0
    rescue_eligible: int = 0  # landings / flips on which a Rescue could be activated
    rescue_draws: int = 0
    rescues: int = 0  # Rescue Flips / Drops activated (and permitted)
    drops: int = 0
    double_landings: int = 0  # Pachinko: puck on Double; CTW: a selected clapper on Double
    spins: int = 0
    picks: int = 0
    auto_picks: int = 0

    def problem(self, check: str, ev: Event | None, message: str) -> None:
        self.problems.append(Problem(check, ev, message))

    def problems_of(self, check: str) -> list[Problem]:
        return [p for p in self.problems if p.check == check]

    def unknown(self, why: str) -> None:
        """The final multipliers cannot be derived (first reason kept)."""
        self.undetermined = self.undetermined or why


def _payload(ev: Event) -> dict[str, Any]:
    if not isinstance(ev.payload, dict):
        raise TypeError(f"{ev.kind} payload is {type(ev.payload).__name__}, not an object")
    return ev.payload


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is {value!r}, not a whole number")
    return value


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{what} is {value!r}, not a list")
    return tuple(_int(v, f"{what}[{i}]") for i, v in enumerate(value))


def _time(ev: Event, key: str = "device_time_s") -> float:
    v = _payload(ev).get(key, ev.sim_time)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{ev.kind} {key} is {v!r}, not a time")
    return float(v)


def _x(values: Sequence[int] | None, game: Spot) -> str:
    """A board in a message: short ones in full, long ones by their first cells."""
    if values is None:
        return "none"
    cells = ["Double" if v == rb.DOUBLE else f"{v}x" for v in values]
    if game is Spot.COIN_FLIP and len(cells) == 2:
        return f"red {cells[0]} / blue {cells[1]}"
    return "[" + ", ".join(cells[:16]) + (f", … ({len(cells)} cells)" if len(cells) > 16 else "") + "]"


def board_difference(game: Spot, expected: Sequence[int], seen: Sequence[int]) -> str:
    """The first cells where a shown board differs from the expected one, named as the game names them."""
    if len(expected) != len(seen):
        return f"{len(seen)} cells shown, {len(expected)} expected"
    diff = [i for i, (a, b) in enumerate(zip(expected, seen)) if a != b]
    x = lambda v: "Double" if v == rb.DOUBLE else f"{v}x"  # noqa: E731
    parts = [f"{rb.cell_name(game, i)}: expected {x(expected[i])}, shown {x(seen[i])}" for i in diff[:3]]
    return "; ".join(parts) + (f" (and {len(diff) - 3} more cells)" if len(diff) > 3 else "")


def _rules_of(bench: BenchView) -> RulesSubmission | None:
    if bench.rules is None:
        return None
    return RulesSubmission.model_validate(bench.rules)


def _par(rules: RulesSubmission | None, game: Spot) -> Any:
    return getattr(rules, GAMES[game].par) if rules is not None else None


def refused_for_limits(rv: RoundView) -> dict[str, Event]:
    """The wagers the croupier refused as outside the table's minimum / maximum wager
    (``wager_rejected`` kind ``limits``, § 690.1(g)(4); judged by CT-690.1g4-limits): wager_id -> the
    refusal. A refused wager is no wager: it is not settled and takes no part in a bonus game."""
    return {e.payload["wager_id"]: e for e in rv.by_croupier("wager_rejected")
            if isinstance(e.payload, dict) and e.payload.get("kind") == "limits"}


def forced_result(rv: RoundView) -> Event | None:
    """The lab's forced-outcome record of the round (``Croupier.force_result``), if any."""
    return next((e for e in rv.events if e.device == CROUPIER and e.kind == "forced_result"), None)


def result_spot(rv: RoundView) -> Spot | None:
    """What the round is settled on: the forced result when the lab forced one, else the section
    the valid spin came to rest in (§ 690.2(c)); None without a valid spin or for an unknown name."""
    a = rv.valid_attempt
    if a is None:
        return None
    forced = forced_result(rv)
    if forced is not None:
        name = _payload(forced).get("spot")
    elif a.wheel_stop is not None:
        name = _payload(a.wheel_stop).get("spot")
    else:
        name = _payload(a.outcome).get("spot") if a.outcome is not None else None
    try:
        return Spot(name)
    except ValueError:
        return None


def replay_bonus(rv: RoundView, rules: RulesSubmission | None) -> BonusReplay | None:
    """The round's bonus game re-derived from the trace (see the module's docstring), or None when
    the round was not settled on a bonus game symbol. Computed once per round and shared."""
    key = "bonus_replay"
    if key not in rv.derived:
        rv.derived[key] = _replay(rv, rules)
    return rv.derived[key]


_MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError)


def _replay(rv: RoundView, rules: RulesSubmission | None) -> BonusReplay | None:
    try:
        game = result_spot(rv)
    except _MALFORMED:
        return None  # the result's own evidence is CT-690.2c's to judge
    if game not in BONUS_SPOTS:
        return None
    refs = GAMES[game]
    a = rv.valid_attempt
    seats: set[int] = set()
    refused = {wid.rsplit("-", 1)[-1] for wid in refused_for_limits(rv)}  # "<round>-<press_id>"
    for pid, p in rv.wager_presses().items():  # a player's on-time press: never a late one, never the probe's
        if str(pid) in refused:
            continue  # refused as outside the table's limits: no wager
        pl = p.payload if isinstance(p.payload, dict) else {}
        if pl.get("spot") == game and isinstance(pl.get("seat"), int):
            seats.add(pl["seat"])
    m: int | None = None
    if a.top_stop is not None:
        top = a.top_stop.payload if isinstance(a.top_stop.payload, dict) else {}
        mult = top.get("multiplier")
        aligned_here = bool(top.get("aligned")) and top.get("spot") == game
        m = mult if aligned_here and isinstance(mult, int) and not isinstance(mult, bool) and mult >= 1 else 1
    r = BonusReplay(game, tuple(sorted(seats)), m, trigger=a.outcome, outcome_check=refs.outcome)
    try:
        _replay_game(rv, r, rules)
    except _MALFORMED as exc:
        r.problem(r.outcome_check, None, f"malformed {game} bonus record: {type(exc).__name__}: {exc}")
        r.unknown("malformed bonus record")
    return r


def _replay_game(rv: RoundView, r: BonusReplay, rules: RulesSubmission | None) -> None:
    game, refs = r.game, GAMES[r.game]
    a = rv.valid_attempt
    if a.wheel_stop is not None:
        r.trigger_time_s = _time(a.wheel_stop, "stop_time_s")
    start_i = next((i for i, e in enumerate(rv.events) if e.device == CROUPIER and e.kind == "bonus_start"), None)
    if start_i is None:
        if rv.settled:
            r.problem(refs.mult, rv.end, f"§ 690.4(b), {refs.generate}: the round was settled on {game} but no "
                      "bonus game was played (no bonus_start): its payout odds were never established")
        r.unknown("no bonus game played")
        return
    seg = rv.events[start_i:]
    r.start = seg[0]
    r.result = next((e for e in seg if e.device == CROUPIER and e.kind == "bonus_result"), None)
    r.void = next((e for e in seg if e.device == CROUPIER and e.kind == "bonus_void"), None)
    st = _payload(r.start)
    if st.get("game") != game:
        r.problem(r.outcome_check, r.start, f"§ 690.4(b): the round was settled on {game} but the croupier "
                  f"started the {st.get('game')!r} bonus game")
    if sorted(st.get("seats") or []) != list(r.seats):
        r.problem(r.outcome_check, r.start, f"§ 690.2(f): the bonus game was played for seats {st.get('seats')}; "
                  f"the seats with an accepted wager on {game} are {list(r.seats)}")
    if r.top_slot_multiplier is None:
        r.problem(refs.mult, r.start, f"{refs.top_slot}: no Top Slot report for the spin that triggered the "
                  "game: the multiplier to apply is unknown")
        r.unknown("no Top Slot report")
        return
    # ---- the board as generated, and as shown after the Top Slot multiplier
    gens = [e for e in seg if e.device == BOARD and e.kind == "board_generated"]
    if not gens:
        if r.void is None:
            r.problem(refs.mult, r.result or r.start, f"§ 690.4(b), {refs.generate}: no board of multipliers was "
                      f"generated: the {game} bonus game was not played")
        r.unknown("no board generated")
        return
    r.generated = gens[0]
    g = _payload(r.generated)
    if len(gens) > 1:
        r.problem(refs.mult, gens[1], f"{refs.generate}: {len(gens)} boards generated in one {game} game")
    if g.get("game") != game:
        r.problem(refs.mult, r.generated, f"{refs.generate}: a {g.get('game')!r} board was generated for the "
                  f"{game} game")
    r.base = _ints(g.get("values"), "board_generated values")
    for msg in rb.board_deviations(game, r.base):
        r.problem(refs.mult, r.generated, msg)
    par = _par(rules, game)
    if rb.DOUBLE in r.base and par is not None and getattr(par, "double_probability", 1) == 0:
        r.problem(refs.mult, r.generated, f"{refs.generate}: the board shows Double but the Rules Submission's "
                  f"{refs.par}.double_probability is 0")
    if len(r.base) != rb.BOARDS[game][0]:
        r.unknown("board of the wrong size")
        return
    m = r.top_slot_multiplier
    r.shown = rb.apply_top_slot(r.base, m)
    t_gen = _time(r.generated)
    if r.trigger_time_s is not None and t_gen < r.trigger_time_s - TIME_RESOLUTION_S:
        r.problem(refs.order, r.generated, f"{refs.generate}: the board's multipliers were drawn at t={t_gen:.3f} s, "
                  f"{r.trigger_time_s - t_gen:.3f} s before the wheel came to rest on {game} "
                  f"(t={r.trigger_time_s:.3f} s): "
                  "they must be generated when the bonus game begins, after it was triggered")
    if r.trigger is not None and r.generated.seq < r.trigger.seq:
        r.problem(refs.order, r.generated, f"{refs.generate}: the board was generated (seq {r.generated.seq}) before "
                  f"the spin that triggered the game was validated (seq {r.trigger.seq})")
    bid = g.get("board_id")
    r.multiplied = next((e for e in seg if e.device == BOARD and e.kind == "board_multiplied"
                         and isinstance(e.payload, dict) and e.payload.get("board_id") == bid), None)
    why_m = (f"Top Slot aligned on {game} ×{m}" if m > 1 else "no Top Slot multiplier on this game")
    if r.multiplied is None:
        if m > 1 and r.void is None:
            r.problem(refs.mult, r.generated, f"{refs.top_slot}: the Top Slot multiplier ×{m} was never applied to "
                      f"the board ({why_m})")
    else:
        mp = _payload(r.multiplied)
        shown = _ints(mp.get("values"), "board_multiplied values")
        if mp.get("multiplier") != m or shown != r.shown:
            r.problem(refs.mult, r.multiplied, f"{refs.top_slot}: the board was shown ×{mp.get('multiplier')}; "
                      f"expected ×{m} ({why_m}): {board_difference(game, r.shown, shown)}")
    # The procedure (Rescue eligibility, Doubles, …) is judged on the board as displayed; the final
    # multipliers are the regulation's board's. They differ only when the board showed the wrong
    # Top Slot multiplier — reported above — and then the croupier's records are compared with both.
    r.displayed, r.displayed_multiplier = r.shown, m
    if r.multiplied is not None:
        shown = _ints(_payload(r.multiplied).get("values"), "board_multiplied values")
        if len(shown) == len(r.shown):
            r.displayed = shown
            if shown != r.shown:
                shown_m = _payload(r.multiplied).get("multiplier")
                r.displayed_multiplier = shown_m if isinstance(shown_m, int) and not isinstance(shown_m, bool) \
                    and shown_m >= 1 else 1
    elif m > 1:
        r.displayed, r.displayed_multiplier = r.base, 1  # nothing was applied
    play = _PLAY[game]
    play(rv, r, seg, rules)
    if r.displayed != r.shown:
        reg = BonusReplay(game, r.seats, m, trigger=r.trigger, trigger_time_s=r.trigger_time_s, start=r.start,
                          generated=r.generated, multiplied=r.multiplied, base=r.base, shown=r.shown,
                          displayed=r.shown, displayed_multiplier=m, result=r.result, void=r.void,
                          outcome_check=r.outcome_check)
        try:
            play(rv, reg, seg, rules)
        except _MALFORMED as exc:
            reg.unknown(f"malformed bonus record ({type(exc).__name__})")
        r.displayed_final = r.final
        r.final, r.why, r.undetermined, r.outcome_check = reg.final, reg.why, reg.undetermined, reg.outcome_check
    _compare_records(rv, r)


def _before_play(r: BonusReplay, first_play: Event | None, what: str) -> None:
    """The Top Slot multiplier applied (the board shown multiplied) before ``first_play``."""
    if first_play is None or r.multiplied is None:
        return
    shown_m = r.multiplied.payload.get("multiplier") if isinstance(r.multiplied.payload, dict) else None
    if r.top_slot_multiplier == 1 and shown_m in (1, None):
        return  # "If applicable": no Top Slot multiplier on this game, nothing to apply before play
    if r.multiplied.seq > first_play.seq:
        refs = GAMES[r.game]
        r.problem(refs.order, r.multiplied, f"{refs.top_slot}: the Top Slot multiplier was applied (board shown "
                  f"×{r.multiplied.payload.get('multiplier')}, seq {r.multiplied.seq}) after {what} "
                  f"(seq {first_play.seq}); it must be applied prior to it")


def _reading(rules: RulesSubmission | None) -> str:
    """The Rescue reading the Rules Submission on record declares (``rules.bonus.rescue_value``)."""
    return rules.rescue_reading if rules is not None else rb.DEFAULT_RESCUE_READING


def _reading_words(reading: str, multiplier: int) -> str:
    if reading == "displayed" or multiplier == 1:
        return f"judged on the values as displayed (rescue_reading {reading!r})"
    return f"judged on the multipliers before the Top Slot's x{multiplier} (rescue_reading {reading!r})"


def _kind(seg: list[Event], device: str | None, kind: str, **where: Any) -> list[Event]:
    out = []
    for e in seg:
        if e.kind != kind or (device is not None and e.device != device):
            continue
        if where and not (isinstance(e.payload, dict) and all(e.payload.get(k) == v for k, v in where.items())):
            continue
        out.append(e)
    return out


# --------------------------------------------------------------------------- § 690.5
def _face(ev: Event) -> str:
    face = _payload(ev).get("face")
    if face not in rb.COIN_SIDES:
        raise ValueError(f"§ 690.5(b): the coin flipper reported face {face!r}; the sides are "
                         f"{' and '.join(rb.COIN_SIDES)}")
    return face


def _coin_flip(rv: RoundView, r: BonusReplay, seg: list[Event], rules: RulesSubmission | None) -> None:
    starts = _kind(seg, None, "coin_flip_start")
    stops = _kind(seg, None, "coin_flip_stop")
    draws = _kind(seg, BOARD, "board_draw", purpose="rescue")
    _before_play(r, starts[0] if starts else None, "the coin was flipped (coin_flip_start)")
    r.flips = len(stops)
    if not stops:
        if r.void is None:
            r.problem(CF_RESCUE, r.result or r.start, "§ 690.5(d): no flip of the coin came to rest: the winning "
                      "payout odds have no evidence")
        r.unknown("no coin flip")
        return
    shown, first = r.displayed, stops[0]
    face = _face(first)
    reading = _reading(rules)
    eligible = rb.rescue_flip_eligible(shown, face, reading, r.displayed_multiplier)
    r.rescue_eligible += eligible
    board = f"{_x(shown, Spot.COIN_FLIP)}, {face} face up"
    rescue_p = getattr(_par(rules, Spot.COIN_FLIP), "rescue_probability", None)
    final_face, how = face, f"the initial flip landed {face} up"
    if any(d.seq < first.seq for d in draws):
        r.problem(CF_RESCUE, draws[0], "§ 690.5(f): a Rescue Flip was drawn before the initial flip came to rest")
    if len(draws) > 1:
        r.problem(CF_RESCUE, draws[1], f"§ 690.5(f)–(g): {len(draws)} Rescue Flip draws in one game; a Rescue Flip "
                  "may follow the initial flip once")
    if draws:
        d = draws[0]
        r.rescue_draws += 1
        activated = _int(_payload(d).get("value"), "rescue draw value") == 1
        if not eligible:
            unmet = "; ".join(f"§ 690.5{u}" for u in rb.rescue_flip_unmet(shown, face, reading, r.displayed_multiplier))
            r.problem(CF_RESCUE, d, f"§ 690.5(f): a Rescue Flip was drawn although (f)(1)–(3) did not all hold "
                      f"({board}; {_reading_words(reading, r.displayed_multiplier)}): {unmet}")
        elif activated and rescue_p == 0:
            r.problem(CF_RESCUE, d, "§ 690.5(f): a Rescue Flip was activated but the Rules Submission's "
                      "coin_flip.rescue_probability is 0")
        later = [s for s in stops[1:] if s.seq > d.seq]
        if activated:
            if not later:
                if r.void is None:
                    r.problem(CF_RESCUE, d, "§ 690.5(g): a Rescue Flip was activated but the coin was not flipped "
                              "again")
                r.unknown("Rescue Flip not flipped")
                return
            if eligible:
                r.rescues += 1
                final_face = _face(later[0])
                how = f"the initial flip landed {face} up; the Rescue Flip landed {final_face} up (final, § 690.5(g))"
            else:
                how = (f"the initial flip landed {face} up (§ 690.5(d)); the second flip (landed "
                       f"{_face(later[0])} up) was no permitted Rescue Flip")
        elif len(stops) > 1:
            r.problem(CF_RESCUE, stops[1], "§ 690.5(d), (g): the coin was flipped again although no Rescue Flip "
                      "was activated")
    else:
        if eligible and rescue_p is not None and rescue_p > 0:
            r.problem(CF_RESCUE, first, f"§ 690.5(f): (f)(1)–(3) held ({board}; "
                      f"{_reading_words(reading, r.displayed_multiplier)}) but no Rescue Flip draw was made "
                      f"(the Rules Submission activates one with probability {rescue_p})")
        if len(stops) > 1:
            r.problem(CF_RESCUE, stops[1], "§ 690.5(d), (g): the coin was flipped again without a Rescue Flip "
                      "draw")
    if len(stops) > 2:
        r.problem(CF_RESCUE, stops[2], f"§ 690.5(g): {len(stops)} flips in one game; the Rescue Flip is the final "
                  "outcome")
    value = rb.coin_value(shown, final_face)
    for seat in r.seats:
        r.final[seat] = value
        r.why[seat] = f"{how}: {value}x ({board})"


# --------------------------------------------------------------------------- § 690.6 / § 690.8(c)
def _countdown(r: BonusReplay, seg: list[Event], check: str, section: str) -> tuple[Event | None, Event | None]:
    cs = next(iter(_kind(seg, CROUPIER, "countdown_start")), None)
    ce = next(iter(_kind(seg, CROUPIER, "countdown_end")), None)
    if (cs is None or ce is None) and r.void is None:
        r.problem(check, r.start, f"{section}: no countdown timer on record (countdown_start / countdown_end)")
    if cs is not None and ce is not None:
        if ce.seq < cs.seq:
            r.problem(check, ce, f"{section}: the countdown ended before it commenced")
        duration = _payload(cs).get("duration_s")
        ran = ce.sim_time - cs.sim_time
        if isinstance(duration, int | float) and ran < float(duration) - 1e-6:
            r.problem(check, ce, f"{section}: the countdown announced {duration} s but ended after {ran:.3f} s")
    return cs, ce


def _selections(r: BonusReplay, seg: list[Event], choices: int, check: str, section: str,
                cs: Event | None, ce: Event | None) -> dict[int, int]:
    """The players' selections (0-based, ``range(choices)``) per eligible seat, with § 690.6(d) /
    § 690.8(c): "If the player does not make a selection before the time elapses, one … will be
    automatically selected at random" — by the board's RNG (an ``auto_pick`` draw)."""
    game = r.game
    draws: deque[Event] = deque()
    chosen: dict[int, int] = {}
    for e in seg:
        if e.device == BOARD and e.kind == "board_draw" and isinstance(e.payload, dict) \
                and e.payload.get("purpose") == "auto_pick":
            if e.payload.get("n") != choices:
                r.problem(check, e, f"{section}: an automatic selection drawn from {e.payload.get('n')} choices; "
                          f"there are {choices}")
            draws.append(e)
            continue
        if e.device != CROUPIER or e.kind != "player_pick":
            continue
        p = _payload(e)
        seat, choice = _int(p.get("seat"), "player_pick seat"), _int(p.get("choice"), "player_pick choice")
        auto = p.get("auto") is True
        if p.get("game") != game:
            r.problem(check, e, f"{section}: a selection for the {p.get('game')!r} game during {game}")
        if seat not in r.seats:
            r.problem(check, e, f"{section}: seat {seat} made a selection but has no accepted wager on {game}")
            continue
        if seat in chosen:
            r.problem(check, e, f"{section}: seat {seat} was given {'an automatic' if auto else 'a'} selection "
                      f"although it already had one ({chosen[seat]}); each player selects once")
            continue
        if not 0 <= choice < choices:
            r.problem(check, e, f"{section}: seat {seat} selected {choice}; the choices are 0..{choices - 1}")
            continue
        if auto:
            r.auto_picks += 1
            if ce is None or e.seq < ce.seq:
                r.problem(check, e, f"{section}: seat {seat} was selected for automatically before the time "
                          "elapsed (countdown_end)")
            if not draws:
                r.problem(check, e, f"{section}: seat {seat}'s automatic selection {choice} was not drawn at "
                          "random by the board (no auto_pick draw before it)")
            else:
                d = draws.popleft()
                if d.payload.get("value") != choice:
                    r.problem(check, e, f"{section}: seat {seat}'s automatic selection {choice} differs from the "
                              f"board's random draw {d.payload.get('value')!r} (seq {d.seq})")
        else:
            r.picks += 1
            if cs is None or ce is None or not cs.seq < e.seq < ce.seq:
                r.problem(check, e, f"{section}: seat {seat} selected at t={e.sim_time:.3f} s, outside the "
                          "countdown" + (f" (t={cs.sim_time:.3f} to {ce.sim_time:.3f} s)" if cs and ce else ""))
        chosen[seat] = choice
    missing = [s for s in r.seats if s not in chosen]
    if missing:
        if r.void is None:
            r.problem(check, ce or r.start, f"{section}: seat(s) {missing} have no selection; one must be made "
                      "automatically at random when the time elapses")
        r.unknown(f"no selection for seat(s) {missing}")
    return chosen


def _cash_hunt(rv: RoundView, r: BonusReplay, seg: list[Event], rules: RulesSubmission | None) -> None:
    shuffles = _kind(seg, BOARD, "board_draw", purpose="shuffle")
    shuffle = shuffles[0] if shuffles else None
    _before_play(r, shuffle, "the multipliers were covered and shuffled")
    cs, ce = _countdown(r, seg, CH_ORDER, "§ 690.6(d)")
    if shuffle is None:
        if r.void is None:
            r.problem(CH_ORDER, r.start, "§ 690.6(c): the multipliers were never covered by symbols and shuffled")
        r.unknown("no shuffle")
        return
    if len(shuffles) > 1:
        r.problem(CH_ORDER, shuffles[1], f"§ 690.6(c): the board was shuffled {len(shuffles)} times")
    if cs is not None and cs.seq < shuffle.seq:
        r.problem(CH_ORDER, cs, "§ 690.6(d): the countdown commenced before the multipliers were shuffled "
                  f"(shuffle seq {shuffle.seq}); it must follow the shuffling")
    perm = _ints(_payload(shuffle).get("value"), "shuffle permutation")
    if sorted(perm) != list(range(rb.CASH_HUNT_CELLS)):
        r.problem(CH_ORDER, shuffle, f"§ 690.6(c): the shuffle is not a permutation of the "
                  f"{rb.CASH_HUNT_CELLS} multipliers")
        r.unknown("shuffle not a permutation")
        return
    chosen = _selections(r, seg, rb.CASH_HUNT_CELLS, CH_ORDER, "§ 690.6(d)", cs, ce)
    for seat, symbol in chosen.items():
        cell = perm[symbol]
        r.final[seat] = r.displayed[cell]
        r.why[seat] = (f"seat {seat} selected symbol {symbol}, which covers cell {cell} showing {r.displayed[cell]}x "
                       "(§ 690.6(e)–(f))")


# --------------------------------------------------------------------------- § 690.7
@dataclass
class _Drop:
    draw: Event | None
    drop: Event
    landed: Event | None = None
    after: list[Event] = field(default_factory=list)  # doubled / rescue draw / rescued, until the next drop


def _pachinko(rv: RoundView, r: BonusReplay, seg: list[Event], rules: RulesSubmission | None) -> None:
    drops: list[_Drop] = []
    pending: Event | None = None  # the drop zone drawn for the next drop
    for e in seg:
        if e.device == BOARD and e.kind == "board_draw" and isinstance(e.payload, dict) \
                and e.payload.get("purpose") == "drop_zone":
            if pending is not None:
                r.problem(PA_ZONE, e, "§ 690.7(d): a drop zone was drawn twice for one drop")
            z = e.payload.get("value")
            if e.payload.get("n") != len(DROP_ZONES) or z not in DROP_ZONES:
                r.problem(PA_ZONE, e, f"§ 690.7(d): the drop zone drawn is {z!r} (of {e.payload.get('n')!r}); "
                          f"the location is selected at random above landing spots 4 through 13")
            pending = e
        elif e.kind == "puck_drop":
            drops.append(_Drop(pending, e))
            pending = None
        elif e.kind == "puck_landed":
            if drops and drops[-1].landed is None:
                drops[-1].landed = e
            else:
                r.problem(PA_ZONE, e, "§ 690.7(d): a landing reported without a puck drop")
        elif (e.device == CROUPIER and e.kind in ("board_doubled", "board_rescued")) or (
                e.device == BOARD and e.kind == "board_draw" and isinstance(e.payload, dict)
                and e.payload.get("purpose") == "rescue"):
            if drops:
                drops[-1].after.append(e)
            else:
                check = PA_DOUBLE if e.kind == "board_doubled" else PA_RESCUE
                r.problem(check, e, f"§ 690.7: {e.kind} before any puck was dropped")
    _before_play(r, drops[0].drop if drops else None, "the puck was dropped (puck_drop)")
    r.drops = len(drops)
    values = r.displayed
    double_used = rescue_used = False
    literal: set[int] = set()  # cells (0-based) showing the 50x that replaced the Double (§ 690.7(e)(2))
    reading, rm = _reading(rules), r.displayed_multiplier
    final: int | None = None
    path = "plain"
    par = _par(rules, Spot.PACHINKO)
    rescue_p = getattr(par, "rescue_probability", None)
    for i, d in enumerate(drops):
        last = i == len(drops) - 1
        zone = _payload(d.drop).get("zone")
        # whose drop this is: the first (§ 690.7(d)), after the Double ((e)(3)) or after a Rescue ((g)(3))
        # (a drop from outside the area is (d)'s, whichever drop it is)
        owner, sub = {"double": (PA_DOUBLE, "§ 690.7(e)(3)"), "rescue": (PA_RESCUE, "§ 690.7(g)(3)")}.get(
            path if final is None and i and zone in DROP_ZONES else "", (PA_ZONE, "§ 690.7(d)"))
        if zone not in DROP_ZONES:
            r.problem(PA_ZONE, d.drop, f"§ 690.7(d): the puck was dropped above landing spot {zone!r}, outside "
                      "the area above landing spots 4 through 13 (the center half of the board)")
        if d.draw is None:
            r.problem(owner, d.drop, f"{sub}: the puck was dropped from zone {zone!r} without a randomly selected "
                      "drop zone (no drop_zone draw by the board for this drop)")
        elif d.draw.payload.get("value") != zone:
            r.problem(owner, d.drop, f"{sub}: the puck was dropped from zone {zone!r}; the randomly "
                      f"selected drop zone was {d.draw.payload.get('value')!r} (seq {d.draw.seq})")
        if final is not None:
            check = {"rescue": PA_RESCUE, "denied": PA_RESCUE, "double": PA_DOUBLE}.get(path, PA_ZONE)
            r.problem(check, d.drop, f"§ 690.7: the puck was dropped again after it came to rest on {final}x, "
                      "which constituted the winning payout odds" + {
                          "rescue": "; no additional Rescue Drops shall follow (§ 690.7(g)(4))",
                          "denied": f"; no Rescue Drop is permitted on {final}x (§ 690.7(g))"}.get(path, ""))
            continue
        if d.landed is None:
            if r.void is None:
                r.problem(PA_ZONE, d.drop, "§ 690.7(d): the puck never came to rest in a landing spot")
            r.unknown("puck did not land")
            return
        lp = _payload(d.landed)
        spot = _int(lp.get("spot"), "landing spot")
        if lp.get("zone") != zone:
            r.problem(PA_ZONE, d.landed, f"§ 690.7(d): the landing reports zone {lp.get('zone')!r}; the puck was "
                      f"dropped from zone {zone!r}")
        if not 1 <= spot <= rb.PACHINKO_SPOTS:
            r.problem(PA_ZONE, d.landed, f"§ 690.7(b): landing spot {spot}; the board has spots 1..16")
            r.unknown("landing spot off the board")
            return
        value = values[spot - 1]
        doubled = [e for e in d.after if e.kind == "board_doubled"]
        rescue_draws = [e for e in d.after if e.kind == "board_draw"]
        rescued = [e for e in d.after if e.kind == "board_rescued"]
        if value == rb.DOUBLE and not double_used:  # § 690.7(e)
            double_used, path = True, "double"
            r.double_landings += 1
            values = rb.pachinko_double(values, spot)
            literal.add(spot - 1)
            if not doubled:
                if r.void is None:
                    r.problem(PA_DOUBLE, d.landed, f"§ 690.7(e)(1)–(2): the puck came to rest on Double "
                              f"(spot {spot}) "
                              "but the board was not shown doubled with the Double replaced by 50x")
            else:
                seen = _ints(_payload(doubled[0]).get("values"), "board_doubled values")
                if seen != values:
                    r.problem(PA_DOUBLE, doubled[0], f"§ 690.7(e)(1)–(2): after the Double on spot {spot} the board "
                              f"shows {_x(seen, Spot.PACHINKO)}: {board_difference(Spot.PACHINKO, values, seen)} "
                              "(all other multipliers doubled, the Double replaced with 50x)")
            for e in rescue_draws + rescued:
                r.problem(PA_RESCUE, e, f"§ 690.7(g): {e.kind} after a landing on Double; a Rescue Drop is "
                          "activated only on 2x, 3x or 4x")
            if last:
                if r.void is None:
                    r.problem(PA_DOUBLE, d.landed, "§ 690.7(e)(3)–(4): after the Double no puck was dropped from a "
                              "randomly selected drop zone")
                r.unknown("no drop after the Double")
                return
            continue
        for e in doubled:
            r.problem(PA_DOUBLE, e, f"§ 690.7(e): the board was doubled although the puck came to rest on "
                      f"{value}x (spot {spot}), not on Double")
        eligible = rb.pachinko_rescue_eligible(value, reading, rm, spot - 1 in literal) and not rescue_used
        r.rescue_eligible += eligible
        if rescue_draws:
            rd = rescue_draws[0]
            r.rescue_draws += 1
            activated = _int(_payload(rd).get("value"), "rescue draw value") == 1
            if len(rescue_draws) > 1:
                r.problem(PA_RESCUE, rescue_draws[1], "§ 690.7(g): two Rescue Drop draws after one landing")
            if not eligible:
                why = ("a Rescue Drop had already been activated — § 690.7(g)(4): \"No additional Rescue Drops "
                       "shall follow\"" if rescue_used else "a Rescue Drop is activated only when the puck comes to "
                       f"rest on a 2x, 3x or 4x multiplier ({_reading_words(reading, rm)})")
                r.problem(PA_RESCUE, rd, f"§ 690.7(g): a Rescue Drop was drawn after the puck came to rest on "
                          f"{value}x (spot {spot}); {why}")
            elif activated and rescue_p == 0:
                r.problem(PA_RESCUE, rd, "§ 690.7(g): a Rescue Drop was activated but the Rules Submission's "
                          "pachinko.rescue_probability is 0")
            if activated and eligible:
                rescue_used, path = True, "rescue"
                r.rescues += 1
                before, values = values, rb.pachinko_rescue(values, value, reading, rm, literal)
                if not rescued:
                    r.problem(PA_RESCUE, rd, f"§ 690.7(g)(1)–(2): a Rescue Drop on {value}x was activated but the "
                              "board was not shown updated")
                else:
                    seen = _ints(_payload(rescued[0]).get("values"), "board_rescued values")
                    if seen != values:
                        wrong = [j for j, (a, b) in enumerate(zip(values, seen)) if a != b] if len(seen) == len(
                            values) else list(range(len(values)))
                        lower = [j for j in wrong if values[j] != before[j]]  # cells (g)(1) raises
                        para = ("(g)(1)–(2)" if lower and len(lower) < len(wrong) else "(g)(1)" if lower
                                else "(g)(2)")
                        what = {"(g)(1)": f"a multiplier lower than the triggering {value}x shall be updated to be "
                                          f"equal to it",
                                "(g)(2)": f"a multiplier equal to or greater than the triggering {value}x shall "
                                          "remain the same"}.get(para, f"multipliers lower than {value}x raised to "
                                                                       f"{value}x, the others unchanged")
                        r.problem(PA_RESCUE, rescued[0], f"§ 690.7{para}: after the Rescue Drop on {value}x the "
                                  f"board shows {_x(seen, Spot.PACHINKO)}: "
                                  f"{board_difference(Spot.PACHINKO, values, seen)} ({what})")
                if last:
                    if r.void is None:
                        r.problem(PA_RESCUE, rd, "§ 690.7(g)(3)–(4): a Rescue Drop was activated but no puck was "
                                  "dropped again")
                    r.unknown("no Rescue Drop")
                    return
                continue
            if activated:  # not permitted: the landing stands (§ 690.7(d)); a drop after it is (g)'s fault
                rescue_used, path = True, "denied"
            for e in rescued:
                r.problem(PA_RESCUE, e, "§ 690.7(g): the board was updated for a Rescue Drop that was not "
                          "(permitted to be) activated")
        else:
            if eligible and rescue_p is not None and rescue_p > 0:
                r.problem(PA_RESCUE, d.landed, f"§ 690.7(g): the puck came to rest on {value}x (spot {spot}) with "
                          f"no Rescue Drop yet, but no Rescue Drop draw was made (the Rules Submission activates "
                          f"one with probability {rescue_p})")
            for e in rescued:
                r.problem(PA_RESCUE, e, "§ 690.7(g): the board was updated for a Rescue Drop without a draw")
        final = value
        how = f"the puck came to rest on spot {spot}, showing {value}x"
    if final is None:
        if r.void is None and not drops:
            r.problem(PA_ZONE, r.result or r.start, "§ 690.7(d): the puck was never dropped")
        r.unknown("no final landing")
        return
    r.outcome_check = {"rescue": PA_RESCUE, "denied": PA_RESCUE, "double": PA_DOUBLE}.get(path, PA_ZONE)
    for seat in r.seats:
        r.final[seat] = final
        r.why[seat] = how + {"rescue": " after a Rescue Drop", "double": " after the Double"}.get(path, "")


# --------------------------------------------------------------------------- § 690.8
def ctw_sections(ev: Event) -> tuple[int, ...]:
    """The sections under clappers 1..3 of a ``ctw_stop`` (ValueError when malformed)."""
    s = _ints(_payload(ev).get("sections"), "ctw_stop sections")
    if len(s) != rb.CTW_CLAPPERS or not all(0 <= x < rb.CTW_SECTIONS for x in s):
        raise ValueError(f"§ 690.8(b): the wheel reported sections {list(s)} under its "
                         f"{rb.CTW_CLAPPERS} clappers (sections 0..{rb.CTW_SECTIONS - 1})")
    return s


def _crazy_time_world(rv: RoundView, r: BonusReplay, seg: list[Event], rules: RulesSubmission | None) -> None:
    cs, ce = _countdown(r, seg, CTW_COUNTDOWN, "§ 690.8(c)")
    _before_play(r, cs, "the countdown timer commenced")
    chosen = _selections(r, seg, rb.CTW_CLAPPERS, CTW_COUNTDOWN, "§ 690.8(c)", cs, ce)
    starts = _kind(seg, None, "ctw_start")
    stops = _kind(seg, None, "ctw_stop")
    if starts and (ce is None or starts[0].seq < ce.seq):
        r.problem(CTW_COUNTDOWN, starts[0], "§ 690.8(d): the wheel was started before the time for players to "
                  "select a clapper had elapsed (countdown_end)")
    r.spins = len(stops)
    if not stops:
        if r.void is None:
            r.problem(CTW_COUNTDOWN, r.result or r.start, "§ 690.8(d): the wheel never came to rest")
        r.unknown("no wheel spin")
        return
    values = r.displayed
    playing = dict(chosen)  # seat -> clapper (0-based)
    doubles = 0
    last_values: dict[int, str] = {}
    for i, stop in enumerate(stops):
        try:
            sections = ctw_sections(stop)
        except ValueError as exc:
            r.problem(CTW_WHEEL, stop, str(exc))
            r.unknown("wheel sections malformed")
            return
        nxt = stops[i + 1].seq if i + 1 < len(stops) else None
        doubled = [e for e in _kind(seg, CROUPIER, "board_doubled")
                   if e.seq > stop.seq and (nxt is None or e.seq < nxt)]
        if not playing:
            if i == 0:
                continue  # no eligible seat: the wheel is spun once for nobody
            check = CTW_DOUBLE if doubles else CTW_COUNTDOWN
            r.problem(check, stop, "§ 690.8(d)–(e): the wheel was spun again after every player's payout odds "
                      "were settled")
            continue
        landed = [values[s] for s in sections]
        for seat, c in playing.items():
            if landed[c] != rb.DOUBLE:
                r.final[seat] = landed[c]
                last_values[seat] = (f"seat {seat}'s clapper {c + 1} came to rest on section {sections[c]} showing "
                                     f"{landed[c]}x"
                                     + (f" on spin {i + 1} (after {doubles} Double(s))" if doubles else ""))
        continuing = {seat: c for seat, c in playing.items() if landed[c] == rb.DOUBLE}
        if not continuing:
            for e in doubled:
                r.problem(CTW_DOUBLE, e, "§ 690.8(e): the wheel was doubled although no selected clapper came to "
                          "rest on Double")
            playing = {}
            continue
        doubles += 1
        r.double_landings += 1
        clapper = landed.index(rb.DOUBLE)
        second = doubles == 2
        prev, values = values, rb.ctw_double(values, second=second)
        want = "all multipliers doubled" + (" a second time and the Double replaced by 50x" if second else "")
        if not doubled:
            if r.void is None:
                r.problem(CTW_DOUBLE, stop, f"§ 690.8(e)(1): clapper {clapper + 1} came to rest on Double but the "
                          f"wheel was not shown with {want}")
        else:
            dp = _payload(doubled[0])
            seen = _ints(dp.get("values"), "board_doubled values")
            if seen != values and not second and seen == rb.ctw_double(prev, second=True):
                r.problem(CTW_DOUBLE, doubled[0], f"§ 690.8(e)(3): after clapper {clapper + 1} came to rest on Double "
                          f"for the first time the wheel shows the Double replaced by 50x "
                          f"({board_difference(Spot.CRAZY_TIME, values, seen)}); the Double is replaced by a 50x "
                          "multiplier only when the clapper lands on it a second time — after the first, all "
                          "multipliers are doubled and the Double stays (§ 690.8(e)(1))")
            elif seen != values:
                r.problem(CTW_DOUBLE, doubled[0], f"§ 690.8(e)({'3' if second else '1'}): after clapper {clapper + 1} "
                          f"came to rest on Double the wheel shows: "
                          f"{board_difference(Spot.CRAZY_TIME, values, seen)} (expected {want})")
            if sorted(dp.get("seats") or []) != sorted(continuing):
                r.problem(CTW_DOUBLE, doubled[0], f"§ 690.8(e)(2): seats {dp.get('seats')} continue; only the "
                          f"players who selected clapper {clapper + 1}, which landed on Double, continue: "
                          f"{sorted(continuing)}")
        if i == len(stops) - 1:
            if r.void is None:
                r.problem(CTW_DOUBLE, stop, "§ 690.8(e)(1): after the Double the wheel was not spun again")
            r.unknown("no respin after the Double")
            return
        playing = continuing
    r.outcome_check = CTW_DOUBLE if doubles else CTW_COUNTDOWN
    r.why.update(last_values)


_PLAY: dict[Spot, Callable[[RoundView, BonusReplay, list[Event], RulesSubmission | None], None]] = {
    Spot.COIN_FLIP: _coin_flip, Spot.CASH_HUNT: _cash_hunt, Spot.PACHINKO: _pachinko,
    Spot.CRAZY_TIME: _crazy_time_world,
}


# --------------------------------------------------------------------------- the records
def _compare_records(rv: RoundView, r: BonusReplay) -> None:
    """The croupier's bonus_result and payment odds against the replayed final multipliers."""
    check, game = r.outcome_check, r.game
    if r.result is None:
        if r.void is None and rv.settled:
            r.problem(check, rv.end, f"§ 690.4(b): no {game} bonus_result on record for a settled round")
    else:
        got_raw = _payload(r.result).get("values")
        if not isinstance(got_raw, dict):
            raise ValueError(f"bonus_result values is {got_raw!r}, not a mapping of seat to multiplier")
        got = {int(k): v for k, v in got_raw.items()}
        for seat in sorted(set(got) | set(r.final)):
            if seat not in r.seats:
                r.problem(check, r.result, f"§ 690.2(f): a {game} result for seat {seat}, which has no accepted "
                          f"wager on {game}")
            elif seat in r.final and got.get(seat) != r.final[seat]:
                r.problem(_culprit(r, seat, got.get(seat)), r.result,
                          f"seat {seat}: the croupier's {game} result is {got.get(seat)!r}x; the trace gives "
                          f"{r.final[seat]}x: {r.why.get(seat, '')}{_as_shown(r, seat, got.get(seat))}")
    for pay in rv.pays:
        p = pay.payload if isinstance(pay.payload, dict) else {}
        seat = p.get("seat")
        if p.get("spot") != game or seat not in r.final:
            continue
        odds = Fraction(str(p.get("odds_ratio")))
        if odds != r.final[seat]:
            r.problem(_culprit(r, seat, odds), pay, f"wager {p.get('wager_id')} of seat {seat} paid at {odds} to 1; "
                      f"the {game} game gives {r.final[seat]} to 1: {r.why.get(seat, '')}{_as_shown(r, seat, odds)}")


def _culprit(r: BonusReplay, seat: int, got: Any) -> str:
    """The check that owns a wrong result: the board's, when the croupier played the board it displayed
    correctly and only the board was wrong (the Top Slot multiplier); else the outcome's."""
    if r.displayed_final is not None and seat in r.displayed_final and got == r.displayed_final[seat]:
        return GAMES[r.game].mult
    return r.outcome_check


def _as_shown(r: BonusReplay, seat: int, got: Any) -> str:
    if _culprit(r, seat, got) != GAMES[r.game].mult:
        return ""
    return (f" — {got}x is what the board as displayed gives; it was not multiplied by the Top Slot's "
            f"×{r.top_slot_multiplier} ({GAMES[r.game].top_slot})")


# --------------------------------------------------------------------------- the checks
class BonusCheck(Check):
    """A check of one bonus game: reports the replay's problems that name it."""

    game: ClassVar[Spot]
    #: what makes a game of ``game`` relevant to this check (it can only pass on a relevant one)
    relevant_what: ClassVar[str] = "game"

    def __init__(self, config):
        super().__init__(config)
        self.rules: RulesSubmission | None = None
        self.games_seen = 0
        self.relevant_seen = 0

    def setup(self, bench: BenchView) -> None:
        super().setup(bench)
        self.rules = _rules_of(bench)

    def relevant(self, r: BonusReplay) -> bool:
        return True

    def tally(self, rv: RoundView, r: BonusReplay) -> None:
        """Accumulate this check's measurements from one replayed game."""

    def measurements(self) -> list[Measurement]:
        return []

    def observe(self, rv: RoundView) -> None:
        self.rounds += 1
        r = replay_bonus(rv, self.rules)
        if r is None or r.game != self.game:
            return
        self.games_seen += 1
        self.relevant_seen += self.relevant(r)
        for p in r.problems_of(self.id):
            self.finding(rv.n, p.ev, p.message)
        self.tally(rv, r)

    def verdict(self):
        m = [Measurement("games", self.games_seen, "games")]
        if self.relevant_what != "game":
            m.append(Measurement(self.relevant_what.replace(" ", "_"), self.relevant_seen, "games"))
        m += self.measurements()
        if self.failed:
            return "fail", f"{self._findings_total} deviation(s) from {self.section}", m
        if not self.relevant_seen:
            what = f"{self.game} game" + ("" if self.relevant_what == "game" else f" with {self.relevant_what}")
            return "indeterminate", f"no {what} in the trace", m
        return "pass", self.passed(), m

    def passed(self) -> str:
        return f"{self.relevant_seen} {self.game} game(s) complied with {self.section}"


class _Multipliers(BonusCheck):
    """Shared: the board's multipliers (as generated) in range, and shown times the Top Slot."""

    def __init__(self, config):
        super().__init__(config)
        self.top_slot_games = 0
        self.max_shown = 0

    def tally(self, rv, r):
        self.top_slot_games += (r.top_slot_multiplier or 1) > 1
        if r.shown:
            self.max_shown = max(self.max_shown, max(r.shown))

    def measurements(self):
        lo, hi = rb.BOARDS[self.game][1]
        return [Measurement("games_with_top_slot_multiplier", self.top_slot_games, "games"),
                Measurement("max_multiplier_shown", self.max_shown or None, "x",
                            limit=f"generated in [{lo}, {hi}] x, then x the Top Slot multiplier")]


class CoinFlipMultipliers(_Multipliers):
    """§ 690.5(c): "Before the coin is flipped, multiplier values shall be randomly generated and
    assigned to either side of the coin. … (1) The multipliers may range from 2× to 100×. (2) If a
    Top Slot multiplier is applied in accordance with subsection (e), the final payout odds may
    exceed the 100× stated in paragraph (1)." § 690.5(e): "the Top Slot multiplier … shall be
    multiplied by the payout odds determined in accordance with subsection (c)".

    Each side's generated multiplier in 2..100 ((c)(1)); the board shown = generated × the multiplier
    of the Top Slot's own report (aligned on Coin Flip, else 1), so a side above 100x is admitted only
    as an in-range multiplier times the Top Slot multiplier ((c)(2)); a bonus game actually played
    (§ 690.4(b))."""

    id = CF_MULT
    section = "§ 690.5(c), (c)(1)–(2), (e)"
    title = "Coin Flip: both sides' multipliers 2x–100x, times the Top Slot multiplier"
    game = Spot.COIN_FLIP


class CoinFlipOrder(BonusCheck):
    """§ 690.5(c): "Before the coin is flipped, multiplier values shall be randomly generated";
    § 690.5(e): "the Top Slot multiplier … shall be multiplied by the payout odds … prior to the coin
    being flipped."

    The board is drawn after the spin that triggered the game came to rest (its own timestamp) and
    shown multiplied by the Top Slot before the coin leaves the flipper (``coin_flip_start``)."""

    id = CF_ORDER
    section = "§ 690.5(c), (e)"
    title = "Coin Flip: board generated after the trigger, Top Slot applied before the flip"
    game = Spot.COIN_FLIP


class CoinFlipRescue(BonusCheck):
    """§ 690.5(d): "the side of the coin that comes to rest face up shall constitute the winning
    payout odds." § 690.5(f): "a Rescue Flip may randomly be activated after an initial flip where
    all of the following occur: (1) The small multiplier was 2× or 3×. (2) The big multiplier was
    greater than 15×. (3) The coin landed with the small multiplier facing up." § 690.5(g): "If the
    conditions of subsection (f)(1)—(3) have been met, a Rescue Flip may commence, with the coin being
    flipped and the face up side of the coin constituting the winning payout odds. The result of the
    Rescue Flip is the final outcome."

    A second flip only after the board's rescue draw activated it, a rescue draw only when (f)(1)–(3)
    held (judged as the Rules Submission's ``rescue_reading`` says: on the displayed multipliers, or
    before the Top Slot multiplier); the final multiplier (the Rescue Flip's face, else the
    initial flip's) is the one the croupier records and pays."""

    id = CF_RESCUE
    section = "§ 690.5(d), (f), (f)(1)–(3), (g)"
    title = "Coin Flip: the face up pays; a Rescue Flip only under (f)(1)–(3), and it is final"
    game = Spot.COIN_FLIP

    def __init__(self, config):
        super().__init__(config)
        self.eligible = self.rescues = 0

    def tally(self, rv, r):
        self.eligible += r.rescue_eligible
        self.rescues += r.rescues

    def measurements(self):
        return [Measurement("flips_meeting_f1_f3", self.eligible, "flips"),
                Measurement("rescue_flips", self.rescues, "flips", limit="only after a flip meeting (f)(1)–(3)")]


class _Selections(BonusCheck):
    """A game with a countdown: tallies the players' and the automatic selections."""

    def __init__(self, config):
        super().__init__(config)
        self.picks = self.auto = 0

    def tally(self, rv, r):
        self.picks += r.picks
        self.auto += r.auto_picks

    def measurements(self):
        return [Measurement("selections_by_players", self.picks, "selections"),
                Measurement("selections_automatic", self.auto, "selections")]


class CashHuntMultipliers(_Multipliers):
    """§ 690.6(b): "Cash Hunt shall be comprised of a board containing 108 multipliers. … (1) The
    multipliers may range from 5× to 500×. (2) If a Top Slot multiplier is applied in accordance
    with subsection (g), the final payout odds may exceed the 500× stated in paragraph (1)."
    § 690.6(g): "the Top Slot multiplier … shall be multiplied by all 108 payout odds".

    108 multipliers in 5..500, no Double ((b)(1)), shown times the Top Slot's own multiplier — a
    multiplier above 500x only as an in-range one times the Top Slot multiplier ((b)(2))."""

    id = CH_MULT
    section = "§ 690.6(b), (b)(1)–(2), (g)"
    title = "Cash Hunt: 108 multipliers 5x–500x, times the Top Slot multiplier"
    game = Spot.CASH_HUNT


class CashHuntOrder(_Selections):
    """§ 690.6(c): "At the beginning of the Cash Hunt game, the multipliers shall start by being
    visible to players. The multipliers shall then be covered by symbols and shuffled." (d):
    "Following the shuffling of the multipliers, a countdown timer shall commence, indicating the
    time a player has left to select one of the 108 symbols. If the player does not make a selection
    before the time elapses, one of the 108 symbols will be automatically selected at random." (g):
    "… prior to the multipliers being covered and shuffled".

    Board generated after the trigger, multiplied before the shuffle, shuffled before the countdown;
    players' selections within the countdown; automatic ones (the board's random draw) only after
    it and only for seats without one; every eligible seat exactly one symbol."""

    id = CH_ORDER
    section = "§ 690.6(c)–(d), (g)"
    title = "Cash Hunt: shown, multiplied, shuffled, then the countdown; one selection per player"
    game = Spot.CASH_HUNT



class CashHuntPerPlayer(BonusCheck):
    """§ 690.6(e): "After a symbol has been selected, the multiplier beneath shall be revealed and
    shall constitute the winning payout odds." § 690.6(f): "Each eligible player's payout shall be
    based upon their individual selection made in accordance with subsection (d) and not on the
    outcome of any other player's selection."

    Each seat's final multiplier is the one under its own symbol (the shuffle's cell for it); the
    croupier's recorded result and the odds it paid must be that."""

    id = CH_PLAYER
    section = "§ 690.6(e)–(f)"
    title = "Cash Hunt: each player paid the multiplier under their own symbol"
    game = Spot.CASH_HUNT

    def __init__(self, config):
        super().__init__(config)
        self.seats = 0

    def tally(self, rv, r):
        self.seats += len(r.final)

    def measurements(self):
        return [Measurement("seat_results_verified", self.seats, "seats")]


class PachinkoMultipliers(_Multipliers):
    """§ 690.7(b): "a wall consisting of a multitude of pegs above 16 landing spots which display
    potential multipliers." (c): "(1) The multipliers may range from 2× to 400×. (2) In addition to
    the multiplier range stated in paragraph (1), ''Double'' may be displayed in one slot." (f): "the
    Top Slot multiplier … shall be multiplied by all 16 payout odds".

    16 spots in 2..400 ((c)(1)) with at most one Double, and none when the Rules Submission gives it
    probability 0 ((c)(2)), shown times the Top Slot's own multiplier — a spot above 400x only as an
    in-range one times the Top Slot multiplier ((c)(3)); the board's declared peg rows
    (``device_info``) are the Rules Submission's ``pachinko.rows``."""

    id = PA_MULT
    section = "§ 690.7(b)–(c), (c)(1)–(3), (f)"
    title = "Pachinko: 16 multipliers 2x–400x, at most one Double, times the Top Slot multiplier"
    game = Spot.PACHINKO

    def setup(self, bench):
        super().setup(bench)
        info = bench.info.get("pachinko")
        declared = self.rules.pachinko.rows if self.rules is not None else None
        if info is not None and declared is not None and info.get("rows") != declared:
            self.finding(0, None, f"§ 690.7(b): the Pachinko board declares {info.get('rows')!r} peg rows; the "
                         f"Rules Submission's pachinko.rows is {declared}")


class PachinkoDropZone(BonusCheck):
    """§ 690.7(d): "The game presenter shall drop the puck from the randomly selected location at the
    top of the Pachinko board in the area directly above and between landing spots 4 through 13—the
    center half of the Pachinko board. The puck will proceed to travel through the pegs on the board
    and come to rest in one of the landing spots indicating the winning payout odds."

    Every drop in zone 4..13 and the zone the board drew at random just before it; the landing spot's
    multiplier (when no Double or Rescue followed) is the one recorded and paid."""

    id = PA_ZONE
    section = "§ 690.7(d)"
    title = "Pachinko: every drop from a random zone above spots 4–13; the landing spot pays"
    game = Spot.PACHINKO

    def __init__(self, config):
        super().__init__(config)
        self.drops = 0

    def tally(self, rv, r):
        self.drops += r.drops

    def measurements(self):
        return [Measurement("drops", self.drops, "drops", limit="zone in 4..13, as drawn")]


class PachinkoDouble(BonusCheck):
    """§ 690.7(e): "In the event that the puck comes to rest in slot marked ''Double,'' all of the
    following apply: (1) All other multipliers in the other landing spots shall be doubled. (2) The
    ''Double'' shall be replaced with 50×. (3) The puck drop zone shall be randomly selected and the
    game presenter shall drop the puck from the randomly selected drop zone. (4) The puck shall
    proceed to travel through the pegs on the board and come to rest in a landing spot. The
    multiplier displayed in the landing spot shall constitute the winning payout odds."

    After a landing on Double the board shown (``board_doubled``) is ``rules.bonus.pachinko_double``
    of the one before — (e)(1) every other spot doubled, (e)(2) the Double shown as 50x; (e)(3) the
    next drop from the zone the board drew at random for it; (e)(4) its landing spot's multiplier is
    the one recorded and paid (no further drop but a permitted Rescue Drop)."""

    id = PA_DOUBLE
    section = "§ 690.7(e), (e)(1)–(4)"
    title = "Pachinko: a Double doubles the other spots, becomes 50x, and the puck drops again"
    game = Spot.PACHINKO
    relevant_what = "a landing on Double"

    def relevant(self, r):
        return r.double_landings > 0


class PachinkoRescue(BonusCheck):
    """§ 690.7(g): "a Rescue Drop may randomly be activated when the puck comes to rest on a 2×, 3×
    or 4× multiplier. When a Rescue Drop is activated, all of the following apply: (1) A multiplier
    lower than the triggering multiplier shall be updated to be equal to the triggering multiplier.
    … (2) A multiplier equal to or greater than the triggering multiplier shall remain the same. …
    (3) The puck drop zone shall be randomly selected and the game presenter shall drop the puck
    from the randomly selected drop zone. (4) … The multiplier displayed in the landing spot shall
    constitute the winning payout odds. No additional Rescue Drops shall follow."

    A rescue draw only after a landing on a 2x/3x/4x (as the Rules Submission's ``rescue_reading``
    judges it: displayed, or before the Top Slot multiplier) with no Rescue Drop yet; the board after
    it (``board_rescued``) is ``rules.bonus.pachinko_rescue`` — (g)(1) the lower multipliers raised,
    (g)(2) the others kept; (g)(3) its drop from a zone the board drew for it; (g)(4) exactly one more
    drop, no second Rescue Drop, none after the final landing."""

    id = PA_RESCUE
    section = "§ 690.7(g), (g)(1)–(4)"
    title = "Pachinko: a Rescue Drop only on 2x/3x/4x, raises the lower spots, one more drop only"
    game = Spot.PACHINKO
    relevant_what = "a landing on 2x, 3x or 4x"

    def __init__(self, config):
        super().__init__(config)
        self.rescues = 0

    def relevant(self, r):
        return r.rescue_eligible > 0 or r.rescue_draws > 0

    def tally(self, rv, r):
        self.rescues += r.rescues

    def measurements(self):
        return [Measurement("rescue_drops", self.rescues, "drops")]


class PachinkoOrder(BonusCheck):
    """§ 690.7(c): "The Pachinko game shall begin with potential multiplier being generated and
    displayed at the bottom of the Pachinko board." § 690.7(f): "the Top Slot multiplier … shall be
    multiplied by all 16 payout odds prior to the puck being dropped in accordance with subsection (d)."

    The board is drawn after the spin that triggered the game came to rest and shown multiplied
    before the first ``puck_drop``."""

    id = PA_ORDER
    section = "§ 690.7(c), (f)"
    title = "Pachinko: board generated after the trigger, Top Slot applied before the first drop"
    game = Spot.PACHINKO


class CrazyTimeWorldWheel(_Multipliers):
    """§ 690.8(b): "Crazy Time World shall be played on a wheel comprised of 64 sections and three
    clappers. … (1) Each of the 64 sections of the wheel shall contain multipliers ranging from 15×
    to 400×. (2) In addition to the multiplier range stated in paragraph (1), ''Double'' may be
    displayed in one section of the wheel. … (4) The three clappers shall be spaced so that there are
    at least two sections of the wheel between clappers." § 690.8(f): "the Top Slot multiplier … shall
    be multiplied by all 64 payout odds".

    64 sections in 15..400 ((b)(1)) with at most one Double ((b)(2)), shown times the Top Slot's own
    multiplier — a section above 400x before play only as an in-range one times the Top Slot
    multiplier ((b)(5); the doubled wheels are CTW-690.8e-double's); the clappers the wheel declares
    (``device_info``) spaced per (b)(4); every rest (``ctw_stop``) puts the three clappers on sections
    with the declared spacing."""

    id = CTW_WHEEL
    section = "§ 690.8(b), (b)(1)–(2), (b)(4)–(5), (f)"
    title = "Crazy Time World: 64 sections 15x–400x, at most one Double, clappers 2+ sections apart"
    game = Spot.CRAZY_TIME

    def __init__(self, config):
        super().__init__(config)
        self.clappers: tuple[int, ...] | None = None
        self.stops = 0

    def setup(self, bench):
        super().setup(bench)
        info = bench.info.get("ctw_wheel")
        if info is None:
            return
        try:
            self.clappers = _ints(info.get("clappers"), "ctw_wheel clappers")
            sections = _int(info.get("sections", rb.CTW_SECTIONS), "ctw_wheel sections")
        except ValueError as exc:
            self.finding(0, None, f"§ 690.8(b): the wheel's declaration is malformed: {exc}")
            return
        if sections != rb.CTW_SECTIONS:
            self.finding(0, None, f"§ 690.8(b): the wheel declares {sections} sections; it must have "
                         f"{rb.CTW_SECTIONS}")
        for msg in rb.clapper_deviations(self.clappers, sections):
            self.finding(0, None, f"declared clappers {list(self.clappers)}: {msg}")

    def observe(self, rv):
        super().observe(rv)
        for e in rv.events:
            if e.kind != "ctw_stop":
                continue
            try:
                s = ctw_sections(e)
            except ValueError:
                continue  # the replay reports it (when the round played the game)
            self.stops += 1
            if self.clappers is None:
                for msg in rb.clapper_deviations(s):
                    self.finding(rv.n, e, f"clappers at rest on sections {list(s)}: {msg}")
                continue
            if len(self.clappers) != len(s):
                continue
            want = [(c - self.clappers[0]) % rb.CTW_SECTIONS for c in self.clappers]
            seen = [(x - s[0]) % rb.CTW_SECTIONS for x in s]
            if want != seen:
                self.finding(rv.n, e, f"§ 690.8(b)(4): the clappers rest on sections {list(s)} (offsets {seen} "
                             f"from clapper 1); the declared clappers {list(self.clappers)} are at offsets {want}")

    def measurements(self):
        return super().measurements() + [Measurement("wheel_stops_checked", self.stops, "stops")]


class CrazyTimeWorldCountdown(_Selections):
    """§ 690.8(c): "At the beginning of the Crazy Time World game, a countdown timer shall commence,
    indicating the time a player has left to select one of the three clappers. If the player does not
    make a selection before the time elapses, one of the clappers will be automatically selected at
    random." (d): "After the time for players to select a clapper has elapsed, the game presenter
    shall start the wheel rotation by pressing the button. When the wheel stops spinning, the
    multiplier indicated by the player's selected clapper shall constitute the winning payout odds."
    (f): "… prior to the timer for players to select a clapper commencing".

    Board generated after the trigger and multiplied before the countdown; selections within it;
    automatic ones (the board's random draw) after it, for the rest; the wheel started only after
    it; each seat's clapper's multiplier (no Double) is the one recorded and paid."""

    id = CTW_COUNTDOWN
    section = "§ 690.8(c)–(d), (f)"
    title = "Crazy Time World: multiplied, countdown, selections, then the wheel; the clapper pays"
    game = Spot.CRAZY_TIME



class CrazyTimeWorldDouble(BonusCheck):
    """§ 690.8(e): "In the event that the player's selected clapper comes to rest on wheel section
    marked ''Double,'' all of the following apply: (1) All multipliers on the wheel shall be doubled
    and the wheel spun again. (2) Only those players who selected the clapper which landed on double
    shall continue to take part. The result of the spin shall constitute the winning payout odds.
    (3) If the clapper lands on a section marked with ''Double'' a second time, all multipliers on
    the wheel shall be doubled a second time. The ''Double'' shall be replaced by a 50× multiplier and
    the wheel spun again."

    After a selected clapper lands on Double the wheel shown (``board_doubled``) is
    ``rules.bonus.ctw_double`` of the one before — (e)(1) every multiplier doubled, the Double kept;
    (e)(3) the second time doubled again and the Double replaced by 50x — only that clapper's seats
    continue (e)(2), the wheel is spun again; each seat's final multiplier is its clapper's on its
    last spin. (b)(5): the wheel exceeds 400x after a Double only by that doubling."""

    id = CTW_DOUBLE
    section = "§ 690.8(b)(5), (e), (e)(1)–(3)"
    title = "Crazy Time World: a Double doubles the wheel; only its clapper's players respin"
    game = Spot.CRAZY_TIME
    relevant_what = "a selected clapper on Double"

    def relevant(self, r):
        return r.double_landings > 0


# --------------------------------------------------------------------------- statistics
def merge_sparse(observed: Sequence[float], expected: Sequence[float],
                 min_expected: float = MIN_EXPECTED) -> tuple[list[float], list[float]]:
    """Adjacent cells merged, in order, until each expects at least ``min_expected``; a remainder
    short of it joins the last merged cell."""
    obs_out: list[float] = []
    exp_out: list[float] = []
    acc_o = acc_e = 0.0
    for o, e in zip(observed, expected):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            obs_out.append(acc_o)
            exp_out.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        if exp_out:
            obs_out[-1] += acc_o
            exp_out[-1] += acc_e
        else:
            obs_out.append(acc_o)
            exp_out.append(acc_e)
    return obs_out, exp_out


def pearson(observed: Sequence[float], expected: Sequence[float]) -> tuple[float, int]:
    """Pearson's χ² statistic and its degrees of freedom (cells - 1); (0, 0) for a single cell."""
    if len(observed) < 2:
        return 0.0, 0
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected)), len(observed) - 1


class PachinkoLandings(Check):
    """§ 690.7(b): "a wall consisting of a multitude of pegs above 16 landing spots"; § 690.7(d): "The
    puck will proceed to travel through the pegs on the board and come to rest in one of the landing
    spots". A fair wall sends the puck left or right at each peg with probability 1/2: from drop zone
    z its landing spot follows row z of the declared lattice's exact matrix
    (``rules.pachinko.Lattice(rows).zone_matrix()``, ``rows`` from the Rules Submission).

    Pearson's χ² of the landings against that matrix, two ways, Bonferroni over both: per drop zone
    (the zones' statistics and degrees of freedom summed) and pooled over zones (each spot's
    expectation the sum over the drops of their zone's probability — a sum of differing multinomials,
    so the pooled test is conservative). Sparse cells are merged along the spots until each expects
    at least 5; a landing where the matrix gives probability 0 fails outright. Drops from outside
    zones 4..13 are PA-690.7d's to judge and left out."""

    id = "PA-690.7-landings-chi2"
    section = "§ 690.7(b), (d)"
    title = "Pachinko: puck landings per drop zone follow the declared peg lattice (χ² test)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: dict[int, Counter[int]] = {z: Counter() for z in DROP_ZONES}
        self.excluded = 0
        self.rows: int | None = None

    def setup(self, bench):
        super().setup(bench)
        rules = _rules_of(bench)
        self.rows = rules.pachinko.rows if rules is not None else (bench.info.get("pachinko") or {}).get("rows")

    def observe(self, rv):
        self.rounds += 1
        for e in rv.events:
            if e.kind != "puck_landed" or not isinstance(e.payload, dict):
                continue
            zone, spot = e.payload.get("zone"), e.payload.get("spot")
            if zone in DROP_ZONES and isinstance(spot, int) and 1 <= spot <= LANDING_SPOTS:
                self.counts[zone][spot] += 1
            else:
                self.excluded += 1

    def verdict(self):
        n = sum(sum(c.values()) for c in self.counts.values())
        alpha, need = self.config.chi2_alpha, self.config.chi2_min_spins
        m = [Measurement("landings", n, "landings", limit=f">= {need} landings"),
             Measurement("landings_excluded", self.excluded, "landings")]
        if self.rows is None:
            return "indeterminate", "no declared peg rows (no Rules Submission, no Pachinko device_info)", m
        try:
            matrix = Lattice(int(self.rows)).zone_matrix()
        except (TypeError, ValueError) as exc:
            self.finding(0, None, f"§ 690.7(b): the declared lattice is unusable: {exc}")
            return "fail", "the declared peg lattice is unusable", m
        for i, z in enumerate(DROP_ZONES):
            for spot, count in sorted(self.counts[z].items()):
                if matrix[i][spot - 1] == 0:
                    self.finding(0, None, f"§ 690.7(b), (d): {count} puck(s) dropped from zone {z} came to rest in "
                                 f"spot {spot}, which a {self.rows}-row lattice cannot reach from there")
        if n < need and not self.failed:
            return "indeterminate", f"{n} landings: too few for the χ² test (need {need})", m
        stat = 0.0
        dof = 0
        pooled_o = [0.0] * LANDING_SPOTS
        pooled_e = [0.0] * LANDING_SPOTS
        for i, z in enumerate(DROP_ZONES):
            nz = sum(self.counts[z].values())
            if not nz:
                continue
            obs = [self.counts[z].get(k, 0) for k in range(1, LANDING_SPOTS + 1)]
            exp = [nz * float(matrix[i][k]) for k in range(LANDING_SPOTS)]
            s, d = pearson(*merge_sparse(obs, exp))
            stat, dof = stat + s, dof + d
            for k in range(LANDING_SPOTS):
                pooled_o[k] += obs[k]
                pooled_e[k] += exp[k]
        ps, pd = pearson(*merge_sparse(pooled_o, pooled_e))
        tests = [(name, s, d) for name, s, d in (("per_zone", stat, dof), ("pooled", ps, pd)) if d > 0]
        if not tests:
            if self.failed:
                return "fail", "landings the declared lattice cannot produce", m
            return "indeterminate", "too few landings per zone for a χ² test", m
        level = alpha / len(tests)
        worst = 1.0
        for name, s, d in tests:
            p = float(stats.chi2.sf(s, d))
            worst = min(worst, p)
            m += [Measurement(f"chi2_{name}", s, "1"), Measurement(f"dof_{name}", d, "1"),
                  Measurement(f"p_value_{name}", p, "1", limit=f">= {level:.4g} (α = {alpha} / {len(tests)})")]
            if p < level:
                mean_seen = sum(k * c for k, c in enumerate(pooled_o, 1)) / n
                mean_want = sum(k * e for k, e in enumerate(pooled_e, 1)) / n
                self.finding(0, None, f"{name}: χ² = {s:.1f} on {d} dof, p = {p:.3g} < {level:.4g}: the landings "
                             f"do not follow the {self.rows}-row lattice (mean landing spot {mean_seen:.2f}, "
                             f"expected {mean_want:.2f})")
        if self.failed:
            return "fail", f"landings deviate from the declared lattice (smallest p = {worst:.3g})", m
        return "pass", f"{n} landings consistent with the {self.rows}-row lattice: smallest p = {worst:.3g}", m


class BoardValues(Check):
    """§ 690.5(c): "multiplier values shall be randomly generated"; § 690.7(c): "potential multiplier
    being generated"; § 690.8(b)(3): "The multipliers shall be randomly assigned to the 64 wheel
    sections"; § 690.6(b): "a board containing 108 multipliers" — drawn, per the Rules Submission,
    independently for each cell by the game's ``multiplier_weights``.

    Pearson's χ² of every generated board's multipliers (``board_generated``, before the Top Slot;
    Double cells excluded) against the declared weights, per game, sparse values merged until each
    cell expects at least 5; for Pachinko and Crazy Time World also the share of boards showing a
    Double against the declared ``double_probability`` (exact two-sided binomial test, from
    ``MIN_DOUBLE_BOARDS`` boards); Bonferroni over all the tests made. A multiplier the Rules
    Submission does not declare fails outright."""

    id = "BONUS-board-values-chi2"
    section = "§ 690.5(c), § 690.6(b), § 690.7(c), § 690.8(b)(3)"
    title = "Bonus boards' multipliers follow the declared weights (χ² test per game)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: dict[Spot, Counter[int]] = {g: Counter() for g in BONUS_SPOTS}
        self.rules: RulesSubmission | None = None
        self.undeclared: Counter[tuple[Spot, Any]] = Counter()
        self.boards: Counter[Spot] = Counter()  # boards generated, per game
        self.doubles: Counter[Spot] = Counter()  # of which showing a Double

    def setup(self, bench):
        super().setup(bench)
        self.rules = _rules_of(bench)

    def observe(self, rv):
        self.rounds += 1
        for e in rv.events:
            if e.device != BOARD or e.kind != "board_generated" or not isinstance(e.payload, dict):
                continue
            try:
                game = Spot(e.payload.get("game"))
            except ValueError:
                continue
            if game not in BONUS_SPOTS or not isinstance(e.payload.get("values"), list):
                continue
            par = _par(self.rules, game)
            self.boards[game] += 1
            self.doubles[game] += rb.DOUBLE in e.payload["values"]
            for v in e.payload["values"]:
                if v == rb.DOUBLE:
                    continue
                if par is not None and v not in par.multiplier_weights:
                    if not self.undeclared[(game, v)]:
                        self.finding(rv.n, e, f"a {game} board shows {v!r}, a multiplier the Rules Submission's "
                                     f"{GAMES[game].par}.multiplier_weights do not declare "
                                     f"({', '.join(map(str, par.multiplier_weights))})")
                    else:
                        self._findings_total += 1
                    self.undeclared[(game, v)] += 1
                    continue
                self.counts[game][v] += 1

    def verdict(self):
        alpha, need = self.config.chi2_alpha, self.config.chi2_min_spins
        m = [Measurement(f"cells_{g}", sum(self.counts[g].values()), "cells", limit=f">= {need} cells to test")
             for g in GAMES]
        m.append(Measurement("cells_undeclared", sum(self.undeclared.values()), "cells", limit="== 0"))
        if self.rules is None:
            if self.failed:
                return "fail", "undeclared multipliers", m
            return "indeterminate", "no Rules Submission on record: no declared weights", m
        tested = [g for g in GAMES if sum(self.counts[g].values()) >= need]
        doubles = [g for g in GAMES if hasattr(_par(self.rules, g), "double_probability")
                   and self.boards[g] >= MIN_DOUBLE_BOARDS]
        if not tested and not doubles:
            if self.failed:
                return "fail", (f"{sum(self.undeclared.values())} cell(s) with a multiplier the Rules Submission "
                                "does not declare"), m
            return "indeterminate", f"no game with {need} generated cells: too few for the χ² test", m
        level = alpha / (len(tested) + len(doubles))
        worst = 1.0
        for g in doubles:
            d, n, k = _par(self.rules, g).double_probability, self.boards[g], self.doubles[g]
            p = float(stats.binomtest(k, n, float(d)).pvalue)
            worst = min(worst, p)
            m += [Measurement(f"double_share_{g}", k / n, "1", limit=f"declared {d} ({float(d):.4g})"),
                  Measurement(f"p_value_double_{g}", p, "1", limit=f">= {level:.4g}")]
            if p < level:
                self.finding(0, None, f"{g}: {k} of {n} boards showed a Double ({k / n:.3f}); the Rules Submission "
                             f"declares {d} ({float(d):.3f}); binomial p = {p:.3g} < {level:.4g}")
        for g in tested:
            par = _par(self.rules, g)
            support = sorted(par.multiplier_weights)
            total = sum(par.multiplier_weights.values())
            n = sum(self.counts[g].values())
            obs = [self.counts[g].get(v, 0) for v in support]
            exp = [n * par.multiplier_weights[v] / total for v in support]
            s, d = pearson(*merge_sparse(obs, exp))
            p = float(stats.chi2.sf(s, d)) if d else 1.0
            worst = min(worst, p)
            m += [Measurement(f"chi2_{g}", s, "1"), Measurement(f"dof_{g}", d, "1"),
                  Measurement(f"p_value_{g}", p, "1",
                              limit=f">= {level:.4g} (α = {alpha} / {len(tested) + len(doubles)})")]
            if p < level:
                dev = max(support, key=lambda v: abs(self.counts[g].get(v, 0) - n * par.multiplier_weights[v] / total))
                self.finding(0, None, f"{g}: χ² = {s:.1f} on {d} dof, p = {p:.3g} < {level:.4g}; largest deviation "
                             f"at {dev}x: {self.counts[g].get(dev, 0)} of {n} cells, expected "
                             f"{n * par.multiplier_weights[dev] / total:.1f}")
        if self.failed:
            return "fail", f"{self._findings_total} deviation(s) from the declared multiplier weights", m
        return "pass", (f"{len(tested)} game(s) consistent with the declared weights, {len(doubles)} with the "
                        f"declared Double share: smallest p = {worst:.3g}"), m


class CoinFairness(Check):
    """§ 690.5(a): "Coin Flip is a bonus game in which the result of a coin flip determines the payout
    odds." (b): "a coin with two distinct sides, such as red and blue." (d): "the coin shall be
    flipped and the side of the coin that comes to rest face up shall constitute the winning payout
    odds." A flip is a random event: each side comes to rest face up with probability 1/2, whatever
    side was up at launch.

    Two two-sided exact binomial tests, Bonferroni over both: P(red) = 1/2, and P(the face up at
    rest is the face up at launch) = 1/2 (a flipper that precesses, or barely turns the coin over,
    favours the start face — Diaconis, Holmes & Montgomery 2007)."""

    id = "CF-690.5-coin-fairness"
    section = "§ 690.5(a)–(b), (d)"
    title = "Coin Flip: each side and the start face up with probability 1/2 (binomial tests)"

    def __init__(self, config):
        super().__init__(config)
        self.flips = self.red = 0
        self.paired = self.same = 0

    def observe(self, rv):
        self.rounds += 1
        for e in rv.events:
            if e.kind != "coin_flip_stop" or not isinstance(e.payload, dict):
                continue
            face, start = e.payload.get("face"), e.payload.get("start_face")
            if face not in rb.COIN_SIDES:
                continue
            self.flips += 1
            self.red += face == rb.COIN_SIDES[0]
            if start in rb.COIN_SIDES:
                self.paired += 1
                self.same += face == start

    def verdict(self):
        alpha, need = self.config.chi2_alpha, self.config.chi2_min_spins
        m = [Measurement("flips", self.flips, "flips", limit=f">= {need} flips"),
             Measurement("red_rate", self.red / self.flips if self.flips else None, "1", limit="1/2"),
             Measurement("start_face_rate", self.same / self.paired if self.paired else None, "1", limit="1/2")]
        if self.flips < need:
            return "indeterminate", f"{self.flips} flips: too few for the binomial tests (need {need})", m
        tests = [("red", self.red, self.flips)] + ([("start_face", self.same, self.paired)] if self.paired else [])
        level = alpha / len(tests)
        worst = 1.0
        for name, k, n in tests:
            p = float(stats.binomtest(k, n, 0.5).pvalue)
            worst = min(worst, p)
            m.append(Measurement(f"p_value_{name}", p, "1", limit=f">= {level:.4g} (α = {alpha} / {len(tests)})"))
            if p < level:
                what = "red face up" if name == "red" else "the face up at launch also up at rest"
                self.finding(0, None, f"{what} in {k} of {n} flips ({k / n:.3f}); p = {p:.3g} < {level:.4g} "
                             "against a fair 1/2")
        if self.failed:
            return "fail", f"the coin is not fair: smallest p = {worst:.3g}", m
        return "pass", f"{self.flips} flips consistent with a fair coin: smallest p = {worst:.3g}", m


class CrazyTimeWorldStops(Check):
    """§ 690.8(a): "Crazy Time World is a virtual wheel-based bonus game." (d): "the game presenter
    shall start the wheel rotation by pressing the button. When the wheel stops spinning, the
    multiplier indicated by the player's selected clapper shall constitute the winning payout odds."
    A virtual wheel is a random selection: each of the 64 sections equally likely under a clapper
    (the exact RTP of the Rules Submission assumes it).

    Pearson's χ² of the section under the first clapper at every ``ctw_stop`` (respins included)
    against the uniform 1/64, from ``MIN_CTW_STOPS`` stops (5 expected per section)."""

    id = "CTW-690.8d-stop-chi2"
    section = "§ 690.8(a), (d)"
    title = "Crazy Time World: the virtual wheel stops on each of the 64 sections equally often (χ² test)"

    def __init__(self, config):
        super().__init__(config)
        self.counts: Counter[int] = Counter()
        self.excluded = 0

    def observe(self, rv):
        self.rounds += 1
        for e in rv.events:
            if e.kind != "ctw_stop" or not isinstance(e.payload, dict):
                continue
            sections = e.payload.get("sections")
            if isinstance(sections, list) and sections and isinstance(sections[0], int) \
                    and 0 <= sections[0] < rb.CTW_SECTIONS:
                self.counts[sections[0]] += 1
            else:
                self.excluded += 1

    def verdict(self):
        n = sum(self.counts.values())
        m = [Measurement("stops", n, "stops", limit=f">= {MIN_CTW_STOPS} stops"),
             Measurement("stops_excluded", self.excluded, "stops")]
        if n < MIN_CTW_STOPS:
            return "indeterminate", f"{n} Crazy Time World stops: too few for the χ² test (need {MIN_CTW_STOPS})", m
        obs = [self.counts.get(k, 0) for k in range(rb.CTW_SECTIONS)]
        s, d = pearson(obs, [n / rb.CTW_SECTIONS] * rb.CTW_SECTIONS)
        p = float(stats.chi2.sf(s, d))
        alpha = self.config.chi2_alpha
        m += [Measurement("chi2", s, "1"), Measurement("dof", d, "1"),
              Measurement("p_value", p, "1", limit=f">= {alpha}")]
        if p < alpha:
            top = max(range(rb.CTW_SECTIONS), key=lambda k: obs[k])
            self.finding(0, None, f"χ² = {s:.1f} on {d} dof, p = {p:.3g} < {alpha}: the wheel does not stop "
                         f"uniformly (section {top} under clapper 1 {obs[top]} times of {n}, expected "
                         f"{n / rb.CTW_SECTIONS:.1f})")
            return "fail", f"the virtual wheel's stops are not uniform (p = {p:.3g})", m
        return "pass", f"{n} stops consistent with a uniform virtual wheel: p = {p:.3g}", m


BONUS_CHECKS: tuple[type[Check], ...] = (
    CoinFlipMultipliers, CoinFlipOrder, CoinFlipRescue,
    CashHuntMultipliers, CashHuntOrder, CashHuntPerPlayer,
    PachinkoMultipliers, PachinkoDropZone, PachinkoDouble, PachinkoRescue, PachinkoOrder,
    CrazyTimeWorldWheel, CrazyTimeWorldCountdown, CrazyTimeWorldDouble,
    PachinkoLandings, BoardValues, CoinFairness, CrazyTimeWorldStops,
)

__all__ = ["BONUS_CHECKS", "BonusReplay", "Problem", "board_difference", "forced_result", "merge_sparse",
           "pearson", "refused_for_limits", "replay_bonus", "result_spot"]
