"""Firmware stub of the money wheel: ``devices.money_wheel.MoneyWheelSim`` behind its register map.

Commands (see docs/wire/modbus-money-wheel.md): holding ``command`` (``spin_cw`` / ``spin_ccw``)
and ``command_seq``, written together; a write that brings a NEW ``command_seq`` value executes
``command`` (``none`` executes nothing). A spin commanded while the wheel is still turning is
refused by the model (``RuntimeError``): the stub leaves every register as it is and keeps serving.

The input registers show the model's telemetry as it happens, and nothing else: a fault knob of
the model (``telemetry_dropout``, ``index_sensor_stuck``, ``push_scale``, ``layout`` …) reaches the
wire exactly as it reaches the trace in simulation. See ``MoneyWheelGlue`` for the mapping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pymodbus.constants import ExcCodes

from devices.money_wheel import MoneyWheelParams, MoneyWheelSim
from firmware_stubs.modbus import ModelClock, RegisterImage, ShownValues
from hil.wire.registers import RegisterMap

_DIRECTION = {"spin_cw": "cw", "spin_ccw": "ccw"}


class MoneyWheelGlue(ShownValues):
    """Binds ``MoneyWheelSim`` to a money-wheel register map (``DeviceGlue``).

    Telemetry → registers (device clock ns = model seconds × 1e9, ``ModelClock.ns``):

    * ``spin_start``: ``state`` = spinning, ``spin_id``, ``direction``, ``spin_start_ns``;
      ``revolution_count`` restarts at 0 and ``on_peg`` clears (the wheel is not at rest). The
      rest report of the previous spin (``section_index`` … ``stop_ns``) stays until this one's.
    * ``index_pulse`` of the spin shown: ``revolution_count`` + 1 (pulses lost by a telemetry
      dropout are never counted), ``last_pulse_ns``. (The first pulse of a spin whose ``spin_start`` was lost shows the spin as
      spinning with ``spin_start_ns`` = 0: the start was never reported.)
    * ``spin_stop`` (the ``SpinStop``): ``state`` = at_rest and the whole rest report —
      ``spin_id``, ``section_index``, ``on_peg``, ``direction``, ``revolutions`` (×1000 by the map),
      ``pegs_passed``, ``duration_us``, ``spin_start_ns``, ``stop_ns``.
    * ``peg_count``: the model reports the pegs passed only at rest (``SpinStop.pegs_passed``),
      never live, and the stub does not estimate them: ``peg_count`` keeps the last latched
      ``pegs_passed`` while the wheel spins and takes the new one at rest. So unlike the map's
      description ("live"), during a spin it shows the previous spin's count.
    * A lost message (``telemetry_dropout``) is lost on the wire too: a lost ``spin_stop`` leaves
      the registers showing ``spinning`` for that spin until the next spin starts.

    Layout (``diameter_mm``, ``section_count``, ``sections``) is the model's ``WheelInfo``;
    ``device_clock_ns`` is the model's clock when the request is answered.
    """

    def __init__(self, clock: ModelClock, params: MoneyWheelParams, rng: np.random.Generator,
                 rmap: RegisterMap) -> None:
        self.clock = clock
        self._values: dict[str, Any] = {
            "state": "idle", "spin_id": 0, "revolution_count": 0, "peg_count": 0, "section_index": 0,
            "on_peg": False, "direction": "none", "revolutions": 0.0, "pegs_passed": 0, "duration_us": 0,
            "spin_start_ns": 0, "last_pulse_ns": 0, "stop_ns": 0,
        }
        self._dirty: set[str] = set(self._values)
        self._last_seq = 0  # the image's command_seq at power-up
        self.refused = 0  # commands the model refused (spin while turning, unknown command)
        # The model reaches the glue through ``self.telemetry`` looked up per message, so a test
        # (or a trace tap) may wrap ``glue.telemetry`` after construction.
        self.model = MoneyWheelSim(clock.env, params, rng, lambda d, k, p: self.telemetry(d, k, p))
        info = self.model.info()
        capacity = rmap.point("sections").count
        if len(info.sections) > capacity:
            raise ValueError(f"{rmap.name}: the wheel has {len(info.sections)} sections, the map holds {capacity}")
        codes = rmap.point("sections").codes
        if unknown := sorted({s for s in info.sections if s not in codes}):
            raise ValueError(f"{rmap.name}: section symbol(s) {unknown} have no code in 'sections'")
        pad = rmap.point("sections").enum[min(rmap.point("sections").enum)]
        self._values.update(diameter_mm=round(info.diameter_m * 1000), section_count=len(info.sections),
                            sections=list(info.sections) + [pad] * (capacity - len(info.sections)))
        self._dirty |= {"diameter_mm", "section_count", "sections"}

    # ------------------------------------------------------------- model → image
    def telemetry(self, _device: str, kind: str, payload: dict[str, Any]) -> None:
        shown = self._values["spin_id"]
        if kind == "spin_start" and payload["spin_id"] > shown:
            self._set(state="spinning", spin_id=payload["spin_id"], direction=payload["direction"],
                      spin_start_ns=self.clock.ns(payload["device_time_s"]), revolution_count=0, on_peg=False)
        elif kind == "index_pulse" and payload["spin_id"] > shown:
            # the spin's start report was lost (telemetry dropout) but the wheel turns: its pulses
            # are registered; spin_start_ns = 0 says the start was never reported
            self._set(state="spinning", spin_id=payload["spin_id"], spin_start_ns=0, revolution_count=1,
                      on_peg=False, last_pulse_ns=self.clock.ns(payload["device_time_s"]))
        elif kind == "index_pulse" and payload["spin_id"] == shown:
            # a counter of the pulses the device registered: a pulse the model lost (telemetry
            # dropout) is a pulse the counter never saw, as on a real device
            self._set(revolution_count=self._values["revolution_count"] + 1,
                      last_pulse_ns=self.clock.ns(payload["device_time_s"]))
        elif kind == "spin_stop" and payload["spin_id"] >= shown:
            if payload["spin_id"] > shown:  # its start and every pulse were lost
                self._set(revolution_count=0)
            self._set(state="at_rest", spin_id=payload["spin_id"], section_index=payload["section_index"],
                      on_peg=payload["on_peg"], direction=payload["direction"],
                      revolutions=payload["revolutions"], pegs_passed=payload["pegs_passed"],
                      peg_count=payload["pegs_passed"], duration_us=round(payload["duration_s"] * 1e6),
                      spin_start_ns=self.clock.ns(payload["start_time_s"]),
                      stop_ns=self.clock.ns(payload["stop_time_s"]))

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        if name != "command_seq" or value == self._last_seq:
            return None
        command = image.get("command")  # the stub refused codes outside the map's enum already
        if command in _DIRECTION:
            try:
                self.model.spin(_DIRECTION[command])
            except RuntimeError:  # still turning: the wheel refuses the push (and its seq)
                self.refused += 1
                return ExcCodes.DEVICE_BUSY
        self._last_seq = value
        return None
