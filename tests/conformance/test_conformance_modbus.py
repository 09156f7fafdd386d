"""``croupier conformance`` over Modbus: the project's stubs pass every clause; broken peers fail
exactly the clauses they break, and the report names them."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from typer.testing import CliRunner

from firmware_stubs.launch import launch
from hil.cli import app
from hil.conformance import run
from tests.conformance.peers import FAST_TOP_SLOT, FAST_WHEEL, late_state_wheel, param_args, served_glue, static_peer

runner = CliRunner()
#: clauses a shipped map may not exercise: the maps without a read-only holding register or coil
#: (the wagering and progressive maps have them: their betting_open and win_light coils)
NOT_IN_SHIPPED_MAPS = {"MB-read-only"}
#: the clauses of the supervisor key, the stake limits and the re-open rule (issue 13)
KEY_CLAUSES = {"WG-reopen-refused", "WG-stake-limits", "MB-read-only"}


def verdicts(report) -> dict[str, str]:
    return {v.id: v.status for v in report.verdicts}


def failing(report) -> set[str]:
    return {v.id for v in report.verdicts if v.status == "fail"}


def assert_all_pass(report, skipped: set[str] = frozenset()) -> None:
    got = verdicts(report)
    assert report.error is None, report.error
    bad = {v.id: v.detail for v in report.verdicts if v.status != "pass" and v.id not in NOT_IN_SHIPPED_MAPS | skipped}
    assert not bad, bad
    skips = {i for i, s in got.items() if s == "skip"}
    assert skips <= NOT_IN_SHIPPED_MAPS | skipped and skipped & set(got) <= skips
    assert report.exit_code == 0
    assert all(v.cites and v.detail for v in report.verdicts), "every verdict cites its page and says what was seen"


@pytest.fixture(scope="module")
def wheel_stub():
    with launch("money-wheel", "--modbus", "tcp://127.0.0.1:0", *param_args(FAST_WHEEL)) as stub:
        yield stub.url


def test_the_money_wheel_stub_passes_every_clause(wheel_stub):
    report = run("money-wheel", modbus=wheel_stub)
    assert_all_pass(report)
    assert {"MB-connect", "MW-layout", "MW-spin-start", "MW-busy", "MW-index-pulses", "MW-rest-report",
            "MB-illegal-address", "MB-illegal-function", "MB-illegal-value", "MB-clock-rate"} <= set(verdicts(report))


def test_a_broken_wheel_fails_the_clauses_it_breaks():
    """A new spin_id shown before spinning, a stuck index sensor, a mirrored layout, a clock 1 % fast:
    those four clauses fail, naming what was seen; every other clause still passes."""
    from rules.crazy_time import WHEEL_SECTIONS

    mirrored = tuple(str(s) for s in reversed(WHEEL_SECTIONS))
    make = late_state_wheel(index_sensor_stuck=True, layout=mirrored)
    with served_glue("money-wheel", make, time_scale=1.01) as url:
        report = run("money-wheel", modbus=url)
    assert report.exit_code == 1
    assert failing(report) == {"MW-spin-start", "MW-index-pulses", "MW-layout", "MB-clock-rate"}, \
        {v.id: v.detail for v in report.verdicts if v.status == "fail"}
    detail = {v.id: v.detail for v in report.verdicts}
    assert "same read as spinning" in detail["MW-spin-start"]
    assert "0 index pulses" in detail["MW-index-pulses"]
    assert "counter-clockwise" in detail["MW-layout"]
    assert "ppm" in detail["MB-clock-rate"]


def test_a_static_data_peer_fails_the_clock_the_answers_and_the_spin():
    """What a register simulator serves (zeros everywhere, writes forgotten, unknown functions
    unanswered) fails the clauses a firmware developer must fix."""
    with static_peer() as url:
        report = run("money-wheel", modbus=url)
    assert report.exit_code == 1
    assert {"MB-command-seq", "MB-clock-monotonic", "MB-illegal-address", "MB-illegal-function",
            "MB-illegal-value", "MW-layout", "MW-spin-start", "MW-busy", "MW-index-pulses",
            "MW-rest-report"} <= failing(report)
    assert verdicts(report)["MB-connect"] == "pass"  # it answers: it is reachable, just wrong


@pytest.fixture(scope="module")
def wagering_stub():
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0") as stub:
        yield stub.url


def test_the_wagering_stub_passes_and_its_lockout_latency_is_measured(wagering_stub):
    report = run("wagering", modbus=wagering_stub)
    assert_all_pass(report, skipped={"MB-command-seq"})
    assert {i for i, s in verdicts(report).items() if s == "pass"} >= KEY_CLAUSES
    latency = next(v for v in report.verdicts if v.id == "WG-lockout-latency")
    assert "lock-out effective in (4.0, 5.0] ms" in latency.detail  # the stub's default latency: 5 ± 1 ms


def test_a_slow_lockout_fails_the_latency_clause_only():
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--param", "lockout_latency_mean_s=0.025",
                "--param", "lockout_latency_jitter_s=0") as stub:
        report = run("wagering", modbus=stub.url)
    assert failing(report) == {"WG-lockout-latency"}
    assert "budget 10 ms" in next(v.detail for v in report.verdicts if v.id == "WG-lockout-latency")


def _map_without_injection(tmp_path):
    text = files("hil.wire").joinpath("maps/wagering.toml").read_text(encoding="utf-8")
    head, *blocks = text.split("[[points]]")
    kept = [b for b in blocks if 'name = "press_inject_' not in b and 'name = "probe_' not in b]
    path = tmp_path / "black-box.toml"
    path.write_text("[[points]]".join([head, *kept]), encoding="utf-8")
    return path


def test_a_device_without_injection_skips_the_press_clauses_saying_why(wagering_stub, tmp_path):
    """The black-box device's map has no press_inject_*/probe_*: it loads, and the kit skips what
    only the injection feature can drive (the stub behind it still has the registers: unused)."""
    report = run("wagering", modbus=wagering_stub, register_map=_map_without_injection(tmp_path))
    got = verdicts(report)
    assert got["WG-press-log"] == got["WG-lockout-latency"] == "skip"
    assert "actuator" in next(v.detail for v in report.verdicts if v.id == "WG-lockout-latency")
    assert report.exit_code == 0 and not failing(report)


def test_cli_json_and_exit_codes(wagering_stub, tmp_path):
    result = runner.invoke(app, ["conformance", "wagering", "--modbus", wagering_stub, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["result"] == "pass" and doc["counts"]["fail"] == 0
    assert doc["measured"]["lockout_boundary_us"]["at_most"] <= 10_000 and "clock_rate_ppm" in doc["measured"]
    assert all(c["cites"].startswith("docs/wire/") for c in doc["clauses"])
    table = runner.invoke(app, ["conformance", "wagering", "--modbus", wagering_stub])
    assert table.exit_code == 0 and "WG-lockout-latency" in table.stdout
    bad = runner.invoke(app, ["conformance", "roulette-wheel", "--modbus", wagering_stub])
    assert bad.exit_code == 2 and "no Modbus contract" in bad.stderr
    black_box = runner.invoke(app, ["conformance", "wagering", "--modbus", wagering_stub, "--without-feature",
                                    "injection", "--json"])
    assert black_box.exit_code == 0, black_box.output
    doc = json.loads(black_box.stdout)
    assert doc["register_map"].endswith("without injection")
    assert {c["id"]: c["status"] for c in doc["clauses"]}["WG-lockout-latency"] == "skip"
    nonsense = runner.invoke(app, ["conformance", "money-wheel", "--modbus", wagering_stub, "--without-feature",
                                   "injection"])
    assert nonsense.exit_code == 2 and "no optional feature injection" in nonsense.stderr
    both = runner.invoke(app, ["conformance", "wagering"])
    assert both.exit_code == 2 and "exactly one of" in both.stderr
    broken_map = tmp_path / "broken.toml"
    broken_map.write_text("schema = 1\n", encoding="utf-8")
    refused = runner.invoke(app, ["conformance", "wagering", "--modbus", wagering_stub, "--register-map",
                                  str(broken_map)])
    assert refused.exit_code == 2 and "broken.toml" in refused.stderr


def test_an_unreachable_device_is_exit_2_with_one_clear_error():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nobody listens there now
    result = runner.invoke(app, ["conformance", "money-wheel", "--modbus", f"tcp://127.0.0.1:{port}", "--json"])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert doc["result"] == "error" and "unreachable" in doc["error"] and doc["clauses"] == []
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_the_top_slot_stub_passes_and_a_late_start_fails_the_tolerance():
    with launch("top-slot", "--modbus", "tcp://127.0.0.1:0", *param_args(FAST_TOP_SLOT)) as stub:
        assert_all_pass(run("top-slot", modbus=stub.url))
    with launch("top-slot", "--modbus", "tcp://127.0.0.1:0", *param_args({**FAST_TOP_SLOT, "late_start_s": 0.3})) \
            as stub:
        report = run("top-slot", modbus=stub.url)
    assert failing(report) == {"TS-start-tolerance"}
    assert "tolerance ±100 ms" in next(v.detail for v in report.verdicts if v.id == "TS-start-tolerance")


@pytest.mark.parametrize("device", [
    pytest.param("coin-flipper", marks=pytest.mark.slow),
    pytest.param("multiplier-board", marks=pytest.mark.slow), pytest.param("pachinko-board", marks=pytest.mark.slow),
    pytest.param("illuminator", marks=pytest.mark.slow),
    pytest.param("crazy-time-world-wheel", marks=pytest.mark.slow),
    pytest.param("progressive-system", marks=pytest.mark.slow)])
def test_the_other_stubs_pass_every_clause(device):
    with launch(device, "--modbus", "tcp://127.0.0.1:0") as stub:
        report = run(device, modbus=stub.url)
    no_args = {"coin-flipper", "crazy-time-world-wheel", "illuminator"}  # nothing a command could be refused for
    assert_all_pass(report, skipped={"MB-command-seq"} if device == "progressive-system" else
                    {"CD-refused"} if device in no_args else set())
    if device == "progressive-system":
        assert {i for i, s in verdicts(report).items() if s == "pass"} >= KEY_CLAUSES | {"PG-key-refused"}


@pytest.mark.slow
def test_a_command_device_with_a_fast_clock_fails_the_clock_rate_only():
    with launch("coin-flipper", "--modbus", "tcp://127.0.0.1:0", "--time-scale", "1.01") as stub:
        report = run("coin-flipper", modbus=stub.url)
    assert failing(report) == {"MB-clock-rate"}


@pytest.mark.slow
def test_a_progressive_system_losing_increments_fails_the_confirm_clause_only():
    with launch("progressive-system", "--modbus", "tcp://127.0.0.1:0", "--param",
                "lost_increment_probability=1.0") as stub:
        report = run("progressive-system", modbus=stub.url)
    assert failing(report) == {"PG-confirm"}, {v.id: v.detail for v in report.verdicts if v.status == "fail"}
    assert "meter 1 incremented" in next(v.detail for v in report.verdicts if v.id == "PG-confirm")


@pytest.mark.slow
def test_a_vendor_map_with_other_addresses_and_word_order(tmp_path):
    """The kit reads and writes through the map: a wheel whose command_seq is not next to command
    (two requests, the sequence last) and whose multi-register values are little-endian word order
    passes with its map, and fails with the shipped one."""
    text = files("hil.wire").joinpath("maps/money_wheel.toml").read_text(encoding="utf-8")
    text = text.replace('word_order = "big"', 'word_order = "little"')
    head, _, rest = text.partition('name = "command_seq"\ntable = "holding"\naddress = 1\n')
    assert rest, "the shipped map changed: fix this test's edit"
    vendor = tmp_path / "vendor-wheel.toml"
    vendor.write_text(head + 'name = "command_seq"\ntable = "holding"\naddress = 9\n' + rest, encoding="utf-8")
    with launch("money-wheel", "--modbus", "tcp://127.0.0.1:0", "--register-map", str(vendor),
                *param_args(FAST_WHEEL)) as stub:
        assert_all_pass(run("money-wheel", modbus=stub.url, register_map=vendor))
        shipped = run("money-wheel", modbus=stub.url)
    # read as big word order, the device clock's words come swapped: no longer a clock
    assert shipped.exit_code == 1 and {"MB-clock-monotonic", "MB-clock-rate"} <= failing(shipped), failing(shipped)
