"""The clauses of ch. 690 and § 617b.5 the checks judge on top of the ones they cited before
(issue 11): the Top Slot's two reels (§ 690.3(b)(1)–(2)), the clapper's selection of a section
(§ 690.1(e)), the betting areas (§ 690.1(g)(2)), a bonus symbol triggering its game (§ 690.1(d)),
the Rescue Flip's conditions named one by one (§ 690.5(f)(1)–(3)) and either roulette wheel
(§ 617b.5(c)) — each on a short simulated run with the fault, or a garbled device report."""

from __future__ import annotations

from pathlib import Path

import devices.money_wheel as mw
import devices.roulette_wheel as rw
from hil.bench import load_bench
from hil.runner import load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader

TEXT = """schema: 1
name: t-{name}
game: {game}
seed: {seed}
rounds: {rounds}
{extra}
"""


def run(tmp_path: Path, name: str, rounds: int, extra: str = "", seed: int = 11, game: str = "crazy-time") -> dict:
    sc = parse_scenario(TEXT.format(name=name, game=game, seed=seed, rounds=rounds, extra=extra), f"{name}.yaml")
    result = run_scenario(sc, load_bench(), load_rules(), tmp_path)
    assert result["error"] is None, result["error"]
    return result


def failing(result: dict) -> dict[str, list[str]]:
    return {c["id"]: [f["message"] for f in c["findings"]] for c in result["checks"] if c["verdict"] == "fail"}


def test_a_top_slot_reel_with_a_multiplier_the_regulation_does_not_list(tmp_path):
    r = run(tmp_path, "foreign", 120, "faults:\n  top_slot: {foreign_multiplier: 50}", seed=22)
    found = failing(r)
    assert set(found) == {"CT-690.3-top-slot"}, found
    msgs = found["CT-690.3-top-slot"]
    assert "§ 690.3(b)(2): the second reel lacks multiplier(s) [20]" in msgs
    assert any(m.startswith("§ 690.3(b)(2): the second reel carries multiplier(s) [50]") for m in msgs)
    with TraceReader(tmp_path / r["trace"]) as reader:
        shown = [e.payload["multiplier"] for e in reader.events() if e.kind == "top_slot_stop"]
        voids = [e.payload["reason"] for e in reader.events() if e.kind == "spin_void"]
    if 50 in shown:  # a stop on it is voided and respun, never settled
        assert "invalid_top_slot_result" in voids
        assert any(m.endswith("not on its reels (§ 690.3(b)(2))") for m in msgs)


def test_a_healthy_top_slot_declares_the_regulation_s_two_reels(tmp_path):
    r = run(tmp_path, "reels", 5)
    assert failing(r) == {}
    with TraceReader(tmp_path / r["trace"]) as reader:
        info = next(e.payload for e in reader.events() if e.device == "top_slot" and e.kind == "device_info")
    assert info["reel1"] == ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]
    assert info["reel2"] == [1, 2, 3, 4, 5, 7, 10, 15, 20]


def test_a_rest_report_that_selects_no_section_of_the_wheel(tmp_path, monkeypatch):
    real_stop = mw.SpinStop
    count = {"n": 0}

    def garbled(**fields):
        count["n"] += 1
        if count["n"] % 4 == 0:  # every fourth rest names section 99 of a 54-section wheel
            fields["section_index"] = 99
        return real_stop(**fields)

    monkeypatch.setattr(mw, "SpinStop", garbled)
    r = run(tmp_path, "clapper", 12)
    found = failing(r)
    assert "CT-690.2c-result-evidence" in found, found
    msgs = found["CT-690.2c-result-evidence"]
    assert msgs and all(m.startswith("§ 690.1(e): the clapper selected section 99: no section of the wheel")
                        for m in msgs), msgs


def test_a_wagering_device_without_a_betting_area(tmp_path):
    r = run(tmp_path, "areas", 12, "faults:\n  wagering: {no_betting_area: pachinko}", seed=23)
    found = failing(r)
    assert set(found) == {"CT-690.1g2-betting-areas"}, found
    assert all(m.startswith("§ 690.1(g)(2): seat ") and "press on the pachinko betting area was refused "
               "('no_betting_area')" in m for m in found["CT-690.1g2-betting-areas"])
    healthy = run(tmp_path / "h", "areas-healthy", 12, seed=23)
    check = next(c for c in healthy["checks"] if c["id"] == "CT-690.1g2-betting-areas")
    assert check["verdict"] == "pass"


def test_a_bonus_symbol_that_triggers_no_bonus_game(tmp_path):
    r = run(tmp_path, "trigger", 6, "croupier: {force_result: coin-flip}\nfaults:\n  croupier: {bonus_base_odds: true}")
    msgs = failing(r)["CT-690.2e-settlement"]
    assert any(m.startswith("§ 690.1(d): the round was settled on coin-flip, a bonus game symbol, but no bonus "
                            "game followed: it was announced (bonus_start) and never played") for m in msgs), msgs


def test_a_roulette_x_number_that_is_no_compartment_of_the_wheel(tmp_path, monkeypatch):
    real = rw.BallResult
    count = {"n": 0}

    def garbled(**fields):
        count["n"] += 1
        if count["n"] % 3 == 0:  # 00 on a single zero wheel
            fields["pocket"] = "00"
        return real(**fields)

    monkeypatch.setattr(rw, "BallResult", garbled)
    r = run(tmp_path, "rx-wheel", 9, "table: {wheel: single-zero, roulette_x_paytable: A, roulette_up: B}",
            game="roulette")
    msgs = failing(r).get("RX-617b.5g-paytable-values", [])
    assert msgs and all(m == "§ 617b.5(c): the ball came to rest in '00', no compartment of the single-zero wheel"
                        for m in msgs), failing(r)
