"""Modbus RTU over a pty at the pace of a real line: ``croupier stub ... --modbus
'rtu://pty?baudrate=9600&parity=E'`` serves RTU behind a relay that adds each byte burst's wire
time (firmware_stubs/rtu_pty.py), and the rig's ``ModbusLink`` reads it over the peer's path.

Wall-clock assertions are LOWER bounds only (the wire time the line needs); how much longer a
loaded machine takes is not asserted. ptys refuse PARENB on some kernels (EINVAL): the rig then
opens the peer without parity — a pty carries no parity bit either way; the stub's relay still
paces the line as 8E1 (11 bits per character), which is what is measured here.
"""

from __future__ import annotations

import os
import stat
import termios
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from firmware_stubs.launch import launch
from hil.wire.supervisor import split_key
from hil.adapters.modbus_wagering import ModbusWageringDevice
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.modbus import ModbusLink
from hil.wire.registers import default_map

READY_TIMEOUT_S = 15.0
LATENCY_S = 0.004


@contextmanager
def rtu_pty_stub(device: str, query: str, *args: str) -> Iterator[str]:
    """``python -m firmware_stubs DEVICE --modbus rtu://pty?QUERY ...``; yields the URL it printed."""
    with launch(device, "--modbus", f"rtu://pty?{query}", *args) as stub:
        yield stub.url


def _pty_takes_parity() -> bool:
    master, peer = os.openpty()
    try:
        attrs = termios.tcgetattr(peer)
        attrs[2] |= termios.PARENB
        try:
            termios.tcsetattr(peer, termios.TCSANOW, attrs)
        except termios.error:
            return False
        return bool(termios.tcgetattr(peer)[2] & termios.PARENB)
    finally:
        os.close(master)
        os.close(peer)


def _rig_url(url: str) -> str:
    """The URL the rig opens: the stub's, without parity where ptys refuse it."""
    return url if _pty_takes_parity() else url.replace("parity=E", "parity=N").replace("parity=O", "parity=N")


def _wire_time_s(request_bytes: int, response_bytes: int, bits_per_char: int, baudrate: int) -> float:
    """Both frames on the line, each followed by the 3.5-character silence that ends an RTU frame."""
    return (request_bytes + response_bytes + 2 * 3.5) * bits_per_char / baudrate


def test_ready_names_the_peer_and_keeps_the_line_settings():
    with rtu_pty_stub("wagering", "baudrate=9600&parity=E") as url:
        plain, key = split_key(url)  # the device's supervisor key rides in the same query
        u = urlsplit(plain)
        assert u.scheme == "rtu" and u.query == "baudrate=9600&parity=E" and key, url
        assert stat.S_ISCHR(os.stat(u.path).st_mode), f"{u.path} is not a character device"


@pytest.mark.parametrize(("parity", "bits"), [("E", 11), ("N", 10)])
def test_a_two_register_read_takes_at_least_its_wire_time(parity, bits):
    """FC3, 2 registers: 8 bytes out, 5 + 4 back. At 9600 8E1 the line needs
    (8 + 9 + 2 × 3.5) × 11 / 9600 = 27.5 ms for the round trip; at 8N1, 25 ms."""
    lower = _wire_time_s(8, 9, bits, 9600)
    with rtu_pty_stub("wagering", f"baudrate=9600&parity={parity}") as url, IoLoop() as io:
        link = ModbusLink(_rig_url(url), 1, timeout_s=1.0)
        try:
            io.run(link.connect(), timeout_s=10)
            clock = default_map("wagering").point("device_clock_ns")
            rtts, clocks = [], []
            for _ in range(5):
                words, rx = io.run(link.read("holding", 0, 2), timeout_s=10)
                assert len(words) == 2
                rtts.append(rx - link.tx_ns)
                words, _ = io.run(link.read(clock.table, clock.address, clock.span), timeout_s=10)
                clocks.append(default_map("wagering").decode(clock, words))
        finally:
            link.close()
    assert all(rtt * 1e-9 >= lower for rtt in rtts), (lower, rtts)  # never faster than the line
    assert clocks == sorted(clocks) and clocks[-1] > clocks[0]  # a live device behind it


def _press_lockout_round(adapter_cls) -> None:
    offsets = [0.001 * i for i in range(10)]
    with rtu_pty_stub("wagering", "baudrate=9600&parity=E", "--time-scale", "1", "--param",
                      f"lockout_latency_mean_s={LATENCY_S}", "--param", "lockout_latency_jitter_s=0") as url, \
            IoLoop() as io:
        env = WallClockEnvironment(time_scale=1.0)
        events = []
        dev = adapter_cls(env, io, _rig_url(url), 1, default_map("wagering"),
                          lambda d, k, p: events.append((k, p)), "wagering", 1.0, 0.002)
        try:
            def round_():
                dev.open_betting()
                yield env.timeout(0.2)
                before = dev.press(1, "5", 500)
                armed = dev.arm_probe(2, "1", 100, offsets)
                yield env.timeout(0.5)
                dev.lock_out()
                yield env.all_of([before, *armed]) | env.timeout(8.0)
                after = dev.press(3, "2", 100)
                yield after | env.timeout(5.0)
                return before, armed, after

            before, armed, after = env.run(env.process(round_()))
        finally:
            dev.close()
    kinds = [k for k, _ in events]
    assert "wire_fault" not in kinds, [p for k, p in events if k == "wire_fault"]
    assert {"device_info", "betting_open", "lockout_command"} <= set(kinds)
    assert all(ev.triggered for ev in [before, after, *armed])
    assert before.value.accepted and not after.value.accepted and after.value.reason == "locked_out"
    cmd = next(p for k, p in events if k == "lockout_command")["device_time_s"]
    got = [(ev.value.device_time_s - cmd, ev.value.accepted) for ev in armed]
    assert [round(o, 6) for o, _ in got] == [round(o, 6) for o in offsets]  # pressed where armed
    accepted = [o for o, ok in got if ok]
    rejected = [o for o, ok in got if not ok]
    assert max(accepted) < LATENCY_S <= min(rejected) + 1e-6  # the stub's latency, over RTU at 9600


def test_wagering_round_over_rtu():
    """Press, armed probe and lock-out over RTU at 9600 8E1, real time, with the shipped wagering
    adapter (one master on the line: over RTU its commands and polls share one link): the
    boundary is the stub's latency, no wire fault."""
    _press_lockout_round(ModbusWageringDevice)
