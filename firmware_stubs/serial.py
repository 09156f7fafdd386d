"""A device's SimPy model behind the serial framed protocol (docs/wire/serial-frames.md).

``SerialStub`` serves one model over a byte port — a pty master (``FdPort``) or any pyserial URL
(``UrlPort``) — in one loop on one thread. The model's ``simpy.Environment`` is stepped from the
wall clock (``firmware_stubs.modbus.ModelClock``: device time = model time = wall time since
start × ``time_scale``): the loop waits for bytes at most until the model's next event or the
next heartbeat is due (never longer than 20 ms on a pty, which wakes the loop when bytes or a
control request come; 1 ms on a pyserial URL, which cannot), stamps arrivals with
``time.perf_counter_ns()``, runs the model up to each frame's arrival before acting on it, and
runs it up to *now* after every wake-up. Every telemetry message of the model leaves as its event frame from inside that run, i.e. as it
happens, stamped with its model time in ns — so a fault knob of the model (dropped telemetry,
a stuck sensor, a slow lock-out) reaches the wire exactly as it reaches the trace in simulation.

Another thread (the control endpoint's) never touches the model: it hands a callable to ``call``,
which the serve loop runs between two iterations and answers through a
``concurrent.futures.Future`` — e.g. a ``configure`` that swaps in a new glue (``replace_glue``:
the new model declares itself at once, as after a ``HELLO``).

Protocol duties: ``HELLO`` at power-up and in answer to the host's (followed by the device's
declaration: ``WHEEL_LAYOUT`` / ``WAGERING_INFO``), an ``ACK`` for every frame the host sends
*before* acting on it, ``HEARTBEAT`` whenever nothing else was sent for ``heartbeat_s``.
The glue between a model and the frames is a ``FrameGlue`` (one per device kind).
"""

from __future__ import annotations

import concurrent.futures
import errno
import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import serial

from devices.money_wheel import MoneyWheelParams, MoneyWheelSim
from devices.top_slot import TopSlotParams, TopSlotSim
from devices.wagering import WageringParams, WageringSim
from firmware_stubs.modbus import ModelClock
from devices.supervisor import SupervisorRefused
from hil.wire.frames import PROBE_SLOTS, SPOT_CODES, Frame, FrameParser, encode
from hil.wire.supervisor import fields_key

#: Longest the loop waits without stepping the model (wall s), on a port it cannot wake (``UrlPort``).
MAX_WAIT_S = 0.001
#: Longest an idle loop sleeps on a port that wakes it (``FdPort``: bytes in, ``SerialStub.call``):
#: it wakes anyway when the model's next event or the next heartbeat is due; this bounds how late
#: a half-received frame is found truncated.
IDLE_WAIT_S = 0.02
HEARTBEAT_S = 0.5
TRUNCATE_AFTER_NS = 50_000_000

Emit = Callable[..., None]  # emit(msg_type, **fields): one event frame, now


