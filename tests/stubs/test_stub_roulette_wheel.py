"""The roulette-wheel firmware stub (docs/wire/slingshot-roulette.md): RouletteWheelSim behind the
Slingshot-style status lines on a pty, driven directly with pyserial — the states of a game in
order, the periodic status line, the void game, pacing at 9600 baud, and garbage tolerated."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from statistics import median

import numpy as np
import pytest
import serial

from devices.roulette_wheel import RouletteWheelParams, pocket_order
from firmware_stubs.launch import launch
from firmware_stubs.modbus import ModelClock
from firmware_stubs.pty import open_pty
from firmware_stubs.serial import FdPort
from firmware_stubs.slingshot import SlingshotGlue, SlingshotStub
from hil.wire.slingshot import Status, format_status, parse_status, win_code

TIME_SCALE = 40.0
LIMIT_S = 8.0  # safety net (wall s); tests assert behaviour, never how long it took


class Client:
    """The rig's end of the pty: lines as they arrive, with their arrival time."""

    def __init__(self, path: str) -> None:
        self.ser = serial.serial_for_url(path, baudrate=9600, timeout=0.02)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.ser.write(data)

    def lines_for(self, seconds: float) -> list[tuple[float, Status]]:
        """Every status line (arrival time, status) that arrives within ``seconds``."""
        return self.lines_until(None, seconds)

    def lines_until(self, done, limit_s: float = LIMIT_S) -> list[tuple[float, Status]]:
        """Status lines (arrival time, status) until ``done(status)`` (None: for ``limit_s``)."""
        out: list[tuple[float, Status]] = []
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            self.buf += self.ser.read(self.ser.in_waiting or 1)
            now = time.monotonic()
            while b"\r\n" in self.buf:
                line, self.buf = self.buf.split(b"\r\n", 1)
                s = parse_status(line)  # the stub never sends anything else
                out.append((now, s))
                if done is not None and done(s):
                    return out
        if done is None:
            return out
        raise AssertionError(f"never reached the awaited status; last lines: {[s for _, s in out[-5:]]}")


@contextmanager
def stub(seed: int = 7, baudrate: int | None = 9600, **knobs) -> Iterator[tuple[SlingshotGlue, Client]]:
    """A ``SlingshotStub`` serving on a new pty in a thread; everything ended in ``finally``."""
    clock = ModelClock(TIME_SCALE)
    glue = SlingshotGlue(clock, RouletteWheelParams(**knobs), np.random.default_rng(seed))
    pair = open_pty()
    port = FdPort(pair.master_fd)
    srv = SlingshotStub(port, glue, clock, baudrate=baudrate)
    stop = threading.Event()
    thread = threading.Thread(target=srv.serve, args=(stop,), name="slingshot-stub", daemon=True)
    client = None
    try:
        client = Client(pair.peer_path)
        thread.start()
        client.lines_until(lambda s: s.state == 6)  # the power-up status line
        yield glue, client
    finally:
        stop.set()
        port.wake()
        thread.join(5)
        if client is not None:
            client.ser.close()
        port.close()  # the master and the wake pipe
        os.close(pair.peer_fd)


def states(lines: list[tuple[float, Status]]) -> list[int]:
    """The states in order, a repeated (periodic) line counted once."""
    out: list[int] = []
    for _, s in lines:
        if not out or out[-1] != s.state:
            out.append(s.state)
    return out


def test_a_game_goes_through_states_1_to_6_with_the_models_number():
    with stub() as (glue, client):
        client.send(b"*K\r\n")
        lines = client.lines_until(lambda s: s.state == 6 and s.spin == 1)
        phys = glue.model.last_physics
    assert states(lines) == [1, 2, 3, 4, 5, 6]
    assert all(s.spin == 1 for _, s in lines)
    first5 = next(s for _, s in lines if s.state == 5)
    assert first5.win == win_code(pocket_order("single-zero")[phys.pocket_index]) and first5.warning == 0
    assert not phys.misspin
    assert all(s.win == first5.win for _, s in lines if s.state >= 5)
    assert {s.direction for _, s in lines} == {0}  # the first spin's rotor turns clockwise
    up = next(s for _, s in lines if s.state == 2)
    assert up.speed_rpm == round(phys.rotor_speed_rad_s * 60 / (2 * np.pi))


def test_the_second_game_turns_the_other_way_and_a_busy_wheel_ignores_start():
    with stub() as (glue, client):
        client.send(b"*K\r\n")
        client.lines_until(lambda s: s.state == 3)
        client.send(b"*K\r\n")  # the ball is on the rim: ignored
        client.lines_until(lambda s: s.state == 5)
        client.send(b"*u 1\r\n")  # the vendor's user-key start is the same command
        lines = client.lines_until(lambda s: s.state == 5 and s.spin == 2)
    assert glue.refused == 1 and glue.model._wheel.spins == 2
    assert states(lines)[-5:] == [1, 2, 3, 4, 5] and set(states(lines)[:-5]) <= {5, 6}  # game 1's last lines first
    assert {s.direction for _, s in lines if s.spin == 2} == {1}


