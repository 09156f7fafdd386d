"""A kill -9 campaign (issue 11): the rig killed with SIGKILL at random instants, then resumed
in place, loses no round, doubles none, never keeps a state ahead of its trace, and leaves every
trace intact.

A campaign is a healthy Roulette table (double zero, Roulette X, Roulette Up streaks: the streak
tracker and the progressive meter are its durable state) and a healthy Blackjack table (21+3
progressive through the progressive table game system: the meters are its durable state),
thousands of rounds each, in one ``croupier run --out D``. The run is killed with SIGKILL at an
instant drawn (seeded) uniformly between 0.8 s after its start (the interpreter's imports) and
its expected length (a second longer after each kill that found nothing new committed: a slow
start on a loaded machine), then ``croupier run --resume --out D`` goes on; again and again until
a run outlives its kill instant, or every round is committed (the run that then only re-checks
is let finish), or the suite has had its kills (the next run is let finish). The kill lands
wherever it lands: inside a round's SQLite transaction, between rounds, before the first round,
in the checks at the end, while the report is written.

After every kill (on a copy of the trace as the kill left it: database and WAL, as the resumed
run will find it) and at the end (on the trace itself):

* ``PRAGMA integrity_check`` is ``ok``;
* the committed ``croupier/round_end`` events are rounds 1..M, each exactly once (0 lost,
  0 doubled); at the end M is the scenario's ``rounds``;
* the highest round with a committed table state is M (0 state-ahead-of-trace; never behind either: a state behind
  its trace would replay a round);
* every resumed run that found a scenario part-played recorded ``croupier/resumed`` from that
  round, and the trace is the same file throughout (round 1's events are the first run's).

The final run exits 0 and its report shows both scenarios met with no check failing — the
Blackjack meter accounting across resumes (a meter restarting at its seed after a resume fails
it) and the Roulette Up streak and meter checks passing outright.

A whole rig crashing is the model: ``croupier run`` starts in its own session and the kill is
sent to that process group (its pid), so a worker process (``--jobs 2``) dies with it, as on a
power loss. The default suite runs campaigns until at least 5 kills, 3 of them with a scenario
part-played; the slow suite until at least 50 (25), alternating one and two worker processes.
The figures are printed (``-s``).

``test_kill9_between_commits`` kills at the instants a random kill almost never hits (two
commits microseconds apart in simulation): after the set-up's commit, after the commit that makes
a resumed run's ``croupier/resumed`` durable, after the last round before the run's end.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from hil.trace import TraceReader

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "roulette": ROOT / "scenarios" / "roulette" / "roulette_normal_play.yaml",
    "blackjack": ROOT / "scenarios" / "blackjack" / "blackjack_normal_play.yaml",
}
#: the checks that carry durable state across a resume: each must pass outright (not indeterminate)
STATEFUL_CHECKS = {"roulette": ("RU-617b.4g", "RU-617b.4h2"), "blackjack": ("BJ-meter-accounting",)}
#: earliest kill after a run's start: the interpreter's imports (~0.9 s here)
KILL_FROM_S = 0.8
#: for drawing kill instants only (never asserted): a run's start, its wall rate on a shared
#: 2-core machine, the checks and the report at its end
STARTUP_S, ROUNDS_PER_S, CHECKS_S = 0.9, 1000.0, 1.5
#: added to the next kill instant's range after each kill that found no new round committed
STALL_STEP_S = 1.0
#: a campaign whose runs never finish is a resume that makes no progress
MAX_RUNS_PER_CAMPAIGN = 60
FINAL_RUN_WAIT_S = 300.0


def _env() -> dict[str, str]:
    """The runs import this tree's packages (the test's), one BLAS thread each."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1"}


def _croupier() -> list[str]:
    exe = Path(sys.executable).with_name("croupier")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from hil.cli import main; main()"]


