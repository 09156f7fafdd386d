"""Fuzzing live stub processes (issue 13, "Modbus robustness"): malformed Modbus TCP frames (wrong
lengths and protocol ids, truncated and oversized frames, random function codes, payloads and
unit ids, connection churn, half-open connections), malformed serial frames
(docs/wire/serial-frames.md) over the stub's pty, and RTU frames with bad CRCs over a pty.

Between batches and at the end the stub still answers a valid request with the right value
(every batch ends with one: the device's ``seats`` over Modbus, a ``HELLO`` over the frames), every
answer it sent is a well-formed frame, and its RSS, open descriptors and threads stay bounded
(measured from /proc before and after). The default suite sends 10^4 frames of each kind; the
slow suite 10^5 (``CROUPIER_FUZZ_N`` sets the count). Each test prints its figures.
"""

from __future__ import annotations

import os
import random
import select
import socket
import struct
import threading
import time
import tty
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

from firmware_stubs.launch import launch
from firmware_stubs.modbus import CONTRACT_FUNCTIONS, RTU_SILENCE_S, _crc16, rtu_frame
from hil.wire.frames import BY_NAME, SYNC, FrameParser, crc16, encode

QUICK_N = 10_000
SLOW_N = int(os.environ.get("CROUPIER_FUZZ_N", "100000"))
SEATS = 7  # WageringParams().seats: what the valid read must return
#: frames per TCP connection: a new connection after each (churn)
PER_CONNECTION = 500
#: the bounds asserted between the start and the end of a run
RSS_GROWTH_KB = 20_000
FD_SLACK = 3
#: exception codes a stub may answer (Modbus Application Protocol § 7; 0x0B: another unit id)
EXCEPTIONS = {1, 2, 3, 4, 6, 0x0B}
UNIT = 1
SENTINEL_TID = 0xFFFF
#: RTU frames written back to back before the line falls silent (the stub judges what it could
#: not frame after RTU_SILENCE_S), and groups between two valid reads
RTU_GROUP = 10
RTU_GROUPS_PER_CHECK = 20
DEADLINE_S = 30.0  # safety net for one batch's answers (never asserted as a duration)


# --------------------------------------------------------------------------- the process
@dataclass(frozen=True)
class Usage:
    rss_kb: int
    fds: int
    threads: int
    stderr_bytes: int


def usage(pid: int) -> Usage:
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status").read().splitlines() if ":" in line)
    return Usage(int(status["VmRSS"].split()[0]), len(os.listdir(f"/proc/{pid}/fd")), int(status["Threads"]),
                 os.stat(f"/proc/{pid}/fd/2").st_size)


def settled_usage(pid: int, baseline: Usage, limit_s: float = 5.0) -> Usage:
    """Usage once the stub closed what the fuzzer hung up (its fds back within the slack), or
    whatever it is after ``limit_s``."""
    end = time.monotonic() + limit_s
    while True:
        u = usage(pid)
        if u.fds <= baseline.fds + FD_SLACK or time.monotonic() > end:
            return u
        time.sleep(0.05)


def assert_bounded(before: Usage, after: Usage) -> None:
    assert after.rss_kb - before.rss_kb < RSS_GROWTH_KB, f"RSS grew {before.rss_kb} → {after.rss_kb} kB"
    assert abs(after.fds - before.fds) <= FD_SLACK, f"open fds {before.fds} → {after.fds}"
    assert after.threads == before.threads, f"threads {before.threads} → {after.threads}"


def tcp_address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("tcp://").split("?", 1)[0].rsplit(":", 1)
    return host, int(port)


@dataclass
class Figures:
    name: str
    frames: int = 0
    valid_checked: int = 0
    answers: int = 0
    kinds: Counter = field(default_factory=Counter)

    def report(self, before: Usage, after: Usage) -> str:
        line = (f"FUZZ {self.name}: {self.frames} frames sent, {self.answers} answers, {self.valid_checked} valid "
                f"answers checked; RSS {before.rss_kb} → {after.rss_kb} kB, fds {before.fds} → {after.fds}, "
                f"threads {before.threads} → {after.threads}, stderr {before.stderr_bytes} → {after.stderr_bytes} B; "
                f"{dict(sorted(self.kinds.items()))}")
        print(line)
        return line


