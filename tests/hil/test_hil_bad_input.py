"""Bad input, refused at load with file, line and field (issue 13, "Bad input", items 1-9): every
case here was accepted, crashed or lost its line before."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.bench import load_bench, parse_bench
from hil.cli import app, load_run_inputs
from hil.config import ConfigError, parse_toml
from hil.scenario import load_scenario, parse_scenario
from hil.trace import TraceReader, TraceWriter
from rules.parsing import MAX_DEPTH
from rules.submission import RulesSubmissionError, parse_rules_submission

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = (ROOT / "scenarios/crazy_time/normal_play.yaml").read_text(encoding="utf-8")
BENCH = (ROOT / "hil/data/default_bench.toml").read_text(encoding="utf-8")
RULES = (ROOT / "rules/data/crazy_time_reference.toml").read_text(encoding="utf-8")


def scenario_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        parse_scenario(text, "bad.yaml")
    return e.value


def bench_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        parse_bench(text, "bad.toml")
    return e.value


def rules_error(text: str) -> RulesSubmissionError:
    with pytest.raises(RulesSubmissionError) as e:
        parse_rules_submission(text, "bad-rules.toml")
    return e.value


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ----------------------------------------------------------------------------- 1. TOML syntax: its line
def test_toml_syntax_error_names_its_line():
    text = BENCH.replace('kind = "sim"\nmodel = "top-slot"', 'kind = sim\nmodel = "top-slot"')
    e = bench_error(text)
    assert e.line == line_of(text, "kind = sim") and "TOML syntax" in e.message and "(at line" not in e.message
    e = bench_error(BENCH + "[devices.unterminated\n")
    assert e.line == len((BENCH + "[devices.unterminated\n").splitlines())
    r = rules_error(RULES.replace("min_wager_cents = 10", "min_wager_cents = = 10"))
    assert r.line == line_of(RULES, "min_wager_cents") and r.field == "" and r.message.startswith("TOML syntax: ")
    assert str(r).startswith(f"bad-rules.toml:{r.line}: TOML syntax: ")  # one sentence: no placeholder field


def test_toml_duplicate_key_is_refused_with_its_line():
    text = BENCH.replace('name = "embedded-sim"', 'name = "a"\nname = "b"')
    e = bench_error(text)
    assert e.line == line_of(text, 'name = "b"') and "duplicate key" in e.message


# ----------------------------------------------------------------------------- 2. nesting
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 5_000])
def test_deep_nesting_is_refused_not_a_recursion_error(depth):
    yaml_text = SCENARIO + "deep: " + "[" * depth + "]" * depth + "\n"
    e = scenario_error(yaml_text)
    assert e.line == len(yaml_text.splitlines()) and "nested deeper" in e.message
    if depth < 4 * MAX_DEPTH:  # far deeper: refused before PyYAML reads it (its scanner is quadratic in it)
        assert e.field.startswith("deep.0.0")
    block = "bench:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(min(depth, 300))) + "  " * 301 + "x: 1\n"
    assert "nested deeper" in scenario_error(SCENARIO + block).message
    toml_text = BENCH + "x = " + "[" * depth + "]" * depth + "\n"
    e = bench_error(toml_text)
    assert e.line == len(toml_text.splitlines()) and "nested deeper" in e.message
    assert "nested deeper" in bench_error(BENCH + "x" + ".a" * depth + " = 1\n").message  # dotted keys
    assert "nested deeper" in rules_error(RULES + "x = " + "{a = " * depth + "1" + "}" * depth + "\n").message


def test_brackets_inside_toml_strings_are_not_nesting():
    data, _ = parse_toml('a = "' + "[" * 100 + '"\nb = \'\'\'\n' + "{" * 100 + "\n'''\n", "s.toml")
    assert data["a"] == "[" * 100


# ----------------------------------------------------------------------------- 3. 64-bit integers
@pytest.mark.parametrize("value", [2**63, 2**64, 10**40, -(2**63) - 1])
def test_integers_past_64_bits_are_refused_at_load(value):
    e = scenario_error(SCENARIO.replace("seed: 20261129", f"seed: {value}"))
    assert e.field == "seed" and e.line == line_of(SCENARIO, "seed:") and "64-bit" in e.message
    e = bench_error(BENCH.replace("seats = 7", f"seats = 7\nbutton_stake_cents = {value}"))
    assert e.field == "devices.wagering.params.button_stake_cents" and "64-bit" in e.message
    r = rules_error(RULES.replace("min_wager_cents = 10", f"min_wager_cents = {value}"))
    assert r.field == "limits.min_wager_cents" and r.line == line_of(RULES, "min_wager_cents") and "64-bit" in r.message


def test_trace_records_a_wide_device_integer_without_a_crash(tmp_path):
    """A device's u64 register (and past it: a wide counter) is recorded, exactly."""
    with TraceWriter(tmp_path / "t.sqlite", {}) as w:
        w.record("wagering", "device_info", {"u64": 2**64 - 1, "wide": 2**70, "neg": -(2**64), "list": [2**80, 1]})
    (event,) = list(TraceReader(tmp_path / "t.sqlite").events())
    assert event.payload == {"u64": 2**64 - 1, "wide": str(2**70), "neg": str(-(2**64)), "list": [str(2**80), 1]}