@dataclass
class TraceView:
    """What a trace file holds, as far as the campaign's invariants go."""

    integrity: list[str]
    has_events: bool  # False: killed while the file was being created
    round_ends: dict[int, int]  # round -> committed round_end events
    round_starts_doubled: int
    state_max: int
    resumed: list[dict]
    first_round_end: tuple[int, int] | None  # (seq, wall_ns) of round 1's round_end

    @property
    def committed(self) -> int:
        return max(self.round_ends, default=0)

    def lost(self, upto: int) -> list[int]:
        return [r for r in range(1, upto + 1) if r not in self.round_ends]

    def doubled(self) -> list[int]:
        return sorted(r for r, n in self.round_ends.items() if n > 1)


def inspect_trace(path: Path) -> TraceView | None:
    """The trace at ``path`` (None if there is none yet). Opens it read-write first, as a resumed run
    does (a WAL left by a kill is recovered), for SQLite's integrity check; reads it with TraceReader."""
    if not path.exists():
        return None
    db = sqlite3.connect(path, timeout=5.0)
    try:
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check")]
    finally:
        db.close()
    with TraceReader(path) as reader:
        if reader.schema == 0:  # killed while the file was being created
            return TraceView(integrity, False, {}, 0, 0, [], None)
        events = list(reader.events())
        states = [rnd for rnd, _ in reader.states()]
    round_ends: dict[int, int] = {}
    round_starts: dict[int, int] = {}
    for e in events:
        if e.device == "croupier" and e.kind == "round_end":
            round_ends[e.round] = round_ends.get(e.round, 0) + 1
        elif e.device == "croupier" and e.kind == "round_start":
            round_starts[e.round] = round_starts.get(e.round, 0) + 1
    starts_doubled = sum(1 for n in round_starts.values() if n > 1)
    resumed = [e.payload for e in events if e.device == "croupier" and e.kind == "resumed"]
    first = next(((e.seq, e.wall_ns) for e in events
                  if e.device == "croupier" and e.kind == "round_end" and e.round == 1), None)
    return TraceView(integrity, True, round_ends, starts_doubled, max(states, default=0), resumed, first)


def inspect_as_left(path: Path, scratch: Path) -> TraceView | None:
    """``inspect_trace`` on a copy of the trace as a kill left it (database and WAL; the
    shared-memory index is rebuilt from them), so the resumed run finds the file untouched."""
    if not path.exists():
        return None
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    copy = scratch / path.name
    shutil.copy2(path, copy)
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        shutil.copy2(wal, copy.with_name(copy.name + "-wal"))
    return inspect_trace(copy)


@dataclass
class Figures:
    campaigns: int = 0
    kills: int = 0
    runs: int = 0
    resumes: int = 0  # runs with --resume
    resumed_events: int = 0  # croupier/resumed recorded in the traces
    rounds: int = 0  # rounds in the finished traces
    lost: int = 0
    doubled: int = 0
    state_ahead: int = 0
    state_behind: int = 0
    round_starts_doubled: int = 0
    integrity_failures: int = 0
    kills_mid_scenario: int = 0  # kills that left a scenario part-played (rounds committed, not all)
    kills_before_rounds: int = 0  # kills that left no round committed (start-up, set-up)
    kills_after_rounds: int = 0  # kills after every round was committed (the checks, the report)
    wall_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.campaigns} campaign(s), {self.kills} kills ({self.kills_mid_scenario} with a scenario "
                f"part-played, {self.kills_before_rounds} before its first round, {self.kills_after_rounds} after "
                "its last), "
                f"{self.runs} runs ({self.resumes} resumes, {self.resumed_events} croupier/resumed), "
                f"{self.rounds} rounds; lost {self.lost}, doubled {self.doubled}, state ahead {self.state_ahead}, "
                f"state behind {self.state_behind}, round_start doubled {self.round_starts_doubled}, "
                f"integrity failures {self.integrity_failures}; {self.wall_s:.1f} s wall")


def _write_scenarios(where: Path, rounds: int) -> dict[str, tuple[str, Path]]:
    """game -> (scenario name, file): the shipped normal-play scenarios with ``rounds`` rounds."""
    where.mkdir(parents=True)
    out = {}
    for game, src in SOURCES.items():
        doc = yaml.safe_load(src.read_text(encoding="utf-8"))
        doc["rounds"] = rounds
        doc["name"] = f"kill9-{doc['name']}"
        # each resume draws fresh streams (where the kill fell decides them): a χ² test at the
        # shipped 1 % would fail one campaign in a hundred by chance; this test is about the trace
        doc.setdefault("checks", {})["chi2_alpha"] = 1e-6
        # fewer rounds than the χ² tests it exists to decide need (expect.pass): judged on what it fails
        doc.get("expect", {}).pop("pass", None)
        path = where / f"{doc['name']}.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        out[game] = (doc["name"], path)
    return out


