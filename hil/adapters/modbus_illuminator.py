"""The Roulette X random number generator and multiplier lights over Modbus (implements
``devices.contracts.MultiplierIlluminator``, § 617b.5(b), (d)).

Wire (docs/wire/modbus-illuminator.md), the command-device pattern of
``hil.adapters.modbus_command``: ``illuminate`` writes ``command`` = ``illuminate`` + ``command_seq``
in one FC16 request; the illumination id is ``op_id``. The poll (one FC4 read) carries the whole
result — ``result_count`` and the numbers and multipliers arrays — so a result is never mixed with
its successor; a new ``result_op_id`` becomes the telemetry ``IlluminatorSim`` emits,
``illumination`` (the ``Illumination``: the first ``result_count`` numbers, ``"00"`` for code 37,
the multipliers as shown, ``device_time_s`` = ``result_time_ns``, when the generator *drew* — a
generator that drew before it was initiated reports it as such), and the command's event succeeds
with it.

What a faulty generator shows is passed on for the checks to judge: a count outside 2..5, a
number lit twice, a multiplier off the paytable. What cannot be read as an illumination — a count
beyond the arrays, a number code that is no pocket (above 37), a result of another command — is a
``wire_fault`` of kind ``bad_value``, recorded once, never a crash of the poller; that result
resolves nothing (the croupier times out and voids).

The declaration (``wheel``, ``paytable``, ``paytable_multipliers``) is read once at connect and is
the ``device_info`` — the device's own, as ``IlluminatorSim`` declares its own. A declared value
that cannot be decoded is ``None`` there, and a ``bad_value`` wire fault.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import Illumination, Telemetry
from hil.adapters.modbus_command import CommandedOpAdapter
from hil.adapters.modbus_spin import BadValue, Snapshot
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.wire.registers import DOUBLE_ZERO_CODE, RegisterMap, code_pocket
from rules.roulette import Pocket

STATUS = ("state", "op_id", "result_op_id", "result_command", "result_count", "result_numbers", "result_multipliers",
          "result_time_ns", "result_stop_ns", "device_clock_ns")
#: read once, point by point (``_read_baseline``): a garbage code spoils only its own field
DECLARED = ("wheel", "paytable", "paytable_multipliers")
def pocket(code: int) -> Pocket:
    """A ``result_numbers`` code as the pocket it stands for; ``BadValue`` for a code that is none."""
    if (p := code_pocket(code)) is None:
        raise BadValue(f"code {code} is no number (0..36, {DOUBLE_ZERO_CODE} = 00)")
    return p


class ModbusIlluminator(CommandedOpAdapter):
    """``MultiplierIlluminator`` over Modbus; see the module docstring."""

    STATUS = STATUS

    def __init__(self, env: WallClockEnvironment, io: IoLoop, url: str, unit: int, rmap: RegisterMap,
                 telemetry: Telemetry, name: str = "illuminator", timeout_s: float = 0.5,
                 poll_period_s: float = 0.002) -> None:
        super().__init__(env, io, url, unit, rmap, telemetry, name, timeout_s, poll_period_s)

    async def _read_baseline(self) -> tuple[Snapshot, int, dict[str, Any]]:
        status, seq, declared = await super()._read_baseline()
        snap = Snapshot(self.map)
        for b in self.map.read_blocks(DECLARED):
            words, _ = await self.cmd.read(b.table, b.start, b.count)
            snap.add(b.points, b.start, words)
        return status, seq, {**declared, "declaration": snap}

    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        snap: Snapshot = declared["declaration"]
        info: dict[str, Any] = {}
        for field, point in (("wheel", "wheel"), ("paytable", "paytable"), ("multipliers", "paytable_multipliers")):
            try:
                value = snap[point]
            except BadValue as exc:
                self.fault("bad_value", f"declaration: {exc}")
                info[field] = None
                continue
            if point == "paytable_multipliers":
                value = [int(m) for m in (value if isinstance(value, list) else [value]) if m]
            info[field] = value
        return info

    # ----------------------------------------------------------- Protocol (simulation thread)
    def illuminate(self) -> simpy.Event:
        """Initiate the generator now; succeeds with ``Illumination`` once the numbers are lit."""
        return self._issue("illuminate")

    # ----------------------------------------------------------- I/O thread
    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        if (command := snap["result_command"]) != "illuminate":
            raise BadValue(f"illumination {op_id}: result_command is {command!r}, not 'illuminate'")
        count = int(snap["result_count"])
        room = min(self.map.point("result_numbers").count, self.map.point("result_multipliers").count)
        if count > room:
            raise BadValue(f"illumination {op_id}: result_count {count}, the arrays hold {room}")
        numbers = []
        for i, code in enumerate(snap.elements("result_numbers", count)):
            try:
                numbers.append(pocket(int(code)))
            except BadValue as exc:
                raise BadValue(f"illumination {op_id}: result_numbers[{i}]: {exc}") from None
        multipliers = tuple(int(m) for m in snap.elements("result_multipliers", count))
        return "illumination", Illumination(illumination_id=op_id, numbers=tuple(numbers), multipliers=multipliers,
                                            device_time_s=self.clock.to_sim(int(snap["result_time_ns"])))
