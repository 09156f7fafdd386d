"""The wagering device over the serial frames (implements ``devices.contracts.WageringDevice``).

Commands: ``open_betting`` → ``OPEN_BETTING`` with the device's supervisor key (``key_0`` …
``key_15``; the key comes from the device URL's ``?supervisor_key=``, which is taken off before
pyserial opens it, and is never recorded), ``lock_out`` → ``LOCK_OUT`` (the dealer's button),
``press`` → ``PRESS`` (the rig's actuator), ``arm_probe`` → ``ARM_PROBE`` (the actuator presses at
device-timed offsets after the next lock-out reached the device). Events: ``BETTING_OPEN``,
``LOCKOUT_COMMAND`` and every ``PRESS_ANSWER`` — injected or pressed by a player — become the
model's ``betting_open``, ``lockout_command`` and ``press`` telemetry with the device's own
timestamps; an answer resolves the oldest outstanding injected press with the same seat, spot and
stake. A refused command (NAK) leaves its presses unanswered and is a ``wire_fault``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import simpy

from devices.contracts import PressAnswer
from hil.adapters.serial_base import SerialAdapterBase
from hil.wire.frames import PROBE_SLOTS, Frame
from hil.wire.supervisor import QUERY, key_fields, split_key


class SerialWageringDevice(SerialAdapterBase):
    device_kind = "wagering"
    declaration = "WAGERING_INFO"
    #: ``PRESS`` / ``ARM_PROBE`` (the frames' injection feature); with an actuator in the bench the
    #: croupier never sends them, so a device that refuses them still works (docs/wire/actuator.md)
    injection = True

    def __init__(self, env, io, url: str, telemetry, name: str = "wagering", timeout_s: float = 0.5,
                 **kwargs) -> None:
        url, self._key = split_key(url)
        if self._key is None:
            raise ValueError(f"{url}: OPEN_BETTING needs the device's supervisor key: give it in the url as "
                             f"?{QUERY}=<32 hex digits> (a firmware stub prints it on its READY line; "
                             "docs/wire/serial-frames.md)")
        super().__init__(env, io, url, telemetry, name, timeout_s, **kwargs)
        self._watchers: list = []
        #: the latest OPEN_BETTING marker events (``open_betting``), kept alive so each is itself
        self._opening: deque[simpy.Event] = deque(maxlen=16)
        info = self.start()
        d = self.declared.fields
        self.seats = int(d["seats"])
        telemetry(name, "device_info", {"seats": self.seats,
                                        "stake_limits_cents": [int(d["min_stake_cents"]), int(d["max_stake_cents"])],
                                        **info})

    # ----------------------------------------------------------- Protocol
    def open_betting(self) -> None:
        opened = self.env.event()  # never triggered: it only marks a refused OPEN_BETTING (``_drop``)
        self._opening.append(opened)
        self.command("OPEN_BETTING", [opened], **key_fields(self._key))

    def _drop(self, events) -> None:
        if any(e is m for e in events for m in self._opening):
            self.fault("command_refused", f"OPEN_BETTING was refused by the device (ACK not ok): is the url's "
                                          f"{QUERY} the device's? (docs/wire/serial-frames.md)")
        super()._drop(events)

    def lock_out(self) -> None:
        self.command("LOCK_OUT")

    def press(self, seat: int, spot: str, stake_cents: int) -> simpy.Event:
        ev = self.env.event()
        self.command("PRESS", [ev], seat=seat, spot=spot, stake_cents=stake_cents)
        self.expect((seat, spot, stake_cents), ev)
        return ev

    def arm_probe(self, seat: int, spot: str, stake_cents: int, offsets_s: Sequence[float]) -> list[simpy.Event]:
        offsets_us = [round(o * 1e6) for o in offsets_s]
        if len(offsets_us) > PROBE_SLOTS or min(offsets_us, default=0) < 0:
            raise ValueError(f"at most {PROBE_SLOTS} probe offsets, each >= 0 (got {list(offsets_s)})")
        slots = {f"offset_us_{i}": (offsets_us[i] if i < len(offsets_us) else 0) for i in range(PROBE_SLOTS)}
        events = [self.env.event() for _ in offsets_us]
        self.command("ARM_PROBE", events, seat=seat, spot=spot, stake_cents=stake_cents, count=len(offsets_us),
                     **slots)
        for ev in events:
            self.expect((seat, spot, stake_cents), ev)
        return events

    # ----------------------------------------------------------- events (reader thread)
    def on_event(self, f: Frame) -> None:
        v = f.fields
        if f.msg_type == "BETTING_OPEN":
            self.emit("betting_open", {"device_time_s": self.to_sim(v["t_ns"])})
        elif f.msg_type == "LOCKOUT_COMMAND":
            self.emit("lockout_command", {"device_time_s": self.to_sim(v["t_ns"])})
        elif f.msg_type == "PRESS_ANSWER":
            a = PressAnswer(press_id=v["press_id"], seat=v["seat"], spot=v["spot"], stake_cents=v["stake_cents"],
                            accepted=v["accepted"], device_time_s=self.to_sim(v["press_ns"]),
                            answer_time_s=self.to_sim(v["answer_ns"]),
                            reason=None if v["reason"] == "none" else v["reason"])
            self.post(lambda: self._deliver(a))
        else:
            super().on_event(f)

    def watch(self, callback) -> None:
        """Every ``PRESS_ANSWER`` from now on, whoever pressed, goes to ``callback``."""
        self._watchers.append(callback)

    def _deliver(self, a: PressAnswer) -> None:
        self.telemetry(self.name, "press", dict(vars(a)))
        for watcher in self._watchers:
            watcher(a)
        self.resolve((a.seat, a.spot, a.stake_cents), a)
