"""The planner (hil.stats.plan, ``croupier plan``), biased synthetic data (hil.stats.synth) and the
sequential monitor (hil.stats.sequential, hil.monitor, RW-pocket-sprt). Fixed seeds: deterministic.
The >= 1,000-run error-rate measurements are bench/sequential_errors.py's."""

from __future__ import annotations

import dataclasses

import numpy as np
import orjson
import pytest
from scipy import stats
from typer.testing import CliRunner

from hil.bench import load_bench
from hil.checks import CheckConfig, run_checks
from hil.cli import app
from hil.config import ConfigError
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.stats.battery import battery_size, run_battery
from hil.stats.data import Alphabet
from hil.stats.plan import analytic, detection, per_symbol, planned_test, simulated
from hil.stats.sequential import Sprt, SprtDesign, operating_point
from hil.stats.synth import parse_bias, simulate
from hil.trace import TraceReader

WHEEL = Alphabet.roulette("single-zero")


# --------------------------------------------------------------------------- synth
@pytest.mark.parametrize("text, kind, strength, symbol, direction", [
    ("pocket 17 +20 %", "hot", 0.2, "17", 0),
    ("section pachinko -10%", "hot", -0.1, "pachinko", 0),
    ("pockets 26 0 32 +30 %", "hot", 0.3, "26 0 32", 0),
    ("neighbour +20 %", "neighbour", 0.2, None, 0),
    ("clockwise pocket 17 +20 %", "direction", 0.2, "17", 1),
    ("anticlockwise pocket 0 +5 %", "direction", 0.05, "0", -1),
    ("none", "none", 0.0, None, 0),
])
def test_parse_bias_reads_each_kind(text, kind, strength, symbol, direction):
    b = parse_bias(text)
    assert (b.kind, b.strength, b.symbol, b.direction) == (kind, pytest.approx(strength), symbol, direction)


@pytest.mark.parametrize("text, words", [
    ("banana", "cannot read the bias"),
    ("pocket 17 +20", "cannot read the bias"),
    ("neighbour -150 %", "below 0"),
    ("pocket 17 -100 %", "below 0"),
])
def test_a_bias_that_does_not_parse_is_a_clear_error(text, words):
    with pytest.raises(ValueError, match=words):
        parse_bias(text)


def test_a_bias_off_the_wheel_or_impossible_there_is_a_clear_error():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="'99' is not on the roulette single-zero wheel"):
        simulate(WHEEL, 10, "pocket 99 +20 %", rng)
    with pytest.raises(ValueError, match="'00' is not on"):  # 00 is on the double zero wheel only
        simulate(WHEEL, 10, "pocket 00 +20 %", rng)
    with pytest.raises(ValueError, match="not a wheel"):
        simulate(Alphabet.top_slot(reel=1), 10, "neighbour +10 %", rng)
    with pytest.raises(ValueError, match="direction-only"):
        simulate(WHEEL, 10, "clockwise pocket 17 +20 %", rng, direction=False)
    with pytest.raises(ValueError, match="no probability"):
        simulate(WHEEL, 10, "pockets 0 32 15 19 4 21 2 25 17 34 6 27 13 36 11 30 8 23 10 5 +90 %", rng)


def test_a_hot_pocket_is_that_much_more_frequent_the_rest_scaled():
    data = simulate(WHEEL, 400_000, "pocket 17 +20 %", np.random.default_rng(1))
    freq = np.bincount(data.results, minlength=37) / data.n
    i17 = WHEEL.index("17")
    assert freq[i17] * 37 == pytest.approx(1.2, abs=0.03)
    p1 = parse_bias("pocket 17 +20 %").p1(WHEEL)
    assert p1[i17] == pytest.approx(1.2 / 37) and np.allclose(np.delete(p1, i17), (1 - 1.2 / 37) / 36)
    assert np.delete(freq, i17).mean() == pytest.approx((1 - 1.2 / 37) / 36, rel=1e-3)
    assert list(data.direction[:4]) == [1, -1, 1, -1]  # alternating, clockwise first


