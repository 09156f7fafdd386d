"""A Modbus digital-output (relay) module wired across a stub wagering device's seat buttons.

docs/wire/actuator.md, "Modbus DO module": coils 0..N−1 are outputs, set with FC5 (or FC15) and
read back with FC1; the module answers a write after it set the output. Here each output is wired,
by the default wiring coil = (seat − 1) × S + k (k the spot's index in the device map's
``press_log_spot`` enum, S its size), to the button input of the stub's model
(``WageringSim.button``): the physical wiring, inside one process, so a test reaches the device
and the relay module that presses its buttons. A closing output is a contact closing at the
instant the request's bytes arrived (the model is synced to it first). An address past the outputs
is exception ILLEGAL_ADDRESS; the outputs read back as set.

    croupier stub wagering --modbus tcp://127.0.0.1:0 --actuator-modbus tcp://127.0.0.1:0
    → READY wagering tcp://127.0.0.1:PORT actuator=tcp://127.0.0.1:PORT2

The progressive table game system's stub serves the same (``croupier stub progressive-system
--modbus … --actuator-modbus …``): its map's ``press_log_spot`` enum has five spots, so seat *s*'s
button for spot *k* is coil (s − 1) × 5 + k (``21+3-progressive`` of seat 1 is coil 2); a closing
is a progressive wager press with the system's button stake, pending until the dealer confirms it
(tests/e2e/test_e2e_progressive_actuator_modbus.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pymodbus.constants import ExcCodes
from pymodbus.server import ModbusTcpServer
from pymodbus.simulator import SimData, SimDevice
from pymodbus.simulator.simutils import DataType, SimUtils

from devices.actuator import Wiring


class DoModule:
    """``outputs`` coils; ``on_output(seat, spot, closed, rx_ns)`` for each output that changes."""

    def __init__(self, wiring: Wiring, on_output: Callable[[int, str, bool, int], None], unit: int = 1) -> None:
        self.wiring, self.on_output, self.unit = wiring, on_output, unit
        self.outputs = max(wiring.coils.values(), default=-1) + 1
        self.by_coil = {c: key for key, c in wiring.coils.items()}
        self.state = [False] * self.outputs
        self.rx_ns = 0
        self.server: ModbusTcpServer | None = None

    def _stamp(self, sending: bool, data: bytes) -> bytes:
        if not sending:
            self.rx_ns = time.perf_counter_ns()
        return data

    def _device(self) -> SimDevice:
        words = (self.outputs + 15) // 16
        blocks = ([SimData(0, count=16 * max(words, 1), values=False, datatype=DataType.BITS)],  # count: bits
                  [SimData(0, count=16, values=False, datatype=DataType.BITS)],
                  [SimData(0, count=1, values=0, datatype=DataType.REGISTERS)],
                  [SimData(0, count=1, values=0, datatype=DataType.REGISTERS)])
        return SimDevice(self.unit, simdata=blocks, action=self._action)

    async def _action(self, fc: int, _start: int, address: int, count: int, registers: list[int],
                      values: list[int] | list[bool] | None) -> ExcCodes | None:
        if fc not in (1, 5, 15):
            return ExcCodes.ILLEGAL_FUNCTION
        if address + count > self.outputs:
            return ExcCodes.ILLEGAL_ADDRESS
        if values is not None:
            for i, v in enumerate(values[:count]):
                coil, closed = address + i, bool(v)
                if self.state[coil] != closed:
                    self.state[coil] = closed
                    seat, spot = self.by_coil[coil]
                    self.on_output(seat, spot, closed, self.rx_ns)  # before the answer: the output is set
        packed = SimUtils.bitsToRegisters(self.state + [False] * (-len(self.state) % 16))
        registers[:len(packed)] = packed
        return None

    async def start_tcp(self, host: str, port: int) -> int:
        self.server = ModbusTcpServer(self._device(), address=(host, port), trace_packet=self._stamp)
        await self.server.serve_forever(background=True)
        return self.server.transport.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.shutdown()


def wired_to(host) -> DoModule:
    """A DO module wired to the buttons of ``host``'s model (a ``firmware_stubs.__main__.DeviceHost``
    serving a wagering device or a progressive system; the model may be replaced per scenario)."""
    rmap = host.rmap
    enum = rmap.point("press_log_spot").enum
    spots = tuple(enum[code] for code in sorted(enum))
    seats = rmap.point("press_log_seat").count and 8  # the maps' per-seat arrays hold 8 seats

    def press(seat: int, spot: str, closed: bool, rx_ns: int) -> None:
        host.clock.sync(rx_ns or None)
        model = host.glue.model
        if 1 <= seat <= model.params.seats:
            model.button(seat, spot, closed)

    return DoModule(Wiring.of(spots, seats, None), press)