def _check_invariants(fig: Figures, when: str, views: dict[str, TraceView | None], rounds: int,
                      final: bool) -> None:
    for game, v in views.items():
        if v is None:
            if final:
                fig.violations.append(f"{when}: {game}: no trace")
            continue
        if v.integrity != ["ok"]:
            fig.integrity_failures += 1
            fig.violations.append(f"{when}: {game}: integrity_check {v.integrity[:5]}")
        upto = rounds if final else v.committed
        lost, doubled = v.lost(upto), v.doubled()
        if lost:
            fig.lost += len(lost)
            fig.violations.append(f"{when}: {game}: {len(lost)} round(s) lost of 1..{upto}: {lost[:10]}")
        if doubled:
            fig.doubled += len(doubled)
            fig.violations.append(f"{when}: {game}: {len(doubled)} round(s) with more than one round_end: "
                                  f"{doubled[:10]}")
        if v.committed > rounds:
            fig.violations.append(f"{when}: {game}: round_end of round {v.committed} > the scenario's {rounds}")
        if v.state_max > v.committed:
            fig.state_ahead += 1
            fig.violations.append(f"{when}: {game}: state of round {v.state_max} ahead of the last committed "
                                  f"round_end {v.committed}")
        elif v.state_max < v.committed:
            fig.state_behind += 1
            fig.violations.append(f"{when}: {game}: state of round {v.state_max} behind the last committed "
                                  f"round_end {v.committed}")
        if final and v.round_starts_doubled:
            fig.round_starts_doubled += v.round_starts_doubled
            fig.violations.append(f"{when}: {game}: {v.round_starts_doubled} round(s) with more than one "
                                  "committed round_start")


def _resumed_from(events: list[dict], seen: list[int], game: str) -> list[str]:
    """The ``croupier/resumed`` events against the last committed rounds the resumed runs found
    (``seen``, in run order; 0: a trace with its set-up only). A resumed run killed before its
    first commit leaves no event, but the scenario was finished, so some run went on from every
    part-played round it was left at: each such round (> 0) appears as ``from_round`` (the last
    committed round, or the one after it: one convention throughout), no other round does, and in
    order."""
    got = [e.get("from_round") for e in events]
    must = {o for o in seen if o > 0}
    for offset in (0, 1):
        found = [g - offset for g in got if isinstance(g, int)]
        if len(found) == len(got) and must <= set(found) <= set(seen) and found == sorted(found):
            return []
    return [f"{game}: croupier/resumed from_round {got}; the resumed runs found rounds {sorted(set(seen))} "
            "committed"]