def test_the_neighbour_chain_keeps_the_counts_uniform_and_raises_the_neighbours():
    b = parse_bias("neighbour +20 %")
    m = b.transition(WHEEL)
    assert np.allclose(m.sum(axis=0), 1) and np.allclose(m.sum(axis=1), 1)  # doubly stochastic: stationary uniform
    data = simulate(WHEEL, 300_000, b, np.random.default_rng(2))
    counts = np.bincount(data.results, minlength=37)
    assert stats.chisquare(counts).pvalue > 0.01  # χ² of the counts cannot see it (fixed seed)
    dist = np.diff(data.results) % 37
    adjacent = np.isin(dist, (1, 36)).mean()
    assert adjacent == pytest.approx(2 * 1.2 / 37.4, rel=0.03)  # 2 (1+X)/(k+2X), not 2/k
    # the chain goes on from a given result: its first step is a step of the chain
    from hil.stats.synth import _neighbour_chain
    assert _neighbour_chain(37, 5, 0.2, np.random.default_rng(0), first=11)[0] == 11


def test_a_direction_only_bias_is_in_that_direction_only():
    data = simulate(WHEEL, 400_000, "clockwise pocket 17 +30 %", np.random.default_rng(3))
    i17 = WHEEL.index("17")
    cw, ccw = data.results[data.direction == 1], data.results[data.direction == -1]
    assert (cw == i17).mean() * 37 == pytest.approx(1.3, abs=0.04)
    assert (ccw == i17).mean() * 37 == pytest.approx(1.0, abs=0.04)


# --------------------------------------------------------------------------- the planner
@pytest.mark.parametrize("bias, test", [
    ("pocket 17 +20 %", "chi-square of the counts"),
    ("neighbour +20 %", "pocket-distance chi-square (consecutive results)"),
    ("clockwise pocket 17 +20 %", "chi-square of the counts, clockwise spins only"),
])
def test_the_noncentral_chi_square_n_is_the_smallest_with_the_power(bias, test):
    p = analytic("roulette", bias, 0.01, 0.9)
    b = parse_bias(bias)
    data = simulate(WHEEL, 1000, b, np.random.default_rng(0))
    assert p.test == test and p.dof == 36 and p.battery_size == battery_size(data)
    assert p.level == pytest.approx(0.01 / p.battery_size)
    name, dof, per_play, lost = planned_test(b, WHEEL)
    crit = stats.chi2.isf(p.level, dof)
    assert stats.ncx2.sf(crit, dof, per_play * (p.n - lost)) >= 0.9 > stats.ncx2.sf(crit, dof, per_play * (p.n - 1 - lost))
    # a hot pocket's noncentrality per play, by hand: (0.2/37)^2 * 37 * (1 + 1/36)
    if b.kind == "hot":
        assert per_play == pytest.approx(0.04 / 37 * (37 / 36))


def test_the_per_symbol_n_is_the_battery_s_binomial_test_at_its_level():
    p = per_symbol("roulette", "pocket 17 +20 %", 0.01, 0.9)
    a_s = -np.expm1(np.log1p(-p.level) / 37)  # Šidák over the 37 pockets at alpha / m

    def power(n):
        hi, lo = stats.binom.isf(a_s / 2, n, 1 / 37), stats.binom.ppf(a_s / 2, n, 1 / 37)
        return stats.binom.sf(hi, n, 1.2 / 37) + stats.binom.cdf(lo - 1, n, 1.2 / 37)

    assert power(p.n) >= 0.9 > power(p.n - 1) and p.n < analytic("roulette", "pocket 17 +20 %").n
    assert "symbol 17" in p.test and p.level == pytest.approx(0.01 / p.battery_size)
    assert per_symbol("roulette", "neighbour +20 %") is None  # the chain's counts are uniform: no per-symbol n


def test_the_simulated_n_is_where_the_battery_itself_reaches_the_power():
    plan = simulated("roulette", "pocket 17 +100 %", 0.01, 0.9, simulations=20, seed=7, rel_tol=0.05)
    assert plan.n is not None and plan.detected >= 18 and plan.power >= 0.9
    lo, hi = plan.power_ci
    assert lo < plan.power <= hi
    below = [n for n, pw in plan.evaluations if pw < 0.9]
    assert below and max(below) < plan.n  # bracketed: a smaller N evaluated fell short
    assert all(pw >= 0.9 for n, pw in plan.evaluations if n >= plan.n)
    assert plan.flagged_by  # which of the battery's tests flagged it
    # the same seed, the same figures; and the battery as analyze runs it agrees at that N
    hits, _ = detection("roulette", "pocket 17 +100 %", plan.n, 20, 7)
    assert hits == plan.detected
    rng = np.random.default_rng(np.random.SeedSequence([7, 0]))
    assert run_battery(simulate(WHEEL, plan.n, "pocket 17 +100 %", rng)).verdict in ("pass", "fail")


