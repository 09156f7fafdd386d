"""Met, not met, not decisive (``hil.runner.judge``, docs/scenarios.md "Outcome").

The rules on synthetic check lists, the ``expect.pass`` field at load, the report's counts, the
exit status and junit.xml; and two tiny real runs: a ``--max-rounds 20`` smoke run of fault
scenarios exits 3 (not decisive, never 1), and among cut scenarios a real failure still makes it 1
while normal-play's χ² is not decisive.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from hil.cli import EXIT_EXPECTATION, EXIT_NOT_DECISIVE, EXIT_OK, app, load_run_inputs, run_exit_status
from hil.config import ConfigError
from hil.report import build_report, run_ok, run_outcome, write_junit
from hil.runner import judge, run_suite
from hil.scenario import parse_scenario
from hil.trace import TraceReader

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "crazy_time"
runner = CliRunner()


def _checks(**verdicts: str) -> list[dict]:
    """A check list: check id (underscores for dashes) -> verdict."""
    return [{"id": cid.replace("_", "-"), "verdict": v, "summary": f"{cid}: {v} summary"} for cid, v in verdicts.items()]


# ------------------------------------------------------------------------------ the rules
def test_an_expected_fail_that_came_out_indeterminate_is_not_decisive_never_met_nor_failed():
    got = judge(_checks(A="indeterminate", B="pass"), ["A"])
    assert got["outcome"] == "not decisive" and got["expectation_met"] is None
    assert got["missed_failures"] == [] and got["unexpected_failures"] == []
    assert got["undecided"] == [{"id": "A", "reason": "indeterminate (expected FAIL): A: indeterminate summary"}]


def test_an_unexpected_fail_is_not_met_whatever_else_came_out():
    got = judge(_checks(A="indeterminate", B="fail", C="indeterminate"), ["A"], expected_pass=["C"],
                cut_from_rounds=1000)
    assert got["outcome"] == "not met" and got["expectation_met"] is False
    assert got["unexpected_failures"] == ["B"] and [u["id"] for u in got["undecided"]] == ["A", "C"]


def test_a_check_the_scenario_exists_to_decide_must_pass():
    assert judge(_checks(A="pass", B="indeterminate"), [], expected_pass=["A"])["outcome"] == "met"
    undecided = judge(_checks(A="indeterminate"), [], expected_pass=["A"])
    assert undecided["outcome"] == "not decisive" and undecided["undecided"][0]["reason"].startswith(
        "indeterminate (expected PASS)")
    failed = judge(_checks(A="fail"), [], expected_pass=["A"])
    assert failed["outcome"] == "not met" and failed["unexpected_failures"] == ["A"]
    missing = judge(_checks(B="pass"), [], expected_pass=["A"])
    assert missing["outcome"] == "not met" and missing["missed_passes"] == ["A"]


def test_an_indeterminate_the_scenario_does_not_name_is_not_exercised_and_listed():
    got = judge(_checks(A="pass", B="indeterminate", C="indeterminate"), [])
    assert got["outcome"] == "met" and got["expectation_met"] is True
    assert got["not_exercised"] == ["B", "C"] and got["undecided"] == []


def test_an_expected_fail_that_passed_is_not_met_in_a_full_run_and_not_decisive_in_a_cut_one():
    full = judge(_checks(A="pass"), ["A"])
    assert full["outcome"] == "not met" and full["missed_failures"] == ["A"]
    cut = judge(_checks(A="pass"), ["A"], cut_from_rounds=60)
    assert cut["outcome"] == "not decisive" and cut["missed_failures"] == []
    assert "the scenario's 60 rounds" in cut["undecided"][0]["reason"]
    # an expected fail with no verdict at all is missed, cut or not
    assert judge(_checks(B="pass"), ["A"], cut_from_rounds=60)["missed_failures"] == ["A"]


def test_a_crash_is_not_met_even_when_every_check_met():
    got = judge(_checks(A="fail"), ["A"], "Traceback ...")
    assert got["outcome"] == "not met" and got["expectation_met"] is False


# ------------------------------------------------------------------ expect.pass at load
BASE = "schema: 1\nname: s\ngame: crazy-time\nseed: 1\nrounds: 3\nexpect:\n"


@pytest.mark.parametrize("expect, words", [
    ("  pass: [CT-690.2e-setlement]\n", ["unknown check id(s) ['CT-690.2e-setlement']", "did you mean 'CT-690.2e-settlement'"]),
    ("  pass: [RW-pocket-chi2]\n", ["expect.pass: ['RW-pocket-chi2'] are not checks of crazy-time"]),
    ("  fail: [CT-lockout]\n  pass: [CT-lockout]\n", ["named in both expect.fail and expect.pass"]),
    ("  pass: [CT-lockout, CT-lockout]\n", ["named twice"]),
])
def test_a_bad_expect_pass_is_refused_at_load_with_file_and_field(expect, words):
    with pytest.raises(ConfigError) as e:
        parse_scenario(BASE + expect, "s.yaml")
    text = str(e.value)
    assert text.startswith("s.yaml:") and "expect" in text, text
    assert all(w in text for w in words), text


def test_expect_pass_loads():
    sc = parse_scenario(BASE + "  pass: [CT-690.2e-settlement]\n", "s.yaml").scenario
    assert sc.expect.pass_ == ("CT-690.2e-settlement",) and sc.expect.fail == ()


# ---------------------------------------------------------------- report, exit, junit
def _result(name: str, checks: list[dict], expected_fail=(), expected_pass=(), cut=None) -> dict:
    return {"name": name, "file": f"{name}.yaml", "sha256": "0" * 64, "seed": 1, "trace": f"traces/{name}.sqlite",
            "expected_failures": list(expected_fail), "expected_passes": list(expected_pass), "cut_from_rounds": cut,
            "error": None, "wall_s": 0.1, "checks": [{**c, "section": "§ 690.1(a)", "findings": []} for c in checks],
            **judge(checks, expected_fail, expected_pass=expected_pass, cut_from_rounds=cut)}


def _na(name: str) -> dict:
    return {"name": name, "file": f"{name}.yaml", "expected_failures": [], "checks": [], "trace": None,
            "not_applicable": ["no control endpoint"], "outcome": "not applicable", "expectation_met": None}


def test_counts_exit_status_and_junit_of_each_outcome(tmp_path):
    met = _result("met", _checks(CT_lockout="fail", X="indeterminate"), ["CT-lockout"])
    undecided = _result("undecided", _checks(CT_lockout="indeterminate", Y="pass"), ["CT-lockout"], cut=60)
    failed = _result("failed", _checks(CT_lockout="fail"))
    report = build_report([met, undecided, _na("na")], {})
    assert report["summary"] == {"scenarios": 3, "expectations_met": 1, "expectations_not_met": 0,
                                 "not_decisive": 1, "not_applicable": 1}
    assert run_outcome([met, undecided]) == "not decisive" and not run_ok([met, undecided])
    assert run_exit_status([met, undecided, _na("na")]) == EXIT_NOT_DECISIVE == 3
    assert run_exit_status([met, undecided, failed]) == EXIT_EXPECTATION == 1  # not met beats not decisive
    assert run_exit_status([met, _na("na")]) == EXIT_OK == 0 and run_ok([met])
    assert run_exit_status([_na("na")]) == EXIT_EXPECTATION  # nothing ran: nothing proven
    write_junit(build_report([met, undecided, failed], {}), tmp_path / "junit.xml")
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "junit.xml").getroot()}
    case = suites["undecided"].find("testcase[@name='CT-lockout [§ 690.1(a)]']")
    assert case.find("failure") is None and case.find("skipped").get("message").startswith("NOT DECISIVE: indeterminate")
    assert suites["undecided"].get("failures") == "0" and suites["undecided"].get("skipped") == "1"
    assert suites["undecided"].find("properties/property[@name='outcome']").get("value") == "not decisive"
    not_exercised = suites["met"].find("testcase[@name='X [§ 690.1(a)]']/skipped")
    assert not_exercised.get("message").startswith("not exercised by this scenario")
    assert suites["met"].get("failures") == "0"
    assert suites["failed"].get("failures") == "1" and suites["failed"].find("testcase/failure") is not None


# ------------------------------------------------------------------ tiny real runs
#: fault scenarios whose expected FAILs 20 rounds cannot decide: a χ² short of spins, a fault not yet
#: exercised (the CLI run: exit status, report, junit.xml, check)
SMOKE = ["stat_imbalanced_wheel.yaml", "fault_dealer_applies_unaligned_top_slot.yaml"]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> tuple[object, Path]:
    out = tmp_path_factory.mktemp("smoke") / "out"
    res = runner.invoke(app, ["run", *(str(SUITE / f) for f in SMOKE), "--max-rounds", "20", "--out", str(out),
                              "--jobs", "1"])
    return res, out


def test_a_max_rounds_smoke_run_is_not_decisive_and_exits_3_never_1(smoke):
    res, out = smoke
    assert res.exit_code == EXIT_NOT_DECISIVE, res.output
    report = json.loads((out / "report.json").read_text())
    by = {s["name"]: s for s in report["scenarios"]}
    assert report["summary"] == {"scenarios": 2, "expectations_met": 0, "expectations_not_met": 0,
                                 "not_decisive": 2, "not_applicable": 0}
    for name in ("stat-imbalanced-wheel", "fault-dealer-applies-unaligned-top-slot"):
        assert by[name]["outcome"] == "not decisive" and by[name]["expectation_met"] is None, by[name]
        assert by[name]["cut_from_rounds"] > 20 and by[name]["undecided"], by[name]
    assert [u["id"] for u in by["stat-imbalanced-wheel"]["undecided"]] == ["CT-690.1a-section-chi2"]
    # the fault scenario's expected FAILs passed in 20 of its rounds: not yet exercised, not missed
    unaligned = by["fault-dealer-applies-unaligned-top-slot"]
    assert unaligned["missed_failures"] == [] and all("--max-rounds" in u["reason"] for u in unaligned["undecided"])
    assert "NOT DECISIVE" in res.output
    suite = next(s for s in ET.parse(out / "junit.xml").getroot() if s.get("name") == "stat-imbalanced-wheel")
    skipped = [c.find("skipped").get("message") for c in suite.findall("testcase") if c.find("skipped") is not None]
    assert any(m.startswith("NOT DECISIVE: indeterminate (expected FAIL)") for m in skipped), skipped
    assert suite.find("testcase/failure") is None and suite.get("failures") == "0"


def test_check_judges_a_cut_trace_as_the_run_did(smoke):
    _res, out = smoke
    trace = out / "traces" / "stat-imbalanced-wheel.sqlite"
    with TraceReader(trace) as reader:
        assert reader.meta()["expect"] == {"fail": ["CT-690.1a-section-chi2"], "pass": [], "cut_from_rounds": 20000}
    res = runner.invoke(app, ["check", str(trace)])
    assert res.exit_code == EXIT_NOT_DECISIVE, res.output
    body = json.loads(res.output)
    assert body["outcome"] == "not decisive" and body["undecided"][0]["id"] == "CT-690.1a-section-chi2"


def test_a_real_failure_in_a_smoke_run_still_exits_1_and_normal_play_is_not_decisive(tmp_path):
    """In-process (no report files): the scenarios as ``run --max-rounds`` loads and cuts them."""
    doc = yaml.safe_load((SUITE / "fault_slow_lockout.yaml").read_text(encoding="utf-8"))
    doc.update(name="slow-lockout-not-expected", expect={"fail": []})  # its CT-lockout FAIL is now a failure
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    scenarios, bench, rules, rx = load_run_inputs([broken, SUITE / "normal_play.yaml"], None, None, None, 20)
    results = run_suite(scenarios, bench, rules, tmp_path / "out", jobs=1, roulette_x=rx)
    by = {r["name"]: r for r in results}
    assert by["slow-lockout-not-expected"]["outcome"] == "not met"
    assert by["slow-lockout-not-expected"]["unexpected_failures"] == ["CT-lockout"]
    # the headline scenario: 20 rounds cannot decide the sections' χ² it names in expect.pass
    normal = by["normal-play"]
    assert normal["outcome"] == "not decisive" and normal["unexpected_failures"] == [], normal["unexpected_failures"]
    assert [u["id"] for u in normal["undecided"]] == ["CT-690.1a-section-chi2"]
    assert "BONUS-board-values-chi2" in normal["not_exercised"]  # not named: not exercised, no effect
    assert run_exit_status(results) == EXIT_EXPECTATION
    assert run_exit_status([normal]) == EXIT_NOT_DECISIVE