# ----------------------------------------------------------------------------- 4. duplicate keys
def test_duplicate_yaml_key_names_both_lines():
    text = SCENARIO.replace("seed: 20261129\n", "seed: 20261129\nseed: 0\n")
    e = scenario_error(text)
    assert e.line == line_of(text, "seed: 0") and e.field == "seed"
    assert f"first on line {line_of(text, 'seed: 2')}, again on line {e.line}" in e.message
    nested = SCENARIO.replace("  count: 6\n", "  count: 6\n  count: 9\n")
    e = scenario_error(nested)
    assert e.field == "players.count" and e.line == line_of(nested, "count: 9")


def test_yaml_aliases_are_refused():
    e = scenario_error(SCENARIO.replace("stake_cents: [100, 5000]", "stake_cents: &s [100, 5000]\n  x: *s"))
    assert "alias" in e.message and e.line is not None


# ----------------------------------------------------------------------------- 5. non-finite numbers
@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", ".NaN", "1e400"])
def test_non_finite_numbers_are_refused_as_such_in_yaml(value):
    e = scenario_error(SCENARIO.replace("budget_s: 0.010", f"budget_s: {value}" if value != "1e400" else
                                        "budget_s: 1.0e400"))
    assert e.field == "lockout.budget_s" and e.line == line_of(SCENARIO, "budget_s") and "not a finite number" in e.message
    assert "greater than" not in e.message


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "+nan"])
def test_non_finite_numbers_are_refused_in_toml(value):
    e = bench_error(BENCH.replace("seats = 7", f"seats = 7\nanswer_delay_s = {value}"))
    assert e.field == "devices.wagering.params.answer_delay_s" and "not a finite number" in e.message
    r = rules_error(RULES.replace('align_probability = "86398', f'align_probability = {value}\nx = "86398'))
    assert r.field == "top_slot.align_probability" and "not a finite number" in r.message


# ----------------------------------------------------------------------------- 6. magnitudes
@pytest.mark.parametrize(("old", "new", "field"), [
    ("probe: {presses: 8, step_s: 0.0005}", "probe: {presses: 8, step_s: 1.0e30}", "lockout.probe.step_s"),
    ("budget_s: 0.010", "budget_s: 3600.0", "lockout.budget_s"),
    ("lockout:", "croupier: {betting_window_s: 1.0e9}\nlockout:", "croupier.betting_window_s"),
    ("lockout:", "croupier: {respin_limit: 1000000}\nlockout:", "croupier.respin_limit"),
    ("lockout:", "checks: {max_wire_faults: 1.0e18}\nlockout:", "checks.max_wire_faults"),
    ("stake_cents: [100, 5000]", "stake_cents: [100, 5000000000000]", "players.stake_cents"),
    ("lockout:", "faults: {wagering: {lockout_latency_mean_s: 1.0e30}}\nlockout:",
     "faults.wagering.lockout_latency_mean_s"),
    ("lockout:", "bench: {wagering: {seats: 1000000000}}\nlockout:", "bench.wagering.seats"),
])
def test_absurd_magnitudes_are_refused(old, new, field):
    e = scenario_error(SCENARIO.replace(old, new))
    assert e.field == field and e.line is not None, str(e)


