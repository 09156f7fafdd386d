"""The pytest plugin (hil/pytest_plugin.py, docs/pytest.md): `pytest scenarios/` collects each scenario
YAML as an item and runs it on the bench, with `croupier run`'s loaders and runner.

Each test runs an inner pytest session (the ``pytester`` fixture) on tiny scenarios of a few rounds
written in its own tmp dir; the plugin is active there as everywhere (its ``pytest11`` entry point).
"""

from __future__ import annotations

import re
import shutil
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hil.pytest_plugin import is_scenario_file

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]

#: a healthy Crazy Time table, two rounds: every check passes or is indeterminate (too few spins)
OK = """\
schema: 1
name: {name}
game: crazy-time
seed: 7
rounds: 2
players: {{count: 2}}
"""
#: the weak push (§ 690.2(b)): no valid spin, but the scenario expects nothing to fail
WEAK_PUSH_UNEXPECTED = """\
schema: 1
name: weak-push-unexpected
game: crazy-time
seed: 14
rounds: 2
faults:
  wheel: {push_scale: 0.35}
"""
#: a worn clapper the croupier settles on: the scenario expects its check to FAIL
BETWEEN_SECTIONS = """\
schema: 1
name: between-sections
game: crazy-time
seed: 18
rounds: 200
faults:
  wheel: {clapper_wear: 15.0}
  croupier: {settle_between_sections: true}
expect:
  fail: [CT-690.2d-between-sections]
"""
#: a real Modbus wheel without a control endpoint: a wheel fault knob cannot be applied (NOT APPLICABLE,
#: decided before anything connects)
REAL_WHEEL_BENCH = """\
schema = 1
name = "real-wheel"

[devices.wheel]
kind = "modbus"
url = "tcp://127.0.0.1:9"
unit = 1
"""


