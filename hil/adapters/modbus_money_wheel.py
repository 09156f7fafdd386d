"""The money wheel over Modbus (implements ``devices.contracts.MoneyWheel``).

Wire (docs/wire/modbus-money-wheel.md): ``spin`` writes ``command`` + ``command_seq`` in one
FC16 request; the poller reads the status block (one FC4 read with the shipped map) every
``poll_period_s`` and turns what changed into the telemetry ``MoneyWheelSim`` emits, in the
order it happened, with device times mapped to the rig's simulated time (``ClockMap``):

* a new ``spin_id`` shown ``spinning`` → ``spin_start``;
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

from typing import Any

import simpy

from devices.contracts import Direction, SpinStop, WheelInfo, payload
from hil.adapters.modbus_base import ModbusAdapterBase
from hil.transport.modbus import WireError
from hil.wire.registers import RegisterMap

_DIRECTIONS: dict[str, str] = {"cw": "spin_cw", "ccw": "spin_ccw"}
#: Points the poller reads every period (one FC4 read with the shipped map).
STATUS = ("state", "spin_id", "revolution_count", "peg_count", "section_index", "direction", "revolutions",
          "pegs_passed", "duration_us", "spin_start_ns", "last_pulse_ns", "stop_ns", "device_clock_ns")
LAYOUT = ("diameter_mm", "section_count", "sections")
#: Rest reports kept for a spin whose command acknowledgement has not been processed yet.
_UNCLAIMED_MAX = 8


class BadValue(ValueError):
    """A value the device should never show."""


class Snapshot:
    """One poll's values, decoded point by point: a bad point spoils only what needs it."""

    def __init__(self, rmap: RegisterMap) -> None:
        self.map = rmap
        self.values: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.words: dict[str, list] = {}

    def add(self, names: tuple[str, ...] | list[str], start: int, words: list) -> None:
        for name in names:
            p = self.map.point(name)
            self.words[name] = w = list(words[p.address - start:p.end - start])
            try:
                self.values[name] = self.map.decode(p, w)
            except ValueError as exc:
                self.errors[name] = str(exc)

    def __getitem__(self, name: str) -> Any:
        if name in self.errors:
            raise BadValue(self.errors[name])
        return self.values[name]

    def elements(self, name: str, n: int) -> list[Any]:
        """The first ``n`` elements of an array point, each decoded on its own (the rest of the
        array may hold anything)."""
        p = self.map.point(name)
        width = self.map.width(p)
        one = p.model_copy(update={"count": 1})
        out = []
        for i in range(n):
            try:
                out.append(self.map.decode(one, self.words[name][i * width:(i + 1) * width]))
            except ValueError as exc:
                raise BadValue(f"{name}[{i}]: {exc}") from None
        return out


def command_words(rmap: RegisterMap, command: str, seq: int) -> list[tuple[str, int, list[int]]]:
    """The writes for ``command`` + ``command_seq``: one request when they are adjacent (FC16),
    else two, the command first (the device acts on the change of ``command_seq``)."""
    c, s = rmap.point("command"), rmap.point("command_seq")
    cw, sw = rmap.encode(c, command), rmap.encode(s, seq)
    if c.table == s.table and s.address == c.end:
        return [(c.table, c.address, cw + sw)]
    return [(c.table, c.address, cw), (s.table, s.address, sw)]


class ModbusMoneyWheel(ModbusAdapterBase):
    """``MoneyWheel`` over Modbus; see the module docstring."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._blocks = self.map.read_blocks([n for n in STATUS if n in {p.name for p in self.map.points}])
        # Commands ↔ spins (I/O thread only).
        self._acked_id = 0  # id of the last spin the wheel started (from our commands or seen)
        self._in_flight = 0  # command writes sent, not yet answered
        self._pending: dict[int, simpy.Event] = {}
        self._unclaimed: dict[int, SpinStop] = {}
        # What the poller has reported (I/O thread only).
        self._shown_id = 0
        self._rev = 0
        self._stopped = True
        self._last_bad: str | None = None
        self._device_fault = False
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
        done = self.env.event()
        self._seq = (self._seq + 1) & 0xFFFF
        self.submit(self._command(command_words(self.map, _DIRECTIONS[direction], self._seq), done))
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
        resolve: list[tuple[simpy.Event, SpinStop]] = []
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

    def _deliver(self, out: list[tuple[str, dict[str, Any]]], resolve: list[tuple[simpy.Event, SpinStop]]) -> None:
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
                out.append(("wire_fault", {"kind": "device_fault", "detail": f"the wheel reports state fault "
                                           f"(spin {spin_id})"}))
            self._device_fault = True
        else:
            self._device_fault = False
        if spin_id != self._shown_id:
            self._shown_id, self._rev, self._stopped = spin_id, 0, state not in ("spinning", "at_rest")
            if spin_id > self._acked_id and not self._in_flight:
                self._acked_id = spin_id  # a spin we did not command (or whose answer was lost)
            if state == "spinning":
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
        if (ev := self._pending.pop(spin_id, None)) is not None:
            resolve.append((ev, stop))
        elif spin_id > self._acked_id:  # its command's answer is still on its way
            self._unclaimed[spin_id] = stop
            while len(self._unclaimed) > _UNCLAIMED_MAX:
                del self._unclaimed[min(self._unclaimed)]
        for old in [i for i in self._pending if i < spin_id]:  # spins whose rest report was lost
            del self._pending[old]

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
