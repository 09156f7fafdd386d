"""A run whose device link dies mid-suite is not MET (issue 11).

The Blackjack table's progressive table game system runs on its Modbus TCP firmware stub in its
own process (the shoe stays simulated); ``croupier run`` plays a healthy normal-play scenario
against it, time-compressed, in its own process too. Once the trace holds a committed round, the
stub is killed by its pid with SIGKILL — the device is gone, mid-round, with no goodbye on the
wire. Whatever the rig then does (fail fast with the error kept, or play on recording wire
faults and void rounds), the run must not say MET: exit code 1, the scenario's
``expectation_met`` false, and either a failing check (the run-level evidence check: wire
faults, void spins and void rounds above the scenario's limits) or the error recorded.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from firmware_stubs.launch import end, launch
from hil.trace import TraceReader
from tests.e2e.wire_suite import compress

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "blackjack" / "blackjack_normal_play.yaml"
ROUNDS = 5
SCALE = 20
#: committed rounds before the stub is killed: the link worked, then died
KILL_AFTER_ROUNDS = 2
#: generous: a healthy round is ~18 s simulated (~1 s wall at 20x); the machine is shared
ROUND_WAIT_S = 60.0
RUN_END_WAIT_S = 180.0


def _env() -> dict[str, str]:
    """The run imports this tree's packages (the test's), whatever else is installed."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def _croupier() -> list[str]:
    exe = Path(sys.executable).with_name("croupier")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from hil.cli import main; main()"]


def _count(trace: Path, device: str | None, kind: str) -> int:
    """Committed events of ``kind`` (of ``device``; None: any) (0 while the trace does not exist yet)."""
    if not trace.exists():
        return 0
    try:
        with TraceReader(trace) as reader:
            return sum(1 for e in reader.events() if e.kind == kind and device in (None, e.device))
    except sqlite3.OperationalError:  # created but not yet readable
        return 0


def _committed_rounds(trace: Path) -> int:
    return _count(trace, "croupier", "round_end")


def _wait_until(what: str, cond, proc: subprocess.Popen, timeout_s: float) -> None:
    """Wait for ``cond()`` (checked as the run goes on), failing if the run ends first or it never comes."""
    deadline = time.monotonic() + timeout_s
    while not cond():
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {timeout_s} s")
        try:
            proc.wait(timeout=0.05)  # returns at once if the run ends
        except subprocess.TimeoutExpired:
            pass


@pytest.mark.timeout(420)
def test_progressive_stub_killed_mid_run_is_not_met(tmp_path):
    doc = compress(yaml.safe_load(SCENARIO.read_text(encoding="utf-8")))  # no 45 s shuffle, short pauses
    doc["rounds"] = ROUNDS
    doc["name"] = "blackjack-link-dies"
    scenario = tmp_path / "blackjack_link_dies.yaml"
    scenario.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    trace = out / "traces" / f"{doc['name']}.sqlite"
    t0 = time.perf_counter()
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE),
                "--control", "tcp://127.0.0.1:0") as stub:
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "progressive-stub"\ntime_scale = {SCALE}\n[devices.progressive]\n'
                         f'kind = "modbus"\nurl = "{stub.url}"\ncontrol = "{stub.control}"\ntimeout_s = 0.5\n'
                         f'poll_period_s = 0.002\n')
        log = tempfile.TemporaryFile()  # not a pipe: the run's output must never block it
        run = subprocess.Popen([*_croupier(), "run", str(scenario), "--bench", str(bench), "--out", str(out)],
                               stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path, env=_env())
        try:
            _wait_until(f"{KILL_AFTER_ROUNDS} committed rounds",
                        lambda: _committed_rounds(trace) >= KILL_AFTER_ROUNDS, run, ROUND_WAIT_S * KILL_AFTER_ROUNDS)
            killed_after = _committed_rounds(trace)
            os.kill(stub.proc.pid, signal.SIGKILL)
            stub.proc.wait(timeout=10)
            try:
                rc = run.wait(timeout=RUN_END_WAIT_S)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the run did not end within {RUN_END_WAIT_S} s of its device's death")
        finally:
            if run.poll() is None:
                end(run)
            log.seek(0)
            output = log.read().decode(errors="replace")
            log.close()
    duration_s = time.perf_counter() - t0
    report = json.loads((out / "report.json").read_text())
    (result,) = report["scenarios"]
    failed = [(c["id"], c["summary"]) for c in result["checks"] if c["verdict"] == "fail"]
    rounds_done = _committed_rounds(trace)
    wire_faults = _count(trace, None, "wire_fault")
    print(f"\nlink dies: stub killed after {killed_after} committed rounds of {ROUNDS}; the run went on to "
          f"{rounds_done} round_end(s) with {wire_faults} wire_fault event(s), exit {rc}, {duration_s:.1f} s wall; "
          f"expectation_met "
          f"{result['expectation_met']}; error: {(result['error'] or 'none').strip().splitlines()[-1]}")
    for cid, summary in failed:
        print(f"  FAIL {cid}: {summary}")
    assert rc == 1, f"exit {rc} (want 1: not MET) after the progressive stub was killed\n{output[-3000:]}"
    assert result["expectation_met"] is False, result
    assert failed or result["error"], ("the scenario is not met yet shows no failing check and no error", result)
