"""Stubs in their own processes, started and ended by pid."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

READY_TIMEOUT_S = 20


@contextmanager
def stub_process(device: str, *args: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start ``python -m firmware_stubs DEVICE ...`` bound to 127.0.0.1 on a free port; yields the
    process and its URL; ends it by pid."""
    cmd = [sys.executable, "-m", "firmware_stubs", device, "--modbus", "tcp://127.0.0.1:0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"stub did not start: {line!r} (exit {proc.poll()})")
        yield proc, line.split()[2]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        proc.stdout.close()


@pytest.fixture
def stub():
    return stub_process


@contextmanager
def stubs_with_control(roles: dict[str, str], wire: str, time_scale: float):
    """One stub per role (role -> device), each with a control endpoint; yields
    role -> (url, control url)."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        urls = {}
        for role, device in roles.items():
            where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
            cmd = [sys.executable, "-m", "firmware_stubs", device, *where, "--time-scale", str(time_scale),
                   "--control", "tcp://127.0.0.1:0"]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            stack.callback(_end, proc)
            line = proc.stdout.readline()
            if not line.startswith("READY "):
                raise RuntimeError(f"stub {device} did not start: {line!r}")
            parts = line.split()
            urls[role] = (parts[2], parts[3].removeprefix("control="))
        yield urls


def _end(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    proc.stdout.close()


@pytest.fixture
def stub_control():
    return stubs_with_control
