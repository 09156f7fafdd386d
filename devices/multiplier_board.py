"""The RNG multiplier board of the bonus games (§§ 690.5–690.8): draws each game's multipliers
from the Rules Submission with its seeded RNG, shows them, applies the Top Slot multiplier, and
makes the games' other random selections (Cash Hunt shuffle, drop zone, auto-pick, Rescue).

Games are named by their betting option: ``"coin-flip"`` (2 cells: red, blue — § 690.5(c)),
``"cash-hunt"`` (108, § 690.6(b)), ``"pachinko"`` (16 landing spots, § 690.7(c)), ``"crazy-time"``
(64 wheel sections, § 690.8(b)); cell counts from ``rules.bonus.BOARDS``.

Draws (all exact integer draws against the Rules Submission's integer weights and ``Fraction``
probabilities): each cell independently by the game's ``multiplier_weights``; Pachinko and Crazy
Time World then, with ``double_probability`` (``integers(den) < num``), one uniformly chosen cell
shows "Double" (``rules.bonus.DOUBLE``, 0) — never more than one. ``rescue`` is 1 with the game's
``rescue_probability`` (Coin Flip, Pachinko). ``draw`` is uniform in ``range(n)``; for
``"drop_zone"`` it is a zone 4..13 (§ 690.7(d), ``n`` = 10). ``shuffle`` is a uniform permutation.

Timing: the board is drawn when ``generate`` is commanded and shown ``generate_s`` later (the
display animation): ``board_generated`` is reported then, with ``device_time_s`` = the moment it
was drawn. ``apply_multiplier`` shows the multiplied board ``apply_s`` later (``board_multiplied``,
``device_time_s`` = when shown); ``shuffle`` takes ``shuffle_s``; ``draw`` and ``rescue`` take
``draw_s`` (``board_draw``, ``device_time_s`` = when drawn, at the command).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from devices.contracts import BoardDraw, BoardShown, Telemetry, payload
from rules.bonus import BOARDS, DOUBLE
from rules.pachinko import DROP_ZONES

#: The games, in the order of § 690.1(g)(2), and the Rules Submission section of each.
GAMES: tuple[str, ...] = ("coin-flip", "cash-hunt", "pachinko", "crazy-time")
_PAR_FIELD = {"coin-flip": "coin_flip", "cash-hunt": "cash_hunt", "pachinko": "pachinko",
              "crazy-time": "crazy_time_world"}


@dataclass(frozen=True)
class MultiplierBoardParams:
    """Timing of the simulated multiplier board; faults default to a healthy board."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    generate_s: float = 1.0
    """From ``generate`` to the board being shown (display animation)."""
    apply_s: float = 0.5
    """From ``apply_multiplier`` to the multiplied board being shown."""
    shuffle_s: float = 3.0
    """Cash Hunt: covering and shuffling the multipliers."""
    draw_s: float = 0.2
    """From ``draw`` / ``rescue`` to the answer."""

    # ---- faults (defaults = healthy)
    out_of_range_game: str = ""
    """"" = none; a game ("coin-flip", "cash-hunt", "pachinko", "crazy-time") whose boards may
    show ``out_of_range_value`` in one random cell."""
    out_of_range_value: int = 1000
    """The value shown in the faulty cell (outside the game's range of §§ 690.5–690.8)."""
    out_of_range_probability: float = 1.0
    """Per board of ``out_of_range_game``: probability that one random cell is replaced."""
    early_generation: bool = False
    """The board draws the next board of each game as soon as the previous one of that game is
    shown (at construction for the first), and when commanded shows that pre-drawn board,
    reporting ``device_time_s`` = the time it was drawn — before the bonus was triggered."""
    biased_probability: float = 0.0
    """A weak generator: per cell, with this probability the multiplier is drawn uniformly over
    the game's multipliers, ignoring their weights."""
    double_probability_actual: float | None = None
    """A PAR mismatch: the board shows a Double (Pachinko, Crazy Time World) with this probability
    instead of the Rules Submission's ``double_probability`` (None: as declared)."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        for f in ("generate_s", "apply_s", "shuffle_s", "draw_s"):
            need(getattr(self, f) >= 0, f"{f} must be >= 0, not {getattr(self, f)}")
        need(self.out_of_range_game in ("", *GAMES),
             f"out_of_range_game must be '' (none) or one of {', '.join(GAMES)}, not {self.out_of_range_game!r}")
        need(0.0 <= self.out_of_range_probability <= 1.0,
             f"out_of_range_probability must be in [0, 1], not {self.out_of_range_probability}")
        need(0.0 <= self.biased_probability <= 1.0,
             f"biased_probability must be in [0, 1], not {self.biased_probability}")
        need(self.double_probability_actual is None or 0.0 <= self.double_probability_actual <= 1.0,
             f"double_probability_actual must be None or in [0, 1], not {self.double_probability_actual}")


class _Game:
    """One game's board definition from the Rules Submission."""

    def __init__(self, name: str, par: Any) -> None:
        self.name, self.par = name, par
        self.cells, _range, self.may_double = BOARDS[name]  # type: ignore[index]
        self.support = np.array(sorted(par.multiplier_weights), dtype=np.int64)
        weights = [int(par.multiplier_weights[m]) for m in self.support]
        self.total = sum(weights)
        self.cum = np.cumsum(np.array(weights, dtype=np.int64))
        dp = getattr(par, "double_probability", None) if self.may_double else None
        self.double = None if dp is None else (dp.numerator, dp.denominator)
        rp = getattr(par, "rescue_probability", None)
        self.rescue = None if rp is None else (rp.numerator, rp.denominator)


