"""Reports of a run: ``report.json`` (the lab's record), ``junit.xml`` (CI), a terminal summary.

``report.json``::

    {"report_schema": 1,
     "provenance": {git SHA and dirty flag, sha256 of bench / scenario / rules files, seeds,
                    package versions, python, platform, host, command, started/finished (UTC)},
     "summary": {"scenarios", "expectations_met", "expectations_not_met", "not_decisive", "not_applicable"},
     "refused": {"kind", "role", "scenario", "reason"}   (only when the bench refused to run on: exit 2),
     "coverage": {check id: {"section", "clauses": [clause id, ...], "failed_as_expected_by": [scenario, ...]}},
     "clause_coverage": {"counts": {"clauses", "fault-proven", "checked", "out of scope", "not covered"},
                         "by_game": {game: counts}, "by_section": {section: counts},
                         "not_covered": [clause id, ...],
                         "clauses": {clause id: {"status", "checks", "proven_by"}}},
     "scenarios": [{"name", "game", "file", "sha256", "seed",
                    "outcome": "met" | "not met" | "not decisive" | "not applicable"   (hil.runner.judge),
                    "expectation_met": true (met) | false (not met) | null (not decisive, not applicable),
                    "expected_failures", "expected_passes", "cut_from_rounds" (--max-rounds cut it from N; null),
                    "unexpected_failures", "missed_failures", "missed_passes",
                    "undecided": [{"id", "reason"}]   (named checks left undecided: why NOT DECISIVE),
                    "not_exercised": [check id, ...]  (other checks indeterminate: not exercised by it),
                    "stats", "trace", "wall_s", "forced_result",
                    "not_applicable": [reason, ...]   (only for a scenario NOT APPLICABLE on this bench:
                                                       not run, no trace, "expectation_met" null),
                    "checks": [{"id", "section", "title", "regulation", "verdict", "summary",
                                "measurements": [{"name", "value", "unit", "bracket", "limit"}],
                                "findings": [{"round", "seq", "message"}], ...}]}]}

Wall-clock fields (``provenance``, ``wall_s``, and ``manifest``: the hash of manifest.json, whose
trace hashes cover the events' wall-clock stamps, docs/pack.md) are the only ones that differ between
two runs with the same seed.

NOT APPLICABLE (docs/wire/real-devices.md): a scenario whose faults or overrides the bench cannot
apply to a device is not run. It counts neither as met nor as not met (``summary.not_applicable``);
in junit.xml it is one skipped testcase saying why; the terminal summary lists every one of them
with its reason.

NOT DECISIVE (``hil.runner.judge``, docs/scenarios.md "Outcome"): the run left a check the scenario
names undecided (an expected FAIL or an ``expect.pass`` check indeterminate, or an expected FAIL
passing in a run ``--max-rounds`` cut short). Never met, never a failure (``summary.not_decisive``);
in junit.xml its undecided checks are skipped testcases saying why, never failures.

``run_outcome``: the run is NOT MET if any scenario that ran is not met (or none ran), else NOT
DECISIVE if any is not decisive, else MET — ``croupier run`` exits 1, 3, 0 (hil/cli.py).
"""

from __future__ import annotations

import datetime as dt
import getpass
import hashlib
import importlib.metadata
import platform
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

REPORT_SCHEMA = 1
WALL_CLOCK_FIELDS = ("provenance", "wall_s", "manifest")
_PACKAGES = ("croupier", "simpy", "numpy", "scipy", "pydantic", "pyyaml", "orjson", "typer", "rich")


