"""The sample-size planner (``croupier plan``): how many spins a lab needs to detect a bias at
level α with power 1 − β, by two methods that it reports side by side (docs/plan.md).

1. **Noncentral χ²** (``analytic``). The one test of the battery built for the bias, under the
   alternative, is approximately noncentral χ² with ``k − 1`` degrees of freedom and
   noncentrality ``λ = n·Σ(p1 − p0)²/p0``:

   * a hot pocket/section: the χ² of the counts over the symbols (p1 the biased distribution);
   * neighbour dependence: the χ² of the pocket distances ``(r[i+1] − r[i]) mod k`` (uniform under
     H0; under the chain, the distances ±1 have ``(1+X)/(k+2X)``), over ``n − 1`` distances;
   * a direction-only bias: the χ² of the counts within that direction's spins (half of them, the
     directions alternating).

   The level is the battery's for its first rejection: Holm (and Bonferroni) over the battery's
   ``m`` tests (``hil.stats.battery.battery_size``) reject first at ``α/m``. The smallest ``n``
   with ``P(ncx2(k−1, λ(n)) > χ²_{k−1, 1−α/m}) ≥ power``.
   For a hot pocket or section the battery also has a sharper test, the per-symbol exact binomial
   (Šidák over the symbols): ``per_symbol`` gives its n the same way (exact binomial power).
2. **Simulation** (``simulated``). The battery exactly as ``croupier analyze`` runs it
   (``hil.stats.battery.run_battery`` with its correction) on data drawn under the bias
   (``hil.stats.synth.simulate``): the smallest ``N`` at which its overall verdict is "fail" in at
   least ``power`` of ``simulations`` runs, found by bracketing then bisection from the analytic
   ``n``, with common random numbers (replicate ``r`` always draws from the seed ``[seed, r]``), and
   a Clopper–Pearson interval on the power achieved there.

The two differ where the battery has a more (or less) powerful test than the one above for the
bias (the per-symbol binomial for a single hot pocket, say) or where the χ² approximation is off
at small expected counts; the simulation is the figure "flagged at the planner's N" is held to.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from hil.stats.data import Alphabet, OutcomeData
from hil.stats.synth import Bias, parse_bias, simulate

#: the games ``croupier plan --game`` knows, and the outcome alphabet each is planned over
GAMES: dict[str, Callable[[], Alphabet]] = {
    "roulette": lambda: Alphabet.roulette("single-zero"),
    "roulette-double": lambda: Alphabet.roulette("double-zero"),
    "money-wheel": lambda: Alphabet.money_wheel(),
    "top-slot": lambda: Alphabet.top_slot(reel=1),
}
#: a game whose plays have a direction (a wheel spun alternately each way)
DIRECTED = {"roulette", "roulette-double", "money-wheel"}
#: the largest N the simulation looks at (a bias it cannot detect within it is said so)
MAX_N = 20_000_000


def alphabet_for(game: str) -> Alphabet:
    """The outcome alphabet of ``game`` (ValueError naming the games for another)."""
    if game not in GAMES:
        raise ValueError(f"no game {game!r}: one of {', '.join(GAMES)}")
    return GAMES[game]()


@dataclass(frozen=True)
class AnalyticPlan:
    """The noncentral χ² plan: ``n`` plays; the ``test`` it is for (its ``dof``), at ``level``
    (``alpha / battery_size``), the noncentrality per play and at ``n``, the power reached there."""

    n: int
    test: str
    dof: int
    level: float
    battery_size: int
    correction: str
    noncentrality_per_play: float
    noncentrality: float
    power: float

    def to_json(self) -> dict[str, Any]:
        return {"method": "noncentral chi-square", **self.__dict__}


@dataclass(frozen=True)
class SimulatedPlan:
    """The simulation plan: the smallest ``n`` at which the battery's verdict was "fail" in at
    least the asked power of ``simulations`` runs (``detected`` of them), the interval on that
    power, the tests that flagged (share of runs) and every N evaluated."""

    n: int | None
    simulations: int
    detected: int
    power: float
    power_ci: tuple[float, float]
    confidence: float
    seed: int
    alpha: float
    correction: str
    flagged_by: dict[str, float]
    evaluations: list[tuple[int, float]] = field(default_factory=list)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"method": "simulation of the battery (croupier analyze)",
                "test": f"the battery's overall verdict 'fail' ({self.correction} over its tests, alpha {self.alpha})",
                **{k: v for k, v in self.__dict__.items() if k != "evaluations"},
                "power_ci": list(self.power_ci),
                "evaluations": [{"n": n, "power": p} for n, p in self.evaluations]}


def _check_levels(alpha: float, power: float) -> None:
    if not (isinstance(alpha, (int, float)) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be in (0, 1), not {alpha!r}")
    if not (isinstance(power, (int, float)) and alpha < power < 1.0):
        raise ValueError(f"power must be in (alpha, 1) = ({alpha}, 1), not {power!r}")


def _bias(bias: Bias | str, alphabet: Alphabet, game: str) -> Bias:
    b = parse_bias(bias) if isinstance(bias, str) else bias
    if b.kind == "none" or b.strength == 0.0:
        raise ValueError(f"bias {b.text!r} is no bias: there is nothing to detect")
    if b.kind == "direction" and game not in DIRECTED:
        raise ValueError(f"bias {b.text!r} is direction-only, and a {game} play has no direction")
    b.check(alphabet)
    return b


def planned_test(bias: Bias, alphabet: Alphabet) -> tuple[str, int, float, int]:
    """(the test, its dof, the noncentrality per play, plays lost before the first observation)."""
    k, p0 = alphabet.k, alphabet.p
    if bias.kind == "neighbour":
        x = bias.strength
        q1 = np.full(k, 1.0 / (k + 2 * x))
        q1[1] = q1[k - 1] = (1.0 + x) / (k + 2 * x)
        q0 = np.full(k, 1.0 / k)
        return "pocket-distance chi-square (consecutive results)", k - 1, float(np.sum((q1 - q0) ** 2 / q0)), 1
    lam = float(np.sum((bias.p1(alphabet) - p0) ** 2 / p0))
    if bias.kind == "direction":
        side = "clockwise" if bias.direction > 0 else "anticlockwise"
        return f"chi-square of the counts, {side} spins only", k - 1, lam / 2.0, 0
    return "chi-square of the counts", k - 1, lam, 0


def battery_size_at(alphabet: Alphabet, bias: Bias, n: int, directed: bool) -> int:
    """The number of tests the battery corrects over for data like the plan's (``battery_size``)."""
    from hil.stats.battery import battery_size

    data = simulate(alphabet, n, bias, np.random.default_rng(0), direction=directed)
    return int(battery_size(data))