@pytest.mark.parametrize("game, bias, words", [
    ("roulettex", "pocket 17 +20 %", "no game 'roulettex'"),
    ("roulette", "pocket 99 +20 %", "'99' is not on"),
    ("roulette", "none", "no bias"),
    ("top-slot", "clockwise symbol 10 +20 %", "has no direction"),
    ("top-slot", "neighbour +20 %", "not a wheel"),
])
def test_the_planner_refuses_what_it_cannot_plan(game, bias, words):
    with pytest.raises(ValueError, match=words):
        analytic(game, bias, battery_size=1)


def test_croupier_plan_json_and_one_line_errors():
    runner = CliRunner()
    r = runner.invoke(app, ["plan", "--game", "roulette", "--bias", "pocket 17 +20 %", "--simulations", "0", "--json"])
    assert r.exit_code == 0, r.output
    doc = orjson.loads(r.stdout)
    assert doc["analytic"]["n"] == analytic("roulette", "pocket 17 +20 %").n and doc["simulated"] is None
    assert doc["analytic"]["test"] == "chi-square of the counts" and doc["correction"] == "holm"
    for args, words in ((["--power", "2"], "power must be in"), (["--alpha", "0"], "alpha must be in"),
                        (["--bias", "pocket 99 +5 %"], "'99' is not on"), (["--simulations", "3"], "at least 10"),
                        (["--correction", "sidak"], "holm or bonferroni"), (["--game", "dice"], "no game 'dice'")):
        base = {"--game": "roulette", "--bias": "pocket 17 +20 %"}
        argv = ["plan"]
        for k, v in base.items():
            if k not in args:
                argv += [k, v]
        r = runner.invoke(app, argv + args)
        assert r.exit_code == 2 and words in r.stderr and "Traceback" not in r.output, (args, r.output)
        assert r.stderr.count("\n") == 1


# --------------------------------------------------------------------------- the SPRT
def test_the_sprt_spin_by_spin_equals_the_vectorised_one():
    for text in ("pocket 17 +20 %", "neighbour +20 %", "clockwise pocket 17 +20 %"):
        d = SprtDesign(WHEEL, parse_bias(text), 0.01, 0.1, min_n=30)
        data = simulate(WHEEL, 60_000, text, np.random.default_rng(5))
        whole = d.run(data.results, data.direction)
        s = Sprt(d)
        for r, di in zip(data.results.tolist(), data.direction.tolist()):
            if s.update(r, di):
                break
        assert whole.decision == s.decision and whole.n == s.decided_at and whole.llr == pytest.approx(s.llr)
        assert d.lower == pytest.approx(np.log(0.1 / 0.99)) and d.upper == pytest.approx(np.log(0.9 / 0.01))


def test_the_sprt_errors_and_sample_numbers_at_a_fixed_seed():
    """The small fixed-seed version of bench/sequential_errors.py: 300 runs under each hypothesis."""
    d = SprtDesign(WHEEL, parse_bias("pocket 17 +50 %"), 0.05, 0.1, max_n=50_000)
    h0 = operating_point(d, "none", 300, seed=1)
    h1 = operating_point(d, "pocket 17 +50 %", 300, seed=2)
    assert h0.undecided == h1.undecided == 0
    # Wald's bounds: alpha' <= alpha / (1 - beta), beta' <= beta / (1 - alpha); 300 runs: +3 sd of slack
    assert h0.rate("H1") <= 0.05 / 0.9 + 3 * np.sqrt(0.056 * 0.944 / 300)
    assert h1.rate("H0") <= 0.1 / 0.95 + 3 * np.sqrt(0.105 * 0.895 / 300)
    assert h0.rate("H1") > 0 and h1.rate("H0") > 0  # the test can err: the rates are measured, not zero
    fixed = analytic("roulette", "pocket 17 +50 %", 0.05, 0.9).n
    assert h0.mean_n < fixed / 3 and h1.mean_n < fixed / 3  # far fewer spins than the fixed-N plan
    assert h1.mean_n == pytest.approx(d.wald_asn("pocket 17 +50 %"), rel=0.2)
    assert h0.mean_n < d.fixed_n() and h1.mean_n < d.fixed_n()  # and than the fixed-N test of the same two hypotheses
    assert operating_point(d, "none", 300, seed=1) == h0  # deterministic


