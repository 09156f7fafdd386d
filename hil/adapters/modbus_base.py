"""What every Modbus adapter shares: its links, the device-clock mapping, and wire-fault records.

An adapter implements a device's Protocol (``devices.contracts``) inside the rig's
``WallClockEnvironment``: commands go out on the ``IoLoop`` thread; what comes back is posted
into the simulation with ``env.call_soon_threadsafe`` and becomes the same telemetry a SimPy
model emits, so the controller and the checks cannot tell them apart.

Device clocks (docs/wire/clock.md): every ``*_ns`` register is on the device's own clock, which
may run fast or slow. At connect the adapter reads ``device_clock_ns`` ``CLOCK_SAMPLES`` times
back to back: the device read its clock between our request leaving and the response arriving
(both stamped where the bytes moved), so ``offset = device − midpoint`` within half that round
trip; the samples' rate must be the rig's (another time scale is refused at once:
``ClockRateMismatch``). From then on every read that carries ``device_clock_ns`` (the status
polls of the shipped maps) is one more round trip, and the poller reads it on its own when none
came for ``CLOCK_READ_PERIOD_S``: a ``hil.clock.ClockEstimator`` fits offset *and* drift over a
sliding window, and ``self.clock`` (a frozen ``ClockMap``, replaced at each refit) maps device
times into the rig's simulated time (``device_time_s``). The estimate is recorded as
``clock_estimate`` telemetry at connect, once per round (``clock_record``, called by the runner),
whenever it moves by more than its uncertainty (``moved``) and whenever the map in use declares
more uncertainty than the last one recorded (``widened``); a drift beyond the bench's
``max_clock_drift_ppm`` is a ``wire_fault`` of kind ``clock_drift``; a clock that jumps (a
device restarted behind a reconnect) restarts the estimate (``reason: step``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

from devices.contracts import Telemetry
from hil.clock import (MAX_DRIFT_PPM, ClockEstimator, ClockMap, ClockSample, WallClockEnvironment,
                       check_rate)
from hil.trace import DECISION
from hil.transport.ioloop import IoLoop
from hil.transport.modbus import ModbusLink, WireError
from hil.wire.registers import RegisterMap

CLOCK_SAMPLES = 16
#: the poller reads ``device_clock_ns`` itself when no read carried it for this long (wall s)
CLOCK_READ_PERIOD_S = 0.1
#: a sample this far (simulated s) outside the map's bound is a clock that jumped, not drift
CLOCK_STEP_S = 0.05
#: ``clock_estimate`` reason: the map in use grew its uncertainty beyond the last recorded one
WIDENED = "widened"
#: a ``widened`` record declares the map's uncertainty this much larger (relative), so the map may
#: grow that much more before the next record (docs/wire/clock.md: a few records a round, not one a refit)
WIDEN_MARGIN = 0.10

__all__ = ["CLOCK_SAMPLES", "WIDEN_MARGIN", "WIDENED", "ClockMap", "DeviceClockTracking", "ModbusAdapterBase"]


class DeviceClockTracking:
    """The clock estimate of one device (Modbus and serial adapters alike): round trips in,
    ``self.clock`` (a frozen ``ClockMap``) out, recorded in the trace (see the module docstring).
    The host class provides ``env``, ``name``, ``telemetry`` and ``fault``."""

    env: WallClockEnvironment
    name: str
    telemetry: Telemetry

    def _init_clock(self, sample_period_s: float) -> None:
        self.clock: ClockMap | None = None
        #: the bench's maximum drift for this device (``hil.clock.max_clock_drift``, set while building)
        self.max_clock_drift_ppm = MAX_DRIFT_PPM.get()
        self.estimator = ClockEstimator(self.max_clock_drift_ppm, sample_period_s=sample_period_s,
                                        time_scale=self.env.time_scale)
        self._last_clock_rx = 0  # wall ns of the latest clock sample
        self._recorded: ClockMap | None = None  # the estimate last recorded in the trace
        self._drift_flagged = False

    def fault(self, kind: str, detail: str) -> None:
        raise NotImplementedError

    def _clock_started(self, samples: list[ClockSample], what: str) -> ClockMap:
        """The connect samples (I/O or simulation thread, before any other sample): refuse another
        time scale, start the estimate."""
        check_rate(samples, what, self.env.time_scale)
        self._last_clock_rx = time.perf_counter_ns()
        self.clock = self._recorded = self.estimator.start(samples)
        return self.clock

    def clock_info(self) -> dict[str, Any]:
        """The estimate's ``device_info`` fields (and ``clock_estimate`` reason ``connect``, recorded now)."""
        self.telemetry(self.name, "clock_estimate", self.clock_payload(self.clock, "connect"))
        return {**self.clock.to_json(), "max_clock_drift_ppm": self.max_clock_drift_ppm}

    # ----------------------------------------------------------- the clock estimate (I/O thread)
    def clock_sample(self, tx_ns: int, rx_ns: int, device_ns: int) -> None:
        """One round trip that read ``device_clock_ns``: refit the map when a bucket closes."""
        if self.clock is None or rx_ns <= tx_ns:
            return  # not connected yet, or ``tx`` is another request's (a shared RTU link)
        self._last_clock_rx = rx_ns
        s = ClockSample.of(self.env, tx_ns, rx_ns, device_ns)
        c = self.clock
        if abs(s.offset_s - c.offset_at(s.mid_s)) > c.uncertainty_s + s.half_s + CLOCK_STEP_S * self.env.time_scale:
            jump = s.offset_s - c.offset_at(s.mid_s)
            self.estimator.reset()
            self._new_map(self.estimator.start([s]), f"step: the device clock jumped {jump:+.6f} s")
            return
        if (m := self.estimator.add(s)) is not None:
            self._new_map(m)

    def _new_map(self, m: ClockMap, reason: str | None = None) -> None:
        """A refit ``m`` (or a restarted estimate: ``reason``). The map in use is kept while it agrees
        with ``m`` (``ClockMap.kept_against``: its uncertainty then grows by the disagreement), so
        that device intervals stay exact and a device time maps to one rig time. The map in use is
        recorded when it moved by more than the recorded uncertainty (``moved``) or has more
        uncertainty than the trace declares (``widened``, declared ``WIDEN_MARGIN`` wider)."""
        if reason is None and self.clock is not None and (kept := self.clock.kept_against(m)) is not None:
            self.clock = kept
        else:
            self.clock = m
        if self.estimator.beyond_max(m):
            if not self._drift_flagged:
                self._drift_flagged = True
                self.fault("clock_drift", f"the device clock drifts {m.drift_ppm:+.1f} ± {m.drift_uncertainty_ppm:.1f} "
                                          f"ppm; the bench allows {self.max_clock_drift_ppm:g} ppm")
        else:
            self._drift_flagged = False
        last, m = self._recorded, self.clock
        if reason is None and last is not None:
            now = self.env.wall_now()
            if abs(m.offset_at(now) - last.offset_at(now)) > last.uncertainty_s:
                reason = "moved"
            elif m.uncertainty_s > last.uncertainty_s:
                # The map in use (kept against this refit, or the prior's before the fit) has more
                # uncertainty than the trace declares: recorded before any stamp it maps is posted (the
                # same queue), declared WIDEN_MARGIN wider (a larger bound is still a bound), so the
                # declarations are never below the map that mapped a stamp (docs/wire/clock.md).
                reason = WIDENED
                m = dataclasses.replace(m, uncertainty_s=m.uncertainty_s * (1 + WIDEN_MARGIN))
            else:
                return
        self._post_estimate(m, reason or "moved")

    def _post_estimate(self, m: ClockMap, reason: str) -> None:
        self._recorded = m
        data = self.clock_payload(m, reason)
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "clock_estimate", data))

    def clock_payload(self, m: ClockMap, reason: str) -> dict[str, Any]:
        return {**m.to_json(), "max_clock_drift_ppm": self.max_clock_drift_ppm, "reason": reason}

    def clock_record(self) -> None:
        """Record the current clock estimate (simulation thread; the runner calls it once per round)."""
        if (m := self.clock) is not None:
            self._recorded = m
            self.telemetry(self.name, "clock_estimate", self.clock_payload(m, "round"))

    def clock_decision(self) -> None:
        """Record the current clock estimate, reason ``decision`` (simulation thread): the croupier
        calls it just before it decides the round's wagers from this device's presses, and decides
        with the largest uncertainty the trace declares from the round's start up to this record
        (``hil.trace.ClockDeclarations``; docs/wire/clock.md, "The uncertainty a wager is decided
        with"). A map the I/O thread posted before is recorded before it (``call_soon_threadsafe``
        runs callbacks in order, before the simulation's next step); one it adopted and has not yet
        posted is this record's ``self.clock``."""
        if (m := self.clock) is not None:
            self.telemetry(self.name, "clock_estimate", self.clock_payload(m, DECISION))


