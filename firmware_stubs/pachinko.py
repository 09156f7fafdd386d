"""Firmware stub of the Pachinko wall: ``devices.pachinko.PachinkoSim`` behind its register map
(docs/wire/modbus-pachinko-board.md).

Command ``drop`` (``arg_zone``: the landing spot to release above; the model refuses a zone
outside 1..16, answered ``ILLEGAL_VALUE``). Accepted: ``op_zone``; ``puck_drop`` sets
``op_start_ns``; the ``PuckLanding`` sets ``result_zone``, ``result_spot``, ``result_rows`` and
``result_path`` (bit r = row r, 1 = right), ``result_start_ns``, ``result_stop_ns``. A puck lodged
between pegs (``puck_stuck_probability``) never lands: the device stays ``busy`` with that drop.
The drop id is ``op_id``; the declaration is ``rows`` and ``spots``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import simpy

from devices.contracts import PuckLanding
from devices.pachinko import PachinkoParams, PachinkoSim
from firmware_stubs.command import CommandGlue
from firmware_stubs.modbus import ModelClock
from hil.wire.registers import RegisterMap
from rules.pachinko import LANDING_SPOTS


def path_words(path: str, count: int) -> list[int]:
    """``path`` ("L"/"R" per row) as ``count`` registers: row r is bit r % 16 of word r // 16, 1 = R."""
    words = [0] * count
    for r, side in enumerate(path):
        if side == "R":
            words[r // 16] |= 1 << (r % 16)
    return words


class PachinkoGlue(CommandGlue):
    """Binds ``PachinkoSim`` to a pachinko-board register map (see the module docstring)."""

    START_KIND, START_ID = "puck_drop", "drop_id"

    def __init__(self, clock: ModelClock, params: PachinkoParams, rng: np.random.Generator,
                 rmap: RegisterMap) -> None:
        super().__init__(clock, rmap)
        capacity = 16 * rmap.point("result_path").count
        if params.rows > capacity:
            raise ValueError(f"{rmap.name}: result_path holds {capacity} rows, the board has {params.rows}")
        self._values |= {n: self.neutral(n) for n in (
            "op_zone", "result_zone", "result_spot", "result_rows", "result_path")}
        self._values |= {"rows": params.rows, "spots": LANDING_SPOTS}
        self._dirty |= set(self._values)
        self.model = PachinkoSim(clock.env, params, rng, self._model_telemetry)

    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        if command != "drop":
            raise ValueError(f"the Pachinko board has no command {command!r}")
        return self.model.drop(args["arg_zone"])

    def accepted(self, op_id: int, command: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"op_zone": args["arg_zone"]}

    def result_fields(self, command: str, result: PuckLanding) -> dict[str, Any]:
        return {"result_zone": result.zone, "result_spot": result.spot, "result_rows": len(result.path),
                "result_path": path_words(result.path, self.map.point("result_path").count),
                **self.span_ns(result)}
