"""Croupier as a pytest plugin (docs/pytest.md): ``pytest scenarios/`` runs the scenario suite.

Registered by the ``pytest11`` entry point ``croupier`` (pyproject.toml), so it is active in every
pytest session of an environment where Croupier is installed; ``-p no:croupier`` turns it off.

What is collected: a ``*.yaml`` / ``*.yml`` file is a scenario item when one of its folders (below
the rootdir) is named as in the ini option ``croupier_scenario_dirs`` (default ``scenarios``) —
the same files ``croupier run`` finds under such a folder. Nothing else: the YAML files a test
suite keeps as fixtures (``tests/fixtures/...``) are never collected, and ``pytest`` with the
repo's ``testpaths = tests`` collects no scenario at all.

Each file is loaded by ``croupier run``'s own loaders (``hil.cli.load_run_inputs``: the scenario,
the bench, the Rules Submissions, ``check_scenario``), and run by ``hil.runner.run_scenario``:
one code path with ``croupier run``. A bad file (or a bad bench or rules file) is a collection
error that names file, line and field, never a traceback.

An item's outcome is the scenario's (``outcome``, docs/scenarios.md):

* ``met`` — passed;
* ``not met`` — failed: the checks that failed unexpectedly or did not fail as expected, each with
  its id, section, verdict, summary and first findings, and the trace's path;
* ``not decisive`` — skipped, ``NOT DECISIVE: ...`` with the checks left undecided (a short run:
  ``--croupier-max-rounds``); ``--croupier-not-decisive fail`` makes it a failure instead. Never a
  pass: nothing was proven;
* ``not applicable`` — skipped, ``NOT APPLICABLE on this bench: <reasons>`` (not run).

Each item carries JUnit properties (``item.user_properties``; ``pytest --junitxml`` writes them):
the scenario's ``outcome``, ``file``, ``sha256``, ``seed``, ``rounds``, ``trace``,
``expected_failures``, and per check ``check.<id>.section``, ``check.<id>.verdict``,
``check.<id>.expected`` and ``check.<id>.<measurement>`` (value, unit, bracket, limit).

The ``croupier_bench`` fixture (session scope) gives a user's own tests the loaded bench: run a
scenario or a single round on it, or hold its devices (``CroupierBench``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: the ini option naming the folders whose YAML files are scenarios
SCENARIO_DIRS_INI = "croupier_scenario_dirs"
SCENARIO_SUFFIXES = (".yaml", ".yml")
NOT_DECISIVE_CHOICES = ("skip", "fail")
#: findings shown per failing check in an item's failure text (the trace has every one)
FIRST_FINDINGS = 3
_OUT_KEY = "croupier_out"  # xdist: the controller's out dir, handed to every worker


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("croupier", "Croupier scenarios (docs/pytest.md)")
    group.addoption("--croupier-bench", metavar="FILE", type=Path, default=None,
                    help="bench TOML the scenarios run on (default: the embedded simulated bench)")
    group.addoption("--croupier-rules", metavar="FILE", type=Path, default=None,
                    help="Crazy Time Rules Submission TOML (default: the shipped one)")
    group.addoption("--croupier-roulette-x-rules", metavar="FILE", type=Path, default=None,
                    help="Roulette X Rules Submission TOML (default: the shipped reference one)")
    group.addoption("--croupier-out", metavar="DIR", type=Path, default=None,
                    help="folder for the traces (DIR/traces; an earlier run's are archived as by croupier run); "
                         "default: a new croupier-pytest-* folder in the system temp dir, kept")
    group.addoption("--croupier-max-rounds", metavar="N", type=int, default=None,
                    help="cap every scenario's rounds (a smoke run: undecided expectations are NOT DECISIVE)")
    group.addoption("--croupier-seed", metavar="N", type=int, default=None,
                    help="derive every scenario's seed from N (as croupier run --seed)")
    group.addoption("--croupier-report", action="store_true", default=False,
                    help="at the session's end, write croupier run's reports into --croupier-out: report.json, "
                         "junit.xml, report.html, manifest.json")
    group.addoption("--croupier-not-decisive", choices=NOT_DECISIVE_CHOICES, default="skip",
                    help="a NOT DECISIVE scenario is skipped (default) or fails")
    parser.addini(SCENARIO_DIRS_INI, type="args", default=["scenarios"],
                  help="folder names whose *.yaml files are collected as Croupier scenarios (default: scenarios)")


# ----------------------------------------------------------------------------- session settings
@dataclasses.dataclass
class _Settings:
    bench: Path | None
    rules: Path | None
    roulette_x_rules: Path | None
    out: Path
    max_rounds: int | None
    seed: int | None
    not_decisive: str
    report: bool = False
    started: Any = None
    #: scenario name -> the file that has it (a second file with the name is refused)
    names: dict[str, str] = dataclasses.field(default_factory=dict)


_SETTINGS = pytest.StashKey[_Settings]()


def _default_out() -> Path:
    """A new folder name in the system temp dir, made only when a scenario runs (a session that
    runs none leaves nothing behind)."""
    return Path(tempfile.gettempdir()) / f"croupier-pytest-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"


def _resolved(config: pytest.Config, p: Path | None) -> Path | None:
    return None if p is None else (p if p.is_absolute() else Path(config.invocation_params.dir) / p)


def pytest_configure(config: pytest.Config) -> None:
    opt = config.option
    if opt.croupier_max_rounds is not None and opt.croupier_max_rounds < 1:
        raise pytest.UsageError(f"--croupier-max-rounds: must be >= 1, not {opt.croupier_max_rounds}")
    if opt.croupier_seed is not None and not 0 <= opt.croupier_seed <= 2**63 - 1:
        raise pytest.UsageError(f"--croupier-seed: must be in 0..2**63-1, not {opt.croupier_seed}")
    worker = getattr(config, "workerinput", None)
    if worker is None and opt.croupier_bench is not None and config.getoption("numprocesses", None) not in (None, 0):
        _one_at_a_time(config, _resolved(config, opt.croupier_bench))
    out = _resolved(config, opt.croupier_out)
    if out is None:
        out = Path(worker[_OUT_KEY]) if worker and _OUT_KEY in worker else _default_out()
    elif worker is None and ((out / "traces").exists() or (out / "report.json").exists()):
        from hil.cli import _archive_previous  # a run never overwrites an earlier one (croupier run's rule)

        _archive_previous(out)
    config.stash[_SETTINGS] = _Settings(
        bench=_resolved(config, opt.croupier_bench), rules=_resolved(config, opt.croupier_rules),
        roulette_x_rules=_resolved(config, opt.croupier_roulette_x_rules), out=out,
        max_rounds=opt.croupier_max_rounds, seed=opt.croupier_seed, not_decisive=opt.croupier_not_decisive,
        report=opt.croupier_report, started=dt.datetime.now(dt.timezone.utc))


def _one_at_a_time(config: pytest.Config, bench_path: Path) -> None:
    """A bench with a real device has one of each: its scenarios run one after the other (``croupier run``
    takes one job), so pytest-xdist workers (``-n``) are refused before any starts."""
    from hil.bench import load_bench
    from hil.config import ConfigError

    try:
        real_time = load_bench(bench_path).config.real_time
    except ConfigError:
        return  # said with its file, line and field at collection (and by croupier_bench)
    if real_time:
        raise pytest.UsageError(f"--croupier-bench {bench_path}: a bench with a real device runs one scenario at a "
                                f"time; run it without -n (pytest-xdist: -n {config.getoption('numprocesses')})")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: every worker writes its traces into the controller's one out folder."""
    node.workerinput[_OUT_KEY] = str(node.config.stash[_SETTINGS].out)


