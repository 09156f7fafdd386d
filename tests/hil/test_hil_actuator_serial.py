"""The serial relay board's line protocol (docs/wire/actuator.md): the rig's SerialActuator presses
a channel (ON, pulse, OFF), brackets the closing by its own clock, releases channels left closed
at connect, and records a refused command as a wire fault and a failed actuation."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from devices.actuator import WAGERING_SPOTS, ActuatorParams, Wiring
from firmware_stubs.actuator_serial import RelayBoard
from hil.adapters.actuator_serial import RelayBoardError, SerialActuator
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop


@dataclass(frozen=True)
class Dev:
    url: str
    timeout_s: float = 0.5


def test_the_board_answers_the_documented_lines():
    board = RelayBoard(4)
    try:
        assert board.answer("ID?").startswith("OK ID 4 ")
        assert board.answer("ON 2") == "OK ON 2" and board.answer("GET 2") == "OK GET 2 1"
        assert board.answer("ON 9").startswith("ERR 2") and board.answer("ON x").startswith("ERR 3")
        assert board.answer("BLINK 1").startswith("ERR 1")
    finally:
        board.close()


def test_a_press_is_on_pulse_off_bracketed_by_the_rigs_clock():
    changes: list[tuple[int, bool, int]] = []
    board = RelayBoard(16, lambda c, on: changes.append((c, on, time.perf_counter_ns())))
    board.state[3] = True  # left closed by a killed run
    wiring = Wiring.of(WAGERING_SPOTS, 7, {"1:2": 3, "1:5": 4})
    events = []
    try:
        with IoLoop() as io:
            env = WallClockEnvironment()
            act = SerialActuator(env, io, Dev(board.url), ActuatorParams(pulse_s=0.02, contact_delay_s=0.001),
                                 wiring, lambda d, k, p: events.append((k, p)))
            try:
                assert [p for k, p in events if k == "device_info"][0]["released_at_connect"] == [3]
                ev = act.press(1, "5")
                env.run(until=env.any_of([ev, env.timeout(5)]))
                env.run(until=env.now + 0.2)
                assert not act.wired(1, "1")
                with pytest.raises(ValueError):
                    act.press(1, "1")
            finally:
                act.close()
    finally:
        board.close()
    a = ev.value
    assert a.ok and a.coil == 4 and a.closed_lo_s < a.closed_hi_s
    on_ns = next(t for c, on, t in changes if c == 4 and on)
    assert env.wall_to_sim(on_ns) + 0.001 >= a.closed_lo_s and env.wall_to_sim(on_ns) + 0.001 <= a.closed_hi_s
    assert [(c, on) for c, on, _ in changes] == [(3, False), (4, True), (4, False)]


def test_a_board_that_does_not_answer_is_one_clear_error():
    with pytest.raises(RelayBoardError, match="no answer"):
        import socket

        s = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
        try:
            with IoLoop() as io:
                SerialActuator(WallClockEnvironment(), io, Dev(f"socket://127.0.0.1:{s.getsockname()[1]}", 0.2),
                               ActuatorParams(), Wiring.of(WAGERING_SPOTS, 1, None), lambda *a: None)
        finally:
            s.close()
