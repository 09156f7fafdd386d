"""Hermetic test session: each test gets its own temp dir; no test may leak threads or children."""

from __future__ import annotations

import multiprocessing
import threading

import pytest


@pytest.fixture(autouse=True)
def _no_leaks():
    threads_before = set(threading.enumerate())
    yield
    leaked_threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()
                      and not t.name.startswith(("QueueFeederThread", "ExecutorManagerThread"))]
    children = [p for p in multiprocessing.active_children()]
    for p in children:
        p.kill()
    assert not leaked_threads, f"test leaked threads: {leaked_threads}"
    assert not children, f"test leaked child processes: {children}"
