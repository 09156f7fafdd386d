"""The Crazy Time croupier's settlement and the checks that judge it, on short simulated runs:
§ 690.2(f) order (losers collected, then the bonus game, then the winners paid; a void bonus game
voids only its own wagers), § 690.1(g)(4) limits (wagers outside them refused, wins capped),
§ 690.3(c)(2) (no multiplier unless the reels align) and the Rescue reading of § 690.5(f) /
§ 690.7(g), which the croupier and the checks both take from the Rules Submission."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.bench import load_bench
from hil.checks import CheckConfig, checks_for
from hil.checks.base import BenchView, RoundView
from hil.runner import LoadedRules, load_rules, run_scenario
from hil.scenario import parse_scenario
from hil.trace import TraceReader
from rules.submission import RulesSubmission

RULES = load_rules()
ALTERNATE = Path(__file__).resolve().parents[2] / "rules" / "data" / "crazy_time_rescue_before_top_slot.toml"

TEXT = """schema: 1
name: t-{name}
game: crazy-time
seed: {seed}
rounds: {rounds}
{extra}
"""


def run(tmp_path: Path, name: str, rounds: int, extra: str, seed: int = 11, rules: LoadedRules = RULES) -> dict:
    sc = parse_scenario(TEXT.format(name=name, seed=seed, rounds=rounds, extra=extra), f"{name}.yaml")
    result = run_scenario(sc, load_bench(), rules, tmp_path)
    assert result["error"] is None, result["error"]
    return result


def failing(result: dict) -> dict[str, list[str]]:
    return {c["id"]: [f["message"] for f in c["findings"]] for c in result["checks"] if c["verdict"] == "fail"}


def rounds_of(tmp_path: Path, result: dict):
    with TraceReader(tmp_path / result["trace"]) as reader:
        for n, events in reader.rounds():
            if n:
                yield n, events


# --------------------------------------------------------------------------- § 690.2(f)
def test_bonus_round_collects_the_losers_before_the_game_and_pays_after_it(tmp_path):
    result = run(tmp_path, "order", 8, "croupier: {force_result: cash-hunt}")
    assert failing(result) == {}
    for _n, events in rounds_of(tmp_path, result):
        seq = {k: [e.seq for e in events if e.device == "croupier" and e.kind == k] for k in
               ("collect", "bonus_start", "bonus_result", "pay")}
        assert seq["collect"] and seq["pay"], seq
        assert max(seq["collect"]) < seq["bonus_start"][0] < seq["bonus_result"][0] < min(seq["pay"])


def test_bonus_before_collect_fails_the_settlement_check(tmp_path):
    result = run(tmp_path, "late-collect", 4, "croupier: {force_result: coin-flip}\n"
                 "faults: {croupier: {bonus_before_collect: true}}")
    msgs = failing(result)
    assert set(msgs) == {"CT-690.2e-settlement"}
    assert all("§ 690.2(f)" in m and "collected after the coin-flip bonus game started" in m
               for m in msgs["CT-690.2e-settlement"])


def test_void_bonus_game_refunding_a_loser_fails(tmp_path):
    """The wrong croupier (bonus game first) refunds every wager when the puck lodges: the check
    names each losing wager refunded; the healthy croupier's void rounds pass."""
    extra = ("croupier: {force_result: pachinko, bonus_timeout_s: 30}\n"
             "faults: {pachinko: {puck_stuck_probability: 1.0}, croupier: {bonus_before_collect: true}}\n"
             "checks: {max_void_round_ratio: 1.0}")
    result = run(tmp_path / "bad", "void-bad", 3, extra)
    msgs = failing(result)
    assert set(msgs) == {"CT-690.2e-settlement"}
    assert msgs["CT-690.2e-settlement"] and all("refunded when the pachinko bonus game was void" in m
                                                 for m in msgs["CT-690.2e-settlement"])
    healthy = run(tmp_path / "good", "void-good", 3, extra.replace(", croupier: {bonus_before_collect: true}", ""))
    assert failing(healthy) == {}
    settlement = next(c for c in healthy["checks"] if c["id"] == "CT-690.2e-settlement")
    assert settlement["verdict"] == "pass"
    assert {m["name"]: m["value"] for m in settlement["measurements"]}["bonus_void_rounds"] == 3


