"""A firmware stub's control endpoint: the test-fixture side door a real device does not have.

JSON lines over TCP, bound to 127.0.0.1 unless the stub is started with ``--allow-remote``
(``firmware_stubs.exposure``). Every request carries the stub's token, ``"token": "<hex>"``: the
stub draws it at start (``secrets.token_hex(16)``, or ``--control-token HEX``) and prints it in the
control URL of its READY line, ``control=tcp://127.0.0.1:PORT?token=<hex>``; the rig takes it from
the bench's ``control`` URL (``hil.adapters.stub_control``). A request without the right token —
``ping`` included — is answered ``{"ok": false, "error": "unauthorised"}`` and nothing else, the
connection is closed, and the refusal is logged on stderr with the peer's address (rate-limited).
Requests and answers (token omitted):

* ``{"op": "configure", "params": {...}, "seed": N | {"entropy": E, "spawn_key": [...]},
  "rules": {...}}`` → a fresh model with these
  parameters and fault knobs (unknown or invalid ones are refused, the old model stays), the
  device clock running on; ``rules`` is the Rules Submission (the Top Slot's PAR, the
  multiplier board's distributions; the other devices ignore it) →
  ``{"ok": true, "params": {effective params}}``
* ``{"op": "truth"}`` → ``{"ok": true, "truth": [...], "dropped": N}``: the ground truth recorded since
  the last configure (the wagering device: each lock-out's command time and drawn latency), its
  newest ``TRUTH_KEPT`` records; ``dropped`` counts the older ones no longer kept (``TruthRing``),
  so a truth with ``dropped > 0`` is incomplete (``--truth-file`` keeps every record)
* ``{"op": "clock", "ppm": X}`` → ``{"ok": true, "clock": {"ppm": X, "time_scale": S}}``: the
  device clock runs X ppm fast from now on (negative: slow), continuous at this instant; without
  ``ppm``, the clock's current rate is answered and left alone (docs/wire/clock.md)
* ``{"op": "info"}`` → ``{"ok": true, "device": D, "wire": "modbus" | "serial", "time_scale": S,
  "clock_ppm": X, "params": {effective params}}``: what the stub is (the rig checks the bench
  against it: ``hil.applicability``)
* ``{"op": "ping"}`` → ``{"ok": true}``: the endpoint is up and the token is right (docs/security.md
  says why ``ping`` needs the token too)

The rig configures each stub at the start of every scenario (the scenario's device faults), so a
fault scenario runs the same on a stub as on the SimPy model.

At info level (the stub's ``-v``) the endpoint's logger tells each connection and each authorised
request: its op, for ``configure`` the parameters and seed (never the token, nor the Rules
Submission's text: only whether one came), and whether it was done or why not.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hmac
import importlib.resources
import json
import logging
import secrets
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic

log = logging.getLogger("firmware_stubs.control")

#: a stub's own token: 16 random bytes (128 bits), 32 hex digits
TOKEN_BYTES = 16
#: ``--control-token``: at least this many hex digits (as strong as the drawn one)
TOKEN_MIN_HEX = 2 * TOKEN_BYTES
#: the one answer a request without the right token gets
UNAUTHORISED = {"ok": False, "error": "unauthorised"}
#: the longest request line read (a Rules Submission is a few kB); longer is refused, connection closed
MAX_LINE_BYTES = 1 << 20
#: a connection that sends nothing for this long is closed (a stranger's idle sockets are not kept)
IDLE_TIMEOUT_S = 60.0
#: the ground-truth records a stub keeps for the ``truth`` answer (≈ 270 B each: ≈ 2.7 MB at most)
TRUTH_KEPT = 10_000


def new_token() -> str:
    """A fresh per-stub control token: ``secrets.token_hex(16)``."""
    return secrets.token_hex(TOKEN_BYTES)


def check_token(token: str) -> str:
    """``--control-token HEX`` as given (lower-cased); ValueError naming what is wrong with it."""
    if not token or any(c not in string.hexdigits for c in token):
        raise ValueError("the control token must be hex digits (0-9, a-f), e.g. the output of "
                         "python3 -c 'import secrets; print(secrets.token_hex(16))'")
    if len(token) < TOKEN_MIN_HEX:
        raise ValueError(f"the control token is {len(token)} hex digits: at least {TOKEN_MIN_HEX} "
                         f"({TOKEN_MIN_HEX * 4} bits) are needed")
    return token.lower()


def control_url(host: str, port: int, token: str) -> str:
    """The control URL a READY line prints: ``tcp://HOST:PORT?token=<hex>``."""
    shown = f"[{host}]" if ":" in host else host
    return f"tcp://{shown}:{port}?token={token}"


