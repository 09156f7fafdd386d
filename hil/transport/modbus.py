"""Modbus TCP / RTU over pymodbus' async client, with arrival timestamps.

URLs: ``tcp://HOST:PORT`` and ``rtu://PATH?baudrate=115200&parity=E&stopbits=1&bytesize=8``
(``PATH`` is a serial device or a pty, e.g. ``rtu:///dev/ttyUSB0``). Every response's arrival
is stamped with ``time.perf_counter_ns()`` in pymodbus' packet hook, i.e. where the bytes
arrive, before decoding. pymodbus serialises requests per connection, so the stamp taken
while a request is outstanding belongs to its response.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from pymodbus.client import AsyncModbusSerialClient, AsyncModbusTcpClient
from pymodbus.exceptions import ModbusException
from pymodbus.framer import FramerType

from hil.wire.url import ModbusUrl

Table = Literal["coil", "discrete", "holding", "input"]


class WireError(Exception):
    """A request that failed on the wire: timeout, exception response, disconnection."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind, self.detail = kind, detail
        super().__init__(f"{kind}: {detail}")


# pymodbus logs a failed connect at ERROR ("Failed to connect [Errno 111] ...") on stderr, beside the
# rig's own message that says it once (hil.bench: "the modbus device at URL could not be reached")
logging.getLogger("pymodbus").setLevel(logging.CRITICAL)


class ModbusLink:
    """One connection to one Modbus device (``device_id``), used from the ``IoLoop``."""

    def __init__(self, url: str, device_id: int = 1, timeout_s: float = 0.5, reconnect_max_s: float = 5.0) -> None:
        self.url = ModbusUrl.parse(url)
        self.device_id = device_id
        self.rx_ns = 0  # arrival of the last response's bytes
        self.tx_ns = 0  # departure of the last request's bytes
        # No reconnection inside pymodbus (reconnect_delay=0): the adapter reconnects with its own
        # back-off and records it (``wire_reconnected``). pymodbus' silent reconnect hid a dropped
        # link: the rig saw only timeouts, never the disconnection nor the reconnection.
        self._common = dict(timeout=timeout_s, retries=0, reconnect_delay=0, reconnect_delay_max=reconnect_max_s,
                            trace_packet=self._stamp)
        self.client: AsyncModbusTcpClient | AsyncModbusSerialClient | None = None  # made on the I/O loop

    def _make_client(self) -> AsyncModbusTcpClient | AsyncModbusSerialClient:
        u = self.url
        if u.scheme == "tcp":
            return AsyncModbusTcpClient(u.host, port=u.port, **self._common)
        return AsyncModbusSerialClient(u.path, framer=FramerType.RTU, baudrate=u.baudrate, parity=u.parity,
                                       stopbits=u.stopbits, bytesize=u.bytesize, **self._common)

    def _stamp(self, sending: bool, data: bytes) -> bytes:
        if sending:
            self.tx_ns = time.perf_counter_ns()
        else:
            self.rx_ns = time.perf_counter_ns()
        return data

    async def connect(self) -> None:
        """Connect (pymodbus clients are made on the running loop: call this there)."""
        if self.client is None:
            self.client = self._make_client()
        if not await self.client.connect():  # pymodbus says why on its logger (silenced: see below)
            u = self.url
            raise WireError("disconnected", "cannot connect (refused, or no answer in time)" if u.scheme == "tcp"
                            else f"cannot open the serial line {u.path}")

    @property
    def connected(self) -> bool:
        return self.client is not None and bool(self.client.connected)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    async def _call(self, what: str, request: Callable[[], Awaitable]) -> tuple[object, int]:
        # ``request`` is called inside the ``try``: pymodbus raises "Not connected" when the
        # request is made, not when it is awaited, and that too is a wire fault.
        try:
            rr = await request()
        except ModbusException as exc:
            timed_out = "timeout" in str(exc).lower() or "No response" in str(exc)
            # A request whose connection dropped while it waited is a disconnection, not a timeout.
            kind = "timeout" if timed_out and self.connected else "disconnected"
            raise WireError(kind, f"{what}: {exc}") from None
        if rr.isError():
            raise WireError("exception_response", f"{what}: {rr}")
        return rr, self.rx_ns

    async def read(self, table: Table, address: int, count: int) -> tuple[list[int] | list[bool], int]:
        """Values and the arrival time (perf_counter_ns) of the response."""
        c, dev = self.client, self.device_id
        fn = {"coil": c.read_coils, "discrete": c.read_discrete_inputs,
              "holding": c.read_holding_registers, "input": c.read_input_registers}[table]
        rr, rx = await self._call(f"read {table} {address}+{count}",
                                  lambda: fn(address, count=count, device_id=dev))
        values = rr.bits[:count] if table in ("coil", "discrete") else rr.registers
        return list(values), rx

    async def write(self, table: Literal["coil", "holding"], address: int, values: list[int] | list[bool]) -> int:
        """Write; returns the arrival time of the response (the device had the request then)."""
        c, dev = self.client, self.device_id
        if table == "coil":
            request = ((lambda: c.write_coil(address, bool(values[0]), device_id=dev)) if len(values) == 1
                       else (lambda: c.write_coils(address, [bool(v) for v in values], device_id=dev)))
        else:
            request = lambda: c.write_registers(address, [int(v) for v in values], device_id=dev)  # noqa: E731
        _, rx = await self._call(f"write {table} {address}", request)
        return rx
