"""The stubs' Modbus server under bad requests (issue 13, "Modbus robustness"; docs/wire/README.md,
"Answers to bad requests"; docs/security.md, "Modbus robustness"):

* every function code the contract does not list gets exception 1 and changes nothing;
* a request for another unit id gets exception 0x0B on TCP (silence on RTU), and a thousand of them
  cost a few rate-limited log lines, not a traceback each;
* malformed MBAP frames, FC5 values other than ON/OFF, pipelined requests, RTU frames with a bad
  CRC or for another unit, broadcasts;
* ``current_peer()`` names the TCP client being served.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import socket
import struct
import time
import tty
from typing import Any

import pytest
from pymodbus.client import AsyncModbusTcpClient

from firmware_stubs.launch import launch
from firmware_stubs.modbus import (CONTRACT_FUNCTIONS, RTU_SILENCE_S, ModbusStub, ModelClock, RefusalLog,
                                   RegisterImage, current_peer, rtu_frame)
from hil.wire.registers import default_map
from tests.stubs.test_stub_fuzz import mbap, tcp_address, usage

WAGERING = default_map("wagering")
#: a request PDU for each function code a server might implement (Modbus Application Protocol
#: V1.1b3 § 6), aimed at the wagering map's command points, so a server that executed one would
#: change something
PLAUSIBLE = {
    7: b"", 8: b"\x00\x00\x12\x34", 11: b"", 12: b"", 17: b"",
    20: b"\x07\x06\x00\x01\x00\x00\x00\x01", 21: b"\x09\x06\x00\x01\x00\x00\x00\x01\x00\x07",
    22: struct.pack(">HHH", 4, 0x0000, 0xFFFF),  # mask write press_inject_seq := 0xFFFF
    23: struct.pack(">HHHHB", 0, 1, 4, 1, 2) + b"\x00\x09",  # read/write press_inject_seq := 9
    24: b"\x00\x00", 43: b"\x0e\x01\x00",
}


def exchange(sock: socket.socket, frames: bytes, answers: int, timeout_s: float = 5.0) -> list[tuple[int, int, bytes]]:
    """Send ``frames``; read ``answers`` MBAP answers: (tid, unit, pdu)."""
    sock.sendall(frames)
    sock.settimeout(timeout_s)
    buf, out = b"", []
    while len(out) < answers:
        while len(buf) < 7 or len(buf) < 6 + struct.unpack_from(">H", buf, 4)[0]:
            chunk = sock.recv(65536)
            assert chunk, f"the stub closed the connection after {len(out)} answers"
            buf += chunk
        tid, proto, length, unit = struct.unpack_from(">HHHB", buf)
        assert proto == 0
        out.append((tid, unit, buf[7:6 + length]))
        buf = buf[6 + length:]
    return out


def snapshot(sock: socket.socket) -> dict[str, bytes]:
    """Every holding register and coil of the wagering map, raw."""
    got = {}
    for table, fc, most in (("holding", 3, 125), ("coil", 1, 2000)):
        size = max([p.end for p in WAGERING.points if p.table == table], default=0)
        for start in range(0, size, most):
            n = min(most, size - start)
            ((_, _, pdu),) = exchange(sock, mbap(1, 1, struct.pack(">BHH", fc, start, n)), 1)
            assert pdu[0] == fc, pdu.hex(" ")
            got[f"{table}@{start}"] = pdu
    return got


@pytest.fixture(scope="module")
def wagering_stub():
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0") as stub:
        yield stub


def test_every_function_code_outside_the_contract_is_exception_1_and_changes_nothing(wagering_stub):
    """0..255 except the contract's 1-6, 15, 16: exception 1 with the request's code + 0x80 (on
    main FC 8, 11, 12, 17, 20-24 and 43 were answered, FC22 returned success, 200 and 255 gave
    exception 4, and other codes an exception with function code 0x80)."""
    with socket.create_connection(tcp_address(wagering_stub.url)) as sock:
        before = snapshot(sock)
        codes = [fc for fc in range(256) if fc not in CONTRACT_FUNCTIONS]
        frames = b"".join(mbap(fc, 1, bytes([fc]) + PLAUSIBLE.get(fc, b"\x00\x00\x00\x01")) for fc in codes)
        answers = exchange(sock, frames, len(codes))
        after = snapshot(sock)
    wrong = {tid: pdu.hex(" ") for tid, _unit, pdu in answers if pdu != bytes([(tid | 0x80) & 0xFF, 1])}
    assert not wrong, wrong
    assert [tid for tid, _, _ in answers] == codes
    assert after == before, "a function code outside the contract changed a register or coil"


def test_other_unit_ids_get_exception_0x0B_and_a_few_log_lines():
    """Units 0, 9, 255 × 1,000 requests: every one exception 11 (GATEWAY_TARGET_NO_RESPONSE) with
    its own unit id; the stub's stderr grows by a few lines (on main: 1.17 MB of tracebacks)."""
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0") as stub:
        _other_units(stub)


