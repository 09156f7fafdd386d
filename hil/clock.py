"""A SimPy environment paced by the wall clock, which I/O threads can wake.

``simpy.rt.RealtimeEnvironment`` waits with a blocking ``time.sleep`` and cannot be woken by
I/O (DESIGN.md, "Pitfalls"). ``WallClockEnvironment`` is a plain ``simpy.Environment`` stepped
from our own clock instead: it waits for the next scheduled event on a queue, so a transport
thread that posts a callable (``call_soon_threadsafe``) wakes it at once; the callable then runs
in the simulation thread at the simulated time that corresponds to *now* on the wall clock.
Waits end with a short spin so events are served at sub-millisecond precision.

``time_scale`` is simulated seconds per wall second (1.0 = real time). Every late event is
measured: ``lateness`` holds the scheduler lateness (wall time past the event's due time, in
wall seconds) for the trace. Simulated time 0 is when the environment is made, before the bench
connects; a process made before :meth:`~WallClockEnvironment.run` (the table's rounds, a test's
script) starts at the wall's now when the run starts (``aligned``), never in a burst that catches
up with the connecting time.

Device clock ↔ rig time (docs/wire/clock.md).

Every ``*_ns`` a device reports is on its own clock, which runs at its own rate: a crystal is
within tens of ppm, a ceramic resonator within thousands. ``ClockEstimator`` re-estimates the
device clock's offset *and* drift continuously from round trips (the rig's request leaving, the
device's clock reading, its answer arriving — both rig stamps taken where the bytes moved):

* the device read its clock between ``tx`` and ``rx``, so at the midpoint ``mid`` the offset
  ``device − rig`` is ``device − mid`` within ``± (rx − tx) / 2`` — a hard bound, not a sigma;
* samples are min-round-trip filtered: one per ``bucket_s`` of rig time (the one with the shortest
  round trip), the last ``window_buckets`` of them kept (a sliding window);
* once the window spans ``min_fit_span_s``, a straight line ``offset(t) = offset_s + drift · (t −
  ref_s)`` is fitted through them (least squares weighted by 1/half-round-trip²). Its error at
  any time ``t`` is a linear combination of the samples' errors, so ``Σ |wᵢ(t)| · hᵢ`` bounds it
  (``hᵢ`` the half round trips); residuals the line cannot explain within that bound (a clock that
  wanders) are added. The uncertainty recorded is that bound's maximum from the window's first
  sample to two buckets past its last (how far the map is extrapolated before the next refit);
* before that (at connect), the offset is the best sample's and the drift is unknown: 0 ± the
  bench's maximum, so the uncertainty grows by the maximum drift times the time since that sample.

A fitted drift beyond the maximum by more than its own uncertainty is a device fault the adapter
records (``wire_fault`` ``clock_drift``). Times are in the rig's simulated seconds; drift is
device seconds per rig second − 1, in ppm.
"""

from __future__ import annotations

import dataclasses
import math
import queue
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
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
        self._running = False  # run() has been called: processes made from now on start at once

    # ----------------------------------------------------------------- clocks
    def wall_to_sim(self, t_ns: int) -> float:
        """The simulated time of a ``perf_counter_ns`` reading (e.g. when bytes arrived)."""
        return (t_ns - self._t0_ns) * 1e-9 * self.time_scale

    def sim_to_wall_ns(self, t_s: float) -> int:
        return self._t0_ns + round(t_s / self.time_scale * 1e9)

    def wall_now(self) -> float:
        """The simulated time that corresponds to the wall clock right now."""
        return self.wall_to_sim(self._clock_ns())

    def aligned(self) -> simpy.Event:
        """An event at the wall clock's now."""
        return self.timeout(max(0.0, self.wall_now() - self._now))

    def process(self, generator) -> simpy.Process:
        """A process made before :meth:`run` — the table's rounds, made while the bench connected
        and mapped its devices' clocks (a second or more on a busy machine, or with a device that
        serves one connection at a time) — starts when the run does, at the wall's now: made at
        simulated time 0, it would otherwise run in ``run``'s catch-up, and everything it scheduled
        before the wall's now would fire at once (a betting window's presses in one burst, after
        its own "no more bets"). One made while the run runs starts at once, as in SimPy."""
        if not self._running:
            generator = self._from_the_run(generator)
        return super().process(generator)

    def _from_the_run(self, generator):
        yield self.aligned()
        return (yield from generator)

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
        # runs now, its lateness recorded; a process made before run waits for the wall's now:
        # ``process``), so the first command is stamped at the wall's time.
        self._running = True
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


