"""The rig's client of a firmware stub's control endpoint (see ``firmware_stubs/control.py``)."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel


class StubControlError(RuntimeError):
    pass


def request(url: str, message: dict[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
    """One request/answer on the stub's control endpoint ``tcp://HOST:PORT``."""
    u = urlsplit(url)
    if u.scheme != "tcp" or not u.hostname or u.port is None:
        raise StubControlError(f"{url!r}: a control endpoint is tcp://HOST:PORT")
    try:
        with socket.create_connection((u.hostname, u.port), timeout=timeout_s) as sock:
            sock.sendall(json.dumps(message).encode() + b"\n")
            answer = sock.makefile("rb").readline()
    except OSError as exc:
        raise StubControlError(f"stub control {url}: {exc}") from None
    try:
        reply = json.loads(answer)
    except json.JSONDecodeError:
        raise StubControlError(f"stub control {url}: unreadable answer {answer[:80]!r}") from None
    if not reply.get("ok"):
        raise StubControlError(f"stub control {url}: {reply.get('error')}")
    return reply


def configure_stub(url: str, params: dict[str, Any], seed: int | dict[str, Any], rules: BaseModel | None) -> dict[str, Any]:
    """A fresh model on the stub with the scenario's params and fault knobs; its effective params.
    ``seed``: an int, or a numpy SeedSequence's ``{"entropy", "spawn_key"}`` — then the stub's
    model draws exactly the numbers the SimPy model would. ``rules``: the Rules Submission the
    device draws from (Crazy Time's, or Roulette X's for the illuminator)."""
    return request(url, {"op": "configure", "params": params, "seed": seed,
                         "rules": None if rules is None else rules.model_dump(mode="json", by_alias=True)})["params"]


def stub_truth(url: str) -> list[dict[str, Any]]:
    return request(url, {"op": "truth"})["truth"]


def stub_info(url: str) -> dict[str, Any]:
    """What the stub is: device, wire, time scale, clock ppm, effective params (an older stub
    without the ``info`` op answers nothing: {})."""
    try:
        reply = request(url, {"op": "info"})
    except StubControlError as exc:
        if "unknown op" in str(exc):
            return {}
        raise
    return {k: v for k, v in reply.items() if k != "ok"}


def stub_clock(url: str, ppm: float | None = None) -> dict[str, Any]:
    """Make the stub's device clock run ``ppm`` fast from now on (None: only ask); its clock state."""
    return request(url, {"op": "clock", **({} if ppm is None else {"ppm": ppm})})["clock"]
