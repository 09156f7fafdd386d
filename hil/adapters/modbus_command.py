"""What the Modbus adapters of the command devices share: the bonus games' multiplier board, coin
flipper, Pachinko board and Crazy Time World wheel — each command answered by one result.

Wire (docs/wire/README.md, "Command devices"): a command is ``command``, its ``arg_*`` arguments
and ``command_seq``, written in one FC16 request (the shipped maps keep them contiguous; a vendor
map that does not gets the other registers first and ``command_seq`` last). The device executes on
a new ``command_seq`` and counts each accepted command in ``op_id``; a refused command (an exception
response) is a ``wire_fault`` and its event never triggers. The poller reads the status block each
``poll_period_s``:

* ``state``, ``op_id`` (and ``op_start_ns``, for a device whose operation starts after the command:
  the coin's launch, the puck's release, the wheel's start) — the latest accepted command;
* the result block of the last completed command: ``result_op_id``, ``result_command``,
  ``result_stop_ns`` and the device's fields. Arrays (the board's cells, the Cash Hunt
  permutation) are read after it, only their valid entries, in reads of at most 125 registers, and
  ``result_op_id`` is read again: a result replaced meanwhile is read again at the next poll.

What the poller sees becomes the telemetry the device's SimPy model emits, with device times mapped
to the rig's simulated time (``ClockMap``), in device-time order within a poll: an operation's start
event (``START_KIND``) when ``op_start_ns`` shows it — or, when the whole operation fell between two
polls, from the result's ``result_start_ns``, marked ``from_rest_report: true`` — then the result's
event, and the command's ``simpy.Event`` succeeds with the result dataclass. Each acknowledged command
is the device's next ``op_id``; a result of an op nobody here commanded is reported, resolving nothing.

Idle devices are polled slowly: while no command of ours awaits its result and the device does not
show ``busy``, the poller reads the status every ``IDLE_POLL_S`` (link health, operations nobody
here commanded), and an acknowledged command wakes it at once. A bonus device is idle most of a
round, and four of them polled every 2 ms would load a 2-core rig for nothing (each poll is a round
trip to another process) — the timing the checks judge comes from the device's clock either way.

The result block holds one result: when two operations complete between two polls only the later
is seen, and the earlier one's event never triggers (the croupier, which commands one at a time,
times out and voids the round). A value the device should never show (an enum code outside the map,
a stop before the start, more entries than an array holds) is a ``wire_fault`` of kind
``bad_value``, recorded once per distinct fault, never a crash of the poller; that result resolves
nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import simpy

from devices.contracts import payload
from hil.adapters.modbus_spin import PENDING_MAX, UNCLAIMED_MAX, AcknowledgedCommands, BadValue, Snapshot
from hil.wire.registers import MAX_READ, RegisterMap

#: Wall seconds between polls of an idle device (no command awaiting its result, not busy).
IDLE_POLL_S = 0.05


def command_writes(rmap: RegisterMap, command: str, seq: int, args: dict[str, Any]) -> list[tuple[str, int, list[int]]]:
    """The holding-register writes of one command: ``command``, every ``arg_*`` point of the map
    (``args`` by name; the others their neutral value — lowest enum code, or 0) and ``command_seq``,
    as few contiguous requests as the map allows, the one with ``command_seq`` last (the device acts
    on its change). ``ValueError`` for an argument the map cannot carry (unknown name, a label it
    has no code for, a number that does not fit)."""
    arg_points = [p for p in rmap.points if p.name.startswith("arg_")]
    if unknown := sorted(set(args) - {p.name for p in arg_points}):
        raise ValueError(f"{rmap.name}: no argument point(s) {unknown}")
    words: dict[int, int] = {}
    c, s = rmap.point("command"), rmap.point("command_seq")
    for p, value in [(c, command), *((p, args[p.name]) for p in arg_points if p.name in args)]:
        words.update(enumerate(rmap.encode(p, value), start=p.address))
    for p in arg_points:
        if p.name not in args:
            neutral = rmap.encode(p, p.enum[min(p.enum)]) if p.enum else [0] * p.span
            words.update(enumerate(neutral, start=p.address))
    seq_words = rmap.encode(s, seq)
    words.update(enumerate(seq_words, start=s.address))
    runs: list[tuple[int, list[int]]] = []
    for address in sorted(words):
        if runs and runs[-1][0] + len(runs[-1][1]) == address and len(runs[-1][1]) < 123:
            runs[-1][1].append(words[address])
        else:
            runs.append((address, [words[address]]))
    last = next(i for i, (a, w) in enumerate(runs) if a <= s.address < a + len(w))
    runs.append(runs.pop(last))
    return [("holding", a, w) for a, w in runs]


class CommandedOpAdapter(AcknowledgedCommands):
    """Commands ↔ results over a command device's map; subclasses give ``STATUS`` (points polled),
    ``DECLARATION`` (read once), ``START_KIND``/``START_ID``, ``_info`` and ``_result``."""

    STATUS: ClassVar[tuple[str, ...]]
    DECLARATION: ClassVar[tuple[str, ...]] = ()
    #: the telemetry kind of an operation's start (None: the device reports only results)
    START_KIND: ClassVar[str | None] = None
    START_ID: ClassVar[str] = ""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = {p.name for p in self.map.points}
        self._blocks = self.map.read_blocks([n for n in self.STATUS if n in names])
        # What the poller has reported (I/O thread only).
        self._result_id = 0  # the result judged last
        self._started: set[int] = set()  # ops whose start was reported
        self._device_fault = False
        self._seq = 0
        self._busy = False  # the device showed ``busy`` at the last poll
        self._seen_op = 0  # ``op_id`` at the last poll
        self._wake = asyncio.Event()  # set by an acknowledged command: poll now
        try:
            status, seq, declared = self.io.run(self._read_baseline(), timeout_s=10)
            self._seq = int(seq)
            self._acked_id = self._seen_op = op = int(status["op_id"])
            self._result_id = int(status["result_op_id"])
            self._busy = status["state"] == "busy"
            if self.START_KIND and op and (status["state"] != "busy" or int(status["op_start_ns"])):
                self._started.add(op)  # started before we connected: not ours to report
            info = self.start()
        except BaseException:
            self.close()
            raise
        self.telemetry(self.name, "device_info", {**self._info(declared), **info})

    async def _read_baseline(self) -> tuple[Snapshot, int, dict[str, Any]]:
        await self.cmd.connect()
        status = await self._read_status(self.cmd)
        s = self.map.point("command_seq")
        words, _ = await self.cmd.read(s.table, s.address, s.span)
        declared: dict[str, Any] = {}
        for b in self.map.read_blocks(self.DECLARATION) if self.DECLARATION else []:
            words_b, _ = await self.cmd.read(b.table, b.start, b.count)
            declared |= self.map.decode_block(b, words_b)
        return status, self.map.decode(s, words), declared

    # ----------------------------------------------------------- subclasses
    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        """The ``device_info`` fields the SimPy model declares."""
        raise NotImplementedError

    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        """The result of ``op_id`` in ``snap`` as (telemetry kind, result dataclass); may read
        arrays with ``_read_elements`` (then None if the result was replaced meanwhile)."""
        raise NotImplementedError

    def _start(self, snap: Snapshot, op_id: int, start_ns: int, current: bool) -> dict[str, Any]:
        """The start event's payload; ``current``: from the ``op_*`` points, else from ``result_*``."""
        return {self.START_ID: op_id, "device_time_s": self.clock.to_sim(start_ns)}

    # ----------------------------------------------------------- simulation thread
    def _issue(self, command: str, **args: Any) -> simpy.Event:
        """Send ``command`` with ``args`` now; the event succeeds with its result. ValueError (at
        once, as the SimPy model would) for arguments the map cannot carry."""
        seq = (self._seq + 1) & 0xFFFF
        writes = command_writes(self.map, command, seq, args)
        self._seq = seq
        done = self.env.event()
        self.submit(self._command(writes, done))
        return done

    # ----------------------------------------------------------- I/O thread
    def _acknowledged(self, op: int) -> None:
        self._wake.set()  # poll now: the result is on its way

    async def _read_elements(self, name: str, n: int) -> list[Any]:
        """The first ``n`` elements of array point ``name``, in reads of at most 125 registers."""
        p = self.map.point(name)
        if not 0 <= n <= p.count:
            raise BadValue(f"{name}: {n} entries, the array holds {p.count}")
        width = self.map.width(p)
        one = p.model_copy(update={"count": 1})
        per_read = MAX_READ["registers"] // width
        out: list[Any] = []
        for first in range(0, n, per_read):
            k = min(per_read, n - first)
            words, _ = await self.poller.read(p.table, p.address + first * width, k * width)
            for i in range(k):
                try:
                    out.append(self.map.decode(one, words[i * width:(i + 1) * width]))
                except ValueError as exc:
                    raise BadValue(f"{name}[{first + i}]: {exc}") from None
        return out

    async def _still_shown(self, op_id: int) -> bool:
        """After reading a result's arrays: does the result block still hold ``op_id``?"""
        p = self.map.point("result_op_id")
        words, _ = await self.poller.read(p.table, p.address, p.span)
        return int(self.map.decode(p, words)) == op_id

    def _active(self) -> bool:
        """A command of ours awaits its result, or the device is busy: poll every period."""
        return bool(self._in_flight or self._busy or any(op > self._seen_op for op in self._pending)
                    or (self._pending and self._result_id < max(self._pending)))

    async def poll(self) -> None:
        if not self._active():
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), IDLE_POLL_S)
            except TimeoutError:
                pass
        await super().poll()

    def _events(self, out: list) -> list[tuple[str, dict[str, Any]]]:
        """``out`` holds (device time, kind, payload): delivered in device-time order."""
        return [(kind, data) for _, kind, data in sorted(out, key=lambda e: e[0])]

    async def _track(self, snap: Snapshot, out: list, resolve: list) -> None:
        state, op, result_id = snap["state"], int(snap["op_id"]), int(snap["result_op_id"])
        self._busy, self._seen_op = state == "busy", op
        if state == "fault":
            if not self._device_fault:
                out.append((float("-inf"), "wire_fault", {"kind": "device_fault",
                                                          "detail": f"the device reports state fault (op {op})"}))
            self._device_fault = True
        else:
            self._device_fault = False
        if op > self._acked_id and not self._in_flight:
            self._acked_id = op  # an op we did not command (or whose answer was lost)
        if self.START_KIND and op and op != result_id and op not in self._started:
            start_ns = int(snap["op_start_ns"])
            if start_ns:
                self._report_start(out, self._start(snap, op, start_ns, current=True), op)
        if result_id == self._result_id or result_id == 0:
            return
        try:
            got = await self._result(snap, result_id)
        except BadValue:
            self._result_id = result_id  # judged once: a bad result resolves nothing
            raise
        if got is None:
            return  # replaced while its arrays were read: the next poll reads the new one
        self._result_id = result_id  # whatever the result holds, it is judged once
        kind, result = got
        stop_s = self.clock.to_sim(int(snap["result_stop_ns"]))
        if self.START_KIND and result_id not in self._started:
            start = self._start(snap, result_id, int(snap["result_start_ns"]), current=False)
            self._report_start(out, {**start, "from_rest_report": True}, result_id)
        out.append((stop_s, kind, payload(result)))
        if (ev := self._pending.pop(result_id, None)) is not None:
            resolve.append((ev, result))
        elif result_id > self._acked_id:  # its command's answer is still on its way
            self._unclaimed[result_id] = result
            while len(self._unclaimed) > UNCLAIMED_MAX:
                del self._unclaimed[min(self._unclaimed)]

    def _report_start(self, out: list, data: dict[str, Any], op: int) -> None:
        self._started.add(op)
        if len(self._started) > PENDING_MAX:
            self._started = {i for i in self._started if i > op - PENDING_MAX}
        out.append((data["device_time_s"], self.START_KIND, data))

    def _times(self, snap: Snapshot, what: str, op_id: int) -> tuple[float, float]:
        """``result_start_ns`` and ``result_stop_ns`` in simulated time; a stop before the start is bad."""
        start_ns, stop_ns = int(snap["result_start_ns"]), int(snap["result_stop_ns"])
        if stop_ns < start_ns:
            raise BadValue(f"{what} {op_id} stopped (result_stop_ns {stop_ns}) before it started ({start_ns})")
        return self.clock.to_sim(start_ns), self.clock.to_sim(stop_ns)
