"""Running scenarios: build the bench, drive the croupier, record the trace, run the checks.

Each scenario runs in its own simulation with its own trace file; scenarios are independent,
so a suite is spread over the machine's cores (``jobs``) with identical results whatever the
number of workers (every random stream derives from the scenario's seed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.resources
import logging
import logging.handlers
import multiprocessing
import os
import threading
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

from hil.applicability import BenchRefused, mismatches, not_applicable
from hil.bench import BenchError, LoadedBench
from hil.clock import WallClockEnvironment
from hil.checks import CheckConfig, run_checks
from hil.config import ConfigError, read_text
from hil.controller import CROUPIER
from hil.monitor import MonitorStop, RunMonitor
from hil.scenario import LoadedScenario, Scenario
from hil.progress import SuiteProgress, TraceObserver, outcome_of
from hil.tables import TableContext, table_for
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


def scenario_rules(loaded: LoadedScenario) -> LoadedRules | None:
    """The Rules Submission the scenario names (``rules_submission``), loaded now; None when it
    names none. ConfigError (file, line, field) for a file that is missing or bad."""
    sc = loaded.scenario
    if sc.rules_submission is None:
        return None
    resource, path = None, None
    if sc.rules_submission.startswith("embedded:"):
        resource = sc.rules_submission.removeprefix("embedded:")
        if not importlib.resources.files("rules").joinpath(resource).is_file():
            raise ConfigError(loaded.path, None, "rules_submission", f"no Rules Submission {resource!r} is shipped in rules/")
    else:
        path = (Path(loaded.path).parent / sc.rules_submission)
    if sc.game == "roulette":
        return LoadedRules(*load_submission(path, resource or ROULETTE_X_REFERENCE_RESOURCE, parse_roulette_x_submission))
    return LoadedRules(*load_submission(path, resource or DEFAULT_RULES_RESOURCE, parse_rules_submission))


def effective_seed(scenario_seed: int, name: str, override: int | None) -> int:
    """The scenario's own seed, or — with ``--seed`` — one derived from it and the scenario name
    (so scenarios of one run still draw independent streams)."""
    if override is None:
        return scenario_seed
    return int(np.random.SeedSequence([override, zlib.crc32(name.encode())]).generate_state(1, np.uint64)[0])


def check_config(sc: Scenario) -> CheckConfig:
    """The limits the scenario sets for its checks (recorded in the trace: ``check_config``)."""
    return CheckConfig(
        lockout_budget_s=sc.lockout.budget_s,
        top_slot_start_tolerance_s=sc.checks.top_slot_start_tolerance_s,
        chi2_alpha=sc.checks.chi2_alpha,
        chi2_min_spins=sc.checks.chi2_min_spins,
        max_wire_faults=sc.checks.max_wire_faults,
        max_void_spin_ratio=sc.checks.max_void_spin_ratio,
        max_void_round_ratio=sc.checks.max_void_round_ratio,
        max_actuations_lost=sc.checks.max_actuations_lost,
        rounds_requested=sc.rounds,
        foreign_presses=sc.players.foreign_presses,
        monitor=sc.monitor.model_dump() if sc.monitor is not None else None,
    )


def trace_meta(loaded: LoadedScenario, bench: LoadedBench, rules: LoadedRules | None, seed: int) -> dict[str, Any]:
    """A trace's metadata: it stands alone as evidence — which scenario (and its hash), seed, bench,
    rules, the check limits and the scenario's expectation, so ``croupier check`` judges it exactly
    as the run did."""
    sc = loaded.scenario
    table = table_for(sc.game)
    return {
        "scenario": sc.name, "scenario_sha256": loaded.sha256, "seed": seed, "game": sc.game,
        "bench": bench.config.name, "bench_source": bench.source,
        # a card table's paytables are the regulation's own (rules/bj_paytables.py, rules/uth.py, ...)
        "rules": table.regulation or (rules.submission.name if rules else None),
        "rules_sha256": None if table.regulation else (rules.sha256 if rules else None),
        "check_config": dataclasses.asdict(check_config(sc)),
        # the expectation ``croupier check`` judges by (``judge``): cut_from_rounds when --max-rounds cut the run
        "expect": {"fail": sorted(sc.expect.fail), "pass": sorted(sc.expect.pass_),
                   "cut_from_rounds": loaded.cut_from_rounds},
        "rounds_requested": sc.rounds,
    }


class ResumeError(RuntimeError):
    pass


def _install_monitor(writer: TraceWriter, sc: Scenario, resumed: Path | None) -> RunMonitor | None:
    """The scenario's sequential monitor on ``writer`` (None: it has none); a resumed run's is fed
    the rounds its trace already holds first."""
    if sc.monitor is None or sc.table is None:
        return None
    rounds: list[tuple[int, list]] = []
    if resumed is not None:
        from hil.trace import TraceReader

        with TraceReader(resumed) as reader:
            rounds = [(n, [(e.device, e.kind, e.payload) for e in events]) for n, events in reader.rounds() if n > 0]
    return RunMonitor.install(writer, sc.monitor.model_dump(), sc.table.wheel, rounds)


def simulate(loaded: LoadedScenario, bench: LoadedBench, rules: LoadedRules, trace_path: Path,
             seed: int, roulette_x: LoadedRules | None = None, resume: bool = False,
             progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, int], float]:
    """Drive the scenario's rounds on the bench, recording the trace; returns the croupier's
    tallies and the simulated time. An exception is recorded in the trace, then re-raised.

    The table comes from the registry (``hil.tables``). A Roulette table draws its illuminator
    from ``roulette_x`` (default: the shipped reference Rules Submission). With ``resume`` and a
    trace at ``trace_path`` a killed run left, the run goes on in that trace after its last
    committed round, from the table's state committed with it (ResumeError when it cannot).

    ``progress(rounds_done, void_rounds)`` is called as rounds are committed (throttled,
    ``hil.progress.TraceObserver``), first with the rounds already in a resumed trace."""
    sc = loaded.scenario
    table = table_for(sc.game)
    game_rules = {"crazy-time": rules, "roulette-x": roulette_x or load_roulette_x_rules()}.get(table.rules_kind)
    point = None
    if resume and trace_path.exists():
        point = TraceWriter.resume_point(trace_path)
        if point.last_seq == 0:  # killed before it committed a single event: nothing to go on from
            for leftover in (trace_path, *(trace_path.with_name(trace_path.name + x) for x in ("-wal", "-shm"))):
                leftover.unlink(missing_ok=True)
            point = None
    if point is not None:
        if point.meta.get("scenario_sha256") != loaded.sha256 or point.meta.get("seed") != seed:
            raise ResumeError(f"{trace_path}: recorded by another scenario file or seed; not resumed")
        if point.last_round > 0 and point.state is None and table.stateful:
            raise ResumeError(f"{trace_path}: no table state committed with round {point.last_round}")
        if point.complete:
            return {}, 0.0
        writer = TraceWriter.reopen(trace_path)
        # fresh streams for the rounds after the restart: never a replay of rounds 1.. (recorded)
        seed_seq = np.random.SeedSequence([seed, point.last_round + 1])
    else:
        writer = TraceWriter(trace_path, trace_meta(loaded, bench, game_rules, seed))
        seed_seq = np.random.SeedSequence(seed)
    if not bench.config.real_time:  # a simulated bench: rounds are cheap, a commit each is not (docs/trace.md)
        writer.group()
    # before the table is built: the devices' telemetry goes through it (bench connect, wire faults)
    observer = TraceObserver(writer, sc.name, progress, real_devices=bench.config.real_time)
    observer.start(point.last_round if point is not None else 0)
    # the sequential monitor (scenario ``monitor``): ends the rounds once decisive (hil.monitor)
    monitor = _install_monitor(writer, sc, trace_path if point is not None else None)
    if monitor is not None and monitor.finished:  # killed after committing the round its monitor stopped at
        writer.set_meta({"run_end": {"rounds": monitor.stop_round, "resumed_from": point.last_round if point else None,
                                     "stopped_by_monitor": monitor.sprt.decision}})
        writer.close()
        observer.flush()
        return {}, 0.0
    io = None
    ctx = None
    try:
        cfg = bench.config
        env = WallClockEnvironment(cfg.time_scale) if cfg.real_time else simpy.Environment()
        writer.clock = env
        if cfg.real_time:  # scheduler lateness of the real-time clock, per round
            io = IoLoop()
            writer.before_commit.append(
                lambda: (s := env.lateness.drain()) and writer.record(CROUPIER, "clock_lateness", s))
        first = 1
        if point is not None:
            first = point.last_round + 1
            writer.round = first
            writer.hold = True  # the preamble is committed with round ``first``, never alone
        ss_devices, ss_croupier = seed_seq.spawn(2)
        ctx = TableContext(sc, bench, game_rules, env, writer, io, ss_devices, ss_croupier,
                           record_setup=point is None)
        try:
            ctl = table.build(ctx)
        except BenchError as exc:  # e.g. a device with neither press injection nor an actuator: exit 2
            raise BenchRefused("mismatch", None, str(exc)) from None
        if cfg.real_time:
            if found := mismatches(sc, cfg, ctx.device_info, sc.device_overrides(), ctx.built.stubs):
                raise BenchRefused("mismatch", None, "the bench does not fit the scenario: " + "; ".join(found))
            for device in vars(ctx.built.devices).values():  # each real device's clock estimate, once per round
                if callable(getattr(device, "clock_record", None)):
                    writer.before_commit.append(device.clock_record)
        if point is not None:
            writer.round = first
            writer.record(CROUPIER, "resumed", {"from_round": point.last_round, "next_round": first,
                                                 "stream": [seed, first], "state": point.state})
            if point.state is not None:
                ctl.restore(point.state)
        try:
            env.run(until=ctl.run(sc.rounds, first))
        except MonitorStop:  # decisive: the round it decided in is committed whole, the rounds end there
            pass
        writer.commit()
        end = {"rounds": sc.rounds, "resumed_from": point.last_round if point else None}
        if monitor is not None and monitor.finished:
            end.update(rounds=monitor.stop_round, stopped_by_monitor=monitor.sprt.decision)
        writer.set_meta({"run_end": end})
        return table.stats(ctl), env.now
    except BenchRefused as exc:  # the run stops here (exit 2); the trace says why
        writer.record(CROUPIER, "bench_refused", {"kind": exc.kind, "role": exc.role, "reason": exc.message})
        raise
    except Exception:
        writer.record(CROUPIER, "run_error", {"traceback": traceback.format_exc()})
        raise
    finally:
        if ctx is not None and ctx.built is not None:
            ctx.built.close()
        if io is not None:
            io.close()
        writer.close()
        observer.flush()


def run_scenario(
    loaded: LoadedScenario, bench: LoadedBench, rules: LoadedRules, out_dir: Path, seed_override: int | None = None,
    roulette_x: LoadedRules | None = None, resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run one scenario to completion and check its trace; never raises for a scenario's own
    failure (a crash is recorded in the result, the trace kept). With ``resume`` a trace a killed
    run left in ``out_dir`` goes on from its last committed round. A scenario the bench cannot apply
    (``hil.applicability.not_applicable``) is not run: its result says NOT APPLICABLE and why
    (``not_applicable``, ``expectation_met`` None). A bench that cannot run it at all (a device
    unreachable or mismatched) raises ``BenchRefused``: the suite stops."""
    sc = loaded.scenario
    seed = effective_seed(sc.seed, sc.name, seed_override)
    trace_rel = Path("traces") / f"{sc.name}.sqlite"
    trace_path = out_dir / trace_rel
    result: dict[str, Any] = {
        "name": sc.name, "game": sc.game, "file": loaded.path, "sha256": loaded.sha256,
        "description": sc.description,
        "seed": seed, "rounds_requested": sc.rounds, "trace": str(trace_rel),
        "expected_failures": sorted(sc.expect.fail),
        "expected_passes": sorted(sc.expect.pass_),
        # --max-rounds cut the run below the scenario's own rounds (None: it ran as the file says)
        "cut_from_rounds": loaded.cut_from_rounds,
        # the lab's forced-outcome test mode: these rounds' results were not the wheel's
        "forced_result": sc.croupier.force_result,
    }
    if reasons := not_applicable(sc, bench.config):  # never run without its faults: NOT APPLICABLE
        result.update(trace=None, stats={}, sim_time_s=0.0, wall_s=0.0, error=None, checks=[],
                      unexpected_failures=[], missed_failures=[], missed_passes=[], undecided=[], not_exercised=[],
                      outcome=NOT_APPLICABLE, expectation_met=None, not_applicable=reasons)
        return result
    wall0 = time.perf_counter()
    error = None
    stats: dict[str, int] = {}
    sim_time = 0.0
    try:
        own = scenario_rules(loaded)  # validated at load by the CLI; a scenario's own rules win
        if own is not None:
            rules, roulette_x = (rules, own) if sc.game == "roulette" else (own, roulette_x)
        stats, sim_time = simulate(loaded, bench, rules, trace_path, seed, roulette_x, resume, progress)
    except BenchRefused as exc:
        exc.scenario = sc.name  # the suite stops: the bench cannot run it (hil.applicability)
        raise
    except Exception:  # noqa: BLE001 — a crashed scenario is a result, and its trace is kept
        error = traceback.format_exc()
    checks = [c.to_json() for c in run_checks(trace_path, check_config(sc))] if trace_path.exists() else []
    result.update(
        stats=stats,
        sim_time_s=round(sim_time, 6),
        wall_s=round(time.perf_counter() - wall0, 3),
        error=error,
        checks=checks,
        **judge(checks, sc.expect.fail, error, expected_pass=sc.expect.pass_, cut_from_rounds=loaded.cut_from_rounds),
    )
    return result


