"""The statistical battery of ``croupier analyze`` (issue 15; docs/analyze.md): the tests a lab runs
on a device's outcome log for bias and dependence, with a stated multiple-comparison correction.

Pure functions of an ``OutcomeData`` (``hil.stats.data``): no I/O, no clocks, no randomness.

The family, each test on the plays that can support it (docs/analyze.md gives each one's null
hypothesis, statistic, "too few" rule and power table):

* ``chi2``: Pearson's χ² goodness of fit of the counts to the alphabet's null probabilities
  (symbols whose expected count is below 5 pooled into one cell), at 99 % by default;
* ``chi2_per_symbol``: each symbol's exact two-sided binomial test, the smallest p-value
  Šidák-adjusted over the symbols (the "χ² per symbol": a single hot symbol);
* ``runs``: Wald–Wolfowitz runs test on a stated binary split (red/black on a roulette wheel, the
  two halves of any other wheel, below/above the null median otherwise);
* ``independence``: between the symbols of one play (the result and each other column, each pair
  of columns): contingency χ² with sparse categories pooled; a 2-D column sharing the result's
  symbols (the lit numbers): how often the result is among them, against chance;
* ``serial_transition`` and ``serial_autocorrelation``: consecutive plays, the lag-1 transition
  contingency (sparse categories pooled) and the lag-1 autocorrelation of a numeric score;
* ``distance`` (dealer signature, circular alphabets): the pocket distance from one result to the
  next, χ² over the k distances (uniform under H0 for a uniform wheel); ``release``: the offset of
  the result from the release point;
* per-direction splits (where ``direction`` exists and both directions occur): ``chi2`` and
  ``distance`` per direction, and ``direction_homogeneity`` (direction × result contingency).

Every test reports its statistic, dof, p-value, n, verdict at the corrected level, "too few"
when the data cannot support it, and its power at this N against a stated reference alternative,
computed at α/m (m = the family size; the level Holm and Bonferroni give the smallest p-value, so a
lower bound of the power under Holm).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from scipy import stats

from hil.stats.data import ABSENT, Alphabet, OutcomeData

#: Cochran's rule: a χ² cell needs an expected count of at least this.
MIN_EXPECTED = 5.0
#: The runs test's normal approximation needs this many of each kind.
MIN_RUNS_EACH = 10
#: The lag-1 autocorrelation's normal approximation needs this many pairs.
MIN_PAIRS = 30
#: A test whose power against its reference alternative is below this is listed as weak in ``thin``.
WEAK_POWER = 0.5

#: The reference alternatives the power is stated against (docs/analyze.md).
HOT_SYMBOL_FACTOR = 1.2       # one symbol +20 %
NEIGHBOUR_FACTOR = 1.2        # the next result on a neighbouring pocket (±1) +20 %
RUNS_RHO = 0.05               # lag-1 correlation 0.05 of the runs test's binary indicator
AUTOCORR_RHO = 0.05           # lag-1 correlation 0.05 of the score
COHEN_W = 0.1                 # Cohen's w = 0.1 (a "small" effect) for the contingency tests
COINCIDENCE_FACTOR = 1.2      # the result among the 2-D column's symbols 20 % more often

Verdict = Literal["pass", "fail", "too few"]
CORRECTIONS = ("holm", "bonferroni")


@dataclass(frozen=True)
class TestResult:
    """One test of the battery. ``statistic``, ``dof``, ``p_value`` and ``power`` are None when
    the test had too few plays; ``p_value`` is the test's own, ``p_adjusted`` the corrected one
    the verdict compares with ``alpha``."""

    __test__ = False  # not a pytest class

    test: str
    column: str
    split: str
    null: str
    statistic_name: str
    statistic: float | None
    dof: int | None
    p_value: float | None
    n: int
    verdict: Verdict
    power: float | None
    detail: dict[str, Any] = field(default_factory=dict)
    p_adjusted: float | None = None

    @property
    def name(self) -> str:
        """``test[column/split]``, as the table and ``thin`` show it."""
        parts = [p for p in (self.column if self.column != "result" else "", self.split if self.split != "all" else "") if p]
        return self.test + (f"[{', '.join(parts)}]" if parts else "")

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "column": self.column, "split": self.split, "null": self.null,
                "statistic_name": self.statistic_name, "statistic": _num(self.statistic), "dof": self.dof,
                "p_value": _num(self.p_value), "p_adjusted": _num(self.p_adjusted), "n": self.n,
                "verdict": self.verdict, "power": _num(self.power), "detail": _jsonable(self.detail)}


@dataclass(frozen=True)
class BatteryResult:
    """The battery's outcome: ``verdict`` "fail" when any test fails at the corrected level;
    "undecided" when none failed and either no test had enough data or the χ² of the results
    (the regulation's test) had too few plays — never a pass on nothing; "pass" otherwise.
    ``thin`` names each test skipped or weak (power < ``WEAK_POWER``) for lack of data."""

    verdict: Literal["pass", "fail", "undecided"]
    alpha: float
    correction: str
    tests: list[TestResult]
    thin: list[str]
    source: str = ""
    n: int = 0

    @property
    def family_size(self) -> int:
        """The number of tests the correction divides by (those with enough data)."""
        return sum(t.p_value is not None for t in self.tests)

    @property
    def failed(self) -> list[TestResult]:
        return [t for t in self.tests if t.verdict == "fail"]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``json.dumps`` takes it as is): verdict, alpha, correction, family_size,
        n, source, tests, thin."""
        return {"verdict": self.verdict, "alpha": self.alpha, "correction": self.correction,
                "family_size": self.family_size, "n": self.n, "source": self.source,
                "tests": [t.to_json() for t in self.tests], "thin": list(self.thin)}


def _num(x: float | None) -> float | None:
    return None if x is None else float(x)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating | float):
        v = float(x)
        return v if math.isfinite(v) else str(v)
    return x


