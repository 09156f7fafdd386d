"""Every statistical check at its thresholds, on synthetic counts (issue 16).

Each check is fed counts DESIGNED to a known p-value, computed here by this file's own reference
(Pearson's statistic from its definition, the sparse-cell merge as the checks' docstring states it,
the two-sided binomial from the binomial distribution, Wald's log-likelihood ratio from the planned
bias) — never by the check under test:

* a fair sample (p ≈ 0.5) passes;
* a sample just inside the check's level (α, or α over the tests its Bonferroni correction divides
  by) passes, and one just outside it fails: the level is pinned from both sides (α × 10, α / 10,
  a dropped Bonferroni correction all fail a test);
* a modest known bias (p ≈ 1e-4, the issue's figure) fails at α = 0.01 — so a significance divided
  by 10^6 is caught — and passes at a scenario's α = 1e-5 (the check reads the α it is given);
* a bias in one spin direction only (the other direction biased the other way, so the pooled counts
  are exactly uniform) fails where the check has directions (``CT-690.1a-section-chi2``, the
  ``RW-pocket-sprt`` with a direction-only planned bias); the analogues where a check splits its data
  otherwise: Pachinko per drop zone, the Coin Flip's start face;
* the check's reported p-value equals the reference's (the statistic and its degrees of freedom).

Counts are built deterministically (no random stream: the same on every numpy), each round is
observed through ``RoundView.of`` as ``run_checks`` builds it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import bdtr, chdtrc

from hil.checks import bonus as cb
from hil.checks.base import BenchView, Check, CheckConfig, CheckResult, RoundView
from hil.checks.crazy_time import SectionUniformity
from hil.checks.roulette import LitUniformity, PocketUniformity
from hil.checks.sequential import PocketSprt
from hil.runner import load_rules
from hil.stats.data import Alphabet
from hil.trace import Event
from rules import bonus as rb
from rules.pachinko import DROP_ZONES, Lattice
from rules.roulette import Wheel, pockets

ALPHA = 0.01
#: the issue's "modest known bias"
MODEST_P = 1e-4
#: a designed sample's p lies within this factor of its target (counts are whole: p moves in steps)
WINDOW = 2.0
#: just inside / just outside a check's level: this factor above / below it (outside WINDOW's reach)
MARGIN = 2.5
RULES = load_rules().submission
RULES_JSON = RULES.model_dump(mode="json", by_alias=True)


# --------------------------------------------------------------------------- the reference
def ref_merge(observed: Sequence[float], expected: Sequence[float], least: float = 5.0):
    """Adjacent cells merged in order until each expects at least ``least``; a short remainder joins
    the last merged cell (the rule the χ² checks' docstrings state)."""
    out_o: list[float] = []
    out_e: list[float] = []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected):
        o_acc, e_acc = o_acc + o, e_acc + e
        if e_acc >= least:
            out_o.append(o_acc)
            out_e.append(e_acc)
            o_acc = e_acc = 0.0
    if (o_acc or e_acc) and out_o:
        out_o[-1] += o_acc
        out_e[-1] += e_acc
    return out_o, out_e


def ref_stat(observed: Sequence[float], expected: Sequence[float], merge: bool = False) -> tuple[float, int]:
    """Pearson's X² = Σ (O − E)² / E and its cells − 1 degrees of freedom."""
    if merge:
        observed, expected = ref_merge(observed, expected)
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected)), len(observed) - 1


def ref_p(observed: Sequence[float], expected: Sequence[float], merge: bool = False) -> float:
    s, d = ref_stat(observed, expected, merge)
    return float(chdtrc(d, s))  # the χ² distribution's upper tail


def uniform_p(counts: Sequence[int]) -> float:
    n = sum(counts)
    return ref_p(counts, [n / len(counts)] * len(counts))


def binomial_p(k: int, n: int) -> float:
    """Two-sided exact binomial p-value of k successes in n trials against 1/2 (symmetric: twice the
    smaller tail)."""
    if 2 * k == n:
        return 1.0
    return min(1.0, 2.0 * float(bdtr(min(k, n - k), n, 0.5)))  # P(X <= k), X ~ Binomial(n, 1/2)


# --------------------------------------------------------------------------- designing counts
def round_keep_sum(x: np.ndarray, total: int) -> np.ndarray:
    """``x`` rounded to whole counts summing to ``total`` (largest remainders)."""
    x = np.maximum(np.asarray(x, float), 0.0)
    out = np.floor(x).astype(np.int64)
    short = int(total - out.sum())
    if short > 0:
        out[np.argsort(-(x - out), kind="stable")[:short]] += 1
    elif short < 0:
        out[np.argsort(x - out, kind="stable")[:-short]] -= 1
    return out


def hot(expected: np.ndarray, cell: int) -> np.ndarray:
    """A hot cell: ``cell`` gains what the others lose in proportion to their expectation (the
    shape of "pocket 17 +x %")."""
    v = -expected / (expected.sum() - expected[cell])
    v[cell] = 1.0
    return v


def sector(expected: np.ndarray, centre: int = 0) -> np.ndarray:
    """A sector of the wheel favoured, the opposite one disfavoured, smoothly (the first harmonic
    around the wheel: what an off-centre mass or a tilted rotor does to the rest positions)."""
    k = len(expected)
    v = expected * np.cos(2 * np.pi * (np.arange(k) - centre) / k)
    return v - v.sum() * expected / expected.sum()