def _git(*args: str) -> str | None:
    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def provenance(bench, rules, scenarios, seed_override, started: dt.datetime, roulette_x=None) -> dict[str, Any]:
    versions = {}
    for pkg in _PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_sha": _git("rev-parse", "HEAD"),
        "git_dirty": bool(dirty) if dirty is not None else None,
        "bench": {"name": bench.config.name, "source": bench.source, "sha256": _sha(bench.text)},
        "rules": {"name": rules.submission.name, "source": rules.source, "sha256": rules.sha256},
        "roulette_x_rules": None if roulette_x is None else {
            "name": roulette_x.submission.name, "source": roulette_x.source, "sha256": roulette_x.sha256},
        "scenarios": {s.scenario.name: {"file": s.path, "sha256": s.sha256} for s in scenarios},
        "seed_override": seed_override,
        "rounds_run": {s.scenario.name: s.scenario.rounds for s in scenarios},
        "seeds": {s.scenario.name: s.scenario.seed for s in scenarios},
        "packages": versions,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "host": socket.gethostname(),
        "user": getpass.getuser(),
        "command": sys.argv,
        "started_utc": started.isoformat(),
        "finished_utc": dt.datetime.now(dt.timezone.utc).isoformat(),
    }


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def coverage(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per check: the clauses its section cites (``hil.traceability``) and which fault scenarios
    expected it to fail and saw it fail."""
    from hil.traceability import parse_citation

    cov: dict[str, Any] = {}
    for r in results:
        for c in r["checks"]:
            entry = cov.get(c["id"])
            if entry is None:
                entry = cov[c["id"]] = {"section": c["section"], "clauses": list(parse_citation(c["section"]).clauses),
                                        "failed_as_expected_by": []}
            if c["id"] in r["expected_failures"] and c["verdict"] == "fail":
                entry["failed_as_expected_by"].append(r["name"])
    return cov


def clause_coverage(cov: dict[str, Any]) -> dict[str, Any]:
    """Every clause of the supplied sections for this run: fault-proven (a citing check failed as a
    fault scenario expected), checked (a citing check ran), out of scope (declared) or not covered."""
    from hil.traceability import run_coverage

    return run_coverage(cov)


def not_applicable(r: dict[str, Any]) -> bool:
    """The scenario was not run: the bench cannot apply its faults or overrides."""
    return bool(r.get("not_applicable"))


def outcome(r: dict[str, Any]) -> str:
    """A scenario result's outcome: "met", "not met", "not decisive" or "not applicable"
    (``hil.runner.judge``); a result without one (an older report) from ``expectation_met``."""
    if r.get("outcome"):
        return r["outcome"]
    if not_applicable(r):
        return "not applicable"
    return "met" if r.get("expectation_met") else "not met"


def build_report(results: list[dict[str, Any]], prov: dict[str, Any],
                 refused: dict[str, Any] | None = None) -> dict[str, Any]:
    counts = {o: sum(outcome(r) == o for r in results) for o in ("met", "not met", "not decisive", "not applicable")}
    cov = coverage(results)
    report = {
        "report_schema": REPORT_SCHEMA,
        "provenance": prov,
        "summary": {"scenarios": len(results), "expectations_met": counts["met"],
                    "expectations_not_met": counts["not met"], "not_decisive": counts["not decisive"],
                    "not_applicable": counts["not applicable"]},
        "coverage": cov,
        "clause_coverage": clause_coverage(cov),
        "scenarios": results,
    }
    if refused is not None:
        report["refused"] = refused
    return report


def run_outcome(results: list[dict[str, Any]]) -> str:
    """The run's outcome: "not met" when a scenario that ran is not met, or none ran; else "not
    decisive" when one is not decisive; else "met" (``croupier run`` exits 1, 3, 0)."""
    ran = [outcome(r) for r in results if outcome(r) != "not applicable"]
    if not ran or "not met" in ran:
        return "not met"
    return "not decisive" if "not decisive" in ran else "met"


def run_ok(results: list[dict[str, Any]]) -> bool:
    """Exit 0: every scenario that ran met its expectation, and at least one ran (none is not
    decisive: ``run_outcome``)."""
    return run_outcome(results) == "met"


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def write_junit(report: dict[str, Any], path: Path) -> None:
    """One testsuite per scenario (its ``outcome`` a property), one testcase per check. A testcase
    fails when its check makes the scenario NOT MET (``unexpected_failures``, ``missed_failures``,
    ``missed_passes``); it is skipped, saying why, when it left the scenario NOT DECISIVE ("NOT
    DECISIVE: ...", never a failure) or was not exercised (indeterminate, not named by the
    scenario); otherwise it passes (a fault scenario's expected FAIL passes)."""
    suites = ET.Element("testsuites", name="croupier")
    for r in report["scenarios"]:
        failures = skipped = 0
        suite = ET.SubElement(suites, "testsuite", name=r["name"], tests=str(len(r["checks"]) or 1),
                              time=str(r.get("wall_s", 0)))
        props = ET.SubElement(suite, "properties")
        for k in ("file", "sha256", "seed", "trace", "cut_from_rounds"):
            if r.get(k) is not None:
                ET.SubElement(props, "property", name=k, value=str(r[k]))
        ET.SubElement(props, "property", name="outcome", value=outcome(r))
        if not_applicable(r):  # not run: one skipped case that says why
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}", name="NOT APPLICABLE on this bench")
            reason = "; ".join(r["not_applicable"])
            ET.SubElement(case, "skipped", message=f"NOT APPLICABLE: {reason}")
            skipped += 1
        not_met = set(r.get("unexpected_failures", ())) | set(r.get("missed_failures", ()))
        undecided = {u["id"]: u["reason"] for u in r.get("undecided", ())}
        for c in r["checks"]:
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}",
                                 name=f"{c['id']} [{c['section']}]")
            expected = ("fail" if c["id"] in r["expected_failures"] else
                        "pass" if c["id"] in r.get("expected_passes", ()) else "not fail")
            detail = "\n".join([f"verdict: {c['verdict']} (expected {expected})", c["summary"]]
                               + [f"round {f['round']} seq {f['seq']}: {f['message']}" for f in c["findings"]])
            if c["id"] in not_met:
                failures += 1
                ET.SubElement(case, "failure", message=c["summary"]).text = detail
            elif c["id"] in undecided:
                skipped += 1
                ET.SubElement(case, "skipped", message=f"NOT DECISIVE: {undecided[c['id']]}")
            elif c["verdict"] == "indeterminate":
                skipped += 1
                ET.SubElement(case, "skipped", message=f"not exercised by this scenario: {c['summary']}")
            ET.SubElement(case, "system-out").text = detail
        for cid in r.get("missed_passes", ()):  # named in expect.pass, never judged
            failures += 1
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}", name=cid)
            ET.SubElement(case, "failure", message=f"{cid}: expected PASS, no verdict")
        if r.get("error"):
            failures += 1
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}", name="scenario run")
            ET.SubElement(case, "error", message="scenario crashed").text = r["error"]
        suite.set("failures", str(failures))
        if skipped:
            suite.set("skipped", str(skipped))
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