def _other_units(wagering_stub) -> None:
    pid = wagering_stub.proc.pid
    before = usage(pid).stderr_bytes
    units = [(0, 9, 255)[i % 3] for i in range(1000)]
    with socket.create_connection(tcp_address(wagering_stub.url)) as sock:
        answers = exchange(sock, b"".join(mbap(i, u, b"\x03\x00\x00\x00\x01") for i, u in enumerate(units)), 1000)
        ((_, _, ok),) = exchange(sock, mbap(7, 1, b"\x04\x00\x00\x00\x01"), 1)
        port = sock.getsockname()[1]
    assert [(u, pdu) for _, u, pdu in answers] == [(u, b"\x83\x0b") for u in units]
    assert ok == b"\x04\x02\x00\x07", "the device's own unit stopped answering"
    grown = usage(pid).stderr_bytes - before
    assert 0 < grown < 2048, f"stderr grew {grown} B for 1,000 requests for other units"
    with open(f"/proc/{pid}/fd/2", "rb") as err:
        text = err.read().decode()
    assert f"refused requests for unit id 9 from 127.0.0.1:{port}" in text, text[-600:]
    assert "Traceback" not in text


def test_pipelined_requests_are_answered_in_order(wagering_stub):
    with socket.create_connection(tcp_address(wagering_stub.url)) as sock:
        answers = exchange(sock, b"".join(mbap(i, 1, b"\x04\x00\x00\x00\x01") for i in range(300)), 300)
    assert [(tid, pdu) for tid, _, pdu in answers] == [(i, b"\x04\x02\x00\x07") for i in range(300)]


def test_malformed_mbap_frames(wagering_stub):
    """A protocol id other than 0: the frame is dropped, the connection serves on; a length
    outside 2..254 (the frame's end cannot be found): the connection is closed; a PDU whose
    length contradicts its fields: exception 3; FC5 with a value other than FF00/0000: exception
    3 (on main the coil was set ON)."""
    address = tcp_address(wagering_stub.url)
    with socket.create_connection(address) as sock:
        (answer,) = exchange(sock, mbap(1, 1, b"\x03\x00\x00\x00\x01", proto=1) + mbap(2, 1, b"\x04\x00\x00\x00\x01"), 1)
        assert answer == (2, 1, b"\x04\x02\x00\x07")
        answers = exchange(sock, mbap(3, 1, b"\x03\x00\x00\x00") + mbap(4, 1, b"\x03\x00\x00\x00\x01\x00")
                           + mbap(5, 1, b"\x10\x00\x00\x00\x01\x02\x00") + mbap(6, 1, b"\x05\x00\x00\x00\x01")
                           + mbap(7, 1, b"\x01\x00\x00\x00\x01"), 5)
        assert [pdu for _, _, pdu in answers] == [b"\x83\x03", b"\x83\x03", b"\x90\x03", b"\x85\x03", b"\x01\x01\x00"]
    for length in (0, 1, 255, 65535):
        with socket.create_connection(address) as sock:
            sock.settimeout(5)
            sock.sendall(mbap(1, 1, b"\x03\x00\x00\x00\x01", length=length) + mbap(2, 1, b"\x03\x00\x00\x00\x01"))
            assert sock.recv(64) == b"", f"length {length}: the connection stayed open"


