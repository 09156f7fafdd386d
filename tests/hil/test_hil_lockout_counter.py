"""A bench with a lock-out counter (VISA; the shipped pyvisa-sim counter): its intervals are in
the trace and CT-lockout reports them as an independent figure — and fails on one over budget."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.trace import TraceReader
from hil.transport.visa import SIM_COUNTER, SIM_RESOURCE, resource_manager

runner = CliRunner()
SCENARIO = """\
schema: 1
name: counter
game: crazy-time
seed: 4
rounds: 3
players: {count: 2}
croupier: {betting_window_s: 2.0, between_rounds_s: 0.5}
"""


@pytest.mark.parametrize("interval_s, verdict", [(0.004, "pass"), (0.030, "fail")])
def test_counter_intervals_reach_the_lockout_check(tmp_path, interval_s, verdict):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "bench.toml").write_text(
        'schema = 1\nname = "sim-with-counter"\ntime_scale = 100\n'
        '[devices.wheel]\nkind = "sim"\n[devices.top_slot]\nkind = "sim"\n[devices.wagering]\nkind = "sim"\n'
        f'[instruments.lockout_counter]\nresource = "{SIM_RESOURCE}"\nbackend = "{SIM_COUNTER}@sim"\n')
    sim = resource_manager(f"{SIM_COUNTER}@sim").open_resource(SIM_RESOURCE, read_termination="\n",
                                                               write_termination="\n", timeout=1000)
    try:
        sim.write(f":SIM:TINT {interval_s!r}")
        res = runner.invoke(app, ["run", str(tmp_path / "s.yaml"), "--bench", str(tmp_path / "bench.toml"),
                                  "--out", str(tmp_path / "out")])
    finally:
        sim.write(":SIM:TINT 0")
        sim.close()
    assert res.exit_code == (0 if verdict == "pass" else 1), res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    check = next(c for c in report["scenarios"][0]["checks"] if c["id"] == "CT-lockout")
    assert check["verdict"] == verdict
    m = {x["name"]: x["value"] for x in check["measurements"]}
    assert m["lockout_latency_counter_max"] == pytest.approx(interval_s)
    with TraceReader(tmp_path / "out" / "traces" / "counter.sqlite") as t:
        intervals = [e.payload["interval_s"] for e in t.events() if e.kind == "lockout_interval"]
    assert intervals == [pytest.approx(interval_s)] * 3
