"""Every stub listener holds the host policy itself (docs/security.md, "Loopback by default,
``--allow-remote``"), not only the command line: ``ModbusStub.start_tcp`` (the devices' Modbus TCP
server) and the actuator ``DoModule.start_tcp`` refuse a host that is not loopback before any
socket is opened, unless told ``allow_remote`` — which the command line passes through from
``--allow-remote``. (The control endpoint's ``ControlServer.start`` is tested in
test_stub_security.py; the serial wires and the test relay board open no listener on a host
they are given.)

Nothing here binds beyond loopback: the servers run on a loop whose ``create_server`` records the
bind instead of making it."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import firmware_stubs.__main__ as stub_cli
from devices.actuator import Wiring
from devices.money_wheel import MoneyWheelParams
from firmware_stubs.actuator import DoModule
from firmware_stubs.exposure import ExposureRefused
from firmware_stubs.modbus import ModbusServer, ModbusStub, ModelClock
from firmware_stubs.money_wheel import MoneyWheelGlue
from hil.wire.registers import default_map


class NoBindLoop(asyncio.SelectorEventLoop):
    """A loop that records each ``create_server`` (a bind) and refuses to make it."""

    def __init__(self) -> None:
        super().__init__()
        self.binds: list[tuple] = []

    async def create_server(self, factory, host=None, port=None, **kwargs):
        self.binds.append((host, port))
        raise OSError("not bound in this test")


def _modbus_stub() -> ModbusStub:
    rmap, clock = default_map("money-wheel"), ModelClock(1.0)
    return ModbusStub(rmap, MoneyWheelGlue(clock, MoneyWheelParams(), np.random.default_rng(1), rmap), clock)


def _do_module() -> DoModule:
    return DoModule(Wiring.of(("a", "b"), 2, None), lambda *_: None)


def _start(server: ModbusServer, host: str, **kwargs) -> tuple[list[tuple], BaseException]:
    loop = NoBindLoop()
    try:
        with pytest.raises((ExposureRefused, OSError)) as info:
            loop.run_until_complete(server.start_tcp(host, 5020, **kwargs))
        server.refusals.close()
        return loop.binds, info.value
    finally:
        loop.close()


@pytest.mark.parametrize("make, what, option", [(_modbus_stub, "Modbus TCP server", "--modbus"),
                                                (_do_module, "actuator DO module", "--actuator-modbus")])
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
def test_a_listener_refuses_a_host_beyond_loopback_without_binding_it(make, what, option, host):
    server = make()
    binds, exc = _start(server, host)
    assert isinstance(exc, ExposureRefused), exc
    assert binds == [] and server.server is None  # refused before any socket
    assert f"{option} tcp://" in str(exc) and what in str(exc) and "--allow-remote" in str(exc)

    # told allow_remote, it goes on to bind (here: the recording loop's bind)
    server = make()
    binds, exc = _start(server, host, allow_remote=True)
    assert not isinstance(exc, ExposureRefused) and binds == [(host, 5020)]


@pytest.mark.parametrize("make", [_modbus_stub, _do_module])
def test_a_listener_binds_loopback_without_being_told(make):
    server = make()
    binds, exc = _start(server, "127.0.0.1")
    assert not isinstance(exc, ExposureRefused) and binds == [("127.0.0.1", 5020)]


def test_the_command_line_passes_allow_remote_through_to_each_listener(monkeypatch, capsys):
    started = []

    class Started(Exception):
        pass

    async def start_tcp(self, host, port, allow_remote=False):
        started.append((type(self).__name__, host, allow_remote))
        if isinstance(self, DoModule):
            raise Started  # the last listener: stop before serving
        return 5020

    monkeypatch.setattr(ModbusServer, "start_tcp", start_tcp)
    for flag, allowed in (([], False), (["--allow-remote"], True)):
        started.clear()
        with pytest.raises(Started):
            stub_cli.main(["wagering", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0",
                           *flag])
        assert started == [("ModbusStub", "127.0.0.1", allowed), ("DoModule", "127.0.0.1", allowed)]
    capsys.readouterr()