#: each game's name in the summary's table titles (``hil.tables``' game ids)
GAME_NAMES = {"crazy-time": "Crazy Time", "roulette": "Roulette", "blackjack": "Blackjack",
              "uth": "Ultimate Texas Hold 'Em", "criss-cross": "Criss-Cross Poker", "crazy-4": "Crazy 4 Poker"}


def _bonus_games(st: dict[str, Any]) -> int | None:
    keys = [k for k in st if k.startswith("bonus_") and k != "bonus_void"]
    return sum(st[k] for k in keys) if keys else None


#: each game's summary columns: (header, the ``stats`` key, or a function of the stats); a column is
#: shown when a scenario of the table counted something in it (rounds always). Stats keys no column
#: names are shown after them, on the same rule.
SUMMARY_COLUMNS: dict[str, tuple[tuple[str, Any], ...]] = {
    "crazy-time": (("rounds", "rounds"), ("spins", "spins"), ("void spins", "void_spins"),
                   ("void rounds", "void_rounds"), ("bonus games", _bonus_games), ("void bonus", "bonus_void"),
                   ("refused late", "late_presses_refused"), ("over limits", "wagers_refused_limits")),
    "roulette": (("rounds", "rounds"), ("spins", "spins"), ("void spins", "void_spins"),
                 ("void rounds", "void_rounds"), ("streaks", "streaks"), ("meter hits", "meter_hits"),
                 ("refused late", "late_presses_refused")),
    "blackjack": (("rounds", "rounds"), ("shuffles", "shuffles"), ("void rounds", "void_rounds"),
                  ("progressive wagers", "progressive_wagers"), ("meter hits", "meter_hits"),
                  ("refused late", "late_presses_refused")),
    "uth": (("rounds", "rounds"), ("shuffles", "shuffles"), ("void rounds", "void_rounds"), ("wagers", "wagers"),
            ("winners", "winners")),
    "criss-cross": (("rounds", "rounds"), ("shuffles", "shuffles"), ("void rounds", "void_rounds"),
                    ("wagers", "wagers"), ("winners", "winners")),
    "crazy-4": (("rounds", "rounds"), ("void rounds", "void_rounds"), ("wager requests", "requests"),
                ("accepted", "accepted"), ("refused", "refused"), ("play wagers", "play_wagers"),
                ("positions refused", "positions_refused"), ("players left", "players_left")),
}
_FOLDER_GAMES = {"crazy_time": "crazy-time", "criss_cross": "criss-cross", "crazy4": "crazy-4"}


