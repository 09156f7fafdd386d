"""The stubs' command line (``python -m firmware_stubs``, ``croupier stub``): typer, with help on
every option; the two ways in are the same program and the same process (ended by its pid); ``-v``
logs each connection and each command, the default logs neither."""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
import tty
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import typer

from firmware_stubs.__main__ import DEVICES, app, main
from firmware_stubs.launch import _first_line, end, launch

CROUPIER = Path(sys.executable).with_name("croupier")
README = Path(__file__).resolve().parents[2] / "README.md"
ENV = {**os.environ, "COLUMNS": "120", "TERM": "dumb"}


def _read_holding(url: str, address: int = 0, count: int = 2) -> bytes:
    """One FC3 request over a fresh connection; the answer's PDU."""
    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=5) as sock:
        sock.sendall(struct.pack(">HHHBBHH", 1, 0, 6, 1, 3, address, count))
        head = sock.recv(7)
        return sock.recv(struct.unpack(">H", head[4:6])[0] - 1)


def _control(url: str, request: dict) -> dict:
    u = urlsplit(url)
    token = parse_qs(u.query)["token"][0]
    with socket.create_connection((u.hostname, u.port), timeout=5) as sock:
        sock.sendall(json.dumps({**request, "token": token}).encode() + b"\n")
        return json.loads(sock.makefile().readline())


def test_every_option_and_the_device_argument_have_help():
    command = typer.main.get_command(app)
    params = [p for p in command.params if p.name != "help"]
    assert {p.name for p in params} >= {"device", "modbus", "serial", "pty", "param", "control", "allow_remote",
                                        "verbose", "log_file"}
    missing = [p.name for p in params if not (getattr(p, "help", None) or "").strip()]
    assert not missing, f"options without help: {missing}"
    for text in [command.help or ""] + [p.help for p in params]:
        assert "``" not in text, text
    assert all(d in next(p.help for p in params if p.name == "device") for d in DEVICES)


def test_help_reads_clean_and_croupier_stub_shows_the_same(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    main(["--help"])  # python -m firmware_stubs --help: exit 0
    out = capsys.readouterr().out
    assert "Usage: croupier stub" in out and "READY DEVICE URL [control=URL]" in out and "``" not in out
    options = [o for p in typer.main.get_command(app).params for o in getattr(p, "opts", ()) if o.startswith("--")]
    assert all(o in out for o in options)
    if CROUPIER.exists():  # the same program by the other way in
        via_croupier = subprocess.run([str(CROUPIER), "stub", "--help"], capture_output=True, text=True, timeout=60,
                                      env=ENV)
        assert via_croupier.returncode == 0, via_croupier.stderr
        assert "Usage: croupier stub" in via_croupier.stdout and all(o in via_croupier.stdout for o in options)


@pytest.mark.parametrize("argv, message", [
    (["wagering"], "say which wire to serve"),
    (["wagering", "--pty", "--modbus", "tcp://127.0.0.1:0"], "give one wire only"),
    (["wagerng", "--pty"], "did you mean 'wagering'"),
    (["coin-flipper", "--pty"], "Modbus only"),
    (["money-wheel", "--pty", "--supervisor-key", "ab" * 16], "holds no supervisor key"),
])
def test_bad_input_is_one_error_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("argv, says", [
    (["wagering", "--pty", "--param", "lockout_latency_mean_s=-1"], "error: wagering: lockout_latency_mean_s must be > 0"),
    (["wagering", "--pty", "--param", "lockout_latncy_mean_s=1"], "did you mean 'lockout_latency_mean_s'?"),
    (["wagering", "--modbus", "tcp://127.0.0.1:0", "--register-map", str(README)],
     f"error: --register-map: {README}:3: TOML syntax: "),
    (["top-slot", "--modbus", "tcp://127.0.0.1:0", "--rules", "/nonexistent/rules.toml"],
     "error: --rules /nonexistent/rules.toml: cannot read: No such file or directory"),
    (["wagering", "--serial", "/nonexistent/tty"], "error: --serial /nonexistent/tty: cannot open: No such file"),
])
def test_a_device_that_cannot_be_built_is_one_error_line_never_a_traceback(argv, says):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert str(exc.value).startswith("error: ") and says in str(exc.value), exc.value
    assert ": :" not in str(exc.value) and "Value error" not in str(exc.value)


def test_an_unknown_option_is_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["wagering", "--pty", "--no-such-option"])
    assert exc.value.code == 2 and "--no-such-option" in capsys.readouterr().err


