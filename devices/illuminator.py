"""The Roulette X random number generator and multiplier lights (§ 617b.5(b), (d)).

"After all wagers have been placed, the random number generator shall be initiated and will select
between 2 and 5 numbers on the layout that are the multipliers. The multipliers will be illuminated
and will indicate what the increased payout will be" (§ 617b.5(d)). ``illuminate()`` is that
initiation: the generator draws at the command, exactly as ``rules.roulette_x.draw_lit`` does (the
same draws in the same order from the same rng: the count of lit numbers by the PAR's
``lit_count_weights``, a uniform set of that many distinct numbers of the wheel, and each one's
payout independently by ``multiplier_weights``), and the lights are on ``illuminate_s`` later, when
``illumination`` is reported (``device_time_s`` = when drawn).

Faults draw from the rng only when enabled, so a healthy illuminator reproduces ``draw_lit``
draw for draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import simpy

from devices.contracts import Illumination, Telemetry, payload
from rules.roulette import Pocket, Wheel, pockets
from rules.roulette_x import MAX_LIT, RouletteXSubmission, paytable_for


@dataclass(frozen=True)
class IlluminatorParams:
    """Timing of the simulated illuminator; faults default to a healthy generator."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    wheel: Literal["single-zero", "double-zero"] = "single-zero"
    """The wheel of the table the generator serves (§ 617b.5(c)); its numbers are the ones lit."""
    illuminate_s: float = 1.5
    """From the command to the multipliers being lit (the layout's light animation)."""

    # ---- faults (defaults = healthy)
    lit_early: bool = False
    """The generator drew before it was initiated: ``device_time_s`` is ``early_s`` before the
    command (before all wagers were placed, against § 617b.5(d))."""
    early_s: float = 2.0
    """How early, s (with ``lit_early``)."""
    duplicate_numbers: float = 0.0
    """Per illumination: probability that one lit number repeats another (not distinct)."""
    off_paytable_value: float = 0.0
    """Per illumination: probability that one multiplier is ``off_paytable_multiplier``."""
    off_paytable_multiplier: int = 1000
    """The value shown by ``off_paytable_value`` (not in any § 617b.5(g) paytable)."""
    biased: float = 0.0
    """A weak generator: per illumination, probability that the numbers are drawn from the first
    ``biased_subset_size`` numbers of the wheel (in ``rules.roulette.pockets`` order) only."""
    biased_subset_size: int = 6
    """Size of the small subset of ``biased``."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(self.illuminate_s >= 0, f"illuminate_s must be >= 0, not {self.illuminate_s}")
        need(self.early_s >= 0, f"early_s must be >= 0, not {self.early_s}")
        for f in ("duplicate_numbers", "off_paytable_value", "biased"):
            need(0.0 <= getattr(self, f) <= 1.0, f"{f} must be in [0, 1], not {getattr(self, f)}")
        need(self.off_paytable_multiplier > 0, f"off_paytable_multiplier must be > 0, not {self.off_paytable_multiplier}")
        need(MAX_LIT <= self.biased_subset_size <= 37,
             f"biased_subset_size must be in [{MAX_LIT}, 37], not {self.biased_subset_size}")


class IlluminatorSim:
    """SimPy model of the Roulette X generator implementing ``devices.contracts.MultiplierIlluminator``.

    ``rules`` is the ``RouletteXSubmission`` whose selected paytable and PAR it draws from; ``wheel``
    the wheel in use, ``params.wheel`` when None (a paytable the wheel is not authorized for is
    refused, § 617b.5(g))."""

    def __init__(self, env: simpy.Environment, params: IlluminatorParams, rules: RouletteXSubmission,
                 wheel: Wheel | str | None, rng: np.random.Generator, telemetry: Telemetry,
                 name: str = "illuminator") -> None:
        self.env, self.params, self.rules, self.rng = env, params, rules, rng
        self.telemetry, self.name = telemetry, name
        self.wheel = Wheel(params.wheel if wheel is None else wheel)
        self.paytable = paytable_for(rules.paytable, self.wheel)
        par = rules.par_for()
        self._counts, cw = zip(*par.lit_count_weights.items(), strict=True)
        self._cw = np.array(cw) / sum(cw)
        self._mults, mw = zip(*par.multiplier_weights.items(), strict=True)
        self._mw = np.array(mw) / sum(mw)
        self._pockets: tuple[Pocket, ...] = pockets(self.wheel)
        self._id = 0
        telemetry(name, "device_info", {"wheel": str(self.wheel), "paytable": self.paytable.name,
                                        "multipliers": [int(m.ratio) for m in self.paytable.multipliers]})

    def draw(self) -> tuple[tuple[Pocket, ...], tuple[int, ...]]:
        """One selection as the generator makes it (no timing, no telemetry)."""
        rng, p, ps = self.rng, self.params, self._pockets
        k = int(rng.choice(self._counts, p=self._cw))
        chosen = rng.choice(len(ps), size=k, replace=False)
        odds = rng.choice(self._mults, size=k, p=self._mw)
        numbers = [ps[int(i)] for i in chosen]
        mults = [int(m) for m in odds]
        if p.biased > 0 and float(rng.random()) < p.biased:
            numbers = [ps[int(i)] for i in rng.choice(p.biased_subset_size, size=k, replace=False)]
        if p.duplicate_numbers > 0 and float(rng.random()) < p.duplicate_numbers:
            a, b = (int(x) for x in rng.choice(k, size=2, replace=False))
            numbers[b] = numbers[a]
        if p.off_paytable_value > 0 and float(rng.random()) < p.off_paytable_value:
            mults[int(rng.integers(k))] = p.off_paytable_multiplier
        return tuple(numbers), tuple(mults)

    def illuminate(self) -> simpy.Event:
        """Initiate the generator now; succeeds with ``Illumination`` once the numbers are lit."""
        now = self.env.now
        numbers, mults = self.draw()
        self._id += 1
        drawn_s = now - self.params.early_s if self.params.lit_early else now
        result = Illumination(illumination_id=self._id, numbers=numbers, multipliers=mults, device_time_s=drawn_s)
        done = self.env.event()

        def lit(_e: simpy.Event) -> None:
            self.telemetry(self.name, "illumination", payload(result))
            done.succeed(result)

        self.env.timeout(self.params.illuminate_s).callbacks.append(lit)
        return done