#: where each item leaves its result for the session's reports (``--croupier-report``)
RESULTS_DIR = ".pytest-results"


def _write_reports(config: pytest.Config) -> str | None:
    """``--croupier-report``: croupier run's reports of the scenarios this session ran (every worker's),
    written as ``croupier run`` writes them: report.json, the manifest, junit.xml, report.html. Returns
    the line to print, or None when no scenario ran."""
    import orjson

    from hil.cli import _write_html, load_run_inputs
    from hil.config import ConfigError
    from hil.pack import manifest_for_run
    from hil.report import build_report, provenance, write_json, write_junit

    s = config.stash[_SETTINGS]
    files = sorted((s.out / RESULTS_DIR).glob("*.json"))
    if not files:
        return None
    results = sorted((orjson.loads(f.read_bytes()) for f in files), key=lambda r: r["file"])
    try:
        scenarios, bench, rules, rx = load_run_inputs([Path(r["file"]) for r in results], s.bench, s.rules,
                                                      s.roulette_x_rules, s.max_rounds)
    except ConfigError as exc:  # a file changed while the session ran
        return f"croupier: reports not written: {exc}"
    report = build_report(results, provenance(bench, rules, scenarios, s.seed, s.started, rx))
    report["manifest"] = manifest_for_run(s.out, scenarios, bench, rules, rx)
    write_json(report, s.out / "report.json")
    write_junit(report, s.out / "junit.xml")
    _write_html(report, s.out)
    return f"croupier: reports in {s.out} (report.json, report.html, junit.xml, manifest.json)"


