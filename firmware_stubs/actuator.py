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

from collections.abc import Callable
import logging
from typing import Any

from devices.actuator import Wiring
from firmware_stubs.modbus import ModbusServer, Table


class DoModule(ModbusServer):
    """``outputs`` coils; ``on_output(seat, spot, closed, rx_ns)`` for each output that changes.
    Served by the stubs' own Modbus server (``firmware_stubs.modbus.ModbusServer``: the unit-id
    rule, malformed frames and rate-limited refusals as for the devices); FC1, FC5 and FC15 only,
    every other function code exception 1."""

    functions = frozenset({1, 5, 15})
    listener = ("actuator DO module", "--actuator-modbus", "press the device's seat buttons")

    def __init__(self, wiring: Wiring, on_output: Callable[[int, str, bool, int], None], unit: int = 1,
                 log: logging.Logger | None = None) -> None:
        super().__init__(unit, log)
        self.wiring, self.on_output = wiring, on_output
        self.outputs = max(wiring.coils.values(), default=-1) + 1
        self.by_coil = {c: key for key, c in wiring.coils.items()}
        self.state = [False] * self.outputs

    def table_size(self, table: Table) -> int:
        return self.outputs if table == "coil" else 0

    def cells(self, table: Table, address: int, qty: int) -> list[Any]:
        return self.state[address:address + qty]

    def point_names(self, table: Table, address: int, qty: int) -> list[str]:
        """The seat buttons the coils press (``seat3.main``)."""
        return [f"seat{key[0]}.{key[1]}" for c in range(address, address + qty) if (key := self.by_coil.get(c))]

    def serve(self, table: Table, address: int, values: list[Any] | None, rx_ns: int) -> None:
        self.requests += 1
        self.rx_ns = rx_ns
        for i, v in enumerate(values or ()):
            coil, closed = address + i, bool(v)
            if self.state[coil] != closed:
                self.state[coil] = closed
                if (key := self.by_coil.get(coil)) is not None:
                    self.on_output(*key, closed, rx_ns)  # before the answer: the output is set
        return None


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

    log = logging.getLogger(f"croupier.stub.{host.device}.actuator")
    return DoModule(Wiring.of(spots, seats, None), press, log=log)
