"""Firmware stubs served in-process on an asyncio loop, or run as their own process, with a
pymodbus client against them. Every server, client and process is ended in ``finally``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from pymodbus.client import AsyncModbusTcpClient

from firmware_stubs.modbus import ModbusStub, ModelClock
from firmware_stubs.launch import launch
from hil.wire.registers import RegisterMap

#: Simulated seconds per wall second: a ~15 s wheel spin takes well under a second.
TIME_SCALE = 40.0
#: Safety net for polls (wall seconds); tests assert behaviour, never how long it took.
POLL_LIMIT_S = 8.0
READY_TIMEOUT_S = 15.0


class Wire:
    """The rig's side of one stub: reads points by name, writes commands."""

    def __init__(self, client: AsyncModbusTcpClient, rmap: RegisterMap, unit: int = 1) -> None:
        self.client, self.map, self.unit = client, rmap, unit
        self.seq = 0

    async def read(self, *names: str) -> dict[str, Any]:
        """The points ``names`` (default: every readable point), one request per block."""
        out: dict[str, Any] = {}
        for block in self.map.read_blocks(names or None):
            c = self.client
            fn = {"coil": c.read_coils, "discrete": c.read_discrete_inputs,
                  "holding": c.read_holding_registers, "input": c.read_input_registers}[block.table]
            rr = await fn(block.start, count=block.count, device_id=self.unit)
            assert not rr.isError(), f"read {block.table} {block.start}+{block.count}: {rr}"
            words = rr.bits if block.table in ("coil", "discrete") else rr.registers
            out.update(self.map.decode_block(block, list(words)))
        return out

    async def command(self, label: str, seq: int | None = None, refused: int | None = None) -> int:
        """Write ``command`` and ``command_seq`` in one FC16 request (next seq by default);
        ``refused``: the exception code the device must answer instead."""
        if seq is None:
            self.seq = (self.seq + 1) & 0xFFFF
            seq = self.seq
        cmd, cseq = self.map.point("command"), self.map.point("command_seq")
        assert cseq.address == cmd.end, "command and command_seq must be adjacent"
        words = self.map.encode(cmd, label) + self.map.encode(cseq, seq)
        rr = await self.client.write_registers(cmd.address, words, device_id=self.unit)
        if refused is not None:
            assert rr.isError() and rr.exception_code == refused, f"write command {label!r} seq {seq}: {rr}"
            return seq
        assert not rr.isError(), f"write command {label!r} seq {seq}: {rr}"
        return seq

    async def poll_until(self, done, *names: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Poll (``names``, default all) until ``done(values)``; returns the last values and every poll."""
        seen = []
        deadline = time.monotonic() + POLL_LIMIT_S
        while True:
            values = await self.read(*names)
            seen.append(values)
            if done(values):
                return values, seen
            assert time.monotonic() < deadline, f"never reached the awaited state; last poll: {values}"
            await asyncio.sleep(0.01)


@asynccontextmanager
async def serve(rmap: RegisterMap, glue: Any, clock: ModelClock) -> AsyncIterator[Wire]:
    """``glue`` served by a ``ModbusStub`` on 127.0.0.1 (a free port), with a client connected."""
    stub = ModbusStub(rmap, glue, clock)
    client = None
    try:
        port = await stub.start_tcp("127.0.0.1", 0)
        client = AsyncModbusTcpClient("127.0.0.1", port=port, timeout=2, retries=0)
        assert await client.connect(), f"cannot connect to the stub on port {port}"
        yield Wire(client, rmap)
    finally:
        if client is not None:
            client.close()
        await stub.stop()


@asynccontextmanager
async def connect(url: str, rmap: RegisterMap) -> AsyncIterator[Wire]:
    host, port = url.removeprefix("tcp://").split("?", 1)[0].rsplit(":", 1)  # the query: supervisor_key
    client = AsyncModbusTcpClient(host, port=int(port), timeout=2, retries=0)
    try:
        assert await client.connect(), f"cannot connect to {url}"
        yield Wire(client, rmap)
    finally:
        client.close()


class Tap:
    """Wraps a glue's telemetry: records (kind, payload) of every message the model sends."""

    def __init__(self, glue: Any) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        inner = glue.telemetry

        def tap(device: str, kind: str, payload: dict[str, Any]) -> None:
            self.events.append((kind, dict(payload)))
            inner(device, kind, payload)

        glue.telemetry = tap

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [p for k, p in self.events if k == kind]


@contextmanager
def stub_process(device: str, *args: str) -> Iterator[str]:
    """``python -m firmware_stubs DEVICE --modbus tcp://127.0.0.1:0 ...``; yields its URL."""
    with launch(device, "--modbus", "tcp://127.0.0.1:0", *args) as stub:
        yield stub.url


@pytest.fixture
def clock() -> ModelClock:
    return ModelClock(TIME_SCALE)


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for the test modules (a conftest is not imported by name)."""
    return SimpleNamespace(serve=serve, connect=connect, Tap=Tap, stub_process=stub_process,
                           time_scale=TIME_SCALE)