def skew(expected: np.ndarray) -> np.ndarray:
    """The larger values (the last cells) drawn more often, the smaller ones less, in proportion."""
    k = len(expected)
    v = expected * (np.arange(k) / (k - 1) - 0.5)
    return v - v.sum() * expected / expected.sum()


def wobble(expected: np.ndarray, turns: int = 7) -> np.ndarray:
    """Deviations of a typical fair sample's size (each cell ~ √E), spread around the wheel."""
    k = len(expected)
    v = np.sqrt(expected) * np.cos(2 * np.pi * turns * np.arange(k) / k + 0.3)
    return v - v.sum() * expected / expected.sum()


def design(make: Callable[[float], object], p_of: Callable[[object], float], target: float,
           t_max: float = 1e5) -> object:
    """``make(t)`` for the scale t whose sample ``p_of`` puts nearest ``target`` (bisection on
    log p; p falls as t grows). The sample found lies within a factor ``WINDOW`` of the target."""
    lo, hi = 0.0, 1.0
    while p_of(make(hi)) > target:
        hi *= 2.0
        assert hi < t_max, "no scale reaches the target p-value"
    best = make(hi)
    for _ in range(60):
        mid = (lo + hi) / 2.0
        sample = make(mid)
        p = p_of(sample)
        if abs(math.log(p / target)) < abs(math.log(p_of(best) / target)):
            best = sample
        lo, hi = (mid, hi) if p > target else (lo, mid)
    p = p_of(best)
    assert target / WINDOW <= p <= target * WINDOW, f"designed p = {p:.3g}, wanted {target:.3g}"
    return best


def counts_at(expected: np.ndarray, shape: np.ndarray, target: float, p_of=None) -> np.ndarray:
    """Whole counts totalling ``expected.sum()``, deviating along ``shape`` to p ≈ ``target``."""
    n = int(round(expected.sum()))
    p_of = p_of or (lambda c: ref_p(c, expected))
    return design(lambda t: round_keep_sum(expected + t * shape, n), p_of, target)


def threshold_cases(level: float) -> list:
    """(target p, the verdict at α = 0.01): fair, just inside the check's level, just outside it,
    the modest bias."""
    return [pytest.param(0.5, "pass", id="fair"),
            pytest.param(MARGIN * level, "pass", id="just-inside"),
            pytest.param(level / MARGIN, "fail", id="just-outside"),
            pytest.param(MODEST_P, "fail", id="modest-bias")]


# --------------------------------------------------------------------------- feeding a check
def judge(check: type[Check], rounds: list[list[tuple[str, str, dict]]], bench: BenchView | None = None,
          **config) -> CheckResult:
    """The check's result over ``rounds`` (each a list of (device, kind, payload)), observed through
    ``RoundView.of`` as ``run_checks`` builds each round."""
    c = check(CheckConfig(**config))
    c.setup(bench or BenchView())
    seq = 0
    for n, events in enumerate(rounds, 1):
        evs = []
        for device, kind, payload in events:
            seq += 1
            evs.append(Event(seq, n, float(seq), 0, device, kind, payload))
        c.observe(RoundView.of(n, evs))
    return c.result()


def measured(res: CheckResult) -> dict[str, float]:
    return {m.name: m.value for m in res.measurements}


def spread(counts: Sequence[int]) -> list[int]:
    """Each cell index repeated as often as it was counted, interleaved: every cell's first
    occurrence, then every cell's second, … (a check counts; the order is of no matter to it)."""
    c = np.asarray(counts, np.int64)
    cells = np.repeat(np.arange(len(c)), c)
    rank = np.arange(len(cells)) - np.repeat(np.cumsum(c) - c, c)
    return cells[np.lexsort((cells, rank))].tolist()


# =========================================================================== CT-690.1a-section-chi2
SECTIONS = 54
CT_PER_DIRECTION = SECTIONS * 20  # 1,080 spins each way: both directions tested (>= 5 per section)
CT_LEVEL = ALPHA / 3  # pooled, clockwise, anticlockwise (Bonferroni)


def money_wheel(cw: Sequence[int], ccw: Sequence[int]) -> list:
    """One round per spin: the croupier's command, the wheel's rest, the croupier's validation;
    directions alternate as a dealer's pushes do."""
    rounds = []
    for a, b in zip(spread(cw), spread(ccw)):
        for section, d in ((a, "cw"), (b, "ccw")):
            rounds.append([("croupier", "spin_command", {"attempt": 1, "direction": d}),
                           ("wheel", "spin_stop", {"spin_id": 1, "section_index": section, "direction": d,
                                                   "on_peg": False}),
                           ("croupier", "spin_valid", {"attempt": 1, "section_index": section})])
    return rounds


def ct_p(cw, ccw) -> dict[str, float]:
    return {"pooled": uniform_p(np.add(cw, ccw)), "cw": uniform_p(cw), "ccw": uniform_p(ccw)}