class RefusalLog:
    """Refusals logged with the peer's address, at most ``burst`` lines at once and then one line
    per ``period_s``: a flood of strangers cannot fill the log. Each line after a quiet spell says
    how many refusals were left out since the last one, and from which peers (the first few)."""

    MAX_PEERS_KEPT = 4

    def __init__(self, logger: logging.Logger = log, burst: int = 10, period_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.burst, self.period_s, self.clock = logger, burst, period_s, clock
        self.allowance = float(burst)
        self.last = clock()
        self.refused = 0          # every refusal since start
        self.suppressed = 0       # left out since the last line
        self.suppressed_peers: list[str] = []

    def __call__(self, peer: str | None, what: str) -> bool:
        """Record one refusal; True when it was logged (False: counted for the next line)."""
        self.refused += 1
        now = self.clock()
        self.allowance = min(float(self.burst), self.allowance + (now - self.last) / self.period_s)
        self.last = now
        if self.allowance < 1.0:
            self.suppressed += 1
            if peer not in self.suppressed_peers and len(self.suppressed_peers) < self.MAX_PEERS_KEPT:
                self.suppressed_peers.append(peer or "?")
            return False
        self.allowance -= 1.0
        more = ""
        if self.suppressed:
            peers = ", ".join(self.suppressed_peers) + (", ..." if len(self.suppressed_peers) >= self.MAX_PEERS_KEPT
                                                        else "")
            more = f" ({self.suppressed} more refusal(s) not logged since the last line, from {peers})"
            self.suppressed, self.suppressed_peers = 0, []
        self.logger.warning("control endpoint: refused %s from %s%s", what, peer or "?", more)
        return True

    def flush(self) -> None:
        """Log the refusals left out since the last line, if any (the stub is stopping)."""
        if self.suppressed:
            peers = ", ".join(self.suppressed_peers) + (", ..." if len(self.suppressed_peers) >= self.MAX_PEERS_KEPT
                                                        else "")
            self.logger.warning("control endpoint: %d more refusal(s) not logged since the last line, from %s "
                                "(%d refused in all)", self.suppressed, peers, self.refused)
            self.suppressed, self.suppressed_peers = 0, []


class TruthRing:
    """The ground truth a stub keeps for the control endpoint: the newest ``kept`` records (one per
    lock-out for the wagering device), and how many older ones were dropped to stay within that —
    a stub's life of rounds never grows its memory, and a truth that is incomplete says so."""

    def __init__(self, kept: int = TRUTH_KEPT) -> None:
        self.records: collections.deque[dict[str, Any]] = collections.deque(maxlen=kept)
        self.dropped = 0

    def append(self, record: dict[str, Any]) -> None:
        if len(self.records) == self.records.maxlen:
            self.dropped += 1
        self.records.append(record)

    def clear(self) -> None:
        """A fresh model (configure): its truth starts empty and complete."""
        self.records.clear()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self.records)

    def answer(self) -> dict[str, Any]:
        """The ``truth`` answer's fields: ``{"truth": [kept records, oldest first], "dropped": N}``."""
        return {"truth": list(self.records), "dropped": self.dropped}


def _seed(seed: Any) -> int | dict[str, Any]:
    """A configure request's seed, checked before anything is touched: an int, or a SeedSequence's
    ``{"entropy": int, "spawn_key": [int, ...]}``; ValueError otherwise."""
    if isinstance(seed, bool):
        raise ValueError(f"seed must be an integer or {{entropy, spawn_key}}, not {seed!r}")
    if isinstance(seed, int):
        return seed
    if isinstance(seed, dict):
        entropy, key = seed.get("entropy"), seed.get("spawn_key", [])
        if (isinstance(entropy, int) and not isinstance(entropy, bool) and isinstance(key, list)
                and all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in key)
                and entropy >= 0 and set(seed) <= {"entropy", "spawn_key"}):
            return seed
    raise ValueError(f"seed must be an integer or {{entropy: int >= 0, spawn_key: [int >= 0, ...]}}, not {seed!r:.80}")


