"""What the Modbus adapters of commanded spinning devices share (the money wheel, the Top Slot).

A command is ``command`` + ``command_seq``; the device's ``spin_id`` "increments with each
accepted spin command", so each acknowledged command is the next id after the last one the
adapter knows of, and the rest report of that id resolves the command's event. The poller reads
the status block each period into a ``Snapshot`` and hands it to the device's ``_track``, which
appends the telemetry events and the events to resolve; both are delivered to the simulation
thread in the order they happened. A value the device should never show is a ``wire_fault`` of
kind ``bad_value``, recorded once per distinct fault, never a crash of the poller.
"""

from __future__ import annotations

from typing import Any, ClassVar

import simpy

from hil.adapters.modbus_base import ModbusAdapterBase
from hil.transport.modbus import WireError
from hil.wire.registers import RegisterMap

#: Rest reports kept for a spin whose command acknowledgement has not been processed yet.
UNCLAIMED_MAX = 8
#: Commands awaiting their result (older ones are given up: their events never trigger).
PENDING_MAX = 64


class BadValue(ValueError):
    """A value the device should never show."""


class Snapshot:
    """One poll's values, decoded point by point: a bad point spoils only what needs it."""

    def __init__(self, rmap: RegisterMap) -> None:
        self.map = rmap
        self.values: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.words: dict[str, list] = {}

    def add(self, names: tuple[str, ...] | list[str], start: int, words: list) -> None:
        for name in names:
            p = self.map.point(name)
            self.words[name] = w = list(words[p.address - start:p.end - start])
            try:
                self.values[name] = self.map.decode(p, w)
            except ValueError as exc:
                self.errors[name] = str(exc)

    def __getitem__(self, name: str) -> Any:
        if name in self.errors:
            raise BadValue(self.errors[name])
        return self.values[name]

    def elements(self, name: str, n: int) -> list[Any]:
        """The first ``n`` elements of an array point, each decoded on its own (the rest of the
        array may hold anything)."""
        p = self.map.point(name)
        width = self.map.width(p)
        one = p.model_copy(update={"count": 1})
        out = []
        for i in range(n):
            try:
                out.append(self.map.decode(one, self.words[name][i * width:(i + 1) * width]))
            except ValueError as exc:
                raise BadValue(f"{name}[{i}]: {exc}") from None
        return out


def command_words(rmap: RegisterMap, command: str, seq: int) -> list[tuple[str, int, list[int]]]:
    """The writes for ``command`` + ``command_seq``: one request when they are adjacent (FC16),
    else two, the command first (the device acts on the change of ``command_seq``)."""
    c, s = rmap.point("command"), rmap.point("command_seq")
    cw, sw = rmap.encode(c, command), rmap.encode(s, seq)
    if c.table == s.table and s.address == c.end:
        return [(c.table, c.address, cw + sw)]
    return [(c.table, c.address, cw), (s.table, s.address, sw)]