def test_croupier_stub_is_the_same_process_and_logs_at_v(tmp_path):
    """``croupier stub`` serves in the process it was started as (ended by that pid, exit 0); at
    ``-v`` it logs the connection, the request and the control request (never the token), and
    ``--log-file`` keeps them as JSON lines."""
    if not CROUPIER.exists():
        pytest.skip(f"no croupier entry point beside {sys.executable}")
    log_file = tmp_path / "stub.jsonl"
    proc = subprocess.Popen([str(CROUPIER), "stub", "wagering", "--modbus", "tcp://127.0.0.1:0", "--control",
                             "tcp://127.0.0.1:0", "-v", "--log-file", str(log_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        parts = _first_line(proc, 30).split()
        assert parts[:2] == ["READY", "wagering"], parts
        url, control = parts[2], parts[3].removeprefix("control=")
        assert _read_holding(url)[0] == 3
        assert _control(control, {"op": "configure", "params": {"lockout_latency_mean_s": 0.004}})["ok"]
        proc.terminate()  # by the pid croupier was started with
        assert proc.wait(timeout=30) == 0
        err = proc.stderr.read().decode()
    finally:
        end(proc)
    token = parse_qs(urlsplit(control).query)["token"][0]
    port = str(urlsplit(url).port)
    assert "INFO croupier.stub.wagering: Modbus TCP connection accepted peer=127.0.0.1:" in err, err
    assert "Modbus request: read holding registers" in err and "address=0 count=2" in err and "result=ok" in err
    assert "Modbus TCP connection closed" in err
    assert "croupier.stub.wagering.control: control request" in err and "op=configure" in err
    assert "lockout_latency_mean_s" in err and token not in err
    records = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    assert any(r["logger"] == "croupier.stub.wagering" and r["message"] == "Modbus TCP server listening"
               and str(r["port"]) == port for r in records)
    assert any(r["message"].startswith("Modbus request") and r["fc"] == 3 for r in records)
    assert token not in log_file.read_text(encoding="utf-8")


def test_the_default_logs_no_connection_nor_request():
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--control", "tcp://127.0.0.1:0") as stub:
        assert _read_holding(stub.url)[0] == 3
        assert _control(stub.control, {"op": "ping"}) == {"ok": True}
        assert _read_holding(stub.url)[0] == 3  # answered after the control request: both were served
        err = stub.stderr()
    assert "Modbus request" not in err and "connection accepted" not in err and "control request" not in err, err


def test_serial_frames_are_logged_at_v():
    from hil.wire.frames import FrameParser, encode

    with launch("wagering", "--pty", "-v") as stub:
        fd = os.open(stub.url.split("?")[0], os.O_RDWR | os.O_NOCTTY)
        try:
            tty.setraw(fd)
            os.write(fd, encode("HELLO", 1, device_kind="host", protocol_version=1, clock_ns=0))
            parser, seen = FrameParser(), []
            deadline = time.monotonic() + 10
            while not any(f.msg_type == "ACK" for f in seen) and time.monotonic() < deadline:
                if select.select([fd], [], [], 0.2)[0]:
                    seen += parser.feed(os.read(fd, 4096), time.perf_counter_ns())
        finally:
            os.close(fd)
        assert any(f.msg_type == "ACK" for f in seen)
        deadline = time.monotonic() + 5
        while "serial frame received: HELLO" not in stub.stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
        err = stub.stderr()
    assert "INFO croupier.stub.wagering: serial frame received: HELLO" in err and "status=ok" in err, err
    assert "key_0" not in err


def test_vv_logs_the_values_but_never_a_keys_registers(caplog):
    import logging

    from firmware_stubs.modbus import ModbusServer

    class Server(ModbusServer):
        names = {0: "command", 1: "command_seq", 2: "pay_key"}

        def table_size(self, table):
            return 8

        def serve(self, table, address, values, rx_ns):
            return None

        def cells(self, table, address, qty):
            return [7] * qty

        def point_names(self, table, address, qty):
            return [self.names[a] for a in range(address, address + qty) if a in self.names]

    server = Server(log=logging.getLogger("croupier.stub.test"))
    with caplog.at_level(logging.DEBUG, logger="croupier.stub.test"):
        server.handle_pdu(bytes([16, 0, 0, 0, 2, 4, 0, 5, 0, 9]), 0, "127.0.0.1:1")  # command, command_seq
        server.handle_pdu(bytes([16, 0, 1, 0, 2, 4, 0, 9, 0xBE, 0xEF]), 0, "127.0.0.1:1")  # command_seq, pay_key
        server.handle_pdu(bytes([3, 0, 0, 0, 2]), 0, "127.0.0.1:1")
    text = "\n".join(f"{r.getMessage()} {getattr(r, 'points', '')}" for r in caplog.records)
    assert "Modbus values: [5, 9]" in text and "Modbus values: [7, 7]" in text, text
    assert "withheld (a key)" in text and str(0xBEEF) not in text, text
    assert "write multiple registers command,command_seq" in text.replace("Modbus request: ", ""), text