def test_status_line_comes_every_half_second_of_wall_time_when_idle():
    with stub() as (_glue, client):
        lines = client.lines_for(2.4)
    times = [t for t, _ in lines]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(lines) >= 4, lines
    assert 0.4 <= median(gaps) <= 0.65, gaps  # the real device's period, whatever the time scale
    assert {s.state for _, s in lines} == {6}


def test_launch_failure_is_a_void_game_warning_8_until_the_next_game():
    with stub(launch_failure_probability=1.0) as (glue, client):
        client.send(b"*K\r\n")
        lines = client.lines_until(lambda s: s.state == 6 and s.spin == 1)
        phys = glue.model.last_physics
        client.send(b"*K\r\n")
        again = client.lines_until(lambda s: s.spin == 2)
    assert states(lines) == [1, 2, 5, 6]  # no ball on the rim: no 3, no 4
    assert [s.warning for _, s in lines if s.state in (1, 2)] == [0, 0]
    assert {s.warning for _, s in lines if s.state in (5, 6)} == {8}
    assert phys.misspin and not phys.launched
    assert next(s for _, s in lines if s.state == 5).win == win_code(pocket_order("single-zero")[phys.pocket_index])
    assert again[-1][1].state == 1 and again[-1][1].warning == 0


def test_too_few_revolutions_is_a_void_game_too():
    with stub(ball_speed_scale=0.5) as (glue, client):
        client.send(b"*K\r\n")
        lines = client.lines_until(lambda s: s.state == 5)
    assert glue.model.last_physics.launched and glue.model.last_physics.misspin
    assert states(lines) == [1, 2, 3, 4, 5] and lines[-1][1].warning == 8


def test_double_zero_is_sent_as_37():
    with stub(wheel="double-zero") as (glue, client):
        glue._telemetry("roulette_wheel", "ball_result", {"pocket": "00", "misspin": False})  # as the model would
        lines = client.lines_until(lambda s: s.state == 5)
    assert lines[-1][1].win == 37


def test_lines_are_paced_at_9600_baud():
    with stub() as (_glue, client):
        sent = time.monotonic()
        client.send(b"*K\r\n")
        lines = client.lines_until(lambda s: s.state == 2)
    t2 = next(t for t, s in lines if s.state == 2)
    # the command, then two status lines back to back, each shifted out at 10 bits a character:
    # never earlier than that (a pty alone would deliver within a millisecond)
    wire_s = (len(b"*K\r\n") + 2 * len(format_status(lines[-1][1]))) * 10 / 9600
    assert t2 - sent >= wire_s * 0.95, (t2 - sent, wire_s)


def test_garbage_from_the_host_is_ignored_and_the_stub_keeps_serving():
    with stub() as (glue, client):
        client.send(b"\x00\xff\xfe garbage\r\n*Q\r\n*X;1;2;3\r\n" + b"y" * 1000 + b"\r\n" + bytes(range(256)))
        client.send(b"\r\n*X\r\n")
        asked = client.lines_until(lambda s: s.state == 6)
        client.send(b"*K")  # a command cut short: given up, not acted on
        time.sleep(0.2)
        client.send(b"\r\n*K\r\n")  # a bare line end, then a real start
        lines = client.lines_until(lambda s: s.state == 5)
    assert asked and glue.ignored >= 4 and glue.refused == 0
    assert states(lines)[-5:] == [1, 2, 3, 4, 5] and glue.model._wheel.spins == 1


def test_process_prints_ready_and_refuses_modbus():
    with launch("roulette-wheel", "--pty", "--time-scale", "40", "--control", "tcp://127.0.0.1:0") as st:
        assert st.url.startswith("/dev/") and st.control.startswith("tcp://127.0.0.1:")
        client = Client(st.url)
        try:
            client.send(b"*X\r\n")
            (_, first), *_ = client.lines_until(lambda s: True)
        finally:
            client.ser.close()
    assert first == Status(6, 0, 0, 0, 0, 0)
    out = subprocess.run([sys.executable, "-m", "firmware_stubs", "roulette-wheel", "--modbus", "tcp://127.0.0.1:0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "serial line protocol only" in out.stderr and "no Modbus register map" in out.stderr


@pytest.mark.parametrize("bad", ["launch_failure_probability=2", "no_such_knob=1"])
def test_bad_params_are_refused_at_start(bad: str):
    out = subprocess.run([sys.executable, "-m", "firmware_stubs", "roulette-wheel", "--pty", "--param", bad],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "roulette-wheel" in out.stderr
