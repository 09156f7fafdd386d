"""Payout odds as exact types: "N to 1" and "N for 1" (STYLE.md § 5).

The regulation states odds two ways, and they differ by one stake:

* ``ToOne`` — "N to 1" (e.g. the § 690.4(a) paytable): a winning wager keeps its stake and is
  paid N times the stake.
* ``ForOne`` — "N for 1" (e.g. § 633b.21(e)(2), progressive payouts): a winning wager receives
  N times the stake *including* the stake, so the profit is (N - 1) times the stake.

The two are distinct classes and never compare equal: ``ToOne(35) != ForOne(35)``. Amounts are
exact ``Fraction``; ``profit_cents`` rounds down to a whole cent (the house never pays a
fraction of a cent it does not owe).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Self


@dataclass(frozen=True)
class _Odds:
    ratio: Fraction

    #: stakes included in "ratio times the stake" (0 for "to 1", 1 for "for 1")
    _STAKES_INCLUDED = 0
    _WORD = "to"

    def __post_init__(self) -> None:
        if isinstance(self.ratio, bool) or not isinstance(self.ratio, int | Fraction):
            raise TypeError(f"odds ratio must be an int or Fraction, not {self.ratio!r}")
        object.__setattr__(self, "ratio", Fraction(self.ratio))
        if self.ratio < self._STAKES_INCLUDED:
            raise ValueError(f"{self} pays less than nothing: ratio must be >= {self._STAKES_INCLUDED}")

    def exact_profit(self, stake: int | Fraction) -> Fraction:
        """The exact amount paid on top of the returned stake."""
        return (self.ratio - self._STAKES_INCLUDED) * stake

    def profit_cents(self, stake_cents: int) -> int:
        """The profit on ``stake_cents``, rounded down to a whole cent."""
        return math.floor(self.exact_profit(stake_cents))

    def __mul__(self, k: int | Fraction) -> Self:
        """Scale the ratio, as a Top Slot multiplier scales odds (§ 690.4(c))."""
        if isinstance(k, bool) or not isinstance(k, int | Fraction):
            return NotImplemented
        return type(self)(self.ratio * k)

    __rmul__ = __mul__

    def __str__(self) -> str:
        return f"{self.ratio} {self._WORD} 1"


@dataclass(frozen=True)
class ToOne(_Odds):
    """"N to 1": the stake is returned and ``ratio * stake`` is paid (§ 690.4(a))."""


@dataclass(frozen=True)
class ForOne(_Odds):
    """"N for 1": ``ratio * stake`` is returned in total, stake included (§ 633b.21(e)(2))."""

    _STAKES_INCLUDED = 1
    _WORD = "for"
