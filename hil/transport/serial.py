"""A framed serial link (docs/wire/serial-frames.md) over any pyserial URL.

``SerialLink`` opens ``serial.serial_for_url`` — a device path, a pty path, ``socket://``,
``rfc2217://``, ``loop://`` — and reads it on its own thread: pyserial 3.5 has no asyncio
support, and a thread blocked in ``read`` wakes the moment bytes arrive (select on a file
descriptor, a queue for ``loop://``), which is where the arrival is stamped with
``time.perf_counter_ns()``. The thread feeds a ``FrameParser`` and hands each frame to
``on_frame`` (on the reader thread: a consumer posts it where it belongs, e.g.
``env.call_soon_threadsafe``). ``close()`` ends the thread and joins it.

Faults go to ``on_fault(kind, detail)`` as the link sees them: every parser rejection (its
counter name: ``crc_error``, ``bad_length``, ``truncated`` …), ``seq_gap`` / ``seq_repeat`` in
the peer's sequence numbers, ``nak`` (an ACK whose status is not ok), ``timeout`` (a command
not ACKed within ``timeout_s``, or a silent peer: no byte for ``silence_s``), ``disconnected``
(the port failed; the thread then reconnects with back-off: 50 ms doubling to 2 s, and calls
``on_connect`` once the port is open again).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import serial

from hil.wire.frames import STATS, Frame, FrameParser, SeqTracker, encode

State = Literal["closed", "connected", "disconnected"]

#: Reader wake-up when nothing arrives (wall s): bounds how late timeouts are noticed and how
#: long ``close()`` waits for the thread. Arrival stamps do not depend on it.
READ_WAKE_S = 0.02
RECONNECT_FIRST_S = 0.05
RECONNECT_MAX_S = 2.0
#: Parser counters that are wire faults (``frames_ok`` is not; ``garbage_bytes`` comes with one).
FAULT_COUNTERS: tuple[str, ...] = tuple(k for k in STATS if k not in ("frames_ok", "garbage_bytes"))


class SerialWireError(Exception):
    """A send that could not go out (``kind``: ``disconnected``, ``closed``)."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind, self.detail = kind, detail
        super().__init__(f"{kind}: {detail}")


def open_failure(exc: BaseException) -> str:
    """Why a serial port did not open, said once: pyserial's SerialException repeats the path and
    the errno ("could not open port X: [Errno 2] No such file or directory: 'X'")."""
    errno = getattr(exc, "errno", None)
    if isinstance(errno, int):
        import os

        return os.strerror(errno)
    return str(exc) or type(exc).__name__


def _nothing(*_args: Any) -> None:
    return None