def pytest_sessionstart(session: pytest.Session) -> None:
    s = session.config.stash.get(_SETTINGS, None)
    if s is not None and s.report and not hasattr(session.config, "workerinput"):
        shutil.rmtree(s.out / RESULTS_DIR, ignore_errors=True)  # this session's results only


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    settings = config.stash.get(_SETTINGS, None)
    if settings is None:
        return
    if settings.report and not hasattr(config, "workerinput"):
        line = _write_reports(config)
        if line:
            terminalreporter.write_line(line)
    if (settings.out / "traces").is_dir():
        terminalreporter.write_line(f"croupier: traces in {settings.out / 'traces'} "
                                    "(croupier check TRACE re-judges one)")


# ----------------------------------------------------------------------------- collection
def is_scenario_file(path: Path, rootpath: Path, folder_names: list[str] | tuple[str, ...] = ("scenarios",)) -> bool:
    """Whether pytest collects ``path`` as a scenario: a ``*.yaml``/``*.yml`` file one of whose folders
    below ``rootpath`` (all of them, for a file outside it) has one of ``folder_names``."""
    if path.suffix not in SCENARIO_SUFFIXES:
        return False
    try:
        folders = path.parent.relative_to(rootpath).parts
    except ValueError:
        folders = path.parent.parts
    return any(f in folder_names for f in folders)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if is_scenario_file(file_path, config.rootpath, config.getini(SCENARIO_DIRS_INI)):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    """A scenario YAML: one item, loaded and checked as ``croupier run`` loads it."""

    def collect(self) -> Iterator[ScenarioItem]:
        from hil.cli import load_run_inputs
        from hil.config import ConfigError

        s = self.config.stash[_SETTINGS]
        try:
            scenarios, bench, rules, roulette_x = load_run_inputs([self.path], s.bench, s.rules, s.roulette_x_rules,
                                                                  s.max_rounds)
        except ConfigError as exc:
            raise self.CollectError(f"error: {exc}\nnothing of this file was run") from None
        for loaded in scenarios:
            name = loaded.scenario.name
            other = s.names.setdefault(name, loaded.path)
            if other != loaded.path:
                raise self.CollectError(f"error: {loaded.path}: name: duplicate scenario name {name!r} "
                                        f"(also in {other}): each scenario's trace is named by it")
            yield ScenarioItem.from_parent(self, name=name, loaded=loaded, bench=bench, rules=rules,
                                           roulette_x=roulette_x)


