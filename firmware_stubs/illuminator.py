"""Firmware stub of the Roulette X random number generator and multiplier lights (§ 617b.5(b), (d)):
``devices.illuminator.IlluminatorSim`` behind its register map (docs/wire/modbus-illuminator.md).

Command ``illuminate`` (no arguments; ``firmware_stubs.command``): the model draws at the command
and lights the multipliers ``illuminate_s`` later, when the ``Illumination`` fills the result block
— ``result_count``, the first ``result_count`` entries of ``result_numbers`` (a pocket 0..36 as
itself, "00" as ``DOUBLE_ZERO_CODE`` = 37) and of ``result_multipliers`` (N of "N to 1"; a value
a ``uint16`` cannot hold — only a faulty generator's — shows 65535), and ``result_time_ns``, the
draw (``lit_early`` puts it before the command; a draw before the device clock's epoch shows 0).
The illumination id is ``op_id``. Numbers and multipliers are shown as drawn: a faulty
generator's duplicate number or off-paytable multiplier is on the wire for the checks to see.

The declaration is the model's: ``wheel`` (``params.wheel``), ``paytable`` (the Rules
Submission's selected one) and ``paytable_multipliers``. The generator draws from a Roulette X Rules
Submission: ``load_roulette_x`` reads one, by default the one shipped with ``rules``; the control
endpoint hands the rig's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import simpy

from devices.contracts import Illumination
from devices.illuminator import IlluminatorParams, IlluminatorSim
from firmware_stubs.command import CommandGlue, clip
from firmware_stubs.control import load_submission
from firmware_stubs.modbus import ModelClock
from hil.wire.registers import RegisterMap, pocket_code
from rules.roulette_x import MAX_LIT, ROULETTE_X_REFERENCE_RESOURCE, RouletteXSubmission, parse_roulette_x_submission

def load_roulette_x(path: str | Path | None = None) -> RouletteXSubmission:
    """The Roulette X Rules Submission at ``path`` (default: the shipped reference); errors as
    ``firmware_stubs.control.load_submission``."""
    return load_submission(path, ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission)


class IlluminatorGlue(CommandGlue):
    """Binds ``IlluminatorSim`` to an illuminator register map (see the module docstring)."""

    def __init__(self, clock: ModelClock, params: IlluminatorParams, rules: RouletteXSubmission,
                 rng: np.random.Generator, rmap: RegisterMap) -> None:
        super().__init__(clock, rmap)
        for name in ("result_numbers", "result_multipliers"):
            if rmap.point(name).count < MAX_LIT:
                raise ValueError(f"{rmap.name}: {name} holds {rmap.point(name).count} entries, "
                                 f"the generator lights up to {MAX_LIT} (§ 617b.5(d))")
        # refuses a paytable the wheel is not authorized for (§ 617b.5(g)): ValueError
        self.model = IlluminatorSim(clock.env, params, rules, None, rng, self._model_telemetry)
        table = [int(m.ratio) for m in self.model.paytable.multipliers]
        if len(table) > rmap.point("paytable_multipliers").count:
            raise ValueError(f"{rmap.name}: paytable_multipliers holds {rmap.point('paytable_multipliers').count} "
                             f"entries, Paytable {self.model.paytable.name} has {len(table)}")
        self._values |= {"result_count": 0, "result_numbers": self._array("result_numbers", ()),
                         "result_multipliers": self._array("result_multipliers", ()), "result_time_ns": 0,
                         "wheel": str(self.model.wheel), "paytable": self.model.paytable.name,
                         "paytable_multipliers": self._array("paytable_multipliers", table)}
        self._dirty |= set(self._values)

    def _array(self, name: str, items: tuple[int, ...] | list[int]) -> list[int]:
        """``items`` as array point ``name`` shows them: saturated to ``uint16``, the rest 0."""
        p = self.map.point(name)
        return [clip(int(v), "uint16") for v in items[:p.count]] + [0] * (p.count - min(len(items), p.count))

    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        if command != "illuminate":
            raise ValueError(f"the illuminator has no command {command!r}")
        return self.model.illuminate()

    def result_fields(self, command: str, result: Illumination) -> dict[str, Any]:
        return {"result_count": clip(len(result.numbers), "uint16"),
                "result_numbers": self._array("result_numbers", [pocket_code(n) for n in result.numbers]),
                "result_multipliers": self._array("result_multipliers", list(result.multipliers)),
                "result_time_ns": max(0, self.clock.ns(result.device_time_s))}
