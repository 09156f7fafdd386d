"""The lock-out counter (``devices.contracts.LockoutCounter``) over VISA.

``measure()`` reads the counter (``hil.transport.visa.TimeIntervalCounter.measure_s``: a blocking
SCPI ``READ?``) on a worker thread of the I/O loop, and posts the interval back into the
simulation as ``lockout_interval`` telemetry, or an ``instrument_fault`` when the counter saw no
stop edge or did not answer (the measurement is then missing, never invented).
"""

from __future__ import annotations

import asyncio

import simpy

from devices.contracts import Telemetry
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop
from hil.transport.visa import CounterConfig, CounterError, TimeIntervalCounter


class VisaLockoutCounter:
    def __init__(self, env: WallClockEnvironment, io: IoLoop, cfg: CounterConfig, telemetry: Telemetry,
                 name: str = "lockout_counter") -> None:
        self.env, self.io, self.telemetry, self.name = env, io, telemetry, name
        self.counter = TimeIntervalCounter.from_config(cfg)
        telemetry(name, "device_info", {"idn": self.counter.idn, "resource": cfg.resource, "backend": cfg.backend})

    def measure(self) -> simpy.Event:
        done = self.env.event()

        async def read() -> None:
            try:
                interval = await asyncio.get_running_loop().run_in_executor(None, self.counter.measure_s)
            except CounterError as exc:
                detail = str(exc)
                self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "instrument_fault", {"detail": detail}))
                return

            def deliver() -> None:
                self.telemetry(self.name, "lockout_interval", {"interval_s": interval})
                done.succeed(interval)

            self.env.call_soon_threadsafe(deliver)

        self.io.submit(read())
        return done

    def close(self) -> None:
        self.counter.close()