def test_a_client_that_never_reads_is_not_read_from(wagering_stub):
    """20 MB of requests on a connection nobody reads the answers of: the stub stops reading
    (flow control) instead of buffering answers; its memory stays bounded; others are served."""
    pid = wagering_stub.proc.pid
    rss = usage(pid).rss_kb
    flood = socket.create_connection(tcp_address(wagering_stub.url))
    try:
        flood.setblocking(False)
        blob, sent = b"".join(mbap(i, 1, b"\x03\x00\x00\x00\x7d") for i in range(1000)), 0
        end = time.monotonic() + 10
        while sent < 20_000_000 and time.monotonic() < end:
            if select.select([], [flood], [], 0.2)[1]:
                try:
                    sent += flood.send(blob)
                except BlockingIOError:
                    pass
            else:
                break  # the stub stopped reading: the kernel's buffers are full
        with socket.create_connection(tcp_address(wagering_stub.url)) as sock:
            assert exchange(sock, mbap(9, 1, b"\x04\x00\x00\x00\x01"), 1) == [(9, 1, b"\x04\x02\x00\x07")]
        print(f"offered {sent} B of requests on a connection that never read")
        assert sent < 20_000_000, "the stub read 20 MB of requests whose answers nobody read"
        assert usage(pid).rss_kb - rss < 20_000
    finally:
        flood.close()


# --------------------------------------------------------------------------- RTU
def rtu_exchange(fd: int, frame: bytes, want: int, limit_s: float = 0.5) -> bytes:
    os.write(fd, frame)
    got, end = b"", time.monotonic() + limit_s
    while len(got) < want and time.monotonic() < end:
        if select.select([fd], [], [], 0.05)[0]:
            got += os.read(fd, 256)
    return got


def test_rtu_answers_only_its_unit_and_the_contract():
    """Over RTU: a code outside the contract is exception 1 (framed by the line's silence); a
    request for another unit, a broadcast (unit 0) and a frame with a bad CRC are not answered,
    and the broadcast write is not executed; the next good request is answered."""
    master, peer = os.openpty()
    tty.setraw(master)
    tty.setraw(peer)
    try:
        with launch("wagering", "--modbus", f"rtu://{os.ttyname(peer)}?baudrate=115200"):
            seats = rtu_frame(1, b"\x04\x00\x00\x00\x01")
            assert rtu_exchange(master, seats, 7, 5.0) == rtu_frame(1, b"\x04\x02\x00\x07")
            assert rtu_exchange(master, rtu_frame(1, b"\x08\x00\x00\x12\x34"), 5) == rtu_frame(1, b"\x88\x01")
            assert rtu_exchange(master, rtu_frame(1, b"\xc8\x00"), 5) == rtu_frame(1, b"\xc8\x01")
            assert rtu_exchange(master, rtu_frame(9, b"\x04\x00\x00\x00\x01"), 1, 0.2) == b""
            assert rtu_exchange(master, rtu_frame(0, b"\x05\x00\x01\xff\x00"), 1, 0.2) == b""  # betting_open ON
            bad = bytearray(seats)
            bad[-1] ^= 0xFF
            assert rtu_exchange(master, bytes(bad), 1, 0.2) == b""
            time.sleep(RTU_SILENCE_S * 2)
            assert rtu_exchange(master, rtu_frame(1, b"\x01\x00\x01\x00\x01"), 6) == rtu_frame(1, b"\x01\x01\x00")
    finally:
        os.close(master)
        os.close(peer)


# --------------------------------------------------------------------------- in process
class _Recorder:
    """A glue of one holding register that records who wrote it."""

    def __init__(self, clock: ModelClock) -> None:
        self.clock = clock
        self.writers: list[str | None] = []

    def on_write(self, name: str, value: Any, image: RegisterImage):
        self.writers.append(current_peer())
        return None

    def refresh(self, image: RegisterImage) -> None:
        image.set("device_clock_ns", self.clock.ns())


