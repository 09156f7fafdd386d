"""The Monte Carlo engine's core (issue 15): exact integer tallies against numpy, merge algebra,
the game registry, and bit-identity of ``run_mc`` however its chunks are grouped and ordered."""

from __future__ import annotations

import math
import sys
import types
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from hil.mc import McError, chunk_sizes, play_chunk, run_mc
from rules.mc import GameNotBuilt, McGame, _Registry
from rules.mc.tally import WagerTally, merge, merge_all, merge_dicts, tally, tally_values


@pytest.mark.parametrize("den", [1, 2, 100])
def test_tally_figures_match_numpy(den):
    rng = np.random.default_rng(11)
    returns = rng.choice(np.array([0, 0, 0, den, 3 * den, 36 * den + 1]), size=997)
    t = tally(returns, den)
    x = returns / den
    assert (t.n, t.s1, t.s2, t.hits) == (997, int(returns.sum()), int((returns.astype(object) ** 2).sum()),
                                         int((returns > 0).sum()))
    assert t.rtp == pytest.approx(x.mean(), rel=1e-12)
    assert t.rtp_fraction == Fraction(int(returns.sum()), den * 997)
    assert t.sd == pytest.approx(x.std(ddof=1), rel=1e-12)
    assert t.hit_frequency == pytest.approx((x > 0).mean(), rel=1e-15)
    lo, hi = t.ci(0.99)
    half = stats.norm.ppf(0.995) * x.std(ddof=1) / math.sqrt(x.size)
    assert (lo, hi) == pytest.approx((x.mean() - half, x.mean() + half), rel=1e-12)


def test_tally_sums_exactly_where_int64_squares_would_overflow():
    big = np.array([0, 2 ** 31 + 7, 5, 2 ** 31 + 7] * 50, dtype=np.int64)  # block path: few rows a block
    huge = np.array([0, 2 ** 40, 3], dtype=np.int64)  # hi**2 > int64: Python ints
    for r in (big, huge):
        t = tally(r, 1)
        assert t.s2 == sum(int(v) ** 2 for v in r) and t.s1 == sum(int(v) for v in r)