# --------------------------------------------------------------------------- Modbus TCP
def mbap(tid: int, unit: int, pdu: bytes, proto: int = 0, length: int | None = None) -> bytes:
    return struct.pack(">HHHB", tid, proto, len(pdu) + 1 if length is None else length, unit) + pdu


def read_seats(tid: int) -> bytes:
    return mbap(tid, UNIT, struct.pack(">BHH", 4, 0, 1))


def random_pdu(rng: random.Random) -> bytes:
    """A PDU a stub must survive: a contract code with random (mostly near-the-map) fields and
    lengths, or any code with any payload."""
    roll = rng.random()
    if roll < 0.5:
        fc = rng.choice(sorted(CONTRACT_FUNCTIONS))
        address = rng.randrange(0, 64) if rng.random() < 0.8 else rng.randrange(0, 65536)
        if fc in (1, 2, 3, 4):
            qty = rng.choice([0, 1, 2, 4, 8, 125, 126, 2000, 2001, rng.randrange(65536)])
            pdu = struct.pack(">BHH", fc, address, qty)
        elif fc in (5, 6):
            value = rng.choice([0, 0xFF00, 1, rng.randrange(65536)])
            pdu = struct.pack(">BHH", fc, address, value)
        else:
            qty = rng.randrange(0, 130)
            nbytes = (qty + 7) // 8 if fc == 15 else 2 * qty
            if rng.random() < 0.3:
                nbytes = rng.randrange(256)
            pdu = struct.pack(">BHHB", fc, address, qty, nbytes & 0xFF) + rng.randbytes(min(nbytes, 246))
        if rng.random() < 0.2:  # cut short or padded
            pdu = pdu[:rng.randrange(1, len(pdu) + 1)] if rng.random() < 0.5 else pdu + rng.randbytes(rng.randrange(1, 8))
        return pdu[:253]
    fc = rng.randrange(256)
    return bytes([fc]) + rng.randbytes(rng.choice([0, 1, 4, 5, 8, rng.randrange(253)]))


def random_unit(rng: random.Random) -> int:
    return UNIT if rng.random() < 0.8 else rng.choice([0, 2, 9, 247, 248, 255, rng.randrange(256)])


def tcp_batch(rng: random.Random, n: int) -> tuple[bytes, Counter, bool]:
    """``n`` malformed frames for one connection, ending with the valid sentinel read unless
    the batch ends the connection (a length the stub cannot trust, or a frame cut short)."""
    out, kinds = bytearray(), Counter()
    for i in range(n):
        tid = i % 0xFFFE
        roll = rng.random()
        if roll < 0.03:
            kinds["bad_protocol"] += 1
            out += mbap(tid, UNIT, random_pdu(rng), proto=rng.randrange(1, 65536))
        elif roll < 0.05:
            kinds["oversized"] += 1
            out += mbap(tid, UNIT, bytes([3]) + rng.randbytes(252))  # the largest PDU there is
        else:
            kinds["random_pdu"] += 1
            out += mbap(tid, random_unit(rng), random_pdu(rng))
    ending = rng.random()
    if ending < 0.1:
        kinds["bad_length_end"] += 1
        out += mbap(1, UNIT, b"\x03\x00\x00\x00\x01", length=rng.choice([0, 1, 255, 256, 65535, rng.randrange(255, 65536)]))
        return bytes(out), kinds, False
    if ending < 0.2:
        kinds["truncated_end"] += 1
        out += mbap(1, UNIT, b"\x10\x00\x00\x00\x02\x04\x00\x01\x00\x02")[:rng.randrange(1, 16)]
        return bytes(out), kinds, False
    return bytes(out) + read_seats(SENTINEL_TID), kinds, True


def exchange(address: tuple[str, int], blob: bytes) -> bytes:
    """Send ``blob`` on a new connection while reading what comes back; hang up once the answer
    to the sentinel came (or the stub closed, or nothing came for a while after the last byte)."""
    sock = socket.create_connection(address)
    sock.setblocking(False)
    got, view, quiet_since = bytearray(), memoryview(blob), None
    deadline = time.monotonic() + DEADLINE_S
    try:
        while time.monotonic() < deadline:
            ready_r, ready_w, _ = select.select([sock], [sock] if view else [], [], 0.05)
            if ready_w:
                try:
                    view = view[sock.send(view[:65536]):]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:  # the stub closed on a frame it could not trust
                    view = memoryview(b"")
            if ready_r:
                try:
                    chunk = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    chunk = b"x"
                except OSError:
                    break
                if not chunk:
                    break
                if chunk != b"x":
                    got += chunk
                    quiet_since = None
                if _has_sentinel(got):
                    break
            elif not view:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since > 0.3:
                    break
        return bytes(got)
    finally:
        sock.close()


