"""Reports of a run: ``report.json`` (the lab's record), ``junit.xml`` (CI), a terminal summary.

``report.json``::

    {"report_schema": 1,
     "provenance": {git SHA and dirty flag, sha256 of bench / scenario / rules files, seeds,
                    package versions, python, platform, host, command, started/finished (UTC)},
     "summary": {"scenarios", "expectations_met", "expectations_not_met", "not_applicable"},
     "refused": {"kind", "role", "scenario", "reason"}   (only when the bench refused to run on: exit 2),
     "coverage": {check id: {"section", "clauses": [clause id, ...], "failed_as_expected_by": [scenario, ...]}},
     "clause_coverage": {"counts": {"clauses", "fault-proven", "checked", "out of scope", "not covered"},
                         "by_game": {game: counts}, "by_section": {section: counts},
                         "not_covered": [clause id, ...],
                         "clauses": {clause id: {"status", "checks", "proven_by"}}},
     "scenarios": [{"name", "file", "sha256", "seed", "expectation_met", "expected_failures",
                    "unexpected_failures", "missed_failures", "stats", "trace", "wall_s", "forced_result",
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
with its reason. ``croupier run`` exits 0 only if every scenario that ran met its expectation and
at least one ran.
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


def build_report(results: list[dict[str, Any]], prov: dict[str, Any],
                 refused: dict[str, Any] | None = None) -> dict[str, Any]:
    na = sum(not_applicable(r) for r in results)
    met = sum(bool(r["expectation_met"]) for r in results)
    cov = coverage(results)
    report = {
        "report_schema": REPORT_SCHEMA,
        "provenance": prov,
        "summary": {"scenarios": len(results), "expectations_met": met,
                    "expectations_not_met": len(results) - na - met, "not_applicable": na},
        "coverage": cov,
        "clause_coverage": clause_coverage(cov),
        "scenarios": results,
    }
    if refused is not None:
        report["refused"] = refused
    return report


def run_ok(results: list[dict[str, Any]]) -> bool:
    """Exit 0: every scenario that ran met its expectation, and at least one ran."""
    ran = [r for r in results if not not_applicable(r)]
    return bool(ran) and all(r["expectation_met"] for r in ran)


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def write_junit(report: dict[str, Any], path: Path) -> None:
    """One testsuite per scenario, one testcase per check; a testcase fails when the check's
    verdict does not meet the scenario's expectation (a fault scenario's expected FAIL passes)."""
    suites = ET.Element("testsuites", name="croupier")
    for r in report["scenarios"]:
        failures = 0
        suite = ET.SubElement(suites, "testsuite", name=r["name"], tests=str(len(r["checks"]) or 1),
                              time=str(r.get("wall_s", 0)))
        props = ET.SubElement(suite, "properties")
        for k in ("file", "sha256", "seed", "trace"):
            if r.get(k) is not None:
                ET.SubElement(props, "property", name=k, value=str(r[k]))
        if not_applicable(r):  # not run: one skipped case that says why
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}", name="NOT APPLICABLE on this bench")
            reason = "; ".join(r["not_applicable"])
            ET.SubElement(case, "skipped", message=f"NOT APPLICABLE: {reason}")
            suite.set("skipped", "1")
        for c in r["checks"]:
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}",
                                 name=f"{c['id']} [{c['section']}]")
            expected_fail = c["id"] in r["expected_failures"]
            ok = (c["verdict"] == "fail") if expected_fail else (c["verdict"] != "fail")
            detail = "\n".join([f"verdict: {c['verdict']} (expected {'fail' if expected_fail else 'not fail'})",
                                c["summary"]] + [f"round {f['round']} seq {f['seq']}: {f['message']}"
                                                 for f in c["findings"]])
            if not ok:
                failures += 1
                ET.SubElement(case, "failure", message=c["summary"]).text = detail
            elif c["verdict"] == "indeterminate":
                ET.SubElement(case, "skipped", message=c["summary"])
            ET.SubElement(case, "system-out").text = detail
        if r.get("error"):
            failures += 1
            case = ET.SubElement(suite, "testcase", classname=f"croupier.{r['name']}", name="scenario run")
            ET.SubElement(case, "error", message="scenario crashed").text = r["error"]
        suite.set("failures", str(failures))
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
        met = ("[yellow]NOT APPLICABLE[/]" if not_applicable(r) else
               "[green]MET[/]" if r["expectation_met"] else "[red]NOT MET[/]")
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
    for r in report["scenarios"]:
        if r["expectation_met"] or not_applicable(r):
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