# ---------------------------------------------------------------------------- one raw test

@dataclass(frozen=True)
class _Raw:
    """A test before the correction: its power as a function of the per-test level."""

    result: TestResult
    power_at: Callable[[float], float] | None = None
    thin_reason: str | None = None


def _too_few(test: str, column: str, split: str, null: str, statistic_name: str, n: int, why: str,
             **detail: Any) -> _Raw:
    return _Raw(TestResult(test, column, split, null, statistic_name, None, None, None, n, "too few", None,
                           {"too_few": why, **detail}), None, why)


def _decided(test: str, column: str, split: str, null: str, statistic_name: str, statistic: float, dof: int | None,
             p: float, n: int, power_at: Callable[[float], float] | None, **detail: Any) -> _Raw:
    p = float(min(1.0, max(0.0, p))) if math.isfinite(p) else 1.0
    return _Raw(TestResult(test, column, split, null, statistic_name, float(statistic), dof, p, n, "pass", None,
                           dict(detail)), power_at)


def _ncx2_power(df: int, lam: float) -> Callable[[float], float]:
    """Power of a χ² test with ``df`` degrees of freedom against noncentrality ``lam``."""
    return lambda level: float(stats.ncx2.sf(stats.chi2.isf(level, df), df, max(lam, 1e-12)))


def _z_power(shift: float) -> Callable[[float], float]:
    """Power of a two-sided z test whose statistic is shifted by ``shift`` standard deviations."""
    def f(level: float) -> float:
        c = stats.norm.isf(level / 2)
        return float(stats.norm.sf(c - abs(shift)) + stats.norm.cdf(-c - abs(shift)))
    return f


def _hot(p0: np.ndarray, j: int, factor: float) -> np.ndarray:
    """``p0`` with symbol ``j`` × ``factor`` and the others scaled down to keep the sum 1."""
    p1 = p0 * (1 - factor * p0[j]) / (1 - p0[j])
    p1[j] = factor * p0[j]
    return p1


# ---------------------------------------------------------------------------- goodness of fit

