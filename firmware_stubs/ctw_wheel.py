"""Firmware stub of the Crazy Time World virtual wheel: ``devices.ctw_wheel.CtwWheelSim`` behind its
register map (docs/wire/modbus-ctw-wheel.md).

Command ``spin`` (no arguments). ``ctw_start`` sets ``op_start_ns``; the ``CtwStop`` sets
``result_sections``, ``result_turns`` (``float64``: the model's number exactly),
``result_start_ns`` and ``result_stop_ns``. The spin id is ``op_id``; the declaration is
``section_count`` and ``clappers`` (the model's, so mis-placed clappers show on the wire).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import simpy

from devices.contracts import CtwStop
from devices.ctw_wheel import CtwWheelParams, CtwWheelSim
from firmware_stubs.command import CommandGlue
from firmware_stubs.modbus import ModelClock
from hil.wire.registers import RegisterMap
from rules.bonus import CTW_SECTIONS


class CtwWheelGlue(CommandGlue):
    """Binds ``CtwWheelSim`` to a crazy-time-world-wheel register map (see the module docstring)."""

    START_KIND, START_ID = "ctw_start", "spin_id"

    def __init__(self, clock: ModelClock, params: CtwWheelParams, rng: np.random.Generator,
                 rmap: RegisterMap) -> None:
        super().__init__(clock, rmap)
        for name in ("result_sections", "clappers"):
            if rmap.point(name).count != len(params.clappers):
                raise ValueError(f"{rmap.name}: {name} holds {rmap.point(name).count} clappers, "
                                 f"the wheel has {len(params.clappers)}")
        self._values |= {"result_sections": self.neutral("result_sections"), "result_turns": 0.0,
                         "section_count": CTW_SECTIONS, "clappers": list(params.clappers)}
        self._dirty |= set(self._values)
        self.model = CtwWheelSim(clock.env, params, rng, self._model_telemetry)

    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        if command != "spin":
            raise ValueError(f"the Crazy Time World wheel has no command {command!r}")
        return self.model.spin()

    def result_fields(self, command: str, result: CtwStop) -> dict[str, Any]:
        return {"result_sections": list(result.sections), "result_turns": result.turns,
                **self.span_ns(result)}
