"""The rig's actuator as a serial relay board (implements ``devices.contracts.Actuator``;
docs/wire/actuator.md, "Serial relay board": ASCII lines, ``ID?``, ``ON n``, ``OFF n``, ``GET n``,
answers ``OK ...`` or ``ERR code text``).

One command at a time on the line (pyserial, any URL: a device path, ``socket://HOST:PORT``), each
in a worker thread of the I/O loop so a slow line never blocks it. A press: ``ON n``, held
``pulse_s``, ``OFF n``; the closing is bracketed from just before the command is written to the
arrival of its ``OK`` line, widened by ``contact_delay_s`` ± ``contact_jitter_s``. An ``ERR`` or no
answer within ``timeout_s`` is a ``wire_fault`` and the press an ``actuation_failed`` (it pressed
nothing). At connect: ``ID?`` (no answer: the bench cannot run, one error), then every wired
channel ``GET`` shows closed is opened.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import serial

from devices.actuator import ActuatorParams, Wiring
from devices.contracts import Telemetry
from hil.adapters.actuator_base import RelayActuator
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop


class RelayBoardError(Exception):
    """The board refused a command (``ERR``) or did not answer it."""


class SerialActuator(RelayActuator):
    switch_errors = (RelayBoardError, serial.SerialException, UnicodeError)

    def __init__(self, env: WallClockEnvironment, io: IoLoop, dev: Any, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str = "actuator") -> None:
        super().__init__(env, io, params, wiring, telemetry, name)
        self.port = serial.serial_for_url(dev.url, timeout=dev.timeout_s, write_timeout=dev.timeout_s)
        self._line = threading.Lock()  # one command at a time
        try:
            ident = self.command("ID?")
            channels = int(ident.split()[2])
            if (top := max(wiring.coils.values(), default=-1)) >= channels:
                raise RelayBoardError(f"the board has {channels} channels; the wiring needs channel {top}")
            released = [c for c in sorted(wiring.coils.values()) if self.command(f"GET {c}").split()[-1] == "1"]
            for c in released:
                self.command(f"OFF {c}")
        except (RelayBoardError, serial.SerialException, ValueError, IndexError) as exc:
            self.port.close()
            raise RelayBoardError(f"relay board at {dev.url}: {exc}") from None
        self._device_info(kind="serial", url=dev.url, id=ident, released_at_connect=released)

    def command(self, text: str) -> str:
        """Send one command line, return its ``OK`` answer (blocking; raises ``RelayBoardError``)."""
        with self._line:
            self.port.reset_input_buffer()
            self.port.write(text.encode("ascii") + b"\r\n")
            answer = self.port.readline().decode("ascii", "replace").strip()
        if not answer:
            raise RelayBoardError(f"no answer to {text!r}")
        if not answer.startswith("OK"):
            raise RelayBoardError(f"{text!r} refused: {answer!r}")
        return answer

    def _timed(self, text: str) -> tuple[int, int]:
        t0 = time.perf_counter_ns()
        self.command(text)
        return t0, time.perf_counter_ns()

    # ----------------------------------------------------------- I/O thread
    async def _switch(self, coil: int, on: bool) -> tuple[int, int]:
        """``ON n`` / ``OFF n`` in a worker thread: from just before the line is written to its ``OK``."""
        return await asyncio.to_thread(self._timed, f"{'ON' if on else 'OFF'} {coil}")

    def _fault_fields(self, exc: BaseException) -> dict[str, Any]:
        return {"kind": "relay_board", "detail": str(exc)}

    def close(self) -> None:
        self.port.close()
