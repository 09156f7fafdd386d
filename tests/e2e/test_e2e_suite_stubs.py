"""Acceptance of the real-device path: the bundled Crazy Time scenarios, run against the seven
firmware stubs in their own processes (each configured per scenario through its control
endpoint), give the same verdict for every check as on the simulated bench.

The base game's three devices run on the wire under test (Modbus TCP, or serial frames on ptys);
the four bonus devices (multiplier board, coin flipper, Pachinko board, Crazy Time World wheel)
speak Modbus only and run on Modbus TCP stubs in both — with serial base devices, a mixed bench
as a lab would have. Whatever bonus scenarios the suite holds (``bonus_*``, ``fault_bonus_*``)
are in the comparison (in the serial variant, the base game's scenarios only: the bonus devices
are on Modbus there too).

Every scenario of the bundled suite (the default suite: the base game's and one of each bonus game's;
the soak tier, ``make soak``, the other bonus fault scenarios), capped at a few rounds each (the forced-bonus ones at one: each
round plays its bonus game) and time-compressed (the stubs
and the bench agree on ``time_scale``): the full suite in real time takes a lab hours — the same
command, without ``--max-rounds`` and at ``time_scale = 1``, is the lab's procedure (README).
The stubs' models draw exactly what the SimPy models draw (the rig hands each stub its device's
seed sequence), so even the probabilistic faults play out the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from hil.cli import app
from tests.e2e.wire_suite import COMPARE_ROUNDS, compress, on_the_wire

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "crazy_time"
#: fault scenarios the stubs cannot reproduce, left out of the comparison: the Top Slot's reel strips
#: are not on the wire (its adapters declare the strips of § 690.3(b), so a foreign multiplier on the
#: model's strip shows only when a stop lands on it), and a wagering refusal for a missing betting
#: area (§ 690.1(g)(2)) has no code in the wire protocols' reason table
SIM_ONLY = frozenset({"fault_top_slot_foreign_multiplier", "fault_wagering_no_betting_area"})
ALL = sorted(p.stem for p in SUITE.glob("*.yaml") if p.stem not in SIM_ONLY and on_the_wire(p))
ROUNDS = COMPARE_ROUNDS
SERIAL_ROUNDS = "1"
#: the bonus scenarios (forced outcomes: a bonus game in every round) run one round each
BONUS_ROUNDS = 1
SCALE = 20
#: The Top Slot check's start tolerance (±100 ms simulated by default) is ±5 ms of wall time at
#: 20x: a loaded 2-core machine commanding seven stubs misses that now and then. The comparison
#: runs (sim and stubs alike) use ±0.5 s simulated (±25 ms wall), which still fails the late-start
#: fault scenario (1.5 s).
TOP_SLOT_TOLERANCE_S = 0.5
BASE = {"wheel": "money-wheel", "top_slot": "top-slot", "wagering": "wagering"}
BONUS = {"board": "multiplier-board", "coin_flipper": "coin-flipper", "pachinko": "pachinko-board",
         "ctw_wheel": "crazy-time-world-wheel"}

runner = CliRunner()


def _verdicts(out: Path) -> dict[str, dict[str, str]]:
    report = json.loads((out / "report.json").read_text())
    return {s["name"]: {c["id"]: c["verdict"] for c in s["checks"]} for s in report["scenarios"]}


def _bench(tmp_path: Path, urls: dict[str, tuple[str, str]], kinds: dict[str, str]) -> Path:
    """A bench file: each role (role -> (url, control)) on its stub, over ``kinds[role]``."""
    lines = ['schema = 1', 'name = "stubs"', f"time_scale = {SCALE}"]
    for role, (url, control) in urls.items():
        lines += [f"[devices.{role}]", f'kind = "{kinds[role]}"', f'url = "{url}"', f'control = "{control}"',
                  "timeout_s = 0.5", "poll_period_s = 0.002"]
    path = tmp_path / f"bench-{kinds['wheel']}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


#: the bonus scenarios the default suite compares on Modbus: each bonus game played healthy, and the
#: rescue and void paths (tests/e2e/test_e2e_bonus_modbus.py plays forced healthy and faulty bonus
#: games on the same stubs too); the soak tier compares every one (``modbus-every-bonus-fault``)
BONUS_DEFAULT = frozenset({"bonus_cash_hunt", "bonus_coin_flip", "bonus_crazy_time_world", "bonus_pachinko",
                           "bonus_rescue_before_top_slot", "bonus_void_partial_refund"})


def _names(wire: str) -> list[str]:
    # The bonus devices are on Modbus in every variant: the serial one needs only the base game's
    # scenarios (the bonus scenarios would test the same bonus wire path twice).
    if wire == "serial":
        return [n for n in ALL if "bonus" not in n]
    if wire == "modbus":
        return [n for n in ALL if "bonus" not in n or n in BONUS_DEFAULT]
    return [n for n in ALL if "bonus" in n and n not in BONUS_DEFAULT]  # the rest of the bonus scenarios


@pytest.mark.slow
# the serial variant is in the soak tier: the serial base-game wire has its own end-to-end runs in
# make test (tests/e2e/test_e2e_serial_*.py, the serial conformance kit, the RTU pty run)
@pytest.mark.parametrize("wire", ["modbus", pytest.param("serial", marks=pytest.mark.soak),
                                  pytest.param("modbus-every-bonus-fault", marks=pytest.mark.soak)])
def test_bundled_scenarios_same_verdicts_on_stubs(stub_control, tmp_path, wire):
    files = []
    (tmp_path / "suite").mkdir()
    names, wire = _names(wire), wire.split("-")[0]
    for name in names:
        doc = compress(yaml.safe_load((SUITE / f"{name}.yaml").read_text(encoding="utf-8")))
        doc.setdefault("checks", {})["top_slot_start_tolerance_s"] = TOP_SLOT_TOLERANCE_S
        if "bonus" in name:  # forced-bonus scenarios: every round plays its bonus game; one suffices here
            doc["rounds"] = min(doc["rounds"], BONUS_ROUNDS)
        files.append(str(tmp_path / "suite" / f"{name}.yaml"))
        Path(files[-1]).write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    # the serial variant repeats the Modbus one's base-game scenarios on another wire: one round each
    # carries every frame kind (the Modbus variant plays two)
    rounds = SERIAL_ROUNDS if wire == "serial" else ROUNDS
    sim = runner.invoke(app, ["run", *files, "--max-rounds", rounds, "--out", str(tmp_path / "sim"), "--jobs", "1"])
    assert sim.exit_code in (0, 1, 3), sim.output
    with stub_control(BASE, wire, SCALE) as base, stub_control(BONUS, "modbus", SCALE) as bonus:
        kinds = dict.fromkeys(BASE, wire) | dict.fromkeys(BONUS, "modbus")
        real = runner.invoke(app, ["run", *files, "--bench", str(_bench(tmp_path, base | bonus, kinds)),
                                   "--max-rounds", rounds, "--out", str(tmp_path / "real")])
    assert real.exit_code in (0, 1, 3), real.output
    want, got = _verdicts(tmp_path / "sim"), _verdicts(tmp_path / "real")
    assert set(got) == set(want)
    differ = {(s, c): (want[s][c], got[s].get(c)) for s in want for c in want[s] if got[s].get(c) != want[s][c]}
    assert not differ, differ
    report = json.loads((tmp_path / "real" / "report.json").read_text())
    assert all(s["error"] is None for s in report["scenarios"])
    # the bonus games were played on the stubs as in simulation: as many of each, none void more
    bonus = {s["name"]: {k: v for k, v in s["stats"].items() if k.startswith("bonus_")} for s in report["scenarios"]}
    sim_report = json.loads((tmp_path / "sim" / "report.json").read_text())
    assert bonus == {s["name"]: {k: v for k, v in s["stats"].items() if k.startswith("bonus_")}
                     for s in sim_report["scenarios"]}
