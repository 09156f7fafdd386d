"""Acceptance of the progressive table game system's real-device path: the bundled Blackjack
scenarios, run with the progressive system on its Modbus TCP stub in its own process (configured
per scenario through its control endpoint, seeded with the device's seed sequence), give the same
verdict for every check as the simulated bench. The card shoe stays simulated (its reader has no
wire protocol yet). Capped at a few rounds and time-compressed, as the other comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from tests.e2e.wire_suite import COMPARE_ROUNDS, compressed_copies, on_the_wire

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "blackjack"
ROUNDS = COMPARE_ROUNDS
SCALE = 20
runner = CliRunner()


def _report(out: Path) -> dict[str, dict]:
    return {s["name"]: s for s in json.loads((out / "report.json").read_text())["scenarios"]}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_blackjack_suite_same_verdicts_on_the_progressive_system_stub(stub_control, tmp_path):
    files = compressed_copies([f for f in sorted(SUITE.glob("*.yaml")) if on_the_wire(f)], tmp_path / "suite")
    sim = runner.invoke(app, ["run", *files, "--max-rounds", ROUNDS, "--out", str(tmp_path / "sim"), "--jobs", "1"])
    assert sim.exit_code in (0, 1, 3), sim.output
    with stub_control({"progressive": "progressive-system"}, "modbus", SCALE) as urls:
        url, control = urls["progressive"]
        bench = tmp_path / "bench.toml"
        bench.write_text(f'schema = 1\nname = "progressive-stub"\ntime_scale = {SCALE}\n[devices.progressive]\n'
                         f'kind = "modbus"\nurl = "{url}"\ncontrol = "{control}"\ntimeout_s = 0.5\n'
                         f'poll_period_s = 0.002\n')
        real = runner.invoke(app, ["run", *files, "--bench", str(bench), "--max-rounds", ROUNDS,
                                   "--out", str(tmp_path / "real")])
    assert real.exit_code in (0, 1, 3), real.output
    a, b = _report(tmp_path / "sim"), _report(tmp_path / "real")
    assert a.keys() == b.keys() and len(a) == len(files)
    for name in a:
        assert b[name]["error"] is None, b[name]["error"]
        va = {c["id"]: c["verdict"] for c in a[name]["checks"]}
        vb = {c["id"]: c["verdict"] for c in b[name]["checks"]}
        assert va == vb, (name, {k: (va[k], vb.get(k)) for k in va if va[k] != vb.get(k)})
        assert a[name]["stats"] == b[name]["stats"], name
        assert a[name]["expectation_met"] == b[name]["expectation_met"], name
