"""The Crazy Time World virtual wheel over Modbus (implements ``devices.contracts.CrazyTimeWorldWheel``).

Wire (docs/wire/modbus-ctw-wheel.md), the command-device pattern of
``hil.adapters.modbus_command``: ``spin`` writes ``command`` = ``spin`` + ``command_seq`` in one
FC16 request; the poller turns the status into the telemetry ``CtwWheelSim`` emits — ``ctw_start``
(``spin_id`` = ``op_id``, ``device_time_s`` from ``op_start_ns``; from the result, marked
``from_rest_report: true``, when the whole spin fell between two polls) and ``ctw_stop`` (the
``CtwStop``; ``turns`` is ``float64`` on the wire, the device's number exactly). The declaration
(``section_count``, ``clappers``: the section under each clapper at offset 0) is read once and is
the ``device_info`` — the device's own, so mis-placed clappers show in the trace.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import CtwStop
from hil.adapters.modbus_command import CommandedOpAdapter
from hil.adapters.modbus_spin import Snapshot

STATUS = ("state", "op_id", "op_start_ns", "result_op_id", "result_command", "result_sections", "result_turns",
          "result_start_ns", "result_stop_ns", "device_clock_ns")
DECLARATION = ("section_count", "clappers")


class ModbusCtwWheel(CommandedOpAdapter):
    """``CrazyTimeWorldWheel`` over Modbus; see the module docstring."""

    STATUS, DECLARATION = STATUS, DECLARATION
    START_KIND, START_ID = "ctw_start", "spin_id"

    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        clappers = declared["clappers"]
        return {"sections": int(declared["section_count"]),
                "clappers": [int(c) for c in (clappers if isinstance(clappers, list) else [clappers])]}

    def spin(self) -> simpy.Event:
        """The presenter presses the button now (§ 690.8(d)); succeeds with ``CtwStop`` at rest."""
        return self._issue("spin")

    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        start_s, stop_s = self._times(snap, "spin", op_id)
        sections = snap["result_sections"]
        sections = sections if isinstance(sections, list) else [sections]
        return "ctw_stop", CtwStop(spin_id=op_id, sections=tuple(int(s) for s in sections),
                                   turns=float(snap["result_turns"]), start_time_s=start_s, stop_time_s=stop_s)
