"""Start a firmware stub in its own process and end it by its pid (tests, benches, lab scripts).

    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--control", "tcp://127.0.0.1:0") as stub:
        stub.url, stub.control   # from its READY line; control = "tcp://127.0.0.1:PORT?token=<hex>"
        stub.stderr()            # what it wrote on stderr so far (warnings, refusals it logged)

``stub.control`` is the whole control URL with the stub's token, as the rig's
``hil.adapters.stub_control`` and a bench file's ``control`` take it (docs/security.md).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO
from urllib.parse import parse_qs, urlsplit

READY_TIMEOUT_S = 20.0


class StubStartError(RuntimeError):
    pass


@dataclass(frozen=True)
class Launched:
    proc: subprocess.Popen
    url: str
    control: str | None  # tcp://HOST:PORT?token=<hex>: the whole URL, token included
    actuator: str | None = None  # a wagering stub's DO module (--actuator-modbus)
    err: IO[bytes] | None = None  # the stub's stderr (a temporary file)

    @property
    def control_token(self) -> str | None:
        """The token of the control URL (None: no control endpoint)."""
        if self.control is None:
            return None
        return (parse_qs(urlsplit(self.control).query).get("token") or [None])[-1]

    def stderr(self) -> str:
        """What the stub has written on stderr so far."""
        if self.err is None:
            return ""
        self.err.flush()
        return os.pread(self.err.fileno(), 1 << 24, 0).decode(errors="replace")


def _first_line(proc: subprocess.Popen, timeout_s: float) -> str:
    """The stub's first stdout line, waiting at most ``timeout_s``."""
    buf = b""
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise StubStartError(f"no READY line within {timeout_s} s (got {buf!r}, exit {proc.poll()})")
            if sel.select(left):
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    raise StubStartError(f"the stub ended before READY (got {buf!r}, exit {proc.wait(timeout=5)})")
                buf += chunk
    return buf.split(b"\n", 1)[0].decode()


def end(proc: subprocess.Popen, timeout_s: float = 10.0) -> None:
    """End a process by its pid: SIGTERM, then SIGKILL if it does not go."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout_s)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@contextmanager
def launch(device: str, *args: str, ready_timeout_s: float = READY_TIMEOUT_S) -> Iterator[Launched]:
    """``python -m firmware_stubs DEVICE ARGS...``; yields once it printed ``READY``; ends it by pid."""
    err = tempfile.TemporaryFile()  # not a pipe: a chatty stub must never block on a full one
    proc = subprocess.Popen([sys.executable, "-m", "firmware_stubs", device, *args],
                            stdout=subprocess.PIPE, stderr=err)
    try:
        parts = _first_line(proc, ready_timeout_s).split()
        if parts[:2] != ["READY", device] or len(parts) < 3:
            raise StubStartError(f"unexpected first line {' '.join(parts)!r}")
        control = next((p.removeprefix("control=") for p in parts[3:] if p.startswith("control=")), None)
        actuator = next((p.removeprefix("actuator=") for p in parts[3:] if p.startswith("actuator=")), None)
        yield Launched(proc, parts[2], control, actuator, err)
    except StubStartError as exc:
        proc.kill()
        proc.wait(timeout=10)
        err.seek(0)
        raise StubStartError(f"{device}: {exc}; stderr: {err.read().decode(errors='replace')[-2000:]}") from None
    finally:
        end(proc)
        err.close()