# --------------------------------------------------------------------------- § 690.1(g)(4)
def test_the_limits_rule():
    """§ 690.1(g)(4): ``Limits.wager_deviation`` — the one rule the croupier refuses by and the check
    judges by — admits the minimum and the maximum themselves and nothing outside them."""
    limits = RULES.submission.limits
    assert limits.wager_deviation(limits.min_wager_cents) is None
    assert limits.wager_deviation(limits.max_wager_cents) is None
    assert "below the minimum wager" in limits.wager_deviation(limits.min_wager_cents - 1)
    assert "above the maximum wager" in limits.wager_deviation(limits.max_wager_cents + 1)


def test_wagers_outside_the_limits_are_refused_and_never_settled(tmp_path):
    players = "players: {count: 6, wagers_per_player: [2, 3], stake_cents: [200000, 300000]}"
    result = run(tmp_path / "ok", "limits", 6, players)
    assert failing(result) == {}
    limits = RULES.submission.limits
    refused = 0
    for _n, events in rounds_of(tmp_path / "ok", result):
        rejected = {e.payload["wager_id"]: e.payload for e in events if e.kind == "wager_rejected"
                    and e.payload.get("kind") == "limits"}
        refused += len(rejected)
        assert all(p["stake_cents"] > limits.max_wager_cents and "§ 690.1(g)(4)" in p["reason"]
                   for p in rejected.values())
        settled = {e.payload["wager_id"] for e in events if e.kind in ("collect", "pay", "refund")}
        assert not settled & set(rejected)
        assert all(limits.wager_deviation(e.payload["stake_cents"]) is None for e in events
                   if e.kind in ("collect", "pay"))
    assert refused == result["stats"]["wagers_refused_limits"] > 0
    bad = run(tmp_path / "bad", "limits-bad", 6, players + "\nfaults: {croupier: {accept_outside_limits: true}}")
    assert set(failing(bad)) == {"CT-690.1g4-limits"}
    assert all("above the maximum wager of 250000 cents" in m for m in failing(bad)["CT-690.1g4-limits"])


def test_a_refusal_of_a_wager_within_the_limits_fails(tmp_path):
    """The limits check judges every refusal against the Rules Submission (here: one that allows
    the stakes the croupier refused)."""
    result = run(tmp_path, "limits-refused", 4, "players: {count: 6, wagers_per_player: [2, 3], "
                 "stake_cents: [200000, 300000]}")
    data = RULES.submission.model_dump(mode="json", by_alias=True)
    data["limits"]["max_wager_cents"] = 400000
    verdict = rejudge(tmp_path / result["trace"], data)
    assert verdict["CT-690.1g4-limits"][0] == "fail"
    assert "refused as outside the limits" in verdict["CT-690.1g4-limits"][1][0]


def test_payout_limit_per_round(tmp_path):
    extra = ("croupier: {force_result: crazy-time}\n"
             "players: {count: 40, wagers_per_player: [3, 3], stake_cents: [200000, 250000]}")
    healthy = run(tmp_path / "ok", "cap", 40, extra, seed=6201)
    assert failing(healthy) == {}
    limits = next(c for c in healthy["checks"] if c["id"] == "CT-690.1g4-limits")
    m = {x["name"]: x["value"] for x in limits["measurements"]}
    assert m["payments_capped"] > 0 and m["max_seat_win_per_round"] == RULES.submission.limits.max_payout_per_round_cents
    bad = run(tmp_path / "bad", "cap-bad", 40, extra + "\nfaults: {croupier: {ignore_payout_limit: true}}", seed=6201)
    assert set(failing(bad)) == {"CT-690.1g4-limits", "CT-690.2e-settlement"}


# --------------------------------------------------------------------------- § 690.3(c)(2)
def test_unaligned_top_slot_applied_fails_the_top_slot_check(tmp_path):
    result = run(tmp_path, "unaligned", 300, "faults: {croupier: {top_slot_unaligned_applied: true}}", seed=6301)
    msgs = failing(result)
    assert {"CT-690.3-top-slot", "CT-690.2e-settlement"} <= set(msgs)
    assert all("§ 690.3(c)(2): reels not aligned" in m for m in msgs["CT-690.3-top-slot"])


