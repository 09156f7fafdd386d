"""The README's examples are tests: its bench file loads, its commands parse."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

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
    seen = []
    monkeypatch.setattr("firmware_stubs.__main__._serve_serial", lambda args: seen.append(args))
    monkeypatch.setattr("firmware_stubs.__main__.asyncio.run", lambda coro: (seen.append(coro), coro.close()))
    lines = [ln.rstrip(" &") for ln in README.splitlines() if ln.startswith("croupier stub ") and "DEVICE" not in ln]
    assert len(lines) == 3
    for line in lines:
        stub_main(shlex.split(line)[2:])
    assert len(seen) == 3