def result_game(r: dict[str, Any]) -> str:
    """The game of a scenario result: its ``game``, else (an older report) the game whose checks
    it ran, else its file's folder (scenarios/<game>/)."""
    if r.get("game"):
        return r["game"]
    if r.get("checks"):
        from hil.checks import GAME_CHECKS

        first = r["checks"][0]["id"]
        for game, checks in GAME_CHECKS.items():
            if any(c.id == first for c in checks):
                return game
    folder = Path(str(r.get("file", ""))).parent.name
    return _FOLDER_GAMES.get(folder, folder.replace("_", "-") or "other")


def summary_columns(game: str, results: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The columns of ``game``'s summary table for these results: the game's own
    (``SUMMARY_COLUMNS``) in which any of them counted something (rounds always), then, on the
    same rule, any stats key none of those covers."""
    stats = [r.get("stats") or {} for r in results]
    keys = {k for st in stats for k in st}
    columns, covered = [], set()
    for header, key in SUMMARY_COLUMNS.get(game, (("rounds", "rounds"),)):
        if callable(key):
            covered |= {k for k in keys if k.startswith("bonus_")}
        else:
            covered.add(key)
        if key == "rounds" or any(key(st) if callable(key) else st.get(key) for st in stats):
            columns.append((header, key))
    columns += [(k.replace("_", " "), k) for k in sorted(keys - covered) if any(st.get(k) for st in stats)]
    return columns


def _outcome(r: dict[str, Any]) -> str:
    """The scenario's outcome (``r["outcome"]``); from ``expectation_met`` in an older report."""
    if r.get("outcome"):
        return r["outcome"]
    if not_applicable(r):
        return "not applicable"
    return "met" if r.get("expectation_met") else "not met"


_OUTCOME_CELLS = {"met": "[green]MET[/]", "not met": "[red]NOT MET[/]", "not decisive": "[yellow]NOT DECISIVE[/]",
                  "not applicable": "[yellow]NOT APPLICABLE[/]"}


def proof_line(report: dict[str, Any]) -> str:
    """What the run proves of its checks: how many of the checks its fault scenarios target were
    seen failing as expected, and how many checks ran with no fault scenario for them; a run
    without a fault scenario says it proves no check able to fail."""
    cov = report["coverage"]
    ran = [r for r in report["scenarios"] if _outcome(r) != "not applicable"]
    targeted = sorted({cid for r in ran for cid in r.get("expected_failures", ()) if cid in cov})
    if not targeted:
        return (f"no fault scenario ran, so this run proves none of its {len(cov)} checks able to fail: they judged "
                "the devices only (the bundled suite's fault scenarios prove each check can fail: croupier run)")
    unproven = [cid for cid in targeted if not cov[cid]["failed_as_expected_by"]]
    # a check only NOT DECISIVE scenarios targeted is undecided (listed above with why), not disproven
    undecided = [cid for cid in unproven if all(_outcome(r) == "not decisive" for r in ran
                                                if cid in r.get("expected_failures", ()))]
    failed = [cid for cid in unproven if cid not in undecided]
    line = (f"{len(targeted) - len(unproven)}/{len(targeted)} checks proven able to fail by a fault scenario"
            + (f" (not: {', '.join(failed)})" if failed else "")
            + (f"; {len(undecided)} undecided, their fault scenarios NOT DECISIVE" if undecided else ""))
    if others := len(cov) - len(targeted):
        line += f"; {others} other check(s) ran with no fault scenario for them in this run"
    return line


def print_summary(report: dict[str, Any], out_dir: Path, console: Console | None = None) -> None:
    """The terminal summary: one table per game (its own columns, ``SUMMARY_COLUMNS``), then the
    scenarios NOT APPLICABLE, NOT DECISIVE and NOT MET with why, the tally and what the run proves
    (``proof_line``)."""
    # a terminal's own width (columns wrap or fold to fit, never cropped); a log file gets each table
    # at its natural width, whole (a full suite's Crazy Time table is ~290 columns)
    console = console or Console(width=None if sys.stdout.isatty() else 1000)
    by_game: dict[str, list[dict[str, Any]]] = {game: [] for game in GAME_NAMES}
    for r in report["scenarios"]:
        by_game.setdefault(result_game(r), []).append(r)
    for game, results in by_game.items():
        if not results:
            continue
        columns = summary_columns(game, results)
        wide = console.width >= 200  # room for a column per count; a narrower terminal gets them in one
        forced_col = any(r.get("forced_result") for r in results)
        table = Table(title=f"{GAME_NAMES.get(game, game)} — scenario verdicts", show_lines=False)
        longest = max(len(r["name"]) for r in results)
        table.add_column("scenario", overflow="fold", min_width=min(longest, console.width // 5) if wide else None)
        if forced_col:
            table.add_column("forced", overflow="fold")
        if wide:  # one column per count
            for header, _key in columns:
                table.add_column(header, justify="right", overflow="fold")
        else:  # a narrow terminal: the counts in one column that wraps ("rounds 40, spins 41, ...")
            table.add_column("counts", overflow="fold")
        table.add_column("checks pass/fail/indet." if wide else "checks p/f/i", overflow="fold",
                         min_width=len("pass/fail/indet.") if wide else None)
        table.add_column("expected to fail", overflow="fold")
        table.add_column("verdict", overflow="fold")
        for r in results:
            verdicts = [c["verdict"] for c in r["checks"]]
            st = r.get("stats") or {}
            cells = []
            for _header, key in columns:
                value = key(st) if callable(key) else st.get(key)
                cells.append("—" if value is None else str(value))
            if not wide:
                cells = [", ".join(f"{h} {c}" for (h, _k), c in zip(columns, cells) if c != "—") or "—"]
            tally = f"{verdicts.count('pass')}/{verdicts.count('fail')}/{verdicts.count('indeterminate')}"
            forced = [r.get("forced_result") or "—"] if forced_col else []
            table.add_row(r["name"], *forced, *cells, tally, "\n".join(r.get("expected_failures", ())) or "—",
                          _OUTCOME_CELLS.get(_outcome(r), _outcome(r)))
        console.print(table)
    if na := [r for r in report["scenarios"] if not_applicable(r)]:
        console.print(f"[bold yellow]⚠ {len(na)} scenario(s) NOT APPLICABLE on this bench — NOT RUN, nothing proven "
                      "by them:[/]")
        for r in na:
            for reason in r["not_applicable"]:
                console.print(f"[yellow]  {r['name']}: {reason}[/]")
    if nd := [r for r in report["scenarios"] if _outcome(r) == "not decisive"]:
        console.print(f"[bold yellow]? {len(nd)} scenario(s) NOT DECISIVE — neither met nor failed: this run did not "
                      "decide them:[/]")
        for r in nd:
            for u in r.get("undecided", ()):
                console.print(f"[yellow]  {r['name']}: {u['id']} {u['reason']}[/]")
    for r in report["scenarios"]:
        if _outcome(r) != "not met":
            continue
        console.print(f"[red]✗ {r['name']}[/] ({r['file']}): trace {out_dir / r['trace']}")
        if r.get("error"):
            console.print(r["error"])
        wrong = set(r.get("unexpected_failures", ())) | set(r.get("missed_failures", ()))
        for c in r["checks"]:
            if c["id"] in wrong:
                exp = "expected FAIL" if c["id"] in r["expected_failures"] else "expected no failure"
                console.print(f"  {c['id']} {c['section']}: {c['verdict']} ({exp}) — {c['summary']}")
                for f in c["findings"][:5]:
                    console.print(f"    round {f['round']} seq {f['seq']}: {f['message']}")
        for cid in r.get("missed_passes", ()):
            console.print(f"  {cid}: expected PASS, no verdict")
    s = report["summary"]
    ran = s["scenarios"] - s.get("not_applicable", 0)
    console.print(f"{s['expectations_met']}/{ran} scenarios met their expectation"
                  + (f" ({s['not_decisive']} NOT DECISIVE)" if s.get("not_decisive") else "")
                  + (f" ({s['not_applicable']} NOT APPLICABLE, not run)" if s.get("not_applicable") else "")
                  + "; " + proof_line(report))
    cc = report.get("clause_coverage")
    if cc:
        n = cc["counts"]
        console.print(f"clauses of the supplied sections: {n['clauses']} — {n['fault-proven']} fault-proven, "
                      f"{n['checked']} checked, {n['out of scope']} out of scope, {n['not covered']} not covered "
                      "in this run (croupier traceability lists them)")
    reports = [out_dir / name for name in ("report.json", "report.html", "junit.xml", "manifest.json")
               if name in ("report.json", "junit.xml") or (out_dir / name).exists()]
    console.print(f"reports: {', '.join(map(str, reports))}; traces: {out_dir / 'traces'}")