def _ct_judge(cw, ccw, **config) -> CheckResult:
    assert sum(cw) == sum(ccw)  # alternating pushes
    res = judge(SectionUniformity, money_wheel(cw, ccw), BenchView(info={"wheel": {"sections": list(range(SECTIONS))}}),
                **config)
    m, ref = measured(res), ct_p(cw, ccw)
    for name, p in ref.items():
        assert m[f"p_value_{name}"] == pytest.approx(p, rel=1e-9, abs=1e-300), name
    assert m["dof"] == SECTIONS - 1 and m["spins"] == sum(cw) + sum(ccw)
    return res


E_CT = np.full(SECTIONS, CT_PER_DIRECTION / SECTIONS)


@pytest.mark.parametrize("target, verdict", threshold_cases(CT_LEVEL))
def test_section_chi2_pooled_bias_at_the_thresholds(target, verdict):
    """§ 690.1(a): a section favoured in both directions alike (the pooled test sees it best)."""
    shape = wobble(E_CT) if target == 0.5 else sector(E_CT, 17)
    # the same deviation both ways: the pooled p is the designed one
    half = counts_at(E_CT, shape, target, p_of=lambda c: uniform_p(2 * c))
    if target == MARGIN * CT_LEVEL:  # between α/3 and α: a check without the correction fails it
        assert CT_LEVEL < uniform_p(2 * half) < ALPHA
    res = _ct_judge(half, half)
    assert res.verdict == verdict, res.summary


def test_section_chi2_modest_bias_passes_at_a_smaller_alpha():
    half = counts_at(E_CT, sector(E_CT, 17), MODEST_P, p_of=lambda c: uniform_p(2 * c))
    assert _ct_judge(half, half).verdict == "fail"
    assert _ct_judge(half, half, chi2_alpha=1e-5).verdict == "pass"  # the scenario's α, not a constant


@pytest.mark.parametrize("target, verdict", threshold_cases(CT_LEVEL)[1:])
def test_section_chi2_direction_only_bias(target, verdict):
    """An off-centre mass favours a section clockwise and disfavours it anticlockwise: the pooled counts
    are exactly uniform (p = 1); only the per-direction tests can see it."""
    cw = counts_at(E_CT, sector(E_CT, 17), target)
    ccw = 2 * E_CT.astype(np.int64) - cw  # the mirror: pooled exactly 40 per section
    assert (ccw >= 0).all() and uniform_p(cw + ccw) == 1.0
    if target == MARGIN * CT_LEVEL:
        assert CT_LEVEL < uniform_p(cw) < ALPHA
    assert uniform_p(ccw) == uniform_p(cw)
    res = _ct_judge(cw, ccw)
    assert res.verdict == verdict, res.summary
    if verdict == "fail":
        assert {f.message.split(":")[0] for f in res.findings} == {"cw", "ccw"}


def test_section_chi2_too_few_spins_is_indeterminate():
    few = np.full(SECTIONS, 9)  # 972 spins < chi2_min_spins 1,000
    assert judge(SectionUniformity, money_wheel(few, few)).verdict == "indeterminate"
    assert _ct_judge(few + 1, few + 1).verdict == "pass"  # 1,080 spins


# =========================================================================== RW-pocket-chi2
def roulette_bench(wheel: str = "single-zero") -> BenchView:
    return BenchView(croupier={"table": {"wheel": wheel}})


def ball_wheel(counts: Sequence[int], wheel: str = "single-zero", directions=("cw", "ccw")) -> list:
    ps = pockets(Wheel(wheel))
    return [[("croupier", "spin_command", {"attempt": 1}),
             ("ball_wheel", "ball_result", {"spin_id": 1, "pocket": ps[i], "rotor_direction": directions[j % len(directions)]}),
             ("croupier", "spin_valid", {"attempt": 1})]
            for j, i in enumerate(spread(counts))]


@pytest.mark.parametrize("wheel", ["single-zero", "double-zero"])
@pytest.mark.parametrize("target, verdict", threshold_cases(ALPHA))
def test_pocket_chi2_at_the_thresholds(wheel, target, verdict):
    """§ 617b.4(f), § 617b.5(e): the compartments equally likely (N − 1 degrees of freedom)."""
    k = len(pockets(Wheel(wheel)))
    e = np.full(k, 30.0)  # 1,110 / 1,140 spins
    counts = counts_at(e, wobble(e) if target == 0.5 else sector(e, 17), target)
    res = judge(PocketUniformity, ball_wheel(counts, wheel), roulette_bench(wheel))
    assert res.verdict == verdict, res.summary
    m = measured(res)
    assert m["p_value"] == pytest.approx(uniform_p(counts), rel=1e-9) and m["dof"] == k - 1


def test_pocket_chi2_modest_bias_passes_at_a_smaller_alpha():
    e = np.full(37, 30.0)
    counts = counts_at(e, hot(e, 17), MODEST_P)  # one hot pocket
    assert judge(PocketUniformity, ball_wheel(counts), roulette_bench()).verdict == "fail"
    assert judge(PocketUniformity, ball_wheel(counts), roulette_bench(), chi2_alpha=1e-5).verdict == "pass"


# =========================================================================== CTW-690.8d-stop-chi2
def ctw_stops(counts: Sequence[int]) -> list:
    return [[("ctw_wheel", "ctw_stop", {"spin_id": 1, "sections": [s, (s + 3) % 64, (s + 6) % 64]})]
            for s in spread(counts)]


