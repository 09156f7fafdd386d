"""Progress and logging of ``croupier run`` (hil/progress.py, hil/logs.py): the plain progress
lines off a terminal, the JSON log file, ``-q``, the live counts against the results, and stdout
kept clean for what reads it (the summary table, ``check``'s JSON).

Tiny runs: two scenarios of a few rounds, in-process (``--jobs 1``) except where the worker
processes' path (progress and log records through the queue) is what is tested."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil import logs
from hil.cli import app, load_run_inputs
from hil.progress import PlainProgress, ScenarioProgress, SuiteProgress, TraceObserver, outcome_of
from hil.runner import run_suite

SUITE = Path(__file__).resolve().parents[2] / "scenarios"
TWO = [str(SUITE / "crazy_time" / "normal_play.yaml"), str(SUITE / "roulette" / "roulette_normal_play.yaml")]
ROUNDS = 4


@pytest.fixture(autouse=True)
def _logging_reset():
    yield
    logs.reset()  # a run's handlers never outlive its test


def _run(tmp_path: Path, *extra: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(app, ["run", *TWO, "--max-rounds", str(ROUNDS), "--out", str(tmp_path / "out"),
                                           *extra])


def _outcomes(out: Path) -> dict[str, str]:
    report = json.loads((out / "report.json").read_text())
    return {s["name"]: outcome_of(s) for s in report["scenarios"]}


def test_plain_progress_lines_off_a_terminal_and_log_file(tmp_path):
    """Off a terminal (CliRunner's stderr is no tty) a plain line every interval, on stderr only;
    the log file is JSON lines with each scenario's start and finish (its outcome, as the report
    says) and, at -vv, each of its rounds. Two worker processes: all of it crosses the queue."""
    log_file = tmp_path / "logs" / "run.jsonl"
    result = _run(tmp_path, "-vv", "--log-file", str(log_file), "--jobs", "2",
                  env={"CROUPIER_PROGRESS_INTERVAL_S": "0.01", "CROUPIER_PROGRESS": ""})
    assert result.exit_code in (0, 3), result.output
    progress = [line for line in result.stderr.splitlines() if line.startswith("progress ")]
    assert progress, result.stderr
    assert "scenarios " in progress[0] and "rounds/s" in progress[0] and "ETA" in progress[0]
    assert not any(line.startswith("progress ") for line in result.stdout.splitlines())
    assert "scenario verdicts" in result.stdout  # the table stays on stdout

    records = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    outcomes = _outcomes(tmp_path / "out")
    started = {r["scenario"] for r in records if r["message"] == "scenario started"}
    finished = {r["scenario"]: r["outcome"] for r in records if r["message"] == "scenario finished"}
    assert started == set(outcomes) and finished == outcomes
    rounds = [(r["scenario"], r["round"]) for r in records if r["message"] == "round"]
    assert sorted(rounds) == sorted((name, n) for name in outcomes for n in range(1, ROUNDS + 1))
    assert all(isinstance(r["void"], bool) and r["logger"] == "croupier.run" for r in records if r["message"] == "round")


def test_quiet_prints_one_line_and_no_progress(tmp_path):
    result = _run(tmp_path, "-q", "--jobs", "1", env={"CROUPIER_PROGRESS_INTERVAL_S": "0.01", "CROUPIER_PROGRESS": ""})
    assert result.exit_code in (0, 3), result.output
    assert result.stderr == ""  # no progress, no info; errors only
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and "scenario verdicts" not in result.stdout
    outcomes = list(_outcomes(tmp_path / "out").values())
    assert lines[0].startswith(f"{outcomes.count('met')}/2 met, {outcomes.count('not met')} not met, "
                               f"{outcomes.count('not decisive')} not decisive")
    assert lines[0].endswith("report.json")


def test_live_bars_never_on_stdout_and_check_json_stays_clean(tmp_path):
    """Forced live bars go to stderr; stdout has the table only. ``check --json``-like output (check
    prints one JSON document) parses whole with -v logging on."""
    result = _run(tmp_path, "--jobs", "1", "-v", env={"CROUPIER_PROGRESS": "live"})
    assert result.exit_code in (0, 3), result.output
    assert "rounds/s" not in result.stdout and "scenarios 2/2" not in result.stdout
    assert "rounds/s" in result.stderr and "scenario finished" in result.stderr
    trace = tmp_path / "out" / "traces" / "normal-play.sqlite"
    checked = CliRunner().invoke(app, ["check", str(trace), "-v", "--log-file", str(tmp_path / "check.jsonl")])
    assert checked.exit_code in (0, 3), checked.output
    assert json.loads(checked.stdout)["scenario"] == "normal-play"


def test_progress_counts_match_the_results(tmp_path):
    """The live counts and rounds (in-process and through the worker queue) end equal to the results."""
    scenarios, bench, rules, rx = load_run_inputs([Path(p) for p in TWO], None, None, None, ROUNDS)
    for jobs in (1, 2):
        progress = SuiteProgress.for_suite([(s.scenario.name, s.scenario.rounds) for s in scenarios])
        results = run_suite(scenarios, bench, rules, tmp_path / f"out{jobs}", jobs=jobs, roulette_x=rx,
                            progress=progress)
        progress.close()
        want = {o: [outcome_of(r) for r in results].count(o) for o in progress.counts}
        assert progress.counts == want
        assert [(s.done, s.finished) for s in progress.scenarios] == [(ROUNDS, True)] * len(scenarios)
        assert progress.rounds_completed == progress.total_rounds == ROUNDS * len(scenarios)


def test_plain_line_says_rate_eta_and_the_running_scenarios():
    """A slow real-time scenario (a round every 40 s): rounds/s, s/round and its ETA in the line."""
    now = [0.0]
    progress = PlainProgress([ScenarioProgress("wheel-push", 1000), ScenarioProgress("void-spins", 10)],
                             interval_s=3600, stream=io.StringIO(), clock=lambda: now[0])
    progress.rounds_done(0, 0)
    now[0] = 400.0
    progress.rounds_done(0, 10, void=1)
    progress.scenario_finished(1, {"outcome": "not decisive"})
    line = progress.line()
    progress.close()
    assert "scenarios 1/2 (met 0 · not met 0 · not decisive 1)" in line
    assert "wheel-push 10/1000 (0.025 rounds/s (40.0 s/round), ETA 11:00:00, 1 void)" in line


def test_observer_reports_committed_rounds_throttled(tmp_path):
    """Rounds are reported when committed, at most every ``every_s`` (and at flush), counting voids."""
    from hil.trace import TraceReader, TraceWriter

    now, sent = [0.0], []
    w = TraceWriter(tmp_path / "t.sqlite", {})
    obs = TraceObserver(w, "s", lambda done, void: sent.append((done, void)), every_s=1.0, clock=lambda: now[0])
    obs.start(0)
    for n in range(1, 6):
        w.round = n
        w.record("croupier", "round_end", {"round": n, "void": n == 3})
        assert sent[-1][0] < n  # recorded, not yet committed: not reported
        now[0] += 0.4
        w.commit(round_end=True)
    obs.flush()
    w.close()
    with TraceReader(tmp_path / "t.sqlite") as r:
        assert [(e.device, e.kind, e.payload) for e in r.events()][-1] == \
            ("croupier", "round_end", {"round": 5, "void": False})  # recorded as given
    assert sent == [(0, 0), (3, 1), (5, 1)]


def test_observer_reports_a_groups_rounds_once_they_are_written(tmp_path):
    """In a group (``TraceWriter.group``) a round is reported once its transaction is written, never
    while its record waits."""
    from hil.trace import TraceWriter

    sent = []
    w = TraceWriter(tmp_path / "t.sqlite", {})
    w.group(3, 3600.0)
    obs = TraceObserver(w, "s", lambda done, void: sent.append((done, void)), every_s=0.0)
    obs.start(0)
    for n in range(1, 5):
        w.round = n
        w.record("croupier", "round_end", {"round": n, "void": n == 2})
        w.commit(round_end=True)
    assert sent == [(0, 0), (3, 1)]
    w.close()
    obs.flush()
    assert sent == [(0, 0), (3, 1), (4, 1)]


def test_bad_logging_options_are_bad_input(tmp_path):
    runner = CliRunner()
    both = runner.invoke(app, ["run", *TWO, "-q", "-v", "--out", str(tmp_path / "o")])
    assert both.exit_code == 2 and "-q or -v" in both.stderr
    (tmp_path / "dir").mkdir()
    bad = runner.invoke(app, ["run", *TWO, "--log-file", str(tmp_path / "dir"), "--out", str(tmp_path / "o")])
    assert bad.exit_code == 2 and "--log-file" in bad.stderr and "Traceback" not in bad.output


def test_log_lines_human_on_stderr_json_in_file(tmp_path, capsys):
    logs.configure(1, tmp_path / "l.jsonl")
    logging.getLogger("croupier.stub.wheel").info("connection", extra={"peer": "127.0.0.1:5020", "n": 2})
    logging.getLogger("croupier.stub.wheel").debug("not at -v")
    err = capsys.readouterr().err
    assert "INFO croupier.stub.wheel: connection peer=127.0.0.1:5020 n=2" in err and "not at -v" not in err
    (doc,) = [json.loads(line) for line in (tmp_path / "l.jsonl").read_text().splitlines()]
    assert doc["logger"] == "croupier.stub.wheel" and doc["peer"] == "127.0.0.1:5020" and doc["n"] == 2


def test_refusal_is_in_the_log_file(tmp_path):
    """An unreachable device: the run stops (exit 2) and the log file says which, why and where."""
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bench = tmp_path / "bench.toml"
    bench.write_text('schema = 1\nname = "b"\n[devices.wheel]\nkind = "sim"\n[devices.top_slot]\nkind = "sim"\n'
                     f'[devices.wagering]\nkind = "modbus"\nurl = "tcp://127.0.0.1:{port}?supervisor_key={"ab" * 16}"\n'
                     'timeout_s = 0.2\n')
    log_file = tmp_path / "run.jsonl"
    res = CliRunner().invoke(app, ["run", TWO[0], "--bench", str(bench), "--out", str(tmp_path / "out"),
                                   "--max-rounds", "1", "--log-file", str(log_file)])
    assert res.exit_code == 2, res.output
    records = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    (refused,) = [r for r in records if r["message"] == "bench refused the run"]
    assert refused["kind"] == "unreachable" and refused["scenario"] == "normal-play" and refused["reason"]
    assert [r["scenario"] for r in records if r["message"] == "scenario started"] == ["normal-play"]
