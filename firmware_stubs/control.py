"""A firmware stub's control endpoint: the test-fixture side door a real device does not have.

JSON lines over TCP (bound to 127.0.0.1 unless told otherwise). Requests and answers:

* ``{"op": "configure", "params": {...}, "seed": N | {"entropy": E, "spawn_key": [...]},
  "rules": {...}}`` → a fresh model with these
  parameters and fault knobs (unknown or invalid ones are refused, the old model stays), the
  device clock running on; ``rules`` is the Rules Submission (the Top Slot's PAR, the
  multiplier board's distributions; the other devices ignore it) →
  ``{"ok": true, "params": {effective params}}``
* ``{"op": "truth"}`` → ``{"ok": true, "truth": [...]}``: the ground truth recorded since the last
  configure (the wagering device: each lock-out's command time and drawn latency)
* ``{"op": "clock", "ppm": X}`` → ``{"ok": true, "clock": {"ppm": X, "time_scale": S}}``: the
  device clock runs X ppm fast from now on (negative: slow), continuous at this instant; without
  ``ppm``, the clock's current rate is answered and left alone (docs/wire/clock.md)
* ``{"op": "info"}`` → ``{"ok": true, "device": D, "wire": "modbus" | "serial", "time_scale": S,
  "clock_ppm": X, "params": {effective params}}``: what the stub is (the rig checks the bench
  against it: ``hil.applicability``)
* ``{"op": "ping"}`` → ``{"ok": true}``

The rig configures each stub at the start of every scenario (the scenario's device faults), so a
fault scenario runs the same on a stub as on the SimPy model.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.resources
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic

#: (params dict, seed (int or SeedSequence fields), rules dict | None) -> the effective params; raises
#: ValueError for parameters the model refuses.
Configure = Callable[[dict[str, Any], Any, dict[str, Any] | None], dict[str, Any]]


def load_submission(path: str | Path | None, resource: str, parse: Callable[[str, str], Any]) -> Any:
    """A Rules Submission parsed by ``parse(text, source)`` from the file at ``path``, or from the
    packaged ``rules/<resource>`` (the shipped default). A file that cannot be read or parsed
    raises ``OSError`` / ``rules.submission.RulesSubmissionError`` (source, line, field)."""
    if path is None:
        source = f"embedded:rules/{resource}"
        text = importlib.resources.files("rules").joinpath(resource).read_text(encoding="utf-8")
    else:
        source, text = str(path), Path(path).read_text(encoding="utf-8")
    return parse(text, source)


def generator(seed: int | dict[str, Any]) -> Any:
    """A numpy Generator from an int seed or from a SeedSequence's entropy and spawn key (the
    rig's per-device stream, so a stub draws exactly what the SimPy model would)."""
    import numpy as np

    if isinstance(seed, dict):
        ss = np.random.SeedSequence(int(seed["entropy"]), spawn_key=tuple(int(k) for k in seed.get("spawn_key", ())))
        return np.random.Generator(np.random.PCG64(ss))
    return np.random.default_rng(int(seed))


def validate_params(cls: type, raw: dict[str, Any]) -> Any:
    known = {f.name for f in dataclasses.fields(cls)}
    if unknown := sorted(set(raw) - known):
        raise ValueError(f"unknown parameter(s) {unknown}")
    try:
        return pydantic.TypeAdapter(cls).validate_python(raw)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from None


class ControlServer:
    def __init__(self, configure: Configure, truth: Callable[[], list[dict[str, Any]]],
                 clock: Callable[[float | None], dict[str, Any]] | None = None,
                 info: Callable[[], dict[str, Any]] | None = None) -> None:
        self.configure, self.truth, self.clock, self.info = configure, truth, clock, info
        self.server: asyncio.base_events.Server | None = None

    async def start(self, host: str, port: int) -> int:
        self.server = await asyncio.start_server(self._client, host, port)
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        try:
            if op == "configure":
                return {"ok": True, "params": self.configure(request.get("params") or {},
                                                             request.get("seed", 0), request.get("rules"))}
            if op == "truth":
                return {"ok": True, "truth": self.truth()}
            if op == "clock" and self.clock is not None:
                ppm = request.get("ppm")
                if ppm is not None and (isinstance(ppm, bool) or not isinstance(ppm, (int, float))):
                    return {"ok": False, "error": f"ppm must be a number, not {ppm!r}"}
                return {"ok": True, "clock": self.clock(None if ppm is None else float(ppm))}
            if op == "info" and self.info is not None:
                return {"ok": True, **self.info()}
            if op == "ping":
                return {"ok": True}
            return {"ok": False, "error": f"unknown op {op!r}"}
        except (ValueError, TypeError) as exc:
            return {"ok": False, "error": str(exc)}

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                try:
                    request = json.loads(line)
                    answer = self.handle(request) if isinstance(request, dict) else {"ok": False, "error": "not an object"}
                except json.JSONDecodeError as exc:
                    answer = {"ok": False, "error": f"bad JSON: {exc}"}
                writer.write(json.dumps(answer).encode() + b"\n")
                await writer.drain()
        finally:
            writer.close()