def test_current_peer_names_the_tcp_client_being_served():
    clock = ModelClock()
    glue = _Recorder(clock)

    async def run() -> tuple[str, list]:
        stub = ModbusStub(WAGERING, glue, clock)
        port = await stub.start_tcp("127.0.0.1", 0)
        client = AsyncModbusTcpClient("127.0.0.1", port=port, timeout=2, retries=0)
        try:
            assert await client.connect()
            rr = await client.write_register(WAGERING.point("press_inject_seat").address, 3, device_id=1)
            assert not rr.isError(), rr
            me = client.ctx.transport.get_extra_info("sockname")
            return f"{me[0]}:{me[1]}", list(glue.writers)
        finally:
            client.close()
            await stub.stop()

    me, writers = asyncio.run(run())
    assert writers == [me]
    assert current_peer() is None  # outside a request


def test_refusal_log_is_bounded_and_counts_every_refusal(caplog):
    """10,000 refusals of 3 kinds from 40 peers: one line per kind and peer first seen (at most
    max_keys), then one summary line each; the counts add up."""
    log = RefusalLog(interval_s=3600, max_keys=16)
    with caplog.at_level(logging.WARNING, logger="firmware_stubs.modbus"):
        for i in range(10_000):
            log.note(f"requests for unit id {i % 3}", f"10.0.0.{i % 40}:502")
        log.flush()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == log.lines <= 16 + 16 + 1, lines
    first = [ln for ln in lines if "repeats are summed" in ln]
    more = sum(int(ln.split("refused ", 1)[1].split()[0]) for ln in lines if " more " in ln or " other " in ln)
    assert len(first) == 16 and len(first) + more == 10_000 == log.total, lines


def test_idle_strangers_are_evicted_before_a_served_client(wagering_stub):
    """MAX_CONNECTIONS + 24 connections that send half a frame and nothing else: the stub keeps at
    most MAX_CONNECTIONS, evicting those never served first, and a client it serves keeps being
    answered on its connection; the fds come back once the strangers hang up."""
    from firmware_stubs.modbus import MAX_CONNECTIONS

    address, pid = tcp_address(wagering_stub.url), wagering_stub.proc.pid
    with socket.create_connection(address) as rig:
        assert exchange(rig, mbap(1, 1, b"\x04\x00\x00\x00\x01"), 1) == [(1, 1, b"\x04\x02\x00\x07")]
        fds = usage(pid).fds
        strangers = [socket.create_connection(address) for _ in range(MAX_CONNECTIONS + 24)]
        try:
            for s in strangers:
                s.sendall(b"\x00\x01\x00")
            time.sleep(0.3)
            assert usage(pid).fds <= fds + MAX_CONNECTIONS
            assert exchange(rig, mbap(2, 1, b"\x04\x00\x00\x00\x01"), 1) == [(2, 1, b"\x04\x02\x00\x07")]
        finally:
            for s in strangers:
                s.close()
    end = time.monotonic() + 5
    while usage(pid).fds > fds and time.monotonic() < end:
        time.sleep(0.05)
    assert usage(pid).fds <= fds


def test_the_conformance_clause_for_illegal_functions_runs_over_rtu():
    """``MB-illegal-function`` over RTU (skipped there before): the stub passes; pymodbus' own
    serial server — which the stubs served through, and which leaves a function code it does not
    know unanswered over RTU — fails, saying so."""
    from pymodbus.server import ModbusSerialServer
    from pymodbus.simulator import SimData, SimDevice
    from pymodbus.simulator.simutils import DataType

    from hil.conformance.core import ClauseFailed
    from hil.conformance.modbus import ModbusContext
    from hil.conformance.modbus_common import illegal_function

    async def clause(url: str, serve_pymodbus_on: str | None = None) -> str:
        server = None
        if serve_pymodbus_on:
            blocks = tuple([SimData(0, count=8, values=0, datatype=DataType.BITS if i < 2 else DataType.REGISTERS)]
                           for i in range(4))
            server = ModbusSerialServer(SimDevice(1, simdata=blocks), port=serve_pymodbus_on, baudrate=115200)
            await server.serve_forever(background=True)
        ctx = ModbusContext(url, 1, WAGERING, timeout_s=0.5)
        try:
            await ctx.connect()
            return await illegal_function(ctx)
        finally:
            ctx.close()
            if server is not None:
                await server.shutdown()

    pairs = [os.openpty(), os.openpty()]
    for fds in pairs:
        for fd in fds:
            tty.setraw(fd)
    (m1, p1), (m2, p2) = pairs
    try:
        # one pty pair is the line between the kit (its master side) and the device (its peer path)
        with launch("wagering", "--modbus", f"rtu://{os.ttyname(p1)}?baudrate=115200"):
            relay = _PtyJoin(m1, m2)  # the kit opens p2; bytes cross between the masters
            try:
                assert "exception 1" in asyncio.run(clause(f"rtu://{os.ttyname(p2)}?baudrate=115200"))
            finally:
                relay.close()
        relay = _PtyJoin(m1, m2)
        try:
            with pytest.raises(ClauseFailed, match="was not answered"):
                asyncio.run(clause(f"rtu://{os.ttyname(p2)}?baudrate=115200", serve_pymodbus_on=os.ttyname(p1)))
        finally:
            relay.close()
    finally:
        for fd in (m1, p1, m2, p2):
            os.close(fd)