def run_campaign(tmp: Path, rounds: int, jobs: int, rng: random.Random, fig: Figures,
                 enough: Callable[[], bool] = lambda: False) -> None:
    """One campaign in ``tmp``: kill -9 and resume until a run outlives its kill instant (or
    ``enough()`` kills were had: the next run is let finish)."""
    fig.campaigns += 1
    files = _write_scenarios(tmp / "scenarios", rounds)
    out = tmp / "out"
    traces = {game: out / "traces" / f"{name}.sqlite" for game, (name, _) in files.items()}
    base = [*_croupier(), "run", *(str(p) for _, p in files.values()), "--out", str(out), "--jobs", str(jobs)]
    seen: dict[str, list[int]] = {game: [] for game in files}  # last committed round found by each resume
    first_round: dict[str, tuple[int, int]] = {}
    committed = dict.fromkeys(files, 0)
    final_rc = output = None
    stall_s, last_progress = 0.0, 0
    broken = False  # a contract broken after a kill: one last run, not killed, for its report
    for attempt in range(MAX_RUNS_PER_CAMPAIGN + 1):
        resume = attempt > 0
        if resume:
            fig.resumes += 1
        left = [rounds - committed[g] for g in files]
        expected_s = STARTUP_S + (max(left) if jobs > 1 else sum(left)) / ROUNDS_PER_S + CHECKS_S + stall_s
        kill_at = rng.uniform(KILL_FROM_S, max(expected_s, KILL_FROM_S + 0.1))
        # after a broken contract, or once every round is committed (the kills in the checks
        # have been had: a run that only re-checks is not killed again and again), the run ends
        last_try = (broken or enough() or attempt == MAX_RUNS_PER_CAMPAIGN
                    or (attempt > 0 and min(committed.values()) >= rounds))
        log = tempfile.TemporaryFile()  # not a pipe: the run's output must never block it
        fig.runs += 1
        proc = subprocess.Popen([*base, *(["--resume"] if resume else [])], stdout=log, stderr=subprocess.STDOUT,
                                cwd=tmp, env=_env(), start_new_session=True)
        try:
            try:
                final_rc = proc.wait(timeout=FINAL_RUN_WAIT_S if last_try else kill_at)
            except subprocess.TimeoutExpired:
                if last_try:
                    pytest.fail(f"campaign {fig.campaigns}: the run let finish did not within {FINAL_RUN_WAIT_S} s")
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the run's own process group: its pid
                except ProcessLookupError:
                    pass
                rc = proc.wait(timeout=30)
                if rc != -signal.SIGKILL:  # it ended on its own in the instant before the kill
                    final_rc = rc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            log.seek(0)
            output = log.read().decode(errors="replace")
            log.close()
        if final_rc is not None:
            break
        fig.kills += 1
        when = f"campaign {fig.campaigns} kill {fig.kills} ({kill_at:.2f} s into run {attempt + 1})"
        views = {g: inspect_as_left(p, tmp / "as-left") for g, p in traces.items()}
        before = len(fig.violations)
        _check_invariants(fig, when, views, rounds, final=False)
        broken = len(fig.violations) > before
        committed = {g: (v.committed if v is not None else 0) for g, v in views.items()}
        for g, v in views.items():
            if v is not None and v.has_events and v.committed < rounds:
                seen[g].append(v.committed)  # the next run (a resume) finds this scenario part-played
        if any(0 < c < rounds for c in committed.values()):
            fig.kills_mid_scenario += 1
        elif all(c == 0 for c in committed.values()):
            fig.kills_before_rounds += 1
        else:
            fig.kills_after_rounds += 1
        # a killed run that committed nothing more (a slow start on a loaded machine, or the
        # checks at the end): the next kill instant may come later, so the campaign ends
        progress = sum(committed.values())
        stall_s = 0.0 if progress > last_progress else stall_s + STALL_STEP_S
        last_progress = progress
        for g, v in views.items():
            if v is not None and v.first_round_end is not None:
                first_round.setdefault(g, v.first_round_end)
    else:
        pytest.fail(f"campaign {fig.campaigns}: no run finished in {MAX_RUNS_PER_CAMPAIGN + 1} runs")
    # the finished campaign: the traces themselves, and the last run's report
    views = {g: inspect_trace(p) for g, p in traces.items()}
    _check_invariants(fig, f"campaign {fig.campaigns} end", views, rounds, final=True)
    for g, v in views.items():
        if v is None:
            continue
        fig.rounds += v.committed
        fig.resumed_events += len(v.resumed)
        fig.violations += [f"campaign {fig.campaigns} end: {m}" for m in _resumed_from(v.resumed, seen[g], g)]
        if g in first_round and v.first_round_end != first_round[g]:
            fig.violations.append(f"campaign {fig.campaigns} end: {g}: round 1's round_end is now "
                                  f"{v.first_round_end}, was {first_round[g]}: the trace was rewritten, "
                                  "not resumed in place")
    if final_rc != 0:
        fig.violations.append(f"campaign {fig.campaigns}: the final run exited {final_rc} (want 0)\n"
                              f"{output[-3000:]}")
    report_path = out / "report.json"
    if not report_path.exists():
        fig.violations.append(f"campaign {fig.campaigns}: no report.json after the final run")
        return
    report = json.loads(report_path.read_text())
    results = report["scenarios"] if isinstance(report, dict) else report
    by_name = {r["name"]: r for r in results}
    for game, (name, _) in files.items():
        r = by_name.get(name)
        if r is None:
            fig.violations.append(f"campaign {fig.campaigns}: {name} missing from report.json")
            continue
        failed = [(c["id"], c["summary"]) for c in r["checks"] if c["verdict"] == "fail"]
        if not r["expectation_met"] or failed or r.get("error"):
            fig.violations.append(f"campaign {fig.campaigns}: {name}: expectation_met {r['expectation_met']}, "
                                  f"failing checks {failed}, error {(r.get('error') or '')[-1500:]}")
        verdicts = {c["id"]: c["verdict"] for c in r["checks"]}
        for prefix in STATEFUL_CHECKS[game]:
            got = {cid: v for cid, v in verdicts.items() if cid.startswith(prefix)}
            if not got or any(v != "pass" for v in got.values()):
                fig.violations.append(f"campaign {fig.campaigns}: {name}: {prefix}* verdicts {got or 'absent'} "
                                      "(want pass)")