def _peer(writer: asyncio.StreamWriter) -> str | None:
    name = writer.get_extra_info("peername")
    if not name:
        return None
    host, port = name[0], name[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"

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
    """``cls`` (a params dataclass) from ``raw``; ValueError naming the parameter and what is wrong,
    in one sentence (an unknown name with the nearest known one)."""
    known = {f.name for f in dataclasses.fields(cls)}
    if unknown := sorted(set(raw) - known):
        import difflib

        hints = [f"{u!r}" + (f" (did you mean {near[0]!r}?)" if (near := difflib.get_close_matches(u, known, 1))
                             else "") for u in unknown]
        raise ValueError(f"unknown parameter{'s' * (len(unknown) > 1)} {', '.join(hints)}")
    try:
        return pydantic.TypeAdapter(cls).validate_python(raw)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")  # pydantic's prefix for a validator's ValueError
        where = ".".join(map(str, err["loc"]))
        raise ValueError(f"{where}: {msg}" if where else msg) from None


class ControlServer:
    """The control endpoint: ``token`` (hex) is what every request must carry; refusals go to
    ``refusals`` (a ``RefusalLog``); ``truth()`` gives the ``truth`` answer's fields
    (``TruthRing.answer``), or a plain list of records (then complete: ``dropped`` 0). It starts on
    a host that is not loopback only with ``allow_remote``
    (``firmware_stubs.exposure.ExposureRefused`` otherwise), whoever starts it."""

    def __init__(self, configure: Configure, truth: Callable[[], list[dict[str, Any]] | dict[str, Any]],
                 clock: Callable[[float | None], dict[str, Any]] | None = None,
                 info: Callable[[], dict[str, Any]] | None = None, *, token: str,
                 refusals: RefusalLog | None = None, allow_remote: bool = False,
                 log: logging.Logger | None = None) -> None:
        self.configure, self.truth, self.clock, self.info = configure, truth, clock, info
        #: connections and requests at info (the stub's ``-v``); refusals go to ``refusals``
        self.log = log or logging.getLogger("croupier.stub.control")
        self.allow_remote = allow_remote
        self.token = check_token(token).encode()
        self.refusals = refusals or RefusalLog()
        self.server: asyncio.base_events.Server | None = None

    async def start(self, host: str, port: int) -> int:
        from firmware_stubs.exposure import Listener, check_exposure

        check_exposure([Listener("control endpoint", "--control", host, port, "reprogram the device")],
                       self.allow_remote)  # the CLI has warned already; a refusal raises here
        self.server = await asyncio.start_server(self._client, host, port, limit=MAX_LINE_BYTES)
        bound = self.server.sockets[0].getsockname()[1]
        self.log.info("control endpoint listening", extra={"host": host, "port": bound})
        return bound

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        self.refusals.flush()

    def authorised(self, request: Any) -> str | None:
        """None when ``request`` carries the right token; else why not (for the log)."""
        if not isinstance(request, dict):
            return "a request that is not a JSON object"
        given = request.get("token")
        if given is None:
            return "a request without a token"
        if not isinstance(given, str):
            return "a request whose token is not a string"
        if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"), self.token):
            return "a request with a wrong token"
        return None

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to an authorised request (``authorised`` says whether it is)."""
        op = request.get("op")
        try:
            if op == "configure":
                params, rules = request.get("params") or {}, request.get("rules")
                if not isinstance(params, dict) or not (rules is None or isinstance(rules, dict)):
                    return {"ok": False, "error": "params and rules must be JSON objects"}
                return {"ok": True, "params": self.configure(params, _seed(request.get("seed", 0)), rules)}
            if op == "truth":
                truth = self.truth()
                return {"ok": True, **(truth if isinstance(truth, dict) else {"truth": truth, "dropped": 0})}
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
        except (KeyError, AttributeError, IndexError) as exc:  # a malformed request's fields (e.g. a seed
            return {"ok": False, "error": f"malformed request: {type(exc).__name__} {exc}"}  # without entropy)

    def _log_request(self, peer: str | None, request: dict[str, Any], answer: dict[str, Any]) -> None:
        """One info line per authorised request: its op and what came of it; never the token."""
        fields: dict[str, Any] = {"peer": peer, "op": str(request.get("op"))[:40]}
        if request.get("op") == "configure":
            fields.update(params=request.get("params") or {}, seed=request.get("seed", 0),
                          rules="given" if request.get("rules") is not None else "none")
        elif request.get("op") == "clock" and "ppm" in request:
            fields["ppm"] = request.get("ppm")
        elif request.get("op") == "truth" and answer.get("ok"):
            fields.update(records=len(answer.get("truth") or ()), dropped=answer.get("dropped", 0))
        fields["result"] = "ok" if answer.get("ok") else f"refused: {answer.get('error')}"
        self.log.info("control request", extra=fields)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = _peer(writer)
        self.log.info("control connection accepted", extra={"peer": peer})
        try:
            while True:
                try:
                    line = await asyncio.wait_for(reader.readline(), IDLE_TIMEOUT_S)
                except (asyncio.LimitOverrunError, ValueError):  # a line longer than MAX_LINE_BYTES
                    self.refusals(peer, f"a request line over {MAX_LINE_BYTES} bytes")
                    writer.write(json.dumps(UNAUTHORISED).encode() + b"\n")
                    break
                if not line:
                    break
                try:
                    request = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    request, why = None, "a request that is not JSON"
                else:
                    why = self.authorised(request)
                if why is not None:
                    op = request.get("op") if isinstance(request, dict) else None
                    self.refusals(peer, f"{why} (op {str(op)[:40]!r})" if op is not None else why)
                    writer.write(json.dumps(UNAUTHORISED).encode() + b"\n")
                    await writer.drain()
                    break  # a stranger gets one answer per connection
                answer = self.handle(request)
                if self.log.isEnabledFor(logging.INFO):
                    self._log_request(peer, request, answer)
                writer.write(json.dumps(answer).encode() + b"\n")
                await writer.drain()
        except (TimeoutError, asyncio.TimeoutError, ConnectionError):
            pass  # idle or gone: closed below
        finally:
            self.log.info("control connection closed", extra={"peer": peer})
            writer.close()
