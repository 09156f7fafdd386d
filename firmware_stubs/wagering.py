"""Firmware stub of the wagering device: ``devices.wagering.WageringSim`` behind its register map.

Commands (see docs/wire/modbus-wagering.md): ``round_open_seq`` ← new value, with the device's
supervisor key in ``round_open_key`` (the same request), opens the dealer's next round (and clears
the lock-out coil) — the only way betting opens: coil ``betting_open`` is read-only (a write is
exception ILLEGAL_ADDRESS), a wrong key is ILLEGAL_FUNCTION (DEVICE_BUSY once the key is locked), and a refusal changes
nothing and is logged on stderr with the peer's address (rate-limited); coil ``lockout`` ← 1 is the dealer's lock-out button — the model
stamps its arrival and locks out after its latency (the stub's ``lockout_latency_*`` params,
the ground truth of a measurement); holding ``press_inject_seq`` ← new value presses the seat
in ``press_inject_seat`` (the rig's actuator); ``probe_arm_seq`` ← new value arms the actuator to
press at ``probe_offsets_us`` after the next lock-out command reaches the device; a stake outside
the table's limits (``stake_min_cents`` … ``stake_max_cents``) is exception ILLEGAL_VALUE for both,
and presses nothing. Every answer goes to the per-seat registers and to the press log ring. The key
registers always read 0.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pymodbus.constants import ExcCodes

import firmware_stubs.modbus as _modbus
from devices.contracts import PressAnswer
from devices.supervisor import SupervisorRefused
from devices.wagering import WageringParams, WageringSim
from firmware_stubs.modbus import ModelClock, RegisterImage
from hil.wire.registers import RegisterMap
from hil.wire.supervisor import words_key

LOG_SIZE = 16

log = logging.getLogger("firmware_stubs.supervisor")


def current_peer() -> str | None:
    """The Modbus client being served (``firmware_stubs.modbus.current_peer``), None where unknown."""
    return getattr(_modbus, "current_peer", lambda: None)()


def refusal_code(exc: SupervisorRefused) -> ExcCodes:
    """A refused guarded command's exception: a wrong (or no) key ILLEGAL_FUNCTION, a locked key DEVICE_BUSY."""
    return ExcCodes.DEVICE_BUSY if exc.reason == "locked" else ExcCodes.ILLEGAL_FUNCTION


class RefusalLogger:
    """Refused guarded commands on stderr (``SUPERVISOR …`` lines) with the peer's address: the first
    at once, then at most one line per ``interval_s`` (wall time) summing the ones in between — a
    flood of wrong keys costs a line a second, never a line per request."""

    def __init__(self, device: str, interval_s: float = 1.0) -> None:
        self.device, self.interval_s = device, interval_s
        self._last = -float("inf")
        self._held = 0
        self._peers: set[str] = set()
        self.lines: list[str] = []  # the lines written (the last 100; tests read them)

    def refused(self, command: str, reason: str, peer: str | None) -> None:
        now = time.monotonic()
        who = peer or "unknown peer"
        if now - self._last < self.interval_s:
            self._held += 1
            self._peers.add(who)
            return
        more = (f" (and {self._held} more refused from {', '.join(sorted(self._peers))} since the last line)"
                if self._held else "")
        self._last, self._held, self._peers = now, 0, set()
        line = f"{self.device}: refused {command} from {who}: {reason.replace('_', ' ')}{more}"
        self.lines = [*self.lines[-99:], line]
        log.debug(line)
        print(f"SUPERVISOR {line}", file=sys.stderr, flush=True)


#: the key points of the keyed commands a map may carry (each always reads 0)
KEY_POINTS = ("round_open_key", "pay_key", "confirm_key", "win_light_key")