# ===================================================================== device clocks (docs/wire/clock.md)


#: the maximum drift a bench accepts by default (``max_clock_drift_ppm``), ppm
DEFAULT_MAX_DRIFT_PPM = 500.0
#: one min-round-trip sample per this much rig time (s)
BUCKET_S = 0.5
#: samples (buckets) in the sliding window: 20 s at the default bucket
WINDOW_BUCKETS = 40
#: the window must span this much rig time (s) before the drift is fitted
MIN_FIT_SPAN_S = 2.0
#: a device clock whose rate during the connect samples is outside [1/(1+x), 1+x] of the rig's,
#: beyond its bracket, runs at another time scale (a stub started with another ``--time-scale``)
RATE_MISMATCH = 0.25
#: the smallest half round trip a sample may claim (s): a zero would weigh infinitely
_H_FLOOR_S = 1e-7

#: the maximum drift in force while an adapter is built (``hil.bench.build_devices`` sets it per
#: device from the bench's ``max_clock_drift_ppm``)
MAX_DRIFT_PPM: ContextVar[float] = ContextVar("max_clock_drift_ppm", default=DEFAULT_MAX_DRIFT_PPM)


@contextmanager
def max_clock_drift(ppm: float) -> Iterator[None]:
    """Adapters built inside this block accept at most ``ppm`` of device clock drift."""
    token = MAX_DRIFT_PPM.set(float(ppm))
    try:
        yield
    finally:
        MAX_DRIFT_PPM.reset(token)


class ClockRateMismatch(ValueError):
    """The device's clock runs at another rate than the rig's: another time scale."""


