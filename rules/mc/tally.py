"""Exact integer tallies of simulated wagers: the Monte Carlo engine's one currency.

A kernel (``rules.mc``) resolves a chunk of wagers into an int64 array of RETURNS: what comes back
to the player, stake included, 0 when the wager is lost, in units of ``1/den`` of the stake (a
"35 to 1" win returns 36 stakes: 36 with ``den`` 1; a half-stake push with ``den`` 2 returns 1).
``tally`` turns that array into a ``WagerTally`` of Python ints: the count, the sum of returns,
the sum of squared returns and the hits. Integers add exactly, so tallies merged in any order
or grouping are bit-identical (``merge`` is associative and commutative), which is what lets a
run split into chunks on any number of workers give the same figures.

The figures of a tally (``rtp``, ``sd``, ``hit_frequency``, ``ci``) are per unit stake:
``rtp`` = s1 / (den n), ``sd`` the sample standard deviation of the return per stake (n - 1 in
the denominator), ``ci`` the normal-approximation (central limit) interval rtp ± z sd / √n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

#: int64 products stay below this (2**62: headroom for the sum of one block).
_INT64_SAFE = 1 << 62


@dataclass(frozen=True)
class WagerTally:
    """Exact integer sums over ``n`` resolved wagers of one kind.

    ``s1``: sum of the returns in units of 1/``den`` stake; ``s2``: sum of the squared returns
    (units squared); ``hits``: wagers whose return is > 0.
    """

    n: int
    s1: int
    s2: int
    hits: int
    den: int = 1

    def __post_init__(self) -> None:
        for name in ("n", "s1", "s2", "hits", "den"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"WagerTally.{name} must be an int, not {type(value).__name__}")
        if self.den < 1:
            raise ValueError(f"WagerTally.den must be >= 1, not {self.den}")
        if self.n < 0 or self.hits < 0 or self.hits > self.n or self.s2 < 0:
            raise ValueError(f"inconsistent WagerTally: n={self.n}, hits={self.hits}, s2={self.s2}")

    # ------------------------------------------------------------------ combining
    def rescaled(self, den: int) -> WagerTally:
        """The same tally in units of 1/``den`` (``den`` a multiple of this tally's)."""
        if den % self.den:
            raise ValueError(f"cannot rescale a tally in 1/{self.den} to 1/{den}")
        k = den // self.den
        return WagerTally(self.n, self.s1 * k, self.s2 * k * k, self.hits, den)

    def merge(self, other: WagerTally) -> WagerTally:
        """The tally of both sets of wagers (exact; units: the lcm of both ``den``)."""
        return merge(self, other)

    __add__ = merge

    # ------------------------------------------------------------------ figures
    @property
    def rtp_fraction(self) -> Fraction:
        """The sample mean return per stake, exact."""
        if self.n == 0:
            raise ValueError("a tally of no wagers has no RTP")
        return Fraction(self.s1, self.den * self.n)

    @property
    def rtp(self) -> float:
        """The sample mean return per stake (= s1 / (den n)); NaN for no wagers."""
        return float(Fraction(self.s1, self.den * self.n)) if self.n else math.nan

    @property
    def variance(self) -> float:
        """Sample variance of the return per stake (n - 1 in the denominator), from exact ints."""
        if self.n < 2:
            return math.nan
        num = self.n * self.s2 - self.s1 * self.s1  # exact: >= 0 by Cauchy–Schwarz
        return float(Fraction(num, self.n * (self.n - 1) * self.den * self.den))

    @property
    def sd(self) -> float:
        """Sample standard deviation of the return per stake."""
        return math.sqrt(self.variance) if self.n >= 2 else math.nan

    @property
    def standard_error(self) -> float:
        """Standard error of ``rtp``: sd / √n."""
        return self.sd / math.sqrt(self.n) if self.n >= 2 else math.nan

    @property
    def hit_frequency(self) -> float:
        """Share of the wagers that returned anything (a push counts: its return is > 0)."""
        return self.hits / self.n if self.n else math.nan

    def ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """Two-sided normal-approximation confidence interval of the RTP at ``confidence``."""
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence must lie in (0, 1), not {confidence}")
        z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
        half = z * self.standard_error
        return (self.rtp - half, self.rtp + half)

    def to_json(self, confidence: float = 0.95) -> dict:
        lo, hi = self.ci(confidence) if self.n >= 2 else (math.nan, math.nan)
        return {"n": self.n, "s1": self.s1, "s2": self.s2, "hits": self.hits, "den": self.den,
                "rtp": self.rtp, "sd": self.sd, "hit_frequency": self.hit_frequency,
                "ci": [lo, hi], "confidence": confidence}


def merge(a: WagerTally, b: WagerTally) -> WagerTally:
    """Exact sum of two tallies (associative, commutative; units: lcm of the ``den``)."""
    den = math.lcm(a.den, b.den)
    a, b = a.rescaled(den), b.rescaled(den)
    return WagerTally(a.n + b.n, a.s1 + b.s1, a.s2 + b.s2, a.hits + b.hits, den)


def merge_all(tallies) -> WagerTally | None:
    """Merge an iterable of tallies left to right (None if empty)."""
    out = None
    for t in tallies:
        out = t if out is None else merge(out, t)
    return out


def merge_dicts(a: dict[str, WagerTally], b: dict[str, WagerTally]) -> dict[str, WagerTally]:
    """Wager-by-wager merge of two kernel results (keys of ``a`` first, then new keys of ``b``)."""
    out = dict(a)
    for k, t in b.items():
        out[k] = merge(out[k], t) if k in out else t
    return out


def tally(returns: np.ndarray, den: int = 1) -> WagerTally:
    """The exact tally of an integer array of returns (units 1/``den`` stake).

    Sums are taken in int64 in blocks small enough not to overflow and added as Python ints.
    """
    r = np.asarray(returns)
    if r.dtype.kind not in "iu":
        raise TypeError(f"tally() needs integer returns (units of 1/den stake), not {r.dtype}")
    r = r.ravel().astype(np.int64, copy=False)
    n = int(r.size)
    if n == 0:
        return WagerTally(0, 0, 0, 0, den)
    lo, hi = int(r.min()), int(r.max())
    if lo < 0:
        raise ValueError(f"a return is never negative (what comes back to the player), saw {lo}")
    hits = int(np.count_nonzero(r))
    s1 = int(r.sum())
    if hi == 0:
        return WagerTally(n, 0, 0, 0, den)
    if hi > 3_037_000_499:  # hi**2 overflows int64: exact Python ints
        s2 = sum(int(v) * int(v) for v in r[r > 0])
        return WagerTally(n, s1, s2, hits, den)
    block = max(1, _INT64_SAFE // (hi * hi))
    if block >= n:
        s2 = int(np.dot(r, r))
    else:
        s2 = 0
        for i in range(0, n, block):
            part = r[i:i + block]
            s2 += int(np.dot(part, part))
    return WagerTally(n, s1, s2, hits, den)


def tally_values(values: np.ndarray, counts: np.ndarray, den: int = 1) -> WagerTally:
    """The tally of ``counts[i]`` wagers each returning ``values[i]`` (a histogram of returns)."""
    s1 = s2 = hits = n = 0
    for v, c in zip(np.asarray(values).tolist(), np.asarray(counts).tolist()):
        v, c = int(v), int(c)
        if v < 0 or c < 0:
            raise ValueError("returns and counts are never negative")
        n += c
        s1 += v * c
        s2 += v * v * c
        hits += c if v > 0 else 0
    return WagerTally(n, s1, s2, hits, den)
