"""The terminal summary (``hil.report.print_summary``): one table per game with that game's own
columns, the outcome of each scenario (NOT DECISIVE included), and a line on what the run proves of
its checks that means what it says (no "0/27 checks proven able to fail" for a run without fault
scenarios)."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from hil.checks import GAME_CHECKS
from hil.report import print_summary, proof_line, result_game, summary_columns


def _check(cid: str, verdict: str = "pass") -> dict:
    return {"id": cid, "section": "§ 690.2(a)", "verdict": verdict, "summary": f"{cid} {verdict}", "findings": []}


def _result(name: str, game: str | None, stats: dict, checks: list[dict], expected: tuple[str, ...] = (),
            outcome: str = "met", **extra) -> dict:
    r = {"name": name, "file": f"scenarios/x/{name}.yaml", "trace": f"traces/{name}.sqlite", "stats": stats,
         "checks": checks, "expected_failures": list(expected), "unexpected_failures": [], "missed_failures": [],
         "expectation_met": True if outcome == "met" else None if outcome == "not decisive" else False,
         "outcome": outcome, "forced_result": None, **extra}
    if game is not None:
        r["game"] = game
    return r


def _report(results: list[dict]) -> dict:
    cov: dict = {}
    for r in results:
        for c in r["checks"]:
            e = cov.setdefault(c["id"], {"section": c["section"], "clauses": [], "failed_as_expected_by": []})
            if c["id"] in r["expected_failures"] and c["verdict"] == "fail":
                e["failed_as_expected_by"].append(r["name"])
    outcomes = [r["outcome"] for r in results]
    return {"scenarios": results, "coverage": cov,
            "summary": {"scenarios": len(results), "expectations_met": outcomes.count("met"),
                        "expectations_not_met": outcomes.count("not met"),
                        "not_decisive": outcomes.count("not decisive"), "not_applicable": 0}}


def _printed(report: dict) -> str:
    console = Console(record=True, width=250, color_system=None)
    print_summary(report, Path("out"), console)
    return console.export_text()


def _table(text: str, title: str) -> str:
    """The lines of the table titled ``title`` (up to the next table or the summary lines)."""
    start = text.index(f"{title} — scenario verdicts") + len(title)
    end = re.search(r"— scenario verdicts|^\d+/\d+ scenarios", text[start + 20:], re.M)
    return text[start:start + 20 + end.start()] if end else text[start:]


CT = [_check("CT-690.2a-no-more-bets"), _check("CT-690.2b-three-revolutions")]
BJ = [_check("BJ-633b.17c2-lockout")]


def test_each_game_has_its_own_table_and_columns():
    report = _report([
        _result("normal-play", "crazy-time", {"rounds": 40, "spins": 41, "void_spins": 1, "void_rounds": 0,
                                              "bonus_coin_flip": 3, "bonus_pachinko": 2, "bonus_void": 0}, CT),
        _result("blackjack-normal-play", "blackjack", {"rounds": 30, "shuffles": 2, "void_rounds": 0,
                                                       "progressive_wagers": 95, "meter_hits": 0}, BJ),
        _result("roulette-normal-play", "roulette", {"rounds": 20, "spins": 20, "void_spins": 0, "void_rounds": 0,
                                                     "streaks": 3, "meter_hits": 1}, [_check("RU-617b.4-streak")]),
    ])
    text = _printed(report)
    ct, bj, ro = (_table(text, t) for t in ("Crazy Time", "Blackjack", "Roulette"))
    assert "spins" in ct and "bonus games" in ct and "shuffles" not in ct
    assert re.search(r"normal-play\s*│\s*40\s*│\s*41\s*│\s*1\s*│\s*5\s*│", ct), ct  # rounds spins void bonus
    assert "shuffles" in bj and "progressive wagers" in bj
    assert not any(w in bj for w in ("spins", "bonus", "void")), bj  # nothing of Crazy Time's, no all-zero column
    assert "streaks" in ro and "meter hits" in ro and "bonus" not in ro and "shuffles" not in ro
    assert text.index("Crazy Time —") < text.index("Roulette —") < text.index("Blackjack —")


def test_a_stats_key_no_column_names_is_still_shown():
    cols = summary_columns("uth", [_result("x", "uth", {"rounds": 3, "wagers": 9, "new_counter": 2}, [])])
    assert ("new counter", "new_counter") in cols and ("wagers", "wagers") in cols
    assert [h for h, _k in summary_columns("nonesuch", [_result("x", None, {"rounds": 1, "z": 4}, [])])] == ["rounds",
                                                                                                       "z"]


def test_the_game_of_an_older_result_comes_from_its_checks_or_its_folder():
    bj_check = GAME_CHECKS["blackjack"][0].id
    assert result_game(_result("a", None, {}, [_check(bj_check)])) == "blackjack"
    assert result_game({"name": "b", "file": "scenarios/crazy_time/b.yaml", "checks": []}) == "crazy-time"
    assert result_game({"name": "c", "file": "scenarios/roulette/c.yaml", "checks": [], "game": "roulette"}) \
        == "roulette"


def test_a_run_without_fault_scenarios_claims_no_proof():
    report = _report([_result("normal-play", "crazy-time", {"rounds": 5, "spins": 5}, CT)])
    line = proof_line(report)
    assert "0/" not in line and "proven able to fail" not in line
    assert line.startswith("no fault scenario ran") and "2 checks" in line
    text = _printed(report)
    assert "1/1 scenarios met their expectation; no fault scenario ran" in " ".join(text.split())
    assert "CT-690.2a-no-more-bets" not in text.split("scenarios met their expectation")[1]  # no id list


def test_the_proof_counts_only_the_checks_its_fault_scenarios_target():
    checks = [_check("CT-690.2a-no-more-bets", "fail"), _check("CT-690.2b-three-revolutions"),
              _check("CT-lockout"), _check("CT-690.3-top-slot")]
    report = _report([_result("fault-dealer-spins", "crazy-time", {"rounds": 5}, checks,
                              ("CT-690.2a-no-more-bets", "CT-lockout"), outcome="not met",
                              missed_failures=["CT-lockout"]),
                      _result("normal-play", "crazy-time", {"rounds": 5}, [_check(c["id"]) for c in checks])])
    line = proof_line(report)
    assert line == ("1/2 checks proven able to fail by a fault scenario (not: CT-lockout); "
                    "2 other check(s) ran with no fault scenario for them in this run")
    full = _report([_result("fault-a", "crazy-time", {"rounds": 5}, [_check("CT-lockout", "fail")], ("CT-lockout",))])
    assert proof_line(full) == "1/1 checks proven able to fail by a fault scenario"
    smoke = _report([_result("fault-b", "crazy-time", {"rounds": 5}, [_check("CT-lockout", "indeterminate")],
                             ("CT-lockout",), outcome="not decisive")])  # --max-rounds cut it short
    assert proof_line(smoke) == ("0/1 checks proven able to fail by a fault scenario; 1 undecided, their fault "
                                 "scenarios NOT DECISIVE")


def test_not_decisive_is_shown_with_why():
    r = _result("stat-unbiased-wheel", "crazy-time", {"rounds": 5, "spins": 5}, [_check("CT-chi2", "indeterminate")],
                outcome="not decisive", undecided=[{"id": "CT-chi2", "reason": "indeterminate: 5 spins, need 540"}])
    text = " ".join(_printed(_report([r])).split())
    assert "NOT DECISIVE │" in text or "│ NOT DECISIVE" in text
    assert "stat-unbiased-wheel: CT-chi2 indeterminate: 5 spins, need 540" in text
    assert "0/1 scenarios met their expectation (1 NOT DECISIVE)" in text
    older = {k: v for k, v in r.items() if k != "outcome"}  # a report before outcomes: from expectation_met
    older["expectation_met"] = False
    assert "NOT MET" in _printed(_report([{**older, "outcome": None}]))


def test_a_narrow_terminal_folds_the_tables_never_crops_them():
    checks = [_check(f"CT-690.{i}-some-check-with-a-long-id", "fail") for i in range(3)]
    stats = {"rounds": 1000, "spins": 1001, "void_spins": 1, "void_rounds": 2, "bonus_coin_flip": 3, "bonus_void": 1,
             "late_presses_refused": 4, "wagers_refused_limits": 5, "actuations_lost": 6}
    results = [_result(f"fault-a-rather-long-scenario-name-{i}", "crazy-time", stats, checks,
                       tuple(c["id"] for c in checks), forced_result="pachinko") for i in range(3)]
    console = Console(record=True, width=100, color_system=None)
    print_summary(_report(results), Path("out"), console)
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 100
    table = [ln for ln in lines if ln[:1] in "┏┃┡│└"]
    assert all(ln.rstrip()[-1] in "┓┃┩│┘" for ln in table), "\n".join(lines)  # every line whole: its right border
    assert sum("│ MET" in ln for ln in table) == 3 and "│ rounds 1000, spins" in "\n".join(lines), "\n".join(lines)