@pytest.fixture(autouse=True, scope="module")
def _warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One round run in this process first: the inner sessions run in-process, and pytester drops the
    modules they import when each returns (numpy's and scipy's extensions cannot load twice)."""
    from hil.cli import load_run_inputs
    from hil.runner import run_scenario

    path = tmp_path_factory.mktemp("warm") / "warm.yaml"
    path.write_text(OK.format(name="warm"), encoding="utf-8")
    scenarios, bench, rules, rx = load_run_inputs([path], None, None, None, 1)
    run_scenario(scenarios[0], bench, rules, path.parent, None, rx)
    import hil.clock, hil.transport.ioloop  # noqa: E401, F401 — the fixture's devices()


def _scenarios(pytester: pytest.Pytester, **files: str) -> Path:
    d = pytester.path / "scenarios" / "demo"
    d.mkdir(parents=True, exist_ok=True)
    for stem, text in files.items():
        (d / f"{stem}.yaml").write_text(text, encoding="utf-8")
    return d


#: what an inner session leaves out: hypothesis' plugin imports hypothesis anew in each one (pytester
#: drops the modules an inner session imported), ~1 s apiece
LEAN = ("-p", "no:xdist", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*LEAN,
                              "--croupier-out", str(pytester.path / "out"), *args)


def test_collects_scenarios_folders_only(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, ok=OK.format(name="ok"), second=OK.format(name="second"))
    fixtures = pytester.path / "tests" / "fixtures"
    fixtures.mkdir(parents=True)
    (fixtures / "looks_like_a_scenario.yaml").write_text(OK.format(name="fixture"), encoding="utf-8")
    (fixtures / "not_yaml_at_all.yaml").write_text("{{{ not yaml", encoding="utf-8")
    (pytester.path / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "elsewhere.yaml").write_text(OK.format(name="elsewhere"), encoding="utf-8")

    got = _run(pytester, "--collect-only", "-q")
    got.assert_outcomes()  # no errors: neither fixture file was parsed
    ids = [line for line in got.outlines if "::" in line]
    assert sorted(ids) == ["scenarios/demo/ok.yaml::ok", "scenarios/demo/second.yaml::second",
                           "tests/test_plain.py::test_plain"]
    # the folder names are an ini option
    got = _run(pytester, "--collect-only", "-q", "-o", "croupier_scenario_dirs=suites")
    assert sorted(line for line in got.outlines if "::" in line) == ["suites/elsewhere.yaml::elsewhere",
                                                                       "tests/test_plain.py::test_plain"]
    # off altogether
    got = _run(pytester, "--collect-only", "-q", "-p", "no:croupier", "scenarios")
    assert not [line for line in got.outlines if "::" in line]


def test_repo_tests_folder_is_not_collected_and_scenarios_are() -> None:
    """The repo's own `make test` (testpaths = tests) never meets a scenario item: none of the YAML files
    under tests/ is collected (tests/fixtures holds scenario-like files for other benches), and every
    bundled scenario is."""
    in_tests = sorted((REPO / "tests").rglob("*.y*ml"))
    bundled = sorted((REPO / "scenarios").rglob("*.y*ml"))
    assert in_tests and bundled
    assert [p for p in in_tests if is_scenario_file(p, REPO)] == []
    assert [p for p in bundled if not is_scenario_file(p, REPO)] == []
    assert not is_scenario_file(REPO / "scenarios" / "crazy_time" / "README.md", REPO)


def test_met_passes_not_met_fails_with_the_checks(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, ok=OK.format(name="ok"), weak=WEAK_PUSH_UNEXPECTED)
    got = _run(pytester, "-rA")
    got.assert_outcomes(passed=1, failed=1)
    text = got.stdout.str()
    assert "NOT MET: scenario weak-push-unexpected" in text
    # the failing check's id, section, verdict and a first finding with its round
    assert "CT-690.2b-three-revolutions [§ 690.2(b)]: fail (expected no failure)" in text
    assert "    round 1 seq" in text
    assert f"trace: {pytester.path / 'out' / 'traces' / 'weak-push-unexpected.sqlite'}" in text
    assert "Traceback" not in text
    assert (pytester.path / "out" / "traces" / "ok.sqlite").is_file()  # traces kept


def test_expected_failure_missed_fails(pytester: pytest.Pytester) -> None:
    """A fault scenario whose FAIL does not come, at the scenario's own length, fails: the croupier
    respins the worn clapper's on-peg spins, so the check it expects to FAIL passes."""
    _scenarios(pytester, between=BETWEEN_SECTIONS.replace("rounds: 200", "rounds: 20").replace(
        "croupier: {settle_between_sections: true}", "croupier: {settle_between_sections: false}"))
    got = _run(pytester)
    got.assert_outcomes(failed=1)
    assert "expected to FAIL, did not: CT-690.2d-between-sections" in got.stdout.str()
    assert "CT-690.2d-between-sections [§ 690.2(d)]: pass (expected FAIL)" in got.stdout.str()


