"""The wagering device over Modbus (implements ``devices.contracts.WageringDevice``).

Commands: ``open_betting`` is the dealer's next round: one FC16 write of a new ``round_open_seq``
with the device's supervisor key (``round_open_key``; the key comes from the device URL's
``?supervisor_key=``, docs/wire/modbus-wagering.md, "The supervisor key", and is never recorded);
``lock_out`` writes coil ``lockout``
(the dealer's button), brackets it between the request leaving and the answer arriving
(``command_lo_s`` / ``command_hi_s``) and reads back ``lockout_command_ns``, which the device
latched before answering. Answers come from the press log the poller reads whenever
``press_count`` moved: every answered press — a player's at the seat buttons, the rig's actuator's,
or injected — becomes a ``press`` telemetry event with the device's own timestamps and goes to
every ``watch`` callback (docs/wire/modbus-wagering.md, "Poll"). ``press`` and ``arm_probe`` are
the optional injection feature (the map's ``injection`` points): an injected press resolves with
the oldest answer of the same seat, spot and stake. A map without them loads; the rig then presses
through its actuator (docs/wire/actuator.md).
"""

from __future__ import annotations

from collections import deque

import simpy

from collections.abc import Callable

from devices.contracts import PressAnswer
from hil.adapters.modbus_base import ModbusAdapterBase
from hil.wire.registers import INJECTION, STAKE_LIMITS, RegisterMap, known_points
from hil.wire.supervisor import LOCKED_EXCEPTION, QUERY, WRONG_KEY_EXCEPTION, key_words, split_key

#: the seats' button stakes (docs/wire/actuator.md), read at connect where the map has them
BUTTON_STAKES = "seat_button_stake_cents"


def command_block(rmap: RegisterMap, values: dict[str, object]) -> tuple[str, int, list[int]]:
    """One FC16 request writing every point of ``values`` (a command, its arguments, its key):
    (table, first address, words). ValueError when the map does not lay them out back to back."""
    points = sorted((rmap.point(n) for n in values), key=lambda p: p.address)
    words: list[int] = []
    for a, b in zip(points, points[1:]):
        if a.end != b.address or a.table != b.table:
            raise ValueError(f"{rmap.name}: {', '.join(p.name for p in points)} must be contiguous holding registers "
                             f"(one request carries a command with its key): {a.name} ends at {a.end - 1}, "
                             f"{b.name} starts at {b.address}")
    for p in points:
        words += rmap.encode(p, values[p.name])
    return points[0].table, points[0].address, words


def refusal_detail(exc_detail: str, command: str) -> str:
    """A keyed command's exception response, named (docs/wire/modbus-wagering.md, "The supervisor key")."""
    if f"exception_code={WRONG_KEY_EXCEPTION})" in exc_detail:
        return f"{command}: the device refused the supervisor key ({exc_detail}); is the bench's url's {QUERY} the device's?"
    if f"exception_code={LOCKED_EXCEPTION})" in exc_detail:
        return f"{command}: the device's supervisor key is locked after wrong keys ({exc_detail})"
    return f"{command}: {exc_detail}"