# --------------------------------------------------------------------------- ports
class FdPort:
    """A pty master file descriptor, non-blocking. Bytes the peer does not read are dropped when
    the pty's buffer is full (``dropped_bytes``), like a UART nobody listens to — the stub never
    blocks on a rig that is not there."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.dropped_bytes = 0
        self.max_wait_s = IDLE_WAIT_S
        os.set_blocking(fd, False)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    def wake(self) -> None:
        """End a ``read`` that waits (from any thread)."""
        try:
            os.write(self._wake_w, b"w")
        except OSError:  # full (already woken) or closed
            pass

    def read(self, timeout_s: float) -> bytes:
        ready, _, _ = select.select([self.fd, self._wake_r], [], [], timeout_s)
        if self._wake_r in ready:
            try:
                os.read(self._wake_r, 4096)
            except OSError:
                pass
        if self.fd not in ready:
            return b""
        try:
            return os.read(self.fd, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:  # EIO: no slave side open right now
            if exc.errno != errno.EIO:
                raise
            time.sleep(timeout_s)
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except (BlockingIOError, OSError):
                self.dropped_bytes += len(view)
                return
            view = view[n:]

    def close(self) -> None:
        for fd in (self.fd, self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass


class UrlPort:
    """Any pyserial URL (a device path, ``socket://``, ``rfc2217://``, ``loop://``). pyserial
    reads with a fixed timeout, so the loop's wait is ``MAX_WAIT_S`` whatever is due."""

    def __init__(self, url: str, baudrate: int = 115_200) -> None:
        self.ser = serial.serial_for_url(url, baudrate=baudrate, timeout=MAX_WAIT_S, write_timeout=1.0)
        self.dropped_bytes = 0
        self.max_wait_s = MAX_WAIT_S

    def wake(self) -> None:  # reads return within MAX_WAIT_S anyway
        return None

    def read(self, timeout_s: float) -> bytes:
        return self.ser.read(self.ser.in_waiting or 1)

    def write(self, data: bytes) -> None:
        try:
            self.ser.write(data)
        except serial.SerialTimeoutException:
            self.dropped_bytes += len(data)

    def close(self) -> None:
        self.ser.close()


class Port(Protocol):
    dropped_bytes: int
    max_wait_s: float  # longest read the serve loop asks for when nothing is due

    def wake(self) -> None: ...

    def read(self, timeout_s: float) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- glue
class FrameGlue(Protocol):
    """Binds a device model to the frames."""

    device_kind: str
    #: command type -> handler(frame) returning the ACK status ("ok", "bad_args", "busy") and
    #: an action run after the ACK went out (or None)
    commands: dict[str, Callable[[Frame], tuple[str, Callable[[], None] | None]]]

    def declare(self) -> None:
        """Send what follows each HELLO the device sends (its layout / seats)."""
        ...


class _GlueBase:
    device_kind = ""

    def __init__(self, clock: ModelClock) -> None:
        self.clock = clock
        self.emit: Emit = lambda *_a, **_k: None  # set by SerialStub

    def ns(self, t_s: float) -> int:
        return self.clock.ns(t_s)

    def declare(self) -> None:
        return None


class WageringFrameGlue(_GlueBase):
    """``WageringSim`` ↔ frames. ``LOCK_OUT`` is the dealer's button: the first one after
    ``OPEN_BETTING`` reaches the model (later ones are ACKed and change nothing, like a held
    button); ``ARM_PROBE`` arms the model's actuator (``WageringSim.arm_probe``). ``OPEN_BETTING``
    carries the supervisor key (``key_0`` … ``key_15``): a wrong one is ACKed ``refused`` and
    changes nothing (logged on stderr, rate-limited), so a locked round never re-opens without it;
    a ``PRESS`` or ``ARM_PROBE`` whose stake is outside the table's limits is ACKed ``bad_args``."""

    device_kind = "wagering"

    def __init__(self, clock: ModelClock, params: WageringParams, rng: np.random.Generator,
                 truth_sink: Callable[[dict[str, Any]], None] | None = None, supervisor_key: bytes | None = None,
                 refusal_log: Any = None) -> None:
        from firmware_stubs.wagering import RefusalLogger

        super().__init__(clock)
        self.truth_sink = truth_sink or (lambda _t: None)
        self.refusal_log = refusal_log or RefusalLogger("wagering")
        self.locked = False
        self.model = WageringSim(clock.env, params, rng, self._telemetry, supervisor_key=supervisor_key)
        self.commands = {"OPEN_BETTING": self._open, "LOCK_OUT": self._lock_out, "PRESS": self._press,
                         "ARM_PROBE": self._arm}

    def declare(self) -> None:
        p = self.model.params
        self.emit("WAGERING_INFO", seats=min(p.seats, 255), min_stake_cents=p.min_stake_cents,
                  max_stake_cents=p.max_stake_cents)

    def _telemetry(self, _device: str, kind: str, p: dict[str, Any]) -> None:
        if kind == "betting_open":
            self.emit("BETTING_OPEN", t_ns=self.ns(p["device_time_s"]))
        elif kind == "lockout_command":
            self.emit("LOCKOUT_COMMAND", t_ns=self.ns(p["device_time_s"]))
        elif kind == "press":
            self.emit("PRESS_ANSWER", press_id=p["press_id"] & 0xFFFFFFFF, seat=p["seat"], spot=p["spot"],
                      stake_cents=p["stake_cents"], accepted=p["accepted"], reason=p["reason"] or "none",
                      press_ns=self.ns(p["device_time_s"]), answer_ns=self.ns(p["answer_time_s"]))
        elif kind == "command_refused":
            self.refusal_log.refused(p["command"], p["reason"], "the serial line")

    def _open(self, f: Frame):
        key = fields_key(f.fields)
        try:
            self.model.supervisor.check("round_open", key)  # judged before the ACK: refused changes nothing
        except SupervisorRefused:
            return "refused", None

        def act() -> None:
            self.locked = False
            self.model.open_betting(key)
        return "ok", act

    def _lock_out(self, _f: Frame):
        def act() -> None:
            if self.locked:
                return
            self.locked = True
            self.model.lock_out()
            self.truth_sink({"command_ns": self.ns(self.clock.env.now), "latency_s": self.model.lockout_latency_s,
                             "ignored": self.model.params.lockout_ignored})
        return "ok", act

    def _press(self, f: Frame):
        v = f.fields
        if self.model.stake_deviation(v["stake_cents"]) is not None:
            return "bad_args", None  # outside the table's limits: nothing pressed, never a meter
        return "ok", lambda: self.model.press(v["seat"], v["spot"], v["stake_cents"])

    def _arm(self, f: Frame):
        v = f.fields
        if v["count"] > PROBE_SLOTS or (v["count"] and self.model.stake_deviation(v["stake_cents"]) is not None):
            return "bad_args", None
        offsets = [v[f"offset_us_{i}"] * 1e-6 for i in range(v["count"])]
        return "ok", lambda: self.model.arm_probe(v["seat"], v["spot"], v["stake_cents"], offsets)


class MoneyWheelFrameGlue(_GlueBase):
    """``MoneyWheelSim`` ↔ frames. ``SPIN`` while the wheel turns is answered busy and ignored."""

    device_kind = "money_wheel"

    def __init__(self, clock: ModelClock, params: MoneyWheelParams, rng: np.random.Generator) -> None:
        super().__init__(clock)
        self.model = MoneyWheelSim(clock.env, params, rng, self._telemetry)
        info = self.model.info()
        if unknown := sorted({s for s in info.sections if s not in SPOT_CODES}):
            raise ValueError(f"section symbol(s) {unknown} have no spot code")
        if len(info.sections) > 255:
            raise ValueError(f"{len(info.sections)} sections: WHEEL_LAYOUT holds at most 255")
        self.commands = {"SPIN": self._spin}

    def declare(self) -> None:
        info = self.model.info()
        self.emit("WHEEL_LAYOUT", diameter_mm=round(info.diameter_m * 1000), sections=info.sections)

    def _telemetry(self, _device: str, kind: str, p: dict[str, Any]) -> None:
        if kind == "spin_start":
            self.emit("SPIN_START", spin_id=p["spin_id"], direction=p["direction"], t_ns=self.ns(p["device_time_s"]))
        elif kind == "index_pulse":
            self.emit("INDEX_PULSE", spin_id=p["spin_id"], count=min(p["count"], 0xFFFF),
                      t_ns=self.ns(p["device_time_s"]))
        elif kind == "spin_stop":
            self.emit("SPIN_STOP", spin_id=p["spin_id"], section_index=p["section_index"], on_peg=p["on_peg"],
                      direction=p["direction"], revolutions_milli=round(p["revolutions"] * 1000),
                      pegs_passed=p["pegs_passed"], start_ns=self.ns(p["start_time_s"]),
                      stop_ns=self.ns(p["stop_time_s"]))

    def _spin(self, f: Frame):
        busy_until = self.model._busy_until  # the firmware knows whether its wheel turns
        if busy_until is not None and self.clock.env.now < busy_until:
            return "busy", None
        return "ok", lambda: self.model.spin(f.fields["direction"])


class TopSlotFrameGlue(_GlueBase):
    """``TopSlotSim`` ↔ frames."""

    device_kind = "top_slot"

    def __init__(self, clock: ModelClock, params: TopSlotParams, par: Any, rng: np.random.Generator) -> None:
        super().__init__(clock)
        self.model = TopSlotSim(clock.env, params, par, rng, self._telemetry)
        self.commands = {"TOP_SLOT_SPIN": lambda _f: ("ok", self.model.spin)}

    def _telemetry(self, _device: str, kind: str, p: dict[str, Any]) -> None:
        if kind == "top_slot_start":
            self.emit("TOP_SLOT_START", spin_id=p["spin_id"], t_ns=self.ns(p["device_time_s"]))
        elif kind == "top_slot_stop":
            self.emit("TOP_SLOT_STOP", spin_id=p["spin_id"], spot=p["spot"], multiplier=p["multiplier"],
                      aligned=p["aligned"], reel1_steps=p["reel1_steps"], reel2_steps=p["reel2_steps"],
                      start_ns=self.ns(p["start_time_s"]), stop_ns=self.ns(p["stop_time_s"]))


# --------------------------------------------------------------------------- the stub
def _next_due(env: Any) -> float:
    """When the model's next event that does something is due (``inf``: none).

    Not ``env.peek()``: simpy 4.1 leaves the stopping ``until`` event of every
    ``run(until=t)`` (``ModelClock.sync``) in the queue at ``t`` with no callbacks left, so
    ``peek()`` is always ``now`` and a loop sleeping until it would never sleep (a stub pegging a
    CPU, which on a small machine delays the other stubs and the rig by milliseconds)."""
    return min((t for t, _prio, _eid, ev in env._queue if ev.callbacks), default=float("inf"))


class SerialStub:
    """Serves ``glue``'s model on ``port`` until ``stop`` is set (``serve``)."""

    def __init__(self, port: Port, glue: _GlueBase, clock: ModelClock, heartbeat_s: float = HEARTBEAT_S,
                 log: logging.Logger | None = None) -> None:
        self.port, self.glue, self.clock, self.heartbeat_s = port, glue, clock, heartbeat_s
        #: each frame from the host at info (the stub's ``-v``), its fields and every frame sent at debug
        self.log = log or logging.getLogger("croupier.stub")
        self.parser = FrameParser()
        self.seq = 0
        self.last_tx_ns = 0
        self.frames_in = 0
        self._calls: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future]] = queue.SimpleQueue()
        self._stopped = False
        glue.emit = self.send

    def replace_glue(self, glue: _GlueBase) -> None:
        """A new model (the control endpoint configured one), from the serve loop: its frames go
        out from now on, and it declares itself at once (as after a ``HELLO``), so a host that
        connects next sees the new device's layout / seats."""
        self.glue = glue
        glue.emit = self.send
        glue.declare()

    def call(self, fn: Callable[[], Any], timeout_s: float = 10.0) -> Any:
        """Run ``fn`` in the serve loop between two iterations (from any other thread) and
        return its result or raise its exception; ``TimeoutError`` if the loop does not get to it
        within ``timeout_s``, ``RuntimeError`` if the stub stopped meanwhile."""
        if self._stopped:
            raise RuntimeError("the stub stopped")
        fut: concurrent.futures.Future = concurrent.futures.Future()
        self._calls.put((fn, fut))
        if wake := getattr(self.port, "wake", None):
            wake()
        return fut.result(timeout_s)

    def _run_calls(self, stopping: bool = False) -> None:
        while True:
            try:
                fn, fut = self._calls.get_nowait()
            except queue.Empty:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            if stopping:
                fut.set_exception(RuntimeError("the stub stopped"))
                continue
            try:
                fut.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 — answered to the caller
                fut.set_exception(exc)

    def send(self, msg_type: str, **fields: object) -> None:
        if self.log.isEnabledFor(logging.DEBUG):
            self.log.debug("serial frame sent: %s", msg_type, extra={"seq": self.seq, "fields": fields})
        self.port.write(encode(msg_type, self.seq, **fields))
        self.seq = (self.seq + 1) & 0xFFFF
        self.last_tx_ns = time.perf_counter_ns()

    def hello(self) -> None:
        self.send("HELLO", device_kind=self.glue.device_kind, protocol_version=1, clock_ns=self.clock.ns())
        self.glue.declare()

    def handle(self, f: Frame) -> None:
        """One frame from the host, at the model time of its arrival: ACK, then act."""
        self.frames_in += 1
        if f.msg_type == "HELLO":
            self._log_frame(f, "ok")
            self.send("ACK", acked_seq=f.seq, status="ok")
            self.hello()
            return
        handler = self.glue.commands.get(f.msg_type)
        if handler is None:
            self._log_frame(f, "unknown_command")
            self.send("ACK", acked_seq=f.seq, status="unknown_command")
            return
        status, action = handler(f)
        self._log_frame(f, status)
        self.send("ACK", acked_seq=f.seq, status=status)
        if status == "ok" and action is not None:
            action()

    def _log_frame(self, f: Frame, status: str) -> None:
        """One info line per frame from the host (``-v``): its type, seq and the ACK's status;
        its fields at debug (``-vv``). Nothing is formatted at the default level."""
        if self.log.isEnabledFor(logging.INFO):
            extra: dict[str, Any] = {"seq": f.seq, "status": status}
            if self.log.isEnabledFor(logging.DEBUG):
                extra["fields"] = {k: v for k, v in f.fields.items() if "key" not in k}  # no supervisor key
            self.log.info("serial frame received: %s", f.msg_type, extra=extra)

    def _wait_s(self) -> float:
        """Until the model's next event or the next heartbeat is due, at most the port's
        ``max_wait_s`` (bytes arriving, or ``call``, end the wait earlier)."""
        now_ns = time.perf_counter_ns()
        due_ns = self.last_tx_ns + self.heartbeat_s * 1e9
        due = _next_due(self.clock.env)
        if due != float("inf"):
            due_ns = min(due_ns, self.clock.t0_ns + due / self.clock.time_scale * 1e9)
        cap = getattr(self.port, "max_wait_s", MAX_WAIT_S)
        return min(cap, max(0.0, (due_ns - now_ns) * 1e-9))

    def serve(self, stop: threading.Event) -> None:
        self.clock.sync()
        self.hello()  # power-up
        try:
            while not stop.is_set():
                data = self.port.read(self._wait_s())
                rx_ns = time.perf_counter_ns()  # where the bytes arrived
                frames = self.parser.feed(data, rx_ns) if data else self.parser.expire(rx_ns, TRUNCATE_AFTER_NS)
                for f in frames:
                    self.clock.sync(f.rx_ns)
                    self.handle(f)
                self.clock.sync()
                self._run_calls()
                if time.perf_counter_ns() - self.last_tx_ns >= self.heartbeat_s * 1e9:
                    self.send("HEARTBEAT", clock_ns=self.clock.ns())
        finally:
            self._stopped = True
            self._run_calls(stopping=True)
