"""What the rig's relay-module actuators share (``hil.adapters.actuator_modbus``,
``hil.adapters.actuator_serial``; docs/wire/actuator.md): the ``devices.contracts.Actuator``
Protocol, a press's timing and its records.

A press of a wired button: its output ON, held ``pulse_s``, OFF, on the I/O thread (presses of one
output never overlap: ``devices.actuator.CoilScheduler``). The closing is bracketed from just before
the ON request leaves to its answer arriving (wall ns, mapped into the rig's simulated time), widened
by the declared ``contact_delay_s`` ± ``contact_jitter_s``: the ``actuation`` event's ``closed_lo_s``
/ ``closed_hi_s``. An ON that fails is a ``wire_fault`` and an ``actuation_failed`` (it pressed
nothing). A subclass switches one output (``_switch``) and names its errors (``switch_errors``,
``_fault_fields``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import simpy

from devices.actuator import ActuatorParams, CoilScheduler, Wiring
from devices.contracts import Actuation, Telemetry, payload
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop


class RelayActuator:
    #: the exceptions a failed switch raises (a wire fault, never a crash)
    switch_errors: tuple[type[BaseException], ...] = ()

    def __init__(self, env: WallClockEnvironment, io: IoLoop, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str) -> None:
        self.env, self.io, self.params, self.wiring, self.telemetry, self.name = env, io, params, wiring, telemetry, name
        self.match_window_s = params.match_window_s
        self._coils = CoilScheduler(params.pulse_s)
        self._id = 0
        self.faults = 0

    async def _switch(self, coil: int, on: bool) -> tuple[int, int]:
        """Set output ``coil``; (``perf_counter_ns`` just before the request left, when its answer
        arrived). Raises one of ``switch_errors``."""
        raise NotImplementedError

    def _fault_fields(self, exc: BaseException) -> dict[str, Any]:
        raise NotImplementedError

    def _device_info(self, **fields: Any) -> None:
        p = self.params
        self.telemetry(self.name, "device_info", {**fields, "coils": self.wiring.table(), "pulse_s": p.pulse_s,
                                                  "contact_delay_s": p.contact_delay_s,
                                                  "contact_jitter_s": p.contact_jitter_s,
                                                  "match_window_s": p.match_window_s})

    # ----------------------------------------------------------- Protocol (simulation thread)
    def wired(self, seat: int, spot: str) -> bool:
        return self.wiring.coil(seat, spot) is not None

    def press(self, seat: int, spot: str, purpose: str = "player") -> simpy.Event:
        coil = self.wiring.coil(seat, spot)
        if coil is None:
            raise ValueError(f"seat {seat}'s {spot!r} button is not wired to the actuator")
        self._id += 1
        ev = self.env.event()
        wait_s = self._coils.start(coil, self.env.now) - self.env.now
        self.io.submit(self._press(self._id, seat, str(spot), coil, purpose, wait_s, ev))
        return ev

    # ----------------------------------------------------------- I/O thread
    async def _press(self, aid: int, seat: int, spot: str, coil: int, purpose: str, wait_s: float,
                     ev: simpy.Event) -> None:
        p, scale = self.params, self.env.time_scale
        if wait_s > 0:
            await asyncio.sleep(wait_s / scale)
        try:
            tx, rx = await self._switch(coil, True)
        except self.switch_errors as exc:
            self._fault(exc)
            act = Actuation(aid, seat, spot, coil, purpose, 0.0, 0.0, ok=False, detail=str(exc))
            self.env.call_soon_threadsafe(lambda: self._report(act, None, ev))
            return
        lo = self.env.wall_to_sim(tx) + p.contact_delay_s - p.contact_jitter_s
        hi = self.env.wall_to_sim(rx) + p.contact_delay_s + p.contact_jitter_s
        act = Actuation(aid, seat, spot, coil, purpose, lo, hi)
        self.env.call_soon_threadsafe(lambda: self._report(act, hi + p.pulse_s, ev))
        await asyncio.sleep(p.pulse_s / scale)
        try:
            await self._switch(coil, False)
        except self.switch_errors as exc:
            self._fault(exc)

    def _fault(self, exc: BaseException) -> None:
        self.faults += 1
        fields = self._fault_fields(exc)
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_fault", fields))

    def _report(self, act: Actuation, opened_s: float | None, ev: simpy.Event) -> None:
        """In the simulation thread: the actuation's record, then its event."""
        self.telemetry(self.name, "actuation" if act.ok else "actuation_failed",
                       {**payload(act), "uncertainty_s": act.uncertainty_s, "opened_s": opened_s,
                        "match_window_s": self.match_window_s})
        ev.succeed(act)
