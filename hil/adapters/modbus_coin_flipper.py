"""The coin flipper over Modbus (implements ``devices.contracts.CoinFlipper``).

Wire (docs/wire/modbus-coin-flipper.md), the command-device pattern of
``hil.adapters.modbus_command``: ``flip`` writes ``command`` = ``flip`` + ``command_seq`` in one
FC16 request; the poller turns the status into the telemetry ``CoinFlipperSim`` emits —
``coin_flip_start`` (``flip_id`` = ``op_id``, ``device_time_s`` from ``op_start_ns`` when the coin
left the platform; from the result's ``result_start_ns``, marked ``from_rest_report: true``, when
the whole flip fell between two polls) and ``coin_flip_stop`` (the ``CoinFlipResult``; launch speed
and spin rate are ``float64`` on the wire, the device's numbers exactly). A face the device
reports as ``none`` is passed on as such: the croupier voids the game on a face that is not a side.
"""

from __future__ import annotations

from typing import Any

import simpy

from devices.contracts import CoinFlipResult
from hil.adapters.modbus_command import CommandedOpAdapter
from hil.adapters.modbus_spin import Snapshot
from rules.bonus import COIN_SIDES

STATUS = ("state", "op_id", "op_start_ns", "result_op_id", "result_command", "result_face", "result_start_face",
          "result_half_turns", "result_launch_speed_mps", "result_spin_rate_rps", "result_start_ns",
          "result_stop_ns", "device_clock_ns")


class ModbusCoinFlipper(CommandedOpAdapter):
    """``CoinFlipper`` over Modbus; see the module docstring."""

    STATUS = STATUS
    START_KIND, START_ID = "coin_flip_start", "flip_id"

    def _info(self, declared: dict[str, Any]) -> dict[str, Any]:
        return {"sides": list(COIN_SIDES)}

    def flip(self) -> simpy.Event:
        """Launch the coin now (after the launch delay); succeeds with ``CoinFlipResult`` at rest."""
        return self._issue("flip")

    async def _result(self, snap: Snapshot, op_id: int) -> tuple[str, Any] | None:
        start_s, stop_s = self._times(snap, "flip", op_id)
        return "coin_flip_stop", CoinFlipResult(
            flip_id=op_id, face=str(snap["result_face"]), start_face=str(snap["result_start_face"]),
            half_turns=int(snap["result_half_turns"]), launch_speed_mps=float(snap["result_launch_speed_mps"]),
            spin_rate_rps=float(snap["result_spin_rate_rps"]), start_time_s=start_s, stop_time_s=stop_s)
