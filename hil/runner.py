"""Running scenarios: build the bench, drive the croupier, record the trace, run the checks.

Each scenario runs in its own simulation with its own trace file; scenarios are independent,
so a suite is spread over the machine's cores (``jobs``) with identical results whatever the
number of workers (every random stream derives from the scenario's seed).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import time
import traceback
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from hil.bench import LoadedBench, build_devices
from hil.clock import WallClockEnvironment
from hil.checks import CheckConfig, run_checks
from hil.config import ConfigError, read_text
from hil.blackjack import BlackjackController, run_linked_tables
from hil.controller import CROUPIER, CrazyTimeController, bench_record
from hil.poker_tables import POKER_CONTROLLERS
from hil.roulette import RouletteController, StreakStore, table_rules
from hil.scenario import LoadedScenario
from hil.trace import TraceWriter
from hil.transport.ioloop import IoLoop
from rules.roulette_x import ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission
from rules.submission import DEFAULT_RULES_RESOURCE, RulesSubmission, RulesSubmissionError, parse_rules_submission


@dataclass(frozen=True)
class LoadedRules:
    submission: RulesSubmission
    source: str
    sha256: str


def load_submission(path: Path | None, resource: str, parse: Callable[[str, str], Any]) -> tuple[Any, str, str]:
    """A Rules Submission parsed by ``parse(text, source)`` from ``path``, or the packaged
    ``rules/<resource>``: (submission, source, sha256 of the text). A bad file raises
    ``ConfigError`` (source, line, field)."""
    if path is None:
        source = f"embedded:rules/{resource}"
        text = importlib.resources.files("rules").joinpath(resource).read_text(encoding="utf-8")
    else:
        source, text = str(path), read_text(path)
    try:
        sub = parse(text, source)
    except RulesSubmissionError as exc:
        raise ConfigError(exc.source, exc.line, exc.field, exc.message) from None
    return sub, source, hashlib.sha256(text.encode()).hexdigest()


def load_rules(path: Path | None = None) -> LoadedRules:
    """The Crazy Time Rules Submission at ``path``, or the default one shipped with ``rules``."""
    return LoadedRules(*load_submission(path, DEFAULT_RULES_RESOURCE, parse_rules_submission))


def load_roulette_x_rules(path: Path | None = None) -> LoadedRules:
    """The Roulette X Rules Submission at ``path``, or the reference one shipped with ``rules``."""
    return LoadedRules(*load_submission(path, ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission))


#: The card tables whose paytables are the regulation's own (no Rules Submission file): trace metadata.
TABLE_REGULATIONS = {"blackjack": "§§ 633b.17–633b.21", "uth": "§§ 653b.2–653b.5", "criss-cross": "§ 674b.1",
                     "crazy-4": "§ 657a.7"}


def effective_seed(scenario_seed: int, name: str, override: int | None) -> int:
    """The scenario's own seed, or — with ``--seed`` — one derived from it and the scenario name
    (so scenarios of one run still draw independent streams)."""
    if override is None:
        return scenario_seed
    return int(np.random.SeedSequence([override, zlib.crc32(name.encode())]).generate_state(1, np.uint64)[0])


def simulate(loaded: LoadedScenario, bench: LoadedBench, rules: LoadedRules, trace_path: Path,
             seed: int, roulette_x: LoadedRules | None = None, state_dir: Path | None = None,
             ) -> tuple[dict[str, int], float]:
    """Drive the scenario's rounds on the bench, recording the trace; returns the croupier's
    tallies and the simulated time. An exception is recorded in the trace, then re-raised.

    A Roulette table draws its illuminator from ``roulette_x`` (default: the shipped reference
    Rules Submission) and keeps its streak tracker in ``state_dir``/<scenario>.streak.json when
    given (a run resumes the streak saved there)."""
    sc = loaded.scenario
    if sc.game == "roulette":
        rules = roulette_x or load_roulette_x_rules()
    writer = TraceWriter(trace_path, {
        "scenario": sc.name, "scenario_sha256": loaded.sha256, "seed": seed, "game": sc.game,
        "bench": bench.config.name, "bench_source": bench.source,
        # a card table's paytables are the regulation's own (rules/bj_paytables.py, rules/uth.py, ...)
        "rules": TABLE_REGULATIONS.get(sc.game) or rules.submission.name,
        "rules_sha256": None if sc.game in TABLE_REGULATIONS else rules.sha256,
    })
    io = built = None
    try:
        cfg = bench.config
        env = WallClockEnvironment(cfg.time_scale) if cfg.real_time else simpy.Environment()
        writer.clock = env
        if cfg.real_time:  # scheduler lateness of the real-time clock, per round
            io = IoLoop()
            writer.before_commit.append(
                lambda: (s := env.lateness.drain()) and writer.record(CROUPIER, "clock_lateness", s))
        ss_devices, ss_croupier = np.random.SeedSequence(seed).spawn(2)
        croupier_rng = np.random.Generator(np.random.PCG64(ss_croupier))
        if sc.game == "roulette":
            assert sc.table is not None
            rx = table_rules(rules.submission, sc.table)
            built = build_devices(env, bench, sc.device_overrides(), None, ss_devices, writer.record, io,
                                  roles=sc.roles, roulette_x=rx)
            bench_record(writer, built.params)
            writer.record(CROUPIER, "rules", rx.model_dump(mode="json", by_alias=True))
            store = StreakStore(state_dir / f"{sc.name}.streak.json") if state_dir is not None else None
            ctl = RouletteController(env, built.devices, writer, sc, rx, croupier_rng, store)
            writer.record(CROUPIER, "table", ctl.describe())
            env.run(until=ctl.run(sc.rounds))
            return dict(ctl.stats), env.now
        if sc.game == "blackjack":
            built = build_devices(env, bench, sc.device_overrides(), None, ss_devices, writer.record, io, roles=sc.roles)
            bench_record(writer, built.params)
            bj = BlackjackController(env, built.devices, writer, sc, croupier_rng)
            if sc.cards is not None and sc.cards.linked_tables > 1:
                run_linked_tables(env, built.devices.progressive, sc.cards.linked_tables - 1, sc,
                                  np.random.Generator(np.random.PCG64(ss_croupier.spawn(1)[0])))
            writer.record(CROUPIER, "table", bj.describe())
            writer.commit()
            env.run(until=bj.run(sc.rounds))
            return dict(bj.stats), env.now
        if sc.game in POKER_CONTROLLERS:  # the poker tables: the shoe (UTH, Criss-Cross), or no device (Crazy 4)
            built = build_devices(env, bench, sc.device_overrides(), None, ss_devices, writer.record, io, roles=sc.roles)
            bench_record(writer, built.params)
            poker = POKER_CONTROLLERS[sc.game](env, built.devices, writer, sc, croupier_rng)
            writer.record(CROUPIER, "table", poker.describe())
            writer.commit()
            env.run(until=poker.run(sc.rounds))
            return dict(poker.stats), env.now
        built = build_devices(env, bench, sc.device_overrides(), rules.submission, ss_devices, writer.record, io)
        bench_record(writer, built.params)
        writer.record(CROUPIER, "rules", rules.submission.model_dump(mode="json", by_alias=True))
        writer.commit()
        ctl = CrazyTimeController(env, built.devices, writer, sc, rules.submission, croupier_rng)
        env.run(until=ctl.run(sc.rounds))
        bonus = {f"bonus_{game.replace('-', '_')}": n for game, n in ctl.bonus.stats.items()}
        return {**ctl.stats, **bonus}, env.now
    except Exception:
        writer.record(CROUPIER, "run_error", {"traceback": traceback.format_exc()})
        raise
    finally:
        if built is not None:
            built.close()
        if io is not None:
            io.close()
        writer.close()


def run_scenario(
    loaded: LoadedScenario, bench: LoadedBench, rules: LoadedRules, out_dir: Path, seed_override: int | None = None,
    roulette_x: LoadedRules | None = None, resume: bool = False,
) -> dict[str, Any]:
    """Run one scenario to completion and check its trace; never raises for a scenario's own
    failure (a crash is recorded in the result, the trace kept). A Roulette table's streak tracker
    is kept in ``out_dir``/state; it starts empty unless ``resume``."""
    sc = loaded.scenario
    seed = effective_seed(sc.seed, sc.name, seed_override)
    trace_rel = Path("traces") / f"{sc.name}.sqlite"
    trace_path = out_dir / trace_rel
    result: dict[str, Any] = {
        "name": sc.name, "file": loaded.path, "sha256": loaded.sha256, "description": sc.description,
        "seed": seed, "rounds_requested": sc.rounds, "trace": str(trace_rel),
        "expected_failures": sorted(sc.expect.fail),
        # the lab's forced-outcome test mode: these rounds' results were not the wheel's
        "forced_result": sc.croupier.force_result,
    }
    wall0 = time.perf_counter()
    error = None
    stats: dict[str, int] = {}
    sim_time = 0.0
    state_dir = out_dir / "state"
    if not resume:
        (state_dir / f"{sc.name}.streak.json").unlink(missing_ok=True)
    try:
        stats, sim_time = simulate(loaded, bench, rules, trace_path, seed, roulette_x, state_dir)
    except Exception:  # noqa: BLE001 — a crashed scenario is a result, and its trace is kept
        error = traceback.format_exc()
    cfg = CheckConfig(
        lockout_budget_s=sc.lockout.budget_s,
        top_slot_start_tolerance_s=sc.checks.top_slot_start_tolerance_s,
        chi2_alpha=sc.checks.chi2_alpha,
        chi2_min_spins=sc.checks.chi2_min_spins,
    )
    checks = [c.to_json() for c in run_checks(trace_path, cfg)] if trace_path.exists() else []
    failed = {c["id"] for c in checks if c["verdict"] == "fail"}
    expected = set(sc.expect.fail)
    result.update(
        stats=stats,
        sim_time_s=round(sim_time, 6),
        wall_s=round(time.perf_counter() - wall0, 3),
        unexpected_failures=sorted(failed - expected),
        missed_failures=sorted(expected - failed),
        expectation_met=error is None and failed == expected,
        error=error,
        checks=checks,
    )
    return result


def _job(args: tuple) -> dict[str, Any]:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return run_scenario(*args)


def run_suite(
    scenarios: list[LoadedScenario], bench: LoadedBench, rules: LoadedRules, out_dir: Path,
    seed_override: int | None = None, jobs: int = 1, roulette_x: LoadedRules | None = None, resume: bool = False,
) -> list[dict[str, Any]]:
    """Run every scenario (in parallel over ``jobs`` processes); results in input order."""
    args = [(s, bench, rules, out_dir, seed_override, roulette_x, resume) for s in scenarios]
    # Longest first, so two workers finish together.
    order = sorted(range(len(args)), key=lambda i: -scenarios[i].scenario.rounds)
    if jobs <= 1 or len(args) <= 1:
        results = {i: run_scenario(*args[i]) for i in order}
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {i: pool.submit(_job, args[i]) for i in order}
            results = {i: f.result() for i, f in futures.items()}
    return [results[i] for i in range(len(args))]
