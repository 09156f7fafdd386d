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

from devices.actuator import ActuatorParams, Wiring
from devices.contracts import Telemetry
from hil.adapters.actuator_base import RelayActuator
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.modbus import ModbusLink, WireError

#: the most coils one FC1 request reads
MAX_BITS = 2000


class ModbusActuator(RelayActuator):
    switch_errors = (WireError,)

    def __init__(self, env: WallClockEnvironment, io: IoLoop, dev: Any, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str = "actuator") -> None:
        super().__init__(env, io, params, wiring, telemetry, name)
        self.url = dev.url
        self.link = ModbusLink(dev.url, dev.unit, dev.timeout_s)
        self._lock: asyncio.Lock | None = None
        released = self.io.run(self._connect(), timeout_s=10)
        self._device_info(kind="modbus", url=dev.url, unit=dev.unit, released_at_connect=released)

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

    # ----------------------------------------------------------- I/O thread
    async def _switch(self, coil: int, on: bool) -> tuple[int, int]:
        """FC5 ``coil`` ← ``on``: from the request leaving (the packet hook's stamp, never before the
        call) to its answer arriving."""
        async with self._lock:
            t0 = time.perf_counter_ns()
            rx = await self.link.write("coil", coil, [on])
            return max(t0, self.link.tx_ns), rx

    def _fault_fields(self, exc: BaseException) -> dict[str, Any]:
        assert isinstance(exc, WireError)
        return {"kind": exc.kind, "detail": exc.detail}

    def close(self) -> None:
        async def go() -> None:
            self.link.close()
        self.io.run(go(), timeout_s=5)