#: a scenario's outcome (``judge``; report.json ``outcome``, docs/scenarios.md "Outcome")
MET, NOT_MET, NOT_DECISIVE, NOT_APPLICABLE = "met", "not met", "not decisive", "not applicable"
OUTCOMES = (MET, NOT_MET, NOT_DECISIVE, NOT_APPLICABLE)


def judge(checks: list[dict[str, Any]], expected_fail, error: str | None = None, *, expected_pass=(),
          cut_from_rounds: int | None = None) -> dict[str, Any]:
    """A scenario's outcome from its checks' verdicts and what it expects (``expect.fail``, the checks
    that must FAIL; ``expect.pass``, the checks it exists to decide, which must PASS):

    * NOT MET when the run crashed (``error``), when any check FAILs that is not in ``expect.fail``
      (``unexpected_failures``, whatever else came out), when a check of ``expect.fail`` PASSes in a
      run of the scenario's full length or has no verdict (``missed_failures``), or when a check of
      ``expect.pass`` has no verdict (``missed_passes``);
    * else NOT DECISIVE when a check the scenario names came out undecided (``undecided``, each with
      why): one of ``expect.fail`` or ``expect.pass`` indeterminate (too few spins for its statistic,
      no game of its kind in the trace), or one of ``expect.fail`` PASSing in a run ``--max-rounds``
      cut below the scenario's rounds (``cut_from_rounds``: too short to show that its fault is not
      caught). Never met, never a failure;
    * else MET.

    A check the scenario does not name that comes out indeterminate was not exercised by it
    (``not_exercised``); it changes nothing. ``expectation_met``: True (met), False (not met),
    None (not decisive)."""
    verdicts = {c["id"]: c["verdict"] for c in checks}
    summaries = {c["id"]: c.get("summary", "") for c in checks}
    fail, must_pass = set(expected_fail), set(expected_pass)
    unexpected = sorted(cid for cid, v in verdicts.items() if v == "fail" and cid not in fail)
    missed = sorted(cid for cid in fail if cid not in verdicts or (verdicts[cid] == "pass" and cut_from_rounds is None))
    missed_passes = sorted(cid for cid in must_pass if cid not in verdicts)
    undecided = []
    for cid in sorted((fail | must_pass) & set(verdicts)):
        v = verdicts[cid]
        if v == "indeterminate":
            undecided.append({"id": cid, "reason": f"indeterminate (expected {'FAIL' if cid in fail else 'PASS'}): "
                                                   f"{summaries[cid]}"})
        elif v == "pass" and cid in fail and cut_from_rounds is not None:
            undecided.append({"id": cid, "reason": "pass (expected FAIL) in a run --max-rounds cut short of the "
                                                   f"scenario's {cut_from_rounds} rounds: the fault may not have been "
                                                   "exercised yet"})
    not_exercised = sorted(cid for cid, v in verdicts.items() if v == "indeterminate" and cid not in fail | must_pass)
    outcome = (NOT_MET if error is not None or unexpected or missed or missed_passes
               else NOT_DECISIVE if undecided else MET)
    return {"outcome": outcome, "expectation_met": {MET: True, NOT_MET: False}.get(outcome),
            "unexpected_failures": unexpected, "missed_failures": missed, "missed_passes": missed_passes,
            "undecided": undecided, "not_exercised": not_exercised}