class WageringGlue:
    def __init__(self, clock: ModelClock, params: WageringParams, rng: np.random.Generator, rmap: RegisterMap,
                 truth_sink: Callable[[dict[str, float]], None] | None = None, supervisor_key: bytes | None = None,
                 refusal_log: RefusalLogger | None = None) -> None:
        self.clock = clock
        self.refusal_log = refusal_log or RefusalLogger("wagering")
        self.seats_in_map = rmap.point("seat_press_count").count
        self.log_size = rmap.point("press_log_id").count
        self.lockout_ns = 0
        self.betting_open = False
        self.answers: list[PressAnswer] = []  # not yet written to the image
        #: ground truth per lock-out (command time and latency, device clock) — never on the wire
        self.truth_sink = truth_sink or (lambda _t: None)
        self.model = WageringSim(clock.env, params, rng, self._telemetry, supervisor_key=supervisor_key)
        self.model.supervisor.peer = current_peer  # the wrong-key lock is per client connection

    # ------------------------------------------------------------- model → image
    def _telemetry(self, _device: str, kind: str, payload: dict[str, Any]) -> None:
        if kind == "lockout_command":
            self.lockout_ns = self.clock.ns(payload["device_time_s"])
        elif kind == "press":
            self.answers.append(PressAnswer(**payload))
        elif kind == "command_refused":
            self.refusal_log.refused(payload["command"], payload["reason"], current_peer())

    def show_supervisor(self, image: RegisterImage) -> None:
        """The key points read 0 (a key written with a command is never kept), the refusal count,
        the stake limits (where the map has them)."""
        for name in KEY_POINTS:
            if image.map.has(name):
                image.set(name, [0] * image.map.point(name).count)
        if image.map.has("supervisor_refusals"):
            image.set("supervisor_refusals", self.model.supervisor.refusals & 0xFFFF)
        if image.map.has("stake_min_cents"):
            image.set("stake_min_cents", self.model.params.min_stake_cents)
            image.set("stake_max_cents", self.model.params.max_stake_cents)

    def guarded(self, command: Callable[[bytes], Any], image: RegisterImage, key_point: str) -> ExcCodes | None:
        """Run ``command(key)`` with the key written in ``key_point``; a refusal is its exception."""
        try:
            command(words_key(image.get(key_point)))
        except SupervisorRefused as exc:
            return refusal_code(exc)
        return None

    def stake_refused(self, stake_cents: int) -> ExcCodes | None:
        """ILLEGAL_VALUE for an injected or probe stake outside the table's limits (nothing is pressed)."""
        return ExcCodes.ILLEGAL_VALUE if self.model.stake_deviation(stake_cents) is not None else None

    def open_round(self, key: bytes) -> None:
        """The dealer's next round (``round_open_seq`` with the key): the model judges the key."""
        self.model.open_betting(key)
        self.betting_open = True
        self.lockout_ns = 0

    def show_button_stakes(self, image: RegisterImage, stake_cents: int) -> None:
        """``seat_button_stake_cents``, where the map has it: each seat's physical-button stake (the
        model's ``button_stake_cents``; 0 for array slots past the seats)."""
        if image.map.has("seat_button_stake_cents"):
            n = image.map.point("seat_button_stake_cents").count
            seats = min(self.model.params.seats, n)
            image.set("seat_button_stake_cents", [stake_cents] * seats + [0] * (n - seats))

    def refresh(self, image: RegisterImage) -> None:
        self.show_supervisor(image)
        self.show_button_stakes(image, self.model.params.button_stake_cents)
        image.set("seats", self.model.params.seats)
        image.set("device_clock_ns", self.clock.ns())
        image.set("lockout_command_ns", self.lockout_ns)
        image.set("betting_open", self.betting_open)
        image.set("lockout", self.lockout_ns > 0)
        if not self.answers:
            return
        counts = image.get("seat_press_count")
        status, reason = image.get("seat_last_status"), image.get("seat_last_reason")
        spot, stake = image.get("seat_last_spot"), image.get("seat_last_stake_cents")
        press_ns, answer_ns = image.get("seat_last_press_ns"), image.get("seat_last_answer_ns")
        log = {name: image.get(f"press_log_{name}") for name in
               ("id", "seat", "spot", "stake_cents", "status", "reason", "press_ns", "answer_ns")}
        total = image.get("press_count")
        for a in self.answers:
            total += 1
            verdict = "accepted" if a.accepted else "rejected"
            entry = dict(id=a.press_id, seat=a.seat, spot=a.spot, stake_cents=min(a.stake_cents, 2**32 - 1),
                         status=verdict, reason=a.reason or "none", press_ns=self.clock.ns(a.device_time_s),
                         answer_ns=self.clock.ns(a.answer_time_s))
            i = (a.press_id - 1) % self.log_size
            for name, value in entry.items():
                log[name][i] = value
            if 1 <= a.seat <= self.seats_in_map:
                s = a.seat - 1
                counts[s] = (counts[s] + 1) & 0xFFFF
                status[s], reason[s], spot[s] = verdict, entry["reason"], a.spot
                stake[s], press_ns[s], answer_ns[s] = entry["stake_cents"], entry["press_ns"], entry["answer_ns"]
        self.answers.clear()
        image.set("press_count", total)
        for name, values in (("seat_press_count", counts), ("seat_last_status", status),
                             ("seat_last_reason", reason), ("seat_last_spot", spot),
                             ("seat_last_stake_cents", stake), ("seat_last_press_ns", press_ns),
                             ("seat_last_answer_ns", answer_ns)):
            image.set(name, values)
        for name, values in log.items():
            image.set(f"press_log_{name}", values)

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        if name == "betting_open":
            # read-only (the server refuses a write to a read-only point before it gets here; this
            # keeps the rule for any server): betting opens only by the keyed round_open command,
            # so a locked round is never re-opened by a write here (issue 13)
            self.refusal_log.refused("betting_open write", "betting opens only by round_open with the key",
                                     current_peer())
            return ExcCodes.ILLEGAL_ADDRESS
        if name == "round_open_seq":
            return self.guarded(self.open_round, image, "round_open_key")
        if name == "lockout" and value and self.lockout_ns == 0:
            self.model.lock_out()
            self.betting_open = False
            self.truth_sink({"command_ns": self.lockout_ns, "latency_s": self.model.lockout_latency_s,
                             "ignored": self.model.params.lockout_ignored})
        elif name == "press_inject_seq":
            if refused := self.stake_refused(image.get("press_inject_stake_cents")):
                return refused
            self.model.press(image.get("press_inject_seat"), image.get("press_inject_spot"),
                             image.get("press_inject_stake_cents"))
        elif name == "probe_arm_seq":
            count = image.get("probe_count")
            offsets = image.get("probe_offsets_us")
            if not 0 <= count <= len(offsets) or (count and self.stake_refused(image.get("probe_stake_cents"))):
                return ExcCodes.ILLEGAL_VALUE
            self.model.arm_probe(image.get("probe_seat"), image.get("probe_spot"), image.get("probe_stake_cents"),
                                 [us * 1e-6 for us in offsets[:count]])
        return None