# --------------------------------------------------------------------------- the Rescue reading
def rejudge(trace: Path, rules_json: dict) -> dict[str, tuple[str, list[str]]]:
    """The trace's checks run with ``rules_json`` in place of the Rules Submission it recorded."""
    with TraceReader(trace) as reader:
        config = CheckConfig.from_json(reader.meta().get("check_config"))
        checks = [cls(config) for cls in checks_for("crazy-time")]
        for n, events in reader.rounds():
            if n == 0:
                bench = BenchView.of(events)
                bench.rules = rules_json
                for c in checks:
                    c.setup(bench)
                continue
            rv = RoundView.of(n, events)
            for c in checks:
                c.observe(rv)
    return {c.id: (r.verdict, [f.message for f in r.findings]) for c in checks if (r := c.result())}


def rigged(reading: str, game: str) -> LoadedRules:
    """The reference submission under ``reading``, with a Top Slot that aligns on ``game`` at x2
    nearly always and boards whose Rescue conditions the readings judge differently
    (a 2x/20x coin shows 4x/40x; Pachinko's 3x and 4x show 6x and 8x)."""
    data = RULES.submission.model_dump(mode="json", by_alias=True)
    data["rescue_reading"] = reading
    data["top_slot"]["align_probability"] = "1"
    data["top_slot"]["reel1_weights"] = {k: (10**6 if k == game else 1)
                                         for k in data["top_slot"]["reel1_weights"]}
    data["top_slot"]["reel2_weights"] = {k: (10**6 if k == "2" else 1) for k in data["top_slot"]["reel2_weights"]}
    data["coin_flip"].update(multiplier_weights={"2": 1, "20": 1}, rescue_probability="1")
    data["pachinko"].update(multiplier_weights={"3": 1, "4": 1, "50": 1}, rescue_probability="1",
                            double_probability="0")
    sub = RulesSubmission.model_validate(data)
    return LoadedRules(sub, f"rigged-{game}-{reading}", reading)


@pytest.mark.parametrize("game", ["coin-flip", "pachinko"])
def test_both_rescue_readings_through_the_croupier_and_the_checks(game, tmp_path):
    """Each reading: the croupier draws a Rescue exactly where the declared reading allows one and
    every check passes; judged by the other reading, the same trace fails the Rescue check."""
    check = {"coin-flip": "CF-690.5fg-rescue", "pachinko": "PA-690.7g-rescue"}[game]
    draws, traces = {}, {}
    for reading in ("displayed", "before-top-slot"):
        result = run(tmp_path / reading, f"{game}-{reading}", 30, f"croupier: {{force_result: {game}}}",
                     rules=rigged(reading, game))
        assert failing(result) == {}, reading
        traces[reading] = tmp_path / reading / result["trace"]
        draws[reading] = sum(1 for _n, events in rounds_of(tmp_path / reading, result) for e in events
                             if e.kind == "board_draw" and e.payload["purpose"] == "rescue")
        with TraceReader(traces[reading]) as reader:  # the trace declares the reading it was played under
            rules_event = next(e for n, evs in reader.rounds() if n == 0 for e in evs if e.kind == "rules")
        assert rules_event.payload["rescue_reading"] == reading
    assert draws["before-top-slot"] > draws["displayed"] >= 0
    if game == "coin-flip":
        assert draws["displayed"] == 0  # under x2 no side shows 2x or 3x
    for reading, other in (("displayed", "before-top-slot"), ("before-top-slot", "displayed")):
        data = rigged(other, game).submission.model_dump(mode="json", by_alias=True)
        verdict, msgs = rejudge(traces[reading], data)[check]
        assert verdict == "fail", (reading, msgs)
        assert any(f"rescue_reading {other!r}" in m or "Rescue" in m for m in msgs)


def test_the_alternate_rules_submission_runs_the_bundled_forced_pachinko(tmp_path):
    """`croupier run --rules rules/data/crazy_time_rescue_before_top_slot.toml` on a forced game: the
    croupier and the checks follow it (the trace records it), every check passes."""
    alternate = load_rules(ALTERNATE)
    assert alternate.submission.rescue_reading == "before-top-slot"
    result = run(tmp_path, "alternate", 60, "croupier: {force_result: pachinko}", rules=alternate)
    assert failing(result) == {}