class _PtyJoin:
    """Bytes read from either pty master are written to the other (a null-modem cable), in a thread."""

    def __init__(self, a: int, b: int) -> None:
        import threading

        self.a, self.b, self.stop = a, b, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.a, self.b], [], [], 0.05)
            for src in ready:
                try:
                    data = os.read(src, 4096)
                except OSError:
                    continue
                try:
                    os.write(self.b if src == self.a else self.a, data)
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


def test_a_write_the_model_fails_on_is_exception_4_told_once_and_changes_nothing(caplog):
    """A glue raising on a command (a defect of the model): exception 4, DEVICE_FAILURE, the
    register keeps its value, one log line names the exception and where — never a traceback."""
    clock = ModelClock()

    class Failing(_Recorder):
        def on_write(self, name: str, value: Any, image: RegisterImage):
            raise ZeroDivisionError("a model defect")

    stub = ModbusStub(WAGERING, Failing(clock), clock)
    seat = WAGERING.point("press_inject_seat").address
    with caplog.at_level(logging.WARNING, logger="firmware_stubs.modbus"):
        answers = [stub.handle_pdu(struct.pack(">BHH", 6, seat, 5), time.perf_counter_ns(), "10.0.0.1:502")
                   for _ in range(100)]
        stub.refusals.flush()
    assert answers == [b"\x86\x04"] * 100
    assert stub.image.tables["holding"][seat] == 0
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "ZeroDivisionError: a model defect at test_stub_modbus_robustness.py:" in lines[0], lines
    assert "refused 99 more" in lines[1] and not any(r.exc_info for r in caplog.records)


def test_the_do_module_answers_as_the_devices_do():
    """The stub's relay module (``--actuator-modbus``) is served by the same server: FC1, FC5,
    FC15 only (FC3 and FC22 exception 1, FC5 0001 exception 3), another unit id exception 0x0B,
    an address past its outputs exception 2 — and no traceback on its stderr."""
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--actuator-modbus", "tcp://127.0.0.1:0") as stub:
        with socket.create_connection(tcp_address(stub.actuator)) as sock:
            answers = exchange(sock, mbap(1, 1, b"\x03\x00\x00\x00\x01") + mbap(2, 1, b"\x16\x00\x00\xff\xff\x00\x00")
                               + mbap(3, 1, b"\x05\x00\x00\x00\x01") + mbap(4, 9, b"\x01\x00\x00\x00\x01")
                               + mbap(5, 1, b"\x01\xff\x00\x00\x01") + mbap(6, 1, b"\x01\x00\x00\x00\x02"), 6)
        with open(f"/proc/{stub.proc.pid}/fd/2", "rb") as err:
            text = err.read().decode()
    assert [pdu for _, _, pdu in answers] == [b"\x83\x01", b"\x96\x01", b"\x85\x03", b"\x81\x0b", b"\x81\x02",
                                              b"\x01\x01\x00"]
    assert "Traceback" not in text and "refused requests for unit id 9" in text, text[-800:]
