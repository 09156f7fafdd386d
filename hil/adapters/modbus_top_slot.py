"""The Top Slot over Modbus (implements ``devices.contracts.TopSlot``).

Wire (docs/wire/modbus-top-slot.md): ``spin`` writes ``command`` = ``spin`` + ``command_seq`` in
one FC16 request; the poller reads the status block (one FC4 read with the shipped map) every
``poll_period_s`` and turns what changed into the telemetry ``TopSlotSim`` emits, in order, with
device times mapped to the rig's simulated time (``ClockMap``):

* a new ``spin_id`` shown ``spinning`` → ``top_slot_start`` (``device_time_s`` from ``start_ns``).
  A new id first seen already at rest (the whole spin fell between two polls, e.g. while the
  link reconnected) still gets its ``top_slot_start``, from the result's ``start_ns``, marked
  ``from_rest_report: true``: the Top Slot has no telemetry loss of its own, so a missing start
  would be the rig's gap, not the device's;
* ``at_rest`` for the spin shown → ``aligned`` is read *after* seeing it (it is set with the
  result), then ``top_slot_stop`` with the ``TopSlotStop`` fields; the spin's event succeeds.

The reel strips are not on the wire: ``device_info`` declares the strips of § 690.3(b) and says
so (``reels_declared: false``, as the serial adapter does), so CT-690.3-top-slot takes no evidence
from them; the stops it judges are the device's. Commands are matched to spins as for the wheel (``modbus_money_wheel``): each
acknowledged command is the device's next ``spin_id``. A value the device should never show is a
``wire_fault`` of kind ``bad_value``, recorded once per distinct fault, never a crash.
"""

from __future__ import annotations


import simpy

from devices.contracts import TopSlotStop, payload
from hil.adapters.modbus_spin import BadValue, CommandedSpinAdapter, Snapshot
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2

#: Points the poller reads every period (one FC4 read with the shipped map).
STATUS = ("state", "spin_id", "spot", "multiplier", "reel1_steps", "reel2_steps", "start_ns", "stop_ns",
          "device_clock_ns")


class ModbusTopSlot(CommandedSpinAdapter):
    """``TopSlot`` over Modbus; see the module docstring."""

    STATUS = STATUS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        try:
            status, seq = self.io.run(self._read_baseline(), timeout_s=10)
            self._seq = int(seq)
            self._shown_id = self._acked_id = int(status["spin_id"])
            self._stopped = status["state"] != "spinning"
            info = self.start()
        except BaseException:
            self.close()
            raise
        self.reel1 = tuple(str(s) for s in TOP_SLOT_REEL1)
        self.reel2 = tuple(TOP_SLOT_REEL2)
        # the wire carries no strips: the regulation's are declared, and said to be no evidence
        self.telemetry(self.name, "device_info", {"reel1": list(self.reel1), "reel2": list(self.reel2),
                                                  "reels_declared": False, **info})

    async def _read_baseline(self) -> tuple[Snapshot, int]:
        await self.cmd.connect()
        status = await self._read_status(self.cmd)
        s = self.map.point("command_seq")
        words, _ = await self.cmd.read(s.table, s.address, s.span)
        return status, self.map.decode(s, words)

    # ----------------------------------------------------------- Protocol (simulation thread)
    def spin(self) -> simpy.Event:
        """Commanded now (together with the wheel); succeeds with ``TopSlotStop``."""
        return self._issue("spin")

    # ----------------------------------------------------------- I/O thread
    async def _track(self, snap: Snapshot, out: list, resolve: list) -> None:
        state, spin_id = snap["state"], int(snap["spin_id"])
        if state == "fault":
            if not self._device_fault:
                out.append(("wire_fault", {"kind": "device_fault",
                                           "detail": f"the Top Slot reports state fault (spin {spin_id})"}))
            self._device_fault = True
        else:
            self._device_fault = False
        if spin_id != self._shown_id:
            self._shown_id, self._stopped = spin_id, state not in ("spinning", "at_rest")
            if spin_id > self._acked_id and not self._in_flight:
                self._acked_id = spin_id  # a spin we did not command (or whose answer was lost)
            if state in ("spinning", "at_rest"):
                start = {"spin_id": spin_id, "device_time_s": self.clock.to_sim(int(snap["start_ns"]))}
                if state == "at_rest":
                    start["from_rest_report"] = True
                out.append(("top_slot_start", start))
        if self._stopped or state != "at_rest":
            return
        p = self.map.point("aligned")
        words, _ = await self.poller.read(p.table, p.address, p.span)  # after seeing at_rest
        self._stopped = True  # whatever the result holds, it is judged once
        aligned = bool(self.map.decode(p, words[:p.span]))
        start_ns, stop_ns = int(snap["start_ns"]), int(snap["stop_ns"])
        if stop_ns < start_ns:
            raise BadValue(f"Top Slot spin {spin_id} stopped (stop_ns {stop_ns}) before it started ({start_ns})")
        stop = TopSlotStop(
            spin_id=spin_id,
            spot=str(snap["spot"]),
            multiplier=int(snap["multiplier"]),
            aligned=aligned,
            reel1_steps=int(snap["reel1_steps"]),
            reel2_steps=int(snap["reel2_steps"]),
            start_time_s=self.clock.to_sim(start_ns),
            stop_time_s=self.clock.to_sim(stop_ns),
        )
        out.append(("top_slot_stop", payload(stop)))
        self._rested(spin_id, stop, resolve)
