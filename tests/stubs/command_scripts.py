"""What the stub tests of the command devices (multiplier board, coin flipper, Pachinko board, CTW
wheel, illuminator) share: the stub in its own process with the rig's adapter on it
(``adapter_rig``), a SimPy script issuing one command after another to a device — the Modbus
adapter or the SimPy model with the stub's seed — and the telemetry it emitted, by kind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import simpy

from firmware_stubs.launch import launch
from hil.clock import WallClockEnvironment
from hil.transport.ioloop import IoLoop

Sink = Callable[[str, str, dict], None]


@contextmanager
def adapter_rig(device: str, make: Callable[..., Any], *params: str, seed: int, scale: float, wire: str = "tcp",
                configure: Callable[[Any], Any] | None = None) -> Iterator[tuple]:
    """``device``'s stub in its own process (``--seed``, ``--param`` each of ``params``, Modbus TCP or
    RTU on a pty), then ``configure(stub)`` if given (the stub gets a control endpoint), then the
    rig's adapter ``make(env, io, url, telemetry)`` on it; yields (env, adapter, [(kind, payload)],
    stub) and closes the adapter."""
    where = "tcp://127.0.0.1:0" if wire == "tcp" else "rtu://pty?baudrate=115200"
    args = [a for p in params for a in ("--param", p)] + (["--control", "tcp://127.0.0.1:0"] if configure else [])
    with launch(device, "--modbus", where, "--time-scale", str(scale), "--seed", str(seed), *args) as stub, \
            IoLoop() as io:
        if configure is not None:
            configure(stub)
        env = WallClockEnvironment(time_scale=scale)
        events: list[tuple[str, dict]] = []
        dev = make(env, io, stub.url, lambda d, k, p: k == "clock_estimate" or events.append((k, p)))  # the rig's own
        try:
            yield env, dev, events, stub
        finally:
            dev.close()


def commands(issue: Callable[[Any, Any], simpy.Event], args: Iterable[Any], timeout_s: float) -> Callable:
    """A script: ``issue(device, arg)`` for each arg in turn, each awaited up to ``timeout_s``;
    returns the results (None for a command that never answered)."""
    def script(env: simpy.Environment, dev: Any):
        out = []
        for arg in args:
            ev = issue(dev, arg)
            yield ev | env.timeout(timeout_s)
            out.append(ev.value if ev.triggered else None)
        return out
    return script


def on_model(make: Callable[[simpy.Environment, Sink], Any], script: Callable) -> tuple[list, list]:
    """``script`` on the SimPy model ``make(env, sink)`` builds; (results, [(kind, payload)])."""
    env, events = simpy.Environment(), []
    model = make(env, lambda _d, k, p: events.append((k, p)))
    return env.run(env.process(script(env, model))), events


def of_kind(events: list[tuple[str, dict]], kind: str) -> list[dict]:
    return [p for k, p in events if k == kind]