# ----------------------------------------------------------------------------- outcomes
def outcome_of(result: dict[str, Any]) -> str:
    """The scenario result's ``outcome`` ("met", "not met", "not decisive", "not applicable"); a result
    written before that field existed is read from ``not_applicable`` and ``expectation_met``."""
    if result.get("outcome"):
        return result["outcome"]
    if result.get("not_applicable"):
        return "not applicable"
    return "met" if result.get("expectation_met") else "not met"


def _expected(result: dict[str, Any], check_id: str) -> str:
    """What the scenario expects of a check: "fail" (``expect.fail``), "pass" (``expect.pass``) or
    "not fail" (any other check)."""
    if check_id in result.get("expected_failures", []):
        return "fail"
    return "pass" if check_id in (result.get("expected_passes") or []) else "not fail"


def _check_line(c: dict[str, Any], expected: str) -> str:
    exp = {"fail": "expected FAIL", "pass": "expected PASS"}.get(expected, "expected no failure")
    return f"{c['id']} [{c['section']}]: {c['verdict']} ({exp}) — {c['summary']}"


def _findings(c: dict[str, Any]) -> list[str]:
    lines = [f"    round {f['round']} seq {f['seq']}: {f['message']}" for f in c["findings"][:FIRST_FINDINGS]]
    more = c.get("findings_total", len(c["findings"])) - len(lines)
    return lines + ([f"    ... {more} more finding(s) in the trace"] if more > 0 else [])


def undecided(result: dict[str, Any]) -> list[str]:
    """Why a NOT DECISIVE scenario is undecided, one line per check it names that came out undecided
    (``undecided`` of the result: ``{"id", "reason"}``), with the check's section."""
    checks = {c["id"]: c for c in result.get("checks", [])}
    lines = []
    for u in result.get("undecided") or []:
        cid, reason = (u.get("id"), u.get("reason", "")) if isinstance(u, dict) else (str(u), "")
        section = checks.get(cid, {}).get("section")
        lines.append(f"{cid}" + (f" [{section}]" if section else "") + (f": {reason}" if reason else ""))
    return lines


def describe(result: dict[str, Any], trace: Path | None) -> str:
    """A scenario NOT MET, in words a lab can act on: which checks, their sections and first findings."""
    checks = {c["id"]: c for c in result.get("checks", [])}
    lines = [f"NOT MET: scenario {result['name']} ({result['file']})"]
    if not (result.get("error") or result.get("unexpected_failures") or result.get("missed_failures")
            or result.get("missed_passes")):
        lines.append("its expectation was not met (see the checks below)")
        lines += ["  " + _check_line(c, _expected(result, c["id"]))
                  for c in result.get("checks", []) if c["verdict"] == "fail"]
    if result.get("error"):
        lines += ["the scenario crashed (its trace is kept):", result["error"].rstrip()]
    for title, ids in (("failed, not expected to", result.get("unexpected_failures", [])),
                       ("expected to FAIL, did not", result.get("missed_failures", [])),
                       ("expected to PASS, no verdict", result.get("missed_passes", []))):
        if ids:
            lines.append(f"{title}: {', '.join(ids)}")
            for i in ids:
                if i in checks:
                    lines.append("  " + _check_line(checks[i], _expected(result, i)))
                    lines += _findings(checks[i])
    if trace is not None:
        lines.append(f"trace: {trace}")
    return "\n".join(lines)