class MultiplierBoardSim:
    """SimPy model of the RNG multiplier board implementing ``devices.contracts.MultiplierBoard``.

    ``rules`` is the ``rules.submission.RulesSubmission`` whose distributions the board draws from.
    """

    def __init__(self, env: simpy.Environment, params: MultiplierBoardParams, rules: Any,
                 rng: np.random.Generator, telemetry: Telemetry, name: str = "board") -> None:
        self.env, self.params, self.rules, self.rng = env, params, rules, rng
        self.telemetry, self.name = telemetry, name
        self.games = {g: _Game(g, getattr(rules, _PAR_FIELD[g])) for g in GAMES}
        self._board_id = 0
        #: board_id -> [game, values, multiplier]
        self._boards: dict[int, list] = {}
        #: early_generation: game -> (values, device time drawn)
        self._predrawn: dict[str, tuple[tuple[int, ...], float]] = {}
        telemetry(name, "device_info", {"games": list(GAMES), "cells": {g: self.games[g].cells for g in GAMES}})
        if params.early_generation:
            for g in GAMES:
                self._predraw(g)

    # ------------------------------------------------------------------ drawing
    def draw_values(self, game: str) -> tuple[int, ...]:
        """One board of ``game`` as the RNG draws it (no timing, no telemetry)."""
        gm, rng, p = self.games[game], self.rng, self.params
        idx = np.searchsorted(gm.cum, rng.integers(gm.total, size=gm.cells), side="right")
        values = gm.support[idx]
        if p.biased_probability > 0:
            weak = rng.random(gm.cells) < p.biased_probability
            values = np.where(weak, gm.support[rng.integers(len(gm.support), size=gm.cells)], values)
        out = [int(v) for v in values]
        if gm.double is not None:
            actual = p.double_probability_actual
            if (int(rng.integers(gm.double[1])) < gm.double[0] if actual is None
                    else float(rng.random()) < actual):
                out[int(rng.integers(gm.cells))] = DOUBLE
        if game == p.out_of_range_game and float(rng.random()) < p.out_of_range_probability:
            out[int(rng.integers(gm.cells))] = p.out_of_range_value
        return tuple(out)

    def _predraw(self, game: str) -> None:
        self._predrawn[game] = (self.draw_values(game), self.env.now)

    def _board(self, board_id: int) -> list:
        try:
            return self._boards[board_id]
        except KeyError:
            raise ValueError(f"no board {board_id!r} (boards generated: 1..{self._board_id})") from None

    # ------------------------------------------------------------------ commands
    def generate(self, game: str) -> simpy.Event:
        """Draw and show a new board for ``game``; succeeds with ``BoardShown`` (multiplier 1)."""
        if game not in self.games:
            raise ValueError(f"unknown game {game!r}: one of {', '.join(GAMES)}")
        if game in self._predrawn:
            values, drawn_s = self._predrawn.pop(game)
        else:
            values, drawn_s = self.draw_values(game), self.env.now
        self._board_id += 1
        self._boards[self._board_id] = [game, values, 1]
        shown = BoardShown(board_id=self._board_id, game=game, values=values, multiplier=1, device_time_s=drawn_s)
        return self._after(self.params.generate_s, "board_generated", shown,
                           then=(lambda: self._predraw(game)) if self.params.early_generation else None)

    def apply_multiplier(self, board_id: int, multiplier: int) -> simpy.Event:
        """Multiply every cell except "Double" by the Top Slot multiplier; ``BoardShown``."""
        board = self._board(board_id)
        if isinstance(multiplier, bool) or not isinstance(multiplier, int | np.integer) or multiplier < 1:
            raise ValueError(f"multiplier must be an int >= 1, not {multiplier!r}")
        m = int(multiplier)
        board[1] = tuple(v if v == DOUBLE else v * m for v in board[1])
        board[2] *= m
        game, values, total = board
        done = self.env.event()

        def show(_e: simpy.Event) -> None:
            shown = BoardShown(board_id=board_id, game=game, values=values, multiplier=total,
                               device_time_s=self.env.now)
            self.telemetry(self.name, "board_multiplied", payload(shown))
            done.succeed(shown)

        self.env.timeout(self.params.apply_s).callbacks.append(show)
        return done

    def shuffle(self, board_id: int) -> simpy.Event:
        """Cash Hunt (§ 690.6(c)): cover and shuffle; ``BoardDraw`` with the permutation (symbol
        ``s`` covers cell ``value[s]``)."""
        n = len(self._board(board_id)[1])
        perm = tuple(int(i) for i in self.rng.permutation(n))
        return self._after(self.params.shuffle_s, "board_draw",
                           BoardDraw(board_id=board_id, purpose="shuffle", n=n, value=perm, device_time_s=self.env.now))

    def draw(self, board_id: int, purpose: str, n: int) -> simpy.Event:
        """Uniform in ``range(n)``; ``"drop_zone"`` (n = 10): a zone 4..13 (§ 690.7(d))."""
        self._board(board_id)
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"n must be an int >= 1, not {n!r}")
        if purpose == "drop_zone" and n != len(DROP_ZONES):
            raise ValueError(f"a drop zone is one of {len(DROP_ZONES)} (§ 690.7(d): above spots 4..13), not n={n}")
        i = int(self.rng.integers(int(n)))
        value = DROP_ZONES[i] if purpose == "drop_zone" else i
        return self._after(self.params.draw_s, "board_draw",
                           BoardDraw(board_id=board_id, purpose=purpose, n=int(n), value=value,
                                     device_time_s=self.env.now))

    def rescue(self, board_id: int) -> simpy.Event:
        """Rescue Flip (§ 690.5(f)) / Rescue Drop (§ 690.7(g)): 1 with the game's
        ``rescue_probability``, else 0; ``BoardDraw``."""
        game = self._board(board_id)[0]
        rp = self.games[game].rescue
        if rp is None:
            raise ValueError(f"{game} has no Rescue (only coin-flip, § 690.5(f), and pachinko, § 690.7(g))")
        value = int(int(self.rng.integers(rp[1])) < rp[0])
        return self._after(self.params.draw_s, "board_draw",
                           BoardDraw(board_id=board_id, purpose="rescue", n=2, value=value, device_time_s=self.env.now))

    def _after(self, delay_s: float, kind: str, result: Any, then=None) -> simpy.Event:
        """An event that, ``delay_s`` from now, reports ``result`` as ``kind`` and succeeds with it."""
        done = self.env.event()

        def fire(_e: simpy.Event) -> None:
            self.telemetry(self.name, kind, payload(result))
            done.succeed(result)
            if then is not None:
                then()

        self.env.timeout(delay_s).callbacks.append(fire)
        return done
