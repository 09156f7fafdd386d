"""What every Modbus adapter shares: its links, the device-clock mapping, and wire-fault records.

An adapter implements a device's Protocol (``devices.contracts``) inside the rig's
``WallClockEnvironment``: commands go out on the ``IoLoop`` thread; what comes back is posted
into the simulation with ``env.call_soon_threadsafe`` and becomes the same telemetry a SimPy
model emits, so the controller and the checks cannot tell them apart.

Device clocks: every ``*_ns`` register is on the device's own clock. At connect the adapter reads
``device_clock_ns`` several times and keeps the sample with the shortest round trip: the device
read its clock between our request leaving and the response arriving (both stamped where the
bytes moved), so ``offset = device − midpoint`` with an uncertainty of half that round trip.
Device timestamps are then reported in the rig's simulated time (``device_time_s``), so events
of different devices compare directly; the offset and its uncertainty go into ``device_info``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from devices.contracts import Telemetry
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.modbus import ModbusLink, WireError
from hil.wire.registers import RegisterMap

CLOCK_SAMPLES = 16


@dataclass(frozen=True)
class ClockMap:
    """device ns ↔ rig simulated seconds."""

    offset_s: float  # device seconds − rig simulated seconds
    uncertainty_s: float  # half the best round trip, in simulated seconds
    rtt_min_us: float  # wall

    def to_sim(self, device_ns: int) -> float:
        return device_ns * 1e-9 - self.offset_s


class ModbusAdapterBase:
    """Links (one for commands, one for polling, so a poll never delays a command), the clock
    map and the wire-fault telemetry of one Modbus device."""

    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, unit: int, rmap: RegisterMap,
                 telemetry: Telemetry, name: str, timeout_s: float, poll_period_s: float) -> None:
        self.env, self.io, self.map, self.telemetry, self.name = env, io, rmap, telemetry, name
        self.url, self.poll_period_s = url, poll_period_s
        self.cmd = ModbusLink(url, unit, timeout_s)
        # Over TCP a second connection polls, so a poll never delays a command. A serial line has
        # one master and pymodbus locks the port: over RTU commands and polls share the link.
        self.poller = self.cmd if self.cmd.url.scheme == "rtu" else ModbusLink(url, unit, timeout_s)
        self.faults = 0
        self.clock: ClockMap | None = None
        self._poll_task: asyncio.Task | None = None
        self._stopping = False

    # ----------------------------------------------------------- on the I/O thread
    async def _connect(self) -> ClockMap:
        if not self.cmd.connected:
            await self.cmd.connect()
        if not self.poller.connected:
            await self.poller.connect()
        p = self.map.point("device_clock_ns")
        best = None
        for _ in range(CLOCK_SAMPLES):
            words, rx = await self.cmd.read(p.table, p.address, p.span)
            tx = self.cmd.tx_ns
            mid_sim = self.env.wall_to_sim((tx + rx) // 2)
            rtt_ns = rx - tx
            device_s = int(self.map.decode(p, words)) * 1e-9
            if best is None or rtt_ns < best[0]:
                best = (rtt_ns, device_s - mid_sim)
        rtt_ns, offset = best
        half = rtt_ns / 2 * 1e-9 * self.env.time_scale
        return ClockMap(offset, half, rtt_ns / 1e3)

    def fault(self, kind: str, detail: str) -> None:
        """A wire fault, recorded in the trace from the simulation thread."""
        self.faults += 1
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_fault", {"kind": kind, "detail": detail}))

    async def _reconnect(self, link: ModbusLink) -> None:
        """Back off and reconnect until the device answers again (recording each failure)."""
        delay = 0.05
        while not self._stopping:
            await asyncio.sleep(delay)
            try:
                await link.connect()
                self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_reconnected", {"url": self.url}))
                return
            except WireError as exc:
                self.fault(exc.kind, exc.detail)
                delay = min(delay * 2, 2.0)

    async def _poll_forever(self) -> None:
        # A stop flag as well as cancellation: pymodbus may turn a cancelled request into an
        # I/O error, which this loop would otherwise record and carry on from.
        while not self._stopping:
            try:
                await self.poll()
            except WireError as exc:
                if self._stopping:
                    return
                self.fault(exc.kind, exc.detail)
                if exc.kind != "exception_response" and not self.poller.connected:
                    await self._reconnect(self.poller)
            except (ValueError, KeyError, TypeError) as exc:  # a value the map cannot decode
                self.fault("bad_value", f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(self.poll_period_s)

    async def poll(self) -> None:
        raise NotImplementedError

    async def _start_polling(self) -> None:
        self._poll_task = asyncio.get_running_loop().create_task(self._poll_forever())

    async def _close(self) -> None:
        self._stopping = True
        if self._poll_task is not None:
            self._poll_task.cancel()
            await asyncio.wait([self._poll_task], timeout=2)
        self.cmd.close()
        if self.poller is not self.cmd:
            self.poller.close()

    # ----------------------------------------------------------- from the simulation thread
    def start(self) -> dict[str, Any]:
        """Connect, map the device clock, start polling; returns the device_info fields."""
        self.clock = self.io.run(self._connect(), timeout_s=10)
        self.io.run(self._start_polling(), timeout_s=5)
        return {"url": self.url, "clock_offset_s": self.clock.offset_s,
                "clock_uncertainty_s": self.clock.uncertainty_s, "rtt_min_us": self.clock.rtt_min_us}

    def close(self) -> None:
        self.io.run(self._close(), timeout_s=5)

    def submit(self, coro) -> None:
        """Run a command on the I/O thread; a wire error becomes a recorded fault."""
        async def guarded() -> None:
            try:
                await coro
            except WireError as exc:
                if self._stopping:
                    return
                self.fault(exc.kind, exc.detail)
                if not self.cmd.connected:
                    await self._reconnect(self.cmd)
            except (ValueError, KeyError, TypeError) as exc:
                self.fault("bad_value", f"{type(exc).__name__}: {exc}")
        self.io.submit(guarded())