def properties(result: dict[str, Any], trace: Path | None) -> list[tuple[str, str]]:
    """The scenario's JUnit properties: outcome, provenance, and per check its section, verdict,
    expectation and measurements."""
    props = [("outcome", outcome_of(result))]
    for key in ("file", "sha256", "seed"):
        if result.get(key) is not None:
            props.append((key, str(result[key])))
    props.append(("rounds", str((result.get("stats") or {}).get("rounds", result.get("rounds_requested")))))
    props.append(("rounds_requested", str(result.get("rounds_requested"))))
    if result.get("cut_from_rounds"):
        props.append(("cut_from_rounds", str(result["cut_from_rounds"])))
    if trace is not None:
        props.append(("trace", str(trace)))
    props.append(("expected_failures", ", ".join(result.get("expected_failures", []))))
    if result.get("expected_passes"):
        props.append(("expected_passes", ", ".join(result["expected_passes"])))
    if result.get("not_applicable"):
        props.append(("not_applicable", "; ".join(result["not_applicable"])))
    for c in result.get("checks", []):
        props += [(f"check.{c['id']}.section", c["section"]), (f"check.{c['id']}.verdict", c["verdict"]),
                  (f"check.{c['id']}.expected", _expected(result, c["id"]))]
        for m in c.get("measurements", []):
            text = f"{m['value']} {m['unit']}".strip()
            if m.get("bracket"):
                text += f" [{m['bracket'][0]}, {m['bracket'][1]}]"
            if m.get("limit"):
                text += f" (limit {m['limit']})"
            props.append((f"check.{c['id']}.{m['name']}", text))
    return props


def _skip(reason: str) -> None:
    """Skip the running item, reported at the scenario file (``-rs``: ``SKIPPED [1] FILE:1: reason``),
    not at this module's line."""
    try:
        raise pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:  # a pytest without the keyword: the plain skip
        pytest.skip(reason)


class ScenarioNotMet(Exception):
    """An item's scenario did not meet its expectation (or, with ``--croupier-not-decisive fail``,
    was not decisive); the message is the failure text."""


class ScenarioItem(pytest.Item):
    """One scenario, run on the session's bench by ``hil.runner.run_scenario``."""

    def __init__(self, *, loaded: Any, bench: Any, rules: Any, roulette_x: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.loaded, self.bench, self.rules, self.roulette_x = loaded, bench, rules, roulette_x
        self.result: dict[str, Any] | None = None

    def runtest(self) -> None:
        from hil.applicability import BenchRefused
        from hil.runner import run_scenario

        s = self.config.stash[_SETTINGS]
        s.out.mkdir(parents=True, exist_ok=True)
        try:
            result = self.result = run_scenario(self.loaded, self.bench, self.rules, s.out, s.seed, self.roulette_x)
        except BenchRefused as exc:  # the bench cannot run on (croupier run stops there: exit 2)
            self.session.shouldstop = f"croupier: the bench refused: {exc.message}"
            raise ScenarioNotMet(f"BENCH REFUSED ({exc.kind}): {exc.message}\nthe session stops here") from None
        trace = s.out / result["trace"] if result.get("trace") else None
        if s.report:  # for the session's reports, written by the controller at the end
            import orjson

            (s.out / RESULTS_DIR).mkdir(exist_ok=True)
            (s.out / RESULTS_DIR / f"{result['name']}.json").write_bytes(orjson.dumps(result))
        self.user_properties.extend(properties(result, trace))
        outcome = outcome_of(result)
        if outcome == "met":
            return
        if outcome == "not applicable":
            _skip("NOT APPLICABLE on this bench (not run): " + "; ".join(result["not_applicable"]))
        if outcome == "not decisive":
            reason = "NOT DECISIVE (nothing proven either way; run more rounds): " + (
                "; ".join(undecided(result)) or "undecided")
            if s.not_decisive == "skip":
                _skip(reason)
            raise ScenarioNotMet(reason + (f"\ntrace: {trace}" if trace else ""))
        raise ScenarioNotMet(describe(result, trace))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioNotMet):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        sc = self.loaded.scenario
        return self.path, 0, f"scenario {sc.name} ({sc.game}, {sc.rounds} rounds)"