class ModbusWageringDevice(ModbusAdapterBase):
    def __init__(self, env, io, url: str, *args, **kwargs) -> None:
        url, self._key = split_key(url)
        if self._key is None:
            raise ValueError(f"{url}: the device's commands that open a round (and a progressive system's meter "
                             f"writes) need its supervisor key: give it in the url as ?{QUERY}=<32 hex digits> "
                             "(a firmware stub prints it on its READY line; docs/wire/modbus-wagering.md)")
        super().__init__(env, io, url, *args, **kwargs)
        self._round_seq = 0
        self._inject_seq = 0
        self._arm_seq = 0
        self._pending: deque[tuple[tuple[int, str, int], simpy.Event]] = deque()
        self._lost = 0
        self._watchers: list[Callable[[PressAnswer], None]] = []
        #: the injection feature (``press``, ``arm_probe``): only where the map has its points
        self.injection = INJECTION in self.map.features
        self.log_size = self.map.point("press_log_id").count
        self._seen_presses = int(self.io.run(self._connect_and_read("press_count"), timeout_s=10))
        info = self.start()
        seats = self.io.run(self._read("seats"), timeout_s=5)
        self.seats = int(seats)
        self.button_stakes = self.read_button_stakes()
        self.stake_limits = self.read_stake_limits()
        self._round_seq = int(self.io.run(self._read("round_open_seq"), timeout_s=5))
        self.telemetry(self.name, "device_info", {"seats": seats, **self.button_stakes, **self.stake_limits, **info})

    def read_stake_limits(self) -> dict:
        """``{"stake_limits_cents": [min, max]}`` where the map declares the table's limits; else nothing."""
        if STAKE_LIMITS not in self.map.features:
            return {}
        lo, hi = (int(self.io.run(self._read(n), timeout_s=5)) for n in ("stake_min_cents", "stake_max_cents"))
        return {"stake_limits_cents": [lo, hi]}

    async def keyed(self, command: str, values: dict[str, object], key_point: str) -> None:
        """One keyed command (I/O thread): ``values`` and the key in one FC16 request; an exception
        response is a ``wire_fault`` that says what the device refused."""
        from hil.transport.modbus import WireError

        table, address, words = command_block(self.map, {**values, key_point: key_words(self._key)})
        try:
            await self.cmd.write(table, address, words)
        except WireError as exc:
            if exc.kind == "exception_response":
                raise WireError(exc.kind, refusal_detail(exc.detail, command)) from None
            raise

    def read_button_stakes(self) -> dict:
        """``{"button_stake_cents": [...]}`` for the device's seats, where its map has the point
        (docs/wire/actuator.md, "The physical button and its stake"); else nothing."""
        if not (self.map.has(BUTTON_STAKES) and BUTTON_STAKES in known_points(self.map.device)):
            return {}
        stakes = self.io.run(self._read(BUTTON_STAKES), timeout_s=5)
        return {"button_stake_cents": [int(v) for v in list(stakes)[:self.seats]]}

    def watch(self, callback: Callable[[PressAnswer], None]) -> None:
        self._watchers.append(callback)

    def _no_injection(self, what: str) -> None:
        if not self.injection:
            raise ValueError(f"{self.name}: the device's register map has no {what} (the optional injection "
                             "feature): press its buttons through the bench's actuator (docs/wire/actuator.md)")

    async def _connect_and_read(self, name: str):
        await self.cmd.connect()
        return await self._read(name)

    async def _read(self, name: str):
        p = self.map.point(name)
        words, _ = await self.cmd.read(p.table, p.address, p.span)
        return self.map.decode(p, words)

    def _sim(self, device_ns: int) -> float:
        return self.clock.to_sim(device_ns)

    # ----------------------------------------------------------- Protocol
    def open_betting(self) -> None:
        now = self.env.now
        self.telemetry(self.name, "betting_open", {"device_time_s": now})
        self._round_seq = (self._round_seq + 1) & 0xFFFF or 1
        self.submit(self.keyed("round_open", {"round_open_seq": self._round_seq}, "round_open_key"))

    def lock_out(self) -> None:
        p, t = self.map.point("lockout"), self.map.point("lockout_command_ns")

        async def go() -> None:
            import time

            t0 = time.perf_counter_ns()
            rx = await self.cmd.write(p.table, p.address, [True])
            lo, hi = self.env.wall_to_sim(min(t0, self.cmd.tx_ns or t0)), self.env.wall_to_sim(rx)
            words, _ = await self.cmd.read(t.table, t.address, t.span)
            ns = int(self.map.decode(t, words))
            if ns == 0:
                self.fault("bad_value", "lockout_command_ns reads 0 after the lock-out write was answered "
                           "(it must be latched before the answer)")
                return
            at = self._sim(ns)
            self.env.call_soon_threadsafe(
                lambda: self.telemetry(self.name, "lockout_command", {"device_time_s": at, "command_lo_s": lo,
                                                                      "command_hi_s": hi}))

        self.submit(go())

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
        self._no_injection("press injection (press_inject_*)")
        ev = self.env.event()
        self._inject_seq = (self._inject_seq + 1) & 0xFFFF
        self._pending.append(((seat, spot, stake_cents), ev))
        words: list[int] = []
        for name, value in (("press_inject_seat", seat), ("press_inject_spot", spot),
                            ("press_inject_stake_cents", stake_cents), ("press_inject_seq", self._inject_seq)):
            words += self.map.encode(name, value)
        first = self.map.point("press_inject_seat")
        self.submit(self.cmd.write(first.table, first.address, words))
        return ev

    def arm_probe(self, seat: int, spot: str, stake_cents: int, offsets_s) -> list[simpy.Event]:
        self._no_injection("armed probe (probe_*)")
        offsets_us = [round(o * 1e6) for o in offsets_s]
        size = self.map.point("probe_offsets_us").count
        if len(offsets_us) > size or min(offsets_us, default=0) < 0:
            raise ValueError(f"at most {size} probe offsets, each >= 0 (got {len(offsets_us)})")
        events = [self.env.event() for _ in offsets_us]
        self._pending.extend(((seat, spot, stake_cents), ev) for ev in events)
        self._arm_seq = (self._arm_seq + 1) & 0xFFFF
        words: list[int] = []
        for name, value in (("probe_seat", seat), ("probe_spot", spot), ("probe_stake_cents", stake_cents),
                            ("probe_count", len(offsets_us)),
                            ("probe_offsets_us", offsets_us + [0] * (size - len(offsets_us))),
                            ("probe_arm_seq", self._arm_seq)):
            words += self.map.encode(name, value)
        first = self.map.point("probe_seat")
        self.submit(self.cmd.write(first.table, first.address, words))
        return events

    # ----------------------------------------------------------- polling (I/O thread)
    async def poll(self) -> None:
        p = self.map.point("press_count")
        words, _ = await self.poller.read(p.table, p.address, p.span)
        count = int(self.map.decode(p, words))
        if count == self._seen_presses:
            return
        new = count - self._seen_presses
        if new > self.log_size:
            self._lost += new - self.log_size
            self.fault("press_log_overrun", f"{new - self.log_size} press answer(s) lost between two polls")
        blocks = self.map.read_blocks([pt.name for pt in self.map.points if pt.name.startswith("press_log_")])
        log: dict = {}
        for b in blocks:
            words, _ = await self.poller.read(b.table, b.start, b.count)
            log.update(self.map.decode_block(b, words))
        wanted = range(max(self._seen_presses + 1, count - self.log_size + 1), count + 1)
        await self._drop_torn(self.poller, log, "press_log_id", wanted, len(blocks), "press answer")
        answers = []
        for press_id in wanted:
            i = (press_id - 1) % self.log_size
            if log["press_log_id"][i] != press_id:
                continue  # overwritten meanwhile: counted as lost above, or read next poll
            reason = log["press_log_reason"][i]
            answers.append(PressAnswer(
                press_id=press_id, seat=int(log["press_log_seat"][i]), spot=str(log["press_log_spot"][i]),
                stake_cents=int(log["press_log_stake_cents"][i]),
                accepted=log["press_log_status"][i] == "accepted",
                device_time_s=self._sim(int(log["press_log_press_ns"][i])),
                answer_time_s=self._sim(int(log["press_log_answer_ns"][i])),
                reason=None if reason == "none" else str(reason)))
        self._seen_presses = count
        if answers:
            self.env.call_soon_threadsafe(lambda: self._deliver(answers))

    async def _drop_torn(self, link, log: dict, id_point: str, wanted, blocks: int, what: str) -> None:
        """A log read in several requests (``blocks``): an entry overwritten while they ran (a burst of
        entries a whole log long, e.g. the late-bet adversary's flood) would mix two entries' fields.
        ``id_point`` is read again after the other blocks: an entry of ``wanted`` whose id changed is
        lost (a recorded ``press_log_overrun`` / ``wager_log_overrun``), never read torn — its id in
        ``log`` is cleared so the caller skips it."""
        if blocks < 2:
            return
        p = self.map.point(id_point)
        words, _ = await link.read(p.table, p.address, p.span)
        again, ids = list(self.map.decode(p, words)), list(log[id_point])
        size = len(ids)
        torn = [n for n in wanted if ids[(n - 1) % size] == n and again[(n - 1) % size] != n]
        if not torn:
            return
        for n in torn:
            ids[(n - 1) % size] = -1
        log[id_point] = ids
        self._lost += len(torn)
        kind = "press_log_overrun" if id_point.startswith("press_log") else "wager_log_overrun"
        now = ", ".join(f"{n} -> {again[(n - 1) % size]}" for n in torn[:4])
        self.fault(kind, f"{len(torn)} {what}(s) overwritten while the log was read (ids {torn[0]}..{torn[-1]}; "
                   f"id read again: {now}): lost, not read torn")

    def _deliver(self, answers: list[PressAnswer]) -> None:
        """In the simulation thread: record each answer and resolve its injected press."""
        for a in answers:
            self.telemetry(self.name, "press", dict(vars(a)))
            for watcher in self._watchers:
                watcher(a)
            key = (a.seat, a.spot, a.stake_cents)
            for i, (k, ev) in enumerate(self._pending):
                if k == key:
                    del self._pending[i]
                    ev.succeed(a)
                    break