def kill9_campaigns(tmp_path: Path, *, kills: int, mid_scenario: int, rounds: int, jobs: list[int],
                    seed: int) -> Figures:
    """Campaigns until ``kills`` kills, ``mid_scenario`` of them with a scenario part-played."""
    rng = random.Random(seed)
    fig = Figures()
    t0 = time.perf_counter()
    def enough() -> bool:
        return fig.kills >= kills and fig.kills_mid_scenario >= mid_scenario

    while not enough():
        run_campaign(tmp_path / f"campaign-{fig.campaigns + 1}", rounds, jobs[fig.campaigns % len(jobs)], rng, fig,
                     enough)
        if fig.violations:
            break  # a contract broken: report it with the figures so far
    fig.wall_s = time.perf_counter() - t0
    print(f"\nkill -9 campaign ({rounds} rounds per scenario, {' + '.join(SOURCES)}): {fig.line()}")
    return fig


def _assert_clean(fig: Figures, kills: int, mid_scenario: int) -> None:
    assert not fig.violations, f"{fig.line()}\n" + "\n".join(fig.violations[:30])
    assert (fig.lost, fig.doubled, fig.state_ahead, fig.integrity_failures) == (0, 0, 0, 0), fig.line()
    assert fig.kills >= kills and fig.kills_mid_scenario >= mid_scenario, fig.line()


@pytest.mark.timeout(300)
def test_kill9_campaign(tmp_path):
    # three kills, two of them mid-scenario (the fifty-kill soak below is the volume run): the suite
    # stays within its 10 minutes on 2 cores
    fig = kill9_campaigns(tmp_path, kills=3, mid_scenario=2, rounds=2000, jobs=[2], seed=20261201)
    _assert_clean(fig, 3, 2)


#: the fifty-kill soak (about 3.5 min of one core): the soak tier, opt-in like a lab's overnight soak,
#: so that the full suite stays within its 10 minutes on 2 cores — ``make soak`` (CROUPIER_SOAK=1)
@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.timeout(3600)
def test_kill9_campaign_fifty_kills(tmp_path):
    # the kill instants are seeded, the run's pace is the machine's: about half land mid-scenario
    fig = kill9_campaigns(tmp_path, kills=50, mid_scenario=20, rounds=2000, jobs=[2, 1], seed=611)
    _assert_clean(fig, 50, 20)


# ---------------------------------------------------------------------------------------------
# The instants a random kill almost never hits: between two commits a few microseconds apart in
# simulation (and a whole round apart on a real-time bench). The run kills itself with SIGKILL
# right after the named record is durable: a ``sitecustomize`` in the run's PYTHONPATH wraps
# ``TraceWriter.commit`` and, after each, reads what the trace file newly holds (a second
# read-only connection), so a commit that writes nothing is no instant; nothing in the rig changes.

