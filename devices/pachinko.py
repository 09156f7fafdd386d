"""The Pachinko wall (§ 690.7(b), (d)): a puck simulated peg by peg on the declared lattice.

Geometry is ``rules.pachinko.Lattice`` (staggered pegs in half-spot units ``u``, walls at ``u = 0``
and ``u = 32``, 16 landing spots, drop zones above spots 4..13). A drop releases the puck on the
centre line of landing spot ``zone``; at each of the ``rows`` peg rows it hits a peg and the rng
decides the side: right with this board's P(right) for that peg (``peg_p_right``), one uniform
draw per row (``Lattice.deflect`` turns the puck inward at a wall). The path is the side it actually
went, one letter per row; after the last row it falls into the spot below (``Lattice.spot_of``).

P(right) per peg: 1/2 on a healthy board; a board tilted in its plane by ``tilt_deg`` (positive =
right side low) adds ``TILT_GAIN · sin(tilt)`` at every peg; worn pegs right of the centre line
(``u > 16``) add ``peg_wear``; the sum is clamped to [0, 1]. ``ground_truth_matrix()`` gives the
exact landing distribution of this board (floats), from ``Lattice.landing_distribution``.

Timing (vertical motion only): released from rest, the puck falls ``row_pitch_m`` to the first
row; each peg hit keeps ``restitution`` of its vertical speed, then it falls the next
``row_pitch_m``: ``v' = sqrt(v² + 2 g h)``, ``dt = (v' - v) / g``. After the last row it falls one
more pitch into the spot and settles for ``settle_time_s``. The command reaches the board and the
presenter lets go ``release_delay_s`` later (``puck_drop``, ``start_time_s``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import simpy

from devices.contracts import PuckLanding, Telemetry, payload
from rules.pachinko import DROP_ZONES, LANDING_SPOTS, Lattice, spot_centre

#: Standard gravity, m/s².
G_M_S2 = 9.80665
#: P(right) = 1/2 + TILT_GAIN·sin(tilt) at every peg of a board tilted in its plane. With the
#: default geometry the puck drifts sideways ≈ ½·g·sin(tilt)·dt² ≈ 0.027·sin(tilt) m between rows
#: (dt ≈ 0.074 s), against a ≈ 1 cm band of strike points that decide the side: a gain of the
#: order 3. 1° ⇒ P(right) ≈ 0.552; 5° ⇒ ≈ 0.76.
TILT_GAIN = 3.0
#: Pegs with u > this (right of the board's centre line) are the worn region of ``peg_wear``.
_CENTRE_U = LANDING_SPOTS


@dataclass(frozen=True)
class PachinkoParams:
    """The simulated Pachinko wall; faults default to a healthy board."""

    #: pydantic (the bench) validates these from TOML/YAML and refuses unknown keys.
    __pydantic_config__ = {"extra": "forbid"}

    rows: int = 12
    """Peg rows (even, >= 2); must equal the Rules Submission's ``pachinko.rows`` (the declared
    ``rules.pachinko.Lattice``)."""
    row_pitch_m: float = 0.08
    """Vertical distance between peg rows (and from the release point to the first row), m."""
    restitution: float = 0.5
    """Fraction of its vertical speed the puck keeps after a peg hit, in [0, 1)."""
    g_mps2: float = G_M_S2
    """Gravity, m/s²."""
    release_delay_s: float = 0.5
    """From the drop command to the presenter letting go of the puck."""
    settle_time_s: float = 0.3
    """From reaching the landing spot to rest."""

    # ---- faults (defaults = healthy)
    tilt_deg: float = 0.0
    """Board tilted in its plane (positive = right side low): every peg's P(right) is
    1/2 + TILT_GAIN·sin(tilt) (TILT_GAIN = 3), clamped to [0, 1]."""
    peg_wear: float = 0.0
    """Worn pegs right of the centre line (u > 16) send the puck right with 1/2 + peg_wear (on top
    of any tilt), clamped to [0, 1]."""
    puck_stuck_probability: float = 0.0
    """Per drop: the puck lodges between pegs at a random row and never lands (no
    ``puck_landed``; the drop's event never succeeds)."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        need(not isinstance(self.rows, bool) and isinstance(self.rows, int) and self.rows >= 2 and self.rows % 2 == 0,
             f"rows must be an even int >= 2 (the puck must leave the last row on a spot's centre line), "
             f"not {self.rows!r}")
        need(self.row_pitch_m > 0, f"row_pitch_m must be > 0, not {self.row_pitch_m}")
        need(0.0 <= self.restitution < 1.0, f"restitution must be in [0, 1), not {self.restitution}")
        need(self.g_mps2 > 0, f"g_mps2 must be > 0, not {self.g_mps2}")
        need(self.release_delay_s >= 0 and self.settle_time_s >= 0, "release_delay_s and settle_time_s must be >= 0")
        need(-90.0 <= self.tilt_deg <= 90.0, f"tilt_deg must be in [-90, 90], not {self.tilt_deg}")
        need(-0.5 <= self.peg_wear <= 0.5, f"peg_wear must be in [-0.5, 0.5], not {self.peg_wear}")
        need(0.0 <= self.puck_stuck_probability <= 1.0,
             f"puck_stuck_probability must be in [0, 1], not {self.puck_stuck_probability}")