def test_an_sprt_of_no_bias_or_at_a_wrong_level_is_refused():
    with pytest.raises(ValueError, match="no bias"):
        SprtDesign(WHEEL, parse_bias("pocket 17 +0 %"))
    with pytest.raises(ValueError, match="alpha must be in"):
        SprtDesign(WHEEL, parse_bias("pocket 17 +20 %"), alpha=0.7)


# --------------------------------------------------------------------------- a run's monitor
MONITORED = """\
schema: 1
name: t-monitored
game: roulette
seed: 11
rounds: 400
players: {count: 1}
lockout: {probe: null}
table: {wheel: single-zero, roulette_up: null, roulette_x: false}
croupier: {betting_window_s: 1.0, spin_delay_s: 0.2, between_rounds_s: 0.0}
"""


def _run(tmp_path, monitor: str, faults: str = ""):
    loaded = parse_scenario(MONITORED + monitor + faults, "t.yaml")
    return loaded, run_scenario(loaded, load_bench(), load_rules(), tmp_path)


def test_a_monitored_run_stops_at_the_decision_and_the_check_replays_it(tmp_path):
    _, r = _run(tmp_path, "monitor: {bias: 'pockets 35 3 26 0 32 15 19 +35 %', alpha: 0.01, beta: 0.1}\n",
                "faults: {ball_wheel: {tilt: 0.6}}\n")
    v = {c["id"]: c for c in r["checks"]}
    sprt = v["RW-pocket-sprt"]
    assert sprt["verdict"] == "fail" and "accepted" in sprt["summary"], sprt
    m = {x["name"]: x["value"] for x in sprt["measurements"]}
    stopped = r["stats"]["rounds"]
    assert stopped < 400 and m["decided_at_round"] == stopped  # between_rounds_s 0: no round begun after it
    assert v["EVIDENCE-link"]["verdict"] == "pass", v["EVIDENCE-link"]  # the rounds up to the stop are all there
    trace = tmp_path / r["trace"]
    with TraceReader(trace) as reader:
        meta = reader.meta()
        stops = [(n, e.payload) for n, evs in reader.rounds() for e in evs if e.kind == "monitor_stop"]
        last = max(n for n, _ in reader.rounds())
    assert meta["run_end"]["rounds"] == stopped and meta["run_end"]["stopped_by_monitor"] == "H1"
    assert [n for n, _ in stops] == [stopped] == [last] and stops[0][1]["decision"] == "H1"
    # the replay judges the stop: a design the run did not use decides elsewhere, and that is a finding
    cfg = CheckConfig.from_json(meta["check_config"])
    other = dataclasses.replace(cfg, monitor={**cfg.monitor, "alpha": 0.2})
    res = {c.id: c for c in run_checks(trace, other)}["RW-pocket-sprt"]
    assert res.verdict == "fail" and any("the trace's spins decide" in f.message for f in res.findings), res


def test_a_run_that_goes_on_past_its_monitors_decision_fails_the_check(tmp_path):
    _, r = _run(tmp_path, "monitor: {bias: 'pockets 35 3 26 0 32 15 19 +35 %', beta: 0.1, stop: false}\n")
    sprt = {c["id"]: c for c in r["checks"]}["RW-pocket-sprt"]
    assert sprt["verdict"] == "pass" and r["stats"]["rounds"] == 400  # monitor only: the run goes its rounds
    trace = tmp_path / r["trace"]
    with TraceReader(trace) as reader:
        cfg = CheckConfig.from_json(reader.meta()["check_config"])
    judged = {c.id: c for c in run_checks(trace, dataclasses.replace(cfg, monitor={**cfg.monitor, "stop": True}))}
    res = judged["RW-pocket-sprt"]
    assert res.verdict == "fail" and any("played after the monitor stopped" in f.message for f in res.findings)
    # without a monitor the check says it was not exercised
    none = {c.id: c for c in run_checks(trace, dataclasses.replace(cfg, monitor=None))}["RW-pocket-sprt"]
    assert none.verdict == "indeterminate"