def _cells(expected: np.ndarray) -> tuple[list[list[int]], list[int]]:
    """Group symbols into χ² cells: each symbol with expected count >= 5 alone, the rest pooled
    into one cell (topped up with the next rarest until it reaches 5). Returns (cells, pooled)."""
    order = [int(i) for i in np.argsort(expected, kind="stable") if expected[i] > 0]
    pooled = [i for i in order if expected[i] < MIN_EXPECTED]
    rest = [i for i in order if expected[i] >= MIN_EXPECTED]
    while pooled and expected[pooled].sum() < MIN_EXPECTED and rest:
        pooled.append(rest.pop(0))
    cells = [[i] for i in rest]
    if pooled:
        cells.append(pooled)
    return cells, pooled


def _gof(test: str, column: str, split: str, alphabet: Alphabet, counts: np.ndarray, null_note: str = "",
         per_symbol: bool = True) -> list[_Raw]:
    """``chi2`` and ``chi2_per_symbol`` of ``counts`` (one per symbol) against ``alphabet.p``."""
    n = int(counts.sum())
    p0 = alphabet.p
    null = f"each result is drawn independently with the null probabilities of {alphabet.kind}" + null_note
    per_null = f"no single symbol of {alphabet.kind} is more or less likely than its null probability" + null_note
    expected = n * p0
    impossible = [alphabet.symbols[i] for i in np.flatnonzero((p0 == 0) & (counts > 0))]
    if impossible:  # a result the null gives no chance: no test needed
        msg = f"results of null probability 0 seen: {', '.join(impossible)}"
        return [_decided(test, column, split, null, "chi2", math.inf, None, 0.0, n, None, impossible=impossible, note=msg)]
    cells, pooled = _cells(expected)
    if len(cells) < 2:
        why = (f"{n} plays: no two cells reach an expected count of {MIN_EXPECTED:g} "
               f"(needs about {math.ceil(MIN_EXPECTED / max(p0.max(), 1e-300))} plays)")
        return [_too_few(test, column, split, null, "chi2", n, why)] + (
            [_too_few("chi2_per_symbol", column, split, per_null, "max |z|", n, why)] if per_symbol else [])
    obs = np.array([counts[c].sum() for c in cells], dtype=float)
    exp = np.array([expected[c].sum() for c in cells], dtype=float)
    exp *= obs.sum() / exp.sum()  # float rounding only
    chi = stats.chisquare(obs, exp)
    df = len(cells) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        resid = np.where(expected > 0, (counts - expected) / np.sqrt(expected), 0.0)
    # reference alternative: the least likely symbol that has a cell of its own, +20 %
    j = cells[0][0]
    p1 = _hot(p0, j, HOT_SYMBOL_FACTOR)
    P0 = np.array([p0[c].sum() for c in cells])
    P1 = np.array([p1[c].sum() for c in cells])
    lam = n * float(((P1 - P0) ** 2 / P0).sum())
    reference = f"symbol {alphabet.symbols[j]} +20 % (the others scaled down); noncentral chi2, lambda={lam:.3g}"
    out = [_decided(test, column, split, null, "chi2", float(chi.statistic), df, float(chi.pvalue), n,
                    _ncx2_power(df, lam), reference=reference,
                    residuals={alphabet.symbols[i]: float(resid[i]) for i in range(alphabet.k)},
                    pooled=[alphabet.symbols[i] for i in pooled], expected_min=float(exp.min()))]
    if not per_symbol:
        return out
    # the per-symbol test: exact binomial per symbol, Šidák over the symbols
    ks = [i for i in range(alphabet.k) if 0 < p0[i] < 1]
    # exact binomial, two-sided as twice the smaller tail (the central test: the same equal tails
    # the power below uses; vectorised, where binomtest's likelihood-ordered p-value is one call a
    # symbol and ~40x slower)
    ka, pa = counts[ks], p0[ks]
    pvals = np.minimum(1.0, 2 * np.minimum(stats.binom.cdf(ka, n, pa), stats.binom.sf(ka - 1, n, pa)))
    z = np.array([(counts[i] - expected[i]) / math.sqrt(expected[i] * (1 - p0[i])) for i in ks])
    imin = int(np.argmin(pvals))
    pmin = float(pvals[imin])
    p_sidak = float(-np.expm1(len(ks) * np.log1p(-min(pmin, 1 - 1e-16))))

    def per_power(level: float, n=n, pj=float(p0[j]), pj1=float(p1[j]), k=len(ks)) -> float:
        a_s = -math.expm1(math.log1p(-level) / k)  # Šidák per-symbol level
        hi = stats.binom.isf(a_s / 2, n, pj)
        lo = stats.binom.ppf(a_s / 2, n, pj)
        return float(stats.binom.sf(hi, n, pj1) + stats.binom.cdf(lo - 1, n, pj1))

    worst = alphabet.symbols[ks[imin]]
    out.append(_decided("chi2_per_symbol", column, split, per_null, "max |z|", float(np.abs(z).max()), None, p_sidak, n,
                        per_power, reference=f"symbol {alphabet.symbols[j]} +20 %; exact binomial, equal tails, Šidák",
                        worst_symbol=worst, worst_z=float(z[imin]), worst_p=pmin,
                        z={alphabet.symbols[i]: float(zz) for i, zz in zip(ks, z, strict=True)}))
    return out