# ----------------------------------------------------------------------------- the fixture
@dataclasses.dataclass(frozen=True)
class ScenarioRun:
    """What ``CroupierBench.run`` gives back: the scenario's result as ``croupier run`` records it in
    report.json (``result``), its ``outcome``, its checks by id and its trace."""

    result: dict[str, Any]
    trace: Path | None

    @property
    def outcome(self) -> str:
        return outcome_of(self.result)

    @property
    def met(self) -> bool:
        return self.outcome == "met"

    @property
    def checks(self) -> dict[str, dict[str, Any]]:
        return {c["id"]: c for c in self.result.get("checks", [])}

    def verdict(self, check_id: str) -> str:
        """The verdict of the check ``check_id`` ("pass", "fail", "indeterminate"); KeyError names the known ids."""
        checks = self.checks
        if check_id not in checks:
            raise KeyError(f"{check_id!r}: not a check of this run (its checks: {', '.join(checks)})")
        return checks[check_id]["verdict"]

    def describe(self) -> str:
        return describe(self.result, self.trace)


@dataclasses.dataclass
class BenchDevices:
    """The bench's devices for one game, built as a run builds them (a SimPy model, or the adapter to
    the real device, connected), on ``env``; ``events`` holds each telemetry record as
    ``(device, kind, payload, env.now)``."""

    env: Any
    devices: Any  # hil.bench.Devices: .wheel, .top_slot, .wagering, ... (None for a role the game lacks)
    params: dict[str, dict[str, Any]]
    events: list[tuple[str, str, dict[str, Any], float]]

    def run(self, event: Any) -> Any:
        """Run the environment until ``event`` (a device's ``simpy.Event``) and give its value."""
        return self.env.run(until=event)