@pytest.mark.parametrize("monitor, field, words", [
    ("monitor: {bias: 'pocket 00 +20 %'}\n", "monitor", "'00' is not on the roulette single-zero wheel"),
    ("monitor: {bias: 'banana'}\n", "monitor.bias", "cannot read the bias"),
    ("monitor: {bias: 'pocket 17 +20 %', alpha: 0.7}\n", "monitor.alpha", "less than 0.5"),
    ("monitor: {bias: 'pocket 17 +20 %', min_spins: 401}\n", "monitor", "more than the scenario's 400 rounds"),
    ("monitor: {bias: 'none'}\n", "monitor.bias", "no bias"),
])
def test_a_bad_monitor_is_refused_at_load_with_its_field(monitor, field, words):
    with pytest.raises(ConfigError) as exc:
        parse_scenario(MONITORED + monitor, "t.yaml")
    assert words in str(exc.value) and field in str(exc.value), str(exc.value)


def test_a_monitor_watches_a_roulette_wheel_only():
    text = "schema: 1\nname: t\ngame: crazy-time\nseed: 1\nrounds: 5\nmonitor: {bias: 'pocket 17 +20 %'}\n"
    with pytest.raises(ConfigError, match="watches a Roulette wheel"):
        parse_scenario(text, "t.yaml")


class _Killed(BaseException):
    """A kill -9 stand-in: no ``except Exception`` sees it, and the trace is left as a kill leaves it."""


def _killed_at(monkeypatch, round_: int) -> None:
    """The run dies right after committing round ``round_`` (the trace closed as a kill leaves it):
    that round's commit is written, whatever the writer's group (``TraceWriter.group``)."""
    from hil.trace import TraceWriter

    commit = TraceWriter.commit

    def dying(self, state=None, *, round_end=False):
        if round_end and self.round == round_:
            self.commit_now = True
        commit(self, state, round_end=round_end)
        if round_end and self.round == round_:
            raise _Killed()

    monkeypatch.setattr(TraceWriter, "commit", dying)
    monkeypatch.setattr(TraceWriter, "close", TraceWriter.close_quietly)


def test_a_resumed_monitored_run_goes_on_with_its_evidence_and_stops_once(tmp_path, monkeypatch):
    monitor = "monitor: {bias: 'pockets 35 3 26 0 32 15 19 +35 %', alpha: 0.01, beta: 0.1}\n"
    tilt = "faults: {ball_wheel: {tilt: 0.6}}\n"
    loaded, whole = _run(tmp_path / "whole", monitor, tilt)
    stop = whole["stats"]["rounds"]
    assert 10 < stop < 400
    for kill_at, resumed_rounds in ((10, None), (stop, 0)):  # before the decision; right after its round's commit
        out = tmp_path / f"killed-{kill_at}"
        with monkeypatch.context() as m:
            _killed_at(m, kill_at)
            with pytest.raises(_Killed):
                run_scenario(loaded, load_bench(), load_rules(), out)
        r = run_scenario(loaded, load_bench(), load_rules(), out, resume=True)
        assert r["error"] is None, r["error"]
        sprt = {c["id"]: c for c in r["checks"]}["RW-pocket-sprt"]
        assert sprt["verdict"] == "fail" and sprt["findings_total"] == 1 and "accepted" in sprt["summary"], sprt
        with TraceReader(out / r["trace"]) as reader:
            stops = [n for n, evs in reader.rounds() for e in evs if e.kind == "monitor_stop"]
            last = max(n for n, _ in reader.rounds())
            end = reader.meta()["run_end"]
        assert len(stops) == 1 and stops[0] == last == end["rounds"] and end["stopped_by_monitor"] == "H1"
        if resumed_rounds == 0:  # decided before the kill: the resumed run plays no round more
            assert last == stop and r["outcome"] == whole["outcome"]
