"""Bad input is told in one clean sentence: the file (and line and field where there are some), what
is wrong, no placeholder ("(file)", ":?:"), no Python repr, no phrase said twice (issue 14)."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hil.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = str(ROOT / "README.md")
NORMAL_PLAY = str(ROOT / "scenarios/crazy_time/normal_play.yaml")


def _cases(tmp: Path) -> list[tuple[list[str], str]]:
    (tmp / "empty").mkdir()
    scenario = (ROOT / "scenarios/crazy_time/normal_play.yaml").read_text(encoding="utf-8")
    (tmp / "typo.yaml").write_text(scenario.replace("rounds:", "roundz:"), encoding="utf-8")
    return [
        (["run", README], f"error: {README}:6: YAML syntax: "),
        (["run", "--bench", README, NORMAL_PLAY], f"error: {README}:3: TOML syntax: "),
        (["run", "--rules", README, NORMAL_PLAY], f"error: {README}:3: TOML syntax: "),
        (["run", str(tmp / "empty")], f"error: {tmp / 'empty'}: no scenario files (*.yaml) found"),
        (["run", str(tmp / "typo.yaml")], "roundz: unknown field 'roundz' (did you mean 'rounds'?); the file has 1 "
                                          "more error after this one"),
        (["check", str(tmp / "empty")], f"error: {tmp / 'empty'}: a folder, not a trace"),
        (["rtp", "crazy-time", "--wheel", "single"], "error: --wheel: crazy-time takes neither --paytable nor --wheel"),
        (["rtp", "royal-match", "--rules", README], "error: --rules: royal-match takes --paytable and --decks only"),
        (["rtp", "roulette-up", "--paytable", "Z"], "error: --paytable: no Roulette Up paytable 'Z': § 617b.4(h)"),
    ]


def test_each_bad_input_is_one_clean_sentence(tmp_path):
    for args, says in _cases(tmp_path):
        res = CliRunner().invoke(app, args + (["--out", str(tmp_path / "out")] if args[0] == "run" else []))
        first = res.output.splitlines()[0] if res.output else ""
        assert res.exit_code == 2 and first.startswith("error: ") and says in first, (args, res.output)
        assert "(file)" not in first and ":?:" not in first and "PosixPath" not in first, first
        words = re.findall(r"[a-z]+(?: [a-z]+){3}", first.lower())  # no four-word phrase said twice
        assert len(words) == len(set(words)), (first, [w for w in words if words.count(w) > 1])


def test_a_serial_device_that_does_not_open_is_said_once(tmp_path):
    bench = tmp_path / "bench.toml"
    bench.write_text('schema = 1\nname = "missing"\n[devices.wheel]\nkind = "serial"\nurl = "/nonexistent/tty"\n',
                     encoding="utf-8")
    res = CliRunner().invoke(app, ["run", NORMAL_PLAY, "--bench", str(bench), "--out", str(tmp_path / "out")])
    first = res.output.splitlines()[0]
    assert res.exit_code == 2 and first == ("error: device unreachable: devices.wheel: the serial device at "
                                            "/nonexistent/tty could not be reached: the port did not open "
                                            "(No such file or directory)"), res.output


def test_a_modbus_device_nobody_answers_is_said_once_without_a_repr(tmp_path, capfd):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bench = tmp_path / "bench.toml"
    bench.write_text(f'schema = 1\nname = "m"\n[devices.wheel]\nkind = "modbus"\nurl = "tcp://127.0.0.1:{port}"\n'
                     "timeout_s = 0.2\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["run", NORMAL_PLAY, "--bench", str(bench), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and res.output.splitlines()[0] == (
        f"error: device unreachable: devices.wheel: the modbus device at tcp://127.0.0.1:{port} could not be "
        "reached: disconnected: cannot connect (refused, or no answer in time)"), res.output
    assert "Failed to connect" not in capfd.readouterr().err  # pymodbus' own line, beside ours


@pytest.mark.parametrize("argv", [["wagering"], ["coin-flipper", "--pty"]])
def test_the_stub_says_it_the_same_way(argv, capsys):
    from firmware_stubs.__main__ import main

    with pytest.raises(SystemExit):
        main(argv)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "(file)" not in err
