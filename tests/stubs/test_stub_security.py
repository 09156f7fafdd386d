"""A firmware stub's exposure (docs/security.md, issue 13 "Exposure"): its control endpoint answers
only requests carrying its token — a stranger's ``configure``, ``truth``, ``clock``, ``info``,
``ping`` get ``unauthorised`` and change nothing, each refusal is logged with the stranger's address
(rate-limited) — and every listener binds loopback unless ``--allow-remote`` says otherwise (then
a warning names what is exposed). A bench whose control URL lacks the token, or has another, is
refused at connect: exit 2, one error, no traceback.

Nothing here binds beyond loopback: the host policy is checked before any socket is opened, so
the refusals and the ``--allow-remote`` warning are tested in-process, with the serving itself
stubbed out."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

import firmware_stubs.__main__ as stub_cli
from firmware_stubs.control import UNAUTHORISED, RefusalLog, check_token
from firmware_stubs.exposure import ExposureRefused, Listener, check_exposure, loopback_addresses
from firmware_stubs.launch import launch
from hil.adapters.stub_control import StubControlError, StubControlUnauthorised, redact, request, stub_info
from hil.cli import app

SCALE = 20
#: far from the default model's 5 ms: the owner's configure is recognisable
LATENCY_S = 0.0105
#: what a stranger tries: every op, with the knobs of issue 13's attack
STRANGER_OPS = [{"op": "configure", "params": {"lockout_ignored": True, "seats": 2}, "seed": 42},
                {"op": "truth"}, {"op": "clock", "ppm": 5000.0}, {"op": "clock"}, {"op": "info"},
                {"op": "ping"}, {"op": "reboot"}]
POLL_LIMIT_S = 5.0


def _stranger(control: str, message: object, raw: bytes | None = None) -> tuple[dict, bytes, str]:
    """One request the way a stranger sends it (no ``hil`` client): (answer, what followed it on the
    connection, the stranger's own address)."""
    u = urlsplit(control)
    with socket.create_connection((u.hostname, u.port), timeout=5) as sock:
        me = "%s:%d" % sock.getsockname()[:2]
        with sock.makefile("rb") as f:
            try:
                sock.sendall(raw if raw is not None else json.dumps(message).encode() + b"\n")
                answer = json.loads(f.readline())
                rest = f.read()  # the stub closes a stranger's connection after its one answer
            except ConnectionResetError:  # closed with the stranger's bytes unread (an over-long line)
                answer, rest = UNAUTHORISED, b""
    return answer, rest, me


def _wait_for(what: str, predicate) -> None:
    deadline = time.monotonic() + POLL_LIMIT_S
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.parametrize("wire", ["modbus", "serial"])
def test_a_stranger_is_refused_every_op_and_changes_nothing(wire):
    where = ["--modbus", "tcp://127.0.0.1:0"] if wire == "modbus" else ["--pty"]
    with launch("wagering", *where, "--time-scale", str(SCALE), "--control", "tcp://127.0.0.1:0") as stub:
        token = stub.control_token
        assert token and len(token) == 32 and check_token(token) == token  # drawn: 128 bits of hex
        assert stub.control == f"{stub.control.split('?')[0]}?token={token}"
        owner = request(stub.control, {"op": "configure", "seed": 7,
                                       "params": {"lockout_latency_mean_s": LATENCY_S, "seats": 5}})
        assert owner["params"]["seats"] == 5
        assert request(stub.control, {"op": "clock", "ppm": 150.0})["clock"]["ppm"] == 150.0
        before = stub_info(stub.control)

        base = stub.control.split("?")[0]
        strangers = {"no token": lambda m: m,
                     "a wrong token": lambda m: {**m, "token": "0" * 32},
                     "the token's first half": lambda m: {**m, "token": token[:16]},
                     "the token upper-cased and one digit off": lambda m: {**m, "token": token[:-1].upper() + "x"},
                     "a token that is not a string": lambda m: {**m, "token": int(token[:8], 16)}}
        peers = []
        for how, sign in strangers.items():
            for op in STRANGER_OPS:
                answer, rest, me = _stranger(base, sign(op))
                assert answer == UNAUTHORISED, (how, op, answer)  # nothing else: no truth, no params, no clock
                assert rest == b"", (how, op, rest)
                peers.append(me)
        # hostile lines: not JSON, not an object, nested past the parser, longer than a line may be
        for raw in (b"\xff\xfe garbage\n", b"[1, 2]\n", b"[" * 100_000 + b"\n", b"{" + b" " * (1 << 21) + b"\n"):
            answer, _rest, me = _stranger(base, None, raw)
            assert answer == UNAUTHORISED
            peers.append(me)

        # the owner's malformed requests are refused too, before anything is touched (no traceback)
        for bad in ({"seed": {"spawn_key": [1]}}, {"seed": "x"}, {"params": [1, 2]}, {"rules": 5}):
            with pytest.raises(StubControlError, match="seed must be|must be JSON objects"):
                request(stub.control, {"op": "configure", **bad})
        after = stub_info(stub.control)  # the owner's token still works, and sees its own model
        assert after == before
        assert after["params"]["seats"] == 5 and after["params"]["lockout_ignored"] is False
        assert after["params"]["lockout_latency_mean_s"] == LATENCY_S and after["clock_ppm"] == 150.0
        assert request(stub.control, {"op": "truth"})["truth"] == []
        assert request(stub.control, {"op": "ping"}) == {"ok": True}

        # each refusal is logged with the peer's address — the first ones, then the log holds still
        _wait_for("the first refusal logged", lambda: peers[0] in stub.stderr())
        err = stub.stderr()
        assert "refused a request without a token (op 'configure') from " + peers[0] in err, err
        refusals = [ln for ln in err.splitlines() if "control endpoint: refused" in ln]
        assert len(refusals) == RefusalLog().burst < len(peers), refusals  # 39 refusals, 10 lines
        assert "Traceback" not in err, err


def test_the_token_can_be_set_and_the_stub_keeps_it(tmp_path):
    token = "5eC0" * 8
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--control", "tcp://127.0.0.1:0",
                "--control-token", token) as stub:
        assert stub.control_token == token.lower()
        assert request(stub.control, {"op": "ping"}) == {"ok": True}
        assert _stranger(stub.control.split("?")[0], {"op": "ping", "token": "5ec0" * 7})[0] == UNAUTHORISED


