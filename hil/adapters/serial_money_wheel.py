"""The money wheel over the serial frames (implements ``devices.contracts.MoneyWheel``).

``spin`` sends ``SPIN``; ``SPIN_START``, ``INDEX_PULSE`` and ``SPIN_STOP`` become the model's
``spin_start``, ``index_pulse`` and ``spin_stop`` telemetry with the device's timestamps, and
``SPIN_STOP`` resolves the spin's event (``SpinStop``; ``spot`` from the declared layout). The
layout comes from ``WHEEL_LAYOUT`` (after the device's HELLO); the frames carry no model string
and the diameter in mm. A ``SPIN`` answered busy is a ``wire_fault`` (nak) and its event stays
untriggered — the model refuses it (``RuntimeError``) the same way.
"""

from __future__ import annotations

import simpy

from devices.contracts import Direction, SpinStop, WheelInfo, payload
from hil.adapters.serial_base import SerialAdapterBase
from hil.wire.frames import Frame

MODEL = "serial-money-wheel"  # the frames carry no model string


class SerialMoneyWheel(SerialAdapterBase):
    device_kind = "money_wheel"
    declaration = "WHEEL_LAYOUT"

    def __init__(self, env, io, url: str, telemetry, name: str = "wheel", timeout_s: float = 0.5, **kwargs) -> None:
        super().__init__(env, io, url, telemetry, name, timeout_s, **kwargs)
        link = self.start()
        layout = self.declared.fields
        sections = tuple(str(s) for s in layout["sections"])
        self._info = WheelInfo(model=MODEL, sections=sections, diameter_m=layout["diameter_mm"] / 1000,
                               pegs=len(sections))
        telemetry(name, "device_info", {**payload(self._info), **link})

    def info(self) -> WheelInfo:
        return self._info

    def spin(self, direction: Direction) -> simpy.Event:
        ev = self.env.event()
        self.command("SPIN", [ev], direction=direction)
        self._unbound.append(ev)
        return ev

    def on_event(self, f: Frame) -> None:
        v = f.fields
        if f.msg_type == "SPIN_START":
            spin_id = v["spin_id"]
            self.emit("spin_start", {"spin_id": spin_id, "direction": v["direction"],
                                     "device_time_s": self.to_sim(v["t_ns"])})
            self.post(lambda: self.bind(spin_id))
        elif f.msg_type == "INDEX_PULSE":
            self.emit("index_pulse", {"spin_id": v["spin_id"], "count": v["count"],
                                      "device_time_s": self.to_sim(v["t_ns"])})
        elif f.msg_type == "SPIN_STOP":
            i = v["section_index"]
            stop = SpinStop(spin_id=v["spin_id"], section_index=i,
                            spot=self._info.sections[i] if i < len(self._info.sections) else "?",
                            on_peg=v["on_peg"], revolutions=v["revolutions_milli"] / 1000,
                            direction=v["direction"], duration_s=(v["stop_ns"] - v["start_ns"]) * 1e-9,
                            pegs_passed=v["pegs_passed"], start_time_s=self.to_sim(v["start_ns"]),
                            stop_time_s=self.to_sim(v["stop_ns"]))

            def deliver() -> None:
                self.telemetry(self.name, "spin_stop", payload(stop))
                self.finish(stop.spin_id, stop)
            self.post(deliver)
        else:
            super().on_event(f)