def _has_sentinel(got: bytearray) -> bool:
    return len(got) >= 11 and got[-11:-9] == SENTINEL_TID.to_bytes(2, "big")


def check_answers(stream: bytes, figures: Figures, want_sentinel: bool) -> None:
    """Every answer is a well-formed MBAP frame with a known function or exception code; the
    sentinel's answer (last) carries the right value."""
    i, last = 0, None
    while i < len(stream):
        assert len(stream) - i >= 9, f"a cut answer at byte {i}: {stream[i:].hex(' ')}"
        tid, proto, length, _unit = struct.unpack_from(">HHHB", stream, i)
        pdu = stream[i + 7:i + 6 + length]
        assert proto == 0 and 2 <= length <= 254 and len(pdu) == length - 1, stream[i:i + 16].hex(" ")
        if pdu[0] & 0x80:
            assert len(pdu) == 2 and pdu[1] in EXCEPTIONS, f"answer {pdu.hex(' ')}"
            figures.kinds[f"exception_{pdu[1]}"] += 1
        else:
            assert pdu[0] in CONTRACT_FUNCTIONS, f"answered function code {pdu[0]}: {pdu.hex(' ')}"
        figures.answers += 1
        last = (tid, pdu)
        i += 6 + length
    if want_sentinel:
        assert last is not None and last[0] == SENTINEL_TID, "the valid read at the end of the batch was not answered"
        assert last[1] == bytes([4, 2]) + SEATS.to_bytes(2, "big"), f"seats read back as {last[1].hex(' ')}"
        figures.valid_checked += 1


def valid_read(address: tuple[str, int], figures: Figures) -> None:
    check_answers(exchange(address, read_seats(SENTINEL_TID)), figures, want_sentinel=True)