@pytest.mark.parametrize("argv, message", [
    (["--control", "tcp://127.0.0.1:0", "--control-token", "abc123"], "6 hex digits"),
    (["--control", "tcp://127.0.0.1:0", "--control-token", "z" * 32], "must be hex digits"),
    (["--control-token", "ab" * 16], "--control-token needs --control"),
    (["--control", "tcp://127.0.0.1:0?token=" + "ab" * 16], "give the address only"),
])
def test_a_bad_token_option_is_refused_with_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(stub_cli.asyncio, "run", lambda coro: pytest.fail("the stub must not start"))
    with pytest.raises(SystemExit) as exc:
        stub_cli.main(["wagering", "--modbus", "tcp://127.0.0.1:0", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def _listening(pid: int) -> set[tuple[str, int]]:
    """The TCP sockets process ``pid`` listens on: (address, port), from /proc."""
    import ipaddress
    import os

    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    found = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] != "0A" or cols[9] not in inodes:  # 0A: LISTEN
                continue
            hexaddr, hexport = cols[1].split(":")
            raw = bytes.fromhex(hexaddr)
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # each 32-bit word is host order
            found.add((str(ipaddress.ip_address(raw)), int(hexport, 16)))
    return found


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="reads the bound sockets from /proc")
def test_every_listener_binds_loopback_by_default():
    """``tcp://:PORT`` (no host) is loopback, never "every interface" as an empty host binds; the
    sockets the stub holds say so, not only its READY line."""
    with launch("wagering", "--modbus", "tcp://:0", "--control", "tcp://:0", "--actuator-modbus", "tcp://:0") as stub:
        urls = {"modbus": stub.url, "control": stub.control, "actuator": stub.actuator}
        assert all(urlsplit(u).hostname == "127.0.0.1" for u in urls.values()), urls
        bound = _listening(stub.proc.pid)
        assert {urlsplit(u).port for u in urls.values()} <= {port for _addr, port in bound}, (urls, bound)
        assert bound and {addr for addr, _port in bound} == {"127.0.0.1"}, bound
        assert "WARNING" not in stub.stderr()


