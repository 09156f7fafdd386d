"""The wagering device over Modbus (implements ``devices.contracts.WageringDevice``).

Commands: ``open_betting`` writes coil ``betting_open``; ``lock_out`` writes coil ``lockout``
(the dealer's button) and reads back ``lockout_command_ns``, when the device saw it; ``press``
writes the press-injection block (the rig's actuator). Answers come from the press log the
poller reads whenever ``press_count`` moved: every answered press — injected or pressed by a
player — becomes a ``press`` telemetry event with the device's own timestamps, and resolves the
oldest outstanding injected press with the same seat, spot and stake.
"""

from __future__ import annotations

from collections import deque

import simpy

from devices.contracts import PressAnswer
from hil.adapters.modbus_base import ModbusAdapterBase


class ModbusWageringDevice(ModbusAdapterBase):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._inject_seq = 0
        self._arm_seq = 0
        self._pending: deque[tuple[tuple[int, str, int], simpy.Event]] = deque()
        self._lost = 0
        self.log_size = self.map.point("press_log_id").count
        self._seen_presses = int(self.io.run(self._connect_and_read("press_count"), timeout_s=10))
        info = self.start()
        seats = self.io.run(self._read("seats"), timeout_s=5)
        self.telemetry(self.name, "device_info", {"seats": seats, **info})

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
        p = self.map.point("betting_open")
        self.submit(self.cmd.write(p.table, p.address, [True]))

    def lock_out(self) -> None:
        p, t = self.map.point("lockout"), self.map.point("lockout_command_ns")

        async def go() -> None:
            await self.cmd.write(p.table, p.address, [True])
            words, _ = await self.cmd.read(t.table, t.address, t.span)
            at = self._sim(int(self.map.decode(t, words)))
            self.env.call_soon_threadsafe(
                lambda: self.telemetry(self.name, "lockout_command", {"device_time_s": at}))

        self.submit(go())

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
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

    def _deliver(self, answers: list[PressAnswer]) -> None:
        """In the simulation thread: record each answer and resolve its injected press."""
        for a in answers:
            self.telemetry(self.name, "press", dict(vars(a)))
            key = (a.seat, a.spot, a.stake_cents)
            for i, (k, ev) in enumerate(self._pending):
                if k == key:
                    del self._pending[i]
                    ev.succeed(a)
                    break
