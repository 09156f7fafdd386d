"""A line-oriented serial link (vendor ASCII protocols: one message per CR LF line) over any
pyserial URL — the sibling of ``hil.transport.serial.SerialLink``, which speaks the project's
binary frames.

``LineLink`` *is* a ``SerialLink`` with its frame parser swapped for a ``LineParser``: the port,
the reader thread (arrival stamped with ``time.perf_counter_ns()`` where the bytes are read), the
silence timeout, the reconnect with back-off and ``close()`` are the framed link's own. It hands
every line to ``on_line(Line)`` on the reader thread — good lines and the bad ones alike (cut
short, overlong), each with its raw bytes, so a consumer records what it cannot use instead of
losing it. ``on_tick(now_ns)`` runs on every reader wake-up (at least every ``READ_WAKE_S``): where
a consumer times out the commands it sent (timeouts live in the I/O thread, never in a killed one).

The line framing (``Line``, ``LineParser``) is ``hil.wire.lines``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import serial

from hil.transport.serial import SerialLink, SerialWireError
from hil.wire.lines import Line, LineParser

def _nothing(*_args: Any) -> None:
    return None


class LineLink(SerialLink):
    """One line-oriented link. ``send_line`` may be called from any thread."""

    def __init__(self, url: str, baudrate: int = 9600, timeout_s: float = 0.5, *,
                 on_line: Callable[[Line], None] | None = None,
                 on_fault: Callable[[str, str], None] | None = None,
                 on_connect: Callable[[], None] | None = None,
                 on_tick: Callable[[int], None] | None = None,
                 silence_s: float = 2.0, truncate_after_s: float = 0.05, name: str = "serial",
                 terminator: bytes = b"\r\n") -> None:
        super().__init__(url, baudrate, timeout_s, on_fault=on_fault, on_connect=on_connect, silence_s=silence_s,
                         truncate_after_s=truncate_after_s, name=name)
        self.parser = LineParser()  # type: ignore[assignment]  # the reader feeds and expires it alike
        self.on_line = on_line or _nothing
        self.on_tick = on_tick or _nothing
        self.terminator = terminator
        self.tx_lines = 0

    def send_line(self, text: bytes | str) -> int:
        """Write ``text`` and the terminator; returns ``tx_ns``, stamped as the write started."""
        data = (text.encode("ascii") if isinstance(text, str) else bytes(text)) + self.terminator
        with self._tx_lock:
            if self._port is None or self.state != "connected":
                raise SerialWireError("disconnected" if self.state == "disconnected" else "closed",
                                      f"{self.url}: cannot send {data!r}")
            tx_ns = time.perf_counter_ns()
            try:
                self._port.write(data)
            except (serial.SerialException, OSError) as exc:
                raise SerialWireError("disconnected", f"{self.url}: write failed: {exc}") from None
            self.tx_lines += 1
            return tx_ns

    def send(self, msg_type: str, **fields: object) -> tuple[int, int]:
        raise TypeError("a LineLink sends lines (send_line), not frames")

    @property
    def stats(self) -> dict[str, Any]:
        return {**self.parser.stats, "pending": self.parser.pending, "faults": dict(self.faults),
                "tx_lines": self.tx_lines, "reconnects": self.reconnects, "state": self.state}

    # ------------------------------------------------ the reader thread's hooks (SerialLink's loop)
    def _open_port(self) -> None:
        # a line cut by a reconnect goes to the consumer as truncated, not silently away
        now = time.perf_counter_ns()
        leftover = self.parser.expire(now, 0) if self.parser.pending else []
        super()._open_port()
        self._dispatch(leftover)

    def _dispatch(self, lines: list[Line]) -> None:  # type: ignore[override]
        for line in lines:
            try:
                self.on_line(line)
            except Exception as exc:  # noqa: BLE001 — a consumer's bug must not end the reader
                self._fault("bad_line", f"{line.raw!r}: {exc!r}")

    def _check_rejections(self) -> None:
        return None  # bad lines go to on_line with their bytes; the consumer records them

    def _check_timeouts(self, now_ns: int) -> None:
        super()._check_timeouts(now_ns)  # silence
        try:
            self.on_tick(now_ns)
        except Exception as exc:  # noqa: BLE001
            self._fault("bad_line", f"on_tick failed: {exc!r}")
