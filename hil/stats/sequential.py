"""The sequential monitor: Wald's sequential probability ratio test (SPRT) of a fair wheel (H0)
against a planned bias (H1), spin by spin, so a run can stop once the evidence is decisive.

Why an SPRT and not a group-sequential design with alpha spending (docs/plan.md, "The monitor"):
the rig commits every round, so the evidence arrives one spin at a time, and the lab plans ONE
bias (``hil.stats.synth.Bias``: a hot pocket, a neighbour dependence, a direction-only bias), a
simple alternative. For a simple H0 against a simple H1, Wald's SPRT has the smallest expected
sample number under both hypotheses of all tests with the same error rates (Wald & Wolfowitz,
1948); it also ACCEPTS H0, which a group-sequential χ² with alpha spending (built to reject
against a composite alternative at a few interim looks) does not do without a beta-spending
function on top. The price: it answers only "fair, or this bias?"; a run also keeps its fixed-N
battery (``croupier analyze``) and χ² checks for everything else.

The log-likelihood ratio of the spins so far, ``S_n = Σ log(P1(x_i | x_{i-1}, d_i) / P0(x_i))``,
is compared after each spin with Wald's bounds ``a = log(β/(1-α))`` and ``b = log((1-β)/α)``:
``S_n >= b`` accepts H1 (the bias), ``S_n <= a`` accepts H0 (fair), else go on. Wald's bounds keep
the error rates at about α and β (exactly: ``α' <= α/(1-β)``, ``β' <= β/(1-α)``; overshoot makes
them smaller). No decision is taken before ``min_n`` spins; at ``max_n`` spins without a decision
the monitor is undecided (truncation: it never turns "not decisive" into a verdict).

Increments per bias kind (``Bias``): a hot pocket, ``log(p1[x]/p0[x])``; a direction-only bias,
the same in spins of its direction and 0 in the others (a spin of unknown direction is 0: it is
no evidence either way); the neighbour chain, ``log(P1(x_i | x_{i-1})/p0[x_i])`` (0 for the first
spin).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from hil.stats.data import Alphabet
from hil.stats.synth import Bias, _neighbour_chain, directions, parse_bias

Decision = Literal["H0", "H1"]
#: what a monitor's decision means in a verdict (the check: pass, fail, indeterminate)
ACCEPT_FAIR, ACCEPT_BIAS = "H0", "H1"


@dataclass(frozen=True)
class SprtDesign:
    """The SPRT of ``alphabet`` fair (its null probabilities) against ``bias``, at nominal error
    rates ``alpha`` (type I: a fair wheel called biased) and ``beta`` (type II: the planned bias
    called fair). ``min_n``: no decision before this many spins; ``max_n``: undecided after this
    many (None: never truncated)."""

    alphabet: Alphabet
    bias: Bias
    alpha: float = 0.01
    beta: float = 0.1
    min_n: int = 0
    max_n: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.bias, str):
            object.__setattr__(self, "bias", parse_bias(self.bias))
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 0.0 < v < 0.5):
                raise ValueError(f"SPRT {name} must be in (0, 0.5), not {v!r}")
        if self.bias.kind == "none" or self.bias.strength == 0.0:
            raise ValueError(f"SPRT: the planned bias {self.bias.text!r} is no bias: H1 must differ from H0")
        self.bias.check(self.alphabet)
        if not isinstance(self.min_n, int) or self.min_n < 0:
            raise ValueError(f"SPRT min_n must be a whole number >= 0, not {self.min_n!r}")
        if self.max_n is not None and (not isinstance(self.max_n, int) or self.max_n < max(1, self.min_n)):
            raise ValueError(f"SPRT max_n must be a whole number >= min_n ({self.min_n}), not {self.max_n!r}")

    @property
    def lower(self) -> float:
        """Wald's lower bound ``log(β/(1-α))``: at or below it, H0 (fair) is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound ``log((1-β)/α)``: at or above it, H1 (the bias) is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    # ------------------------------------------------------------------ the increments
    def _tables(self) -> tuple[np.ndarray, float, float]:
        """(per-symbol log ratio for hot/direction; neighbour: log ratio adjacent, not adjacent)."""
        b, a = self.bias, self.alphabet
        if b.kind == "neighbour":
            k, x = a.k, b.strength
            return np.zeros(a.k), math.log(k * (1.0 + x) / (k + 2 * x)), math.log(k / (k + 2 * x))
        return np.log(b.p1(a) / a.p), 0.0, 0.0

    def increments(self, results: np.ndarray, direction: np.ndarray | None = None,
                   previous: int | None = None) -> np.ndarray:
        """Each spin's log-likelihood-ratio increment, vectorised. ``previous``: the result before
        ``results[0]`` (the neighbour chain's first step; None: the first spin carries 0)."""
        r = np.asarray(results, dtype=np.int64)
        table, adj, other = self._tables()
        b = self.bias
        if b.kind == "neighbour":
            k = self.alphabet.k
            prev = np.empty_like(r)
            if r.size:
                prev[1:] = r[:-1]
                prev[0] = -1 if previous is None else previous
            dist = (r - prev) % k
            z = np.where((dist == 1) | (dist == k - 1), adj, other)
            if r.size and previous is None:
                z[0] = 0.0
            return z
        z = table[r]
        if b.kind == "direction":
            if direction is None:
                return np.zeros(r.size)
            z = np.where(np.asarray(direction) == b.direction, z, 0.0)
        return z

    def drift(self, truth: Bias | str) -> float:
        """The mean increment per spin when ``truth`` holds (Wald's ASN uses it): the KL divergence
        KL(P1 || P0) under H1, -KL(P0 || P1) under H0; a direction-only bias counts half its spins
        (directions alternate)."""
        t = parse_bias(truth) if isinstance(truth, str) else truth
        a, b = self.alphabet, self.bias
        table, adj, other = self._tables()
        if b.kind == "neighbour":
            k = a.k
            q = 2.0 / k if t.kind != "neighbour" else 2.0 * (1.0 + t.strength) / (k + 2 * t.strength)
            return q * adj + (1.0 - q) * other
        p = t.p1(a) if t.kind in ("hot", "direction") else a.p
        e = float(np.sum(p * table))
        if b.kind == "direction":
            return 0.5 * e if t.kind != "direction" else 0.5 * float(np.sum(t.p1(a) * table))
        return e

    def moments(self, truth: Bias | str) -> tuple[float, float]:
        """The mean and variance of one spin's increment when ``truth`` holds ("none" or the
        planned bias; a direction-only bias's spins alternate, so half of them carry 0)."""
        t = parse_bias(truth) if isinstance(truth, str) else truth
        a, b = self.alphabet, self.bias
        table, adj, other = self._tables()
        if b.kind == "neighbour":
            k = a.k
            q = 2.0 / k if t.kind != "neighbour" else 2.0 * (1.0 + t.strength) / (k + 2 * t.strength)
            values, probs = np.array([adj, other]), np.array([q, 1.0 - q])
        else:
            p = t.p1(a) if t.kind in ("hot", "direction") else a.p
            values, probs = table, p
            if b.kind == "direction":
                values, probs = np.append(table, 0.0), np.append(0.5 * p, 0.5)
        mean = float(np.sum(probs * values))
        return mean, float(np.sum(probs * (values - mean) ** 2))

    def fixed_n(self) -> int:
        """The fixed-sample size of the same test (Neyman–Pearson: the summed log-likelihood
        ratio against one threshold) with the same α and β, normal approximation: the baseline
        the SPRT's sample number is compared with (Wald: about half of it, or less)."""
        from scipy.stats import norm

        m0, v0 = self.moments("none")
        m1, v1 = self.moments(self.bias)
        z = norm.isf(self.alpha) * math.sqrt(v0) + norm.isf(self.beta) * math.sqrt(v1)
        return math.ceil((z / (m1 - m0)) ** 2)

    def wald_asn(self, truth: Bias | str) -> float:
        """Wald's approximate expected sample number under ``truth`` (H0's "none" or the planned
        bias): ``(L·a + (1-L)·b)/drift`` with L the probability of accepting H0 (1-α, β)."""
        t = parse_bias(truth) if isinstance(truth, str) else truth
        accept0 = 1.0 - self.alpha if t.kind == "none" else self.beta
        return (accept0 * self.lower + (1.0 - accept0) * self.upper) / self.drift(t)

    def run(self, results: np.ndarray, direction: np.ndarray | None = None) -> SprtOutcome:
        """The monitor over a whole sequence at once (vectorised): its decision, where, and the
        log-likelihood ratio there."""
        z = self.increments(results, direction)
        if self.max_n is not None:
            z = z[: self.max_n]
        s = np.cumsum(z)
        hit = (s >= self.upper) | (s <= self.lower)
        hit[: max(0, self.min_n - 1)] = False
        idx = np.flatnonzero(hit)
        if idx.size:
            i = int(idx[0])
            return SprtOutcome(ACCEPT_BIAS if s[i] >= self.upper else ACCEPT_FAIR, i + 1, float(s[i]))
        return SprtOutcome(None, int(s.size), float(s[-1]) if s.size else 0.0,
                           truncated=self.max_n is not None and s.size >= self.max_n)

    def to_json(self) -> dict:
        return {"method": "SPRT (Wald)", "alphabet": self.alphabet.kind, "bias": self.bias.text,
                "alpha": self.alpha, "beta": self.beta, "min_n": self.min_n, "max_n": self.max_n,
                "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class SprtOutcome:
    """``decision`` "H0" (fair) / "H1" (the bias) / None (not decisive) after ``n`` spins, at the
    log-likelihood ratio ``llr``; ``truncated``: it reached ``max_n`` undecided."""

    decision: Decision | None
    n: int
    llr: float
    truncated: bool = False


@dataclass
class Sprt:
    """The monitor spin by spin (a run's hook, the check's replay): ``update`` each valid spin's
    result index (and its direction, +1/-1/0); ``decision`` once decisive, then it stays."""

    design: SprtDesign
    n: int = 0
    llr: float = 0.0
    decision: Decision | None = None
    decided_at: int | None = None
    last: int | None = None
    _tables: tuple = field(default=(), repr=False)

    def __post_init__(self) -> None:
        self._tables = self.design._tables()

    def update(self, result: int, direction: int = 0) -> Decision | None:
        """Add one spin; returns the decision (None: go on). After a decision, further spins are
        counted but change nothing (the decision is the monitor's at ``decided_at``)."""
        d = self.design
        table, adj, other = self._tables
        self.n += 1
        if d.bias.kind == "neighbour":
            if self.last is not None:
                dist = (result - self.last) % d.alphabet.k
                z = adj if dist in (1, d.alphabet.k - 1) else other
            else:
                z = 0.0
        elif d.bias.kind == "direction":
            z = float(table[result]) if direction == d.bias.direction else 0.0
        else:
            z = float(table[result])
        self.last = result
        if self.decision is not None:
            return self.decision
        self.llr += z
        if self.n >= d.min_n:
            if self.llr >= d.upper:
                self.decision, self.decided_at = ACCEPT_BIAS, self.n
            elif self.llr <= d.lower:
                self.decision, self.decided_at = ACCEPT_FAIR, self.n
        return self.decision

    @property
    def truncated(self) -> bool:
        return self.decision is None and self.design.max_n is not None and self.n >= self.design.max_n


# --------------------------------------------------------------------------- operating characteristics
@dataclass(frozen=True)
class OperatingPoint:
    """``runs`` simulated monitors under ``truth``: how many accepted H0, H1, or reached ``max_n``
    undecided, and the sample numbers (mean, and the 50/90/99 % quantiles) of the decided ones."""

    truth: str
    runs: int
    accept_h0: int
    accept_h1: int
    undecided: int
    mean_n: float
    quantiles_n: tuple[float, float, float]

    def rate(self, decision: Decision) -> float:
        return (self.accept_h0 if decision == ACCEPT_FAIR else self.accept_h1) / self.runs


def operating_point(design: SprtDesign, truth: Bias | str, runs: int, seed: int, block: int = 4096) -> OperatingPoint:
    """Simulate ``runs`` monitors with data drawn under ``truth`` (``hil.stats.synth``'s models,
    directions alternating), each until it decides or reaches ``design.max_n`` (required), in
    blocks of ``block`` spins (the neighbour chain carried across blocks). Fixed ``seed``: the
    same figures every time."""
    t = parse_bias(truth) if isinstance(truth, str) else truth
    if design.max_n is None:
        raise ValueError("operating_point: the design needs max_n (a bound on each simulated run)")
    a = design.alphabet
    block += block % 2  # even, so the directions alternate across blocks
    t.check(a)
    counts = {ACCEPT_FAIR: 0, ACCEPT_BIAS: 0, None: 0}
    ns = []
    for child in np.random.SeedSequence(seed).spawn(runs):
        rng = np.random.default_rng(child)
        s, n, last, decision = 0.0, 0, None, None
        while n < design.max_n and decision is None:
            m = min(block, design.max_n - n)
            r, d = _draw(a, t, m, rng, last)
            z = design.increments(r, d, previous=last)
            c = s + np.cumsum(z)
            hit = (c >= design.upper) | (c <= design.lower)
            if design.min_n > n:
                hit[: max(0, design.min_n - n - 1)] = False
            idx = np.flatnonzero(hit)
            if idx.size:
                i = int(idx[0])
                decision = ACCEPT_BIAS if c[i] >= design.upper else ACCEPT_FAIR
                n += i + 1
            else:
                n += m
                s = float(c[-1])
                last = int(r[-1])
        counts[decision] += 1
        if decision is not None:
            ns.append(n)
    arr = np.asarray(ns, dtype=float)
    q = tuple(float(np.quantile(arr, x)) for x in (0.5, 0.9, 0.99)) if arr.size else (math.nan,) * 3
    return OperatingPoint(t.text, runs, counts[ACCEPT_FAIR], counts[ACCEPT_BIAS], counts[None],
                          float(arr.mean()) if arr.size else math.nan, q)


def _draw(a: Alphabet, t: Bias, m: int, rng: np.random.Generator, last: int | None
          ) -> tuple[np.ndarray, np.ndarray]:
    """``m`` more spins under ``t`` (after ``last``, for the neighbour chain), directions
    alternating clockwise first (blocks are even, so the alternation carries on)."""
    d = directions(m, rng, True)
    if t.kind == "neighbour":
        if last is None:
            r = _neighbour_chain(a.k, m, t.strength, rng)
        else:  # the chain goes on from the last result: its first step is a step of the chain
            r = _neighbour_chain(a.k, m + 1, t.strength, rng, first=last)[1:]
        return r, d
    if t.kind == "direction":
        r = rng.choice(a.k, size=m, p=a.p)
        on = d == t.direction
        r[on] = rng.choice(a.k, size=int(on.sum()), p=t.p1(a))
        return r, d
    return rng.choice(a.k, size=m, p=t.p1(a)), d


__all__ = ["ACCEPT_BIAS", "ACCEPT_FAIR", "OperatingPoint", "Sprt", "SprtDesign", "SprtOutcome", "operating_point"]
