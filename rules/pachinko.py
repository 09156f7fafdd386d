"""The Pachinko board's peg lattice (§ 690.7(b), (d)) and its exact zone → landing-spot matrix.

§ 690.7(b): "a wall consisting of a multitude of pegs above 16 landing spots". § 690.7(d): the puck
is dropped "from the randomly selected location at the top of the Pachinko board in the area
directly above and between landing spots 4 through 13—the center half of the Pachinko board".

Geometry (the declared board; the Rules Submission states ``rows``). Positions are integers
``u`` in half-spot units: landing spot ``k`` (1-based, 1..16) spans ``u`` in [2(k-1), 2k] and its
centre line is ``u = 2k - 1``. Pegs are staggered: on even rows (0, 2, …) they stand on the spot
centre lines (odd ``u``), on odd rows on the spot boundaries (even ``u``). A puck falling onto a
peg leaves it one half-spot to the left or to the right. The side walls stand at ``u = 0`` and
``u = 32``: next to a wall the only way is inward. With an even number of rows the puck leaves
the last row on a spot centre line and drops into that spot.

Drop zones: zone ``z`` (4..13) is the release point on the centre line of landing spot ``z``; the
first peg row sends it into the gap to either side, so the release points together with the first
row cover the area "directly above and between" spots 4 through 13.

The matrix is exact (``Fraction``) for the nominal board, where every peg sends the puck left or
right with probability 1/2; ``landing_distribution`` also takes a per-peg probability for a worn
or tilted board (the device model uses it for its ground truth).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

#: § 690.7(b): landing spots, numbered 1..16 from the left.
LANDING_SPOTS = 16
#: § 690.7(d): the release points, above landing spots 4 through 13.
DROP_ZONES: tuple[int, ...] = tuple(range(4, 14))

_U_MAX = 2 * LANDING_SPOTS  # the right wall
P = TypeVar("P", Fraction, float)


def spot_centre(spot: int) -> int:
    """The centre line ``u`` of landing spot ``spot`` (1-based)."""
    return 2 * spot - 1


@dataclass(frozen=True)
class Lattice:
    """A staggered peg lattice of ``rows`` rows above the 16 landing spots, between two walls."""

    rows: int = 12

    def __post_init__(self) -> None:
        if isinstance(self.rows, bool) or not isinstance(self.rows, int) or self.rows < 2 or self.rows % 2:
            raise ValueError(f"rows must be an even int >= 2 (the puck must leave the last row on a "
                             f"spot's centre line), not {self.rows!r}")

    def pegs(self, row: int) -> tuple[int, ...]:
        """The ``u`` positions of the pegs of ``row`` (0 = top)."""
        return tuple(range(1, _U_MAX, 2)) if row % 2 == 0 else tuple(range(2, _U_MAX, 2))

    @staticmethod
    def deflect(u: int, right: bool) -> int:
        """Where a puck that hits the peg at ``u`` goes; the walls turn it inward."""
        v = u + 1 if right else u - 1
        if v <= 0:
            return u + 1
        if v >= _U_MAX:
            return u - 1
        return v

    @staticmethod
    def spot_of(u: int) -> int:
        """The landing spot (1-based) below centre line ``u``."""
        if u % 2 != 1 or not 1 <= u < _U_MAX:
            raise ValueError(f"u={u} is not a spot centre line")
        return (u + 1) // 2

    def landing_distribution(self, zone: int, p_right: Callable[[int, int], P] | None = None) -> tuple[P, ...]:
        """P(landing spot = k) for k = 1..16 when released in ``zone``; ``p_right(row, u)`` is the
        probability that the peg at (row, u) sends the puck right (default: exactly 1/2)."""
        if zone not in DROP_ZONES:
            raise ValueError(f"§ 690.7(d): zone {zone} is not above landing spots 4 through 13")
        half = Fraction(1, 2)
        prob = p_right or (lambda _r, _u: half)
        dist: dict[int, P] = {spot_centre(zone): Fraction(1) if p_right is None else 1.0}  # type: ignore[dict-item]
        for row in range(self.rows):
            nxt: dict[int, P] = {}
            for u, p in dist.items():
                pr = prob(row, u)
                if pr:
                    r = self.deflect(u, True)
                    nxt[r] = nxt.get(r, 0) + p * pr
                if pr != 1:
                    left = self.deflect(u, False)
                    nxt[left] = nxt.get(left, 0) + p * (1 - pr)
            dist = nxt
        out = [0] * LANDING_SPOTS
        for u, p in dist.items():
            out[self.spot_of(u) - 1] += p
        return tuple(out)  # type: ignore[return-value]

    def zone_matrix(self, p_right: Callable[[int, int], P] | None = None) -> tuple[tuple[P, ...], ...]:
        """Row ``i``: the landing distribution from zone ``DROP_ZONES[i]``."""
        return tuple(self.landing_distribution(z, p_right) for z in DROP_ZONES)

    def landing_probabilities(self) -> tuple[Fraction, ...]:
        """P(landing spot = k), k = 1..16, for a drop zone chosen uniformly at random (§ 690.7(d))."""
        m = self.zone_matrix()
        return tuple(sum((row[k] for row in m), Fraction(0)) / len(DROP_ZONES) for k in range(LANDING_SPOTS))
