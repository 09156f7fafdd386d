"""The lock-out counter (``devices.contracts.LockoutCounter``) over VISA.

``measure()`` reads the counter (``hil.transport.visa.TimeIntervalCounter.measure_s``: a blocking
SCPI ``READ?``) on a worker thread of the I/O loop, and posts the interval back into the
simulation as ``lockout_interval`` telemetry, or an ``instrument_fault`` when the counter saw no
stop edge or did not answer (the measurement is then missing, never invented).

Every reading carries its own uncertainty (``CounterConfig.uncertainty_s``: the instrument's
resolution and timebase accuracy and the wiring's trigger and systematic errors, as the bench
configures them; docs/wire/visa-counter.md, "Uncertainty"): ``interval_s`` with ``uncertainty_s``
and the bracket ``interval_lo_s`` .. ``interval_hi_s``; the terms are in the counter's
``device_info``. The lock-out checks judge the bracket, never the bare figure.
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
        self.cfg = cfg
        self.counter = TimeIntervalCounter.from_config(cfg)
        telemetry(name, "device_info", {"idn": self.counter.idn, "resource": cfg.resource, "backend": cfg.backend,
                                        "accuracy": cfg.accuracy()})

    def measure(self) -> simpy.Event:
        done = self.env.event()

        async def read() -> None:
            try:
                interval = await asyncio.get_running_loop().run_in_executor(None, self.counter.measure_s)
            except CounterError as exc:
                detail = str(exc)
                self.env.call_soon_threadsafe(lambda: self.telemetry(self.name, "instrument_fault", {"detail": detail}))
                return

            u = self.cfg.uncertainty_s(interval)

            def deliver() -> None:
                self.telemetry(self.name, "lockout_interval", {"interval_s": interval, "uncertainty_s": u,
                                                               "interval_lo_s": interval - u,
                                                               "interval_hi_s": interval + u})
                done.succeed(interval)

            self.env.call_soon_threadsafe(deliver)

        self.io.submit(read())
        return done

    def close(self) -> None:
        self.counter.close()