def fall_times_s(params: PachinkoParams) -> tuple[float, ...]:
    """Time of each fall: release → row 0, row k-1 → row k, …, last row → landing spot
    (``rows + 1`` values). No randomness: the vertical motion does not depend on the side."""
    g, h, e = params.g_mps2, params.row_pitch_m, params.restitution
    out, v = [], 0.0
    for _ in range(params.rows + 1):
        v_next = math.sqrt(v * v + 2.0 * g * h)
        out.append((v_next - v) / g)
        v = e * v_next
    return tuple(out)


class PachinkoSim:
    """SimPy model of the Pachinko wall implementing ``devices.contracts.PachinkoBoard``."""

    def __init__(self, env: simpy.Environment, params: PachinkoParams, rng: np.random.Generator,
                 telemetry: Telemetry, name: str = "pachinko") -> None:
        self.env, self.params, self.rng, self.telemetry, self.name = env, params, rng, telemetry, name
        self.lattice = Lattice(params.rows)
        tilt = 0.5 + TILT_GAIN * math.sin(math.radians(params.tilt_deg))
        self._p_left_half = min(1.0, max(0.0, tilt))
        self._p_right_half = min(1.0, max(0.0, tilt + params.peg_wear))
        self._fall_s = fall_times_s(params)
        self._drop_id = 0
        telemetry(name, "device_info", {"rows": params.rows, "spots": LANDING_SPOTS, "zones": list(DROP_ZONES)})

    def peg_p_right(self, row: int, u: int) -> float:
        """P(the peg at (row, u) sends the puck right) on this board."""
        return self._p_right_half if u > _CENTRE_U else self._p_left_half

    def ground_truth_matrix(self) -> tuple[tuple[float, ...], ...]:
        """Row ``i``: P(landing spot = k), k = 1..16, from zone ``DROP_ZONES[i]`` on THIS board."""
        return tuple(self.lattice.landing_distribution(z, self.peg_p_right) for z in DROP_ZONES)

    def fall_duration_s(self) -> float:
        """Release to landing spot, s (the same for every path)."""
        return sum(self._fall_s)

    def drop(self, zone: int) -> simpy.Event:
        """Release the puck above landing spot ``zone`` now; succeeds with ``PuckLanding``.

        A zone outside 4..13 (§ 690.7(d)) is still dropped — a faulty croupier may ask, and the
        rig's check catches it — from the centre line of that spot (1..16)."""
        if isinstance(zone, bool) or not isinstance(zone, int | np.integer) or not 1 <= zone <= LANDING_SPOTS:
            raise ValueError(f"zone must be a landing spot 1..{LANDING_SPOTS} to drop above, not {zone!r}")
        zone = int(zone)
        self._drop_id += 1
        stuck_row = None
        if self.params.puck_stuck_probability > 0 and float(self.rng.random()) < self.params.puck_stuck_probability:
            stuck_row = int(self.rng.integers(self.params.rows))
        draws = self.rng.random(self.params.rows)
        u, path = spot_centre(zone), []
        for row in range(self.params.rows if stuck_row is None else stuck_row):
            nxt = self.lattice.deflect(u, bool(draws[row] < self.peg_p_right(row, u)))
            path.append("R" if nxt > u else "L")
            u = nxt
        done = self.env.event()
        result = None if stuck_row is not None else dict(drop_id=self._drop_id, zone=zone,
                                                         spot=self.lattice.spot_of(u), path="".join(path))
        self.env.process(self._run(result, self._drop_id, zone, done))
        return done

    def _run(self, result: dict | None, drop_id: int, zone: int, done: simpy.Event):
        env, p = self.env, self.params
        if p.release_delay_s > 0:
            yield env.timeout(p.release_delay_s)
        start = env.now
        self.telemetry(self.name, "puck_drop", {"drop_id": drop_id, "zone": zone, "device_time_s": start})
        if result is None:
            return  # lodged between pegs: never lands, never reports
        yield env.timeout(self.fall_duration_s() + p.settle_time_s)
        landing = PuckLanding(**result, start_time_s=start, stop_time_s=env.now)
        self.telemetry(self.name, "puck_landed", payload(landing))
        done.succeed(landing)
