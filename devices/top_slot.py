"""The Top Slot multiplier (§ 690.3): a two-reel slot spun together with the wheel.

Timing model: each reel is a strip of symbols (reel 1: the betting options of § 690.3(b)(1);
reel 2: the multipliers of § 690.3(b)(2)) moving past the payline at ``step_rate_sps``
symbols per second. Like a real slot, the stop is selected by the RNG when the spin starts
(alignment with the PAR's ``align_probability``, reel 1's symbol by ``reel1_weights``, reel 2's
multiplier by ``reel2_weights``, all drawn exactly with integer draws); each reel then travels
the smallest whole number of half-symbol steps, at least its drawn nominal spin time times the
step rate, that brings the chosen symbol to the payline — so a reel's travel, its spin time and
the symbol it stops on are consistent. Not aligned = reel 2 stops half a symbol off the payline
(the multiplier reported is the one just past it); reel 1 always stops on the payline.

Reel positions persist between spins: a stuck reel (fault) travels 0 steps and keeps showing
what it showed before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from devices.contracts import Telemetry, TopSlotStop, payload
from rules.crazy_time import TOP_SLOT_REEL1, TOP_SLOT_REEL2


@dataclass(frozen=True)
class TopSlotParams:
    """Timing of the simulated Top Slot; faults default to a healthy device."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    spin_duration_mean_s: float = 5.0
    """Mean nominal spin time of reel 1 (it stops well before the wheel's ~15 s)."""
    spin_duration_sd_s: float = 0.6
    """Standard deviation of the nominal spin time (normal, truncated at min_spin_duration_s)."""
    min_spin_duration_s: float = 2.0
    """Shortest nominal spin time."""
    reel2_extra_s: float = 1.0
    """Reel 2 spins this much longer than reel 1 (reels stop one after the other)."""
    step_rate_sps: float = 12.0
    """Symbols per second passing the payline while a reel spins."""

    # ---- faults (defaults = healthy)
    late_start_s: float = 0.0
    """The reels start this long after the spin command (§ 690.3(c): must be concurrent)."""
    stuck_reel: int = 0
    """0 = none; 1 or 2 = that reel does not move (0 steps, keeps its previous symbol)."""
    foreign_multiplier: int = 0
    """0 = none; else the second reel carries this multiplier in the place of 20 (§ 690.3(b)(2): its
    multipliers consist of 1, 2, 3, 4, 5, 7, 10, 15 and 20) — declared in ``device_info`` and shown
    whenever the reel stops there (with 20's weight)."""

    def __post_init__(self) -> None:
        if not self.spin_duration_mean_s > 0 or self.spin_duration_sd_s < 0:
            raise ValueError("spin_duration_mean_s must be > 0 and spin_duration_sd_s >= 0")
        if not self.min_spin_duration_s > 0 or self.reel2_extra_s < 0:
            raise ValueError("min_spin_duration_s must be > 0 and reel2_extra_s >= 0")
        if not self.step_rate_sps > 0:
            raise ValueError(f"step_rate_sps must be > 0, not {self.step_rate_sps}")
        if self.late_start_s < 0:
            raise ValueError(f"late_start_s must be >= 0, not {self.late_start_s}")
        if self.stuck_reel not in (0, 1, 2):
            raise ValueError(f"stuck_reel must be 0, 1 or 2, not {self.stuck_reel}")
        if isinstance(self.foreign_multiplier, bool) or not isinstance(self.foreign_multiplier, int) \
                or self.foreign_multiplier < 0:
            raise ValueError(f"foreign_multiplier must be a whole number >= 0, not {self.foreign_multiplier!r}")


def _weighted_index(rng: np.random.Generator, weights: list[int]) -> int:
    """Index drawn with probability weight/sum, exactly (one integer draw)."""
    r = int(rng.integers(sum(weights)))
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")


