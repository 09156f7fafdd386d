"""The money wheel over Modbus (implements ``devices.contracts.MoneyWheel``).

Wire (docs/wire/modbus-money-wheel.md): ``spin`` writes ``command`` + ``command_seq`` in one
FC16 request; the poller reads the status block (one FC4 read with the shipped map) every
``poll_period_s`` and turns what changed into the telemetry ``MoneyWheelSim`` emits, in the
order it happened, with device times mapped to the rig's simulated time (``ClockMap``):

* a new ``spin_id`` shown ``spinning`` → ``spin_start`` (none when ``spin_start_ns`` is 0: the
  wheel never reported the start — as a lost ``spin_start`` message in simulation);
* each step of ``revolution_count`` → one ``index_pulse``. Several steps between two polls give
  one event per count, each stamped with the latest ``last_pulse_ns`` and ``coalesced: true``
  (the check of § 690.2(b) counts pulses; their times are then only an upper bound);
* ``at_rest`` for the spin shown → ``on_peg`` is read *after* seeing it (the wheel sets it with
  the rest report; a read before could hold the cleared flag of the spin in progress), then
  ``spin_stop`` with the ``SpinStop`` fields, and the spin's event succeeds.

Which event a rest report resolves: the device's ``spin_id`` "increments with each accepted spin
command", so each acknowledged command is the next id after the last one the adapter knows of.
A refused command (exception response, e.g. DEVICE_BUSY while the wheel turns) is a
``wire_fault`` and its event never triggers: the controller times out and voids the spin. A spin
the wheel reports but nobody here commanded (a manual push, a command whose answer was lost)
moves the count on, so the next command is matched again. A spin whose telemetry the wheel lost
(``telemetry_dropout``) leaves its event untriggered, as in simulation.

A value the device should never show (an enum code outside the map, a section index past the
layout, a counter running backwards) is a ``wire_fault`` of kind ``bad_value`` — recorded once
per distinct fault, never a crash of the poller.
"""

from __future__ import annotations


import simpy

from devices.contracts import Direction, SpinStop, WheelInfo, payload
from hil.adapters.modbus_spin import BadValue, CommandedSpinAdapter, Snapshot
from hil.transport.modbus import WireError

_DIRECTIONS: dict[str, str] = {"cw": "spin_cw", "ccw": "spin_ccw"}
#: Points the poller reads every period (one FC4 read with the shipped map).
STATUS = ("state", "spin_id", "revolution_count", "peg_count", "section_index", "direction", "revolutions",
          "pegs_passed", "duration_us", "spin_start_ns", "last_pulse_ns", "stop_ns", "device_clock_ns")
LAYOUT = ("diameter_mm", "section_count", "sections")


