"""Stubs in their own processes, started and ended by pid (``firmware_stubs.launch``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from firmware_stubs.launch import launch


@contextmanager
def stub_process(device: str, *args: str) -> Iterator[tuple[object, str]]:
    """``python -m firmware_stubs DEVICE --modbus tcp://127.0.0.1:0 ...``; yields (process, url)."""
    with launch(device, "--modbus", "tcp://127.0.0.1:0", *args) as stub:
        yield stub.proc, stub.url


@pytest.fixture
def stub():
    return stub_process


@contextmanager
def stubs_with_control(roles: dict[str, str], wire: str, time_scale: float, extra: dict[str, list[str]] | None = None):
    """One stub per role (role -> device), each with a control endpoint (and ``extra`` arguments
    per role); yields role -> (url, control url)."""
    with ExitStack() as stack:
        urls = {}
        for role, device in roles.items():
            where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
            s = stack.enter_context(launch(device, *where, "--time-scale", str(time_scale),
                                           "--control", "tcp://127.0.0.1:0", *(extra or {}).get(role, [])))
            urls[role] = (s.url, s.control)
        yield urls


@pytest.fixture
def stub_control():
    return stubs_with_control