# ---------------------------------------------------------------------------- runs

def _binary_split(alphabet: Alphabet) -> tuple[np.ndarray, str]:
    """A label per symbol: 1 "high", 0 "low", -1 left out; and what the split is."""
    if alphabet.kind.startswith("roulette"):
        from rules.roulette import RED_NUMBERS
        lab = np.array([-1 if s in ("0", "00") else int(int(s) in RED_NUMBERS) for s in alphabet.symbols])
        return lab, "red (1) / black (0), 0 and 00 left out"
    if alphabet.circular:
        h = alphabet.k // 2
        return (np.arange(alphabet.k) >= h).astype(int), \
            f"the two halves of the wheel: positions 0..{h - 1} / {h}..{alphabet.k - 1}"
    cum = np.cumsum(alphabet.p)
    c = int(np.clip(np.argmin(np.abs(cum - 0.5)), 0, alphabet.k - 2))
    return (np.arange(alphabet.k) > c).astype(int), \
        f"below/above the null median: {alphabet.symbols[0]}..{alphabet.symbols[c]} / " \
        f"{alphabet.symbols[c + 1]}..{alphabet.symbols[-1]}"


def _runs(data: OutcomeData) -> _Raw:
    lab, split_note = _binary_split(data.alphabet)
    x = lab[data.results]
    x = x[x >= 0]
    n = int(x.size)
    null = f"the sequence of {split_note.split(':')[0].split(',')[0]} is in random order (exchangeable)"
    n1, n2 = int(x.sum()), int(n - x.sum())
    if min(n1, n2) < MIN_RUNS_EACH:
        return _too_few("runs", "result", "all", null, "z (runs)", n,
                        f"{n1} of one kind and {n2} of the other: needs {MIN_RUNS_EACH} of each", binary_split=split_note)
    runs = 1 + int(np.count_nonzero(x[1:] != x[:-1]))
    mu = 2 * n1 * n2 / n + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    z = (runs - mu) / math.sqrt(var)
    p = 2 * float(stats.norm.sf(abs(z)))
    pw = data.alphabet.p
    pi_high = float(pw[lab == 1].sum() / pw[lab >= 0].sum())
    shift = (n - 1) * 2 * pi_high * (1 - pi_high) * RUNS_RHO / math.sqrt(var)
    return _decided("runs", "result", "all", null, "z (runs)", z, None, p, n, _z_power(shift),
                    binary_split=split_note, runs=runs, expected_runs=mu, n_high=n1, n_low=n2,
                    reference=f"lag-1 correlation {RUNS_RHO} of the indicator (Markov); normal approximation")


# ---------------------------------------------------------------------------- contingency with pooling

