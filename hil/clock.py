"""A SimPy environment paced by the wall clock, which I/O threads can wake.

``simpy.rt.RealtimeEnvironment`` waits with a blocking ``time.sleep`` and cannot be woken by
I/O (DESIGN.md, "Pitfalls"). ``WallClockEnvironment`` is a plain ``simpy.Environment`` stepped
from our own clock instead: it waits for the next scheduled event on a queue, so a transport
thread that posts a callable (``call_soon_threadsafe``) wakes it at once; the callable then runs
in the simulation thread at the simulated time that corresponds to *now* on the wall clock.
Waits end with a short spin so events are served at sub-millisecond precision.

``time_scale`` is simulated seconds per wall second (1.0 = real time). Every late event is
measured: ``lateness`` holds the scheduler lateness (wall time past the event's due time, in
wall seconds) for the trace.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy

#: Wake this long (wall seconds) before an event is due, then spin to it.
SPIN_S = 200e-6


@dataclass
class Lateness:
    """Scheduler lateness samples (wall seconds) since the last ``drain``."""

    samples: list[float] = field(default_factory=list)

    def drain(self) -> dict[str, float] | None:
        """Summary (µs) of the samples so far, and forget them; None if there were none."""
        if not self.samples:
            return None
        a = np.asarray(self.samples) * 1e6
        self.samples.clear()
        return {"n": int(a.size), "p50_us": float(np.percentile(a, 50)),
                "p99_us": float(np.percentile(a, 99)), "max_us": float(a.max())}


class WallClockEnvironment(simpy.Environment):
    """``simpy.Environment`` whose ``run`` follows the wall clock (see the module docstring)."""

    def __init__(self, time_scale: float = 1.0, *, clock_ns: Callable[[], int] = time.perf_counter_ns) -> None:
        if not time_scale > 0:
            raise ValueError(f"time_scale must be > 0, not {time_scale}")
        super().__init__(0.0)
        self.time_scale = time_scale
        self._clock_ns = clock_ns
        self._t0_ns = clock_ns()
        self._inbox: queue.SimpleQueue[Callable[[], Any]] = queue.SimpleQueue()
        self.lateness = Lateness()

    # ----------------------------------------------------------------- clocks
    def wall_to_sim(self, t_ns: int) -> float:
        """The simulated time of a ``perf_counter_ns`` reading (e.g. when bytes arrived)."""
        return (t_ns - self._t0_ns) * 1e-9 * self.time_scale

    def sim_to_wall_ns(self, t_s: float) -> int:
        return self._t0_ns + round(t_s / self.time_scale * 1e9)

    def wall_now(self) -> float:
        """The simulated time that corresponds to the wall clock right now."""
        return self.wall_to_sim(self._clock_ns())

    # ----------------------------------------------------------------- threads
    def call_soon_threadsafe(self, fn: Callable[[], Any]) -> None:
        """Run ``fn()`` in the simulation thread as soon as possible (from any thread)."""
        self._inbox.put(fn)

    def _serve_inbox(self, block_s: float) -> bool:
        try:
            fn = self._inbox.get(timeout=block_s) if block_s > 0 else self._inbox.get_nowait()
        except queue.Empty:
            return False
        self._advance_to(self.wall_now())
        fn()
        return True

    def _advance_to(self, t: float) -> None:
        """Process everything due up to ``t`` and set ``now`` to ``t`` (never backwards)."""
        while self._queue and self._queue[0][0] <= t:
            self.step()
        if t > self._now:
            self._now = t

    # ----------------------------------------------------------------- run
    def run(self, until: simpy.Event | float | None = None) -> Any:
        """Run until ``until`` (an event, or a simulated time) following the wall clock."""
        # Time passed while the bench was being built: catch up first (whatever was due then
        # runs now, its lateness recorded), so the first command is stamped at the wall's time.
        self._advance_to(self.wall_now())
        if until is not None and not isinstance(until, simpy.Event):
            until = self.timeout(max(0.0, float(until) - self._now))
        while until is None or not until.processed:
            while self._serve_inbox(0):
                pass
            due = self.peek()
            wall = self.wall_now()
            if due <= wall:
                self.lateness.samples.append((wall - due) / self.time_scale)
                self.step()
                continue
            if due == float("inf") and until is None:
                if not self._serve_inbox(0.05):
                    return None
                continue
            wait_s = (due - wall) / self.time_scale
            if wait_s > SPIN_S:
                self._serve_inbox(min(wait_s - SPIN_S, 0.5))
                continue
            deadline = self.sim_to_wall_ns(due)
            while self._clock_ns() < deadline:  # spin the last stretch
                pass
        if until is not None and not until.ok:
            raise until.value
        return until.value if until is not None else None
