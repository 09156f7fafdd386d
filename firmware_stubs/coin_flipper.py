"""Firmware stub of the Coin Flip's coin flipper: ``devices.coin_flipper.CoinFlipperSim`` behind its
register map (docs/wire/modbus-coin-flipper.md).

Command ``flip`` (no arguments). ``coin_flip_start`` sets ``op_start_ns``; the ``CoinFlipResult``
sets ``result_face``, ``result_start_face``, ``result_half_turns``, ``result_launch_speed_mps``,
``result_spin_rate_rps`` (``float64``: the model's numbers exactly), ``result_start_ns`` and
``result_stop_ns``. The flip id is ``op_id``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import simpy

from devices.coin_flipper import CoinFlipperParams, CoinFlipperSim
from devices.contracts import CoinFlipResult
from firmware_stubs.command import CommandGlue, clip
from firmware_stubs.modbus import ModelClock
from hil.wire.registers import RegisterMap


class CoinFlipperGlue(CommandGlue):
    """Binds ``CoinFlipperSim`` to a coin-flipper register map (see the module docstring)."""

    START_KIND, START_ID = "coin_flip_start", "flip_id"

    def __init__(self, clock: ModelClock, params: CoinFlipperParams, rng: np.random.Generator,
                 rmap: RegisterMap) -> None:
        super().__init__(clock, rmap)
        self._values |= {n: self.neutral(n) for n in (
            "result_face", "result_start_face", "result_half_turns", "result_launch_speed_mps", "result_spin_rate_rps")}
        self._dirty |= set(self._values)
        self.model = CoinFlipperSim(clock.env, params, rng, self._model_telemetry)

    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        if command != "flip":
            raise ValueError(f"the coin flipper has no command {command!r}")
        return self.model.flip()

    def result_fields(self, command: str, result: CoinFlipResult) -> dict[str, Any]:
        return {"result_face": result.face, "result_start_face": result.start_face,
                "result_half_turns": clip(result.half_turns, "uint16"),
                "result_launch_speed_mps": result.launch_speed_mps, "result_spin_rate_rps": result.spin_rate_rps,
                **self.span_ns(result)}
