"""Scenarios on real devices (issue 12 § 4, docs/wire/real-devices.md), through ``croupier run``
against firmware stubs in their own processes that have no control endpoint — as a real device has
none:

* a fault scenario whose fault knobs cannot be applied is NOT APPLICABLE, with the reason, never
  run without its fault; it counts neither as met nor as not met, and is said loudly (summary,
  report.json, junit.xml); a run in which nothing was applicable exits 1;
* a bench/device mismatch (too few seats, a double-zero illuminator under a single-zero table, a
  stub at another time scale) is refused at connect: exit 2, naming the mismatch;
* a device that is not running: one clear error, exit 2, no traceback per scenario.
"""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from firmware_stubs.launch import launch
from hil.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
SCALE = 20


def _bench(tmp_path: Path, devices: dict[str, str], time_scale: float = SCALE) -> Path:
    """role -> Modbus URL (no control endpoint); every other role simulated."""
    lines = ["schema = 1", 'name = "real"', f"time_scale = {time_scale}"]
    for role, url in devices.items():
        lines += [f"[devices.{role}]", 'kind = "modbus"', f'url = "{url}"']
    path = tmp_path / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _small(tmp_path: Path, name: str = "small", rounds: int = 1) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"schema: 1\nname: {name}\ngame: crazy-time\nseed: 5\nrounds: {rounds}\n")
    return p


def test_a_fault_scenario_on_a_device_without_control_is_not_applicable(tmp_path):
    fault = ROOT / "scenarios" / "crazy_time" / "fault_slow_lockout.yaml"
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE)) as stub:
        bench = _bench(tmp_path, {"wagering": stub.url})
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(fault), str(_small(tmp_path)), "--bench", str(bench), "--out", str(out)])
        only = runner.invoke(app, ["run", str(fault), "--bench", str(bench), "--out", str(tmp_path / "only")])
    assert res.exit_code == 0, res.output  # the applicable scenario met; the other was not run
    text = " ".join(res.output.split())
    assert "NOT APPLICABLE on this bench — NOT RUN" in text
    assert "fault-slow-lockout: devices.wagering is a real modbus device" in text
    assert "lockout_latency_mean_s=0.012" in text and "cannot be applied" in text
    report = json.loads((out / "report.json").read_text())
    by = {s["name"]: s for s in report["scenarios"]}
    na = by["fault-slow-lockout"]
    assert na["expectation_met"] is None and na["checks"] == [] and na["trace"] is None
    assert "without a control endpoint" in na["not_applicable"][0]
    assert not (out / "traces" / "fault-slow-lockout.sqlite").exists()
    assert by["small"]["expectation_met"] is True
    assert report["summary"] == {"scenarios": 2, "expectations_met": 1, "expectations_not_met": 0, "not_decisive": 0,
                                 "not_applicable": 1}
    suite = next(s for s in ET.parse(out / "junit.xml").getroot() if s.get("name") == "fault-slow-lockout")
    skipped = suite.find("testcase/skipped")
    assert skipped is not None and skipped.get("message").startswith("NOT APPLICABLE: devices.wagering")
    # nothing applicable: nothing was proven, and the exit code says so
    assert only.exit_code == 1, only.output
    assert json.loads((tmp_path / "only" / "report.json").read_text())["summary"]["not_applicable"] == 1


def test_too_few_seats_is_a_refused_mismatch(tmp_path):
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE), "--param", "seats=3") as stub:
        res = runner.invoke(app, ["run", str(_small(tmp_path)), "--bench", str(_bench(tmp_path, {"wagering": stub.url})),
                                  "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "error: bench/device mismatch" in text and "has 3 seat(s); the scenario's table uses seats 1..7" in text
    assert "Traceback" not in res.output
    refused = json.loads((tmp_path / "out" / "report.json").read_text())["refused"]
    assert refused["kind"] == "mismatch" and refused["scenario"] == "small"


def test_a_double_zero_illuminator_under_a_single_zero_table_is_refused(tmp_path):
    sc = ROOT / "scenarios" / "roulette" / "roulette_single_zero_play.yaml"
    with launch("illuminator", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE),
                "--param", "wheel=double-zero") as stub:
        res = runner.invoke(app, ["run", str(sc), "--bench", str(_bench(tmp_path, {"illuminator": stub.url})),
                                  "--out", str(tmp_path / "out"), "--max-rounds", "1"])
    assert res.exit_code == 2, res.output
    assert "is a double-zero wheel; the scenario's table is single-zero" in " ".join(res.output.split())


def test_a_stub_at_another_time_scale_is_refused(tmp_path):
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--time-scale", "1") as stub:
        res = runner.invoke(app, ["run", str(_small(tmp_path)), "--bench", str(_bench(tmp_path, {"wagering": stub.url})),
                                  "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "error: bench/device mismatch: devices.wagering" in text and "time-scale mismatch" in text
    assert "the bench's time_scale is 20" in text


def test_an_unreachable_device_is_one_error_for_the_whole_run(tmp_path):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bench = _bench(tmp_path, {"wheel": f"tcp://127.0.0.1:{port}"})
    res = runner.invoke(app, ["run", str(_small(tmp_path, "a")), str(_small(tmp_path, "b")), "--bench", str(bench),
                              "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert res.output.count("error:") == 1 and "Traceback" not in res.output, res.output
    assert f"device unreachable: devices.wheel: the modbus device at tcp://127.0.0.1:{port} could not be reached" \
        in " ".join(res.output.split())
