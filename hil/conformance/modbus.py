"""The Modbus side of the conformance kit: one connection to the device, reads and writes by point
name, exception codes, raw requests (TCP) and the device-clock mapping the timing clauses use.

Every request is stamped where its bytes move (``ModbusLink``'s packet hook), so a device time
is placed on the rig's clock within half the request's round trip.
"""

from __future__ import annotations

import asyncio
import struct
import time
from dataclasses import dataclass
from typing import Any

from pymodbus.exceptions import ModbusException
from pymodbus.pdu import ModbusPDU

from hil.conformance.core import ClauseFailed, Evidence, Unreachable
from hil.transport.modbus import ModbusLink, WireError
from hil.wire.registers import RegisterMap

#: Modbus exception codes (Modbus Application Protocol v1.1b3 § 7)
ILLEGAL_FUNCTION, ILLEGAL_ADDRESS, ILLEGAL_VALUE, DEVICE_FAILURE, DEVICE_BUSY = 1, 2, 3, 4, 6
EXCEPTION_NAMES = {1: "ILLEGAL_FUNCTION", 2: "ILLEGAL_ADDRESS", 3: "ILLEGAL_VALUE", 4: "DEVICE_FAILURE",
                   5: "ACKNOWLEDGE", 6: "DEVICE_BUSY"}
#: the connect sequence reads the device clock this many times (hil.adapters.modbus_base.CLOCK_SAMPLES)
CLOCK_SAMPLES = 16
#: how often the clauses poll a device's status while it works
POLL_S = 0.002


@dataclass(frozen=True)
class ClockSample:
    tx_ns: int  # rig perf_counter_ns when the request left
    rx_ns: int  # when the answer arrived
    device_ns: int  # the device clock in the answer

    @property
    def mid_ns(self) -> float:
        return (self.tx_ns + self.rx_ns) / 2

    @property
    def rtt_ns(self) -> int:
        return self.rx_ns - self.tx_ns


@dataclass(frozen=True)
class Poll:
    """One status read: its values and when it went out and came back (rig clock)."""

    tx_ns: int
    rx_ns: int
    values: dict[str, Any]


def exception_name(code: int | None) -> str:
    return "no exception (the request was answered)" if code is None else \
        f"exception {code} ({EXCEPTION_NAMES.get(code, 'unknown')})"


