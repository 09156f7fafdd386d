"""Firmware stub of the RNG multiplier board: ``devices.multiplier_board.MultiplierBoardSim``
behind its register map (docs/wire/modbus-multiplier-board.md).

Commands (``firmware_stubs.command``): ``generate`` (``arg_game``), ``apply_multiplier``
(``arg_board_id``, ``arg_multiplier``), ``shuffle`` (``arg_board_id``), ``draw`` (``arg_board_id``,
``arg_purpose``, ``arg_n``), ``rescue`` (``arg_board_id``). The board draws from a Rules Submission:
``load_rules`` reads one, by default the one shipped with ``rules``; the control endpoint hands the
rig's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import simpy

from devices.contracts import BoardDraw, BoardShown
from devices.multiplier_board import MultiplierBoardParams, MultiplierBoardSim
from firmware_stubs.command import CommandGlue, clip
from firmware_stubs.control import load_submission
from firmware_stubs.modbus import ModelClock
from hil.wire.registers import RegisterMap
from rules.bonus import BOARDS
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmission, parse_rules_submission


def load_rules(path: str | Path | None = None) -> RulesSubmission:
    """The Rules Submission at ``path`` (default: the shipped one); errors as
    ``firmware_stubs.control.load_submission``."""
    return load_submission(path, DEFAULT_RULES_RESOURCE, parse_rules_submission)


class MultiplierBoardGlue(CommandGlue):
    """Binds ``MultiplierBoardSim`` to a multiplier-board register map.

    Results → registers: a ``BoardShown`` (``generate``, ``apply_multiplier``) sets
    ``result_board_id``, ``result_game``, ``result_multiplier``, ``result_cells`` and the first
    ``result_cells`` entries of ``result_values`` (a value a ``uint16`` cannot hold — only a
    faulty board's, e.g. ``out_of_range_value`` — shows 65535, outside every game's range as the
    value itself); ``result_time_ns`` is its ``device_time_s`` (for ``generate`` the moment the
    board drew it, which ``early_generation`` puts before the command). A ``BoardDraw``
    (``shuffle``, ``draw``, ``rescue``) sets ``result_board_id``, ``result_purpose``, ``result_n``
    and ``result_value`` — or, for the shuffle, ``result_cells`` entries of ``result_permutation``.
    """

    def __init__(self, clock: ModelClock, params: MultiplierBoardParams, rules: RulesSubmission,
                 rng: np.random.Generator, rmap: RegisterMap) -> None:
        super().__init__(clock, rmap)
        most = max(cells for cells, _range, _double in BOARDS.values())
        for name in ("result_values", "result_permutation"):
            if rmap.point(name).count < most:
                raise ValueError(f"{rmap.name}: {name} holds {rmap.point(name).count} cells, a board has up to {most}")
        self._values |= {n: self.neutral(n) for n in (
            "result_board_id", "result_game", "result_multiplier", "result_purpose", "result_n", "result_value",
            "result_cells", "result_time_ns", "result_values", "result_permutation")}
        self._dirty |= set(self._values)
        self.model = MultiplierBoardSim(clock.env, params, rules, rng, self._model_telemetry)

    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        m, board = self.model, args["arg_board_id"]
        if command == "generate":
            return m.generate(args["arg_game"])
        if command == "apply_multiplier":
            return m.apply_multiplier(board, args["arg_multiplier"])
        if command == "shuffle":
            return m.shuffle(board)
        if command == "draw":
            return m.draw(board, args["arg_purpose"], args["arg_n"])
        if command == "rescue":
            return m.rescue(board)
        raise ValueError(f"the board has no command {command!r}")

    def _array(self, name: str, items: tuple[int, ...]) -> list[int]:
        p = self.map.point(name)
        return [clip(int(v), p.type) for v in items] + [0] * (p.count - len(items))

    def result_fields(self, command: str, result: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"result_board_id": result.board_id,
                               "result_time_ns": self.clock.ns(result.device_time_s)}
        if isinstance(result, BoardShown):
            return out | {"result_game": result.game, "result_multiplier": clip(result.multiplier, "uint32"),
                          "result_purpose": self.neutral("result_purpose"), "result_n": 0, "result_value": 0,
                          "result_cells": len(result.values),
                          "result_values": self._array("result_values", result.values)}
        assert isinstance(result, BoardDraw)
        out |= {"result_game": self.neutral("result_game"), "result_multiplier": 0, "result_purpose": result.purpose,
                "result_n": result.n}
        if isinstance(result.value, tuple):
            return out | {"result_value": 0, "result_cells": len(result.value),
                          "result_permutation": self._array("result_permutation", result.value)}
        return out | {"result_value": result.value, "result_cells": 0}
