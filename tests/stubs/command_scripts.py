"""What the stub tests of the command devices (coin flipper, Pachinko board, CTW wheel) share: a
SimPy script issuing one command after another to a device — the Modbus adapter or the SimPy
model with the stub's seed — and the telemetry it emitted, by kind."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import simpy

Sink = Callable[[str, str, dict], None]


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
