"""Modbus RTU over a pty, with the wire time of the configured baud rate.

ptys ignore baud rate: bytes written to one end are readable at the other at once. A stub that
wants the timing of a real RS-485 line (``--modbus rtu://pty?baudrate=9600&parity=E``) therefore
serves on one pty pair and lets the rig open another, with ``WireTimeRelay`` between the two
masters: every burst of bytes read from one side is written to the other once the line would
have carried it and the receiver could have seen the frame end —

    start   = max(arrival, when the line in that direction is free)
    free    = start + n × char_s                 (the line is busy meanwhile)
    deliver = free + t3.5                        (the RTU inter-frame silence)

``char_s = bits_per_char / baudrate`` with ``bits_per_char`` = 1 start + data bits + 1 parity
bit unless ``parity`` is N + stop bits (8N1 = 10, 8E1 = 11), and t3.5 = 3.5 × char_s up to
19 200 baud, 1.75 ms above (Modbus over Serial Line V1.02, § 2.5.1.1). A 2-register FC3 read at
9600 8E1 (8 bytes out, 9 back) thus takes at least (8 + 9 + 2 × 3.5) × 11 / 9600 s = 27.5 ms.
Delivery is never early (the relay re-checks the clock before writing); it may be late by the
relay thread's scheduling.

    rig ── peer path (rig pair) ──[relay thread]── server pair's peer path ── pymodbus server
"""

from __future__ import annotations

import errno
import os
import select
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from firmware_stubs.pty import PtyPair, open_pty

#: Longest the relay blocks in select (s): bounds how long ``close()`` waits for it.
WAKE_S = 0.05
#: Most bytes one direction holds on their way (a UART's buffer): a sender writing faster than
#: the line carries is not read from until the line caught up, so its bytes wait in the pty (and
#: its writes block) as on a real port; the relay's memory stays bounded.
MAX_QUEUED_BYTES = 4096


def bits_per_char(parity: str = "N", stopbits: int = 1, bytesize: int = 8) -> int:
    return 1 + bytesize + (0 if parity.upper() == "N" else 1) + stopbits


def char_time_s(baudrate: int, parity: str = "N", stopbits: int = 1, bytesize: int = 8) -> float:
    return bits_per_char(parity, stopbits, bytesize) / baudrate


def t35_s(baudrate: int, parity: str = "N", stopbits: int = 1, bytesize: int = 8) -> float:
    """The RTU inter-frame silence: 3.5 characters, fixed at 1.75 ms above 19 200 baud."""
    return 3.5 * char_time_s(baudrate, parity, stopbits, bytesize) if baudrate <= 19_200 else 0.00175


def frame_wire_time_s(n_bytes: int, baudrate: int, parity: str = "N", stopbits: int = 1, bytesize: int = 8) -> float:
    """From a frame's first bit leaving to its receiver seeing the frame end."""
    return n_bytes * char_time_s(baudrate, parity, stopbits, bytesize) + t35_s(baudrate, parity, stopbits, bytesize)


@dataclass
class _Direction:
    src: int
    dst: int
    free_ns: int = 0
    queue: deque[tuple[int, bytes]] = field(default_factory=deque)  # (deliver at perf_counter_ns, bytes)
    bytes_relayed: int = 0
    dropped_bytes: int = 0
    queued_bytes: int = 0


class WireTimeRelay:
    """Two pty pairs and the thread relaying between their masters at the line's pace.

    ``server_path``: what the Modbus server opens; ``peer_path``: what the rig opens. Both
    peers stay open in this process for the relay's life (so either side may close and reopen
    its end). ``close()`` stops the thread, joins it and closes every descriptor."""

    def __init__(self, baudrate: int, parity: str = "N", stopbits: int = 1, bytesize: int = 8) -> None:
        self.char_ns = char_time_s(baudrate, parity, stopbits, bytesize) * 1e9
        self.t35_ns = t35_s(baudrate, parity, stopbits, bytesize) * 1e9
        self.server: PtyPair = open_pty()
        try:
            self.rig: PtyPair = open_pty()
        except OSError:
            self.server.close()
            raise
        for fd in (self.server.master_fd, self.rig.master_fd):
            os.set_blocking(fd, False)
        self.to_server = _Direction(self.rig.master_fd, self.server.master_fd)
        self.to_rig = _Direction(self.server.master_fd, self.rig.master_fd)
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="rtu-pty-relay", daemon=True)
        self._thread.start()

    @property
    def server_path(self) -> str:
        return self.server.peer_path

    @property
    def peer_path(self) -> str:
        return self.rig.peer_path

    def close(self) -> None:
        self._stop.set()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        self._thread.join(5)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self.server.close()
        self.rig.close()

    # ------------------------------------------------------------- the relay thread
    def _run(self) -> None:
        dirs = (self.to_server, self.to_rig)
        while not self._stop.is_set():
            now = time.perf_counter_ns()
            due = [d.queue[0][0] for d in dirs if d.queue]
            timeout = WAKE_S if not due else max(0.0, min(min(due) - now, WAKE_S * 1e9) * 1e-9)
            sources = [d.src for d in dirs if d.queued_bytes < MAX_QUEUED_BYTES]
            try:
                ready, _, _ = select.select([*sources, self._wake_r], [], [], timeout)
            except (OSError, ValueError):
                return
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 64)
                except OSError:
                    pass
            rx_ns = time.perf_counter_ns()
            for d in dirs:
                if d.src in ready:
                    self._receive(d, rx_ns)
            for d in dirs:
                self._deliver(d)

    def _receive(self, d: _Direction, rx_ns: int) -> None:
        try:
            data = os.read(d.src, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:  # EIO: the slave side is not open right now
                raise
            time.sleep(0.001)
            return
        if not data:
            return
        start = max(rx_ns, d.free_ns)
        d.free_ns = round(start + len(data) * self.char_ns)
        d.queue.append((round(d.free_ns + self.t35_ns), data))
        d.queued_bytes += len(data)

    def _deliver(self, d: _Direction) -> None:
        while d.queue and d.queue[0][0] <= time.perf_counter_ns():  # never early
            _, data = d.queue.popleft()
            d.queued_bytes -= len(data)
            view = memoryview(data)
            while view:
                try:
                    n = os.write(d.dst, view)
                except OSError:  # nobody reads that side and its buffer is full: the bytes are lost
                    d.dropped_bytes += len(view)
                    break
                view = view[n:]
                d.bytes_relayed += n
