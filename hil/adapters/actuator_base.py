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

from devices.actuator import ActuatorBase, ActuatorParams, Wiring
from devices.contracts import Actuation, Telemetry, payload
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop


class RelayActuator(ActuatorBase):
    #: the exceptions a failed switch raises (a wire fault, never a crash)
    switch_errors: tuple[type[BaseException], ...] = ()

    def __init__(self, env: WallClockEnvironment, io: IoLoop, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str) -> None:
        super().__init__(params, wiring, telemetry, name)
        self.env, self.io = env, io
        self.faults = 0

    async def _switch(self, coil: int, on: bool) -> tuple[int, int]:
        """Set output ``coil``; (``perf_counter_ns`` just before the request left, when its answer
        arrived). Raises one of ``switch_errors``."""
        raise NotImplementedError

    def _fault_fields(self, exc: BaseException) -> dict[str, Any]:
        raise NotImplementedError

    # ----------------------------------------------------------- Protocol (simulation thread)
    def press(self, seat: int, spot: str, purpose: str = "player") -> simpy.Event:
        coil = self._coil(seat, spot)
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
