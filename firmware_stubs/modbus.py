"""A device's SimPy model behind a Modbus server (TCP or RTU), paced by the wall clock.

The model's ``simpy.Environment`` is stepped from the wall clock on every request: when a
request's bytes arrive (stamped with ``time.perf_counter_ns()`` in pymodbus' packet hook), the
model is run up to that instant, a write is applied to the model as the command it is, and the
registers are refreshed from the model's state before the response is built. Between requests
nothing needs to run: the model's events are processed in order when the next request asks.

Device time (every ``*_ns`` register) is the model's clock: ns since the stub started, times
``time_scale`` (1.0 = real time), running ``ppm`` fast when the device clock is told to drift
(``ModelClock``). The glue between a model and its register map is a
``DeviceGlue`` (one per device kind).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import simpy
from pymodbus.constants import ExcCodes
from pymodbus.framer import FramerType
from pymodbus.server import ModbusSerialServer, ModbusTcpServer
from pymodbus.simulator import SimData, SimDevice
from pymodbus.simulator.simutils import DataType, SimUtils

from hil.wire.registers import BIT_TABLES, Point, RegisterMap, Table

#: pymodbus function code → the table it addresses
_FC_TABLE: dict[int, Table] = {1: "coil", 5: "coil", 15: "coil", 2: "discrete",
                               3: "holding", 6: "holding", 16: "holding", 22: "holding", 23: "holding",
                               4: "input"}
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


class ModbusStub:
    """Serves ``glue``'s model over Modbus with the register map ``rmap``."""

    def __init__(self, rmap: RegisterMap, glue: DeviceGlue, clock: ModelClock, unit: int = 1) -> None:
        self.map, self.glue, self.clock, self.unit = rmap, glue, clock, unit
        self.image = RegisterImage(rmap)
        #: arrival of the latest request's bytes. One stamp for all connections: a request may be
        #: synced to another connection's arrival if both came within one loop turn (tens of µs).
        self.rx_ns = 0
        self.requests = 0
        self.server: ModbusTcpServer | ModbusSerialServer | None = None
        glue.refresh(self.image)

    def replace_glue(self, glue: DeviceGlue) -> None:
        """A new model (the control endpoint configured one): fresh registers, refreshed from it."""
        self.glue = glue
        self.image = RegisterImage(self.map)
        glue.refresh(self.image)

    # ------------------------------------------------------------- pymodbus hooks
    def _stamp(self, sending: bool, data: bytes) -> bytes:
        if not sending:
            self.rx_ns = time.perf_counter_ns()
        return data

    def _device(self) -> SimDevice:
        blocks = []
        for t in _TABLES:
            n = max(self.image.size[t], 1)
            if t in BIT_TABLES:
                blocks.append([SimData(0, count=(n + 15) // 16, values=False, datatype=DataType.BITS)])
            else:
                blocks.append([SimData(0, count=n, values=0, datatype=DataType.REGISTERS)])
        return SimDevice(self.unit, simdata=tuple(blocks), action=self._action)

    async def _action(self, fc: int, _start: int, address: int, count: int, registers: list[int],
                      values: list[int] | list[bool] | None) -> None:
        table = _FC_TABLE[fc]
        self.requests += 1
        self.clock.sync(self.rx_ns or None)
        if values is not None and (refused := self._apply_write(table, address, list(values))):
            return refused
        self.glue.refresh(self.image)
        image = self.image.tables[table]
        if table in BIT_TABLES:
            packed = SimUtils.bitsToRegisters(image + [False] * (-len(image) % 16))
            registers[:len(packed)] = packed
        else:
            registers[:len(image)] = image

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
        for name, value in written:
            if refused := self.glue.on_write(name, value, self.image):
                img[address:address + len(values)] = before  # a refused command changes nothing
                return refused
        return None

    # ------------------------------------------------------------- serving
    async def start_tcp(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (port 0 = any free one); returns the bound port."""
        self.server = ModbusTcpServer(self._device(), address=(host, port), trace_packet=self._stamp)
        await self.server.serve_forever(background=True)
        return self.server.transport.sockets[0].getsockname()[1]

    async def start_rtu(self, path: str, baudrate: int = 115_200, parity: str = "N") -> None:
        self.server = ModbusSerialServer(self._device(), framer=FramerType.RTU, port=path, baudrate=baudrate,
                                         parity=parity, trace_packet=self._stamp)
        await self.server.serve_forever(background=True)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.shutdown()
            self.server = None