def test_not_decisive_skips_with_the_undecided_checks(pytester: pytest.Pytester) -> None:
    """A fault run --croupier-max-rounds cut at one round: its expected FAIL is not seen yet, so the
    scenario is NOT DECISIVE — skipped naming the check and why, or failed with
    --croupier-not-decisive fail; never a pass."""
    _scenarios(pytester, between=BETWEEN_SECTIONS)
    got = _run(pytester, "-rs", "--croupier-max-rounds", "1")
    got.assert_outcomes(skipped=1)
    text = got.stdout.str()
    assert "NOT DECISIVE (nothing proven either way; run more rounds): CT-690.2d-between-sections [§ 690.2(d)]" in text
    got = _run(pytester, "--croupier-max-rounds", "1", "--croupier-not-decisive", "fail", "--junitxml=j.xml")
    got.assert_outcomes(failed=1)
    (case,) = ET.parse(pytester.path / "j.xml").getroot().iter("testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["outcome"] == "not decisive" and props["cut_from_rounds"] == "200" and props["rounds"] == "1"


def test_not_applicable_skips_with_the_reason(pytester: pytest.Pytester) -> None:
    """A wheel fault on a real wheel without a control endpoint: not run, skipped saying why."""
    _scenarios(pytester, weak=WEAK_PUSH_UNEXPECTED.replace("name: weak-push-unexpected", "name: weak-push-na"))
    (pytester.path / "real.toml").write_text(REAL_WHEEL_BENCH, encoding="utf-8")
    got = _run(pytester, "-rs", "--croupier-bench", "real.toml", "scenarios/demo/weak.yaml")
    got.assert_outcomes(skipped=1)
    assert "NOT APPLICABLE on this bench (not run): devices.wheel is a real modbus device" in got.stdout.str()
    assert not (pytester.path / "out" / "traces" / "weak-push-na.sqlite").exists()
    # real devices are one of each: no xdist workers on that bench (refused before any starts)
    got = pytester.runpytest("-n", "2", *LEAN[2:], "--croupier-bench", "real.toml", "scenarios")
    assert got.ret == pytest.ExitCode.USAGE_ERROR
    assert "a bench with a real device runs one scenario at a time; run it without -n" in got.stderr.str()


def test_bench_refused_fails_and_stops_the_session(pytester: pytest.Pytester) -> None:
    """A real device that cannot be reached: the first item fails naming it, and the session stops
    there (croupier run stops with exit 2)."""
    import socket

    _scenarios(pytester, a=OK.format(name="a"), b=OK.format(name="b"))
    with socket.socket() as closed:  # bound, never listening: a connect is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        (pytester.path / "real.toml").write_text(REAL_WHEEL_BENCH.replace("tcp://127.0.0.1:9", f"tcp://127.0.0.1:{port}")
                                                 + "timeout_s = 0.5\n", encoding="utf-8")
        got = _run(pytester, "--croupier-bench", "real.toml", "scenarios")
    got.assert_outcomes(failed=1)  # b never ran
    text = got.stdout.str()
    assert f"BENCH REFUSED (unreachable): devices.wheel: the modbus device at tcp://127.0.0.1:{port} could not be " \
           "reached" in text
    assert "Interrupted: croupier: the bench refused" in text


def test_junit_properties(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, ok=OK.format(name="ok"), weak=WEAK_PUSH_UNEXPECTED)
    xml = pytester.path / "junit.xml"
    _run(pytester, f"--junitxml={xml}", "--croupier-seed", "3").assert_outcomes(passed=1, failed=1)
    cases = {c.get("name"): c for c in ET.parse(xml).getroot().iter("testcase")}
    props = {name: {p.get("name"): p.get("value") for p in c.iter("property")} for name, c in cases.items()}
    ok, weak = props["ok"], props["weak-push-unexpected"]
    assert ok["outcome"] == "met" and weak["outcome"] == "not met"
    assert ok["rounds"] == "2" and ok["trace"].endswith("ok.sqlite") and len(ok["sha256"]) == 64
    assert ok["seed"] != "7"  # derived from --croupier-seed, as croupier run --seed does
    assert ok["check.CT-690.1-layout.section"] == "§ 690.1(a)–(b)"
    assert ok["check.CT-690.1-layout.verdict"] == "pass"
    assert ok["check.CT-690.1-layout.expected"] == "not fail"
    assert ok["check.CT-690.1-layout.sections"].startswith("54 sections")  # a measurement with its limit
    assert "limit" in ok["check.CT-690.1-layout.sections"]
    assert weak["check.CT-690.2b-three-revolutions.verdict"] == "fail"
    assert cases["weak-push-unexpected"].find("failure") is not None


def test_croupier_report_writes_croupier_runs_reports(pytester: pytest.Pytester) -> None:
    """--croupier-report: the session's scenarios get croupier run's reports in --croupier-out."""
    import orjson

    _scenarios(pytester, ok=OK.format(name="ok"), weak=WEAK_PUSH_UNEXPECTED)
    got = _run(pytester, "--croupier-report")
    got.assert_outcomes(passed=1, failed=1)
    out = pytester.path / "out"
    assert f"croupier: reports in {out} (report.json, report.html, junit.xml, manifest.json)" in got.stdout.str()
    report = orjson.loads((out / "report.json").read_bytes())
    assert [(r["name"], r["outcome"]) for r in report["scenarios"]] == [("ok", "met"), ("weak-push-unexpected", "not met")]
    assert report["summary"]["expectations_met"] == 1 and report["summary"]["expectations_not_met"] == 1
    manifest = orjson.loads((out / "manifest.json").read_bytes())
    assert report["manifest"]["path"] == "manifest.json" and len(report["manifest"]["sha256"]) == 64
    assert "traces/ok.sqlite" in orjson.dumps(manifest).decode()
    assert ET.parse(out / "junit.xml").getroot().tag == "testsuites"
    assert (out / "report.html").stat().st_size > 0


