"""The roulette ball wheel's SimPy model behind the Slingshot-style line protocol
(docs/wire/slingshot-roulette.md; grammar in ``hil.wire.slingshot``).

``SlingshotGlue`` wraps ``RouletteWheelSim`` (driven by the stub's ``ModelClock`` like every
glue, so a seeded stub draws exactly what the SimPy model draws) and keeps the wheel's status.
Two cycles (``cycle``):

* **autonomous** (the stub's default, ``profile = "live"``: a live wheel). The model runs its own
  games (``RouletteWheelSim``'s autonomous cycle); the glue shows them as the real wheel does: at
  power-up state 6 with the pending game's spin#, ``*P 1`` / ``*P OK``, state 1 with that number;
  each game state 2 (place bets: the rotor brakes to 000 and reverses when the direction changes,
  then the motor brings it to speed), 3 at the launch (ball in rim), 4 when the ball's rim speed
  falls to ``no_more_bets_speed_rps`` (the wheel's own "no more bets"), the bare winning-number
  line then 5 with the number, and the next game at state 2 with spin# + 1 — no state 1 between
  games. ``*K`` is ignored (``refused``: the wheel does not wait for the host).
* **commanded** (``profile = "model"``, or ``cycle = commanded``): ``*K`` (or ``*u 1``) while no
  ball moves starts ``model.spin()`` now, states 1 then 2 back to back; the model's
  ``ball_launch`` → 3, ``ball_drop`` → 4, ``ball_result`` → 5, ``RESULT_HOLD_S`` of model time
  later → 6 (idle); a ``*K`` while the ball moves is ignored (``refused``).

Either way warning bit 8 (void game) is set on the state-5 line of a game the model calls a
misspin, until the next game; ``*X`` sends the status line now; anything else is ignored
(``ignored``) — never an exception. The wire knobs (``SlingshotParams``): ``pad`` (a one-digit
win# space-padded as the wheel sends it, or zero-padded), ``bare_lines``, a power-off during a
given game (``power_off_game``, or every ``power_off_every`` games) in a given state
(``power_off_state``): ``*P 0`` / ``*P OK``, state 6 with the rotor running down to 000 over
``power_down_s``, ``power_off_s`` later power-up and the cut game replayed under its number; and
warning bits (``warning_bits``) raised in a state (``warning_state``) of a game (``warning_game``).

``SlingshotStub`` is the serve loop: a ``SerialStub`` (its port handling, ``call`` and
``replace_glue`` for the control endpoint) that speaks lines instead of frames. It sends the
status line on every state change and every ``STATUS_PERIOD_S`` of **wall** time (the real
device's period, whatever ``--time-scale``), and on a pty paces both directions at the line's
baud rate (8N1: 10 bits a character; a ~21-byte status line takes ~22 ms at 9600): a line leaves
once the UART would have shifted out the ones before it, and a host line is acted on when its
last byte would have arrived. A pyserial URL (a real UART) paces itself: no pacing there.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from dataclasses import dataclass, fields
from typing import Any, Literal

import numpy as np

from devices.roulette_wheel import RouletteWheelParams, RouletteWheelSim
from firmware_stubs.control import validate_params
from firmware_stubs.modbus import ModelClock
from firmware_stubs.serial import SerialStub, _GlueBase, _next_due
from hil.wire.lines import Line, LineParser
from hil.wire.slingshot import (MAX_SPEED_RPM, START_ALIASES, STATUS_REQUEST, STATUS_PERIOD_S, VOID_GAME, Status,
                                format_bare, format_power, format_status, win_code)

#: Model seconds the commanded wheel shows state 5 (the winning number) before it goes idle (state 6).
RESULT_HOLD_S = 2.0
#: A partial host line is given up after this much silence (wall s).
TRUNCATE_AFTER_NS = 50_000_000


@dataclass(frozen=True)
class SlingshotParams(RouletteWheelParams):
    """The stub's parameters: the model's (``RouletteWheelParams``) and the wire's knobs."""

    profile: Literal["live", "model"] = "live"
    """``live``: a live wheel's cycle and rotor (``LIVE``: autonomous, 130–180 rpm, its state
    durations) under any parameter not given; ``model``: the model's own defaults (commanded)."""
    pad: Literal["space", "zero"] = "space"
    """A one-digit win# as `` 6`` (the wheel's) or ``06``."""
    bare_lines: bool = True
    """The bare winning-number line before the first state-5 line."""
    power_off_game: int = 0
    """Power off during this game (1 = the first game since the stub started; 0: never)."""
    power_off_every: int = 0
    """Power off during every N-th game (0: never)."""
    power_off_state: int = 3
    """The state (2–5) in which the power goes off."""
    power_off_s: float = 8.0
    """Model seconds without power before the wheel powers up again."""
    power_down_s: float = 4.0
    """Model seconds the rotor takes to run down to 000 after the power went off."""
    warning_game: int = 0
    """Raise ``warning_bits`` in this game (0: never)."""
    warning_bits: int = 0
    """Warning bits (1 ball removed, 2 wrong direction, 4 sensor/motor fault, 8 void game)."""
    warning_state: int = 3
    """The state (2–5) in which the warning comes up (it stays until the next game)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("power_off_state", "warning_state"):
            if not 2 <= getattr(self, name) <= 5:
                raise ValueError(f"{name} must be 2..5, not {getattr(self, name)}")
        if not 0 <= self.warning_bits <= 15:
            raise ValueError(f"warning_bits must be 0..15, not {self.warning_bits}")
        if self.power_off_game < 0 or self.power_off_every < 0 or self.warning_game < 0:
            raise ValueError("power_off_game, power_off_every and warning_game must be >= 0")
        if self.power_off_s < 0 or self.power_down_s <= 0:
            raise ValueError("power_off_s must be >= 0 and power_down_s > 0")


#: the live wheel (issue 12, section 1): its own cycle, the rotor at 130–180 rpm in states 3–5
#: reversing between games, ≈ 15 s of place-bets, the wheel's "no more bets" late on the rim
LIVE: dict[str, Any] = {"cycle": "autonomous", "rotor_speed_mean_rps": 2.6, "rotor_speed_sd_rps": 0.2,
                        "rotor_decay_s": 300.0, "launch_delay_s": 12.0, "no_more_bets_speed_rps": 1.05,
                        "rotor_brake_s": 3.0, "result_hold_s": 4.0, "wheel_start_s": 3.0}
#: the knobs of the wire alone (not the model's): set on the command line, they outlive a
#: ``configure`` of the control endpoint that does not name them
WIRE_KNOBS = tuple(f.name for f in fields(SlingshotParams) if f.name not in
                   {g.name for g in fields(RouletteWheelParams)})


def stub_params(raw: dict[str, Any]) -> SlingshotParams:
    """``SlingshotParams`` from ``--param`` / ``configure`` values; the live profile's values
    under the ones not given (``profile = live``). ValueError for what the model refuses."""
    base = LIVE if raw.get("profile", "live") == "live" else {}
    return validate_params(SlingshotParams, {**base, **raw})


def _knob(params: RouletteWheelParams, name: str) -> Any:
    """A wire knob (a plain ``RouletteWheelParams``: the knob's default)."""
    return getattr(params, name, SlingshotParams.__dataclass_fields__[name].default)


class SlingshotGlue(_GlueBase):
    """``RouletteWheelSim`` ↔ status lines. ``emit(bytes)`` sends one line (set by the stub)."""

    device_kind = "roulette_wheel"
    commands: dict = {}  # lines, not frames: see ``on_line``

    def __init__(self, clock: ModelClock, params: RouletteWheelParams, rng: np.random.Generator,
                 result_hold_s: float = RESULT_HOLD_S) -> None:
        super().__init__(clock)
        self.params = params
        self.result_hold_s = result_hold_s
        self.autonomous = params.cycle == "autonomous"
        self.pad = _knob(params, "pad")
        self.state, self.spin, self.win, self.warning = 6, (1 if self.autonomous else 0), 0, 0
        self.powered = True
        self.games = 0  # games begun since the stub started (the knobs count them)
        self.power_cycles = 0
        self.refused = 0  # *K while the ball moved, or to a wheel that runs its own cycle
        self.ignored = 0  # lines that are no command
        self.lines_in = 0
        self._brake: tuple[float, float, int] | None = None  # (since, rpm, direction) while the motor brakes
        self._off: tuple[float, float, int] | None = None  # (since, rpm, direction) while powered off
        self._start_since: float | None = 0.0 if self.autonomous else None  # powered up, no game yet
        self.model = RouletteWheelSim(clock.env, params, rng, self._telemetry, name="roulette_wheel")

    # ------------------------------------------------------------------ status
    def _rpm(self) -> tuple[int, int]:
        now = self.clock.env.now
        if self._off is not None:  # no power: the rotor runs down
            since, rpm, d = self._off
            return max(0, round(rpm * (1.0 - (now - since) / _knob(self.params, "power_down_s")))), d
        if self._brake is not None and self.state == 2:
            since, rpm, d = self._brake
            left = 1.0 - (now - since) / max(self.params.rotor_brake_s, 1e-9)
            if left > 0:
                return round(rpm * left), d
            self._brake = None
        w, tau = self.model._wheel, self.model.params.rotor_decay_s  # the firmware reads its encoder
        omega = w.rotor_speed * math.exp(-max(0.0, now - w.t_ref) / tau)
        rpm = min(MAX_SPEED_RPM, round(abs(omega) * 60.0 / (2.0 * math.pi)))
        if self._start_since is not None:  # powered up: the motor brings the rotor up (state 1)
            rpm = round(rpm * min(1.0, (now - self._start_since) / max(self.params.wheel_start_s, 1e-9)))
        return rpm, 0 if w.rotor_speed >= 0 else 1

    def status(self) -> Status:
        rpm, d = self._rpm()
        return Status(self.state, self.spin, self.win, self.warning, rpm, d)

    def declare(self) -> None:
        """Send the status line (at power-up, on ``*X``, every status period, when replaced)."""
        self.emit(format_status(self.status(), self.pad))

    def hello(self) -> None:
        """Power-up: the status line; a wheel with its own cycle also powers up on the line
        (state 6 with the pending game's spin#, ``*P 1`` / ``*P OK``, state 1 with that number)."""
        self.declare()
        if self.autonomous:
            self.emit(format_power("on"))
            self.emit(format_power("ok"))
            self._enter(1)

    def _enter(self, state: int) -> None:
        self.state = state
        if self.games == _knob(self.params, "warning_game") and state == _knob(self.params, "warning_state"):
            self.warning |= _knob(self.params, "warning_bits")
        self.declare()
        every = _knob(self.params, "power_off_every")
        cut = self.games == _knob(self.params, "power_off_game") or (every and self.games % every == 0)
        if (self.autonomous and self.powered and self.games and cut and state == _knob(self.params, "power_off_state")
                and self._cut_game != self.games):
            self._power_off()

    _cut_game = 0

    # ------------------------------------------------------------------ power
    def _power_off(self) -> None:
        rpm, d = self._rpm()
        self._cut_game = self.games
        self.powered = False
        self.power_cycles += 1
        self.emit(format_power("off"))
        self.emit(format_power("ok"))
        self.model.power_off()  # the game is abandoned; its number is replayed after power-up
        self._off = (self.clock.env.now, float(rpm), d)
        self.state = 6
        self.declare()
        back = self.clock.env.timeout(_knob(self.params, "power_off_s"))
        back.callbacks.append(lambda _ev: self._power_on())

    def _power_on(self) -> None:
        self._off = None
        self._start_since = self.clock.env.now
        self.powered = True
        self.declare()  # state 6, the pending game's spin#
        self.emit(format_power("on"))
        self.emit(format_power("ok"))
        self.model.power_on()
        self.warning = 0
        self._enter(1)  # the wheel starts; the pending game follows (the model's game_start)

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
        if self.autonomous:
            self.refused += 1  # the wheel runs its own games
            return
        busy_until = self.model._busy_until  # the firmware knows whether its ball still moves
        if busy_until is not None and self.clock.env.now < busy_until:
            self.refused += 1
            return
        self.model.spin()
        self.spin = self.model._wheel.spins
        self.games += 1
        self.warning = 0
        self._enter(1)  # the command reached the wheel: the motor starts the rotor…
        self._enter(2)  # …which the model brings to speed at once; the launcher is armed

    # ------------------------------------------------------------------ the model's telemetry
    def _telemetry(self, _device: str, kind: str, p: dict[str, Any]) -> None:
        if kind == "game_start":  # the autonomous cycle: a new game opens bets
            rpm, d = self._rpm()
            new_dir = 0 if self.model._wheel.spins % 2 == 0 else 1  # the model's next rotor direction
            reverses = self.model.params.rotor_direction == "alternate" and self.model._wheel.spins > 0
            self._brake = (self.clock.env.now, float(rpm), d) if reverses and rpm and d != new_dir else None
            self.spin = int(p["spin_id"])
            self._start_since = None
            self.games += 1
            self.warning = 0
            self._enter(2)
        elif kind == "ball_launch":
            self._enter(3)
        elif kind == "bets_closed":  # the autonomous wheel's own "no more bets"
            self._enter(4)
        elif kind == "ball_drop":
            if not self.autonomous:
                self._enter(4)  # the commanded wheel closes bets when the ball leaves the rim
        elif kind == "ball_result":
            self.win = win_code(p["pocket"])
            if p["misspin"]:
                self.warning |= VOID_GAME
            if _knob(self.params, "bare_lines"):
                self.emit(format_bare(self.win, self.pad))
            self._enter(5)
            if not self.autonomous:
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
                 status_period_s: float = STATUS_PERIOD_S, log: logging.Logger | None = None) -> None:
        super().__init__(port, glue, clock, heartbeat_s=status_period_s, log=log)
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
        if self.log.isEnabledFor(logging.DEBUG):
            self.log.debug("line sent", extra={"line": data.decode("ascii", "replace").rstrip()})
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
        self.glue.hello()  # power-up

    def replace_glue(self, glue: _GlueBase) -> None:  # type: ignore[override]
        """A new model (the control endpoint configured one): it powers up on the line."""
        self.glue = glue
        glue.emit = self.send
        glue.hello()

    # ------------------------------------------------------------------ input
    def _receive(self, lines: list[Line]) -> None:
        for line in lines:
            if line.cut is not None:
                self.bad_lines += 1  # garbage: a firmware ignores it
                self.log.info("line from the host ignored", extra={"why": line.cut})
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
            if self.log.isEnabledFor(logging.INFO):
                self.log.info("line received", extra={"line": line.text.decode("ascii", "replace")})
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
