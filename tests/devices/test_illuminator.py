"""Roulette X multiplier illuminator model (devices.illuminator), § 617b.5(b), (d), (g)."""

from __future__ import annotations

import importlib.resources
import json
from collections import Counter

import numpy as np
import pydantic
import pytest
import simpy
from scipy.stats import chisquare

from devices.contracts import Illumination, MultiplierIlluminator
from devices.illuminator import IlluminatorParams, IlluminatorSim
from rules.roulette import pockets
from rules.roulette_x import (
    PAYTABLES,
    ROULETTE_X_REFERENCE_RESOURCE,
    LitNumbers,
    RouletteXError,
    draw_lit,
    parse_roulette_x_submission,
)

REFERENCE = importlib.resources.files("rules").joinpath(ROULETTE_X_REFERENCE_RESOURCE).read_text(encoding="utf-8")


def _submission(paytable: str = "A"):
    return parse_roulette_x_submission(REFERENCE.replace('paytable = "A"', f'paytable = "{paytable}"'))


def _run(params: IlluminatorParams, n: int, *, paytable: str = "A", wheel: str = "single-zero", seed: int = 0,
         gap_s: float = 30.0):
    env = simpy.Environment()
    events = []
    ill = IlluminatorSim(env, params, _submission(paytable), wheel, np.random.default_rng(seed),
                         lambda d, k, p: events.append((env.now, d, k, p)))
    results, commands = [], []

    def croupier():
        for _ in range(n):
            commands.append(env.now)
            results.append((yield ill.illuminate()))
            yield env.timeout(gap_s)

    env.process(croupier())
    env.run()
    return ill, results, commands, events


@pytest.mark.parametrize("paytable, wheel", [("A", "single-zero"), ("A", "double-zero"), ("B", "double-zero")])
def test_contract_distinct_numbers_and_paytable_multipliers(paytable, wheel):
    p = IlluminatorParams()
    ill, results, commands, events = _run(p, 300, paytable=paytable, wheel=wheel)
    assert isinstance(ill, MultiplierIlluminator)
    table = PAYTABLES[paytable]
    assert events[0][1:] == ("illuminator", "device_info", {"wheel": wheel, "paytable": paytable,
                                                            "multipliers": [int(m.ratio) for m in table.multipliers]})
    json.dumps([e[3] for e in events])
    lit_msgs = [e for e in events if e[2] == "illumination"]
    assert len(lit_msgs) == 300
    allowed = {m.ratio for m in table.multipliers}
    for i, (c, r, msg) in enumerate(zip(commands, results, lit_msgs), start=1):
        assert isinstance(r, Illumination) and r.illumination_id == i
        assert 2 <= len(r.numbers) <= 5 and len(set(r.numbers)) == len(r.numbers) == len(r.multipliers)
        assert set(r.numbers) <= set(pockets(wheel)) and set(r.multipliers) <= allowed
        assert r.device_time_s == c and msg[0] == pytest.approx(c + p.illuminate_s)
        assert msg[3] == {"illumination_id": i, "numbers": r.numbers, "multipliers": r.multipliers,
                          "device_time_s": c}
        LitNumbers.of(zip(r.numbers, r.multipliers), paytable, wheel)  # the rules accept it


def test_healthy_illuminator_is_draw_lit():
    """Same rng, same draws: the device draws exactly as ``rules.roulette_x.draw_lit``."""
    _, results, _, _ = _run(IlluminatorParams(), 200, wheel="double-zero", seed=7)
    rng, sub = np.random.default_rng(7), _submission()
    for r in results:
        lit = draw_lit(rng, sub, "double-zero")
        assert dict(zip(r.numbers, r.multipliers)) == {n: o.ratio for n, o in lit.payouts.items()}


def test_paytable_b_refused_on_a_single_zero_wheel():
    with pytest.raises(RouletteXError, match="double-zero"):
        IlluminatorSim(simpy.Environment(), IlluminatorParams(), _submission("B"), "single-zero",
                       np.random.default_rng(0), lambda *a: None)


def test_count_multiplier_and_number_distributions_match_the_par():
    sub = _submission()
    par = sub.par_for()
    env = simpy.Environment()
    ill = IlluminatorSim(env, IlluminatorParams(), sub, "single-zero", np.random.default_rng(99), lambda *a: None)
    draws = [ill.draw() for _ in range(20_000)]
    counts = Counter(len(n) for n, _ in draws)
    ks = sorted(par.lit_count_weights)
    exp = np.array([float(par.lit_count_probability(k)) for k in ks]) * len(draws)
    assert chisquare([counts[k] for k in ks], exp).pvalue > 1e-3
    mults = Counter(m for _, ms in draws for m in ms)
    total = sum(mults.values())
    ms = sorted(par.multiplier_weights)
    exp = np.array([float(par.multiplier_probability(m)) for m in ms]) * total
    assert chisquare([mults[m] for m in ms], exp).pvalue > 1e-3
    nums = Counter(str(x) for n, _ in draws for x in n)
    assert chisquare([nums[str(x)] for x in pockets("single-zero")]).pvalue > 1e-3


def test_lit_early_reports_a_draw_before_the_command():
    p = IlluminatorParams(lit_early=True, early_s=2.5)
    _, results, commands, events = _run(p, 20)
    for c, r in zip(commands, results):
        assert r.device_time_s == pytest.approx(c - 2.5) and r.device_time_s < c
    assert all(e[0] == pytest.approx(e[3]["device_time_s"] + 2.5 + p.illuminate_s)
               for e in events if e[2] == "illumination")


def test_duplicate_numbers_fault():
    _, results, _, _ = _run(IlluminatorParams(duplicate_numbers=0.5), 400)
    dup = [r for r in results if len(set(r.numbers)) < len(r.numbers)]
    assert 120 < len(dup) < 280
    with pytest.raises(RouletteXError, match="distinct"):
        LitNumbers.of(zip(dup[0].numbers, dup[0].multipliers), "A", "single-zero")


def test_off_paytable_value_fault():
    _, results, _, _ = _run(IlluminatorParams(off_paytable_value=1.0), 100)
    allowed = {m.ratio for m in PAYTABLES["A"].multipliers}
    for r in results:
        off = [m for m in r.multipliers if m not in allowed]
        assert off == [1000]
    with pytest.raises(RouletteXError, match="617b.5"):
        LitNumbers.of(zip(results[0].numbers, results[0].multipliers), "A", "single-zero")


def test_biased_fault_fails_the_uniformity_check():
    env = simpy.Environment()
    ill = IlluminatorSim(env, IlluminatorParams(biased=0.2), _submission(), "single-zero",
                         np.random.default_rng(5), lambda *a: None)
    draws = [ill.draw() for _ in range(5_000)]
    assert all(len(set(n)) == len(n) for n, _ in draws)
    nums = Counter(str(x) for n, _ in draws for x in n)
    assert chisquare([nums[str(x)] for x in pockets("single-zero")]).pvalue < 1e-9
    assert max(nums, key=nums.get) in {"0", "1", "2", "3", "4", "5"}


def test_params_validate():
    adapter = pydantic.TypeAdapter(IlluminatorParams)
    assert adapter.validate_python({"lit_early": True, "early_s": 1.0}).lit_early
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python({"early": True})
    for bad in ({"illuminate_s": -1}, {"duplicate_numbers": 2}, {"biased_subset_size": 3}, {"off_paytable_multiplier": 0}):
        with pytest.raises(ValueError):
            IlluminatorParams(**bad)
