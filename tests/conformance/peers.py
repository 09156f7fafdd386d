"""Deliberately broken peers for the conformance kit's tests.

* ``static_peer``: what pymodbus' simulator serves — every read answered with zeros whatever the
  address, every write acknowledged and forgotten, unknown function codes never answered.
* ``served_glue``: a firmware stub's glue served in this process (``firmware_stubs.modbus.ModbusStub``
  on its own loop thread), so a test can give it a defect the stub does not have as a knob.
* ``stock_pymodbus_peer``: pymodbus' own server over plain register tables, as it comes: it
  answers function codes the contract does not list (8, 17, 22, 43 …), and FC22 writes.
* ``LateStateWheel``: a money wheel that shows a new ``spin_id`` before it shows ``spinning``
  (until its first index pulse): the spin-state transition the rig relies on is broken.
"""

from __future__ import annotations

import asyncio
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from devices.money_wheel import MoneyWheelParams
from firmware_stubs.modbus import ModbusStub, ModelClock
from firmware_stubs.money_wheel import MoneyWheelGlue
from hil.wire.registers import default_map

#: a bench-top money wheel: ~2 turns in ~2 s, so a conformance run takes seconds
FAST_WHEEL = {"inertia_kg_m2": 1.0, "push_speed_mean_rps": 3.0, "peg_loss_j": 0.3, "clapper_barrier_j": 0.4,
              "bearing_friction_torque_n_m": 10.0}
FAST_TOP_SLOT = {"spin_duration_mean_s": 0.5, "spin_duration_sd_s": 0, "min_spin_duration_s": 0.2,
                 "reel2_extra_s": 0.2}


def param_args(params: dict[str, Any]) -> list[str]:
    return [a for k, v in params.items() for a in ("--param", f"{k}={v}")]


class _LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="peer", daemon=True)
        self.thread.start()

    def run(self, coro, timeout_s: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    def close(self) -> None:
        """End every task on the loop (and let their transports close), then stop and join it."""
        async def drain() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # a closed transport closes its socket in a callback the loop runs next: run it here,
            # before the loop stops, or the socket outlives the peer
            for _ in range(3):
                await asyncio.sleep(0)

        self.run(drain())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@contextmanager
def static_peer() -> Iterator[str]:
    """A Modbus TCP peer serving static zeros; yields its URL."""
    lt = _LoopThread()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readexactly(7)
                tid, _proto, length, unit = struct.unpack(">HHHB", head)
                pdu = await reader.readexactly(length - 1)
                fc = pdu[0]
                if fc in (1, 2, 3, 4):
                    _start, count = struct.unpack(">HH", pdu[1:5])
                    data = bytes((count + 7) // 8) if fc in (1, 2) else bytes(2 * count)
                    answer = bytes([fc, len(data)]) + data
                elif fc in (5, 6):
                    answer = pdu[:5]
                elif fc in (15, 16):
                    answer = pdu[:5]
                else:
                    continue  # never answered
                writer.write(struct.pack(">HHHB", tid, 0, len(answer) + 1, unit) + answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = lt.run(asyncio.start_server(handle, "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]

    async def close() -> None:  # in the loop's thread: asyncio's Server is not thread-safe
        server.close()
        await server.wait_closed()

    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        try:
            lt.run(close())
        finally:
            lt.close()


@contextmanager
def stock_pymodbus_peer(words: int = 1024) -> Iterator[str]:
    """pymodbus' ``ModbusTcpServer`` over zeroed tables of ``words`` registers and bits each (unit
    1), with its default function codes; yields its URL."""
    from pymodbus.server import ModbusTcpServer
    from pymodbus.simulator import DataType, SimData, SimDevice

    lt = _LoopThread()
    bits = [SimData(address=0, count=words, values=False, datatype=DataType.BITS)]
    regs = [SimData(address=0, count=words, values=0, datatype=DataType.UINT16)]
    device = SimDevice(id=1, simdata=(bits, bits, regs, regs), use_bit_addressing=True)

    async def start() -> ModbusTcpServer:
        server = ModbusTcpServer(device, address=("127.0.0.1", 0))
        await server.serve_forever(background=True)
        return server

    server = lt.run(start())
    port = server.transport.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        try:
            lt.run(server.shutdown())
        finally:
            lt.close()


@contextmanager
def served_glue(device: str, make_glue, time_scale: float = 1.0) -> Iterator[str]:
    """``make_glue(clock, rmap)``'s glue served over Modbus TCP in this process; yields the URL."""
    lt = _LoopThread()
    rmap = default_map(device)
    clock = ModelClock(time_scale)
    stub = ModbusStub(rmap, make_glue(clock, rmap), clock)
    port = lt.run(stub.start_tcp("127.0.0.1", 0))
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        lt.run(stub.stop())
        lt.close()


class LateStateWheel(MoneyWheelGlue):
    """Shows a new spin's id (and its start) while ``state`` still says the previous spin's
    ``at_rest``; ``spinning`` comes with the first index pulse."""

    def telemetry(self, device: str, kind: str, payload: dict[str, Any]) -> None:
        shown = self._values["spin_id"]
        late = kind == "spin_start" and payload["spin_id"] > shown
        if late:
            before = self._values["state"]
        super().telemetry(device, kind, payload)
        if late:
            self._set(state=before)


def late_state_wheel(**params: Any):
    def make(clock: ModelClock, rmap):
        return LateStateWheel(clock, MoneyWheelParams(**{**FAST_WHEEL, **params}), np.random.default_rng(5), rmap)
    return make

