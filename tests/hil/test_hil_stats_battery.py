"""The statistical battery of ``croupier analyze`` (hil.stats.battery, docs/analyze.md; issue 15).

Deterministic: every data set is drawn from a fixed seed, in-process. Each bias is injected at
about twice the planner's N (``hil.stats.plan.analytic``, power 0.9 there), where the battery's own
power is ≈ 1, so these are facts about the tests, not lucky draws.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from hil.stats import plan
from hil.stats.battery import BatteryResult, TestResult, battery_size, run_battery
from hil.stats.data import ABSENT, Alphabet, OutcomeData
from hil.stats.synth import simulate

ROULETTE = Alphabet.roulette("single-zero")


def _test(res: BatteryResult, test: str, column: str = "result", split: str = "all") -> TestResult:
    [t] = [t for t in res.tests if (t.test, t.column, t.split) == (test, column, split)]
    return t


def _alternating(n: int) -> np.ndarray:
    d = np.ones(n, np.int64)
    d[1::2] = -1
    return d


# ---------------------------------------------------------------------------- fair data

def test_fair_roulette_passes_every_test() -> None:
    rng = np.random.default_rng(20261202)
    n = 3700
    data = OutcomeData("fair roulette", ROULETTE, rng.integers(0, 37, n), direction=_alternating(n))
    res = run_battery(data)
    assert res.verdict == "pass", [(t.name, t.p_adjusted) for t in res.failed]
    names = {t.name for t in res.tests}
    assert {"chi2", "chi2_per_symbol", "runs", "serial_transition", "serial_autocorrelation", "distance",
            "chi2[clockwise]", "chi2[anticlockwise]", "distance[clockwise]", "distance[anticlockwise]",
            "direction_homogeneity[direction]"} <= names
    assert all(t.verdict == "pass" and t.p_value is not None and 0 <= t.power <= 1 for t in res.tests)
    assert res.family_size == battery_size(data) == len(res.tests)
    assert _test(res, "runs").detail["binary_split"].startswith("red (1) / black (0)")
    json.dumps(res.to_json())  # JSON-ready as is


def test_fair_money_wheel_with_top_slot_passes() -> None:
    rng = np.random.default_rng(7)
    n = 4000
    mw, r1, r2 = Alphabet.money_wheel(), Alphabet.top_slot(reel=1), Alphabet.top_slot(reel=2)
    data = OutcomeData("fair money wheel", mw, rng.integers(0, 54, n), direction=_alternating(n),
                       columns={"reel1": (r1, rng.choice(r1.k, n, p=r1.p)), "reel2": (r2, rng.choice(r2.k, n, p=r2.p))})
    res = run_battery(data)
    assert res.verdict == "pass", [(t.name, t.p_adjusted) for t in res.failed]
    for name in ("chi2[reel1]", "chi2[reel2]", "independence[result×reel1]", "independence[result×reel2]",
                 "independence[reel1×reel2]"):
        assert any(t.name == name and t.verdict == "pass" for t in res.tests), name
    # the money wheel's sections are its physical order: section 5 shows Pachinko (§ 690.1(b))
    assert mw.symbols[5] == "5:pachinko" and mw.circular and mw.k == 54


# ---------------------------------------------------------------------------- the three biases

def test_a_hot_pocket_fails_the_chi2() -> None:
    n = 2 * plan.analytic("roulette", "pocket 17 +20 %").n
    data = simulate(ROULETTE, n, "pocket 17 +20 %", np.random.default_rng(11))
    res = run_battery(data)
    assert res.verdict == "fail"
    chi2, per = _test(res, "chi2"), _test(res, "chi2_per_symbol")
    assert chi2.verdict == "fail" and per.verdict == "fail"
    assert per.detail["worst_symbol"] == "17" and per.detail["worst_z"] > 0
    assert max(chi2.detail["residuals"], key=chi2.detail["residuals"].get) == "17"
    assert chi2.power > 0.99  # twice the planner's N


def test_neighbour_dependence_fails_the_distance_test_but_passes_the_plain_chi2() -> None:
    n = 2 * plan.analytic("roulette", "neighbour +20 %").n
    data = simulate(ROULETTE, n, "neighbour +20 %", np.random.default_rng(12))
    res = run_battery(data)
    assert res.verdict == "fail"
    assert _test(res, "chi2").verdict == "pass" and _test(res, "chi2_per_symbol").verdict == "pass"
    dist = _test(res, "distance")
    assert dist.verdict == "fail"
    assert set(dist.detail["most_over"][:2]) == {"+1", "-1"}  # the neighbouring pockets


def test_a_direction_only_bias_fails_the_per_direction_tests_not_the_pooled_chi2() -> None:
    # pocket 17 +30 % in clockwise spins and -30 % in anticlockwise ones: the pooled counts are
    # exactly fair, so only the split can see it.
    rng = np.random.default_rng(13)
    n = 60_000
    d = _alternating(n)
    j = ROULETTE.index("17")
    hot = np.full(37, (1 - 1.3 / 37) / 36)
    hot[j] = 1.3 / 37
    cold = np.full(37, (1 - 0.7 / 37) / 36)
    cold[j] = 0.7 / 37
    r = np.where(d > 0, rng.choice(37, n, p=hot), rng.choice(37, n, p=cold))
    res = run_battery(OutcomeData("direction-only", ROULETTE, r, direction=d))
    assert res.verdict == "fail"
    assert _test(res, "chi2").verdict == "pass" and _test(res, "chi2_per_symbol").verdict == "pass"
    assert _test(res, "direction_homogeneity", split="direction").verdict == "fail"
    assert _test(res, "chi2", split="clockwise").verdict == "fail"
    assert _test(res, "chi2", split="anticlockwise").verdict == "fail"


def test_synth_direction_only_bias_is_flagged_by_the_clockwise_split() -> None:
    n = 2 * plan.analytic("roulette", "clockwise pocket 17 +20 %").n
    res = run_battery(simulate(ROULETTE, n, "clockwise pocket 17 +20 %", np.random.default_rng(14)))
    assert res.verdict == "fail"
    cw, acw = _test(res, "chi2", split="clockwise"), _test(res, "chi2", split="anticlockwise")
    assert cw.verdict == "fail" and acw.verdict == "pass"
    assert cw.p_value < _test(res, "chi2").p_value  # the split sees it more clearly than the pool


# ---------------------------------------------------------------------------- other columns

def test_lit_numbers_that_follow_the_result_fail_the_coincidence_test() -> None:
    rng = np.random.default_rng(15)
    n = 3000
    lit_a = Alphabet.lit_numbers("single-zero")
    results = rng.integers(0, 37, n)
    lit = np.full((n, 5), ABSENT, np.int64)
    for i in range(n):
        lit[i, :3] = rng.choice(37, 3, replace=False)
    ok = OutcomeData("fair lit", ROULETTE, results, columns={"lit": (lit_a, lit)})
    fair = run_battery(ok)
    assert _test(fair, "independence", "result×lit").verdict == "pass"
    assert _test(fair, "chi2", "lit").verdict == "pass"
    # a generator that sees the result first: in 3 % of plays the result's number is lit
    rigged = lit.copy()
    cheat = rng.random(n) < 0.03
    wheel_pocket = np.array([lit_a.index(s) for s in ROULETTE.symbols])
    rigged[cheat, 0] = wheel_pocket[results[cheat]]
    rigged[cheat, 1:3] = np.where(rigged[cheat, 1:3] == rigged[cheat, :1], (rigged[cheat, 1:3] + 1) % 37,
                                  rigged[cheat, 1:3])
    res = run_battery(OutcomeData("rigged lit", ROULETTE, results, columns={"lit": (lit_a, rigged)}))
    assert _test(res, "independence", "result×lit").verdict == "fail"


def test_a_release_point_signature_fails_the_release_test() -> None:
    rng = np.random.default_rng(16)
    n = 3000
    release = rng.integers(0, 37, n)
    fair = (release + rng.integers(0, 37, n)) % 37
    assert _test(run_battery(OutcomeData("fair", ROULETTE, fair, release=release)), "release").verdict == "pass"
    # a dealer who lands 9 to 11 pockets past the release point a quarter of the time
    sig = np.where(rng.random(n) < 0.25, (release + rng.integers(9, 12, n)) % 37, fair)
    res = run_battery(OutcomeData("signature", ROULETTE, sig, release=release))
    rel = _test(res, "release")
    assert rel.verdict == "fail" and set(rel.detail["most_over"]) == {"+9", "+10", "+11"}


def test_a_top_slot_tied_to_the_wheel_fails_independence() -> None:
    rng = np.random.default_rng(17)
    n = 5000
    mw, r1 = Alphabet.money_wheel_spots(), Alphabet.top_slot(reel=1)
    res_ = rng.choice(mw.k, n, p=mw.p)
    reel = rng.choice(r1.k, n, p=r1.p)
    same = rng.random(n) < 0.1  # the reel shows the wheel's symbol 10 % more often
    reel[same] = [r1.index(mw.symbols[i]) for i in res_[same]]
    res = run_battery(OutcomeData("tied", mw, res_, columns={"reel1": (r1, reel)}))
    assert _test(res, "independence", "result×reel1").verdict == "fail"


# ---------------------------------------------------------------------------- too few

@pytest.mark.parametrize("n", [0, 1, 40, 150])
def test_sparse_data_is_undecided_never_a_pass(n: int) -> None:
    rng = np.random.default_rng(n)
    res = run_battery(OutcomeData("sparse", ROULETTE, rng.integers(0, 37, n), direction=_alternating(n)))
    assert res.verdict == "undecided"
    chi2 = _test(res, "chi2")
    assert chi2.verdict == "too few" and chi2.p_value is None and chi2.power is None
    assert any(s.startswith("chi2: too few") for s in res.thin)
    assert _test(res, "distance").verdict == "too few"
    assert all(t.verdict != "fail" for t in res.tests)


def test_a_weak_test_is_listed_thin() -> None:
    rng = np.random.default_rng(3)
    res = run_battery(OutcomeData("short", ROULETTE, rng.integers(0, 37, 400)))
    assert res.verdict == "pass"
    assert any(s.startswith("chi2: weak: power") for s in res.thin)


# ---------------------------------------------------------------------------- the correction and the power

def test_holm_and_bonferroni_over_the_family() -> None:
    data = simulate(ROULETTE, 20_000, "pocket 17 +20 %", np.random.default_rng(18))
    holm, bonf = run_battery(data, correction="holm"), run_battery(data, correction="bonferroni")
    m = battery_size(data)
    assert holm.family_size == bonf.family_size == m
    for h, b in zip(holm.tests, bonf.tests, strict=True):
        assert b.p_adjusted == pytest.approx(min(1.0, m * b.p_value))
        assert h.p_adjusted <= b.p_adjusted + 1e-15
        assert h.verdict == ("fail" if h.p_adjusted <= 0.01 else "pass")
    smallest = min(holm.tests, key=lambda t: t.p_value)
    assert smallest.p_adjusted == pytest.approx(min(1.0, m * smallest.p_value))
    assert holm.correction == "holm" and bonf.correction == "bonferroni"


def test_the_chi2_power_is_the_planners() -> None:
    a = plan.analytic("roulette", "pocket 17 +20 %")
    data = simulate(ROULETTE, a.n, "none", np.random.default_rng(19))
    chi2 = _test(run_battery(data), "chi2")
    # the same reference (one pocket +20 %), the same level alpha/m: the planner's 0.9
    assert chi2.power == pytest.approx(0.9, abs=0.01)
    lam = a.n * 0.04 / 36
    assert chi2.power == pytest.approx(stats.ncx2.sf(stats.chi2.isf(0.01 / a.battery_size, 36), 36, lam), abs=1e-6)


def test_power_grows_with_n() -> None:
    rng = np.random.default_rng(20)
    powers = [{t.name: t.power for t in run_battery(OutcomeData("f", ROULETTE, rng.integers(0, 37, n))).tests}
              for n in (1000, 10_000, 100_000)]
    for name in ("chi2", "runs", "distance", "serial_autocorrelation"):
        assert powers[0][name] < powers[1][name] < powers[2][name], name


# ---------------------------------------------------------------------------- malformed input

@pytest.mark.parametrize("kwargs, message", [
    ({"results": [0, 37]}, r"results\[1\] = 37 is no index of roulette single-zero \(0..36\)"),
    ({"results": [-1]}, r"results\[0\] = -1 is no index"),
    ({"results": [[1, 2]]}, r"results must be 1-D"),
    ({"results": [1.5]}, r"results must hold integers"),
    ({"results": ["17"]}, r"results must hold integers"),
    ({"results": [1, 2], "direction": [1]}, r"direction has 1 entries; results has 2 plays"),
    ({"results": [1, 2], "direction": [1, 2]}, r"direction holds \+1 \(clockwise\), -1"),
    ({"results": [1], "release": [40]}, r"release holds indices"),
    ({"results": [1], "dealer": [3]}, r"dealer must be 1 strings"),
    ({"results": [1], "time": ["noon"]}, r"time must be 1 numbers"),
    ({"results": [1], "columns": {"reel1": ([0],)}}, r"columns\['reel1'\] must be \(Alphabet, array\)"),
    ({"results": [1], "columns": {"reel1": (Alphabet.top_slot(reel=1), [8])}}, r"columns\['reel1'\] holds indices"),
])
def test_malformed_outcome_data_is_a_clear_value_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OutcomeData("bad", ROULETTE, **kwargs)


@pytest.mark.parametrize("args, message", [
    (("w", ("a",)), r"at least 2 symbols"),
    (("w", ("a", "a")), r"symbols must be distinct; repeated: a"),
    (("w", ("a", "b"), (0.5, 0.6)), r"probabilities must sum to 1"),
    (("w", ("a", "b"), (0.5,)), r"1 probabilities for 2 symbols"),
    (("w", ("a", "b"), (1.5, -0.5)), r"probability of 'a' must be in \[0, 1\]"),
    (("", ("a", "b")), r"kind must be a non-empty string"),
])
def test_malformed_alphabet_is_a_clear_value_error(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Alphabet(*args)


def test_bad_battery_arguments_are_clear_value_errors() -> None:
    data = OutcomeData("x", ROULETTE, [1, 2, 3])
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\)"):
        run_battery(data, alpha=1.5)
    with pytest.raises(ValueError, match=r"correction must be one of holm, bonferroni"):
        run_battery(data, correction="fdr")
    with pytest.raises(ValueError, match=r"run_battery takes an OutcomeData"):
        run_battery([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"'41' is no result of roulette single-zero"):
        ROULETTE.encode(["17", "41"])


# ---------------------------------------------------------------------------- the alphabets and subset

def test_alphabets_in_physical_order_with_null_probabilities() -> None:
    assert ROULETTE.symbols[:5] == ("0", "32", "15", "19", "4") and ROULETTE.circular
    dz = Alphabet.roulette("double-zero")
    assert dz.k == 38 and dz.symbols[19] == "00"
    spots = Alphabet.money_wheel_spots()
    assert dict(zip(spots.symbols, spots.p, strict=True))["1"] == pytest.approx(21 / 54)
    assert math.fsum(Alphabet.pachinko_spots().p) == pytest.approx(1.0)
    for a in (Alphabet.top_slot(reel=1), Alphabet.top_slot(reel=2), Alphabet.top_slot_aligned(),
              Alphabet.board_values("cash-hunt"), Alphabet.lit_counts(), Alphabet.lit_multipliers()):
        assert not a.circular and math.fsum(a.p) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"no roulette wheel 'triple-zero'"):
        Alphabet.roulette("triple-zero")


def test_subset_cuts_every_per_play_array() -> None:
    r1 = Alphabet.top_slot(reel=1)
    data = OutcomeData("s", ROULETTE, [1, 2, 3, 4], direction=[1, -1, 1, -1], dealer=["a", "b", "a", "b"],
                       spin=[10, 11, 12, 13], columns={"reel1": (r1, [0, 1, 2, 3])})
    cw = data.subset(data.direction > 0, "clockwise")
    assert cw.n == 2 and cw.source == "s [clockwise]"
    assert cw.results.tolist() == [1, 3] and cw.spin.tolist() == [10, 12] and cw.dealer.tolist() == ["a", "a"]
    assert cw.columns["reel1"][1].tolist() == [0, 2]
    with pytest.raises(ValueError, match=r"mask must be a boolean array of 4 entries"):
        data.subset([1, 0, 1, 0])


def test_a_result_the_null_gives_no_chance_fails_at_once() -> None:
    a = Alphabet("three-way", ("a", "b", "c"), (0.5, 0.5, 0.0))
    r = np.random.default_rng(21).integers(0, 2, 500)
    assert run_battery(OutcomeData("fair", a, r)).verdict == "pass"
    r[7] = 2
    res = run_battery(OutcomeData("impossible", a, r))
    chi2 = _test(res, "chi2")
    assert res.verdict == "fail" and chi2.verdict == "fail" and chi2.detail["impossible"] == ["c"]


def test_false_alarms_stay_near_alpha_on_a_small_fixed_sample() -> None:
    # the small fixed-seed version of bench/analyze_power.py (1,000 runs there: 0.011 at N=3,700)
    flagged = 0
    for r in range(60):
        rng = np.random.default_rng(np.random.SeedSequence([22, r]))
        res = run_battery(simulate(ROULETTE, 1000, "none", rng))
        assert res.verdict in ("pass", "fail") and res.family_size == 11
        flagged += res.verdict == "fail"
    assert flagged <= 3  # expected 0.6 at alpha 0.01; P(> 3) < 0.004 under the nominal rate
