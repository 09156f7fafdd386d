"""Line framing for vendor ASCII protocols (one message per CR LF line): pure, no I/O — shared by
the rig's ``hil.transport.lines.LineLink`` and the firmware stubs.

``LineParser`` never raises and accounts for every byte fed: bytes fed = the ``raw`` bytes of the
lines returned + ``pending``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Longest line a receiver accepts, terminator included; a longer run without LF is cut off.
MAX_LINE = 256

Cut = Literal["truncated", "overlong"]


@dataclass(frozen=True)
class Line:
    """One line as received: ``raw`` holds every byte of it, its terminator included."""

    raw: bytes
    rx_ns: int  # when its last byte arrived (time.perf_counter_ns)
    cut: Cut | None = None  # None: ended by LF; "truncated": no LF came in time; "overlong": > MAX_LINE

    @property
    def text(self) -> bytes:
        """The line without its terminator (CR LF, or a bare LF)."""
        return self.raw.removesuffix(b"\n").removesuffix(b"\r") if self.cut is None else self.raw

    @property
    def blank(self) -> bool:
        return self.cut is None and not self.text.strip()


class LineParser:
    """Splits a byte stream at LF. A line ends at its LF (a CR before it belongs to the
    terminator); bytes without an LF are held until ``expire`` gives them up (``truncated``) or
    they exceed ``max_line`` (``overlong``: cut off at once, the rest is the next line)."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._last_rx_ns = 0
        self.stats = {"lines": 0, "blank": 0, "truncated": 0, "overlong": 0, "bytes": 0}

    @property
    def pending(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes, rx_ns: int) -> list[Line]:
        self.stats["bytes"] += len(data)
        out: list[Line] = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            stop = len(data) if end < 0 else end + 1
            self._buf += data[start:stop]
            start = stop
            while len(self._buf) > self.max_line:  # cut where it overflows, however the bytes came in
                chunk = bytes(self._buf[:self.max_line])
                del self._buf[:self.max_line]
                self.stats["overlong"] += 1
                out.append(Line(chunk, rx_ns, "overlong"))
            if end >= 0:
                self._emit(out, rx_ns, None)
        if data:
            self._last_rx_ns = rx_ns
        return out

    def _emit(self, out: list[Line], rx_ns: int, cut: Cut | None) -> None:
        line = Line(bytes(self._buf), rx_ns, cut)
        self._buf.clear()
        self.stats[cut or ("blank" if line.blank else "lines")] += 1
        out.append(line)

    def expire(self, now_ns: int, timeout_ns: int) -> list[Line]:
        """Give up a partial line when no byte has arrived for ``timeout_ns``."""
        if self._buf and now_ns - self._last_rx_ns >= timeout_ns:
            out: list[Line] = []
            self._emit(out, self._last_rx_ns, "truncated")
            return out
        return []
