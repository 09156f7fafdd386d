"""The supervisor key of a wagering device or progressive table game system: the commands that
move money or open a round need it (docs/wire/modbus-progressive-system.md, "The supervisor key";
docs/security.md, "Meter writes and the supervisor key").

A real progressive controller takes a supervisor's key (a key switch, a card, a PIN) for what a
dealer alone may not do — pay a jackpot, change a meter — and the dealer's station opens each
round. Over a wire anyone who reaches the port can send a command, so the device tells the rig
from a stranger by a secret: ``KEY_BYTES`` random bytes the device holds (its configuration; a
firmware stub draws them at start) and the rig sends with every guarded command, in the same
request. ``SupervisorGuard`` is the one place that judges it, for the SimPy models and every wire:

* the key is compared in constant time (``hmac.compare_digest``);
* a wrong key refuses the command (``SupervisorRefused``, reason ``wrong_key``) and nothing
  changes; ``LOCK_AFTER`` wrong keys in a row from one client lock that client out for ``LOCK_S``
  seconds of device time, during which every guarded command it sends is refused (reason
  ``locked``), the right key too. The lock is per client (``peer()``: a Modbus TCP connection's
  "host:port"; one lock for the whole device where the wire has no peers, e.g. a serial line), so
  a stranger's wrong keys never lock the rig out of its own device; it makes guessing slower still
  (a 128-bit key is not found by guessing anyway) and keeps a noisy client quiet;
* every refusal is counted (``refusals``) and reported to ``on_refusal`` (the stub logs it with the
  peer's address, rate-limited).

A model built without a key (``key=None``: the rig's own in-process SimPy bench, where no other
client exists) guards nothing.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

#: the key's length: 16 bytes (128 bits), 32 hex digits, 8 Modbus registers
KEY_BYTES = 16
#: wrong keys in a row that lock the guard
LOCK_AFTER = 5
#: how long the guard stays locked (device seconds)
LOCK_S = 30.0

#: the commands a key guards (the names the refusals carry)
GUARDED = ("round_open", "pay", "confirm", "win_light")


class SupervisorRefused(PermissionError):
    """A guarded command refused: ``reason`` is ``wrong_key`` or ``locked``; nothing changed."""

    def __init__(self, command: str, reason: str, detail: str) -> None:
        self.command, self.reason = command, reason
        super().__init__(f"{command}: {detail}")


def parse_key(text: str) -> bytes:
    """A key given as hex text (``--supervisor-key``, ``?supervisor_key=``): exactly ``KEY_BYTES``
    bytes, not all zero (an all-zero key is what an unwritten register block holds)."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError(f"supervisor key {text!r}: expected {2 * KEY_BYTES} hex digits") from None
    if len(key) != KEY_BYTES:
        raise ValueError(f"supervisor key: expected {2 * KEY_BYTES} hex digits ({KEY_BYTES} bytes), not {2 * len(key)}")
    if not any(key):
        raise ValueError("supervisor key: all zero is not a key (it is what an unwritten key block reads)")
    return key


def new_key() -> bytes:
    """A fresh random key (a stub's at start)."""
    while not any(key := secrets.token_bytes(KEY_BYTES)):
        pass
    return key


@dataclass
class Refusal:
    """One refused command, as ``on_refusal`` gets it."""

    command: str
    reason: str  # "wrong_key" | "locked"
    device_time_s: float
    wrong_in_a_row: int
    locked_until_s: float | None


class SupervisorGuard:
    """Judges the key of every guarded command (see the module docstring). ``now`` gives the device
    time in seconds (the model's ``env.now``)."""

    #: clients whose wrong-key count is kept (the oldest forgotten first)
    MAX_PEERS = 256

    def __init__(self, key: bytes | None, now: Callable[[], float],
                 on_refusal: Callable[[Refusal], None] | None = None,
                 peer: Callable[[], str | None] = lambda: None) -> None:
        if key is not None and (len(key) != KEY_BYTES or not any(key)):
            raise ValueError(f"a supervisor key is {KEY_BYTES} bytes, not all zero")
        self.key, self.now, self.peer = key, now, peer
        self.on_refusal = on_refusal or (lambda _r: None)
        self.refusals = 0  # refused commands since power-up
        #: per client (None: the device's one line): [wrong keys in a row, locked until (device s) or None]
        self._clients: dict[str | None, list] = {}

    def _client(self) -> list:
        who = self.peer()
        state = self._clients.pop(who, None) or [0, None]
        self._clients[who] = state  # the most recent last
        while len(self._clients) > self.MAX_PEERS:
            del self._clients[next(iter(self._clients))]
        return state

    def locked_until_s(self, peer: str | None = None) -> float | None:
        """When ``peer``'s lock ends (None: not locked)."""
        state = self._clients.get(peer)
        return state[1] if state else None

    @property
    def enabled(self) -> bool:
        return self.key is not None

    def check(self, command: str, key: bytes | None) -> None:
        """Raise ``SupervisorRefused`` unless ``key`` is the device's (and the guard is not locked)."""
        if self.key is None:
            return
        t = self.now()
        state = self._client()
        if state[1] is not None and t < state[1]:
            self._refuse(command, "locked", t, state, f"the supervisor key is locked for {state[1] - t:.1f} s more "
                                                      f"after {LOCK_AFTER} wrong keys")
        given = key if isinstance(key, bytes | bytearray) and len(key) == KEY_BYTES else b"\0" * KEY_BYTES
        if hmac.compare_digest(bytes(given), self.key):
            state[0], state[1] = 0, None
            return
        state[0] += 1
        if state[0] >= LOCK_AFTER:
            state[0], state[1] = 0, t + LOCK_S
        self._refuse(command, "wrong_key", t, state, "wrong supervisor key" if key and any(key) else "no supervisor key")

    def _refuse(self, command: str, reason: str, t: float, state: list, detail: str) -> None:
        self.refusals += 1
        self.on_refusal(Refusal(command, reason, t, state[0], state[1]))
        raise SupervisorRefused(command, reason, detail)
