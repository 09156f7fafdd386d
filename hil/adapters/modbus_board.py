"""The RNG multiplier board over Modbus (implements ``devices.contracts.MultiplierBoard``).

Wire (docs/wire/modbus-multiplier-board.md), the command-device pattern of
``hil.adapters.modbus_command``: each method writes its command and arguments in one FC16 request;
the result block becomes the telemetry ``MultiplierBoardSim`` emits — ``board_generated`` /
``board_multiplied`` (``BoardShown``: the cells read from ``result_values``, ``device_time_s`` =
``result_time_ns``, for ``generate`` the moment the board drew them, which a board that draws early
reports as such) and ``board_draw`` (``BoardDraw``: ``result_value``, or for the shuffle the
permutation read from ``result_permutation``).

Arguments the map cannot carry (a game or purpose without a code, a number that does not fit) are
refused at the call with ``ValueError``, as the model refuses what it does not know; arguments the
board refuses (an unknown board, n < 1) are an exception response — a ``wire_fault`` — and the
command's event never triggers. The board's games and cell counts are the regulation's
(``rules.bonus.BOARDS``), declared as the SimPy model declares them.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import BoardDraw, BoardShown
from devices.multiplier_board import GAMES
from hil.adapters.modbus_command import CommandedOpAdapter
from hil.adapters.modbus_spin import BadValue, Snapshot
from rules.bonus import BOARDS

STATUS = ("state", "op_id", "result_op_id", "result_command", "result_board_id", "result_game", "result_multiplier",
          "result_purpose", "result_n", "result_value", "result_cells", "result_time_ns", "result_stop_ns",
          "device_clock_ns")
_KIND = {"generate": "board_generated", "apply_multiplier": "board_multiplied"}


class ModbusMultiplierBoard(CommandedOpAdapter):
    """``MultiplierBoard`` over Modbus; see the module docstring."""

    STATUS = STATUS

    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        return {"games": list(GAMES), "cells": {g: BOARDS[g][0] for g in GAMES}}

    # ----------------------------------------------------------- Protocol (simulation thread)
    def generate(self, game: str) -> simpy.Event:
        """Draw and show a new board for ``game``; succeeds with ``BoardShown`` (multiplier 1)."""
        return self._issue("generate", arg_game=game)

    def apply_multiplier(self, board_id: int, multiplier: int) -> simpy.Event:
        """Multiply every cell except "Double" by the Top Slot multiplier; ``BoardShown``."""
        return self._issue("apply_multiplier", arg_board_id=board_id, arg_multiplier=multiplier)

    def shuffle(self, board_id: int) -> simpy.Event:
        """Cash Hunt: cover and shuffle; ``BoardDraw`` with the permutation."""
        return self._issue("shuffle", arg_board_id=board_id)

    def draw(self, board_id: int, purpose: str, n: int) -> simpy.Event:
        """Uniform in ``range(n)`` (``"drop_zone"``: a zone 4..13); ``BoardDraw``."""
        return self._issue("draw", arg_board_id=board_id, arg_purpose=purpose, arg_n=n)

    def rescue(self, board_id: int) -> simpy.Event:
        """Rescue Flip / Rescue Drop activated (1) or not (0); ``BoardDraw``."""
        return self._issue("rescue", arg_board_id=board_id)

    # ----------------------------------------------------------- I/O thread
    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        command, board_id = snap["result_command"], int(snap["result_board_id"])
        device_time_s = self.clock.to_sim(int(snap["result_time_ns"]))
        cells = int(snap["result_cells"])
        if command in _KIND:
            game = snap["result_game"]
            if game not in GAMES:
                raise BadValue(f"board op {op_id} ({command}) shows no game ({game!r})")
            values = await self._read_elements("result_values", cells)
            if not await self._still_shown(op_id):
                return None
            return _KIND[command], BoardShown(board_id=board_id, game=game, values=tuple(int(v) for v in values),
                                              multiplier=int(snap["result_multiplier"]), device_time_s=device_time_s)
        purpose, n = snap["result_purpose"], int(snap["result_n"])
        if command == "shuffle":
            perm = await self._read_elements("result_permutation", cells)
            if not await self._still_shown(op_id):
                return None
            value: int | tuple[int, ...] = tuple(int(v) for v in perm)
        else:
            value = int(snap["result_value"])
        return "board_draw", BoardDraw(board_id=board_id, purpose=purpose, n=n, value=value,
                                       device_time_s=device_time_s)
