"""Firmware stub of the progressive table game system: ``devices.progressive.ProgressiveTableSim``
(with its own, standalone controller) behind its register map (docs/wire/modbus-progressive-system.md).

The wagering commands are the wagering stub's (``WageringGlue.on_write``): ``round_open_seq`` with
the supervisor key opens the dealer's next round (coil ``betting_open`` is read-only), coil
``lockout`` ← 1 is the dealer's lock-out button, ``press_inject_seq`` presses (a stake outside the
table's limits: ILLEGAL_VALUE), ``probe_arm_seq`` arms the probe. Added here, each guarded by the
supervisor key written in the same request (a wrong key ILLEGAL_FUNCTION, a locked key DEVICE_BUSY,
nothing changes, the refusal logged with the peer's address): ``win_light_seq`` lights or puts out
``win_light_seat``'s win light (the ``win_light`` coils are read-only); ``pay_seq`` ← new value pays
``pay_meter`` (an index into the declared meters) at ``pay_percent`` shared by ``pay_winners`` (a
value the model refuses is ILLEGAL_VALUE and changes nothing); ``confirm_seq`` ← new value is the
dealer's confirmation of the round's wagers
(``confirm_press_ids[:confirm_count]``; a ``confirm_final = more`` batch is held until the ``final``
one, then the model's ``confirm_wagers`` gets every held id). Every answered press goes to the press
log (a press increments nothing); what became of each accepted press — confirmed with its meter
increments, void, or a confirmation refused — goes to the wager log, in the model's order. The
status block shows the meters as the table shows them, the link (lost and restored, with the meters
re-read on restore), power losses and the last payout. The declaration block (meters with their
seeds and exact rates, linked or standalone, the link id) is written once.

``--param meters='[{"name": "mega", "seed_cents": 200000, "increment_rate": "14%"}, ...]'``: the
meters as JSON on the command line (the control endpoint takes them as a list).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from pymodbus.constants import ExcCodes

from devices.progressive import Increment, ProgressiveParams, ProgressiveTableSim
from firmware_stubs.modbus import ModelClock, RegisterImage
from firmware_stubs.wagering import RefusalLogger, WageringGlue, current_peer
from hil.wire.registers import RegisterMap, ascii_words

_U32 = 2**32 - 1
_U64 = 2**64 - 1


def cli_params(raw: dict[str, Any]) -> dict[str, Any]:
    """``--param`` values as the model takes them: ``meters`` given as JSON text is decoded."""
    if isinstance(raw.get("meters"), str):
        try:
            return {**raw, "meters": json.loads(raw["meters"])}
        except json.JSONDecodeError as exc:
            raise ValueError(f"meters: not JSON ({exc})") from None
    return raw


class ProgressiveGlue(WageringGlue):
    """Binds ``ProgressiveTableSim`` to a progressive-system register map (see the module docstring).

    A ``WageringGlue`` for the lock-out, press and probe commands (its ``on_write`` and its
    ``lockout_ns``, ``betting_open``, ``answers`` and ``truth_sink``); this map has no per-seat
    last-press registers, so the press log is written here, and the wager log."""

    def __init__(self, clock: ModelClock, params: ProgressiveParams, rng: np.random.Generator, rmap: RegisterMap,
                 truth_sink: Callable[[dict[str, float]], None] | None = None, supervisor_key: bytes | None = None,
                 refusal_log: RefusalLogger | None = None) -> None:
        self.clock, self.map = clock, rmap
        self.refusal_log = refusal_log or RefusalLogger("progressive-system")
        self.log_size = rmap.point("press_log_id").count
        self.slots = rmap.point("meter_value_cents").count
        seats_in_map = rmap.point("win_light").count
        if params.seats > seats_in_map:
            raise ValueError(f"{rmap.name}: win_light holds {seats_in_map} seats, the table has {params.seats}")
        if len(params.meters) > self.slots:
            raise ValueError(f"{rmap.name}: meter_value_cents holds {self.slots} meters, the system has "
                             f"{len(params.meters)}")
        logged = {p.name for p in rmap.points}
        if missing := [f"wager_log_meter{i}_{kind}_cents" for i in range(1, len(params.meters) + 1)
                       for kind in ("increment", "value") if f"wager_log_meter{i}_{kind}_cents" not in logged]:
            raise ValueError(f"{rmap.name}: no point(s) {', '.join(missing)} to log the increments of every meter")
        self.wager_log_size = rmap.point("wager_log_id").count
        name_regs = rmap.point("meter_names").count // self.slots
        names: list[int] = []
        for m in params.meters:
            names += ascii_words(m.name, name_regs)
        rates = {"increment": [m.increment for m in params.meters], "reserve": [m.reserve for m in params.meters]}
        if any(r.numerator > _U32 or r.denominator > _U32 for rs in rates.values() for r in rs):
            raise ValueError("a meter's rate does not fit uint32 numerator and denominator")
        pad = [0] * (self.slots - len(params.meters))
        self.lockout_ns = 0
        self.betting_open = False
        self.answers = []
        self.truth_sink = truth_sink or (lambda _t: None)
        #: wager-log entries not yet written to the image: (press id, outcome, reason, device ns, increments)
        self._entries: list[tuple[int, str, str, int, list[Increment]]] = []
        self._confirming: list[tuple[str, dict[str, Any]]] | None = None  # the model's reports during a confirmation
        self._held: list[int] = []  # ids of confirm batches marked "more", until the final one
        self._wagers = 0  # wager-log entries written since power-up (wager_count shows it modulo 65536)
        self._index = {m.name: i for i, m in enumerate(params.meters)}
        self._values: dict[str, Any] = {
            "seats": params.seats, "meter_count": len(params.meters),
            "meter_names": names + [0] * (rmap.point("meter_names").count - len(names)),
            "meter_seed_cents": [m.seed_cents for m in params.meters] + pad,
            "meter_reseed_cents": [m.reseed for m in params.meters] + pad,
            "meter_increment_num": [r.numerator for r in rates["increment"]] + pad,
            "meter_increment_den": [r.denominator for r in rates["increment"]] + [1] * len(pad),
            "meter_reserve_num": [r.numerator for r in rates["reserve"]] + pad,
            "meter_reserve_den": [r.denominator for r in rates["reserve"]] + [1] * len(pad),
            "meter_reseed_source": ["reserve" if m.reseed_from_reserve else "fixed" for m in params.meters]
            + ["fixed"] * len(pad),
            "linked": "linked" if params.link_id is not None else "standalone",
            "link_id": ascii_words(params.link_id, rmap.point("link_id").count),
            "link_lost_count": 0, "link_restored_count": 0, "link_lost_ns": 0, "link_restored_ns": 0,
            "power_loss_count": 0, "power_loss_ns": 0, "win_light_ns": [0] * seats_in_map,
            "link_restored_meter_cents": [0] * self.slots, "pay_count": 0,
        }
        self._dirty = set(self._values)
        self.model = ProgressiveTableSim(clock.env, params, rng, self._model_telemetry, supervisor_key=supervisor_key)
        self.model.supervisor.peer = current_peer  # the wrong-key lock is per client connection

    # ------------------------------------------------------------- model → image
    def _model_telemetry(self, device: str, kind: str, payload: dict[str, Any]) -> None:
        # Looked up per message, so a test (or a trace tap) may wrap ``glue.telemetry``.
        self.telemetry(device, kind, payload)

    def _set(self, **values: Any) -> None:
        self._values.update(values)
        self._dirty.update(values)

    def _meters(self, meters: dict[str, int]) -> list[int]:
        out = [0] * self.slots
        for name, cents in meters.items():
            out[self._index[name]] = min(cents, _U64)
        return out

    def telemetry(self, device: str, kind: str, payload: dict[str, Any]) -> None:
        ns = self.clock.ns(payload["device_time_s"]) if "device_time_s" in payload else 0
        if kind in ("lockout_command", "press", "command_refused"):
            self._telemetry(device, kind, payload)  # WageringGlue's: lockout_ns, answers
        elif kind in ("meter_increment", "confirm_refused", "press_void"):
            if self._confirming is not None:
                self._confirming.append((kind, payload))  # sorted into entries by _confirm
            elif kind == "press_void":  # a new round dropped the last one's unconfirmed presses
                self._entries.append((payload["press_id"], "void", payload["reason"], ns, []))
        elif kind == "win_light":
            lit = list(self._values["win_light_ns"])
            lit[payload["seat"] - 1] = ns
            self._set(win_light_ns=lit)
        elif kind == "meter_hit":
            self._set(pay_count=self._values["pay_count"] + 1, pay_result_meter=self._index[payload["meter"]],
                      pay_result_percent=payload["percent"], pay_result_winners=payload["winners"],
                      pay_result_ns=ns, **{f"pay_result_{f}_cents": min(payload[f"{f}_cents"], _U64)
                                           for f in ("jackpot", "paid", "remainder", "reseed", "value", "reserve")})
        elif kind == "link_lost":
            self._set(link_lost_count=self._values["link_lost_count"] + 1, link_lost_ns=ns)
        elif kind == "link_restored":
            self._set(link_restored_count=self._values["link_restored_count"] + 1, link_restored_ns=ns,
                      link_restored_meter_cents=self._meters(payload["meters"]))
        elif kind == "power_loss":
            self._set(power_loss_count=self._values["power_loss_count"] + 1, power_loss_ns=ns)

    def refresh(self, image: RegisterImage) -> None:
        m = self.model
        self._set(meter_value_cents=self._meters(m.shown()), link_state="up" if m.link_up else "lost",
                  lockout_command_ns=self.lockout_ns, betting_open=self.betting_open, lockout=self.lockout_ns > 0,
                  win_light=m.lights + [False] * (self.map.point("win_light").count - len(m.lights)))
        for name in self._dirty:
            image.set(name, self._values[name])
        self._dirty.clear()
        self.show_supervisor(image)
        self.show_button_stakes(image, m.params.button_stake_cents)
        image.set("device_clock_ns", self.clock.ns())
        if self.answers:
            self._log(image)
        if self._entries:
            self._log_wagers(image)

    def _log(self, image: RegisterImage) -> None:
        meters = range(1, len(self._index) + 1)
        names = ["id", "seat", "spot", "stake_cents", "status", "reason", "press_ns", "answer_ns"]
        log = {name: image.get(f"press_log_{name}") for name in names}
        total = image.get("press_count")
        for a in self.answers:
            total += 1
            i = (a.press_id - 1) % self.log_size
            entry = dict(id=a.press_id, seat=a.seat if 0 <= a.seat <= 0xFFFF else 0, spot=a.spot,
                         stake_cents=min(a.stake_cents, _U32), status="accepted" if a.accepted else "rejected",
                         reason=a.reason or "none", press_ns=self.clock.ns(a.device_time_s),
                         answer_ns=self.clock.ns(a.answer_time_s))
            for name, value in entry.items():
                log[name][i] = value
        self.answers.clear()
        image.set("press_count", total)
        for name, values in log.items():
            image.set(f"press_log_{name}", values)

    def _log_wagers(self, image: RegisterImage) -> None:
        meters = range(1, len(self._index) + 1)
        names = ["id", "press_id", "outcome", "reason", "ns", "increment_mask",
                 *(f"meter{k}_{f}_cents" for k in meters for f in ("increment", "value"))]
        log = {name: image.get(f"wager_log_{name}") for name in names}
        for press_id, outcome, reason, ns, incs in self._entries:
            self._wagers += 1
            i = (self._wagers - 1) % self.wager_log_size
            entry = dict(id=self._wagers, press_id=press_id, outcome=outcome, reason=reason, ns=ns,
                         increment_mask=sum(1 << self._index[inc.meter] for inc in incs))
            for k in meters:
                entry[f"meter{k}_increment_cents"] = entry[f"meter{k}_value_cents"] = 0
            for inc in incs:
                k = self._index[inc.meter] + 1
                entry[f"meter{k}_increment_cents"] = min(inc.amount_cents, _U32)
                entry[f"meter{k}_value_cents"] = min(inc.value_cents, _U64)
            for name, value in entry.items():
                log[name][i] = value
        self._entries.clear()
        image.set("wager_count", self._wagers & 0xFFFF)
        for name, values in log.items():
            image.set(f"wager_log_{name}", values)

    def _confirm(self, press_ids: list[int], key: bytes | None = None) -> None:
        """The model's ``confirm_wagers`` on ``press_ids``, its reports made wager-log entries in its
        order: per id a refusal, a confirmation with its increments (none: the increment was lost),
        then the pending presses it voided."""
        self._confirming = reports = []
        try:
            self.model.confirm_wagers(press_ids, key)
        finally:
            self._confirming = None
        ns = self.clock.ns()
        at = 0
        for pid in press_ids:
            if at < len(reports) and reports[at][0] == "confirm_refused" and reports[at][1]["press_id"] == pid:
                self._entries.append((pid, "refused", "none", ns, []))
                at += 1
                continue
            incs = []
            while at < len(reports) and reports[at][0] == "meter_increment" and reports[at][1]["press_id"] == pid:
                r = reports[at][1]
                incs.append(Increment(r["meter"], r["amount_cents"], r["value_cents"]))
                at += 1
            self._entries.append((pid, "confirmed", "none", ns, incs))
        for kind, r in reports[at:]:
            if kind == "press_void":
                self._entries.append((r["press_id"], "void", r["reason"], self.clock.ns(r["device_time_s"]), []))

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        if name == "win_light":
            # read-only: a lit light names a winner to be paid, so it changes only by the keyed command
            self.refusal_log.refused("win_light coil write", "win lights change only by win_light_seq with the key",
                                     current_peer())
            return ExcCodes.ILLEGAL_ADDRESS
        if name == "win_light_seq":
            return self.guarded(lambda key: self._light(key, image), image, "win_light_key")
        if name == "pay_seq":
            return self.guarded(lambda key: self._pay(key, image), image, "pay_key")
        if name == "confirm_seq":
            return self.guarded(lambda key: self._confirm_batch(key, image), image, "confirm_key")
        return super().on_write(name, value, image)

    def open_round(self, key: bytes) -> None:
        super().open_round(key)
        self._held = []  # a new round: a confirmation never finished is discarded (its presses void)

    def _light(self, key: bytes, image: RegisterImage) -> ExcCodes | None:
        self.model.supervisor.check("win_light", key)  # the key first: a stranger learns nothing of the seats
        seat, on = image.get("win_light_seat"), image.get("win_light_on")
        if not 1 <= seat <= self.model.params.seats or on not in (0, 1):
            raise _Refused(ExcCodes.ILLEGAL_VALUE)  # no such seat: nothing changes
        self.model.light_win(seat, bool(on), key)  # a light already so: nothing happens

    def _pay(self, key: bytes, image: RegisterImage) -> None:
        self.model.supervisor.check("pay", key)
        index = image.get("pay_meter")
        if not 0 <= index < len(self._index):
            raise _Refused(ExcCodes.ILLEGAL_VALUE)
        try:
            self.model.pay_meter(self.model.controller.names[index], image.get("pay_percent"),
                                 image.get("pay_winners"), key)
        except ValueError:
            raise _Refused(ExcCodes.ILLEGAL_VALUE) from None

    def _confirm_batch(self, key: bytes, image: RegisterImage) -> None:
        self.model.supervisor.check("confirm", key)
        count, ids = image.get("confirm_count"), image.get("confirm_press_ids")
        if not 0 <= count <= len(ids):
            raise _Refused(ExcCodes.ILLEGAL_VALUE)  # nothing held, nothing confirmed
        self._held += [int(i) for i in ids[:count]]
        if image.get("confirm_final") == "final":
            press_ids, self._held = self._held, []
            self._confirm(press_ids, key)

    def guarded(self, command, image: RegisterImage, key_point: str) -> ExcCodes | None:
        try:
            return super().guarded(command, image, key_point)
        except _Refused as exc:
            return exc.code


class _Refused(Exception):
    """A guarded command whose key was right but whose arguments the device refuses (``code``)."""

    def __init__(self, code: ExcCodes) -> None:
        self.code = code
        super().__init__(code.name)
