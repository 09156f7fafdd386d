"""Firmware stub of the wagering device: ``devices.wagering.WageringSim`` behind its register map.

Commands (see docs/wire/modbus-wagering.md): coil ``betting_open`` ← 1 opens a round (and
clears the lock-out coil); coil ``lockout`` ← 1 is the dealer's lock-out button — the model
stamps its arrival and locks out after its latency (the stub's ``lockout_latency_*`` params,
the ground truth of a measurement); holding ``press_inject_seq`` ← new value presses the seat
in ``press_inject_seat`` (the rig's actuator); ``probe_arm_seq`` ← new value arms the actuator to
press at ``probe_offsets_us`` after the next lock-out command reaches the device. Every answer
goes to the per-seat registers and to the press log ring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pymodbus.constants import ExcCodes

from devices.contracts import PressAnswer
from devices.wagering import WageringParams, WageringSim
from firmware_stubs.modbus import ModelClock, RegisterImage
from hil.wire.registers import RegisterMap

LOG_SIZE = 16


class WageringGlue:
    def __init__(self, clock: ModelClock, params: WageringParams, rng: np.random.Generator, rmap: RegisterMap,
                 truth_sink: Callable[[dict[str, float]], None] | None = None) -> None:
        self.clock = clock
        self.seats_in_map = rmap.point("seat_press_count").count
        self.log_size = rmap.point("press_log_id").count
        self.lockout_ns = 0
        self.betting_open = False
        self.answers: list[PressAnswer] = []  # not yet written to the image
        #: ground truth per lock-out (command time and latency, device clock) — never on the wire
        self.truth_sink = truth_sink or (lambda _t: None)
        self.model = WageringSim(clock.env, params, rng, self._telemetry)

    # ------------------------------------------------------------- model → image
    def _telemetry(self, _device: str, kind: str, payload: dict[str, Any]) -> None:
        if kind == "lockout_command":
            self.lockout_ns = self.clock.ns(payload["device_time_s"])
        elif kind == "press":
            self.answers.append(PressAnswer(**payload))

    def show_button_stakes(self, image: RegisterImage, stake_cents: int) -> None:
        """``seat_button_stake_cents``, where the map has it: each seat's physical-button stake (the
        model's ``button_stake_cents``; 0 for array slots past the seats)."""
        if image.map.has("seat_button_stake_cents"):
            n = image.map.point("seat_button_stake_cents").count
            seats = min(self.model.params.seats, n)
            image.set("seat_button_stake_cents", [stake_cents] * seats + [0] * (n - seats))

    def refresh(self, image: RegisterImage) -> None:
        self.show_button_stakes(image, self.model.params.button_stake_cents)
        image.set("seats", self.model.params.seats)
        image.set("device_clock_ns", self.clock.ns())
        image.set("lockout_command_ns", self.lockout_ns)
        image.set("betting_open", self.betting_open)
        image.set("lockout", self.lockout_ns > 0)
        if not self.answers:
            return
        counts = image.get("seat_press_count")
        status, reason = image.get("seat_last_status"), image.get("seat_last_reason")
        spot, stake = image.get("seat_last_spot"), image.get("seat_last_stake_cents")
        press_ns, answer_ns = image.get("seat_last_press_ns"), image.get("seat_last_answer_ns")
        log = {name: image.get(f"press_log_{name}") for name in
               ("id", "seat", "spot", "stake_cents", "status", "reason", "press_ns", "answer_ns")}
        total = image.get("press_count")
        for a in self.answers:
            total += 1
            verdict = "accepted" if a.accepted else "rejected"
            entry = dict(id=a.press_id, seat=a.seat, spot=a.spot, stake_cents=min(a.stake_cents, 2**32 - 1),
                         status=verdict, reason=a.reason or "none", press_ns=self.clock.ns(a.device_time_s),
                         answer_ns=self.clock.ns(a.answer_time_s))
            i = (a.press_id - 1) % self.log_size
            for name, value in entry.items():
                log[name][i] = value
            if 1 <= a.seat <= self.seats_in_map:
                s = a.seat - 1
                counts[s] = (counts[s] + 1) & 0xFFFF
                status[s], reason[s], spot[s] = verdict, entry["reason"], a.spot
                stake[s], press_ns[s], answer_ns[s] = entry["stake_cents"], entry["press_ns"], entry["answer_ns"]
        self.answers.clear()
        image.set("press_count", total)
        for name, values in (("seat_press_count", counts), ("seat_last_status", status),
                             ("seat_last_reason", reason), ("seat_last_spot", spot),
                             ("seat_last_stake_cents", stake), ("seat_last_press_ns", press_ns),
                             ("seat_last_answer_ns", answer_ns)):
            image.set(name, values)
        for name, values in log.items():
            image.set(f"press_log_{name}", values)

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        if name == "betting_open" and value:
            self.betting_open = True
            self.lockout_ns = 0
            self.model.open_betting()
        elif name == "lockout" and value and self.lockout_ns == 0:
            self.model.lock_out()
            self.betting_open = False
            self.truth_sink({"command_ns": self.lockout_ns, "latency_s": self.model.lockout_latency_s,
                             "ignored": self.model.params.lockout_ignored})
        elif name == "press_inject_seq":
            self.model.press(image.get("press_inject_seat"), image.get("press_inject_spot"),
                             image.get("press_inject_stake_cents"))
        elif name == "probe_arm_seq":
            count = image.get("probe_count")
            offsets = image.get("probe_offsets_us")
            if not 0 <= count <= len(offsets):
                return ExcCodes.ILLEGAL_VALUE
            self.model.arm_probe(image.get("probe_seat"), image.get("probe_spot"), image.get("probe_stake_cents"),
                                 [us * 1e-6 for us in offsets[:count]])
        return None