@pytest.mark.parametrize("host", ["0.0.0.0", "[::]", "192.0.2.10", "0"])
@pytest.mark.parametrize("option", ["--modbus", "--control", "--actuator-modbus"])
def test_a_host_beyond_loopback_is_refused_without_allow_remote(option, host, capsys, monkeypatch):
    monkeypatch.setattr(stub_cli.asyncio, "run", lambda coro: pytest.fail("the stub must not start"))
    args = {"--modbus": "tcp://127.0.0.1:0", "--control": "tcp://127.0.0.1:0", "--actuator-modbus": "tcp://127.0.0.1:0"}
    args[option] = f"tcp://{host}:5020"
    with pytest.raises(SystemExit) as exc:
        stub_cli.main(["wagering", *(x for kv in args.items() for x in kv)])
    assert exc.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{option} tcp://{host}:5020 binds" in err and "not loopback" in err and "--allow-remote" in err, err


def test_the_refusal_is_the_real_exit_code_before_any_socket():
    """The command line itself: exit 2, no READY line (nothing was bound)."""
    done = subprocess.run([sys.executable, "-m", "firmware_stubs", "wagering", "--modbus", "tcp://0.0.0.0:0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "READY" not in done.stdout
    assert "binds every interface, not loopback" in done.stderr and "Traceback" not in done.stderr


def test_allow_remote_binds_what_it_is_told_and_warns(capsys, monkeypatch):
    started = []
    monkeypatch.setattr(stub_cli.asyncio, "run", lambda coro: (started.append(coro), coro.close()))
    stub_cli.main(["wagering", "--modbus", "tcp://0.0.0.0:5020", "--control", "tcp://[::]:5030",
                   "--actuator-modbus", "tcp://127.0.0.1:0", "--allow-remote"])
    assert len(started) == 1  # it serves
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert any(ln.startswith("WARNING: --allow-remote: the stub's Modbus TCP server listens on 0.0.0.0:5020, "
                             "every interface") for ln in lines), err
    assert any("control endpoint listens on [::]:5030" in ln for ln in lines), err
    assert "actuator" not in err  # on loopback: not exposed, not named
    assert "token travels in clear text" in err


def test_the_host_policy():
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "127.1", "::ffff:127.0.0.1"):
        assert loopback_addresses(host)[0], host
    for host in ("0.0.0.0", "::", "0", "192.168.1.10", "10.0.0.1", "::ffff:0.0.0.0", "fe80::1", "no-such-host.invalid"):
        assert not loopback_addresses(host)[0], host
    lo = Listener("control endpoint", "--control", "127.0.0.1", 0, "reprogram the device")
    anywhere = Listener("Modbus TCP server", "--modbus", "0.0.0.0", 502, "press the buttons")
    assert check_exposure([lo], allow_remote=False) is None
    with pytest.raises(ExposureRefused, match=r"--modbus tcp://0\.0\.0\.0:502 binds every interface"):
        check_exposure([lo, anywhere], allow_remote=False)
    warning = check_exposure([lo, anywhere], allow_remote=True)
    assert warning.startswith("WARNING") and "press the buttons" in warning and "clear text" not in warning


def test_the_control_server_itself_refuses_a_host_beyond_loopback():
    """Whoever starts a ``ControlServer`` (not only the command line): refused before it binds."""
    import asyncio

    from firmware_stubs.control import ControlServer

    server = ControlServer(lambda *_: {}, list, token="ab" * 16)
    with pytest.raises(ExposureRefused, match="binds every interface"):
        asyncio.run(server.start("0.0.0.0", 0))
    assert server.server is None
    # allowed, it goes on to bind: 192.0.2.10 (TEST-NET-1) is no address of this machine, so the
    # bind itself fails, and nothing is exposed on the way
    allowed = ControlServer(lambda *_: {}, list, token="ab" * 16, allow_remote=True)
    with pytest.raises(OSError):
        asyncio.run(allowed.start("192.0.2.10", 0))


def test_refusals_are_rate_limited_and_none_is_lost():
    class Lines(logging.Handler):
        def __init__(self):
            super().__init__()
            self.lines: list[str] = []

        def emit(self, record):
            self.lines.append(record.getMessage())

    logger = logging.getLogger("test_stub_security.refusals")
    handler = Lines()
    logger.addHandler(handler)
    logger.propagate = False
    now = [0.0]
    try:
        log = RefusalLog(logger, burst=10, period_s=10.0, clock=lambda: now[0])
        logged = [log(f"127.0.0.1:{40000 + i}", "a request with a wrong token") for i in range(1000)]
        assert sum(logged) == 10 and logged[:10] == [True] * 10 and handler.lines[0].endswith("127.0.0.1:40000")
        now[0] += 10.0
        assert log("127.0.0.1:50000", "a request without a token")
        assert "990 more refusal(s) not logged" in handler.lines[-1] and "127.0.0.1:40010" in handler.lines[-1]
        log("127.0.0.1:50001", "a request without a token")  # within the period: counted
        log.flush()
        assert len(handler.lines) == 12 and "1 more refusal(s)" in handler.lines[-1]
        assert "(1002 refused in all)" in handler.lines[-1]
    finally:
        logger.removeHandler(handler)


def test_the_rig_sends_no_request_without_a_token():
    with pytest.raises(StubControlUnauthorised, match="has no token"):
        request("tcp://127.0.0.1:9", {"op": "ping"})  # refused before any connect (port 9 is not listened on)
    assert redact("tcp://127.0.0.1:5030?token=" + "ab12" * 8) == "tcp://127.0.0.1:5030?token=ab12…"


def _bench(tmp_path: Path, url: str, control: str) -> Path:
    path = tmp_path / "bench.toml"
    path.write_text(f'schema = 1\nname = "stub"\ntime_scale = {SCALE}\n[devices.wagering]\nkind = "modbus"\n'
                    f'url = "{url}"\ncontrol = "{control}"\n')
    return path


def test_a_bench_without_the_right_token_is_refused_at_connect(tmp_path):
    scenario = tmp_path / "small.yaml"
    scenario.write_text("schema: 1\nname: small\ngame: crazy-time\nseed: 5\nrounds: 1\n")
    runner = CliRunner()
    with launch("wagering", "--modbus", "tcp://127.0.0.1:0", "--time-scale", str(SCALE),
                "--control", "tcp://127.0.0.1:0") as stub:
        base, wrong = stub.control.split("?")[0], "f" * 32
        request(stub.control, {"op": "configure", "params": {"seats": 5}, "seed": 3})  # not what the scenario sets
        before = stub_info(stub.control)
        results = {}
        for how, control in (("no token", base), ("a wrong token", f"{base}?token={wrong}")):
            out = tmp_path / how.replace(" ", "-")
            res = runner.invoke(app, ["run", str(scenario), "--bench", str(_bench(tmp_path, stub.url, control)),
                                      "--out", str(out)])
            results[how] = (res, json.loads((out / "report.json").read_text())["refused"])
        info = stub_info(stub.control)
    for how, (res, refused) in results.items():
        text = " ".join(res.output.split())
        assert res.exit_code == 2, (how, res.output)
        assert text.count("error:") == 1 and "Traceback" not in res.output, (how, res.output)
        assert "error: not authorised on a stub's control endpoint: devices.wagering.control: " in text, (how, text)
        assert refused["kind"] == "unauthorised" and refused["role"] == "wagering", refused
        assert wrong not in res.output and wrong not in refused["reason"]  # a token is never printed whole
    assert "has no token" in results["no token"][1]["reason"]
    assert "refused the token (unauthorised)" in results["a wrong token"][1]["reason"]
    assert info == before  # neither run configured the stub
