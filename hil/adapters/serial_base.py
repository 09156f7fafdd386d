"""What every serial (event-stream) adapter shares: the link, the device-clock mapping, command
sending, matching results to the commands that asked for them, and wire-fault records.

An adapter implements a device's Protocol (``devices.contracts``) inside the rig's
``WallClockEnvironment``. Commands are encoded (and their arguments checked) in the simulation
thread and written on the ``IoLoop`` thread; frames come in on the link's reader thread, are
stamped there, and become — posted with ``env.call_soon_threadsafe`` — the same telemetry a SimPy
model emits, so the controller and the checks cannot tell them apart.

Device clock (docs/wire/clock.md): at connect the adapter sends ``HELLO`` ``HELLO_SAMPLES`` times;
the device read its clock (its ``HELLO.clock_ns``) between our ``HELLO`` leaving and its ``HELLO``
arriving (only a ``HELLO`` that follows the ``ACK`` of ours counts: a stale power-up ``HELLO`` does
not), so ``offset = device − midpoint`` within half the round trip; their rate must be the rig's
(another time scale is refused: ``ClockRateMismatch``). Then one more ``HELLO`` every
``SYNC_PERIOD_S`` feeds the same estimator as the Modbus adapters' (``modbus_base``,
``DeviceClockTracking``): offset and drift fitted over a sliding window, recorded as
``clock_estimate``, a drift beyond ``max_clock_drift_ppm`` a ``clock_drift`` fault. After a
reconnect the estimate starts afresh from its first round trip (the device may have restarted).
``HEARTBEAT``s keep the link's silence timer quiet; each one's lower bound on the offset is checked
against the map (``clock_drift`` fault when it contradicts it).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import simpy

from devices.contracts import Telemetry
from hil.adapters.modbus_base import DeviceClockTracking
from hil.clock import ClockSample, WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.serial import SerialLink, SerialWireError
from hil.wire.frames import BY_NAME, Frame

HELLO_SAMPLES = 8
#: one more HELLO round trip for the clock estimate this often (wall s)
SYNC_PERIOD_S = 1.0
#: The device's declaration must follow its HELLO within this (wall s).
CONNECT_TIMEOUT_S = 5.0


class SerialAdapterBase(DeviceClockTracking):
    """The link and protocol duties of one serial device; subclasses handle its events."""

    #: what the device must say it is in its HELLO (``DEVICE_KIND_CODES``)
    device_kind = ""
    #: the event that follows each HELLO the device sends (``WHEEL_LAYOUT`` …), or None
    declaration: str | None = None

    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, telemetry: Telemetry, name: str,
                 timeout_s: float, *, baudrate: int = 115_200, silence_s: float = 3.0) -> None:
        self.env, self.io, self.url, self.telemetry, self.name = env, io, url, telemetry, name
        self.timeout_s = timeout_s
        self.link = SerialLink(url, baudrate, timeout_s, on_frame=self._on_frame, on_fault=self._link_fault,
                               on_connect=self._on_reconnect, silence_s=silence_s, name=name)
        self.faults = 0
        self._init_clock(SYNC_PERIOD_S * env.time_scale)
        self._sync_handle = None
        self._closed = False
        self.declared: Frame | None = None
        self._lock = threading.Lock()  # send + seq bookkeeping vs the reader's ACKs
        self._commands: dict[int, list[simpy.Event]] = {}  # seq -> events a NAK must drop
        self._hello: tuple[int, int, bool] | None = None  # (seq, tx_ns, acked) of our HELLO in flight
        self._samples: queue.SimpleQueue[tuple[int, int, int]] = queue.SimpleQueue()  # (tx, rx, device ns)
        self._declared = threading.Event()
        self._resync = False
        # results waiting for the device: keyed (wagering) and per spin (wheel, Top Slot)
        self._keyed: deque[tuple[Any, simpy.Event]] = deque()
        self._unbound: deque[simpy.Event] = deque()
        self._bound: dict[int, simpy.Event] = {}

    # ----------------------------------------------------------- connect (simulation thread)
    def start(self) -> dict[str, Any]:
        """Open the link, map the device clock, read its declaration; returns device_info fields."""
        try:
            self.link.open()
        except Exception as exc:  # noqa: BLE001 — pyserial raises several types for a bad URL
            from hil.transport.serial import open_failure

            # the bench names the role and the URL (hil.bench._refused_at_connect): said once
            raise ConnectionError(f"the port did not open ({open_failure(exc)})") from exc
        try:
            samples = [ClockSample.of(self.env, *self._round_trip()) for _ in range(HELLO_SAMPLES)]
            self._clock_started(samples, f"{self.name} at {self.url}")
            if self.declaration and not self._declared.wait(CONNECT_TIMEOUT_S):
                raise ConnectionError(f"{self.name}: no {self.declaration} after HELLO on {self.url}")
        except BaseException:
            self.link.close()
            raise
        info = self.clock_info()
        self.io.loop.call_soon_threadsafe(self._schedule_sync)
        return {"url": self.url, **info}

    def _schedule_sync(self) -> None:
        """I/O thread: the next clock round trip in ``SYNC_PERIOD_S``."""
        if not self._closed:
            self._sync_handle = self.io.loop.call_later(SYNC_PERIOD_S, self._sync)

    def _sync(self) -> None:
        """I/O thread: one HELLO round trip for the estimate (its answer comes on the reader thread)."""
        try:
            with self._lock:
                # none in flight, or answered (its HELLO may follow), or lost (never answered)
                if self._hello is None or self._hello[2] or time.perf_counter_ns() - self._hello[1] > CONNECT_TIMEOUT_S * 1e9:
                    seq, tx = self.link.send("HELLO", device_kind="host", protocol_version=1, clock_ns=0)
                    self._hello = (seq, tx, False)
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)
        self._schedule_sync()

    def _round_trip(self) -> tuple[int, int, int]:
        with self._lock:
            seq, tx = self.link.send("HELLO", device_kind="host", protocol_version=1, clock_ns=0)
            self._hello = (seq, tx, False)
        try:
            return self._samples.get(timeout=CONNECT_TIMEOUT_S)
        except queue.Empty:
            raise ConnectionError(f"{self.name}: no HELLO from {self.url} within {CONNECT_TIMEOUT_S} s") from None

    def close(self) -> None:
        self._closed = True
        if self._sync_handle is not None:
            self.io.loop.call_soon_threadsafe(self._sync_handle.cancel)
        self.link.close()

    # ----------------------------------------------------------- commands (simulation thread)
    def command(self, msg_type: str, events: list[simpy.Event] | None = None, **fields: object) -> None:
        """Send a command on the I/O thread. Arguments the frame cannot carry raise ``ValueError``
        here; a link that cannot send is a recorded fault (``events`` then stay untriggered)."""
        BY_NAME[msg_type].pack(fields)
        self.io.loop.call_soon_threadsafe(self._send, msg_type, fields, events)

    def _send(self, msg_type: str, fields: dict[str, object], events: list[simpy.Event] | None) -> None:
        try:
            with self._lock:
                seq, _ = self.link.send(msg_type, **fields)
                if events:
                    self._commands[seq] = events
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)

    # ----------------------------------------------------------- faults
    def fault(self, kind: str, detail: str) -> None:
        """A wire fault, recorded in the trace from the simulation thread."""
        self.faults += 1
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_fault", {"kind": kind, "detail": detail}))

    def _link_fault(self, kind: str, detail: str) -> None:
        self.fault(kind, detail)

    def post(self, fn: Callable[[], None]) -> None:
        self.env.call_soon_threadsafe(fn)

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        """Telemetry from the reader thread, recorded in the simulation thread."""
        self.post(lambda: self.telemetry(self.name, kind, payload))

    def to_sim(self, device_ns: int) -> float:
        return self.clock.to_sim(device_ns)

    # ----------------------------------------------------------- frames (reader thread)
    def _on_frame(self, f: Frame) -> None:
        t = f.msg_type
        if t == "ACK":
            with self._lock:
                events = self._commands.pop(f.fields["acked_seq"], None)
                if self._hello and self._hello[0] == f.fields["acked_seq"]:
                    self._hello = (self._hello[0], self._hello[1], True)
            if events and f.fields["status"] != "ok":
                self.post(lambda: self._drop(events))
        elif t == "HELLO":
            self._on_hello(f)
        elif t == "HEARTBEAT":
            self._on_heartbeat(f)
        elif t == self.declaration:
            self.declared = f
            self._declared.set()
        elif self.clock is not None:
            self.on_event(f)

    def _on_hello(self, f: Frame) -> None:
        if f.fields["device_kind"] != self.device_kind:
            self.fault("wrong_device", f"{self.url} says it is a {f.fields['device_kind']}, expected {self.device_kind}")
        with self._lock:
            hello, self._hello = self._hello, (None if self._hello and self._hello[2] else self._hello)
        if not (hello and hello[2]):
            return  # a power-up HELLO (or a stale one): the device restarted; the link resets its seq
        sample = (hello[1], f.rx_ns, int(f.fields["clock_ns"]))
        if self._resync:
            self._resync = False
            self.estimator.reset()
            c = self.estimator.start([ClockSample.of(self.env, *sample)])
            self._new_map(c, "reconnect")
            self.emit("wire_reconnected", {"url": self.url, **c.to_json()})
        elif self.clock is None:
            self._samples.put(sample)  # connecting
        else:
            self.clock_sample(*sample)

    def _on_heartbeat(self, f: Frame) -> None:
        c = self.clock
        if c is None:
            return
        # the device read its clock before the frame arrived: offset >= device − arrival
        at = self.env.wall_to_sim(f.rx_ns)
        lower = int(f.fields["clock_ns"]) * 1e-9 - at
        if lower > c.offset_at(at) + c.uncertainty_s + 1e-3 * self.env.time_scale:
            self.fault("clock_drift", f"HEARTBEAT puts the device clock {lower - c.offset_at(at):.6f} s ahead of "
                                      f"its map (± {c.uncertainty_s:.6f} s)")

    def _on_reconnect(self) -> None:
        """Reader thread, the port is open again: say HELLO and re-map the clock."""
        self._resync = True
        try:
            with self._lock:
                seq, tx = self.link.send("HELLO", device_kind="host", protocol_version=1, clock_ns=0)
                self._hello = (seq, tx, False)
        except SerialWireError as exc:
            self.fault(exc.kind, exc.detail)

    def on_event(self, f: Frame) -> None:
        """A device event (reader thread, clock mapped): turn it into telemetry."""
        self.fault("unexpected_frame", f"{f.msg_type} (seq {f.seq}) is not an event of a {self.device_kind}")

    # ----------------------------------------------------------- results (simulation thread)
    def expect(self, key: Any, ev: simpy.Event) -> None:
        """``ev`` waits for the oldest result with ``key`` (``resolve``)."""
        self._keyed.append((key, ev))

    def resolve(self, key: Any, value: Any) -> None:
        for i, (k, ev) in enumerate(self._keyed):
            if k == key:
                del self._keyed[i]
                ev.succeed(value)
                return

    def bind(self, spin_id: int) -> None:
        """A spin started: the oldest command still waiting for a start is this spin's."""
        if spin_id not in self._bound and self._unbound:
            self._bound[spin_id] = self._unbound.popleft()

    def finish(self, spin_id: int, value: Any) -> None:
        """A spin ended (its start may have been lost on the wire)."""
        self.bind(spin_id)
        ev = self._bound.pop(spin_id, None)
        if ev is not None and not ev.triggered:
            ev.succeed(value)

    def _drop(self, events: list[simpy.Event]) -> None:
        """The device refused the command: its results will never come (events stay untriggered)."""
        drop = set(map(id, events))
        self._keyed = deque((k, e) for k, e in self._keyed if id(e) not in drop)
        self._unbound = deque(e for e in self._unbound if id(e) not in drop)
