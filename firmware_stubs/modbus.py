"""A device's SimPy model behind a Modbus server (TCP or RTU), paced by the wall clock.

The model's ``simpy.Environment`` is stepped from the wall clock on every request: when a
request's bytes arrive (stamped with ``time.perf_counter_ns()`` where the server reads them),
the model is run up to that instant, a write is applied to the model as the command it is, and
the registers are refreshed from the model's state before the response is built. Between
requests nothing needs to run: the model's events are processed in order when the next request
asks.

Device time (every ``*_ns`` register) is the model's clock: ns since the stub started, times
``time_scale`` (1.0 = real time), running ``ppm`` fast when the device clock is told to drift
(``ModelClock``). The glue between a model and its register map is a
``DeviceGlue`` (one per device kind).

The server (``ModbusServer``: MBAP over TCP, RTU over a serial device) is this module's own: it
answers exactly the function codes the contract lists (``CONTRACT_FUNCTIONS``; docs/wire/README.md,
"Answers to bad requests"), exception 1 for any other, exception 0x0B on TCP for another unit
id (silence on RTU), and tells every refusal in rate-limited lines (``RefusalLog``) — a flood of
bad requests never becomes a flood of log lines. ``current_peer()`` names the TCP client whose
request a glue is handling (docs/security.md, "Modbus robustness").

At info level the server's logger (``croupier.stub.<device>`` from the stub's command line, ``-v``)
tells each TCP connection accepted and closed with its peer, and each request: function code,
table, address, count, the points of the register map it touches, and the result (ok or the
exception); at debug (``-vv``) the values read or written too. At the default level a request costs
one ``isEnabledFor`` check.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import logging
import os
import socket
import struct
import time
import traceback
from pathlib import Path
from typing import Any, Protocol

import serial
import simpy
from pymodbus.constants import ExcCodes

from hil.wire.registers import BIT_TABLES, Point, RegisterMap, Table

_TABLES: tuple[Table, ...] = ("coil", "discrete", "holding", "input")


class ModelClock:
    """A model's simulated time as a function of the wall clock, and the device clock that
    stamps it (``ns``). The device clock may drift: ``ppm`` parts per million fast (negative:
    slow) against model time — a crystal's or resonator's error, as a real device's clock has
    (``--clock-ppm``, or the control endpoint's ``clock`` op). The physics runs on model time;
    only the timestamps the device reports are on its drifting clock. A change of rate is taken
    from the current instant on: the device clock never jumps."""

    def __init__(self, time_scale: float = 1.0, ppm: float = 0.0) -> None:
        self.env = simpy.Environment()
        self.time_scale = time_scale
        self.t0_ns = time.perf_counter_ns()
        self.ppm = float(ppm)
        self._anchor_s = 0.0  # model time at which the current rate took effect
        self._anchor_ns = 0  # the device clock then

    def model_time(self, t_ns: int) -> float:
        return (t_ns - self.t0_ns) * 1e-9 * self.time_scale

    def sync(self, t_ns: int | None = None) -> float:
        """Run the model up to the wall instant ``t_ns`` (default: now); returns its time."""
        t = self.model_time(time.perf_counter_ns() if t_ns is None else t_ns)
        if t > self.env.now:
            self.env.run(until=t)
        return self.env.now

    def renew(self) -> None:
        """A fresh simulation for a new model, starting at the device clock's current time."""
        self.env = simpy.Environment(initial_time=max(self.env.now, self.model_time(time.perf_counter_ns())))

    def set_ppm(self, ppm: float) -> None:
        """The device clock runs ``ppm`` fast from now on (continuous at this instant)."""
        if not -1e5 < ppm < 1e5:
            raise ValueError(f"clock ppm must be within ±100000 (±10 %), not {ppm}")
        t = max(self.env.now, self.model_time(time.perf_counter_ns()))
        self._anchor_ns, self._anchor_s, self.ppm = self.ns(t), t, float(ppm)

    def ns(self, t_s: float | None = None) -> int:
        """A model time (default: now) as device-clock ns."""
        t = self.env.now if t_s is None else t_s
        return self._anchor_ns + round((t - self._anchor_s) * (1.0 + self.ppm * 1e-6) * 1e9)


class RegisterImage:
    """The device's four tables as flat lists, read and written by point name through the map."""

    def __init__(self, rmap: RegisterMap) -> None:
        self.map = rmap
        self.size = {t: max([p.end for p in rmap.points if p.table == t], default=0) for t in _TABLES}
        self.tables: dict[Table, list[Any]] = {
            t: ([False] if t in BIT_TABLES else [0]) * max(self.size[t], 1) for t in _TABLES}

    def set(self, name: str, value: Any) -> None:
        p = self.map.point(name)
        words = self.map.encode(p, value)
        self.tables[p.table][p.address:p.address + len(words)] = words

    def get(self, name: str) -> Any:
        p = self.map.point(name)
        return self.map.decode(p, self.tables[p.table][p.address:p.end])

    def points_in(self, table: Table, address: int, count: int) -> list[Point]:
        return [p for p in self.map.points
                if p.table == table and p.address < address + count and p.end > address]


class DeviceGlue(Protocol):
    """Binds a device model to its register map."""

    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        """A point was written (a command), at the model's current time; return an exception
        code to refuse it (e.g. ``ExcCodes.DEVICE_BUSY``)."""
        ...

    def refresh(self, image: RegisterImage) -> None:
        """Write the model's current state into the image."""
        ...


class ShownValues:
    """What a glue shows in its registers: ``_values`` by point name, set as the model reports
    (``_set``) and written into the image at the next request — only the points that changed —
    with the device clock (``refresh``). A glue sets ``_values``, ``_dirty`` (initially every
    point) and ``clock``."""

    _values: dict[str, Any]
    _dirty: set[str]
    clock: ModelClock

    def _set(self, **values: Any) -> None:
        self._values.update(values)
        self._dirty.update(values)

    def refresh(self, image: RegisterImage) -> None:
        for name in self._dirty:
            image.set(name, self._values[name])
        self._dirty.clear()
        image.set("device_clock_ns", self.clock.ns())


# --------------------------------------------------------------------------- the Modbus server
#: The function codes the contract lists (docs/wire/README.md, "Modbus semantics"): every other
#: code is answered exception 1, ILLEGAL_FUNCTION, and changes nothing.
CONTRACT_FUNCTIONS: frozenset[int] = frozenset({1, 2, 3, 4, 5, 6, 15, 16})
_READS: dict[int, Table] = {1: "coil", 2: "discrete", 3: "holding", 4: "input"}
_WRITES: dict[int, Table] = {5: "coil", 6: "holding", 15: "coil", 16: "holding"}
#: Most values one request may carry (Modbus Application Protocol V1.1b3 § 6.1–6.12).
_MAX_QTY = {1: 2000, 2: 2000, 3: 125, 4: 125, 15: 0x7B0, 16: 123}
#: Exception codes (§ 7): 0x0B "gateway target device failed to respond" is what a TCP request
#: for another unit id gets (docs/wire/README.md, "Answers to bad requests").
ILLEGAL_FUNCTION, ILLEGAL_ADDRESS, ILLEGAL_VALUE, DEVICE_FAILURE = 1, 2, 3, 4
GATEWAY_TARGET_NO_RESPONSE = 0x0B
#: MBAP: the length field counts the unit id and the PDU (at most 253 bytes: 254).
MBAP_HEADER = 7
MBAP_MAX_LENGTH = 254
#: Concurrent TCP clients; one more evicts one of them: a connection that was never served a
#: request first, else the one idle the longest (the rig's two connections are served every
#: ≤ 50 ms, so a stranger's idle or half-open connections go first).
MAX_CONNECTIONS = 16
#: An RTU request of a function code whose length the server cannot compute (any code outside
#: the contract), or bytes that are no frame, are judged after this much silence on the line (s):
#: at least t3.5, and longer than a USB-serial adapter's latency timer.
RTU_SILENCE_S = 0.02
RTU_MAX_FRAME = 256

log = logging.getLogger(__name__)
_peer: contextvars.ContextVar[str | None] = contextvars.ContextVar("modbus_peer", default=None)


def current_peer() -> str | None:
    """``"host:port"`` of the Modbus TCP client whose request is being served right now (inside a
    glue's ``on_write``/``refresh``); None over RTU or outside a request."""
    return _peer.get()


class RefusalLog:
    """One log line per kind of refusal and peer, then at most one summary line per
    ``interval_s``: a flood of bad requests costs a few lines, never a line (or a traceback) per
    request. At most ``max_keys`` kinds × peers are told apart per interval; the rest are summed
    in one line."""

    def __init__(self, interval_s: float = 10.0, max_keys: int = 16, logger: logging.Logger = log) -> None:
        self.interval_s, self.max_keys, self.logger = interval_s, max_keys, logger
        self.counts: dict[tuple[str, str], int] = {}  # this interval: repeats after the first line
        self.known: set[tuple[str, str]] = set()  # told in this or the last interval: no first line
        self.others = 0
        self.other_keys: set[tuple[str, str]] = set()
        self.window_s = 0.0
        self.lines = 0
        self.total = 0
        self._timer: asyncio.TimerHandle | None = None

    def note(self, what: str, peer: str | None, why: str = "") -> None:
        """One refused request: ``what`` a plural noun phrase ("requests for unit id 9")."""
        self.total += 1
        now = time.monotonic()
        if self.window_s and now - self.window_s >= self.interval_s:
            self.flush()
        if not self.window_s:
            self.window_s = now
            self._arm()
        key = (what, peer or "the serial line")
        if key in self.counts or key in self.known:
            self.counts[key] = self.counts.get(key, 0) + 1
            self.known.add(key)
        elif len(self.counts) < self.max_keys:
            self.counts[key] = 0
            self.known.add(key)
            self._say(f"refused {what} from {key[1]}" + (f" ({why})" if why else "")
                      + f"; repeats are summed every {self.interval_s:g} s")
        else:
            self.others += 1
            if len(self.other_keys) < 1000:
                self.other_keys.add(key)

    def flush(self) -> None:
        took = time.monotonic() - self.window_s if self.window_s else 0.0
        for (what, peer), n in self.counts.items():
            if n:
                self._say(f"refused {n} more {what} from {peer} in the last {took:.1f} s")
        if self.others:
            self._say(f"refused {self.others} requests of {len(self.other_keys)} other kinds or peers "
                      f"in the last {took:.1f} s")
        self.known = {k for k, n in self.counts.items() if n}
        self.counts, self.others, self.other_keys, self.window_s = {}, 0, set(), 0.0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        self.flush()

    def _arm(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # flushed by the next note instead
        self._timer = loop.call_later(self.interval_s, self.flush)

    def _say(self, line: str) -> None:
        self.lines += 1
        self.logger.warning("modbus: %s", line)


class _Refuse(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = int(code)


def _exception_pdu(fc: int, code: int) -> bytes:
    return bytes([(fc | 0x80) & 0xFF, code])


def _pack_bits(bits: list[Any]) -> bytes:
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        if b:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _unpack_bits(data: bytes, n: int) -> list[bool]:
    return [bool(data[i >> 3] >> (i & 7) & 1) for i in range(n)]


def _crc16(data: bytes) -> int:
    """Modbus RTU CRC-16 (poly 0xA001 reflected, init 0xFFFF); sent low byte first."""
    crc = 0xFFFF
    for b in data:
        crc = (crc >> 8) ^ _CRC_TABLE[(crc ^ b) & 0xFF]
    return crc


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def rtu_frame(unit: int, pdu: bytes) -> bytes:
    """An RTU frame: unit id, PDU, CRC (low byte first)."""
    body = bytes([unit]) + pdu
    return body + _crc16(body).to_bytes(2, "little")


class ModbusServer:
    """A Modbus server (TCP or RTU) of one unit: the framing, the unit-id rule, the function
    codes it implements (``functions``, by default the contract's; every other code exception 1),
    the checks of every request's fields, and the refusals told in rate-limited lines
    (``RefusalLog``), never a traceback per request. A subclass holds the tables
    (``table_size``, ``cells``, ``serve``).

    A request for another unit id gets exception 0x0B on TCP and silence on RTU; malformed
    frames are dropped (RTU) or end their connection (TCP, when the MBAP length cannot be
    trusted); every refusal is counted in ``stats``. Pipelined TCP requests are answered in
    order; a client that does not read its answers is not read from either (the transport's flow
    control), so memory stays bounded."""

    functions: frozenset[int] = CONTRACT_FUNCTIONS
    #: what this server is on a TCP socket, the stub's option for it, and what a peer there can do
    #: (``firmware_stubs.exposure``: a host beyond loopback is refused unless ``allow_remote``)
    listener: tuple[str, str, str] = ("Modbus TCP server", "--modbus",
                                      "read the device and write its registers (commands, presses where the map "
                                      "has injection)")

    def __init__(self, unit: int = 1, log: logging.Logger | None = None) -> None:
        self.unit = unit
        #: connections and requests at info, values at debug (the stub's ``-v`` / ``-vv``)
        self.log = log or logging.getLogger("croupier.stub")
        #: arrival of the latest request's bytes (the connection's own when a request is served)
        self.rx_ns = 0
        self.requests = 0
        self.stats: collections.Counter[str] = collections.Counter()
        self.refusals = RefusalLog()
        self.server: asyncio.base_events.Server | _RtuLine | None = None
        self.connections: dict[int, _TcpConnection] = {}

    # ------------------------------------------------------------- what a subclass holds
    def table_size(self, table: Table) -> int:
        """Cells (bits or registers) of ``table``: addresses 0 .. size − 1 exist."""
        raise NotImplementedError

    def read_only(self, table: Table, address: int, qty: int) -> bool:
        """Whether a write of ``qty`` cells from ``address`` touches a read-only cell."""
        return False

    def serve(self, table: Table, address: int, values: list[Any] | None, rx_ns: int) -> int | None:
        """A request whose bytes arrived at ``rx_ns``: a write of ``values`` (None: a read);
        an exception code to refuse it (and change nothing)."""
        raise NotImplementedError

    def cells(self, table: Table, address: int, qty: int) -> list[Any]:
        """The values a read answers (after ``serve``)."""
        raise NotImplementedError

    def point_names(self, table: Table, address: int, qty: int) -> list[str]:
        """The names of what a request for these cells touches (for the log; none by default)."""
        return []

    # ------------------------------------------------------------- one request
    def handle_pdu(self, pdu: bytes, rx_ns: int, peer: str | None) -> bytes:
        """The response PDU to the request PDU ``pdu`` (for this unit), whose bytes arrived at
        ``rx_ns``; ``peer`` is what ``current_peer()`` returns meanwhile. Logged at info."""
        answer = self._answer(pdu, rx_ns, peer)
        if self.log.isEnabledFor(logging.INFO):
            self._log_request(pdu, answer, peer)
        return answer

    def _log_request(self, pdu: bytes, answer: bytes, peer: str | None) -> None:
        """One info line per request (``-v``); the values too at debug (``-vv``)."""
        fc = pdu[0]
        fields: dict[str, Any] = {"peer": peer or "the serial line", "fc": fc}
        what = _FC_NAMES.get(fc, "function outside the contract")
        if (fc in _READS or fc in _WRITES) and len(pdu) >= 5:
            table = _READS.get(fc) or _WRITES[fc]
            address, qty = struct.unpack_from(">HH", pdu, 1)
            if fc in (5, 6):
                qty = 1
            fields.update(table=table, address=address, count=qty)
            with contextlib.suppress(Exception):  # a request past the map's end names nothing
                if names := self.point_names(table, address, qty):
                    fields["points"] = ",".join(names)
        if answer[0] & 0x80:
            code = answer[1] if len(answer) > 1 else 0
            fields["result"] = f"exception {code} {_EXC_NAMES.get(code, '')}".rstrip()
        else:
            fields["result"] = "ok"
        self.log.info("Modbus request: %s", what, extra=fields)
        if self.log.isEnabledFor(logging.DEBUG) and not answer[0] & 0x80:
            # a supervisor key's registers are not logged (the READY line hands the key to the rig only)
            shown = "withheld (a key)" if "key" in fields.get("points", "") else _values(fc, pdu, answer)
            self.log.debug("Modbus values: %s", shown, extra={"peer": fields["peer"], "fc": fc})

    def _answer(self, pdu: bytes, rx_ns: int, peer: str | None) -> bytes:
        fc = pdu[0]
        self.stats["requests"] += 1
        if fc not in self.functions:
            self.stats["illegal_function"] += 1
            self.refusals.note("requests with a function code outside the contract", peer,
                               f"the first: {fc}; answered exception 1, ILLEGAL_FUNCTION")
            return _exception_pdu(fc, ILLEGAL_FUNCTION)
        token = _peer.set(peer)
        try:
            return self._execute(fc, pdu, rx_ns)
        except _Refuse as r:
            self.stats[f"exception_{r.code}"] += 1
            return _exception_pdu(fc, r.code)
        except Exception as exc:  # noqa: BLE001 — a fault of the model or glue: answered, told once
            self.stats["device_failure"] += 1
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.refusals.note(f"requests with function code {fc} that failed in the device model", peer,
                               f"{type(exc).__name__}: {exc} at {Path(where.filename).name}:{where.lineno}: "
                               "exception 4, DEVICE_FAILURE")
            return _exception_pdu(fc, DEVICE_FAILURE)
        finally:
            _peer.reset(token)

    def _execute(self, fc: int, pdu: bytes, rx_ns: int) -> bytes:
        if fc in (15, 16):
            if len(pdu) < 6:
                raise _Refuse(ILLEGAL_VALUE)
            address, qty, nbytes = struct.unpack_from(">HHB", pdu, 1)
            table = _WRITES[fc]
            want = (qty + 7) // 8 if fc == 15 else 2 * qty
            if not 1 <= qty <= _MAX_QTY[fc] or nbytes != want or len(pdu) != 6 + nbytes:
                raise _Refuse(ILLEGAL_VALUE)
            self._check_range(table, address, qty, write=True)
            data = pdu[6:]
            values: list[Any] = (_unpack_bits(data, qty) if fc == 15
                                 else list(struct.unpack(f">{qty}H", data)))
            self._serve(table, address, values, rx_ns)
            return pdu[:5]
        if len(pdu) != 5:
            raise _Refuse(ILLEGAL_VALUE)
        address, qty = struct.unpack_from(">HH", pdu, 1)
        if fc in _READS:
            table = _READS[fc]
            if not 1 <= qty <= _MAX_QTY[fc]:
                raise _Refuse(ILLEGAL_VALUE)
            self._check_range(table, address, qty)
            self._serve(table, address, None, rx_ns)
            cells = self.cells(table, address, qty)
            data = _pack_bits(cells) if table in BIT_TABLES else struct.pack(f">{qty}H", *cells)
            return bytes([fc, len(data)]) + data
        table, value = _WRITES[fc], qty  # FC5 / FC6: address, value
        if fc == 5 and value not in (0x0000, 0xFF00):
            raise _Refuse(ILLEGAL_VALUE)
        self._check_range(table, address, 1, write=True)
        self._serve(table, address, [value == 0xFF00] if fc == 5 else [value], rx_ns)
        return pdu

    def _check_range(self, table: Table, address: int, qty: int, write: bool = False) -> None:
        if address + qty > self.table_size(table):
            raise _Refuse(ILLEGAL_ADDRESS)
        if write and self.read_only(table, address, qty):
            raise _Refuse(ILLEGAL_ADDRESS)  # a point the map marks read-only keeps its value

    def _serve(self, table: Table, address: int, values: list[Any] | None, rx_ns: int) -> None:
        if refused := self.serve(table, address, values, rx_ns):
            raise _Refuse(refused)

    def wrong_unit(self, unit: int, peer: str | None, answered: bool) -> None:
        self.stats["wrong_unit"] += 1
        self.refusals.note(f"requests for unit id {unit}", peer,
                           f"this device is unit {self.unit}: "
                           + ("exception 11, gateway target failed to respond" if answered else "not answered"))

    # ------------------------------------------------------------- serving
    async def start_tcp(self, host: str, port: int, allow_remote: bool = False) -> int:
        """Listen on ``host:port`` (port 0 = any free one); returns the bound port. A host that is
        not loopback is refused before any socket is opened (``ExposureRefused``) unless
        ``allow_remote`` (the stub's ``--allow-remote``), whoever starts the server."""
        from firmware_stubs.exposure import Listener, check_exposure

        what, option, reach = self.listener
        check_exposure([Listener(what, option, host, port, reach)], allow_remote)  # the CLI has warned already
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(lambda: _TcpConnection(self), host, port)
        bound = self.server.sockets[0].getsockname()[1]
        self.log.info("%s listening", what, extra={"host": host, "port": bound, "unit": self.unit})
        return bound

    async def start_rtu(self, path: str, baudrate: int = 115_200, parity: str = "N") -> None:
        self.server = _RtuLine(self, path, baudrate, parity)
        self.log.info("Modbus RTU line open", extra={"path": path, "baudrate": baudrate, "parity": parity,
                                                      "unit": self.unit})

    async def stop(self) -> None:
        server, self.server = self.server, None
        if isinstance(server, _RtuLine):
            server.close()
        elif server is not None:
            server.close()
            for conn in list(self.connections.values()):
                conn.abort()
            await server.wait_closed()
        self.refusals.close()

    def _admit(self, conn: _TcpConnection) -> None:
        if len(self.connections) >= MAX_CONNECTIONS:
            oldest = min(self.connections.values(), key=lambda c: (c.served > 0, c.last_ns))
            self.stats["evicted"] += 1
            self.refusals.note("connections over the limit (closed: one never served first, else the idlest)", oldest.peer,
                               f"at most {MAX_CONNECTIONS} clients")
            self.connections.pop(id(oldest), None)
            oldest.abort()
        self.connections[id(conn)] = conn


class ModbusStub(ModbusServer):
    """Serves ``glue``'s model over Modbus with the register map ``rmap`` (TCP or RTU)."""

    def __init__(self, rmap: RegisterMap, glue: DeviceGlue, clock: ModelClock, unit: int = 1,
                 log: logging.Logger | None = None) -> None:
        super().__init__(unit, log)
        self.map, self.glue, self.clock = rmap, glue, clock
        self.image = RegisterImage(rmap)
        self._read_only = {t: self._read_only_cells(t) for t in ("coil", "holding")}
        glue.refresh(self.image)

    def replace_glue(self, glue: DeviceGlue) -> None:
        """A new model (the control endpoint configured one): fresh registers, refreshed from it."""
        self.glue = glue
        self.image = RegisterImage(self.map)
        glue.refresh(self.image)

    def _read_only_cells(self, table: Table) -> frozenset[int]:
        return frozenset(a for p in self.map.points if p.table == table and p.access == "r"
                         for a in range(p.address, p.end))

    def table_size(self, table: Table) -> int:
        return len(self.image.tables[table])

    def read_only(self, table: Table, address: int, qty: int) -> bool:
        ro = self._read_only.get(table)
        return bool(ro) and not ro.isdisjoint(range(address, address + qty))  # type: ignore[union-attr]

    def cells(self, table: Table, address: int, qty: int) -> list[Any]:
        return self.image.tables[table][address:address + qty]

    def point_names(self, table: Table, address: int, qty: int) -> list[str]:
        return [p.name for p in self.image.points_in(table, address, qty)]

    def serve(self, table: Table, address: int, values: list[Any] | None, rx_ns: int) -> int | None:
        """The model up to the request's arrival, the write (a command) applied, the registers
        refreshed from the model."""
        self.requests += 1
        self.rx_ns = rx_ns
        self.clock.sync(rx_ns or None)
        if values is not None and (refused := self._apply_write(table, address, values)):
            return refused
        self.glue.refresh(self.image)
        return None

    def _apply_write(self, table: Table, address: int, values: list[Any]) -> ExcCodes | None:
        """Store a write and hand each written point to the glue as a command. A value the map
        cannot hold (e.g. an enum code it does not define) is refused with ILLEGAL_VALUE and not
        stored; the glue may refuse a command (e.g. DEVICE_BUSY)."""
        img = self.image.tables[table]
        before = img[address:address + len(values)]
        img[address:address + len(values)] = values if table not in BIT_TABLES else [bool(v) for v in values]
        points = self.image.points_in(table, address, len(values))
        try:
            written = [(p.name, self.image.get(p.name)) for p in points]
        except ValueError:
            img[address:address + len(values)] = before
            return ExcCodes.ILLEGAL_VALUE
        try:
            for name, value in written:
                if refused := self.glue.on_write(name, value, self.image):
                    img[address:address + len(values)] = before  # a refused command changes nothing
                    return refused
        except Exception:
            img[address:address + len(values)] = before  # nor does one the model failed on
            raise
        return None

_FC_NAMES = {1: "read coils", 2: "read discrete inputs", 3: "read holding registers", 4: "read input registers",
             5: "write single coil", 6: "write single register", 15: "write multiple coils",
             16: "write multiple registers"}
_EXC_NAMES = {1: "ILLEGAL_FUNCTION", 2: "ILLEGAL_ADDRESS", 3: "ILLEGAL_VALUE", 4: "DEVICE_FAILURE", 6: "DEVICE_BUSY",
              11: "GATEWAY_TARGET_NO_RESPONSE"}


def _values(fc: int, pdu: bytes, answer: bytes) -> list[Any]:
    """The values a request read (from its answer) or wrote (from the request), for the debug log."""
    if fc in (1, 2):
        qty = struct.unpack_from(">H", pdu, 3)[0]
        return [int(b) for b in _unpack_bits(answer[2:], qty)]
    if fc in (3, 4):
        return list(struct.unpack(f">{(len(answer) - 2) // 2}H", answer[2:]))
    if fc == 5:
        return [int(pdu[3:5] == b"\xff\x00")]
    if fc == 6:
        return [struct.unpack_from(">H", pdu, 3)[0]]
    if fc == 15:
        qty = struct.unpack_from(">H", pdu, 3)[0]
        return [int(b) for b in _unpack_bits(pdu[6:], qty)]
    if fc == 16:
        return list(struct.unpack(f">{(len(pdu) - 6) // 2}H", pdu[6:]))
    return []


class _TcpConnection(asyncio.Protocol):
    """One Modbus TCP client: MBAP frames parsed as they come, each answered in order."""

    def __init__(self, stub: ModbusServer) -> None:
        self.stub = stub
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.paused = False
        self.last_ns = time.perf_counter_ns()
        self.served = 0  # requests for this unit answered

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        name = transport.get_extra_info("peername")
        self.peer = f"{name[0]}:{name[1]}" if isinstance(name, tuple) else str(name)
        if (sock := transport.get_extra_info("socket")) is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        self.stub.stats["connections"] += 1
        self.stub.log.info("Modbus TCP connection accepted", extra={"peer": self.peer})
        self.stub._admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.stub.log.info("Modbus TCP connection closed", extra={"peer": self.peer, "requests": self.served,
                                                                  **({"error": str(exc)} if exc else {})})
        self.stub.connections.pop(id(self), None)
        self.transport = None
        self.buf.clear()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    # flow control: a client that does not read its answers is not read from either
    def pause_writing(self) -> None:
        self.paused = True
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self.paused = False
        if self.transport is not None:
            self.transport.resume_reading()
            self._parse(time.perf_counter_ns())

    def data_received(self, data: bytes) -> None:
        rx_ns = time.perf_counter_ns()  # where the bytes arrived
        self.last_ns = rx_ns
        self.buf += data
        self._parse(rx_ns)

    def _parse(self, rx_ns: int) -> None:
        stub, buf = self.stub, self.buf
        while len(buf) >= MBAP_HEADER and not self.paused and self.transport is not None:
            tid, proto, length, unit = struct.unpack_from(">HHHB", buf)
            if not 2 <= length <= MBAP_MAX_LENGTH:
                # the frame's end cannot be found: nothing after it can be trusted either
                stub.stats["bad_length"] += 1
                stub.refusals.note("connections sending an MBAP length outside 2..254 (closed)", self.peer)
                self.transport.close()
                buf.clear()
                return
            if len(buf) < 6 + length:
                return  # the rest of the frame is still on its way
            pdu = bytes(buf[MBAP_HEADER:6 + length])
            del buf[:6 + length]
            if proto != 0:
                stub.stats["bad_protocol"] += 1
                stub.refusals.note(f"frames with protocol id {proto} (not Modbus: dropped)", self.peer)
                continue
            if unit != stub.unit:
                stub.wrong_unit(unit, self.peer, answered=True)
                answer = _exception_pdu(pdu[0], GATEWAY_TARGET_NO_RESPONSE)
            else:
                answer = stub.handle_pdu(pdu, rx_ns, self.peer)
                self.served += 1
            if self.transport is not None:
                self.transport.write(struct.pack(">HHHB", tid, 0, len(answer) + 1, unit) + answer)


def _rtu_request_length(buf: bytes | bytearray) -> int | None:
    """The length of the RTU request at the start of ``buf`` by its function code (0: cannot
    tell yet, more bytes needed; None: a code whose length only the line's silence tells)."""
    fc = buf[1]
    if fc in (1, 2, 3, 4, 5, 6):
        return 8
    if fc in (15, 16):
        return 9 + buf[6] if len(buf) >= 7 else 0
    return None


class _RtuLine:
    """Modbus RTU on a serial device (a pty's peer path, a UART): requests framed by their
    function code's length (answered at once), anything else judged after ``RTU_SILENCE_S`` of
    silence — a whole burst with a good CRC is a request (a code outside the contract gets
    exception 1), else it is noise and dropped. Requests for other unit ids (and broadcasts,
    unit 0) are not answered and not executed."""

    def __init__(self, stub: ModbusServer, path: str, baudrate: int, parity: str) -> None:
        self.stub, self.path = stub, path
        self.loop = asyncio.get_running_loop()
        self.ser = serial.Serial(path, baudrate=baudrate, parity=parity, timeout=0)
        self.fd = self.ser.fileno()
        os.set_blocking(self.fd, False)
        self.buf = bytearray()
        self.rx_ns = 0
        self.dropped_bytes = 0
        self._silence: asyncio.TimerHandle | None = None
        self.loop.add_reader(self.fd, self._readable)

    def close(self) -> None:
        if self._silence is not None:
            self._silence.cancel()
        with contextlib.suppress(ValueError, OSError):
            self.loop.remove_reader(self.fd)
        self.ser.close()

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        except OSError:  # EIO: the other side of a pty is not open right now
            data = b""
        if not data:
            self.loop.remove_reader(self.fd)  # retried shortly: the master may come back
            self.loop.call_later(0.05, self._reattach)
            return
        self.rx_ns = time.perf_counter_ns()
        self.buf += data
        if self._silence is not None:
            self._silence.cancel()
        self._parse()
        if self.buf:
            self._silence = self.loop.call_later(RTU_SILENCE_S, self._judge)

    def _reattach(self) -> None:
        if self.stub.server is self:
            with contextlib.suppress(ValueError, OSError):
                self.loop.add_reader(self.fd, self._readable)

    def _parse(self) -> None:
        buf = self.buf
        while len(buf) >= 4:
            n = _rtu_request_length(buf)
            if n is None or n == 0 or len(buf) < n:
                break  # silence decides (RTU_SILENCE_S), or more bytes come
            if int.from_bytes(buf[n - 2:n], "little") != _crc16(buf[:n - 2]):
                break  # not a frame of that length: judged whole after the silence
            frame = bytes(buf[:n])
            del buf[:n]
            self._request(frame)
        if len(buf) > RTU_MAX_FRAME:
            self._drop("bytes past the longest RTU frame (dropped)")

    def _judge(self) -> None:
        """The line went silent: what is left is one frame (a good CRC over all of it) or noise."""
        self._silence = None
        buf = self.buf
        if len(buf) >= 4 and int.from_bytes(buf[-2:], "little") == _crc16(buf[:-2]):
            frame = bytes(buf)
            buf.clear()
            self._request(frame)
        elif buf:
            self._drop("frames with a bad CRC or cut short (dropped)")

    def _drop(self, what: str) -> None:
        self.stub.stats["rtu_dropped"] += 1
        self.dropped_bytes += len(self.buf)
        self.buf.clear()
        self.stub.refusals.note(what, None)

    def _request(self, frame: bytes) -> None:
        stub, unit, pdu = self.stub, frame[0], frame[1:-2]
        if unit != stub.unit:
            if unit == 0:
                stub.stats["broadcast"] += 1
                stub.refusals.note("broadcasts (unit id 0)", None, "not in the contract: not executed")
            else:
                stub.wrong_unit(unit, None, answered=False)
            return
        n = _rtu_request_length(frame)
        if n is not None and n != len(frame):  # a contract code with a length its fields contradict
            answer = _exception_pdu(pdu[0], ILLEGAL_VALUE)
        else:
            answer = stub.handle_pdu(pdu, self.rx_ns, None)
        out = memoryview(rtu_frame(unit, answer))
        while out:
            try:
                out = out[os.write(self.fd, out):]
            except OSError:  # nobody reads and the line's buffer is full: the answer is lost
                self.dropped_bytes += len(out)
                return
