"""The Pachinko wall over Modbus (implements ``devices.contracts.PachinkoBoard``).

Wire (docs/wire/modbus-pachinko-board.md), the command-device pattern of
``hil.adapters.modbus_command``: ``drop(zone)`` writes ``command`` = ``drop``, ``command_seq`` and
``arg_zone`` in one FC16 request; the poller turns the status into the telemetry ``PachinkoSim``
emits — ``puck_drop`` (``drop_id`` = ``op_id``, ``zone``, ``device_time_s`` of the release; from
the result, marked ``from_rest_report: true``, when the whole drop fell between two polls) and
``puck_landed`` (the ``PuckLanding``; the path decoded from ``result_rows`` bits of
``result_path``, bit r = row r, 1 = "R"). A puck that never lands leaves its event untriggered, as
in simulation. The declaration (``rows``, ``spots``) is read once; the drop zones are the
regulation's (§ 690.7(d)).

A zone the wire cannot carry (not a uint16) is refused at the call with ``ValueError``; a zone the
board refuses (outside its 16 spots) is an exception response — a ``wire_fault`` — and the drop's
event never triggers.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import PuckLanding
from hil.adapters.modbus_command import CommandedOpAdapter
from hil.adapters.modbus_spin import BadValue, Snapshot
from rules.pachinko import DROP_ZONES

STATUS = ("state", "op_id", "op_zone", "op_start_ns", "result_op_id", "result_command", "result_zone",
          "result_spot", "result_rows", "result_path", "result_start_ns", "result_stop_ns", "device_clock_ns")
DECLARATION = ("rows", "spots")


class ModbusPachinkoBoard(CommandedOpAdapter):
    """``PachinkoBoard`` over Modbus; see the module docstring."""

    STATUS, DECLARATION = STATUS, DECLARATION
    START_KIND, START_ID = "puck_drop", "drop_id"

    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        return {"rows": int(declared["rows"]), "spots": int(declared["spots"]), "zones": list(DROP_ZONES)}

    def drop(self, zone: int) -> simpy.Event:
        """Release the puck above landing spot ``zone`` now; succeeds with ``PuckLanding``."""
        return self._issue("drop", arg_zone=zone)

    def _start(self, snap: Snapshot, op_id: int, start_ns: int, current: bool) -> dict[str, Any]:
        zone = int(snap["op_zone" if current else "result_zone"])
        return {"drop_id": op_id, "zone": zone, "device_time_s": self.clock.to_sim(start_ns)}

    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        start_s, stop_s = self._times(snap, "drop", op_id)
        rows, words = int(snap["result_rows"]), snap["result_path"]
        words = words if isinstance(words, list) else [words]
        if rows > 16 * len(words):
            raise BadValue(f"drop {op_id}: a path of {rows} rows, result_path holds {16 * len(words)}")
        path = "".join("R" if int(words[r // 16]) >> (r % 16) & 1 else "L" for r in range(rows))
        return "puck_landed", PuckLanding(drop_id=op_id, zone=int(snap["result_zone"]), spot=int(snap["result_spot"]),
                                          path=path, start_time_s=start_s, stop_time_s=stop_s)
