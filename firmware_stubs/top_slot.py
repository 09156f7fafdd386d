"""Firmware stub of the Top Slot: ``devices.top_slot.TopSlotSim`` behind its register map.

Commands (see docs/wire/modbus-top-slot.md): holding ``command`` = ``spin`` and ``command_seq``,
written together; a write that brings a NEW ``command_seq`` value executes ``command`` (``none``
executes nothing). The PAR data (alignment probability, reel weights) come from a Rules
Submission: ``load_par`` reads one, by default the one shipped with ``rules``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from devices.top_slot import TopSlotParams, TopSlotSim
from firmware_stubs.control import load_submission
from firmware_stubs.modbus import ModelClock, RegisterImage, ShownValues
from hil.wire.registers import RegisterMap
from rules.submission import DEFAULT_RULES_RESOURCE, TopSlotPar, parse_rules_submission


def load_par(path: str | Path | None = None) -> TopSlotPar:
    """The Top Slot PAR of the Rules Submission at ``path`` (default: the shipped one); errors as
    ``firmware_stubs.control.load_submission``."""
    return load_submission(path, DEFAULT_RULES_RESOURCE, parse_rules_submission).top_slot


class TopSlotGlue(ShownValues):
    """Binds ``TopSlotSim`` to a top-slot register map (``DeviceGlue``).

    Telemetry → registers (device clock ns = model seconds × 1e9, ``ModelClock.ns``):

    * ``top_slot_start``: ``state`` = spinning, ``spin_id``, ``start_ns`` (after ``late_start_s``
      when that fault is set: until then the registers still show the previous spin).
    * ``top_slot_stop`` (the ``TopSlotStop``): ``state`` = at_rest and the result — ``spin_id``,
      ``spot``, ``multiplier``, ``aligned``, ``reel1_steps``, ``reel2_steps``, ``start_ns``, ``stop_ns``.

    The model, unlike the wheel, accepts a spin while the reels still turn (it runs the spins
    side by side); the registers can show one spin only, so they follow the newest: the stop of
    an older spin than the one shown is not written.
    """

    def __init__(self, clock: ModelClock, params: TopSlotParams, par: TopSlotPar, rng: np.random.Generator,
                 rmap: RegisterMap) -> None:
        self.clock = clock
        self._values: dict[str, Any] = {
            "state": "idle", "spin_id": 0, "spot": rmap.point("spot").enum[min(rmap.point("spot").enum)],
            "multiplier": 0, "aligned": False, "reel1_steps": 0, "reel2_steps": 0, "start_ns": 0, "stop_ns": 0,
        }
        self._dirty: set[str] = set(self._values)
        self._last_seq = 0  # the image's command_seq at power-up
        self.refused = 0  # commands with a code outside the map's enum
        # Looked up per message, so a test (or a trace tap) may wrap ``glue.telemetry``.
        self.model = TopSlotSim(clock.env, params, par, rng, lambda d, k, p: self.telemetry(d, k, p))

    # ------------------------------------------------------------- model → image
    def telemetry(self, _device: str, kind: str, payload: dict[str, Any]) -> None:
        shown = self._values["spin_id"]
        if kind == "top_slot_start" and payload["spin_id"] > shown:
            self._set(state="spinning", spin_id=payload["spin_id"], start_ns=self.clock.ns(payload["device_time_s"]))
        elif kind == "top_slot_stop" and payload["spin_id"] >= shown:
            self._set(state="at_rest", spin_id=payload["spin_id"], spot=payload["spot"],
                      multiplier=payload["multiplier"], aligned=payload["aligned"],
                      reel1_steps=payload["reel1_steps"], reel2_steps=payload["reel2_steps"],
                      start_ns=self.clock.ns(payload["start_time_s"]), stop_ns=self.clock.ns(payload["stop_time_s"]))

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> None:
        if name != "command_seq" or value == self._last_seq:
            return
        self._last_seq = value
        try:
            command = image.get("command")
        except ValueError:  # a code outside the map's enum
            self.refused += 1
            return
        if command == "spin":
            self.model.spin()
