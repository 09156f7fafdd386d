"""The progressive table game system over Modbus (implements ``devices.contracts.ProgressiveSystem``;
docs/wire/modbus-progressive-system.md).

The wagering part is ``ModbusWageringDevice``'s: ``open_betting``, ``lock_out`` and the optional
injection feature (``press``, ``arm_probe``) write the same points at the same addresses, and every
answered press comes from the press log, to every ``watch`` callback (a map without the injection
points loads: the rig then presses through its actuator). Added here:

* ``light_win`` writes the keyed win-light command (``win_light_seat``/``win_light_on``/a new
  ``win_light_seq`` with ``win_light_key``, one FC16 request), then reads ``win_light_ns``: a light
  that changed has a new time there and becomes a ``win_light`` event (a light already so changes
  nothing, as in the model);
* ``meters`` reads ``meter_value_cents`` with ``link_state`` and ``device_clock_ns`` in one read;
* ``pay_meter`` writes ``pay_meter``/``pay_percent``/``pay_winners``/``pay_seq`` with ``pay_key``
  (the supervisor key) in one FC16 request; the result block, read with the status, resolves it (a refused payout is a
  ``wire_fault`` and its event never triggers);
* ``confirm_wagers`` writes ``confirm_count``/``confirm_press_ids``/``confirm_final``/``confirm_seq``
  with ``confirm_key`` in one FC16 request per batch of at most ``confirm_press_ids``' count ids (the last batch
  ``final``); it resolves once the wager log holds an entry (``confirmed`` or ``refused``) for every
  id asked — a confirmation of no ids once its write is answered — with the ids whose entries say
  they incremented a meter.

The poller reads the status block (input 1..124 in the shipped map) every ``poll_period_s``:
``press_count`` moved → the press log (``press``); ``wager_count`` moved → the wager log (a
confirmed entry: one ``meter_increment`` per incremented meter; ``press_void``; ``confirm_refused``
— as the model reports them); ``pay_count``
moved → ``meter_hit``; the link and power-loss counters moved → ``link_lost``, ``link_restored``
(with the meters re-read from the controller), ``power_loss``. Events of one poll are delivered in
device-time order. The meters' names, seeds and exact rates are read once, for ``device_info``.
"""

from __future__ import annotations

from collections import Counter, deque
from fractions import Fraction
from typing import Any

import simpy

from devices.contracts import MeterPayout, MeterReading, PressAnswer, Telemetry
from hil.adapters.modbus_wagering import ModbusWageringDevice
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import RegisterMap, words_ascii

#: what the poller reads every period (the shipped map: one read of input 0..123)
STATUS = ("press_count", "link_state", "link_lost_count", "link_restored_count", "link_lost_ns", "link_restored_ns",
          "power_loss_count", "power_loss_ns", "link_restored_meter_cents", "pay_count", "pay_result_meter",
          "pay_result_percent", "pay_result_winners", "pay_result_jackpot_cents", "pay_result_paid_cents",
          "pay_result_remainder_cents", "pay_result_reseed_cents", "pay_result_value_cents",
          "pay_result_reserve_cents", "pay_result_ns", "wager_count")
DECLARATION = ("seats", "meter_count", "meter_names", "meter_seed_cents", "meter_reseed_cents", "meter_increment_num",
               "meter_increment_den", "meter_reserve_num", "meter_reserve_den", "linked", "link_id",
               "meter_reseed_source")


def _mute(_device: str, _kind: str, _payload: dict[str, Any]) -> None:
    """ModbusWageringDevice announces a wagering device; this adapter announces the progressive system."""


