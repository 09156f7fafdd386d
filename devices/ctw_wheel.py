"""The Crazy Time World virtual wheel (§ 690.8(b)–(d)): 64 sections, three clappers.

A video wheel: when the presenter presses the button (§ 690.8(d)) the RNG chooses the rest offset
uniformly in ``range(64)`` (one integer draw), and the animation then turns the wheel
``whole_turns`` whole turns plus the way from its current offset to the chosen one, decelerating
at a constant rate to rest over a spin time drawn from
``Normal(spin_duration_mean_s, spin_duration_sd_s)`` truncated at ``min_spin_duration_s``. Rotation
``turns = whole_turns + ((new - old) mod 64) / 64`` in turns; the initial speed is
``ω0 = 2·turns / duration`` rev/s (constant deceleration: distance = ω0·duration/2).

Offsets: at offset ``o`` the section under clapper ``i`` is ``(clappers[i] + o) mod 64`` —
``clappers`` lists the section under each clapper at offset 0 (``device_info``). The offset persists
between spins; the first is drawn at power-up. The default clappers (0, 3, 6) have two sections
between neighbours, as § 690.8(b)(4)'s example (sections 1, 4, 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from devices.contracts import CtwStop, Telemetry, payload
from rules.bonus import CTW_CLAPPERS, CTW_SECTIONS

#: ``stop_bias``: the region of offsets a weak RNG prefers, offsets 0 .. BIAS_REGION-1.
BIAS_REGION = 8


@dataclass(frozen=True)
class CtwWheelParams:
    """The simulated Crazy Time World wheel; faults default to a healthy wheel."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    spin_duration_mean_s: float = 8.0
    """Mean time from the button press to rest."""
    spin_duration_sd_s: float = 0.5
    """Standard deviation of the spin time (normal, truncated at ``min_spin_duration_s``)."""
    min_spin_duration_s: float = 3.0
    """Shortest spin time."""
    whole_turns: int = 3
    """Whole turns the wheel makes before the way to its rest offset (>= 1)."""
    clappers: tuple[int, ...] = (0, 3, 6)
    """Section under clapper 1, 2, 3 at offset 0. § 690.8(b)(4) wants at least two sections
    between clappers; a tuple that does not (e.g. (0, 1, 2)) is the mis-placed-clappers fault."""

    # ---- faults (defaults = healthy)
    stop_bias: float = 0.0
    """A weak RNG: with this probability the rest offset is drawn from offsets 0..7
    (``BIAS_REGION``) instead of all 64."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(self.spin_duration_mean_s > 0 and self.spin_duration_sd_s >= 0,
             "spin_duration_mean_s must be > 0 and spin_duration_sd_s >= 0")
        need(self.min_spin_duration_s > 0, f"min_spin_duration_s must be > 0, not {self.min_spin_duration_s}")
        need(not isinstance(self.whole_turns, bool) and isinstance(self.whole_turns, int) and self.whole_turns >= 1,
             f"whole_turns must be an int >= 1, not {self.whole_turns!r}")
        need(len(self.clappers) == CTW_CLAPPERS
             and all(not isinstance(c, bool) and isinstance(c, int) and 0 <= c < CTW_SECTIONS for c in self.clappers),
             f"clappers must be {CTW_CLAPPERS} section indices 0..{CTW_SECTIONS - 1}, not {self.clappers!r}")
        need(0.0 <= self.stop_bias <= 1.0, f"stop_bias must be in [0, 1], not {self.stop_bias}")


class CtwWheelSim:
    """SimPy model of the virtual wheel implementing ``devices.contracts.CrazyTimeWorldWheel``."""

    def __init__(self, env: simpy.Environment, params: CtwWheelParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "ctw_wheel") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        #: Current rest offset of the wheel (0..63).
        self.offset = int(rng.integers(CTW_SECTIONS))
        self._spin_id = 0
        telemetry(name, "device_info", {"sections": CTW_SECTIONS, "clappers": list(params.clappers)})

    def sections_at(self, offset: int) -> tuple[int, ...]:
        """The section under each clapper when the wheel rests at ``offset``."""
        return tuple((c + offset) % CTW_SECTIONS for c in self.params.clappers)

    def _duration_s(self) -> float:
        p = self.params
        while True:
            d = float(self.rng.normal(p.spin_duration_mean_s, p.spin_duration_sd_s))
            if d >= p.min_spin_duration_s:
                return d

    def spin(self) -> simpy.Event:
        """The presenter presses the button now (§ 690.8(d)); succeeds with ``CtwStop`` at rest."""
        p, rng = self.params, self.rng
        self._spin_id += 1
        if p.stop_bias > 0 and float(rng.random()) < p.stop_bias:
            new = int(rng.integers(BIAS_REGION))
        else:
            new = int(rng.integers(CTW_SECTIONS))
        duration = self._duration_s()
        turns = p.whole_turns + ((new - self.offset) % CTW_SECTIONS) / CTW_SECTIONS
        self.offset = new
        start = self.env.now
        self.telemetry(self.name, "ctw_start", {"spin_id": self._spin_id, "device_time_s": start})
        stop = CtwStop(spin_id=self._spin_id, sections=self.sections_at(new), turns=turns,
                       start_time_s=start, stop_time_s=start + duration)
        done = self.env.event()

        def rest(_e: simpy.Event) -> None:
            self.telemetry(self.name, "ctw_stop", payload(stop))
            done.succeed(stop)

        self.env.timeout(duration).callbacks.append(rest)
        return done

    def initial_speed_rps(self, stop: CtwStop) -> float:
        """ω0 of a spin under constant deceleration: 2·turns / duration, rev/s."""
        return 2.0 * stop.turns / (stop.stop_time_s - stop.start_time_s)
