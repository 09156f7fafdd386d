"""``croupier outcomes``: the games of a roulette wheel from a trace, a run's out folder or a raw
Slingshot-style log (docs/wire/slingshot-roulette.md, "Raw logs and outcomes") — the log formats,
CSV and JSON, and a clear error with exit 2 for what it cannot read."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.wire.slingshot import parse_log

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "slingshot" / "live-wheel.log"
runner = CliRunner()


def test_an_iso_timestamped_log_reads_as_the_seconds_one(tmp_path: Path):
    _fmt, lines = parse_log(LOG.read_bytes())
    iso = tmp_path / "iso.log"
    iso.write_bytes(b"".join(b"2026-11-30T14:%02d:%06.3fZ\t" % divmod(ln.t, 60) + ln.data + b"\n" for ln in lines))
    got = runner.invoke(app, ["outcomes", "--from", "slingshot", str(iso), "--json"])
    assert got.exit_code == 0, got.output
    out = json.loads(got.stdout)
    assert out["counts"][str(iso)]["format"] == "iso" and out["settled"] == 6 and out["void"] == 1
    first = out["outcomes"][0]
    assert first["time"] == "2026-11-30T14:00:19.450Z" and first["result"] == 27


def test_csv_has_one_row_per_game_with_the_columns(tmp_path: Path):
    got = runner.invoke(app, ["outcomes", "--from", "slingshot", str(LOG), "--csv"])
    assert got.exit_code == 0, got.output
    rows = list(csv.DictReader(io.StringIO(got.stdout)))
    assert [r["spin"] for r in rows] == ["11", "12", "13", "14", "15", "16", "17"]
    assert rows[2]["result"] == "6" and rows[2]["direction"] == "ccw" and rows[2]["rotor_rpm"] == "177"
    assert rows[-1]["status"] == "void" and rows[-1]["void_reason"] == "power_off"


def test_garbage_in_a_log_is_counted_never_a_traceback(tmp_path: Path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(b"*X;2;001; 0;0;000;0\r\n\x00\xffnoise\r\n*X;3;001; 0;0;150;1\r\n*X;4;001; 0;0;150;1\r\n 7\r\n"
                    b"*X;5;001; 7;0;149;1\r\n*X;5;001;")
    got = runner.invoke(app, ["outcomes", "--from", "slingshot", str(bad), "--json"])
    assert got.exit_code == 0, got.output
    out = json.loads(got.stdout)
    assert out["counts"][str(bad)]["garbled"] == 2 and out["counts"][str(bad)]["garbled_lines"] == [2, 7]
    assert [(r["result"], r["start_seen"]) for r in out["outcomes"]] == [(7, False)]  # begun before the log


@pytest.mark.parametrize("args", [
    ["outcomes", "no-such.sqlite"], ["outcomes", "--from", "slingshot", "no-such.log"],
    ["outcomes", "--from", "other", str(LOG)], ["outcomes", str(LOG)], ["outcomes", "--csv", "--json", str(LOG)],
])
def test_what_cannot_be_read_is_one_error_and_exit_2(args, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = runner.invoke(app, args)
    assert got.exit_code == 2 and (got.exception is None or isinstance(got.exception, SystemExit)), got.output
    assert "error:" in got.output and "Traceback" not in got.output


def test_an_out_folder_without_traces_is_refused(tmp_path: Path):
    got = runner.invoke(app, ["outcomes", str(tmp_path)])
    assert got.exit_code == 2 and "no traces" in got.output
