"""The rig's client of a firmware stub's control endpoint (see ``firmware_stubs/control.py``).

The bench's ``control`` URL is the one the stub printed on its READY line,
``tcp://HOST:PORT?token=<hex>``: each request carries that token (docs/security.md). A URL without
a token, or a token the stub refuses, is a ``StubControlUnauthorised`` — at connect, the bench is
refused (``hil.applicability.BenchRefused``, exit 2)."""

from __future__ import annotations

import json
import re
import socket
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel

#: the token's query key in a control URL
TOKEN_KEY = "token"


class StubControlError(RuntimeError):
    pass


class StubControlUnauthorised(StubControlError):
    """The control URL has no token, or the stub refused the one it has."""


class StubTruthIncomplete(StubControlError):
    """The stub's ``truth`` answer holds only its newest records (``dropped`` older ones are gone):
    evidence that must be complete cannot be read from it. ``records`` are the ones kept."""

    def __init__(self, message: str, records: list[dict[str, Any]], dropped: int) -> None:
        super().__init__(message)
        self.records, self.dropped = records, dropped


def redact(url: str) -> str:
    """``url`` with its token cut to its first 4 hex digits (``token=3f9c…``): enough to tell two
    tokens apart in an error message, too little to use — reports and logs are shared."""
    return re.sub(r"(token=[0-9A-Za-z]{0,4})[^&#\s]*", r"\1…", url)


def _endpoint(url: str) -> tuple[str, int, str]:
    """(host, port, token) of a control URL; ``StubControlError`` / ``StubControlUnauthorised``."""
    u = urlsplit(url)
    if u.scheme != "tcp" or not u.hostname or u.port is None:
        raise StubControlError(f"{redact(url)!r}: a control endpoint is tcp://HOST:PORT?token=<hex>")
    tokens = parse_qs(u.query).get(TOKEN_KEY)
    if not tokens or not tokens[-1]:
        raise StubControlUnauthorised(
            f"{redact(url)}: the control URL has no token — the stub prints it on its READY line "
            f"(control=tcp://HOST:PORT?token=<32 hex digits>): give the rig that whole URL")
    return u.hostname, u.port, tokens[-1]


def request(url: str, message: dict[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
    """One request/answer on the stub's control endpoint ``tcp://HOST:PORT?token=<hex>``."""
    host, port, token = _endpoint(url)
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.sendall(json.dumps({**message, TOKEN_KEY: token}).encode() + b"\n")
            answer = sock.makefile("rb").readline()
    except OSError as exc:
        raise StubControlError(f"stub control {redact(url)}: {exc}") from None
    try:
        reply = json.loads(answer)
    except json.JSONDecodeError:
        raise StubControlError(f"stub control {redact(url)}: unreadable answer {answer[:80]!r}") from None
    if not isinstance(reply, dict):
        raise StubControlError(f"stub control {redact(url)}: unreadable answer {answer[:80]!r}")
    if not reply.get("ok"):
        if reply.get("error") == "unauthorised":
            raise StubControlUnauthorised(
                f"the stub at {redact(url)} refused the token (unauthorised) — the control URL must carry "
                f"the token this stub printed on its READY line (a restarted stub draws a new one unless "
                f"started with --control-token)")
        raise StubControlError(f"stub control {redact(url)}: {reply.get('error')}")
    return reply


def configure_stub(url: str, params: dict[str, Any], seed: int | dict[str, Any], rules: BaseModel | None) -> dict[str, Any]:
    """A fresh model on the stub with the scenario's params and fault knobs; its effective params.
    ``seed``: an int, or a numpy SeedSequence's ``{"entropy", "spawn_key"}`` — then the stub's
    model draws exactly the numbers the SimPy model would. ``rules``: the Rules Submission the
    device draws from (Crazy Time's, or Roulette X's for the illuminator)."""
    return request(url, {"op": "configure", "params": params, "seed": seed,
                         "rules": None if rules is None else rules.model_dump(mode="json", by_alias=True)})["params"]


def stub_truth(url: str) -> list[dict[str, Any]]:
    """Every ground-truth record the stub holds since its last configure. A stub keeps only its
    newest records (``firmware_stubs.control.TRUTH_KEPT``): when it dropped older ones, the truth is
    incomplete and this raises ``StubTruthIncomplete`` (the kept records on it) rather than pass a
    part for the whole — the stub's ``--truth-file`` keeps them all."""
    reply = request(url, {"op": "truth"})
    records, dropped = reply.get("truth"), reply.get("dropped", 0)
    if not isinstance(records, list) or isinstance(dropped, bool) or not isinstance(dropped, int) or dropped < 0:
        raise StubControlError(f"stub control {redact(url)}: unreadable truth answer "
                               f"(truth {type(records).__name__}, dropped {dropped!r:.40})")
    if dropped:
        raise StubTruthIncomplete(
            f"stub control {redact(url)}: the stub's truth is incomplete: it dropped its {dropped} oldest "
            f"record(s) and kept the newest {len(records)} — configure it afresh more often, or read its "
            f"--truth-file, which keeps every record", records, dropped)
    return records


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