@contextmanager
def half_open(address: tuple[str, int], n: int, rng: random.Random) -> Iterator[None]:
    """``n`` connections that send a part of a frame and then nothing (more than the stub
    keeps: it evicts the idlest)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.create_connection(address)
            s.sendall(read_seats(1)[:rng.randrange(1, 11)])
            socks.append(s)
        yield
    finally:
        for s in socks:
            s.close()


def fuzz_modbus_tcp(n: int, seed: int) -> str:
    rng = random.Random(seed)
    figures = Figures("modbus-tcp")
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0") as stub:
        address, pid = tcp_address(stub.url), stub.proc.pid
        valid_read(address, figures)
        before = usage(pid)
        sent = 0
        with half_open(address, 24, rng):
            while sent < n:
                k = min(PER_CONNECTION, n - sent)
                blob, kinds, ends_valid = tcp_batch(rng, k)
                figures.kinds.update(kinds)
                check_answers(exchange(address, blob), figures, ends_valid)
                sent += k
                if not ends_valid:
                    valid_read(address, figures)
            figures.kinds["half_open"] += 24
            valid_read(address, figures)  # while the half-open connections are held
        figures.frames = sent
        after = settled_usage(pid, before)
        valid_read(address, figures)
        assert stub.proc.poll() is None, "the stub died"
    assert_bounded(before, after)
    assert after.stderr_bytes - before.stderr_bytes < 64 * 1024, "the stub's log grew with the bad requests"
    assert figures.valid_checked >= n // PER_CONNECTION
    return figures.report(before, after)


def test_modbus_tcp_fuzz_quick():
    fuzz_modbus_tcp(QUICK_N, seed=13)


@pytest.mark.slow
@pytest.mark.soak
def test_modbus_tcp_fuzz_slow():
    fuzz_modbus_tcp(SLOW_N, seed=1013)


# --------------------------------------------------------------------------- serial frames over a pty
def frame_with(body: bytes) -> bytes:
    covered = len(body).to_bytes(2, "little") + body
    return SYNC + covered + crc16(covered).to_bytes(2, "little")


COMMANDS = ["HELLO", "OPEN_BETTING", "LOCK_OUT", "PRESS", "ARM_PROBE", "SPIN", "TOP_SLOT_SPIN"]


def random_serial_frame(rng: random.Random) -> tuple[bytes, str]:
    roll = rng.random()
    if roll < 0.15:
        return rng.randbytes(rng.randrange(1, 40)), "noise"
    if roll < 0.30:  # a sync word and a length, then whatever
        return SYNC + rng.randbytes(rng.randrange(0, 60)), "bad_crc_or_length"
    if roll < 0.40:
        return SYNC + rng.choice([0, 1, 2, 3, 513, 65535]).to_bytes(2, "little") + rng.randbytes(4), "bad_length"
    if roll < 0.55:  # a good CRC around a random body: bad version, unknown type, bad payload
        return frame_with(bytes([rng.choice([1, 1, 1, 2, 0, 255])]) + rng.randbytes(rng.randrange(0, 40))), "bad_body"
    if roll < 0.65:  # a known command type, a random payload, a good CRC
        msg = BY_NAME[rng.choice(COMMANDS)]
        code = next(c for c, m in _codes().items() if m == msg.name)
        return frame_with(bytes([1]) + rng.randbytes(2) + bytes([code]) + rng.randbytes(rng.randrange(0, 80))), "random_payload"
    if roll < 0.75:  # a valid command with edge values
        return encode("PRESS", rng.randrange(65536), seat=rng.randrange(256), spot=rng.choice(
            ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]),
            stake_cents=rng.choice([0, 1, 100, 2**32 - 1, rng.randrange(2**32)])), "press"
    if roll < 0.85:
        msg = rng.choice(["OPEN_BETTING", "LOCK_OUT"])  # OPEN_BETTING carries a (here: wrong, all-zero) key
        f = encode(msg, rng.randrange(65536), **({f"key_{i}": 0 for i in range(16)} if msg == "OPEN_BETTING" else {}))
        return f[:rng.randrange(1, len(f))], "truncated"
    if roll < 0.95:
        f = bytearray(encode("LOCK_OUT", rng.randrange(65536)))
        f[rng.randrange(len(f))] ^= 1 << rng.randrange(8)
        return bytes(f), "bit_flip"
    return frame_with(bytes([1, 0, 0]) + bytes([_code("ARM_PROBE")]) + rng.randbytes(rng.randrange(0, 140))), "arm_probe"


def _codes() -> dict[int, str]:
    from hil.wire.frames import MESSAGES
    return {m.code: m.name for m in MESSAGES}


def _code(name: str) -> int:
    return BY_NAME[name].code


class PtyReader:
    """Reads the stub's frames from the pty peer in a thread, parsed as the rig would."""

    def __init__(self, fd: int) -> None:
        self.fd, self.parser = fd, FrameParser()
        self.frames: list = []
        self.cond = threading.Condition()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            with self.cond:
                self.frames += self.parser.feed(data, time.perf_counter_ns())
                self.cond.notify_all()

    def wait_for(self, pred: Callable[[list], bool], limit_s: float = DEADLINE_S) -> bool:
        end = time.monotonic() + limit_s
        with self.cond:
            while not pred(self.frames):
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


def serial_hello_answered(fd: int, reader: PtyReader, seq: int, figures: Figures) -> None:
    """The valid request: a HELLO, answered by its ACK (status ok) and the device's HELLO."""
    mark = len(reader.frames)
    os.write(fd, b"\x00" * 8 + encode("HELLO", seq, device_kind="wagering", protocol_version=1, clock_ns=0))

    def answered(frames: list) -> bool:
        new = frames[mark:]
        return any(f.msg_type == "ACK" and f.fields["acked_seq"] == seq and f.fields["status"] == "ok" for f in new) \
            and any(f.msg_type == "HELLO" and f.fields["device_kind"] == "wagering" for f in new)

    assert reader.wait_for(answered), f"HELLO seq {seq} not answered; since: {reader.frames[mark:][-5:]}"
    figures.valid_checked += 1


