"""What the firmware stubs of the command devices share (the bonus games' multiplier board, coin
flipper, Pachinko board and Crazy Time World wheel): one command at a time in, one result out.

Wire (``hil.wire.registers``, "command devices"; docs/wire/README.md): the rig writes ``command``,
its ``arg_*`` arguments and ``command_seq`` in one request; a write that brings a NEW
``command_seq`` executes ``command`` on the model (``none`` executes nothing). The model validates
the arguments before it changes anything: a command it refuses (``ValueError``: an unknown board,
a zone outside the board …) is answered ``ILLEGAL_VALUE`` and changes nothing, its
``command_seq`` included. Each accepted command is the next ``op_id`` — and the model's next flip,
drop or spin id, since both count the accepted commands from 1.

Registers, as the model reports (device clock ns = model seconds × 1e9, ``ModelClock.ns``):

* accepted: ``state`` = busy, ``op_id`` + 1 (``op_start_ns`` = 0 until the model reports the
  operation's start, ``START_KIND``: the coin's launch, the puck's release, the wheel's start);
* the model's result event: the ``result_*`` block — ``result_op_id``, ``result_command``,
  ``result_stop_ns`` (the model's clock when the result came) and the device's own fields
  (``result_fields``); ``state`` = done when that is the latest accepted command.

The model may run several operations side by side (the SimPy models accept a command while an
earlier one is in progress); the result block shows the latest completed one, the ``op_*`` points
the latest accepted one. A result the model never gives (a puck lodged between pegs) leaves the
device ``busy``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import simpy
from pymodbus.constants import ExcCodes

from firmware_stubs.modbus import ModelClock, RegisterImage, ShownValues
from hil.wire.registers import RegisterMap


class CommandGlue(ShownValues):
    """Binds a command device's model to its register map (``DeviceGlue``); subclasses give
    ``execute`` and ``result_fields`` and build ``self.model`` with ``self._model_telemetry``."""

    #: the model's telemetry kind that reports an operation's start, and its id field
    START_KIND: ClassVar[str | None] = None
    START_ID: ClassVar[str] = ""

    def __init__(self, clock: ModelClock, rmap: RegisterMap) -> None:
        self.clock, self.map = clock, rmap
        self._values: dict[str, Any] = {
            "state": "idle", "op_id": 0, "result_op_id": 0,
            "result_command": self.neutral("result_command"), "result_stop_ns": 0,
        }
        if self.START_KIND:
            self._values |= {"op_start_ns": 0, "result_start_ns": 0}
        self._dirty: set[str] = set(self._values)
        self._last_seq = 0  # the image's command_seq at power-up
        self._starts: dict[int, int] = {}  # op id -> start ns, reported before the op was counted
        self.refused = 0  # commands the model refused
        self._args = [p.name for p in rmap.points if p.name.startswith("arg_")]

    def neutral(self, name: str) -> Any:
        """A point's value before anything happened: its lowest enum label, or 0 (a list for arrays)."""
        p = self.map.point(name)
        one = p.enum[min(p.enum)] if p.enum else 0
        return [one] * p.count if p.count > 1 else one

    def _model_telemetry(self, device: str, kind: str, payload: dict[str, Any]) -> None:
        # Looked up per message, so a test (or a trace tap) may wrap ``glue.telemetry``.
        self.telemetry(device, kind, payload)

    # ------------------------------------------------------------- subclasses
    def execute(self, command: str, args: dict[str, Any]) -> simpy.Event:
        """Command the model now; its event succeeds with the result. ValueError: refused."""
        raise NotImplementedError

    def result_fields(self, command: str, result: Any) -> dict[str, Any]:
        """The device's own ``result_*`` points (and any override of the core ones) for ``result``."""
        raise NotImplementedError

    def span_ns(self, result: Any) -> dict[str, Any]:
        """``result_start_ns`` and ``result_stop_ns`` of a result with ``start_time_s``, ``stop_time_s``."""
        return {"result_start_ns": self.clock.ns(result.start_time_s),
                "result_stop_ns": self.clock.ns(result.stop_time_s)}

    def accepted(self, op_id: int, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """Extra ``op_*`` points of an accepted command (e.g. the Pachinko release zone)."""
        return {}

    # ------------------------------------------------------------- model → image
    def telemetry(self, _device: str, kind: str, payload: dict[str, Any]) -> None:
        if kind != self.START_KIND:
            return
        op, ns = payload[self.START_ID], self.clock.ns(payload["device_time_s"])
        if op == self._values["op_id"]:
            self._set(op_start_ns=ns)
        elif op > self._values["op_id"]:  # reported while the command is being accepted
            self._starts[op] = ns

    def _done(self, op: int, command: str, result: Any) -> None:
        fields = {"result_op_id": op, "result_command": command, "result_stop_ns": self.clock.ns()}
        fields |= self.result_fields(command, result)
        if op == self._values["op_id"]:
            fields["state"] = "done"
        self._set(**fields)

    # ------------------------------------------------------------- commands
    def on_write(self, name: str, value: Any, image: RegisterImage) -> ExcCodes | None:
        if name != "command_seq" or value == self._last_seq:
            return None
        command = image.get("command")  # the stub refused codes outside the map's enum already
        if command == "none":
            self._last_seq = value
            return None
        args = {n: image.get(n) for n in self._args}
        try:
            done = self.execute(command, args)
        except ValueError:
            self.refused += 1
            return ExcCodes.ILLEGAL_VALUE
        self._last_seq = value
        op = self._values["op_id"] + 1
        fields: dict[str, Any] = {"state": "busy", "op_id": op, **self.accepted(op, command, args)}
        if self.START_KIND:
            fields["op_start_ns"] = self._starts.pop(op, 0)
        self._starts = {k: v for k, v in self._starts.items() if k > op}
        self._set(**fields)
        done.callbacks.append(lambda ev: self._done(op, command, ev.value))
        return None


def clip(value: int, point_type: str) -> int:
    """``value`` limited to what an unsigned register type holds (a display that saturates)."""
    top = {"uint16": 0xFFFF, "uint32": 0xFFFF_FFFF}[point_type]
    return value if 0 <= value <= top else top
