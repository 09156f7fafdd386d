"""The roulette ball wheel's SimPy model behind the Slingshot-style line protocol
(docs/wire/slingshot-roulette.md; grammar in ``hil.wire.slingshot``).

``SlingshotGlue`` wraps ``RouletteWheelSim`` (driven by the stub's ``ModelClock`` like every
glue, so a seeded stub draws exactly what the SimPy model draws) and keeps the wheel's status:

* ``*K`` (or ``*u 1``) while no ball moves: ``model.spin()`` now, and states 1 then 2 back to back
  (the model's motor brings the rotor to speed at once); while the ball moves the command is
  ignored (counted in ``refused``) — the protocol has no refusal, the rig times out;
* the model's ``ball_launch`` → state 3, ``ball_drop`` → state 4, ``ball_result`` → state 5 with
  win# (37 for "00") and warning bit 8 (void game) when the model calls it a misspin (a launch
  failure, or fewer than ``min_revolutions`` on the rim); ``RESULT_HOLD_S`` of model time later
  → state 6 (idle), unless a new game started meanwhile. Bit 8 stays set until the next game;
* ``*X``: the status line now; anything else is ignored (``ignored``) — never an exception.

``SlingshotStub`` is the serve loop: a ``SerialStub`` (its port handling, ``call`` and
``replace_glue`` for the control endpoint) that speaks lines instead of frames. It sends the
status line on every state change and every ``STATUS_PERIOD_S`` of **wall** time (the real
device's period, whatever ``--time-scale``), and on a pty paces both directions at the line's
baud rate (8N1: 10 bits a character; a ~21-byte status line takes ~22 ms at 9600): a line leaves
once the UART would have shifted out the ones before it, and a host line is acted on when its
last byte would have arrived. A pyserial URL (a real UART) paces itself: no pacing there.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

import numpy as np

from devices.roulette_wheel import RouletteWheelParams, RouletteWheelSim
from firmware_stubs.modbus import ModelClock
from firmware_stubs.serial import SerialStub, _GlueBase, _next_due
from hil.wire.lines import Line, LineParser
from hil.wire.slingshot import (MAX_SPEED_RPM, START_ALIASES, STATUS_PERIOD_S, STATUS_REQUEST, VOID_GAME,
                                     Status, format_status, win_code)

#: Model seconds the wheel shows state 5 (the winning number) before it goes idle (state 6).
RESULT_HOLD_S = 2.0
#: A partial host line is given up after this much silence (wall s).
TRUNCATE_AFTER_NS = 50_000_000


class SlingshotGlue(_GlueBase):
    """``RouletteWheelSim`` ↔ status lines. ``emit(bytes)`` sends one line (set by the stub)."""

    device_kind = "roulette_wheel"
    commands: dict = {}  # lines, not frames: see ``on_line``

    def __init__(self, clock: ModelClock, params: RouletteWheelParams, rng: np.random.Generator,
                 result_hold_s: float = RESULT_HOLD_S) -> None:
        super().__init__(clock)
        self.result_hold_s = result_hold_s
        self.state, self.spin, self.win, self.warning = 6, 0, 0, 0
        self.refused = 0  # *K while the ball moved
        self.ignored = 0  # lines that are no command
        self.lines_in = 0
        self.model = RouletteWheelSim(clock.env, params, rng, self._telemetry, name="roulette_wheel")

    # ------------------------------------------------------------------ status
    def status(self) -> Status:
        w, tau = self.model._wheel, self.model.params.rotor_decay_s  # the firmware reads its encoder
        omega = w.rotor_speed * math.exp(-max(0.0, self.clock.env.now - w.t_ref) / tau)
        rpm = min(MAX_SPEED_RPM, round(abs(omega) * 60.0 / (2.0 * math.pi)))
        return Status(self.state, self.spin, self.win, self.warning, rpm, 0 if w.rotor_speed >= 0 else 1)

    def declare(self) -> None:
        """Send the status line (at power-up, on ``*X``, every status period, when replaced)."""
        self.emit(format_status(self.status()))

    def _enter(self, state: int) -> None:
        self.state = state
        self.declare()

    # ------------------------------------------------------------------ host lines
    def on_line(self, text: bytes) -> None:
        """One host line (terminator stripped), at the model time of its arrival."""
        self.lines_in += 1
        cmd = text.strip()
        if cmd in START_ALIASES:
            self._start()
        elif cmd == STATUS_REQUEST:
            self.declare()
        else:
            self.ignored += 1

    def _start(self) -> None:
        busy_until = self.model._busy_until  # the firmware knows whether its ball still moves
        if busy_until is not None and self.clock.env.now < busy_until:
            self.refused += 1
            return
        self.model.spin()
        self.spin = self.model._wheel.spins
        self.warning = 0
        self._enter(1)  # the command reached the wheel: the motor starts the rotor…
        self._enter(2)  # …which the model brings to speed at once; the launcher is armed

    # ------------------------------------------------------------------ the model's telemetry
    def _telemetry(self, _device: str, kind: str, p: dict[str, Any]) -> None:
        if kind == "ball_launch":
            self._enter(3)
        elif kind == "ball_drop":
            self._enter(4)
        elif kind == "ball_result":
            self.win = win_code(p["pocket"])
            if p["misspin"]:
                self.warning |= VOID_GAME
            self._enter(5)
            spin = self.spin
            hold = self.clock.env.timeout(self.result_hold_s)
            hold.callbacks.append(lambda _ev: self._idle(spin))

    def _idle(self, spin: int) -> None:
        if self.state == 5 and self.spin == spin:
            self._enter(6)


class SlingshotStub(SerialStub):
    """Serves a ``SlingshotGlue`` on ``port`` until ``stop`` is set (``serve``); ``baudrate``:
    pace both directions at that rate (a pty), None: write at once (a real UART paces itself)."""

    def __init__(self, port: Any, glue: SlingshotGlue, clock: ModelClock, *, baudrate: int | None = None,
                 status_period_s: float = STATUS_PERIOD_S) -> None:
        super().__init__(port, glue, clock, heartbeat_s=status_period_s)
        self.parser = LineParser()  # type: ignore[assignment]
        self.status_period_ns = round(status_period_s * 1e9)
        self.char_ns = 10e9 / baudrate if baudrate else 0.0  # 8N1
        self.next_status_ns = 0
        self._out: deque[tuple[int, bytes]] = deque()  # (deliver at perf_counter_ns, bytes)
        self._in: deque[tuple[int, Line]] = deque()  # (act at perf_counter_ns, line)
        self._tx_free_ns = 0
        self._rx_free_ns = 0
        self.lines_out = 0
        self.bad_lines = 0  # host lines cut short or overlong

    # ------------------------------------------------------------------ output
    def send(self, data: bytes) -> None:  # type: ignore[override]  # glue.emit: one line
        now = time.perf_counter_ns()
        self.lines_out += 1
        self.last_tx_ns = now
        if not self.char_ns:
            self.port.write(data)
            return
        start = max(now, self._tx_free_ns)
        self._tx_free_ns = round(start + len(data) * self.char_ns)
        self._out.append((self._tx_free_ns, data))
        self._flush()

    def _flush(self) -> None:
        now = time.perf_counter_ns()
        while self._out and self._out[0][0] <= now:  # never early
            self.port.write(self._out.popleft()[1])

    def hello(self) -> None:
        self.glue.declare()  # power-up: the status line

    # ------------------------------------------------------------------ input
    def _receive(self, lines: list[Line]) -> None:
        for line in lines:
            if line.cut is not None:
                self.bad_lines += 1  # garbage: a firmware ignores it
                continue
            if self.char_ns:  # acted on once its last byte would have arrived (a pty delivers at once)
                start = max(line.rx_ns, self._rx_free_ns)
                self._rx_free_ns = round(start + len(line.raw) * self.char_ns)
                self._in.append((self._rx_free_ns, line))
            else:
                self._in.append((line.rx_ns, line))

    def _act(self) -> None:
        now = time.perf_counter_ns()
        while self._in and self._in[0][0] <= now:
            due, line = self._in.popleft()
            self.frames_in += 1
            self.clock.sync(due)
            self.glue.on_line(line.text)

    # ------------------------------------------------------------------ the loop
    def _wait_s(self) -> float:
        now_ns = time.perf_counter_ns()
        due_ns = self.next_status_ns
        if self._out:
            due_ns = min(due_ns, self._out[0][0])
        if self._in:
            due_ns = min(due_ns, self._in[0][0])
        due = _next_due(self.clock.env)
        if due != float("inf"):
            due_ns = min(due_ns, self.clock.t0_ns + due / self.clock.time_scale * 1e9)
        cap = getattr(self.port, "max_wait_s", 0.001)
        return min(cap, max(0.0, (due_ns - now_ns) * 1e-9))

    def serve(self, stop) -> None:
        self.clock.sync()
        self.hello()  # power-up
        self.next_status_ns = time.perf_counter_ns() + self.status_period_ns
        try:
            while not stop.is_set():
                data = self.port.read(self._wait_s())
                rx_ns = time.perf_counter_ns()  # where the bytes arrived
                self._receive(self.parser.feed(data, rx_ns) if data else self.parser.expire(rx_ns, TRUNCATE_AFTER_NS))
                self._act()
                self.clock.sync()
                self._run_calls()
                now = time.perf_counter_ns()
                if now >= self.next_status_ns:
                    self.glue.declare()  # the periodic status line, on the wall clock
                    self.next_status_ns += self.status_period_ns
                    if self.next_status_ns <= now:  # fell behind (a stalled machine): no burst
                        self.next_status_ns = now + self.status_period_ns
                self._flush()
        finally:
            self._stopped = True
            self._run_calls(stopping=True)