def _pool_table(t: np.ndarray) -> tuple[np.ndarray, list[list[int]], list[list[int]]] | None:
    """Merge the sparsest categories (rows or columns, smallest marginal first, two at a time)
    until every expected count is at least 5; None when a variable is left with one category."""
    rows = [[i] for i in range(t.shape[0]) if t[i].sum() > 0]
    cols = [[j] for j in range(t.shape[1]) if t[:, j].sum() > 0]
    t = t[[r[0] for r in rows]][:, [c[0] for c in cols]].astype(float)
    total = t.sum()
    while True:
        if t.shape[0] < 2 or t.shape[1] < 2:
            return None
        rs, cs = t.sum(1), t.sum(0)
        if rs.min() * cs.min() / total >= MIN_EXPECTED:
            return t, rows, cols
        if rs.min() <= cs.min():
            a, b = np.argsort(rs, kind="stable")[:2]
            t[a] += t[b]
            rows[a] = rows[a] + rows[b]
            t = np.delete(t, b, axis=0)
            del rows[b]
        else:
            a, b = np.argsort(cs, kind="stable")[:2]
            t[:, a] += t[:, b]
            cols[a] = cols[a] + cols[b]
            t = np.delete(t, b, axis=1)
            del cols[b]


def _contingency(test: str, column: str, split: str, null: str, x: np.ndarray, kx: int, y: np.ndarray, ky: int,
                 n_effective: int | None = None, **detail: Any) -> _Raw:
    n = int(x.size)
    t = np.bincount(x * ky + y, minlength=kx * ky).reshape(kx, ky)
    pooled = _pool_table(t) if n else None
    if pooled is None:
        return _too_few(test, column, split, null, "chi2", n,
                        f"{n} plays: no 2x2 table of expected counts >= {MIN_EXPECTED:g} even after pooling", **detail)
    tab, rows, cols = pooled
    res = stats.chi2_contingency(tab, correction=False)
    df = int(res.dof)
    lam = (n_effective if n_effective is not None else n) * COHEN_W ** 2
    return _decided(test, column, split, null, "chi2", float(res.statistic), df, float(res.pvalue), n,
                    _ncx2_power(df, lam), table_shape=list(tab.shape), categories_pooled=(
                        sum(len(r) for r in rows) - len(rows) + sum(len(c) for c in cols) - len(cols)),
                    reference=f"Cohen's w = {COHEN_W} (noncentral chi2, lambda = n w^2 = {lam:.3g})", **detail)


def _coincidence(name: str, data: OutcomeData, ca: Alphabet, arr: np.ndarray) -> _Raw:
    """How often the result is among this play's symbols of a 2-D column sharing its symbols."""
    a = data.alphabet
    null = f"the result is independent of the play's {name} (it is among them as often as chance)"
    shared = {s: i for i, s in enumerate(a.symbols)}
    col_to_res = np.array([shared.get(s, -1) for s in ca.symbols])
    p0 = a.p
    mapped = np.where(arr >= 0, col_to_res[np.maximum(arr, 0)], -1)
    prob = np.where(mapped >= 0, p0[np.maximum(mapped, 0)], 0.0).sum(axis=1)
    hit = (mapped == data.results[:, None]).any(axis=1)
    n = data.n
    mu, var = float(prob.sum()), float((prob * (1 - prob)).sum())
    if mu < MIN_EXPECTED or n - mu < MIN_EXPECTED or var <= 0:
        return _too_few("independence", f"result×{name}", "all", null, "z (hits)", n,
                        f"expected {mu:.3g} results among the {name}: needs {MIN_EXPECTED:g}")
    hits = int(hit.sum())
    z = (hits - mu) / math.sqrt(var)
    p = 2 * float(stats.norm.sf(abs(z)))
    shift = (COINCIDENCE_FACTOR - 1) * mu / math.sqrt(var)
    return _decided("independence", f"result×{name}", "all", null, "z (hits)", z, None, p, n, _z_power(shift),
                    hits=hits, expected_hits=mu, reference="the result among them 20 % more often than chance",
                    method="Poisson-binomial normal approximation")


