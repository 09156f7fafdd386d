"""Acceptance of the real-device path: the bundled Crazy Time scenarios, run against the three
firmware stubs in their own processes (each configured per scenario through its control
endpoint), give the same verdict for every check as on the simulated bench.

Every scenario of the bundled suite, capped at a few rounds each and time-compressed (the stubs
and the bench agree on ``time_scale``): the full suite in real time takes a lab hours — the same
command, without ``--max-rounds`` and at ``time_scale = 1``, is the lab's procedure (README).
The stubs' models draw exactly what the SimPy models draw (the rig hands each stub its device's
seed sequence), so even the probabilistic faults play out the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "crazy_time"
ALL = sorted(p.stem for p in SUITE.glob("*.yaml"))
ROUNDS = "2"
SCALE = 20  # the Top Slot check's ±100 ms tolerance is ±5 ms of wall time at 20x

runner = CliRunner()


def _verdicts(out: Path) -> dict[str, dict[str, str]]:
    report = json.loads((out / "report.json").read_text())
    return {s["name"]: {c["id"]: c["verdict"] for c in s["checks"]} for s in report["scenarios"]}


def _bench(tmp_path: Path, urls: dict[str, tuple[str, str]], kind: str) -> Path:
    lines = ['schema = 1', 'name = "stubs"', f"time_scale = {SCALE}"]
    for role, (url, control) in urls.items():
        lines += [f"[devices.{role}]", f'kind = "{kind}"', f'url = "{url}"', f'control = "{control}"',
                  "timeout_s = 0.5", "poll_period_s = 0.002"]
    path = tmp_path / f"bench-{kind}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("wire", ["modbus", "serial"])
def test_bundled_scenarios_same_verdicts_on_stubs(stub_control, tmp_path, wire):
    files = [str(SUITE / f"{name}.yaml") for name in ALL]
    sim = runner.invoke(app, ["run", *files, "--max-rounds", ROUNDS, "--out", str(tmp_path / "sim"), "--jobs", "1"])
    assert sim.exit_code in (0, 1), sim.output
    roles = {"wheel": "money-wheel", "top_slot": "top-slot", "wagering": "wagering"}
    with stub_control(roles, wire, SCALE) as urls:
        real = runner.invoke(app, ["run", *files, "--bench", str(_bench(tmp_path, urls, wire)),
                                   "--max-rounds", ROUNDS, "--out", str(tmp_path / "real")])
    assert real.exit_code in (0, 1), real.output
    want, got = _verdicts(tmp_path / "sim"), _verdicts(tmp_path / "real")
    assert set(got) == set(want)
    differ = {(s, c): (want[s][c], got[s].get(c)) for s in want for c in want[s] if got[s].get(c) != want[s][c]}
    assert not differ, differ
    report = json.loads((tmp_path / "real" / "report.json").read_text())
    assert all(s["error"] is None for s in report["scenarios"])
