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
     "scenarios": [{"name", "file", "sha256", "seed",
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

Wall-clock fields (``provenance``, ``wall_s``) are the only ones that differ between two runs
with the same seed.

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
WALL_CLOCK_FIELDS = ("provenance", "wall_s")
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


def print_summary(report: dict[str, Any], out_dir: Path, console: Console | None = None) -> None:
    console = console or Console(width=None if sys.stdout.isatty() else 160)
    table = Table(title="Croupier — scenario verdicts", show_lines=False)
    for col in ("scenario", "rounds", "spins", "void", "bonus", "checks pass/fail/indet.", "expected to fail",
                "verdict"):
        table.add_column(col, justify="right" if col in ("rounds", "spins", "void", "bonus") else "left",
                         no_wrap=col == "scenario")
    for r in report["scenarios"]:
        verdicts = [c["verdict"] for c in r["checks"]]
        st = r.get("stats") or {}
        tally = f"{verdicts.count('pass')}/{verdicts.count('fail')}/{verdicts.count('indeterminate')}"
        met = {"not applicable": "[yellow]NOT APPLICABLE[/]", "met": "[green]MET[/]",
               "not decisive": "[yellow]NOT DECISIVE[/]"}.get(outcome(r), "[red]NOT MET[/]")
        bonus = sum(v for k, v in st.items() if k.startswith("bonus_") and k != "bonus_void")
        forced = f" (forced {r['forced_result']})" if r.get("forced_result") else ""
        table.add_row(r["name"] + forced, str(st.get("rounds", 0)), str(st.get("spins", 0)),
                      str(st.get("void_spins", 0)), str(bonus), tally, ", ".join(r["expected_failures"]) or "—", met)
    console.print(table)
    if na := [r for r in report["scenarios"] if not_applicable(r)]:
        console.print(f"[bold yellow]⚠ {len(na)} scenario(s) NOT APPLICABLE on this bench — NOT RUN, nothing proven "
                      "by them:[/]")
        for r in na:
            for reason in r["not_applicable"]:
                console.print(f"[yellow]  {r['name']}: {reason}[/]")
    if nd := [r for r in report["scenarios"] if outcome(r) == "not decisive"]:
        console.print(f"[bold yellow]? {len(nd)} scenario(s) NOT DECISIVE — neither met nor failed; this run did not "
                      "decide:[/]")
        for r in nd:
            for u in r.get("undecided", ()):
                console.print(f"[yellow]  {r['name']}: {u['id']} {u['reason']}[/]")
    for r in report["scenarios"]:
        if outcome(r) != "not met":
            continue
        console.print(f"[red]✗ {r['name']}[/] ({r['file']}): trace {out_dir / r['trace']}")
        if r.get("error"):
            console.print(r["error"])
        for c in r["checks"]:
            if c["id"] in r["unexpected_failures"] or c["id"] in r["missed_failures"]:
                exp = "expected FAIL" if c["id"] in r["expected_failures"] else "expected no failure"
                console.print(f"  {c['id']} {c['section']}: {c['verdict']} ({exp}) — {c['summary']}")
                for f in c["findings"][:5]:
                    console.print(f"    round {f['round']} seq {f['seq']}: {f['message']}")
    cov = report["coverage"]
    uncovered = [cid for cid, e in cov.items() if not e["failed_as_expected_by"]]
    s = report["summary"]
    console.print(f"{s['expectations_met']}/{s['scenarios'] - s.get('not_applicable', 0)} scenarios met their expectation"
                  + (f" ({s['not_decisive']} NOT DECISIVE)" if s.get("not_decisive") else "")
                  + (f" ({s['not_applicable']} NOT APPLICABLE, not run)" if s.get("not_applicable") else "") + "; "
                  f"{len(cov) - len(uncovered)}/{len(cov)} checks proven able to fail by a fault scenario"
                  + (f" (not: {', '.join(uncovered)})" if uncovered else ""))
    cc = report.get("clause_coverage")
    if cc:
        n = cc["counts"]
        console.print(f"clauses of the supplied sections: {n['clauses']} — {n['fault-proven']} fault-proven, "
                      f"{n['checked']} checked, {n['out of scope']} out of scope, {n['not covered']} not covered "
                      "in this run (croupier traceability lists them)")
    console.print(f"reports: {out_dir / 'report.json'}, {out_dir / 'junit.xml'}; traces: {out_dir / 'traces'}")