class ModbusProgressiveSystem(ModbusWageringDevice):
    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, unit: int, rmap: RegisterMap,
                 telemetry: Telemetry, name: str = "progressive", timeout_s: float = 0.5,
                 poll_period_s: float = 0.002) -> None:
        self._ready = False  # the poller waits for the declaration and the counters (below)
        self._pending_pays: deque[tuple[tuple[str, int, int], simpy.Event]] = deque()
        self._pay_seq = 0
        self._confirm_seq = 0
        #: outstanding confirmations, oldest first: [the ids asked, entries still awaited per id, its event]
        self._confirming: deque[tuple[tuple[int, ...], Counter[int], simpy.Event]] = deque()
        self._incremented: set[int] = set()  # ids of the oldest outstanding confirmation that incremented
        self._wager_id = 0  # the latest wager-log entry id seen (wager_count is its low 16 bits)
        super().__init__(env, io, url, unit, rmap, _mute, name, timeout_s, poll_period_s)
        self.telemetry = telemetry
        self._status_blocks = self.map.read_blocks(STATUS)
        decl, status, lights, seq, confirm_seq, wager_ids = self.io.run(self._read_initial(), timeout_s=5)
        n = decl["meter_count"]
        per_name = self.map.point("meter_names").count // self.map.point("meter_value_cents").count
        self.names = tuple(words_ascii(decl["meter_names"][i * per_name:(i + 1) * per_name]) for i in range(n))
        self.seats = decl["seats"]
        self._light_ns = list(lights)
        self._pay_seq, self._confirm_seq = seq, confirm_seq
        self._seen = {k: status[k] for k in ("pay_count", "link_lost_count", "link_restored_count", "power_loss_count",
                                             "wager_count")}
        self._wager_id = max(wager_ids, default=0)  # the newest entry the device holds (wager_count wraps)
        self.wager_log_size = self.map.point("wager_log_id").count
        self.confirm_size = self.map.point("confirm_press_ids").count
        meters = [{"name": self.names[i], "seed_cents": decl["meter_seed_cents"][i],
                   "reseed_cents": decl["meter_reseed_cents"][i],
                   "increment_rate": str(Fraction(decl["meter_increment_num"][i], decl["meter_increment_den"][i])),
                   "reserve_rate": str(Fraction(decl["meter_reserve_num"][i], decl["meter_reserve_den"][i])),
                   "reseed_from_reserve": decl["meter_reseed_source"][i] == "reserve"}
                  for i in range(n)]
        link_id = words_ascii(decl["link_id"]) or None
        self.telemetry(self.name, "device_info", {
            "seats": self.seats, **self.button_stakes, **self.stake_limits, "meters": meters, "linked": decl["linked"] == "linked",
            "link_id": link_id,
            "url": self.url, "clock_offset_s": self.clock.offset_s, "clock_uncertainty_s": self.clock.uncertainty_s,
            "rtt_min_us": self.clock.rtt_min_us})
        self._ready = True

    async def _read_blocks(self, link, blocks) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for b in blocks:
            words, _ = await link.read(b.table, b.start, b.count)
            out.update(self.map.decode_block(b, words))
        return out

    async def _read_initial(self):
        decl = await self._read_blocks(self.cmd, self.map.read_blocks(DECLARATION))
        status = await self._read_blocks(self.cmd, self._status_blocks)
        rest = await self._read_blocks(self.cmd, self.map.read_blocks(["win_light_ns", "pay_seq", "confirm_seq",
                                                                        "win_light_seq", "wager_log_id"]))
        self._light_seq = int(rest["win_light_seq"])
        return decl, status, rest["win_light_ns"], rest["pay_seq"], rest["confirm_seq"], list(rest["wager_log_id"])

    # ----------------------------------------------------------- Protocol (wagering: ModbusWageringDevice)
    def light_win(self, seat: int, on: bool) -> simpy.Event:
        coil, when = self.map.point("win_light"), self.map.point("win_light_ns")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= min(self.seats, coil.count):
            raise ValueError(f"{self.name}: no seat {seat!r} (seats 1..{self.seats})")
        done = self.env.event()
        self._light_seq = (self._light_seq + 1) & 0xFFFF or 1
        command = {"win_light_seat": seat, "win_light_on": int(bool(on)), "win_light_seq": self._light_seq}

        async def go() -> None:
            await self.keyed("win_light", command, "win_light_key")
            words, _ = await self.cmd.read(when.table, when.address, when.span)
            ns = int(self.map.decode(when, words)[seat - 1])
            if ns != self._light_ns[seat - 1]:
                self._light_ns[seat - 1] = ns
                event = {"seat": seat, "on": bool(on), "device_time_s": self._sim(ns)}
                self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "win_light", event))
            # after its report: the light is confirmed (a failed write never confirms it)
            self.env.call_soon_threadsafe(lambda: done.succeed(bool(on)))

        self.submit(go())
        return done

    def meters(self) -> simpy.Event:
        ev = self.env.event()
        blocks = self.map.read_blocks(["meter_value_cents", "link_state", "device_clock_ns"])

        async def go() -> None:
            v = await self._read_blocks(self.cmd, blocks)
            reading = MeterReading(meters={name: int(v["meter_value_cents"][i]) for i, name in enumerate(self.names)},
                                   link_up=v["link_state"] == "up", device_time_s=self._sim(int(v["device_clock_ns"])))

            def deliver() -> None:
                self.telemetry(self.name, "meter_reading", dict(vars(reading)))
                ev.succeed(reading)

            self.env.call_soon_threadsafe(deliver)

        self.submit(go())
        return ev

    def pay_meter(self, meter: str, percent: int, winners: int) -> simpy.Event:
        if meter not in self.names:
            raise ValueError(f"no meter {meter!r} (meters: {', '.join(self.names)})")
        if isinstance(percent, bool) or not isinstance(percent, int) or not 1 <= percent <= 100:
            raise ValueError(f"percent must be an int 1..100, not {percent!r}")
        if isinstance(winners, bool) or not isinstance(winners, int) or winners < 1:
            raise ValueError(f"winners must be an int >= 1, not {winners!r}")
        ev = self.env.event()
        self._pending_pays.append(((meter, percent, winners), ev))
        self._pay_seq = (self._pay_seq + 1) & 0xFFFF or 1
        self.submit(self.keyed("pay", {"pay_meter": self.names.index(meter), "pay_percent": percent,
                                       "pay_winners": winners, "pay_seq": self._pay_seq}, "pay_key"))
        return ev

    def confirm_wagers(self, press_ids) -> simpy.Event:
        ids = tuple(int(i) for i in press_ids)
        if any(not 0 < i <= 0xFFFF_FFFF for i in ids):
            raise ValueError(f"press ids are 1..2**32-1, not {ids}")
        ev = self.env.event()
        size = self.confirm_size
        batches = [ids[i:i + size] for i in range(0, len(ids), size)] or [()]
        requests: list[dict[str, Any]] = []
        for k, batch in enumerate(batches):
            self._confirm_seq = (self._confirm_seq + 1) & 0xFFFF or 1
            requests.append({"confirm_count": len(batch), "confirm_press_ids": [*batch, *[0] * (size - len(batch))],
                             "confirm_final": "final" if k == len(batches) - 1 else "more",
                             "confirm_seq": self._confirm_seq})

        async def go() -> None:
            if ids:  # the poller resolves it from the wager log (the I/O thread owns _confirming)
                self._confirming.append((ids, Counter(ids), ev))
            for values in requests:  # in order, on the command link
                await self.keyed("confirm", values, "confirm_key")
            if not ids:  # nothing to await: the device voided the round's presses (the wager log says which)
                self.env.call_soon_threadsafe(lambda: ev.succeed(()))

        self.submit(go())
        return ev

    # ----------------------------------------------------------- polling (I/O thread)
    async def poll(self) -> None:
        if not self._ready:
            return
        s = await self._read_blocks(self.poller, self._status_blocks)
        events: list[tuple[float, int, str, Any]] = []  # (device time, order, kind, what)
        count = int(s["press_count"])
        if count != self._seen_presses:
            events += await self._presses(count)
        if s["wager_count"] != self._seen["wager_count"]:
            events += await self._wagers(int(s["wager_count"]))
        if s["pay_count"] != self._seen["pay_count"]:
            self._seen["pay_count"] = s["pay_count"]
            index = s["pay_result_meter"]
            if not 0 <= index < len(self.names):  # resolves nothing; the presses of this poll still count
                self.fault("bad_value", f"pay_result_meter {index}: the device has {len(self.names)} meters")
            else:
                paid = MeterPayout(pay_id=int(s["pay_count"]), meter=self.names[index],
                                   percent=int(s["pay_result_percent"]), winners=int(s["pay_result_winners"]),
                                   device_time_s=self._sim(int(s["pay_result_ns"])),
                                   **{f"{f}_cents": int(s[f"pay_result_{f}_cents"])
                                      for f in ("jackpot", "paid", "remainder", "reseed", "value", "reserve")})
                events.append((paid.device_time_s, len(events), "meter_hit", paid))
        for kind, counter, ns in (("link_lost", "link_lost_count", "link_lost_ns"),
                                  ("link_restored", "link_restored_count", "link_restored_ns"),
                                  ("power_loss", "power_loss_count", "power_loss_ns")):
            if s[counter] != self._seen[counter]:
                self._seen[counter] = s[counter]
                event: dict[str, Any] = {"device_time_s": self._sim(int(s[ns]))}
                if kind == "link_restored":
                    event["meters"] = {name: int(s["link_restored_meter_cents"][i]) for i, name in enumerate(self.names)}
                events.append((event["device_time_s"], len(events), kind, event))
        if events:
            events.sort(key=lambda e: (e[0], e[1]))
            self.env.call_soon_threadsafe(lambda: self._deliver_events(events))

    async def _presses(self, count: int) -> list[tuple[float, int, str, Any]]:
        new = count - self._seen_presses
        if new > self.log_size:
            self._lost += new - self.log_size
            self.fault("press_log_overrun", f"{new - self.log_size} press answer(s) lost between two polls")
        names = ["id", "seat", "spot", "stake_cents", "status", "reason", "press_ns", "answer_ns"]
        blocks = self.map.read_blocks([f"press_log_{n}" for n in names])
        log = await self._read_blocks(self.poller, blocks)
        wanted = range(max(self._seen_presses + 1, count - self.log_size + 1), count + 1)
        await self._drop_torn(self.poller, log, "press_log_id", wanted, len(blocks), "press answer")
        out = []
        for press_id in wanted:
            i = (press_id - 1) % self.log_size
            if log["press_log_id"][i] != press_id:
                continue  # overwritten meanwhile: counted as lost above
            reason = log["press_log_reason"][i]
            a = PressAnswer(press_id=press_id, seat=int(log["press_log_seat"][i]), spot=str(log["press_log_spot"][i]),
                            stake_cents=int(log["press_log_stake_cents"][i]),
                            accepted=log["press_log_status"][i] == "accepted",
                            device_time_s=self._sim(int(log["press_log_press_ns"][i])),
                            answer_time_s=self._sim(int(log["press_log_answer_ns"][i])),
                            reason=None if reason == "none" else str(reason))
            out.append((a.answer_time_s, press_id, "press", a))
        self._seen_presses = count
        return out

    async def _wagers(self, count: int) -> list[tuple[float, int, str, Any]]:
        """The wager log's new entries: a confirmed press's increments, a void press, a refused confirmation."""
        new = (count - int(self._seen["wager_count"])) & 0xFFFF  # wager_count is the entry id modulo 65536
        seen, size = self._wager_id, self.wager_log_size
        self._wager_id = last = seen + new
        if new > size:
            self.fault("wager_log_overrun", f"{new - size} wager-log entries lost between two polls")
        meters = range(1, len(self.names) + 1)
        names = ["id", "press_id", "outcome", "reason", "ns", "increment_mask",
                 *(f"meter{k}_{f}_cents" for k in meters for f in ("increment", "value"))]
        blocks = self.map.read_blocks([f"wager_log_{n}" for n in names])
        log = await self._read_blocks(self.poller, blocks)
        wanted = range(max(seen + 1, last - size + 1), last + 1)
        await self._drop_torn(self.poller, log, "wager_log_id", wanted, len(blocks), "wager-log entry")
        out: list[tuple[float, int, str, Any]] = []
        for entry in wanted:
            i = (entry - 1) % size
            if log["wager_log_id"][i] != entry:
                continue  # overwritten meanwhile
            pid, outcome, t = int(log["wager_log_press_id"][i]), log["wager_log_outcome"][i], \
                self._sim(int(log["wager_log_ns"][i]))
            if outcome == "confirmed":
                mask = int(log["wager_log_increment_mask"][i])
                incs = [{"press_id": pid, "meter": self.names[k - 1],
                         "amount_cents": int(log[f"wager_log_meter{k}_increment_cents"][i]),
                         "value_cents": int(log[f"wager_log_meter{k}_value_cents"][i]), "device_time_s": t}
                        for k in meters if mask >> (k - 1) & 1]
                out += [(t, 1_000_000 + 8 * entry + n, "meter_increment", inc) for n, inc in enumerate(incs)]
                out += self._answered(pid, bool(incs), entry)
            elif outcome == "void":
                out.append((t, 1_000_000 + 8 * entry, "press_void",
                            {"press_id": pid, "reason": str(log["wager_log_reason"][i]), "device_time_s": t}))
            elif outcome == "refused":
                out.append((t, 1_000_000 + 8 * entry, "confirm_refused", {"press_id": pid, "device_time_s": t}))
                out += self._answered(pid, False, entry)
        self._seen["wager_count"] = count
        return out

    def _answered(self, pid: int, incremented: bool, entry: int) -> list[tuple[float, int, str, Any]]:
        """A confirmed or refused entry for ``pid``: the oldest outstanding confirmation awaiting it
        counts it; one that has every id's entry resolves (after the poll's other events)."""
        if not self._confirming or self._confirming[0][1][pid] <= 0:
            return []
        ids, awaited, ev = self._confirming[0]
        awaited[pid] -= 1
        if incremented:
            self._incremented.add(pid)
        if +awaited:
            return []
        self._confirming.popleft()
        done, self._incremented = tuple(i for i in dict.fromkeys(ids) if i in self._incremented), set()
        return [(float("inf"), entry, "confirmed", (ev, done))]

    def _deliver_events(self, events: list[tuple[float, int, str, Any]]) -> None:
        """In the simulation thread: record each event; resolve the rig's presses and payouts."""
        for _t, _order, kind, what in events:
            if kind == "press":
                self._deliver([what])
            elif kind == "confirmed":
                ev, done = what
                ev.succeed(done)
            elif kind == "meter_hit":
                self.telemetry(self.name, "meter_hit", dict(vars(what)))
                key = (what.meter, what.percent, what.winners)
                for i, (k, ev) in enumerate(self._pending_pays):
                    if k == key:
                        del self._pending_pays[i]
                        ev.succeed(what)
                        break
            else:
                self.telemetry(self.name, kind, what)