def test_tally_refuses_what_is_not_a_return():
    with pytest.raises(TypeError):
        tally(np.array([0.5, 1.0]), 1)
    with pytest.raises(ValueError, match="never negative"):
        tally(np.array([1, -1]), 1)
    with pytest.raises(TypeError):
        WagerTally(1, 1.0, 1, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        WagerTally(2, 1, 1, 3, 1)  # more hits than wagers
    assert tally(np.array([], dtype=np.int64), 4) == WagerTally(0, 0, 0, 0, 4)
    assert math.isnan(WagerTally(0, 0, 0, 0).rtp) and math.isnan(WagerTally(1, 1, 1, 1).sd)


def test_merge_is_exact_associative_and_commutative_across_units():
    rng = np.random.default_rng(5)
    parts = [tally(rng.integers(0, 40, size=n), den) for n, den in ((10, 1), (7, 2), (13, 3), (1, 6))]
    a, b, c, d = parts
    assert merge(merge(a, b), merge(c, d)) == merge(a, merge(b, merge(c, d))) == merge(d, merge(c, merge(b, a)))
    whole = merge_all(parts)
    assert whole.den == 6 and whole.n == 31
    assert whole.rtp_fraction == sum((Fraction(p.s1, p.den) for p in parts), Fraction(0)) / 31
    assert whole.s2 == sum(p.s2 * (6 // p.den) ** 2 for p in parts)
    assert merge_dicts({"x": a}, {"x": b, "y": c}) == {"x": merge(a, b), "y": c}


def test_tally_values_is_the_tally_of_the_expanded_array():
    values, counts = np.array([0, 1, 36]), np.array([20, 3, 2])
    assert tally_values(values, counts, 1) == tally(np.repeat(values, counts), 1)


# ------------------------------------------------------------------ a toy kernel for the driver

def _coin_kernel(rng, n, options):
    """A fair even-money wager: returns 2 or 0."""
    return {"even money": tally(2 * rng.integers(0, 2, size=n), 1),
            "half stake back": tally(rng.integers(0, 2, size=n), 2)}


COIN = McGame("coin", "rounds", _coin_kernel, lambda **_: {},
              lambda options: {"even money": Fraction(1), "half stake back": Fraction(1, 4)})


@pytest.fixture()
def coin_registry(monkeypatch):
    module = types.ModuleType("tests_mc_coin")
    module.MC_GAMES = (COIN,)  # found through MC_GAMES when the named attribute is absent
    monkeypatch.setitem(sys.modules, "tests_mc_coin", module)
    registry = _Registry((("coin", "tests_mc_coin", "NOT_THERE"), ("ghost", "tests_mc_no_such_module", "GAME")))
    monkeypatch.setattr("rules.mc.GAMES", registry)
    return registry


def test_registry_imports_lazily_and_a_missing_kernel_breaks_only_its_game(coin_registry):
    assert list(coin_registry) == ["coin", "ghost"] and "ghost" in coin_registry
    assert coin_registry["coin"] is COIN
    with pytest.raises(GameNotBuilt, match="not built"):
        coin_registry["ghost"]
    assert coin_registry.available() == ("coin",)
    with pytest.raises(McError, match="not built"):
        run_mc("ghost", 10, 0, {})


class _ShuffledClient:
    """Runs ``map`` in reverse order and returns futures that ``gather`` resolves in order: the
    driver's results may not depend on the order chunks are played in."""

    def map(self, fn, *iterables, pure=True):
        calls = list(zip(*iterables))
        done = {i: fn(*args) for i, args in reversed(list(enumerate(calls)))}
        return [done[i] for i in range(len(calls))]

    def gather(self, futures):
        return list(futures)

    def nthreads(self):
        return {"tcp://a": 1, "tcp://b": 1}


def test_figures_are_bit_identical_however_the_chunks_are_played_and_grouped(coin_registry):
    in_process = run_mc("coin", 10_000, 42, {}, chunk=1_000)
    shuffled = run_mc("coin", 10_000, 42, {}, chunk=1_000, client=_ShuffledClient())
    assert in_process.figures_json() == shuffled.figures_json()
    assert (in_process.workers, shuffled.workers) == (1, 2)
    # the same seed list, merged in two different groupings (as two workers' partial sums would be)
    seeds = np.random.SeedSequence(42).spawn(10)
    parts = [play_chunk("coin", 1_000, ss, {}) for ss in seeds]
    evens = merge_all(p["even money"] for p in parts[::2])
    odds = merge_all(p["even money"] for p in parts[1::2])
    assert merge(odds, evens) == in_process.wagers[0].tally
    # a different chunking draws different numbers: the chunk is part of the figures' identity
    assert run_mc("coin", 10_000, 42, {}, chunk=999).figures_json()["wagers"] != in_process.figures_json()["wagers"]
    assert in_process.figures_json()["chunk"] == 1_000 and "timing" not in in_process.figures_json()
    assert set(in_process.to_json()["timing"]) >= {"wall_s", "rounds_per_s", "workers"}


def test_run_mc_figures_and_exact_comparison(coin_registry):
    res = run_mc("coin", 20_000, 1, {}, chunk=4_096, confidence=0.999)
    assert res.chunks == 5 and chunk_sizes(20_000, 4_096) == [4_096] * 4 + [3_616]
    even, half = res.wagers
    assert even.tally.n == 20_000 and even.tally.den == 1 and half.tally.den == 2
    assert even.exact_in_ci and half.exact_in_ci
    assert abs(even.z) < 3.3 and even.to_json()["rtp_exact_fraction"] == "1/1"


@pytest.mark.parametrize("kwargs, message", [
    ({"rounds": 0}, "rounds"), ({"seed": -1}, "seed"), ({"chunk": 2 ** 20 + 1}, "2\\*\\*20"),
    ({"confidence": 1.0}, "confidence"), ({"rounds": 1.5}, "rounds"),
])
def test_run_mc_refuses_bad_input(coin_registry, kwargs, message):
    args = {"rounds": 10, "seed": 0, "chunk": 2 ** 20, "confidence": 0.95} | kwargs
    with pytest.raises(McError, match=message):
        run_mc("coin", args["rounds"], args["seed"], {}, chunk=args["chunk"], confidence=args["confidence"])
    with pytest.raises(McError, match="unknown game"):
        run_mc("no-such-game", 10, 0, {})
