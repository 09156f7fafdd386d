"""The README's examples are tests: its bench file loads, its commands parse."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from firmware_stubs.__main__ import main as stub_main
from hil.bench import parse_bench

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_quick_start_is_exactly_the_two_commands():
    block = re.search(r"## Quick start.*?```\n(.*?)```", README, re.S).group(1)
    assert block.split("\n")[:2] == ["make run", "make test"] and block.strip().count("\n") == 1


def test_readme_bench_file_loads():
    (toml,) = re.findall(r"```toml\n(.*?)```", README, re.S)
    bench = parse_bench(toml, "README.md")
    assert bench.config.real_time and {d.kind for d in bench.config.devices.values()} == {"modbus"}
    assert all(d.control for d in bench.config.devices.values())


def test_readme_stub_commands_parse(monkeypatch):
    """Each README `croupier stub` line passes the stub's own input checks and reaches its Modbus
    server with the device, Modbus URL and control URL the line gives, and those are the URLs of
    the README's bench file (so the documented stubs and bench file fit together). A line the
    stub would refuse is refused (exit 2) before any server starts."""
    served = []

    def fake_run(coro):  # what asyncio.run would serve: the validated arguments of _main(args)
        served.append(coro.cr_frame.f_locals["args"])
        coro.close()

    monkeypatch.setattr("firmware_stubs.__main__._serve_serial", lambda args: pytest.fail(f"serial for {args}"))
    monkeypatch.setattr("firmware_stubs.__main__.asyncio.run", fake_run)
    lines = [ln.rstrip(" &") for ln in README.splitlines() if ln.startswith("croupier stub ") and "DEVICE" not in ln]
    assert len(lines) == 3
    given = []
    for line in lines:
        words = shlex.split(line)
        opts = dict(zip(words[3::2], words[4::2], strict=True))
        given.append((words[2], opts["--modbus"], opts["--control"]))
        stub_main(words[2:])
    assert [(a.device, a.modbus, a.control) for a in served] == given
    assert [d for d, _, _ in given] == ["money-wheel", "top-slot", "wagering"]
    # the wagering device holds a supervisor key (drawn at start: serve's checks ran)
    assert [a.supervisor_key_bytes is not None for a in served] == [False, False, True]
    (toml,) = re.findall(r"```toml\n(.*?)```", README, re.S)
    bench = parse_bench(toml, "README.md").config.devices
    assert sorted((d.url, d.control.split("?")[0]) for d in bench.values()) == sorted((m, c) for _, m, c in given)
    for bad in (lines[0].replace("money-wheel", "money-wheeel"), lines[1] + " --pty"):
        with pytest.raises(SystemExit) as exc:
            stub_main(shlex.split(bad)[2:])
        assert exc.value.code == 2, bad
    assert len(served) == 3
