"""The rig's actuator as a Modbus DO / relay module (implements ``devices.contracts.Actuator``;
docs/wire/actuator.md, "Modbus DO module").

A press of seat *s*'s button for spot *k*: FC5 coil ← ON, held ``pulse_s``, FC5 coil ← OFF, on the
I/O thread. The closing is bracketed where the bytes move: from the request leaving (the packet
hook's stamp, never before the call) to the answer arriving, widened by the declared
``contact_delay_s`` ± ``contact_jitter_s`` — the ``actuation`` event's ``closed_lo_s`` /
``closed_hi_s`` in the rig's simulated time. Presses of one coil never overlap
(``devices.actuator.CoilScheduler``). A write that fails is a ``wire_fault``, and the press an
``actuation`` with ``ok`` False (it pressed nothing). At connect the wired coils are read (FC1)
and every one found closed is opened.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import simpy

from devices.actuator import ActuatorParams, CoilScheduler, Wiring
from devices.contracts import Actuation, Telemetry, payload
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.modbus import ModbusLink, WireError

#: the most coils one FC1 request reads
MAX_BITS = 2000


class ModbusActuator:
    def __init__(self, env: WallClockEnvironment, io: IoLoop, dev: Any, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str = "actuator") -> None:
        self.env, self.io, self.params, self.wiring, self.telemetry, self.name = env, io, params, wiring, telemetry, name
        self.url = dev.url
        self.match_window_s = params.match_window_s
        self.link = ModbusLink(dev.url, dev.unit, dev.timeout_s)
        self._coils = CoilScheduler(params.pulse_s)
        self._id = 0
        self._lock: asyncio.Lock | None = None
        self.faults = 0
        released = self.io.run(self._connect(), timeout_s=10)
        telemetry(name, "device_info", {"kind": "modbus", "url": dev.url, "unit": dev.unit, "coils": wiring.table(),
                                        "pulse_s": params.pulse_s, "contact_delay_s": params.contact_delay_s,
                                        "contact_jitter_s": params.contact_jitter_s,
                                        "match_window_s": params.match_window_s, "released_at_connect": released})

    async def _connect(self) -> list[int]:
        self._lock = asyncio.Lock()
        await self.link.connect()
        coils = sorted(self.wiring.coils.values())
        released = []
        if coils:
            first, last = coils[0], coils[-1]
            state: list[bool] = []
            for start in range(first, last + 1, MAX_BITS):
                bits, _ = await self.link.read("coil", start, min(MAX_BITS, last + 1 - start))
                state += bits
            for c in coils:
                if state[c - first]:
                    await self.link.write("coil", c, [False])
                    released.append(c)
        return released

    # ----------------------------------------------------------- Protocol
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
        async with self._lock:
            t0 = time.perf_counter_ns()
            try:
                rx = await self.link.write("coil", coil, [True])
                tx = max(t0, self.link.tx_ns)
            except WireError as exc:
                self._fault(exc)
                act = Actuation(aid, seat, spot, coil, purpose, 0.0, 0.0, ok=False, detail=str(exc))
                self.env.call_soon_threadsafe(lambda: self._report(act, None, ev))
                return
        lo = self.env.wall_to_sim(tx) + p.contact_delay_s - p.contact_jitter_s
        hi = self.env.wall_to_sim(rx) + p.contact_delay_s + p.contact_jitter_s
        act = Actuation(aid, seat, spot, coil, purpose, lo, hi)
        self.env.call_soon_threadsafe(lambda: self._report(act, hi + p.pulse_s, ev))
        await asyncio.sleep(p.pulse_s / scale)
        async with self._lock:
            try:
                await self.link.write("coil", coil, [False])
            except WireError as exc:
                self._fault(exc)

    def _fault(self, exc: WireError) -> None:
        self.faults += 1
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_fault",
                                                             {"kind": exc.kind, "detail": exc.detail}))

    def _report(self, act: Actuation, opened_s: float | None, ev: simpy.Event) -> None:
        """In the simulation thread: the actuation's record, then its event."""
        self.telemetry(self.name, "actuation" if act.ok else "actuation_failed",
                       {**payload(act), "uncertainty_s": act.uncertainty_s, "opened_s": opened_s,
                        "match_window_s": self.match_window_s})
        ev.succeed(act)

    def close(self) -> None:
        async def go() -> None:
            self.link.close()
        self.io.run(go(), timeout_s=5)