def analytic(game: str, bias: Bias | str, alpha: float = 0.01, power: float = 0.9,
             correction: str = "holm", battery_size: int | None = None) -> AnalyticPlan:
    """The noncentral χ² plan (module docstring, method 1). ``battery_size``: the tests the
    correction divides α by (None: the battery's own count for such data)."""
    _check_levels(alpha, power)
    a = alphabet_for(game)
    b = _bias(bias, a, game)
    test, dof, per_play, lost = planned_test(b, a)
    m = battery_size if battery_size is not None else battery_size_at(a, b, 10_000, game in DIRECTED)
    level = alpha / m if correction in ("holm", "bonferroni") else alpha
    crit = stats.chi2.isf(level, dof)

    def short(lam: float) -> float:
        return float(stats.ncx2.sf(crit, dof, lam)) - power

    hi = 1.0
    while short(hi) < 0:
        hi *= 2.0
    lam = optimize.brentq(short, 0.0, hi, xtol=1e-10)
    n = math.ceil(lam / per_play) + lost
    return AnalyticPlan(n, test, dof, level, m, correction, per_play, per_play * (n - lost),
                        float(stats.ncx2.sf(crit, dof, per_play * (n - lost))))


def per_symbol(game: str, bias: Bias | str, alpha: float = 0.01, power: float = 0.9, correction: str = "holm",
               battery_size: int | None = None) -> AnalyticPlan | None:
    """The battery's per-symbol test for a hot pocket or section (exact binomial of one symbol's
    count, equal tails, Šidák over the k symbols at the battery's first Holm level α/m): the
    smallest n at which it reaches the power on the most raised symbol alone (a sector of several
    gets more from the union; this is then a bound). A direction-only bias is diluted to half its
    strength in the pooled counts. None for the neighbour chain (its counts are uniform)."""
    _check_levels(alpha, power)
    a = alphabet_for(game)
    b = _bias(bias, a, game)
    if b.kind not in ("hot", "direction"):
        return None
    m = battery_size if battery_size is not None else battery_size_at(a, b, 10_000, game in DIRECTED)
    level = alpha / m if correction in ("holm", "bonferroni") else alpha
    p0 = a.p
    p1 = b.p1(a) if b.kind == "hot" else 0.5 * (b.p1(a) + p0)
    k = int(np.count_nonzero((p0 > 0) & (p0 < 1)))
    j = int(np.argmax(np.abs(p1 - p0) / np.sqrt(p0 * (1 - p0))))
    pj, pj1 = float(p0[j]), float(p1[j])
    a_s = -math.expm1(math.log1p(-level) / k)  # Šidák per-symbol level

    def power_at(n: int) -> float:
        hi = stats.binom.isf(a_s / 2, n, pj)
        lo = stats.binom.ppf(a_s / 2, n, pj)
        return float(stats.binom.sf(hi, n, pj1) + stats.binom.cdf(lo - 1, n, pj1))

    z = stats.norm.isf(a_s / 2) * math.sqrt(pj * (1 - pj)) + stats.norm.isf(1 - power) * math.sqrt(pj1 * (1 - pj1))
    n0 = max(10, math.ceil((z / (pj1 - pj)) ** 2))  # the normal approximation, then exact
    lo_n, hi_n = max(1, n0 // 2), 2 * n0
    while power_at(hi_n) < power:
        lo_n, hi_n = hi_n, 2 * hi_n
    while hi_n - lo_n > 1:
        mid = (lo_n + hi_n) // 2
        lo_n, hi_n = (lo_n, mid) if power_at(mid) >= power else (mid, hi_n)
    side = "" if b.kind == "hot" else ", pooled over both directions"
    return AnalyticPlan(hi_n, f"per-symbol exact binomial, symbol {a.symbols[j]} (Šidák over {k} symbols{side})",
                        1, level, m, correction, (pj1 - pj) ** 2 / pj, (pj1 - pj) ** 2 / pj * hi_n, power_at(hi_n))


def _clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


def detection(game: str, bias: Bias | str, n: int, simulations: int, seed: int, alpha: float = 0.01,
              correction: str = "holm") -> tuple[int, Counter]:
    """How many of ``simulations`` runs of ``n`` plays under ``bias`` the battery (as
    ``croupier analyze`` runs it) fails, and which tests failed (counts of runs)."""
    from hil.stats.battery import run_battery

    a = alphabet_for(game)
    b = _bias(bias, a, game)
    hits, by = 0, Counter()
    for r in range(simulations):
        rng = np.random.default_rng(np.random.SeedSequence([seed, r]))
        data: OutcomeData = simulate(a, n, b, rng, direction=game in DIRECTED)
        res = run_battery(data, alpha=alpha, correction=correction)
        if res.verdict == "fail":
            hits += 1
            by.update({_name(t) for t in res.tests if t.verdict == "fail"})
    return hits, by


def _name(t: Any) -> str:
    parts = [t.test] + [str(x) for x in (getattr(t, "column", None), getattr(t, "split", None)) if x]
    return " / ".join(parts)


def simulated(game: str, bias: Bias | str, alpha: float = 0.01, power: float = 0.9, simulations: int = 200,
              seed: int = 0, start: int | None = None, correction: str = "holm", rel_tol: float = 0.02,
              confidence: float = 0.95) -> SimulatedPlan:
    """The simulation plan (module docstring, method 2), starting the bracket at ``start`` (None:
    the analytic n). Bisection stops when the bracket is within ``rel_tol`` of its top."""
    _check_levels(alpha, power)
    if not isinstance(simulations, int) or simulations < 10:
        raise ValueError(f"simulations must be a whole number >= 10, not {simulations!r}")
    a = alphabet_for(game)
    b = _bias(bias, a, game)
    n0 = start if start is not None else analytic(game, b, alpha, power, correction).n
    need = math.ceil(power * simulations)  # detected at least this often: rate >= power
    seen: dict[int, tuple[int, Counter]] = {}

    def ok(n: int) -> bool:
        if n not in seen:
            seen[n] = detection(game, b, n, simulations, seed, alpha, correction)
        return seen[n][0] >= need

    lo, hi = 0, None
    n = max(10, n0)
    if ok(n):
        hi = n
        while n > 10:
            n = max(10, n // 2)
            if ok(n):
                hi = n
            else:
                lo = n
                break
    else:
        lo = n
        while hi is None:
            n *= 2
            if n > MAX_N:
                break
            if ok(n):
                hi = n
            else:
                lo = n
    evals = sorted((k, v[0] / simulations) for k, v in seen.items())
    if hi is None:
        hits, by = seen[lo]
        return SimulatedPlan(None, simulations, hits, hits / simulations, _clopper_pearson(hits, simulations, confidence),
                             confidence, seed, alpha, correction, {}, evals,
                             f"not detected with power {power} within {MAX_N:,} plays")
    while hi - lo > max(1, math.ceil(rel_tol * hi)):
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    hits, by = seen[hi]
    evals = sorted((k, v[0] / simulations) for k, v in seen.items())
    return SimulatedPlan(hi, simulations, hits, hits / simulations, _clopper_pearson(hits, simulations, confidence),
                         confidence, seed, alpha, correction,
                         {t: c / simulations for t, c in by.most_common()}, evals,
                         f"bisection to within {rel_tol:.0%}; the power at {lo} plays was below {power}" if lo else "")


def plan(game: str, bias: str, alpha: float = 0.01, power: float = 0.9, simulations: int = 200,
         seed: int = 0, correction: str = "holm") -> dict[str, Any]:
    """Both plans as one JSON-able object (``croupier plan --json``). ``simulations`` 0: the
    analytic plan only."""
    a_plan = analytic(game, bias, alpha, power, correction)
    out: dict[str, Any] = {"game": game, "alphabet": alphabet_for(game).kind, "bias": parse_bias(bias).text,
                           "alpha": alpha, "power": power, "correction": correction,
                           "analytic": a_plan.to_json(), "analytic_per_symbol": None, "simulated": None}
    if (ps := per_symbol(game, bias, alpha, power, correction, a_plan.battery_size)) is not None:
        out["analytic_per_symbol"] = {**ps.to_json(), "method": "exact binomial (the battery's per-symbol test)"}
    if simulations:
        out["simulated"] = simulated(game, bias, alpha, power, simulations, seed, a_plan.n, correction).to_json()
    return out


__all__ = ["GAMES", "AnalyticPlan", "SimulatedPlan", "alphabet_for", "analytic", "detection", "per_symbol", "plan",
           "planned_test", "simulated"]