@dataclass(frozen=True)
class ClockSample:
    """One round trip: its midpoint and half its duration (rig simulated s), the device's reading (s)."""

    mid_s: float
    half_s: float
    device_s: float

    @property
    def offset_s(self) -> float:
        return self.device_s - self.mid_s

    @classmethod
    def of(cls, env: WallClockEnvironment, tx_ns: int, rx_ns: int, device_ns: int) -> ClockSample:
        """A round trip stamped on the wall clock (``perf_counter_ns``) by ``env``'s scale."""
        return cls(env.wall_to_sim((tx_ns + rx_ns) // 2), (rx_ns - tx_ns) / 2 * 1e-9 * env.time_scale,
                   device_ns * 1e-9)


@dataclass(frozen=True)
class ClockMap:
    """device ns ↔ rig simulated seconds: ``device_s = t + offset_s + drift · (t − ref_s)``."""

    offset_s: float  # device seconds − rig simulated seconds, at ``ref_s``
    uncertainty_s: float  # bound of the mapping error (see the module's clock section), simulated s
    rtt_min_us: float  # the best round trip in the window, wall µs
    drift_ppm: float = 0.0
    drift_uncertainty_ppm: float = 0.0
    ref_s: float = 0.0
    samples: int = 1  # round trips seen since the estimate started
    window_s: float = 0.0  # rig time spanned by the samples fitted
    fitted: bool = False  # the drift was fitted (else: 0 ± the maximum)
    #: the fit's slope (ppm); ``drift_ppm`` is 0 when this is within its uncertainty of 0
    fitted_drift_ppm: float = 0.0
    #: the rig times ``uncertainty_s`` covers: the window's first point to the extrapolation horizon
    valid_from_s: float = 0.0
    valid_to_s: float = 0.0

    def kept_against(self, new: ClockMap) -> ClockMap | None:
        """This map, kept in place of the newer estimate ``new`` when they agree within half of
        ``new``'s uncertainty over ``new``'s span (then this line is within the disagreement plus
        ``new``'s bound of the truth, which becomes its uncertainty); None when it should give way.
        Keeping a map keeps device intervals exact and one device time one rig time."""
        lo, hi = new.valid_from_s, new.valid_to_s
        dis = max(abs(self.offset_at(t) - new.offset_at(t)) for t in (lo, hi))
        if dis > new.uncertainty_s / 2:
            return None
        return dataclasses.replace(self, uncertainty_s=new.uncertainty_s + dis, rtt_min_us=new.rtt_min_us,
                                   drift_uncertainty_ppm=new.drift_uncertainty_ppm, samples=new.samples,
                                   window_s=new.window_s, fitted=new.fitted, fitted_drift_ppm=new.fitted_drift_ppm,
                                   valid_from_s=lo, valid_to_s=hi)

    def to_sim(self, device_ns: int) -> float:
        d = self.drift_ppm * 1e-6
        return self.ref_s + (device_ns * 1e-9 - self.offset_s - self.ref_s) / (1.0 + d)

    def offset_at(self, t_s: float) -> float:
        return self.offset_s + self.drift_ppm * 1e-6 * (t_s - self.ref_s)

    def to_json(self) -> dict[str, Any]:
        return {"clock_offset_s": self.offset_s, "clock_uncertainty_s": self.uncertainty_s,
                "clock_drift_ppm": self.drift_ppm, "clock_drift_uncertainty_ppm": self.drift_uncertainty_ppm,
                "clock_ref_s": self.ref_s, "clock_samples": self.samples, "clock_window_s": self.window_s,
                "clock_drift_fitted": self.fitted, "clock_fitted_drift_ppm": self.fitted_drift_ppm,
                "clock_valid_from_s": self.valid_from_s, "clock_valid_to_s": self.valid_to_s,
                "rtt_min_us": self.rtt_min_us}


def rate_bracket(samples: Sequence[ClockSample]) -> tuple[float, float] | None:
    """The device clock's rate (device s per rig s) between the first and the last of
    ``samples``, as a hard bracket; None when they are too close to say."""
    a, b = min(samples, key=lambda s: s.mid_s), max(samples, key=lambda s: s.mid_s)
    dev = b.device_s - a.device_s
    lo_el = (b.mid_s - b.half_s) - (a.mid_s + a.half_s)
    hi_el = (b.mid_s + b.half_s) - (a.mid_s - a.half_s)
    if lo_el <= 0 or dev <= 0:
        return None
    return dev / hi_el, dev / lo_el


def check_rate(samples: Sequence[ClockSample], what: str, time_scale: float) -> None:
    """``ClockRateMismatch`` when the connect samples show the device's clock running at another
    time scale than the rig's (the bracket wholly outside ``1 ± RATE_MISMATCH``)."""
    br = rate_bracket(samples)
    if br is None:
        return
    lo, hi = br
    if lo > 1 + RATE_MISMATCH or hi < 1 / (1 + RATE_MISMATCH):
        raise ClockRateMismatch(
            f"{what}: the device's clock runs {math.sqrt(lo * hi):.3g}× the rig's (bracket {lo:.3g}–{hi:.3g}×) "
            f"over its connect samples: a time-scale mismatch — the bench's time_scale is {time_scale:g}; "
            f"a stub must run with the same --time-scale")


class ClockEstimator:
    """Offset and drift of one device clock, re-estimated from every round trip (see above)."""

    def __init__(self, max_drift_ppm: float = DEFAULT_MAX_DRIFT_PPM, *, bucket_s: float = BUCKET_S,
                 window_buckets: int = WINDOW_BUCKETS, min_fit_span_s: float = MIN_FIT_SPAN_S,
                 sample_period_s: float = 0.0, time_scale: float = 1.0) -> None:
        """``sample_period_s``: the longest the caller lets pass between two round trips (rig s);
        the map's uncertainty covers extrapolating it twice that far (or two buckets)."""
        if not max_drift_ppm > 0:
            raise ValueError(f"max_clock_drift_ppm must be > 0, not {max_drift_ppm}")
        self.max_drift_ppm = float(max_drift_ppm)
        self.bucket_s, self.min_fit_span_s = bucket_s, min_fit_span_s
        self.sample_period_s = sample_period_s
        self.time_scale = time_scale  # simulated s per wall s: round trips are reported in wall µs
        self.window: deque[ClockSample] = deque(maxlen=window_buckets)
        self._open: ClockSample | None = None
        self._open_key: int | None = None
        self.samples = 0
        self.map: ClockMap | None = None

    def reset(self) -> None:
        """Forget every sample (the device may have restarted: its clock with it)."""
        self.window.clear()
        self._open, self._open_key, self.samples, self.map = None, None, 0, None

    def start(self, samples: Sequence[ClockSample]) -> ClockMap:
        """The connect samples (taken back to back): the best one is the first point of the window."""
        if not samples:
            raise ValueError("no clock samples")
        self.reset()
        self.samples = len(samples)
        best = min(samples, key=lambda s: s.half_s)
        self.window.append(best)
        self._open_key = self._key(best)
        self.map = self._fit()
        return self.map

    def _key(self, s: ClockSample) -> int:
        return math.floor(s.mid_s / self.bucket_s)

    def add(self, s: ClockSample) -> ClockMap | None:
        """One more round trip; the new map when a bucket closed (a refit), else None."""
        if s.half_s < 0:
            return None  # a stamp from another request: no round trip
        self.samples += 1
        key = self._key(s)
        if self._open is None or key == self._open_key:
            if self._open is None or s.half_s < self._open.half_s:
                self._open = s
            self._open_key = key
            return None
        self.window.append(self._open)
        self._open, self._open_key = s, key
        self.map = self._fit()
        return self.map

    def beyond_max(self, m: ClockMap | None = None) -> bool:
        """The fitted drift exceeds the maximum by more than its uncertainty."""
        m = m or self.map
        return m is not None and m.fitted and abs(m.fitted_drift_ppm) - m.drift_uncertainty_ppm > self.max_drift_ppm

    def _fit(self) -> ClockMap:
        """The window's buckets and the open one's best so far (the newest round trip counts now)."""
        pts = list(self.window) + ([self._open] if self._open is not None else [])
        t = np.array([p.mid_s for p in pts])
        o = np.array([p.offset_s for p in pts])
        h = np.maximum(np.array([p.half_s for p in pts]), _H_FLOOR_S)
        gap = float(np.median(np.diff(np.sort(t)))) if len(t) > 1 else 0.0
        lo, hi = float(t.min()), float(t.max()) + 2 * max(self.bucket_s, self.sample_period_s, gap)
        span = float(t.max() - t.min())
        rtt_min_us = float(h.min()) * 2e6 / self.time_scale  # wall µs
        if len(pts) < 3 or span < self.min_fit_span_s:
            i = int(np.argmin(h))
            m = self.max_drift_ppm * 1e-6
            u = float(h[i]) + m * max(hi - t[i], t[i] - lo)
            return ClockMap(float(o[i]), float(u), rtt_min_us, 0.0, self.max_drift_ppm, float(t[i]), self.samples,
                            span, False, 0.0, lo, hi)
        w = 1.0 / h**2
        w = w / w.sum()
        tbar = float(w @ t)
        dt = t - tbar
        sxx = float(w @ dt**2)
        obar = float(w @ o)
        slope = float(w @ (dt * (o - obar))) / sxx

        def bound(x: float | np.ndarray) -> np.ndarray:
            x = np.atleast_1d(np.asarray(x, dtype=float))
            weights = w[None, :] * (1.0 + np.outer(x - tbar, dt) / sxx)  # the estimate at x: Σ weights·o
            return np.abs(weights) @ h

        slope_bound = float(np.abs(w * dt / sxx) @ h)
        resid = np.abs(o - (obar + slope * dt))
        excess = float(max(0.0, np.max(resid - h - bound(t))))
        u = float(bound(np.array([lo, hi])).max()) + excess
        drift_u = (slope_bound + (2 * excess / span if span > 0 else 0.0)) * 1e6
        applied = slope
        if abs(slope) * 1e6 <= drift_u:  # not resolved from 0: intervals are not rescaled by noise
            applied = 0.0
            u += abs(slope) * max(hi - tbar, tbar - lo)
        return ClockMap(obar, u, rtt_min_us, applied * 1e6, drift_u, tbar, self.samples, span, True, slope * 1e6,
                        lo, hi)


#: the fields the clock estimate adds to a real device's ``device_info`` (and every ``clock_estimate``)
CLOCK_INFO_FIELDS: tuple[str, ...] = (*ClockMap(0.0, 0.0, 0.0).to_json(), "max_clock_drift_ppm")
