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
import simpy

from devices.actuator import ActuatorParams, CoilScheduler, Wiring
from devices.contracts import Actuation, Telemetry, payload
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop


class RelayBoardError(Exception):
    """The board refused a command (``ERR``) or did not answer it."""


class SerialActuator:
    def __init__(self, env: WallClockEnvironment, io: IoLoop, dev: Any, params: ActuatorParams, wiring: Wiring,
                 telemetry: Telemetry, name: str = "actuator") -> None:
        self.env, self.io, self.params, self.wiring, self.telemetry, self.name = env, io, params, wiring, telemetry, name
        self.match_window_s = params.match_window_s
        self.port = serial.serial_for_url(dev.url, timeout=dev.timeout_s, write_timeout=dev.timeout_s)
        self._line = threading.Lock()  # one command at a time
        self._coils = CoilScheduler(params.pulse_s)
        self._id = 0
        self.faults = 0
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
        telemetry(name, "device_info", {"kind": "serial", "url": dev.url, "id": ident, "coils": wiring.table(),
                                        "pulse_s": params.pulse_s, "contact_delay_s": params.contact_delay_s,
                                        "contact_jitter_s": params.contact_jitter_s,
                                        "match_window_s": params.match_window_s, "released_at_connect": released})

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

    # ----------------------------------------------------------- Protocol
    def wired(self, seat: int, spot: str) -> bool:
        return self.wiring.coil(seat, spot) is not None

    def press(self, seat: int, spot: str, purpose: str = "player") -> simpy.Event:
        coil = self.wiring.coil(seat, spot)
        if coil is None:
            raise ValueError(f"seat {seat}'s {spot!r} button is not wired to the actuator")
        self._id += 1
        ev = self.env.event()
        wait_s = self._coils.start(coil, self.env.now) - self.env.now
        self.io.submit(self._press(self._id, seat, str(spot), coil, purpose, wait_s, ev))
        return ev

    async def _press(self, aid: int, seat: int, spot: str, coil: int, purpose: str, wait_s: float,
                     ev: simpy.Event) -> None:
        p, scale = self.params, self.env.time_scale
        if wait_s > 0:
            await asyncio.sleep(wait_s / scale)
        try:
            tx, rx = await asyncio.to_thread(self._timed, f"ON {coil}")
        except (RelayBoardError, serial.SerialException, UnicodeError) as exc:
            self._fault(str(exc))
            act = Actuation(aid, seat, spot, coil, purpose, 0.0, 0.0, ok=False, detail=str(exc))
            self.env.call_soon_threadsafe(lambda: self._report(act, None, ev))
            return
        lo = self.env.wall_to_sim(tx) + p.contact_delay_s - p.contact_jitter_s
        hi = self.env.wall_to_sim(rx) + p.contact_delay_s + p.contact_jitter_s
        act = Actuation(aid, seat, spot, coil, purpose, lo, hi)
        self.env.call_soon_threadsafe(lambda: self._report(act, hi + p.pulse_s, ev))
        await asyncio.sleep(p.pulse_s / scale)
        try:
            await asyncio.to_thread(self.command, f"OFF {coil}")
        except (RelayBoardError, serial.SerialException, UnicodeError) as exc:
            self._fault(str(exc))

    def _fault(self, detail: str) -> None:
        self.faults += 1
        self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "wire_fault",
                                                             {"kind": "relay_board", "detail": detail}))

    def _report(self, act: Actuation, opened_s: float | None, ev: simpy.Event) -> None:
        self.telemetry(self.name, "actuation" if act.ok else "actuation_failed",
                       {**payload(act), "uncertainty_s": act.uncertainty_s, "opened_s": opened_s,
                        "match_window_s": self.match_window_s})
        ev.succeed(act)

    def close(self) -> None:
        self.port.close()
