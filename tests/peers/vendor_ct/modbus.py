"""A register-computing Modbus TCP server (pymodbus 3.16 ``SimDevice`` with an ``action`` hook).

A device declares its four tables as address ranges and implements two methods:
``read(table, address, count)`` (the values *now*, computed when the request is handled) and
``write(table, address, values)`` (act on a command; return an ``ExcCodes`` to refuse it, which
changes nothing). Addresses outside the declared ranges are answered ``ILLEGAL_ADDRESS`` by
pymodbus itself; a write to a read-only table cannot be expressed in Modbus (FC2/FC4 read only).
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from pymodbus.constants import ExcCodes, ModbusStatus
from pymodbus.pdu import DecodePDU, ExceptionResponse, ModbusPDU
from pymodbus.pdu.bit_message import WriteSingleCoilRequest
from pymodbus.server import ModbusTcpServer
from pymodbus.simulator import DataType, SimData, SimDevice

log = logging.getLogger(__name__)

COILS, DISCRETE, HOLDING, INPUT = "coils", "discrete", "holding", "input"
_TABLE_OF_FC = {1: COILS, 5: COILS, 15: COILS, 2: DISCRETE, 4: INPUT, 3: HOLDING, 6: HOLDING, 16: HOLDING}
_WRITE_FCS = {5, 6, 15, 16}
#: the function codes the contract lists (docs/wire/README.md, "Modbus semantics"); every other one
#: is exception 1, ILLEGAL_FUNCTION, and changes nothing ("Answers to bad requests")
CONTRACT_FUNCTIONS = frozenset(_TABLE_OF_FC)


def u16(v: int) -> list[int]:
    return [v & 0xFFFF]


def u32(v: int) -> list[int]:
    v &= 0xFFFF_FFFF
    return [v >> 16, v & 0xFFFF]


def u64(v: int) -> list[int]:
    v &= (1 << 64) - 1
    return [(v >> 48) & 0xFFFF, (v >> 32) & 0xFFFF, (v >> 16) & 0xFFFF, v & 0xFFFF]


def from_words(words: Sequence[int]) -> int:
    out = 0
    for w in words:
        out = (out << 16) | (w & 0xFFFF)
    return out


@dataclass(frozen=True)
class Block:
    address: int
    count: int


class RegisterDevice:
    """Subclass: set ``tables`` (table -> blocks) and implement :meth:`read` / :meth:`write`."""

    name = "device"
    tables: dict[str, tuple[Block, ...]] = {}

    def read(self, table: str, address: int, count: int) -> list[int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def write(self, table: str, address: int, values: list[int]) -> ExcCodes | None:  # pragma: no cover
        return ExcCodes.ILLEGAL_FUNCTION

    # -- glue ---------------------------------------------------------------------------------

    def _simdata(self, table: str) -> list[SimData]:
        blocks = self.tables.get(table, ())
        bits = table in (COILS, DISCRETE)
        out = []
        for b in blocks:
            if bits:
                out.append(SimData(address=b.address, count=b.count, values=False, datatype=DataType.BITS))
            else:
                out.append(SimData(address=b.address, count=b.count, values=0, datatype=DataType.UINT16))
        if not out:  # pymodbus wants every table: a placeholder no request reaches (the action
            # refuses every address the device does not declare)
            out.append(SimData(address=0, count=1, values=False, datatype=DataType.BITS) if bits
                       else SimData(address=0, count=1, datatype=DataType.INVALID))
        return out

    def sim_device(self, unit: int) -> SimDevice:
        return SimDevice(id=unit, simdata=(self._simdata(COILS), self._simdata(DISCRETE),
                                           self._simdata(HOLDING), self._simdata(INPUT)),
                         use_bit_addressing=True, action=self._action)

    def _valid(self, table: str, address: int, count: int) -> bool:
        return any(b.address <= address and address + count <= b.address + b.count
                   for b in self.tables.get(table, ()))

    async def _action(self, fc: int, start_address: int, address: int, count: int, registers: list[int],
                      values) -> ExcCodes | None:
        table = _TABLE_OF_FC.get(fc)
        if table is None:
            return ExcCodes.ILLEGAL_FUNCTION
        bits = table in (COILS, DISCRETE)
        try:
            if values is not None and fc in _WRITE_FCS:
                vals = [int(bool(v)) for v in values] if bits else [int(v) for v in values]
                if not self._valid(table, address, len(vals)):
                    return ExcCodes.ILLEGAL_ADDRESS
                return self.write(table, address, vals)
            # a read (or a write's read-back): fill the requested span with the values now
            n = count * 16 if bits else count  # bit tables: pymodbus passes the register count
            if bits:
                if not self._valid(table, address, 1):
                    return ExcCodes.ILLEGAL_ADDRESS
                first = address
                span = [b for b in self.tables[table] if b.address <= address < b.address + b.count]
                if not span:
                    return ExcCodes.ILLEGAL_ADDRESS
                blk = span[0]
                n = min(n, blk.address + blk.count - address)
                vals = self.read(table, first, n)
                for i, v in enumerate(vals):
                    bit = first + i
                    reg, off = bit // 16 - start_address, bit % 16
                    if 0 <= reg < len(registers):
                        registers[reg] = (registers[reg] | (1 << off)) if v else (registers[reg] & ~(1 << off))
            else:
                if not self._valid(table, address, count):
                    return ExcCodes.ILLEGAL_ADDRESS
                vals = self.read(table, address, count)
                registers[address - start_address: address - start_address + count] = [v & 0xFFFF for v in vals]
        except Exception:  # a device bug must not take the server down: the master sees a failure
            log.exception("%s: request fc=%s address=%s failed", self.name, fc, address)
            return ExcCodes.DEVICE_FAILURE
        return None


class WordImage:
    """Helper for devices: an input/holding image built from named spans, read by address."""

    def __init__(self) -> None:
        self.words: dict[int, int] = {}

    def put(self, address: int, words: list[int]) -> None:
        for i, w in enumerate(words):
            self.words[address + i] = w & 0xFFFF

    def get(self, address: int, count: int) -> list[int]:
        return [self.words.get(a, 0) for a in range(address, address + count)]


class RefusedFunction(ModbusPDU):
    """A request with a function code the contract does not list, whatever its payload: answered
    exception 1 with the request's code + 0x80, never executed."""

    def __init__(self, function_code: int = 0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.function_code = function_code
        self.payload = b""

    def encode(self) -> bytes:
        return self.payload

    def decode(self, data: bytes) -> None:
        self.payload = bytes(data)

    async def datastore_update(self, context, device_id: int) -> ModbusPDU:
        return ExceptionResponse(self.function_code, ExcCodes.ILLEGAL_FUNCTION)


class ContractDecoder(DecodePDU):
    """pymodbus' server decoder knows more function codes than the contract (8, 11, 12, 17, 20-24,
    43: diagnostics, event counters, "report server id", file records, mask write, FIFO, device
    identification) and answers a code it does not know, or one of 0x80 and up, with function code
    0x80 or exception 4. This one hands every code outside the contract to ``RefusedFunction``
    before pymodbus looks at it."""

    def decode(self, frame: bytes) -> ModbusPDU | None:
        if frame and frame[0] not in CONTRACT_FUNCTIONS:
            pdu = RefusedFunction(frame[0])
            pdu.decode(frame[1:])
            return pdu
        return super().decode(frame)


class LimitedTcpServer(ModbusTcpServer):
    """A Modbus TCP server that, like many embedded devices, serves at most ``max_connections``
    clients at once: a connection beyond them is accepted and closed at once. It answers the
    contract's function codes only (``ContractDecoder``)."""

    def __init__(self, *args, max_connections: int | None = None, custom_pdu=(), **kwargs) -> None:
        super().__init__(*args, custom_pdu=list(custom_pdu), **kwargs)
        self.decoder = ContractDecoder(True)
        for pdu in custom_pdu:
            self.decoder.register(pdu)
        self.max_connections = max_connections
        self.refused_connections = 0

    def callback_new_connection(self):
        handler = super().callback_new_connection()
        if self.max_connections is not None and len(self.active_connections) >= self.max_connections:
            made = handler.connection_made

            def refuse(transport) -> None:
                self.refused_connections += 1
                made(transport)
                transport.close()

            handler.connection_made = refuse  # type: ignore[method-assign]
        return handler


async def serve(device: RegisterDevice, host: str = "127.0.0.1", port: int = 0, unit: int = 1,
                max_connections: int | None = None) -> tuple[ModbusTcpServer, int]:
    """Start ``device`` on ``host:port`` (0: any free port); returns the server and its port."""
    server = LimitedTcpServer(device.sim_device(unit), address=(host, port),
                              custom_pdu=[StrictWriteSingleCoilRequest], max_connections=max_connections)
    await server.serve_forever(background=True)
    sock = server.transport.sockets[0]  # type: ignore[union-attr]
    return server, sock.getsockname()[1]


async def stop(server: ModbusTcpServer) -> None:
    await server.shutdown()
    await asyncio.sleep(0)


class StrictWriteSingleCoilRequest(WriteSingleCoilRequest):
    """FC5 as the standard has it: 0xFF00 closes, 0x0000 opens, any other value is exception 3
    (pymodbus itself reads any non-zero value as ON)."""

    def decode(self, data: bytes) -> None:
        self.address, self.raw_value = struct.unpack(">HH", data[:4])
        self.bits = [self.raw_value == ModbusStatus.ON]

    async def datastore_update(self, context, device_id: int) -> ModbusPDU:
        if getattr(self, "raw_value", ModbusStatus.ON) not in (ModbusStatus.ON, ModbusStatus.OFF):
            return ExceptionResponse(self.function_code, ExcCodes.ILLEGAL_VALUE)
        return await super().datastore_update(context, device_id)
