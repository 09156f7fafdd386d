"""Verdict integrity, counted from the trace's events as TraceReader reads them (an oracle independent of hil.checks):
on the bundled normal play of every table with a wagering device, no wager settled whose press
came after "no more bets", no probe press settled, no meter increment without an accepted
player wager — and the fault scenarios that make the croupier take such presses show them, and
fail their check."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import load_scenario
from hil.trace import TraceReader

SUITE = Path(__file__).resolve().parents[2] / "scenarios"
SETTLED = ("collect", "pay", "up_settle", "refund")


def integrity_counts(trace: Path) -> dict[str, int]:
    """Per trace: settled wagers whose press the device accepted at or after "no more bets"
    (``late_settled``), settled presses of the rig's probe (``probe_settled``), meter increments
    whose press is no on-time player press (``unmatched_increments``), and the totals."""
    with TraceReader(trace) as reader:
        rows = [(e.round, e.sim_time, e.device, e.kind, e.payload) for e in reader.events()]
    nmb: dict[int, float] = {}
    lockout: dict[int, float] = {}
    probe_seat: dict[int, int] = {}
    presses: dict[tuple[str, int], tuple[int, dict]] = {}  # (device, press id) -> (round, press)
    wager_press: dict[str, int] = {}  # wager id -> press id (the croupier's link)
    settled: list[tuple[int, str]] = []
    increments: list[tuple[int, int]] = []
    press_devices: set[str] = set()
    for rnd, t, device, kind, p in rows:
        if device == "croupier":
            if kind == "no_more_bets":
                nmb.setdefault(rnd, t)
            elif kind == "lockout_probe":
                probe_seat[rnd] = p["seat"]
            elif kind == "wager" and "press_id" in p:
                wager_press[p["wager_id"]] = p["press_id"]
            elif kind in SETTLED:
                settled.append((rnd, p["wager_id"]))
        elif kind == "press":
            presses[(device, p["press_id"])] = (rnd, p)
            press_devices.add(device)
        elif kind == "lockout_command":
            lockout.setdefault(rnd, p.get("device_time_s", t))
        elif kind == "meter_increment":
            increments.append((rnd, p["press_id"]))
    assert len(press_devices) <= 1, press_devices
    dev = next(iter(press_devices), None)

    def on_time_player_press(pid: int) -> tuple[bool, bool]:
        rnd, p = presses[(dev, pid)]
        late = not (p["accepted"] and p["device_time_s"] < nmb.get(rnd, float("inf")))
        probe = p["seat"] == probe_seat.get(rnd) and p["device_time_s"] >= lockout.get(rnd, float("inf"))
        return late, probe

    late_settled = probe_settled = 0
    for _rnd, wid in settled:
        pid = wager_press.get(wid)
        if pid is None or (dev, pid) not in presses:
            continue  # a chip wager (straight, side wager): no press
        late, probe = on_time_player_press(pid)
        late_settled += late and not probe
        probe_settled += probe
    unmatched = sum(1 for _rnd, pid in increments if (dev, pid) not in presses or any(on_time_player_press(pid)))
    return {"late_settled": late_settled, "probe_settled": probe_settled, "unmatched_increments": unmatched,
            "settled_press_wagers": sum(1 for _r, w in settled if w in wager_press), "increments": len(increments),
            "presses": len(presses)}


def _run(path: Path, tmp_path: Path, rounds: int | None = None, late: bool = False) -> tuple[dict, dict[str, int]]:
    loaded = load_scenario(path)
    sc = loaded.scenario
    if rounds is not None:
        sc = sc.model_copy(update={"rounds": min(rounds, sc.rounds)})
    if late:  # a player presses once more just after "no more bets", inside the lock-out latency
        sc = sc.model_copy(update={"players": sc.players.model_copy(
            update={"late_press_probability": 1.0, "late_press_window_s": 0.006})})
    loaded = type(loaded)(sc, loaded.path, loaded.sha256)
    result = run_scenario(loaded, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    return result, integrity_counts(tmp_path / result["trace"])


@pytest.mark.parametrize("late", [False, True], ids=["as-bundled", "late-presses"])
@pytest.mark.parametrize("path", ["crazy_time/normal_play.yaml", "roulette/roulette_normal_play.yaml",
                                  "blackjack/blackjack_normal_play.yaml", "blackjack/blackjack_linked_tables.yaml"])
def test_normal_play_settles_no_late_or_probe_press_and_meters_grow_only_from_wagers(path, late, tmp_path):
    result, counts = _run(SUITE / path, tmp_path, rounds=300, late=late)
    assert counts["late_settled"] == 0 and counts["probe_settled"] == 0 and counts["unmatched_increments"] == 0, counts
    assert counts["settled_press_wagers"] > 0, counts  # the count above is over real evidence
    # 300 of the scenario's rounds leave its χ² undecided (expect.pass): not decisive, never a failure
    assert result["outcome"] in ("met", "not decisive") and not result["unexpected_failures"], [
        c["id"] for c in result["checks"] if c["verdict"] == "fail"]
    refused = result["stats"].get("late_presses_refused", 0)
    if late and "crazy_time" in path:
        assert refused > 0  # the late presses were there, accepted by the device, and refused


def test_a_croupier_that_settles_late_and_probe_presses_fails_its_check(tmp_path):
    result, counts = _run(SUITE / "crazy_time/fault_dealer_settles_late_presses.yaml", tmp_path)
    assert counts["late_settled"] > 0 and counts["probe_settled"] > 0, counts
    failed = {c["id"] for c in result["checks"] if c["verdict"] == "fail"}
    assert "CT-690.2e-settlement" in failed