# ---------------------------------------------------------------------------- serial

def _score(alphabet: Alphabet) -> tuple[np.ndarray, str]:
    """A number per symbol for the autocorrelation: the symbol's value where every symbol is a
    number ("17", "5x", "50:1"), else its index (physical position on a circular wheel)."""
    vals = []
    for s in alphabet.symbols:
        t = s[:-1] if s.endswith("x") else s[:-2] if s.endswith(":1") else s
        try:
            vals.append(float(t))
        except ValueError:
            return np.arange(alphabet.k, dtype=float), "the symbol's index" + (
                " (position on the wheel)" if alphabet.circular else "")
    return np.array(vals), "the symbol's value"


def _autocorr(data: OutcomeData) -> _Raw:
    score, what = _score(data.alphabet)
    x = score[data.results]
    n = int(x.size) - 1
    null = "consecutive plays are uncorrelated (lag-1 autocorrelation of the score 0)"
    if n < MIN_PAIRS or np.ptp(x[:-1]) == 0 or np.ptp(x[1:]) == 0:
        return _too_few("serial_autocorrelation", "result", "all", null, "r (lag 1)", max(n, 0),
                        f"{max(n, 0)} consecutive pairs (needs {MIN_PAIRS}, not all alike)", score=what)
    r = stats.pearsonr(x[:-1], x[1:])
    return _decided("serial_autocorrelation", "result", "all", null, "r (lag 1)", float(r.statistic), n - 2,
                    float(r.pvalue), n, _z_power(AUTOCORR_RHO * math.sqrt(n)), score=what,
                    reference=f"lag-1 correlation {AUTOCORR_RHO}; normal approximation")


def _transition(data: OutcomeData) -> _Raw:
    r = data.results
    null = "each result is independent of the one before (lag-1 transition table)"
    return _contingency("serial_transition", "result", "all", null, r[:-1], data.alphabet.k, r[1:], data.alphabet.k,
                        method="contingency chi2 of (result i, result i+1), sparse categories pooled")


# ---------------------------------------------------------------------------- dealer signature