class ModbusAdapterBase(DeviceClockTracking):
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
        self._init_clock(CLOCK_READ_PERIOD_S * env.time_scale)
        self._poll_task: asyncio.Task | None = None
        self._stopping = False

    # ----------------------------------------------------------- on the I/O thread
    async def _read_clock(self, link: ModbusLink) -> tuple[int, int, int]:
        """One read of ``device_clock_ns``: (tx ns, rx ns, device ns)."""
        p = self.map.point("device_clock_ns")
        words, rx = await link.read(p.table, p.address, p.span)
        return link.tx_ns, rx, int(self.map.decode(p, words))

    async def _connect(self) -> ClockMap:
        if not self.cmd.connected:
            await self.cmd.connect()
        if not self.poller.connected:
            await self.poller.connect()
        if self.poller is not self.cmd:
            await self._second_connection_served()
        samples = [ClockSample.of(self.env, *await self._read_clock(self.cmd)) for _ in range(CLOCK_SAMPLES)]
        return self._clock_started(samples, f"{self.name} at {self.url}")

    async def _second_connection_served(self) -> None:
        """Many embedded devices serve one Modbus TCP client at a time: one read on each link at
        connect; a device that drops the poller's connection while it answers the command link
        gets one shared connection for commands and polls, as over RTU (``shared_link`` in
        ``device_info``: docs/wire/README.md, "Modbus semantics"). A device that answers neither is
        unreachable (the command link's error)."""
        p = self.map.point("device_clock_ns")
        try:
            await self.poller.read(p.table, p.address, p.span)
            return
        except WireError as exc:
            if exc.kind == "exception_response":
                return  # the device answered on it: the connection is served
            refused = exc.detail
        await self.cmd.read(p.table, p.address, p.span)  # raises if the device answers no connection at all
        self.poller.close()
        self.poller = self.cmd
        self.shared_link = (f"the device served one Modbus TCP connection at a time (the second one: {refused}): "
                            "commands and polls share one connection")

    shared_link: str | None = None

    async def _clock_due(self) -> None:
        """Read ``device_clock_ns`` when no poll carried it for ``CLOCK_READ_PERIOD_S``."""
        if time.perf_counter_ns() - self._last_clock_rx >= CLOCK_READ_PERIOD_S * 1e9:
            self.clock_sample(*await self._read_clock(self.poller))

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
                await self._clock_due()
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
        """Connect, map the device clock, start polling; returns the device_info fields (the
        clock estimate at connect among them, also recorded as ``clock_estimate``)."""
        try:
            self.io.run(self._connect(), timeout_s=10)
        except BaseException:  # unreachable, or another time scale: the links are not left open
            self.close()
            raise
        info = self.clock_info()
        self.io.run(self._start_polling(), timeout_s=5)
        return {"url": self.url, **info, **({"shared_link": self.shared_link} if self.shared_link else {})}


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