class SerialLink:
    """One framed link. ``send`` may be called from any thread (a lock serialises writers)."""

    def __init__(self, url: str, baudrate: int = 115_200, timeout_s: float = 0.5, *,
                 on_frame: Callable[[Frame], None] | None = None,
                 on_fault: Callable[[str, str], None] | None = None,
                 on_connect: Callable[[], None] | None = None,
                 silence_s: float = 3.0, truncate_after_s: float = 0.05, name: str = "serial") -> None:
        self.url, self.baudrate, self.timeout_s, self.silence_s = url, baudrate, timeout_s, silence_s
        self.truncate_after_ns = round(truncate_after_s * 1e9)
        self.on_frame, self.on_fault = on_frame or _nothing, on_fault or _nothing
        self.on_connect = on_connect or _nothing
        self.name = name
        self.parser = FrameParser()
        self.peer_seq = SeqTracker()
        self.state: State = "closed"
        self.faults: dict[str, int] = {}
        self.tx_frames = 0
        self.reconnects = 0
        self._seq = 0
        self._port: serial.SerialBase | None = None
        self._tx_lock = threading.Lock()
        self._unacked: dict[int, tuple[str, int]] = {}  # seq -> (type, tx_ns)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_rx_ns = 0
        self._silent = False
        self._reported = dict.fromkeys(FAULT_COUNTERS, 0)

    # ----------------------------------------------------------------- lifecycle
    def open(self) -> None:
        """Open the port (raises ``serial.SerialException`` if it cannot) and start reading."""
        self._open_port()
        self._thread = threading.Thread(target=self._read_forever, name=f"{self.name}-rx", daemon=True)
        self._thread.start()

    def _open_port(self) -> None:
        port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=READ_WAKE_S, write_timeout=1.0)
        with self._tx_lock:
            self._port = port
            self._unacked.clear()
        self.parser.expire(time.perf_counter_ns() + 10**12, 0)  # a frame cut by the reconnect is lost
        self.peer_seq.reset()
        self._last_rx_ns = time.perf_counter_ns()
        self._silent = False
        self.state = "connected"

    def close(self) -> None:
        """Stop reading, join the reader thread, close the port. Idempotent."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        with self._tx_lock:
            if self._port is not None:
                self._port.close()
                self._port = None
        self.state = "closed"

    # ----------------------------------------------------------------- sending
    def send(self, msg_type: str, **fields: object) -> tuple[int, int]:
        """Encode and write one frame with this link's next ``seq``; returns ``(seq, tx_ns)``,
        ``tx_ns`` stamped as the write started. Frames the peer ACKs are tracked for timeouts."""
        with self._tx_lock:
            if self._port is None or self.state != "connected":
                raise SerialWireError("disconnected" if self.state == "disconnected" else "closed",
                                      f"{self.url}: cannot send {msg_type}")
            seq = self._seq
            frame = encode(msg_type, seq, **fields)
            # Stamped as the write starts: the peer cannot have seen the frame earlier, so
            # [tx_ns, reply's rx_ns] surely holds the peer's answer (a stamp after the write may
            # come after the reply, when this thread is preempted inside the write).
            tx_ns = time.perf_counter_ns()
            try:
                self._port.write(frame)
            except (serial.SerialException, OSError) as exc:
                raise SerialWireError("disconnected", f"{self.url}: write failed: {exc}") from None
            self._seq = (seq + 1) & 0xFFFF
            self.tx_frames += 1
            self._unacked[seq] = (msg_type, tx_ns)
            return seq, tx_ns

    def send_event(self, msg_type: str, **fields: object) -> tuple[int, int]:
        """Send a frame the peer does not ACK (a device's event, or an ACK itself)."""
        seq, tx_ns = self.send(msg_type, **fields)
        with self._tx_lock:
            self._unacked.pop(seq, None)
        return seq, tx_ns

    def write_raw(self, data: bytes) -> None:
        """Write bytes as they are, outside the framing (fault injection on test benches)."""
        with self._tx_lock:
            if self._port is None:
                raise SerialWireError("closed", f"{self.url}: cannot write")
            self._port.write(data)

    # ----------------------------------------------------------------- stats
    @property
    def stats(self) -> dict[str, Any]:
        """Parser counters, the peer's seq losses and repeats, faults by kind, link state."""
        return {**self.parser.stats, "seq_lost": self.peer_seq.lost, "seq_repeated": self.peer_seq.repeated,
                "faults": dict(self.faults), "tx_frames": self.tx_frames, "unacked": len(self._unacked),
                "reconnects": self.reconnects, "state": self.state}

    def _fault(self, kind: str, detail: str) -> None:
        self.faults[kind] = self.faults.get(kind, 0) + 1
        try:
            self.on_fault(kind, detail)
        except Exception:  # noqa: BLE001 — a consumer's bug must not end the reader
            pass

    # ----------------------------------------------------------------- the reader thread
    def _read_forever(self) -> None:
        while not self._stop.is_set():
            port = self._port
            try:
                if port is None:
                    raise serial.SerialException("port closed")
                data = port.read(port.in_waiting or 1)
                rx_ns = time.perf_counter_ns()  # where the bytes arrived
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                if self._stop.is_set():
                    return
                self._disconnected(str(exc))
                continue
            if data:
                self._last_rx_ns = rx_ns
                self._silent = False
                self._dispatch(self.parser.feed(data, rx_ns))
            else:
                self._dispatch(self.parser.expire(rx_ns, self.truncate_after_ns))
            self._check_rejections()
            self._check_timeouts(rx_ns)

    def _dispatch(self, frames: list[Frame]) -> None:
        for f in frames:
            if f.msg_type == "HELLO":
                self.peer_seq.reset()  # the peer (re)started: it counts afresh
            gap = self.peer_seq.observe(f.seq)
            if gap > 0:
                self._fault("seq_gap", f"{gap} frame(s) lost before seq {f.seq}")
            elif gap < 0:
                self._fault("seq_repeat", f"seq {f.seq} received again")
            if f.msg_type == "ACK":
                with self._tx_lock:
                    sent = self._unacked.pop(f.fields["acked_seq"], None)
                if f.fields["status"] != "ok":
                    what = sent[0] if sent else "?"
                    self._fault("nak", f"{what} (seq {f.fields['acked_seq']}) answered {f.fields['status']}")
            try:
                self.on_frame(f)
            except Exception as exc:  # noqa: BLE001
                self._fault("bad_frame", f"{f.msg_type} seq {f.seq}: {exc!r}")

    def _check_rejections(self) -> None:
        stats = self.parser.stats
        for k in FAULT_COUNTERS:
            if (n := stats[k] - self._reported[k]) > 0:
                self._reported[k] = stats[k]
                self._fault(k, f"{n} candidate frame(s) rejected ({k}); garbage bytes so far "
                               f"{stats['garbage_bytes']}")

    def _check_timeouts(self, now_ns: int) -> None:
        limit = round(self.timeout_s * 1e9)
        with self._tx_lock:
            late = [(s, t) for s, t in self._unacked.items() if now_ns - t[1] > limit]
            for s, _ in late:
                del self._unacked[s]
        for s, (msg_type, _) in late:
            self._fault("timeout", f"{msg_type} (seq {s}) not ACKed within {self.timeout_s} s")
        if not self._silent and now_ns - self._last_rx_ns > self.silence_s * 1e9:
            self._silent = True
            self._fault("timeout", f"{self.url}: nothing received for {self.silence_s} s (no HEARTBEAT)")

    def _disconnected(self, detail: str) -> None:
        """The port failed: report it, then reopen with back-off until it works or we close."""
        self.state = "disconnected"
        with self._tx_lock:
            if self._port is not None:
                try:
                    self._port.close()
                except Exception:  # noqa: BLE001
                    pass
                self._port = None
        self._fault("disconnected", f"{self.url}: {detail}")
        delay = RECONNECT_FIRST_S
        while not self._stop.wait(delay):
            try:
                self._open_port()
            except (serial.SerialException, OSError, ValueError) as exc:
                self._fault("disconnected", f"{self.url}: reconnect failed: {exc}")
                delay = min(delay * 2, RECONNECT_MAX_S)
                continue
            self.reconnects += 1
            try:
                self.on_connect()
            except Exception as exc:  # noqa: BLE001
                self._fault("disconnected", f"{self.url}: on_connect failed: {exc!r}")
            return