class AcknowledgedCommands(ModbusAdapterBase):
    """Commands ↔ the device's ids, for devices that count each accepted command (``spin_id``,
    ``op_id``): each acknowledged command is the next id after the last one known; its event is
    resolved by that id's result — at once if the poller saw the result first (``_unclaimed``),
    else when it does (``_pending``). I/O thread only."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._acked_id = 0  # the last id the device accepted (from our commands or seen)
        self._in_flight = 0  # command writes sent, not yet answered
        self._pending: dict[int, simpy.Event] = {}
        self._unclaimed: dict[int, Any] = {}
        self._last_bad: str | None = None  # the last bad value recorded (each distinct one once)

    def _acknowledged(self, op: int) -> None:
        """Hook: the device accepted the command that is its ``op``."""

    async def _command(self, writes: list[tuple[str, int, list[int]]], done: simpy.Event) -> None:
        self._in_flight += 1
        try:
            for table, address, words in writes:
                await self.cmd.write(table, address, words)
        except BaseException:
            self._in_flight -= 1
            raise  # recorded as a wire_fault by ``submit``; ``done`` never triggers
        self._in_flight -= 1
        self._acked_id += 1
        op = self._acked_id
        self._acknowledged(op)
        if (result := self._unclaimed.pop(op, None)) is not None:
            self.env.call_soon_threadsafe(lambda: done.triggered or done.succeed(result))
        else:
            self._pending[op] = done
            while len(self._pending) > PENDING_MAX:
                del self._pending[min(self._pending)]

    # ----------------------------------------------------------- the status poll (I/O thread)
    async def _track(self, snap: Snapshot, out: list, resolve: list) -> None:
        """Turn one poll's ``snap`` into telemetry (``out``) and events to resolve (``resolve``)."""
        raise NotImplementedError

    def _events(self, out: list) -> list[tuple[str, dict[str, Any]]]:
        """``out`` as the (kind, payload) telemetry to deliver, in the order it happened."""
        return out

    async def _read_status(self, link) -> Snapshot:
        snap = Snapshot(self.map)
        for b in self._blocks:
            words, rx = await link.read(b.table, b.start, b.count)
            snap.add(b.points, b.start, words)
            if "device_clock_ns" in b.points and "device_clock_ns" in snap.values:
                self.clock_sample(link.tx_ns, rx, int(snap.values["device_clock_ns"]))  # one more round trip
        return snap

    async def poll(self) -> None:
        snap = await self._read_status(self.poller)
        out: list = []
        resolve: list[tuple[simpy.Event, Any]] = []
        bad: str | None = None
        try:
            await self._track(snap, out, resolve)
        except BadValue as exc:
            bad = str(exc)
        except WireError:
            raise  # the base records it and reconnects; what was seen so far is delivered below
        except Exception as exc:  # a bug here must not stop the poller silently: record it
            bad = f"{type(exc).__name__}: {exc}"
        finally:
            events = self._events(out)
            if bad is not None and bad != self._last_bad:
                self.faults += 1
                events.append(("wire_fault", {"kind": "bad_value", "detail": bad}))
            self._last_bad = bad
            if events or resolve:
                self.env.call_soon_threadsafe(lambda: self._deliver(events, resolve))

    def _deliver(self, out: list[tuple[str, dict[str, Any]]], resolve: list[tuple[simpy.Event, Any]]) -> None:
        """In the simulation thread, in the order the poller saw things happen."""
        for kind, data in out:
            self.telemetry(self.name, kind, data)
        for ev, result in resolve:
            if not ev.triggered:
                ev.succeed(result)


class CommandedSpinAdapter(AcknowledgedCommands):
    """Commands ↔ spins and the status poll; subclasses give ``STATUS`` and ``_track``."""

    STATUS: ClassVar[tuple[str, ...]]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._blocks = self.map.read_blocks([n for n in self.STATUS if n in {p.name for p in self.map.points}])
        # What the poller has reported (I/O thread only).
        self._shown_id = 0
        self._stopped = True
        self._device_fault = False
        self._seq = 0

    def _issue(self, command: str) -> simpy.Event:
        """Send ``command`` now; the event succeeds with the spin's rest report."""
        done = self.env.event()
        self._seq = (self._seq + 1) & 0xFFFF
        self.submit(self._command(command_words(self.map, command, self._seq), done))
        return done

    async def _track(self, snap: Snapshot, out: list, resolve: list) -> None:
        raise NotImplementedError

    def _rested(self, spin_id: int, report: Any, resolve: list) -> None:
        """Spin ``spin_id`` came to rest with ``report``: resolve its command's event (or keep the
        report until the command's acknowledgement is processed); older spins whose rest the
        registers never showed are given up — their events never trigger."""
        if (ev := self._pending.pop(spin_id, None)) is not None:
            resolve.append((ev, report))
        elif spin_id > self._acked_id:  # its command's answer is still on its way
            self._unclaimed[spin_id] = report
            while len(self._unclaimed) > UNCLAIMED_MAX:
                del self._unclaimed[min(self._unclaimed)]
        for old in [i for i in self._pending if i < spin_id]:
            del self._pending[old]


