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

The reel strips are not on the wire: ``device_info`` declares the strips of § 690.3(b), as the
SimPy model does. Commands are matched to spins as for the wheel (``modbus_money_wheel``): each
acknowledged command is the device's next ``spin_id``. A value the device should never show is a
``wire_fault`` of kind ``bad_value``, recorded once per distinct fault, never a crash.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import TopSlotStop, payload
from hil.adapters.modbus_base import ModbusAdapterBase
from hil.adapters.modbus_money_wheel import BadValue, Snapshot, command_words
from hil.transport.modbus import WireError
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2

#: Points the poller reads every period (one FC4 read with the shipped map).
STATUS = ("state", "spin_id", "spot", "multiplier", "reel1_steps", "reel2_steps", "start_ns", "stop_ns",
          "device_clock_ns")
_UNCLAIMED_MAX = 8


class ModbusTopSlot(ModbusAdapterBase):
    """``TopSlot`` over Modbus; see the module docstring."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._blocks = self.map.read_blocks([n for n in STATUS if n in {p.name for p in self.map.points}])
        self._acked_id = 0
        self._in_flight = 0
        self._pending: dict[int, simpy.Event] = {}
        self._unclaimed: dict[int, TopSlotStop] = {}
        self._shown_id = 0
        self._stopped = True
        self._last_bad: str | None = None
        self._device_fault = False
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
        self.telemetry(self.name, "device_info", {"reel1": list(self.reel1), "reel2": list(self.reel2), **info})

    async def _read_baseline(self) -> tuple[Snapshot, int]:
        await self.cmd.connect()
        status = await self._read_status(self.cmd)
        s = self.map.point("command_seq")
        words, _ = await self.cmd.read(s.table, s.address, s.span)
        return status, self.map.decode(s, words)

    # ----------------------------------------------------------- Protocol (simulation thread)
    def spin(self) -> simpy.Event:
        """Commanded now (together with the wheel); succeeds with ``TopSlotStop``."""
        done = self.env.event()
        self._seq = (self._seq + 1) & 0xFFFF
        self.submit(self._command(command_words(self.map, "spin", self._seq), done))
        return done

    # ----------------------------------------------------------- I/O thread
    async def _command(self, writes: list[tuple[str, int, list[int]]], done: simpy.Event) -> None:
        self._in_flight += 1
        try:
            for table, address, words in writes:
                await self.cmd.write(table, address, words)
        except BaseException:
            self._in_flight -= 1
            raise  # recorded as a wire_fault by ``submit``; ``done`` never triggers
        self._in_flight -= 1
        self._acked_id += 1
        spin_id = self._acked_id
        if (stop := self._unclaimed.pop(spin_id, None)) is not None:
            self.env.call_soon_threadsafe(lambda: done.triggered or done.succeed(stop))
        else:
            self._pending[spin_id] = done

    async def _read_status(self, link) -> Snapshot:
        snap = Snapshot(self.map)
        for b in self._blocks:
            words, _ = await link.read(b.table, b.start, b.count)
            snap.add(b.points, b.start, words)
        return snap

    async def poll(self) -> None:
        snap = await self._read_status(self.poller)
        out: list[tuple[str, dict[str, Any]]] = []
        resolve: list[tuple[simpy.Event, TopSlotStop]] = []
        bad: str | None = None
        try:
            await self._track(snap, out, resolve)
        except BadValue as exc:
            bad = str(exc)
        except WireError:
            raise  # the base records it and reconnects; what was seen so far is delivered below
        except Exception as exc:  # a bug here must not stop the poller silently: record it
            bad = f"{type(exc).__name__}: {exc}"
        finally:
            if bad is not None and bad != self._last_bad:
                self.faults += 1
                out.append(("wire_fault", {"kind": "bad_value", "detail": bad}))
            self._last_bad = bad
            if out or resolve:
                self.env.call_soon_threadsafe(lambda: self._deliver(out, resolve))

    def _deliver(self, out: list[tuple[str, dict[str, Any]]], resolve: list[tuple[simpy.Event, TopSlotStop]]) -> None:
        """In the simulation thread, in the order the poller saw things happen."""
        for kind, data in out:
            self.telemetry(self.name, kind, data)
        for ev, stop in resolve:
            if not ev.triggered:
                ev.succeed(stop)

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
        if (ev := self._pending.pop(spin_id, None)) is not None:
            resolve.append((ev, stop))
        elif spin_id > self._acked_id:  # its command's answer is still on its way
            self._unclaimed[spin_id] = stop
            while len(self._unclaimed) > _UNCLAIMED_MAX:
                del self._unclaimed[min(self._unclaimed)]
        for old in [i for i in self._pending if i < spin_id]:  # older spins the registers never showed
            del self._pending[old]
