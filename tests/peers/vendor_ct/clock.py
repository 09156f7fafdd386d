"""Time for the vendor's devices: one physical world, and each device's own crystal.

The world's time is the physics' time: wall time since the launcher started, times the bench's
``time_scale`` (the rig and every device agree on a compressed world for long suites). Each
device stamps events with its own clock: an arbitrary epoch (the device's uptime counter, not
the rig's) and a rate error in ppm (a crystal 2,000 ppm fast counts 1.002 s per world second).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

UINT64_MAX = (1 << 64) - 1


@dataclass
class World:
    """World seconds = (monotonic wall ns − origin) × time_scale / 1e9."""

    time_scale: float = 1.0
    origin_ns: int = field(default_factory=time.monotonic_ns)

    def __post_init__(self) -> None:
        if not self.time_scale > 0:
            raise ValueError(f"time_scale must be > 0, got {self.time_scale}")

    def now_s(self) -> float:
        return (time.monotonic_ns() - self.origin_ns) * self.time_scale / 1e9

    def wall_s_until(self, world_s: float) -> float:
        """Wall seconds from now until world time ``world_s`` (negative: already past)."""
        return (world_s - self.now_s()) / self.time_scale


@dataclass
class DeviceClock:
    """A device's monotonic ns counter: ``epoch_ns + world_s × 1e9 × (1 + drift_ppm × 1e-6)``."""

    world: World
    epoch_ns: int
    drift_ppm: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.epoch_ns <= UINT64_MAX:
            raise ValueError(f"epoch_ns must fit a uint64, got {self.epoch_ns}")
        if not -100_000 < self.drift_ppm < 100_000:
            raise ValueError(f"drift_ppm out of range: {self.drift_ppm}")

    def at(self, world_s: float) -> int:
        """The counter's reading at world time ``world_s``."""
        ns = self.epoch_ns + round(world_s * 1e9 * (1.0 + self.drift_ppm * 1e-6))
        return ns & UINT64_MAX  # a free-running counter wraps (never within a run at sane epochs)

    def world_of(self, device_ns: int) -> float:
        """World time at which the counter read ``device_ns`` (inverse of :meth:`at`)."""
        return (device_ns - self.epoch_ns) / 1e9 / (1.0 + self.drift_ppm * 1e-6)

    def now_ns(self) -> int:
        return self.at(self.world.now_s())