@pytest.mark.parametrize("target, verdict", threshold_cases(ALPHA))
def test_ctw_stops_chi2_at_the_thresholds(target, verdict):
    """§ 690.8(a), (d): the virtual wheel stops on each of its 64 sections equally often."""
    e = np.full(64, 6.0)  # 384 stops (>= 320)
    counts = counts_at(e, wobble(e) if target == 0.5 else sector(e, 5), target)
    res = judge(cb.CrazyTimeWorldStops, ctw_stops(counts))
    assert res.verdict == verdict, res.summary
    m = measured(res)
    assert m["p_value"] == pytest.approx(uniform_p(counts), rel=1e-9) and m["dof"] == 63
    assert judge(cb.CrazyTimeWorldStops, ctw_stops(counts), chi2_alpha=1e-5).verdict == "pass"


# =========================================================================== RX-617b.5d-lit-uniformity
LIT = 3  # numbers lit per selection
LIT_SELECTIONS = 37 * 10  # 370 selections (>= chi2_min_spins // 4), each number expected 30 times


def lit_p(counts: Sequence[int], selections: int, numbers: int = 37) -> float:
    """Pearson's statistic corrected for drawing k distinct numbers of N without replacement:
    X² = (N − 1)/N · Σ (O − E)² / Σ_selections p(1 − p), p = k/N (§ 617b.5(d)'s selections)."""
    p = LIT / numbers
    e = sum(counts) / numbers
    x2 = (numbers - 1) / numbers * sum((o - e) ** 2 for o in counts) / (selections * p * (1 - p))
    return float(chdtrc(numbers - 1, x2))


def selections(counts: Sequence[int], s: int) -> list[list[int]]:
    """``s`` selections of ``LIT`` distinct numbers lighting number i counts[i] times: the numbers laid
    out in blocks, selection j takes positions j, j + s, j + 2s (a block is at most s long)."""
    assert max(counts) <= s and sum(counts) == LIT * s
    laid = [i for i, c in enumerate(counts) for _ in range(c)]
    return [[laid[j + r * s] for r in range(LIT)] for j in range(s)]


def illuminations(counts: Sequence[int]) -> list:
    ps = pockets(Wheel("single-zero"))
    out = []
    for sel in selections(counts, LIT_SELECTIONS):
        assert len(set(sel)) == LIT
        out.append([("rng", "illumination", {"numbers": [ps[i] for i in sel], "multipliers": [50] * LIT})])
    return out


@pytest.mark.parametrize("target, verdict", threshold_cases(ALPHA))
def test_lit_uniformity_at_the_thresholds(target, verdict):
    """§ 617b.5(b), (d): the RNG lights each number with probability k/N per selection."""
    e = np.full(37, LIT * LIT_SELECTIONS / 37)
    counts = counts_at(e, wobble(e) if target == 0.5 else sector(e, 17), target,
                       p_of=lambda c: lit_p(c, LIT_SELECTIONS))
    res = judge(LitUniformity, illuminations(counts), roulette_bench())
    assert res.verdict == verdict, res.summary
    m = measured(res)
    assert m["p_value"] == pytest.approx(lit_p(counts, LIT_SELECTIONS), rel=1e-9) and m["dof"] == 36
    # the uncorrected statistic would call the same counts (1 − k/N)·N/(N − 1) times as far: not the test
    assert m["chi2_corrected"] > m["chi2_uncorrected"]


def test_lit_uniformity_modest_bias_passes_at_a_smaller_alpha():
    e = np.full(37, LIT * LIT_SELECTIONS / 37)
    counts = counts_at(e, hot(e, 17), MODEST_P, p_of=lambda c: lit_p(c, LIT_SELECTIONS))
    assert judge(LitUniformity, illuminations(counts), roulette_bench()).verdict == "fail"
    assert judge(LitUniformity, illuminations(counts), roulette_bench(), chi2_alpha=1e-5).verdict == "pass"


# =========================================================================== CF-690.5-coin-fairness
FLIPS = 2_000
CF_LEVEL = ALPHA / 2  # red, start face (Bonferroni)