class CroupierBench:
    """The session's bench, as labgrid's ``target``: the bench file (``--croupier-bench``) and the
    Rules Submissions loaded once, and handles to run a scenario, a single round, or to hold the
    bench's devices. Traces go to ``out_dir/fixture/<worker>-<n>-<scenario>/traces``."""

    def __init__(self, bench: Any, rules: Any, roulette_x: Any, out_dir: Path, seed: int | None = None,
                 max_rounds: int | None = None, paths: tuple[Path | None, Path | None, Path | None] = (None,) * 3,
                 worker: str = "main"):
        self.bench, self.rules, self.roulette_x = bench, rules, roulette_x
        self.out_dir, self.seed, self.max_rounds = out_dir, seed, max_rounds
        self._paths = paths
        self._runs = itertools.count(1)
        self.worker = worker

    @property
    def config(self) -> Any:
        """The bench's ``hil.bench.BenchConfig`` (``.devices``, ``.real_time``, ``.name``)."""
        return self.bench.config

    @property
    def real_time(self) -> bool:
        return bool(self.bench.config.real_time)

    def scenario(self, path: str | Path) -> Any:
        """A scenario file loaded and checked against this bench as ``croupier run`` does
        (``hil.cli.load_run_inputs``); ConfigError (file, line, field) for a bad one."""
        from hil.cli import load_run_inputs

        bench, rules, rx = self._paths
        return load_run_inputs([Path(path)], bench, rules, rx, self.max_rounds)[0][0]

    def run(self, scenario: Any, *, rounds: int | None = None, seed: int | None = None) -> ScenarioRun:
        """Run a scenario (a path or a loaded scenario) on the bench, as one item of ``pytest scenarios/``
        runs (``hil.runner.run_scenario``), ``rounds`` capped; ``seed`` derives its seed (as --seed)."""
        from hil.runner import run_scenario

        loaded = scenario if hasattr(scenario, "scenario") else self.scenario(scenario)
        if rounds is not None:
            if rounds < 1:
                raise ValueError(f"rounds: must be >= 1, not {rounds}")
            cut = {"cut_from_rounds": loaded.scenario.rounds} if (
                rounds < loaded.scenario.rounds and hasattr(loaded, "cut_from_rounds")) else {}
            # a cut run, as --max-rounds cuts it: an expected FAIL not seen yet is NOT DECISIVE, not NOT MET
            loaded = dataclasses.replace(loaded, scenario=loaded.scenario.model_copy(update={"rounds": rounds}), **cut)
        out = self._new_run_dir(loaded.scenario.name)
        result = run_scenario(loaded, self.bench, self.rules, out, self.seed if seed is None else seed, self.roulette_x)
        return ScenarioRun(result, out / result["trace"] if result.get("trace") else None)

    def _new_run_dir(self, name: str) -> Path:
        """``out_dir/fixture/<worker>-<n>-<name>``, a folder no run had: never a trace written over
        (an out folder given again, two xdist workers)."""
        (self.out_dir / "fixture").mkdir(parents=True, exist_ok=True)
        while True:
            out = self.out_dir / "fixture" / f"{self.worker}-{next(self._runs):03d}-{name}"
            try:
                out.mkdir()
                return out
            except FileExistsError:
                continue

    def round(self, scenario: Any, *, seed: int | None = None) -> ScenarioRun:
        """A single round of the scenario, checked (statistical checks stay indeterminate)."""
        return self.run(scenario, rounds=1, seed=seed)

    @contextlib.contextmanager
    def devices(self, game: str = "crazy-time", *, scenario: Any = None, seed: int = 0) -> Iterator[BenchDevices]:
        """The bench's devices for ``game`` (or ``scenario``'s game, with its device overrides and fault
        knobs), built and connected as a run builds them, closed on exit. A real device that cannot
        be reached raises ``hil.applicability.BenchRefused`` naming it."""
        import numpy as np
        import simpy

        from hil.bench import GAME_ROLES, build_devices
        from hil.clock import WallClockEnvironment
        from hil.transport.ioloop import IoLoop

        overrides: dict[str, dict[str, Any]] = {}
        if scenario is not None:
            loaded = scenario if hasattr(scenario, "scenario") else self.scenario(scenario)
            game, overrides = loaded.scenario.game, loaded.scenario.device_overrides()
        if game not in GAME_ROLES:
            raise ValueError(f"game: one of {', '.join(GAME_ROLES)}, not {game!r}")
        cfg = self.bench.config
        env = WallClockEnvironment(cfg.time_scale) if cfg.real_time else simpy.Environment()
        events: list[tuple[str, str, dict[str, Any], float]] = []
        io = IoLoop() if cfg.real_time else None
        try:
            built = build_devices(env, self.bench, overrides, self.rules.submission, np.random.SeedSequence(seed),
                                  lambda d, k, p: events.append((d, k, p, env.now)), io, roles=GAME_ROLES[game],
                                  roulette_x=self.roulette_x.submission)
            try:
                yield BenchDevices(env, built.devices, built.params, events)
            finally:
                built.close()
        finally:
            if io is not None:
                io.close()


@pytest.fixture(scope="session")
def croupier_bench(pytestconfig: pytest.Config) -> CroupierBench:
    """The session's bench (``--croupier-bench``, default the embedded simulated one) with the Rules
    Submissions (``--croupier-rules``, ``--croupier-roulette-x-rules``): docs/pytest.md."""
    from hil.bench import load_bench
    from hil.config import ConfigError
    from hil.runner import load_roulette_x_rules, load_rules

    s = pytestconfig.stash[_SETTINGS]
    try:
        bench, rules, rx = load_bench(s.bench), load_rules(s.rules), load_roulette_x_rules(s.roulette_x_rules)
    except ConfigError as exc:
        pytest.fail(f"croupier_bench: {exc}", pytrace=False)
    worker = (getattr(pytestconfig, "workerinput", None) or {}).get("workerid", "main")
    return CroupierBench(bench, rules, rx, s.out, s.seed, s.max_rounds, (s.bench, s.rules, s.roulette_x_rules),
                         worker)
