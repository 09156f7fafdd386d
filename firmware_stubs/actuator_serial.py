"""A serial relay board speaking docs/wire/actuator.md's line protocol, for tests: served on a TCP
socket (pyserial ``socket://HOST:PORT``), one connection at a time. ``on_output(channel, closed)``
is called for each channel that changes, before the ``OK`` answer (the output is set then)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable


class RelayBoard:
    def __init__(self, channels: int, on_output: Callable[[int, bool], None] = lambda _c, _on: None,
                 model: str = "croupier-relay-board") -> None:
        self.channels, self.on_output, self.model = channels, on_output, model
        self.state = [False] * channels
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)  # here, not in the thread: a board closed at once has no socket left to set
        self.port = self.sock.getsockname()[1]
        self.url = f"socket://127.0.0.1:{self.port}"
        self._stop = False
        self.thread = threading.Thread(target=self._serve, name="relay-board", daemon=True)
        self.thread.start()

    def answer(self, line: str) -> str:
        words = line.split()
        if words == ["ID?"]:
            return f"OK ID {self.channels} {self.model}"
        if len(words) != 2 or words[0] not in ("ON", "OFF", "GET"):
            return "ERR 1 unknown command"
        if not words[1].isdigit():
            return "ERR 3 malformed argument"
        n = int(words[1])
        if n >= self.channels:
            return "ERR 2 no such channel"
        if words[0] == "GET":
            return f"OK GET {n} {int(self.state[n])}"
        closed = words[0] == "ON"
        if self.state[n] != closed:
            self.state[n] = closed
            self.on_output(n, closed)
        return f"OK {words[0]} {n}"

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                buf = b""
                conn.settimeout(0.2)
                while not self._stop:
                    try:
                        data = conn.recv(256)
                    except TimeoutError:
                        continue
                    except OSError:
                        break
                    if not data:
                        break
                    buf += data
                    while b"\n" in buf:
                        raw, buf = buf.split(b"\n", 1)
                        conn.sendall(self.answer(raw.decode("ascii", "replace").strip()).encode() + b"\r\n")

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        self.thread.join(timeout=2)
