"""A damaged trace — an event payload that is no JSON object, or no JSON at all, or a press with
fields of the wrong type — is evidence no check can read: ``croupier check`` fails the checks on
the rounds it spoils, naming the events, and never ends in a traceback (issue 13, bad input)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from tests.hil.trace_surgery import set_payloads

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "crazy_time" / "normal_play.yaml"
runner = CliRunner()


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("damaged") / "out"
    run = runner.invoke(app, ["run", str(SCENARIO), "--max-rounds", "3", "--out", str(out)])
    assert run.exit_code == 3, run.output  # not decisive: 3 rounds leave normal-play's χ² undecided
    (path,) = (out / "traces").glob("*.sqlite")
    intact = runner.invoke(app, ["check", str(path)])
    assert intact.exit_code == 3, intact.output  # intact: no check fails, the χ² is undecided
    assert not [c["id"] for c in json.loads(intact.output)["checks"] if c["verdict"] == "fail"]
    return path


def _damaged(trace: Path, where: Path, rnd: int, payload: dict | str) -> Path:
    """A copy of ``trace`` whose round ``rnd`` presses carry ``payload`` (a string: that text)."""
    copy = where / "damaged.sqlite"
    shutil.copy(trace, copy)
    assert set_payloads(copy, lambda row: row[0] == rnd and row[4] == "press", payload) > 0
    return copy


@pytest.mark.parametrize("payload", ["[1, 2]", "{not json", "17", "null"])
def test_a_payload_that_is_no_object_fails_the_checks_naming_the_event(trace, tmp_path, payload):
    bad = _damaged(trace, tmp_path, 2, payload)
    res = runner.invoke(app, ["check", str(bad)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1, res.output
    checks = json.loads(res.output)["checks"]
    assert all(c["verdict"] == "fail" for c in checks)
    assert all(any("has a payload that is no JSON object" in f["message"] and f["round"] == 2
                   for f in c["findings"]) for c in checks)


def test_a_press_with_fields_of_the_wrong_type_is_a_finding_not_a_crash(trace, tmp_path):
    bad = _damaged(trace, tmp_path, 1, {"press_id": "x", "accepted": 3})
    res = runner.invoke(app, ["check", str(bad)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1, res.output
    assert any(c["verdict"] == "fail" for c in json.loads(res.output)["checks"])


def test_a_record_that_cannot_be_read_is_no_trace_naming_the_round(trace, tmp_path):
    """One bit flipped in round 2's compressed record: ``check`` refuses the file (exit 2) naming
    the round, never judges what is left of it, never a traceback."""
    from tests.hil import trace_surgery

    copy = tmp_path / "flipped.sqlite"
    shutil.copy(trace, copy)
    rows = trace_surgery.commits(copy)
    (two,) = [c for c in rows if c["round"] == 2]
    data = bytearray(two["data"])
    data[len(data) // 2] ^= 0x01
    two["data"] = bytes(data)
    trace_surgery.replace_all(copy, rows)
    res = runner.invoke(app, ["check", str(copy)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 2 and "(round 2) is damaged" in res.output, res.output


def test_a_declaration_missing_a_field_is_a_finding_not_a_crash(trace, tmp_path):
    """The wheel's round-0 declaration without its ``sections`` (a hand-made or vendor trace): the
    layout check fails on malformed evidence naming the set-up; no traceback (was a KeyError)."""
    copy = tmp_path / "no-sections.sqlite"
    shutil.copy(trace, copy)

    def strip(row):
        return row[0] == 0 and row[3] == "wheel" and row[4] == "device_info"

    from tests.hil.trace_surgery import rewrite

    def fn(n, rows, state):
        changed = False
        for row in rows:
            if strip(row) and isinstance(row[5], dict) and "sections" in row[5]:
                row[5] = {k: v for k, v in row[5].items() if k != "sections"}
                changed = True
        return (rows, state) if changed else None

    assert rewrite(copy, fn, relink=True) > 0
    res = runner.invoke(app, ["check", str(copy)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1, res.output
    layout = next(c for c in json.loads(res.output)["checks"] if c["id"] == "CT-690.1-layout")
    assert layout["verdict"] == "fail"
    assert any(f["round"] == 0 and "KeyError" in f["message"] for f in layout["findings"]), layout
