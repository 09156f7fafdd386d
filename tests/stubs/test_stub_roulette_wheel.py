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
from firmware_stubs.slingshot import SlingshotGlue, SlingshotStub, stub_params
from hil.wire.slingshot import BareWin, Power, Status, format_status, parse_line, parse_status, win_code

TIME_SCALE = 40.0
LIMIT_S = 8.0  # safety net (wall s); tests assert behaviour, never how long it took


class Client:
    """The rig's end of the pty: lines as they arrive, with their arrival time."""

    def __init__(self, path: str) -> None:
        self.ser = serial.serial_for_url(path, baudrate=9600, timeout=0.02)
        self.buf = b""
        self.others: list = []  # the bare and power lines, in order
        self.raw: list[bytes] = []  # every line as it came (terminator taken off)

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
                self.raw.append(line)
                item = parse_line(line)  # the stub never sends a line the grammar does not know
                self.others.append(item) if not isinstance(item, Status) else None
                if not isinstance(item, Status):
                    continue
                s = item
                out.append((now, s))
                if done is not None and done(s):
                    return out
        if done is None:
            return out
        raise AssertionError(f"never reached the awaited status; last lines: {[s for _, s in out[-5:]]}")


@contextmanager
def stub(seed: int = 7, baudrate: int | None = 9600, params=None, **knobs) -> Iterator[tuple[SlingshotGlue, Client]]:
    """A ``SlingshotStub`` serving on a new pty in a thread (``params``, else the model's with
    ``knobs``: the commanded wheel); everything ended in ``finally``."""
    clock = ModelClock(TIME_SCALE)
    glue = SlingshotGlue(clock, params or RouletteWheelParams(**knobs), np.random.default_rng(seed))
    pair = open_pty()
    port = FdPort(pair.master_fd)
    srv = SlingshotStub(port, glue, clock, baudrate=baudrate)
    stop = threading.Event()
    thread = threading.Thread(target=srv.serve, args=(stop,), name="slingshot-stub", daemon=True)
    client = None
    try:
        client = Client(pair.peer_path)
        thread.start()
        client.lines_until(lambda s: s.state in (6, 1))  # the power-up status line
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
    assert first.spin == 1 and first.state in (1, 2, 6)  # the live wheel by default: its own cycle, game 1 pending
    with launch("roulette-wheel", "--pty", "--time-scale", "40", "--param", "profile=model") as st:
        client = Client(st.url)
        try:
            client.send(b"*X\r\n")
            (_, first), *_ = client.lines_until(lambda s: True)
        finally:
            client.ser.close()
    assert first == Status(6, 0, 0, 0, 0, 0)  # the model's commanded wheel: idle, no game yet
    out = subprocess.run([sys.executable, "-m", "firmware_stubs", "roulette-wheel", "--modbus", "tcp://127.0.0.1:0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "serial line protocol only" in out.stderr and "no Modbus register map" in out.stderr


@pytest.mark.parametrize("bad", ["launch_failure_probability=2", "no_such_knob=1"])
def test_bad_params_are_refused_at_start(bad: str):
    out = subprocess.run([sys.executable, "-m", "firmware_stubs", "roulette-wheel", "--pty", "--param", bad],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "roulette-wheel" in out.stderr


# --------------------------------------------------------------------------- the live wheel (issue 12, section 1)
def games_of(lines: list[tuple[float, Status]]) -> dict[int, list[int]]:
    """spin# -> its states in order (a repeated line counted once)."""
    out: dict[int, list[int]] = {}
    prev = None
    for _, s in lines:
        if (s.spin, s.state) != prev:
            out.setdefault(s.spin, []).append(s.state)
        prev = (s.spin, s.state)
    return out


def test_the_live_wheel_runs_its_own_cycle_space_padded_with_bare_lines_and_a_reversing_rotor():
    with stub(params=stub_params({})) as (glue, client):  # the stub's default: the live profile
        client.send(b"*K\r\n")  # the live wheel does not wait for the host
        lines = client.lines_until(lambda s: s.spin == 4 and s.state == 2, limit_s=30.0)
    assert glue.autonomous and glue.refused == 1
    games = games_of(lines)
    assert games[1][-4:] == [2, 3, 4, 5] and set(games[1][:-4]) <= {1, 6}  # state 1 only after power-up
    assert games[2] == [2, 3, 4, 5] and games[3] == [2, 3, 4, 5]  # no state 1 between games: 2 with spin# + 1
    assert [type(o).__name__ for o in client.others[:2]] == ["Power", "Power"]  # *P 1, *P OK at power-up
    assert [o.what for o in client.others[:2]] == ["on", "ok"]
    bare = [o.win for o in client.others if isinstance(o, BareWin)]
    wins = [next(s.win for _, s in lines if s.spin == g and s.state == 5) for g in (1, 2, 3)]
    assert bare == wins  # the bare line before each game's first state-5 line, same number
    for i, raw in enumerate(client.raw[:-1]):
        if raw.strip().isdigit():
            assert parse_line(client.raw[i + 1]).state == 5  # just before the first state-5 line
    for raw in client.raw:  # a one-digit number is space-padded, never zero-padded
        if raw.startswith(b"*X"):
            win = raw.split(b";")[3]
            assert len(win) == 2 and (win[:1] != b"0" or win == b"0")
    on_rim = [s for _, s in lines if s.state in (3, 4, 5)]
    assert all(120 <= s.speed_rpm <= 190 for s in on_rim), sorted({s.speed_rpm for s in on_rim})
    dirs = [{s.direction for s in on_rim if s.spin == g} for g in (1, 2, 3)]
    assert dirs == [{0}, {1}, {0}]  # the rotor reverses between games
    braking = [s.speed_rpm for _, s in lines if s.spin == 2 and s.state == 2]
    assert min(braking) < max(braking)  # state 2: the rotor brakes and comes up the other way


def test_a_power_cycle_replays_the_cut_game_under_its_number():
    params = stub_params({"power_off_game": 2, "power_off_state": 3, "power_off_s": 6.0})
    with stub(params=params) as (glue, client):
        lines = client.lines_until(lambda s: s.spin == 3 and s.state == 2, limit_s=40.0)
    assert glue.power_cycles == 1
    seq = [(s.spin, s.state) for _, s in lines]
    cut = seq.index((2, 3))
    after = [x for i, x in enumerate(seq) if i > cut and (i == 0 or x != seq[i - 1])]
    assert after[:4] == [(2, 6), (2, 1), (2, 2), (2, 3)]  # state 6 kept with the pending spin#, 1, then the game
    assert (2, 5) in after and after[-1] == (3, 2)
    words = [o.what for o in client.others if isinstance(o, Power)]
    assert words == ["on", "ok", "off", "ok", "on", "ok"]
    off = [s.speed_rpm for _, s in lines if s.state == 6 and s.spin == 2]
    assert off[0] > 0 and off[-1] == 0  # the rotor runs down to 000 without power


def test_warning_bits_come_up_in_the_state_and_game_asked_for():
    params = stub_params({"warning_game": 1, "warning_bits": 4, "warning_state": 3})
    with stub(params=params) as (_glue, client):
        lines = client.lines_until(lambda s: s.spin == 2 and s.state == 3, limit_s=30.0)
    g1 = [(s.state, s.warning) for _, s in lines if s.spin == 1]
    assert {w for st, w in g1 if st in (1, 2)} == {0} and {w for st, w in g1 if st >= 3} == {4}
    assert {s.warning for _, s in lines if s.spin == 2} == {0}  # cleared at the next game