_KILL_AT_COMMIT = """
import os, signal
_at = os.environ.get("CROUPIER_TEST_KILL9_AT")
if _at:
    import hil.trace as _trace
    _commit = _trace.TraceWriter.commit
    _what, _, _n = _at.partition(":")

    def _durable_since(path, seq):
        with _trace.TraceReader(path) as r:
            return [(e.seq, e.round, e.device, e.kind) for e in r.events(since_seq=seq)]

    def commit(self, *args, **kwargs):
        if "_k9_seq" not in self.__dict__:  # what the trace held before this run's first commit
            with _trace.TraceReader(self.path) as r:
                self._k9_seq = r.last_seq()
        _commit(self, *args, **kwargs)
        new = _durable_since(self.path, self._k9_seq)
        if not new:
            return
        self._k9_seq = new[-1][0]
        if (_what == "setup" and any(r[1] == 0 for r in new)
                or _what == "resumed" and any(r[2:] == ("croupier", "resumed") for r in new)
                or _what == "round" and any(r[1:] == (int(_n), "croupier", "round_end") for r in new)):
            os.kill(os.getpid(), signal.SIGKILL)

    _trace.TraceWriter.commit = commit
"""

INSTANT_ROUNDS = 120


def _run_killed_at(tmp: Path, scenario: Path, out: Path, at: str | None, resume: bool) -> tuple[int, str]:
    inject = tmp / "inject"
    inject.mkdir(exist_ok=True)
    (inject / "sitecustomize.py").write_text(_KILL_AT_COMMIT, encoding="utf-8")
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(inject), env["PYTHONPATH"]])
    if at:
        env["CROUPIER_TEST_KILL9_AT"] = at
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([*_croupier(), "run", str(scenario), "--out", str(out), "--jobs", "1",
                             *(["--resume"] if resume else [])], stdout=log, stderr=subprocess.STDOUT,
                            cwd=tmp, env=env, start_new_session=True)
    try:
        rc = proc.wait(timeout=FINAL_RUN_WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.seek(0)
        output = log.read().decode(errors="replace")
        log.close()
    return rc, output


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game", list(SOURCES))
@pytest.mark.parametrize("kills", [
    # killed after the set-up's commit, before round 1
    ["setup"],
    # killed mid-run, then again right after the resumed run's croupier/resumed is durable (alone,
    # or with the resumed run's first round)
    [f"round:{INSTANT_ROUNDS // 3}", "resumed"],
    # killed after the last round's commit, before the run's end is recorded
    [f"round:{INSTANT_ROUNDS}"],
], ids=["after-setup", "after-resumed", "after-last-round"])
def test_kill9_between_commits(tmp_path, game, kills):
    files = _write_scenarios(tmp_path / "scenarios", INSTANT_ROUNDS)
    name, scenario = files[game]
    out = tmp_path / "out"
    trace = out / "traces" / f"{name}.sqlite"
    fig = Figures(campaigns=1)
    for i, at in enumerate(kills):
        rc, output = _run_killed_at(tmp_path, scenario, out, at, resume=i > 0)
        fig.runs += 1
        assert rc == -signal.SIGKILL, f"run {i + 1} (kill at {at}) exited {rc}, not killed\n{output[-3000:]}"
        fig.kills += 1
        _check_invariants(fig, f"kill {i + 1} at {at}", {game: inspect_trace(trace)}, INSTANT_ROUNDS, final=False)
    rc, output = _run_killed_at(tmp_path, scenario, out, None, resume=True)
    fig.runs += 1
    fig.resumes = fig.runs - 1
    view = inspect_trace(trace)
    _check_invariants(fig, "end", {game: view}, INSTANT_ROUNDS, final=True)
    result = {r["name"]: r for r in json.loads((out / "report.json").read_text())["scenarios"]}[name]
    failed = [(c["id"], c["summary"]) for c in result["checks"] if c["verdict"] == "fail"]
    print(f"\n{game}, killed at {kills}: final resume exit {rc}; {view.committed if view else 0} rounds, "
          f"croupier/resumed from {[e.get('from_round') for e in (view.resumed if view else [])]}; "
          f"expectation_met {result['expectation_met']}, failing {failed}, "
          f"error {(result.get('error') or 'none').strip().splitlines()[-1]}")
    assert not fig.violations, "\n".join(fig.violations)
    assert rc == 0 and result["expectation_met"] and not failed, (rc, failed, result.get("error"), output[-3000:])
