"""The CLI end to end, in-process: exit codes, reports, malformed input."""

from __future__ import annotations

import functools
import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.trace import TraceReader

runner = CliRunner()


@functools.cache
def _pins():
    """The exact RTPs transcribed and pinned by hand in tests/rules/test_paytables_literal.py (one
    place for the literals; loaded by path, since tests/rules is not a package)."""
    path = Path(__file__).resolve().parents[1] / "rules" / "test_paytables_literal.py"
    spec = importlib.util.spec_from_file_location("_paytables_literal_pins", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

SMALL = """\
schema: 1
name: small
game: crazy-time
seed: 5
rounds: 12
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_writes_reports_and_exits_0(tmp_path):
    sc = _write(tmp_path, "small.yaml", SMALL)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    assert (out / "junit.xml").read_text().startswith("<?xml")
    assert (out / "traces" / "small.sqlite").exists()
    s = report["scenarios"][0]
    assert s["name"] == "small" and s["expectation_met"] is True
    assert {c["id"] for c in s["checks"]} >= {"CT-690.1-layout", "CT-690.2e-settlement", "CT-lockout"}
    for c in s["checks"]:
        assert c["verdict"] in ("pass", "fail", "indeterminate")
        assert c["section"].startswith("§") or c["id"] == "EVIDENCE-link"
        for m in c["measurements"]:
            assert set(m) >= {"name", "value", "unit", "bracket"}
    prov = report["provenance"]
    assert set(prov) >= {"git_sha", "bench", "rules", "scenarios", "seeds", "packages"}
    assert len(prov["scenarios"]["small"]["sha256"]) == 64


def test_unmet_expectation_exits_1(tmp_path):
    sc = _write(tmp_path, "x.yaml", SMALL + "expect:\n  fail: [CT-690.1-layout]\n")
    res = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert res.exit_code == 1, res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["scenarios"][0]["missed_failures"] == ["CT-690.1-layout"]


def test_malformed_scenario_names_file_line_field_and_runs_nothing(tmp_path):
    bad = SMALL.replace("rounds: 12", "rounds: 12\nplayers:\n  count: many\n")
    sc = _write(tmp_path, "bad.yaml", bad)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out)])
    assert res.exit_code == 2
    assert f"{sc}:7: players.count" in res.output.replace("\n", "")
    assert not out.exists()


def test_unknown_fault_knob_is_caught_at_load(tmp_path):
    bad = SMALL + "faults:\n  wheel:\n    push_scael: 0.3\n"
    sc = _write(tmp_path, "knob.yaml", bad)
    res = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "knob.yaml:8: faults.wheel.push_scael" in res.output.replace("\n", "")


def test_yaml_syntax_error_gives_line(tmp_path):
    sc = _write(tmp_path, "syntax.yaml", SMALL + "players: [1, 2\n")
    res = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "syntax.yaml:" in res.output and "YAML syntax" in res.output


def test_unknown_check_id_in_expect(tmp_path):
    sc = _write(tmp_path, "ids.yaml", SMALL + "expect:\n  fail: [CT-nonsense]\n")
    res = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "ids.yaml:7: expect.fail" in res.output.replace("\n", "")


def test_bad_bench_file(tmp_path):
    sc = _write(tmp_path, "small.yaml", SMALL)
    bench = _write(tmp_path, "bench.toml", 'schema = 1\nname = "b"\n[devices.wheel]\nkind = "sim"\n'
                   '[devices.wheel.params]\ninertia_kg_m2 = "heavy"\n[devices.top_slot]\nkind = "sim"\n'
                   '[devices.wagering]\nkind = "sim"\n')
    res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "bench.toml:6: devices.wheel.params.inertia_kg_m2" in res.output.replace("\n", "")


def test_real_device_needs_its_url_and_takes_no_sim_params(tmp_path):
    sc = _write(tmp_path, "small.yaml", SMALL)
    for body, field in (('kind = "modbus"\n', "devices.wheel"),
                        ('kind = "modbus"\nurl = "tcp://127.0.0.1:5020"\n[devices.wheel.params]\npush_scale = 0.3\n',
                         "devices.wheel")):
        bench = _write(tmp_path, "bench.toml", 'schema = 1\nname = "b"\n[devices.wheel]\n' + body +
                       '[devices.top_slot]\nkind = "sim"\n[devices.wagering]\nkind = "sim"\n')
        res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(tmp_path / "out")])
        assert res.exit_code == 2 and field in res.output, res.output


def test_a_real_device_that_does_not_answer_stops_the_run_with_one_error(tmp_path):
    """Issue 12 § 4: an unreachable device is one clear error and exit 2, recorded in the report."""
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sc = _write(tmp_path, "small.yaml", SMALL)
    bench = _write(tmp_path, "bench.toml", 'schema = 1\nname = "b"\n[devices.wheel]\nkind = "sim"\n'
                   '[devices.top_slot]\nkind = "sim"\n[devices.wagering]\nkind = "modbus"\n'
                   f'url = "tcp://127.0.0.1:{port}?supervisor_key={"ab" * 16}"\ntimeout_s = 0.2\n')
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(sc), "--bench", str(bench), "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 2, res.output
    assert "device unreachable: devices.wagering" in res.output and "Traceback" not in res.output
    report = json.loads((out / "report.json").read_text())
    assert report["refused"]["kind"] == "unreachable" and "cannot connect" in report["refused"]["reason"]


def test_rtp_json_shape():
    res = runner.invoke(app, ["rtp", "crazy-time", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["game"] == "crazy-time"
    assert [w["wager"] for w in doc["wagers"]] == ["1", "2", "5", "10", "coin-flip", "cash-hunt", "pachinko", "crazy-time"]
    for w in doc["wagers"]:
        assert w["method"] == "exact"
        p, q = map(int, w["rtp_exact"].split("/"))
        assert abs(p / q - w["rtp"]) < 1e-12


def test_rtp_bad_rules_file_exits_2(tmp_path):
    rules = _write(tmp_path, "r.toml", "schema = 1\ngame = 'crazy-time'\n")
    res = runner.invoke(app, ["rtp", "crazy-time", "--rules", str(rules), "--json"])
    assert res.exit_code == 2


def test_second_run_archives_the_first(tmp_path):
    sc = _write(tmp_path, "small.yaml", SMALL)
    out = tmp_path / "out"
    for _ in range(2):
        assert runner.invoke(app, ["run", str(sc), "--out", str(out), "--jobs", "1"]).exit_code == 0
    archived = list((out / "archive").iterdir())
    assert len(archived) == 1 and (archived[0] / "traces" / "small.sqlite").exists()


def test_same_seed_same_report_apart_from_provenance_and_wall_clock(tmp_path):
    from hil.report import WALL_CLOCK_FIELDS

    sc = _write(tmp_path, "small.yaml", SMALL.replace("rounds: 12", "rounds: 30"))
    sc2 = _write(tmp_path, "other.yaml", SMALL.replace("name: small", "name: other"))
    reports = []
    for out, jobs in (("a", "1"), ("b", "2")):
        res = runner.invoke(app, ["run", str(sc), str(sc2), "--out", str(tmp_path / out), "--seed", "9",
                                  "--jobs", jobs])
        assert res.exit_code == 0, res.output
        reports.append(json.loads((tmp_path / out / "report.json").read_text()))

    def strip(obj):
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items() if k not in WALL_CLOCK_FIELDS}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        return obj

    assert strip(reports[0]) == strip(reports[1])
    assert reports[0]["provenance"]["seed_override"] == 9


def test_check_command_rechecks_a_recorded_trace(tmp_path):
    sc = _write(tmp_path, "small.yaml", SMALL)
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(sc), "--out", str(out), "--jobs", "1"]).exit_code == 0
    res = runner.invoke(app, ["check", str(out / "traces" / "small.sqlite")])
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    ids = [c["id"] for c in body["checks"]]
    assert "CT-690.2e-settlement" in ids and body["expectation_met"] is True and body["overrides"] == {}
    # A 0.1 ms budget is far below the simulated device's ~5 ms latency: the same trace fails it,
    # and the override is reported beside the recorded limit.
    res = runner.invoke(app, ["check", str(out / "traces" / "small.sqlite"), "--budget-s", "0.0001"])
    assert res.exit_code == 1
    body = json.loads(res.stdout)
    assert body["overrides"]["lockout_budget_s"] == {"recorded": 0.01, "used": 0.0001}
    assert "CT-lockout" in body["unexpected_failures"]
    assert runner.invoke(app, ["check", str(tmp_path / "nope.sqlite")]).exit_code == 2
    readme = tmp_path / "README.md"
    readme.write_text("# not a trace\n")
    assert runner.invoke(app, ["check", str(readme)]).exit_code == 2


def test_check_judges_with_the_limits_the_trace_recorded(tmp_path):
    """A scenario with a 20 ms lock-out budget passes at run time and under `check` alike (the
    budget is in the trace, not the command's default)."""
    sc = _write(tmp_path, "small.yaml", SMALL + "lockout:\n  budget_s: 0.020\n"
                "bench:\n  wagering: {lockout_latency_mean_s: 0.013, lockout_latency_jitter_s: 0.0005}\n")
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["check", str(out / "traces" / "small.sqlite")])
    body = json.loads(res.stdout)
    assert res.exit_code == 0, [c for c in body["checks"] if c["verdict"] == "fail"]
    assert body["check_config"]["lockout_budget_s"] == 0.020


@pytest.mark.parametrize("wheel", ["single", "double"])
@pytest.mark.parametrize("table", ["A", "B", "C", "D", "E", "P1", "P2", "P3", "P4", "P5", "P6", "P7"])
def test_rtp_roulette_up_every_paytable(table, wheel):
    res = runner.invoke(app, ["rtp", "roulette-up", "--paytable", table, "--wheel", wheel, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (entry,) = doc["wagers"]
    rtp, long_run = _pins().RTP_ROULETTE_UP[(table.removeprefix("P"), f"{wheel}-zero")]
    assert entry["method"] == "exact" and entry["rtp_exact"] == rtp  # the pinned fraction, not a range
    assert entry["rtp"] == float(Fraction(rtp)) and entry["wheel"] == f"{wheel}-zero"
    assert entry.get("rtp_long_run_exact") == long_run
    assert ("rtp_long_run" in entry) == table.startswith("P")
    if table.startswith("P"):
        assert entry["rtp_long_run"] > entry["rtp"]


def test_rtp_roulette_x_paytables_and_the_single_zero_refusal():
    for table, wheel in (("A", "single"), ("A", "double"), ("B", "double")):
        res = runner.invoke(app, ["rtp", "roulette-x", "--paytable", table, "--wheel", wheel, "--json"])
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        assert doc["paytable"] == table and [w["method"] for w in doc["wagers"]] == ["exact"]
    res = runner.invoke(app, ["rtp", "roulette-x", "--paytable", "B", "--wheel", "single", "--json"])
    assert res.exit_code == 2 and "617b.5" in res.output and "double-zero wheel only" in res.output


def test_rtp_roulette_up_without_options_prints_every_paytable_on_both_wheels():
    res = runner.invoke(app, ["rtp", "roulette-up", "--json"])
    assert res.exit_code == 0, res.output
    wagers = json.loads(res.stdout)["wagers"]
    assert len(wagers) == 2 * 12 and {w["wheel"] for w in wagers} == {"single-zero", "double-zero"}
    assert all(w["method"] == "exact" for w in wagers)
    assert sum("rtp_long_run" in w for w in wagers) == 2 * 7
    x = json.loads(runner.invoke(app, ["rtp", "roulette-x", "--json"]).stdout)["wagers"]
    assert [w["wager"] for w in x] == ["straight (Paytable A, single-zero)", "straight (Paytable A, double-zero)"]


@pytest.mark.parametrize("args", [["roulette-up", "--wheel", "triple"], ["roulette-up", "--paytable", "Z", "--wheel", "single"],
                                  ["crazy-time", "--wheel", "single"], ["baccarat"]])
def test_rtp_bad_options_exit_2(args):
    res = runner.invoke(app, ["rtp", *args, "--json"])
    assert res.exit_code == 2, res.output


@pytest.mark.parametrize("wager", ["twenty-one-plus-three", "royal-match", "kings-bounty", "blazing-sevens",
                                   "blazing-sevens-multi"])
def test_rtp_of_the_blackjack_side_wagers_every_paytable_at_6_and_8_decks(wager):
    res = runner.invoke(app, ["rtp", wager, "--json"])
    assert res.exit_code == 0, res.output
    entries = json.loads(res.stdout)["wagers"]
    assert {e["decks"] for e in entries} == {6, 8} and all(e["method"] == "exact" for e in entries)
    pins, long_run = _pins().RTP_BLACKJACK_SIDE, _pins().RTP_BLACKJACK_SIDE_LONG_RUN
    got = {(e["wager"].rsplit(" ", 1)[0], e["paytable"], e["decks"]): e for e in entries}
    assert {k: e["rtp_exact"] for k, e in got.items()} == {k: v for k, v in pins.items() if k[0] == wager}
    assert all(e["rtp"] == float(Fraction(e["rtp_exact"])) for e in entries)
    assert {k: e["rtp_long_run_exact"] for k, e in got.items() if "rtp_long_run_exact" in e} == {
        k: v for k, v in long_run.items() if k[0] == wager}


def test_rtp_card_wager_bad_options_exit_2():
    for args in (["twenty-one-plus-three", "--paytable", "4", "--decks", "3"], ["royal-match", "--paytable", "Z"],
                 ["royal-match", "--wheel", "single"], ["crazy-time", "--decks", "6"]):
        res = runner.invoke(app, ["rtp", *args, "--json"])
        assert res.exit_code == 2, (args, res.output)


@pytest.mark.parametrize("wager, tables", [("uth-trips", 1), ("uth-bad-beat", 1), ("play-the-board", 3),
                                           ("ultimate-pairs", 6), ("criss-cross-ultimate-pairs", 5)])
def test_rtp_of_the_poker_side_wagers_every_paytable(wager, tables):
    res = runner.invoke(app, ["rtp", wager, "--json"])
    assert res.exit_code == 0, res.output
    entries = json.loads(res.stdout)["wagers"]
    assert len({e["paytable"] for e in entries}) == tables and all(e["method"] == "exact" for e in entries)
    # every paytable's exact RTP is the fraction pinned by hand (the test used to assert no value)
    got = {(e["wager"], e["paytable"]): e["rtp_exact"] for e in entries}
    assert got == {k: v for k, v in _pins().RTP_POKER_SIDE.items() if k[0].split(" (")[0] == wager}
    assert all(e["rtp"] == float(Fraction(e["rtp_exact"])) for e in entries)
    assert runner.invoke(app, ["rtp", wager, "--decks", "6", "--json"]).exit_code == 2


def test_a_scenario_names_its_own_rules_submission(tmp_path):
    """`rules_submission` plays a scenario under another Rules Submission (recorded in the trace);
    one that is not there is bad input (exit 2), refused before anything runs."""
    sc = _write(tmp_path, "own.yaml", SMALL + "rules_submission: embedded:data/crazy_time_rescue_before_top_slot.toml\n")
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    with TraceReader(out / "traces" / "small.sqlite") as reader:
        assert "before the Top Slot" in reader.meta()["rules"]
        rules = next(e for e in reader.events() if e.kind == "rules").payload
    assert rules["rescue_reading"] == "before-top-slot"
    bad = _write(tmp_path, "bad.yaml", SMALL + "rules_submission: no-such-rules.toml\n")
    res = runner.invoke(app, ["run", str(bad), "--out", str(tmp_path / "out2")])
    assert res.exit_code == 2 and "no-such-rules.toml" in res.output
    assert not (tmp_path / "out2" / "traces").exists()
