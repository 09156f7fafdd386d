"""The supervisor key on the wire (docs/wire/modbus-wagering.md, "The supervisor key"), shared by
the rig's adapters, the conformance kit and the firmware stubs.

* In a device URL the key is the query parameter ``supervisor_key=<32 hex digits>``:
  ``tcp://127.0.0.1:5020?supervisor_key=…``, ``rtu:///dev/ttyUSB0?baudrate=115200&supervisor_key=…``,
  ``/dev/pts/7?supervisor_key=…``, ``socket://127.0.0.1:7000?supervisor_key=…``. ``split_key`` takes
  it out (a serial URL goes to pyserial without it) and ``redact`` hides it where a URL is recorded.
* In registers it is 8 ``uint16`` values: element *i* = key byte 2*i* << 8 | key byte 2*i* + 1
  (``key_words`` / ``words_key``).
* In a serial frame it is 16 ``uint8`` fields ``key_0`` … ``key_15``, byte *i* in ``key_i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from devices.supervisor import KEY_BYTES, parse_key

#: the URL query parameter that carries the key
QUERY = "supervisor_key"
#: the refusals' Modbus exception codes (docs/wire/modbus-wagering.md)
WRONG_KEY_EXCEPTION = 1  # ILLEGAL_FUNCTION: this request is not permitted to a client without the key
LOCKED_EXCEPTION = 6  # DEVICE_BUSY: the key is locked after too many wrong ones; try later


def split_key(url: str) -> tuple[str, bytes | None]:
    """``url`` without its ``supervisor_key`` query parameter, and the key (None: not given).
    ValueError for a key that is not 32 hex digits."""
    u = urlsplit(url)
    if not u.query:
        return url, None
    pairs = parse_qsl(u.query, keep_blank_values=True)
    keys = [v for k, v in pairs if k == QUERY]
    if not keys:
        return url, None
    if len(keys) > 1:
        raise ValueError(f"{redact(url)}: {QUERY} given {len(keys)} times")
    rest = urlencode([(k, v) for k, v in pairs if k != QUERY])
    return urlunsplit((u.scheme, u.netloc, u.path, rest, u.fragment)), parse_key(keys[0])


def with_key(url: str, key: bytes) -> str:
    """``url`` with ``?supervisor_key=<hex>`` added (a stub's READY line)."""
    sep = "&" if urlsplit(url).query else "?"
    return f"{url}{sep}{QUERY}={key.hex()}"


def redact(url: str) -> str:
    """``url`` with the key's value hidden (what a trace or an error message may carry)."""
    u = urlsplit(url)
    if QUERY not in u.query:
        return url
    pairs = [(k, "<redacted>" if k == QUERY else v) for k, v in parse_qsl(u.query, keep_blank_values=True)]
    return urlunsplit((u.scheme, u.netloc, u.path, urlencode(pairs, safe="<>"), u.fragment))


def key_words(key: bytes | None) -> list[int]:
    """The key as 8 register values (no key: 8 zeros, which a device refuses)."""
    k = key or b"\0" * KEY_BYTES
    return [k[i] << 8 | k[i + 1] for i in range(0, KEY_BYTES, 2)]


def words_key(words: Sequence[int]) -> bytes:
    """8 register values as the key's bytes."""
    return b"".join(int(w & 0xFFFF).to_bytes(2, "big") for w in words)


def key_fields(key: bytes | None) -> dict[str, int]:
    """The key as a serial frame's ``key_0`` … ``key_15`` fields."""
    k = key or b"\0" * KEY_BYTES
    return {f"key_{i}": k[i] for i in range(KEY_BYTES)}


def fields_key(fields: dict) -> bytes:
    return bytes(int(fields[f"key_{i}"]) & 0xFF for i in range(KEY_BYTES))