def test_bad_input_is_a_collection_error_naming_file_line_field(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, ok=OK.format(name="ok"), bad=OK.format(name="bad").replace("rounds: 2", "rounds: two"),
               dup=OK.format(name="ok"))
    got = _run(pytester)
    got.assert_outcomes(errors=2)  # and nothing runs (pytest stops on collection errors; croupier run exits 2)
    text = got.stdout.str()
    assert "scenarios/demo/bad.yaml:5: rounds:" in text
    assert "duplicate scenario name 'ok'" in text
    assert "Traceback" not in text
    # a bad bench: every scenario file names the bench's file, line and field
    (pytester.path / "bad.toml").write_text('schema = 1\nname = "b"\n[devices.wheel]\nkind = "telepathy"\n')
    got = _run(pytester, "--croupier-bench", "bad.toml", "scenarios/demo/ok.yaml")
    got.assert_outcomes(errors=1)
    assert "bad.toml:4: devices.wheel.kind" in got.stdout.str()
    assert "Traceback" not in got.stdout.str()


def test_croupier_bench_fixture(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, ok=OK.format(name="ok"))
    pytester.makepyfile(test_mine=textwrap.dedent("""
        def test_one_round(croupier_bench):
            run = croupier_bench.round("scenarios/demo/ok.yaml")
            assert run.outcome == "met", run.describe()
            assert run.verdict("CT-690.1-layout") == "pass"
            assert run.result["stats"]["rounds"] == 1
            assert run.trace.is_file()

        def test_devices(croupier_bench):
            assert not croupier_bench.real_time
            with croupier_bench.devices("crazy-time", seed=1) as bench:
                stop = bench.run(bench.devices.wheel.spin("cw"))
                assert stop.spot in bench.devices.wheel.info().sections
                assert stop.revolutions > 0
                assert [k for d, k, p, t in bench.events if d == "wheel"][-1] == "spin_stop"
    """))
    got = _run(pytester, "test_mine.py")
    got.assert_outcomes(passed=2)
    # the same out folder again: a new run folder, no trace written over
    _run(pytester, "test_mine.py", "-k", "one_round").assert_outcomes(passed=1)
    runs = sorted(p.name for p in (pytester.path / "out" / "fixture").iterdir())
    assert runs == ["main-001-ok", "main-002-ok"]
    assert all((pytester.path / "out" / "fixture" / r / "traces" / "ok.sqlite").is_file() for r in runs)


def test_docs_example_runs(pytester: pytest.Pytester) -> None:
    """docs/pytest.md's fixture example, as written, on the bundled normal-play scenario."""
    (example,) = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "pytest.md").read_text(encoding="utf-8"), re.S)
    (pytester.path / "scenarios" / "crazy_time").mkdir(parents=True)
    shutil.copy(REPO / "scenarios" / "crazy_time" / "normal_play.yaml", pytester.path / "scenarios" / "crazy_time")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_my_wheel.py").write_text(example, encoding="utf-8")
    _run(pytester, "tests/test_my_wheel.py").assert_outcomes(passed=2)


@pytest.mark.slow  # three interpreters (~10 s on this machine under load)
def test_xdist_two_workers_one_out_folder(pytester: pytest.Pytester) -> None:
    _scenarios(pytester, a=OK.format(name="a"), b=OK.format(name="b"))
    got = pytester.runpytest_subprocess("-n", "2", *LEAN[2:], "--croupier-out",
                                        str(pytester.path / "out"), "scenarios")
    got.assert_outcomes(passed=2)
    # the controller's one out folder, both workers' traces in it
    assert sorted(p.name for p in (pytester.path / "out" / "traces").glob("*.sqlite")) == ["a.sqlite", "b.sqlite"]