def _circular_conv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``out[d] = sum_i p[i] q[(i + d) mod k]``: P((b - a) mod k = d) for a ~ p, b ~ q independent."""
    return np.real(np.fft.ifft(np.conj(np.fft.fft(p)) * np.fft.fft(q)))


def _signed(d: int, k: int) -> str:
    return f"{d:+d}" if d <= k // 2 else f"{d - k:+d}"


def _pair_distances(data: OutcomeData) -> tuple[np.ndarray, np.ndarray]:
    """Per consecutive pair (i, i+1): the clockwise pocket distance, in the direction of spin i+1
    when it is known (anticlockwise: the distance counted anticlockwise), and that sign (+1/-1)."""
    r = data.results
    sign = np.ones(max(r.size - 1, 0), dtype=np.int64)
    if data.direction is not None:
        sign = np.where(data.direction[1:] < 0, -1, 1)
    return (sign * (r[1:] - r[:-1])) % data.alphabet.k, sign


def _distance(data: OutcomeData, split: str, pair_mask: np.ndarray | None,
              pairs: tuple[np.ndarray, np.ndarray] | None = None) -> _Raw:
    a = data.alphabet
    k = a.k
    dist, sign = pairs if pairs is not None else _pair_distances(data)
    signed = data.direction is not None
    if pair_mask is not None:
        dist, sign = dist[pair_mask], sign[pair_mask]
    n = int(dist.size)
    how = ("clockwise pocket distance, in the direction of the later spin" if signed
           else "clockwise pocket distance")
    null = f"the {how} from one result to the next is distributed as for independent results"
    if n == 0:
        return _too_few("distance", "result", split, null, "chi2", n, "no consecutive pairs", distance=how)
    p = a.p
    q_cw = _circular_conv(p, p)
    q_acw = np.roll(q_cw[::-1], 1)  # P(d) for the opposite sign
    n_cw, n_acw = int((sign > 0).sum()), int((sign < 0).sum())
    exp = n_cw * q_cw + n_acw * q_acw
    if exp.min() < MIN_EXPECTED:
        return _too_few("distance", "result", split, null, "chi2", n,
                        f"{n} consecutive pairs: smallest expected distance count {exp.min():.3g} < {MIN_EXPECTED:g}",
                        distance=how)
    obs = np.bincount(dist, minlength=k).astype(float)
    exp = exp * obs.sum() / exp.sum()
    chi = stats.chisquare(obs, exp)
    q0 = exp / exp.sum()
    q1 = q0.copy()
    q1[1] *= NEIGHBOUR_FACTOR
    q1[k - 1] *= NEIGHBOUR_FACTOR
    others = np.ones(k, dtype=bool)
    others[[1, k - 1]] = False
    q1[others] *= (1 - q1[~others].sum()) / q0[others].sum()
    lam = n * float(((q1 - q0) ** 2 / q0).sum())
    resid = (obs - exp) / np.sqrt(exp)
    top = np.argsort(-resid)[:3]
    return _decided("distance", "result", split, null, "chi2", float(chi.statistic), k - 1, float(chi.pvalue), n,
                    _ncx2_power(k - 1, lam), distance=how,
                    residuals={_signed(d, k): float(resid[d]) for d in range(k)},
                    most_over=[_signed(int(d), k) for d in top],
                    reference=f"the next result on a neighbouring pocket (+1 or -1) +20 %; noncentral chi2, "
                              f"lambda={lam:.3g}")


def _release(data: OutcomeData) -> _Raw:
    a = data.alphabet
    k = a.k
    ok = data.release >= 0
    rel, res = data.release[ok], data.results[ok]
    n = int(rel.size)
    null = "the result is independent of the symbol under the release point (offset distributed as chance)"
    h = np.bincount(rel, minlength=k).astype(float)
    exp = n * _circular_conv(h / max(n, 1), a.p) if n else np.zeros(k)
    if n == 0 or exp.min() < MIN_EXPECTED:
        return _too_few("release", "result", "all", null, "chi2", n,
                        f"{n} plays with a release point: {k} offsets need about {int(MIN_EXPECTED * k)}")
    obs = np.bincount((res - rel) % k, minlength=k).astype(float)
    exp = exp * obs.sum() / exp.sum()
    chi = stats.chisquare(obs, exp)
    q0 = exp / exp.sum()
    j = int(np.argmin(q0))
    q1 = _hot(q0, j, HOT_SYMBOL_FACTOR)
    lam = n * float(((q1 - q0) ** 2 / q0).sum())
    resid = (obs - exp) / np.sqrt(exp)
    return _decided("release", "result", "all", null, "chi2", float(chi.statistic), k - 1, float(chi.pvalue), n,
                    _ncx2_power(k - 1, lam), offset="(result - release) mod k, clockwise positions",
                    most_over=[_signed(int(d), k) for d in np.argsort(-resid)[:3]],
                    reference=f"one offset +20 %; noncentral chi2, lambda={lam:.3g}")


# ---------------------------------------------------------------------------- the family

def _raw_tests(data: OutcomeData) -> list[_Raw]:
    a = data.alphabet
    out: list[_Raw] = []
    out += _gof("chi2", "result", "all", a, np.bincount(data.results, minlength=a.k))
    out.append(_runs(data))
    # the symbols of one play
    one_d = {k: v for k, v in data.columns.items() if v[1].ndim == 1}
    for name, (ca, arr) in data.columns.items():
        if arr.ndim == 1:
            out += _gof("chi2", name, "all", ca, np.bincount(arr, minlength=ca.k))
        else:
            entries = arr[arr >= 0]
            out += _gof("chi2", name, "all", ca, np.bincount(entries, minlength=ca.k),
                        " (the entries of all plays; entries of one play may be distinct, which makes this "
                        "conservative)", per_symbol=False)
    for name, (ca, arr) in one_d.items():
        out.append(_contingency("independence", f"result×{name}", "all",
                                f"the result and {name} of one play are independent", data.results, a.k, arr, ca.k))
    names = list(one_d)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            (ax, vx), (ay, vy) = one_d[x], one_d[y]
            out.append(_contingency("independence", f"{x}×{y}", "all", f"{x} and {y} of one play are independent",
                                    vx, ax.k, vy, ay.k))
    for name, (ca, arr) in data.columns.items():
        if arr.ndim == 2 and set(ca.symbols) & set(a.symbols):
            out.append(_coincidence(name, data, ca, arr))
    # consecutive plays
    out.append(_transition(data))
    out.append(_autocorr(data))
    # dealer signature
    if a.circular:
        pairs = _pair_distances(data)
        out.append(_distance(data, "all", None, pairs))
        if data.release is not None:
            out.append(_release(data))
    # per direction
    if data.direction is not None:
        d = data.direction
        present = [s for s in (1, -1) if (d == s).any()]
        if len(present) == 2:
            for s, label in ((1, "clockwise"), (-1, "anticlockwise")):
                sub = data.results[d == s]
                out += _gof("chi2", "result", label, a, np.bincount(sub, minlength=a.k),
                            f" ({label} spins)", per_symbol=False)
                if a.circular:
                    out.append(_distance(data, label, d[1:] == s, pairs))
            known = d != 0
            out.append(_contingency("direction_homogeneity", "result", "direction",
                                    "the results are distributed alike in both directions",
                                    (d[known] > 0).astype(np.int64), 2, data.results[known], a.k))
    return out


def battery_size(data: OutcomeData) -> int:
    """The number of tests the correction divides by for ``data``: those with enough data."""
    return sum(r.result.p_value is not None for r in _raw_tests(data))


def _adjust(p: Sequence[float], correction: str) -> list[float]:
    m = len(p)
    if correction == "bonferroni":
        return [min(1.0, m * x) for x in p]
    order = sorted(range(m), key=lambda i: p[i])  # Holm step-down
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def run_battery(data: OutcomeData, alpha: float = 0.01, correction: str = "holm") -> BatteryResult:
    """Run the whole battery on ``data`` at family-wise level ``alpha`` with ``correction``
    ("holm", the default, or "bonferroni") over the tests that had enough data."""
    if not isinstance(data, OutcomeData):
        raise ValueError(f"run_battery takes an OutcomeData, not {type(data).__name__}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), not {alpha!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    raws = _raw_tests(data)
    decided = [i for i, r in enumerate(raws) if r.result.p_value is not None]
    m = len(decided)
    adj = _adjust([raws[i].result.p_value for i in decided], correction)  # type: ignore[misc]
    level = alpha / m if m else alpha
    tests: list[TestResult] = []
    thin: list[str] = []
    padj = dict(zip(decided, adj, strict=True))
    for i, raw in enumerate(raws):
        t = raw.result
        if t.p_value is None:
            tests.append(t)
            thin.append(f"{t.name}: too few: {raw.thin_reason}")
            continue
        power = raw.power_at(level) if raw.power_at is not None else None
        t = replace(t, p_adjusted=padj[i], verdict="fail" if padj[i] <= alpha else "pass", power=power)
        tests.append(t)
        if power is not None and power < WEAK_POWER:
            thin.append(f"{t.name}: weak: power {power:.2f} at n={t.n} against {t.detail.get('reference', '?')}")
    if data.direction is not None and not ((data.direction > 0).any() and (data.direction < 0).any()):
        thin.append("per-direction splits: not run, the data has one direction only" if (data.direction != 0).any()
                    else "per-direction splits: not run, every direction unknown")
    main = tests[0]  # chi2 of the results, pooled
    if any(t.verdict == "fail" for t in tests):
        verdict: Literal["pass", "fail", "undecided"] = "fail"
    elif m == 0 or main.verdict == "too few":
        verdict = "undecided"
    else:
        verdict = "pass"
    return BatteryResult(verdict, float(alpha), correction, tests, thin, data.source, data.n)