def test_absurd_bench_magnitudes_are_refused():
    assert bench_error(BENCH.replace('name = "embedded-sim"', 'name = "x"\ntime_scale = 1e30')).field == "time_scale"
    assert bench_error(BENCH.replace("seats = 7", "seats = 7\nanswer_delay_s = 1e30")).field == \
        "devices.wagering.params.answer_delay_s"


# ----------------------------------------------------------------------------- 7. seats
def test_more_players_than_the_bench_has_seats_is_refused(tmp_path):
    f = tmp_path / "nine.yaml"
    f.write_text(SCENARIO.replace("count: 6", "count: 9"), encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_run_inputs([f], None, None, None)
    assert (e.value.source, e.value.line, e.value.field) == (str(f), line_of(SCENARIO, "count: 6"), "players.count")
    assert "7 seat" in e.value.message
    res = CliRunner().invoke(app, ["run", str(f), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "players.count" in res.output and not (tmp_path / "out").exists()
    # the scenario's own bench override gives the seats: loaded
    f.write_text(SCENARIO.replace("count: 6", "count: 9") + "bench: {wagering: {seats: 9}}\n", encoding="utf-8")
    assert load_run_inputs([f], None, None, None)[0][0].scenario.players.count == 9
    # the probe's seat, too
    f.write_text(SCENARIO.replace("step_s: 0.0005}", "step_s: 0.0005, seat: 8}"), encoding="utf-8")
    with pytest.raises(ConfigError, match="lock-out probe presses seat 8") as e:
        load_run_inputs([f], None, None, None)
    assert e.value.field == "lockout.probe.seat" and e.value.line == line_of(SCENARIO, "probe:")


# ----------------------------------------------------------------------------- 8. the command line
def test_check_of_files_that_are_no_trace_exits_2(tmp_path):
    runner = CliRunner()
    (tmp_path / "README.md").write_text("# not a trace\n" * 100, encoding="utf-8")
    (tmp_path / "empty.sqlite").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    for name in ("README.md", "empty.sqlite", "dir"):
        res = runner.invoke(app, ["check", str(tmp_path / name)])
        assert res.exit_code == 2 and res.exception is None or isinstance(res.exception, SystemExit), (name, res.output)
    res = runner.invoke(app, ["check", str(ROOT / "README.md")])
    assert res.exit_code == 2 and "not a Croupier trace" in res.output
    import sqlite3  # SQLite files that `croupier run` did not write: a meta table, no events; no schema

    for name, rows in (("meta-only", [("check_config", '{"x": 1}')]), ("no-schema", None)):
        db = sqlite3.connect(tmp_path / f"{name}.sqlite")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        if rows is None:
            db.execute("CREATE TABLE events (seq INTEGER)")
        db.executemany("INSERT INTO meta VALUES (?, ?)", rows or [("expect", "[1]")])
        db.commit()
        db.close()
        res = runner.invoke(app, ["check", str(tmp_path / f"{name}.sqlite")])
        assert res.exit_code == 2 and "not a Croupier trace" in res.output, (name, res.output)


@pytest.mark.parametrize("args", [
    ["run", "--jobs", "-3"], ["run", "--max-rounds", "0"], ["run", "--seed", "-1"],
    ["run", "--seed", str(2**64)], ["check", "x.sqlite", "--budget-s", "-1"], ["check", "x.sqlite", "--budget-s", "nan"],
    ["check", "x.sqlite", "--chi2-alpha", "2"], ["check", "x.sqlite", "--top-slot-tolerance-s", "inf"],
    ["rtp", "royal-match", "--decks", "-3"], ["rtp", "royal-match", "--decks", "0"],
    ["conformance", "wagering", "--modbus", "tcp://127.0.0.1:1", "--unit", "-3"],
    ["conformance", "wagering", "--modbus", "tcp://127.0.0.1:1", "--max-drift-ppm", "-5"],
])
def test_negative_or_zero_counts_are_refused(args, tmp_path):
    """Refused for the option itself (named in the message), before any file or device is read."""
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path)] if args[0] == "run" else args)
    assert res.exit_code == 2, (args, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    option = next(a for a in args if a.startswith("--") and a not in ("--modbus",))
    assert option in res.output and "no such trace" not in res.output, res.output


def test_run_with_a_readme_as_scenario_exits_2(tmp_path):
    res = CliRunner().invoke(app, ["run", str(ROOT / "README.md"), "--out", str(tmp_path)])
    assert res.exit_code == 2 and "README.md" in res.output
    res = CliRunner().invoke(app, ["run", "--bench", str(ROOT / "README.md"), "--out", str(tmp_path)])
    assert res.exit_code == 2 and "README.md:" in res.output


def test_hil_latency_help_and_bad_rounds(capsys, monkeypatch):
    mod = runpy.run_path(str(ROOT / "bench/hil_latency.py"), run_name="not_main")
    with pytest.raises(SystemExit) as e:
        mod["parse_args"](["--help"])
    assert e.value.code == 0 and "rounds" in capsys.readouterr().out
    for bad in ("-3", "0", "abc"):
        with pytest.raises(SystemExit) as e:
            mod["parse_args"]([bad])
        assert e.value.code == 2
    assert mod["parse_args"]([]) == mod["ROUNDS"] and mod["parse_args"](["20"]) == 20
    sys.path[:] = [p for p in sys.path if p != str(ROOT)] + [str(ROOT)]


# ----------------------------------------------------------------------------- 9. the nearest valid name
@pytest.mark.parametrize(("old", "new", "field", "hint"), [
    ("  count: 6", "  cuont: 6", "players.cuont", "'count'"),
    ("game: crazy-time", "game: crazy-tme", "game", "'crazy-time'"),
    ("lockout:", "croupier: {direction: cww}\nlockout:", "croupier.direction", "'cw'"),
    ("lockout:", "croupier: {betting_windw_s: 3}\nlockout:", "croupier.betting_windw_s", "'betting_window_s'"),
    ("fail: []", "fail: [CT-lockot]", "expect.fail", "'CT-lockout'"),
    ("lockout:", "faults: {wagerin: {lockout_ignored: true}}\nlockout:", "faults", "'wagering'"),
    ("lockout:", "faults: {wagering: {lockout_ignord: true}}\nlockout:", "faults.wagering.lockout_ignord",
     "'lockout_ignored'"),
    ("lockout:", "faults: {croupier: {pay_befor_collect: true}}\nlockout:", "faults.croupier.pay_befor_collect",
     "'pay_before_collect'"),
])
def test_unknown_names_suggest_the_nearest(old, new, field, hint):
    e = scenario_error(SCENARIO.replace(old, new))
    assert e.field == field and f"did you mean {hint}" in e.message and e.line is not None, str(e)


def test_unknown_names_in_bench_and_rules_suggest_the_nearest():
    e = bench_error(BENCH.replace("[devices.board]", "[devices.bord]"))
    assert e.field == "devices.bord" and "did you mean 'board'" in e.message and e.line == line_of(BENCH, "[devices.board]")
    e = bench_error(BENCH.replace('kind = "sim"\nmodel = "top-slot"', 'kind = "simm"\nmodel = "top-slot"'))
    assert e.field == "devices.top_slot.kind" and "did you mean 'sim'" in e.message
    e = bench_error(BENCH.replace("seats = 7", "seets = 7"))
    assert e.field == "devices.wagering.params.seets" and "did you mean 'seats'" in e.message
    r = rules_error(RULES.replace("min_wager_cents", "min_wagr_cents"))
    assert r.field == "limits.min_wagr_cents" and "did you mean 'min_wager_cents'" in r.message


def test_model_level_errors_name_their_field():
    text = SCENARIO.replace("wagers_per_player: [1, 3]", "wagers_per_player: [3, 1]")
    e = scenario_error(text)
    assert e.field == "players.wagers_per_player" and e.line == line_of(text, "wagers_per_player")


def test_not_utf8_and_control_characters(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_bytes(SCENARIO.encode() + b"description: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8") as e:
        load_scenario(f)
    assert e.value.line == len(SCENARIO.splitlines()) + 1
    with pytest.raises(ConfigError, match="not allowed") as e:
        parse_scenario(SCENARIO.replace("seed:", "se\x07ed:"), "c.yaml")
    assert e.value.line == line_of(SCENARIO, "seed:")
    f = tmp_path / "b.toml"
    f.write_bytes(BENCH.encode() + b"x = \"\xc3\x28\"\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_bench(f)


def test_yaml_value_pyyaml_cannot_build_is_refused_with_its_field():
    e = scenario_error(SCENARIO.replace("seed: 20261129", "seed: 2026-13-45"))
    assert e.field == "seed" and e.line == line_of(SCENARIO, "seed:")


def test_the_bundled_files_still_load():
    scenarios, bench, rules, rx = load_run_inputs(None, None, None, None)
    assert len(scenarios) > 100 and bench.config.name and rules.submission.name and rx.submission.name
    assert json.dumps([s.scenario.name for s in scenarios])


def test_other_commands_given_the_wrong_kind_of_file_exit_2(tmp_path):
    runner = CliRunner()
    readme = str(ROOT / "README.md")
    for args, says in ((["outcomes", "--from", "slingshot", readme], "not a slingshot wheel log"),
                       (["outcomes", readme], "not a Croupier trace"),
                       (["outcomes", "--from", "slingshot", readme, "--wheel", "tripl"], "--wheel 'tripl'"),
                       (["rtp", "crazy-time", "--rules", readme], "README.md:"),
                       (["rtp", "royal-mach"], "did you mean 'royal-match'"),
                       (["traceability", "--out", str(tmp_path / "no" / "such" / "dir.md")], "cannot write"),
                       (["conformance", "wagering", "--modbus", "tcp://127.0.0.1:1", "--register-map", readme],
                        "README.md:")):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and says in res.output, (args, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), (args, res.exception)


def test_unknown_paytables_and_scenario_files_are_located_and_named():
    bj = (ROOT / "scenarios/blackjack/blackjack_normal_play.yaml").read_text(encoding="utf-8")
    uth = (ROOT / "scenarios/uth/uth_normal_play.yaml").read_text(encoding="utf-8")
    e = scenario_error(bj.replace("kings-bounty: B", "kings-bounty: Q"))
    assert e.field == "cards.side.kings-bounty" and e.line == line_of(bj, "kings-bounty: B") and "has B" in e.message
    e = scenario_error(bj.replace('progressive_paytable: "1"', 'progressive_paytable: "99"'))
    assert e.field == "cards.progressive_paytable" and e.line == line_of(bj, "progressive_paytable")
    e = scenario_error(uth.replace("trips: E", "trips: Z"))
    assert e.field == "poker.side.trips" and e.line == line_of(uth, "trips: E") and "has E" in e.message
    res = CliRunner().invoke(app, ["run", str(ROOT / "scenarios/crazy_time/normal_ply.yaml")])
    assert res.exit_code == 2 and "did you mean 'normal_play.yaml'" in res.output


def test_a_rules_submission_the_scenario_names_that_cannot_be_read_is_said_at_its_field(tmp_path):
    for value in ("no-such-rules.toml", "''"):
        f = tmp_path / "s.yaml"
        f.write_text(SCENARIO + f"rules_submission: {value}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match="cannot read") as e:
            load_run_inputs([f], None, None, None)
        assert (e.value.source, e.value.field, e.value.line) == (str(f), "rules_submission", len(SCENARIO.splitlines()) + 1)


def test_toml_lines_of_quoted_dotted_keys_and_arrays_of_tables():
    """A bench written with quoted keys, dotted keys and spaced headers: the line of the field still."""
    text = ('schema = 1\nname = "q"\n[ "devices" . "wagering" ]\n"kind" = "sim"\nparams.seats = 7\n'
            'params."answer_delay_s" = -1\n')
    e = bench_error(text)
    assert e.field == "devices.wagering.params.answer_delay_s" and e.line == 6, str(e)
    from rules.parsing import TomlLines

    lines = TomlLines('[[points]]\nname = "a"\n[[points]]\nname = "b"\ndescription = """\nx = 1\n"""\naddress = 3\n')
    assert (lines.line(("points", 1, "address")), lines.line(("points", 0, "name")), lines.line(("x",))) == (8, 2, None)
