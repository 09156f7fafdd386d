"""Replay a raw Slingshot-style wheel log over a pty, at the log's own timing — a live wheel's
serial output played back to the rig (docs/wire/slingshot-roulette.md, "Raw logs").

    python -m firmware_stubs.slingshot_replay LOG [--speed S] [--period-s 0.5] [--no-wait]

prints ``READY slingshot-replay <pty path>`` and, once the host sends its first line (the rig's
adapter asks ``*X`` at connect; ``--no-wait``: at once), writes each line of the log with CR LF
at the log's time ÷ ``speed`` after the first (a plain log, without times: every ``period_s``).
Lines are written byte for byte as logged: a space-padded number stays space-padded. After the
last line it keeps the pty open, silent, until SIGTERM/SIGINT. Host lines are read and counted,
never answered: a log cannot answer.

Timing: each line leaves at ``t0 + t/speed`` on ``time.perf_counter`` (sleep, then spin for the
last 2 ms: asyncio and ``time.sleep`` alone are ms-quantised, DESIGN.md "Pitfalls"); a pty ignores
baud rate, and the wire time of the original line is already in the log's times.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
import threading
import time
from pathlib import Path

from firmware_stubs.pty import PtyPair, open_pty
from hil.wire.slingshot import TERMINATOR, LogLine, parse_log

SPIN_S = 0.002


class Replayer:
    """Plays ``lines`` on a new pty (``path``) from a thread: ``start()``, ``wait_done()``, ``close()``."""

    def __init__(self, lines: list[LogLine], speed: float = 1.0, period_s: float = 0.5, wait_for_host: bool = True):
        if speed <= 0 or period_s <= 0:
            raise ValueError("speed and period_s must be > 0")
        self.lines, self.speed, self.period_s, self.wait_for_host = lines, speed, period_s, wait_for_host
        self.pair: PtyPair = open_pty()
        os.set_blocking(self.pair.master_fd, False)
        self.heard: list[bytes] = []  # the host's lines
        self.sent: list[tuple[float, bytes]] = []  # (perf_counter s, line) as written
        self.done = threading.Event()
        self._stop = threading.Event()
        self._buf = b""
        self._thread = threading.Thread(target=self._run, name="slingshot-replay", daemon=True)

    @property
    def path(self) -> str:
        return self.pair.peer_path

    def start(self) -> Replayer:
        self._thread.start()
        return self

    def wait_done(self, timeout_s: float | None = None) -> bool:
        return self.done.wait(timeout_s)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.pair.close()

    # ------------------------------------------------------------------ the thread
    def _read(self, wait_s: float) -> None:
        ready, _, _ = select.select([self.pair.master_fd], [], [], max(0.0, wait_s))
        if not ready:
            return
        try:
            self._buf += os.read(self.pair.master_fd, 4096)
        except OSError:
            return
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self.heard.append(line.removesuffix(b"\r"))

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view and not self._stop.is_set():
            try:
                n = os.write(self.pair.master_fd, view)
            except BlockingIOError:
                select.select([], [self.pair.master_fd], [], 0.05)
                continue
            view = view[n:]

    def _run(self) -> None:
        while self.wait_for_host and not self.heard and not self._stop.is_set():
            self._read(0.05)
        times = [ln.t for ln in self.lines]
        if any(t is None for t in times):
            times = [i * self.period_s for i in range(len(self.lines))]
        base = times[0] if times else 0.0
        t0 = time.perf_counter()
        for line, t in zip(self.lines, times):
            due = t0 + (t - base) / self.speed
            while not self._stop.is_set():
                left = due - time.perf_counter()
                if left <= 0:
                    break
                if left > SPIN_S:
                    self._read(left - SPIN_S)  # the host's lines meanwhile
            if self._stop.is_set():
                return
            self._write(line.data + TERMINATOR)
            self.sent.append((time.perf_counter(), line.data))
        self.done.set()
        while not self._stop.is_set():
            self._read(0.05)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m firmware_stubs.slingshot_replay", description=__doc__.split("\n")[0])
    ap.add_argument("log", type=Path, help="the raw wheel log (plain lines, or lines after a timestamp)")
    ap.add_argument("--speed", type=float, default=1.0, help="play this many times faster than logged")
    ap.add_argument("--period-s", type=float, default=0.5, help="a plain log (no times): one line every this")
    ap.add_argument("--no-wait", action="store_true", help="start at once, not at the host's first line")
    args = ap.parse_args(argv)
    try:
        _fmt, lines = parse_log(args.log.read_bytes())
        rep = Replayer(lines, args.speed, args.period_s, not args.no_wait)
    except (OSError, ValueError) as exc:
        ap.exit(2, f"error: {args.log}: {exc}\n")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_a: stop.set())
    rep.start()
    print(f"READY slingshot-replay {rep.path}", flush=True)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        rep.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