def _travel_half_steps(pos_h: int, target_h: int, strip_len: int, min_half_steps: int) -> int:
    """Smallest travel >= min_half_steps (half-symbol steps) from pos_h that ends on target_h."""
    period = 2 * strip_len
    return min_half_steps + (target_h - pos_h - min_half_steps) % period


class TopSlotSim:
    """SimPy model of the Top Slot implementing ``devices.contracts.TopSlot``.

    ``par`` is the Rules Submission's ``rules.submission.TopSlotPar``.
    """

    def __init__(self, env: simpy.Environment, params: TopSlotParams, par: Any, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "top_slot") -> None:
        self.env, self.params, self.par, self.rng, self.telemetry, self.name = env, params, par, rng, telemetry, name
        self.reel1: tuple[str, ...] = tuple(str(s) for s in TOP_SLOT_REEL1)
        foreign = params.foreign_multiplier
        self.reel2: tuple[int, ...] = tuple(foreign if foreign and m == TOP_SLOT_REEL2[-1] else m
                                            for m in TOP_SLOT_REEL2)
        self._w1 = [int(par.reel1_weights[s]) for s in TOP_SLOT_REEL1]
        self._w2 = [int(par.reel2_weights[m]) for m in TOP_SLOT_REEL2]
        a = par.align_probability
        self._align_num, self._align_den = a.numerator, a.denominator
        # Reel positions in half-symbol steps (even = a symbol on the payline).
        self._pos_h = [2 * int(rng.integers(len(self.reel1))), 2 * int(rng.integers(len(self.reel2)))]
        self._spin_id = 0
        telemetry(name, "device_info", {"reel1": list(self.reel1), "reel2": list(self.reel2)})

    def _nominal_duration_s(self) -> float:
        p = self.params
        while True:
            d = float(self.rng.normal(p.spin_duration_mean_s, p.spin_duration_sd_s))
            if d >= p.min_spin_duration_s:
                return d

    def spin(self) -> simpy.Event:
        """Commanded now (together with the wheel); succeeds with ``TopSlotStop``."""
        p, rng = self.params, self.rng
        self._spin_id += 1
        spin_id = self._spin_id
        # The RNG selects the stop when the spin is commanded.
        aligned_draw = int(rng.integers(self._align_den)) < self._align_num
        i1 = _weighted_index(rng, self._w1)
        i2 = _weighted_index(rng, self._w2)
        d1 = self._nominal_duration_s()
        nominal = (d1, d1 + p.reel2_extra_s)
        targets = (2 * i1, 2 * i2 + (0 if aligned_draw else 1))
        strips = (len(self.reel1), len(self.reel2))
        travel_h = []
        for r in range(2):
            if p.stuck_reel == r + 1:
                travel_h.append(0)
                continue
            min_h = 2 * int(nominal[r] * p.step_rate_sps)
            t = _travel_half_steps(self._pos_h[r], targets[r], strips[r], min_h)
            self._pos_h[r] = (self._pos_h[r] + t) % (2 * strips[r])
            travel_h.append(t)
        spin_s = max(t / (2.0 * p.step_rate_sps) for t in travel_h)
        pos1, pos2 = self._pos_h
        result = dict(
            spin_id=spin_id,
            spot=self.reel1[pos1 // 2],
            multiplier=self.reel2[pos2 // 2],
            aligned=pos1 % 2 == 0 and pos2 % 2 == 0,
            reel1_steps=travel_h[0] // 2,
            reel2_steps=travel_h[1] // 2,
        )
        done = self.env.event()
        self.env.process(self._run(result, spin_s, done))
        return done

    def _run(self, result: dict, spin_s: float, done: simpy.Event):
        env = self.env
        if self.params.late_start_s > 0:
            yield env.timeout(self.params.late_start_s)
        start = env.now
        self.telemetry(self.name, "top_slot_start", {"spin_id": result["spin_id"], "device_time_s": start})
        yield env.timeout(spin_s)
        stop = TopSlotStop(**result, start_time_s=start, stop_time_s=env.now)
        self.telemetry(self.name, "top_slot_stop", payload(stop))
        done.succeed(stop)