def fuzz_serial(n: int, seed: int) -> str:
    rng = random.Random(seed)
    figures = Figures("serial-frames")
    with launch("wagering", "--pty") as stub:
        pid = stub.proc.pid
        fd = os.open(stub.url.split("?")[0], os.O_RDWR | os.O_NOCTTY)  # the query: the supervisor key
        tty.setraw(fd)
        reader = PtyReader(fd)
        try:
            serial_hello_answered(fd, reader, 0xFFFF, figures)
            before = usage(pid)
            sent, batch = 0, 0
            while sent < n:
                k = min(2000, n - sent)
                blob = bytearray()
                for _ in range(k):
                    frame, kind = random_serial_frame(rng)
                    blob += frame
                    figures.kinds[kind] += 1
                _write_all(fd, bytes(blob))
                sent += k
                batch += 1
                time.sleep(0.06)  # a frame left cut short is given up after 50 ms of silence
                serial_hello_answered(fd, reader, 0xFF00 + batch % 256, figures)
            figures.frames = sent
            figures.answers = len(reader.frames)
            after = usage(pid)
            serial_hello_answered(fd, reader, 0xFFFE, figures)
            assert stub.proc.poll() is None, "the stub died"
        finally:
            reader.close()
            os.close(fd)
    assert_bounded(before, after)
    assert after.stderr_bytes - before.stderr_bytes < 64 * 1024
    return figures.report(before, after)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:4096]):]


def test_serial_frame_fuzz_quick():
    fuzz_serial(QUICK_N, seed=13)


@pytest.mark.slow
@pytest.mark.soak
def test_serial_frame_fuzz_slow():
    fuzz_serial(SLOW_N, seed=1013)


# --------------------------------------------------------------------------- Modbus RTU over a pty
def random_rtu(rng: random.Random) -> tuple[bytes, str]:
    roll = rng.random()
    pdu = random_pdu(rng)
    if roll < 0.4:
        f = bytearray(rtu_frame(random_unit(rng), pdu))
        f[-1] ^= 1 + rng.randrange(255)
        return bytes(f), "bad_crc"
    if roll < 0.6:
        return rng.randbytes(rng.randrange(1, 30)), "noise"
    if roll < 0.7:
        f = rtu_frame(UNIT, pdu)
        return f[:rng.randrange(1, len(f))], "truncated"
    return rtu_frame(random_unit(rng), pdu), "random_pdu"


def rtu_read_seats(fd: int, figures: Figures) -> None:
    """After the line's silence, a valid FC4 read of ``seats`` gets the right value."""
    time.sleep(0.03)  # RTU_SILENCE_S: what the fuzzer left is judged and dropped
    while select.select([fd], [], [], 0)[0]:
        os.read(fd, 65536)
    os.write(fd, rtu_frame(UNIT, struct.pack(">BHH", 4, 0, 1)))
    want = rtu_frame(UNIT, bytes([4, 2]) + SEATS.to_bytes(2, "big"))
    got, end = b"", time.monotonic() + 5
    while len(got) < len(want) and time.monotonic() < end:
        if select.select([fd], [], [], 0.1)[0]:
            got += os.read(fd, 256)
    assert got == want, f"seats over RTU: {got.hex(' ')}"
    figures.valid_checked += 1


def fuzz_rtu(n: int, seed: int) -> str:
    rng = random.Random(seed)
    figures = Figures("modbus-rtu")
    master, peer = os.openpty()
    tty.setraw(peer)
    tty.setraw(master)
    try:
        with launch("wagering", "--modbus", f"rtu://{os.ttyname(peer)}?baudrate=115200") as stub:
            pid = stub.proc.pid
            rtu_read_seats(master, figures)
            before = usage(pid)
            sent = 0
            while sent < n:  # groups of RTU_GROUP frames back to back, then the line's silence
                for _ in range(RTU_GROUPS_PER_CHECK):
                    blob = bytearray()
                    for _ in range(min(RTU_GROUP, n - sent)):
                        frame, kind = random_rtu(rng)
                        blob += frame
                        figures.kinds[kind] += 1
                        sent += 1
                    _write_all(master, bytes(blob))
                    time.sleep(RTU_SILENCE_S + 0.005)
                    while select.select([master], [], [], 0)[0]:
                        figures.kinds["answer_bytes"] += len(os.read(master, 65536))
                rtu_read_seats(master, figures)
            figures.frames = sent
            after = usage(pid)
            assert stub.proc.poll() is None, "the stub died"
    finally:
        os.close(master)
        os.close(peer)
    assert_bounded(before, after)
    assert _crc16(b"123456789") == 0x4B37  # the CRC the frames above carry: Modbus' (check value)
    return figures.report(before, after)


def test_modbus_rtu_fuzz_quick():
    fuzz_rtu(QUICK_N // 10, seed=13)


@pytest.mark.slow
@pytest.mark.soak
def test_modbus_rtu_fuzz_slow():
    fuzz_rtu(SLOW_N // 10, seed=1013)
