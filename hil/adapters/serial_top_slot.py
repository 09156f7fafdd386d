"""The Top Slot over the serial frames (implements ``devices.contracts.TopSlot``).

``spin`` sends ``TOP_SLOT_SPIN``; ``TOP_SLOT_START`` and ``TOP_SLOT_STOP`` become the model's
``top_slot_start`` and ``top_slot_stop`` telemetry with the device's timestamps, and the stop
resolves the spin's event (``TopSlotStop``). The frames carry no reel strips: ``device_info``
reports the regulation's reels (§ 690.3(b)) and says so (``reels_declared: false``).
"""

from __future__ import annotations

import simpy

from devices.contracts import TopSlotStop, payload
from hil.adapters.serial_base import SerialAdapterBase
from hil.wire.frames import Frame
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2


class SerialTopSlot(SerialAdapterBase):
    device_kind = "top_slot"

    def __init__(self, env, io, url: str, telemetry, name: str = "top_slot", timeout_s: float = 0.5,
                 **kwargs) -> None:
        super().__init__(env, io, url, telemetry, name, timeout_s, **kwargs)
        link = self.start()
        telemetry(name, "device_info", {"reel1": [str(s) for s in TOP_SLOT_REEL1],
                                        "reel2": [int(m) for m in TOP_SLOT_REEL2], "reels_declared": False, **link})

    def spin(self) -> simpy.Event:
        ev = self.env.event()
        self.command("TOP_SLOT_SPIN", [ev])
        self._unbound.append(ev)
        return ev

    def on_event(self, f: Frame) -> None:
        v = f.fields
        if f.msg_type == "TOP_SLOT_START":
            spin_id = v["spin_id"]
            self.emit("top_slot_start", {"spin_id": spin_id, "device_time_s": self.to_sim(v["t_ns"])})
            self.post(lambda: self.bind(spin_id))
        elif f.msg_type == "TOP_SLOT_STOP":
            stop = TopSlotStop(spin_id=v["spin_id"], spot=v["spot"], multiplier=v["multiplier"], aligned=v["aligned"],
                               reel1_steps=v["reel1_steps"], reel2_steps=v["reel2_steps"],
                               start_time_s=self.to_sim(v["start_ns"]), stop_time_s=self.to_sim(v["stop_ns"]))

            def deliver() -> None:
                self.telemetry(self.name, "top_slot_stop", payload(stop))
                self.finish(stop.spin_id, stop)
            self.post(deliver)
        else:
            super().on_event(f)