class ModbusMoneyWheel(CommandedSpinAdapter):
    """``MoneyWheel`` over Modbus; see the module docstring."""

    STATUS = STATUS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rev = 0
        try:
            layout, status, seq = self.io.run(self._read_baseline(), timeout_s=10)
            self._info = self._wheel_info(layout)
            self._seq = int(seq)
            self._shown_id = self._acked_id = int(status["spin_id"])
            self._rev = int(status["revolution_count"])
            # A spin in progress at connect is reported from its pulses and its stop (its start
            # was before the rig was there); an id at rest was reported before.
            self._stopped = status["state"] != "spinning"
            info = self.start()
        except BaseException:
            self.close()
            raise
        self.telemetry(self.name, "device_info", {**payload(self._info), **info})

    # ----------------------------------------------------------- set-up (I/O thread)
    async def _read_baseline(self) -> tuple[Snapshot, Snapshot, int]:
        await self.cmd.connect()
        layout = Snapshot(self.map)
        for b in self.map.read_blocks(list(LAYOUT)):
            words, _ = await self.cmd.read(b.table, b.start, b.count)
            layout.add(b.points, b.start, words)
        status = await self._read_status(self.cmd)
        s = self.map.point("command_seq")
        words, _ = await self.cmd.read(s.table, s.address, s.span)
        return layout, status, self.map.decode(s, words)

    def _wheel_info(self, layout: Snapshot) -> WheelInfo:
        """The declared layout; one the rig cannot use fails the bench at once (first error kept)."""
        try:
            count = int(layout["section_count"])
            p = self.map.point("sections")
            if not 1 <= count <= p.count:
                raise BadValue(f"section_count {count} is outside 1..{p.count}")
            sections = tuple(str(x) for x in layout.elements("sections", count))
            diameter_m = int(layout["diameter_mm"]) / 1000
        except BadValue as exc:
            self.telemetry(self.name, "wire_fault", {"kind": "bad_value", "detail": f"layout: {exc}"})
            raise WireError("bad_value", f"{self.name}: the wheel's layout: {exc}") from None
        return WheelInfo(model=self.map.name, sections=sections, diameter_m=diameter_m, pegs=count)

    # ----------------------------------------------------------- Protocol (simulation thread)
    def info(self) -> WheelInfo:
        return self._info

    def spin(self, direction: Direction) -> simpy.Event:
        """The dealer pushes the wheel now; the event succeeds with ``SpinStop`` at rest."""
        if direction not in _DIRECTIONS:
            raise ValueError(f"direction must be 'cw' or 'ccw', not {direction!r}")
        return self._issue(_DIRECTIONS[direction])

    # ----------------------------------------------------------- I/O thread
    async def _track(self, snap: Snapshot, out: list, resolve: list) -> None:
        state, spin_id = snap["state"], int(snap["spin_id"])
        if state == "fault":
            if not self._device_fault:
                out.append(("wire_fault", {"kind": "device_fault", "detail": f"the wheel reports state fault "
                                           f"(spin {spin_id})"}))
            self._device_fault = True
        else:
            self._device_fault = False
        if spin_id != self._shown_id:
            self._shown_id, self._rev, self._stopped = spin_id, 0, state not in ("spinning", "at_rest")
            if spin_id > self._acked_id and not self._in_flight:
                self._acked_id = spin_id  # a spin we did not command (or whose answer was lost)
            if state == "spinning" and int(snap["spin_start_ns"]) == 0:
                pass  # the wheel turns but never reported its start (0 = not reported): no spin_start
            elif state == "spinning":
                direction = snap["direction"]
                if direction not in _DIRECTIONS:
                    raise BadValue(f"direction {direction!r} while spin {spin_id} is spinning")
                out.append(("spin_start", {"spin_id": spin_id, "direction": direction,
                                           "device_time_s": self.clock.to_sim(int(snap["spin_start_ns"]))}))
        if self._stopped:
            return
        count = int(snap["revolution_count"])
        if count < self._rev:
            raise BadValue(f"revolution_count went back from {self._rev} to {count} in spin {spin_id}")
        if count > self._rev:
            t = self.clock.to_sim(int(snap["last_pulse_ns"]))
            coalesced = count - self._rev > 1
            for c in range(self._rev + 1, count + 1):
                pulse = {"spin_id": spin_id, "count": c, "device_time_s": t}
                if coalesced:
                    pulse["coalesced"] = True
                out.append(("index_pulse", pulse))
            self._rev = count
        if state != "at_rest":
            return
        p = self.map.point("on_peg")
        words, _ = await self.poller.read(p.table, p.address, p.span)  # after seeing at_rest
        self._stopped = True  # whatever the report holds, it is judged once
        on_peg = bool(self.map.decode(p, words[:p.span]))
        stop = self._rest_report(snap, spin_id, on_peg)
        out.append(("spin_stop", payload(stop)))
        self._rested(spin_id, stop, resolve)

    def _rest_report(self, snap: Snapshot, spin_id: int, on_peg: bool) -> SpinStop:
        section = int(snap["section_index"])
        if not 0 <= section < len(self._info.sections):
            raise BadValue(f"section_index {section} of spin {spin_id} is outside the "
                           f"{len(self._info.sections)} sections")
        direction = snap["direction"]
        if direction not in _DIRECTIONS:
            raise BadValue(f"direction {direction!r} in the rest report of spin {spin_id}")
        start_ns, stop_ns = int(snap["spin_start_ns"]), int(snap["stop_ns"])
        if stop_ns < start_ns:
            raise BadValue(f"spin {spin_id} stopped (stop_ns {stop_ns}) before it started ({start_ns})")
        return SpinStop(
            spin_id=spin_id,
            section_index=section,
            spot=self._info.sections[section],
            on_peg=on_peg,
            revolutions=float(snap["revolutions"]),
            direction=direction,
            duration_s=int(snap["duration_us"]) * 1e-6,
            pegs_passed=int(snap["pegs_passed"]),
            start_time_s=self.clock.to_sim(start_ns),
            stop_time_s=self.clock.to_sim(stop_ns),
        )