def k_at(target: float, n: int = FLIPS) -> int:
    """The successes (above n/2) whose two-sided p-value is nearest ``target``."""
    k = min(range(n // 2, n // 2 + n // 8), key=lambda j: abs(math.log(max(binomial_p(j, n), 1e-300) / target)))
    assert target / WINDOW <= binomial_p(k, n) <= target * WINDOW
    return k


def flips(red: int, same: int, n: int = FLIPS) -> list:
    """``n`` flips, ``red`` of them red face up at rest, ``same`` of them at rest on the face up at
    launch (the two spread independently of each other)."""
    out = []
    for i in range(n):
        face = "red" if (i * 7919) % n < red else "blue"
        start = face if (i * 104729 + 13) % n < same else ("blue" if face == "red" else "red")
        out.append([("coin_flipper", "coin_flip_stop", {"flip_id": i, "face": face, "start_face": start})])
    return out


def _cf_judge(red: int, same: int, **config) -> CheckResult:
    res = judge(cb.CoinFairness, flips(red, same), **config)
    m = measured(res)
    assert m["p_value_red"] == pytest.approx(binomial_p(red, FLIPS), rel=1e-6)
    assert m["p_value_start_face"] == pytest.approx(binomial_p(same, FLIPS), rel=1e-6)
    return res


@pytest.mark.parametrize("target, verdict", threshold_cases(CF_LEVEL))
def test_coin_fairness_red_at_the_thresholds(target, verdict):
    """§ 690.5(b), (d): each side comes to rest face up with probability 1/2."""
    res = _cf_judge(k_at(target), FLIPS // 2)
    assert res.verdict == verdict, res.summary


@pytest.mark.parametrize("target, verdict", threshold_cases(CF_LEVEL)[1:])
def test_coin_fairness_start_face_only_bias(target, verdict):
    """Red exactly half the flips; the coin rests on its launch face too often (a precessing flip):
    only the start-face test sees it."""
    res = _cf_judge(FLIPS // 2, k_at(target))
    assert res.verdict == verdict, res.summary


def test_coin_fairness_modest_bias_passes_at_a_smaller_alpha():
    k = k_at(MODEST_P)
    assert _cf_judge(k, FLIPS // 2).verdict == "fail"
    assert _cf_judge(k, FLIPS // 2, chi2_alpha=1e-5).verdict == "pass"


# =========================================================================== BONUS-board-values-chi2
def weights(game: str) -> tuple[list[int], np.ndarray]:
    w = cb._par(RULES, cb.Spot(game)).multiplier_weights
    support = sorted(w)
    return support, np.array([float(w[v]) for v in support]) / sum(w.values())


def boards(game: str, counts: Sequence[int], size: int = 108) -> list:
    support, _ = weights(game)
    values = [support[i] for i in spread(counts)]
    return [[("board", "board_generated", {"board_id": b, "game": game, "values": values[b * size:(b + 1) * size]})]
            for b in range(math.ceil(len(values) / size))]


def board_counts(game: str, n: int, target: float, top: bool = True) -> np.ndarray:
    """``n`` cells of ``game``'s boards at p ≈ ``target``: fair (target 0.5), the generator favouring
    the larger multipliers (``top``) or the smallest one."""
    support, p = weights(game)
    e = n * p
    shape = wobble(e) if target == 0.5 else skew(e) if top else hot(e, 0)
    return counts_at(e, shape, target, p_of=lambda c: ref_p(c, e, merge=True))


@pytest.mark.parametrize("target, verdict", threshold_cases(ALPHA))
def test_board_values_chi2_at_the_thresholds(target, verdict):
    """§ 690.6(b): Cash Hunt's 108 multipliers drawn by the Rules Submission's weights."""
    counts = board_counts("cash-hunt", 21_600, target)
    _, p = weights("cash-hunt")
    res = judge(cb.BoardValues, boards("cash-hunt", counts), BenchView(rules=RULES_JSON))
    assert res.verdict == verdict, res.summary
    m = measured(res)
    assert m["p_value_cash-hunt"] == pytest.approx(ref_p(counts, 21_600 * p, merge=True), rel=1e-9)
    assert m["dof_cash-hunt"] == ref_stat(counts, 21_600 * p, merge=True)[1]


def test_board_values_bonferroni_over_the_games_tested():
    """Two games tested: each at α/2 — a Cash Hunt p between α/2 and α passes, below α/2 fails."""
    fair_coin = board_counts("coin-flip", 5_000, 0.5)
    _, p = weights("cash-hunt")
    for target, verdict in ((ALPHA / math.sqrt(2), "pass"), (ALPHA / 2 / MARGIN, "fail")):
        ch = board_counts("cash-hunt", 21_600, target)
        if verdict == "pass":  # between α/2 and α: a check without the correction fails it
            assert ALPHA / 2 * 1.2 < ref_p(ch, 21_600 * p, merge=True) < ALPHA / 1.2
        res = judge(cb.BoardValues, boards("cash-hunt", ch) + boards("coin-flip", fair_coin, size=2),
                    BenchView(rules=RULES_JSON))
        assert res.verdict == verdict, (target, res.summary)
        assert "α = 0.01 / 2" in next(m.limit for m in res.measurements if m.name == "p_value_cash-hunt")


def test_board_values_modest_bias_passes_at_a_smaller_alpha():
    counts = board_counts("cash-hunt", 21_600, MODEST_P, top=False)
    bench = BenchView(rules=RULES_JSON)
    assert judge(cb.BoardValues, boards("cash-hunt", counts), bench).verdict == "fail"
    assert judge(cb.BoardValues, boards("cash-hunt", counts), bench, chi2_alpha=1e-5).verdict == "pass"


@pytest.mark.parametrize("target, verdict", threshold_cases(ALPHA))
def test_board_double_share_at_the_thresholds(target, verdict):
    """§ 690.7(c)(2): "Double" in one slot of as many Pachinko boards as the Rules Submission declares."""
    d = RULES.pachinko.double_probability
    assert Fraction(d) == Fraction(1, 2)  # the reference below is the symmetric binomial
    n = 1_000
    k = k_at(target, n) if target != 0.5 else n // 2 + 10
    rounds = []
    for b in range(n):
        values = [2] * 16
        if b < k:
            values[b % 16] = rb.DOUBLE
        rounds.append([("board", "board_generated", {"board_id": b, "game": "pachinko", "values": values})])
    res = judge(cb.BoardValues, rounds, BenchView(rules=RULES_JSON), chi2_min_spins=10**9)  # cells untested
    assert res.verdict == verdict, res.summary
    assert measured(res)["p_value_double_pachinko"] == pytest.approx(binomial_p(k, n), rel=1e-6)


# =========================================================================== PA-690.7-landings-chi2
PA_LEVEL = ALPHA / 2  # per zone, pooled (Bonferroni)
PER_ZONE = 200
MATRIX = np.array(Lattice(RULES.pachinko.rows).zone_matrix(), dtype=float)


def pa_p(counts: dict[int, np.ndarray]) -> dict[str, float]:
    """Per drop zone (statistics and degrees of freedom summed) and pooled over the zones, each with
    sparse cells merged."""
    stat = dof = 0
    pooled_o = np.zeros(16)
    pooled_e = np.zeros(16)
    for i, z in enumerate(DROP_ZONES):
        e = counts[z].sum() * MATRIX[i]
        s, d = ref_stat(counts[z], e, merge=True)
        stat, dof = stat + s, dof + d
        pooled_o += counts[z]
        pooled_e += e
    return {"per_zone": float(chdtrc(dof, stat)), "pooled": ref_p(pooled_o, pooled_e, merge=True)}


def landings(counts: dict[int, np.ndarray]) -> list:
    return [[("pachinko", "puck_landed", {"drop_id": z * 1000 + j, "zone": z, "spot": spot + 1})
             for j, spot in enumerate(spread(c))] for z, c in counts.items()]


def _pa_judge(counts) -> CheckResult:
    bench = BenchView(info={"pachinko": {"rows": RULES.pachinko.rows, "spots": 16, "zones": list(DROP_ZONES)}})
    res = judge(cb.PachinkoLandings, landings(counts), bench)
    m, ref = measured(res), pa_p(counts)
    for name, p in ref.items():
        assert m[f"p_value_{name}"] == pytest.approx(p, rel=1e-9), name
    return res


def tilted(t: float) -> dict[int, np.ndarray]:
    """Every zone's landings moved right by t of a spot (a board whose right side is low), never
    onto a spot the lattice cannot reach from the zone."""
    out = {}
    for i, z in enumerate(DROP_ZONES):
        e = PER_ZONE * MATRIX[i]
        right = np.zeros(16)
        for k in range(16):
            right[k + 1 if k + 1 < 16 and MATRIX[i][k + 1] > 0 else k] += e[k]
        out[z] = round_keep_sum(e + t * (right - e), PER_ZONE)
    return out


@pytest.mark.parametrize("target, verdict", threshold_cases(PA_LEVEL)[1:])
def test_landings_chi2_at_the_thresholds(target, verdict):
    """§ 690.7(b), (d): the landings follow the declared lattice's matrix, zone by zone."""
    counts = design(tilted, lambda c: min(pa_p(c).values()), target)
    res = _pa_judge(counts)
    assert res.verdict == verdict, res.summary


def test_landings_chi2_fair_passes_and_reads_its_alpha():
    fair = {z: round_keep_sum(PER_ZONE * MATRIX[i], PER_ZONE) for i, z in enumerate(DROP_ZONES)}
    assert min(pa_p(fair).values()) > 0.5 and _pa_judge(fair).verdict == "pass"
    modest = design(tilted, lambda c: min(pa_p(c).values()), MODEST_P)
    assert _pa_judge(modest).verdict == "fail"
    bench = BenchView(info={"pachinko": {"rows": RULES.pachinko.rows}})
    assert judge(cb.PachinkoLandings, landings(modest), bench, chi2_alpha=1e-5).verdict == "pass"


@pytest.mark.parametrize("target, verdict", threshold_cases(PA_LEVEL)[1:])
def test_landings_per_zone_only_bias(target, verdict):
    """Zone 8's puck favours spot 8 over spot 9 and zone 9's the reverse, by the same counts: the
    pooled landings are exactly the fair ones; only the per-zone test sees it."""
    n = 5 * PER_ZONE
    fair = {z: round_keep_sum(n * MATRIX[i], n) for i, z in enumerate(DROP_ZONES)}
    v = np.zeros(16)
    v[[6, 7, 8, 9]] = [0.5, 1.0, -1.0, -0.5]  # spots 7 and 8 gain what spots 9 and 10 lose

    def make(t: float) -> dict[int, np.ndarray]:
        d = round_keep_sum(t * v + 1000.0, 16_000) - 1000  # whole, summing to 0
        return {**fair, 8: fair[8] + d, 9: fair[9] - d}

    counts = design(make, lambda c: pa_p(c)["per_zone"], target)
    assert pa_p(counts)["pooled"] == pa_p(fair)["pooled"] > 0.5
    res = _pa_judge(counts)
    assert res.verdict == verdict, res.summary


# =========================================================================== RW-pocket-sprt
HOT = "17"
STRENGTH = 0.5
SPRT_ALPHA, SPRT_BETA = 0.01, 0.1


def sprt_llr(spins: Sequence[tuple[str, str]], bias: str) -> list[float]:
    """Wald's log-likelihood ratio after each spin, from the planned bias's definition: pocket 17 at
    (1 + x)/37 under H1, the others sharing the rest equally; a direction-only bias counts only the
    spins of its direction."""
    p0 = 1.0 / 37
    p_hot = p0 * (1 + STRENGTH)
    up, down = math.log(p_hot / p0), math.log((1 - p_hot) / 36 / p0)
    only = "cw" if bias.startswith("clockwise") else "ccw" if bias.startswith("anticlockwise") else None
    s, out = 0.0, []
    for pocket, d in spins:
        if only is None or d == only:
            s += up if pocket == HOT else down
        out.append(s)
    return out


def wald(llr: list[float]) -> tuple[str | None, int | None]:
    upper, lower = math.log((1 - SPRT_BETA) / SPRT_ALPHA), math.log(SPRT_BETA / (1 - SPRT_ALPHA))
    for i, s in enumerate(llr, 1):
        if s >= upper:
            return "H1", i
        if s <= lower:
            return "H0", i
    return None, None


def wheel_spins(blocks: int, hot_cw: int, hot_ccw: int) -> list[tuple[str, str]]:
    """Spins in blocks of 74 (every pocket twice, alternating directions), pocket 17 appearing
    ``hot_cw`` times among a block's clockwise spins and ``hot_ccw`` among its anticlockwise ones
    (1 each on a fair wheel), in place of other pockets."""
    symbols = list(Alphabet.roulette().symbols)
    others = [s for s in symbols if s != HOT]
    spins = []
    for b in range(blocks):
        for d, want in (("cw", hot_cw), ("ccw", hot_ccw)):
            rest = (others[(b * 5) % 36:] + others[:(b * 5) % 36]) * 2
            block = [HOT] * want + rest[: 37 - want]
            # spread the hot pocket through the block
            block = [block[(j * 11) % 37] for j in range(37)]
            spins += [(p, d) for p in block]
    # alternate directions spin by spin, as a dealer's pushes do
    cw, ccw = [s for s in spins if s[1] == "cw"], [s for s in spins if s[1] == "ccw"]
    return [s for pair in zip(cw, ccw) for s in pair]


def sprt_judge(spins: list[tuple[str, str]], bias: str) -> CheckResult:
    rounds = [[("croupier", "spin_command", {"attempt": 1}),
               ("ball_wheel", "ball_result", {"spin_id": 1, "pocket": int(p), "rotor_direction": d}),
               ("croupier", "spin_valid", {"attempt": 1})] for p, d in spins]
    monitor = {"bias": bias, "alpha": SPRT_ALPHA, "beta": SPRT_BETA, "min_spins": 0, "stop": False}
    res = judge(PocketSprt, rounds, roulette_bench(), monitor=monitor)
    llr = sprt_llr(spins, bias)
    decision, at = wald(llr)
    m = measured(res)
    assert m["decided_at_spin"] == at
    assert m["log_likelihood_ratio"] == pytest.approx(llr[(at or len(llr)) - 1], abs=1e-5)
    return res


def test_sprt_fair_wheel_accepts_fair():
    """§ 617b.4(f): a fair wheel's spins drive the ratio down to Wald's lower bound: PASS (H0)."""
    res = sprt_judge(wheel_spins(25, 1, 1), f"pocket {HOT} +50 %")
    assert res.verdict == "pass", res.summary


def test_sprt_modest_bias_accepts_the_bias_at_its_bound():
    """Pocket 17 at the planned 1.5/37 (3 in 74 spins): FAIL exactly where the ratio reaches Wald's
    upper bound log((1 − β)/α) — and not one spin earlier."""
    bias = f"pocket {HOT} +50 %"
    spins = wheel_spins(40, 2, 1)
    decision, at = wald(sprt_llr(spins, bias))
    assert decision == "H1"
    res = sprt_judge(spins, bias)
    assert res.verdict == "fail" and measured(res)["decided_at_spin"] == at, res.summary
    before = sprt_judge(spins[: at - 1], bias)
    assert before.verdict == "indeterminate", before.summary


def test_sprt_direction_only_bias():
    """A rotor that favours pocket 17 clockwise and disfavours it anticlockwise (the pooled counts
    fair): the clockwise-only monitor accepts the bias; the pooled one does not see it."""
    spins = wheel_spins(30, 2, 0)
    assert sum(p == HOT for p, _ in spins) == len(spins) / 37  # pooled: exactly the fair rate
    res = sprt_judge(spins, f"clockwise pocket {HOT} +50 %")
    assert res.verdict == "fail", res.summary
    pooled = sprt_judge(spins, f"pocket {HOT} +50 %")
    assert pooled.verdict == "pass", pooled.summary
    # the direction read from the wheel's own report: the same spins anticlockwise-only are fair
    assert sprt_judge(spins, f"anticlockwise pocket {HOT} +50 %").verdict != "fail"


# --------------------------------------------------------------------------- RW-pocket-sprt: the run's stop
def sprt_rounds(spins, stop_at: int | list[int] | None = None, decision: str = "H0", after: int = 0):
    """One round per spin (with its ``round_end``); a ``monitor_stop`` in each round of ``stop_at``
    (1-based); ``after`` more fair rounds played after the last spin."""
    stops = [] if stop_at is None else [stop_at] if isinstance(stop_at, int) else stop_at
    rounds = []
    for i, (p, d) in enumerate(list(spins) + [("0", "cw")] * after, 1):
        r = [("croupier", "spin_command", {"attempt": 1}),
             ("ball_wheel", "ball_result", {"spin_id": i, "pocket": int(p), "rotor_direction": d}),
             ("croupier", "spin_valid", {"attempt": 1}), ("croupier", "round_end", {"round": i, "void": False})]
        if i in stops:
            r.append(("croupier", "monitor_stop", {"decision": decision, "round": i}))
        rounds.append(r)
    return rounds


def sprt_run(rounds, stop=True, bias=f"pocket {HOT} +50 %"):
    monitor = {"bias": bias, "alpha": SPRT_ALPHA, "beta": SPRT_BETA, "min_spins": 0, "stop": stop}
    return judge(PocketSprt, rounds, roulette_bench(), monitor=monitor)


def test_sprt_a_run_stopped_where_the_replay_decides_passes():
    spins = wheel_spins(25, 1, 1)
    decision, at = wald(sprt_llr(spins, f"pocket {HOT} +50 %"))
    assert decision == "H0"
    res = sprt_run(sprt_rounds(spins[:at], stop_at=at))
    assert (res.verdict, res.findings_total) == ("pass", 0), res.summary
    assert measured(res)["decided_at_round"] == at and measured(res)["decided_at_spin"] == at
    assert res.summary.startswith(f"fair accepted (H0) against 'pocket {HOT} +50 %' after {at} spins: ")


@pytest.mark.parametrize(("case", "message"), [
    ("late", "the run recorded the monitor deciding H0 at round {late}; the trace's spins decide H0 at round {at}"),
    ("wrong", "the run recorded the monitor deciding H1 at round {at}; the trace's spins decide H0 at round {at}"),
    ("early", "the run recorded a monitor decision H0 at round {early}; the trace's {early} spins do not make the "
              "test decisive"),
    ("after", "3 round(s) played after the monitor stopped the run at round {at}"),
    ("missing", "the test was decisive (H0) at round {at}, and the run went on without recording the monitor's stop"),
    # a second stop a round after the first (which came a round early, and played one round on)
    ("twice", "2 monitor_stop records; the monitor decides once"),
])
def test_sprt_a_stop_the_replay_does_not_bear_out_fails(case, message):
    spins = wheel_spins(25, 1, 1)
    _, at = wald(sprt_llr(spins, f"pocket {HOT} +50 %"))
    late, early = at + 2, at - 5
    rounds = {"late": lambda: sprt_rounds(spins[:late], stop_at=late),
              "wrong": lambda: sprt_rounds(spins[:at], stop_at=at, decision="H1"),
              "early": lambda: sprt_rounds(spins[:early], stop_at=early),
              "after": lambda: sprt_rounds(spins[:at], stop_at=at, after=3),
              "missing": lambda: sprt_rounds(spins[:at + 4]),
              "twice": lambda: sprt_rounds(spins[:at], stop_at=[at - 1, at])}[case]()
    res = sprt_run(rounds)
    want = message.format(at=at, late=late, early=early)
    count = 3 if case == "twice" else 1
    assert res.verdict == "fail" and res.findings_total == count, (res.summary, res.findings)
    assert res.findings[0].message.startswith(want), res.findings[0].message
    assert res.summary == f"{count} finding(s) against the sequential test"
    if case in ("after", "missing"):  # a monitor told not to stop the run: going on is no finding
        assert sprt_run(rounds, stop=False).verdict == "pass"


def test_sprt_a_pocket_off_the_wheel_is_a_finding_and_a_monitor_that_cannot_be_replayed_fails():
    spins = wheel_spins(25, 1, 1)
    _, at = wald(sprt_llr(spins, f"pocket {HOT} +50 %"))
    rounds = sprt_rounds(spins[:at], stop_at=at)
    rounds[0][1] = ("ball_wheel", "ball_result", {"spin_id": 1, "pocket": 37, "rotor_direction": "cw"})
    res = sprt_run(rounds)
    assert res.verdict == "fail" and [(f.round, f.message) for f in res.findings][:1] == [
        (1, "the wheel reported 37, no pocket of the single-zero wheel")]
    bad = sprt_run(sprt_rounds(spins[:5]), bias="pocket 99 +50 %")
    assert (bad.verdict, bad.summary) == ("fail", "the monitor cannot be replayed")
    assert bad.findings[0].message.startswith("the monitor the trace records cannot be replayed: ")
    none = judge(PocketSprt, sprt_rounds(spins[:5]), roulette_bench())
    assert (none.verdict, none.summary) == ("indeterminate", "the scenario has no sequential monitor (scenario monitor:)")


def test_sprt_the_planned_bias_accepted_fails_with_one_finding_and_names_it():
    bias = f"pocket {HOT} +50 %"
    spins = wheel_spins(40, 2, 1)
    _, at = wald(sprt_llr(spins, bias))
    res = sprt_run(sprt_rounds(spins[:at], stop_at=at, decision="H1"))
    assert res.verdict == "fail" and res.findings_total == 1
    assert res.summary == f"the wheel is not fair: {bias!r} accepted after {at} spins"
    assert res.findings[0].round == at and res.findings[0].message.startswith(
        f"the planned bias {bias!r} accepted (H1) after {at} valid spins: log-likelihood ratio ")
    # the bias accepted and a stop recorded a round late: two findings, the summary counts them
    late = sprt_run(sprt_rounds(spins[:at + 1], stop_at=at + 1, decision="H1"))
    assert late.verdict == "fail" and late.findings_total == 2
    assert late.summary == "2 finding(s) against the sequential test"