_log = logging.getLogger("croupier.run")

#: in a worker process: where its progress messages and log records go (``_worker_init``)
_CHANNEL: Any = None


def _worker_init(parent: int, channel: Any = None, log_level: int = logging.WARNING) -> None:
    """A worker process dies with the run that started it (Linux ``PR_SET_PDEATHSIG``): a run
    killed with -9 leaves no worker writing its traces behind it. Its ``croupier`` log records
    and its progress messages go to ``channel`` (a multiprocessing queue the parent reads:
    ``_Listener``), never to the worker's own stderr or log file."""
    global _CHANNEL
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the trace lock still refuses a second writer
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if channel is not None:
        _CHANNEL = channel
        root = logging.getLogger("croupier")
        for handler in list(root.handlers):  # a forked worker inherited the parent's: they are the parent's
            root.removeHandler(handler)
        root.addHandler(logging.handlers.QueueHandler(channel))
        root.setLevel(log_level)
        root.propagate = False


def _run_one(i: int, args: tuple, send: Callable[[tuple], None]) -> dict[str, Any]:
    """Scenario ``i``: its start and finish logged, its progress sent as ("rounds", i, done, void)
    and ("finished", i, outcome) messages, in order with its log records."""
    sc = args[0].scenario
    _log.info("scenario started", extra={"scenario": sc.name, "rounds": sc.rounds, "game": sc.game})
    result = run_scenario(*args, progress=lambda done, void: send(("rounds", i, done, void)))
    outcome = outcome_of(result)
    fields = {"scenario": sc.name, "outcome": outcome, "rounds": sc.rounds,
              "wall_s": result.get("wall_s"), "sim_time_s": result.get("sim_time_s")}
    for key in ("unexpected_failures", "missed_failures", "not_applicable"):
        if result.get(key):
            fields[key] = result[key]
    if result.get("undecided"):
        fields["undecided"] = [u.get("id") if isinstance(u, dict) else u for u in result["undecided"]]
    if result.get("error"):
        fields["error"] = str(result["error"]).strip().splitlines()[-1]
    _log.log(logging.WARNING if outcome == "not met" else logging.INFO, "scenario finished", extra=fields)
    send(("finished", i, outcome))
    return result