class ModbusContext:
    """What the Modbus clauses work with (one per run)."""

    def __init__(self, url: str, unit: int, rmap: RegisterMap, timeout_s: float = 1.0,
                 max_drift_ppm: float = 500.0) -> None:
        self.url, self.unit, self.map, self.max_drift_ppm = url, unit, rmap, max_drift_ppm
        self.link = ModbusLink(url, unit, timeout_s)
        self.evidence = Evidence()
        self.offset_ns: float | None = None  # device − rig, from the best clock sample
        self.offset_uncertainty_ns: float = 0.0
        self.notes: dict[str, Any] = {}  # measured figures for the report (clock rate, latency …)

    # ------------------------------------------------------------------ connection
    async def connect(self) -> None:
        try:
            await self.link.connect()
        except WireError:
            raise Unreachable(f"cannot connect to {self.url}") from None

    def close(self) -> None:
        self.link.close()

    def _wire(self, exc: WireError) -> Exception:
        if exc.kind in ("timeout", "disconnected"):
            return Unreachable(exc.detail)
        return ClauseFailed(exc.detail)

    # ------------------------------------------------------------------ by point name
    async def read(self, name: str) -> Any:
        p = self.map.point(name)
        try:
            words, _ = await self.link.read(p.table, p.address, p.span)
        except WireError as exc:
            raise self._wire(exc) from None
        try:
            return self.map.decode(p, words)
        except ValueError as exc:
            raise ClauseFailed(f"{name}: {exc}") from None

    async def read_points(self, names: list[str]) -> Poll:
        """The points ``names`` in as few reads as the map allows (as the adapters read them)."""
        values: dict[str, Any] = {}
        tx = rx = 0
        for b in self.map.read_blocks(names):
            try:
                words, rx = await self.link.read(b.table, b.start, b.count)
            except WireError as exc:
                raise self._wire(exc) from None
            tx = tx or self.link.tx_ns
            try:
                values |= self.map.decode_block(b, words)
            except ValueError as exc:
                raise ClauseFailed(str(exc)) from None
        return Poll(tx, rx, values)

    async def write_points(self, values: dict[str, Any]) -> tuple[int, int]:
        """Write ``values``: in one request when the map keeps the points contiguous in one table
        (the shipped maps do), else one request per point in the order given (the ``*_seq`` point
        last, as the adapters do: the device acts on its change). Returns (tx_ns, rx_ns) of the last
        request; a refusal raises ``DeviceRefused`` with its exception code."""
        given = [self.map.point(n) for n in values]
        points = sorted(given, key=lambda p: (p.table, p.address))
        contiguous = all(a.table == b.table and a.end == b.address for a, b in zip(points, points[1:]))
        requests = []
        if contiguous:
            words: list = []
            for p in points:
                words += self.map.encode(p, values[p.name])
            requests.append((points[0].table, points[0].address, words))
        else:
            requests = [(p.table, p.address, self.map.encode(p, values[p.name])) for p in given]
        tx = 0
        for table, address, words in requests:
            code = await self.request_write(table, address, words)
            if code is not None:
                raise DeviceRefused(code)
            tx = tx or self.link.tx_ns
        return tx, self.link.rx_ns

    # ------------------------------------------------------------------ raw answers
    async def request_write(self, table: str, address: int, words: list) -> int | None:
        """Write; None when answered, else the exception code. (Timeouts: ``Unreachable``.)"""
        c, dev = self.link.client, self.unit
        try:
            if table == "coil":
                rr = await (c.write_coil(address, bool(words[0]), device_id=dev) if len(words) == 1
                            else c.write_coils(address, [bool(w) for w in words], device_id=dev))
            else:
                rr = await c.write_registers(address, [int(w) for w in words], device_id=dev)
        except ModbusException as exc:
            raise Unreachable(f"write {table} {address}: {exc}") from None
        return rr.exception_code if rr.isError() else None

    async def request_read(self, table: str, address: int, count: int) -> tuple[int | None, list]:
        """Read; (None, values) when answered, else (exception code, [])."""
        c, dev = self.link.client, self.unit
        fn = {"coil": c.read_coils, "discrete": c.read_discrete_inputs, "holding": c.read_holding_registers,
              "input": c.read_input_registers}[table]
        try:
            rr = await fn(address, count=count, device_id=dev)
        except ModbusException as exc:
            raise Unreachable(f"read {table} {address}+{count}: {exc}") from None
        if rr.isError():
            return rr.exception_code, []
        return None, list(rr.bits[:count] if table in ("coil", "discrete") else rr.registers)

    async def link_pdu(self, pdu: bytes) -> bytes | None:
        """Send one request PDU of any function code on the link itself (TCP or RTU: the RTU
        line has one master, so it cannot have a connection of its own); its answer's PDU, or
        None when the device does not answer within the link's timeout."""
        client = self.link.client
        cls = _raw_pdu_class(pdu[0])
        client.register(cls)  # an answer with that function code decodes too (any length)
        try:
            rr = await client.execute(False, cls(pdu[1:], dev_id=self.unit))
        except ModbusException:
            return None
        return bytes([rr.function_code]) + rr.encode()

    async def raw_pdu(self, pdu: bytes, timeout_s: float = 1.0) -> bytes | None:
        """Send one request PDU on its own TCP connection (MBAP framed); its answer's PDU, or None
        when the device does not answer within ``timeout_s``. TCP only."""
        u = self.link.url
        reader, writer = await asyncio.wait_for(asyncio.open_connection(u.host, u.port), timeout_s)
        try:
            writer.write(struct.pack(">HHHB", 0x4321, 0, len(pdu) + 1, self.unit) + pdu)
            await writer.drain()
            head = await asyncio.wait_for(reader.readexactly(7), timeout_s)
            _tid, _proto, length, _unit = struct.unpack(">HHHB", head)
            return await asyncio.wait_for(reader.readexactly(length - 1), timeout_s)
        except (TimeoutError, asyncio.IncompleteReadError):
            return None
        finally:
            writer.close()

    # ------------------------------------------------------------------ the device clock
    async def clock_samples(self, n: int = CLOCK_SAMPLES) -> list[ClockSample]:
        p = self.map.point("device_clock_ns")
        out = []
        for _ in range(n):
            try:
                words, rx = await self.link.read(p.table, p.address, p.span)
            except WireError as exc:
                raise self._wire(exc) from None
            out.append(ClockSample(self.link.tx_ns, rx, int(self.map.decode(p, words))))
        return out

    async def map_clock(self) -> ClockSample:
        """Offset of the device clock from the best of ``CLOCK_SAMPLES`` round trips."""
        best = min(await self.clock_samples(), key=lambda s: s.rtt_ns)
        self.offset_ns = best.device_ns - best.mid_ns
        self.offset_uncertainty_ns = best.rtt_ns / 2
        return best

    def device_at(self, rig_ns: float) -> float:
        """The device clock at the rig's instant ``rig_ns`` (``map_clock`` first)."""
        if self.offset_ns is None:
            raise RuntimeError("map_clock() first")
        return rig_ns + self.offset_ns

    async def wait(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class DeviceRefused(Exception):
    """A write answered with an exception response."""

    def __init__(self, code: int) -> None:
        super().__init__(exception_name(code))
        self.code = code


def now_ns() -> int:
    return time.perf_counter_ns()


def _raw_pdu_class(fc: int) -> type[ModbusPDU]:
    """A pymodbus PDU class carrying raw bytes for function code ``fc`` (a request the client
    has no class for; its answer, if not an exception, read as a byte count and that many bytes)."""

    class RawPdu(ModbusPDU):
        function_code = fc
        rtu_byte_count_pos = 2

        def __init__(self, payload: bytes = b"", dev_id: int = 1, transaction_id: int = 0) -> None:
            super().__init__(dev_id=dev_id, transaction_id=transaction_id)
            self.payload = payload

        def encode(self) -> bytes:
            return self.payload

        def decode(self, data: bytes) -> None:
            self.payload = bytes(data)

    return RawPdu
