"""Acceptance of the progressive table game system's real-device path: the bundled Blackjack
scenarios, run with the progressive system on its Modbus TCP stub in its own process (configured
per scenario through its control endpoint, seeded with the device's seed sequence), give the same
verdict for every check as the simulated bench. The card shoe stays simulated (its reader has no
wire protocol yet). Capped at a few rounds and time-compressed, as the other comparisons; the
scenarios run in ``SHARDS`` shards at once, each by its own ``croupier run`` against its own
stub (the stub waits on the wall clock: ≈ 0.4 core for one shard, measured)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from tests.e2e.wire_suite import (compressed_copies, merged_reports, on_the_wire, output, shards, shards_on_stubs,
                                  stub_launches)

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "blackjack"
ROUNDS = "2"
SCALE = 20
#: concurrent shards, each with its own progressive-system stub
SHARDS = 3
runner = CliRunner()


def _report(out: Path | dict) -> dict[str, dict]:
    report = out if isinstance(out, dict) else json.loads((out / "report.json").read_text())
    return {s["name"]: s for s in report["scenarios"]}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_blackjack_suite_same_verdicts_on_the_progressive_system_stub(tmp_path):
    files = compressed_copies([f for f in sorted(SUITE.glob("*.yaml")) if on_the_wire(f)], tmp_path / "suite")
    parts = shards(files, SHARDS)

    def argv_for(i: int, part: list[str]):
        def argv(urls: dict[str, tuple[str, str]]) -> list[str]:
            url, control = urls["progressive"]
            bench = tmp_path / f"bench-{i}.toml"
            bench.write_text(f'schema = 1\nname = "progressive-stub"\ntime_scale = {SCALE}\n[devices.progressive]\n'
                             f'kind = "modbus"\nurl = "{url}"\ncontrol = "{control}"\ntimeout_s = 0.5\n'
                             f'poll_period_s = 0.002\n')
            return ["run", *part, "--bench", str(bench), "--max-rounds", ROUNDS, "--out", str(tmp_path / f"real-{i}")]
        return argv

    with shards_on_stubs([(stub_launches({"progressive": "progressive-system"}, "modbus", SCALE), argv_for(i, part))
                          for i, part in enumerate(parts)]) as real:
        sim = runner.invoke(app, ["run", *files, "--max-rounds", ROUNDS, "--out", str(tmp_path / "sim"), "--jobs", "1"])
    assert sim.exit_code in (0, 1), sim.output
    for run in real.results:
        assert run.returncode in (0, 1), output(run)
    merged = merged_reports([tmp_path / f"real-{i}" for i in range(len(parts))])
    a, b = _report(tmp_path / "sim"), _report(merged)
    assert a.keys() == b.keys() and len(a) == len(files) == len(merged["scenarios"])
    for name in a:
        assert b[name]["error"] is None, b[name]["error"]
        va = {c["id"]: c["verdict"] for c in a[name]["checks"]}
        vb = {c["id"]: c["verdict"] for c in b[name]["checks"]}
        assert va == vb, (name, {k: (va[k], vb.get(k)) for k in va if va[k] != vb.get(k)})
        assert a[name]["stats"] == b[name]["stats"], name
        assert a[name]["expectation_met"] == b[name]["expectation_met"], name
