"""The croupier's part in the bonus games (§§ 690.5–690.8), played after a valid spin that came to
rest on a bonus section (§ 690.4(b)).

Each game is a SimPy generator driving the bonus devices (the RNG multiplier board, the coin
flipper, the Pachinko board, the Crazy Time World wheel) and the players' choices; it returns the
final multiplier of every eligible seat (a seat with a wager on the bonus spot), which
``rules.crazy_time.settle`` pays as "N to 1" (§ 690.4(c): the Top Slot multiplier is inside, the
board applied it). What the regulation makes of each landing (Double, Rescue, clappers) comes from
``rules.bonus``; every step and every device report is in the trace, where the checks replay it.

One game, as recorded (croupier events in plain text, device telemetry in brackets)::

    bonus_start {game, seats, top_slot_multiplier}
    [board_generated] → [board_multiplied]            (§ 690.x: Top Slot applied before play)
    coin flip:   [coin_flip_start/stop] → ([board_draw rescue] → [coin_flip_start/stop])
    cash hunt:   [board_draw shuffle] → countdown_start → player_pick… → countdown_end
                 → [board_draw auto_pick]… (player_pick auto) → reveal per seat
    pachinko:    ([board_draw drop_zone] → [puck_drop/puck_landed] → board_doubled | [board_draw rescue]
                 → board_rescued)…
    crazy time:  countdown_start → player_pick… → countdown_end → auto picks → ([ctw_start/stop]
                 → board_doubled for one clapper's players → respin)…
    bonus_result {game, values: {seat: multiplier}}

The croupier has collected the round's losing wagers before ``play`` (§ 690.2(f)). A device that
does not answer within ``bonus_timeout_s`` ends the game without a result: the wagers on it are
void and refunded, never settled on partial data.

The Rescue conditions (§ 690.5(f), § 690.7(g)) are judged as the Rules Submission's
``rescue_reading`` declares (``rules.bonus.rescue_value``), the same rule the checks replay with.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from typing import Any

import simpy

from devices.contracts import BoardDraw, BoardShown, CoinFlipResult, CtwStop, PuckLanding
from hil.bench import Devices
from hil.scenario import Scenario
from rules import bonus as rb
from rules.crazy_time import BASE_ODDS, Spot
from rules.pachinko import DROP_ZONES
from rules.submission import RulesSubmission

Say = Callable[[str, dict[str, Any] | None], None]


class BonusVoid(Exception):
    """The bonus game could not be completed (a device did not answer, or answered nonsense)."""


class BonusCroupier:
    def __init__(self, env: simpy.Environment, devices: Devices, say: Say, scenario: Scenario,
                 prng: random.Random, rules: RulesSubmission | None = None) -> None:
        self.env, self.dev, self.say, self.sc, self.prng = env, devices, say, scenario, prng
        self.faults = scenario.croupier_faults
        #: how the Rescue conditions read the board (the Rules Submission's ``rescue_reading``)
        self.reading = rules.rescue_reading if rules is not None else rb.DEFAULT_RESCUE_READING
        self.stats = {"coin-flip": 0, "cash-hunt": 0, "pachinko": 0, "crazy-time": 0, "void": 0}

    # ------------------------------------------------------------------ plumbing
    def _wait(self, ev: simpy.Event, what: str) -> Generator[simpy.Event, Any, Any]:
        """The device's answer to ``ev``, or ``BonusVoid`` after ``bonus_timeout_s``."""
        timeout = self.env.timeout(self.sc.croupier.bonus_timeout_s)
        yield ev | timeout
        if not ev.processed:
            raise BonusVoid(f"no answer from the {what} within {self.sc.croupier.bonus_timeout_s} s")
        if not ev.ok:
            raise BonusVoid(f"the {what} failed: {ev.value}")
        return ev.value

    def _device(self, role: str) -> Any:
        dev = getattr(self.dev, role)
        if dev is None:
            raise BonusVoid(f"no {role} device on the bench")
        return dev

    def play(self, game: Spot, multiplier: int, seats: list[int]) -> Generator[simpy.Event, Any, dict[int, int] | None]:
        """Play ``game`` for ``seats``; the final multiplier per seat, or None (void)."""
        self.say("bonus_start", {"game": str(game), "seats": seats, "top_slot_multiplier": multiplier})
        if self.faults.bonus_base_odds:  # a game system that never plays the bonus game
            values = {s: int(BASE_ODDS[game].ratio * multiplier) for s in seats}
            self.say("bonus_result", {"game": str(game), "values": {str(s): v for s, v in values.items()}})
            return values
        play = {Spot.COIN_FLIP: self._coin_flip, Spot.CASH_HUNT: self._cash_hunt,
                Spot.PACHINKO: self._pachinko, Spot.CRAZY_TIME: self._crazy_time}[game]
        try:
            values = yield from play(multiplier, seats)
        except BonusVoid as exc:
            self.stats["void"] += 1
            self.say("bonus_void", {"game": str(game), "reason": str(exc)})
            return None
        self.stats[str(game)] += 1
        self.say("bonus_result", {"game": str(game), "values": {str(s): v for s, v in sorted(values.items())}})
        return values

    def _board(self, game: Spot, multiplier: int):
        """Generate the board; apply the Top Slot multiplier (always, 1 included, so the order
        of § 690.5(e) / 690.6(g) / 690.7(f) / 690.8(f) is on record in every game)."""
        board = self._device("board")
        shown: BoardShown = yield from self._wait(board.generate(str(game)), "multiplier board")
        if len(shown.values) != rb.BOARDS[game][0]:
            raise BonusVoid(f"the board showed {len(shown.values)} cells for {game}, expected {rb.BOARDS[game][0]}")
        if self.faults.late_top_slot:
            return shown  # applied later, by _late_top_slot
        shown = yield from self._wait(board.apply_multiplier(shown.board_id, multiplier), "multiplier board")
        return shown

    def _late_top_slot(self, shown: BoardShown, multiplier: int):
        if not self.faults.late_top_slot:
            return shown
        shown = yield from self._wait(self._device("board").apply_multiplier(shown.board_id, multiplier),
                                      "multiplier board")
        return shown

    def _draw(self, board_id: int, purpose: str, n: int):
        d: BoardDraw = yield from self._wait(self._device("board").draw(board_id, purpose, n), "multiplier board")
        return d.value

    def _rescue(self, board_id: int):
        d: BoardDraw = yield from self._wait(self._device("board").rescue(board_id), "multiplier board")
        return bool(d.value)

    def _countdown_with_picks(self, game: Spot, seats: list[int], countdown_s: float, choices: int,
                              board_id: int):
        """§ 690.6(d) / § 690.8(c): the timer runs; players select; whoever did not is given a
        random selection by the board's RNG. Returns seat -> choice (0-based)."""
        pl, env = self.sc.players, self.env
        self.say("countdown_start", {"game": str(game), "duration_s": countdown_s})
        start = env.now
        picks: dict[int, tuple[float, int]] = {}
        for seat in seats:
            if self.prng.random() < pl.pick_probability:
                picks[seat] = (self.prng.uniform(0.2, 0.98) * countdown_s, self.prng.randrange(choices))
        chosen: dict[int, int] = {}
        for seat, (at, choice) in sorted(picks.items(), key=lambda kv: kv[1][0]):
            yield env.timeout(max(0.0, start + at - env.now))
            chosen[seat] = choice
            self.say("player_pick", {"game": str(game), "seat": seat, "choice": choice, "auto": False})
        yield env.timeout(max(0.0, start + countdown_s - env.now))
        self.say("countdown_end", {"game": str(game)})
        for seat in seats:
            if seat not in chosen:  # § 690.6(d), § 690.8(c): selected automatically at random
                chosen[seat] = yield from self._draw(board_id, "auto_pick", choices)
                self.say("player_pick", {"game": str(game), "seat": seat, "choice": chosen[seat], "auto": True})
        return chosen

    # ------------------------------------------------------------------ § 690.5
    def _coin_flip(self, multiplier: int, seats: list[int]):
        shown = yield from self._board(Spot.COIN_FLIP, multiplier)
        flipper = self._device("coin_flipper")
        flip: CoinFlipResult = yield from self._wait(flipper.flip(), "coin flipper")
        shown = yield from self._late_top_slot(shown, multiplier)
        values = shown.values
        if flip.face not in rb.COIN_SIDES:
            raise BonusVoid(f"the coin flipper reported face {flip.face!r}")
        if rb.rescue_flip_eligible(values, flip.face, self.reading, multiplier) or self.faults.rescue_ineligible:
            if (yield from self._rescue(shown.board_id)):  # § 690.5(g): the Rescue Flip is final
                flip = yield from self._wait(flipper.flip(), "coin flipper")
                if flip.face not in rb.COIN_SIDES:
                    raise BonusVoid(f"the coin flipper reported face {flip.face!r}")
        value = rb.coin_value(values, flip.face)
        return dict.fromkeys(seats, value)

    # ------------------------------------------------------------------ § 690.6
    def _cash_hunt(self, multiplier: int, seats: list[int]):
        shown = yield from self._board(Spot.CASH_HUNT, multiplier)
        shuffle = yield from self._wait(self._device("board").shuffle(shown.board_id), "multiplier board")
        perm = tuple(shuffle.value)
        if sorted(perm) != list(range(rb.CASH_HUNT_CELLS)):
            raise BonusVoid("the board's shuffle is not a permutation of the 108 cells")
        picks = yield from self._countdown_with_picks(Spot.CASH_HUNT, seats, self.sc.croupier.cash_hunt_countdown_s,
                                                      rb.CASH_HUNT_CELLS, shown.board_id)
        shown = yield from self._late_top_slot(shown, multiplier)
        if self.faults.cash_hunt_shared_pick and picks:
            first = next(iter(picks.values()))
            picks = dict.fromkeys(picks, first)
        return {seat: shown.values[perm[symbol]] for seat, symbol in picks.items()}

    # ------------------------------------------------------------------ § 690.7
    def _pachinko(self, multiplier: int, seats: list[int]):
        shown = yield from self._board(Spot.PACHINKO, multiplier)
        pachinko = self._device("pachinko")
        values, board_id = shown.values, shown.board_id
        double_used = rescue_used = False
        literal: set[int] = set()  # cells (0-based) showing the 50x that replaced the Double
        late, f, zone = self.faults.late_top_slot, self.faults, None
        # a Double and a Rescue Drop add at most two drops (a croupier repeating Rescue Drops: more)
        after_rescue = False
        for _drop in range(8 if f.rescue_repeat else 4):
            if not (f.rescue_same_zone and after_rescue):  # § 690.7(d), (e)(3), (g)(3): each drop's zone drawn anew
                zone = yield from self._draw(board_id, "drop_zone", len(DROP_ZONES))
            after_rescue = False
            if f.drop_zone_outside:
                zone = 1
            landing: PuckLanding = yield from self._wait(pachinko.drop(zone), "Pachinko board")
            if late:
                shown = yield from self._late_top_slot(shown, multiplier)
                values, late = shown.values, False
            if not 1 <= landing.spot <= rb.PACHINKO_SPOTS:
                raise BonusVoid(f"the Pachinko board reported landing spot {landing.spot}")
            value = values[landing.spot - 1]
            if value == rb.DOUBLE and not double_used:  # § 690.7(e)
                double_used = True
                values = rb.pachinko_double(values, landing.spot)
                literal.add(landing.spot - 1)
                if f.skip_double_doubling:
                    values = tuple(rb.DOUBLE_REPLACEMENT if i == landing.spot - 1 else v
                                   for i, v in enumerate(shown.values))
                self.say("board_doubled", {"board_id": board_id, "spot": landing.spot, "values": list(values)})
                continue
            eligible = rb.pachinko_rescue_eligible(value, self.reading, multiplier, landing.spot - 1 in literal)
            if (not rescue_used or f.rescue_repeat) and (eligible or f.rescue_ineligible):
                rescue_used = True  # § 690.7(g)(4): "No additional Rescue Drops shall follow."
                if (yield from self._rescue(board_id)):
                    if eligible and not f.rescue_no_raise:  # § 690.7(g)(1)–(2)
                        values = rb.pachinko_rescue(values, value, self.reading, multiplier, literal)
                    if eligible and f.rescue_raises_all:
                        values = tuple(v if v == rb.DOUBLE else value for v in values)
                    self.say("board_rescued", {"board_id": board_id, "spot": landing.spot, "trigger": value,
                                               "values": list(values)})
                    after_rescue = True
                    continue
            return dict.fromkeys(seats, value)
        raise BonusVoid("more puck drops than a Double and a Rescue Drop allow")

    # ------------------------------------------------------------------ § 690.8
    def _crazy_time(self, multiplier: int, seats: list[int]):
        shown = yield from self._board(Spot.CRAZY_TIME, multiplier)
        picks = yield from self._countdown_with_picks(Spot.CRAZY_TIME, seats, self.sc.croupier.ctw_countdown_s,
                                                      rb.CTW_CLAPPERS, shown.board_id)
        shown = yield from self._late_top_slot(shown, multiplier)
        wheel = self._device("ctw_wheel")
        values, board_id = shown.values, shown.board_id
        stop: CtwStop = yield from self._wait(wheel.spin(), "Crazy Time World wheel")
        if len(stop.sections) != rb.CTW_CLAPPERS or not all(0 <= s < rb.CTW_SECTIONS for s in stop.sections):
            raise BonusVoid(f"the Crazy Time World wheel reported sections {stop.sections}")
        result: dict[int, int] = {}
        playing = dict(picks)  # seat -> clapper (0-based)
        doubles = 0
        while True:
            landed = [values[s] for s in stop.sections]
            continuing = {seat: c for seat, c in playing.items() if landed[c] == rb.DOUBLE}
            if self.faults.ctw_all_players_continue and continuing:
                continuing = dict(playing)
            for seat, c in playing.items():
                if seat not in continuing:
                    result[seat] = landed[c]
            if not continuing:
                return result
            if doubles == 2:
                raise BonusVoid("a third Double on a wheel whose Double was replaced")
            doubles += 1  # § 690.8(e)(1)–(3)
            clapper = landed.index(rb.DOUBLE)  # one Double on the wheel: one clapper on it
            # § 690.8(e)(1), (3): the Double stays until the second time ("ctw_double_replaced_first": at once)
            values = rb.ctw_double(values, second=doubles == 2 or self.faults.ctw_double_replaced_first)
            if self.faults.skip_double_doubling:
                values = tuple(rb.DOUBLE_REPLACEMENT if v == rb.DOUBLE and doubles == 2 else v for v in shown.values)
            self.say("board_doubled", {"board_id": board_id, "clapper": clapper + 1, "second": doubles == 2,
                                       "seats": sorted(continuing), "values": list(values)})
            playing = continuing
            stop = yield from self._wait(wheel.spin(), "Crazy Time World wheel")