def _job(i: int, args: tuple) -> dict[str, Any]:
    return _run_one(i, args, _CHANNEL.put if _CHANNEL is not None else (lambda msg: None))


def _dispatch(progress: SuiteProgress | None, msg: Any) -> None:
    """One message of a scenario's run: a log record (a worker's) or its progress."""
    if isinstance(msg, logging.LogRecord):
        logger = logging.getLogger(msg.name)
        if logger.isEnabledFor(msg.levelno):
            logger.handle(msg)
    elif progress is not None and msg[0] == "rounds":
        progress.rounds_done(msg[1], msg[2], msg[3])
    elif progress is not None and msg[0] == "finished":
        progress.scenario_finished(msg[1], {"outcome": msg[2]})


class _Listener:
    """The parent's side of the workers' channel: progress messages to ``progress``, log records
    to the parent's ``croupier`` handlers (stderr, the log file), on a thread of its own."""

    def __init__(self, progress: SuiteProgress | None) -> None:
        self.progress = progress
        self.channel = multiprocessing.Queue()
        self._thread = threading.Thread(target=self._run, name="croupier-workers", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (msg := self.channel.get()) is not None:
            try:
                _dispatch(self.progress, msg)
            except Exception:  # noqa: BLE001 — progress and logs never stop a run
                _log.debug("progress message dropped", exc_info=True)

    def close(self) -> None:
        """After the workers are gone (their messages all sent): drain, then stop."""
        self.channel.put(None)
        self._thread.join(timeout=10)
        self.channel.close()
        self.channel.join_thread()


def run_suite(
    scenarios: list[LoadedScenario], bench: LoadedBench, rules: LoadedRules, out_dir: Path,
    seed_override: int | None = None, jobs: int = 1, roulette_x: LoadedRules | None = None, resume: bool = False,
    progress: SuiteProgress | None = None,
) -> list[dict[str, Any]]:
    """Run every scenario (in parallel over ``jobs`` processes); results in input order.

    ``progress`` (``hil.progress``; indices are the input order) hears each scenario's committed
    rounds and its outcome as it finishes, from whichever worker runs it; the ``croupier.run``
    logger has each scenario's start and finish (with its outcome), and a refusal."""
    args = [(s, bench, rules, out_dir, seed_override, roulette_x, resume) for s in scenarios]
    # Longest first, so two workers finish together.
    order = sorted(range(len(args)), key=lambda i: -scenarios[i].scenario.rounds)
    results: dict[int, dict[str, Any]] = {}
    try:
        if jobs <= 1 or len(args) <= 1:
            for i in order:
                results[i] = _run_one(i, args[i], lambda msg: _dispatch(progress, msg))
        else:
            listener = _Listener(progress)
            level = logging.getLogger("croupier").getEffectiveLevel()
            try:
                with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init,
                                         initargs=(os.getpid(), listener.channel, level)) as pool:
                    futures = {i: pool.submit(_job, i, args[i]) for i in order}
                    try:
                        for i, f in futures.items():
                            results[i] = f.result()
                    except BenchRefused:
                        pool.shutdown(cancel_futures=True)
                        raise
            finally:
                listener.close()
    except BenchRefused as exc:  # the scenarios that ran before it are kept (their traces and results)
        _log.info("bench refused the run", extra={"scenario": getattr(exc, "scenario", None), "kind": exc.kind,
                                                  "role": exc.role, "reason": exc.message})
        exc.results = [results[i] for i in range(len(args)) if i in results]
        raise
    return [results[i] for i in range(len(args))]
